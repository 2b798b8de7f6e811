"""A small KB whose every page has a known answer, for the Datasette and browser tests.

Two device targets with two versions of neuron (only the newest may reach the matrix), a
static probe run on tpu, a doc/probe disagreement, a compile-mode verdict and end-of-support
statements (one superseded, one past).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from kb.store import records as rec
from kb.store.ingest import ingest_records
from tests.conftest import REPO, op_status, probe_run, prov

NEURON = "2.14.3.0"
NEURON_OLD = "2.13.0.0"
TPU = "0.2.0"
RUN = "static-tpu-0001"

# The coverage matrix (eager, newest versions) this KB must show.
COVERAGE = {
    "aten::add.Scalar": {"neuron": "unsupported", "tpu": "native"},
    "aten::add.Tensor": {"neuron": "native", "tpu": "native"},
    "aten::nonzero": {"neuron": "fallback", "tpu": "unsupported"},
    "aten::relu": {"neuron": "native", "tpu": "native"},
    "aten::silu": {"neuron": "native", "tpu": "fallback"},
}


def _static(op: str, status: str) -> rec.OpStatus:
    return op_status(op, status, target="tpu", version=TPU, kind="static_probe", name="probe", run=RUN)


def build(path: str) -> str:
    """Ingest the fixture records into the KB at `path` (built from the test's data/ first)."""
    neuron_doc = dict(name="neuron-doc", url="https://example.test/neuron/ops")
    ingest_records(path, [
        op_status("aten::add.Tensor", "native", **neuron_doc),
        op_status("aten::add.Scalar", "unsupported", **neuron_doc),
        op_status("aten::relu", "native", **neuron_doc),
        op_status("aten::silu", "native", **neuron_doc),
        op_status("aten::nonzero", "fallback", **neuron_doc),
        op_status("aten::nonzero", "unsupported", mode="compile", **neuron_doc),
        op_status("aten::nonzero", "unsupported", version=NEURON_OLD, **neuron_doc),
        op_status("aten::add.Tensor", "fallback", version=NEURON_OLD, **neuron_doc),
    ], source_name="neuron-doc")
    ingest_records(path, [
        op_status("aten::relu", "fallback", target="tpu", version=TPU, name="tpu-doc",
                  url="https://example.test/tpu/ops"),
    ], source_name="tpu-doc")
    ingest_records(path, [
        probe_run(RUN, kind="static", target="tpu", version=TPU),
        _static("aten::add.Tensor", "native"),
        _static("aten::add.Scalar", "native"),
        _static("aten::relu", "native"),
        _static("aten::silu", "fallback"),
        _static("aten::nonzero", "unsupported"),
    ], source_name="probe")
    eol = prov(name="neuron-eol", url="https://example.test/neuron/eol")
    ingest_records(path, [
        rec.SupportWindow(product="neuron-sdk", cycle="2.33", eol="2099-03-01", eol_kind="projected",
                          statement_date="2026-09-01", provenance=eol),
        rec.SupportWindow(product="neuron-sdk", cycle="2.33", eol="2099-06-01", eol_kind="announced",
                          statement_date="2026-11-01", provenance=eol),
        rec.SupportWindow(product="torch_tpu", cycle="0.1", eol="2001-01-01", eol_kind="announced",
                          provenance=eol),
    ], source_name="neuron-eol")
    return path


FIXTURE_OPS = ("aten::add.Tensor", "aten::add.Scalar", "aten::nonzero", "aten::relu", "aten::silu")


def make_data_dir(data: Path) -> Path:
    """A data/ folder with the real targets and a five-op catalog (like conftest's small_data)."""
    (data / "ops").mkdir(parents=True)
    shutil.copy(REPO / "data" / "targets.csv", data / "targets.csv")
    with open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl", encoding="utf-8") as src, \
            open(data / "ops" / "aten-torch-2.13.0.jsonl", "w", encoding="utf-8") as dst:
        dst.writelines(line for line in src if any(f'"name": "{op}"' in line for op in FIXTURE_OPS))
    return data

