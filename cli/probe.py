"""`kb probe`: evidence from an installed backend (`--static --backend NAME`) or from a
device (`--device DEV`: the live probe runs every OpInfo op there; `--resume RUN_ID`
finishes an interrupted run; `--compare-static` lists where the two disagree). The live
options and their rendering live in cli/probe_live.py.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from cli.options import DbOption, JsonOption
from cli.probe_live import (
    CompareOption,
    DtypesOption,
    GenericOption,
    OpsOption,
    ResumeOption,
    RunIdOption,
    SamplesOption,
    SetupOption,
    ShardOption,
    WorkersOption,
)
from kb.errors import KBError


class ProbeUsageError(KBError):
    """The probe command was called with options that do not fit together."""


def probe_command(
    static: Annotated[bool, typer.Option("--static", help="Read the installed backend's dispatch table (no device needed).")] = False,
    backend: Annotated[str | None, typer.Option("--backend", help="torch_tpu, torch_neuronx, sim, cpu, meta, cuda, xla.")] = None,
    device: Annotated[str | None, typer.Option("--device", help="Live probe: run every OpInfo op on this device (cpu, meta, sim, cuda, neuron, tpu, or another PrivateUse1 name).")] = None,
    resume: ResumeOption = None,
    compare_static_: CompareOption = False,
    dtypes: DtypesOption = None,
    workers: WorkersOption = 1,
    ops: OpsOption = None,
    samples: SamplesOption = 10,
    out: Annotated[str | None, typer.Option("--out", help="Write a portable JSONL report (`kb ingest` reads it).")] = None,
    python_path: Annotated[list[str] | None, typer.Option(
        "--python-path", help="Extra import path for the probe process (e.g. where torch-tpu is installed); repeatable. "
        "Also read from KB_PROBE_PYTHONPATH.")] = None,
    cpu_fallback: Annotated[bool | None, typer.Option(
        "--cpu-fallback/--no-cpu-fallback", help="torch_tpu only: probe with its CPU-fallback switch on or off "
        "(default: as the package has it).")] = None,
    ingest: Annotated[bool, typer.Option("--ingest", help="With --out: also add the result to the KB.")] = False,
    timeout: Annotated[float | None, typer.Option("--timeout", help="--static: seconds the probe process may take (default 600); "
                                                      "live: seconds one op may take, all its samples in one dtype (default 60).")] = None,
    setup: SetupOption = None,
    run_id: RunIdOption = None,
    generic_detector: GenericOption = False,
    shard: ShardOption = None,
    db: DbOption = None,
    json_output: JsonOption = False,
) -> None:
    """Probe a backend: what each ATen overload resolves to (native, decomposed, fallback, unsupported) per mode.

    --static --backend NAME reads the installed backend's dispatch table; --device DEV
    runs every OpInfo op on the device and records what happened per overload × dtype
    (crash and timeout included; --resume RUN_ID finishes an interrupted run; --shard I/N
    or --shard auto runs one machine's share of a fleet's sweep).
    Without --out the result goes into the KB; with --out it is written as JSONL (add
    --ingest to do both). Probing the same install again adds nothing to the KB.
    """
    if device is not None or resume is not None or compare_static_ or shard is not None:
        if static or backend:
            raise ProbeUsageError("--static/--backend read a dispatch table, --device/--resume/--compare-static "
                                  "use the live probe: choose one")
        from cli.probe_live import probe_live_command

        probe_live_command(device=device, resume=resume, compare_static_=compare_static_, dtypes=dtypes,
                           timeout=timeout, workers=workers, ops=ops, samples=samples, out=out, ingest=ingest,
                           cpu_fallback=cpu_fallback, python_path=python_path, setup=setup, run_id=run_id,
                           generic_detector=generic_detector, json_output=json_output, db=db, shard=shard)
        return
    if not static:
        raise ProbeUsageError("say what to probe: kb probe --static --backend NAME, or kb probe --device DEV")
    if not backend:
        raise ProbeUsageError("--static needs --backend NAME (torch_tpu, torch_neuronx, sim, cpu, meta, cuda, xla)")
    from kb.probe.static import run_static_probe

    with _progress(f"probing {backend} (loading it in a separate process)"):
        result = run_static_probe(backend, python_path=python_path or (), options={"cpu_fallback": cpu_fallback},
                                  timeout=timeout or 600.0)
    from kb.store.dbfile import check_output

    check_output(out, db)
    written = _write_report(result, out) if out else None
    ingested = _ingest(result, db) if (out is None or ingest) else None
    _render(result, written, ingested, json_output)


def _progress(message: str):
    """A spinner on stderr while the child works; plain progress lines past ~2 s off a terminal."""
    if not sys.stderr.isatty():
        from cli.progress import Heartbeat

        return Heartbeat(message)
    from rich.console import Console

    return Console(stderr=True).status(message)


def _write_report(result, path: str) -> str:
    from kb.store.records import write_jsonl

    try:
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            write_jsonl(result.records(), out)
    except OSError as exc:
        raise ProbeUsageError(f"cannot write {path}: {exc.strerror}") from None
    return path


def _ingest(result, db: str | None) -> dict:
    try:
        from kb.store.ingest import ingest_records
    except ImportError:
        raise ProbeUsageError("this kb cannot ingest yet (kb.store.ingest missing); use --out report.jsonl") from None
    from kb.paths import default_db_path
    from kb.probe.static import SOURCE_NAME

    return ingest_records(db or default_db_path(), result.records(), source_name=SOURCE_NAME)


def _render(result, written: str | None, ingested: dict | None, json_output: bool) -> None:
    from cli.render import emit_json, note, table
    from kb.store.records import to_dict

    counts = result.counts()
    if json_output:
        emit_json({"run": to_dict(result.run), "counts": counts, "out": written, "ingested": ingested})
        return
    run = result.run
    title = (f"{run.backend} {run.backend_version} ({run.target}, key {run.params['dispatch_key']}) "
             f"under torch {run.torch_version}, python {run.python_version}: {run.params['ops']} ATen overloads")
    rows = [(mode, status, n) for mode, by_status in counts.items() for status, n in by_status.items()]
    table(["mode", "status", "overloads"], rows, title=title)
    note(f"run {run.run_id}")
    if written:
        note(f"wrote {len(result.statuses) + 1} records to {written}")
    if ingested is not None:
        if ingested.get("unchanged"):
            note("ingested into the KB: nothing new (the same report was ingested before)")
        else:
            note(f"ingested into the KB: {ingested['added']} new observations, "
                 f"{len(ingested['changes'])} verdicts changed (kb probe ... --json lists them)")
