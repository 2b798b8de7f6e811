"""The live probe end to end on the simulated device, through the real CLI in a child
process: native, CPU fallback, unsupported, a crashing op, a hanging op and a wrong
kernel are each recorded as such, the run survives the crash and the hang, and a probe
killed with SIGKILL and resumed ends with exactly the results of an uninterrupted run.

One probe run is shared by the module (about 10 s: the workers import torch's OpInfo
database once, in the forkserver)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # PyTorch's OpInfo database needs it

from kb.store import records as rec  # noqa: E402

# the simulated backend's live run takes ~12 s: the whole module runs with the heavy tests (CI runs them)
pytestmark = pytest.mark.heavy


REPO = Path(__file__).resolve().parents[3]
KERNELS = str(Path(__file__).with_name("sim_kernels.py"))
OPS = "neg,flip,nonzero,sin,cos,tan,exp,nn.functional.poisson_nll_loss"
ARGS = ["--device", "sim", "--ops", OPS, "--dtypes", "float32", "--samples", "2", "--timeout", "4",
        "--setup", KERNELS]


def _env(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(KB_CACHE_DIR=str(folder / "cache"), KB_DB=str(folder / "kb.sqlite"), PYTHONPATH=str(REPO),
               KB_TEST_HANG_SECONDS="60")
    return env


def _cli(folder: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli.entry", "probe", *args], cwd=REPO, env=_env(folder),
                          capture_output=True, text=True, timeout=timeout)


def _report(path: Path) -> tuple[rec.ProbeRun, dict[tuple[str, str], rec.OpStatus]]:
    with open(path, encoding="utf-8") as fh:
        records = list(rec.read_jsonl(fh))
    runs = [r for r in records if isinstance(r, rec.ProbeRun)]
    statuses = {(r.op, r.dtypes[0]): r for r in records if isinstance(r, rec.OpStatus)}
    assert len(runs) == 1
    return runs[0], statuses


def _essence(statuses: dict[tuple[str, str], rec.OpStatus]) -> dict:
    """What a run found, without run ids and clocks."""
    return {key: (s.status, bool((s.detail or {}).get("wrong_result")), (s.detail or {}).get("error", {}).get("class"))
            for key, s in statuses.items()}


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("live")
    done = _cli(folder, *ARGS, "--workers", "2", "--run-id", "full", "--out", str(folder / "report.jsonl"),
                "--ingest", "--json")
    assert done.returncode == 0, done.stderr
    run, statuses = _report(folder / "report.jsonl")
    return {"folder": folder, "run": run, "statuses": statuses, "json": json.loads(done.stdout)}


def test_native_fallback_and_unsupported_are_told_apart(full_run):
    s = full_run["statuses"]
    assert s[("aten::neg", "float32")].status == "native"
    assert s[("aten::flip", "float32")].status == "fallback"  # served by sim's boxed CPU fallback
    nonzero = s[("aten::nonzero", "float32")]
    assert nonzero.status == "unsupported"
    assert nonzero.detail["error"]["class"] == "NotImplementedError"
    assert "no sim kernel" in nonzero.detail["error"]["line"]


def test_composite_kernel_that_falls_back_inside_is_a_fallback(full_run):
    sin = full_run["statuses"][("aten::sin", "float32")]
    assert sin.status == "fallback"
    assert sin.detail["fell_back_inside"] == ["aten::sin.out"]
    assert full_run["statuses"][("aten::sin.out", "float32")].status == "fallback"


def test_crash_is_recorded_and_the_run_completes(full_run):
    cos = full_run["statuses"][("aten::cos", "float32")]
    assert cos.status == "crash"
    assert "SIGABRT" in cos.detail["crash"]["exit"]
    assert cos.detail["crash"]["attributed_by"] == "beacon"
    run = full_run["run"]
    assert run.finished_at and run.params["outcomes"] == {"crash": 1, "ok": 6, "timeout": 1}


def test_hanging_op_is_a_timeout(full_run):
    tan = full_run["statuses"][("aten::tan", "float32")]
    assert tan.status == "timeout"
    assert tan.detail["timeout"]["timeout"] == 4


def test_wrong_kernel_shows_numerics_error(full_run):
    exp = full_run["statuses"][("aten::exp", "float32")]
    assert exp.status == "native"
    assert exp.detail["wrong_result"] is True
    numerics = exp.detail["numerics"]
    assert numerics["max_abs"] > numerics["atol"] and numerics["blame"] == "per-call check"
    assert "wrong result vs CPU" in exp.note
    assert not full_run["statuses"][("aten::neg", "float32")].detail.get("wrong_result")
    notable = {(n["op"], n["status"]) for n in full_run["json"]["summary"]["notable"]}
    assert {("aten::exp", "native"), ("aten::cos", "crash"), ("aten::tan", "timeout")} <= notable


def test_a_wrong_kernel_inside_a_composite_op_is_blamed_alone(full_run):
    """poisson_nll_loss computes exp(input) - target * input, then a mean: only exp is wrong."""
    s = full_run["statuses"]
    exp = s[("aten::exp", "float32")]
    assert "nn.functional.poisson_nll_loss" in {w for w in exp.detail["opinfos"]}
    downstream = [op for op in ("aten::sub.Tensor", "aten::mul.Tensor", "aten::mean") if (op, "float32") in s]
    assert downstream, "poisson_nll_loss dispatched none of the expected ops"
    assert not [op for op in downstream if s[(op, "float32")].detail.get("wrong_result")]


def test_opinfos_are_mapped_to_the_overloads_they_dispatch(full_run):
    mapping = json.loads((full_run["folder"] / "cache" / "live-probe" / "full" / "opinfo-map.json").read_text())
    assert "aten::neg" in mapping["neg"] and "aten::sin.out" not in mapping["sin"]  # recorded at the top level
    assert "aten::sin" in mapping["sin"] and mapping["cos"] == ["aten::cos"]  # the crash's op, from the beacon


@pytest.mark.heavy
def test_run_header_and_kb_ingest(full_run, tmp_path):
    run = full_run["run"]
    assert (run.kind, run.target, run.backend, run.backend_version) == ("live", "sim", "sim", "0.1.0")
    assert run.torch_version and run.host and run.params["dtypes"] == ["float32"]
    assert all(s.provenance.source_kind == "live_probe" and s.provenance.probe_run_id == "full"
               for s in full_run["statuses"].values())
    import sqlite3

    from kb.store.ingest import ingest_jsonl

    fresh = tmp_path / "fresh.sqlite"
    assert ingest_jsonl(str(fresh), str(full_run["folder"] / "report.jsonl"))["added"] == len(full_run["statuses"])

    conn = sqlite3.connect(full_run["folder"] / "kb.sqlite")
    rows = dict(conn.execute("SELECT op, status FROM support WHERE target = 'sim' AND source_kind = 'live_probe'"))
    assert rows["aten::neg"] == "native" and rows["aten::cos"] == "crash" and rows["aten::flip"] == "fallback"


@pytest.mark.heavy
def test_compare_static_lists_contradictions(full_run, tmp_path):
    from kb.store.ingest import ingest_records

    folder = full_run["folder"]
    prov = rec.Provenance(source_kind="static_probe", source_name="static_probe", probe_run_id="static-test")
    static = [rec.ProbeRun(run_id="static-test", kind="static", target="sim", backend="sim", backend_version="0.1.0",
                           torch_version="2.13.0", python_version="3.11", host="h", started_at="2026-11-01T00:00:00+00:00"),
              rec.OpStatus(op="aten::flip", target="sim", backend_version="0.1.0", status="native", provenance=prov),
              rec.OpStatus(op="aten::neg", target="sim", backend_version="0.1.0", status="native", provenance=prov)]
    ingest_records(str(folder / "kb.sqlite"), static, source_name="static_probe")
    done = _cli(folder, "--compare-static", "--json")
    assert done.returncode == 1, done.stderr
    rows = json.loads(done.stdout)["contradictions"]
    assert [(r["op"], r["live"], r["static"]) for r in rows] == [("aten::flip", "fallback", "native")]


@pytest.mark.heavy
def test_sigkill_then_resume_equals_an_uninterrupted_run(full_run, tmp_path):
    env = _env(tmp_path)
    journal = tmp_path / "cache" / "live-probe" / "killed" / "journal.jsonl"
    command = [sys.executable, "-m", "cli.entry", "probe", *ARGS, "--workers", "1", "--run-id", "killed"]
    child = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    tasks_at_kill = 0
    while time.monotonic() < deadline and child.poll() is None:
        if journal.exists():
            tasks_at_kill = journal.read_text().count('"kind": "task"')
            if tasks_at_kill >= 1:
                break
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert 1 <= tasks_at_kill < 8, "the probe was not killed mid-run"
    done = _cli(tmp_path, "--resume", "killed", "--json", "--out", str(tmp_path / "resumed.jsonl"))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    keys = [(e["key"], e["dtype"]) for e in lines if e["kind"] == "task"]
    assert len(keys) == len(set(keys)) == 8  # nothing redone, nothing lost
    _, resumed = _report(tmp_path / "resumed.jsonl")
    assert _essence(resumed) == _essence(full_run["statuses"])


@pytest.mark.heavy
def test_bad_input_is_one_line(tmp_path):
    done = _cli(tmp_path, "--device", "sim", "--dtypes", "float33")
    assert done.returncode == 2 and done.stderr.startswith("kb: error: unknown dtype 'float33'")
    done = _cli(tmp_path, "--resume", "no-such-run")
    assert done.returncode == 2 and "no live-probe run journal" in done.stderr
    done = _cli(tmp_path, "--device", "sim", "--ops", "no_such_op*", "--dtypes", "float32")
    assert done.returncode == 2 and "selects no OpInfo" in done.stderr and "Traceback" not in done.stderr
    assert not list((tmp_path / "cache" / "live-probe").glob("*"))  # no empty run left behind


@pytest.mark.heavy
def test_resuming_a_finished_run_redoes_nothing(full_run, tmp_path):
    journal = full_run["folder"] / "cache" / "live-probe" / "full" / "journal.jsonl"
    before = journal.read_text()
    done = _cli(full_run["folder"], "--resume", "full", "--json", "--out", str(tmp_path / "again.jsonl"))
    assert done.returncode == 0, done.stderr
    assert journal.read_text() == before
    _, again = _report(tmp_path / "again.jsonl")
    assert _essence(again) == _essence(full_run["statuses"])
