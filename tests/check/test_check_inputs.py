"""Model inputs: detection by content, safe refusal of pickles, one-line errors (exit 2)."""

from __future__ import annotations

import os
import pickle
import zipfile

import pytest

from kb.check import model_formats as mf
from tests.check.check_fixtures import ZOO


class _Payload:
    """Unpickling this creates a marker file: proof that code ran."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _one_line_error(code, err):
    assert code == 2
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("kb: error: ")
    return lines[0]


def test_detects_each_format_by_content(saved):
    mlp = saved["mlp"]
    assert mf.detect(mlp["exported_program"]).kind == mf.EXPORTED_PROGRAM
    assert mf.detect(mlp["torchscript"]).kind == mf.TORCHSCRIPT
    assert mf.detect(mlp["pickled"], trust=True, trust_modules=["tests.check.model_zoo"]).kind == mf.PICKLED_MODULE
    assert mf.detect(mlp["factory"]).kind == mf.FACTORY


@pytest.mark.parametrize("key", ["state_dict", "checkpoint"])
def test_state_dict_is_recognised_and_alternatives_shown(saved, run_cli, key):
    code, _out, err = run_cli("check", saved["mlp"][key])
    line = _one_line_error(code, err)
    assert "state_dict" in line and "fc1.weight" in line
    assert "model.py:build" in line and "torch.export.save" in line


def test_pickled_module_refused_without_trust(saved, run_cli):
    code, _out, err = run_cli("check", saved["mlp"]["pickled"], "--input-shape", "2x8")
    line = _one_line_error(code, err)
    assert "--trust" in line and "model_zoo.MLP" in line


def test_pickled_module_traced_with_trust(saved, run_cli):
    code, out, err = run_cli("check", saved["mlp"]["pickled"], "--trust", "--trust-module", "tests.check.model_zoo",
                              "--input-shape", "2x8", "--json")
    assert code == 0, err
    import json

    ops = [op["op"] for op in json.loads(out)["reports"][0]["ops"]]
    assert ops == ["aten::linear", "aten::gelu"]


@pytest.mark.parametrize("as_zip", [False, True], ids=["raw-pickle", "torch-save-zip"])
@pytest.mark.parametrize("trust", [False, True], ids=["untrusted", "trusted"])
def test_code_running_pickle_never_runs(workdir, run_cli, as_zip, trust):
    marker = workdir / "pwned"
    path = workdir / "evil.pt"
    if as_zip:
        import torch

        torch.save(_Payload(marker), str(path))
    else:
        path.write_bytes(pickle.dumps(_Payload(marker), protocol=2))
    args = ["check", str(path), "--input-shape", "2x8"] + (["--trust"] if trust else [])
    code, _out, err = run_cli(*args)
    line = _one_line_error(code, err)
    assert "system" in line
    assert not marker.exists()


def test_pickle_scan_lists_globals_without_loading(tmp_path):
    marker = tmp_path / "m"
    found = mf.pickle_globals(pickle.dumps(_Payload(marker), protocol=4))
    assert any(name.endswith(".system") for name in found)
    assert not marker.exists()


def _truncated_zip(path, source):
    data = open(source, "rb").read()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("case", ["random", "empty", "directory", "truncated", "missing", "plain-zip",
                                  "python-without-function", "bad-python"])
def test_bad_inputs_exit_2_with_one_line(workdir, run_cli, saved, case):
    target = workdir / "input.bin"
    expected = {
        "random": "not a model file", "empty": "empty file", "directory": "directory",
        "truncated": "zip", "missing": "no such file", "plain-zip": "not a PyTorch model",
        "python-without-function": "build", "bad-python": "not valid Python",
    }[case]
    if case == "random":
        target.write_bytes(os.urandom(4096).replace(b"PK", b"QQ").lstrip(b"\x80"))
    elif case == "empty":
        target.write_bytes(b"")
    elif case == "directory":
        target = workdir / "folder"
        target.mkdir()
    elif case == "truncated":
        _truncated_zip(target, saved["mlp"]["exported_program"])
    elif case == "missing":
        target = workdir / "nope.pt2"
    elif case == "plain-zip":
        with zipfile.ZipFile(target, "w") as zf:
            zf.writestr("readme.txt", "hello")
    elif case == "python-without-function":
        target = workdir / "model.py"
        target.write_text("x = 1\n")
    elif case == "bad-python":
        target = workdir / "model.py"
        target.write_text("def build(:\n")
        target = f"{target}:build"
    code, _out, err = run_cli("check", target)
    assert expected in _one_line_error(code, err)


@pytest.mark.parametrize("spec,shapes,expected", [
    (f"{ZOO}:build_broken", ["2x8"], "raised ValueError: the config file is missing"),
    (f"{ZOO}:no_such_factory", ["2x8"], "has no function"),
    # each case is a kb check process that imports torch (~1 s): four of them run with the heavy tests
    pytest.param(f"{ZOO}:build_mlp", [], "--input-shape", marks=pytest.mark.heavy),
    pytest.param(f"{ZOO}:build_mlp", ["2xeight"], "expected dimensions", marks=pytest.mark.heavy),
    pytest.param(f"{ZOO}:build_mlp", ["2x8:complex7"], "unknown dtype", marks=pytest.mark.heavy),
    pytest.param(f"{ZOO}:build_mlp", ["2x9"], "torch.export could not trace", marks=pytest.mark.heavy),
])
def test_factory_errors(run_cli, spec, shapes, expected):
    args = ["check", spec]
    for shape in shapes:
        args += ["--input-shape", shape]
    code, _out, err = run_cli(*args)
    assert expected in _one_line_error(code, err)


def test_exported_program_read_without_unpickling(saved, monkeypatch):
    """The archive's graph is read from JSON: torch.load and torch.export.load never run."""
    import torch

    def forbidden(*args, **kwargs):
        raise AssertionError("unpickled")

    monkeypatch.setattr(torch, "load", forbidden)
    monkeypatch.setattr(torch.export, "load", forbidden)
    program = mf.load_exported_program(mf.detect(saved["block"]["exported_program"]))
    assert all(t.device.type == "meta" for t in program.state_dict.values())


