"""A check's reports as text: the summary lines, the cells of its op table, and the markdown
document (a PR comment, a job summary). The CLI's table, `kb check --format markdown` and the
Python API's `report.to_markdown()` are all written from these, so they say the same thing.

Nothing here prints; values from the model file stay raw until a renderer passes them
through kb.neutral for its format.
"""

from __future__ import annotations

from typing import Any

from kb import neutral
from kb.vocab import SEVERITY, UNKNOWN

LEGEND = ("legend: ✔ native (its own kernel) · ◐ decomposed (PyTorch splits it into ops that run) · "
          "⇄ fallback (runs on the host CPU) · ✘ unsupported · ? unknown (no evidence yet)")
COLUMNS = ("op", "count", "status", "via", "dtypes", "modules", "source")


def short(op: str) -> str:
    return op[len("aten::"):] if op.startswith("aten::") else op


def via_text(op: Any, limit: int = 6) -> str:
    """Leaves, problem ones first and with their status; the rest as a count."""
    leaves = sorted(op.via, key=lambda leaf: -SEVERITY[leaf.status])
    parts = [short(leaf.op) + ("" if leaf.status == "native" else f" ({leaf.status})") for leaf in leaves]
    more = len(parts) - limit
    return ", ".join(parts[:limit]) + (f" +{more} more" if more > 0 else "")


def paths_text(paths: list[str], limit: int = 3) -> str:
    more = len(paths) - limit
    return ", ".join(paths[:limit]) + (f" +{more} more" if more > 0 else "")


def source_text(op: Any) -> str:
    from kb.store.provenance import describe
    from kb.vocab import BASIS_MARKS

    basis = getattr(op, "basis", None)
    mark = f"{basis} {BASIS_MARKS[basis]} · " if basis in ("inferred", "presumed", "doc rule") else ""
    if getattr(op, "local_report", None):
        return mark + describe(op.local_report)
    if basis == "doc rule" and op.reason:  # the rule says why: show its summary beside its URL
        return f"{mark}{op.reason} · {op.source_url or op.source_kind}"
    if op.source_url:
        return f"{mark}{op.source_kind}: {op.source_url}"
    return mark + (op.source_kind or (op.reason or ""))


MARKED_BASES = ("doc rule", "inferred", "presumed")


def basis_mark(op: Any) -> str:
    """The mark of what `op`'s verdict rests on (ᵖ presumed, ⁱ inferred, ʳ doc rule, ˡ a local
    report; "" for evidence): a table with no source column (several targets side by side)
    carries it on the status cell, so no verdict shows without its basis."""
    from kb.vocab import BASIS_MARKS, LOCAL_MARK

    basis = getattr(op, "basis", None)
    mark = BASIS_MARKS[basis] if basis in MARKED_BASES else ""
    return mark + (LOCAL_MARK if getattr(op, "local_report", None) else "")


def basis_legend(reports: list[Any]) -> str | None:
    """The legend's part that explains the basis marks, when any op of `reports` carries one."""
    from kb.vocab import BASIS_LEGEND

    if any(basis_mark(op) for report in reports for op in report.ops):
        return f"basis: {BASIS_LEGEND}; unmarked = evidence for that version"
    return None


def row(op: Any, *, allowed_mark: bool = True) -> list[Any]:
    """One op's cells, in COLUMNS order (raw: the renderer makes them safe for its format)."""
    return [op.op, op.count, op.status, via_text(op), ", ".join(op.dtypes), paths_text(op.module_paths),
            source_text(op) + (" [allowed]" if op.allowed and allowed_mark else "")
            + (f" [waived: {op.waiver['reason']}]" if getattr(op, "waiver", None) else "")]


