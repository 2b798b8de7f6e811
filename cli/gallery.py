"""`kb gallery`: popular architectures × targets from the shipped op census (kb.gallery),
one model's `kb check` report (`kb gallery MODEL`), the ops that block the most models
(`--blockers`) and the Baseline line for every version (`--baseline`)."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from cli.options import DbOption, JsonOption, VerboseOption
from kb.errors import KBError

BASIS_MARK = {"presumed": "ᵖ", "inferred": "ⁱ", "none": "?", "evidence": ""}
LEGEND = ("basis: evidence = the target's own verdicts; inferred ⁱ = from a replay or an earlier version's "
          "evidence; presumed ᵖ = carried from an older version with no word for this one; none ? = no verdict "
          "for any op (no data for the target)")
NAME_WIDTH = 40  # a name or an op is cut in the table, never a whole row padded to it


def _pct(value) -> str:
    from kb.gallery.views import pct

    return pct(value)


def _cut(text: str, width: int = NAME_WIDTH) -> str:
    text = str(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def _basis(value: str) -> str:
    return f"{value} {BASIS_MARK.get(value, '')}".strip()


def _ops(names: list[str], limit: int = 3) -> str:
    if not names:
        return "-"
    return ", ".join(_cut(n.removeprefix("aten::")) for n in names[:limit]) + (f" +{len(names) - limit}" if len(names) > limit else "")


def gallery_command(
    model: Annotated[Optional[str], typer.Argument(help="A gallery model (slug or name): its kb check report.")] = None,
    target: Annotated[Optional[list[str]], typer.Option("--target", "-t", help="Target, or TARGET=VERSION (repeat; default neuron and tpu).")] = None,
    mode: Annotated[Optional[list[str]], typer.Option("--mode", help="eager or compile (repeat for both; default eager).")] = None,
    graph: Annotated[str, typer.Option("--graph", help="inference (forward) or training (forward + backward).")] = "inference",
    blockers: Annotated[bool, typer.Option("--blockers", help="The ops that keep the most gallery models off the device.")] = False,
    baseline: Annotated[bool, typer.Option("--baseline", help="For every version with data: how many models run fully on the device (eager and compile).")] = False,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="With --blockers: how many ops (default 10).")] = None,
    json_out: JsonOption = False,
    verbose: VerboseOption = False,
    db: DbOption = None,
) -> None:
    """Will these popular models run? Models × targets from the gallery's op census, with
    verdicts read from the KB now."""
    from cli import render
    from cli.grammar import resolve_versions, split_targets
    from cli.render import emit_json, footer, note, table, wrapped
    from kb.gallery import views
    from kb.store.db import open_kb
    from kb.vocab import MODES

    render.VERBOSE = verbose
    modes = tuple(dict.fromkeys(mode or ["eager"]))
    for m in modes:
        if m not in MODES:
            raise KBError(f"--mode {m}: expected one of {', '.join(MODES)}")
    if graph not in views.GRAPHS:
        raise KBError(f"--graph {graph}: expected one of {', '.join(views.GRAPHS)}")
    _refuse_conflicts(model, blockers, baseline, limit)
    targets, versions = split_targets(target)
    targets = targets or list(views.DEFAULT_TARGETS)
    conn = open_kb(db)
    from kb.store import queries

    for name in targets:
        queries.check_target(conn, name)
    versions = resolve_versions(conn, versions, single=True)
    if model is not None:
        return _model_page(conn, model, targets, versions, modes[0], graph, json_out)
    if baseline:
        rows = views.baseline(conn, targets, graph)
        if json_out:
            return emit_json({"graph": graph, "baseline": rows, "legend": LEGEND})
        for item in rows:
            typer.echo(wrapped(views.baseline_line(item)))
        footer(LEGEND)  # on stdout under the table, like every table's legend (t26 r2 #9)
        return None
    if blockers:
        results = [views.blockers(conn, t, versions.get(t), m, graph, limit or 10) for t in targets for m in modes]
        if json_out:
            return emit_json({"graph": graph, "blockers": results, "legend": LEGEND})
        for res in results:
            n = len(res["ops"])
            if not n:  # "the 0 ops that block..." over an empty table reads as a broken listing (r2-30 #11)
                typer.echo(wrapped(f"{res['target']} {res['backend_version']} · {res['mode']}: no op blocks any gallery model"))
                continue
            table(["op", "blocks", "status", "basis", "models"],
                  [[_cut(r["op"]), r["blocks"], r["status"], _basis(r["basis"]),
                    ", ".join(r["models"][:6]) + (" …" if len(r["models"]) > 6 else "")] for r in res["ops"]],
                  title=f"{res['target']} {res['backend_version']} · {res['mode']}: the {n} "
                        f"op{'s' if n != 1 else ''} that block{'s' if n == 1 else ''} the most gallery models "
                        f"({res['blocking_ops']} block{'s' if res['blocking_ops'] == 1 else ''} at least one)")
        footer(LEGEND)  # on stdout under the table, like every table's legend (t26 r2 #9)
        return None
    result = views.table(conn, targets, versions, modes, graph)
    if json_out:
        notes = [LEGEND] + [f"{t}: verdicts {b['basis']}" for t in targets for b in result["baseline"]
                            if b["target"] == t and b.get("basis") != "evidence"][:len(targets) * len(modes)]
        return emit_json({**result, "basis_notes": notes, "legend": LEGEND})
    if not result["models"]:
        note("this KB has no gallery (data/gallery is missing or empty)")
        return None
    rows = [[_cut(r["name"]), f"{r['target']} {r['backend_version'] or ''}".strip(), r["mode"],
             _pct(r["device_call_share"]), _pct(r["device_flop_share"]) + ("*" if r.get("flops_partial") else ""),
             _ops(r["fallback_ops"]),
             _ops(r["unsupported_ops"] + r["unknown_ops"]),
             r["compile"] + (f" ({r['hazards']} hazards)" if r["hazards"] else ""), _basis(r["basis"]),
             "✔" if r["runs_fully"] else "✘"] for r in result["rows"]]
    table(["model", "target", "mode", "calls on device", "FLOPs on device", "fallback", "unsupported/unknown",
           "torch.compile", "basis", "fully on device"], rows, title=f"gallery · {graph} graph", status_column=None)
    footnote = views.flops_footnote(result["rows"])
    if footnote:
        typer.echo(wrapped(footnote))  # to the table's width, like every line under it
    for item in result["baseline"]:
        typer.echo(wrapped(views.baseline_line(item)))
    for item in result["not_built"]:
        from kb.neutral import terminal

        typer.echo(wrapped(terminal(f"not in the table: {item['name']} — {item['reason'] or 'not built'}")))
    footer("verdicts from the KB now; censuses from data/gallery (kb gallery MODEL: one model's kb check report)")
    footer(LEGEND)  # on stdout under the table, like every table's legend (t26 r2 #9)
    return None


def _no_shapes(report: dict) -> dict:
    """A census keeps counts, not shapes; the rebuilt calls' stand-in sizes are not shapes (t30 #18)."""
    for op in report.get("ops") or []:
        if "shapes" in op:
            op["shapes"] = []
    return report


