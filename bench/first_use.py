"""First use: the first `kb op` after the README's setup (`pip install -e .` builds the KB into
kb/_prebuilt/, which a first use copies), as a ratio to `python -c "import torch"` in the same
run (issue 26's goal: <= 0.5). The prebuilt KB is made anew from this checkout's data/ first,
as the install would.

Paired runs, each a fresh process with a fresh cache folder: `kb op aten::add.Tensor`
(setup + query), then `python -c "import torch"`; the median of the per-pair ratios is
reported, with the KB file's size. Two more figures are the first `kb op` after a `git pull`
that changes data/ (a copy of data/ with one file changed, so the prebuilt KB no longer
matches): one fact of a record file edited, which kb refreshes in place
(kb.store.incremental), and the op catalog touched, which rebuilds the KB from data/.
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


def _changed_data(root: str, change: str = "record") -> str:
    """A copy of data/ as a `git pull` that changes data/ leaves it (its digest differs, so the
    prebuilt KB no longer matches): `record`, one fact of one record file edited (its note),
    which kb refreshes in place (kb.store.incremental); `catalog`, the op catalog touched
    (data/ops), which every verdict rests on and so rebuilds the KB whole."""
    import json

    copy = os.path.join(root, f"data-{change}")
    shutil.copytree(os.path.join(REPO, "data"), copy)
    if change == "catalog":
        path = os.path.join(copy, "ops", "aten-torch-2.13.0.jsonl")
        with open(path, "a", encoding="utf-8") as f:
            f.write("\n")  # other bytes, the same ops: still a full rebuild
        return copy
    path = os.path.join(copy, "manual", "torchneuron-dev-snapshot.jsonl")
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for number, line in enumerate(lines):
        record = json.loads(line)
        if record.get("record") == "op_status":
            record["note"] = (record.get("note") or "") + " (edited)"
            lines[number] = json.dumps(record) + "\n"
            break
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return copy


def first_use_round(kb: str, base_env: dict[str, str]) -> dict[str, float]:
    """One paired round: `kb op` on a fresh cache folder right after the setup (the prebuilt
    KB copied), `import torch`, `kb op` after a data change that edits one record file (a
    `git pull`: the prebuilt no longer matches and kb refreshes the KB in place), and after
    one that touches the op catalog (the KB rebuilt from data/); seconds each, and the KB's size."""
    workdir = tempfile.mkdtemp(prefix="kb-first-use-")
    env = {**base_env, "KB_CACHE_DIR": workdir}
    op_cmd = [kb, "op", "aten::add.Tensor"]
    try:
        first = _seconds(op_cmd, env)
        torch_s = _seconds([sys.executable, "-c", "import torch"], env)
        kb_file = os.path.join(workdir, "kb.sqlite")
        size = os.path.getsize(kb_file)
        refresh = _seconds(op_cmd, {**env, "KB_DATA_DIR": _changed_data(workdir, "record")})
        rebuild = _seconds(op_cmd, {**env, "KB_DATA_DIR": _changed_data(workdir, "catalog")})
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"first": first, "torch": torch_s, "refresh": refresh, "rebuild": rebuild, "size": size}


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
    first, refresh, rebuild, torch_s = ([r[k] for r in rounds] for k in ("first", "refresh", "rebuild", "torch"))
    size = rounds[-1]["size"]
    ratios = [f / t for f, t in zip(first, torch_s)]
    refresh_ratios = [r / t for r, t in zip(refresh, torch_s)]
    rebuild_ratios = [r / t for r, t in zip(rebuild, torch_s)]
    print(f"first use, {args.rounds} paired rounds (median)")
    print(f"  import torch                     {statistics.median(torch_s) * 1000:7.0f} ms")
    print(f"  kb op (fresh cache: build+query) {statistics.median(first) * 1000:7.0f} ms  "
          f"{statistics.median(ratios):5.2f}x import torch (goal <= 0.5)")
    print(f"  kb op (a record file edited)     {statistics.median(refresh) * 1000:7.0f} ms  "
          f"{statistics.median(refresh_ratios):5.2f}x import torch (goal <= 0.5: refreshed in place)")
    print(f"  kb op (the op catalog touched)   {statistics.median(rebuild) * 1000:7.0f} ms  "
          f"{statistics.median(rebuild_ratios):5.2f}x import torch (a full rebuild)")
    print(f"  KB file {size / 1e6:.1f} MB (goal <= 20 MB)")


if __name__ == "__main__":
    main()
