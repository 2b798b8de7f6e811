"""The questions the KB answers, on a plain sqlite3 connection (see kb.store.db.open_kb).

No SQLModel and no torch here: these run on every plain `kb op` and must start fast.
Every verdict returned carries its source (kind, name, URL, retrieval time).
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from kb import opnames
from kb.errors import KBError, UnknownOpError
from kb.vocab import UNKNOWN

_JSON_COLUMNS = ("dtypes", "conditions", "sources", "torch_versions", "python_versions", "os",
                 "instance_families", "components", "backend_kernels", "tags", "conflicts")

_BOOL_COLUMNS = ("disagreement", "composite_implicit", "composite_explicit")

_VERDICT_SELECT = """
SELECT s.op, s.target, r.product, r.version AS backend_version, r.date AS release_date, r.channel,
       s.mode, s.status, s.dtypes, s.conditions, s.note, s.source_kind, s.source_name, s.source_url,
       s.probe_run_id, s.retrieved_at, s.sources, s.disagreement
FROM support s JOIN release r ON r.id = s.release_id
"""


def _row(row: sqlite3.Row) -> dict[str, Any]:
    out = dict(row)
    for key in _JSON_COLUMNS:
        if key in out and isinstance(out[key], str):
            out[key] = json.loads(out[key])
    for key in _BOOL_COLUMNS:
        if key in out:
            out[key] = bool(out[key])
    return out


def version_key(version: str) -> tuple:
    """Order versions numerically (2.14.3.0 > 2.9.1); pre-releases before their release."""
    head = re.split(r"[+]", version)[0]
    parts = re.findall(r"\d+|[a-z]+", head.lower())
    key = []
    for part in parts:
        if part.isdigit():
            key.append((1, int(part)))
        else:  # dev/a/b/rc sort below any number at the same position
            key.append((0, {"dev": 0, "a": 1, "b": 2, "rc": 3}.get(part, 0)))
    return tuple(key)


def known_op_names(conn: sqlite3.Connection) -> set[str]:
    names = {r[0] for r in conn.execute("SELECT name FROM op")}
    names.update(r[0] for r in conn.execute("SELECT DISTINCT op FROM observation"))
    return names


def resolve_op(conn: sqlite3.Connection, name: str) -> list[str]:
    """A user's op name → canonical overloads. `add` means every overload of add;
    `add.Tensor` / `relu.default` one overload. Unknown → UnknownOpError with suggestions."""
    try:
        base, overload = opnames.split(name)
    except opnames.OpNameError as exc:
        raise KBError(str(exc)) from None
    known = known_op_names(conn)
    exact = opnames.canonical(name)
    if opnames.names_one_overload(name):
        if exact in known:
            return [exact]
    else:
        family = sorted(n for n in known if n == f"aten::{base}" or n.startswith(f"aten::{base}."))
        if family:
            return family
    raise UnknownOpError(name, suggest(known, base, overload))


def suggest(known: set[str], base: str, overload: str = "", limit: int = 3) -> list[str]:
    import difflib

    bases = sorted({n[len("aten::"):].split(".")[0] for n in known})
    close = difflib.get_close_matches(base, bases, n=limit, cutoff=0.6)
    if overload and base in bases:  # right op, wrong overload: list the real overloads
        return sorted(n for n in known if n.startswith(f"aten::{base}."))[:limit + 2] or close
    return close


def op_catalog_entry(conn: sqlite3.Connection, op: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT * FROM op WHERE name = ?", (op,)).fetchone()
    return _row(row) if row else None


def op_verdicts(conn: sqlite3.Connection, ops: list[str], target: str | None = None,
                mode: str | None = None) -> list[dict[str, Any]]:
    """Every verdict the KB holds for these ops, across targets, versions and modes."""
    marks = ",".join("?" * len(ops))
    sql = _VERDICT_SELECT + f" WHERE s.op IN ({marks})"
    args: list[Any] = list(ops)
    if target:
        sql += " AND s.target = ?"
        args.append(target)
    if mode:
        sql += " AND s.mode = ?"
        args.append(mode)
    rows = [_row(r) for r in conn.execute(sql, args)]
    rows.sort(key=lambda r: (r["op"], r["target"], tuple(-x[1] for x in version_key(r["backend_version"])), r["mode"]))
    return rows


def op_report(conn: sqlite3.Connection, name: str, target: str | None = None) -> dict[str, Any]:
    """`kb op NAME`: the overloads NAME stands for, each with catalog facts and verdicts."""
    if target is not None:
        check_target(conn, target)
    ops = resolve_op(conn, name)
    verdicts = op_verdicts(conn, ops, target)
    by_op: dict[str, list] = {op: [] for op in ops}
    for v in verdicts:
        by_op[v["op"]].append(v)
    return {
        "query": name,
        "ops": [
            {"op": op, "catalog": op_catalog_entry(conn, op), "verdicts": by_op[op]}
            for op in ops
        ],
    }


def target_names(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM target ORDER BY name")]


def check_target(conn: sqlite3.Connection, target: str) -> None:
    names = target_names(conn)
    if target not in names:
        raise KBError(f"unknown target {target!r} (known: {', '.join(names)})")


def latest_release_with_verdicts(conn: sqlite3.Connection, target: str) -> str | None:
    """The newest backend version of `target` that has any verdict (the default version)."""
    versions = _release_versions(conn, target)
    return max(versions, key=version_key) if versions else None


def _release_versions(conn: sqlite3.Connection, target: str) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT r.version FROM support s JOIN release r ON r.id = s.release_id WHERE s.target = ?", (target,))]


def pick_version(conn: sqlite3.Connection, target: str, version: str | None) -> str | None:
    """The version asked for (checked), else the newest one with verdicts."""
    if version is None:
        return latest_release_with_verdicts(conn, target)
    versions = _release_versions(conn, target)
    if version not in versions:
        known = ", ".join(sorted(versions, key=version_key)) or "none"
        raise KBError(f"no verdicts for {target} version {version!r} (versions with data: {known})")
    return version


def support_map(conn: sqlite3.Connection, target: str, backend_version: str | None = None,
                mode: str = "eager") -> dict[str, dict[str, Any]]:
    """op → verdict row for one target, version (default: newest with data) and mode."""
    check_target(conn, target)
    version = pick_version(conn, target, backend_version)
    if version is None:
        return {}
    rows = conn.execute(_VERDICT_SELECT + " WHERE s.target = ? AND r.version = ? AND s.mode = ?",
                        (target, version, mode))
    return {r["op"]: _row(r) for r in rows}


def list_ops(conn: sqlite3.Connection, target: str, status: str | None = None, version: str | None = None,
             mode: str = "eager", pattern: str | None = None) -> dict[str, Any]:
    """`kb ops`: the verdicts of one target/version/mode, optionally one status or a name filter.
    status "unknown" lists catalog ops with no verdict."""
    verdicts = support_map(conn, target, version, mode)
    chosen = pick_version(conn, target, version)
    if status == UNKNOWN:
        rows = [{"op": name, "status": UNKNOWN} for (name,) in conn.execute("SELECT name FROM op ORDER BY name")
                if name not in verdicts]
    else:
        rows = [v for op, v in sorted(verdicts.items()) if status is None or v["status"] == status]
    if pattern:
        rows = [r for r in rows if pattern in r["op"]]
    return {"target": target, "backend_version": chosen, "mode": mode, "status": status, "ops": rows}


def compare(conn: sqlite3.Connection, targets: list[str], mode: str = "eager", pattern: str | None = None,
            only_differences: bool = False, versions: dict[str, str] | None = None) -> dict[str, Any]:
    """A caniuse-style matrix: ops × targets (each at its newest version with data)."""
    versions = versions or {}
    maps, chosen = {}, {}
    for target in targets:
        maps[target] = support_map(conn, target, versions.get(target), mode)
        chosen[target] = pick_version(conn, target, versions.get(target))
    ops = sorted(set().union(*[set(m) for m in maps.values()])) if maps else []
    if pattern:
        ops = [op for op in ops if pattern in op]
    rows = []
    for op in ops:
        cells = {t: maps[t][op]["status"] if op in maps[t] else UNKNOWN for t in targets}
        if only_differences and len(set(cells.values())) < 2:
            continue
        rows.append({"op": op, **cells})
    return {"targets": targets, "versions": chosen, "mode": mode, "rows": rows}


def targets_overview(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Each target with its versions that have verdicts and its status counts (newest version)."""
    out = []
    for row in conn.execute("SELECT * FROM target ORDER BY name"):
        target = dict(row)
        versions = sorted(_release_versions(conn, row["name"]), key=version_key)
        latest = versions[-1] if versions else None
        counts = {}
        if latest:
            counts = dict(conn.execute(
                "SELECT s.status, count(*) FROM support s JOIN release r ON r.id = s.release_id "
                "WHERE s.target = ? AND r.version = ? AND s.mode = 'eager' GROUP BY s.status",
                (row["name"], latest)).fetchall())
        out.append({**target, "versions": versions, "latest": latest, "eager_counts": counts})
    return out


def disagreements(conn: sqlite3.Connection, target: str | None = None) -> list[dict[str, Any]]:
    """Verdicts whose current sources give different statuses, each source's word listed."""
    sql = _VERDICT_SELECT + " WHERE s.disagreement = 1"
    args: list[Any] = []
    if target:
        check_target(conn, target)
        sql += " AND s.target = ?"
        args.append(target)
    rows = [_row(r) for r in conn.execute(sql + " ORDER BY s.op, s.target, s.mode", args)]
    return rows


def stats(conn: sqlite3.Connection) -> dict[str, Any]:
    tables = ["target", "release", "op", "observation", "support", "limitation", "supportwindow", "proberun", "ingestrun"]
    counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
    by_source = dict(conn.execute("SELECT source_kind, count(*) FROM observation GROUP BY source_kind").fetchall())
    meta = dict(conn.execute("SELECT key, value FROM kbmeta").fetchall())
    return {
        "schema_version": conn.execute("PRAGMA user_version").fetchone()[0],
        "tables": counts,
        "observations_by_source_kind": by_source,
        "disagreements": conn.execute("SELECT count(*) FROM support WHERE disagreement = 1").fetchone()[0],
        "meta": meta,
    }
