"""`kb report`: the migration checklist, filled in from what kb already knows.

The migration guides end with a checklist — device handling in one place? hand-written
kernels? every op covered, and which fall back to the CPU? numerics on par? what does a
million tokens cost? is anything out of support before the next upgrade cycle? — and
each item has a kb answer: `kb audit` (the code base), `kb check` (the model on the
target), `kb parity --json`, `kb cost --file`, `kb eol`. This module turns those
answers (plain dicts and kb objects, gathered by the CLI) into one document
(`build_report`) and renders it as Markdown or as one self-contained HTML file (inline
CSS, inline SVG charts drawn here, no script, nothing fetched).

Each checklist item has a state: ``pass``, ``warn``, ``fail``, ``info`` (no verdict,
figures only) or ``skipped`` (its input was not given).
"""

from __future__ import annotations

import math
from datetime import date
from typing import Any

from kb import neutral
from kb.migrate.audit_findings import AuditReport, Severity

STATES = ("pass", "warn", "unverified", "fail", "info", "skipped")
STATUS_ORDER = ("native", "decomposed", "fallback", "unsupported", "unknown")
STATUS_COLOURS = {"native": "#2e7d32", "decomposed": "#00838f", "fallback": "#f9a825",
                  "unsupported": "#c62828", "unknown": "#9e9e9e"}

# Audit rules per checklist question.
DEVICE_RULES = ("cuda-method-call", "cuda-device-string", "cuda-tensor-check", "torch-cuda-api", "cuda-amp",
                "nccl-backend")
KERNEL_RULES = ("triton-kernel", "cuda-kernel-source", "cuda-extension-build")
KERNEL_HINT_RULES = ("triton-import",)
# `import apex` is a CUDA-only dependency too: kb audit grades it high, so the report may not pass it
DEPENDENCY_RULES = ("cuda-only-dependency", "cuda-only-import", "cuda-build-pin", "cuda-base-image")


def _item(key: str, title: str, state: str, summary: str, details: list[str] | None = None) -> dict:
    return {"key": key, "title": title, "state": state, "summary": summary, "details": details or []}


