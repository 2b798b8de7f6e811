"""Machine-readable `kb check` reports for CI: SARIF 2.1.0 (code scanning) and JUnit XML.

Both count exactly the gate's findings (`kb.check.gate.evaluate`): SARIF lists them at
level error/warning and the other problem ops as notes; JUnit fails them and lists every
other op as a passing test case, so a CI dashboard shows coverage, not only failures.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import kb
from kb import neutral

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_RULES = {
    "decomposed": ("warning", "PyTorch decomposes this op into others that run on the device."),
    "fallback": ("warning", "Runs through the backend's CPU fallback: tensors go to the host and back."),
    "unknown": ("warning", "No evidence for this op on this target."),
    "unsupported": ("error", "The backend raises for this op."),
    "crash": ("error", "This op crashed the device runtime in a live probe."),
    "timeout": ("error", "This op hung in a live probe."),
}
# Listed as notes even when the gate does not trip on them: worth seeing in code scanning.
_ALWAYS_LISTED = ("fallback", "unknown", "unsupported", "crash", "timeout")


def failing_keys(gate: dict) -> set[tuple[str, str]]:
    """(target, op) of every finding the gate counted: the formats count exactly these."""
    return {(f["target"], f["op"]) for f in gate.get("failing", [])}


def _message(report, op) -> str:
    where = ", ".join(op.module_paths[:3]) or "unknown module"
    via = f" via {', '.join(leaf.op for leaf in op.via if leaf.status != 'native')}" if op.via else ""
    why = f" ({op.reason})" if op.reason else ""
    return f"{op.op} is {op.status}{via} on {report.target} {report.mode}: {op.count} call(s) in {where}{why}"


def artifact_uri(report) -> str:
    """The SARIF location of a report's model: its path as a URI reference (percent-encoded,
    `:` too, so `model.py:build` is no scheme), or `memory:NAME` for a model checked in
    memory, which is in no file."""
    from urllib.parse import quote

    if getattr(report, "in_memory", False):
        return "memory:" + quote(str(report.model), safe="")
    return quote(str(report.model).replace("\\", "/"), safe="/")


def sarif(reports, gate: dict) -> dict:
    """One SARIF run; one result per problem op per target, located in the model file and
    (logically) in its modules. Results at level error/warning are the gate's findings,
    one for one; the other problem ops are notes. Texts a viewer shows (messages, module
names) are neutral (kb.neutral.terminal); properties keep the data as read."""
    failing = failing_keys(gate)
    results = []
    used_rules: dict[str, dict] = {}
    for report in reports:
        for op in report.ops:
            counted = (report.target, op.op) in failing
            if op.status not in _RULES or op.allowed or not (counted or op.status in _ALWAYS_LISTED):
                continue
            level = _RULES[op.status][0] if counted else "note"
            rule_id = f"kb/{op.status}"
            used_rules[rule_id] = {"id": rule_id, "name": op.status, "shortDescription": {"text": _RULES[op.status][1]},
                                   "defaultConfiguration": {"level": _RULES[op.status][0]}}
            results.append({
                "ruleId": rule_id,
                "level": level,
                "message": {"text": neutral.terminal(_message(report, op))},
                "locations": [{
                    "physicalLocation": {"artifactLocation": {"uri": artifact_uri(report)}},
                    "logicalLocations": [{"name": neutral.terminal(path), "kind": "module"} for path in op.module_paths[:10]],
                }],
                "properties": {"op": op.op, "target": report.target, "mode": report.mode, "count": op.count,
                               "backendVersion": report.backend_version, "source": op.source_url or op.source_kind,
                               "gateFinding": counted},
            })
        for hazard in _compile_failures(report):
            level = _hazard_level(report, gate)
            used_rules["kb/compile-failure"] = {
                "id": "kb/compile-failure", "name": "compile-failure",
                "shortDescription": {"text": "torch.compile fails on this call (a data-dependent size on a target "
                                             "that compiles static shapes only)."},
                "defaultConfiguration": {"level": "warning"}}
            text = (f"{hazard['op']} on {report.target}: {hazard['effect']} ({hazard['calls']} call(s)"
                    f"{' in ' + hazard['module'] if hazard.get('module') else ''}). Fix: {hazard['fix']}")
            results.append({
                "ruleId": "kb/compile-failure", "level": level, "message": {"text": neutral.terminal(text)},
                "locations": [{
                    "physicalLocation": {"artifactLocation": {"uri": artifact_uri(report)}},
                    "logicalLocations": ([{"name": neutral.terminal(hazard["module"]), "kind": "module"}]
                                         if hazard.get("module") else []),
                }],
                "properties": {"op": hazard["op"], "target": report.target, "mode": hazard["mode"],
                               "kind": hazard["kind"], "count": hazard["calls"], "source": hazard["source"],
                               "backendVersion": report.backend_version, "gateFinding": False},
            })
        for finding in gate.get("failing", []):
            if finding["target"] != report.target or not finding.get("waiver_expired"):
                continue
            if any(r["properties"].get("gateFinding") and r["properties"].get("op") == finding["op"]
                   and r["properties"].get("target") == report.target for r in results):
                continue  # the op is a finding of its own already; its expired waiver is in the gate's line
            used_rules["kb/expired-waiver"] = {
                "id": "kb/expired-waiver", "name": "expired-waiver",
                "shortDescription": {"text": "A [tool.kb] waiver of an op this model uses has expired."},
                "defaultConfiguration": {"level": "error"}}
            text = (f"{finding['op']} on {report.target} ({finding['status']}): its waiver expired "
                    f"{finding['waiver_expired']} — {finding.get('waiver_reason', '')}")
            results.append({
                "ruleId": "kb/expired-waiver", "level": "error", "message": {"text": neutral.terminal(text)},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(report)}}}],
                "properties": {"op": finding["op"], "target": report.target, "mode": report.mode,
                               "expired": finding["waiver_expired"], "gateFinding": True}})
        for text in report.warnings:
            used_rules["kb/warning"] = {"id": "kb/warning", "name": "warning",
                                        "shortDescription": {"text": "A known limitation or end-of-support notice."},
                                        "defaultConfiguration": {"level": "note"}}
            results.append({"ruleId": "kb/warning", "level": "note", "message": {"text": neutral.terminal(text)},
                            "locations": [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(report)}}}],
                            "properties": {"target": report.target, "mode": report.mode}})
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kb", "version": kb.__version__, "rules": list(used_rules.values())}},
            "results": results,
            "properties": {"kbAssessment": [_assessment(r) for r in reports]},
        }],
    }


def merge_sarif(documents: list[dict]) -> dict:
    """One SARIF run from several `sarif()` documents (one per checked file): code scanning
    takes one run per tool and category, so the results go together, rules once each."""
    if not documents:
        return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
            "tool": {"driver": {"name": "kb", "version": kb.__version__, "rules": []}}, "results": [],
            "properties": {"kbAssessment": []}}]}
    rules: dict[str, dict] = {}
    results: list[dict] = []
    assessment: list = []
    for doc in documents:
        run = doc["runs"][0]
        for rule in run["tool"]["driver"]["rules"]:
            rules.setdefault(rule["id"], rule)
        results.extend(run["results"])
        assessment.extend(run.get("properties", {}).get("kbAssessment", []))
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "kb", "version": kb.__version__, "rules": list(rules.values())}},
        "results": results, "properties": {"kbAssessment": assessment}}]}


def _compile_failures(report) -> list[dict]:
    return [h for h in report.hazards if h["mode"] == "compile" and h["effect"].startswith("compile failure")]


def _hazard_level(report, gate: dict) -> str:
    """error where the report is a compile-mode check and the gate stops at unsupported ops
    (a call that cannot compile is as bad as one the backend rejects); warning otherwise.
    The gate's exit status counts ops, not hazards: gateFinding stays false."""
    from kb.vocab import trips

    if report.mode == "compile" and trips("unsupported", gate.get("fail_on"), False):
        return "error"
    return "warning"


