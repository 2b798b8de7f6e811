"""TorchScript graphs name the ops an export of the same model names, so the two agree."""

from __future__ import annotations

import json
import warnings

import pytest


@pytest.fixture(scope="module")
def conv_model_files(tmp_path_factory):
    import torch
    import torch.nn as nn

    class ConvNet(nn.Module):  # a ResNet stem, a transposed conv and a 1-d conv
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.up = nn.ConvTranspose2d(4, 2, 2, stride=2)
            self.conv1d = nn.Conv1d(2, 2, 3)

        def forward(self, x):
            y = self.up(torch.relu(self.bn(self.conv(x))))
            return self.conv1d(y.flatten(2))

    root = tmp_path_factory.mktemp("ts")
    model, example = ConvNet().eval(), torch.randn(1, 3, 8, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.trace(model, (example,)).save(str(root / "traced.pt"))
        torch.jit.script(model).save(str(root / "scripted.pt"))
    torch.export.save(torch.export.export(model, (example,)), str(root / "exported.pt2"))
    return {name: str(root / f"{name}.{ext}") for name, ext in
            (("traced", "pt"), ("scripted", "pt"), ("exported", "pt2"))}


def _ops(run_cli, path, *extra):
    code, out, err = run_cli("check", path, "--format", "json", *extra)
    assert code == 0, err
    return [op["op"] for op in json.loads(out)["reports"][0]["ops"]]


@pytest.mark.heavy  # TorchScript tracing, ~1.5 s each
def test_traced_convolution_reads_as_the_exported_conv(conv_model_files, run_cli):
    exported = _ops(run_cli, conv_model_files["exported"])
    assert exported == ["aten::conv2d", "aten::batch_norm", "aten::relu", "aten::conv_transpose2d.input",
                        "aten::flatten.using_ints", "aten::conv1d"]
    assert _ops(run_cli, conv_model_files["traced"], "--input-shape", "1x3x8x8", "--trust") == exported


@pytest.mark.heavy  # TorchScript tracing, ~1.5 s each
def test_scripted_graph_lists_device_ops_only(conv_model_files, run_cli):
    ops = _ops(run_cli, conv_model_files["scripted"], "--trust")
    assert not [op for op in ops if op.endswith((".int", ".t")) or op in ("aten::dim", "aten::format", "aten::size")]
    assert set(_ops(run_cli, conv_model_files["exported"])) <= set(ops)


@pytest.mark.parametrize("args,expected", [
    ((None, None, None, (1, 1), (0, 0), (1, 1), False, (0, 0), 1), "aten::conv2d"),
    ((None, None, None, (2,), (0,), (1,), True, (0,), 1), "aten::conv_transpose1d.input"),
    ((None, None, None, (1, 1, 1), (0, 0, 0), (1, 1, 1), False, (0, 0, 0), 1), "aten::conv3d"),
    ((None, None, None, None, None, None, None, None, 1), "aten::convolution"),
])
def test_export_form_of_convolution(args, expected):
    from kb.check.tracing import export_form_of_convolution

    assert export_form_of_convolution(args)[0] == expected
