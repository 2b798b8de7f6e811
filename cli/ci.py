"""`kb ci check FILE...` and `kb ci audit FILE...`: one gate over many files, for the
pre-commit hooks (.pre-commit-hooks.yaml) and the GitHub Action (action.yml).

A hook is handed the changed files; the action a glob's worth of exports. Each export is
checked as `kb check FILE` checks it (read as data: no torch, nothing unpickled), with the
`[tool.kb]` of the nearest pyproject.toml above it (flags override it); the results go
into one SARIF run (code scanning takes one per tool) and one markdown report, and the
exit status is the worst gate's: 0 passed, 1 tripped, 2 bad input. The audit hook grades
the changed Python files (and notebooks, CUDA sources, dependency files) by their paths
in the repository and gates on `[tool.kb.audit] fail-on` or --fail-on.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer

from cli.options import DbOption, JsonOption
from kb import neutral
from kb.errors import KBError

ci_app = typer.Typer(help="Gate many files at once: the pre-commit hooks and the GitHub Action call these.",
                     no_args_is_help=True)

FilesArg = Annotated[Optional[list[str]], typer.Argument(  # noqa: UP045 (typer needs Optional on 3.11)
    help="Files to check (pre-commit passes the changed ones); none: nothing to do.")]
ConfigOpt = Annotated[Optional[str], typer.Option(  # noqa: UP045
    "--config", help="Read [tool.kb] from this pyproject.toml (default: the nearest one above each file, "
                     "else above the working directory).")]
NoConfigOpt = Annotated[bool, typer.Option("--no-config", help="Ignore [tool.kb]: flags and defaults only.")]


def _write(path: str, text: str, append: bool = False) -> None:
    try:
        with open(path, "a" if append else "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise KBError(f"cannot write {path}: {exc.strerror or exc}") from None


class _Lookups:
    """One KB lookup per (target, version, mode) for the whole run, not one per file."""

    def __init__(self, db: str | None):
        self.db = db
        self.cache: dict[tuple, tuple] = {}

    def get(self, target: str, version: str | None, mode: str):
        from cli import check as cli_check

        key = (target, version, mode)
        if key not in self.cache:
            self.cache[key] = cli_check.make_lookup(self.db, target, version, mode)
        return self.cache[key]


def check_file(path: str, flags: dict, config: str | None, no_config: bool, db: str | None, lookups: _Lookups,
               hooks: list) -> dict:
    """`kb check PATH` with the project's settings: {reports, gate, config, traced kind}.
    The steps and rules are cli.check's (settings, waivers, gate), so both gate alike."""
    from cli import check as cli_check
    from cli.grammar import split_targets
    from kb.check import model_formats, tracing
    from kb.check import resolve as kc
    from kb.vocab import MODES

    project, settled = cli_check.project_settings(path, config, no_config, db, **flags)
    if settled["mode"] not in MODES:
        raise KBError(f"--mode {settled['mode']}: expected one of {', '.join(MODES)}")
    if settled["fail_on"] is not None and settled["fail_on"] not in cli_check.FAIL_ON:
        raise KBError(f"--fail-on {settled['fail_on']}: expected one of {', '.join(cli_check.FAIL_ON)}")
    targets, versions = split_targets(settled["targets"])
    source = model_formats.detect(path)
    traced = tracing.trace(source, None)
    reports = []
    for name in targets:
        lookup, version = lookups.get(name, versions.get(name), settled["mode"])
        reports.append(kc.check(traced, lookup, target=name, backend_version=version, mode=settled["mode"],
                                warning_hooks=hooks))
    expired = cli_check.waive(reports, project)
    gate = cli_check.evaluate_gate(reports, settled["fail_on"], None, fail_on_unknown=settled["fail_on_unknown"],
                                   expired=expired)
    return {"model": path, "model_kind": traced.kind, "reports": reports, "gate": gate,
            "config": cli_check.project_config_doc(project, settled)}


def _lines(result: dict) -> list[str]:
    """A file's result in a few lines: each target's verdict, waivers, the gate."""
    from cli import check as cli_check
    from kb.check.project_config import waiver_lines

    lines = [f"kb check {result['model']}"]
    for report in result["reports"]:
        head = cli_check.summary_lines(report)
        lines.append("  " + (head[0] if report.verdict else head[0].strip()))
    lines.extend("  " + line for line in waiver_lines(result["gate"]))
    gate = result["gate"]
    name = cli_check.gate_name(gate)
    if name and gate["failed"]:
        listed = ", ".join(cli_check._finding_text(f) for f in gate["failing"][:10])
        more = len(gate["failing"]) - 10
        lines.append(f"  gate {name}: FAILED — {listed}{f' +{more} more' if more > 0 else ''}")
    elif name:
        lines.append(f"  gate {name}: passed")
    return lines


