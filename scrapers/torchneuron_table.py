"""TorchNeuron operator compatibility table (`docs/torch_api_compatibility.md` in
aws-neuron/torch-neuronx) → `OpStatus` rows, target `neuron`.

No copy of the page was available when this was written, so the reader assumes only
that it holds markdown tables with an operator/API column and a status column (maybe
one per mode: eager / compile), optionally dtypes and notes. Columns are found by what
their headers mean; status cells may be words or symbols (✅ ⚠️ ❌ …). A table whose
headers half-match (an operator column without a status column, or the reverse) and a
status word nobody taught this module are errors naming the file — never a guess.

Version: the page lives on `main`, not on a release tag, so rows are labelled with the
newest TorchNeuron release known when this was written (2.14.3.0, Neuron SDK 2.33.0)
and say so in their note; pass another version to `parse_table`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

from kb.opnames import OpNameError, canonical
from kb.store.records import OpStatus, Record
from scrapers.base import Document, ScrapeError, Source, provenance

NAME = "torchneuron-op-table"
TARGET = "neuron"
URL = "https://github.com/aws-neuron/torch-neuronx/blob/main/docs/torch_api_compatibility.md"
DEFAULT_VERSION = "2.14.3.0"
DEFAULT_SDK = "2.33.0"

_OP_WORDS = ("operator", "operation", " op", "op ", "api", "function", "aten", "torch")
_OP_EXACT = {"op", "ops", "name", "operator", "operators", "api", "function", "method"}
_STATUS_WORDS = ("status", "support", "neuron", "eager", "compile", "available")
_DTYPE_WORDS = ("dtype", "data type", "datatype", "types", "precision")
_NOTE_WORDS = ("note", "comment", "remark", "limitation", "fallback", "detail", "restriction", "caveat")

_SYMBOLS = [
    ("✅", "native"), ("✔", "native"), ("✓", "native"), ("☑", "native"), ("🟢", "native"),
    ("❌", "unsupported"), ("✘", "unsupported"), ("✗", "unsupported"), ("⛔", "unsupported"), ("🚫", "unsupported"),
    ("🔴", "unsupported"), ("🔄", "fallback"), ("↩", "fallback"), ("⚠", "partial"), ("🟡", "partial"),
]
_WORDS = [  # checked in order: the first phrase found decides
    ("cpu fallback", "fallback"), ("falls back", "fallback"), ("fallback", "fallback"), ("runs on cpu", "fallback"),
    ("not supported", "unsupported"), ("unsupported", "unsupported"), ("not implemented", "unsupported"),
    ("not available", "unsupported"), ("planned", "unsupported"), ("coming soon", "unsupported"),
    ("decomposed", "decomposed"), ("decomposition", "decomposed"), ("composite", "decomposed"),
    ("partially supported", "partial"), ("partial", "partial"), ("limited", "partial"),
    ("natively supported", "native"), ("native", "native"), ("fully supported", "native"),
    ("supported", "native"), ("implemented", "native"), ("full", "native"),
]
_YES_NO = {"yes": "native", "y": "native", "no": "unsupported", "n": "unsupported"}

_DTYPE_ALIASES = {
    "fp32": "float32", "float": "float32", "f32": "float32", "float32": "float32",
    "fp16": "float16", "half": "float16", "f16": "float16", "float16": "float16",
    "bf16": "bfloat16", "bfloat16": "bfloat16", "fp64": "float64", "double": "float64", "float64": "float64",
    "fp8": "float8", "int": "int32", "long": "int64", "bool": "bool", "boolean": "bool",
    "complex64": "complex64", "complex128": "complex128",
}


@dataclass
class Table:
    heading: str | None
    header: list[str]
    rows: list[list[str]]


def tables(text: str) -> list[Table]:
    """Every markdown table: header cells and body rows as raw inline markdown."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    found: list[Table] = []
    heading: str | None = None
    current: Table | None = None
    row: list[str] | None = None
    in_head = False
    for number, token in enumerate(tokens):
        if token.type == "heading_open":
            heading = tokens[number + 1].content.strip()
        elif token.type == "table_open":
            current = Table(heading=heading, header=[], rows=[])
        elif token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None and current is not None:
            row.append(token.content.strip())
        elif token.type == "tr_close" and current is not None and row is not None:
            if in_head:
                current.header = row
            else:
                current.rows.append(row)
            row = None
        elif token.type == "table_close" and current is not None:
            found.append(current)
            current = None
    return found


def _clean(cell: str) -> str:
    cell = re.sub(r"<br\s*/?>", ", ", cell, flags=re.I)
    cell = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell)  # links
    # Backticks and emphasis stars go; underscores stay (they are part of op names).
    return re.sub(r"[`*]", "", cell).strip()


def _header_key(cell: str) -> str:
    return f" {re.sub(r'[^a-z0-9.]+', ' ', _clean(cell).lower()).strip()} "


@dataclass
class Columns:
    op: int | None
    status: dict[str, int]  # mode -> column
    dtypes: int | None
    notes: int | None


def columns(header: list[str]) -> Columns:
    """Which column holds what, by the meaning of its header."""
    op = dtypes = notes = None
    status: dict[str, int] = {}
    for index, cell in enumerate(header):
        key = _header_key(cell)
        word = key.strip()
        if any(w in key for w in _DTYPE_WORDS):
            dtypes = index if dtypes is None else dtypes
        elif any(w in key for w in _NOTE_WORDS):
            notes = index if notes is None else notes
        elif any(w in key for w in _STATUS_WORDS) and word not in _OP_EXACT:
            mode = "compile" if "compile" in key else "eager"
            status.setdefault(mode, index)
        elif op is None and (word in _OP_EXACT or any(w in key for w in _OP_WORDS)):
            op = index
    return Columns(op=op, status=status, dtypes=dtypes, notes=notes)


