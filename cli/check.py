"""`kb check MODEL --target neuron`: every ATen op a model runs, resolved on a target.

Parses arguments, traces once, resolves per target through `kb.check.resolve`, renders
(table / json / markdown / sarif / junit) and applies the CI gate (`--fail-on`,
`--baseline`, `--allow`): exit 1 when the gate trips, 2 on bad input. No typer here: the
options are declared in cli.check_cmd, and a plain `kb check MODEL` runs `run` straight
from cli.fast (typer and the pydantic it builds options with cost a check a fifth of its time).
"""

from __future__ import annotations

import json
import sys

from kb import neutral
from kb.errors import KBError
from kb.vocab import MODES, SEVERITY, UNKNOWN, trips

FORMATS = ("table", "json", "markdown", "sarif", "junit")
# `--fail-on LEVEL` trips on LEVEL or worse in this order; crash and timeout count as
# unsupported. `unknown` is not on the scale: it trips only with --fail-on-unknown.
FAIL_ON = ("decomposed", "fallback", "unsupported")
LEGEND = ("legend: ✔ native (its own kernel) · ◐ decomposed (PyTorch splits it into ops that run) · "
          "⇄ fallback (runs on the host CPU) · ✘ unsupported · ? unknown (no evidence yet)")


class CheckUsageError(KBError):
    """A bad combination of options for `kb check`."""


def make_lookup(db: str | None, target: str, backend_version: str | None, mode: str):
    """(lookup, version shown) for one target from the KB. Tests replace this function."""
    from kb.check.resolve import lookup_from_rows

    try:
        from kb.store import db as kbdb
        from kb.store import queries
    except ImportError:  # the query layer lands separately; say so plainly
        raise KBError("this kb build has no KB query layer (kb.store.queries.support_map)") from None
    conn = kbdb.open_kb(db)
    try:
        if backend_version is not None:  # the one version grammar (kb.store.targetspec), said in one line
            from cli.grammar import resolve_versions

            backend_version = resolve_versions(conn, {target: backend_version}, single=True)[target]
        version = queries.pick_version(conn, target, backend_version)
        rows = queries.support_lookup(conn, target, backend_version, mode)  # keeps conn: read per op asked
    except BaseException:
        conn.close()
        raise
    return lookup_from_rows(rows), version


def make_warning_hooks(db: str | None) -> list:
    """Warnings from the KB (known limitations the model hits, end of support). Tests that
    stand in for the KB replace this function along with make_lookup."""
    from kb.check.warnings import hooks_for

    return hooks_for(db)


