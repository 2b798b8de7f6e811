"""deploy/: the Slurm scripts and the Kubernetes manifests parse, and call kb with the
variables that make `--shard auto` pick each shard once. The scripts really run, with
stand-ins for `sbatch` and `kb` on PATH that record how they were called; every kb
command line they produce is parsed by kb's own command-line parser."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from kb.probe.live.shard import Shard, from_env

REPO = Path(__file__).resolve().parent.parent
SLURM = REPO / "deploy" / "slurm"
K8S = REPO / "deploy" / "kubernetes"
RECORDER = """#!/usr/bin/env python3
import json, os, sys
with open(os.environ["RECORD_TO"], "a") as fh:
    fh.write(json.dumps({"name": os.path.basename(sys.argv[0]), "args": sys.argv[1:], "env": dict(os.environ)}) + "\\n")
if os.path.basename(sys.argv[0]) == "sbatch":
    calls = sum(1 for _ in open(os.environ["RECORD_TO"]))
    print("4242;cluster" if calls == 1 else "4243")
"""


def _parse_kb(args: list[str]) -> dict:
    """kb's own parser on a command line (nothing runs): the options exist and fit."""
    import typer

    from cli.app import app

    group = typer.main.get_command(app)
    command = group.commands[args[0]]
    with command.make_context(args[0], list(args[1:])) as ctx:
        return dict(ctx.params)


@pytest.fixture
def stand_ins(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("sbatch", "kb"):
        (bin_dir / name).write_text(RECORDER)
        (bin_dir / name).chmod(0o755)
    record = tmp_path / "calls.jsonl"

    def run(script: Path, *args: str, **env: str) -> list[dict]:
        full = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "KB_", "JOB_"))}
        full.update(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", RECORD_TO=str(record), **env)
        record.unlink(missing_ok=True)
        done = subprocess.run(["bash", str(script), *args], env=full, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []

    return run


@pytest.mark.parametrize("script", sorted(SLURM.glob("*.s*")), ids=lambda p: p.name)
def test_slurm_scripts_parse(script):
    assert shutil.which("bash")
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_submit_queues_the_array_then_the_merge_after_it(stand_ins, tmp_path):
    calls = stand_ins(SLURM / "submit.sh", "3", "--partition=trn1", KB_REPORTS=str(tmp_path / "reports"))
    array, merge = [c["args"] for c in calls]
    assert array[:3] == ["--parsable", "--array=0-2", "--partition=trn1"]
    assert array[-1].endswith("probe-array.sbatch")
    assert "--dependency=afterok:4242" in merge and merge[-1].endswith("merge.sbatch")
    assert "--export=ALL,KB_RUN_ID=fleet-4242" in merge


def test_each_array_task_probes_its_own_shard(stand_ins, tmp_path):
    reports = tmp_path / "reports"
    seen = set()
    for task in (10, 11, 12):  # an array --array=10-12: ids need not start at 0
        calls = stand_ins(SLURM / "probe-array.sbatch", KB_REPORTS=str(reports), SLURM_ARRAY_JOB_ID="4242",
                          SLURM_ARRAY_TASK_ID=str(task), SLURM_ARRAY_TASK_MIN="10", SLURM_ARRAY_TASK_COUNT="3")
        (call,) = calls
        args, env = call["args"], call["env"]
        assert args[:1] == ["probe"]
        params = _parse_kb(args)
        assert (params["device"], params["shard"], params["run_id"]) == ("neuron", "auto", "fleet-4242")
        assert params["out"] == str(reports / "fleet-4242" / f"task-{task}.jsonl")
        assert env["KB_CACHE_DIR"] == str(reports / "fleet-4242" / "cache")
        seen.add(from_env(env))
    assert seen == {Shard(i, 3, "slurm") for i in (1, 2, 3)}


def test_one_shard_can_be_rerun_by_name(stand_ins, tmp_path):
    (call,) = stand_ins(SLURM / "probe-array.sbatch", KB_REPORTS=str(tmp_path), KB_RUN_ID="fleet-7",
                        KB_SHARD="4/8", KB_PROBE_ARGS="--dtypes float32 --workers 2")
    params = _parse_kb(call["args"])
    assert (params["shard"], params["run_id"], params["dtypes"], params["workers"]) == ("4/8", "fleet-7", "float32", 2)
    assert params["out"] == str(tmp_path / "fleet-7" / "shard-4-of-8.jsonl")


def test_merge_ingests_every_report_of_the_run_then_exports(stand_ins, tmp_path):
    folder = tmp_path / "fleet-4242"
    folder.mkdir()
    for i in range(3):
        (folder / f"task-{i}.jsonl").write_text("{}\n")
    ingest, export = stand_ins(SLURM / "merge.sbatch", KB_REPORTS=str(tmp_path), KB_RUN_ID="fleet-4242")
    assert ingest["args"][0] == "ingest"
    assert sorted(_parse_kb(ingest["args"])["paths"]) == sorted(str(p) for p in folder.glob("*.jsonl"))
    assert ingest["env"]["KB_DB"] == str(folder / "kb.sqlite")
    assert export["args"] == ["data", "export", "--out", str(folder / "data")]


# --- Kubernetes ------------------------------------------------------------------------------------

def _manifest(name: str) -> dict:
    (doc,) = list(yaml.safe_load_all((K8S / name).read_text()))
    return doc


def _expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' $(VAR) expansion in command and env values."""
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), text)


def _container_env(container: dict, extra: dict[str, str]) -> dict[str, str]:
    env = dict(extra)
    for item in container.get("env", []):
        env[item["name"]] = _expand(str(item["value"]), env)
    return env


def test_indexed_job_runs_one_shard_per_index_on_a_neuron_device():
    job = _manifest("probe-indexed-job.yaml")
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    (container,) = spec["template"]["spec"]["containers"]
    assert container["resources"]["limits"]["aws.amazon.com/neuron"] == 1
    n = spec["completions"]
    outs, shards = set(), set()
    for index in range(n):  # Kubernetes sets JOB_COMPLETION_INDEX in each pod
        env = _container_env(container, {"JOB_COMPLETION_INDEX": str(index)})
        assert int(env["JOB_COMPLETIONS"]) == n
        args = [_expand(a, env) for a in container["command"]]
        assert args[0] == "kb"
        params = _parse_kb(args[1:])
        assert (params["shard"], params["device"]) == ("auto", "neuron")
        assert params["run_id"] == env["KB_RUN_ID"] and "$(" not in params["out"]
        outs.add(params["out"])
        shards.add(from_env(env))
    assert len(outs) == n and shards == {Shard(i, n, "kubernetes") for i in range(1, n + 1)}


def test_merge_job_reads_the_reports_the_probe_job_writes():
    probe, merge = _manifest("probe-indexed-job.yaml"), _manifest("merge-job.yaml")
    (p,) = probe["spec"]["template"]["spec"]["containers"]
    (m,) = merge["spec"]["template"]["spec"]["containers"]
    penv, menv = _container_env(p, {"JOB_COMPLETION_INDEX": "0"}), _container_env(m, {})
    assert penv["KB_RUN_ID"] == menv["KB_RUN_ID"]
    out_dir = os.path.dirname(_parse_kb([_expand(a, penv) for a in p["command"]][1:])["out"])
    script = m["command"][-1].replace("$KB_RUN_ID", menv["KB_RUN_ID"])
    assert f"kb ingest {out_dir}/shard-*.jsonl" in script and "kb data export" in script
    claims = {v["persistentVolumeClaim"]["claimName"] for doc in (probe, merge)
              for v in doc["spec"]["template"]["spec"]["volumes"]}
    assert len(claims) == 1
