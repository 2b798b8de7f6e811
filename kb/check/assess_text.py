"""Rendering of kb.check.assess's answers (work on the device, host-cost estimate, hazards,
suggestions, the verdict sentence) for `kb check`'s table, markdown, SARIF and JUnit outputs.

Every format shows the same numbers: `fields(report)` is what SARIF and JUnit carry, and
what the text lines are written from; JSON has the report's own fields.
"""

from __future__ import annotations

from kb.check import hostcost

MAX_LISTED = 12


def clean(text: str) -> str:
    """Op names, module paths and tensor names come from the model file: no control character
    (terminal escape, line break) reaches the output from them, each shown in its visible form
    (\\x1b), as the op table shows it (kb.neutral.clean)."""
    from kb import neutral

    return neutral.clean(text)


def fields(report) -> dict:
    """The assessment of one report, flat, for machine-readable formats."""
    ms = report.estimated_host_ms or {}
    after = report.after_rewrites or {}
    return {
        "target": report.target,
        "verdict": report.verdict,
        "device_flop_share": report.device_flop_share,
        "flops_partial": bool((report.work or {}).get("flops_partial")),
        "device_byte_share": report.device_byte_share,
        "host_flops": report.host_flops,
        "estimated_host_ms_low": ms.get("low"),
        "estimated_host_ms_high": ms.get("high"),
        "estimate_note": hostcost.DISCLAIMER,
        "hazards": len(report.hazards),
        "hazards_eager": sum(1 for h in report.hazards if h["mode"] == "eager"),
        "hazards_compile": sum(1 for h in report.hazards if h["mode"] == "compile"),
        "suggestions": len(report.suggestions),
        "fallback_calls_after_rewrites": after.get("fallback_calls_after"),
    }


def _pct(value) -> str:
    return "?" if value is None else f"{100 * value:.2f}".rstrip("0").rstrip(".") + "%"


def _where(entry: dict) -> str:
    return f" in {entry['module']}" if entry.get("module") else ""


def _short(op: str | None) -> str:
    if not op:
        return ""
    return op[len("aten::"):] if op.startswith("aten::") else op


def _dim(hazard: dict) -> str:
    """A dynamic dimension by where the user put it (`input x dim 0`); the export's symbol
    (`s77`) and range in brackets — a .pt2 archive keeps no Dim name to show instead."""
    where = hazard.get("module")
    inner = f"{hazard.get('symbol')}, {hazard.get('range')}"
    return f"{where} ({inner})" if where else inner


def compile_line(report) -> str:
    """The compile summary: the ops' compile effects and the compile hazards, counted the way
    the verdict sentence counts them (kb.check.assess.compile_outcome)."""
    from kb.check.assess import compile_outcome

    compiled = report.compile or {}
    outcome = compile_outcome(report, compiled)
    hazards = [h for h in report.hazards if h["mode"] == "compile"]
    if not compiled.get("ops") and not hazards:
        return "  compile: no op or hazard breaks or fails the graph"
    text = f"  compile: {outcome['text']}"
    if compiled.get("ops"):
        text += "; ops: " + ", ".join(f"{_short(o['op'])} ({o['effect']})" for o in compiled["ops"][:8])
    if hazards:
        text += f"; {len(hazards)} compile hazard{'s' if len(hazards) != 1 else ''} (below)"
    return clean(text)


def lines(report, suggest: bool = False) -> list[str]:
    """Text lines under the report's summary (the verdict sentence goes first, separately)."""
    out = []
    work = report.work or {}
    if work:
        by_bytes = work.get("counted_by_bytes") or []
        listed = ", ".join(_short(o) for o in by_bytes[:6]) + (f" +{len(by_bytes) - 6} more" if len(by_bytes) > 6 else "")
        flops = (f"{_pct(report.device_flop_share)} of FLOPs and " if report.device_flop_share is not None
                 else "no FLOPs counted (bytes only); ")
        if work.get("flops_partial") and report.device_flop_share is not None:
            uncounted = work.get("flops_uncounted") or []
            flops = (f"{_pct(report.device_flop_share)}* of the counted FLOPs (* FLOPs of {len(uncounted)} "
                     f"op{'s' if len(uncounted) != 1 else ''} not counted: {', '.join(_short(o) for o in uncounted[:3])}) "
                     "and ")
        out.append(f"  work: {flops}{_pct(report.device_byte_share)} of bytes "
                   f"on the device; {work.get('host_flops', 0):,} FLOPs on the host"
                   + (f" (counted by bytes only: {listed})" if listed else ""))
    ms = report.estimated_host_ms
    if ms is not None:
        params = (report.cost_model or {}).get("parameters") or {}
        shown = "; ".join(f"{p['name']} {p['low']:g}–{p['high']:g} {p['unit']}" for p in params.values())
        out.append(f"  host cost per step: {hostcost.range_text(ms)} — {hostcost.DISCLAIMER} "
                   f"({shown}; sources in --json cost_model; override with --cost-latency-us / --cost-link-gbps / "
                   f"--cost-host-gflops)")
    hazards = report.hazards  # those of the report's mode, as --json, SARIF and JUnit count them
    for hazard in hazards[:MAX_LISTED]:
        what = _short(hazard["op"]) or _dim(hazard)
        where = "" if not hazard["op"] else _where(hazard)
        out.append(f"  hazard ({hazard['mode']}, {hazard['kind'].replace('_', ' ')}): {what}{where} — "
                   f"{hazard['effect']}. Fix: {hazard['fix']} [source: {hazard['source']}]")
    if len(hazards) > MAX_LISTED:
        out.append(f"  … {len(hazards) - MAX_LISTED} more hazards (--json)")
    if report.suggestions and not suggest:
        n = len({s["id"] for s in report.suggestions})
        out.append(f"  {n} suggested rewrite{'s' if n != 1 else ''}: kb check --suggest shows them at the call sites")
    if suggest:
        for entry in report.suggestions[:MAX_LISTED]:
            tool = ((" (kb fix --approximate applies it)" if entry.get("approximate") else " (kb fix applies it)")
                    if entry.get("mechanical") else "")
            out.append(f"  suggest: {_short(entry['op'])}{_where(entry)}, {entry['calls']} call(s): {entry['rewrite']} — "
                       f"{entry['effect']}; parity: {entry['parity']}{tool} [source: {entry['source']}]")
        after = report.after_rewrites or {}
        if report.suggestions:
            left = ", ".join(_short(o) for o in after.get("problem_ops_after", [])[:6]) or "none"
            out.append(f"  after {after.get('rewrites', 0)} rewrite{'s' if after.get('rewrites') != 1 else ''}: "
                       f"{after.get('fallback_calls_after', 0)} fallback calls (from {after.get('fallback_calls_before', 0)}); "
                       f"problem ops left: {left}")
        else:
            out.append("  suggest: no fix-it in kb's library matches this model's calls")
    return [clean(line) for line in out]
