"""The built wheel as a new user gets it (heavy: a build, two installs; .ci/run runs it).

sdist -> wheel with `python -m build`, `twine check`, a fresh virtualenv with the wheel and
no torch, and from a folder outside the checkout: `kb version`, `kb op`, `kb eol`, `kb serve
--get /`, `kb check` of a small .pt2 made here; then torch==2.13.0 and the `[torch]` extra in
the same virtualenv for `kb probe --static --backend cpu`. Sizes and the time from
`pip install` to the first answer are printed (run with -s to see them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import kb
from kb.store.dbfile import data_digest
from tests.conftest import REPO

pytestmark = pytest.mark.heavy

TORCH = "torch==2.13.0"  # the exact spelling .ci/run and the README install; never another
PIP_TIMEOUT = 900


def _mb(path: Path) -> float:
    total = sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
    return round(total / 1e6, 1)


def _env(home: Path) -> dict[str, str]:
    """A user's environment: none of the checkout's paths or KB overrides leak in."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "KB_DATA_DIR", "KB_DB", "KB_CACHE_DIR", "KB_PROBE_PYTHONPATH", "VIRTUAL_ENV")}
    env.update(KB_CACHE_DIR=str(home / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def _run(command: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def _ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, f"{done.args}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sdist and the wheel built from it, as a release builds them."""
    pytest.importorskip("build", reason="needs `build` (pip install -e '.[dev]')")
    out = tmp_path_factory.mktemp("dist")
    _ok(_run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], REPO, dict(os.environ), PIP_TIMEOUT))
    wheels, sdists = list(out.glob("*.whl")), list(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    return wheels[0], sdists[0]


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory):
    """A fresh virtualenv with only the wheel and its core dependencies; `home` is elsewhere."""
    root = tmp_path_factory.mktemp("user")
    home = root / "home"
    home.mkdir()
    env = _env(home)
    _ok(_run([sys.executable, "-m", "venv", str(root / "venv")], home, env))
    bin_dir = root / "venv" / "bin"
    site = Path(_ok(_run([str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         home, env)).stdout.strip())
    base = _mb(root / "venv")
    started = time.monotonic()
    # the wheel from its folder; its dependencies from the configured index
    _ok(_run([str(bin_dir / "pip"), "install", "-q", "--find-links", str(built[0].parent), str(built[0])],
             home, env, PIP_TIMEOUT))
    installed = time.monotonic()
    first = _ok(_run([str(bin_dir / "kb"), "op", "aten::add.Tensor", "--json"], home, env))
    answered = time.monotonic()
    figures = {"wheel_kb": round(built[0].stat().st_size / 1e3), "sdist_kb": round(built[1].stat().st_size / 1e3),
               "venv_base_mb": base, "venv_core_mb": _mb(root / "venv"),
               "pip_install_s": round(installed - started, 1), "first_answer_s": round(answered - installed, 1),
               "install_to_first_answer_s": round(answered - started, 1)}
    yield {"bin": bin_dir, "site": site, "home": home, "env": env, "root": root, "figures": figures,
           "first": first, "wheel": built[0]}
    print("\npackage figures:", json.dumps(figures))
    shutil.rmtree(root, ignore_errors=True)  # a virtualenv with torch is about a gigabyte


def _kb(venv, *args, timeout: float = 300) -> subprocess.CompletedProcess:
    return _run([str(venv["bin"] / "kb"), *args], venv["home"], venv["env"], timeout)


def test_twine_accepts_both(built):
    pytest.importorskip("twine", reason="needs `twine` (pip install -e '.[dev]')")
    _ok(_run([sys.executable, "-m", "twine", "check", "--strict", *map(str, built)], REPO, dict(os.environ)))


def test_wheel_and_sdist_carry_the_data(built):
    import tarfile
    import zipfile

    shipped = sorted(str(p.relative_to(REPO / "data")) for p in (REPO / "data").rglob("*") if p.is_file())
    with zipfile.ZipFile(built[0]) as whl:
        names = set(whl.namelist())
    assert all(f"kb/_data/{name}" in names for name in shipped)
    assert "kb/py.typed" in names  # PEP 561: the Python API's hints reach users' type checkers
    assert not any(n.startswith(("data/", "tests/")) for n in names)
    with tarfile.open(built[1]) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert all(f"data/{name}" in members for name in shipped) and "setup.py" in members


def test_core_install_has_no_torch_and_answers_from_its_own_data(venv):
    python = str(venv["bin"] / "python")
    assert _run([python, "-c", "import torch"], venv["home"], venv["env"]).returncode != 0
    assert _run([python, "-c", "import numpy"], venv["home"], venv["env"]).returncode != 0
    shown = json.loads(_ok(_kb(venv, "version", "--json")).stdout)
    assert shown["distribution"] == kb.DIST_NAME and shown["version"] == kb.__version__
    assert shown["data_dir"] == str(venv["site"] / "kb" / "_data")
    assert shown["data_sha256"] == data_digest(str(REPO / "data"))  # the same bytes as the checkout's data/
    report = json.loads(venv["first"].stdout)
    assert {v["target"] for op in report["ops"] for v in op["verdicts"]} >= {"cpu", "neuron", "tpu"}


def test_core_commands_from_another_folder(venv):
    ops = _ok(_kb(venv, "ops", "--target", "tpu", "--status", "native", "--json"))
    assert json.loads(ops.stdout)
    eol = _run([str(venv["bin"] / "kb"), "eol", "torch-neuronx", "--json"], venv["home"], venv["env"])
    assert eol.returncode in (0, 1), eol.stderr  # 1: something on the stack is past its end of support
    assert json.loads(eol.stdout)
    page = _ok(_kb(venv, "serve", "--get", "/"))
    assert "<html" in page.stdout.lower() and "kb" in page.stdout
    assert ".kb-native" in _ok(_kb(venv, "serve", "--get", "/kb-static/kb.css")).stdout  # shipped static files


def test_torch_commands_say_what_to_install(venv):
    done = _kb(venv, "probe", "--static", "--backend", "cpu")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"kb: error: probing cpu needs PyTorch, which is not installed here: pip install '{kb.DIST_NAME}[torch]'"]


def test_check_of_a_pt2_without_torch(venv):
    torch = pytest.importorskip("torch")
    model = venv["home"] / "tiny.pt2"

    class Tiny(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x @ x.T).sum(0)

    torch.export.save(torch.export.export(Tiny(), (torch.randn(3, 4),)), str(model))
    done = _kb(venv, "check", "tiny.pt2", "--target", "tpu", "--json")
    assert done.returncode in (0, 1), done.stderr
    assert "aten::relu" in done.stdout
    code = "import json, kb; print(json.dumps(kb.check('tiny.pt2', targets='tpu').verdicts()))"
    api = _ok(_run([str(venv["bin"] / "python"), "-c", code], venv["home"], venv["env"]))  # the API, no torch either
    assert json.loads(api.stdout) == {r["target"]: {o["op"]: o["status"] for o in r["ops"]}
                                      for r in json.loads(done.stdout)["reports"]}


def test_torch_extra_probes_the_cpu(venv):
    pip = str(venv["bin"] / "pip")
    started = time.monotonic()
    _ok(_run([pip, "install", "-q", TORCH], venv["home"], venv["env"], PIP_TIMEOUT))
    _ok(_run([pip, "install", "-q", f"{venv['wheel']}[torch]"], venv["home"], venv["env"], PIP_TIMEOUT))
    venv["figures"]["torch_install_s"] = round(time.monotonic() - started, 1)
    version = _ok(_run([str(venv["bin"] / "python"), "-c", "import torch; print(torch.__version__)"],
                       venv["home"], venv["env"])).stdout.strip()
    assert version.split("+")[0] == "2.13.0"
    out = venv["home"] / "cpu.jsonl"
    _ok(_kb(venv, "probe", "--static", "--backend", "cpu", "--out", str(out), timeout=600))
    lines = out.read_text(encoding="utf-8").splitlines()
    run = json.loads(lines[0])
    assert run["record"] == "probe_run" and run["backend"] == "cpu" and len(lines) > 1000
    venv["figures"]["venv_with_torch_mb"] = _mb(venv["root"] / "venv")
