"""Building the KB file from the shipped `data/` (targets, op catalog, records).

A fresh build is written to a temporary file and renamed into place, so an interrupted
build leaves nothing half-made. A KB whose shipped part is out of date (data/ changed
since) is refreshed in one transaction: shipped rows are replaced, local evidence
(probes and ingests made on this machine) is kept.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from kb import __version__, paths
from kb.store import dbfile
from kb.store.catalog import read_catalog, shipped_catalogs
from kb.store.dbfile import data_fingerprint
from kb.store.records import utc_now
from kb.store.writer import IngestError, load_targets, read_report, write_records

SHIPPED_TABLES = ("observation", "limitation", "supportwindow", "caveat", "proberun", "ingestrun")


def targets_csv() -> str:
    return os.path.join(paths.data_dir(), "targets.csv")


def record_files() -> list[str]:
    """Every JSONL record file under data/ except the op catalogs, in a stable order; the
    doc rules (data/rules/) last, so that they apply to every release the others name."""
    root = paths.data_dir()
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        if os.path.relpath(folder, root).split(os.sep)[0] == "ops":
            continue
        found.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(".jsonl"))
    return sorted(found, key=lambda p: os.path.relpath(p, root).split(os.sep)[0] == "rules")


def load_ops(conn, rows: list[dict[str, Any]]) -> None:
    from sqlalchemy import delete, insert

    from kb.store.schema import KbMeta, Op

    conn.execute(delete(Op))
    conn.execute(insert(Op), [{**row, "schema_": row["schema"]} for row in rows])
    if rows:
        conn.execute(insert(KbMeta).prefix_with("OR REPLACE"), [{"key": "catalog_torch_version", "value": rows[0]["torch_version"]}])


def _load_shipped(conn) -> dict[str, int]:
    from sqlalchemy import text

    from kb.store import support

    load_targets(conn, targets_csv())
    support.clear(conn.connection.driver_connection)  # derived, rebuilt below; it points at observations
    for table in SHIPPED_TABLES:
        conn.execute(text(f"DELETE FROM {table} WHERE origin = 'shipped'"))  # observations before probe runs
    catalogs = shipped_catalogs()
    if catalogs:
        load_ops(conn, read_catalog(catalogs[-1]))
    stamp = utc_now()
    added = 0
    for path in record_files():
        try:
            added += write_records(conn, read_report(path), ingested_at=stamp, origin="shipped").added
        except IngestError:
            raise
        except ValueError as exc:
            raise IngestError(f"{path}: {exc}") from None
    verdicts = support.rebuild(conn.connection.driver_connection)
    _set_meta(conn, data_fingerprint=data_fingerprint(), built_at=stamp, kb_version=__version__)
    return {"records": added, "verdicts": verdicts}


def _set_meta(conn, **values: str) -> None:
    from sqlalchemy import insert

    from kb.store.schema import KbMeta

    conn.execute(insert(KbMeta).prefix_with("OR REPLACE"), [{"key": k, "value": v} for k, v in values.items()])


def build(path: str) -> dict[str, Any]:
    """Write a fresh KB at `path` from data/ (replacing any file there)."""
    started = time.perf_counter()
    dbfile.check_file(path)  # never replace a device, a FIFO or another application's database
    tmp = f"{path}.building-{os.getpid()}"
    remove_stale_builds(path)
    for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
        if os.path.exists(leftover):
            os.remove(leftover)
    eng = dbfile.engine(tmp, scratch=True)
    try:
        with eng.begin() as conn:
            counts = _load_shipped(conn)
        with eng.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    except BaseException:
        eng.dispose()
        for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
            if os.path.exists(leftover):
                os.remove(leftover)
        raise
    eng.dispose()
    for stale in (path + "-wal", path + "-shm"):
        if os.path.exists(stale):
            os.remove(stale)
    os.replace(tmp, path)
    return {"path": path, **counts, "seconds": round(time.perf_counter() - started, 3)}


def remove_stale_builds(path: str) -> list[str]:
    """Delete `PATH.building-PID` files (and their -wal/-shm) left by a build that was
    killed: only those whose PID no longer runs, so a concurrent build is left alone."""
    import glob

    removed = []
    for leftover in glob.glob(glob.escape(path) + ".building-*"):
        pid_text = leftover.rsplit(".building-", 1)[1].split("-", 1)[0]
        if not pid_text.isdigit() or _pid_alive(int(pid_text)):
            continue
        try:
            os.remove(leftover)
            removed.append(leftover)
        except OSError:
            pass
    return removed


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # someone else's process (or a PID kb cannot ask about): leave it
    return True


def refresh(path: str) -> dict[str, Any]:
    """Replace the shipped part of an existing KB (after migrating it), keeping local rows."""
    started = time.perf_counter()
    eng = dbfile.engine(path)
    try:
        with eng.begin() as conn:
            counts = _load_shipped(conn)
    finally:
        eng.dispose()
    return {"path": path, **counts, "seconds": round(time.perf_counter() - started, 3)}


def ensure_built(path: str) -> dict[str, Any]:
    """Build on first use, else migrate and refresh the shipped data; tells stderr why."""
    dbfile.check_file(path)
    remove_stale_builds(path)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        sys.stderr.write(f"kb: building the KB from shipped data at {path} (first use)...\n")
        return build(path)
    sys.stderr.write(f"kb: refreshing the shipped data in {path}...\n")
    return refresh(path)