def _assessment(report) -> dict:
    from kb.check.assess_text import fields

    return fields(report)


def junit(reports, gate: dict) -> str:
    """A testsuite per target, a testcase per op; the gate's findings fail, nothing else.
    Every value goes through kb.neutral.xml: XML 1.0 has no way to carry most control
    characters, even escaped, so one in an op name would make the whole file unreadable."""
    failing = failing_keys(gate)
    expired_waivers = {(f["target"], f["op"]): f for f in gate.get("failing", []) if f.get("waiver_expired")}
    x = neutral.xml
    suites = ET.Element("testsuites", name="kb check")
    for report in reports:
        failures = [op for op in report.ops if (report.target, op.op) in failing]
        suite = ET.SubElement(suites, "testsuite", name=x(f"kb check {report.target} {report.mode}"),
                              tests=str(len(report.ops)), failures=str(len(failures)), errors="0", skipped="0")
        for op in report.ops:
            case = ET.SubElement(suite, "testcase", classname=x(f"{report.target}.{report.mode}"), name=x(op.op))
            if (report.target, op.op) in failing:
                expired = expired_waivers.get((report.target, op.op))
                why = f"; its waiver expired {expired['waiver_expired']}" if expired else ""
                failure = ET.SubElement(case, "failure", message=x(f"{op.status} on {report.target}{why}"),
                                        type=x("expired-waiver" if expired and op.status in ("native", "decomposed")
                                               else op.status))
                failure.text = x(_message(report, op) + (f" — waiver expired {expired['waiver_expired']}: "
                                                         f"{expired.get('waiver_reason', '')}" if expired else ""))
            elif op.status not in ("native", "decomposed"):
                ET.SubElement(case, "system-out").text = x(_message(report, op)) + " (not gated)"
        properties = ET.Element("properties")
        suite.insert(0, properties)  # JUnit's schema puts properties before the test cases
        for key, value in _assessment(report).items():
            ET.SubElement(properties, "property", name=x(key), value="" if value is None else x(str(value)))
        if report.warnings:
            ET.SubElement(suite, "system-out").text = "\n".join(f"warning: {x(w)}" for w in report.warnings)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
