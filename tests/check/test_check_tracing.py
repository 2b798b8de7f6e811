"""Tracing: every op torch.export sees appears once, with the right counts, dtypes and
module paths, from every input format."""

from __future__ import annotations

from collections import Counter

import pytest

from kb.check import model_formats as mf
from kb.check import resolve as kc
from kb.check import tracing
from tests.check.check_fixtures import lookup_for


def _export_truth(program) -> Counter:
    return Counter(tracing.op_name(n.target) for n in program.graph.nodes
                   if n.op == "call_function" and tracing.op_name(n.target))


@pytest.mark.parametrize("name", ["mlp", "block", "convnet", "recurrent", "spectral"])
def test_every_exported_op_reported_once_with_its_count(saved, traced, name):
    truth = _export_truth(saved[name]["program"])
    report = kc.check(traced[name], lookup_for("neuron"), target="neuron")
    names = [op.op for op in report.ops]
    assert len(names) == len(set(names))
    assert Counter({op.op: op.count for op in report.ops}) == truth
    assert report.call_sites == sum(truth.values())


def test_module_paths_and_dtypes(traced):
    report = kc.check(traced["block"], lookup_for("neuron"), target="neuron")
    ops = {op.op: op for op in report.ops}
    assert ops["aten::linear"].module_paths == ["attn.qkv", "attn.out", "up", "down"]
    assert ops["aten::rms_norm"].module_paths == ["norm1", "norm2"]
    assert ops["aten::embedding"].module_paths == ["embed"]
    assert ops["aten::embedding"].dtypes == ["float32"]
    assert ops["aten::scaled_dot_product_attention"].module_paths == ["attn"]
    assert ops["aten::silu"].module_paths == ["(root)"]
    assert "float32[1,4,12,8]" in ops["aten::scaled_dot_product_attention"].shapes[0]


def test_graph_order_is_kept(traced):
    sites = traced["mlp"].sites
    assert [(s.op, s.module_path) for s in sites] == [
        ("aten::linear", "fc1"), ("aten::gelu", "act"), ("aten::linear", "fc2")]
    assert [s.index for s in sites] == [0, 1, 2]


def test_factory_traces_like_the_saved_program(saved, traced):
    entry = saved["block"]
    from_factory = tracing.trace(mf.detect(entry["factory"]), entry["shapes"])
    assert [(s.op, s.module_path) for s in from_factory.sites] == [(s.op, s.module_path) for s in traced["block"].sites]


@pytest.mark.heavy  # TorchScript tracing, ~1.5 s
def test_torchscript_static_walk(saved):
    model = tracing.trace(mf.detect(saved["mlp"]["torchscript"]), trust=True)
    assert [(s.op, s.module_path) for s in model.sites] == [
        ("aten::linear", "fc1"), ("aten::gelu", "act"), ("aten::linear", "fc2")]
    assert model.notes and "static" in model.notes[0]


def test_training_trace_has_backward_ops_in_their_modules(saved):
    model = tracing.trace(mf.detect(saved["mlp"]["factory"]), ["2x8"], train=True)
    phases = {s.phase for s in model.sites}
    assert phases == {"forward", "backward"}
    backward = [(s.op, s.module_path) for s in model.sites if s.phase == "backward"]
    assert ("aten::gelu_backward", "act") in backward
    assert ("aten::mm", "fc1") in backward
    assert all(s.module_path is not None for s in model.sites)


def test_input_shape_parsing():
    assert tracing.parse_input_shape("1x128:int64") == tracing.TensorSpec((1, 128), "int64")
    assert tracing.parse_input_shape("2x3").dtype == "float32"
    assert tracing.parse_input_shape("4:bf16").dtype == "bfloat16"


def test_training_trace_from_an_exported_program_keeps_module_paths(saved):
    model = tracing.trace(mf.detect(saved["mlp"]["exported_program"]), train=True)
    backward = {(s.op, s.module_path) for s in model.sites if s.phase == "backward"}
    assert ("aten::gelu_backward", "act") in backward and ("aten::mm", "fc2") in backward


def test_factory_with_two_inputs_importing_a_neighbour(tmp_path):
    (tmp_path / "layers.py").write_text(
        "import torch.nn as nn\n\nclass Scale(nn.Module):\n    def forward(self, x, mask):\n        return x.masked_fill(mask, 0.0) * 2\n")
    (tmp_path / "net.py").write_text(
        "import torch.nn as nn\nfrom layers import Scale\n\nclass Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.scale = Scale()\n"
        "    def forward(self, x, mask):\n        return self.scale(x, mask)\n\ndef make():\n    return Net()\n")
    model = tracing.trace(mf.detect(f"{tmp_path / 'net.py'}:make"), ["2x4:bf16", "2x4:bool"])
    assert [(s.op, s.module_path, s.primary_dtype()) for s in model.sites] == [
        ("aten::masked_fill.Scalar", "scale", "bfloat16"), ("aten::mul.Tensor", "scale", "bfloat16")]


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_torchscript_with_input_shapes_gets_shapes_and_decompositions(saved):
    from kb.check import resolve as kc
    from tests.check.check_fixtures import lookup_for

    model = tracing.trace(mf.detect(saved["mlp"]["torchscript"]), ["2x8"], trust=True)
    assert [s.tensor_args()[0].describe() for s in model.sites] == ["float32[2,8]", "float32[2,16]", "float32[2,16]"]
    ops = {op.op: op for op in kc.check(model, lookup_for("neuron"), target="neuron").ops}
    assert ops["aten::linear"].status == "decomposed"
    assert [leaf.op for leaf in ops["aten::linear"].via] == ["aten::t", "aten::addmm"]
    assert ops["aten::gelu"].status == "fallback"
    with pytest.raises(mf.ModelInputError, match="takes 1 inputs"):
        tracing.trace(mf.detect(saved["mlp"]["torchscript"]), ["2x8", "2x8"], trust=True)
