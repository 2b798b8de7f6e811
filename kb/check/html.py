"""A check result as an HTML fragment (`CheckResult._repr_html_`, what a notebook shows):
per target the verdict sentence and the op table of `kb check` and `kb serve`'s saved
checks, statuses as symbol + word coloured as kb serve colours them.

Every string passes through kb.neutral.html (op and module names come from the model file),
links are http(s) only, and the colours are inline styles as well as kb serve's CSS classes,
so the table reads the same where a notebook strips style sheets.
"""

from __future__ import annotations

from typing import Any

from kb import neutral
from kb.vocab import SYMBOLS, UNKNOWN

# The colours of data/datasette/static/kb.css (a test keeps the two the same).
STATUS_COLOURS = {
    "native": ("#d8f3dc", "#1b4332"),
    "decomposed": ("#e0f0ff", "#0b3d91"),
    "fallback": ("#fff3c4", "#7a5200"),
    "unsupported": ("#fde2e1", "#8a1c15"),
    "crash": ("#fde2e1", "#8a1c15"),
    "timeout": ("#fde2e1", "#8a1c15"),
    "unknown": ("#eeeeee", "#555555"),
    "other": ("#f4f4f4", "#333333"),
}
_CELL = "border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top"


def status_span(status: str) -> str:
    """`⇄ fallback` in its colours; an unknown word as itself, escaped."""
    known = status in STATUS_COLOURS and status != "other"
    key = status if known else "other"
    background, colour = STATUS_COLOURS[key]
    label = f"{SYMBOLS.get(status, '?')} {status}" if known else f"· {status}"
    return (f'<span class="kb-status kb-{key}" style="background:{background};color:{colour};'
            f'padding:0 0.3em;border-radius:3px;white-space:nowrap">{neutral.html(label)}</span>')


def _source_cell(op: Any) -> str:
    """The source as `kb check` writes it, the URL a link when it is http(s)."""
    from kb.check.text import source_text

    text = source_text(op) + (" [allowed]" if op.allowed else "")
    url = getattr(op, "source_url", None)
    if url and neutral.safe_url(url) and url in text:
        before, _, after = text.partition(url)
        return neutral.html(before) + neutral.html_link(url) + neutral.html(after)
    return neutral.html(text)


def report_html(report: Any) -> str:
    """One target: heading, verdict, summary lines, the op table."""
    from kb.check.text import COLUMNS, basis_mark, row, summary_lines

    head = f"{report.target} {report.backend_version or ''} ({report.mode})".replace("  ", " ")
    lines = summary_lines(report)
    out = [f"<h4>{neutral.html(head)}</h4>"]
    if report.verdict:
        out.append(f"<p><strong>{neutral.html(lines[0])}</strong></p>")
        lines = lines[1:]
    out.append("<ul>" + "".join(f"<li>{neutral.html(line.strip())}</li>" for line in lines) + "</ul>")
    out.append('<table class="kb-check-ops" style="border-collapse:collapse">')
    out.append("<thead><tr>" + "".join(f'<th style="{_CELL}">{neutral.html(c)}</th>' for c in COLUMNS)
               + "</tr></thead><tbody>")
    for op in report.ops:
        cells = row(op)
        shown = [f"<code>{neutral.html(cells[0])}</code>", neutral.html(cells[1]), status_span(op.status or UNKNOWN) + neutral.html(basis_mark(op)),
                 *(neutral.html(c) for c in cells[3:6]), _source_cell(op)]
        out.append("<tr>" + "".join(f'<td style="{_CELL}">{cell}</td>' for cell in shown) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def result_html(result: Any, gate: dict | None = None) -> str:
    """The whole result: each target's report, the gate (when one is set), the legend."""
    from kb.check.text import closing_lines, gate_name

    gate = gate if gate is not None else result.gate()
    title = f"kb check: {result.model} ({result.model_kind}{', train' if result.train else ''})"
    out = [f'<div class="kb-check"><p><strong>{neutral.html(title)}</strong></p>']
    out.extend(report_html(report) for report in result.reports)
    name = gate_name(gate)
    if name:
        verdict = f"FAILED, {len(gate['failing'])} findings" if gate["failed"] else "passed"
        out.append(f"<p><strong>{neutral.html(f'gate {name}: {verdict}')}</strong></p>")
    out.extend(f'<p class="kb-legend" style="font-size:0.9em">{neutral.html(line)}</p>'
               for line in closing_lines(result.reports))
    out.append("</div>")
    return "\n".join(out)
