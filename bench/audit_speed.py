"""How much `kb audit` costs over the guides' `grep -rn "cuda"`, on the same tree in the
same run.

Builds a synthetic code base in a temporary folder (files with and without CUDA code,
a virtualenv to skip), then times:

* baseline: a regex search for `cuda` / `triton` over every .py file (what the migration
  guides suggest; it also matches comments, strings and docstrings);
* kb audit: `kb.migrate.audit.audit_path` (parsing, aliases, context, dependency files).

Prints the ratio kb/baseline. Usage: `python bench/audit_speed.py [FILES]` (default 2000).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kb.migrate.audit import audit_path  # noqa: E402

CUDA_FILE = '''"""Model code. Mentions x.cuda() in a docstring."""
import torch
from torch import cuda


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(64, 64)

    def forward(self, x):
        x = x.cuda()  # move
        cuda.synchronize()
        return self.linear(x.to("cuda:0"))


def train_step(model, batch):
    with torch.cuda.amp.autocast():
        return model(batch.to(device="cuda"))
'''
PLAIN_FILE = '''"""Data utilities without any device code."""
import json


def load(path):
    with open(path) as handle:
        return [json.loads(line) for line in handle]


def batches(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]
'''


def build_tree(root: str, files: int) -> None:
    for index in range(files):
        folder = os.path.join(root, "pkg", f"mod{index // 100}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"file{index}.py"), "w") as handle:
            handle.write(CUDA_FILE if index % 4 == 0 else PLAIN_FILE)
    venv = os.path.join(root, ".venv", "lib", "site-packages")
    os.makedirs(venv)
    open(os.path.join(root, ".venv", "pyvenv.cfg"), "w").close()
    for index in range(files // 4):
        with open(os.path.join(venv, f"dep{index}.py"), "w") as handle:
            handle.write(CUDA_FILE)
    with open(os.path.join(root, "requirements.txt"), "w") as handle:
        handle.write("numpy\nflash-attn>=2\n")


def grep_baseline(root: str) -> int:
    pattern = re.compile(r"cuda|triton")
    hits = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".venv"]  # grep --exclude-dir, to be fair
        for name in filenames:
            if name.endswith(".py"):
                with open(os.path.join(dirpath, name), encoding="utf-8") as handle:
                    hits += sum(1 for line in handle if pattern.search(line))
    return hits


def best_of(runs: int, fn, *args):
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as root:
        build_tree(root, files)
        grep_s, grep_hits = best_of(3, grep_baseline, root)
        kb_s, report = best_of(3, audit_path, root)
    print(f"tree: {files} .py files (1 in 4 with CUDA code), a skipped virtualenv, requirements.txt")
    print(f"baseline regex: {grep_s * 1000:8.1f} ms  {grep_hits} matching lines (comments and docstrings included)")
    print(f"kb audit:       {kb_s * 1000:8.1f} ms  {len(report.findings)} findings in {report.files_scanned} files")
    print(f"ratio kb/baseline: {kb_s / grep_s:.1f}x")


if __name__ == "__main__":
    main()
