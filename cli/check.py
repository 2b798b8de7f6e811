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
from kb.vocab import MODES, UNKNOWN

FORMATS = ("table", "json", "markdown", "sarif", "junit")
FAIL_ON = ("decomposed", "fallback", "unsupported")  # kb.check.gate.FAIL_ON (this module imports no kb.check at load)

# Names that moved to kb.check (the gate rule to kb.check.gate, the text to kb.check.text) and are
# still found here; imported when asked for, so `kb version` does not load kb.check.
_MOVED = {"is_allowed": ("kb.check.gate", "is_allowed"), "LEGEND": ("kb.check.text", "LEGEND"),
          "closing_lines": ("kb.check.text", "closing_lines"), "gate_name": ("kb.check.text", "gate_name"),
          "settle_command": ("kb.check.text", "settle_command"), "_finding_text": ("kb.check.text", "finding_text"), "summary_lines": ("kb.check.text", "summary_lines"),
          "via_text": ("kb.check.text", "via_text"), "render_markdown": ("kb.check.text", "markdown"),
          "_paths_text": ("kb.check.text", "paths_text"), "_source_text": ("kb.check.text", "source_text")}


def __getattr__(name: str):
    if name not in _MOVED:
        raise AttributeError(f"module 'cli.check' has no attribute {name!r}")
    import importlib

    module, attribute = _MOVED[name]
    return getattr(importlib.import_module(module), attribute)


class CheckUsageError(KBError):
    """A bad combination of options for `kb check`."""


def make_lookup(db: str | None, target: str, backend_version: str | None, mode: str):
    """(lookup, version shown) for one target from the KB (kb.check.api.kb_lookup), the
    version's resolution said on stderr. Tests replace this function."""
    from cli.render import note
    from kb.check.api import kb_lookup

    return kb_lookup(db, target, backend_version, mode, on_note=note)


def make_warning_hooks(db: str | None) -> list:
    """Warnings from the KB (known limitations the model hits, end of support). Tests that
    stand in for the KB replace this function along with make_lookup."""
    from kb.check.api import kb_warning_hooks

    return kb_warning_hooks(db)


def run(model: str, target: list[str] | None = None, backend_version: list[str] | None = None, mode: str | None = None,
        input_shape: list[str] | None = None, train: bool = False, trust: bool = False,
        trust_module: list[str] | None = None, timeout: float = 300, fmt: str = "table", fail_on: str | None = None,
        fail_on_unknown: bool | None = None, baseline: str | None = None, allow: list[str] | None = None,
        save: bool = False, suggest: bool = False, cost_latency_us: str | None = None,
        cost_link_gbps: str | None = None, cost_host_gflops: str | None = None, config: str | None = None,
        no_config: bool = False, db: str | None = None, as_json: bool = False, verbose: bool = False) -> int:
    """Say for every ATen op MODEL runs whether TARGET runs it natively, decomposes it,
    falls back to the CPU, cannot run it, or nobody knows — with sources and places.
    [tool.kb] in the nearest pyproject.toml may set targets, mode, fail-on and waivers;
    flags override it."""
    from cli import render
    from cli.grammar import split_targets
    from cli.render import note
    from kb.check import api, gate

    render.VERBOSE = verbose
    project, settled = project_settings(model, config, no_config, db, targets=target, mode=mode, fail_on=fail_on,
                                        fail_on_unknown=fail_on_unknown)
    mode, fail_on, fail_on_unknown = settled["mode"], settled["fail_on"], settled["fail_on_unknown"]
    target, target_versions = split_targets(settled["targets"])
    fmt = "json" if as_json else fmt
    if fmt not in FORMATS:
        raise CheckUsageError(f"--format {fmt}: expected one of {', '.join(FORMATS)}")
    if mode not in MODES:
        raise CheckUsageError(f"--mode {mode}: expected one of {', '.join(MODES)}")
    gate.check_fail_on(fail_on)
    allowed = gate.accepted_ops(allow)  # a bad name is a usage error before any tracing
    known = _read_baseline(baseline) if baseline else None
    from kb.check import hostcost

    costs = {"latency_us": cost_latency_us, "link_gbps": cost_link_gbps, "host_gflops": cost_host_gflops}
    hostcost.cost_model(costs)  # a bad value is a usage error before any tracing
    versions = {**target_versions, **parse_versions(backend_version or [], target)}

    result = api.check(model, input_shape, targets=target, mode=mode, train=train, trust=trust,
                       trust_modules=trust_module or (), backend_versions=versions, db=db, timeout=timeout,
                       cost_overrides=costs, lookup=make_lookup, warning_hooks=make_warning_hooks,
                       progress=_progress, on_note=note)
    reports = result.reports
    # The gate is evaluated before --save: a saved report keeps each op's allowed flag and waiver.
    document = result.to_dict(fail_on=fail_on, fail_on_unknown=fail_on_unknown, allow=allowed, baseline=known,
                              waivers=project.waivers)
    document["config"] = project_config_doc(project, settled)
    gate_doc = document["gate"]
    for waiver in gate_doc.get("unmatched_waivers", []):  # a typo, or an op the model no longer uses
        note(f"warning: the waiver for {neutral.clean(waiver['op'])[:200]} matches no op of the model")
    if save:
        save_reports(db, reports)
    if fmt == "json":
        from cli.render import emit_json

        emit_json(document)
    elif fmt == "markdown":
        from kb.check.text import markdown

        sys.stdout.write(markdown(reports, gate_doc, suggest=suggest))
    elif fmt == "sarif":
        from kb.check.formats import sarif

        sys.stdout.write(json.dumps(sarif(reports, gate_doc), indent=2) + "\n")  # ASCII: nothing raw reaches stdout
    elif fmt == "junit":
        from kb.check.formats import junit

        sys.stdout.write(junit(reports, gate_doc))
    else:
        render_table(reports, gate_doc, suggest=suggest)
    return 1 if gate_doc["failed"] else 0


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


