"""`kb eol`: when the parts of a Neuron / TorchTPU / PyTorch / Python / Ubuntu stack reach
end of support. Parses arguments, asks kb.eol.windows, renders; exit 1 when a gate trips."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from cli.options import DbOption, JsonOption
from cli.render import emit_json, footer, note, table
from kb.eol.windows import ENDING_DAYS


def _source(w: dict[str, Any]) -> str:
    from kb.store.provenance import describe

    if w.get("local_report"):
        return describe(w["local_report"])
    # whole: a long URL moves to the table's footnotes on a line of its own, never cut (a cut
    # URL opens nothing)
    return w.get("source_url") or w.get("source_name") or ""


def _eol_cell(w: dict[str, Any]) -> str:
    if w["eol_from"]:
        return w["eol_from"]
    if w["eol_pending"]:
        known = w.get("release_known_as_of")
        return (f"with {w['eol_release_product'] or ''} {w['eol_release']} "
                f"({'not known as of ' + known if known else 'no such release known'})").replace("neuron-sdk", "Neuron")
    return "no date stated"


def product_title(w: dict[str, Any]) -> str:
    """"Python — as the Neuron SDK supports it": someone else's product says whose support it is."""
    label = w.get("product_label") or w["product"]
    if w.get("support_by") == "upstream":
        return f"{label} — its own end of life"
    return f"{label} — as the {w['support_by']} supports it" if w.get("support_by") else label


def _windows_table(windows: list[dict[str, Any]], title: str | None = None) -> None:
    """One row per cycle, endoflife.date style: state, resolved date, how long ago / until."""
    with_support_end = any(w["support_end"] for w in windows)
    rows = []
    with_whose = any(w.get("support_by") for w in windows)
    for w in windows:
        row = [w["product"], w["cycle"], f"{_STATE_MARK[w['support_state']]} {w['support_state']}", _eol_cell(w),
               w["relative"], w["state"]]
        if with_whose:
            row.insert(2, _whose(w))
        if with_support_end:
            row.append(w["support_end"] or "")
        rows.append([*row, _source(w)])
    columns = ["product", "cycle", "state", "end of support", "when", "how known"]
    if with_whose:
        columns.insert(2, "whose support")
    if with_support_end:
        columns.append("active support ends")
    table([*columns, "source"], rows, title=title, status_column=None)
    # whose dates they are and the state legend: under the table on stdout, as every table's
    # legend (stderr keeps to notices: `kb eol` printed six lines there)
    vendors: dict[str, set[str]] = {}
    for w in windows:
        if w.get("support_by") not in (None, "upstream"):
            vendors.setdefault(w["support_by"], set()).add(w.get("product_label") or w["product"])
    for vendor, labels in sorted(vendors.items()):
        them = "them, not their own" if len(labels) > 1 else "it, not its own"
        footer(f"dates of {', '.join(sorted(labels))}: the {vendor}'s support for {them} end of life")
    if any(w.get("support_by") == "upstream" for w in windows):
        footer("whose support 'upstream': the product's own end of life, as its maintainers publish it")
    footer(f"state: ✔ supported · ◐ ending (within {ENDING_DAYS} days, pending a release, or maintenance only) · ✘ ended · ? no end stated")


def _whose(w: dict[str, Any]) -> str:
    """Whose support a row is: the product's own maintainers (upstream) or a vendor's."""
    by = w.get("support_by")
    return "upstream (own end of life)" if by == "upstream" else (by or "")


_STATE_MARK = {"supported": "✔", "ending": "◐", "ended": "✘", "unknown": "?"}


def _history_tables(windows: list[dict[str, Any]]) -> None:
    for w in windows:
        rows = [["*" if s["current"] else "", s["statement_date"] or "", s["eol"] or "", s["eol_kind"] or "",
                 s["eol_release"] or "", s["support_end"] or "", s["retrieved_at"] or "", s["source_url"] or ""]
                for s in w["history"]]
        table(["now", "stated", "eol", "kind", "ends with", "support end", "retrieved", "source"], rows,
              title=f"{w['product']} {w['cycle']}: {len(w['history'])} statement(s)", status_column=None)


