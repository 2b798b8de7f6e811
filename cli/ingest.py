"""`kb ingest`: refresh the KB from the vendors' pages (or local copies of them) and from
probe reports, and say what changed.

    kb ingest report.jsonl                    # probe reports (kb probe --out)
    kb ingest reports/shard-*.jsonl           # the shards of a sharded probe: merged into one run
    kb ingest --source neuron-release-notes   # one source, from the web (HTTP cache)
    kb ingest --all --from-file ./neuron-docs # every source found in a local docs folder
    kb ingest --all --offline                 # from the HTTP cache only
    kb ingest --all --from-file DIR --dry-run # parse only: counts, nothing written
    kb ingest --all --from-file DIR --out data/scraped   # write sorted JSONL per source

Scraping is `scrapers` (fetch, parse → records); storing is `kb.store.ingest` (one
transaction per source, provenance kept). A failing source is reported and the others
still run; the command then exits 2.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Annotated, Any

import typer

from cli.options import DbOption, JsonOption
from cli.render import emit_json, error, note, table
from kb.errors import KBError


def _ingest_module():
    try:
        from kb.store import ingest
    except ImportError:
        raise KBError("this build of kb has no kb.store.ingest module (storage not available)") from None
    return ingest


def _scrape(name: str, from_file: str | None, offline: bool, client) -> tuple[list, str, int]:
    """(records, combined sha256 of the documents, document count) for one source."""
    from scrapers.base import combined_sha256
    from scrapers.registry import fetch_documents, get_source, local_documents

    source = get_source(name)
    if from_file:
        documents = local_documents(source, from_file)
    else:
        documents = fetch_documents(source, client, offline=offline)
    return source.scrape(documents), combined_sha256(documents), len(documents)


def write_sorted_jsonl(records: list, path: str) -> int:
    """Records as JSONL with lines sorted, so a diff between two scrapes shows only what
    changed (retrieval times aside)."""
    import io

    from kb.store.records import write_jsonl

    buffer = io.StringIO()
    write_jsonl(records, buffer)
    lines = sorted(set(buffer.getvalue().splitlines()))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + ("\n" if lines else ""))
    return len(lines)


def _counts(records: list) -> dict[str, int]:
    from kb.store.records import to_dict

    return dict(sorted(Counter(to_dict(r)["record"] for r in records).items()))


def _progress(total: int):
    """A rich progress bar on a terminal, nothing in pipes."""
    if not sys.stderr.isatty() or total < 2:
        return None
    from rich.progress import Progress

    return Progress(transient=True)


def ingest_command(
    paths: Annotated[list[str] | None, typer.Argument(help="Probe report files (JSONL from `kb probe --out`).")] = None,
    source: Annotated[list[str] | None, typer.Option("--source", help="Source to scrape (repeatable); see --list.")] = None,
    all_sources: Annotated[bool, typer.Option("--all", help="Scrape every known source.")] = False,
    from_file: Annotated[str | None, typer.Option(
        "--from-file", help="Read the source from a local file, or a folder laid out like aws-neuron-sdk.")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Use the HTTP cache only; never the network.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Fetch and parse, report counts, write nothing.")] = False,
    out: Annotated[str | None, typer.Option(
        "--out", help="Write each source's records as sorted JSONL into this folder instead of the KB.")] = None,
    list_sources: Annotated[bool, typer.Option("--list", help="List the known sources and exit.")] = False,
    fallback_ops: Annotated[bool, typer.Option(
        "--fallback-ops", help="The files are what torch_neuronx.get_fallback_ops() printed after a run "
        "(op names); needs --backend-version.")] = False,
    backend_version: Annotated[str | None, typer.Option(
        "--backend-version", help="With --fallback-ops: the torch-neuronx version the run used, e.g. 2.14.3.0.")] = None,
    target: Annotated[str, typer.Option("--target", "-t", help="With --fallback-ops: the target the run used.")] = "neuron",
    torch_version: Annotated[str | None, typer.Option(
        "--torch-version", help="With --fallback-ops: the PyTorch version the run used.")] = None,
    prefer_local: Annotated[bool, typer.Option(
        "--prefer-local", help="Let these report files outrank shipped evidence (recorded with them).")] = False,
    json_output: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Refresh the KB from vendor documents and probe reports, with a change report."""
    from scrapers.registry import SOURCES

    if list_sources:
        rows = [(s.name, s.kind, len(s.urls), s.description) for s in SOURCES.values()]
        if json_output:
            emit_json([dict(zip(("source", "kind", "documents", "description"), row, strict=False)) for row in rows],
                      "sources")
        else:
            table(["source", "kind", "documents", "description"], rows)
        return
    if fallback_ops or backend_version or torch_version:
        _fallback_lists(paths or [], fallback_ops, backend_version, target, torch_version, db, dry_run, json_output,
                        prefer_local)
        return
    names = list(SOURCES) if all_sources else list(dict.fromkeys(source or []))
    if not names and not paths:
        raise KBError("nothing to ingest: give probe report files, --source NAME or --all (see --list)")
    if from_file and not names:
        raise KBError("--from-file needs --source NAME or --all")
    if from_file and not os.path.exists(from_file):
        raise KBError(f"{from_file}: no such file or folder")
    for name in names:
        if name not in SOURCES:
            raise KBError(f"unknown source {name!r} (known: {', '.join(sorted(SOURCES))})")

    from kb.paths import default_db_path

    db_path = db or default_db_path()
    writing = not dry_run and out is None
    if writing:
        from kb.store.dbfile import check_file

        check_file(db_path)  # a device, FIFO or foreign database: refused before any source is fetched
    results: list[dict[str, Any]] = []
    failures: list[str] = []
    plain, shards = _split_shard_reports(paths or [], failures)
    for path in plain:
        try:
            results.append(_report_file(db_path, path, writing, prefer_local))
        except KBError as exc:
            failures.append(str(exc))
    if shards:
        _shard_runs(db_path, shards, writing, results, failures, prefer_local)
    for outcome in _run_sources(names, db_path, from_file=from_file, offline=offline, out=out, writing=writing,
                                skip_absent=all_sources and bool(from_file), all_online=all_sources and not from_file):
        (failures.append if isinstance(outcome, str) else results.append)(outcome)

    if json_output:
        emit_json({"results": results, "errors": failures})
    else:
        _render(results, writing)
    for result in results:
        for warning in result.get("warnings") or ():
            note(warning)
    for message in failures:
        error(message)
    if failures:
        raise typer.Exit(2)


