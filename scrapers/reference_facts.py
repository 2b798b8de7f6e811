"""Facts with no public document we can fetch, restated by hand (source kind `manual`).

Two inputs, both from `shared/reference/facts/`:
- `manual-facts.csv` (kind, product, subject, value, note, source_url): TorchNeuron 2.33
  releases, platform matrix, limitations and fallback policy; TorchTPU 0.2.0; end-of-
  support statements seen only in secondary coverage. Each row keeps its own source URL.
- the list of ATen names a pre-release TorchNeuron development snapshot registers for
  PrivateUse1. It is evidence about that snapshot only, so it gets a version of its own
  (`0.1.0.dev0+g98154b8`) and never the 2.33 release's.
"""

from __future__ import annotations

import csv
import io
import re

from kb.opnames import OpNameError, canonical
from kb.store import records as rec

TOOL_VERSION = "reference_facts/1"
SNAPSHOT_VERSION = "0.1.0.dev0+g98154b8"
SNAPSHOT_URL = "https://github.com/parmoham-aws/test-repo-parmoham/tree/98154b867aa24562a3213e520d9ad7fd41032291"

# product words in the CSV -> (kb product, kb target)
_PRODUCTS = {
    "torch-neuronx (native TorchNeuron)": ("torchneuron", "neuron"),
    "torch_tpu": ("torch_tpu", "tpu"),
    "Neuron SDK": ("neuron-sdk", "neuron"),
}
# Whose end of life an `upstream-eol` row states: the product's own maintainers' (Python's
# devguide, Ubuntu's release cycle), never a vendor's support of it. kb.eol keeps these
# apart from what Neuron says about the same cycle by this source name.
UPSTREAM_SOURCE = "upstream-eol"
_UPSTREAM_DATE = re.compile(r"^(projected )?(\d{4}-\d{2}(?:-\d{2})?)$")
_SDK = re.compile(r"Neuron SDK (\d+\.\d+(?:\.\d+)?)")
_TORCH = re.compile(r"PyTorch (\d+\.\d+(?:\.\d+)?)")
_PYTHON = re.compile(r"Python ((?:\d\.\d+;?)+)")
_FAMILIES = re.compile(r"\b(Trn\d|Inf\d)\b")


class FactsError(ValueError):
    pass


def _split_product(product: str) -> tuple[str, str, str | None]:
    """'torch-neuronx (native TorchNeuron) 2.33' -> ('torchneuron', 'neuron', '2.33')."""
    for words, (kb_product, target) in _PRODUCTS.items():
        if product == words:
            return kb_product, target, None
        if product.startswith(words + " "):
            return kb_product, target, product[len(words) + 1:].strip()
    return re.sub(r"[^a-z0-9]+", "-", product.lower()).strip("-"), "", None


def _sdk_version(version: str) -> str:
    return version if version.count(".") >= 2 else version + ".0"