def evaluate_gate(reports, fail_on: str | None, baseline: dict | None, *, fail_on_unknown: bool = False,
                  expired: list[dict] | None = None) -> dict:
    """The gate's findings (kb.check.gate.evaluate, where the rule lives); `expired`: the
    expired waivers `waive` returned."""
    from kb.check.gate import evaluate

    return evaluate(reports, fail_on, baseline, fail_on_unknown=fail_on_unknown, expired=expired)


def project_settings(model: str | None, config: str | None, no_config: bool, db: str | None, **flags):
    """([tool.kb] of the project, the values to run with): flags over the file over defaults
    (kb.check.project_config); the file's targets are checked against the KB's."""
    from kb.check import project_config

    if config is not None and no_config:
        raise CheckUsageError("--config and --no-config disagree; pass one of them")
    return project_config.for_check(model, explicit=config, disabled=no_config, db=db, **flags)


def waive(reports, project) -> list[dict]:
    """Mark the ops the project's live waivers cover; the expired waivers that cover an op."""
    from kb.check.gate import apply_waivers

    return apply_waivers(reports, project.waivers)


def project_config_doc(project, settled: dict) -> dict:
    from kb.check.project_config import describe

    return describe(project, settled)


def _read_baseline(path: str) -> dict:
    from kb import userfiles
    from kb.check.gate import GateError, baseline_from

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
    try:
        return baseline_from(data, f"--baseline {path}")
    except GateError as exc:
        raise CheckUsageError(str(exc)) from None


# --- table ----------------------------------------------------------------------------------


def render_table(reports, gate: dict, suggest: bool = False) -> None:
    """Summary lines (warnings, hazards, costs) one line each, cut to the table's width
    (the verdict and header lines wrap instead)
    (--verbose and JSON keep the whole text); the table fits that width (cli.render.fit)."""
    from cli import render
    from cli.render import note, shorten, table, wrapped
    from kb.check.text import COLUMNS, closing_lines, row, summary_lines

    for report in reports:
        for line in summary_lines(report, suggest):
            text = neutral.terminal(line)  # headlines wrap; the detail lines under them are cut
            sys.stdout.write((shorten(text) if text.startswith("  ") else wrapped(text)) + "\n")
    if len(reports) == 1:
        report = reports[0]
        table(list(COLUMNS), [row(op) for op in report.ops])
    else:
        _side_by_side(reports)
    _gate_lines(gate)
    for line in closing_lines(reports):
        sys.stdout.write(wrapped(neutral.terminal(line)) + "\n")
    if render.SHORTENED:
        note("long lines cut to fit the width (…): --verbose prints them whole, --json has everything")


def _side_by_side(reports) -> None:
    from cli.render import status_label, table
    from kb.check.text import basis_mark, paths_text

    order: dict[str, object] = {}
    for report in reports:
        for op in report.ops:
            order.setdefault(op.op, op)
    by_target = [{op.op: op for op in r.ops} for r in reports]
    rows = []
    for name, first in order.items():
        cells = [status_label(m[name].status) + basis_mark(m[name]) + (" (waived)" if getattr(m[name], "waiver", None) else "")
                 if name in m else "" for m in by_target]
        rows.append([name, first.count, *cells, ", ".join(first.dtypes), paths_text(first.module_paths)])
    table(["op", "count", *[r.target for r in reports], "dtypes", "modules"], rows, status_column=None)


def _gate_lines(gate: dict) -> None:
    from kb.check.project_config import waiver_lines
    from kb.check.text import finding_text, gate_name

    for line in waiver_lines(gate):
        sys.stdout.write(neutral.terminal(line) + "\n")
    name = gate_name(gate)
    if name is None:
        return
    if gate["failed"]:
        listed = ", ".join(finding_text(f) for f in gate["failing"][:10])
        more = len(gate["failing"]) - 10
        sys.stdout.write(neutral.terminal(
            f"gate {name}: FAILED, {len(gate['failing'])} finding{'s' if len(gate['failing']) != 1 else ''}"
            f" — {listed}{f' +{more} more' if more > 0 else ''}") + "\n")
    else:
        sys.stdout.write(f"gate {name}: passed\n")


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
