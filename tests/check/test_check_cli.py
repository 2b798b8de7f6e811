"""`kb check` end to end in-process: renderers, side-by-side targets and the CI gate."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest


@pytest.fixture
def mlp(saved):
    return saved["mlp"]["exported_program"]


def test_table_has_summary_then_ops(run_cli, mlp):
    code, out, err = run_cli("check", mlp, "--target", "neuron")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("verdict: neuron 2.33.0") and "except 1 op on the host" in lines[0]  # issue 27
    assert "2 distinct ops, 3 call sites, 0.0% of call sites native" in lines[1]
    assert "CPU fallback: 1 calls, 2 device↔host transitions" in out
    header = next(line for line in lines if line.startswith("op "))
    for column in ("count", "status", "via", "dtypes", "modules", "source"):
        assert column in header
    linear = next(line for line in lines if line.startswith("aten::linear"))
    assert "decomposed" in linear and "t, addmm" in linear and "fc1, fc2" in linear


def test_json_document(run_cli, mlp):
    code, out, _ = run_cli("check", mlp, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    report = doc["reports"][0]
    assert report["target"] == "neuron" and report["backend_version"] == "2.33.0"
    assert report["summary"]["call_sites"] == 3
    assert [op["op"] for op in report["ops"]] == ["aten::linear", "aten::gelu"]
    assert report["warnings"] == [] and report["eager"]["transitions"] == 2
    assert doc["gate"]["failed"] is False


def test_markdown(run_cli, mlp):
    code, out, _ = run_cli("check", mlp, "--format", "markdown")
    assert code == 0
    assert "| op | count | status | via | dtypes | modules | source |" in out
    assert "| `aten::gelu` | 1 | fallback |" in out


def test_sarif(run_cli, mlp):
    code, out, _ = run_cli("check", mlp, "--format", "sarif", "--fail-on", "fallback")
    assert code == 1
    doc = json.loads(out)
    assert doc["version"] == "2.1.0"
    (result,) = doc["runs"][0]["results"]
    assert result["ruleId"] == "kb/fallback" and result["level"] == "warning"
    assert result["locations"][0]["logicalLocations"] == [{"name": "act", "kind": "module"}]
    assert doc["runs"][0]["tool"]["driver"]["rules"][0]["id"] == "kb/fallback"


def test_junit(run_cli, mlp):
    code, out, _ = run_cli("check", mlp, "--format", "junit", "--fail-on", "fallback")
    assert code == 1
    suite = ET.fromstring(out.split("\n", 1)[1]).find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    failing = [case.get("name") for case in suite if case.find("failure") is not None]
    assert failing == ["aten::gelu"]
    code, out, _ = run_cli("check", mlp, "--format", "junit")  # no gate: nothing fails
    assert code == 0 and ET.fromstring(out.split("\n", 1)[1]).find("testsuite").get("failures") == "0"


@pytest.mark.parametrize("fail_on,expected", [("unsupported", 0), ("fallback", 1), ("decomposed", 1)])
def test_fail_on_thresholds(run_cli, mlp, fail_on, expected):
    code, _out, _err = run_cli("check", mlp, "--fail-on", fail_on)
    assert code == expected


def test_fail_on_unknown_catches_unknown_and_worse(run_cli, saved):
    spectral = saved["spectral"]["exported_program"]
    code, out, _ = run_cli("check", spectral, "--fail-on-unknown", "--fail-on", "unsupported")
    assert code == 1 and "FAILED" in out and "aten::fft_rfft (unsupported on neuron)" in out


def test_allow_accepts_an_op(run_cli, mlp):
    code, out, _ = run_cli("check", mlp, "--fail-on", "fallback", "--allow", "gelu")
    assert code == 0 and "[allowed]" in out


def test_baseline_only_new_problems_fail(run_cli, saved, tmp_path):
    _, previous, _ = run_cli("check", saved["mlp"]["exported_program"], "--json")
    baseline = tmp_path / "previous.json"
    baseline.write_text(previous)
    code, _out, _ = run_cli("check", saved["mlp"]["exported_program"], "--fail-on", "fallback", "--baseline", baseline)
    assert code == 0  # gelu was already fallback
    code, out, _ = run_cli("check", saved["block"]["exported_program"], "--fail-on-unknown", "--baseline", baseline)
    assert code == 1 and "scaled_dot_product_attention" in out


def test_bad_baseline_and_options(run_cli, mlp, tmp_path):
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    for args in (["--baseline", bad], ["--format", "xml"], ["--mode", "jit"], ["--fail-on", "slow"], ["--fail-on", "unknown"],
                 ["--allow", "not an op"]):
        code, _out, err = run_cli("check", mlp, *args)
        assert code == 2 and err.startswith("kb: error: ") and "Traceback" not in err


def test_targets_side_by_side(run_cli, saved):
    code, out, _ = run_cli("check", saved["mlp"]["exported_program"], "-t", "neuron", "-t", "tpu")
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("op "))
    assert "neuron" in header and "tpu" in header
    gelu = next(line for line in out.splitlines() if line.startswith("aten::gelu"))
    assert "fallback" in gelu and "native" in gelu


def test_compile_mode_lists_breaking_ops(run_cli, mlp):
    code, out, _ = run_cli("check", mlp, "--mode", "compile", "-t", "neuron")
    assert code == 0 and "compile: fails at aten::gelu; ops: gelu (compile error)" in out


@pytest.mark.heavy  # two kb check processes importing torch
def test_factory_and_train_from_the_cli(run_cli, saved):
    code, out, err = run_cli("check", saved["mlp"]["factory"], "--input-shape", "2x8", "--train", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["train"] is True
    phases = {p for op in doc["reports"][0]["ops"] for p in op["phases"]}
    assert phases == {"forward", "backward"}


def test_allowing_the_problem_leaf_accepts_the_composite(run_cli, saved):
    spectral = saved["spectral"]["exported_program"]
    code, out, _ = run_cli("check", spectral, "--fail-on", "unsupported")
    assert code == 1 and "aten::fft_rfft (unsupported on neuron)" in out
    code, out, _ = run_cli("check", spectral, "--fail-on", "unsupported", "--allow", "aten::_fft_r2c")
    assert code == 0, out


def test_warning_hooks_reach_every_format(run_cli, mlp, monkeypatch):
    from kb.check import resolve as kc

    def float64_hook(report, traced):
        if report.target == "neuron":
            yield "neuron: float64 runs as float32 (known limitation)"

    monkeypatch.setattr(kc, "WARNING_HOOKS", [float64_hook])
    code, out, _ = run_cli("check", mlp)
    assert code == 0 and "warning: neuron: float64 runs as float32" in out
    _, out, _ = run_cli("check", mlp, "--json")
    assert json.loads(out)["reports"][0]["warnings"] == ["neuron: float64 runs as float32 (known limitation)"]
    _, out, _ = run_cli("check", mlp, "--format", "sarif")
    assert any(r["ruleId"] == "kb/warning" for r in json.loads(out)["runs"][0]["results"])
    _, out, _ = run_cli("check", mlp, "--format", "junit")
    assert "warning: neuron: float64" in out


def test_backend_version_per_target(run_cli, mlp):
    from cli.check import parse_versions

    assert parse_versions(["tpu=0.2.0", "2.33.0"], ["neuron", "tpu"]) == {"tpu": "0.2.0", "neuron": "2.33.0"}
    code, out, _ = run_cli("check", mlp, "-t", "neuron", "-t", "tpu", "--backend-version", "tpu=0.2.0", "--json")
    assert code == 0
    assert [r["backend_version"] for r in json.loads(out)["reports"]] == ["2.33.0", "0.2.0"]
    code, _out, err = run_cli("check", mlp, "--backend-version", "cuda=12")
    assert code == 2 and "not a --target" in err


@pytest.mark.parametrize("gate", [[], ["--fail-on", "fallback"], ["--fail-on-unknown"], ["--fail-on", "decomposed"],
                                  ["--fail-on", "unsupported", "--fail-on-unknown"]])
@pytest.mark.parametrize("model", ["block", "spectral", "mlp"])
def test_every_format_counts_the_gates_findings(run_cli, saved, gate, model):
    """table, json, markdown, sarif and junit agree with the exit code on what failed."""
    path = saved[model]["exported_program"]
    code, out, _ = run_cli("check", path, "--json", *gate)
    failing = json.loads(out)["gate"]["failing"]
    assert code == (1 if failing else 0)
    if "--fail-on-unknown" not in gate:
        assert all(f["status"] != "unknown" for f in failing)  # never implied by a level
    _, out, _ = run_cli("check", path, "--format", "sarif", *gate)
    results = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] != "kb/warning"]
    assert sum(r["level"] != "note" for r in results) == len(failing)
    _, out, _ = run_cli("check", path, "--format", "junit", *gate)
    suites = ET.fromstring(out.split("\n", 1)[1]).iter("testsuite")
    assert sum(int(suite.get("failures")) for suite in suites) == len(failing)
    for fmt in ("table", "markdown"):
        _, out, _ = run_cli("check", path, "--format", fmt, *gate)
        if failing:
            assert f"FAILED, {len(failing)} finding" in out or f"failed, {len(failing)} findings" in out
        elif gate:
            assert "passed" in out


def test_table_ends_with_legend_and_how_to_settle_unknowns(run_cli, saved):
    _, out, _ = run_cli("check", saved["block"]["exported_program"])
    lines = out.rstrip("\n").splitlines()
    assert lines[-2].startswith("legend: ✔ native") and "? unknown" in lines[-2]
    assert lines[-1].startswith("unknown ops: settle them with kb probe --static --backend torch_neuronx")
    _, out, _ = run_cli("check", saved["mlp"]["exported_program"], "-t", "tpu")
    assert out.rstrip("\n").splitlines()[-1].startswith("legend: ")  # nothing unknown: no probe line


@pytest.fixture
def presumed_neuron(monkeypatch):
    """The stand-in KB with neuron's gelu and fft presumed (carried from an older version)."""
    from cli import check as cli_check
    from kb.check.resolve import Verdict
    from tests.check.check_fixtures import TABLE, TPU_TABLE

    neuron = {**TABLE, "aten::gelu": Verdict("fallback", source_kind="manual", basis="presumed"),
              "aten::t": Verdict("native", source_kind="replay", basis="inferred")}
    monkeypatch.setattr(cli_check, "make_lookup", lambda db, target, version, mode: (
        (TPU_TABLE if target == "tpu" else neuron).get, version or "2.33.0"))


