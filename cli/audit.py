"""`kb audit PATH`: what ties a code base to CUDA, graded, with a portable alternative
for each finding. Rendering only; the work is in `kb.migrate.audit`."""

from __future__ import annotations

import enum
import json
import sys
from contextlib import contextmanager
from typing import Annotated, Optional

import typer

import kb
from cli.options import JsonOption
from cli.render import table
from kb import neutral
from kb.errors import KBError
from kb.migrate.audit import audit_path, sort_findings
from kb.migrate.audit_findings import RULES, SEVERITY_RULES, AuditReport, Severity


class OutputFormat(enum.StrEnum):
    table = "table"
    sarif = "sarif"
    json = "json"
    markdown = "markdown"


class FailOn(enum.StrEnum):
    high = "high"
    medium = "medium"
    low = "low"


COLUMNS = ("severity", "where", "rule", "context", "finding", "portable alternative")


def _rows(report: AuditReport) -> list[list[str]]:
    return [[f.severity.label, f.location, f.rule, f.context, f.message, f.suggestion] for f in report.findings]


def summary_line(report: AuditReport) -> str:
    counts = report.counts()
    skipped = ""
    if report.skipped_dirs:
        shown = ", ".join(report.skipped_dirs[:5]) + (", …" if len(report.skipped_dirs) > 5 else "")
        skipped = f"; skipped {len(report.skipped_dirs)} folder(s): {shown}"
    files = f"{report.files_scanned} file(s) audited"
    if not report.findings:
        return f"no CUDA lock-in found; {files}{skipped}"
    return (f"{len(report.findings)} finding(s): {counts['high']} high, {counts['medium']} medium, "
            f"{counts['low']} low; {files}{skipped}")


def render_markdown(report: AuditReport) -> str:
    """A report to paste into an issue or a migration plan. File names, snippets and
    messages come from the audited tree: each goes through kb.neutral (one line, escaped)."""
    out = [f"# kb audit: {neutral.markdown_code(report.root)}", "", neutral.markdown(summary_line(report)) + ".", ""]
    if report.findings:
        out.append("| " + " | ".join(COLUMNS) + " |")
        out.append("|" + "---|" * len(COLUMNS))
        for row in _rows(report):
            cells = [neutral.markdown_code(cell) if i == 1 else neutral.markdown(cell) for i, cell in enumerate(row)]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        out += ["## By rule", "", "| rule | findings | what it means |", "|---|---|---|"]
        out += [f"| {neutral.markdown(rule)} | {count} | {neutral.markdown(RULES[rule].description)} |"
                for rule, count in report.by_rule().items()]
        out.append("")
    out.append(f"Severity rules — {neutral.markdown(SEVERITY_RULES)}")
    return "\n".join(out) + "\n"


