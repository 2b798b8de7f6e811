"""Legacy torch-neuronx (PyTorch/XLA) supported-operator list
(`frameworks/torch/torch-neuronx/pytorch-neuron-supported-operators.rst`) → `OpStatus`
rows, target `neuron-xla`.

The page names op families (`aten::add`), not overloads, and carries no version. The
version is taken from the package manifest of the same documentation snapshot: the
newest torch-neuronx it lists, labelled with its SDK release in each row's note. So
this source reads two documents: the page and the manifest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kb.opnames import OpNameError, canonical
from kb.store.records import OpStatus, Record
from kb.vocab import FAMILY_GRANULARITY
from scrapers import neuron_manifest, rst
from scrapers.base import Document, ScrapeError, Source, provenance
from scrapers.neuron_docs import public_url

NAME = "neuron-xla-op-list"
TARGET = "neuron-xla"
PATH = "frameworks/torch/torch-neuronx/pytorch-neuron-supported-operators.rst"
_OP = re.compile(r"^aten::[A-Za-z_][\w.]*$")


def op_names(doc: Document) -> list[str]:
    """The ATen names listed on the page (grid-table cells or bullets), in page order."""
    if "supported" not in doc.text.lower() or "aten::" not in doc.text:
        raise ScrapeError(NAME, doc.name, "no ATen operator list found (expected a table of aten:: names)")
    lines = doc.text.splitlines()
    cells = [rst.plain(cell) for cell in rst.grid_cells(lines)]
    if not cells:
        cells = [rst.plain(item) for item in rst.bullets(lines)]
    names = [cell for cell in cells if cell.startswith("aten::")]
    bad = [cell for cell in names if not _OP.match(cell)]
    if bad:
        raise ScrapeError(NAME, doc.name, f"unreadable operator cells: {bad[:5]}")
    if not names:
        raise ScrapeError(NAME, doc.name, "the operator table is empty")
    return list(dict.fromkeys(names))


def parse_with_version(doc: Document, version: str, sdk: str | None) -> list[Record]:
    prov = provenance(NAME, "doc", doc)
    label = f"version: newest torch-neuronx in the docs snapshot's manifest (SDK {sdk})" if sdk else None
    records: list[Record] = []
    for name in op_names(doc):
        try:
            op = canonical(name)
        except OpNameError as exc:
            raise ScrapeError(NAME, doc.name, str(exc)) from None
        records.append(OpStatus(
            op=op, target=TARGET, backend_version=version, status="native", provenance=prov,
            torch_version=".".join(version.split(".")[:3]),
            note=label, detail={"listed_as": name, "granularity": FAMILY_GRANULARITY},
        ))
    return records


def parse(doc: Document) -> list[Record]:
    raise ScrapeError(NAME, doc.name, f"this source needs the package manifest too ({neuron_manifest.PATH}) "
                      "to label the list with a torch-neuronx version; pass the docs folder")


def parse_many(documents: Sequence[Document]) -> list[Record]:
    manifest = [d for d in documents if d.text.lstrip().startswith("{")]
    pages = [d for d in documents if d not in manifest]
    if not manifest or not pages:
        where = documents[0].name if documents else "<none>"
        raise ScrapeError(NAME, where, f"needs both the operator page and {neuron_manifest.PATH}")
    data = neuron_manifest.load(manifest[0], NAME)
    found = neuron_manifest.latest_package(data, "torch-neuronx")
    if found is None:
        raise ScrapeError(NAME, manifest[0].name, "the manifest lists no torch-neuronx release")
    version, sdk = found
    return [record for page in pages for record in parse_with_version(page, version, sdk)]


SOURCE = Source(
    name=NAME,
    description="Legacy torch-neuronx (PyTorch/XLA) supported ATen operator list",
    kind="doc",
    urls=(public_url(PATH), public_url(neuron_manifest.PATH)),
    parse=parse,
    local_paths=(PATH, neuron_manifest.PATH),
    parse_many=parse_many,
)
