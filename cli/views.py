"""How each query's answer is shown: one function per answer, JSON or table.

Shared by the typer commands and the fast path (cli.fast), so both print the same.
"""

from __future__ import annotations

from cli import render
from cli.render import emit_json, note, table
from kb.neutral import terminal
from kb.store import queries, verdict
from kb.vocab import BASIS_LEGEND, BASIS_MARKS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: this module is on `kb op`'s start path
if TYPE_CHECKING:
    from typing import Any


def _source(v: dict[str, Any]) -> str:
    """kind · name · link: `doc · neuron-xla-op-list · https://…`, `static probe · run static-tpu-…`."""
    return verdict.source_text(v)


def _restriction(v: dict[str, Any]) -> str:
    parts = []
    if v.get("dtypes"):
        parts.append("dtypes " + ",".join(v["dtypes"]))
    for key, value in (v.get("conditions") or {}).items():
        if key == "other_dtypes":
            parts.append("; ".join(f"{d}: {s}" for d, s in value.items()))
        else:
            parts.append(f"{key}={value}")
    return " ".join(parts)


def op_report(report: dict[str, Any], as_json: bool) -> None:
    """The op page (kb.store.oppage): per overload, every target's verdicts, what a
    decomposed op runs via, related kernels and known issues."""
    if as_json:
        emit_json(report)
        return
    notices(report)
    hidden = 0
    if report.get("module"):
        module_header(report["module"])
    elif report.get("how") and report["how"] != "name":
        # what the asked name was read as opens the page, on stdout: stderr keeps to the one
        # folded basis line (t26b #10)
        print(render.wrapped(terminal(report["how"])))
    for entry in report["ops"]:
        cat = entry["catalog"] or {}
        kinds = cat.get("composite_kinds") or []
        header = entry["op"]
        if cat:
            header += f"  — {cat['schema']}"
            if kinds:
                header += f"  [{', '.join(kinds)}]"
        else:
            header += "  (not in the local op catalog)"
        rows = []
        for t in entry["targets"]:
            shown = _newest_presumed_only(t["rows"], t["newest"], t.get("asked_versions"))
            hidden += len(t["rows"]) - len(shown)
            for r in shown:
                restriction = _restriction(r) + (f" {r['note']}" if r.get("note") else "")
                rows.append([r["target"], r["version"], r["mode"], r["status"], _runs_row(r),
                             _basis(r), restriction.strip(),
                             r["source"] + (" ⚠ sources disagree" if r["disagreement"] else "")])
            if not t["rows"]:
                rows.append([t["target"], "-", "-", "unknown", "no evidence", "", "",
                             f"how to find out: {t['settle']}"])
        table(["target", "version", "mode", "status", "where it runs", "basis", "note", "source"],  # restrictions are notes (whole words at 80)
              rows, title=header)
        for t in entry["targets"]:
            if t["via"]:
                table(["sub-op", "status", "runs", "basis"],
                      [[v["op"], v["status"], "" if v["effective_status"] == v["status"] else
                        f"{_symbol(v['effective_status'])} {v['effective_status']}", _basis(v)] for v in t["via"]],
                      title=f"runs via, on {t['target']} {t['newest']} ({len(t['via'])} sub-ops, worst first)")
        if entry.get("related"):
            targets = [t["target"] for t in entry["targets"] if t["rows"]] or [t["target"] for t in entry["targets"]]
            table(["related kernel", *targets],
                  [[r["op"], *[r["targets"][t]["label"] for t in targets]] for r in entry["related"]],
                  title="related kernels (newest version, eager)", status_column=None)
        if entry.get("caveats"):
            table(["target", "versions", "kind", "when", "caveat", "source"],
                  [[c["target"], caveat_versions(c), c["kind"], caveat_when(c), caveat_line(c), c["source_url"]]
                   for c in entry["caveats"]],
                  title=f"known issues measured in public ({len(entry['caveats'])})", status_column=None)
        used = entry.get("gallery") and queries_gallery_line(entry["gallery"])
        if used:  # kb.store.gallery: which gallery models call this op (kb gallery)
            print(render.wrapped(used))
        print()
    if hidden and render.VERBOSE:
        note(f"{hidden} presumed verdicts of older versions not shown (only each target's newest; --json has all)")
    legend()


