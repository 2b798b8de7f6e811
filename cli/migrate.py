"""`kb parity`, `kb bench`, `kb report`: the migration guides' parity test, throughput
measurement and checklist, as commands. Parsing and rendering only; the work is in
`kb.migrate.parity`, `kb.migrate.throughput` and `kb.migrate.report`."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from cli.options import DbOption, JsonOption
from cli.render import emit_json, note, table
from kb.errors import KBError

ModelArg = Annotated[str, typer.Argument(help="Factory path/to/model.py:build (real weights from --seed) or an "
                                              "ExportedProgram file.")]
InputShapeOpt = Annotated[Optional[list[str]], typer.Option(  # noqa: UP045 (typer needs Optional on 3.11)
    "--input-shape", help="Input as BxS:int64, Bx128:int64 or 2x8 (repeat per input). B and S are the batch and "
                          "sequence placeholders; without them dim 0 is batch and dim 1 is seq.")]
DtypeOpt = Annotated[Optional[str], typer.Option(  # noqa: UP045
    "--dtype", help="float32, bfloat16, float16 or float64: weights and float inputs (factories).")]
BatchOpt = Annotated[Optional[int], typer.Option("--batch", help="Value of B (or dim 0).")]  # noqa: UP045
SeqOpt = Annotated[Optional[int], typer.Option("--seq", help="Value of S (or dim 1).")]  # noqa: UP045
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed for the weights and the inputs.")]
TrustOpt = Annotated[bool, typer.Option("--trust", help="Allow unpickling (runs code from the file).")]


def _sim_drift(device: str, values: list[str]) -> None:
    """--sim-drift aten::cumsum=1e-8: a sim kernel whose error grows with size (demo/testing)."""
    if not values:
        return
    if device.split(":")[0] != "sim":
        raise KBError("--sim-drift needs --device sim")
    from kb.opnames import OpNameError, canonical
    from kb.probe import sim

    for value in values:
        name, sep, rel = value.partition("=")
        try:
            op = canonical(name.strip())
            rate = float(rel) if sep else 1e-6
            sim._overload(__import__("torch"), op)
        except (OpNameError, ValueError, AttributeError):
            raise KBError(f"--sim-drift {value}: expected OP=RELATIVE_ERROR_PER_ELEMENT, e.g. aten::cumsum=1e-8") \
                from None
        sim.install_drifting_kernel(op, rate)


def _fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "0" if value == 0 else f"{value:.3g}"
    return str(value)


def parity_command(
    model: ModelArg,
    device: Annotated[str, typer.Option("--device", "-d", help="Device under test: sim, cuda, neuron, tpu...")],
    ref: Annotated[str, typer.Option("--ref", help="Reference device.")] = "cpu",
    dtype: DtypeOpt = None,
    input_shape: InputShapeOpt = None,
    sweep: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--sweep", help="Sizes to run, e.g. seq=128,512,2048 or batch=1,8 (repeatable; all combinations).")] = None,
    batch: BatchOpt = None,
    seq: SeqOpt = None,
    atol: Annotated[Optional[float], typer.Option(  # noqa: UP045
        "--atol", help="Absolute tolerance (default: torch.testing's for the output dtype).")] = None,
    rtol: Annotated[Optional[float], typer.Option(  # noqa: UP045
        "--rtol", help="Relative tolerance (default: torch.testing's for the output dtype).")] = None,
    fail_on_growth: Annotated[bool, typer.Option(
        "--fail-on-growth", help="Exit 1 when the error grows with the input size, even within tolerance.")] = False,
    seed: SeedOpt = 0,
    trust: TrustOpt = False,
    sim_drift: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--sim-drift", help="With --device sim: give OP a kernel whose relative error grows with the input "
                            "size, e.g. aten::cumsum=1e-8 (to see what a drifting kernel looks like).")] = None,
    against: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--against", help="Run this other program on --device instead of MODEL (e.g. kb fix's output).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Run MODEL on --ref and on --device with the same weights and inputs and compare
    the outputs: max abs / rel difference, pass/fail at dtype-aware tolerances, and over a
    --sweep whether the error grows with size. Exit 1 when a point fails (or, with
    --fail-on-growth, when the error grows); 2 on bad input or a missing device."""
    from kb.migrate.parity import run_parity

    progress = _Progress(as_json)
    _sim_drift(device, sim_drift or [])
    report = run_parity(model, device, ref=ref, dtype=dtype, input_shapes=input_shape, sweep=sweep, batch=batch,
                        seq=seq, atol=atol, rtol=rtol, seed=seed, trust=trust, fail_on_growth=fail_on_growth,
                        on_point=progress.point, against=against)
    progress.done()
    document = report.to_dict()
    if as_json:
        emit_json(document)
    else:
        rows = []
        for point in report.points:
            if point.error:
                rows.append([point.label, "", "", "", "", "", "", "error", point.error])
            for out in point.outputs:
                rows.append([point.label, out.name, out.dtype, _fmt(out.max_abs), _fmt(out.max_rel),
                             _fmt(out.atol), _fmt(out.rtol), "pass" if out.passed else "FAIL",
                             f"{out.mismatched}/{out.numel} outside tolerance" + (f"; {out.note}" if out.note else "")])
        table(["size", "output", "dtype", "max abs", "max rel", "atol", "rtol", "result", "detail"], rows,
              title=f"kb parity {model}: {device} vs {ref}", status_column=None)
        from kb.neutral import terminal

        t = report.trend  # output names and notes come from the user's model: shown, never obeyed
        sys.stdout.write(terminal(("trend: GROWS WITH SIZE — " if t["grows"] else "trend: ") + t["reason"]) + "\n")
        for line in report.notes:
            sys.stdout.write(f"note: {terminal(line)}\n")
        verdict = "passed" if report.passed else "FAILED"
        failing = document["failed_points"]
        sys.stdout.write(terminal(f"parity {verdict}" + (f" at {', '.join(failing)}" if failing else "")) + "\n")
    if not report.passed:
        raise typer.Exit(1)


