"""The gallery's shipped census (data/gallery) in the KB: two tables of its own,
`gallery_model` (one row per architecture: config source, what built it, which graphs
exported or why not) and `gallery_op` (the census rows: op × phase × dtype per graph).

The build calls `load` with the shipped data; the rows carry no verdicts (those are the
support table's, read when a question is asked: kb.gallery.views). Kept apart from
kb.store.schema so that the gallery can change without a schema migration: the tables are
made here when missing, and a KB made before them reads as an empty gallery.
"""

from __future__ import annotations

import json
import os
import sqlite3

from kb import paths

FOLDER = "gallery"
MODELS_FILE = "models.jsonl"
CENSUS_FILE = "census.jsonl"
MAX_LINE = 1 << 20  # a census line is a few hundred bytes; refuse anything absurd
MAX_FILE = 64 << 20  # the shipped census is under 1 MB

TABLES = (
    """CREATE TABLE IF NOT EXISTS gallery_model (
        model TEXT PRIMARY KEY, name TEXT NOT NULL, family TEXT, library TEXT, architecture TEXT,
        parameters INTEGER, config_source TEXT, inference TEXT, training TEXT, reason TEXT,
        built_with TEXT, config TEXT, inputs TEXT, graphs TEXT, build_seconds REAL, note TEXT)""",
    """CREATE TABLE IF NOT EXISTS gallery_op (
        model TEXT NOT NULL, graph TEXT NOT NULL, op TEXT NOT NULL, phase TEXT, dtype TEXT, hazard TEXT,
        calls INTEGER NOT NULL, flops INTEGER, bytes INTEGER, counted_by TEXT, first INTEGER)""",
    "CREATE INDEX IF NOT EXISTS gallery_op_op ON gallery_op (op)",
    "CREATE INDEX IF NOT EXISTS gallery_op_model ON gallery_op (model, graph)",
)


def folder(data_dir: str | None = None) -> str:
    return os.path.join(data_dir or paths.data_dir(), FOLDER)


def read_jsonl(path: str) -> list[dict]:
    """The lines of one shipped file (absent: none); a bad line names the file and line."""
    if not os.path.exists(path):
        return []
    if os.path.getsize(path) > MAX_FILE:
        raise ValueError(f"{path}: larger than {MAX_FILE} bytes")
    rows = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if len(line) > MAX_LINE:
                raise ValueError(f"{path}:{number}: line longer than {MAX_LINE} bytes")
            if line.strip():
                row = json.loads(line)
                if not isinstance(row, dict) or not isinstance(row.get("model"), str):
                    raise ValueError(f"{path}:{number}: not a gallery record")
                rows.append(row)
    return rows


def _status(graphs: dict, graph: str) -> str | None:
    return (graphs.get(graph) or {}).get("status")


def _reason(graphs: dict) -> str | None:
    reasons = [f"{g}: {v['reason']}" for g, v in sorted(graphs.items()) if isinstance(v, dict) and v.get("reason")]
    return "; ".join(reasons) or None


def create(conn: sqlite3.Connection) -> None:
    for statement in TABLES:
        conn.execute(statement)


def load(conn: sqlite3.Connection, data_dir: str | None = None) -> dict:
    """Replace the gallery tables with data/gallery's files; returns the counts. A malformed
    file is an IngestError naming it (one line, exit 2), never a traceback."""
    from kb.store.writer import IngestError

    try:
        return _load(conn, data_dir)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise IngestError(f"{folder(data_dir)}: not a gallery file ({type(exc).__name__}: {str(exc)[:200]})") from None


# Bounds on what data/gallery may make kb print (t30 #17): text cut, control characters shown as
# escapes, config sources kept only as http(s) URLs.
MAX_NAME, MAX_NOTE, MAX_REASON, MAX_OP = 120, 1000, 500, 200


