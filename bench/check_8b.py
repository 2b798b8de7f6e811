"""`kb check` on an 8-billion-parameter Llama-shaped model, against what any tool pays.

1. The model (bench/llama_like.py) is built on the meta device, exported with
   torch.export and saved with torch.export.save.
2. Time: `kb check` of the saved file (detect, read the graph, resolve every op against a
   verdict table, decompositions traced fresh each round) vs `torch.export.load` plus a
   plain walk over the graph's nodes, in this same process, best of several rounds.
   Target: ratio <= 1.2.
3. Memory: `kb check bench/llama_like.py:build --input-shape 1x128:int64` (factory traced on
   meta tensors) in a fresh process; peak RSS target <= 1 GB, shown next to a bare
   `import torch` process.
Run: python bench/check_8b.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
FACTORY = os.path.join(REPO, "bench", "llama_like.py") + ":build"

# VmHWM, not ru_maxrss: a child's ru_maxrss starts from its parent's at fork on Linux.
_PEAK = r"""
def _peak_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
"""
_CHILD = _PEAK + r"""
import sys
sys.path.insert(0, {repo!r})
from kb.check import model_formats
from kb.check import tracing
from kb.check import resolve as kc
from kb.check.resolve import Verdict
import torch
def lookup(op):
    try:
        cia = torch._C._dispatch_has_kernel_for_dispatch_key(op, "CompositeImplicitAutograd")
    except RuntimeError:
        cia = False
    return None if cia else Verdict("native")
traced = tracing.trace(model_formats.detect({spec!r}), ["1x128:int64"])
report = kc.check(traced, lookup, target="neuron")
print(len(traced.sites), len(report.ops), _peak_kib())
"""


def full_kb_lookup():
    """Stands in for a complete KB: every op with its own kernel is native, composite ops
    have no verdict of their own, so their decompositions are traced and resolved."""
    import torch

    from kb.check.resolve import Verdict

    def lookup(op):
        try:
            cia = torch._C._dispatch_has_kernel_for_dispatch_key(op, "CompositeImplicitAutograd")
        except RuntimeError:
            cia = False
        return None if cia else Verdict("native")

    return lookup


def export_model(path: str) -> float:
    import torch

    from kb.check import tracing

    sys.path.insert(0, os.path.join(REPO, "bench"))
    import llama_like

    start = time.perf_counter()
    with torch.device("meta"):
        model = llama_like.build()
    params = sum(p.numel() for p in model.parameters())
    program = tracing.export_on_meta(model, tracing.meta_inputs([tracing.parse_input_shape("1x128:int64")]))
    torch.export.save(program, path)
    took = time.perf_counter() - start
    print(f"model: {params / 1e9:.2f} B parameters; exported on meta and saved in {took:.1f} s "
          f"({os.path.getsize(path) / 1e6:.1f} MB file)")
    return took


def baseline(path: str) -> int:
    import torch

    program = torch.export.load(path)
    return sum(1 for node in program.graph.nodes if node.op == "call_function")


def kb_check(path: str, lookup) -> int:
    from kb.check import model_formats, tracing
    from kb.check import resolve as kc

    kc._DECOMP_CACHE.clear()  # no help from an earlier round
    traced = tracing.trace(model_formats.detect(path))
    report = kc.check(traced, lookup, target="neuron")
    return report.call_sites


def interleaved(fns, rounds: int) -> list[list[float]]:
    """Times of each function per round, the functions taking turns so that load from
    other processes on the machine falls on both alike."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - start)
    return times


def child_peak_rss(code: str) -> tuple[str, float]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return out, int(out[-1]) / 1024  # KiB


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    out, peak = child_peak_rss(_CHILD.format(repo=REPO, spec=FACTORY))
    _, torch_only = child_peak_rss(_PEAK + "import torch\nprint(_peak_kib())")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "llama8b.pt2")
        export_model(path)
        lookup = full_kb_lookup()
        baseline(path)
        kb_check(path, lookup)  # warm both paths (imports, first-call costs)
        base, ours = interleaved([lambda: baseline(path), lambda: kb_check(path, lookup)], args.rounds)
        paired = sorted(o / b for o, b in zip(ours, base, strict=True))
        print(f"torch.export.load + graph walk: best {min(base):.3f} s; kb check (trace + resolve): best {min(ours):.3f} s; "
              f"ratio of bests {min(ours) / min(base):.2f}, median ratio of rounds {paired[len(paired) // 2]:.2f} "
              f"(target <= 1.2)")
    print(f"factory {os.path.relpath(FACTORY, REPO)}: {out[0]} call sites, {out[1]} distinct ops; "
          f"peak RSS {peak:.0f} MB (target <= 1024 MB; a bare `import torch` process: {torch_only:.0f} MB)")


if __name__ == "__main__":
    main()
