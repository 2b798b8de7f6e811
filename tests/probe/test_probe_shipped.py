"""The static probes shipped in data/probes/: well-formed, sorted, complete, and (where
this machine runs the same torch build) identical to what the probe reads here."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb import opnames
from kb.probe.backends import get_backend
from kb.probe.static import table_digest
from kb.store.records import OpStatus, ProbeRun, read_jsonl

PROBES = Path(__file__).resolve().parents[2] / "data" / "probes"
SHIPPED = {
    "static-cpu-torch-2.13.0.jsonl": ("cpu", "2.13.0"),
    "static-meta-torch-2.13.0.jsonl": ("meta", "2.13.0"),
    "static-torch_tpu-0.2.0.jsonl": ("tpu", "0.2.0"),
}


def load(name: str) -> tuple[ProbeRun, list[OpStatus]]:
    path = PROBES / name
    records = list(read_jsonl(path.read_text(encoding="utf-8").splitlines(), where=str(path)))
    return records[0], records[1:]


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_probe_is_complete_and_sorted(name):
    run, statuses = load(name)
    target, version = SHIPPED[name]
    assert isinstance(run, ProbeRun) and (run.kind, run.target, run.backend_version) == ("static", target, version)
    assert all(isinstance(s, OpStatus) for s in statuses)
    keys = [(s.op, s.mode) for s in statuses]
    assert keys == sorted(keys) and len(keys) == len(set(keys))
    modes = get_backend(run.backend).modes
    assert len(statuses) == run.params["ops"] * len(modes)
    for s in statuses:
        assert (s.target, s.backend_version, s.torch_version) == (target, version, run.torch_version)
        assert s.provenance.probe_run_id == run.run_id and s.provenance.content_sha256 == run.params["table_sha256"]
        assert opnames.canonical(s.op) == s.op


def test_shipped_cpu_table_matches_this_torch():
    torch = pytest.importorskip("torch")
    from kb.probe.dispatch import read_table

    run, statuses = load("static-cpu-torch-2.13.0.jsonl")
    if torch.__version__ != run.params["torch_build"]:
        pytest.skip(f"shipped for torch {run.params['torch_build']}, this is {torch.__version__}")
    rows = [[e.op, e.entry, e.registered_at, None] for e in read_table(torch, "CPU")]
    assert table_digest(rows) == run.params["table_sha256"]


def test_tpu_verdicts_follow_the_default_policy():
    run, statuses = load("static-torch_tpu-0.2.0.jsonl")
    assert run.fallback_policy["enable_cpu_fallback"] is False
    for s in statuses:
        if s.detail.get("entry") == "backend fallback":
            assert s.status == "unsupported" and s.detail["fallback_action"] == "raise"