def module_header(module: dict[str, Any]) -> None:
    """A torch.nn module's page opens with what it is, how its ops were traced, one line per
    target for its forward and its training step, and its ops × targets at a glance; each op's
    verdict table follows."""

    n = len(module["forward"])
    count = f"{n} ATen op{'s' if n != 1 else ''}" if n else "no ATen ops"
    print(render.wrapped(terminal(f"{module['name']} is a module: its forward dispatches {count} "
                                  f"({module['constructor']} on {', '.join(module['inputs'])}, {module['device']} "
                                  f"tensors, eval mode, torch {module['torch_version']}; {module['map']})")))
    for forward, training in zip(module["summary"], module["training_summary"]):
        print(render.wrapped(terminal(f"  {forward['line']}" + (f" (how to find out: {forward['settle']})"
                                                                if forward.get("settle") else ""))))
        if training["total"] and training["version"] and training["line"] != forward["line"]:
            print(render.wrapped(terminal(f"    training step: {training['line'].split(': ', 1)[1]}")))
    # a layer that does nothing in eval mode (dropout) is shown by its training step's ops
    summary, ops, what = (module["summary"], module["forward"], "forward ops (eval)") if module["forward"] else \
        (module["training_summary"], module["training_ops"], "training-step ops")
    targets = [s["target"] for s in summary if s["version"]] or [s["target"] for s in summary]
    by_target = {s["target"]: {o["op"]: o for o in s["ops"]} for s in summary}
    heads = [f"{s['target']} {s['version']}" if s["version"] else s["target"] for s in summary if s["target"] in targets]
    if ops:
        table(["op", *heads], [[op, *[_cell(by_target[t].get(op)) for t in targets]] for op in ops],
              title=f"{module['name']}: {what} × targets, newest version, eager", status_column=None)
    print()


def _cell(item: dict[str, Any] | None) -> str:
    if not item:
        return f"{_symbol('unknown')} unknown"
    mark = BASIS_MARKS.get(item.get("basis") or "evidence", "")
    return f"{_symbol(item['status'])} {item['status']}{mark}"
def queries_gallery_line(item: dict[str, Any]) -> str | None:
    from kb.store.gallery import used_by_line

    return used_by_line(item)


def notices(result: dict[str, Any]) -> None:
    """The basis notices above a table: one folded line for all targets by default (at most
    one clause per target), every per-version note under --verbose."""
    if render.VERBOSE or "notices" not in result:
        for basis_note in result.get("basis_notes") or ():
            note(basis_note)
        return
    line = queries.notice_line(result["notices"])
    if line:
        note(line)


def _newest_presumed_only(rows: list[dict[str, Any]], newest: str | None,
                          asked: list[str] | None = None) -> list[dict[str, Any]]:
    """Presumed rows repeat an older version's word for every later version: keep them for
    the target's newest version only (or every version asked, when a spelling such as
    neuron=2.33 names a release's packages); evidence and inferred rows are all shown."""
    keep = set(asked or ()) | {newest}
    return [r for r in rows if r.get("basis") != "presumed" or r["version"] in keep]


def _runs_row(r: dict[str, Any]) -> str:
    if r["status"] != "decomposed":
        return ""
    return r["runs"] if r["effective_status"] == "decomposed" else f"{_symbol(r['effective_status'])} {r['runs']}"


