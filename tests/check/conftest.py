"""Shared, session-scoped material for the `kb check` tests: the zoo's models saved in
every format once, traced once, and an in-memory verdict table standing in for the KB."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # model_zoo must be importable for the pickled-module files

import model_zoo  # noqa: E402

from kb.check import Verdict  # noqa: E402

ZOO = str(HERE / "model_zoo.py")

# The stand-in KB: what a target "neuron" would say. Deliberately partial.
TABLE = {
    "aten::t": Verdict("native", source_kind="static_probe"),
    "aten::addmm": Verdict("native", dtypes=("bfloat16", "float32"), source_kind="doc", source_url="https://example.test/ops"),
    "aten::mm": Verdict("native", source_kind="static_probe"),
    "aten::bmm": Verdict("native", source_kind="static_probe"),
    "aten::view": Verdict("native", source_kind="static_probe"),
    "aten::_unsafe_view": Verdict("native", source_kind="static_probe"),
    "aten::mul.Tensor": Verdict("native", source_kind="static_probe"),
    "aten::mean.dim": Verdict("native", source_kind="static_probe"),
    "aten::rsqrt": Verdict("native", source_kind="static_probe"),
    "aten::pow.Tensor_Scalar": Verdict("native", source_kind="static_probe"),
    "aten::add_.Scalar": Verdict("native", source_kind="static_probe"),
    "aten::add.Tensor": Verdict("native", source_kind="static_probe"),
    "aten::gelu": Verdict("fallback", source_kind="live_probe"),
    "aten::silu": Verdict("native", source_kind="live_probe"),
    "aten::relu": Verdict("native", source_kind="live_probe"),
    "aten::embedding": Verdict("native", source_kind="static_probe"),
    "aten::abs": Verdict("native", dtypes=("float32",), source_kind="doc", source_url="https://example.test/ops"),
    "aten::_fft_r2c": Verdict("unsupported", source_kind="doc", source_url="https://example.test/fft"),
}
TPU_TABLE = {**TABLE, "aten::gelu": Verdict("native", source_kind="doc"), "aten::_fft_r2c": Verdict("fallback", source_kind="doc")}


def lookup_for(target: str):
    return (TPU_TABLE if target == "tpu" else TABLE).get


@pytest.fixture(scope="session")
def saved(tmp_path_factory):
    """{model name: {format: path}} plus the exported programs kept in memory."""
    import torch

    from kb import tracing

    root = tmp_path_factory.mktemp("models")
    out: dict[str, dict] = {}
    for name, (factory, shapes) in model_zoo.MODELS.items():
        with torch.device("meta"):
            meta_model = getattr(model_zoo, factory)()
        inputs = tracing.meta_inputs([tracing.parse_input_shape(s) for s in shapes])
        program = tracing.export_on_meta(meta_model, inputs)
        paths = {"program": program, "shapes": shapes, "factory": f"{ZOO}:{factory}"}
        ep_path = root / f"{name}.model"  # no telling suffix: detection is by content
        torch.export.save(program, str(ep_path))
        paths["exported_program"] = str(ep_path)
        out[name] = paths
    mlp = model_zoo.MLP()
    torch.jit.save(torch.jit.script(mlp), str(root / "mlp_script.bin"))
    torch.save(mlp, str(root / "mlp_pickled.bin"))
    torch.save(mlp.state_dict(), str(root / "mlp_state.bin"))
    torch.save({"model": mlp.state_dict(), "step": 3}, str(root / "mlp_checkpoint.bin"))
    out["mlp"].update(torchscript=str(root / "mlp_script.bin"), pickled=str(root / "mlp_pickled.bin"),
                      state_dict=str(root / "mlp_state.bin"), checkpoint=str(root / "mlp_checkpoint.bin"))
    return out


@pytest.fixture(scope="session")
def traced(saved):
    """Each model traced from its ExportedProgram file once: {name: TracedModel}."""
    from kb import model_formats, tracing

    return {name: tracing.trace(model_formats.detect(entry["exported_program"])) for name, entry in saved.items()}


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """Run `kb ARGS` in-process against the stand-in KB: (exit code, stdout, stderr)."""
    from cli import check as cli_check
    from cli.entry import main

    monkeypatch.setattr(cli_check, "make_lookup", lambda db, target, version, mode: (lookup_for(target), version or "2.33.0"))

    def run(*args):
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


__all__ = ["TABLE", "ZOO", "lookup_for", "os"]