def _refuse_conflicts(model, blockers: bool, baseline: bool, limit) -> None:
    """Options that cannot apply together are refused (exit 2), never silently dropped (t30 #15)."""
    if model is not None and (blockers or baseline):
        raise KBError(f"{'--blockers' if blockers else '--baseline'} is for the whole gallery; drop MODEL or the option")
    if blockers and baseline:
        raise KBError("--blockers and --baseline are two views; ask for one at a time")
    if limit is not None and not blockers:
        raise KBError("--limit applies to --blockers only")


def _model_page(conn, model: str, targets: list[str], versions: dict, mode: str, graph: str, json_out: bool) -> None:
    """The kb check report of the model's census (kb.check's own report and renderer)."""
    from cli.check import evaluate_gate, render_table
    from cli.render import emit_json
    from kb.gallery import views

    entry = views.model_entry(conn, model)
    lookups = views.Lookups(conn)
    reports = [views.report(conn, entry["model"], t, versions.get(t), mode, graph, lookups) for t in targets]
    gate = evaluate_gate(reports, None, None)
    if json_out:
        return emit_json({"model": entry["model"], "gallery": entry, "graph": graph,
                          "reports": [_no_shapes(r.to_dict()) for r in reports], "gate": gate,
                          "shapes_note": "a census keeps no shapes: the report's ops carry none"})
    built = ", ".join(f"{k} {v}" for k, v in sorted(entry["built_with"].items()) if v)
    from cli.render import wrapped  # to the table's width, the config URL whole on its own line
    from kb.neutral import terminal  # the entry's text is shown, never obeyed

    sys.stdout.write(wrapped(terminal(f"{entry['name']} ({entry['family']}, {entry['parameters'] or 0:,} parameters) · "
                                      f"{graph} graph · config: {entry['config_source']} · built with {built}")) + "\n")
    if entry.get("note"):
        sys.stdout.write(wrapped(terminal(f"note: {entry['note']}")) + "\n")
    render_table(reports, gate)
    return None


def custom_op_page(name: str, json_out: bool, db) -> None:
    """`kb op NAMESPACE::op` for a custom op a gallery census names (t30 #12)."""
    from cli.render import emit_json
    from kb.gallery import views
    from kb.neutral import terminal
    from kb.store.db import open_kb

    found = views.custom_op(open_kb(db), name)
    if json_out:
        return emit_json(found)
    lines = [f"{found['op']}: a custom op ({found['namespace']}), not an ATen operator",
             f"used by {found['count']} of {found['of']} gallery models ({', '.join(found['used_by'][:8])})",
             f"verdicts: {found['verdicts']}"]
    lines += [f"on {t}: the gallery reads it as {op} (kb op {op} -t {t})" for t, op in found["read_on"].items()]
    sys.stdout.write("".join(terminal(line) + "\n" for line in lines))
    return None