def test_legacy_torch_save_files_are_scanned_past_the_header(workdir, run_cli):
    import torch

    from tests.check.model_zoo import MLP

    module_file, state_file = workdir / "legacy_module.pt", workdir / "legacy_state.pt"
    torch.save(MLP(), str(module_file), _use_new_zipfile_serialization=False)
    torch.save(MLP().state_dict(), str(state_file), _use_new_zipfile_serialization=False)
    code, _out, err = run_cli("check", module_file, "--input-shape", "2x8")
    assert "model_zoo.MLP" in _one_line_error(code, err)
    code, out, err = run_cli("check", module_file, "--input-shape", "2x8", "--trust", "--json")
    assert code == 2 and "--trust-module tests" in err  # the model's own class is not on the allow-list
    code, out, err = run_cli("check", module_file, "--input-shape", "2x8", "--trust-module", "tests.check.model_zoo",
                             "--json")
    assert code == 0, err
    code, _out, err = run_cli("check", state_file)
    assert "state_dict" in _one_line_error(code, err)


def _with_pickled_weight(source, evil, payload: bytes) -> None:
    """A copy of the export `source` at `evil` whose first weight the config marks pickled
    and whose bytes are `payload`."""
    import json

    with zipfile.ZipFile(source) as src:
        config_name = next(n for n in src.namelist() if n.endswith("model_weights_config.json"))
        config = json.loads(src.read(config_name))
        first = next(iter(config["config"].values()))
        first["use_pickle"] = True
        weight_name = config_name.rsplit("/", 1)[0] + "/" + first["path_name"]
        with zipfile.ZipFile(evil, "w") as dst:
            for item in src.infolist():
                data = src.read(item.filename)
                if item.filename == config_name:
                    data = json.dumps(config).encode()
                elif item.filename == weight_name:
                    data = payload
                dst.writestr(item, data)


