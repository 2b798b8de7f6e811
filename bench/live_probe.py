"""Cost of the live probe's isolation: the full OpInfo database in float32 on `cpu`,
run (a) by the live probe (worker processes from a forkserver, pipes, a journal line per
task, timeouts) and (b) as the same task loop in one plain process, no isolation.
Both are fresh processes timed end to end (imports included) in the same run.

Target (issue 4): (a) ≤ 1.3 × (b). Run: python bench/live_probe.py
Environment: BENCH_OPS (OpInfo patterns, default all), BENCH_SAMPLES (default 10),
BENCH_WORKERS (default 1, like for like), BENCH_RUNS (default 3: the two are run
alternately that many times and medians compared; the machine is shared).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = os.environ.get("BENCH_OPS") or None
SAMPLES = int(os.environ.get("BENCH_SAMPLES", "10"))
WORKERS = int(os.environ.get("BENCH_WORKERS", "1"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))


def in_process() -> None:
    """(b): the task loop of a worker, in this process, with nothing around it."""
    from kb.probe.live import task
    from kb.probe.live.opinfos import parse_patterns, task_list

    started = time.perf_counter()
    state = task.State({"device": "cpu", "samples": SAMPLES})
    tasks = task_list(state.op_db, parse_patterns(OPS), ["float32"])
    outcomes = {"ok": 0}
    for key, dtype in tasks:
        task.run_task(state, key, dtype)
        outcomes["ok"] += 1
    print(json.dumps({"seconds": time.perf_counter() - started, "tasks": len(tasks), "outcomes": outcomes}))


def isolated() -> None:
    """(a): the live probe as `kb probe --device cpu` runs it (report written, no KB)."""
    from kb.probe.live.opinfos import parse_patterns
    from kb.probe.live.probe import live_probe

    started = time.perf_counter()
    result = live_probe(device="cpu", dtypes=["float32"], patterns=parse_patterns(OPS), samples=SAMPLES,
                        workers=WORKERS, ingest=False, run_id=os.environ.get("BENCH_RUN_ID", "bench"))
    print(json.dumps({"seconds": time.perf_counter() - started, "tasks": result.run.params["tasks"],
                      "outcomes": result.run.params["outcomes"], "summary": result.summary()["by_dtype"]}))


def measure(mode: str, env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, __file__, mode], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{mode} run failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    import statistics

    workdir = tempfile.mkdtemp(prefix="kb-bench-live-")
    env = {**os.environ, "KB_CACHE_DIR": workdir, "KB_DB": os.path.join(workdir, "kb.sqlite"),
           "PYTHONPATH": os.pathsep.join([REPO, os.environ.get("PYTHONPATH", "")])}
    plain_times, probe_times = [], []
    for run in range(RUNS):
        plain = measure("in-process", env)
        env["BENCH_RUN_ID"] = f"bench-{run}"
        probe = measure("isolated", env)
        plain_times.append(plain["seconds"])
        probe_times.append(probe["seconds"])
    plain_s, probe_s = statistics.median(plain_times), statistics.median(probe_times)
    print(f"OpInfo × float32 tasks: {probe['tasks']} (outcomes {probe['outcomes']})")
    print(f"overloads by status: {probe['summary']}")
    print(f"in one process, no isolation: {plain_s:.1f} s (median of {RUNS}: {', '.join(f'{t:.1f}' for t in plain_times)})")
    print(f"live probe, {WORKERS} worker(s):  {probe_s:.1f} s (median of {RUNS}: {', '.join(f'{t:.1f}' for t in probe_times)})")
    print(f"ratio: {probe_s / plain_s:.2f}x (target <= 1.3x)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "in-process":
        in_process()
    elif len(sys.argv) > 1 and sys.argv[1] == "isolated":
        isolated()
    else:
        main()
