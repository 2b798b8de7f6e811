"""A gallery KB made here: a tiny model exported in the test (its census taken by kb's own
reader), two made-up census models and one that did not export, with verdicts for their
ops on neuron 2.14.3.0 (layer_norm falls back) and tpu 0.2.0 (all native)."""

from __future__ import annotations

import json
import shutil

import pytest

from kb.store import records as rec
from tests.conftest import REPO, prov

NEURON_DOC = "https://docs.example.test/neuron/ops.html"
TPU_DOC = "https://docs.example.test/tpu/ops.html"
TINY_SOURCE = "https://example.test/tiny/config.json"


@pytest.fixture(scope="session")
def tiny_exports(tmp_path_factory):
    """{"inference": path, "training": path}: a small MLP with a layer norm, exported forward
    and as a joint forward+backward graph."""
    torch = pytest.importorskip("torch")
    from torch import nn
    from torch.export.experimental import _export_forward_backward

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.Linear(16, 32)
            self.norm = nn.LayerNorm(32)
            self.down = nn.Linear(32, 8)

        def forward(self, x):
            return self.down(self.norm(torch.nn.functional.gelu(self.up(x))))

    class Loss(nn.Module):
        def __init__(self):
            super().__init__()
            self.tiny = Tiny()

        def forward(self, x):
            return (self.tiny(x).float().mean(),)

    root = tmp_path_factory.mktemp("tiny")
    torch.manual_seed(0)
    x = torch.randn(4, 16)
    out = {"inference": str(root / "tiny.pt2"), "training": str(root / "tiny-joint.pt2")}
    torch.export.save(torch.export.export(Tiny(), (x,)), out["inference"])
    joint = _export_forward_backward(torch.export.export(Loss(), (x,)).run_decompositions())
    torch.export.save(joint, out["training"])
    return out


def _row(model, op, calls, flops, nbytes, first, phase="forward", dtype="bfloat16", hazard=None):
    return {"model": model, "graph": "inference", "op": op, "phase": phase, "dtype": dtype, "hazard": hazard,
            "calls": calls, "flops": flops, "bytes": nbytes, "counted_by": "flops", "first": first}


def made_up_census() -> list[dict]:
    return [
        _row("alpha-7b", "aten::embedding", 1, 0, 1000, 0),
        _row("alpha-7b", "aten::layer_norm", 4, 400, 800, 1),
        _row("alpha-7b", "aten::linear", 8, 80000, 1600, 5),
        _row("beta-moe", "aten::linear", 6, 60000, 1200, 0),
        _row("beta-moe", "aten::gelu", 3, 120, 600, 6),
    ]


def model_line(slug, name, source, graphs, family="decoder"):
    return {"model": slug, "name": name, "family": family, "library": "transformers", "architecture": "Made",
            "config": {"hidden_size": 8}, "config_source": source, "inputs": [], "parameters": 1000,
            "graphs": graphs, "built_with": {"torch": "2.13.0", "transformers": "5.23.0"}, "build_seconds": 1.0}


@pytest.fixture
def gallery_kb(tmp_path, monkeypatch, isolated_kb, tiny_exports):
    """(KB path, data dir, tiny census rows): the gallery fixture KB at KB_DB."""
    from kb.gallery import census as gc
    from kb.store.db import open_kb
    from kb.store.ingest import ingest_records

    tiny = [r for graph, path in tiny_exports.items() for r in gc.census_from_archive(path, "tiny", graph)]
    ops = sorted({r["op"] for r in tiny} | {r["op"] for r in made_up_census()})
    data = tmp_path / "data"
    (data / "ops").mkdir(parents=True)
    (data / "gallery").mkdir()
    shutil.copy(REPO / "data" / "targets.csv", data / "targets.csv")
    with open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl", encoding="utf-8") as src, \
            open(data / "ops" / "aten-torch-2.13.0.jsonl", "w", encoding="utf-8") as dst:
        for line in src:
            if json.loads(line)["name"] in ops:
                dst.write(line)
    models = [model_line("tiny", "Tiny MLP", TINY_SOURCE, {"inference": {"status": "exported"},
                                                           "training": {"status": "exported"}}, family="test"),
              model_line("alpha-7b", "Alpha 7B", "https://example.test/alpha/config.json",
                         {"inference": {"status": "exported"}}),
              model_line("beta-moe", "Beta MoE", "https://example.test/beta/config.json",
                         {"inference": {"status": "exported"}}),
              model_line("gamma-2b", "Gamma 2B", "https://example.test/gamma/config.json",
                         {"inference": {"status": "failed", "reason": "torch.export: GuardOnDataDependentSymNode"}})]
    (data / "gallery" / "models.jsonl").write_text("".join(json.dumps(m) + "\n" for m in models))
    census = sorted(tiny + made_up_census(), key=gc.sort_key)
    (data / "gallery" / "census.jsonl").write_text("".join(json.dumps(r) + "\n" for r in census))
    monkeypatch.setenv("KB_DATA_DIR", str(data))
    open_kb(str(isolated_kb)).close()
    neuron = dict(target="neuron", backend_version="2.14.3.0", provenance=prov(url=NEURON_DOC, name="neuron-ops"))
    tpu = dict(target="tpu", backend_version="0.2.0", provenance=prov(url=TPU_DOC, name="tpu-ops"))
    records = []
    for op in ops:
        records.append(rec.OpStatus(op=op, status="fallback" if op == "aten::layer_norm" else "native", **neuron))
        for mode in ("eager", "compile"):
            records.append(rec.OpStatus(op=op, status="native", mode=mode, **tpu))
    ingest_records(str(isolated_kb), records, source_name="gallery-test", origin="shipped")
    return str(isolated_kb), data, tiny