@pytest.mark.parametrize("trust", [False, True], ids=["untrusted", "trusted"])
def test_exported_program_with_a_pickled_payload(saved, workdir, run_cli, trust):
    """An archive whose weight is marked as pickled and holds an exploit: refused either way."""

    import torch

    marker = workdir / "pwned"
    source = saved["mlp"]["exported_program"]
    evil = workdir / "evil.pt2"
    payload = workdir / "payload.pt"
    torch.save(_Payload(marker), str(payload))
    _with_pickled_weight(source, evil, payload.read_bytes())
    args = ["check", evil] + (["--trust"] if trust else [])
    code, out, err = run_cli(*args)  # the graph is read as data: the payload is never opened
    assert code == 0 and "aten::linear" in out, err
    assert not marker.exists()
    code, _out, err = run_cli(*args, "--train")  # replaying the program loads it through torch
    line = _one_line_error(code, err)
    assert ("system" in line) if trust else ("--trust" in line)
    assert not marker.exists()


@pytest.mark.parametrize("prefix, protocol", [(b"", "0"), (b"(0", "2")], ids=["protocol-0", "mark-pop-then-2"])
def test_a_pickled_payload_without_a_protocol_header_is_scanned_too(saved, workdir, run_cli, prefix, protocol):
    """A member the config marks pickled is scanned whatever its first bytes: a protocol 0
    pickle (or one behind MARK/POP_MARK) names os.system too (found by an attack run)."""

    marker = workdir / "pwned"
    command = f"touch {marker}".encode()
    if protocol == "0":
        payload = b"cos\nsystem\n(S'" + command + b"'\ntR."
    else:
        payload = prefix + b"\x80\x02cos\nsystem\nX" + len(command).to_bytes(4, "little") + command + b"\x85R."
    source = saved["mlp"]["exported_program"]
    evil = workdir / f"evil-{protocol}.pt2"
    _with_pickled_weight(source, evil, payload)
    code, _out, err = run_cli("check", evil, "--trust", "--train")
    line = _one_line_error(code, err)
    assert "system" in line and "allow-list" in line
    assert not marker.exists()


@pytest.mark.parametrize("trust", [False, True], ids=["untrusted", "trusted"])
def test_shape_formula_that_would_run_code_is_refused(workdir, run_cli, trust):
    """torch's deserializer evaluates symbolic-shape strings with sympy (eval): a crafted
    one must never reach it."""
    import re

    import torch

    from tests.check.model_zoo import MLP

    marker = workdir / "pwned"
    batch = torch.export.Dim("batch", max=64)
    program = torch.export.export(MLP(), (torch.zeros(2, 8),), dynamic_shapes=({0: batch},))
    clean = workdir / "dynamic.pt2"
    torch.export.save(program, str(clean))
    code, _out, err = run_cli("check", clean)
    assert code == 0, err
    evil = workdir / "evil.pt2"
    with zipfile.ZipFile(clean) as src, zipfile.ZipFile(evil, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename.endswith("models/model.json"):
                text, count = re.subn(r'"expr_str": "[^"]*"', f'"expr_str": "__import__(\'os\').system(\'touch {marker}\')"',
                                      data.decode(), count=1)
                assert count == 1
                data = text.encode()
            dst.writestr(item, data)
    args = ["check", evil] + (["--trust"] if trust else [])
    code, _out, err = run_cli(*args)  # read as data: the formula is never evaluated
    assert code == 0, err
    assert not marker.exists()
    code, _out, err = run_cli(*args, "--train")  # torch's deserializer would evaluate it: refused first
    assert "not a plain formula" in _one_line_error(code, err)
    assert not marker.exists()


@pytest.mark.parametrize("text,plain", [
    ("Symbol('s0', positive=True, integer=True)", True), ("2*s0 + FloorDiv(s1, 4)", True),
    ("Max(1, s0) <= 64", True), ("S('x')", False), ("sympify('1')", False), ("s0.__class__", False),
    ("__import__('os')", False), ("[c for c in ()]", False), ("lambda: 0", False),
])
def test_plain_formula_check(text, plain):
    assert mf.is_plain_formula(text) is plain