def parse_manual_facts(text: str, *, source_file_url: str, retrieved_at: str, sha256: str,
                       source_name: str = "manual-facts") -> list[rec.Record]:
    """Rows of manual-facts.csv as records; unknown row kinds are an error, not skipped.

    Kind `upstream-eol` is a product's own end of life (value: an ISO day or month,
    `projected YYYY-MM`, or `no end stated`), kept apart from any vendor's support of it."""
    rows = list(csv.DictReader(io.StringIO(text)))
    expected = {"kind", "product", "subject", "value", "note", "source_url"}
    # optional, per row: when the fact was read (facts read at different times keep their
    # own day) and when the vendor stated it (the newer statement wins in kb.eol)
    optional = {"retrieved_at", "statement_date"}
    if not rows or not expected <= set(rows[0]) or set(rows[0]) - expected - optional:
        found = sorted(rows[0]) if rows else []
        raise FactsError(f"{source_file_url}: expected columns {sorted(expected)} (optionally "
                         f"{sorted(optional)}), found {found}")
    out: list[rec.Record] = []
    for row in rows:
        kind, note = row["kind"], row["note"] or None
        prov = rec.Provenance(
            source_kind="manual", source_name=UPSTREAM_SOURCE if kind == "upstream-eol" else source_name,
            source_url=row["source_url"] or source_file_url, retrieved_at=row.get("retrieved_at") or retrieved_at,
            content_sha256=sha256, tool_version=TOOL_VERSION,
        )
        stated = row.get("statement_date") or None
        product, target, version = _split_product(row["product"])
        if kind == "release":
            out.append(_release(product, row["subject"], row["value"], note or "", prov))
        elif kind in ("limitation", "platform", "policy", "coverage-claim"):
            if not target:
                raise FactsError(f"{source_file_url}: no kb target for product {row['product']!r}")
            if version and target == "neuron":  # "... 2.33": an SDK release
                rel_product, rel_version = "neuron-sdk", _sdk_version(version)
            elif version:  # "torch_tpu 0.1.1": that package's own release
                rel_product, rel_version = product, version
            elif target == "neuron":
                rel_product, rel_version = "neuron-sdk", "2.33.0"
            else:
                rel_product, rel_version = product, "0.2.0"
            feature = row["subject"] if kind == "limitation" else f"{kind}: {row['subject']}"
            out.append(rec.Limitation(target=target, product=rel_product, version=rel_version, feature=feature,
                                      status=row["value"], note=note, provenance=prov))
        elif kind == "end-of-support":
            ends = re.search(r"ends in Neuron (\d+\.\d+)", row["value"])
            announced = re.search(r"announced (\d{4}-\d{2}-\d{2})", note or "")
            out.append(rec.SupportWindow(
                product=product, cycle=row["subject"], provenance=prov,
                eol_kind="with_release" if ends else None, eol_release=ends.group(1) if ends else None,
                statement_date=stated or (announced.group(1) if announced else None),
                title=f"{row['product']}: {row['subject']} {row['value']}", note=note,
            ))
        elif kind == "upstream-eol":
            out.append(_upstream_window(product, row, note, stated, prov, source_file_url))
        elif kind == "op":
            out.extend(_op_rows(row, target, version, note or "", prov, source_file_url))
        else:
            raise FactsError(f"{source_file_url}: unknown fact kind {kind!r}")
    return out


def _upstream_window(product: str, row: dict, note: str | None, stated: str | None, prov: rec.Provenance,
                     where: str) -> rec.SupportWindow:
    """A product's own end of life; "no end stated" is a statement too (with its source)."""
    value = row["value"].strip()
    m = _UPSTREAM_DATE.match(value)
    if not m and value.lower() != "no end stated":
        raise FactsError(f"{where}: upstream-eol {row['product']} {row['subject']}: value {value!r} is not a date, "
                         "'projected YYYY-MM' or 'no end stated'")
    return rec.SupportWindow(
        product=product, cycle=row["subject"], provenance=prov, statement_date=stated,
        eol=m.group(2) if m else None, eol_kind=("projected" if m.group(1) else "announced") if m else None,
        title=f"{row['product']} {row['subject']}: {'own end of life ' + value if m else value}", note=note,
    )


_OP_KEYS = {"modes", "instance", "via"}


def _op_rows(row: dict, target: str, version: str | None, note: str, prov: rec.Provenance,
             where: str) -> list[rec.OpStatus]:
    """An `op` row: a page names this op's status for one package version (subject: the op,
    value: the status). The note's `modes: eager, compile`, `instance: Trn3` and `via: ...`
    parts become the modes and the structured conditions; the rest stays the note."""
    if not target or not version:
        raise FactsError(f"{where}: op row {row['subject']!r}: the product must name a target and its package version")
    parts, free = {}, []
    for piece in (p.strip() for p in note.split(";")):
        key, sep, value = piece.partition(":")
        if sep and key.strip() in _OP_KEYS:
            parts[key.strip()] = value.strip()
        elif piece:
            free.append(piece)
    modes = [m.strip() for m in parts.pop("modes", "eager").split(",") if m.strip()]
    conditions = {}
    if "instance" in parts:
        conditions["instance_families"] = [v.strip() for v in parts["instance"].split(",") if v.strip()]
    if "via" in parts:
        conditions["via"] = parts["via"]
    try:
        op = canonical(row["subject"])
    except OpNameError as exc:
        raise FactsError(f"{where}: {exc}") from None
    try:
        return [rec.OpStatus(op=op, target=target, backend_version=version, status=row["value"].strip(), mode=mode,
                             provenance=prov, conditions=conditions or None, note="; ".join(free) or None)
                for mode in modes]
    except rec.RecordError as exc:
        raise FactsError(f"{where}: {exc}") from None


