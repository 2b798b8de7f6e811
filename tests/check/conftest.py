"""Shared, session-scoped material for the `kb check` tests: the zoo's models saved in
every format once, traced once, and an in-memory verdict table standing in for the KB."""

from __future__ import annotations

import warnings

import pytest

from tests.check import model_zoo
from tests.check.check_fixtures import lookup_for


@pytest.fixture(scope="session")
def saved(tmp_path_factory):
    """{model name: {format: path}} plus the exported programs kept in memory."""
    import torch

    from kb.check import tracing

    root = tmp_path_factory.mktemp("models")
    out: dict[str, dict] = {}
    for name, (factory, shapes) in model_zoo.MODELS.items():
        with torch.device("meta"):
            meta_model = getattr(model_zoo, factory)()
        inputs = tracing.meta_inputs([tracing.parse_input_shape(s) for s in shapes])
        program = tracing.export_on_meta(meta_model, inputs)
        paths = {"program": program, "shapes": shapes, "factory": f"{model_zoo.__file__}:{factory}"}
        ep_path = root / f"{name}.model"  # no telling suffix: detection is by content
        torch.export.save(program, str(ep_path))
        paths["exported_program"] = str(ep_path)
        out[name] = paths
    mlp = model_zoo.MLP()
    with warnings.catch_warnings():  # TorchScript is deprecated; people still have such files
        warnings.simplefilter("ignore", DeprecationWarning)
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
    from kb.check import model_formats, tracing

    return {name: tracing.trace(model_formats.detect(entry["exported_program"])) for name, entry in saved.items()}


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """Run `kb ARGS` in-process against the stand-in KB: (exit code, stdout, stderr)."""
    from cli import check as cli_check
    from cli.entry import main

    monkeypatch.setattr(cli_check, "make_lookup", lambda db, target, version, mode: (lookup_for(target), version or "2.33.0"))
    monkeypatch.setattr(cli_check, "make_warning_hooks", lambda db: [])

    def run(*args):
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path

