"""Golden answers: the `--json` output of a fixed set of commands on the shipped KB, saved
so that a change to how the KB is built (bulk loading, presumed verdicts derived when read)
can be shown to leave every answer as it was.

    python bench/golden_answers.py save DIR     # build a fresh KB, run the commands, write DIR/*.json
    python bench/golden_answers.py compare A B  # byte-compare two saved sets (exit 1 on a difference)

Besides the commands, DIR/support-rows.jsonl holds every verdict the `support` table
(or view) shows, without its row id, sorted: the rows Datasette and every query read.
Fields that name when or how long a build took (built_at, ingested_at, seconds) or a path vary from run to run
and are blanked before saving.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

# (file name, kb arguments); every command gets --json
COMMANDS: list[tuple[str, list[str]]] = [
    ("op-add", ["op", "aten::add.Tensor"]),
    ("op-nonzero", ["op", "aten::nonzero"]),
    ("op-quantize", ["op", "aten::quantize_per_tensor"]),
    ("op-scaled-mm", ["op", "aten::_scaled_mm"]),
    ("op-sdpa", ["op", "scaled_dot_product_attention", "-t", "neuron", "-t", "tpu=0.2.0"]),
    ("op-svd", ["op", "aten::linalg_svd"]),
    ("op-silu-233", ["op", "torch.ops.aten.silu.default", "-t", "neuron=2.33"]),
    ("op-masked-select", ["op", "aten::masked_select"]),
    ("op-int", ["op", "aten::Int"]),
    ("op-conv-inf1", ["op", "aten::convolution", "-t", "inf1"]),
    ("ops-tpu-unsupported", ["ops", "--target", "tpu", "--status", "unsupported"]),
    ("ops-neuron-fallback", ["ops", "--target", "neuron", "--status", "fallback"]),
    ("ops-neuron-2.14.3.1", ["ops", "--target", "neuron=2.14.3.1"]),
    ("ops-inf1", ["ops", "--target", "inf1"]),
    ("ops-tpu-0.1.1-native", ["ops", "--target", "tpu=0.1.1", "--status", "native"]),
    ("compare-diff", ["compare", "neuron", "tpu", "--diff"]),
    ("compare-all", ["compare", "neuron", "tpu", "--all"]),
    ("diff-tpu", ["diff", "tpu", "0.1.1", "0.2.0"]),
    ("diff-neuron", ["diff", "neuron", "0.1.0.dev0+g98154b8", "2.14.3.1"]),
    ("targets", ["targets"]),
    ("disagreements", ["disagreements"]),
    ("check-pt2", ["check", "{pt2}", "--target", "neuron", "--target", "tpu"]),
    ("check-pt2-suggest", ["check", "{pt2}", "--target", "neuron", "--suggest"]),
    ("eol-torch-neuronx", ["eol", "torch-neuronx"]),
    ("eol-stack", ["eol", "--stack", "neuron=2.34 torch=2.14 python=3.12 ubuntu=24.04"]),
    ("ask-nonzero", ["ask", "is nonzero native on tpu 0.2.0?"]),
    ("ask-count", ["ask", "How many ops are unsupported on TPU?"]),
    ("ask-neuron-233", ["ask", "does aten::add.Tensor run on neuron 2.33?"]),
    ("version", ["version"]),
    ("db-stats", ["db", "stats"]),
]
VARYING = {"built_at", "ingested_at", "seconds", "path", "db", "kb_path", "model"}


def _blank(value):
    if isinstance(value, dict):
        return {k: ("<varies>" if k in VARYING else _blank(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank(v) for v in value]
    return value


def write_pt2(path: str) -> None:
    """A small export (linear, gelu, softmax, nonzero), made with torch once per save."""
    import torch

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(8, 8)

        def forward(self, x):
            return torch.nn.functional.gelu(self.lin(x)).softmax(-1).nonzero()

    torch.manual_seed(0)
    torch.export.save(torch.export.export(Model(), (torch.randn(2, 8),)), path)


def save(out: str) -> None:
    kb = shutil.which("kb", path=os.path.dirname(sys.executable)) or shutil.which("kb")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="kb-golden-")
    env = {k: v for k, v in os.environ.items() if k not in ("KB_DB", "KB_DATA_DIR")}
    env.update(KB_CACHE_DIR=work, COLUMNS="120", KB_TODAY=env.get("KB_TODAY", "2026-12-01"))
    pt2 = os.path.join(out, "model.pt2")
    if not os.path.exists(pt2):
        write_pt2(pt2)
    subprocess.run([kb, "db", "build"], env=env, check=True, capture_output=True)
    for name, args in COMMANDS:
        argv = [kb, *[a.replace("{pt2}", pt2) for a in args], "--json"]
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        try:
            body = json.dumps(_blank(json.loads(done.stdout)), indent=1, sort_keys=True, ensure_ascii=False)
        except ValueError:
            body = done.stdout
        with open(os.path.join(out, f"{name}.json"), "w", encoding="utf-8") as fh:
            fh.write(f"exit {done.returncode}\n{body}\n")
    conn = sqlite3.connect(os.path.join(work, "kb.sqlite"))
    conn.row_factory = sqlite3.Row
    rows = [{k: r[k] for k in r.keys() if k != "id"} for r in conn.execute("SELECT * FROM support")]
    for row in rows:  # JSON columns compared as data: a view may write the same object more tightly
        for key in ("dtypes", "conditions", "sources", "effective_via", "report"):
            if row.get(key) is not None:
                row[key] = json.loads(row[key])
    lines = sorted(json.dumps(r, sort_keys=True) for r in rows)
    with open(os.path.join(out, "support-rows.jsonl"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    conn.close()
    shutil.rmtree(work, ignore_errors=True)
    print(f"saved {len(COMMANDS)} answers and {len(lines)} support rows to {out}")


def compare(a: str, b: str) -> int:
    names = sorted(set(os.listdir(a)) | set(os.listdir(b)) - {"model.pt2"})
    differ = []
    for name in names:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if not (os.path.exists(pa) and os.path.exists(pb)):
            differ.append(f"{name}: only in one set")
            continue
        with open(pa, "rb") as fa, open(pb, "rb") as fb:
            if fa.read() != fb.read():
                differ.append(name)
    for line in differ:
        print("differs:", line)
    print(f"{len(names) - len(differ)}/{len(names)} identical")
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "save":
        save(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
