"""`kb probe --device DEV`: the live probe (run every OpInfo on a device, record what
happened per ATen overload × dtype), `--resume RUN_ID` after a kill, and
`--compare-static` (where the live evidence contradicts the static probe's verdict).

`kb probe` (cli/probe.py) declares the command's options and hands the live ones to
`probe_live_command`; the live-only option types are declared here and shared with it.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from cli.options import DbOption, JsonOption
from kb.errors import KBError

ResumeOption = Annotated[str | None, typer.Option("--resume", help="Continue run RUN_ID after an interruption (redoes nothing finished).")]
CompareOption = Annotated[bool, typer.Option("--compare-static", help="List ops where live evidence contradicts the static probe (exit 1 if any).")]
DtypesOption = Annotated[str | None, typer.Option("--dtypes", help="Comma-separated dtypes (default float32,bfloat16,float16,int64,bool).")]
WorkersOption = Annotated[int, typer.Option("--workers", min=1, help="Worker processes.")]
OpsOption = Annotated[str | None, typer.Option("--ops", help="Comma-separated OpInfo name patterns, e.g. 'add,nn.functional.*'.")]
SamplesOption = Annotated[int, typer.Option("--samples", min=0, help="Samples per op and dtype (0: all).")]
SetupOption = Annotated[list[str] | None, typer.Option("--setup", hidden=True, help="Module each worker imports first (test kernels).")]
RunIdOption = Annotated[str | None, typer.Option("--run-id", help="Name the run (default: generated; for --shard, "
                                                  "derived from the parameters so every shard agrees).")]
ShardOption = Annotated[str | None, typer.Option(
    "--shard", help="Run only shard I/N of the tasks (counting from 1; split by expected cost, the same on every "
    "machine), or 'auto' from Slurm job-array or Kubernetes Indexed-Job variables. Each shard writes its own "
    "report; `kb ingest` of all of them is the whole run.")]
GenericOption = Annotated[bool, typer.Option("--generic-detector", hidden=True, help="Detect fallbacks from the dispatch table only.")]


def probe_live_command(
    device: str | None = None,
    resume: ResumeOption = None,
    compare_static_: CompareOption = False,
    dtypes: DtypesOption = None,
    timeout: float | None = None,
    workers: WorkersOption = 1,
    ops: OpsOption = None,
    samples: SamplesOption = 10,
    out: str | None = None,
    ingest: bool = False,
    cpu_fallback: bool | None = None,
    python_path: list[str] | None = None,
    setup: SetupOption = None,
    run_id: RunIdOption = None,
    generic_detector: GenericOption = False,
    json_output: JsonOption = False,
    db: DbOption = None,
    shard: ShardOption = None,
) -> None:
    """Run every OpInfo op on a device and record native / fallback / unsupported / crash / timeout per overload × dtype.

    Without --out the results go into the KB; with --out they are written as JSONL (add
    --ingest to do both). The run's journal stays in the cache folder, so
    `--resume RUN_ID` finishes a run that was interrupted, redoing nothing.
    """
    result = None
    shard_spec = None
    if shard is not None:
        from kb.probe.live.shard import parse_shard

        if resume is not None or device is None:
            raise KBError("--shard starts a new share of a run: give --device (a shard run again resumes by itself)")
        if ingest or compare_static_:
            raise KBError("a shard is part of a run, not evidence on its own: ingest all shards' reports together "
                          "(kb ingest shard-*.jsonl)")
        shard_spec = parse_shard(shard)
    if device is not None or resume is not None:
        from kb.store.dbfile import check_output

        check_output(out, db)
        result = run_live(device=device, resume=resume, dtypes=dtypes, timeout=timeout, workers=workers, ops=ops,
                          samples=samples, out=out, ingest=(out is None or ingest) and shard_spec is None,
                          shard=shard_spec, setup=setup, run_id=run_id,
                          generic_detector=generic_detector, db=db, json_output=json_output,
                          render=not (json_output and compare_static_),
                          options={"cpu_fallback": cpu_fallback}, python_path=python_path)
    elif not compare_static_:
        raise KBError("say what to probe: --device DEV, --resume RUN_ID or --compare-static")
    if compare_static_:
        target = None
        if result is not None:
            target = result.run.target
        compare_static(db=db, target=target, json_output=json_output, live=result)


def run_live(*, device, resume, dtypes, timeout, workers, ops, samples, out, ingest, setup, run_id,
             generic_detector, db, json_output, options=None, python_path=None, render=True, shard=None):
    """Run (or resume) a live probe with a progress bar, then print its summary."""
    from kb.probe.live.opinfos import parse_patterns
    from kb.probe.live.probe import live_probe

    dtype_list = [d.strip() for d in dtypes.split(",") if d.strip()] if dtypes else None
    if device is not None and resume is not None:
        raise KBError("--resume continues a run on the device it started with: drop --device")
    with _Progress() as progress:
        try:
            result = live_probe(device=device, resume=resume, dtypes=dtype_list, patterns=parse_patterns(ops),
                                samples=samples or None, timeout=timeout, workers=workers, setup=setup,
                                run_id=run_id, out=out, db=db, ingest=ingest,
                                generic_detector=generic_detector, options=options, python_path=python_path,
                                shard=shard, on_start=progress.start,
                                on_task=progress.advance)
        except KeyboardInterrupt:
            progress.stop()
            if progress.run_id:
                sys.stderr.write(f"kb: interrupted; finished ops are kept: kb probe --resume {progress.run_id}\n")
            raise
    if render:  # with --json --compare-static the run's summary goes into that one JSON document
        _render(result, json_output)
    return result


class _Progress:
    """A rich progress bar with ETA on a terminal stderr; plain progress lines past ~2 s elsewhere."""

    def __init__(self):
        self.bar = None
        self.task = None
        self.run_id = None

    def __enter__(self):
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                                TextColumn("{task.fields[last]}"), console=Console(stderr=True), transient=False)
            self.bar.start()
            self.task = self.bar.add_task("starting workers", total=None, last="")
        else:  # a pipe or CI log: plain lines past ~2 s (cli.progress)
            from cli.progress import Heartbeat

            self.beat = Heartbeat("live probe: starting workers").__enter__()
        return self

    beat = None
    total = done = 0

    def start(self, total: int, done: int) -> None:
        self.total, self.done = total, done
        if self.beat is not None:
            self.beat.message = "live probe"
            self.beat.update(f"{done} of {total} cases")
        if self.bar is not None:
            self.bar.update(self.task, description="probing", total=total, completed=done)

    def advance(self, entry: dict[str, Any]) -> None:
        self.done += 1
        if self.beat is not None:
            self.beat.update(f"{self.done} of {self.total} cases, last {entry['key']} {entry['dtype']}")
        if self.bar is not None:
            flag = "" if entry["outcome"] == "ok" else f" {entry['outcome'].upper()}"
            self.bar.update(self.task, advance=1, last=f"{entry['key']} {entry['dtype']}{flag}")

    def stop(self) -> None:
        if self.beat is not None:
            self.beat.__exit__(None, None, None)
            self.beat = None
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __exit__(self, *exc):
        self.stop()
        return False


def _render(result, json_output: bool) -> None:
    from cli.render import emit_json, note, table
    from kb.store.records import to_dict

    summary = result.summary()
    if json_output:
        emit_json({"run": to_dict(result.run), "summary": summary, "report": result.report_path,
                   "ingested": result.ingested, "shard": result.shard})
        return
    run = result.run
    if result.shard:
        shard = result.shard
        note(f"shard {shard['index']}/{shard['count']} of run {run.run_id}: {run.params.get('tasks')} of "
             f"{shard['tasks_total']} tasks; report {result.report_path}")
        note("this shard's counts below are partial: kb ingest every shard's report to get the run's verdicts")
    statuses = sorted({s for counts in summary["by_dtype"].values() for s in counts})
    rows = [[dtype, *[counts.get(s, 0) for s in statuses]] for dtype, counts in summary["by_dtype"].items()]
    title = (f"live probe on {run.device} ({run.target} {run.backend_version}, torch {run.torch_version}): "
             f"{summary['overloads']} ATen overloads from {run.params.get('tasks')} OpInfo × dtype tasks")
    table(["dtype", *statuses], rows, title=title, status_column=None)
    if summary["notable"]:
        table(["op", "dtype", "status", "note"], [[n["op"], n["dtype"], n["status"], n["note"] or ""]
                                                  for n in summary["notable"]], title="worth a look")
    outcomes = ", ".join(f"{n} {word}" for word, n in run.params.get("outcomes", {}).items())
    note(f"tasks: {outcomes or 'none'}")
    note(f"run {run.run_id}; report {result.report_path}")
    if result.ingested is not None:
        note(f"ingested into the KB: {result.ingested['added']} new observations, "
             f"{len(result.ingested['changes'])} verdicts changed")


def compare_static(*, db, target, json_output, live=None) -> None:
    """Print the contradictions between live and static probes; exit 1 when there are some."""
    from cli.render import emit_json, note, table
    from kb.probe.live.probe import contradictions
    from kb.store.db import open_kb

    conn = open_kb(db)
    try:
        rows = contradictions(conn, target)
    finally:
        conn.close()
    if json_output:
        emit_json({"contradictions": rows} if live is None else
                  {"run": live.run.run_id, "summary": live.summary(), "contradictions": rows})
    elif rows:
        table(["op", "target", "version", "mode", "live", "static", "verdict", "why"],
              [[r["op"], r["target"], r["backend_version"], r["mode"], r["live"], r["static"], r["verdict"], r["why"]]
               for r in rows],
              title="live probe contradicts static probe", status_column="verdict")
    else:
        note("no contradictions between live and static probes" + (f" on {target}" if target else ""))
    if rows:
        raise typer.Exit(1)
