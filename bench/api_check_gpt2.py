"""What `kb.check` costs on a GPT-2-size model held in memory (124 M parameters, real
float32 weights on the CPU, as a notebook has it), against `import torch` measured in the
same run:

* baseline: `python -c "import torch"` in a fresh interpreter (median of ROUNDS);
* first: `kb.check(model, (tokens,), targets=("neuron", "tpu"))`, the first call of the
  process (the KB is built beforehand; its opening and two targets' verdict tables count);
* again: the same call once more (what a notebook's next cell pays);
* memory: the most the process's RSS grew during the first call (sampled every 5 ms from
  /proc/self/statm), against the bytes of the model's weights (kb.check traces a meta
  copy: no weight is copied).

Prints seconds and the ratios first/baseline, again/baseline, peak growth/weight bytes.
Usage: `python bench/api_check_gpt2.py [ROUNDS] [SEQ]` (defaults 3, 1024).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LAYERS, DIM, HEADS, VOCAB, CONTEXT = 12, 768, 12, 50257, 1024


def build():
    """GPT-2 small's shape: learned positions, pre-norm blocks, causal attention, GELU (tanh)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(DIM)
            self.c_attn = nn.Linear(DIM, 3 * DIM)
            self.c_proj = nn.Linear(DIM, DIM)
            self.ln_2 = nn.LayerNorm(DIM)
            self.c_fc = nn.Linear(DIM, 4 * DIM)
            self.mlp_proj = nn.Linear(4 * DIM, DIM)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(DIM, dim=2)
            q, k, v = (z.view(b, t, HEADS, DIM // HEADS).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).reshape(b, t, DIM))
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))

    class GPT2(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(VOCAB, DIM)
            self.wpe = nn.Embedding(CONTEXT, DIM)
            self.h = nn.ModuleList(Block() for _ in range(LAYERS))
            self.ln_f = nn.LayerNorm(DIM)
            self.lm_head = nn.Linear(DIM, VOCAB, bias=False)
            self.lm_head.weight = self.wte.weight  # tied, as GPT-2's are

        def forward(self, tokens):
            places = torch.arange(tokens.shape[1], device=tokens.device)
            x = self.wte(tokens) + self.wpe(places)
            for block in self.h:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    return GPT2()


def rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRSS:
    """The highest RSS seen while the block runs (a sampling thread)."""

    def __enter__(self):
        self.peak, self.done = rss(), threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self):
        while not self.done.wait(0.005):
            self.peak = max(self.peak, rss())

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()
        self.peak = max(self.peak, rss())


def import_torch_seconds(rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(rounds: int = 3, seq: int = 1024) -> None:
    import torch

    import kb
    from kb.store.db import open_kb

    open_kb(None).close()  # built once beforehand: the first-use build is not what is measured
    model = build()
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    tokens = torch.zeros(1, seq, dtype=torch.long)
    baseline = import_torch_seconds(rounds)

    before = rss()
    with PeakRSS() as peak:
        start = time.perf_counter()
        result = kb.check(model, (tokens,), targets=("neuron", "tpu"))
        first = time.perf_counter() - start
    growth = peak.peak - before
    again = []
    for _ in range(rounds):
        start = time.perf_counter()
        kb.check(model, (tokens,), targets=("neuron", "tpu"))
        again.append(time.perf_counter() - start)
    sites = result.reports[0].call_sites
    print(f"model: GPT-2 small shape, {weights / 2**20:.0f} MiB of float32 weights, seq {seq}, {sites} call sites")
    print(f"baseline import torch {baseline:.2f} s")
    print(f"kb.check first {first:.2f} s (ratio {first / baseline:.2f}), "
          f"again {statistics.median(again):.2f} s (ratio {statistics.median(again) / baseline:.2f})")
    print(f"RSS growth during the first check at most {growth / 2**20:.0f} MiB "
          f"(ratio to weight bytes {growth / weights:.3f})")
    print("verdicts: " + "; ".join(f"{t}: {s['ops_by_status']}" for t, s in result.summaries().items()))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, int(sys.argv[2]) if len(sys.argv) > 2 else 1024)
