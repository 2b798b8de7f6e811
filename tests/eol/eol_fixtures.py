"""Records for the end-of-support tests, written for these tests (dates invented but
shaped like Neuron's: SDK releases, "ends with Neuron 2.34", platform facts)."""

from __future__ import annotations

from kb.store import records as rec
from kb.store.ingest import ingest_records
from tests.conftest import prov


def window(product, cycle, *, at="2026-11-01T00:00:00+00:00", url="https://example.test/eos", sha="w", **fields):
    return rec.SupportWindow(product=product, cycle=cycle, provenance=prov(url=url, at=at, sha=sha), **fields)


def release(product, version, **fields):
    return rec.Release(product=product, version=version, provenance=prov(url="https://example.test/rn"), **fields)


def base_records():
    return [
        window("python", "3.9", eol="2026-12-15", eol_kind="announced", statement_date="2026-06-01",
               title="Python 3.9 support ends"),
        window("python", "3.10", eol_kind="with_release", eol_release="2.35", statement_date="2026-10-16"),
        window("Ubuntu", "20.04", eol="2025-06-01", eol_kind="announced", statement_date="2025-01-10"),
        window("pytorch", "2.8", eol="2027-02-01", eol_kind="projected", statement_date="2026-09-01"),
        window("pytorch-xla-on-neuron", "inference", eol_kind="with_release", eol_release="2.34",
               statement_date="2026-10-16", title="PyTorch/XLA inference ends in Neuron 2.34"),
        release("neuron-sdk", "2.33.0", date="2026-10-16", sdk_version="2.33.0"),
        release("torchneuron", "2.14.3.0", date="2026-10-19", sdk_version="2.33.0", torch_versions=("2.14.0",),
                python_versions=("3.12", "3.13"), instance_families=("Trn2", "Trn3")),
        release("torchneuron", "2.13.3.0", date="2026-10-19", sdk_version="2.33.0", torch_versions=("2.13.0",),
                python_versions=("3.12", "3.13"), instance_families=("Trn2", "Trn3")),
        rec.Limitation(target="neuron", product="neuron-sdk", version="2.33.0", feature="platform: Ubuntu 22.04",
                       status="end of support", provenance=prov(url="https://example.test/matrix")),
        rec.Limitation(target="neuron", product="neuron-sdk", version="2.33.0", feature="platform: Ubuntu 24.04",
                       status="supported", provenance=prov(url="https://example.test/matrix")),
    ]


def ingest(db_path, records, source="eol-test"):
    return ingest_records(str(db_path), records, source_name=source)
