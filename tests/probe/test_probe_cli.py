"""`kb probe` through the real entry point: bad input is one line and exit 2, and a
PrivateUse1 backend package (a stand-in torch_neuronx written here) is probed in a child
process, reported as JSONL that ingests, twice, without adding anything the second time."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from cli.entry import main
from kb.store.records import OpStatus, ProbeRun, read_jsonl, write_jsonl

FAKE_NEURON = textwrap.dedent('''
    """Stand-in for torch_neuronx, written by kb's tests: renames PrivateUse1 to neuron,
    gives two ops a kernel and installs a catch-all boxed fallback, as the real one does."""
    import torch

    torch.utils.rename_privateuse1_backend("neuron")
    _aten = torch.library.Library("aten", "IMPL")


    def _kernel(*args, **kwargs):
        raise RuntimeError("stand-in kernel")


    _aten.impl("add.Tensor", _kernel, "PrivateUse1")
    _aten.impl("nonzero", _kernel, "PrivateUse1")
    _catch_all = torch.library.Library("_", "IMPL")
    _catch_all.fallback(lambda keyset, op, *a, **k: None, "PrivateUse1", with_keyset=True)
''')


def fake_package(root, body: str, version: str = "2.13.3.0"):
    pkg = root / "torch_neuronx"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(body)
    dist = root / f"torch_neuronx-{version}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch-neuronx\nVersion: {version}\n")
    return root


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["probe", *args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, *fragments: str) -> None:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb: error: "), err
    for fragment in fragments:
        assert fragment in lines[0]


def test_unknown_backend(capsys):
    code, _, err = run_cli(capsys, "--static", "--backend", "tpu9000")
    assert_one_line_error(code, err, "unknown backend 'tpu9000'", "torch_tpu")


@pytest.mark.heavy  # a probe process importing torch
def test_backend_not_installed(capsys, tmp_path):
    code, _, err = run_cli(capsys, "--static", "--backend", "torch_neuronx", "--out", str(tmp_path / "r.jsonl"))
    assert_one_line_error(code, err, "torch_neuronx is not installed")
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.heavy
def test_backend_import_raises(capsys, tmp_path):
    root = fake_package(tmp_path / "site", "raise RuntimeError('Neuron runtime not found\\nsecond line')\n")
    code, _, err = run_cli(capsys, "--static", "--backend", "torch_neuronx", "--python-path", str(root),
                           "--out", str(tmp_path / "r.jsonl"))
    assert_one_line_error(code, err, "importing torch_neuronx failed: RuntimeError: Neuron runtime not found")


def test_backend_import_kills_the_interpreter(capsys, tmp_path):
    root = fake_package(tmp_path / "site", "import os, sys\nsys.stderr.write('F0000 check failed\\n')\nos.abort()\n")
    code, _, err = run_cli(capsys, "--static", "--backend", "torch_neuronx", "--python-path", str(root),
                           "--out", str(tmp_path / "r.jsonl"))
    assert_one_line_error(code, err, "killed by SIGABRT", "F0000 check failed")


@pytest.mark.parametrize(("args", "fragment"), [
    (["--device", "neuron"], "live probing"),
    (["--backend", "cpu"], "--static"),
    (["--static"], "--backend"),
    (["--static", "--backend", "cpu", "--cpu-fallback"], "takes no option cpu_fallback"),
    (["--static", "--backend", "meta", "--timeout", "0.2"], "took longer than 0.2 s"),
])
def test_usage_errors(capsys, args, fragment):
    code, _, err = run_cli(capsys, *args)
    assert_one_line_error(code, err, fragment)


@pytest.mark.heavy  # a probe process importing torch
def test_privateuse1_backend_probed_and_reported(capsys, tmp_path):
    root = fake_package(tmp_path / "site", FAKE_NEURON)
    report = tmp_path / "neuron.jsonl"
    code, out, err = run_cli(capsys, "--static", "--backend", "torch_neuronx", "--python-path", str(root),
                             "--out", str(report), "--json")
    assert code == 0, err
    summary = json.loads(out)
    records = list(read_jsonl(report.read_text().splitlines()))
    run, statuses = records[0], records[1:]
    assert isinstance(run, ProbeRun) and all(isinstance(s, OpStatus) for s in statuses)
    assert (run.target, run.backend_version, run.params["dispatch_key"]) == ("neuron", "2.13.3.0", "PrivateUse1")
    assert run.fallback_policy["eager"] == "cpu" and run.fallback_policy["compile"] == "raise"
    assert summary["run"]["run_id"] == run.run_id
    verdict = {(s.op, s.mode): s.status for s in statuses}
    assert verdict[("aten::add.Tensor", "eager")] == verdict[("aten::add.Tensor", "compile")] == "native"
    assert verdict[("aten::nonzero", "compile")] == "native"
    assert verdict[("aten::layer_norm", "eager")] == "decomposed"
    assert verdict[("aten::bincount", "eager")] == "fallback"
    assert verdict[("aten::bincount", "compile")] == "unsupported"
    assert summary["counts"]["eager"]["native"] == 2 and "fallback" not in summary["counts"]["compile"]

    assert summary["ingested"] is None  # --out alone writes the report, nothing else


def test_report_loads_with_kb_ingest_on_another_machine(capsys, tmp_path, isolated_kb, small_data):
    """A probe report (header + a few overloads, to keep the test fast) through `kb ingest`."""
    from kb.probe import backends, static

    raw = {"backend": "torch_neuronx", "backend_version": "2.13.3.0", "torch_version": "2.13.0",
           "torch_build": "2.13.0+cpu", "python_version": "3.12.3", "host": "trn2-host", "dispatch_key": "PrivateUse1",
           "privateuse1_name": "neuron", "policy": {"eager": "cpu", "compile": "raise"},
           "entries": [["aten::add.Tensor", "kernel", "torch_neuronx/x.py:1", None],
                       ["aten::nonzero", "backend fallback", "csrc/f.cpp:2", None]]}
    results = []
    for when in ("2026-11-01T00:00:00+00:00", "2026-11-02T00:00:00+00:00"):  # the same install, probed twice
        probe = static.build_probe(backends.get_backend("torch_neuronx"), raw, started_at=when)
        report = tmp_path / f"report-{when[:10]}.jsonl"
        with open(report, "w", encoding="utf-8") as out:
            write_jsonl(probe.records(), out)
        code = main(["ingest", str(report), "--db", str(isolated_kb), "--json"])
        out, err = capsys.readouterr()
        assert code == 0, err
        results.append(json.loads(out)["results"][0])
    assert results[0]["added"] == 4 and results[1]["added"] == 0 and results[1]["changes"] == []
    assert {(c["op"], c["mode"]): c["new"] for c in results[0]["changes"]} == {
        ("aten::add.Tensor", "eager"): "native", ("aten::add.Tensor", "compile"): "native",
        ("aten::nonzero", "eager"): "fallback", ("aten::nonzero", "compile"): "unsupported"}


def test_probe_straight_into_the_kb_twice_adds_nothing_new(capsys, monkeypatch, isolated_kb, small_data):
    from kb.probe import backends, static

    raw = {"backend": "sim", "backend_version": "0.1.0", "torch_version": "2.13.0", "torch_build": "2.13.0+cpu",
           "python_version": "3.11.7", "host": "h", "dispatch_key": "PrivateUse1", "privateuse1_name": "sim",
           "policy": {"eager": "per-op", "compile": "raise"},
           "entries": [["aten::add.Tensor", "kernel", "kb/probe/sim.py:1", None],
                       ["aten::nonzero", "backend fallback", "kb/probe/sim.py:2", "raise"]]}
    monkeypatch.setattr(static, "run_static_probe", lambda backend, **kw: static.build_probe(
        backends.get_backend(backend), raw, started_at=static.utc_now()))
    added = []
    for _ in range(2):
        code, out, err = run_cli(capsys, "--static", "--backend", "sim", "--db", str(isolated_kb), "--json")
        assert code == 0, err
        added.append(json.loads(out)["ingested"]["added"])
    assert added == [4, 0]


def test_table_output_counts_per_mode(capsys, monkeypatch, tmp_path):
    from kb.probe import backends, static

    raw = {"backend": "meta", "backend_version": "2.13.0", "torch_version": "2.13.0", "torch_build": "2.13.0+cpu",
           "python_version": "3.11.7", "host": "h", "dispatch_key": "Meta", "privateuse1_name": "privateuseone",
           "policy": {"eager": "raise"},
           "entries": [["aten::add.Tensor", "kernel", "a.py:1", None], ["aten::nonzero", None, None, None],
                       ["aten::layer_norm", "math kernel", "b.cpp:2", None]]}
    monkeypatch.setattr(static, "run_static_probe", lambda backend, **kw: static.build_probe(
        backends.get_backend(backend), raw, started_at=static.utc_now()))
    code, out, err = run_cli(capsys, "--static", "--backend", "meta", "--out", str(tmp_path / "m.jsonl"))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("meta 2.13.0 (meta, key Meta)") and "3 ATen overloads" in lines[0]
    rows = [line.split() for line in lines[3:]]
    assert rows == [["eager", "✔", "native", "1"], ["eager", "◐", "decomposed", "1"], ["eager", "✘", "unsupported", "1"]]
    assert "wrote 4 records" in err
    assert len((tmp_path / "m.jsonl").read_text().splitlines()) == 4


def test_child_environment(monkeypatch, tmp_path):
    from kb.probe.static import PYTHONPATH_ENV, child_env

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(PYTHONPATH_ENV, "from-env")
    monkeypatch.setenv("TORCH_DEVICE_BACKEND_AUTOLOAD", "1")
    env = child_env(["rel/site"])
    assert env["TORCH_DEVICE_BACKEND_AUTOLOAD"] == "0"
    paths = env["PYTHONPATH"].split(os.pathsep)
    assert paths[:2] == [str(tmp_path / "rel" / "site"), str(tmp_path / "from-env")]