class _Progress:
    """A rich status line per point on an interactive stderr; nothing in pipes or CI."""

    def __init__(self, quiet: bool):
        self.status = None
        if sys.stderr.isatty() and not quiet:
            from rich.console import Console

            self.status = Console(stderr=True).status("running the reference and the device…")
            self.status.__enter__()
        elif not quiet:
            from cli.progress import Heartbeat

            self.status = Heartbeat("running the reference and the device")
            self.status.__enter__()

    def point(self, result) -> None:
        if self.status is not None:
            self.status.update(f"done {result.label}")

    def done(self) -> None:
        if self.status is not None:
            self.status.__exit__(None, None, None)
            self.status = None


def bench_command(
    model: ModelArg,
    device: Annotated[str, typer.Option("--device", "-d", help="Device to measure: cpu, sim, cuda, neuron, tpu...")],
    dtype: DtypeOpt = None,
    input_shape: InputShapeOpt = None,
    batch: BatchOpt = None,
    seq: SeqOpt = None,
    iters: Annotated[int, typer.Option("--iters", help="Timed steady-state calls (the median is reported).")] = 20,
    warmup: Annotated[int, typer.Option("--warmup", help="Untimed calls after the first call.")] = 3,
    tokens_per_call: Annotated[Optional[int], typer.Option(  # noqa: UP045
        "--tokens-per-call", help="Tokens one call processes (default: batch × seq of the first input).")] = None,
    compile_model: Annotated[bool, typer.Option("--compile", help="Wrap the model in torch.compile.")] = False,
    price_per_hour: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--price-per-hour", help="Machine price per hour: also print the cost per million tokens (kb cost).")] = None,
    currency: Annotated[Optional[str], typer.Option("--currency", help="Currency of the price (default USD).")] = None,  # noqa: UP045
    cost_file: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--cost-file", help="Add or replace this run's entry in a `kb cost --file` TOML file (needs --price-per-hour).")] = None,
    name: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--name", help="Target name for the cost entry (default: the device).")] = None,
    seed: SeedOpt = 0,
    trust: TrustOpt = False,
    as_json: JsonOption = False,
) -> None:
    """Tokens per second of MODEL on --device: the first call (compile, lazy init) timed
    apart from the steady state (median of --iters calls after --warmup calls). With
    --price-per-hour, the cost per million tokens through kb cost."""
    from kb.migrate.cost import format_money, make_target
    from kb.migrate.throughput import run_bench, write_cost_entry

    if cost_file and price_per_hour is None:
        raise KBError("--cost-file needs --price-per-hour")
    label = name or device
    if price_per_hour is not None:  # validate before spending time on the run
        make_target(label, price_per_hour, "1", currency, labels=("--price-per-hour", "--tokens-per-second",
                                                                 "--currency"))
    result = run_bench(model, device, dtype=dtype, input_shapes=input_shape, batch=batch, seq=seq, iters=iters,
                       warmup=warmup, tokens_per_call=tokens_per_call, compile_model=compile_model, seed=seed,
                       trust=trust)
    document = result.to_dict()
    shape = " ".join("x".join(map(str, s)) for s in result.shapes)
    entry_note = f"kb bench {shape}{' ' + result.dtype if result.dtype else ''}, median of {len(result.iteration_s)}"
    if price_per_hour is not None:
        priced = make_target(label, price_per_hour, f"{result.tokens_per_second:.6g}", currency, entry_note)
        document["cost"] = {"target": label, "currency": priced.currency, "price_per_hour": float(priced.price_per_hour),
                            "cost_per_million_tokens": float(priced.cost_per_million),
                            "formula": "price_per_hour * 1e6 / (tokens_per_second * 3600)"}
        if cost_file:
            write_cost_entry(cost_file, label, price_per_hour, result.tokens_per_second, currency, entry_note)
            document["cost"]["file"] = cost_file
    if as_json:
        emit_json(document)
        return
    steady = document["steady_state"]
    rows = [
        ["first call", f"{result.first_call_s * 1000:.2f} ms",
         f"{result.first_call_overhead_s * 1000:.2f} ms more than a steady call (compile, lazy init)"],
        ["steady state (median)", f"{steady['median_s'] * 1000:.3f} ms",
         f"{len(result.iteration_s)} calls after {result.warmup} warm-up; min {steady['min_s'] * 1000:.3f} ms, "
         f"p90 {steady['p90_s'] * 1000:.3f} ms"],
        ["tokens per call", str(result.tokens_per_call), shape],
        ["tokens per second", f"{result.tokens_per_second:,.1f}", "tokens per call / median"],
    ]
    if "cost" in document:
        cost = document["cost"]
        rows.append(["cost per 1M tokens", f"{format_money(priced.cost_per_million)} {cost['currency']}",
                     f"at {price_per_hour} {cost['currency']}/hour"])
    table(["measure", "value", "detail"], rows, title=f"kb bench {model} on {device}", status_column=None)
    if cost_file:
        note(f"wrote [{label}] to {cost_file} (kb cost --file {cost_file})")



