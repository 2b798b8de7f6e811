"""Neuron SDK package manifest (`src/helperscripts/n2-manifest.json` in aws-neuron-sdk):
package versions, Python versions and instance families per SDK release → `Release`
rows for the SDK (product `neuron-sdk`, with its components) and for the PyTorch
packages (`torch-neuronx`, `torch-neuron`).

The manifest carries no release dates (the release notes do); its `manifest_date` is
the date of its own newest release only.
"""

from __future__ import annotations

import json
from typing import Any

from kb.store.records import Record, Release
from scrapers.base import Document, ScrapeError, Source, provenance
from scrapers.dates import DateError, parse_date
from scrapers.neuron_docs import public_url

NAME = "neuron-sdk-manifest"
PATH = "src/helperscripts/n2-manifest.json"
# Packages that get a release row of their own, and the registry product each maps to
# (torch-neuronx up to 2.9 is the PyTorch/XLA backend: kb's product `torch-neuronx-xla`,
# the product of target `neuron-xla` in data/targets.csv).
TRACKED_PACKAGES = {"torch-neuronx": "torch-neuronx-xla", "torch-neuron": "torch-neuron", "torch-xla": "torch-xla",
                    "neuronx-cc": "neuronx-cc", "jax-neuronx": "jax-neuronx",
                    "libtorch_neuronx_lite": "libtorch_neuronx_lite"}


def load(doc: Document, source: str = NAME) -> dict[str, Any]:
    """The manifest as JSON, checked for the fields this code reads."""
    try:
        data = json.loads(doc.text)
    except json.JSONDecodeError as exc:
        raise ScrapeError(source, doc.name, f"not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("neuron_releases"), list):
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise ScrapeError(source, doc.name, f"no 'neuron_releases' list in the manifest (found: {keys})")
    for release in data["neuron_releases"]:
        if not isinstance(release, dict) or "neuron_version" not in release or not isinstance(release.get("packages"), list):
            raise ScrapeError(source, doc.name, "a release entry lacks 'neuron_version' or 'packages'")
    return data


def _version_key(version: str) -> tuple:
    return tuple(int(part) if part.isdigit() else 0 for part in version.split("."))


def latest_package(data: dict[str, Any], package: str) -> tuple[str, str] | None:
    """(package version, SDK version) of the newest SDK release that ships `package`."""
    releases = sorted(data["neuron_releases"], key=lambda r: _version_key(r["neuron_version"]), reverse=True)
    for release in releases:
        versions = [p["version"] for p in release["packages"] if p.get("name") == package and p.get("version")]
        if versions:
            return max(versions, key=_version_key), release["neuron_version"]
    return None


def _torch_version(package: str, version: str) -> str | None:
    """PyTorch version a framework package is built for (torch-neuronx 2.9.0.2.15.x → 2.9.0)."""
    parts = version.split(".")
    if package in ("torch-neuronx", "torch-neuron", "torch-xla", "libtorch_neuronx_lite") and len(parts) >= 3:
        return ".".join(parts[:3])
    return None


def parse(doc: Document) -> list[Record]:
    data = load(doc)
    prov = provenance(NAME, "release_notes", doc)
    latest = data.get("manifest_version")
    latest_date = None
    if data.get("manifest_date"):
        try:
            latest_date = parse_date(data["manifest_date"])
        except DateError:
            latest_date = None
    records: list[Record] = []
    for release in data["neuron_releases"]:
        sdk = release["neuron_version"]
        packages = [p for p in release["packages"] if isinstance(p, dict) and p.get("name") and p.get("version")]
        components: dict[str, str] = {}
        for package in packages:
            name = package["name"]
            # Several builds of one package (one per PyTorch version) are joined.
            components[name] = ";".join(sorted({*components.get(name, "").split(";"), package["version"]} - {""}, key=_version_key))
        pythons = sorted({v for p in packages for v in p.get("supported_python_versions") or []}, key=_version_key)
        instances = sorted({i for p in packages for i in p.get("supported_instances") or []})
        torch_versions = sorted({t for p in packages if (t := _torch_version(p["name"], p["version"]))
                                 and p["name"] in ("torch-neuronx", "torch-xla", "libtorch_neuronx_lite")}, key=_version_key)
        records.append(Release(
            product="neuron-sdk", version=sdk, provenance=prov, sdk_version=sdk,
            date=latest_date if sdk == latest else None,
            torch_versions=tuple(torch_versions), python_versions=tuple(pythons),
            instance_families=tuple(instances), components=components or None,
        ))
        for package in packages:
            if package["name"] not in TRACKED_PACKAGES:
                continue
            torch = _torch_version(package["name"], package["version"])
            records.append(Release(
                product=TRACKED_PACKAGES[package["name"]], version=package["version"], provenance=prov, sdk_version=sdk,
                torch_versions=(torch,) if torch else (),
                python_versions=tuple(package.get("supported_python_versions") or ()),
                instance_families=tuple(package.get("supported_instances") or ()),
            ))
    return _first_sdk_per_package(records)


def _first_sdk_per_package(records: list[Record]) -> list[Record]:
    """A package version shipped by several SDK releases keeps the earliest SDK that
    shipped it (one Release row per product and version)."""
    kept: dict[tuple[str, str], Release] = {}
    out: list[Record] = []
    for record in records:
        if record.product == "neuron-sdk":
            out.append(record)
            continue
        key = (record.product, record.version)
        if key not in kept or _version_key(record.sdk_version) < _version_key(kept[key].sdk_version):
            kept[key] = record
    return out + list(kept.values())


SOURCE = Source(
    name=NAME,
    description="Neuron SDK package manifest: package versions, Python versions, instances per SDK release",
    kind="release_notes",
    urls=(public_url(PATH),),
    parse=parse,
    local_paths=(PATH,),
)