def byte_size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def summary_lines(report: Any, suggest: bool = False) -> list[str]:
    """The verdict sentence, then the summary, cost, compile, assessment, note and warning lines."""
    from kb.check import assess_text

    s = report.summary()
    version = f" {report.backend_version}" if report.backend_version else ""
    by_status = ", ".join(f"{k} {v}" for k, v in s["ops_by_status"].items())
    lines = [
        f"{report.model} ({report.model_kind}) on {report.target}{version}, {report.mode} mode: "
        f"{s['distinct_ops']:,} distinct ops, {s['call_sites']:,} call sites, "  # 1,157 as stderr writes counts
        f"{s['native_call_sites_pct']}% of call sites native ({s['on_device_call_sites_pct']}% native or decomposed)",
        f"  ops by status: {by_status or 'none'}",
    ]
    if report.eager is not None:
        e = report.eager
        lines.append(
            f"  CPU fallback: {e['fallback_calls']} calls, {e['transitions']} device↔host transitions "
            f"in {e['fallback_runs']} stretches, {byte_size(e['bytes_copied'])} copied"
        )
    if report.compile is not None:
        lines.append(assess_text.compile_line(report))
    lines.extend(assess_text.lines(report, suggest))
    lines.extend(f"  note: {n}" for n in report.notes)
    lines.extend(f"  warning: {w}" for w in report.warnings)
    return ([assess_text.clean(f"verdict: {report.verdict}")] if report.verdict else []) + lines


def settle_command(reports: list[Any]) -> str | None:
    """The command that would give the unknown ATen ops a verdict: a static probe of the
    target's backend (its dispatch table names every op it has a kernel for), run where the
    backend is installed and ingested into the KB. Custom ops are settled by the factory
    route instead (their reason says so)."""
    from kb.probe.backends import BACKENDS

    commands = []
    for report in reports:
        if not any(op.status == UNKNOWN and op.op.startswith("aten::") for op in report.ops):
            continue
        backend = next((b for b in BACKENDS.values() if b.target == report.target), None)
        if backend is not None:
            commands.append(f"kb probe --static --backend {backend.name} --out {report.target}-static.jsonl --ingest"
                            + (f" (where {backend.module} is installed)" if backend.module else ""))
    return "; ".join(commands) or None


def closing_lines(reports: list[Any]) -> list[str]:
    """The legend, then (where ops are unknown) how to settle them."""
    marks = basis_legend(reports)
    lines = [f"{LEGEND}; {marks}" if marks else LEGEND]  # one legend: statuses, then the basis marks (when a cell carries one)
    command = settle_command(reports)
    if command:
        lines.append(f"unknown ops: settle them with {command}, then check again")
    return lines


def gate_name(gate: dict) -> str | None:
    parts = ([f"--fail-on {gate['fail_on']}"] if gate.get("fail_on") else []) + (
        ["--fail-on-unknown"] if gate.get("fail_on_unknown") else [])
    return " ".join(parts) or None


def finding_text(finding: dict) -> str:
    """One gate finding for the gate's line: op, status, target, and an expired waiver's date."""
    expired = f", waiver expired {finding['waiver_expired']}" if finding.get("waiver_expired") else ""
    return f"{finding['op']} ({finding['status']} on {finding['target']}{expired})"


def markdown(reports: list[Any], gate: dict, suggest: bool = False) -> str:
    """Markdown for a PR comment. Every value from the model file or the KB goes through
    kb.neutral (one line, HTML and markdown escaped; op names as code spans), so no value
    can end a row, open a link or forge the gate's line."""
    md = neutral.markdown
    out = []
    for report in reports:
        out.append(f"### {md(report.target)}{' ' + md(report.backend_version) if report.backend_version else ''} "
                   f"({md(report.mode)})\n")
        if report.verdict:
            out.append(f"**{md(report.verdict)}**\n")
        out.extend(f"{md(line.strip())}  " for line in summary_lines(report, suggest)[1 if report.verdict else 0:])
        out.append("")
        out.append("| " + " | ".join(COLUMNS) + " |")
        out.append("|---|---:|---|---|---|---|---|")
        for op in report.ops:
            cells = row(op, allowed_mark=False)
            cells = [neutral.markdown_code(cells[0]), str(cells[1]), md(f"{cells[2]}{basis_mark(op)}"),
                     *(md(c) for c in cells[3:])]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    from kb.check.project_config import waiver_lines

    out.extend(f"{md(line)}  " for line in waiver_lines(gate))
    if gate_name(gate):
        verdict = f"failed, {len(gate['failing'])} findings" if gate["failed"] else "passed"
        out.append(f"**Gate `{gate_name(gate)}`: {verdict}**\n")
    out.extend(f"{md(line)}  " for line in closing_lines(reports))
    return "\n".join(out) + "\n"