def legend() -> None:
    """The footer every verdict table ends with: what the marks mean. On stdout under the
    table (as `kb check` prints its legend), wrapped to the table's width: part of the
    page, not a notice, so stderr keeps to the one folded basis line."""
    render.footer(f"legend: where it runs: a decomposed op runs where its worst leaf does; basis: {BASIS_LEGEND}")


def _runs(v: dict[str, Any]) -> str:
    effective = verdict.effective_status(v)
    if v["status"] != "decomposed":
        return ""
    where = verdict.runs(v)
    return where if effective == "decomposed" else f"{_symbol(effective)} {where}"


def _basis(v: dict[str, Any]) -> str:
    basis = v.get("basis") or "evidence"
    return f"{basis} {BASIS_MARKS[basis]}".rstrip()


def caveat_versions(c: dict[str, Any]) -> str:
    """"2.12.3.0.1636+" (no known fix) or "a–b"."""
    low = c.get("min_version") or "…"
    return f"{low}–{c['max_version']}" if c.get("max_version") else f"{low}+"


def caveat_when(c: dict[str, Any]) -> str:
    parts = [c["mode"]] if c.get("mode") else []
    if c.get("phase"):
        parts.append(c["phase"])
    if c.get("dtypes"):
        parts.append(",".join(c["dtypes"]))
    parts.extend(f"{name} {','.join(d)}" for name, d in (c.get("arg_dtypes") or {}).items())
    parts.extend(f"{k}={v}" for k, v in (c.get("conditions") or {}).items())
    return " ".join(parts)


def caveat_line(c: dict[str, Any]) -> str:
    figure = c.get("figure") or {}
    fig = f" [{figure['value']} {figure['unit']}]" if figure.get("value") is not None else ""
    return c["statement"] + fig