def _visible(value, limit: int):
    """`value` cut to `limit` characters with control characters written as \\xNN."""
    import re

    if value is None:
        return None
    text = re.sub(r"[\x00-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m.group()):02x}", str(value)[: limit * 4])
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded(models: list[dict], census: list[dict]) -> tuple[list[dict], list[dict], int]:
    dropped = 0
    out = []
    for m in models:
        m = dict(m)
        m["name"] = _visible(m.get("name") or m["model"], MAX_NAME)
        m["note"] = _visible(m.get("note"), MAX_NOTE)
        source = m.get("config_source")
        if source is not None and not str(source).lower().startswith(("https://", "http://")):
            m["config_source"] = None
            dropped += 1
        graphs = m.get("graphs") or {}
        m["graphs"] = {g: (dict(v, reason=_visible(v["reason"], MAX_REASON)) if isinstance(v, dict) and v.get("reason")
                           else v) for g, v in graphs.items()} if isinstance(graphs, dict) else {}
        out.append(m)
    rows = [dict(r, op=_visible(r["op"], MAX_OP)) for r in census]
    return out, rows, dropped


def _load(conn: sqlite3.Connection, data_dir: str | None) -> dict:
    # derived wholly from data/gallery: made anew, so a column added later needs no migration
    conn.execute("DROP TABLE IF EXISTS gallery_op")
    conn.execute("DROP TABLE IF EXISTS gallery_model")
    create(conn)
    root = folder(data_dir)
    models = read_jsonl(os.path.join(root, MODELS_FILE))
    census = read_jsonl(os.path.join(root, CENSUS_FILE))
    models, census, dropped = _bounded(models, census)
    conn.executemany(
        "INSERT INTO gallery_model VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(m["model"], m["name"], m.get("family"), m.get("library"), m.get("architecture"),
          m.get("parameters"), m.get("config_source"), _status(m.get("graphs") or {}, "inference"),
          _status(m.get("graphs") or {}, "training"), _reason(m.get("graphs") or {}),
          json.dumps(m.get("built_with") or {}, sort_keys=True), json.dumps(m.get("config") or {}, sort_keys=True),
          json.dumps(m.get("inputs") or []), json.dumps(m.get("graphs") or {}, sort_keys=True),
          m.get("build_seconds"), m.get("note")) for m in models])
    conn.executemany(
        "INSERT INTO gallery_op VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(r["model"], r["graph"], r["op"], r.get("phase"), r.get("dtype"), r.get("hazard"), int(r["calls"]),
          int(r.get("flops") or 0), int(r.get("bytes") or 0), r.get("counted_by"), int(r.get("first") or 0))
         for r in census])
    return {"gallery_models": len(models), "gallery_census_rows": len(census), "gallery_dropped_sources": dropped}


def has_tables(conn: sqlite3.Connection) -> bool:
    found = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                         "('gallery_model', 'gallery_op')").fetchone()[0]
    return found == 2


def usage(conn: sqlite3.Connection, ops: list[str] | None = None, graph: str = "inference") -> dict[str, list[str]]:
    """{op: [models whose `graph` census calls it, directly or through a decomposition leaf]}
    (all ops, or these). One graph, the one kb gallery and --blockers show; the leaves are the
    kernels a backend team must write (aten::native_batch_norm behind aten::batch_norm), so a
    leaf counts the models of every op that decomposes into it (t30 #19)."""
    if not has_tables(conn):
        return {}
    direct: dict[str, set[str]] = {}
    for op, model in conn.execute("SELECT DISTINCT op, model FROM gallery_op WHERE graph = ?", (graph,)):
        direct.setdefault(op, set()).add(model)
    found = {op: set(models) for op, models in direct.items()}
    for op, via in _leaf_rows(conn, list(direct)):
        for leaf in via:
            if leaf != op:
                found.setdefault(leaf, set()).update(direct[op])
    for source, device_op in _device_swaps():  # the op a device calls in the census op's place
        if source in direct:
            found.setdefault(device_op, set()).update(direct[source])
    wanted = set(ops) if ops is not None else None
    return {op: sorted(models) for op, models in sorted(found.items()) if wanted is None or op in wanted}


def _leaf_rows(conn: sqlite3.Connection, ops: list[str]) -> list[tuple[str, dict]]:
    """(op, its decomposition leaves) from the stored verdicts' effective_via, once per op."""
    table = "support_stored" if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'support_stored'").fetchone() \
        else "support"
    try:
        rows = conn.execute(f"SELECT DISTINCT op, effective_via FROM {table} WHERE effective_via LIKE '%\"leaf%'")
    except sqlite3.OperationalError:  # an older KB without the column
        return []
    wanted = set(ops)
    return [(op, leaves) for op, via in rows if op in wanted and (leaves := via_leaves(via))]


