"""Refreshing the shipped part of a KB after a `git pull` that changed a few record files,
in a fraction of a full rebuild's time, to exactly what a full rebuild makes.

Every build remembers, per file of data/, its sha256 and which rows it wrote (kbmeta
`data_files`, JSON: id ranges per table, its probe runs, the releases it created and a
digest of what it says about releases). A refresh then compares digests and, when only
record files changed (edited, added or removed), in one transaction: writes each file's
new version beside its old rows (stamped with the build's `ingested_at`, so a source spread
over several files stays one batch), keeps the old row wherever the new one is the same,
deletes the rest of the old, and rederives only the verdicts the rows that went or came
decide (kb.store.support.rebuild(raw, pairs)). A change to a file the build does not read
(data/datasette, replay, fixits, functions, modules) only records the new digests.

The doc rules (data/rules) are record files too: a rule expands over the op catalog and
the releases of its product, neither of which an incremental refresh changes.

Anything else is a full rebuild (`plan` returns None, or the transaction falls back and
rolls back before anything is kept): targets.csv, the op catalog (data/ops), data/gallery,
an unknown file; a file whose release records changed, or that mentions a release it made
otherwise now, or names a release made by a later file (or none yet); a removed file that
made or stated a release (the release registry is
filled in file order, a row made by a mention takes that mention's provenance, and the
registry never loses a row); rows one file shares with another (the same
fact twice, stored once); another kb version or a KB without the map; and a KB whose local
rows could interact with shipped ones: local scrapes (`kb ingest --all`, which rewrites
shipped releases and batches), a shipped observation a local ingest restated, or a local
observation in the same source batch as shipped ones. Local probes and ingested report files
are kept as the full refresh keeps them.

Schema 8 (kb.store.packed): observations are read, written, set aside and deleted in
`observation_packed` itself (the `observation` view's triggers cost a statement per row),
their fingerprints are bytes, and the texts and provenance that only deleted rows used are
pruned once, at the end of a refresh that rederived verdicts.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from typing import Any

from kb import __version__, paths
from kb.store import dbfile
from kb.store import records as rec

MAP_KEY = "data_files"
MAP_VERSION = 3  # 3: schema 8, observation rows counted in observation_packed
# Tables of the rows a record file writes, by id. Observations are written, set aside and
# deleted in their packed table (schema 8) itself: through the `observation` view every row
# would cost a trigger.
ROW_TABLES = ("observation_packed", "limitation", "caveat", "supportwindow")
# What each row table reads as, for checks on provenance (the view joins it back in).
VIEWS = {"observation_packed": "observation"}
# Folders of data/ that the build never reads (read at run time by other rooms).
UNREAD_FOLDERS = ("datasette", "replay", "fixits", "functions", "modules")
# Read as a whole by the build: a change rebuilds. (data/rules is record files: a doc rule
# expands over the catalog and the releases, which an incremental refresh never changes.)
FULL_FOLDERS = ("ops", "gallery")


class Fallback(Exception):
    """The incremental refresh cannot promise a full rebuild's result: roll back, rebuild."""


def file_digests(data_dir: str | None = None) -> tuple[str, dict[str, str]]:
    """kb.store.dbfile.data_digest and each file's own sha256, keyed by its path under data/
    with `/`, reading every file once."""
    return dbfile.data_digests(data_dir, per_file=True)


def relpath(path: str) -> str:
    return os.path.relpath(path, paths.data_dir()).replace(os.sep, "/")


def kind_of(rel: str, record_rels: set[str], old: dict[str, Any] | None = None) -> str:
    """records (refreshed file by file), unread (no row of the KB comes from it), full.
    A removed file is what it was (`old`, its entry in the map)."""
    top = rel.split("/", 1)[0]
    if (rel in record_rels or (old is not None and "rows" in old)) and top not in FULL_FOLDERS:
        return "records"
    if "/" in rel and top in UNREAD_FOLDERS:
        return "unread"
    return "full"


def _prov(prov: rec.Provenance | None) -> list | None:
    return None if prov is None else [prov.source_kind, prov.source_name, prov.source_url, prov.retrieved_at]


