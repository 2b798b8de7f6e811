"""The typer declaration of `kb check` (its options and help); the command itself is
`cli.check.run`, which imports no typer, so the fast path (cli.fast) can call it too."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.options import DbOption, JsonOption, VerboseOption


def check_command(
    model: Annotated[str, typer.Argument(help="Model file (ExportedProgram, TorchScript, torch.save) or factory path/to/model.py:build.")],
    target: Annotated[list[str] | None, typer.Option("--target", "-t", help="Target, or TARGET=VERSION (repeat to compare side by side; default: [tool.kb] targets, else neuron).")] = None,
    backend_version: Annotated[list[str] | None, typer.Option("--backend-version", help="Backend version, or TARGET=VERSION per target (default: newest with data).")] = None,
    mode: Annotated[str | None, typer.Option("--mode", help="eager or compile (default: [tool.kb] mode, else eager).")] = None,
    input_shape: Annotated[list[str] | None, typer.Option("--input-shape", help="Input as 1x128:int64 (repeat per input): needed for factories and pickled modules; gives TorchScript shapes.")] = None,
    train: Annotated[bool, typer.Option("--train", help="Also trace the backward pass.")] = False,
    trust: Annotated[bool, typer.Option("--trust", help="Allow loading a file that runs code: unpickling through an allow-list (torch, containers, --trust-module modules); TorchScript in a child process with a time and memory limit.")] = False,
    trust_module: Annotated[list[str] | None, typer.Option("--trust-module", help="A module the pickle may name (your model's package; repeatable; implies --trust).")] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=1, help="Seconds a factory may take to build and trace (it runs in a child process).")] = 300,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, json, markdown, sarif or junit.")] = "table",
    fail_on: Annotated[str | None, typer.Option("--fail-on", help="Exit 1 when an op is this bad or worse: decomposed < fallback < unsupported (unknown ops do not count; see --fail-on-unknown).")] = None,
    fail_on_unknown: Annotated[bool | None, typer.Option("--fail-on-unknown/--no-fail-on-unknown", help="Exit 1 when an op has no evidence either way (a switch of its own).")] = None,
    baseline: Annotated[str | None, typer.Option("--baseline", help="Previous --format json output: only new problems fail.")] = None,
    allow: Annotated[list[str] | None, typer.Option("--allow", help="Accepted op (repeatable); never fails the gate.")] = None,
    save: Annotated[bool, typer.Option("--save", help="Also store the report in the KB (browsable in kb serve).")] = False,
    suggest: Annotated[bool, typer.Option("--suggest", help="Show the fix-its that match the model's calls, and what remains after them.")] = False,
    cost_latency_us: Annotated[str | None, typer.Option("--cost-latency-us", help="Host-cost model: µs per device↔host transition, N or LOW:HIGH (default: a published range).")] = None,
    cost_link_gbps: Annotated[str | None, typer.Option("--cost-link-gbps", help="Host-cost model: host-link GB/s, N or LOW:HIGH.")] = None,
    cost_host_gflops: Annotated[str | None, typer.Option("--cost-host-gflops", help="Host-cost model: host GFLOP/s on fallback ops, N or LOW:HIGH.")] = None,
    config: Annotated[str | None, typer.Option("--config", help="Read [tool.kb] from this pyproject.toml (default: the nearest one above MODEL, else above the working directory).")] = None,
    no_config: Annotated[bool, typer.Option("--no-config", help="Ignore [tool.kb]: flags and built-in defaults only.")] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Say for every ATen op MODEL runs whether TARGET runs it natively, decomposes it,
    falls back to the CPU, cannot run it, or nobody knows — with sources and places.
    [tool.kb] in the nearest pyproject.toml may set targets, mode, fail-on and waivers;
    flags override it."""
    arguments = dict(locals())  # every option, by run()'s parameter names
    from cli import check

    code = check.run(**arguments)
    if code:
        raise typer.Exit(code)
