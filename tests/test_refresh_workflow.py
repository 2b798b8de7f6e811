""".github/workflows/refresh.yml: valid against the published GitHub workflow schema (the
copy check-jsonschema vendors), scheduled, and its steps do what the refresh promises —
ingest every source, export data/, open a pull request whose body is the change report,
and fail loudly (job summary + issue) when a source drifted. Its shell steps parse, and
the body script renders a real `kb ingest --json` report."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import load_workflow

REPO = Path(__file__).resolve().parent.parent
WORKFLOW = REPO / ".github" / "workflows" / "refresh.yml"
BODY = REPO / ".github" / "scripts" / "refresh_pr_body.py"


@pytest.fixture(scope="module")
def workflow() -> dict:
    return load_workflow(WORKFLOW)


def _steps(workflow: dict) -> list[dict]:
    (job,) = workflow["jobs"].values()
    return job["steps"]


def _step_running(workflow: dict, text: str) -> tuple[int, dict]:
    found = [(i, s) for i, s in enumerate(_steps(workflow)) if text in s.get("run", "")]
    assert len(found) == 1, f"one step should run {text!r}"
    return found[0]


def test_valid_against_the_published_workflow_schema():
    pytest.importorskip("check_jsonschema")
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(WORKFLOW)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_scheduled_and_startable_by_hand(workflow):
    (cron,) = [entry["cron"] for entry in workflow["on"]["schedule"]]
    assert len(cron.split()) == 5
    assert "workflow_dispatch" in workflow["on"]
    assert workflow["permissions"]["pull-requests"] == "write" and workflow["permissions"]["contents"] == "write"


def test_ingests_exports_then_opens_a_pull_request_with_the_change_report(workflow):
    ingest_at, ingest = _step_running(workflow, "kb ingest --all --json")
    export_at, _ = _step_running(workflow, "kb data export")
    body_at, body = _step_running(workflow, "refresh_pr_body.py")
    pr_at, pr = _step_running(workflow, "gh pr create")
    assert ingest_at < export_at < body_at < pr_at
    assert "--json" in ingest["run"] and "pipefail" in ingest["run"]  # a failing kb fails the step
    report = re.search(r'> "(\$RUNNER_TEMP/[\w.]+)"', ingest["run"]).group(1)
    assert report in body["run"] and "git diff --stat -- data/" in body["run"]
    body_file = re.search(r'> "(\$RUNNER_TEMP/body\.md)"', body["run"]).group(1)
    assert f'--body-file "{body_file}"' in pr["run"]
    assert "steps.body.outputs.changed == 'true'" in pr["if"]  # no change, no pull request
    assert "git add data/" in pr["run"]


def test_a_drifted_source_fails_loudly(workflow):
    failing = [s for s in _steps(workflow) if "failure()" in str(s.get("if", ""))]
    assert failing and "steps.ingest.outcome == 'failure'" in failing[0]["if"]
    assert "gh issue create" in failing[0]["run"] and "GITHUB_STEP_SUMMARY" in failing[0]["run"]
    assert _step_running(workflow, "kb ingest --all --json")[1]["id"] == "ingest"


def test_every_shell_step_parses(workflow):
    for step in _steps(workflow):
        if "run" not in step:
            continue
        script = re.sub(r"\$\{\{[^}]*\}\}", "X", step["run"])
        done = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
        assert done.returncode == 0, (step.get("name"), done.stderr)


def test_the_body_script_renders_an_ingest_report(tmp_path):
    report = {"results": [
        {"source": "neuron-release-notes", "added": 3, "unchanged": False,
         "changes": [{"op": "aten::nonzero", "target": "neuron", "backend_version": "2.34.0", "mode": "eager",
                      "old": "unknown", "new": "native"}],
         "new_releases": ["torch-neuronx 2.34.0"],
         "new_support_windows": [{"product": "torch-neuronx", "cycle": "2.33", "eol": "2027-06-01",
                                  "eol_kind": "announced", "eol_release": None}]},
        {"source": "neuron-xla-ops", "added": 0, "unchanged": True, "changes": [], "new_releases": [],
         "new_support_windows": []}], "errors": []}
    (tmp_path / "ingest.json").write_text(json.dumps(report))
    (tmp_path / "diffstat.txt").write_text(" data/scraped/neuron-release-notes.jsonl | 3 +++\n")
    done = subprocess.run([sys.executable, str(BODY), str(tmp_path / "ingest.json"), str(tmp_path / "diffstat.txt")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    body = done.stdout
    assert "| aten::nonzero | neuron | 2.34.0 | eager | unknown | native |" in body
    assert "| neuron-release-notes | 3 | no |" in body and "| neuron-xla-ops | 0 | yes |" in body
    assert "- torch-neuronx 2.34.0" in body and "2027-06-01" in body
    assert "data/scraped/neuron-release-notes.jsonl | 3 +++" in body
