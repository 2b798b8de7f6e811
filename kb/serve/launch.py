"""Browsing the KB in Datasette: its metadata, canned queries and app, built from a KB file.

The metadata ships in `data/datasette/metadata.yaml` (descriptions, facets, labels, canned
queries); what depends on the KB's content is filled in here when the server starts:

- the coverage matrix query gets one column per target that has verdicts, each at its
  newest version (the version order is kb.store.queries.version_key, which SQL lacks);
- canned queries that name tables this KB does not have (`requires:`) are left out, so a
  KB written before `kb check --save` existed still serves every other page.

The KB is opened read-only but not immutable: `kb ingest` may write it (in WAL mode) while
the server runs, and SQLite's read-only connections then see each committed write — an
immutable file that changes underneath answers "database disk image is malformed".
Datasette refuses every write. The database is always named `kb` so URLs and metadata do
not depend on the file's name. Each connection is bounded (kb.serve.plugin.limit_connection).
"""

from __future__ import annotations

import copy
import os
import sqlite3
from typing import Any

from kb import paths

DB_NAME = "kb"
METADATA_DIR = os.path.join(paths.shipped_data_dir(), "datasette")
METADATA_FILE = os.path.join(METADATA_DIR, "metadata.yaml")
STATIC_MOUNT = "kb-static"
# Targets shown first in the coverage matrix; the others follow by name.
TARGET_ORDER = ("neuron", "tpu", "neuron-xla")
# Facets are chosen in the metadata; Datasette's suggestions would scan every column of a
# table on every page (about 0.5 s on the support table of a full KB: bench/serve_pages.py).
DEFAULT_SETTINGS = {"suggest_facets": False}
# Tables described in the metadata that the KB gets with `kb check --save` (not yet in kb.store.schema),
# and the gallery's own tables (kb.store.gallery makes them, apart from the schema).
PROPOSED_TABLES = ("checkreport", "checkop", "gallery_model", "gallery_op")