@ci_app.command("check")
def ci_check_command(
    files: FilesArg = None,
    target: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--target", "-t", help="Target or TARGET=VERSION (repeat; default: [tool.kb] targets, else neuron).")] = None,
    mode: Annotated[Optional[str], typer.Option("--mode", help="eager or compile (default: [tool.kb] mode).")] = None,  # noqa: UP045
    fail_on: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--fail-on", help="decomposed, fallback or unsupported (default: [tool.kb] fail-on).")] = None,
    fail_on_unknown: Annotated[Optional[bool], typer.Option(  # noqa: UP045
        "--fail-on-unknown/--no-fail-on-unknown", help="Also fail on ops without evidence.")] = None,
    sarif: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--sarif", help="Write one SARIF file for all the files (for code scanning).")] = None,
    markdown: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--markdown", help="Append the markdown report to this file (e.g. $GITHUB_STEP_SUMMARY).")] = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check each exported program against the configured targets, as kb check does, and
    gate on all of them: exit 1 when any file trips its gate."""
    from cli import check as cli_check
    from cli.check_formats import merge_sarif
    from cli.check_formats import sarif as sarif_doc
    from kb.check import resolve as kc
    from kb.store.dbfile import check_output

    check_output(sarif, db, "--sarif")  # neither output may overwrite the KB it reads
    check_output(markdown, db, "--markdown")
    flags = {"targets": target or None, "mode": mode, "fail_on": fail_on, "fail_on_unknown": fail_on_unknown}
    lookups = _Lookups(db)
    hooks = [*kc.WARNING_HOOKS, *cli_check.make_warning_hooks(db)]
    results = []
    for path in dict.fromkeys(files or []):
        try:
            results.append(check_file(path, flags, config, no_config, db, lookups, hooks))
        except KBError as exc:
            text = str(exc)
            raise KBError(text if path in text else f"{path}: {text}") from None
    failed = [r["model"] for r in results if r["gate"]["failed"]]
    if sarif:
        _write(sarif, json.dumps(merge_sarif([sarif_doc(r["reports"], r["gate"]) for r in results]), indent=2) + "\n")
    if markdown:
        parts = [f"## kb check {neutral.markdown_code(r['model'])}\n\n"
                 + cli_check.render_markdown(r["reports"], r["gate"]) for r in results]
        head = (f"# kb: {len(results)} export(s) checked, {len(failed)} failed the gate\n\n" if results else
                "# kb: no exports to check\n\n")
        _write(markdown, head + "\n".join(parts), append=True)
    if as_json:
        from cli.render import emit_json

        emit_json({"files": [{"model": r["model"], "model_kind": r["model_kind"],
                              "reports": [rep.to_dict() for rep in r["reports"]], "gate": r["gate"],
                              "config": r["config"]} for r in results],
                   "failed": failed, "gate_failed": bool(failed)})
    else:
        for result in results:
            for line in _lines(result):
                sys.stdout.write(neutral.terminal(line) + "\n")
        if not results:
            sys.stdout.write("kb ci check: no files given, nothing to check\n")
    if failed:
        raise typer.Exit(1)


@ci_app.command("audit")
def ci_audit_command(
    files: FilesArg = None,
    fail_on: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--fail-on", help="high, medium or low (default: [tool.kb.audit] fail-on, else high).")] = None,
    exclude: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--exclude", "-x", help="Skip files matching this glob (besides [tool.kb.audit] exclude); repeatable.")] = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
    as_json: JsonOption = False,
) -> None:
    """Find CUDA lock-in in the given files, as kb audit does, graded by their paths from
    the working directory (the repository root under pre-commit). Exit 1 when a finding
    reaches the gate: --fail-on, else [tool.kb.audit] fail-on, else high."""
    from cli.audit import _rows, audit_settings, summary_line
    from cli.render import table
    from kb.check.project_config import AUDIT_LEVELS, describe
    from kb.migrate.audit_findings import Severity
    from kb.migrate.changed_files import audit_files

    if fail_on is not None and fail_on not in AUDIT_LEVELS:
        raise KBError(f"--fail-on {fail_on}: expected one of {', '.join(AUDIT_LEVELS)}")
    project, settled = audit_settings(None, config, no_config, fail_on, exclude)  # the working directory's
    if settled["fail_on"] is None:  # a hook that never fails would be no hook at all
        settled["fail_on"], settled["from"]["fail_on"] = "high", "default"
    report = audit_files(files or [], excludes=settled["exclude"])
    failed = report.fails(Severity.parse(settled["fail_on"]))
    if as_json:
        from cli.render import emit_json

        emit_json({**report.as_dict(), "config": describe(project, settled), "gate_failed": failed})
    else:
        if report.findings:
            table(["severity", "where", "rule", "context", "finding", "portable alternative"], _rows(report),
                  title="kb audit (changed files)", status_column=None)
        gate = f"gate --fail-on {settled['fail_on']}: {'FAILED' if failed else 'passed'}"
        sys.stdout.write(neutral.terminal(f"{summary_line(report)}; {gate}") + "\n")
    if failed:
        raise typer.Exit(1)
