"""The static probe against two backends whose truth we know: kb.probe.sim (every verdict must
equal what the simulator registered) and meta (native exactly where PyTorch says the
Meta key has a kernel). Each probe runs once, in its own child process, as in real use."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from kb import opnames  # noqa: E402
from kb.probe import (  # noqa: E402
    backends,
    dispatch,
    sim,  # noqa: E402
)
from kb.probe.static import build_probe, run_static_probe  # noqa: E402
from kb.store.records import OpStatus, ProbeRun, dumps, read_jsonl  # noqa: E402

COMPOSITE_KEYS = ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd", "CompositeImplicitAutograd")


def has_kernel(op: str, key: str) -> bool:
    return torch._C._dispatch_has_kernel_for_dispatch_key(op, key)


@pytest.fixture(scope="module")
def sim_probe():
    return run_static_probe("sim")


@pytest.fixture(scope="module")
def meta_probe():
    return run_static_probe("meta")


def by_op_mode(probe) -> dict[tuple[str, str], str]:
    return {(s.op, s.mode): s.status for s in probe.statuses}


def test_sim_every_verdict_equals_the_simulator_registration(sim_probe):
    ops = dispatch.aten_ops(torch)
    expected = {}
    for op in ops:
        if op in sim.NATIVE:
            eager = compile_ = "native"
        elif "_overrideable" in op:  # PyTorch's default kernel for these only raises
            eager = compile_ = "unsupported"
        elif any(has_kernel(op, key) for key in COMPOSITE_KEYS):
            eager = compile_ = "decomposed"
        else:
            eager = "unsupported" if op in sim.RAISES else "fallback"
            compile_ = "unsupported"
        expected[(op, "eager")] = eager
        expected[(op, "compile")] = compile_
    assert by_op_mode(sim_probe) == expected  # the whole table, every overload × mode


def test_sim_run_header(sim_probe):
    run = sim_probe.run
    assert (run.kind, run.target, run.backend, run.params["dispatch_key"]) == ("static", "sim", "sim", "PrivateUse1")
    assert run.fallback_policy["eager"] == "per-op" and run.fallback_policy["compile"] == "raise"
    assert run.torch_version == torch.__version__.split("+")[0]
    counts = sim_probe.counts()
    assert counts["eager"]["native"] == len(sim.NATIVE)
    stubs = [op for op in dispatch.aten_ops(torch) if dispatch.is_stub_default(op) and op not in sim.NATIVE]
    assert counts["eager"]["unsupported"] == len(sim.RAISES) + len(stubs)
    for status in sim_probe.statuses:
        assert status.provenance.probe_run_id == run.run_id
        assert status.provenance.source_kind == status.provenance.source_name == "static_probe"
        assert status.detail["dispatch_key"] == "PrivateUse1"


def test_sim_native_detail_points_at_the_simulator(sim_probe):
    add = next(s for s in sim_probe.statuses if s.op == "aten::add.Tensor")
    assert add.detail["entry"] == "kernel" and add.detail["registered_at"].startswith("kb/probe/sim.py:")
    refused = next(s for s in sim_probe.statuses if s.op == "aten::nonzero" and s.mode == "eager")
    assert refused.detail == {"dispatch_key": "PrivateUse1", "entry": "backend fallback",
                              "registered_at": refused.detail["registered_at"], "fallback_action": "raise"}


def test_meta_native_exactly_where_the_meta_key_has_a_kernel(meta_probe):
    statuses = by_op_mode(meta_probe)
    assert {mode for _, mode in statuses} == {"eager"}
    mismatched = [op for (op, _), status in statuses.items() if (status == "native") != has_kernel(op, "Meta")]
    assert mismatched == []
    # and the rest is decomposed exactly where a composite kernel exists
    for (op, _), status in statuses.items():
        if status != "native":
            composite = any(has_kernel(op, key) for key in COMPOSITE_KEYS) and "_overrideable" not in op
            assert (status == "decomposed") == composite, op


def test_meta_covers_every_aten_overload_with_canonical_names(meta_probe):
    ops = [s.op for s in meta_probe.statuses]
    assert ops == sorted(ops) and len(ops) == len(set(ops)) == len(dispatch.aten_ops(torch))
    assert all(opnames.canonical(op) == op for op in ops)


def test_records_round_trip_through_jsonl(meta_probe, tmp_path):
    lines = [dumps(r) for r in meta_probe.records()]
    back = list(read_jsonl(lines))
    assert isinstance(back[0], ProbeRun) and all(isinstance(r, OpStatus) for r in back[1:])
    assert back == meta_probe.records()


def test_same_install_same_run_id_and_observations():
    raw = {"backend": "meta", "backend_version": "2.13.0", "torch_version": "2.13.0", "torch_build": "2.13.0+cpu",
           "python_version": "3.11.7", "host": "h", "dispatch_key": "Meta", "privateuse1_name": "privateuseone",
           "policy": {"eager": "raise"}, "entries": [["aten::add.Tensor", "kernel", "x.py:1", None]]}
    spec = backends.get_backend("meta")
    first = build_probe(spec, raw, started_at="2026-01-01T00:00:00+00:00")
    again = build_probe(spec, json.loads(json.dumps(raw)), started_at="2026-02-01T00:00:00+00:00")
    assert first.run.run_id == again.run.run_id
    changed = build_probe(spec, {**raw, "entries": [["aten::add.Tensor", None, None, None]]},
                          started_at="2026-01-01T00:00:00+00:00")
    assert changed.run.run_id != first.run.run_id


def test_reprobing_adds_nothing_to_the_kb(isolated_kb, small_data):
    from kb.store import ingest

    raw = {"backend": "sim", "backend_version": "0.1.0", "torch_version": "2.13.0", "torch_build": "2.13.0+cpu",
           "python_version": "3.11.7", "host": "h", "dispatch_key": "PrivateUse1", "privateuse1_name": "sim",
           "policy": {"eager": "per-op", "compile": "raise"},
           "entries": [["aten::add.Tensor", "kernel", "kb/probe/sim.py:1", None],
                       ["aten::nonzero", "backend fallback", "kb/probe/sim.py:2", "raise"],
                       ["aten::relu", "backend fallback", "kb/probe/sim.py:2", "cpu"]]}
    spec = backends.get_backend("sim")
    first = build_probe(spec, raw, started_at="2026-01-01T00:00:00+00:00")
    report = ingest.ingest_records(str(isolated_kb), first.records(), source_name="static_probe")
    assert report["added"] == 6
    again = build_probe(spec, raw, started_at="2026-03-01T00:00:00+00:00")
    assert ingest.ingest_records(str(isolated_kb), again.records(), source_name="static_probe")["added"] == 0


@pytest.mark.parametrize(("line", "expected"), [
    ("PrivateUse1: registered at csrc/eager/k.cc:364 [kernel]", ("kernel", "csrc/eager/k.cc:364")),
    ("CPU: registered at /b/RegisterCompositeImplicitAutograd_0.cpp:5 [math kernel]",
     ("math kernel", "/b/RegisterCompositeImplicitAutograd_0.cpp:5")),
    ("Meta: registered at /v/lib/python3.11/site-packages/torch/_meta_registrations.py:54 [kernel]",
     ("kernel", "torch/_meta_registrations.py:54")),
    ("PrivateUse1: fallthrough registered at x.cpp:3 [backend fallback]", ("fallthrough", "x.cpp:3")),
    ("PrivateUse1: registered at a.cpp:1 [default backend kernel]", ("default backend kernel", "a.cpp:1")),
])
def test_parse_dump_line(line, expected):
    assert dispatch.parse_line(line) == expected


@pytest.mark.parametrize(("entry", "mode", "policy", "per_op", "status"), [
    ("kernel", "compile", {"eager": "raise"}, None, "native"),
    ("math kernel", "eager", {}, None, "decomposed"),
    ("default backend kernel", "eager", {}, None, "decomposed"),
    ("backend fallback", "eager", {"eager": "cpu", "compile": "raise"}, None, "fallback"),
    ("backend fallback", "compile", {"eager": "cpu", "compile": "raise"}, None, "unsupported"),
    ("backend fallback", "eager", {"eager": "per-op"}, "cpu", "fallback"),
    ("backend fallback", "eager", {"eager": "per-op"}, "raise", "unsupported"),
    ("backend fallback", "eager", {"eager": "raise"}, None, "unsupported"),
    ("fallthrough", "eager", {"eager": "cpu"}, None, "unsupported"),
    ("raising default kernel", "eager", {"eager": "cpu"}, None, "unsupported"),
    (None, "eager", {"eager": "cpu"}, None, "unsupported"),
])
def test_status_for_entry_mode_and_policy(entry, mode, policy, per_op, status):
    assert backends.status_for(entry, mode, policy, per_op) == status


def test_meta_probe_matches_the_shipped_meta_table(meta_probe):
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "data" / "probes" / "static-meta-torch-2.13.0.jsonl"
    shipped = next(read_jsonl(path.read_text(encoding="utf-8").splitlines()[:1]))
    if meta_probe.run.params["torch_build"] != shipped.params["torch_build"]:
        pytest.skip("the shipped meta table was read under another torch build")
    assert meta_probe.run.params["table_sha256"] == shipped.params["table_sha256"]
    assert meta_probe.run.run_id.startswith("static-meta-2.13.0-")