def _fallback_lists(paths: list[str], fallback_ops: bool, backend_version: str | None, target: str,
                    torch_version: str | None, db: str | None, dry_run: bool, json_output: bool,
                    prefer_local: bool = False) -> None:
    """`kb ingest FILE --fallback-ops --backend-version V`: a saved get_fallback_ops() list
    as live evidence, through the same ingest (and local marking) as a probe report."""
    from kb.paths import default_db_path
    from kb.probe.live import fallback_list

    if not fallback_ops:
        raise KBError("--backend-version and --torch-version belong to --fallback-ops (a JSONL report names its versions)")
    if not backend_version:
        raise KBError("--fallback-ops needs --backend-version (the torch-neuronx version of the run, e.g. 2.14.3.0)")
    if not paths:
        raise KBError("--fallback-ops needs the file(s) get_fallback_ops() was saved to")
    db_path = db or default_db_path()
    results, failures = [], []
    for path in paths:
        try:  # one bad file is reported and skipped; the others go on
            found = fallback_list.read(path)
        except KBError as exc:
            failures.append(str(exc))
            continue
        records = fallback_list.to_records(found, backend_version=backend_version, target=target,
                                           torch_version=torch_version)
        if dry_run:
            results.append({"source": path, "documents": 1, "records": _counts(records), "skipped": found.skipped})
            continue
        outcome = _ingest_module().ingest_report_records(db_path, path, records, content_sha256=found.sha256,
                                                          prefer_local=prefer_local)
        results.append({**outcome, "ops": len(found.ops), "skipped": found.skipped})
        if not json_output:
            if found.skipped:
                note(f"{path}: {len(found.skipped)} names left out (not ATen ops): {', '.join(found.skipped[:5])}")
            for warning in outcome.get("warnings") or ():
                note(warning)
    if json_output:
        emit_json({"results": results, "errors": failures})
    else:
        _render(results, not dry_run)
    for message in failures:
        error(message)
    if failures:
        raise typer.Exit(2)


def _split_shard_reports(paths: list[str], failures: list[str]) -> tuple[list[str], list[tuple[str, Any]]]:
    """(ordinary report files, shard reports with their record): shards are merged per run."""
    from kb import userfiles
    from kb.probe.live.merge import peek_shard

    plain, shards = [], []
    for path in paths:
        try:
            record = peek_shard(path) if userfiles.is_regular(path) else None
        except KBError as exc:
            failures.append(str(exc))
            continue
        if record is None:
            plain.append(path)
        else:
            shards.append((path, record))
    return plain, shards