@contextmanager
def _progress():
    """A spinner with the current file on an interactive stderr; nothing in pipes/CI."""
    if not sys.stderr.isatty():
        from cli.progress import Heartbeat

        with Heartbeat("auditing") as beat:
            yield beat
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn

    with Progress(SpinnerColumn(), TextColumn("{task.completed} files  {task.description}"),
                  console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("", total=None)
        from rich.markup import escape

        # a file name is shown, never read as rich markup or obeyed as an escape sequence
        yield lambda rel_path: progress.update(task, advance=1, description=escape(neutral.terminal(rel_path[-60:])))


def audit_command(
    path: Annotated[str, typer.Argument(help="Folder or file to audit.")],
    output_format: Annotated[OutputFormat, typer.Option(
        "--format", "-f", case_sensitive=False, help="table (default), sarif, json or markdown.")] = OutputFormat.table,
    fail_on: Annotated[Optional[FailOn], typer.Option(  # noqa: UP045 (typer needs Optional on 3.11)
        "--fail-on", case_sensitive=False,
        help="Exit 1 when a finding at or above this severity exists.")] = None,
    as_json: JsonOption = False,
    installed: Annotated[bool, typer.Option(
        "--installed", help="Also audit the packages installed in this Python environment.")] = False,
    output: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--output", "-o", help="Write the sarif/json/markdown report to this file instead of stdout.")] = None,
    exclude: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--exclude", "-x", help="Skip paths matching this glob or folder (relative to PATH); repeatable.")] = None,
    config: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--config", help="Read [tool.kb.audit] from this pyproject.toml (default: the nearest one above PATH, "
                         "else above the working directory).")] = None,
    no_config: Annotated[bool, typer.Option("--no-config", help="Ignore [tool.kb]: flags and defaults only.")] = False,
) -> None:
    """Find CUDA lock-in: .cuda(), "cuda" devices, torch.cuda.*, NCCL, Triton and CUDA
    kernels, CUDA-only dependencies and base images (Python files, notebooks, .cu/.cuh,
    requirements*.txt, pyproject.toml, setup.cfg, Pipfile, environment.yml, Dockerfiles),
    each with a portable alternative.

    Severity: high inside a forward method or a training step (a function whose name
    contains 'train', ends in '_step' or is 'fit'), for Triton/CUDA kernels and CUDA-only
    compiled dependencies; low in tests, export/conversion/benchmark scripts, dev-only
    dependencies and files that could not be read or parsed; medium elsewhere.

    Virtualenvs, site-packages, node_modules, .git and vendored/third_party trees are
    skipped. Exit 1 with --fail-on when a finding at or above that severity exists.
    [tool.kb.audit] in pyproject.toml may set fail-on and exclude; flags override it."""
    if as_json:
        if output_format not in (OutputFormat.table, OutputFormat.json):
            raise KBError(f"--json and --format {output_format.value} disagree; pass one of them")
        output_format = OutputFormat.json
    if output and output_format is OutputFormat.table:
        raise KBError("--output needs --format sarif, json or markdown")

    project, settled = audit_settings(path, config, no_config, fail_on.value if fail_on else None, exclude)
    with _progress() as on_file:
        report = audit_path(path, on_file=on_file, excludes=settled["exclude"])
    if installed:
        from kb.migrate.audit_deps import audit_installed

        report.findings.extend(audit_installed())
        sort_findings(report.findings)

    if output_format is OutputFormat.table:
        if report.findings:
            table(list(COLUMNS), _rows(report), title=f"kb audit {path}", status_column=None)
        typer.echo(neutral.terminal(summary_line(report)))
    else:
        if output_format is OutputFormat.json:
            from cli.render import envelope
            from kb.check.project_config import describe

            body = {**report.as_dict(), "config": describe(project, settled)}
            document = neutral.json_text(json.dumps(envelope(body), indent=2, ensure_ascii=False)) + "\n"
        elif output_format is OutputFormat.sarif:
            from kb.migrate.sarif import to_sarif

            document = neutral.json_text(json.dumps(to_sarif(report, kb.__version__), indent=2, ensure_ascii=False)) + "\n"
        else:
            document = render_markdown(report)
        if output:
            try:
                with open(output, "w", encoding="utf-8") as handle:
                    handle.write(document)
            except OSError as exc:
                raise KBError(f"cannot write {output}: {exc.strerror or exc}") from None
            sys.stderr.write(f"kb: {neutral.terminal(summary_line(report))}; report written to {neutral.terminal(output)}\n")
        else:
            sys.stdout.write(document)

    if settled["fail_on"] is not None and report.fails(Severity.parse(settled["fail_on"])):
        raise typer.Exit(1)


def audit_settings(path: str | None, config: str | None, no_config: bool, fail_on: str | None,
                   exclude: list[str] | None):
    """([tool.kb] of the project, what the audit runs with): --fail-on over the file's
    audit.fail-on; the file's audit.exclude globs plus --exclude (kb.check.project_config)."""
    from kb.check import project_config

    if config is not None and no_config:
        raise KBError("--config and --no-config disagree; pass one of them")
    import os

    project = project_config.load(path, explicit=config, disabled=no_config)
    base = None if path is None else (path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path)))
    return project, project_config.settle_audit(project, fail_on=fail_on, exclude=exclude, base=base or os.getcwd())

