"""SARIF 2.1.0 output for `kb audit`, so CI systems (GitHub code scanning and others)
show findings inline on the diff.

Mapping: high → `error`, medium → `warning`, low → `note`. Locations are relative URIs
against the `SRCROOT` base, which `originalUriBaseIds` points at the audited folder, so the
report is portable between a laptop and CI. Each result keeps kb's own severity, context
and suggestion under `properties`, and a `partialFingerprints` entry (rule, path, the
line's text) so a finding keeps its identity when lines above it move.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from urllib.parse import quote

from kb import neutral
from kb.migrate.audit_findings import RULES, AuditReport, Finding, Severity

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {Severity.HIGH: "error", Severity.MEDIUM: "warning", Severity.LOW: "note"}


def _artifact_uri(path: str) -> str:
    """A relative URI; a file name that is not UTF-8 (read with surrogateescape) keeps
    its own bytes, percent-encoded, instead of failing the whole report."""
    return quote(path, safe="/", errors="surrogateescape")


def _rule_descriptor(rule_id: str) -> dict:
    rule = RULES[rule_id]
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.description},
        "defaultConfiguration": {"level": LEVELS[rule.base]},
        "properties": {"tags": ["portability", "cuda"]},
    }


def _fingerprint(finding: Finding) -> str:
    key = "\0".join((finding.rule, finding.path, finding.snippet or finding.message))
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _result(finding: Finding, rule_index: int) -> dict:
    result: dict = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": neutral.terminal(f"{finding.message}. Portable: {finding.suggestion}")},
        "partialFingerprints": {"kbFinding/v1": _fingerprint(finding)},
        "properties": {"severity": finding.severity.label, "context": neutral.terminal(finding.context),
                       "suggestion": neutral.terminal(finding.suggestion)},
    }
    if not finding.path.startswith("<"):  # "<installed>" has no file to point at
        physical: dict = {"artifactLocation": {"uri": _artifact_uri(finding.path), "uriBaseId": "SRCROOT"}}
        if finding.cell is not None:  # a region would point into the notebook's JSON, not the cell
            result["message"]["text"] += f" (code cell {finding.cell}, line {finding.line})"
        elif finding.line > 0:
            region: dict = {"startLine": finding.line}
            if finding.column > 0:
                region["startColumn"] = finding.column
            if finding.snippet:
                region["snippet"] = {"text": neutral.terminal(finding.snippet)}
            physical["region"] = region
        result["locations"] = [{"physicalLocation": physical}]
    return result


def to_sarif(report: AuditReport, tool_version: str) -> dict:
    """The SARIF log (a dict ready for json.dumps) for one audit."""
    rule_ids = sorted({f.rule for f in report.findings})
    index = {rule_id: i for i, rule_id in enumerate(rule_ids)}
    root = report.root if os.path.isdir(report.root) else os.path.dirname(report.root)
    root_uri = Path(root).as_uri().rstrip("/") + "/"
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "kb audit",
                "version": tool_version,
                "rules": [_rule_descriptor(rule_id) for rule_id in rule_ids],
            }},
            "originalUriBaseIds": {"SRCROOT": {"uri": root_uri}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": True}],
            "results": [_result(f, index[f.rule]) for f in report.findings],
        }],
    }
