"""The answers after the op list, for one report: how much of the work stays on the chip,
what the fallbacks cost per step (an estimate, with its cost model), what torch.compile
will do, which rewrites would help and what remains after them — and one sentence
that says all of it.

Called by kb.check.resolve.check once the ops are resolved; everything here reads the
graph's shapes and the KB's verdicts only, so a .pt2 check stays free of torch.
"""

from __future__ import annotations

from collections import Counter

from kb.check import fixits as fx
from kb.check import hazards as hz
from kb.check import hostcost, work
from kb.check.callsites import TracedModel

PROBLEMS = ("fallback", "unsupported", "crash", "timeout", "unknown")


def _where(status: str) -> str:
    if status in work.ON_DEVICE:
        return "device"
    if status == "fallback":
        return "host"
    return "unresolved"


def annotate(report, traced: TracedModel, per_site: dict, lookup, *, cost_overrides: dict | None = None) -> None:
    """Fill the report's work, estimate, hazards, suggestions and verdict fields."""
    from kb.check.resolve import compile_effects, eager_cost

    statuses = {site.index: per_site[site.index].status for site in traced.sites}
    accounting = work.account(traced.sites, {i: _where(s) for i, s in statuses.items()})
    eager = report.eager or eager_cost(traced.sites, per_site)
    model = hostcost.cost_model(cost_overrides)
    report.hazards = [h for mode in ("eager", "compile") for h in hz.find(traced, report.target, mode)]
    # A host sync (`.item()`, a data-dependent size) is one more wait on the device.
    syncs = sum(h["calls"] for h in report.hazards if h["mode"] == "eager")
    estimate = hostcost.estimate(eager["transitions"] + syncs, eager["bytes_copied"], accounting["host_flops"], model)
    estimate["inputs"]["host_syncs"] = syncs
    report.work = accounting
    report.device_flop_share = accounting["device_flop_share"]
    report.device_byte_share = accounting["device_byte_share"]
    report.host_flops = accounting["host_flops"]
    report.estimated_host_ms = {"low": estimate["low"], "high": estimate["high"], "terms_ms": estimate["terms_ms"],
                                "inputs": estimate["inputs"], "note": hostcost.DISCLAIMER}
    report.cost_model = hostcost.describe(model)
    report.suggestions, applied = fx.suggest(traced.sites, report.target)
    after = fx.after_rewrites(traced.sites, statuses, applied, lookup)
    after.pop("statuses_after")
    report.after_rewrites = after
    compiled = report.compile or compile_effects(report.target, traced.sites, per_site)
    report.verdict = verdict_sentence(report, compiled)


def _basis(report) -> str | None:
    """What the verdicts rest on when that is not evidence: presumed when any op is, inferred
    when most are."""
    if any(op.basis == "presumed" for op in report.ops):
        return "presumed"
    inferred = sum(1 for op in report.ops if op.basis == "inferred")
    return "inferred" if inferred * 2 > len(report.ops) else None


def _pct(value: float) -> str:
    if value == 0:
        return "0%"
    if value < 0.0001:
        return "<0.01%"
    return f"{100 * value:.2f}".rstrip("0").rstrip(".") + "%"


def verdict_sentence(report, compiled: dict) -> str:
    """One line per target: where the model runs, what the host part costs, what compile does."""
    head = report.target + (f" {report.backend_version}" if report.backend_version else "")
    basis = _basis(report)
    head += f" ({basis})" if basis else ""
    problems = [op for op in report.ops if op.status in PROBLEMS]
    fallback = [op for op in problems if op.status == "fallback"]
    other = [op for op in problems if op.status != "fallback"]
    work_ = report.work or {}
    flops = work_.get("flops") or 0
    if not problems:
        body = f"runs on the device (all {len(report.ops)} ops)"
    else:
        parts = []
        if fallback:
            host_share = (work_.get("host_flops", 0) / flops) if flops else 0.0
            parts.append(f"{len(fallback)} op{'s' if len(fallback) != 1 else ''} on the host "
                         f"({_pct(host_share)} of FLOPs; {hostcost.range_text(report.estimated_host_ms)} per step)")
        by_status = Counter(op.status for op in other)
        parts.extend(f"{n} {status}" for status, n in sorted(by_status.items()))
        body = "runs on the device except " + ", ".join(parts)
    blockers = hz.compile_blockers([h for h in report.hazards if h["mode"] == "compile"])
    recompiles = [h for h in report.hazards if h["mode"] == "compile" and h["kind"] == "dynamic_dim"]
    breaks = [h for h in report.hazards if h["mode"] == "compile" and h["effect"].startswith("graph break")]
    if compiled.get("fails"):
        first = next(o["op"] for o in compiled["ops"] if o["effect"] == "compile error")
        clause = f"torch.compile: fails at {first}"
    elif blockers:
        clause = f"torch.compile: fails at {blockers[0]['op']} ({blockers[0]['kind'].replace('_', ' ')})"
    elif compiled.get("graph_breaks") or breaks:
        n = compiled.get("graph_breaks", 0) + sum(h["calls"] for h in breaks)
        clause = f"torch.compile: {n} graph break{'s' if n != 1 else ''}"
    else:
        clause = "torch.compile: no known blocker"
    if recompiles:
        clause += f", recompiles per new size of {recompiles[0].get('module') or recompiles[0].get('symbol')}"
    sentence = f"{head}: {body}; {clause}"
    if report.suggestions:
        ids = {s["id"] for s in report.suggestions}
        sentence += f" — {len(ids)} suggested rewrite{'s' if len(ids) != 1 else ''}"
        after = report.after_rewrites or {}
        if after.get("rewritten_calls") and after.get("fallback_calls_before"):
            n = after["fallback_calls_after"]
            sentence += f" (after them: {n} fallback call{'s' if n != 1 else ''})"
    return sentence