def ops_list(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(result)
        return
    title = f"{result['target']} {result['backend_version'] or '(no data)'} · {result['mode']}"
    if "notices" in result or render.VERBOSE:
        notices({**result, "basis_notes": [result["basis_note"]] if result.get("basis_note") else []})
    elif result.get("basis_note"):
        note(result["basis_note"])
    used = any("gallery_models" in r for r in result["ops"])  # --sort usage
    rows = [[r["op"], r["status"], _runs(r) if "source_kind" in r else "", _basis(r) if "source_kind" in r else "",
             _restriction(r) if "source_kind" in r else "", *([r["gallery_models"]] if used else []),
             _source(r) if "source_kind" in r else ""]
            for r in result["ops"]]
    table(["op", "status", "where it runs", "basis", "restriction", *(["gallery models"] if used else []), "source"],
          rows, title=title)
    # counts and coverage under the table on stdout, as kb compare and kb targets print them:
    # stderr keeps to the folded basis line
    cover = result.get("coverage")
    if cover and result.get("status") not in (None, "unknown"):
        if result.get("matching_by"):
            render.footer(queries.matching_line(result["matching_by"], result["status"]))
        render.footer(queries.coverage_line(cover, result["status"]))
    elif cover:
        render.footer(f"{len(rows)} ops; {result['target']}: {queries.coverage_line(cover)}")
    else:
        render.footer(f"{len(rows)} ops")
    legend()


def compare_matrix(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(result)
        return
    targets = result["targets"]
    notices(result)
    heads = [f"{t} {result['versions'][t] or '(no data)'}" for t in targets]
    used = any("gallery_models" in r for r in result["rows"])  # --sort usage
    rows = [[r["op"], *[r["labels"][t] for t in targets], *([r["gallery_models"]] if used else [])] for r in result["rows"]]
    table(["op", *heads, *(["gallery models"] if used else [])], rows, title=f"mode: {result['mode']}", status_column=None)
    # counts, coverage and doc rules under the table on stdout: stderr keeps to the folded
    # basis line (t26 r2 #9)
    render.footer(f"{len(rows)} ops")
    for t in targets:
        if t in (result.get("coverage") or {}):
            render.footer(f"{t}: {queries.coverage_line(result['coverage'][t])}")
    if result.get("unknown_left_out"):
        render.footer(f"{result['unknown_left_out']:,} more ops differ only because a target has no verdict "
                      "(unknown); --all lists them")
    for rule in result.get("doc_rules") or ():
        render.footer(f"ʳ {rule['target']}: {rule['verdicts']:,} verdicts by the doc rule \"{rule['rule']}\" "
                      f"({rule['source_url']})")
    legend()


def _symbol(status: str) -> str:
    from kb.vocab import SYMBOLS

    return SYMBOLS.get(status, "?")


def diff_view(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(result)
        return
    notices(result)
    rows = [[kind, r["op"], _status_runs(r["old"], r["old_runs"]), _status_runs(r["new"], r["new_runs"]),
             f"{r['old_basis'] or '-'} → {r['new_basis'] or '-'}"]
            for kind, group in (("gained", result["gained"]), ("lost", result["lost"]), ("changed", result["changed"]))
            for r in group]
    table(["change", "op", result["old"], result["new"], "basis"], rows, status_column=None,
          title=f"{result['target']} {result['old']} → {result['new']} · {result['mode']}")
    render.footer(f"{len(result['gained'])} kernels gained, {len(result['lost'])} lost, "
                  f"{len(result['changed'])} other changes")  # under the table, as every count
    same = result.get("same_presumed_source")
    if same:
        render.footer(f"no evidence of a difference for {same['ops']:,} of {same['of']:,} ops: both sides are presumed from "
             f"{', '.join(same['sources'])} (neither version has evidence of its own for them)")
    legend()


def _status_runs(status: str, runs: str) -> str:
    text = f"{_symbol(status)} {status}"
    return text if runs == status else f"{text} → {_symbol(runs)} {runs}"


def _versions(versions: list[str]) -> str:
    """All of a few versions; of many, the oldest, the newest and how many."""
    if len(versions) <= 4:
        return ", ".join(versions) or "-"
    return f"{versions[0]} … {versions[-1]} ({len(versions)} versions)"


def targets_view(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        emit_json(rows, "targets")
        return
    # what the counts rest on: the one folded basis line every other verdict table prints
    # (per version under --verbose); the legend goes under the table, on stdout (t26 r2 #9)
    if render.VERBOSE:
        for r in rows:
            if r.get("basis_note"):
                note(r["basis_note"])
    else:
        line = queries.notice_line({r["name"]: r["basis_notice"] for r in rows if r.get("basis_notice")})
        if line:
            note(line)
    table(
        ["target", "label", "key", "versions with data", "counted at", "eager verdicts by own status",
         "eager verdicts by where the op runs", "coverage (eager)"],
        [[r["name"], r["label"], r["dispatch_key"], _versions(r["versions"]), r.get("latest") or "-",
          " ".join(f"{k}={v}" for k, v in sorted(r["eager_counts"].items())) or "-",
          " ".join(f"{k}={v}" for k, v in sorted((r.get("eager_runs") or {}).items())) or "-",
          queries.coverage_line(r["coverage"]) if r.get("coverage") else "-"] for r in rows],
        status_column=None,
    )
    render.footer("counted at: the newest version with data unless TARGET=VERSION names one; own status: the op's own verdict (a decomposed op counts as decomposed); where the op runs: a decomposed "
                  "op counts as its worst leaf — what kb ops --status and kb ask count")
    render.footer("coverage: ops of the local op catalog with a verdict; unknown ops have none (not \"unsupported\")")


def disagreements_view(rows: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        emit_json(rows, "disagreements")
        return
    table(["op", "target", "version", "mode", "verdict", "sources"],
          [[r["op"], r["target"], r["backend_version"], r["mode"], r["status"],
            "; ".join(f"{s}: {st}" for s, st in r["sources"].items())] for r in rows])
    render.footer(f"{len(rows)} disagreements")  # a count: under the table, on stdout
