"""Inputs for the `kb report` tests and the docs screenshot, written for them: a small
code base with CUDA lock-in in two files, a Triton kernel and a CUDA build pin; a model
factory; KB records (verdicts, a release, an end-of-support date); a cost file."""

from __future__ import annotations

import shutil
from pathlib import Path

from kb.store import records as rec

REPO = Path(__file__).resolve().parent.parent.parent
TODAY = "2026-11-30"
NEXT_CYCLE = "2027-06-01"

TRAIN = '''import torch

device = torch.device("cuda")


def train_step(model, batch, optimizer):
    batch = batch.cuda()
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()
    torch.cuda.synchronize()
    return loss
'''

KERNELS = '''import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) * 2, mask=offsets < n)


class Scale(torch.nn.Module):
    def forward(self, x):
        return x.to("cuda") * 2
'''

TEST = '''import torch


def test_on_gpu():
    assert torch.ones(1).cuda().sum() == 1
'''

MODEL = '''import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return nn.functional.silu(self.proj(x).relu() + x)


def build():
    return Net()
'''

COSTS = '''[trn2-48xlarge]
price_per_hour = 40.0
tokens_per_second = 52000
note = "bf16, batch 32"

[p5-48xlarge]
price_per_hour = 55.0
tokens_per_second = 61000
note = "bf16, batch 32"
'''


def write_repo(root: Path) -> Path:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "tests").mkdir(exist_ok=True)
    (root / "src" / "train.py").write_text(TRAIN)
    (root / "src" / "kernels.py").write_text(KERNELS)
    (root / "tests" / "test_gpu.py").write_text(TEST)
    (root / "requirements.txt").write_text("torch==2.5.1+cu121\nnumpy\n")
    return root


def write_model(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "net.py").write_text(MODEL)
    return f"{folder / 'net.py'}:build"


def write_costs(path: Path) -> Path:
    path.write_text(COSTS)
    return path


def small_data_dir(root: Path) -> Path:
    """A data/ folder with the real targets and a few catalog ops (as tests/conftest.py's
    small_data fixture builds it)."""
    data = root / "data"
    (data / "ops").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "data" / "targets.csv", data / "targets.csv")
    wanted = {"aten::add.Tensor", "aten::relu", "aten::silu", "aten::linear"}
    with open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl", encoding="utf-8") as src, \
            open(data / "ops" / "aten-torch-2.13.0.jsonl", "w", encoding="utf-8") as dst:
        for line in src:
            if any(f'"name": "{name}"' in line for name in wanted):
                dst.write(line)
    return data


def records() -> list:
    def prov(url="https://docs.example.test/neuron/ops", sha="s1"):
        return rec.Provenance(source_kind="doc", source_name="report-test", source_url=url,
                              retrieved_at="2026-11-01T00:00:00+00:00", content_sha256=sha)

    def verdict(op, status):
        return rec.OpStatus(op=op, target="neuron", backend_version="2.14.3.0", status=status, mode="eager",
                            provenance=prov())

    return [
        rec.Release(product="torchneuron", version="2.14.3.0", sdk_version="2.33.0", date="2026-10-19",
                    provenance=prov("https://docs.example.test/neuron/release-notes")),
        verdict("aten::linear", "native"),
        verdict("aten::relu", "native"),
        verdict("aten::add.Tensor", "native"),
        verdict("aten::silu", "fallback"),
        rec.SupportWindow(product="neuron-sdk", cycle="2.33", eol="2027-03-15", eol_kind="announced",
                          provenance=prov("https://docs.example.test/neuron/eos", "s2")),
        rec.SupportWindow(product="python", cycle="3.9", eol="2027-01-10", eol_kind="announced",
                          provenance=prov("https://docs.example.test/python/eos", "s3")),
    ]


def ingest(db_path: str) -> None:
    from kb.store.ingest import ingest_records

    ingest_records(str(db_path), records(), source_name="report-test")


def make_all(root: Path) -> dict:
    """Everything `kb report` takes, under `root`: {repo, model, costs}. The caller points
    KB_DATA_DIR / KB_DB at a data folder and KB file (see screenshot.py)."""
    return {"repo": str(write_repo(root / "repo")), "model": write_model(root / "model"),
            "costs": str(write_costs(root / "costs.toml"))}


