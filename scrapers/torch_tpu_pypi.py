"""TorchTPU releases from PyPI's JSON API (`https://pypi.org/pypi/torch_tpu/json`) →
`Release` rows (product `torch_tpu`): version, upload date, Python versions of the
wheels, and for the newest release its PyTorch requirement.
"""

from __future__ import annotations

import json
import re

from kb.store.records import Record, Release
from scrapers.base import Document, ScrapeError, Source, provenance
from scrapers.dates import DateError, from_timestamp

NAME = "torch-tpu-pypi"
PRODUCT = "torch_tpu"
URL = "https://pypi.org/pypi/torch_tpu/json"


def _python(filename: str) -> list[str]:
    """Python versions of a wheel from its tags: "…-cp311-cp311-manylinux…whl" → ["3.11"]."""
    return [f"{digits[0]}.{digits[1:]}" for digits in re.findall(r"(?<![a-z])cp(\d{2,3})(?!\d)", filename)]


def parse(doc: Document) -> list[Record]:
    try:
        data = json.loads(doc.text)
    except json.JSONDecodeError as exc:
        raise ScrapeError(NAME, doc.name, f"not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("releases"), dict) or "info" not in data:
        raise ScrapeError(NAME, doc.name, "not a PyPI project answer (no 'info' and 'releases')")
    info = data["info"] or {}
    latest = info.get("version")
    torch_req = [r for r in info.get("requires_dist") or [] if re.match(r"^torch\b(?!_)", r)]
    prov = provenance(NAME, "release_notes", doc)
    records: list[Record] = []
    for version, files in data["releases"].items():
        files = [f for f in files or [] if isinstance(f, dict)]
        live = [f for f in files if not f.get("yanked")]
        if not live:
            continue  # a version with no files (or only yanked ones) was never installable
        try:
            dates = sorted(from_timestamp(f["upload_time_iso_8601"]) for f in live if f.get("upload_time_iso_8601"))
        except DateError as exc:
            raise ScrapeError(NAME, doc.name, f"{version}: {exc}") from None
        pythons = sorted({p for f in live for p in _python(f.get("filename", ""))})
        notes = []
        requires = {f.get("requires_python") for f in live if f.get("requires_python")}
        if requires:
            notes.append("Requires-Python " + ", ".join(sorted(requires)))
        if version == latest and torch_req:
            notes.append("requires " + "; ".join(torch_req))
        records.append(Release(product=PRODUCT, version=version, provenance=prov, date=dates[0] if dates else None,
                               python_versions=tuple(pythons), note="; ".join(notes) or None))
    return records


SOURCE = Source(
    name=NAME,
    description="TorchTPU (torch_tpu) releases on PyPI",
    kind="release_notes",
    urls=(URL,),
    parse=parse,
)