def release_statement(records: list[rec.Record], products: dict[str, str]
                      ) -> tuple[str, bool, dict[tuple[str, str], str]]:
    """What a file's records do to the release registry, in the writer's order (probe runs,
    release records, the rest): a digest of its release records, whether it has any, and per
    release it names (product, version) a digest of its first mention there, whose provenance
    a release row made by that mention takes (`products`: target -> product)."""
    order = {rec.ProbeRun: 0, rec.Release: 1, rec.DocRule: 3}
    releases: list[Any] = []
    firsts: dict[tuple[str, str], str] = {}
    for record in sorted(records, key=lambda r: order.get(type(r), 2)):
        kind = type(record)
        if kind is rec.OpStatus:  # most records: the release they name is seen already
            key = (products.get(record.target, "?" + record.target), record.backend_version)
            if key not in firsts:
                firsts[key] = _short(["status", _prov(record.provenance)])
        elif kind is rec.Release:
            releases.append(rec.to_dict(record))
            key = (record.product, record.version)
            if key not in firsts:
                firsts[key] = _short(["release", _prov(record.provenance)])
        elif kind is rec.ProbeRun:
            key = (products.get(record.target, "?" + record.target), record.backend_version)
            if key not in firsts:
                firsts[key] = _short(["run", record.kind, record.run_id])
        elif kind is rec.Limitation:
            key = (record.product, record.version)
            if key not in firsts:
                firsts[key] = _short(["limitation", _prov(record.provenance)])
    return _short(releases), bool(releases), firsts