def via_leaves(via: str | None) -> set[str]:
    """The leaf ops one effective_via names: its `leaves` and its single `leaf` (aten::sort on
    neuron names aten::sort.values_stable only as `leaf`, r2-30 #3); none when unreadable."""
    try:
        data = json.loads(via or "null") or {}
    except ValueError:
        return set()
    if not isinstance(data, dict):
        return set()
    leaves = data.get("leaves")
    out = set(leaves) if isinstance(leaves, dict) else set()
    if isinstance(data.get("leaf"), str):
        out.add(data["leaf"])
    return out


# Census ops a library swaps per device: transformers 5.23 runs MoE experts through its custom op
# transformers::grouped_mm_fallback on every device but a TPU, where it calls torch's
# aten::_grouped_mm (transformers/integrations/moe.py, _can_use_grouped_mm). The census is taken
# on the meta device, so on tpu the report reads the op the model would call there (t30 #12), and
# usage counts those models as users of the device op (r2-30 #4).
DEVICE_OPS = {"tpu": {"transformers::grouped_mm_fallback": "aten::_grouped_mm"}}


def _device_swaps() -> list[tuple[str, str]]:
    return sorted({(src, dst) for swap in DEVICE_OPS.values() for src, dst in swap.items()})


def used_by(conn: sqlite3.Connection, op: str, graph: str = "inference") -> dict:
    """"used by N of M gallery models" for one op (which ones): as `usage` counts them, but
    asked of this op alone (the op index, and only the verdicts whose leaves name it), since
    `kb op` shows it on every page."""
    if not has_tables(conn):
        return {"op": op, "used_by": [], "count": 0, "of": 0}
    total = conn.execute("SELECT count(*) FROM gallery_model").fetchone()[0]
    select = "SELECT DISTINCT model FROM gallery_op WHERE op = ? AND graph = ?"
    users = {model for (model,) in conn.execute(select, (op, graph))}
    table = "support_stored" if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'support_stored'").fetchone() \
        else "support"
    try:  # ops that decompose into this one count its models too (usage: a leaf counts its parents' models)
        rows = conn.execute(f"SELECT DISTINCT op, effective_via FROM {table} WHERE op IN "
                            "(SELECT DISTINCT op FROM gallery_op WHERE graph = ?) AND effective_via LIKE ?",
                            (graph, "%" + json.dumps(op) + "%")).fetchall()
    except sqlite3.OperationalError:  # an older KB without the column
        rows = []
    for parent, via in rows:
        if parent != op and op in via_leaves(via):
            users.update(model for (model,) in conn.execute(select, (parent, graph)))
    for source, device_op in _device_swaps():  # on tpu the census's custom op is this op
        if device_op == op:
            users.update(model for (model,) in conn.execute(select, (source, graph)))
    return {"op": op, "used_by": sorted(users), "count": len(users), "of": total}


def used_by_line(item: dict) -> str | None:
    if not item["of"]:
        return None
    shown = ", ".join(item["used_by"][:8]) + (f" +{item['count'] - 8} more" if item["count"] > 8 else "")
    return f"used by {item['count']} of {item['of']} gallery models" + (f" ({shown})" if item["count"] else "")


SORTS = ("name", "usage")


def sort_by_usage(conn: sqlite3.Connection, rows: list[dict]) -> list[dict]:
    """`kb ops` / `kb compare` rows weighted by use: each row gets `gallery_models` (how many
    gallery models call the op) and the rows go most-used first (name breaks ties)."""
    counts = {op: len(models) for op, models in usage(conn).items()}
    for row in rows:
        row["gallery_models"] = counts.get(row["op"], 0)
    return sorted(rows, key=lambda r: (-r["gallery_models"], r["op"]))


def check_sort(value: str) -> None:
    from kb.errors import KBError

    if value not in SORTS:
        raise KBError(f"--sort {value}: expected one of {', '.join(SORTS)}")
