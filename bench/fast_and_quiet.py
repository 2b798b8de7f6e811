"""Issue 26's figures in one paired run: fast and quiet from the first command.

Every figure is a ratio to a baseline measured in the same round of the same run, each
command a fresh process (bytecode caches allowed, as an installed package has them):

1. first use: `kb op aten::add.Tensor` on a fresh cache folder right after the setup (the
   prebuilt KB copied), after a data/ change that edits one record file (refreshed in place,
   goal <= 0.5 too) and after one to the op catalog (a full rebuild), vs `python -c "import torch"`
   (goal <= 0.5), with the KB file's size (goal <= 20 MB): bench/first_use.py's round;
2. `kb op aten::add.Tensor` on a built KB vs `python -c pass` (goal <= 2.5), several pairs
   a round (bench/cold_start.py's case, paired);
3. `kb check` of the GPT-2-size and the 8B Llama-shaped `.pt2` (work accounting included:
   it is part of every check) vs `import torch` (goal <= 0.25): bench/check_pt2.py's
   exports, KB and check process;
4. quiet: stderr lines of `kb op aten::add.Tensor` on a fresh cache and on a built KB (goal
   <= 2), the widest stdout line of `kb op` and `kb check` with COLUMNS=120 (goal <= 120);
5. with --suite, the default test suite's wall time (`pytest -q`, goal <= 4 min; slow).

Run: python bench/fast_and_quiet.py [--rounds 5] [--pairs 8] [--suite]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "bench"))

import check_pt2  # noqa: E402
import first_use  # noqa: E402
import llama_like  # noqa: E402


def _seconds(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def _median_ratio(pairs: list[tuple[float, float]]) -> float:
    return statistics.median(a / b for a, b in pairs)


def quiet_figures(kb: str, env: dict[str, str], db: str, pt2: str) -> dict[str, int]:
    """stderr lines of `kb op` (fresh cache, then built) and the widest table lines at COLUMNS=120."""
    with tempfile.TemporaryDirectory(prefix="kb-quiet-") as cache:
        fresh_env = {**env, "KB_CACHE_DIR": cache, "COLUMNS": "120"}
        fresh_env.pop("KB_DB", None)
        runs = [subprocess.run([kb, "op", "aten::add.Tensor"], env=fresh_env, capture_output=True, text=True)
                for _ in range(2)]
    wide_env = {**env, "COLUMNS": "120"}
    check = subprocess.run([sys.executable, "-c", "import sys; from cli.entry import main; sys.exit(main())",
                            "check", pt2, "--db", db, "-t", "neuron", "-t", "tpu"], cwd=REPO, env=wide_env,
                           capture_output=True, text=True)

    def widest(text: str) -> int:  # a URL alone on its line is kept whole (cli.render), as the tests count it
        return max((len(line) for line in text.splitlines() if not re.fullmatch(r"\s*\S+://\S+", line)), default=0)

    return {"stderr_fresh": len(runs[0].stderr.splitlines()), "stderr_built": len(runs[1].stderr.splitlines()),
            "op_width": widest(runs[1].stdout), "check_width": widest(check.stdout)}


def suite_time() -> tuple[float, float, str]:
    """Wall seconds of the default suite (`pytest -q`), the CPU seconds it and its children
    used (the suite runs one test at a time, so on a quiet machine its wall time is about
    this; on a shared one the wall time is not), and its summary line."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=REPO,
                          capture_output=True, text=True, env=first_use.clean_env())
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    summary = next((line for line in reversed(done.stdout.splitlines()) if re.search(r"\d+ passed", line)), "")
    return took, cpu, summary.strip("= ")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=8, help="kb op / python -c pass pairs per round")
    parser.add_argument("--suite", action="store_true", help="also time the default test suite (minutes)")
    args = parser.parse_args()
    kb, env = first_use.kb_script(), first_use.clean_env()
    first_use.refresh_prebuilt(env)  # as `pip install -e .` makes it from this data/
    with tempfile.TemporaryDirectory(prefix="kb-fast-quiet-") as tmp:
        env["KB_CACHE_DIR"] = os.environ["KB_CACHE_DIR"] = os.path.join(tmp, "cache")
        gpt2, llama = os.path.join(tmp, "gpt2_like.pt2"), os.path.join(tmp, "llama8b.pt2")
        check_pt2.export(check_pt2.gpt2_like, gpt2)
        check_pt2.export(llama_like.build, llama)
        db = os.path.join(tmp, "kb.sqlite")
        standins = check_pt2.build_kb(db, [gpt2, llama])
        op_env = {**env, "KB_DB": db}
        pass_cmd, op_cmd = [sys.executable, "-c", "pass"], [kb, "op", "aten::add.Tensor"]
        torch_cmd = [sys.executable, "-c", "import torch"]
        for cmd in (pass_cmd, op_cmd, torch_cmd):  # warm the page cache and bytecode
            _seconds(cmd, op_env)
        check_pt2.run_check(gpt2, db)
        check_pt2.run_check(llama, db)

        first, refresh, rebuild, op_pairs, gpt2_pairs, llama_pairs, size, peaks = [], [], [], [], [], [], 0, []
        for _ in range(args.rounds):
            one = first_use.first_use_round(kb, env)
            first.append((one["first"], one["torch"]))
            refresh.append((one["refresh"], one["torch"]))
            rebuild.append((one["rebuild"], one["torch"]))
            size = one["size"]
            for _ in range(args.pairs):
                op_pairs.append((_seconds(op_cmd, op_env), _seconds(pass_cmd, op_env)))
            base = _seconds(torch_cmd, env)
            took, _, loaded_gpt2 = check_pt2.run_check(gpt2, db)
            gpt2_pairs.append((took, base))
            took, peak, loaded_llama = check_pt2.run_check(llama, db)
            llama_pairs.append((took, base))
            peaks.append(peak)
            if loaded_gpt2 or loaded_llama:
                sys.exit("kb check imported torch: the figure would not mean what it says")
        quiet = quiet_figures(kb, env, db, gpt2)

        torch_ms = statistics.median(b for _, b in first) * 1000
        print(f"issue 26, one paired run: {args.rounds} rounds, medians of per-pair ratios "
              f"(import torch {torch_ms:.0f} ms, python -c pass {statistics.median(b for _, b in op_pairs) * 1000:.1f} ms)")
        rows = [
            ("first use: kb op after the setup (prebuilt copied)", _median_ratio(first), "x import torch", "<= 0.5"),
            ("first kb op after a data/ change (1 record file)", _median_ratio(refresh), "x import torch", "<= 0.5"),
            ("  after a data/ops change (full rebuild)", _median_ratio(rebuild), "x import torch", "-"),
            ("kb op aten::add.Tensor, built KB", _median_ratio(op_pairs), "x python -c pass", "<= 2.5"),
            ("kb check GPT-2-size .pt2", _median_ratio(gpt2_pairs), "x import torch", "<= 0.25"),
            ("kb check 8B-shaped .pt2", _median_ratio(llama_pairs), "x import torch", "<= 0.25"),
        ]
        for name, value, unit, goal in rows:
            print(f"  {name:48s} {value:6.2f} {unit:18s} (goal {goal})")
        print(f"  {'KB file':48s} {size / 1e6:6.1f} MB                 (goal <= 20 MB)")
        print(f"  {'kb check 8B peak RSS':48s} {max(peaks) / 1024:6.0f} MB")
        print(f"  {'stderr lines, kb op, fresh cache / built KB':48s} {quiet['stderr_fresh']:>3} / {quiet['stderr_built']:<3}"
              "             (goal <= 2)")
        print(f"  {'widest line at COLUMNS=120, kb op / kb check':48s} {quiet['op_width']} / {quiet['check_width']}"
              "            (goal <= 120)")
        print(f"  (the KB holds {standins} stand-in verdicts for the models' ops it had none for; bench/check_pt2.py)")
    if args.suite:
        took, cpu, summary = suite_time()
        print(f"  {'default test suite (pytest -q), wall':48s} {took / 60:6.1f} min ({int(took // 60)} min {took % 60:.0f} s; "
              f"{summary}) (goal <= 4 min)")
        print(f"  {'  its CPU time (about a quiet machine wall)':48s} {cpu / 60:6.1f} min (load average "
              f"{os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