def _short(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _ranges(ids: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for i in sorted(ids):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def max_ids(raw: sqlite3.Connection) -> dict[str, int]:
    return {table: raw.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()[0]
            for table in (*ROW_TABLES, "release")}


def watch_shared(raw: sqlite3.Connection) -> None:
    """Temp triggers noting every shipped row a write updates instead of inserting: the same
    fact in two files is one row, which neither file may then delete alone."""
    raw.execute("CREATE TEMP TABLE IF NOT EXISTS _kb_updated (tbl TEXT NOT NULL, id TEXT NOT NULL)")
    raw.execute("DELETE FROM temp._kb_updated")
    for table in (*ROW_TABLES, "proberun"):
        key = "run_id" if table == "proberun" else "id"
        raw.execute(f"CREATE TEMP TRIGGER IF NOT EXISTS _kb_updated_{table} AFTER UPDATE ON main.{table} "
                    f"BEGIN INSERT INTO _kb_updated VALUES ('{table}', NEW.{key}); END")


def unwatch(raw: sqlite3.Connection) -> None:
    for table in (*ROW_TABLES, "proberun"):
        raw.execute(f"DROP TRIGGER IF EXISTS temp._kb_updated_{table}")


def updated(raw: sqlite3.Connection) -> list[tuple[str, str]]:
    found = raw.execute("SELECT tbl, id FROM temp._kb_updated").fetchall()
    raw.execute("DELETE FROM temp._kb_updated")
    return found


def entry(raw: sqlite3.Connection, records: list[rec.Record], before: dict[str, int], sha: str,
          size: int = 0) -> dict[str, Any]:
    """What one record file wrote: the ids past `before` (max_ids), its runs, its releases."""
    after = max_ids(raw)
    products = dict(raw.execute("SELECT name, product FROM target"))
    statement, has_release, firsts = release_statement(records, products)
    creates = list(range(before["release"] + 1, after["release"] + 1))
    made = {rid: (product, version) for rid, product, version in
            raw.execute("SELECT id, product, version FROM release WHERE id > ?", (before["release"],))}
    return {
        "sha256": sha,
        "size": size,
        "rows": {table: [[before[table] + 1, after[table]]] for table in ROW_TABLES if after[table] > before[table]},
        "runs": sorted({r.run_id for r in records if isinstance(r, rec.ProbeRun)}),
        "creates": creates,
        # how each release it made was first mentioned: a new version must mention it alike
        "first": {str(rid): firsts.get(made[rid], "") for rid in creates if rid in made},
        "releases": statement,
        "has_release": has_release,
    }


def mark_shared(files: dict[str, dict[str, Any]], current: str, found: list[tuple[str, str]]) -> None:
    """Rows `current` updated rather than inserted: both it and the file that wrote them are
    `shared` (a change to either is a full rebuild)."""
    if not found:
        return
    files[current]["shared"] = True
    for table, key in found:
        for other in files.values():
            if table == "proberun":
                hit = key in other.get("runs", ())
            else:
                hit = any(lo <= int(key) <= hi for lo, hi in other.get("rows", {}).get(table, ()))
            if hit:
                other["shared"] = True


def new_map(stamp: str) -> dict[str, Any]:
    return {"version": MAP_VERSION, "kb_version": __version__, "stamp": stamp, "files": {}}


def _local_rows_interfere(raw: sqlite3.Connection, stamp: str, files: dict[str, Any]) -> bool:
    """True when rows made on this machine could come out otherwise than under a full
    refresh, which restamps every shipped row and states shipped releases again: local
    scrapes of a shipped source (kb ingest --all), a shipped row a later ingest
    stated again (its stamp or report moved; a restated observation takes the ingest's
    batch, schema 8, so every row of the files' id ranges must still be of the build's),
    or a local observation in a shipped source's batch (source, target, release, mode, run)."""
    shipped_sources = " UNION ".join([f"SELECT source_name FROM {VIEWS.get(table, table)} WHERE origin = 'shipped'"
                                      for table in ROW_TABLES]
                                     + ["SELECT source_name FROM release WHERE report IS NULL"])
    if raw.execute("SELECT 1 FROM ingestrun WHERE origin = 'local' LIMIT 1").fetchone() and raw.execute(
            f"SELECT 1 FROM ingestrun WHERE origin = 'local' AND source_name IN ({shipped_sources}) LIMIT 1").fetchone():
        return True  # a scraper's own ingest (kb ingest --all) of a source the shipped data holds
    for table in ROW_TABLES:
        if raw.execute(f"SELECT 1 FROM {VIEWS.get(table, table)} WHERE origin = 'shipped' "
                       "AND (ingested_at <> ? OR report IS NOT NULL) LIMIT 1", (stamp,)).fetchone():
            return True
    batches = [bid for (bid,) in raw.execute("SELECT id FROM provenance_batch WHERE origin = 'shipped' "
                                             "AND ingested_at = ?", (stamp,))]
    marks = ", ".join("?" * len(batches))
    for item in files.values():
        for lo, hi in _rows_of(item, "observation_packed"):
            found = raw.execute(f"SELECT count(*) FROM observation_packed WHERE id BETWEEN ? AND ? "
                                f"AND batch_id IN ({marks}) AND report IS NULL", (lo, hi, *batches)).fetchone()[0]
            if found != hi - lo + 1:
                return True  # a row of a file restated by a local ingest (or gone)
    for table in ROW_TABLES[1:]:
        if raw.execute(f"SELECT 1 FROM {table} l WHERE l.origin <> 'shipped' AND l.source_name IN "
                       f"(SELECT source_name FROM {table} WHERE origin = 'shipped') LIMIT 1").fetchone():
            return True
    if not raw.execute("SELECT 1 FROM observation WHERE origin <> 'shipped' LIMIT 1").fetchone():
        return False
    return raw.execute(
        "SELECT 1 FROM observation GROUP BY source_name, target, release_id, mode, COALESCE(probe_run_id, '') "
        "HAVING MAX(origin = 'shipped') = 1 AND MAX(origin <> 'shipped') = 1 LIMIT 1").fetchone() is not None


def plan(stored: dict[str, Any] | None, digests: dict[str, str], record_rels: list[str]) -> dict[str, Any] | None:
    """The files to redo (changed, added, removed record files) or None: a full rebuild."""
    if not stored or stored.get("version") != MAP_VERSION or stored.get("kb_version") != __version__:
        return None
    old = stored.get("files") or {}
    rels = set(record_rels)
    changed = sorted(rel for rel in digests.keys() & old.keys() if digests[rel] != old[rel].get("sha256"))
    added = sorted(digests.keys() - old.keys())
    removed = sorted(old.keys() - digests.keys())
    kinds = {rel: kind_of(rel, rels, old.get(rel)) for rel in changed + added + removed}
    for rel, kind in kinds.items():
        if kind == "full" or (kind == "records" and rel in old and "rows" not in old[rel]):
            return None
    redo = [rel for rel, kind in kinds.items() if kind == "records"]
    if any(old.get(rel, {}).get("shared") for rel in redo):
        return None
    work, total = _work(redo, old, record_rels)
    if work > MIN_WORK and work > MAX_SHARE * total:
        return None
    return {"changed": changed, "added": added, "removed": removed, "redo": redo}


# Past this share of the record files' bytes to redo (and this many bytes: a small KB is
# quick either way), a full rebuild is the faster way. Measured on the shipped data: one
# file of a fifth of the rows with every row changed took 1.6 s in place, 3.7 s whole.
MAX_SHARE = 0.4
MIN_WORK = 2 << 20


def _work(redo: list[str], old: dict[str, Any], record_rels: list[str]) -> tuple[int, int]:
    """The bytes a refresh would redo (each file as it is, or as it was if that was more)
    and the bytes of all record files."""
    root = paths.data_dir()
    sizes = {rel: os.path.getsize(os.path.join(root, rel)) for rel in record_rels}
    work = sum(max(sizes.get(rel, 0), old.get(rel, {}).get("size", 0)) for rel in redo)
    return work, sum(sizes.values())


def _check_releases(stored_files: dict[str, Any], rel: str, new: dict[str, Any] | None,
                    order: list[str], known: set[int]) -> None:
    """Raise Fallback unless the file's new version leaves the release registry as a full
    build would make it: the same release records; each release it made first mentioned
    alike; and every other release it names made by a file before it (the registry is filled
    in file order, and a release row takes its first mention's provenance)."""
    old = stored_files.get(rel)
    if new is None:  # removed
        if old["creates"] or old["has_release"]:
            raise Fallback(f"{rel}: it made or stated releases")
        return
    if old is not None:
        if old["releases"] != new["releases"]:
            raise Fallback(f"{rel}: its release records changed")
        if any(new["first"].get(rid) != first for rid, first in old.get("first", {}).items()) or \
                len(old.get("first", {})) != len(old["creates"]):
            raise Fallback(f"{rel}: a release it made is mentioned otherwise now")
    elif new["has_release"]:
        raise Fallback(f"{rel}: it states releases")
    mine = set(old["creates"]) if old is not None else set()
    position = order.index(rel)
    makers = {rid: other for other, item in stored_files.items() for rid in item.get("creates", ())}
    for rid in new["mentions"]:
        if rid in mine:
            continue
        maker = makers.get(rid)
        if rid not in known or maker is None or maker not in order or order.index(maker) > position:
            raise Fallback(f"{rel}: it names a release no earlier file made")


def _rows_of(item: dict[str, Any], table: str) -> list[list[int]]:
    return item.get("rows", {}).get(table, [])


def _columns(raw: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in raw.execute(f"PRAGMA table_info({table})") if row[1] not in ("id", "fingerprint")]


def _ids(ranges: list[list[int]]) -> list[int]:
    return [i for lo, hi in ranges for i in range(lo, hi + 1)]


# An old row set aside holds this in place of its fingerprint (unique per table, never a
# sha256, neither hex text nor the 32 bytes schema 8 stores), the fingerprint itself in
# temp table `_kb_old`: a new row of the same fact is then written beside it, not over it.
ASIDE = "('~' || id)"


def set_aside(raw: sqlite3.Connection, old_ids: dict[str, list[int]]) -> None:
    """Set the shipped rows of `old_ids` (per row table) aside: their fingerprints into temp
    table `_kb_old` (tbl, id, fingerprint), ASIDE in their place, in the tables themselves."""
    raw.execute("CREATE TEMP TABLE IF NOT EXISTS _kb_old (tbl TEXT NOT NULL, id INTEGER NOT NULL, fingerprint, "
                "PRIMARY KEY (tbl, id)) WITHOUT ROWID")
    raw.execute("DELETE FROM temp._kb_old")
    raw.execute("CREATE TEMP TABLE IF NOT EXISTS _kb_ids (id INTEGER PRIMARY KEY)")
    for table, ids in old_ids.items():
        raw.execute("DELETE FROM temp._kb_ids")
        raw.executemany("INSERT OR IGNORE INTO temp._kb_ids VALUES (?)", [(i,) for i in ids])
        shipped = ("t.batch_id IN (SELECT id FROM provenance_batch WHERE origin = 'shipped')"
                   if table == "observation_packed" else "t.origin = 'shipped'")
        raw.execute(f"INSERT INTO temp._kb_old SELECT ?, t.id, t.fingerprint FROM temp._kb_ids x "
                    f"CROSS JOIN {table} t ON t.id = x.id WHERE {shipped}", (table,))
        raw.execute(f"UPDATE {table} SET fingerprint = {ASIDE} WHERE id IN "
                    "(SELECT id FROM temp._kb_old WHERE tbl = ?)", (table,))


def apply(raw: sqlite3.Connection, stored: dict[str, Any], work: dict[str, Any], digests: dict[str, str],
          record_paths: list[str]) -> dict[str, int]:
    """Redo the planned record files inside the caller's transaction; Fallback when a full
    rebuild is needed after all (the caller rolls back).

    A file's old rows are set aside (set_aside: their fingerprints swapped out), its new version written
    beside them, and each new row identical to an old one dropped for the old one, which
    keeps its id: the verdicts pointing at it stay valid, and only the pairs of the rows
    that really went or came are rederived (a file rewritten with one fact changed costs
    one op's verdicts)."""
    from kb.store import packed, queries, support
    from kb.store.writer import IngestError, read_report, write_records

    stamp = stored["stamp"]
    old_files = stored.get("files") or {}
    if _local_rows_interfere(raw, stamp, old_files):
        raise Fallback("local rows share shipped sources")
    files = {rel: dict(item) for rel, item in old_files.items()}
    by_rel = {relpath(p): p for p in record_paths}
    order = [relpath(p) for p in record_paths]
    redo = set(work["redo"])
    parsed: dict[str, list[rec.Record]] = {}
    for rel in order:
        if rel in redo:
            try:
                parsed[rel] = read_report(by_rel[rel])
            except IngestError:
                raise
            except ValueError as exc:
                raise IngestError(f"{by_rel[rel]}: {exc}") from None
    old_ids = {table: {rel: _ids(_rows_of(files[rel], table)) for rel in redo if rel in files} for table in ROW_TABLES}
    set_aside(raw, {table: [i for ids in by_file.values() for i in ids] for table, by_file in old_ids.items()})
    runs = [run for rel in redo if rel in files for run in files[rel].get("runs", ())]
    raw.execute("CREATE TEMP TABLE IF NOT EXISTS _kb_runs (run_id TEXT PRIMARY KEY) WITHOUT ROWID")
    raw.execute("DELETE FROM temp._kb_runs")
    raw.executemany("INSERT OR IGNORE INTO temp._kb_runs VALUES (?)", [(run,) for run in runs])
    raw.executemany("DELETE FROM proberun WHERE origin = 'shipped' AND run_id = ?", [(run,) for run in runs])
    known = {rid for (rid,) in raw.execute("SELECT id FROM release")}
    for rel in redo - parsed.keys():  # removed
        _check_releases(old_files, rel, None, order, known)
        files.pop(rel, None)
    first_new = max_ids(raw)
    watch_shared(raw)
    try:
        added = 0
        for rel in order:
            if rel not in parsed:
                continue
            records = parsed[rel]
            before = max_ids(raw)
            writer = write_records(raw, records, ingested_at=stamp, origin="shipped")
            if writer.new_releases:
                raise Fallback(f"{rel}: names a release the KB does not have ({writer.new_releases[0]})")
            if updated(raw):
                raise Fallback(f"{rel}: shares rows with another file")
            item = entry(raw, records, before, digests[rel], os.path.getsize(by_rel[rel]))
            item["mentions"] = sorted(writer.release_ids.values())
            if rel in files:  # changed: the releases it made stay its own, if mentioned alike
                item["creates"] = files[rel].get("creates", [])
                firsts = release_statement(records, dict(raw.execute("SELECT name, product FROM target")))[2]
                names = {rid: (product, version) for rid, product, version in raw.execute(
                    "SELECT id, product, version FROM release")}
                item["first"] = {str(rid): firsts.get(names.get(rid), "") for rid in item["creates"]}
            _check_releases(old_files, rel, item, order, known)
            del item["mentions"]
            files[rel] = item
            added += writer.added
    finally:
        unwatch(raw)
    # each new row the same as an old one gives way to it; the other old rows go
    pairs: set[tuple[str, str]] = set()
    changed_rows = 0
    for table in ROW_TABLES:
        same = " AND ".join(f"n.{c} IS o.{c}" for c in _columns(raw, table))
        # the new row of an old one's fingerprint (kept in _kb_old), the same in every other column
        kept = raw.execute(f"SELECT n.id, o.id, x.fingerprint FROM temp._kb_old x "
                           f"CROSS JOIN {table} n ON n.fingerprint = x.fingerprint CROSS JOIN {table} o ON o.id = x.id "
                           f"WHERE x.tbl = ? AND n.id > ? AND {same}", (table, first_new[table])).fetchall()
        new_to_old = {n: o for n, o, _fp in kept}
        if table == "observation_packed":
            pairs.update((op, target) for i, op, target in raw.execute(
                "SELECT id, op, target FROM observation_packed WHERE id > ?", (first_new[table],))
                if i not in new_to_old)
            kept_old = set(new_to_old.values())
            pairs.update((op, target) for i, op, target in raw.execute(
                "SELECT o.id, o.op, o.target FROM temp._kb_old x CROSS JOIN observation_packed o ON o.id = x.id "
                "WHERE x.tbl = 'observation_packed'") if i not in kept_old)
        raw.executemany(f"DELETE FROM {table} WHERE id = ?", [(n,) for n in new_to_old])
        raw.executemany(f"UPDATE {table} SET fingerprint = ? WHERE id = ?", [(fp, o) for _n, o, fp in kept])
        gone = raw.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM temp._kb_old WHERE tbl = ?) "
                           f"AND fingerprint = {ASIDE}", (table,)).rowcount
        fresh = raw.execute(f"SELECT count(*) FROM {table} WHERE id > ?", (first_new[table],)).fetchone()[0]
        changed_rows += gone + fresh
        # each redone file's rows: the old ones kept, the new ones left
        for rel in parsed:
            item = files[rel]
            written = _ids(item["rows"].get(table, []))
            mine = [i for i in written if i not in new_to_old] + [new_to_old[i] for i in written if i in new_to_old]
            if mine:
                item["rows"][table] = _ranges(mine)
            else:
                item["rows"].pop(table, None)
    verdicts = 0
    if pairs:
        # a KB of shipped rows only, all of one build's stamp (_local_rows_interfere checked
        # the stamps): every row is its source's current word, no batch needs finding
        only_shipped = raw.execute("SELECT 1 FROM observation WHERE origin <> 'shipped' LIMIT 1").fetchone() is None
        verdicts = support.rebuild(raw, pairs, every_row_current=only_shipped)
        # once for the whole refresh: the texts and provenance only deleted rows used go,
        # as a full build never makes them
        packed.prune(raw)
    elif changed_rows:
        raw.execute("INSERT OR REPLACE INTO kbmeta (key, value) VALUES ('data_as_of', ?)",
                    (json.dumps(queries.compute_data_as_of(raw), sort_keys=True),))
    stored = {**stored, "files": files}
    raw.execute("INSERT OR REPLACE INTO kbmeta (key, value) VALUES (?, ?)", (MAP_KEY, json.dumps(stored, sort_keys=True)))
    return {"records": added, "rows_changed": changed_rows, "verdicts": verdicts, "files": len(redo),
            "pairs": len(pairs)}