def load_metadata(path: str = METADATA_FILE) -> dict[str, Any]:
    """The shipped metadata, as written (kb.serve.launch.build_metadata completes it for a KB)."""
    import yaml

    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def latest_releases(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Each target with verdicts and its newest version with verdicts, in matrix order."""
    from kb.store.queries import version_key

    newest: dict[str, dict[str, Any]] = {}
    rows = conn.execute("SELECT DISTINCT s.target, s.release_id, r.version "
                        "FROM support_status s JOIN release r ON r.id = s.release_id")
    for target, release_id, version in rows:
        if target not in newest or version_key(version) > version_key(newest[target]["version"]):
            newest[target] = {"target": target, "release_id": release_id, "version": version}
    return sorted(newest.values(), key=_target_rank)


def _target_rank(row: dict[str, Any]) -> tuple:
    name = row["target"]
    return (TARGET_ORDER.index(name), "") if name in TARGET_ORDER else (len(TARGET_ORDER), name)


def _sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _sql_name(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


MODE_PARAM = "coalesce(nullif(:mode, ''), 'eager')"


def _rank(targets: list[str]) -> str | None:
    """0 for an op some device target (TARGET_ORDER) knows, 1 for one none does; None without device targets."""
    devices = [t for t in TARGET_ORDER if t in targets]
    if not devices:
        return None
    return f"(1 - max(s.target IN ({', '.join(_sql_string(t) for t in devices)})))"


def coverage_sql(targets: list[str]) -> str:
    """ops × targets by conditional aggregation over each target's newest version.

    Joins the `latest_release` temp table (kb.serve.plugin); `:mode` defaults to eager,
    `:grep` filters op names, `:after` pages past an op (Datasette shows 1,000 rows a page;
    the page's next link passes its last op, kb.serve.matrix.coverage_pages).
    Ops known on a device target (TARGET_ORDER: neuron, tpu, neuron-xla) come first, by name;
    ops none of them knows (aten::Int: only inf1's presumed verdict) follow, by name, so a
    reader meets what is known before the unknowns. `:after` pages in that order.
    """
    # each cell: where the op runs (a decomposed op's worst leaf) and a basis mark
    cell = ("coalesce(s.effective_status, s.status) || "
            "CASE s.basis WHEN 'inferred' THEN ' ⁱ' WHEN 'presumed' THEN ' ᵖ' WHEN 'doc rule' THEN ' ʳ' "
            "WHEN 'local' THEN ' ˡ' ELSE '' END"
            " || CASE WHEN s.report IS NOT NULL AND s.basis != 'local' THEN 'ˡ' ELSE '' END")
    columns = "".join(
        f",\n       max(CASE WHEN s.target = {_sql_string(t)} THEN {cell} END) AS {_sql_name(t)}"
        for t in targets
    )
    mode = MODE_PARAM
    rank = _rank(targets)
    if rank is not None:
        listed = ", ".join(_sql_string(t) for t in TARGET_ORDER if t in targets)
        # where `:after` sits in that order: before everything when empty, in the unknown
        # group when it names an op there, else among the known ops (any name pages by name)
        after_rank = (
            "(CASE WHEN :after = '' THEN -1"
            " WHEN EXISTS (SELECT 1 FROM support_status a JOIN latest_release la"
            " ON la.target = a.target AND la.release_id = a.release_id"
            f" WHERE a.op = :after AND a.mode = {mode})"
            " AND NOT EXISTS (SELECT 1 FROM support_status a JOIN latest_release la"
            " ON la.target = a.target AND la.release_id = a.release_id"
            f" WHERE a.op = :after AND a.mode = {mode} AND a.target IN ({listed}))"
            " THEN 1 ELSE 0 END)")
    else:
        rank, after_rank = "0", "(CASE WHEN :after = '' THEN -1 ELSE 0 END)"
    return (
        f"SELECT s.op{columns}\n"
        "FROM support_status s\n"  # the support view's counting columns (kb.store.migrations)
        "JOIN latest_release l ON l.target = s.target AND l.release_id = s.release_id\n"
        f"WHERE s.mode = {mode}\n"
        "  AND (:grep = '' OR instr(s.op, :grep) > 0)\n"
        "GROUP BY s.op\n"
        f"HAVING ({rank}, s.op) > ({after_rank}, :after)\n"
        f"ORDER BY {rank + ', ' if rank != '0' else ''}s.op"  # (a bare 0 would name a column)
    )


def coverage_order_sql(targets: list[str]) -> str:
    """(rank, op) of every op of the matrix in its order (coverage_sql's, without cells,
    filter or paging): what the page's "ops 1,001–2,000 of 3,148" and previous link count on."""
    return ("SELECT " + (_rank(targets) or "0") + " AS rank, s.op\n"
            "FROM support_status s\n"
            "JOIN latest_release l ON l.target = s.target AND l.release_id = s.release_id\n"
            f"WHERE s.mode = {MODE_PARAM}\n"
            "GROUP BY s.op\nORDER BY 1, 2")


def _coverage(conn: sqlite3.Connection, latest: list[dict[str, Any]]) -> dict[str, str]:
    """"3,136 of 3,136 ops known (100.0%); 0 unknown" per matrix column (eager), as `kb targets` says it."""
    from kb.store import queries

    conn.row_factory = sqlite3.Row
    try:
        return {row["target"]: queries.coverage_line(queries.coverage(conn, row["target"], row["version"]))
                for row in latest}
    finally:
        conn.row_factory = None


def kb_tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


# Datasette (and build_metadata) open the KB as the URI `file:{path}?mode=ro`, unescaped: in
# such a path `?` and `#` end the file name and `%XX` decodes, so `foreign#.sqlite` opens `foreign`.
URI_SPECIAL = "?#%"


def check_path(kb_path: str) -> None:
    """Refuse a KB path SQLite would read as another file, before anything opens it."""
    from kb.errors import KBError

    found = sorted({c for c in kb_path if c in URI_SPECIAL})
    if found:
        raise KBError(f"kb serve cannot open a KB whose path contains {' '.join(found)} "
                      "(SQLite would read another file): rename or link it to a plain name")


def build_metadata(kb_path: str, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The shipped metadata completed for this KB file (coverage columns, available queries)."""
    check_path(kb_path)
    metadata = copy.deepcopy(base if base is not None else load_metadata())
    conn = sqlite3.connect(f"file:{kb_path}?mode=ro", uri=True)
    try:
        latest = latest_releases(conn)
        tables = kb_tables(conn)
        covered = _coverage(conn, latest)
    finally:
        conn.close()
    database = metadata["databases"][DB_NAME]
    queries = database.get("queries", {})
    for name in list(queries):
        missing = [t for t in queries[name].pop("requires", []) if t not in tables]
        if missing:
            del queries[name]
    targets = [row["target"] for row in latest]
    if "coverage" in queries:
        queries["coverage"]["sql"] = coverage_sql(targets)
        at = "; ".join(f"{row['target']} {row['version']}: {covered[row['target']]}" for row in latest) \
            or "no target has verdicts yet"
        queries["coverage"]["description"] = queries["coverage"].get("description", "").rstrip() + f" Versions: {at}."
    database["tables"] = {name: table for name, table in database.get("tables", {}).items() if name in tables}
    metadata.setdefault("plugins", {})["kb"] = {
        "latest": latest,
        "matrix_columns": targets,
        "release_ids": {row["target"]: row["release_id"] for row in latest},
        "css_url": f"/{STATIC_MOUNT}/kb.css",
        "coverage_order_sql": coverage_order_sql(targets) if "coverage" in queries else None,
    }
    return metadata


def register_plugin() -> None:
    """Put kb's plugin on Datasette's plugin manager (once per process)."""
    from datasette.plugins import pm

    from kb.serve import plugin as datasette_plugin

    if not pm.is_registered(datasette_plugin):
        pm.register(datasette_plugin, name="kb")


def make_datasette(kb_path: str, *, metadata: dict[str, Any] | None = None,
                   settings: dict[str, Any] | None = None):
    """A Datasette app on the KB file, read-only and live, named `kb`, with kb's metadata and plugin."""
    from datasette.app import Datasette

    check_path(kb_path)
    register_plugin()
    ds = Datasette(
        files=[kb_path],
        metadata=metadata if metadata is not None else build_metadata(kb_path),
        static_mounts=[(STATIC_MOUNT, os.path.join(METADATA_DIR, "static"))],
        template_dir=os.path.join(METADATA_DIR, "templates"),
        settings={**DEFAULT_SETTINGS, **(settings or {})},
    )
    db = next(iter(d for d in ds.databases.values() if d.path and os.path.samefile(d.path, kb_path)))
    if db.name != DB_NAME:
        ds.remove_database(db.name)
        ds.add_database(db, name=DB_NAME)
    view_foreign_keys(db)
    from kb.serve.facets import narrow_counts

    narrow_counts(db)  # the support page counts support_status (the same rows, fewer columns)
    quiet_errors()
    return ds


# Views whose rows carry a table's foreign keys: `support` (schema 7) is a view over the
# stored verdicts and the presumed ones (`support_status` the same, fewer columns), and
# since schema 8 `support_stored` and `observation` are views of the packed tables: their
# release_id, target and observation_id point where the packed table's do.
VIEW_KEYS_FROM = {"support": "support_packed", "support_status": "support_packed", "support_stored": "support_packed",
                  "observation": "observation_packed"}


def view_foreign_keys(db) -> None:
    """SQLite keeps no foreign keys for a view, so Datasette would show `support`'s release
    ids as bare numbers (no version labels, no links, no labelled facets): this database
    answers for a view with the keys of the table it stands for."""
    own = db.foreign_keys_for_table

    async def foreign_keys_for_table(table):
        return await own(VIEW_KEYS_FROM.get(table, table))

    db.foreign_keys_for_table = foreign_keys_for_table


def quiet_errors() -> None:
    """Datasette prints no traceback for a page it answers with an error.

    With rich installed, Datasette prints every 4xx (a mistyped URL, a refused write) as a
    traceback with locals on stdout — into `kb serve --get`'s page too; without it, its handler
    prints tracebacks for real errors only. There is no setting for this, and every
    handle_exception hook runs, so no plugin can. Imported after Datasette's app (its plugins
    import each other)."""
    import datasette.handle_exception

    datasette.handle_exception.rich = None


def app(kb_path: str, *, host: str = "127.0.0.1", host_names=()):
    """The ASGI app `kb serve` runs: Datasette on the KB inside kb.serve.guard (Host
    allow-list, Content-Security-Policy on every page)."""
    from kb.serve.guard import guard

    return guard(make_datasette(kb_path).app(), host, host_names)


def serve(kb_path: str, *, host: str = "127.0.0.1", port: int = 8001, host_names=()) -> None:
    """Serve the KB until interrupted (uvicorn, one worker)."""
    import uvicorn

    from kb.serve.guard import guard

    ds = make_datasette(kb_path)
    warm(ds)
    uvicorn.run(guard(ds.app(), host, host_names), host=host, port=port, log_level="warning", lifespan="on", workers=1)


# Pages whose counts are kept per KB file state (kb.serve.plugin): loaded once before serving.
WARM_PAGES = ("/kb/support?_size=1",)


def warm(ds) -> None:
    """Load the verdicts table's page once before the server answers anyone, so its facets
    and row count (one pass over support_status, kept per KB file state) are ready: a
    person's first /kb/support is then as cheap as the next (bench/serve_pages.py)."""
    import asyncio

    async def load():
        for path in WARM_PAGES:
            await ds.client.get(path)

    try:
        asyncio.run(load())
    except Exception:  # a page that fails here fails when asked, with its own message
        pass