def _stack_view(result: dict[str, Any]) -> None:
    """The stack's answer on stdout (its headline, table, findings and what was checked: results,
    not notices); stderr keeps to how a part was read and what was presumed."""
    first = result["first_eol"]
    for c in result["stack"]:
        if c.get("resolved"):  # a package version read as its SDK release (kb.store.targetspec)
            note(c["resolved"])
    stack = " ".join(f"{c['key']}={c['version']}" for c in result["stack"])
    if first:
        footer(f"stack {stack}: first end of support {first['eol_from']} ({first['product']} {first['cycle']}, {first['state']})")
    else:
        footer(f"stack {stack}: no dated end of support known")
    if result["windows"]:
        _windows_table(result["windows"])
    if result["issues"]:
        table(["finding", "part", "detail", "source"],
              [[i["kind"] + (" (presumed)" if i.get("presumed") else ""), i["component"] or "", i["message"],
                i["source_url"] or ""] for i in result["issues"]],
              status_column=None)
    if result.get("unknown"):
        footer(f"unknown: no source dates the end of support of {', '.join(result['unknown'])}"
             " (not verified; --fail-on-unknown makes this fail)")
    if result.get("presumed_matrix"):
        note(result["presumed_matrix"]["line"])
    if result["matrices_checked"]:
        footer(f"checked against the support matrices of {', '.join(result['matrices_checked'])}"
               + ("" if result["issues"] else ": no conflicts"))
    elif not result["windows"]:
        footer("no support windows or support-matrix facts cover this stack")


def eol_command(
    product: Annotated[Optional[str], typer.Argument(help="Only this product (loose: torch-neuronx, xla, python, ubuntu, neuron...).")] = None,
    at: Annotated[Optional[str], typer.Option("--at", help="What is out of support on this day (YYYY-MM-DD).")] = None,
    stack: Annotated[Optional[str], typer.Option("--stack", help='Check a whole stack: "neuron=2.33 torch=2.14 python=3.12 ubuntu=22.04 trn2".')] = None,
    within: Annotated[Optional[str], typer.Option("--within", help="Horizon such as 90d: exit 1 when something ends within it (CI gate).")] = None,
    ics: Annotated[bool, typer.Option("--ics", help="Write the dates as an iCalendar feed.")] = False,
    out: Annotated[Optional[str], typer.Option("--out", "-o", help="With --ics: write to this file instead of stdout.")] = None,
    history: Annotated[bool, typer.Option("--history", help="Show every statement per window (older ones superseded).")] = False,
    fail_on_unknown: Annotated[bool, typer.Option("--fail-on-unknown", help="With --stack: exit 1 when a part's end of support is not known.")] = False,
    today: Annotated[Optional[str], typer.Option("--today", envvar="KB_TODAY", hidden=True, help="Pretend today is this day.")] = None,
    json_out: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Support windows: when versions reach end of support, soonest first."""
    from kb.eol import api
    from kb.eol import windows as eol
    from kb.errors import KBError

    now = eol.today(today)
    at_day = eol.user_day(at, "--at") if at else None
    horizon = eol.parse_horizon(within) if within else None
    if out and not ics:
        raise KBError("--out goes with --ics")
    eol.check_product(product)
    from kb.store.dbfile import check_output

    check_output(out, db)
    result = api.eol(product, stack, horizon, at=at_day, today=now, fail_on_unknown=fail_on_unknown, db=db,
                     on_note=note)
    if stack:
        if json_out:
            emit_json(result)
        else:
            _stack_view(result)
        if api.tripped(result, horizon):
            raise typer.Exit(1)
        return
    if ics:
        from kb.eol.ics import calendar

        data = calendar(result["windows"], now)
        if out:
            try:
                with open(out, "wb") as fh:
                    fh.write(data)
            except OSError as exc:
                raise KBError(f"--out {out}: {exc.strerror}") from None
            note(f"wrote {out}")
        else:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
    elif json_out:
        emit_json(result)
    else:
        title = f"out of support on {result['at']}" if at_day else None
        if result["windows"]:
            _windows_table(result["windows"], title)
            if history:
                _history_tables(result["windows"])
        elif product and not horizon and not at_day:
            note(f"no support window is known for {result['product_label']} ({result['product_name']}): "
                 "no end of support stated — not verified"
                 + (f"; related: {', '.join('kb eol ' + r for r in result['related'])}" if result["related"] else ""))
        else:
            note("no support windows match" + (f" within {horizon.days} days" if horizon else ""))
    if api.tripped(result, horizon):
        raise typer.Exit(1)