def check_references(raw: sqlite3.Connection) -> None:
    """What foreign keys would have refused, checked once for the rows this refresh deleted
    (temp table `_kb_old`: observations; `_kb_runs`: probe runs): a verdict or an observation
    pointing at one means a full rebuild (the transaction is rolled back). Presumed verdicts
    cannot dangle: kb.store.support.clear_scope deletes them with the verdicts they carry.
    A packed observation names its probe run through its provenance_source row (schema 8)."""
    gone = ("SELECT x.id FROM temp._kb_old x LEFT JOIN observation_packed o ON o.id = x.id "
            "WHERE x.tbl = 'observation_packed' AND o.id IS NULL")
    found = raw.execute(f"SELECT id FROM support_packed WHERE observation_id IN ({gone}) LIMIT 1").fetchone()
    if found:
        raise Fallback(f"verdict {found[0]} would point at a deleted observation")
    found = raw.execute("SELECT o.id FROM temp._kb_runs x JOIN provenance_source s ON s.probe_run_id = x.run_id "
                        "CROSS JOIN observation_packed o ON o.source_id = s.id "
                        "LEFT JOIN proberun r ON r.run_id = x.run_id WHERE r.run_id IS NULL LIMIT 1").fetchone()
    if found:
        raise Fallback(f"observation {found[0]} would point at a deleted probe run")


