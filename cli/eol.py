"""`kb eol`: when the parts of a Neuron / TorchTPU / PyTorch / Python / Ubuntu stack reach
end of support. Parses arguments, asks kb.eol.windows, renders; exit 1 when a gate trips."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from cli.options import DbOption, JsonOption
from cli.render import emit_json, note, table


def _source(w: dict[str, Any]) -> str:
    url = w.get("source_url") or w.get("source_name") or ""
    return url if len(url) <= 70 else url[:67] + "..."


def _eol_cell(w: dict[str, Any]) -> str:
    return w["eol_from"] or ("pending" if w["eol_pending"] else "")


def _windows_table(windows: list[dict[str, Any]], title: str | None = None) -> None:
    rows = [[w["product"], w["cycle"], w["status"], _eol_cell(w), w["state"], w["support_end"] or "",
             "" if w["days_left"] is None else w["days_left"], _source(w)] for w in windows]
    table(["product", "cycle", "status", "end of life", "how known", "active support ends", "days left", "source"],
          rows, title=title, status_column=None)


def _history_tables(windows: list[dict[str, Any]]) -> None:
    for w in windows:
        rows = [["*" if s["current"] else "", s["statement_date"] or "", s["eol"] or "", s["eol_kind"] or "",
                 s["eol_release"] or "", s["support_end"] or "", s["retrieved_at"] or "", s["source_url"] or ""]
                for s in w["history"]]
        table(["now", "stated", "eol", "kind", "ends with", "support end", "retrieved", "source"], rows,
              title=f"{w['product']} {w['cycle']}: {len(w['history'])} statement(s)", status_column=None)


def _stack_view(result: dict[str, Any]) -> None:
    first = result["first_eol"]
    stack = " ".join(f"{c['key']}={c['version']}" for c in result["stack"])
    if first:
        note(f"stack {stack}: first end of support {first['eol_from']} ({first['product']} {first['cycle']}, {first['state']})")
    else:
        note(f"stack {stack}: no dated end of support known")
    if result["windows"]:
        _windows_table(result["windows"])
    if result["issues"]:
        table(["finding", "part", "detail", "source"],
              [[i["kind"], i["component"] or "", i["message"], i["source_url"] or ""] for i in result["issues"]],
              status_column=None)
    if result["matrices_checked"]:
        note(f"checked against the support matrices of {', '.join(result['matrices_checked'])}"
             + ("" if result["issues"] else ": no conflicts"))
    elif not result["windows"]:
        note("no support windows or support-matrix facts cover this stack")


def eol_command(
    product: Annotated[Optional[str], typer.Argument(help="Only this product (loose: torch-neuronx, xla, python, ubuntu, neuron...).")] = None,
    at: Annotated[Optional[str], typer.Option("--at", help="What is out of support on this day (YYYY-MM-DD).")] = None,
    stack: Annotated[Optional[str], typer.Option("--stack", help='Check a whole stack: "neuron=2.33 torch=2.14 python=3.12 ubuntu=22.04 trn2".')] = None,
    within: Annotated[Optional[str], typer.Option("--within", help="Horizon such as 90d: exit 1 when something ends within it (CI gate).")] = None,
    ics: Annotated[bool, typer.Option("--ics", help="Write the dates as an iCalendar feed.")] = False,
    out: Annotated[Optional[str], typer.Option("--out", "-o", help="With --ics: write to this file instead of stdout.")] = None,
    history: Annotated[bool, typer.Option("--history", help="Show every statement per window (older ones superseded).")] = False,
    today: Annotated[Optional[str], typer.Option("--today", envvar="KB_TODAY", hidden=True, help="Pretend today is this day.")] = None,
    json_out: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Support windows: when versions reach end of support, soonest first."""
    from kb.eol import windows as eol
    from kb.errors import KBError
    from kb.store.db import open_kb

    now = eol.today(today)
    at_day = eol.user_day(at, "--at") if at else None
    horizon = eol.parse_horizon(within) if within else None
    if out and not ics:
        raise KBError("--out goes with --ics")
    conn = open_kb(db)
    if stack:
        if product or at:
            raise KBError("--stack checks a whole stack; drop the product / --at")
        result = eol.check_stack(conn, stack, within=horizon, today_=now)
        if json_out:
            emit_json(result)
        else:
            _stack_view(result)
        if result["failed"]:
            raise typer.Exit(1)
        return
    result = eol.listing(conn, product=product, at=at_day, within=horizon, today_=now)
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
        else:
            note("no support windows match" + (f" within {horizon.days} days" if horizon else ""))
    if horizon is not None and result["windows"]:
        raise typer.Exit(1)
