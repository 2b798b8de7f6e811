"""`kb check` of exported programs against `python -c "import torch"` (issue 15).

A check of a `.pt2` archive reads its graph JSON and the KB's verdicts; it imports no
torch. This bench shows what that buys, as a ratio against what merely importing torch
costs on the same machine, in the same run:

1. Two archives are made with torch.export.save (models built on the meta device): a
   GPT-2-size decoder (12 layers, 768 wide, 50257-token vocabulary) and the 8B
   Llama-shaped decoder of bench/llama_like.py.
2. A KB file is built from the shipped data in a temporary folder; ops of the two models
   the KB has no verdict for get a stand-in one ("native", source bench-standin), as the
   dispatcher replay (issue 14) gives every ATen overload a verdict.
3. Paired runs, each a fresh process: `kb check MODEL --db KB` then
   `python -c "import torch"`, alternating; the median of the per-pair ratios is reported.
   Goal: <= 0.3.
4. Peak RSS (VmHWM) of checking the 8B archive. Goal: <= 300 MB.
Run: python bench/check_pt2.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "bench"))

TARGET = "neuron"
# Both sides run as an installed package would: with bytecode caches (written by the
# warm-up round where PYTHONDONTWRITEBYTECODE would forbid it).
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

# The check in a fresh process, reporting its peak RSS (VmHWM) on stderr's last line.
_CHECK = r"""
import sys
sys.path.insert(0, {repo!r})
from cli.entry import main
code = main({argv!r})
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        sys.stderr.write("VmHWM " + line.split()[1] + " torch=" + str("torch" in sys.modules) + "\n")
sys.exit(code)
"""


def gpt2_like():
    """A GPT-2 small-shaped decoder (124 M parameters) in plain torch."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    dim, layers, heads, vocab, positions = 768, 12, 12, 50257, 1024

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(dim)
            self.c_attn = nn.Linear(dim, 3 * dim)
            self.c_proj = nn.Linear(dim, dim)
            self.ln_2 = nn.LayerNorm(dim)
            self.c_fc = nn.Linear(dim, 4 * dim)
            self.mlp_proj = nn.Linear(4 * dim, dim)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(dim, dim=2)
            q, k, v = (z.view(b, t, heads, dim // heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).contiguous().view(b, t, dim))
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))

    class GPT2Like(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, dim)
            self.wpe = nn.Embedding(positions, dim)
            self.h = nn.ModuleList(Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(dim)
            self.lm_head = nn.Linear(dim, vocab, bias=False)

        def forward(self, ids):
            pos = torch.arange(ids.shape[1], device=ids.device)
            x = self.wte(ids) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    return GPT2Like()


def export(build, path: str) -> None:
    import torch

    from kb.check import tracing

    start = time.perf_counter()
    with torch.device("meta"):
        model = build()
    params = sum(p.numel() for p in model.parameters())
    program = tracing.export_on_meta(model, tracing.meta_inputs([tracing.parse_input_shape("1x128:int64")]))
    torch.export.save(program, path)
    print(f"{os.path.basename(path)}: {params / 1e9:.2f} B parameters, exported on meta in "
          f"{time.perf_counter() - start:.1f} s, {os.path.getsize(path) / 1e6:.1f} MB archive")


def build_kb(db: str, archives: list[str]) -> int:
    """The shipped KB plus stand-in verdicts for the models' ops it has none for."""
    from kb.check import pt2_graph
    from kb.store import queries
    from kb.store import records as rec
    from kb.store.db import open_kb
    from kb.store.ingest import ingest_records

    conn = open_kb(db)
    version = queries.pick_version(conn, TARGET, None) or "0.0.1"
    known = set(queries.support_map(conn, TARGET, version))
    conn.close()
    ops = {site.op for path in archives for site in pt2_graph.read_sites(path)[0]}
    missing = sorted(op for op in ops if op.startswith("aten::") and op not in known)
    provenance = rec.Provenance(source_kind="doc", source_name="bench-standin", source_url="https://example.invalid/bench-standin",
                                retrieved_at="2026-12-01T00:00:00+00:00", content_sha256="bench",
                                probe_run_id=None)
    records = [rec.OpStatus(op=op, target=TARGET, backend_version=version, status="native", provenance=provenance)
               for op in missing]
    if records:
        ingest_records(db, records, source_name="bench-standin")
    return len(missing)


def run_check(path: str, db: str) -> tuple[float, int, bool]:
    """(seconds, peak RSS in KiB, whether torch was imported) of one `kb check` process."""
    code = _CHECK.format(repo=REPO, argv=["check", path, "--db", db, "-t", TARGET])
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_ENV)
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"kb check failed: {proc.stderr.strip()[-400:]}")
    last = proc.stderr.strip().splitlines()[-1].split()
    return took, int(last[1]), last[2] == "torch=True"


def run_import_torch() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], check=True, env=_ENV)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    import llama_like

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["KB_CACHE_DIR"] = os.path.join(tmp, "cache")
        gpt2, llama = os.path.join(tmp, "gpt2_like.pt2"), os.path.join(tmp, "llama8b.pt2")
        export(gpt2_like, gpt2)
        export(llama_like.build, llama)
        db = os.path.join(tmp, "kb.sqlite")
        print(f"KB: shipped data + {build_kb(db, [gpt2, llama])} stand-in verdicts for ops it had none for")
        for path in (gpt2, llama):
            run_check(path, db)  # warm the file cache
            run_import_torch()
            ratios, ours, theirs, peaks, torch_loaded = [], [], [], [], False
            for _ in range(args.rounds):
                took, peak, loaded = run_check(path, db)
                base = run_import_torch()
                ours.append(took)
                theirs.append(base)
                ratios.append(took / base)
                peaks.append(peak)
                torch_loaded |= loaded
            print(f"{os.path.basename(path)}: kb check median {statistics.median(ours):.3f} s, "
                  f"import torch median {statistics.median(theirs):.3f} s, median paired ratio "
                  f"{statistics.median(ratios):.2f} (goal <= 0.3); peak RSS {max(peaks) / 1024:.0f} MB"
                  f"{' (goal <= 300 MB)' if path == llama else ''}; torch imported: {torch_loaded}")


if __name__ == "__main__":
    main()