def _stored_map(raw: sqlite3.Connection) -> dict[str, Any] | None:
    row = raw.execute("SELECT value FROM kbmeta WHERE key = ?", (MAP_KEY,)).fetchone()
    try:
        found = json.loads(row[0]) if row else None
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def refresh(path: str, record_paths: list[str], digests: tuple[str, dict[str, str]] | None = None
            ) -> dict[str, Any] | None:
    """Refresh the KB at `path` from data/ incrementally, or None (nothing changed) when a
    full rebuild is needed: the caller then rebuilds. One transaction, which reads the map
    under the write lock (a second kb refreshing at once waits, then finds the work done):
    a failure leaves the KB as it was. `record_paths`: kb.store.build.record_files(), the
    files in the order a build writes them; `digests`: file_digests() of data/ as it is,
    when the caller has read it already."""
    from kb.store import dbfile

    started = time.perf_counter()
    digest, digests = digests or file_digests()
    raw = dbfile.open_for_write(path)
    try:
        raw.isolation_level = None
        # Foreign keys off for this transaction (set before it begins): with them on, each
        # deleted observation costs a scan of the verdicts for rows pointing at it (no index
        # there), seconds for a few hundred rows. The references are checked once, at the end.
        raw.execute("PRAGMA foreign_keys = OFF")
        raw.execute("BEGIN IMMEDIATE")
        try:
            stored = _stored_map(raw)
            work = plan(stored, digests, [relpath(p) for p in record_paths])
            if work is None:
                raise Fallback("a change the incremental refresh does not redo")
            counts = {"records": 0, "rows_changed": 0, "verdicts": 0, "files": 0, "pairs": 0}
            if work["redo"]:
                counts = apply(raw, stored, work, digests, record_paths)
                check_references(raw)
            else:  # only files the build does not read (or none, when another kb was first)
                files = {rel: item for rel, item in stored["files"].items() if rel in digests}
                for rel in digests:
                    files.setdefault(rel, {})["sha256"] = digests[rel]
                raw.execute("INSERT OR REPLACE INTO kbmeta (key, value) VALUES (?, ?)",
                            (MAP_KEY, json.dumps({**stored, "files": files}, sort_keys=True)))
            raw.executemany("INSERT OR REPLACE INTO kbmeta (key, value) VALUES (?, ?)",
                            [("data_fingerprint", dbfile.data_fingerprint()), ("data_digest", digest),
                             ("data_fingerprints_seen", "[]")])  # as kb.store.build's _set_meta
            raw.execute("COMMIT")
        except Fallback:
            raw.execute("ROLLBACK")
            return None
        except BaseException:
            raw.execute("ROLLBACK")
            raise
    finally:
        raw.close()
    return {"path": path, **counts, "incremental": True, "seconds": round(time.perf_counter() - started, 3)}
