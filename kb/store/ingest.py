"""Writing records into the KB: one transaction per source, provenance on every row.

A failing ingest leaves the KB exactly as it was and names the source. Evidence is
append-only: the same fact from the same document is stored once (its fingerprint), a
re-confirmation only refreshes `ingested_at`, and content identical to the source's last
ingest is a no-op. Verdicts (`Support`) are re-derived after every write, and the
change in verdicts is returned as a report.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from kb.errors import KBError
from kb.store import db, dbfile, support
from kb.store import records as rec
from kb.store.records import RecordError, utc_now
from kb.store.writer import IngestError, file_sha256, read_report, write_records
from kb.vocab import REPORT_ORIGIN

__all__ = ["IngestError", "ingest_jsonl", "ingest_records", "ingest_report_records", "read_report"]


def _support_snapshot(conn) -> dict[tuple, str]:
    raw = conn.connection.driver_connection
    return {tuple(row[:4]): row[4] for row in raw.execute("SELECT op, target, release_id, mode, status FROM support_status")}


def _changes(conn, before: dict[tuple, str], after: dict[tuple, str]) -> list[dict[str, Any]]:
    from kb.store.schema import Release

    versions = {r.id: r.version for r in conn.execute(Release.__table__.select())}
    out = []
    for key in sorted(set(before) | set(after), key=lambda k: (k[0], k[1], str(k[2]), k[3])):
        old, new = before.get(key), after.get(key)
        if old != new:
            op, target, release_id, mode = key
            out.append({"op": op, "target": target, "backend_version": versions.get(release_id),
                        "mode": mode, "old": old or "unknown", "new": new or "unknown"})
    return out


def _outranked(conn, local: dict[str, Any]) -> int:
    """How many of a report's verdicts lost to another source that says something else."""
    from sqlalchemy import text

    return conn.execute(text(
        "SELECT count(*) FROM observation o JOIN support s ON s.op = o.op AND s.target = o.target "
        "AND s.release_id = o.release_id AND s.mode = o.mode "
        "WHERE json_extract(o.report, '$.sha256') = :sha AND json_extract(o.report, '$.ingested_at') = :at "
        "AND s.observation_id != o.id AND s.status != o.status"), {"sha": local["sha256"], "at": local["ingested_at"]}
    ).scalar() or 0


def held_as_shipped(db_path: str, records: list[rec.Record]) -> bool:
    """True when the shipped data already holds this probe run and every observation of it, as
    they are (a `kb replay` of a spec the KB ships, on the same torch): ingesting them again
    would only restate shipped rows as local ones, which adds nothing and makes every later
    data/ change a full rebuild instead of kb.store.incremental's in-place refresh (#26)."""
    from kb.store.packed import fingerprint_bytes
    from kb.store.writer import fingerprint

    runs = [r for r in records if isinstance(r, rec.ProbeRun)]
    observations = [r for r in records if isinstance(r, rec.OpStatus)]
    if len(runs) != 1 or len(runs) + len(observations) != len(records) or not os.path.isfile(db_path):
        return False
    conn = db.open_kb(db_path)  # built and current, as ingest_records would have it
    try:
        found = conn.execute("SELECT origin FROM proberun WHERE run_id = ?", (runs[0].run_id,)).fetchone()
        if found is None or found[0] != "shipped":
            return False
        for r in observations:
            row = conn.execute("SELECT b.origin FROM observation_packed o JOIN provenance_batch b ON b.id = o.batch_id "
                               "WHERE o.fingerprint = ?", (fingerprint_bytes(fingerprint(r)),)).fetchone()
            if row is None or row[0] != "shipped":
                return False
        return True
    finally:
        conn.close()


def ingest_replay(db_path: str, records: list[rec.Record], run_id: str) -> dict[str, Any]:
    """A `kb replay` run's records ingested as source `replay:RUN_ID`; a run the KB ships as it is
    writes nothing (`held_as_shipped`) and its report says so (`shipped`, `unchanged`)."""
    source = f"replay:{run_id}"
    if held_as_shipped(db_path, records):
        return {"source": source, "added": 0, "unchanged": True, "shipped": True, "changes": [],
                "new_releases": [], "new_support_windows": []}
    return ingest_records(db_path, records, source_name=source)


