"""TorchTPU ATen coverage: `torch_tpu/ops/op_names.cc` in the torch_tpu repository maps
each kernel's enum to its ATen name in a C++ switch (`case OpName::kAddOut: return
"add.out";`) → `OpStatus` rows (`aten::add.out`, status native, target `tpu`).

The file lives on `main`; its version is the newest torch_tpu release on PyPI read in
the same run (the source's second document), else the newest release known when this
was written (0.2.0), and every row says which.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from kb.opnames import OpNameError, canonical
from kb.store.records import OpStatus, Record
from scrapers.base import Document, ScrapeError, Source, provenance

NAME = "torch-tpu-op-names"
TARGET = "tpu"
URL = "https://github.com/google-pytorch/torch_tpu/blob/main/torch_tpu/ops/op_names.cc"
PYPI_URL = "https://pypi.org/pypi/torch_tpu/json"
DEFAULT_VERSION = "0.2.0"

_CASE = re.compile(r"case\s+(?:\w+::)*(k\w+)\s*:\s*(?:\{\s*)?return\s+\"([^\"]+)\"\s*;", re.S)


def entries(doc: Document) -> list[tuple[str, str]]:
    """(enum name, ATen name) pairs in file order."""
    if "switch" not in doc.text:
        raise ScrapeError(NAME, doc.name, "no switch statement found (expected `case OpName::kX: return \"name\";`)")
    found = _CASE.findall(doc.text)
    if not found:
        raise ScrapeError(NAME, doc.name, "no `case OpName::kX: return \"name\";` entries found")
    return found


def parse_with_version(doc: Document, version: str, label: str) -> list[Record]:
    prov = provenance(NAME, "doc", doc)
    records: list[Record] = []
    seen: set[str] = set()
    for enum, name in entries(doc):
        try:
            op = canonical(name)
        except OpNameError as exc:
            raise ScrapeError(NAME, doc.name, f"{enum}: {exc}") from None
        if op in seen:
            continue
        seen.add(op)
        records.append(OpStatus(op=op, target=TARGET, backend_version=version, status="native", provenance=prov,
                                note=label, detail={"enum": enum, "listed_as": name}))
    return records


def parse(doc: Document) -> list[Record]:
    return parse_with_version(doc, DEFAULT_VERSION, f"source read from main; labelled with torch_tpu {DEFAULT_VERSION}, "
                              "the newest release known when the scraper was written")


def parse_many(documents: Sequence[Document]) -> list[Record]:
    pypi = [d for d in documents if d.text.lstrip().startswith("{")]
    sources = [d for d in documents if d not in pypi]
    if not sources:
        raise ScrapeError(NAME, documents[0].name if documents else "<none>", "op_names.cc is missing")
    if not pypi:
        return [r for d in sources for r in parse(d)]
    try:
        version = json.loads(pypi[0].text)["info"]["version"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise ScrapeError(NAME, pypi[0].name, "PyPI answer has no info.version") from None
    label = f"source read from main; labelled with torch_tpu {version}, the newest release on PyPI when read"
    return [r for d in sources for r in parse_with_version(d, version, label)]


SOURCE = Source(
    name=NAME,
    description="TorchTPU kernels' ATen names (op_names.cc switch)",
    kind="doc",
    urls=(URL, PYPI_URL),
    parse=parse,
    parse_many=parse_many,
)
