"""Cold start of a plain query, as a ratio to Python's own start in the same run.

Target (issue 2): `kb op aten::add.Tensor` ≤ 2.5 × `python -c pass`. Both are run as
fresh processes, alternating, many times; medians are compared. The KB is built
first so the figure is the query, not the one-off build. Run: python bench/cold_start.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("BENCH_RUNS", "25"))


def median_seconds(cmd: list[str], env: dict[str, str]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    kb_script = shutil.which("kb", path=os.path.dirname(sys.executable)) or shutil.which("kb")
    if not kb_script:
        sys.exit("the kb console script is not installed (pip install -e .)")
    workdir = tempfile.mkdtemp(prefix="kb-bench-")
    env = {**os.environ, "KB_DB": os.path.join(workdir, "kb.sqlite"), "KB_CACHE_DIR": workdir}
    subprocess.run([kb_script, "db", "build"], env=env, check=True, capture_output=True)

    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "kb op aten::add.Tensor": [kb_script, "op", "aten::add.Tensor"],
        "kb op aten::add.Tensor --json": [kb_script, "op", "aten::add.Tensor", "--json"],
        "kb targets (typer path)": [kb_script, "targets"],
    }
    medians = {name: median_seconds(cmd, env) for name, cmd in cases.items()}
    base = medians["python -c pass"]
    print(f"cold start, median of {RUNS} runs each (piped output)")
    for name, seconds in medians.items():
        print(f"  {name:32s} {seconds * 1000:7.1f} ms  {seconds / base:5.2f}x")
    ratio = medians["kb op aten::add.Tensor"] / base
    print(f"ratio kb op / python -c pass = {ratio:.2f} (target <= 2.5): {'OK' if ratio <= 2.5 else 'OVER TARGET'}")
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