def _files(findings) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.path] = counts.get(f.path, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def device_item(audit: AuditReport | None) -> dict:
    """Device handling is centralised when the CUDA device choices sit in one file
    (one place to change); spread over many files is the costly case. Findings graded
    low by kb audit (tests, export scripts) do not count."""
    title = "Device selection centralised"
    if audit is None:
        return _item("device", title, "skipped", "no code base given (kb report PATH)")
    found = [f for f in audit.findings if f.rule in DEVICE_RULES and f.severity >= Severity.MEDIUM]
    files = _files(found)
    # the lines themselves (each names its file), so "N lines" and the details agree
    details = [f"{f.location} [{f.severity.label}] {f.message}" for f in found]
    if not found:
        return _item("device", title, "pass", f"no hard-coded CUDA device handling in {audit.files_scanned} file(s)")
    counted = _findings_on_lines(found)
    if len(files) == 1:
        return _item("device", title, "warn",
                     f"{counted}, all in {next(iter(files))}: change them there", details)
    return _item("device", title, "fail",
                 f"{counted} spread over {len(files)} files: centralise the device choice first", details)


def _findings_on_lines(found) -> str:
    """`7 CUDA-specific device finding(s) on 5 line(s)`: a line can hold two findings, and the
    details list one per finding, so both counts are said (report t26b item 5)."""
    lines = len({(f.path, f.cell, f.line) for f in found})
    head = f"{len(found)} CUDA-specific device finding(s)"
    return head if lines == len(found) else f"{head} on {lines} line(s)"


def kernels_item(audit: AuditReport | None) -> dict:
    title = "No hand-written CUDA/Triton kernels"
    if audit is None:
        return _item("kernels", title, "skipped", "no code base given")
    kernels = [f for f in audit.findings if f.rule in KERNEL_RULES]
    hints = [f for f in audit.findings if f.rule in KERNEL_HINT_RULES and f.severity >= Severity.MEDIUM]
    details = [f"{f.location} {f.message}" for f in kernels + hints]
    if kernels:
        return _item("kernels", title, "fail", f"{len(kernels)} kernel(s) or CUDA extension(s) to port or replace "
                     f"in {len(_files(kernels))} file(s)", details)
    if hints:
        return _item("kernels", title, "warn", f"Triton is imported in {len(_files(hints))} file(s) but no kernel "
                     "was found", details)
    return _item("kernels", title, "pass", "no Triton or CUDA C++ kernels")


def dependencies_item(audit: AuditReport | None) -> dict:
    title = "No CUDA-only dependencies"
    if audit is None:
        return _item("dependencies", title, "skipped", "no code base given")
    found = [f for f in audit.findings if f.rule in DEPENDENCY_RULES and f.severity >= Severity.MEDIUM]
    if found:
        return _item("dependencies", title, "fail", f"{len(found)} CUDA-only dependency, import or build pin(s)",
                     [f"{f.location} {f.message}" for f in found])
    return _item("dependencies", title, "pass", "no CUDA-only packages, build pins or base images")


def coverage_item(check: dict | None) -> dict:
    title = "Every op runs on the target"
    if check is None:
        return _item("coverage", title, "skipped", "no model given (--model)")
    summary = check["summary"]
    by_status = summary["ops_by_status"]
    version = f" {check['backend_version']}" if check.get("backend_version") else ""
    head = (f"{summary['distinct_ops']} distinct ops, {summary['call_sites']} call sites on "
            f"{check['target']}{version}: {summary['on_device_call_sites_pct']}% of call sites native or decomposed")
    problems = [op for op in check["ops"] if op["status"] in ("fallback", "unsupported", "unknown")]
    details = [f"{op['op']} — {op['status']} ({op['count']} call(s))"
               + (f", {op['fallback_calls']} host round trip(s)" if op.get("fallback_calls") else "")
               for op in problems]
    eager = check.get("eager") or {}
    if eager.get("transitions"):
        details.append(f"eager mode: {eager['transitions']} device↔host transitions in {eager['fallback_runs']} "
                       f"stretch(es)")
    details += [f"warning: {w}" for w in check.get("warnings", [])]
    from kb.vocab import INFO_CAVEAT_KINDS

    field_issues = [c for c in check.get("caveats", []) if c["kind"] not in INFO_CAVEAT_KINDS]
    if by_status.get("unsupported"):
        state = "fail"
    elif by_status.get("unknown"):  # missing data is not good news: amber, "not verified"
        state = "unverified"
        head += f"; {by_status['unknown']} op(s) unknown: not verified"
    elif by_status.get("fallback") or field_issues:
        state = "warn"
    else:
        state = "pass"
    return _item("coverage", title, state, head, details)


def parity_item(parity: dict | None) -> dict:
    title = "Numerical parity with the reference"
    if parity is None:
        return _item("parity", title, "skipped", "no parity result given (--parity from kb parity --json)")
    points = parity.get("points", [])
    worst = max((math.inf if p.get("max_abs") is None else p["max_abs"] for p in points if not p.get("error")),
                default=0.0)
    trend = parity.get("trend") or {}
    head = (f"{parity.get('device')} vs {parity.get('ref')}, {len(points)} size(s), "
            f"max abs difference {worst:.3g}")
    details = [f"{p['label']}: max abs {_num(p['max_abs'])}, max rel {_num(p['max_rel'])} — "
               + ("pass" if p["passed"] else f"FAIL{': ' + p['error'] if p.get('error') else ''}") for p in points]
    if trend.get("reason"):
        details.append(f"trend: {trend['reason']}")
    if not parity.get("passed"):
        return _item("parity", title, "fail", head + f"; failed at {', '.join(parity.get('failed_points', []))}",
                     details)
    if trend.get("grows"):
        return _item("parity", title, "warn", head + "; the error grows with the input size", details)
    return _item("parity", title, "pass", head, details)


def cost_item(costs: list[dict] | None) -> dict:
    title = "Cost per million tokens"
    if not costs:
        return _item("cost", title, "skipped", "no cost targets given (--cost costs.toml, as kb cost --file reads)")
    first = costs[0]
    head = f"cheapest: {first['target']} at {first['cost_per_million_tokens']:.4g} {first['currency']} per 1M tokens"
    details = [f"{c['target']}: {c['cost_per_million_tokens']:.4g} {c['currency']} per 1M tokens"
               + (f" (×{c['ratio_to_cheapest']:.2f})" if c.get("ratio_to_cheapest") else "")
               + f" — {c['price_per_hour']:g} {c['currency']}/h, {c['tokens_per_second']:,.0f} tokens/s"
               for c in costs]
    return _item("cost", title, "info", head, details)


def eol_item(eol: dict | None) -> dict:
    """Fail when a part of the stack is out of support, or leaves support, on or before the
    next upgrade cycle; warn on pending ends and maintenance-only support."""
    title = "Supported until the next upgrade cycle"
    if eol is None:
        return _item("eol", title, "skipped", "no KB end-of-support data for the target")
    cycle = eol["next_cycle"]
    before, soft = [], []
    for w in eol["warnings"]:
        ends = w.get("eol_from")
        if w.get("is_eol") or (ends and ends <= cycle) or w.get("kind") == "incompatible":
            before.append(w)
        elif w.get("severity") == "warning":
            soft.append(w)
    details = [f"{w['message']}" + (f" [source: {w['source_url']}]" if w.get("source_url") else "")
               for w in before + soft]
    if before:
        return _item("eol", title, "fail", f"{len(before)} part(s) out of support by {cycle}", details)
    if soft:
        return _item("eol", title, "warn", f"nothing ends before {cycle}; {len(soft)} to watch", details)
    if not any(w.get("eol_from") or w.get("is_eol") for w in eol["warnings"]):
        return _item("eol", title, "unverified", "no dated support window found for this stack: not verified",
                     details)
    return _item("eol", title, "pass", f"nothing ends before {cycle}", details)


def _per_target(item: dict, target: str, several: bool) -> dict:
    """An item about one target, named for it when the report has several targets."""
    if several:
        item["key"] = f"{item['key']}-{target}"
        item["title"] = (f"Every op runs on {target}" if item["key"].startswith("coverage")
                         else f"{item['title']} on {target}")
    return item


def build_report(*, target: str | None = None, audit: AuditReport | None = None, check: dict | None = None,
                 parity: dict | None = None, costs: list[dict] | None = None, eol: dict | None = None,
                 title: str | None = None, generated: str | None = None, targets: list[str] | None = None,
                 checks: list[dict] | None = None, eols: list[dict | None] | None = None,
                 train: bool = False) -> dict:
    """The report document: the checklist items, and the inputs they came from. Several
    targets (`targets`, with `checks` and `eols` in the same order) get a coverage item and
    an end-of-support item each, and their ops side by side; `coverage` and `eol` stay the
    first target's (one-target readers keep working), `coverages` and `eols` hold them all."""
    targets = list(targets or [target])
    checks = list(checks) if checks is not None else ([check] if check is not None else [])
    eols = list(eols) if eols is not None else [eol]
    several = len(targets) > 1
    per_check = {c["target"]: c for c in checks}
    per_eol = dict(zip(targets, eols + [None] * (len(targets) - len(eols))))
    items = [device_item(audit), kernels_item(audit), dependencies_item(audit)]
    items += [_per_target(coverage_item(per_check.get(t)), t, several) for t in targets]
    items += [parity_item(parity), cost_item(costs)]
    items += [_per_target(eol_item(per_eol[t]), t, several) for t in targets]
    counts = {state: sum(1 for i in items if i["state"] == state) for state in STATES}
    coverages = [_coverage(per_check[t]) for t in targets if t in per_check]
    return {
        "title": title or f"Migration report: {', '.join(targets)}" + (" (training)" if train else ""),
        "target": targets[0],
        "targets": targets,
        "train": train,
        "generated": generated or date.today().isoformat(),
        "checklist": items,
        "counts": counts,
        "ready": counts["fail"] == 0,
        "verified": counts["unverified"] == 0,
        "audit": audit.as_dict()["summary"] | {"root": audit.root, "by_rule": audit.by_rule()} if audit else None,
        "coverage": coverages[0] if coverages else None,
        "coverages": coverages,
        "parity": parity,
        "costs": costs,
        "eol": per_eol[targets[0]],
        "eols": [dict(per_eol[t], target=t) if per_eol[t] else None for t in targets],
    }


def _coverage(check: dict | None) -> dict | None:
    if check is None:
        return None
    return {"model": check["model"], "target": check["target"], "backend_version": check.get("backend_version"),
            "mode": check.get("mode"), "train": bool(check.get("train")), "summary": check["summary"],
            "ops": [{"op": op["op"], "status": op["status"], "count": op["count"],
                     "via": [leaf["op"] + ("" if leaf["status"] == "native" else f" ({leaf['status']})")
                             for leaf in op.get("via", [])]} for op in check["ops"]],
            # known issues measured in public that the model's call sites trigger (kb.check.warnings)
            "caveats": [{k: c.get(k) for k in ("op", "kind", "trigger", "calls", "where", "statement", "figure",
                                               "workaround", "source_url")} for c in check.get("caveats", [])]}


# --- Markdown ------------------------------------------------------------------------

_MARK = {"pass": "✅ pass", "warn": "⚠️ warn", "unverified": "🟠 not verified", "fail": "❌ fail", "info": "ℹ️ info",
         "skipped": "— skipped"}


def headline(doc: dict) -> str:
    """"no blocker found" only when every item rests on data; otherwise say what is missing."""
    c = doc["counts"]
    if not doc["ready"]:
        return f"{c['fail']} blocker(s) to fix first"
    if c.get("unverified"):
        return f"no blocker found, but not verified: {c['unverified']} item(s) lack data"
    return "no blocker found"


def _tally(c: dict) -> str:
    return (f"{c['pass']} pass, {c['warn']} warn, " + (f"{c['unverified']} not verified, " if c.get("unverified") else "")
            + f"{c['fail']} fail, {c['skipped']} skipped")


def _md(text: Any) -> str:
    """A value in markdown: one line, HTML and markdown escaped (kb.neutral)."""
    return neutral.markdown(text)


def render_markdown(doc: dict) -> str:
    c = doc["counts"]
    out = [f"# {_md(doc['title'])}", "",
           f"Generated {doc['generated']} by kb. {_tally(c)} — **{headline(doc)}**.", "",
           "## Checklist", "", "| | item | summary |", "|---|---|---|"]
    out += [f"| {_MARK[i['state']]} | {_md(i['title'])} | {_md(i['summary'])} |" for i in doc["checklist"]]
    out.append("")
    for item in doc["checklist"]:
        if not item["details"]:
            continue
        out += [f"### {_md(item['title'])}", ""]
        out += [f"- {_md(d)}" for d in item["details"]]
        out.append("")
    cov = doc["coverage"]
    if len(doc.get("coverages") or []) > 1:
        out += _side_by_side_markdown(doc["coverages"])
    elif cov:
        out += [f"## Op coverage on {_md(cov['target'])}", "", "| status | ops | call sites |", "|---|---:|---:|"]
        s = cov["summary"]
        for status in STATUS_ORDER:
            out.append(f"| {status} | {s['ops_by_status'].get(status, 0)} | {s['call_sites_by_status'].get(status, 0)} |")
        out += ["", "| op | status | calls | via |", "|---|---|---:|---|"]
        out += [f"| {neutral.markdown_code(op['op'])} | {_md(op['status'])} | {op['count']} | {_md(', '.join(op['via']))} |"
                for op in cov["ops"]]
        out.append("")
    if doc["costs"]:
        out += ["## Cost per million tokens", "", "| target | per 1M tokens | × cheapest | price/hour | tokens/s |",
                "|---|---:|---:|---:|---:|"]
        for cst in doc["costs"]:
            ratio = f"{cst['ratio_to_cheapest']:.2f}" if cst.get("ratio_to_cheapest") else ""
            out.append(f"| {_md(cst['target'])} | {cst['cost_per_million_tokens']:.4g} {cst['currency']} | {ratio} | "
                       f"{cst['price_per_hour']:g} | {cst['tokens_per_second']:,.0f} |")
        out.append("")
    return "\n".join(out) + "\n"


def side_by_side(coverages: list[dict]) -> list[dict]:
    """One row per op of the model (in the first report's order), its status on each target."""
    rows: dict[str, dict] = {}
    for cov in coverages:
        for op in cov["ops"]:
            row = rows.setdefault(op["op"], {"op": op["op"], "count": op["count"], "status": {}})
            row["status"][cov["target"]] = op["status"]
    return list(rows.values())


def _version(cov: dict) -> str:
    return f"{cov['target']} {cov['backend_version']}" if cov.get("backend_version") else cov["target"]


def _side_by_side_markdown(coverages: list[dict]) -> list[str]:
    names = [_md(_version(c)) for c in coverages]
    phase = " (training: forward and backward)" if coverages[0].get("train") else ""
    out = [f"## Op coverage on {', '.join(names)}{phase}", "",
           "| status | " + " | ".join(f"{n} ops | {n} call sites" for n in names) + " |",
           "|---|" + "---:|---:|" * len(names)]
    for status in STATUS_ORDER:
        cells = [f"{c['summary']['ops_by_status'].get(status, 0)} | {c['summary']['call_sites_by_status'].get(status, 0)}"
                 for c in coverages]
        out.append(f"| {status} | " + " | ".join(cells) + " |")
    out += ["", "| op | calls | " + " | ".join(names) + " |", "|---|---:|" + "---|" * len(names)]
    for row in side_by_side(coverages):
        cells = [_md(row["status"].get(c["target"], "")) for c in coverages]
        out.append(f"| {neutral.markdown_code(row['op'])} | {row['count']} | " + " | ".join(cells) + " |")
    out.append("")
    return out


# --- HTML ------------------------------------------------------------------------------


def _num(value: Any) -> str:
    """A difference as the report shows it; null (infinite: shapes differ) as ∞."""
    return "∞" if value is None else f"{value:.3g}"


def _e(text: Any) -> str:
    """A value in HTML: controls shown visibly, escaped quotes included (kb.neutral)."""
    return neutral.html(text)


def coverage_chart(summary: dict, width: int = 560) -> str:
    """Horizontal bars: distinct ops per status, call sites in the label. Inline SVG."""
    ops, sites = summary["ops_by_status"], summary["call_sites_by_status"]
    most = max([ops.get(s, 0) for s in STATUS_ORDER] + [1])
    bar_left, bar_room, row = 110, width - 110 - 150, 30
    height = row * len(STATUS_ORDER) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" aria-label="Op coverage by status">',
             f'<title>Op coverage by status: {_e(", ".join(f"{s} {ops.get(s, 0)}" for s in STATUS_ORDER))}</title>']
    for index, status in enumerate(STATUS_ORDER):
        y = 10 + index * row
        n = ops.get(status, 0)
        length = 0 if n == 0 else max(2, round(bar_room * n / most))
        parts.append(f'<text x="{bar_left - 8}" y="{y + 17}" text-anchor="end" class="label">{status}</text>')
        parts.append(f'<rect x="{bar_left}" y="{y + 4}" width="{bar_room}" height="18" class="track"/>')
        parts.append(f'<rect x="{bar_left}" y="{y + 4}" width="{length}" height="18" fill="{STATUS_COLOURS[status]}" '
                     f'data-status="{status}" data-ops="{n}"><title>{status}: {n} ops</title></rect>')
        parts.append(f'<text x="{bar_left + bar_room + 8}" y="{y + 17}" class="value">{n} ops · '
                     f'{sites.get(status, 0)} calls</text>')
    parts.append("</svg>")
    return "".join(parts)


