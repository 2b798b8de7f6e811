"""`kb audit` through the console entry point: formats, gate exit codes, errors."""

from __future__ import annotations

import json

import pytest

from cli.entry import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["audit", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_table_is_the_default(capsys, fixture_repo):
    code, out, err = run(capsys, str(fixture_repo))
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split()[:4] == ["severity", "where", "rule", "context"]
    assert any("model/net.py:19:13" in line and "forward of Net" in line for line in lines)
    assert lines[-1].startswith("32 finding(s): 17 high, 8 medium, 7 low; 14 file(s) audited; skipped 4 folder(s)")


@pytest.mark.parametrize("threshold, code", [("high", 1), ("medium", 1), ("low", 1)])
def test_fail_on_trips_when_a_finding_is_at_or_above(capsys, fixture_repo, threshold, code):
    assert run(capsys, str(fixture_repo), "--fail-on", threshold)[0] == code


@pytest.mark.parametrize("threshold, code", [("high", 0), ("medium", 0), ("low", 1), ("LOW", 1)])
def test_fail_on_with_only_low_findings(capsys, fixture_repo, threshold, code):
    assert run(capsys, str(fixture_repo / "tests"), "--fail-on", threshold)[0] == code


def test_clean_tree(capsys, tmp_path):
    (tmp_path / "ok.py").write_text("import torch\ndevice = torch.accelerator.current_accelerator()\n")
    code, out, _ = run(capsys, str(tmp_path), "--fail-on", "low")
    assert code == 0
    assert out == "no CUDA lock-in found; 1 file(s) audited\n"


@pytest.mark.parametrize("args", [("--json",), ("--format", "json"), ("-f", "JSON"), ("--json", "--format", "json")])
def test_json(capsys, fixture_repo, args):
    code, out, _ = run(capsys, str(fixture_repo), *args)
    data = json.loads(out)
    assert code == 0
    assert data["summary"] == {"files_scanned": 14, "findings": 32, "high": 17, "medium": 8, "low": 7}
    first = data["findings"][0]
    assert set(first) == {"rule", "path", "line", "column", "message", "suggestion", "severity", "context", "snippet",
                          "cell"}
    assert data["skipped_dirs"] == [".git", "myenv", "node_modules", "third_party"]
    assert sum(data["by_rule"].values()) == 32 and list(data["by_rule"])[0] == "cuda-device-string"


def test_sarif_to_stdout_and_to_a_file(capsys, fixture_repo, tmp_path):
    code, out, _ = run(capsys, str(fixture_repo), "--format", "sarif", "--fail-on", "high")
    assert code == 1  # the gate applies whatever the format
    assert json.loads(out)["version"] == "2.1.0"
    target = tmp_path / "audit.sarif"
    code, out, err = run(capsys, str(fixture_repo), "--format", "sarif", "-o", str(target))
    assert code == 0 and out == ""
    assert "report written to" in err
    assert len(json.loads(target.read_text())["runs"][0]["results"]) == 32


def test_markdown(capsys, fixture_repo):
    code, out, _ = run(capsys, str(fixture_repo), "--format", "markdown")
    assert code == 0
    assert out.startswith("# kb audit: `")
    assert "| high | `model/net.py:19:13` | cuda-method-call | forward of Net |" in out
    assert "| cuda-device-string | 7 |" in out
    assert "Severity rules" in out


def test_missing_path_is_one_line_exit_2(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "nope"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("kb: error: no such file or directory")


@pytest.mark.parametrize("args", [("--format", "xml"), ("--fail-on", "critical"), ("--json", "--format", "sarif")])
def test_bad_options_exit_2(capsys, fixture_repo, args):
    code, _, err = run(capsys, str(fixture_repo), *args)
    assert code == 2 and "Traceback" not in err


def test_output_needs_a_document_format(capsys, fixture_repo, tmp_path):
    code, _, err = run(capsys, str(fixture_repo), "-o", str(tmp_path / "x.txt"))
    assert code == 2 and "--output needs" in err


def test_unwritable_output_is_one_line(capsys, fixture_repo, tmp_path):
    code, _, err = run(capsys, str(fixture_repo), "--json", "-o", str(tmp_path / "no" / "dir" / "x.json"))
    assert code == 2 and err.startswith("kb: error: cannot write")


def test_installed_flag_adds_environment_findings(capsys, tmp_path, monkeypatch):
    from kb.migrate import audit_deps
    from kb.migrate.audit_findings import Finding, Severity

    fake = Finding("cuda-only-dependency", "<installed>", 0, 0, "depends on apex", "s", Severity.HIGH)
    monkeypatch.setattr(audit_deps, "audit_installed", lambda: [fake])
    code, out, _ = run(capsys, str(tmp_path), "--installed", "--json", "--fail-on", "high")
    assert code == 1
    assert json.loads(out)["findings"][0]["path"] == "<installed>"


def test_exclude_option(capsys, fixture_repo):
    code, out, _ = run(capsys, str(fixture_repo), "--json", "-x", "model", "--exclude", "*.txt")
    data = json.loads(out)
    assert code == 0
    assert not any(f["path"].startswith("model/") or f["path"].endswith(".txt") for f in data["findings"])
    assert "model" in data["skipped_dirs"]