def run(model: str, target: list[str] | None = None, backend_version: list[str] | None = None, mode: str = "eager",
        input_shape: list[str] | None = None, train: bool = False, trust: bool = False,
        trust_module: list[str] | None = None, timeout: float = 300, fmt: str = "table", fail_on: str | None = None,
        fail_on_unknown: bool = False, baseline: str | None = None, allow: list[str] | None = None,
        save: bool = False, suggest: bool = False, cost_latency_us: str | None = None,
        cost_link_gbps: str | None = None, cost_host_gflops: str | None = None, db: str | None = None,
        as_json: bool = False, verbose: bool = False) -> int:
    """Say for every ATen op MODEL runs whether TARGET runs it natively, decomposes it,
    falls back to the CPU, cannot run it, or nobody knows — with sources and places."""
    from cli import render
    from cli.grammar import split_targets
    from kb.check import model_formats, tracing

    render.VERBOSE = verbose
    from kb.check import resolve as kc
    from kb.opnames import OpNameError, canonical

    target, target_versions = split_targets(target or ["neuron"])
    fmt = "json" if as_json else fmt
    if fmt not in FORMATS:
        raise CheckUsageError(f"--format {fmt}: expected one of {', '.join(FORMATS)}")
    if mode not in MODES:
        raise CheckUsageError(f"--mode {mode}: expected one of {', '.join(MODES)}")
    if fail_on == UNKNOWN:
        raise CheckUsageError("--fail-on unknown: unknown is a switch of its own, --fail-on-unknown "
                              f"(alone or with --fail-on {'|'.join(FAIL_ON)})")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise CheckUsageError(f"--fail-on {fail_on}: expected one of {', '.join(FAIL_ON)} (or --fail-on-unknown)")
    try:
        allowed = {canonical(name) for name in allow or []}
    except OpNameError as exc:
        raise CheckUsageError(f"--allow: {exc}") from None
    known = _read_baseline(baseline) if baseline else None
    from kb.check import hostcost

    costs = {"latency_us": cost_latency_us, "link_gbps": cost_link_gbps, "host_gflops": cost_host_gflops}
    hostcost.cost_model(costs)  # a bad value is a usage error before any tracing
    versions = {**target_versions, **parse_versions(backend_version or [], target)}

    source = model_formats.detect(model, trust=trust, trust_modules=trust_module or ())
    trust = trust or bool(trust_module)
    with _progress(f"tracing {model}"):
        if source.kind == model_formats.FACTORY:
            traced = tracing.trace_in_child(source, input_shape, train=train, timeout=timeout)
        else:
            traced = tracing.trace(source, input_shape, train=train, trust=trust)
    reports = []
    hooks = [*kc.WARNING_HOOKS, *make_warning_hooks(db)]
    for name in dict.fromkeys(target):
        lookup, version = make_lookup(db, name, versions.get(name), mode)
        with _progress(f"resolving {len(traced.sites)} calls on {name}"):
            report = kc.check(traced, lookup, target=name, backend_version=version, mode=mode, warning_hooks=hooks,
                              cost_overrides=costs)
        for op in report.ops:
            op.allowed = is_allowed(op, allowed)
        reports.append(report)

    if save:
        save_reports(db, reports)
    gate = evaluate_gate(reports, fail_on, known, fail_on_unknown=fail_on_unknown)
    document = {"model": model, "model_kind": traced.kind, "train": traced.train,
                "reports": [r.to_dict() for r in reports], "gate": gate}
    if fmt == "json":
        from cli.render import emit_json

        emit_json(document)
    elif fmt == "markdown":
        sys.stdout.write(render_markdown(reports, gate, suggest=suggest))
    elif fmt == "sarif":
        from cli.check_formats import sarif

        sys.stdout.write(json.dumps(sarif(reports, gate), indent=2) + "\n")  # ASCII: nothing raw reaches stdout
    elif fmt == "junit":
        from cli.check_formats import junit

        sys.stdout.write(junit(reports, gate))
    else:
        render_table(reports, gate, suggest=suggest)
    return 1 if gate["failed"] else 0


def parse_versions(values: list[str], targets: list[str]) -> dict[str, str]:
    """`--backend-version 2.33.0` (every target) or `--backend-version neuron=2.33.0` (one)."""
    versions: dict[str, str] = {}
    for value in values:
        name, sep, version = value.partition("=")
        if not sep:
            versions.update({t: value for t in targets if t not in versions})
            continue
        if name not in targets:
            raise CheckUsageError(f"--backend-version {value}: {name} is not a --target of this check")
        versions[name] = version
    return versions


def save_reports(db: str | None, reports) -> list[int]:
    """Write the reports into the KB file in one transaction."""
    import kb
    from kb.check import resolve as kc
    from kb.store import dbfile

    digest = kc.file_sha256(reports[0].model) if reports else None
    conn = dbfile.open_for_write(dbfile.resolve_path(db))
    try:
        with conn:
            ids = [kc.save_report(conn, r, model_sha256=digest, tool_version=kb.__version__) for r in reports]
    finally:
        conn.close()
    from cli.render import note

    note(f"saved check report{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))} in {dbfile.resolve_path(db)}")
    return ids


# --- gate ------------------------------------------------------------------------------------


def is_allowed(op, allowed: set[str]) -> bool:
    """Accepted: the op itself, or a decomposed op whose every problem leaf is accepted."""
    if op.op in allowed:
        return True
    problems = [leaf.op for leaf in op.via if SEVERITY[leaf.status] >= SEVERITY["fallback"]]
    return bool(problems) and all(name in allowed for name in problems)