def parity_chart(parity: dict, width: int = 560, height: int = 220) -> str:
    """Max abs difference against input size, both on log scales. Inline SVG."""
    points = [(p["size"], p["max_abs"]) for p in parity.get("points", [])
              if not p.get("error") and p.get("max_abs") is not None]
    if len(points) < 2:
        return ""
    left, right, top, bottom = 70, 20, 15, 40
    xs = [math.log10(s) for s, _ in points]
    floor = min([e for _, e in points if e > 0] or [1e-12]) / 10
    ys = [math.log10(max(e, floor)) for _, e in points]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if y1 - y0 < 1:
        y0, y1 = y0 - 0.5, y1 + 0.5

    def px(x):
        return left + (x - x0) / ((x1 - x0) or 1) * (width - left - right)

    def py(y):
        return top + (1 - (y - y0) / (y1 - y0)) * (height - top - bottom)

    colour = "#c62828" if (parity.get("trend") or {}).get("grows") else "#2e7d32"
    line = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" aria-label="Parity error by input size">',
             "<title>Max abs difference by input size (log-log)</title>",
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" class="axis"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" class="axis"/>',
             f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>']
    for (size, err), x, y in zip(points, xs, ys):
        parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" fill="{colour}"><title>{size} elements: '
                     f'{err:.3g}</title></circle>')
        parts.append(f'<text x="{px(x):.1f}" y="{height - bottom + 16}" text-anchor="middle" class="tick">{size}</text>')
    parts.append(f'<text x="{left - 6}" y="{py(y1) + 4:.1f}" text-anchor="end" class="tick">{10 ** y1:.0e}</text>')
    parts.append(f'<text x="{left - 6}" y="{py(y0) + 4:.1f}" text-anchor="end" class="tick">{10 ** y0:.0e}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 6}" text-anchor="middle" class="label">'
                 "input elements (log)</text>")
    parts.append("</svg>")
    return "".join(parts)


CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;margin:0;background:#f5f6f8}
main{max-width:1080px;margin:0 auto;padding:24px 32px 48px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 10px;border-bottom:1px solid #d8dce3;padding-bottom:4px}
.sub{color:#5b6372;margin:0 0 18px}
.verdict{display:inline-block;padding:3px 10px;border-radius:12px;font-weight:600}
.verdict.ok{background:#e3f3e6;color:#1b5e20}.verdict.blocked{background:#fde4e4;color:#8e1c1c}
table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 1px 2px rgba(0,0,0,.06)}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid #eceef2;vertical-align:top}
th{background:#eef0f4;font-weight:600;font-size:13px;text-transform:uppercase;letter-spacing:.03em;color:#4a5262}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.state{font-weight:700;white-space:nowrap;border-radius:4px;padding:2px 8px;font-size:13px}
.state.pass{background:#e3f3e6;color:#1b5e20}.state.warn{background:#fff4d6;color:#7a5300}
.state.fail{background:#fde4e4;color:#8e1c1c}.state.info{background:#e3eefc;color:#134a8e}
.state.skipped{background:#eceef2;color:#5b6372}.state.unverified{background:#ffe7cc;color:#8a4b00}
.verdict.unverified{color:#8a4b00}
details{margin:4px 0 0}summary{cursor:pointer;color:#36507a}
ul.details{margin:6px 0 0 18px;padding:0;font-size:13px;color:#3a4150}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eef0f4;padding:1px 4px;border-radius:3px}
.chart{background:#fff;border:1px solid #e1e4ea;border-radius:6px;margin:6px 0}
.chart .label{font-size:13px;fill:#3a4150}.chart .value,.chart .tick{font-size:12px;fill:#5b6372}
.chart .track{fill:#f0f2f5}.chart .axis{stroke:#9aa1ad;stroke-width:1}
.status{font-weight:600}.status.native{color:#2e7d32}.status.decomposed{color:#00838f}
.status.fallback{color:#a66f00}.status.unsupported{color:#c62828}.status.unknown{color:#757575}
footer{margin-top:36px;color:#7a8191;font-size:12px}
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts figure{margin:0}
.charts figcaption{font-size:13px;color:#4a5262;margin:6px 0 0}
"""

_SYMBOL = {"pass": "✔ pass", "warn": "! warn", "unverified": "? not verified", "fail": "✘ fail", "info": "i info",
           "skipped": "– skipped"}


def _targets_html(doc: dict) -> str:
    targets = doc.get("targets") or [doc["target"]]
    label = "targets" if len(targets) > 1 else "target"
    return f"{label} " + ", ".join(f"<code>{_e(t)}</code>" for t in targets) + (" · training" if doc.get("train") else "")


def _side_by_side_html(coverages: list[dict]) -> str:
    """The coverage section for several targets: a chart per target, then one table with
    each op's status on every target (as `kb check -t A -t B` shows it)."""
    first = coverages[0]
    phase = ", training" if first.get("train") else ""
    parts = [f'<section id="coverage"><h2>Op coverage on {_e(", ".join(_version(c) for c in coverages))} '
             f'({_e(first.get("mode") or "eager")}{phase})</h2>',
             f"<p>Model <code>{_e(first['model'])}</code>: {first['summary']['distinct_ops']} distinct ops, "
             f"{first['summary']['call_sites']} call sites.</p>", '<div class="charts">']
    for cov in coverages:
        parts.append(f'<figure data-target="{_e(cov["target"])}"><figcaption>{_e(_version(cov))}: '
                     f'{cov["summary"]["on_device_call_sites_pct"]}% of call sites native or decomposed</figcaption>'
                     f'{coverage_chart(cov["summary"], width=460 if len(coverages) == 2 else 560)}</figure>')
    parts.append("</div>")
    head = "".join(f"<th>{_e(c['target'])}</th>" for c in coverages)
    parts.append(f'<table class="ops side-by-side"><thead><tr><th>op</th><th class="num">calls</th>{head}</tr></thead><tbody>')
    for row in side_by_side(coverages):
        cells = "".join(f'<td class="status {_e(row["status"].get(c["target"], ""))}">'
                        f'{_e(row["status"].get(c["target"], ""))}</td>' for c in coverages)
        parts.append(f"<tr><td><code>{_e(row['op'])}</code></td><td class=\"num\">{row['count']}</td>{cells}</tr>")
    parts.append("</tbody></table></section>")
    return "".join(parts)


def render_html(doc: dict) -> str:
    """One self-contained page: inline CSS, inline SVG, no script, no external resource."""
    c = doc["counts"]
    kind = "blocked" if not doc["ready"] else ("unverified" if c.get("unverified") else "ok")
    verdict = f'<span class="verdict {kind}">{_e(headline(doc))}</span>'
    body = [f"<h1>{_e(doc['title'])}</h1>",
            f'<p class="sub">Generated {_e(doc["generated"])} by kb · {_targets_html(doc)} · '
            f"{_tally(c)} · {verdict}</p>",
            '<section id="checklist"><h2>Checklist</h2>',
            '<table class="checklist"><thead><tr><th>state</th><th>item</th><th>summary</th></tr></thead><tbody>']
    for item in doc["checklist"]:
        details = ""
        if item["details"]:
            lis = "".join(f"<li>{_e(d)}</li>" for d in item["details"][:30])
            more = len(item["details"]) - 30
            if more > 0:
                lis += f"<li>… {more} more</li>"
            details = f'<details><summary>{len(item["details"])} detail(s)</summary><ul class="details">{lis}</ul></details>'
        body.append(f'<tr id="item-{_e(item["key"])}" data-state="{_e(item["state"])}">'
                    f'<td><span class="state {_e(item["state"])}">{_e(_SYMBOL[item["state"]])}</span></td>'
                    f"<td>{_e(item['title'])}</td><td>{_e(item['summary'])}{details}</td></tr>")
    body.append("</tbody></table></section>")
    cov = doc["coverage"]
    if len(doc.get("coverages") or []) > 1:
        body.append(_side_by_side_html(doc["coverages"]))
    elif cov:
        version = f" {cov['backend_version']}" if cov.get("backend_version") else ""
        body.append(f'<section id="coverage"><h2>Op coverage on {_e(cov["target"])}{_e(version)} '
                    f'({_e(cov.get("mode") or "eager")}{", training" if cov.get("train") else ""})</h2>')
        body.append(f"<p>Model <code>{_e(cov['model'])}</code>: {cov['summary']['distinct_ops']} distinct ops, "
                    f"{cov['summary']['call_sites']} call sites.</p>")
        body.append(coverage_chart(cov["summary"]))
        body.append('<table class="ops"><thead><tr><th>op</th><th>status</th><th class="num">calls</th><th>via</th></tr></thead><tbody>')
        for op in cov["ops"]:
            body.append(f"<tr><td><code>{_e(op['op'])}</code></td>"
                        f'<td class="status {_e(op["status"])}">{_e(op["status"])}</td>'
                        f'<td class="num">{op["count"]}</td><td>{_e(", ".join(op["via"][:8]))}</td></tr>')
        body.append("</tbody></table></section>")
    parity = doc["parity"]
    if parity:
        body.append(f'<section id="parity"><h2>Parity: {_e(parity.get("device"))} vs {_e(parity.get("ref"))}</h2>')
        trend = parity.get("trend") or {}
        if trend.get("reason"):
            body.append(f"<p>{'<strong>Error grows with size.</strong> ' if trend.get('grows') else ''}"
                        f"{_e(trend['reason'])}</p>")
        body.append(parity_chart(parity))
        body.append('<table class="parity"><thead><tr><th>size</th><th class="num">max abs</th><th class="num">max rel</th><th>result</th>'
                    "</tr></thead><tbody>")
        for p in parity.get("points", []):
            state = "pass" if p["passed"] else "fail"
            body.append(f"<tr><td>{_e(p['label'])}</td><td class=\"num\">{_num(p['max_abs'])}</td>"
                        f"<td class=\"num\">{_num(p['max_rel'])}</td><td><span class=\"state {state}\">"
                        f"{_e(_SYMBOL[state])}</span> {_e(p.get('error') or '')}</td></tr>")
        body.append("</tbody></table></section>")
    if doc["costs"]:
        body.append('<section id="cost"><h2>Cost per million tokens</h2>')
        body.append('<table class="cost"><thead><tr><th>target</th><th class="num">per 1M tokens</th><th class="num">× cheapest</th>'
                    "<th class=\"num\">price/hour</th><th class=\"num\">tokens/s</th><th>note</th></tr></thead><tbody>")
        for cst in doc["costs"]:
            ratio = f"{cst['ratio_to_cheapest']:.2f}" if cst.get("ratio_to_cheapest") else ""
            body.append(f"<tr><td>{_e(cst['target'])}</td><td class=\"num\">{cst['cost_per_million_tokens']:.4g} "
                        f"{_e(cst['currency'])}</td><td class=\"num\">{ratio}</td>"
                        f"<td class=\"num\">{cst['price_per_hour']:g}</td>"
                        f"<td class=\"num\">{cst['tokens_per_second']:,.0f}</td><td>{_e(cst.get('note', ''))}</td></tr>")
        body.append("</tbody></table></section>")
    several = len(doc.get("targets") or []) > 1
    for eol in (doc.get("eols") or [doc["eol"]]):
        if not eol or not eol["warnings"]:
            continue
        on = f" on {_e(eol['target'])}" if several and eol.get("target") else ""
        anchor = f"eol-{_e(eol['target'])}" if several and eol.get("target") else "eol"
        body.append(f'<section id="{anchor}"><h2>End of support{on} (next cycle {_e(eol["next_cycle"])})</h2>')
        body.append('<table class="eol"><thead><tr><th>severity</th><th>what</th><th>ends</th><th>source</th>'
                    "</tr></thead><tbody>")
        for w in eol["warnings"]:
            url = w.get("source_url")
            link = neutral.html_link(url or "")  # an http(s) URL is a link; anything else, text
            body.append(f"<tr><td>{_e(w['severity'])}</td><td>{_e(w['message'])}</td>"
                        f"<td>{_e(w.get('eol_from') or '')}</td><td>{link}</td></tr>")
        body.append("</tbody></table></section>")
    audit = doc["audit"]
    if audit:
        body.append('<section id="audit"><h2>Code audit</h2>')
        rules = ", ".join(f"{rule} {n}" for rule, n in audit["by_rule"].items()) or "no findings"
        body.append(f"<p><code>{_e(audit['root'])}</code>: {audit['files_scanned']} file(s), {audit['findings']} "
                    f"finding(s) — {audit['high']} high, {audit['medium']} medium, {audit['low']} low. "
                    f"By rule: {_e(rules)}.</p></section>")
    body.append("<footer>kb report · sources: kb audit, kb check, kb parity, kb cost, kb eol</footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_e(doc['title'])}</title>"
            f"<style>{CSS}</style></head><body><main>\n" + "\n".join(body) + "\n</main></body></html>\n")
