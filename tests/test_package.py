"""The package as a user installs it, the fast part: where data is found, what `kb version`
says, which dependencies are core, and the one line a torch-less install gets from a command
that runs PyTorch. The built wheel in a fresh virtualenv is tests/test_package_wheel.py (heavy)."""

from __future__ import annotations

import importlib.machinery
import json
import subprocess
import sys
import tomllib

import pytest

import kb
from cli.entry import main
from kb import paths
from kb.errors import INSTALL_TORCH
from kb.store.dbfile import data_digest
from tests.conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
# torch blocked the way a missing install looks to `import torch` (ModuleNotFoundError, name "torch")
NO_TORCH = "import sys; sys.modules['torch'] = None; from cli.entry import main; sys.exit(main(sys.argv[1:]))"


def test_distribution_name_version_and_extras():
    project = PYPROJECT["project"]
    assert project["name"] == kb.DIST_NAME != "kb"
    assert kb.DIST_NAME in INSTALL_TORCH and "[torch]" in INSTALL_TORCH
    assert project["scripts"] == {"kb": "cli.entry:main"}
    core = " ".join(project["dependencies"])
    assert "torch" not in core and "numpy" not in core and "expecttest" not in core
    assert any(d.startswith("torch") for d in project["optional-dependencies"]["torch"])
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "kb.__version__"}


def test_checkout_reads_top_level_data_and_a_wheel_its_bundled_copy(monkeypatch, tmp_path):
    monkeypatch.delenv("KB_DATA_DIR", raising=False)
    assert paths.shipped_data_dir() == str(REPO / "data")  # source tree / editable install
    bundled = tmp_path / "_data"
    bundled.mkdir()
    monkeypatch.setattr(paths, "BUNDLED_DATA_DIR", str(bundled))
    assert paths.shipped_data_dir() == paths.data_dir() == str(bundled)
    monkeypatch.setenv("KB_DATA_DIR", str(tmp_path / "mine"))
    assert paths.data_dir() == str(tmp_path / "mine")  # the override still wins
    assert paths.shipped_data_dir() == str(bundled)


def test_version_names_the_distribution_and_the_data(small_data, capsys):
    assert main(["version", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    as_of = {k: shown.pop(k) for k in ("data_as_of", "data_as_of_by_source")}
    assert shown == {"kb_version": kb.__version__, "command": "version",  # the --json envelope
                     "distribution": kb.DIST_NAME, "version": kb.__version__, "data_dir": str(small_data),
                     "data_sha256": data_digest(str(small_data))}
    assert as_of["data_as_of"] == max(as_of["data_as_of_by_source"].values(), default=None)
    assert main(["version"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{kb.DIST_NAME} {kb.__version__} (data sha256:{shown['data_sha256'][:16]}")


def test_data_digest_follows_content_not_mtime(tmp_path):
    (tmp_path / "a.jsonl").write_text("x\n")
    first = data_digest(str(tmp_path))
    (tmp_path / "a.jsonl").write_text("x\n")  # new mtime, same bytes
    assert data_digest(str(tmp_path)) == first
    (tmp_path / "a.jsonl").write_text("y\n")
    assert data_digest(str(tmp_path)) != first


@pytest.mark.parametrize("args", [["op", "aten::add.Tensor"], ["ops", "--target", "tpu"], ["serve", "--get", "/"],
                                  ["ask", "is add native on tpu?"], ["version"]])
def test_core_commands_answer_without_torch(small_data, args):
    if args[0] != "op":  # `kb op` builds the KB without torch as a first use does; the others reuse a built one
        from kb.store.db import open_kb

        open_kb().close()
    done = subprocess.run([sys.executable, "-c", NO_TORCH, *args], capture_output=True, text=True, timeout=120,
                          cwd=REPO)
    assert "PyTorch" not in done.stderr and "torch halted" not in done.stderr
    assert done.returncode in (0, 1), done.stderr


def test_in_process_torch_import_becomes_one_line(monkeypatch, capsys, small_data):
    monkeypatch.setitem(sys.modules, "torch", None)
    assert main(["db", "catalog"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"kb: error: kb db catalog needs PyTorch, which is not installed here: {INSTALL_TORCH}"


def test_probe_says_what_to_install_before_starting_a_child(monkeypatch, capsys):
    real = importlib.machinery.PathFinder.find_spec

    def no_torch(name, path=None, target=None):
        return None if name == "torch" else real(name, path, target)

    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", no_torch)
    assert main(["probe", "--static", "--backend", "cpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"kb: error: probing cpu needs PyTorch, which is not installed here: {INSTALL_TORCH}"]
    assert main(["probe", "--device", "sim"]) == 2
    assert "live probing sim needs PyTorch" in capsys.readouterr().err


def test_factory_check_says_what_to_install(monkeypatch, capsys, tmp_path):
    real = importlib.machinery.PathFinder.find_spec
    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec",
                        lambda name, path=None, target=None: None if name == "torch" else real(name, path, target))
    (tmp_path / "m.py").write_text("def build():\n    return None\n")
    assert main(["check", f"{tmp_path / 'm.py'}:build", "--input-shape", "1x2", "--target", "tpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "(a factory) needs PyTorch" in err[0] and INSTALL_TORCH in err[0]


def test_export_will_not_write_into_an_installed_package(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv("KB_DATA_DIR", raising=False)
    bundled = tmp_path / "site" / "kb" / "_data"
    bundled.mkdir(parents=True)
    (bundled / "targets.csv").write_text((REPO / "data" / "targets.csv").read_text(encoding="utf-8"))
    monkeypatch.setattr(paths, "BUNDLED_DATA_DIR", str(bundled))
    assert main(["data", "export"]) == 2
    assert "pass --out DIR" in capsys.readouterr().err
    assert sorted(p.name for p in bundled.iterdir()) == ["targets.csv"]
