"""A live probe split over a fleet: three shards of a `meta` probe — one named by the
flag, one by Slurm job-array variables, one by Kubernetes Indexed-Job variables — merge
through `kb ingest` into exactly the KB an unsharded run gives (same run id, the same
observations, nothing twice), and a set with a shard missing is refused as missing.

Everything runs through the real CLI in child processes (about 5 s a probe)."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kb.probe.live.shard import ShardError, derived_run_id, from_env, parse_shard, partition, plan_digest

REPO = Path(__file__).resolve().parents[3]
OPS = "neg,nonzero,masked_select,add,mul,sum"
ARGS = ["--device", "meta", "--ops", OPS, "--dtypes", "float32,int64", "--samples", "3"]
FLEET_VARS = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_STEP",
              "JOB_COMPLETION_INDEX", "JOB_COMPLETIONS")


def _kb(folder: Path, *args: str, db: str = "kb.sqlite", env: dict[str, str] | None = None,
        code: int = 0) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in FLEET_VARS}
    full.update(KB_CACHE_DIR=str(folder / "cache"), KB_DB=str(folder / db), PYTHONPATH=str(REPO), **(env or {}))
    done = subprocess.run([sys.executable, "-m", "cli.entry", *args], cwd=REPO, env=full, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == code, (done.returncode, done.stderr)
    return done


def _observations(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return sorted(conn.execute(
            "SELECT o.op, o.target, r.version, o.mode, o.status, o.dtypes, o.note, o.detail, o.probe_run_id, "
            "o.source_kind, o.source_name, o.torch_version FROM observation o JOIN release r ON r.id = o.release_id "
            "WHERE o.source_kind = 'live_probe'").fetchall())
    finally:
        conn.close()


def _support(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return sorted(conn.execute("SELECT op, target, release_id, mode, status, dtypes FROM support "
                                   "WHERE target = 'meta'").fetchall())
    finally:
        conn.close()


def _probe_runs(db: Path) -> dict[str, dict]:
    conn = sqlite3.connect(db)
    try:
        return {run_id: json.loads(params) for run_id, params in
                conn.execute("SELECT run_id, params FROM proberun WHERE kind = 'live'")}
    finally:
        conn.close()


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("expecttest")
    folder = tmp_path_factory.mktemp("fleet")
    reports = folder / "reports"  # the shared storage
    _kb(folder, "probe", *ARGS, "--shard", "1/3", "--out", str(reports / "shard-1.jsonl"))
    _kb(folder, "probe", *ARGS, "--shard", "auto", "--out", str(reports / "shard-2.jsonl"),
        env={"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "7", "SLURM_ARRAY_TASK_COUNT": "3"})
    _kb(folder, "probe", *ARGS, "--shard", "auto", "--out", str(reports / "shard-3.jsonl"),
        env={"JOB_COMPLETION_INDEX": "2", "JOB_COMPLETIONS": "3"})
    first = json.loads((reports / "shard-1.jsonl").read_text().splitlines()[0])
    run_id = first["run_id"]
    _kb(folder, "probe", *ARGS, "--run-id", run_id, "--out", str(folder / "single.jsonl"))
    _kb(folder, "ingest", str(folder / "single.jsonl"), db="single.sqlite")
    merged = _kb(folder, "ingest", *sorted(map(str, reports.glob("*.jsonl"))), "--json", db="fleet.sqlite")
    return {"folder": folder, "reports": reports, "run_id": run_id, "merged": json.loads(merged.stdout)}


@pytest.mark.heavy
def test_each_shard_writes_its_share_of_one_run(fleet):
    shards = [json.loads((fleet["reports"] / f"shard-{i}.jsonl").read_text().splitlines()[0]) for i in (1, 2, 3)]
    assert [s["params"]["shard"]["index"] for s in shards] == [1, 2, 3]
    assert {s["run_id"] for s in shards} == {fleet["run_id"]}
    assert len({s["params"]["shard"]["plan_sha256"] for s in shards}) == 1
    done = [{(t["key"], t["dtype"]) for t in s["params"]["journal"]["tasks"]} for s in shards]
    assert sum(map(len, done)) == len(set().union(*done)) == shards[0]["params"]["shard"]["tasks_total"] == 12
    assert all(done)  # every shard got work


@pytest.mark.heavy
def test_shards_merge_to_exactly_the_unsharded_run(fleet):
    folder = fleet["folder"]
    single, merged = folder / "single.sqlite", folder / "fleet.sqlite"
    assert fleet["merged"]["errors"] == []
    assert fleet["merged"]["results"][0]["source"] == f"live_probe:{fleet['run_id']}"
    observations = _observations(merged)
    assert observations and observations == _observations(single)
    assert {row[8] for row in observations} == {fleet["run_id"]}  # one run identity
    assert len({row[:6] for row in observations}) == len(observations)  # no duplicates
    assert _support(merged) == _support(single)
    found = {row[0]: row[4] for row in observations if json.loads(row[5]) == ["float32"]}
    assert found["aten::neg"] == "native" and found["aten::nonzero"] == "unsupported"
    runs, alone = _probe_runs(merged), _probe_runs(single)
    assert set(runs) == set(alone) == {fleet["run_id"]}
    params = runs[fleet["run_id"]]
    assert params.pop("shards")["count"] == 3
    assert params == alone[fleet["run_id"]]


@pytest.mark.heavy
def test_ingesting_the_shards_again_adds_nothing(fleet):
    reports = sorted(map(str, fleet["reports"].glob("*.jsonl")))
    again = _kb(fleet["folder"], "ingest", *reports, reports[0], "--json", db="fleet.sqlite")  # one given twice
    assert json.loads(again.stdout)["results"][0]["added"] == 0
    assert len(_observations(fleet["folder"] / "fleet.sqlite")) == len(_observations(fleet["folder"] / "single.sqlite"))


@pytest.mark.heavy
def test_a_missing_shard_is_reported_and_nothing_is_ingested(fleet):
    reports = fleet["reports"]
    done = _kb(fleet["folder"], "ingest", str(reports / "shard-1.jsonl"), str(reports / "shard-3.jsonl"),
               db="partial.sqlite", code=2)
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == (f"kb: error: run {fleet['run_id']}: shard 2/3 missing (have 1/3, 3/3); "
                         "nothing ingested for this run")
    partial = fleet["folder"] / "partial.sqlite"
    assert not partial.exists() or _observations(partial) == []


@pytest.mark.heavy
def test_a_lone_shard_is_not_evidence(fleet, tmp_path):
    from kb.store.ingest import IngestError, ingest_jsonl

    with pytest.raises(IngestError, match="shard 1/3 of run"):
        ingest_jsonl(str(tmp_path / "kb.sqlite"), str(fleet["reports"] / "shard-1.jsonl"))


@pytest.mark.heavy
def test_a_shard_run_again_resumes_instead_of_redoing(fleet):
    _kb(fleet["folder"], "probe", *ARGS, "--shard", "1/3", "--out", str(fleet["folder"] / "again.jsonl"))
    journal = fleet["folder"] / "cache" / "live-probe" / f"{fleet['run_id']}--shard-1-of-3" / "journal.jsonl"
    assert sum('"kind": "task"' in line for line in journal.read_text().splitlines()) == 4  # not 8
    first = json.loads((fleet["reports"] / "shard-1.jsonl").read_text())["params"]["journal"]["tasks"]
    second = json.loads((fleet["folder"] / "again.jsonl").read_text())["params"]["journal"]["tasks"]
    assert first == second  # the same journal: nothing was run twice


@pytest.mark.heavy
def test_shard_flags_that_cannot_work_are_one_line_errors(tmp_path):
    for args, message in ((["--shard", "auto"], "found no fleet variables"),
                          (["--shard", "0/3"], "shards count from 1"),
                          (["--shard", "2/3", "--ingest"], "ingest all shards")):
        done = _kb(tmp_path, "probe", "--device", "meta", *args, code=2)
        assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr, done.stderr


# --- the split itself --------------------------------------------------------------------------

def test_shard_from_slurm_and_kubernetes_variables():
    assert parse_shard("2/3") == parse_shard("2/3", {})
    slurm = from_env({"SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_COUNT": "4"})
    assert (slurm.index, slurm.count, slurm.source) == (3, 4, "slurm")
    stepped = from_env({"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3",
                        "SLURM_ARRAY_TASK_STEP": "2"})
    assert (stepped.index, stepped.count) == (3, 3)
    k8s = parse_shard("auto", {"JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "5"})
    assert (k8s.index, k8s.count, k8s.source) == (1, 5, "kubernetes")
    for env, message in (({}, "no fleet variables"),
                         ({"JOB_COMPLETION_INDEX": "1"}, "JOB_COMPLETIONS is not"),
                         ({"SLURM_ARRAY_TASK_ID": "1"}, "SLURM_ARRAY_TASK_MIN"),
                         ({"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3"},
                          "contiguous"),
                         ({"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3",
                           "JOB_COMPLETION_INDEX": "1", "JOB_COMPLETIONS": "3"}, "both")):
        with pytest.raises(ShardError, match=message):
            from_env(env)
    for bad in ("3", "1/0", "4/3", "a/b", "-1/3"):
        with pytest.raises(ShardError):
            parse_shard(bad)


def test_split_is_deterministic_complete_and_balanced_by_cost():
    rng = random.Random(7)
    tasks = [(f"op{i:03d}", dtype) for i in range(120) for dtype in ("float32", "int64")]
    costs = [1 + rng.choice([0, 1, 2, 10, 30]) for _ in tasks]
    shards = partition(tasks, costs, 4)
    assert sorted(t for s in shards for t in s) == sorted(tasks)
    loads = [sum(costs[tasks.index(t)] for t in s) for s in shards]
    assert max(loads) - min(loads) <= max(costs)
    order = list(range(len(tasks)))
    rng.shuffle(order)  # another machine listing the tasks in another order splits them alike
    again = partition([tasks[i] for i in order], [costs[i] for i in order], 4)
    assert [set(s) for s in again] == [set(s) for s in shards]
    # by cost, not by name: the expensive tasks are spread, not all on shard 1
    heavy = {t for t, c in zip(tasks, costs) if c == 31}
    assert all(heavy & set(s) for s in shards)
    assert plan_digest(tasks, costs) != plan_digest(tasks, [c + 1 for c in costs])


def test_derived_run_id_is_a_pure_function_of_the_parameters():
    params = {"dtypes": ["float32"], "ops": ["add"], "samples": 3}
    assert derived_run_id("neuron", 8, params) == derived_run_id("neuron", 8, dict(reversed(params.items())))
    assert derived_run_id("neuron", 8, params) != derived_run_id("neuron", 4, params)
    assert derived_run_id("neuron", 8, params).startswith("live-neuron-x8-")
