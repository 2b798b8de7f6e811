"""The shipped torch-function → ATen map: well-formed, consistent with the op catalog, and
reproducible by its generator (kb.chat.function_map) for a few functions."""

from __future__ import annotations

import json

import pytest

from kb.opnames import canonical
from tests.chat.conftest import REPO

MAP = REPO / "data" / "functions" / "torch-2.13.0.json"


@pytest.fixture(scope="module")
def shipped():
    return json.loads(MAP.read_text(encoding="utf-8"))


def test_map_is_well_formed_and_names_catalog_ops(shipped):
    catalog = {json.loads(line)["name"] for line in open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl")}
    functions = shipped["functions"]
    assert shipped["torch_version"] == "2.13.0" and len(functions) > 500
    assert functions["torch.nn.functional.silu"] == ["aten::silu"]
    assert functions["torch.Tensor.view"] == ["aten::view"]
    ops = {op for found in functions.values() for op in found}
    assert all(op == canonical(op) for op in ops)
    assert len(ops - catalog) / len(ops) < 0.05  # nearly all traced ops are in the shipped catalog


def test_generator_reproduces_entries(shipped):
    torch = pytest.importorskip("torch")
    from kb.chat.function_map import _samples, trace

    samples = _samples(torch)
    for name, fn in (("torch.nn.functional.gelu", torch.nn.functional.gelu), ("torch.nonzero", torch.nonzero),
                     ("torch.Tensor.view", torch.Tensor.view)):
        assert trace(fn, torch, samples) == shipped["functions"][name]