def ingest_records(
    db_path: str,
    records: Iterable[rec.Record],
    *,
    source_name: str,
    content_sha256: str | None = None,
    origin: str = "local",
    local: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Ingest one source's records in one transaction; returns the change report.

    `local` (kb.store.provenance.report_info): the records come from a local report file
    and are stored as such (origin `report`), whatever they claim to be."""
    from sqlalchemy import select

    from kb.store.schema import IngestRun

    report: dict[str, Any] = {"source": source_name, "added": 0, "unchanged": False, "changes": [],
                              "new_releases": [], "new_support_windows": []}
    db.open_kb(db_path).close()  # built from data/ (or migrated, refreshed) before we add to it
    eng = dbfile.engine(db_path)
    try:
        with eng.begin() as conn:
            if content_sha256 is not None:
                last = conn.execute(
                    select(IngestRun.content_sha256).where(IngestRun.source_name == source_name)
                    .order_by(IngestRun.id.desc()).limit(1)
                ).scalar()
                if last == content_sha256:
                    report["unchanged"] = True
                    return report
            started = utc_now()
            if local is not None:
                local = {**local, "ingested_at": started}
                origin = REPORT_ORIGIN
            before = _support_snapshot(conn)
            writer = write_records(conn, records, ingested_at=started, origin=origin, report=local)
            support.rebuild(conn.connection.driver_connection)
            report["changes"] = _changes(conn, before, _support_snapshot(conn))
            conn.execute(IngestRun.__table__.insert().values(
                source_name=source_name, content_sha256=content_sha256, started_at=started,
                finished_at=utc_now(), added=writer.added, origin=origin))
            report.update(added=writer.added, new_releases=writer.new_releases,
                          new_support_windows=writer.new_windows, warnings=writer.warnings)
            if local is not None and not local.get("prefer_local"):
                report["outranked"] = _outranked(conn, local)
                if report["outranked"]:
                    report["warnings"] = [*writer.warnings, (
                        f"{local['file']}: {report['outranked']} verdict(s) of this report disagree with the KB's and "
                        "are kept beside them, not in their place (a local report ranks below shipped data and "
                        "kb's own inferences; ingest with --prefer-local to let it win)")]
    except RecordError as exc:
        raise IngestError(f"{source_name}: {exc} (KB unchanged)") from None
    except KBError:
        raise
    except Exception as exc:  # any database failure: the transaction was rolled back
        raise IngestError(f"{source_name}: ingest failed, KB unchanged: {type(exc).__name__}: {exc}") from None
    finally:
        eng.dispose()
    return report


def ingest_jsonl(db_path: str, path: str, *, prefer_local: bool = False) -> dict[str, Any]:
    """Load a portable JSONL report (e.g. `kb probe --out`) from another machine: stored as
    a local report (kb.store.provenance), ranked below shipped evidence unless `prefer_local`."""
    warnings: list[str] = []
    records = read_report(path, warn=warnings.append)
    if not records:
        raise IngestError(f"{path}: no records (an empty report is not evidence)")
    for record in records:
        shard = record.params.get("shard") if isinstance(record, rec.ProbeRun) and isinstance(record.params, dict) else None
        if isinstance(shard, dict):  # partial: an overload's verdict may need the other shards' tasks
            raise IngestError(f"{path}: shard {shard.get('index')}/{shard.get('count')} of run {record.run_id}; "
                              "ingest it together with the run's other shards (kb ingest DIR/*.jsonl)")
    return ingest_report_records(db_path, path, records, content_sha256=file_sha256(path),
                                 prefer_local=prefer_local, warnings=warnings)


def ingest_report_records(db_path: str, path: str, records: list[rec.Record], *, content_sha256: str,
                          prefer_local: bool = False, warnings: list[str] | None = None) -> dict[str, Any]:
    """Records read from a local report file (a JSONL probe report, or a saved
    get_fallback_ops() list turned into records by kb.probe.live.fallback_list): one path
    for every local file, so all are stored and shown as local reports alike."""
    from kb.store.provenance import report_info

    outcome = ingest_records(db_path, records, source_name=f"file:{os.path.basename(path)}",
                             content_sha256=content_sha256 + (":prefer-local" if prefer_local else ""),
                             local=report_info(path, content_sha256, utc_now(), prefer_local=prefer_local))
    outcome["warnings"] = (warnings or []) + outcome.get("warnings", [])
    return outcome
