"""First use: the first `kb op` after a fresh clone (it builds the KB from data/), as a
ratio to `python -c "import torch"` in the same run (issue 26's goal: ≤ 0.5).

Paired runs, each a fresh process with a fresh cache folder: `kb op aten::add.Tensor`
(build + query), then `python -c "import torch"`; the median of the per-pair ratios is
reported, with the KB file's size. A second figure is the refresh after data/ changes (a
`git pull`): the same command against a KB whose data fingerprint no longer matches.
A wheel carries a prebuilt KB (setup.py) that a first use copies instead of building: point
`--kb` at the console script of a virtualenv the wheel is installed in to measure that path
(the default, this checkout's `kb`, builds from data/). `import torch` runs under this
Python either way.
Run: python bench/first_use.py [--rounds 5] [--kb VENV/bin/kb]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time


def _seconds(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kb", help="the kb console script to measure (default: this Python's)")
    args = parser.parse_args()
    kb_script = args.kb or shutil.which("kb", path=os.path.dirname(sys.executable)) or shutil.which("kb")
    if not kb_script:
        sys.exit("the kb console script is not installed (pip install -e .)")
    base_env = {k: v for k, v in os.environ.items() if k not in ("KB_DB", "KB_DATA_DIR", "PYTHONDONTWRITEBYTECODE")}
    torch_cmd = [sys.executable, "-c", "import torch"]
    op_cmd = [kb_script, "op", "aten::add.Tensor"]
    subprocess.run(torch_cmd, env=base_env, check=True)  # warm the page cache and bytecode for both sides
    first, refresh, torch_s, size = [], [], [], 0
    for _ in range(args.rounds):
        workdir = tempfile.mkdtemp(prefix="kb-first-use-")
        env = {**base_env, "KB_CACHE_DIR": workdir}
        first.append(_seconds(op_cmd, env))
        torch_s.append(_seconds(torch_cmd, env))
        kb_file = os.path.join(workdir, "kb.sqlite")
        size = os.path.getsize(kb_file)
        with sqlite3.connect(kb_file) as conn:  # what a git pull that changes data/ looks like to kb
            conn.execute("UPDATE kbmeta SET value = 'stale' WHERE key = 'data_fingerprint'")
        refresh.append(_seconds(op_cmd, env))
        shutil.rmtree(workdir, ignore_errors=True)
    ratios = [f / t for f, t in zip(first, torch_s)]
    refresh_ratios = [r / t for r, t in zip(refresh, torch_s)]
    print(f"first use of {kb_script}, {args.rounds} paired rounds (median)")
    print(f"  import torch                     {statistics.median(torch_s) * 1000:7.0f} ms")
    print(f"  kb op (fresh cache: build+query) {statistics.median(first) * 1000:7.0f} ms  "
          f"{statistics.median(ratios):5.2f}x import torch (goal <= 0.5)")
    print(f"  kb op (refresh after data/ changed) {statistics.median(refresh) * 1000:4.0f} ms  "
          f"{statistics.median(refresh_ratios):5.2f}x import torch")
    print(f"  KB file {size / 1e6:.1f} MB (goal <= 20 MB)")


if __name__ == "__main__":
    main()