def _read_text(path: str, what: str) -> str:
    from kb import userfiles

    try:
        return userfiles.read_text(path)
    except userfiles.FileRefused as exc:
        raise KBError(f"{what} {exc}") from None


def _read_parity(path: str) -> dict:
    from kb import userfiles

    try:
        data = userfiles.parse_json(_read_text(path, "--parity"), path)
    except userfiles.FileRefused:
        raise KBError(f"--parity {path}: not JSON (expected the output of kb parity --json)") from None
    if not isinstance(data, dict) or not isinstance(data.get("points"), list) or "passed" not in data:
        raise KBError(f"--parity {path}: not a kb parity --json output")
    return data


def _coverage(model: str, input_shape, trust: bool, targets: list[str], versions: dict, mode: str, db,
              train: bool = False) -> list[dict]:
    """kb check on the model, traced once (with the backward pass under --train) and
    resolved on each target through the same lookup and warning hooks as `kb check`."""
    from cli import check as cli_check
    from kb.check import model_formats, tracing
    from kb.check import resolve as kc

    source = model_formats.detect(model, trust=trust)
    traced = tracing.trace(source, input_shape, train=train, trust=trust)
    hooks = [*kc.WARNING_HOOKS, *cli_check.make_warning_hooks(db)]
    checks = []
    for target in targets:
        lookup, version = cli_check.make_lookup(db, target, versions.get(target), mode)
        report = kc.check(traced, lookup, target=target, backend_version=version, mode=mode, warning_hooks=hooks)
        checks.append({**report.to_dict(), "train": traced.train})
    return checks


def _eol(db, target: str, backend_version, next_cycle: str, stack) -> dict | None:
    """End-of-support warnings for the target's stack up to the next upgrade cycle."""
    from kb.eol import windows as keol

    now = keol.today()
    cycle = keol.user_day(next_cycle, "--next-cycle")
    if cycle < now:
        raise KBError(f"--next-cycle {next_cycle}: in the past (today is {now.isoformat()})")
    extra = {c["key"]: c["version"] for c in keol.parse_stack(stack)} if stack else None
    from kb.store.db import open_kb

    conn = open_kb(db)
    try:
        if backend_version is None:
            from kb.store import queries

            backend_version = queries.latest_release_with_verdicts(conn, target)
        warnings = keol.warnings_for(conn, target, backend_version, now,
                                     horizon_days=max(0, (cycle - now).days), extra=extra)
    finally:
        conn.close()
    return {"today": now.isoformat(), "next_cycle": cycle.isoformat(), "backend_version": backend_version,
            "stack": stack, "warnings": warnings}


