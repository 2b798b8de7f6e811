"""`kb replay SPEC.json`: the dispatcher replay of a backend known by its kernel list.

    kb replay data/replay/tpu-0.1.1.json                 # into the KB (source kind: inferred)
    kb replay --all --out-dir data/inferred              # every shipped spec, as JSONL reports
    kb replay data/replay/x.json --ops 'nn.functional.*' --no-ingest --out x.jsonl

The spec names the kernel list file and the fallback policy with their sources; see
kb/probe/replay.py for what runs and data/replay/ for the shipped specs.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from cli.options import DbOption, JsonOption
from cli.probe_live import OpsOption, WorkersOption
from kb.errors import KBError
from kb.neutral import terminal


class ReplayUsageError(KBError):
    """kb replay was called with options that do not fit together."""


def replay_command(
    specs: Annotated[list[str] | None, typer.Argument(help="Replay spec files (JSON; see data/replay/).")] = None,
    all_specs: Annotated[bool, typer.Option("--all", help="Every spec shipped in data/replay/.")] = False,
    out: Annotated[str | None, typer.Option("--out", help="Write the JSONL report here (one spec only).")] = None,
    out_dir: Annotated[str | None, typer.Option("--out-dir", help="Write replay-TARGET-VERSION.jsonl reports here.")] = None,
    ingest: Annotated[bool, typer.Option("--ingest/--no-ingest", help="Add the result to the KB "
                                         "(default: yes, unless --out/--out-dir is given).")] = None,
    trace: Annotated[bool, typer.Option("--trace/--no-trace", help="Run OpInfo samples on the configured sim "
                                        "to find where decomposed ops run (default: yes).")] = True,
    ops: OpsOption = None,
    workers: WorkersOption = 2,
    db: DbOption = None,
    json_output: JsonOption = False,
) -> None:
    """Replay a kernel list through PyTorch's real dispatcher: every ATen overload's verdict per mode, inferred."""
    from kb.probe import replay
    from kb.store.catalog import read_catalog, shipped_catalogs

    paths = list(specs or [])
    if all_specs:
        paths += replay.shipped_specs()
    if not paths:
        raise ReplayUsageError("name a replay spec (data/replay/*.json) or pass --all")
    if out and len(paths) > 1:
        raise ReplayUsageError("--out takes one spec; use --out-dir for several")
    if ingest is None:
        ingest = not (out or out_dir)
    loaded = [replay.load_spec(path) for path in paths]  # every spec checked before anything runs
    catalogs = shipped_catalogs()
    if not catalogs:
        raise ReplayUsageError("no op catalog in data/ops: kb db catalog builds one")
    catalog = read_catalog(catalogs[-1])
    patterns = [p for p in (ops or "").split(",") if p] or None
    results = []
    for spec in loaded:
        label = terminal(f"{spec.target} {spec.backend_version}")  # from the spec file: shown, never obeyed
        run, statuses = replay.replay(spec, catalog, trace=trace, patterns=patterns, workers=workers,
                                      on_start=lambda total, done, label=label: _progress(label, done, total),
                                      on_task=_ticker(label))
        records = [run, *sorted(statuses, key=lambda s: (s.op, s.mode))]
        from kb.store.dbfile import check_output

        destination = out or (replay.out_file(spec, out_dir) if out_dir else None)
        check_output(destination, db)
        written = _write(records, destination)
        ingested = _ingest(records, db, run.run_id) if ingest else None
        results.append((spec, run, statuses, written, ingested))
    _render(results, json_output)


def _progress_wanted() -> bool:
    """Progress lines on a terminal stderr, or off one with KB_PROGRESS=lines (cli.progress: a
    script reading stderr for the one-line error gets nothing before it)."""
    from cli.progress import lines_wanted

    return sys.stderr.isatty() or lines_wanted()


def _progress(label: str, done: int, total: int) -> None:
    if not _progress_wanted():
        return
    sys.stderr.write(f"kb: replaying {label}: tracing leaves with {total - done} OpInfo tasks...\n")


def _ticker(label: str):
    """One stderr line every 100 finished tasks (where progress is wanted): long work is never silent."""
    count = {"n": 0}
    wanted = _progress_wanted()

    def tick(_task) -> None:
        count["n"] += 1
        if wanted and count["n"] % 100 == 0:
            sys.stderr.write(f"kb: replaying {label}: {count['n']} tasks done\n")

    return tick


def _write(records, path: str | None) -> str | None:
    if path is None:
        return None
    from kb.store.records import write_jsonl

    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path + ".part", "w", encoding="utf-8") as fh:
            write_jsonl(records, fh)
        os.replace(path + ".part", path)
    except OSError as exc:
        raise ReplayUsageError(f"cannot write {path}: {exc.strerror}") from None
    return path


def _ingest(records, db: str | None, run_id: str) -> dict:
    from kb.paths import default_db_path
    from kb.store.ingest import ingest_replay

    return ingest_replay(db or default_db_path(), records, run_id)


def _counts(statuses) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for s in statuses:
        effective = (s.detail or {}).get("effective") if s.status == "decomposed" else s.status
        key = effective or "decomposed (leaves not traced)"
        counts.setdefault(s.mode, {})[key] = counts.setdefault(s.mode, {}).get(key, 0) + 1
    return counts


def _render(results, json_output: bool) -> None:
    from cli.render import emit_json, note, table
    from kb.store.records import to_dict

    if json_output:
        emit_json({"replays": [{"run": to_dict(run), "effective_counts": _counts(statuses), "out": written,
                                "ingested": ingested} for _spec, run, statuses, written, ingested in results]})
        return
    for spec, run, statuses, written, ingested in results:
        rows = [(mode, status, n) for mode, by in _counts(statuses).items() for status, n in sorted(by.items())]
        table(["mode", "where it runs", "overloads"], rows,
              title=f"{spec.target} {spec.backend_version}: {run.params['kernels']} kernels replayed under torch "
                    f"{run.torch_version} (inferred)")
        note(f"run {run.run_id}; kernel list: {spec.kernels_source}; policy: {spec.policy_source}")
        if written:
            note(f"wrote {len(statuses) + 1} records to {written}")
        if ingested is not None:
            note("ingested: nothing new (the KB ships this run as it is)" if ingested.get("shipped") else
                 "ingested: nothing new" if ingested.get("unchanged") else
                 f"ingested: {ingested['added']} new observations, {len(ingested['changes'])} verdicts changed")