def test_targets_side_by_side_mark_each_verdicts_basis(run_cli, saved, presumed_neuron, monkeypatch):
    """t26b #1: with two targets (no source column) each presumed/inferred cell carries its
    mark, and the legend under the table says what the marks mean."""
    monkeypatch.setenv("COLUMNS", "120")
    code, out, _ = run_cli("check", saved["mlp"]["exported_program"], "-t", "neuron", "-t", "tpu")
    assert code == 0
    gelu = next(line for line in out.splitlines() if line.startswith("aten::gelu"))
    assert "⇄ fallbackᵖ" in gelu and "✔ native" in gelu and "native ᵖ" not in gelu  # tpu's is evidence
    legend = " ".join(out[out.index("\nlegend: "):].split())  # wrapped to the width
    assert "ᵖ presumed" in legend and "ⁱ inferred" in legend


def test_markdown_and_html_of_two_targets_mark_the_basis(run_cli, saved, presumed_neuron):
    code, out, _ = run_cli("check", saved["mlp"]["exported_program"], "-t", "neuron", "-t", "tpu", "--format", "markdown")
    assert code == 0
    assert "| `aten::gelu` | 1 | fallbackᵖ |" in out and "| `aten::gelu` | 1 | native |" in out
    assert "ᵖ presumed (carried from an older version or snapshot)" in out