def report_command(
    path: Annotated[Optional[str], typer.Argument(  # noqa: UP045
        help="Code base to audit (folder or file); omit to leave the code items out.")] = None,
    model: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--model", "-m", help="Model for op coverage (as kb check takes it).")] = None,
    target: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--target", "-t", help="Migration target: neuron, tpu... or TARGET=VERSION; repeat to compare targets "
                               "side by side (default: neuron).")] = None,
    backend_version: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--backend-version", help="Backend version, or TARGET=VERSION per target (default: newest with data).")] = None,
    mode: Annotated[str, typer.Option("--mode", help="eager or compile.")] = "eager",
    input_shape: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--input-shape", help="Model input as 1x128:int64 (factories, pickled modules).")] = None,
    trust: TrustOpt = False,
    train: Annotated[bool, typer.Option("--train", help="Check the training step: the backward pass's ops too.")] = False,
    parity: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--parity", help="Output of kb parity --json.")] = None,
    cost: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--cost", help="Targets TOML as kb cost --file reads it (kb bench --cost-file writes it).")] = None,
    next_cycle: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--next-cycle", help="Date of the next upgrade cycle, YYYY-MM-DD (default: 180 days from today).")] = None,
    stack: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--stack", help="Other parts of the stack for the end-of-support item, e.g. \"python=3.10 ubuntu=22.04\".")] = None,
    fmt: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--format", "-f", help="markdown or html (default: from --out's suffix, else markdown).")] = None,
    out: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--out", "-o", help="Write the report to this file instead of stdout.")] = None,
    fail_on_blocker: Annotated[bool, typer.Option(
        "--fail-on-blocker", help="Exit 1 when a checklist item fails.")] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """The migration checklist for a code base and a model on a target: device handling
    centralised? hand-written kernels? CUDA-only dependencies? op coverage and CPU
    fallbacks, numerical parity (--parity), cost per million tokens (--cost), end of
    support before --next-cycle. Markdown, or one self-contained HTML file (--out
    report.html) with inline charts."""
    from datetime import timedelta

    from cli.grammar import split_targets
    from kb.eol.windows import today
    from kb.migrate import report as kreport
    from kb.migrate.audit import audit_path
    from kb.migrate.cost import compare, targets_from_toml

    targets, versions = split_targets(target or ["neuron"], backend_version)
    if fmt is None:
        fmt = "html" if out and out.lower().endswith((".html", ".htm")) else "markdown"
    fmt = {"md": "markdown"}.get(fmt.lower(), fmt.lower())
    if fmt not in ("markdown", "html"):
        raise KBError(f"--format {fmt}: expected markdown or html")
    if as_json and out:
        raise KBError("--json prints the report document; drop --out (or --json)")
    from kb.store.dbfile import check_output

    check_output(out, db)
    if mode not in ("eager", "compile"):
        raise KBError(f"--mode {mode}: expected eager or compile")
    parity_doc = _read_parity(parity) if parity else None
    costs = None
    if cost:
        costs = [p.as_dict() for p in compare(targets_from_toml(_read_text(cost, "--cost"), source=cost))]
    from cli.check import _progress

    audit = None
    checks: list[dict] = []
    if path:
        with _progress(f"auditing {path}"):
            audit = audit_path(path)
    if model:
        with _progress(f"tracing {model} and resolving its ops on {', '.join(targets)}"):
            checks = _coverage(model, input_shape, trust, targets, versions, mode, db, train=train)
    by_target = {c["target"]: c for c in checks}
    cycle = next_cycle or (today() + timedelta(days=180)).isoformat()
    eols = [_eol(db, t, by_target[t]["backend_version"] if t in by_target else versions.get(t), cycle, stack)
            for t in targets]
    doc = kreport.build_report(targets=targets, audit=audit, checks=checks if model else None, parity=parity_doc,
                               costs=costs, eols=eols, generated=today().isoformat(), train=train)
    if as_json:
        emit_json(doc)
    else:
        text = kreport.render_html(doc) if fmt == "html" else kreport.render_markdown(doc)
        if out:
            try:
                with open(out, "w", encoding="utf-8") as handle:
                    handle.write(text)
            except OSError as exc:
                raise KBError(f"--out {out}: cannot write ({exc.strerror or exc})") from None
            c = doc["counts"]
            note(f"{fmt} report written to {out}: {c['pass']} pass, {c['warn']} warn, "
                 f"{c.get('unverified', 0)} not verified, {c['fail']} fail, {c['skipped']} skipped")
        else:
            sys.stdout.write(text)
    if fail_on_blocker and not doc["ready"]:
        raise typer.Exit(1)
