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
    works = {site.index: work.site_work(site) for site in traced.sites}
    accounting = work.account(traced.sites, {i: _where(s) for i, s in statuses.items()}, works)
    by_op = {op.op: op for op in report.ops}
    for site in traced.sites:
        entry = by_op.get(site.op)
        if entry is not None:
            entry.flops += works[site.index].flops
            entry.bytes += works[site.index].nbytes
    eager = report.eager or eager_cost(traced.sites, per_site)
    model = hostcost.cost_model(cost_overrides)
    # The hazards of the report's mode (eager reports also warn what compile would do), so
    # that every format counts the same list.
    modes = ("eager", "compile") if report.mode == "eager" else (report.mode,)
    report.hazards = [h for mode in modes for h in hz.find(traced, report.target, mode)]
    # A host sync (`.item()`, a data-dependent size) is one more wait on the device — unless
    # the op already runs on the host, where its fallback's transitions count that wait.
    syncs = sum(1 for i in hz.sync_sites(traced) if _where(statuses.get(i, "")) != "host")
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
            if flops:
                share = f"{_pct(work_.get('host_flops', 0) / flops)} of FLOPs"
                if work_.get("flops_partial"):  # the MoE experts' FLOPs are not in `flops`
                    n = len(work_.get("flops_uncounted") or [])
                    share += f" counted; FLOPs of {n} op{'s' if n != 1 else ''} not counted"
            else:  # nothing counted by FLOPs: the byte share says how much
                nbytes = work_.get("bytes") or 0
                share = f"no FLOPs counted, {_pct(work_.get('host_bytes', 0) / nbytes if nbytes else 0)} of bytes"
            parts.append(f"{len(fallback)} op{'s' if len(fallback) != 1 else ''} on the host "
                         f"({share}; {hostcost.range_text(report.estimated_host_ms)} per step)")
        by_status = Counter(op.status for op in other)
        # "except 2 unsupported ops", not "except 2 unsupported" (r11 q52 read it as garbled)
        parts.extend(f"{n} {status} op{'s' if n != 1 else ''}" for status, n in sorted(by_status.items()))
        body = "runs on the device except " + ", ".join(parts)
    clause = "torch.compile: " + compile_outcome(report, compiled)["text"]
    sentence = f"{head}: {body}; {clause}"
    if report.suggestions:
        ids = {s["id"] for s in report.suggestions}
        sentence += f" — {len(ids)} suggested rewrite{'s' if len(ids) != 1 else ''}"
        after = report.after_rewrites or {}
        if after.get("rewritten_calls") and after.get("fallback_calls_before"):
            n = after["fallback_calls_after"]
            sentence += f" (after them: {n} fallback call{'s' if n != 1 else ''})"
    return sentence


def compile_outcome(report, compiled: dict | None) -> dict:
    """What torch.compile does, from the op verdicts and the compile hazards together, so that
    the verdict sentence and the compile line agree: state is fails / breaks / unknown /
    recompiles / clean, text the clause after "torch.compile: "."""
    compiled = compiled or {}
    hazards = [h for h in report.hazards if h["mode"] == "compile"]
    blockers = hz.compile_blockers(hazards)
    breaks = [h for h in hazards if h["effect"].startswith("graph break")]
    recompiles = [h for h in hazards if h["kind"] == "dynamic_dim"]
    failing = [o["op"] for o in compiled.get("ops", []) if o["effect"] == "compile error"]
    unknown = [o["op"] for o in compiled.get("ops", []) if o["effect"].startswith("unknown")]
    n_breaks = compiled.get("graph_breaks", 0) + sum(h["calls"] for h in breaks)
    if failing:
        state, text = "fails", f"fails at {failing[0]}"
    elif blockers:
        state, text = "fails", f"fails at {blockers[0]['op']} ({blockers[0]['kind'].replace('_', ' ')})"
    elif n_breaks:
        state, text = "breaks", f"{n_breaks} graph break{'s' if n_breaks != 1 else ''}"
    elif unknown:
        state, text = "unknown", "unknown"
    elif recompiles:
        state, text = "recompiles", "compiles"
    else:
        state, text = "clean", "no known blocker"
    if unknown:
        more = f" +{len(unknown) - 1} more" if len(unknown) > 1 else ""
        text += (f"{'' if state == 'unknown' else ';'} no evidence for {unknown[0]}{more} under compile on "
                 f"{report.target} (a compile-mode probe on the device, or one compile run, would settle it)")
    if recompiles:
        first = recompiles[0]
        where = first.get("module") or first.get("symbol")
        text += f", recompiles for every new size of {where}"
    return {"state": state, "text": text, "failing_ops": failing, "blockers": len(blockers),
            "graph_breaks": n_breaks, "unknown_ops": unknown, "recompiles": len(recompiles)}
