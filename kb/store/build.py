"""Building the KB file from the shipped `data/` (targets, op catalog, records).

A fresh build is written to a temporary file and renamed into place, so an interrupted
build leaves nothing half-made. A KB whose shipped part is out of date (data/ changed
since) is refreshed in one transaction: shipped rows are replaced, local evidence
(probes and ingests made on this machine) is kept. Every build records what each file of
data/ wrote (kbmeta `data_files`), so that a refresh after a change to a few record files
(the doc rules included) redoes only those files and the verdicts they decide
(kb.store.incremental, to the same result); a change to targets.csv, data/ops or
data/gallery, among others listed there, rebuilds the whole.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
import urllib.parse
from typing import Any

from kb import __version__, paths
from kb.store import dbfile, incremental
from kb.store.catalog import read_catalog, shipped_catalogs
from kb.store.dbfile import (
    data_fingerprint,
    notices_to,  # noqa: F401  (kb.store.build.notices_to, as before)
)
from kb.store.dbfile import notice as _notice  # where the one-line notices go (the API routes them)
from kb.store.records import utc_now
from kb.store.writer import IngestError, load_targets, raw_connection, read_report, write_records

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
        if os.path.relpath(folder, root).split(os.sep)[0] in ("ops", "gallery"):  # gallery: kb.store.gallery
            continue
        found.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(".jsonl"))
    return sorted(found, key=lambda p: os.path.relpath(p, root).split(os.sep)[0] == "rules")


def load_ops(conn, rows: list[dict[str, Any]]) -> None:
    """Replace the op catalog (a SQLAlchemy or a plain sqlite3 connection)."""
    raw = raw_connection(conn)
    raw.execute("DELETE FROM op")
    columns = ("name", "base", "overload", "schema", "composite_implicit", "composite_explicit", "backend_kernels",
               "tags", "torch_version")
    raw.executemany(f"INSERT INTO op ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                    ([json.dumps(row.get(c)) if c in ("backend_kernels", "tags") and row.get(c) is not None
                      else row.get(c) for c in columns] for row in rows))
    if rows:
        _set_meta(raw, catalog_torch_version=rows[0]["torch_version"])


def _load_shipped(raw: sqlite3.Connection) -> dict[str, int]:
    """Replace the shipped rows and re-derive every verdict, inside the caller's transaction,
    with plain sqlite3: the ORM's per-record work and SQLAlchemy's import cost seconds of a
    first use (bench/first_use.py)."""
    from kb.store import gallery, support

    load_targets(raw, targets_csv())
    support.clear(raw)  # derived, rebuilt below; it points at observations
    for table in SHIPPED_TABLES:
        if table == "observation":  # schema 8: the packed rows of shipped batches, not row by row through the view
            raw.execute("DELETE FROM observation_packed WHERE batch_id IN "
                        "(SELECT id FROM provenance_batch WHERE origin = 'shipped')")
            continue
        raw.execute(f"DELETE FROM {table} WHERE origin = 'shipped'")  # observations before probe runs
    catalogs = shipped_catalogs()
    if catalogs:
        load_ops(raw, read_catalog(catalogs[-1]))
    stamp = utc_now()
    added = 0
    digest, digests = incremental.file_digests()
    files = incremental.new_map(stamp)  # what each file wrote, for the next refresh (kb.store.incremental)
    indexes = support.without_indexes(raw, "observation_packed")  # made again once, after the bulk insert
    incremental.watch_shared(raw)
    for path in record_files():
        rel = incremental.relpath(path)
        before = incremental.max_ids(raw)
        try:
            records = read_report(path)
            added += write_records(raw, records, ingested_at=stamp, origin="shipped").added
        except IngestError:
            raise
        except ValueError as exc:
            raise IngestError(f"{path}: {exc}") from None
        files["files"][rel] = incremental.entry(raw, records, before, digests.get(rel, ""), os.path.getsize(path))
        incremental.mark_shared(files["files"], rel, incremental.updated(raw))
    incremental.unwatch(raw)
    for rel, sha in digests.items():
        files["files"].setdefault(rel, {"sha256": sha})
    for sql in indexes:
        raw.execute(sql)
    # a KB of this build's rows only (no local ones kept): every row is its source's current word
    fresh = raw.execute("SELECT 1 FROM observation WHERE origin <> 'shipped' LIMIT 1").fetchone() is None
    verdicts = support.rebuild(raw, every_row_current=fresh)
    dropped = gallery.load(raw).get("gallery_dropped_sources")  # data/gallery: tables of its own
    if dropped:  # s30b (#30): one notice for config sources that are not http(s) URLs
        _notice(f"data/gallery: {dropped} config source{'s' if dropped != 1 else ''} not an http(s) URL, dropped")
    _set_meta(raw, data_fingerprint=data_fingerprint(), data_digest=digest, built_at=stamp,
              kb_version=__version__, data_fingerprints_seen="[]",  # seen: other installs of this data
              **{incremental.MAP_KEY: json.dumps(files, sort_keys=True)})
    return {"records": added, "verdicts": verdicts}


def _set_meta(raw: sqlite3.Connection, **values: str) -> None:
    raw.executemany("INSERT OR REPLACE INTO kbmeta (key, value) VALUES (?, ?)", list(values.items()))


def _write(path: str, scratch: bool = False) -> dict[str, int]:
    """Migrate the file at `path` and load the shipped data into it in one transaction.
    `scratch`: a file being built that is renamed into place only when complete, so no
    write needs to reach the disk before the end (synchronous off, a large page cache)."""
    raw = dbfile.open_for_write(path)
    try:
        raw.isolation_level = None  # explicit BEGIN/COMMIT: index drops and inserts in one transaction
        if scratch:
            raw.execute("PRAGMA synchronous = OFF")
            raw.execute("PRAGMA cache_size = -262144")  # 256 MiB, KiB units
            raw.execute("PRAGMA temp_store = MEMORY")
        raw.execute("BEGIN IMMEDIATE")
        try:
            counts = _load_shipped(raw)
            raw.execute("COMMIT")
        except BaseException:
            raw.execute("ROLLBACK")
            raise
        if scratch:
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        raw.close()
    return counts


def build(path: str) -> dict[str, Any]:
    """Write a fresh KB at `path` from data/ (replacing any file there)."""
    started = time.perf_counter()
    dbfile.check_file(path)  # never replace a device, a FIFO or another application's database
    tmp = f"{path}.building-{os.getpid()}"
    remove_stale_builds(path)
    for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
        if os.path.exists(leftover):
            os.remove(leftover)
    try:
        counts = _write(tmp, scratch=True)
    except BaseException:
        for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
            if os.path.exists(leftover):
                os.remove(leftover)
        raise
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
    counts = _write(path)
    return {"path": path, **counts, "seconds": round(time.perf_counter() - started, 3)}


def write_prebuilt(out: str) -> dict[str, Any]:
    """The KB a wheel carries (setup.py): built from data/ like a first use, marked with the
    digest of that data (mtimes change with every install, contents do not) and left in
    rollback-journal mode, so it can be read where it is installed, even read-only."""
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    result = build(out)
    conn = sqlite3.connect(out)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
        _set_meta(conn, data_digest=dbfile.data_digest())
        conn.commit()
    finally:
        conn.close()
    return result


def _prebuilt_matches(prebuilt: str, digest: str | None = None, any_data: bool = False) -> bool:
    """True when `prebuilt` is a KB of this schema built from exactly the data kb reads now
    (`digest`: its data_digest, when the caller has it; `any_data`: from any data)."""
    try:
        conn = sqlite3.connect(f"file:{urllib.parse.quote(prebuilt)}?mode=ro", uri=True)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            app = conn.execute("PRAGMA application_id").fetchone()[0]
            found = conn.execute("SELECT value FROM kbmeta WHERE key = 'data_digest'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return (version == dbfile.SCHEMA_VERSION and app == dbfile.APPLICATION_ID and found is not None
            and (any_data or found[0] == (digest or dbfile.data_digest())))


def install_prebuilt(path: str, digest: str | None = None, any_data: bool = False) -> dict[str, Any] | None:
    """Copy the wheel's prebuilt KB to `path` when it was built from the data kb reads now
    (then a first use costs a file copy, not a build); None when there is none to use.
    `any_data`: copy it whatever data it was built from (the caller refreshes it)."""
    started = time.perf_counter()
    prebuilt = paths.PREBUILT_KB
    if not os.path.isfile(prebuilt) or not _prebuilt_matches(prebuilt, digest, any_data):
        return None
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.building-{os.getpid()}"
    try:
        shutil.copyfile(prebuilt, tmp)
        conn = sqlite3.connect(tmp)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            _set_meta(conn, data_fingerprint=data_fingerprint(), data_fingerprints_seen="[]")  # this install's mtimes
            conn.commit()
            # the packed table and the narrow view count the same rows without writing them out
            counts = {"records": conn.execute("SELECT count(*) FROM observation_packed").fetchone()[0],
                      "verdicts": conn.execute("SELECT count(*) FROM support_status").fetchone()[0]}
        finally:
            conn.close()
        for stale in (path + "-wal", path + "-shm"):
            if os.path.exists(stale):
                os.remove(stale)
        os.replace(tmp, path)
    except BaseException:
        for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
            if os.path.exists(leftover):
                os.remove(leftover)
        raise
    return {"path": path, **counts, "prebuilt": prebuilt, "seconds": round(time.perf_counter() - started, 3)}


def _stale_prebuilt_refreshed(path: str, digests: tuple[str, dict[str, str]]) -> dict[str, Any] | None:
    """The prebuilt KB of an older data/ (a `git pull` changed data/ after the editable install):
    copied and refreshed in place by kb.store.incremental, which redoes just the changed record
    files (a fraction of a build, #26); None when that cannot promise a build's result (the
    copy is then replaced by the caller's build)."""
    if install_prebuilt(path, digests[0], any_data=True) is None:
        return None
    done = incremental.refresh(path, record_files(), digests)
    return None if done is None else {**done, "prebuilt": paths.PREBUILT_KB}


# Tables of rows made on this machine (origin other than 'shipped'), and kb check --save's reports.
LOCAL_TABLES = SHIPPED_TABLES + ("checkreport",)


def holds_local_rows(path: str) -> bool:
    """True when the KB keeps anything a refresh must not lose: probes, ingests, saved checks.
    An unreadable file, or one of a newer schema, counts as holding some: it is refreshed (or
    refused by the migration), never replaced."""
    try:
        conn = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True)
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] > dbfile.SCHEMA_VERSION:
                return True
            tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for table in LOCAL_TABLES:
                if table not in tables:
                    continue
                where = "" if table == "checkreport" else " WHERE origin <> 'shipped'"
                if conn.execute(f"SELECT 1 FROM {table}{where} LIMIT 1").fetchone():
                    return True
        finally:
            conn.close()
    except sqlite3.Error:
        return True
    return False


def ensure_built(path: str) -> dict[str, Any]:
    """Build on first use, else migrate and refresh the shipped data; tells stderr why. A KB
    that holds no local rows is made anew instead of refreshed, and a wheel's prebuilt KB
    stands in for the build when it was built from the same data."""
    dbfile.check_file(path)
    remove_stale_builds(path)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        if os.path.isfile(paths.PREBUILT_KB):
            _notice(f"setting up the KB at {path} from the shipped data (first use)...")
            digests = incremental.file_digests()
            done = install_prebuilt(path, digests[0])
            if done is not None:
                return done
            return _stale_prebuilt_refreshed(path, digests) or build(path)
        else:
            _notice(f"building the KB from shipped data at {path} (first use)...")
        return build(path)
    _notice(f"refreshing the shipped data in {path}...")
    digests = incremental.file_digests()  # read data/ once for the checks below
    if not holds_local_rows(path):  # nothing to keep: the wheel's KB, if it is of this data, is a copy
        done = install_prebuilt(path, digests[0])
        if done is not None:
            return done
        # a few record files changed: redone in place; else a fresh file is made faster than
        # every row replaced in place
        return incremental.refresh(path, record_files(), digests) or build(path)
    return incremental.refresh(path, record_files(), digests) or refresh(path)
