"""Static probe speed: every ATen overload classified, against a bare dispatcher loop.

Target (issue 3): classifying all overloads (about 3,100 in torch 2.13) in ≤ 5 s on 2
cores. Measured: the probe's own work in process (dispatch table + records), and the
whole `kb probe --static` end to end (child process, imports, table, records). Baselines
in the same run: a bare loop of `torch._C._dispatch_has_kernel_for_dispatch_key` over
the same overloads (the cheapest possible question), and a child that only imports torch
and the backend (the fixed cost no probe can avoid). Medians of BENCH_RUNS repetitions.

Run: PYTHONPATH=. python bench/static_probe.py   (optionally BENCH_BACKEND=sim|meta|cpu)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
BACKEND = os.environ.get("BENCH_BACKEND", "sim")


def median(fn, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    import torch

    from kb.probe import backends, dispatch
    from kb.probe.static import build_probe, child_env, run_static_probe

    spec = backends.get_backend(BACKEND)
    if spec.activate is not None:
        spec.activate()
    ops = dispatch.aten_ops(torch)
    has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
    key = spec.dispatch_key

    def bare_loop():
        for op in ops:
            has_kernel(op, key)

    def table_and_records():
        rows = [[e.op, e.entry, e.registered_at, None] for e in dispatch.read_table(torch, key, ops)]
        raw = {"backend": spec.name, "backend_version": "bench", "torch_version": "x", "torch_build": "x",
               "python_version": "x", "host": "x", "dispatch_key": key, "policy": spec.read_policy({}),
               "entries": rows}
        build_probe(spec, raw, started_at="2026-01-01T00:00:00+00:00")

    module = spec.module if spec.activate is None and spec.module else None
    import_only = [sys.executable, "-c", "import torch" + (f"; import {module}" if module else "")]
    env = child_env()

    bare = median(bare_loop)
    in_process = median(table_and_records)
    imports = median(lambda: subprocess.run(import_only, env=env, check=True, capture_output=True))
    end_to_end = median(lambda: run_static_probe(BACKEND))

    print(f"backend {BACKEND} (key {key}), {len(ops)} ATen overloads, {RUNS} runs, medians, {os.cpu_count()} CPUs")
    print(f"  bare has_kernel loop               {bare * 1000:8.1f} ms")
    print(f"  dispatch table + records (in proc) {in_process * 1000:8.1f} ms   {in_process / bare:6.1f} x bare loop")
    label = "child only importing torch" + (f" + {module}" if module else "")
    print(f"  {label:<35}{imports * 1000:8.1f} ms")
    print(f"  kb static probe, end to end        {end_to_end * 1000:8.1f} ms   {end_to_end / bare:6.1f} x bare loop, "
          f"{end_to_end / imports:4.2f} x imports alone")
    print(f"  target: classification <= 5 s: {'OK' if in_process <= 5.0 else 'OVER'}; "
          f"end to end <= 5 s: {'OK' if end_to_end <= 5.0 else 'OVER (imports dominate)'}")


if __name__ == "__main__":
    main()