def _shard_runs(db_path: str, shards: list[tuple[str, Any]], writing: bool, results: list, failures: list,
                prefer_local: bool = False) -> None:
    """Merge the shards of each run; ingest a complete run as the single-machine run it
    is (same run id, same source), and report a run with a shard missing as missing."""
    from kb.probe.live.merge import merge
    from kb.probe.live.report import SOURCE_NAME

    try:
        runs = merge([(path, record) for path, record in shards])
    except KBError as exc:
        failures.append(str(exc))
        return
    for run in runs:
        if not run.complete:
            failures.append(run.describe_missing())
            if not writing:
                results.append({"source": f"run {run.run_id}", "documents": len(run.paths), "records": {},
                                "shards": {"count": run.count, "have": sorted(run.paths), "missing": run.missing}})
            continue
        records = [run.run, *run.statuses]
        shard_note = {"count": run.count, "have": sorted(run.paths), "missing": []}
        if not writing:
            results.append({"source": f"run {run.run_id}", "documents": len(run.paths), "records": _counts(records),
                            "shards": shard_note})
            continue
        try:
            from kb.store.provenance import report_of_files

            outcome = _ingest_module().ingest_records(db_path, records, source_name=f"{SOURCE_NAME}:{run.run_id}",
                                                      local=report_of_files(sorted(run.paths.values()), prefer_local))
        except KBError as exc:
            failures.append(str(exc))
            continue
        results.append({**outcome, "shards": shard_note})


def _report_file(db_path: str, path: str, writing: bool, prefer_local: bool = False) -> dict[str, Any]:
    """Ingest one probe report (or, when not writing, just read and count it)."""
    from kb import userfiles

    userfiles.check_file(path, userfiles.MAX_REPORT_BYTES)
    if writing:
        return _ingest_module().ingest_jsonl(db_path, path, prefer_local=prefer_local)
    from kb.store.records import RecordError, read_jsonl

    warnings: list[str] = []
    try:
        records = list(read_jsonl(userfiles.iter_lines(path), where=path, warn=warnings.append))  # as a real ingest reads it
    except RecordError as exc:
        raise KBError(str(exc)) from None
    return {"source": path, "documents": 1, "records": _counts(records), "warnings": warnings}


def _run_sources(names: list[str], db_path: str, *, from_file: str | None, offline: bool, out: str | None,
                 writing: bool, skip_absent: bool, all_online: bool = False):
    """Scrape each source and store (or write / count) its records; yields a result dict
    per source, or an error message for a source that failed (the others still run)."""
    if not names:
        return
    client = None
    if not from_file:
        from scrapers.http import HttpClient

        client = HttpClient(offline=offline)
    progress = _progress(len(names))
    task = progress.add_task("scraping", total=len(names)) if progress else None
    if progress:
        progress.start()
    try:
        for name in names:
            if progress:
                progress.update(task, description=name)
            try:
                records, sha, documents = _scrape(name, from_file, offline, client)
                if out is not None:
                    from kb.store.dbfile import check_output

                    file = os.path.join(out, f"{name}.jsonl")
                    check_output(file, db_path)
                    written = write_sorted_jsonl(records, file)
                    yield {"source": name, "documents": documents, "written": written, "file": file,
                           "records": _counts(records)}
                elif not writing:
                    yield {"source": name, "documents": documents, "records": _counts(records), "content_sha256": sha}
                else:
                    yield _ingest_module().ingest_records(db_path, records, source_name=name, content_sha256=sha)
            except (RecursionError, MemoryError) as exc:  # a parser not yet bounded: this source only
                yield f"{name}: its documents are too deeply nested or too large to parse ({type(exc).__name__})"
            except KBError as exc:
                if all_online and "no public copy" in str(exc):
                    note(f"{name}: skipped (local file only: use --source {name} --from-file PATH)")
                elif skip_absent and "none of the documents" in str(exc):
                    note(f"{name}: skipped (no documents of this source in {from_file})")
                else:
                    yield str(exc)
            finally:
                if progress:
                    progress.advance(task)
    finally:
        if progress:
            progress.stop()
        if client is not None:
            client.close()


def _render(results: list[dict[str, Any]], writing: bool) -> None:
    if not results:
        return
    if not writing:
        rows = [(r["source"], r["documents"], ", ".join(f"{k} {v}" for k, v in r["records"].items()),
                 r.get("file", "")) for r in results]
        table(["source", "documents", "records", "written to"], rows, status_column=None)
        return
    rows = [(r.get("source", ""), r.get("added", 0), "yes" if r.get("unchanged") else "no", len(r.get("changes") or []),
             len(r.get("new_releases") or []), len(r.get("new_support_windows") or [])) for r in results]
    table(["source", "added", "unchanged", "changes", "new releases", "new support windows"], rows, status_column=None)
    changes = [(c.get("op"), c.get("target"), c.get("backend_version"), c.get("mode"), c.get("old") or "", c.get("new") or "")
               for r in results for c in r.get("changes") or []]
    if changes:
        table(["op", "target", "version", "mode", "old", "new"], changes, title="Changed verdicts", status_column="new")
