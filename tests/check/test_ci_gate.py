"""`kb ci check FILE...` and `kb ci audit FILE...` (what the pre-commit hooks and the
GitHub Action run), and `kb audit` with `[tool.kb.audit]`: one gate over many files,
the project's config per file, one SARIF run, markdown appended (issue 28)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

CONFIG = '[tool.kb]\ntargets = ["neuron", "tpu"]\nfail-on = "fallback"\n'
WAIVER = '[[tool.kb.waivers]]\nop = "gelu"\nreason = "host gelu is fine"\nexpires = 2027-03-01\n'


@pytest.fixture
def repo(saved, tmp_path, workdir):
    """A project: pyproject.toml with [tool.kb], two exports (mlp has gelu: fallback on neuron)."""
    (tmp_path / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "models").mkdir()
    shutil.copyfile(saved["mlp"]["exported_program"], tmp_path / "models" / "mlp.pt2")
    shutil.copyfile(saved["block"]["exported_program"], tmp_path / "models" / "block.pt2")
    return tmp_path


def test_every_file_is_checked_with_the_config(run_cli, repo):
    code, out, err = run_cli("ci", "check", "models/mlp.pt2", "models/block.pt2")
    assert code == 1, err
    assert "kb check models/mlp.pt2" in out and "kb check models/block.pt2" in out
    assert "gate --fail-on fallback: FAILED — aten::gelu (fallback on neuron)" in out


def test_flags_override_and_json_names_the_config(run_cli, repo):
    code, out, _ = run_cli("ci", "check", "models/mlp.pt2", "--target", "tpu", "--json")
    assert code == 0
    doc = json.loads(out)
    (entry,) = doc["files"]
    assert [r["target"] for r in entry["reports"]] == ["tpu"]
    assert entry["config"]["path"] == str(repo / "pyproject.toml") and entry["config"]["used"]["from"]["targets"] == "flag"
    assert doc["failed"] == [] and doc["gate_failed"] is False


def test_waivers_apply_and_expire(run_cli, repo, monkeypatch):
    (repo / "pyproject.toml").write_text(CONFIG + WAIVER, encoding="utf-8")
    monkeypatch.setenv("KB_TODAY", "2027-01-01")
    code, out, _ = run_cli("ci", "check", "models/mlp.pt2")
    assert code == 0 and "waived: aten::gelu on neuron (fallback) until 2027-03-01 — host gelu is fine" in out
    monkeypatch.setenv("KB_TODAY", "2027-03-02")
    code, out, _ = run_cli("ci", "check", "models/mlp.pt2", "models/block.pt2")
    assert code == 1 and "waiver expired: aten::gelu on neuron (fallback), tpu (native) was waived until 2027-03-01" in out


def test_one_sarif_run_and_markdown_appended(run_cli, repo):
    summary = repo / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    code, _, _ = run_cli("ci", "check", "models/mlp.pt2", "models/block.pt2", "--sarif", "kb.sarif",
                         "--markdown", summary)
    assert code == 1
    doc = json.loads((repo / "kb.sarif").read_text())
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 1
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
    assert "models/mlp.pt2" in uris
    errors = [r for r in doc["runs"][0]["results"] if r["properties"].get("gateFinding")]
    assert [(r["properties"]["op"], r["properties"]["target"]) for r in errors] == [("aten::gelu", "neuron")]
    rule_ids = [rule["id"] for rule in doc["runs"][0]["tool"]["driver"]["rules"]]
    assert len(rule_ids) == len(set(rule_ids))
    text = summary.read_text()
    assert text.startswith("# earlier step\n# kb: 2 export(s) checked, 1 failed the gate")
    assert "## kb check `models/mlp.pt2`" in text and "**Gate `--fail-on fallback`: failed, 1 findings**" in text


def test_merged_sarif_validates_against_the_official_schema(run_cli, repo, monkeypatch):
    import jsonschema

    from tests.migrate.audit.test_audit_sarif import official_schema

    (repo / "pyproject.toml").write_text(CONFIG + WAIVER.replace("2027-03-01", "2026-01-01"), encoding="utf-8")
    code, _, _ = run_cli("ci", "check", "models/mlp.pt2", "models/block.pt2", "--sarif", "kb.sarif")
    assert code == 1
    jsonschema.Draft4Validator(official_schema()).validate(json.loads((repo / "kb.sarif").read_text()))


def test_no_files_is_a_pass(run_cli, repo):
    code, out, _ = run_cli("ci", "check", "--sarif", "kb.sarif", "--markdown", "s.md")
    assert code == 0 and "nothing to check" in out
    assert json.loads((repo / "kb.sarif").read_text())["runs"][0]["results"] == []
    assert "no exports to check" in (repo / "s.md").read_text()


def test_a_bad_file_is_one_line_naming_it(run_cli, repo):
    (repo / "models" / "junk.pt2").write_bytes(b"not a zip at all")
    code, out, err = run_cli("ci", "check", "models/mlp.pt2", "models/junk.pt2")
    assert code == 2
    (line,) = [x for x in err.splitlines() if "(first use)" not in x]
    assert line.startswith("kb: error: ") and "models/junk.pt2" in line


def test_outputs_never_name_the_kb(run_cli, repo, isolated_kb):
    for option in ("--sarif", "--markdown"):
        code, _, err = run_cli("ci", "check", "models/mlp.pt2", option, isolated_kb)
        assert code == 2 and "names the KB file itself" in err


def test_a_bad_config_is_one_line(run_cli, repo):
    (repo / "pyproject.toml").write_text('[tool.kb]\nfail-on = "sometimes"\n', encoding="utf-8")
    code, _, err = run_cli("ci", "check", "models/mlp.pt2")
    assert code == 2 and f"{repo / 'pyproject.toml'}: [tool.kb] fail-on: 'sometimes'" in err


# --- audit --------------------------------------------------------------------------------------

HOT = "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda()\n"
MILD = "import torch\nx = torch.zeros(3).cuda()\n"


@pytest.fixture
def code_repo(tmp_path, workdir) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "net.py").write_text(HOT)
    (tmp_path / "src" / "util.py").write_text(MILD)
    (tmp_path / "tests" / "test_net.py").write_text(HOT)
    (tmp_path / "README.md").write_text("x.cuda()\n")
    return tmp_path


def test_ci_audit_grades_by_repository_path_and_gates_high_by_default(run_cli, code_repo):
    code, out, _ = run_cli("ci", "audit", "src/util.py", "tests/test_net.py", "README.md")
    assert code == 0 and "2 file(s) audited" in out and "gate --fail-on high: passed" in out
    assert "tests/test_net.py" in out and "low" in out  # a test file: low, as kb audit grades a tree
    code, out, _ = run_cli("ci", "audit", "src/net.py", "src/util.py")
    assert code == 1 and "gate --fail-on high: FAILED" in out


def test_ci_audit_reads_the_config_and_flags_override(run_cli, code_repo):
    (code_repo / "pyproject.toml").write_text('[tool.kb.audit]\nfail-on = "medium"\nexclude = ["src/net.py"]\n')
    code, out, _ = run_cli("ci", "audit", "src/net.py", "src/util.py")
    assert code == 1 and "1 file(s) audited" in out and "gate --fail-on medium: FAILED" in out
    code, out, _ = run_cli("ci", "audit", "src/util.py", "--fail-on", "high")
    assert code == 0
    code, out, _ = run_cli("ci", "audit", "src/util.py", "--json")
    doc = json.loads(out)
    assert doc["config"]["used"] == {"fail_on": "medium", "exclude": ["src/net.py"],
                                     "from": {"fail_on": "config", "exclude": "config"}}
    assert doc["gate_failed"] is True
    code, _, err = run_cli("ci", "audit", "src/util.py", "--fail-on", "fallback")
    assert code == 2 and "expected one of high, medium, low" in err


def test_ci_audit_refuses_a_missing_file_as_ci_check_does(run_cli, code_repo):
    """pre-commit hands a hook only files that exist: a missing one is a typo, exit 2."""
    code, out, err = run_cli("ci", "audit", "src/util.py", "src/gone.py")
    assert code == 2 and out == "" and err.strip().splitlines()[-1] == "kb: error: src/gone.py: no such file"
    code, _, _ = run_cli("ci", "audit", "src")  # a folder is still skipped
    assert code == 0


def test_kb_audit_reads_tool_kb_audit(run_cli, code_repo):
    (code_repo / "pyproject.toml").write_text('[tool.kb.audit]\nfail-on = "medium"\nexclude = ["src/net.py"]\n')
    code, out, _ = run_cli("audit", str(code_repo / "src"))
    assert code == 1  # util.py: medium, and the file's fail-on is medium
    assert "net.py" not in out
    code, out, _ = run_cli("audit", str(code_repo / "src"), "--fail-on", "high")
    assert code == 0
    code, out, _ = run_cli("audit", str(code_repo / "src"), "--no-config")
    assert code == 0 and "net.py" in out
    doc = json.loads(run_cli("audit", str(code_repo / "src"), "--json")[1])
    assert doc["config"]["path"] == str(code_repo / "pyproject.toml")
    (code_repo / "pyproject.toml").write_text('[tool.kb.audit]\nexclude = "src"\n')
    code, _, err = run_cli("audit", str(code_repo / "src"))
    assert code == 2 and "[tool.kb] audit.exclude: expected an array of strings" in err
