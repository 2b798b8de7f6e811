"""The shipped torch.nn module map (data/modules, kb.probe.module_map) and the one resolver
of torch names (kb.store.torchnames): well-formed, entries as really traced, reproducible by
the generator for a few modules, every spelling, and bounded reading of a foreign map."""

from __future__ import annotations

import json

import pytest

from kb.opnames import canonical
from kb.store import torchnames
from tests.conftest import REPO

MAP = REPO / "data" / "modules" / "torch-2.13.0.json"


@pytest.fixture(scope="module")
def shipped():
    return json.loads(MAP.read_text(encoding="utf-8"))


def test_map_is_well_formed_and_names_catalog_ops(shipped):
    catalog = {json.loads(line)["name"] for line in open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl")}
    modules = shipped["modules"]
    assert shipped["torch_version"] == "2.13.0" and shipped["generated_by"] == "python -m kb.probe.module_map"
    assert len(modules) >= 140 and not shipped["skipped"]
    wanted = {"Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d", "BatchNorm2d", "LayerNorm", "GroupNorm",
              "RMSNorm", "Embedding", "EmbeddingBag", "MultiheadAttention", "TransformerEncoderLayer",
              "TransformerDecoderLayer", "LSTM", "GRU", "RNN", "Dropout", "GELU", "ReLU", "SiLU", "MaxPool2d",
              "AdaptiveAvgPool2d", "Upsample", "PixelShuffle", "CrossEntropyLoss", "MSELoss", "CTCLoss"}
    assert {f"torch.nn.{w}" for w in wanted} <= set(modules)
    ops = set()
    for name, entry in modules.items():
        assert entry["constructor"].startswith(name.rsplit(".", 1)[1] + "(") and entry["inputs"]
        assert entry["device"] in ("meta", "cpu") and isinstance(entry["forward"], list)
        ops |= {*entry["forward"], *entry.get("train_forward", []), *entry.get("backward", [])}
    assert all(op == canonical(op) for op in ops)
    assert len(ops - catalog) / len(ops) < 0.05
    assert sum(e["device"] == "meta" for e in modules.values()) > 0.9 * len(modules)  # meta unless values matter


def test_known_entries_as_traced(shipped):
    m = shipped["modules"]
    linear = m["torch.nn.Linear"]
    assert linear["constructor"] == "Linear(16, 8)" and linear["inputs"] == ["float32[2, 4, 16]"]
    assert linear["forward"] == ["aten::view", "aten::t", "aten::addmm"]
    assert "aten::mm" in linear["backward"] and "train_forward" not in linear
    assert "aten::_softmax" in m["torch.nn.MultiheadAttention"]["forward"]
    assert "aten::bmm" in m["torch.nn.MultiheadAttention"]["forward"]
    assert "aten::_softmax_backward_data" in m["torch.nn.MultiheadAttention"]["backward"]
    assert m["torch.nn.Dropout"]["forward"] == [] and "aten::bernoulli_.float" in m["torch.nn.Dropout"]["train_forward"]
    assert "aten::native_batch_norm" in m["torch.nn.BatchNorm2d"]["forward"]
    assert "aten::native_batch_norm_backward" in m["torch.nn.BatchNorm2d"]["backward"]
    assert m["torch.nn.Embedding"]["forward"] == ["aten::embedding"]
    assert "aten::convolution" in m["torch.nn.Conv2d"]["forward"]
    assert m["torch.nn.CTCLoss"]["device"] == "cpu"  # its sizes depend on the lengths' values


@pytest.mark.heavy  # imports torch (~3 s)
def test_generator_reproduces_entries(shipped):
    torch = pytest.importorskip("torch")
    from kb.probe import module_map

    specs = module_map._specs()
    for name in ("Linear", "LayerNorm", "MultiheadAttention", "Dropout"):
        entry, why = module_map._trace_one(torch, name, getattr(torch.nn, name), specs[name])
        assert entry == shipped["modules"][f"torch.nn.{name}"], why


@pytest.mark.parametrize("spelling", ["nn.Linear", "torch.nn.Linear", "Linear", "torch.nn.modules.linear.Linear",
                                      "nn.Linear(16, 8)", " nn.Linear() ", "nn.linear"])
def test_module_spellings(spelling):
    found = torchnames.resolve(spelling)
    assert found is not None and found.kind == "module" and found.canonical == "torch.nn.Linear"
    assert found.ops == ("aten::view", "aten::t", "aten::addmm") and found.map_file == "modules/torch-2.13.0.json"
    assert found.torch_version == "2.13.0" and "aten::mm" in found.training_ops()


@pytest.mark.parametrize("spelling", ["F.gelu", "nn.functional.gelu", "torch.nn.functional.gelu"])
def test_function_spellings(spelling):
    found = torchnames.resolve(spelling)
    assert found is not None and found.kind == "function" and found.canonical == "torch.nn.functional.gelu"
    assert found.ops == ("aten::gelu",) and found.map_file == "functions/torch-2.13.0.json"


@pytest.mark.parametrize("spelling", ["linear", "relu", "aten::linear", "nn.Nope", "torch.nn.functional.Linear",
                                      "nn.Linear.weight", "", "x" * 5000])
def test_not_a_module(spelling):
    assert torchnames.resolve_module(spelling) is None


def test_close_modules_and_search():
    assert torchnames.close_modules("nn.Lniear")[0] == "torch.nn.Linear"
    assert torchnames.looks_like_module("nn.Nope") and not torchnames.looks_like_module("nn.functional.gelu")
    assert "torch.nn.MultiheadAttention" in torchnames.search("multihead")
    assert set(torchnames.search("nn.Conv")) >= {"torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.ConvTranspose3d"}


def test_a_foreign_map_is_read_bounded_and_typed(tmp_path, monkeypatch):
    data = tmp_path / "data"
    (data / "modules").mkdir(parents=True)
    (data / "modules" / "torch-9.0.0.json").write_text(json.dumps({
        "torch_version": "9.0.0",
        "modules": {"torch.nn.Good": {"forward": ["aten::relu"], "constructor": "Good()", "inputs": ["x"]},
                    "torch.nn.BadOps": {"forward": "aten::relu"}, "torch.nn.BadEntry": [1, 2],
                    "torch.nn.Long": {"forward": ["a" * 5000]}}}), encoding="utf-8")
    monkeypatch.setenv("KB_DATA_DIR", str(data))
    assert torchnames.module_names() == ["torch.nn.Good"]
    assert torchnames.resolve("nn.Good").ops == ("aten::relu",)
    (data / "modules" / "torch-9.0.0.json").write_bytes(b"[" * (torchnames.MAX_MAP_BYTES + 10))
    assert torchnames.module_names() == []
