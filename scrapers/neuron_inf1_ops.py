"""Inf1 `torch-neuron` operator history
(`release-notes/archive/neuron-cc/neuron-cc-ops/neuron-cc-ops-pytorch.rst`) → `OpStatus`
rows for each change the page records: an op added (native from that release on),
added with limits (native, with the stated condition as a note), or removed
(unsupported from that release on).

Target: `inf1`, the `torch-neuron` trace compiler for Inferentia 1. Its versions
(1.0.552.0 … 2.9.1.0) are torch-neuron's, a package of its own: filed under the
PyTorch/XLA target (`neuron-xla`), they would have mixed with torch-neuronx's versions
in one release line and made a 2019 Inf1 release look like the newest XLA data.
Versions are the neuron part of the package version as the page writes it.
`prim::` entries are TorchScript primitives, not ATen ops, and are skipped.
"""

from __future__ import annotations

import re

from kb.opnames import OpNameError, canonical
from kb.store.records import OpStatus, Record
from kb.vocab import FAMILY_GRANULARITY
from scrapers import rst
from scrapers.base import Document, ScrapeError, Source, provenance
from scrapers.dates import DateError, parse_date
from scrapers.neuron_docs import public_url

NAME = "neuron-inf1-op-history"
TARGET = "inf1"
PATH = "release-notes/archive/neuron-cc/neuron-cc-ops/neuron-cc-ops-pytorch.rst"

_RELEASE = re.compile(r"release\s*\[(?P<inside>[^\]]+)\]", re.I)
_ENTRY = re.compile(r"^\s*[-*+]\s+``(?P<op>(?:aten|prim)::[\w.]+)``\s*(?P<rest>.*)$")


def _version(inside: str) -> tuple[str, str | None]:
    """(version, sdk) from a heading's bracket: "2.9.0.0" or
    "package version 1.*.*.2.9.1.0, SDK 2.13.0"."""
    sdk = None
    if m := re.search(r"SDK\s+([\d.]+)", inside):
        sdk = m[1]
    if m := re.search(r"package version\s+([\w.*]+)", inside):
        version = re.sub(r"^(\d+|\*)\.(\d+|\*)\.(\d+|\*)\.", "", m[1])  # drop the torch part
        return version, sdk
    return inside.split(",")[0].strip(), sdk


def conditions(text: str) -> dict | None:
    """Structured argument conditions from "Supported when ``p`` argument is one of
    (``1``, ``2``, ``inf``)" → {"p": ["1", "2", "inf"]}; None when there is none."""
    m = re.search(r"when\s+(?:the\s+)?``(\w+)``\s+argument\s+is\s+one\s+of\s*\(([^)]*)\)", text)
    if not m:
        return None
    values = [v.strip().strip("`'\"") for v in m[2].split(",")]
    return {m[1]: [v for v in values if v]}


def _mode(line: str, current: str | None) -> str | None:
    text = line.lower()
    if "already supported previously" in text:
        return "already"
    if "remove support" in text or "removed support" in text:
        return "removed"
    if "limited" in text and "support" in text:
        return "limited"
    if "added support for new operators" in text or "support for new operators" in text:
        return "added"
    return current


def events(doc: Document) -> list[dict]:
    """Every recorded change, in page order (newest release first)."""
    found: list[dict] = []
    for section in rst.sections(doc.text):
        heading = _RELEASE.search(section.title)
        if not heading:
            continue
        version, sdk = _version(heading["inside"])
        date = None
        mode: str | None = None
        for line in section.lines:
            if m := re.match(r"^\s*Date:\s*(.+)$", line):
                try:
                    date = parse_date(m[1])
                except DateError:
                    raise ScrapeError(NAME, doc.name, f"release {version}: unreadable date {m[1]!r}") from None
                continue
            entry = _ENTRY.match(line)
            if entry is None:
                mode = _mode(line, mode)
                continue
            if mode is None:
                raise ScrapeError(NAME, doc.name, f"release {version}: operator {entry['op']} outside a known list "
                                  "(expected 'Added support…', 'limited support…' or 'Remove support…')")
            if mode == "already":
                continue
            note = rst.plain(entry["rest"].lstrip(":- ").strip()) or None
            found.append({"op": entry["op"], "kind": mode, "version": version, "sdk": sdk, "date": date,
                          "note": note, "conditions": conditions(entry["rest"])})
    return found


def parse(doc: Document) -> list[Record]:
    prov = provenance(NAME, "release_notes", doc)
    records: list[Record] = []
    for event in events(doc):
        if event["op"].startswith("prim::"):
            continue
        try:
            op = canonical(event["op"])
        except OpNameError as exc:
            raise ScrapeError(NAME, doc.name, str(exc)) from None
        status = "unsupported" if event["kind"] == "removed" else "native"
        wording = {"added": "added in", "limited": "added with limits in", "removed": "removed in"}[event["kind"]]
        note = f"{wording} torch-neuron {event['version']}"
        if event["note"]:
            note += f": {event['note']}"
        detail = {"listed_as": event["op"], "change": event["kind"], "granularity": FAMILY_GRANULARITY}
        if event["date"]:
            detail["release_date"] = event["date"]
        if event["sdk"]:
            detail["sdk_version"] = event["sdk"]
        records.append(OpStatus(op=op, target=TARGET, backend_version=event["version"], status=status,
                                provenance=prov, note=note, detail=detail, conditions=event["conditions"]))
    return records


SOURCE = Source(
    name=NAME,
    description="Inf1 torch-neuron supported operators, with the release that added or removed each",
    kind="release_notes",
    urls=(public_url(PATH),),
    parse=parse,
    local_paths=(PATH,),
)