def status_of(cell: str) -> str | None:
    """kb status (or "partial") of a status cell; None for an empty cell."""
    text = _clean(cell).lower()
    if not text or text in {"-", "—", "–", "?", "n/a", "tbd"}:
        return None
    for word, status in _WORDS:
        if word in text:
            return status
    for symbol, status in _SYMBOLS:
        if symbol in text:
            return status
    first = re.split(r"[\s,;(]", text, maxsplit=1)[0]
    if first in _YES_NO:
        return _YES_NO[first]
    raise ValueError(text)


def op_names(cell: str) -> tuple[list[tuple[str, str]], list[str]]:
    """[(canonical ATen name, as listed)] for a cell, and the names that are not ATen ops
    (module classes such as torch.nn.Linear)."""
    names, skipped = [], []
    for raw in re.split(r",|/|\s+or\s+|;", _clean(cell)):
        name = re.sub(r"\(.*\)$", "", raw.strip()).strip()
        if not name:
            continue
        mapped = name
        if not re.match(r"^(aten::|aten\.|torch\.ops\.aten\.)", name):
            for prefix, into in (("torch.nn.functional.", ""), ("F.", ""), ("torch.Tensor.", ""), ("Tensor.", ""),
                                 ("torch.linalg.", "linalg_"), ("torch.special.", "special_"), ("torch.fft.", "fft_"),
                                 ("torch.", "")):
                if name.startswith(prefix):
                    mapped = into + name[len(prefix):]
                    break
            if "." in mapped or not re.fullmatch(r"_*[a-z][a-z0-9_]*", mapped):
                skipped.append(name)
                continue
        try:
            names.append((canonical(mapped), name))
        except OpNameError:
            skipped.append(name)
    return names, skipped


def dtypes_of(cell: str) -> tuple[str, ...] | None:
    text = _clean(cell).lower()
    if not text or text in {"-", "all", "any", "all dtypes", "n/a"}:
        return None
    out = []
    for token in re.split(r"[\s,;/]+", text.replace("torch.", "")):
        token = token.strip("()")
        if token and re.fullmatch(r"[a-z]+[0-9]*", token) and token not in {"and", "only", "or"}:
            out.append(_DTYPE_ALIASES.get(token, token))
    return tuple(sorted(set(out))) or None


def parse_table(doc: Document, version: str = DEFAULT_VERSION, sdk: str | None = DEFAULT_SDK) -> list[Record]:
    found = tables(doc.text)
    if not found:
        raise ScrapeError(NAME, doc.name, "no markdown table found (empty or changed page?)")
    usable: list[tuple[Table, Columns]] = []
    for table in found:
        cols = columns(table.header)
        if cols.op is not None and cols.status:
            usable.append((table, cols))
        elif cols.op is not None or cols.status:
            raise ScrapeError(NAME, doc.name, f"table headers not understood: {table.header} "
                              "(need an operator/API column and a status column)")
    if not usable:
        headers = "; ".join(str(t.header) for t in found)
        raise ScrapeError(NAME, doc.name, f"no operator table among the headers found: {headers}")
    prov = provenance(NAME, "doc", doc)
    label = f"table read from main; labelled with TorchNeuron {version}" + (f" (Neuron SDK {sdk})" if sdk else "")
    records: list[Record] = []
    skipped: list[str] = []
    rows_seen = 0
    for table, cols in usable:
        for row in table.rows:
            if cols.op >= len(row) or not _clean(row[cols.op]):
                continue
            rows_seen += 1
            names, not_ops = op_names(row[cols.op])
            skipped += not_ops
            dtypes = dtypes_of(row[cols.dtypes]) if cols.dtypes is not None and cols.dtypes < len(row) else None
            note = _clean(row[cols.notes]) if cols.notes is not None and cols.notes < len(row) else ""
            for mode, index in cols.status.items():
                cell = row[index] if index < len(row) else ""
                try:
                    status = status_of(cell)
                except ValueError:
                    raise ScrapeError(NAME, doc.name, f"unknown status {cell!r} for {row[cols.op]!r} "
                                      f"(column {table.header[index]!r})") from None
                if status is None:
                    continue
                conditions = None
                if status == "partial":
                    status, conditions = "native", {"partial": True}
                for op, listed in names:
                    detail = {"listed_as": listed, "status_cell": _clean(cell)}
                    if table.heading:
                        detail["section"] = table.heading
                    records.append(OpStatus(
                        op=op, target=TARGET, backend_version=version, status=status, provenance=prov, mode=mode,
                        dtypes=dtypes, conditions=conditions, note="; ".join(p for p in (note, label) if p),
                        detail=detail,
                    ))
    if rows_seen and len(skipped) > rows_seen / 2:
        raise ScrapeError(NAME, doc.name, f"most operator names could not be mapped to ATen ops, e.g. {skipped[:5]}")
    return records


def parse(doc: Document) -> list[Record]:
    return parse_table(doc)


SOURCE = Source(
    name=NAME,
    description="TorchNeuron (native torch-neuronx) operator compatibility table",
    kind="doc",
    urls=(URL,),
    parse=parse,
)
