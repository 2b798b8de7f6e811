"""What the pre-commit hook and the GitHub Action save by checking many exports in one
`kb ci check` instead of one `kb check` per file, in the same run:

* baseline: `kb check FILE -t neuron -t tpu --fail-on fallback` once per export (a fresh
  process each: what a loop in a shell script would do);
* ci: `kb ci check FILE... -t neuron -t tpu --fail-on fallback` once for all of them (one
  process, one KB lookup per target, one merged SARIF run);
* config: `kb check` with the same settings from a `[tool.kb]` table instead of flags (the
  walk up to pyproject.toml and its parse must cost nothing measurable; best of 3 each).

Prints seconds and the ratios baseline/ci (higher is better; about N for N exports once the
start-up dominates) and config/flags (about 1). The exports are made here with torch (a
Linear then ReLU). Usage: `python bench/ci_many_exports.py [N]` (default 8).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _kb(args: list[str], cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cli.entry", *args], cwd=cwd, env=env, capture_output=True, timeout=600)
    return time.perf_counter() - start


def main(count: int = 8) -> None:
    import torch

    repo = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())
        program = torch.export.export(model, (torch.randn(2, 8),))
        files = []
        for index in range(count):
            path = work / f"m{index}.pt2"
            torch.export.save(program, str(path))
            files.append(path.name)
        env = dict(os.environ, KB_CACHE_DIR=str(work / "cache"),
                   PYTHONPATH=os.pathsep.join(filter(None, (str(repo), os.environ.get("PYTHONPATH")))))
        flags = ["-t", "neuron", "-t", "tpu", "--fail-on", "fallback"]
        _kb(["db", "build"], work, env)  # first use outside the timings
        baseline = sum(_kb(["check", name, *flags, "--no-config"], work, env) for name in files)
        ci = _kb(["ci", "check", *files, *flags, "--no-config", "--sarif", "kb.sarif"], work, env)
        with_flags = min(_kb(["check", files[0], *flags, "--no-config"], work, env) for _ in range(3))
        (work / "pyproject.toml").write_text('[tool.kb]\ntargets = ["neuron", "tpu"]\nfail-on = "fallback"\n')
        with_config = min(_kb(["check", files[0]], work, env) for _ in range(3))
    print(f"{count} exports: one kb check each {baseline:.2f} s, one kb ci check {ci:.2f} s "
          f"-> ratio baseline/ci {baseline / ci:.1f}")
    print(f"one export: flags {with_flags:.2f} s, [tool.kb] {with_config:.2f} s -> ratio config/flags "
          f"{with_config / with_flags:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8)