def evaluate_gate(reports, fail_on: str | None, baseline: dict | None, *, fail_on_unknown: bool = False) -> dict:
    """Which ops trip the gate: bad enough, not allowed, and not already in the baseline
    with the same status or a worse one. Every output format shows exactly these."""
    failing = []
    for report in reports:
        for op in report.ops:
            if op.allowed or not trips(op.status, fail_on, fail_on_unknown):
                continue
            before = (baseline or {}).get((report.target, op.op))
            if before is not None and (before == op.status or (before != UNKNOWN and op.status != UNKNOWN
                                                              and SEVERITY.get(before, 0) >= SEVERITY[op.status])):
                continue
            failing.append({"target": report.target, "op": op.op, "status": op.status})
    return {"fail_on": fail_on, "fail_on_unknown": fail_on_unknown, "baseline": baseline is not None,
            "failing": failing, "failed": bool(failing)}


def _read_baseline(path: str) -> dict:
    from kb import userfiles

    try:
        text = userfiles.read_text(path)
    except userfiles.FileRefused as exc:
        raise CheckUsageError(f"--baseline {exc}") from None
    try:
        data = userfiles.parse_json(text, path)
    except userfiles.FileRefused as exc:
        if "nested" in str(exc):
            raise CheckUsageError(f"--baseline {exc}") from None
        raise CheckUsageError(f"--baseline {path}: not JSON (expected a previous `kb check --format json` output)") from None
    if not isinstance(data, dict) or not isinstance(data.get("reports"), list):
        raise CheckUsageError(f"--baseline {path}: not a `kb check --format json` output")
    known: dict = {}
    for report in data["reports"]:
        for op in report.get("ops", []):
            known[(report.get("target"), op.get("op"))] = op.get("status")
    return known


# --- table and markdown ------------------------------------------------------------------------


def _short(op: str) -> str:
    return op[len("aten::"):] if op.startswith("aten::") else op


def via_text(op, limit: int = 6) -> str:
    """Leaves, problem ones first and with their status; the rest as a count."""
    leaves = sorted(op.via, key=lambda leaf: -SEVERITY[leaf.status])
    parts = [_short(leaf.op) + ("" if leaf.status == "native" else f" ({leaf.status})") for leaf in leaves]
    more = len(parts) - limit
    return ", ".join(parts[:limit]) + (f" +{more} more" if more > 0 else "")


def _paths_text(paths: list[str], limit: int = 3) -> str:
    more = len(paths) - limit
    return ", ".join(paths[:limit]) + (f" +{more} more" if more > 0 else "")


def _source_text(op) -> str:
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


def summary_lines(report, suggest: bool = False) -> list[str]:
    from cli import check_assess

    s = report.summary()
    version = f" {report.backend_version}" if report.backend_version else ""
    by_status = ", ".join(f"{k} {v}" for k, v in s["ops_by_status"].items())
    lines = [
        f"{report.model} ({report.model_kind}) on {report.target}{version}, {report.mode} mode: "
        f"{s['distinct_ops']} distinct ops, {s['call_sites']} call sites, "
        f"{s['native_call_sites_pct']}% of call sites native ({s['on_device_call_sites_pct']}% native or decomposed)",
        f"  ops by status: {by_status or 'none'}",
    ]
    if report.eager is not None:
        e = report.eager
        lines.append(
            f"  CPU fallback: {e['fallback_calls']} calls, {e['transitions']} device↔host transitions "
            f"in {e['fallback_runs']} stretches, {_bytes(e['bytes_copied'])} copied"
        )
    if report.compile is not None:
        lines.append(check_assess.compile_line(report))
    lines.extend(check_assess.lines(report, suggest))
    lines.extend(f"  note: {n}" for n in report.notes)
    lines.extend(f"  warning: {w}" for w in report.warnings)
    return ([check_assess.clean(f"verdict: {report.verdict}")] if report.verdict else []) + lines