def _release(product: str, version: str, date: str, note: str, prov: rec.Provenance) -> rec.Release:
    sdk = _SDK.search(note)
    torch_version = _TORCH.search(note)
    python = _PYTHON.search(note)
    return rec.Release(
        product=product, version=version, provenance=prov, date=date or None,
        sdk_version=sdk.group(1) if sdk else None,
        torch_versions=(torch_version.group(1),) if torch_version else (),
        python_versions=tuple(v for v in python.group(1).split(";") if v) if python else (),
        instance_families=tuple(dict.fromkeys(_FAMILIES.findall(note))),
        os=("Linux x86_64",) if "Linux x86_64" in note else (),
        channel="beta" if "beta" in note else None,
        note=note or None,
    )


def parse_snapshot_ops(text: str, *, source_file_url: str, retrieved_at: str, sha256: str) -> list[rec.Record]:
    """The pre-release snapshot's registered ATen names as `native` on its own version."""
    lines = [line.strip() for line in text.splitlines()]
    names = [line for line in lines if line and not line.startswith("#")]
    if not names:
        raise FactsError(f"{source_file_url}: no operator names")
    prov = rec.Provenance(source_kind="manual", source_name="torchneuron-dev-snapshot", source_url=SNAPSHOT_URL,
                          retrieved_at=retrieved_at, content_sha256=sha256, tool_version=TOOL_VERSION)
    release = rec.Release(
        product="torchneuron", version=SNAPSHOT_VERSION, provenance=prov, date="2026-04-21", channel="pre-release",
        torch_versions=("2.10",),
        note="development snapshot of the native TorchNeuron backend (package version 0.1.0, torch~=2.10), "
             "not a Neuron SDK release; its op set may differ from 2.33",
    )
    out: list[rec.Record] = [release]
    for name in sorted(set(names)):
        try:
            op = canonical(name)
        except OpNameError as exc:
            raise FactsError(f"{source_file_url}: {exc}") from None
        out.append(rec.OpStatus(op=op, target="neuron", backend_version=SNAPSHOT_VERSION, status="native",
                                provenance=prov, note="registered for PrivateUse1 at import (pre-release snapshot)"))
    return out


def _file_url(doc) -> str:
    """These files have no public copy: cite them by their place in shared/reference."""
    return f"file://shared/reference/{doc.path}" if doc.path else doc.url


def _parse_facts_doc(doc) -> list[rec.Record]:
    return parse_manual_facts(doc.text, source_file_url=_file_url(doc), retrieved_at=doc.retrieved_at, sha256=doc.sha256)


def _parse_project_facts_doc(doc) -> list[rec.Record]:
    where = f"file://scrapers/{doc.path}" if doc.path else doc.url
    return parse_manual_facts(doc.text, source_file_url=where, retrieved_at=doc.retrieved_at, sha256=doc.sha256,
                              source_name=PROJECT_FACTS)


# Facts of 2026-10/11 read through the docs search (Neuron 2.34, its announcements) and
# upstream end-of-life dates: a project file, since shared/reference is read-only. Each row
# names its vendor page and the time it was read.
PROJECT_FACTS = "manual-facts-2026-11"


def _parse_snapshot_doc(doc) -> list[rec.Record]:
    return parse_snapshot_ops(doc.text, source_file_url=_file_url(doc), retrieved_at=doc.retrieved_at, sha256=doc.sha256)


def _sources():
    from scrapers.base import Source

    return (
        Source(name="manual-facts", kind="manual", urls=(), parse=_parse_facts_doc,
               local_paths=("facts/manual-facts.csv",),
               description="Facts restated by hand (TorchNeuron 2.33, TorchTPU 0.2.0); local file only"),
        Source(name="torchneuron-dev-snapshot", kind="manual", urls=(), parse=_parse_snapshot_doc,
               local_paths=("facts/torchneuron-dev-snapshot-registered-ops.txt",),
               description="ATen names a pre-release TorchNeuron snapshot registers; local file only"),
        Source(name=PROJECT_FACTS, kind="manual", urls=(), parse=_parse_project_facts_doc,
               local_paths=("facts/manual-facts-2026-11.csv",),
               description="Neuron 2.34 facts (2026-10/11) and upstream end-of-life dates; "
                           "kb ingest --source manual-facts-2026-11 --from-file scrapers"),
    )


SOURCES = _sources()
