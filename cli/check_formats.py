"""Machine-readable `kb check` reports for CI: SARIF 2.1.0 (code scanning) and JUnit XML.

Both list the problems (ops that are not native or decomposed); JUnit also lists the
fine ops as passing test cases, so a CI dashboard shows coverage, not only failures.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import kb
from kb.vocab import SEVERITY

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_RULES = {
    "fallback": ("warning", "Runs through the backend's CPU fallback: tensors go to the host and back."),
    "unknown": ("note", "No evidence for this op on this target."),
    "unsupported": ("error", "The backend raises for this op."),
    "crash": ("error", "This op crashed the device runtime in a live probe."),
    "timeout": ("error", "This op hung in a live probe."),
}


def _problem(op, fail_on: str | None) -> bool:
    threshold = SEVERITY[fail_on] if fail_on else SEVERITY["fallback"]
    return SEVERITY[op.status] >= threshold and not op.allowed


def _message(report, op) -> str:
    where = ", ".join(op.module_paths[:3]) or "unknown module"
    via = f" via {', '.join(leaf.op for leaf in op.via if leaf.status != 'native')}" if op.via else ""
    why = f" ({op.reason})" if op.reason else ""
    return f"{op.op} is {op.status}{via} on {report.target} {report.mode}: {op.count} call(s) in {where}{why}"


def sarif(reports, fail_on: str | None) -> dict:
    """One SARIF run; one result per problem op per target, located in the model file and
    (logically) in its modules."""
    results = []
    used_rules: dict[str, dict] = {}
    for report in reports:
        for op in report.ops:
            if op.status not in _RULES or op.allowed:
                continue
            level, text = _RULES[op.status]
            if fail_on is not None and not _problem(op, fail_on):
                level = "note"
            rule_id = f"kb/{op.status}"
            used_rules[rule_id] = {"id": rule_id, "name": op.status, "shortDescription": {"text": text},
                                   "defaultConfiguration": {"level": _RULES[op.status][0]}}
            results.append({
                "ruleId": rule_id,
                "level": level,
                "message": {"text": _message(report, op)},
                "locations": [{
                    "physicalLocation": {"artifactLocation": {"uri": report.model}},
                    "logicalLocations": [{"name": path, "kind": "module"} for path in op.module_paths[:10]],
                }],
                "properties": {"op": op.op, "target": report.target, "mode": report.mode, "count": op.count,
                               "backendVersion": report.backend_version, "source": op.source_url or op.source_kind},
            })
        for text in report.warnings:
            used_rules["kb/warning"] = {"id": "kb/warning", "name": "warning",
                                        "shortDescription": {"text": "A known limitation or end-of-support notice."},
                                        "defaultConfiguration": {"level": "warning"}}
            results.append({"ruleId": "kb/warning", "level": "warning", "message": {"text": text},
                            "locations": [{"physicalLocation": {"artifactLocation": {"uri": report.model}}}],
                            "properties": {"target": report.target, "mode": report.mode}})
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kb", "version": kb.__version__, "rules": list(used_rules.values())}},
            "results": results,
        }],
    }


def junit(reports, fail_on: str | None) -> str:
    """A testsuite per target, a testcase per op; problem ops fail."""
    suites = ET.Element("testsuites", name="kb check")
    for report in reports:
        failures = [op for op in report.ops if _problem(op, fail_on)]
        suite = ET.SubElement(suites, "testsuite", name=f"kb check {report.target} {report.mode}",
                              tests=str(len(report.ops)), failures=str(len(failures)), errors="0", skipped="0")
        for op in report.ops:
            case = ET.SubElement(suite, "testcase", classname=f"{report.target}.{report.mode}", name=op.op)
            if _problem(op, fail_on):
                failure = ET.SubElement(case, "failure", message=f"{op.status} on {report.target}", type=op.status)
                failure.text = _message(report, op)
        if report.warnings:
            ET.SubElement(suite, "system-out").text = "\n".join(f"warning: {w}" for w in report.warnings)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
