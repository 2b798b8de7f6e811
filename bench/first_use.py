"""First use: the first `kb op` after the README's setup (`pip install -e .` builds the KB into
kb/_prebuilt/, which a first use copies), as a ratio to `python -c "import torch"` in the same
run (issue 26's goal: <= 0.5). The prebuilt KB is made anew from this checkout's data/ first,
as the install would.

Paired runs, each a fresh process with a fresh cache folder: `kb op aten::add.Tensor`
(setup + query), then `python -c "import torch"`; the median of the per-pair ratios is
reported, with the KB file's size. A second figure is the first `kb op` after a `git pull`
that changes data/: a copy of data/ with one file changed, so the prebuilt KB no longer
matches and kb builds the KB from data/.
Run: python bench/first_use.py [--rounds 5] [--kb PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _seconds(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def kb_script() -> str:
    """The installed `kb` console script (the command a user runs)."""
    found = shutil.which("kb", path=os.path.dirname(sys.executable)) or shutil.which("kb")
    if not found:
        sys.exit("the kb console script is not installed (pip install -e .)")
    return found


def clean_env() -> dict[str, str]:
    """The environment of a new user: no KB or data folder chosen, bytecode caches allowed."""
    return {k: v for k, v in os.environ.items() if k not in ("KB_DB", "KB_DATA_DIR", "PYTHONDONTWRITEBYTECODE")}


def refresh_prebuilt(base_env: dict[str, str]) -> None:
    """Make kb/_prebuilt/kb.sqlite from this checkout's data/, as `pip install -e .` does
    (setup.py), so that "first use" measures what a user gets right after the README's setup
    even when data/ changed since the install."""
    code = ("import sys; from kb import paths; from kb.store.build import write_prebuilt; "
            "write_prebuilt(paths.PREBUILT_KB)")
    subprocess.run([sys.executable, "-c", code], env={**base_env, "KB_DATA_DIR": os.path.join(REPO, "data")},
                   cwd=REPO, check=True, capture_output=True)


def _changed_data(root: str) -> str:
    """A copy of data/ with one shipped record's note changed: what a `git pull` that changes
    data/ looks like to kb (its digest differs, so the prebuilt KB no longer matches)."""
    copy = os.path.join(root, "data")
    shutil.copytree(os.path.join(REPO, "data"), copy)
    path = os.path.join(copy, "manual", "torchneuron-dev-snapshot.jsonl")
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    lines[-1] = lines[-1].rstrip("\n") + " \n"  # the same records, other bytes: a changed file to kb
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return copy


def first_use_round(kb: str, base_env: dict[str, str]) -> dict[str, float]:
    """One paired round: `kb op` on a fresh cache folder right after the setup (the prebuilt
    KB copied), `import torch`, and `kb op` after a data change (a `git pull`: the prebuilt
    no longer matches and kb builds the KB from data/); seconds each, and the KB's size."""
    workdir = tempfile.mkdtemp(prefix="kb-first-use-")
    env = {**base_env, "KB_CACHE_DIR": workdir}
    op_cmd = [kb, "op", "aten::add.Tensor"]
    try:
        first = _seconds(op_cmd, env)
        torch_s = _seconds([sys.executable, "-c", "import torch"], env)
        kb_file = os.path.join(workdir, "kb.sqlite")
        size = os.path.getsize(kb_file)
        refresh = _seconds(op_cmd, {**env, "KB_DATA_DIR": _changed_data(workdir)})
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"first": first, "torch": torch_s, "refresh": refresh, "size": size}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kb", help="the kb console script to measure (default: this Python's)")
    args = parser.parse_args()
    kb, base_env = args.kb or kb_script(), clean_env()
    if not args.kb:
        refresh_prebuilt(base_env)
    subprocess.run([sys.executable, "-c", "import torch"], env=base_env, check=True)  # warm the page cache and bytecode
    rounds = [first_use_round(kb, base_env) for _ in range(args.rounds)]
    first, refresh, torch_s = ([r[k] for r in rounds] for k in ("first", "refresh", "torch"))
    size = rounds[-1]["size"]
    ratios = [f / t for f, t in zip(first, torch_s)]
    refresh_ratios = [r / t for r, t in zip(refresh, torch_s)]
    print(f"first use, {args.rounds} paired rounds (median)")
    print(f"  import torch                     {statistics.median(torch_s) * 1000:7.0f} ms")
    print(f"  kb op (fresh cache: build+query) {statistics.median(first) * 1000:7.0f} ms  "
          f"{statistics.median(ratios):5.2f}x import torch (goal <= 0.5)")
    print(f"  kb op (refresh after data/ changed) {statistics.median(refresh) * 1000:4.0f} ms  "
          f"{statistics.median(refresh_ratios):5.2f}x import torch")
    print(f"  KB file {size / 1e6:.1f} MB (goal <= 20 MB)")


if __name__ == "__main__":
    main()