def _bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def render_table(reports, gate: dict, suggest: bool = False) -> None:
    """Summary lines (warnings, hazards, costs) one line each, cut to the table's width
    (the verdict and header lines wrap instead)
    (--verbose and JSON keep the whole text); the table fits that width (cli.render.fit)."""
    from cli import render
    from cli.render import note, shorten, table, wrapped

    for report in reports:
        for line in summary_lines(report, suggest):
            text = neutral.terminal(line)  # headlines wrap; the detail lines under them are cut
            sys.stdout.write((shorten(text) if text.startswith("  ") else wrapped(text)) + "\n")
    if len(reports) == 1:
        report = reports[0]
        rows = [[op.op, op.count, op.status, via_text(op), ", ".join(op.dtypes), _paths_text(op.module_paths),
                 _source_text(op) + (" [allowed]" if op.allowed else "")] for op in report.ops]
        table(["op", "count", "status", "via", "dtypes", "modules", "source"], rows)
    else:
        _side_by_side(reports)
    _gate_lines(gate)
    for line in closing_lines(reports):
        sys.stdout.write(wrapped(neutral.terminal(line)) + "\n")
    if render.SHORTENED:
        note("long lines cut to fit the width (…): --verbose prints them whole, --json has everything")


def settle_command(reports) -> str | None:
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


def closing_lines(reports) -> list[str]:
    """The legend, then (where ops are unknown) how to settle them."""
    lines = [LEGEND]
    command = settle_command(reports)
    if command:
        lines.append(f"unknown ops: settle them with {command}, then check again")
    return lines


def _side_by_side(reports) -> None:
    from cli.render import status_label, table

    order: dict[str, object] = {}
    for report in reports:
        for op in report.ops:
            order.setdefault(op.op, op)
    by_target = [{op.op: op for op in r.ops} for r in reports]
    rows = []
    for name, first in order.items():
        cells = [status_label(m[name].status) if name in m else "" for m in by_target]
        rows.append([name, first.count, *cells, ", ".join(first.dtypes), _paths_text(first.module_paths)])
    table(["op", "count", *[r.target for r in reports], "dtypes", "modules"], rows, status_column=None)


def gate_name(gate: dict) -> str | None:
    parts = ([f"--fail-on {gate['fail_on']}"] if gate.get("fail_on") else []) + (
        ["--fail-on-unknown"] if gate.get("fail_on_unknown") else [])
    return " ".join(parts) or None


def _gate_lines(gate: dict) -> None:
    name = gate_name(gate)
    if name is None:
        return
    if gate["failed"]:
        listed = ", ".join(f"{f['op']} ({f['status']} on {f['target']})" for f in gate["failing"][:10])
        more = len(gate["failing"]) - 10
        sys.stdout.write(neutral.terminal(
            f"gate {name}: FAILED, {len(gate['failing'])} finding{'s' if len(gate['failing']) != 1 else ''}"
            f" — {listed}{f' +{more} more' if more > 0 else ''}") + "\n")
    else:
        sys.stdout.write(f"gate {name}: passed\n")


def render_markdown(reports, gate: dict, suggest: bool = False) -> str:
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
        out.append("| op | count | status | via | dtypes | modules | source |")
        out.append("|---|---:|---|---|---|---|---|")
        for op in report.ops:
            cells = [neutral.markdown_code(op.op), str(op.count), md(op.status), md(via_text(op)),
                     md(", ".join(op.dtypes)), md(_paths_text(op.module_paths)), md(_source_text(op))]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    if gate_name(gate):
        verdict = f"failed, {len(gate['failing'])} findings" if gate["failed"] else "passed"
        out.append(f"**Gate `{gate_name(gate)}`: {verdict}**\n")
    out.extend(f"{md(line)}  " for line in closing_lines(reports))
    return "\n".join(out) + "\n"


class _progress:
    """A rich spinner on stderr when it is a terminal; plain progress lines past ~2 s otherwise."""

    def __init__(self, text: str):
        self.text = neutral.terminal(text)  # it names the model file: shown, never obeyed
        self.status = None

    def __enter__(self):
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.markup import escape

            self.status = Console(stderr=True).status(escape(self.text))
        else:  # plain lines past ~2 s (cli.progress), so a pipe or CI log is never silent
            from cli.progress import Heartbeat

            self.status = Heartbeat(self.text)
        self.status.__enter__()
        return self

    def __exit__(self, *exc):
        if self.status is not None:
            self.status.__exit__(*exc)
        return False


__all__ = ["run", "evaluate_gate", "make_lookup", "UNKNOWN"]  # the typer command: cli.check_cmd.check_command
