"""The questions the KB answers, on a plain sqlite3 connection (see kb.store.db.open_kb).

No SQLModel and no torch here: these run on every plain `kb op` and must start fast.
Every verdict returned carries its source (kind, name, URL, retrieval time).
"""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, date, datetime

from kb import opnames
from kb.errors import KBError, UnknownOpError
from kb.store import verdict

# the version grammar and the target registry live in kb.store.targetspec; re-exported here
from kb.store.targetspec import _release_versions, check_target, resolve, target_names, version_key  # noqa: F401
from kb.vocab import UNKNOWN

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: this module is on `kb op`'s start path
if TYPE_CHECKING:
    from typing import Any

_JSON_COLUMNS = ("dtypes", "conditions", "sources", "effective_via", "torch_versions", "python_versions", "os",
                 "instance_families", "components", "backend_kernels", "tags", "conflicts", "report")

_BOOL_COLUMNS = ("disagreement", "composite_implicit", "composite_explicit")

_VERDICT_SELECT = """
SELECT s.op, s.target, r.product, r.version AS backend_version, r.date AS release_date, r.channel,
       s.mode, s.status, s.dtypes, s.conditions, s.note, s.source_kind, s.source_name, s.source_url,
       s.probe_run_id, s.retrieved_at, s.sources, s.disagreement, s.basis, s.effective_status, s.effective_via,
       s.report
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


def known_op_names(conn: sqlite3.Connection) -> set[str]:
    names = {r[0] for r in conn.execute("SELECT name FROM op")}
    names.update(r[0] for r in conn.execute("SELECT DISTINCT op FROM observation"))
    return names


def is_known_op(conn: sqlite3.Connection, op: str) -> bool:
    """Whether the catalog or any observation names this canonical op (two index look-ups,
    not the whole of `known_op_names`)."""
    return conn.execute("SELECT 1 FROM op WHERE name = ? UNION ALL SELECT 1 FROM observation WHERE op = ? LIMIT 1",
                        (op, op)).fetchone() is not None


def ops_with_bases(conn: sqlite3.Connection, bases: list[str]) -> set[str]:
    """Every known op name whose base name is one of `bases` (`add` → aten::add,
    aten::add.Tensor, …): the catalog through its base index, observations through the
    op index by name range (`aten::add.` ≤ name < `aten::add/`, '/' following '.')."""
    names: set[str] = set()
    for base in bases:
        names.update(r[0] for r in conn.execute("SELECT name FROM op WHERE base = ?", (base,)))
        plain = f"aten::{base}"
        names.update(r[0] for r in conn.execute(
            "SELECT DISTINCT op FROM observation WHERE op = ? OR (op > ? AND op < ?)", (plain, plain + ".", plain + "/")))
    return names


def ops_with_prefix(conn: sqlite3.Connection, prefix: str) -> set[str]:
    """Known op names whose base name starts with `prefix` (a range on both indexes)."""
    high = prefix + "\U0010ffff"
    names = {r[0] for r in conn.execute("SELECT name FROM op WHERE base >= ? AND base < ?", (prefix, high))}
    names.update(r[0] for r in conn.execute("SELECT DISTINCT op FROM observation WHERE op >= ? AND op < ?",
                                            ("aten::" + prefix, "aten::" + high)))
    return names


def resolve_op(conn: sqlite3.Connection, name: str) -> list[str]:
    """A user's op name → canonical overloads. `add` means every overload of add;
    `add.Tensor` / `relu.default` one overload. Unknown → UnknownOpError with suggestions.
    Found by index (a plain `kb op` runs this on every start); only a miss reads every
    known name, for the suggestions."""
    try:
        base, overload = opnames.split(name)
    except opnames.OpNameError as exc:
        raise KBError(str(exc)) from None
    exact = opnames.canonical(name)
    if opnames.names_one_overload(name):
        if is_known_op(conn, exact):
            return [exact]
    else:
        family = sorted(ops_with_bases(conn, [base]))
        if family:
            return family
    raise UnknownOpError(name, suggest(known_op_names(conn), base, overload))


def suggest(known: set[str], base: str, overload: str = "", limit: int = 3) -> list[str]:
    import difflib

    bases = sorted({n[len("aten::"):].split(".")[0] for n in known})
    close = difflib.get_close_matches(base, bases, n=limit, cutoff=0.6)
    if overload and base in bases:  # right op, wrong overload: list the real overloads
        return sorted(n for n in known if n.startswith(f"aten::{base}."))[:limit + 2] or close
    return close


def op_catalog_entry(conn: sqlite3.Connection, op: str) -> dict[str, Any] | None:
    """The catalog row of an op, with `composite_kinds` named as the dispatcher names them."""
    from kb.store.catalog import composite_label

    row = conn.execute("SELECT * FROM op WHERE name = ?", (op,)).fetchone()
    if not row:
        return None
    entry = _row(row)
    entry["composite_kinds"] = composite_label(entry)
    return entry


def op_timeline(rows: list[dict[str, Any]], target: str, *, evidence_only: bool = False) -> list[dict[str, Any]]:
    """One target's rows of `op_verdicts`, oldest version first: the timeline "since when does X run"
    and "which version added X" read. `evidence_only` drops rows presumed from an older version
    (a history is where something was said about the op)."""
    mine = [r for r in rows if r["target"] == target
            and not (evidence_only and (r.get("basis") or "evidence") == "presumed")]
    return sorted(mine, key=lambda r: version_key(r["backend_version"]))


def op_verdicts(conn: sqlite3.Connection, ops: list[str], target: str | None = None,
                mode: str | None = None, newest: bool = False) -> list[dict[str, Any]]:
    """Every verdict the KB holds for these ops, across targets, versions and modes.
    `newest`: per op and target only the rows of its newest version and of its newest
    version with an eager verdict (what a one-cell summary picks from, e.g. the op page's
    related kernels), chosen before the JSON columns are read: an op with 88 Inf1
    versions costs one row's decoding, not 88."""
    marks = ",".join("?" * len(ops))
    sql = _VERDICT_SELECT + f" WHERE s.op IN ({marks})"
    args: list[Any] = list(ops)
    # `+column`: the op names are the selective part; without the plus SQLite (no
    # statistics) walks the mode or target index, tens of thousands of rows per page.
    if target:
        sql += " AND +s.target = ?"
        args.append(target)
    if mode:
        sql += " AND +s.mode = ?"
        args.append(mode)
    raw = conn.execute(sql, args).fetchall()
    if newest:
        raw = _newest_rows(raw)
    rows = [_row(r) for r in raw]
    rows.sort(key=lambda r: (r["op"], r["target"], tuple(-x[1] for x in version_key(r["backend_version"])), r["mode"]))
    return rows


def _newest_rows(raw: list[sqlite3.Row]) -> list[sqlite3.Row]:
    """The rows at each (op, target)'s newest version and newest eager version."""
    best: dict[tuple[str, str], list] = {}  # (op, target) -> [newest key, newest eager key]
    for r in raw:
        key = version_key(r["backend_version"])
        slot = best.setdefault((r["op"], r["target"]), [None, None])
        if slot[0] is None or key > slot[0]:
            slot[0] = key
        if r["mode"] == "eager" and (slot[1] is None or key > slot[1]):
            slot[1] = key
    return [r for r in raw if version_key(r["backend_version"]) in best[(r["op"], r["target"])]]


def op_report(conn: sqlite3.Connection, name: str, target: str | list[str] | None = None,
              versions: dict[str, str] | None = None) -> dict[str, Any]:
    """`kb op NAME`: the overloads NAME stands for, each with catalog facts and verdicts.
    `target` narrows to one or several targets, `versions` to one version per target."""
    targets = [target] if isinstance(target, str) else list(target or [])
    versions = versions or {}
    for t in targets:
        check_target(conn, t)
    ops = resolve_op(conn, name)
    verdicts = [v for v in op_verdicts(conn, ops)
                if (not targets or v["target"] in targets)
                and v["backend_version"] == versions.get(v["target"], v["backend_version"])]
    by_op: dict[str, list] = {op: [] for op in ops}
    for v in verdicts:
        by_op[v["op"]].append(v)
    notes = basis_notes(conn, sorted({(v["target"], v["backend_version"]) for v in verdicts}))
    listed = targets or target_names(conn)
    return {
        "query": name,
        "ops": [
            {"op": op, "catalog": op_catalog_entry(conn, op), "verdicts": by_op[op],
             "unknown_targets": [{"target": t, "status": UNKNOWN, "settle": verdict.settle(t)}
                                 for t in listed if not any(v["target"] == t for v in by_op[op])],
             "caveats": [c for t in (targets or [None]) for c in caveats(conn, ops=[op], target=t)]}
            for op in ops
        ],
        "basis_notes": notes,
    }


STALE_DAYS = 30  # data older than this gets a one-line notice naming the refresh


# Tables whose rows carry a source and the time it was read.
_DATED_TABLES = ("observation", "release", "limitation", "supportwindow", "caveat")


def compute_data_as_of(conn: sqlite3.Connection) -> dict[str, str]:
    """Per source: the day of its newest data in this KB (its latest retrieval). Counted at
    every rebuild into kbmeta, so headers say "as of DATE" without a scan."""
    newest: dict[str, str] = {}
    today = datetime.now(UTC).date().isoformat()
    for table in _DATED_TABLES:
        # a local report (kb ingest FILE) may claim any retrieval date: it never sets "as of"
        sql = (f"SELECT source_name, MAX(retrieved_at) FROM {table} WHERE retrieved_at IS NOT NULL"
               f" AND substr(retrieved_at, 1, 10) <= ? AND report IS NULL GROUP BY source_name")
        for name, when in conn.execute(sql, (today,)):
            day = (when or "")[:10]
            if name and day and day > newest.get(name, ""):
                newest[name] = day
    return newest


def data_as_of(conn: sqlite3.Connection) -> dict[str, str]:
    """Per source, the day of its newest data (kbmeta `data_as_of`; counted here for a KB
    built before kb wrote it)."""
    row = conn.execute("SELECT value FROM kbmeta WHERE key = 'data_as_of'").fetchone()
    return json.loads(row[0]) if row and row[0] else compute_data_as_of(conn)


def newest_data_day(conn: sqlite3.Connection) -> str | None:
    """The day of the newest data this KB holds, over all sources (None: no dated data)."""
    return max(data_as_of(conn).values(), default=None)


def freshness_notice(conn: sqlite3.Connection, today: date) -> str | None:
    """One line when the KB's newest data is more than STALE_DAYS old, naming the refresh
    (and how to share it); None when fresh or undated."""
    newest = newest_data_day(conn)
    if not newest:
        return None
    try:
        age = (today - date.fromisoformat(newest)).days
    except ValueError:
        return None
    if age <= STALE_DAYS:
        return None
    return (f"the KB's newest data is from {newest} ({age} days old): `kb ingest --all` refreshes it "
            "(`kb data export` writes the result to data/ to share)")


PRESUMED_SHARE_NOTED = 0.5  # a version whose verdicts are mostly presumed says so in every header


def _basis_rows(conn: sqlite3.Connection, wanted: set[tuple[str, str]]) -> tuple[list[tuple], set[str], str]:
    """(target, version, channel, total, presumed, source) of the wanted target versions,
    oldest first per target, with the pre-release versions and the "as of" phrase: one
    read of kbmeta's `basis_stats` and the release table, however many versions are shown."""
    meta = conn.execute("SELECT value FROM kbmeta WHERE key = 'basis_stats'").fetchone()
    stats = json.loads(meta[0]) if meta else {}
    versions = sorted({v for _, v in wanted})  # only the releases asked about (and the pre-releases)
    releases = {str(rid): (version, channel) for rid, version, channel in conn.execute(
        f"SELECT id, version, channel FROM release WHERE channel = 'pre-release' OR version IN "
        f"({','.join('?' * len(versions))})", versions)}
    channels = {version for version, channel in releases.values() if channel == "pre-release"}
    rows = []
    for key, (total, presumed, source) in stats.items():
        target, _, release_id = key.partition("\t")
        version, channel = releases.get(release_id, (None, None))
        if version is not None and (target, version) in wanted:
            rows.append((target, version, channel, total, presumed, source))
    rows.sort(key=lambda r: (r[0], version_key(r[1])))
    as_of = newest_data_day(conn)
    return rows, channels, (f"as of {as_of}" if as_of else "yet")


def basis_notes(conn: sqlite3.Connection, shown: list[tuple[str, str | None]]) -> list[str]:
    """What the verdicts of the shown target versions rest on, where it is not mostly
    their own evidence: a pre-release, or verdicts presumed from an older version. Read
    from kbmeta's `basis_stats` (counted by kb.store.support.rebuild), so a `kb op` header
    costs no count over the verdicts. The detail behind `basis_notices` (--verbose, JSON)."""
    wanted = {(t, v) for t, v in shown if v}
    if not wanted:
        return []
    rows, channels, since = _basis_rows(conn, wanted)
    notes = []
    mostly_presumed: dict[str, list[tuple[str, int, int, str]]] = {}
    for target, version, channel, total, presumed, source in rows:
        if channel == "pre-release":
            notes.append(f"{target} {version} is a pre-release development snapshot, not a vendor release")
        if presumed and presumed >= PRESUMED_SHARE_NOTED * total:
            mostly_presumed.setdefault(target, []).append((version, presumed, total, source))
    for target, found in mostly_presumed.items():
        if len(found) > 2:  # a long product line (Inf1's torch-neuron): one line, not one per version
            notes.append(f"{target}: {len(found)} versions ({found[0][0]} … {found[-1][0]}) rest mostly on verdicts "
                         f"presumed from older versions (no evidence of their own for those ops {since})")
            continue
        for version, presumed, total, source in found:
            what = " (a pre-release snapshot)" if source in channels else ""
            notes.append(f"{presumed:,} of {total:,} verdicts for {target} {version} are presumed from {source}{what}: "
                         f"no evidence of its own for those ops {since}")
    return notes


def basis_notes_each(conn: sqlite3.Connection, shown: list[tuple[str, str | None]]) -> list[str]:
    """`basis_note` of every shown target version, in order, from one read of the stats
    (the op page's `basis_notes`: it used to read them once per version shown)."""
    wanted = {(t, v) for t, v in shown if v}
    if not wanted:
        return []
    rows, channels, since = _basis_rows(conn, wanted)
    by_version: dict[tuple[str, str], list[str]] = {}
    for target, version, channel, total, presumed, source in rows:
        notes = by_version.setdefault((target, version), [])
        if channel == "pre-release":
            notes.append(f"{target} {version} is a pre-release development snapshot, not a vendor release")
        if presumed and presumed >= PRESUMED_SHARE_NOTED * total:
            what = " (a pre-release snapshot)" if source in channels else ""
            notes.append(f"{presumed:,} of {total:,} verdicts for {target} {version} are presumed from {source}{what}: "
                         f"no evidence of its own for those ops {since}")
    return ["; ".join(n) for t, v in shown if v and (n := by_version.get((t, v)))]


def basis_notices(conn: sqlite3.Connection, shown: list[tuple[str, str | None]]) -> dict[str, str]:
    """One line per target folding its basis notes: the pre-release snapshot and the
    verdicts presumed from older versions ("neuron: 18,390 verdicts of 3 versions presumed
    from the pre-release snapshot 0.1.0.dev0+g98154b8 (as of DATE)"). A table prints
    these by default; `basis_notes` is the per-version detail (--verbose, JSON)."""
    wanted = {(t, v) for t, v in shown if v}
    if not wanted:
        return {}
    rows, channels, since = _basis_rows(conn, wanted)
    snapshots: dict[str, list[str]] = {}
    presumed_by: dict[str, list[tuple[str, int, str]]] = {}
    for target, version, channel, total, presumed, source in rows:
        if channel == "pre-release":
            snapshots.setdefault(target, []).append(version)
        if presumed and presumed >= PRESUMED_SHARE_NOTED * total:
            presumed_by.setdefault(target, []).append((version, presumed, source))
    out = {}
    for target in sorted(set(snapshots) | set(presumed_by)):
        found = presumed_by.get(target, [])
        sources = {source for _, _, source in found}
        parts = []
        if len(sources) == 1:
            (source,) = sources
            what = f"the pre-release snapshot {source}" if source in channels else source
            count = sum(p for _, p, _ in found)
            of = f" of {len(found)} versions" if len(found) > 1 else f" of {found[0][0]}"
            parts.append(f"{count:,} verdicts{of} presumed from {what} ({since})")
        elif found:
            parts.append(f"{len(found)} versions ({found[0][0]} … {found[-1][0]}) presumed mostly from earlier ones "
                         f"({since})")
        named = {s for s in sources if s in channels}
        others = [v for v in snapshots.get(target, []) if v not in named]
        if others:
            parts.append(f"{', '.join(others)} is a pre-release development snapshot, not a vendor release")
        out[target] = f"{target}: " + "; ".join(parts)
    return out


def notice_line(notices: dict[str, str]) -> str | None:
    """The one stderr line a table prints for its targets' basis notices (None: none)."""
    if not notices:
        return None
    lines = list(notices.values())
    lines[0] = "basis: " + lines[0]  # never read as a per-target line such as "neuron: 107 of 107 ops known"
    tail = re.search(r" \((as of [^)]*|yet)\)$", lines[0])
    if tail and all(line.endswith(tail.group(0)) for line in lines):  # say the date once
        return " · ".join(line[: -len(tail.group(0))] for line in lines) + f" ({tail.group(1)}; --verbose: per version)"
    return " · ".join(lines) + " (--verbose: per version)"


def basis_note(conn: sqlite3.Connection, target: str, version: str | None) -> str | None:
    """The basis notes of one target version, joined (None when its verdicts are its own)."""
    return "; ".join(basis_notes(conn, [(target, version)])) or None


def latest_release_with_verdicts(conn: sqlite3.Connection, target: str) -> str | None:
    """The newest backend version of `target` that has any verdict (the default version)."""
    versions = _release_versions(conn, target)
    return max(versions, key=version_key) if versions else None


def pick_version(conn: sqlite3.Connection, target: str, version: str | None) -> str | None:
    """The one version a single-version command reads for `version` as typed (the grammar
    of kb.store.targetspec: a package version, an SDK release, a line), else the newest one
    with verdicts."""
    if version is None:
        return latest_release_with_verdicts(conn, target)
    found = resolve(conn, target, version, strict=True)
    if found.chosen not in found.with_data:
        known = ", ".join(found.with_data) or "none"
        raise KBError(f"no verdicts for {target} version {version!r} ({found.label}; versions with data: {known})")
    return found.chosen


def support_map(conn: sqlite3.Connection, target: str, backend_version: str | None = None,
                mode: str = "eager") -> dict[str, dict[str, Any]]:
    """op → verdict row for one target, version (default: newest with data) and mode."""
    check_target(conn, target)
    version = pick_version(conn, target, backend_version)
    if version is None:
        return {}
    # by the release index (one version's rows), not the target or mode index (all of them); the
    # release ids as constants, which SQLite hands down into both halves of the support view
    # (a subquery it would not, and the whole view would be copied first: kb.store.migrations)
    ids = [rid for (rid,) in conn.execute("SELECT id FROM release WHERE version = ?", (version,))]
    rows = conn.execute(_VERDICT_SELECT + f" WHERE s.release_id IN ({', '.join('?' * len(ids)) or 'NULL'}) "
                        "AND +s.target = ? AND r.version = ? AND +s.mode = ?", (*ids, target, version, mode))
    return {r["op"]: _row(r) for r in rows}


def support_lookup(conn: sqlite3.Connection, target: str, backend_version: str | None = None,
                   mode: str = "eager"):
    """`support_map` as a function op → verdict row (or None), each op read when first asked
    for (by the op index) and kept: a check asks for its model's few dozen ops and their
    leaves, not the target's six thousand verdicts. The connection stays open with it."""
    check_target(conn, target)
    version = pick_version(conn, target, backend_version)
    found: dict[str, dict[str, Any] | None] = {}
    sql = _VERDICT_SELECT + " WHERE s.op = ? AND +s.target = ? AND r.version = ? AND +s.mode = ?"

    def lookup(op: str) -> dict[str, Any] | None:
        if op not in found:
            row = conn.execute(sql, (op, target, version, mode)).fetchone() if version is not None else None
            found[op] = _row(row) if row else None
        return found[op]

    return lookup


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
        rows = [v for op, v in sorted(verdicts.items())
                if status is None or status in (v["status"], verdict.effective_status(v))]
    if pattern:
        rows = [r for r in rows if pattern in r["op"]]
    cover = coverage(conn, target, chosen, mode, pattern, set(verdicts))
    cover["matching"] = len(rows)
    result = {"target": target, "backend_version": chosen, "mode": mode, "status": status, "ops": rows,
              "basis_note": basis_note(conn, target, chosen), "coverage": cover,
              "notices": basis_notices(conn, [(target, chosen)])}  # the folded stderr line (kb ops)
    if status not in (None, UNKNOWN):
        result["matching_by"] = matching_by(rows, status)
    return result


def matching_by(rows: list[dict[str, Any]], status: str) -> dict[str, int]:
    """How ops listed for a status match it: by their own status (`kb targets` counts
    those), or as a decomposed op that runs as that status at a leaf (where it runs)."""
    own = sum(1 for r in rows if r["status"] == status)
    return {"own_status": own, "runs_as": len(rows) - own}


def matching_line(by: dict[str, int], status: str) -> str:
    """"1,163 fallback: 711 by own status + 452 decomposed ops that run as fallback at a leaf"."""
    total = by["own_status"] + by["runs_as"]
    if not by["runs_as"]:
        return f"{total:,} {status} by own status"
    return (f"{total:,} {status} where the op runs: {by['own_status']:,} by own status + {by['runs_as']:,} "
            f"decomposed ops that run as {status} at a leaf")


def coverage(conn: sqlite3.Connection, target: str, version: str | None, mode: str = "eager",
             pattern: str | None = None, known_ops: set[str] | None = None) -> dict[str, Any]:
    """How much of the op catalog one target version has a verdict for: known, unknown
    (catalog ops without one) and the share known, so an empty answer is never read as
    "none of them" when it means "no data". `outside_catalog` counts verdicts for names
    that are no overload of the local catalog (a source's family name, another torch
    version's overload): why two targets that both cover the catalog show different counts."""
    if known_ops is None:
        known_ops = set(support_map(conn, target, version, mode)) if version else set()
    catalog = {r[0] for r in conn.execute("SELECT name FROM op")}
    if pattern:
        known_ops = {op for op in known_ops if pattern in op}
        catalog = {op for op in catalog if pattern in op}
    unknown = len(catalog - known_ops)
    outside = len(known_ops - catalog)
    total = len(known_ops) + unknown
    in_catalog = len(catalog) - unknown
    return {"known": len(known_ops), "unknown": unknown, "total": total,
            "percent": round(100 * in_catalog / len(catalog), 1) if catalog else 0.0,
            "catalog": len(catalog), "outside_catalog": outside}


def coverage_line(cov: dict[str, Any], what: str = "") -> str:
    """"403 of 3,110 known (13.0%); 2,707 unknown" — or, with `what` ("unsupported")
    and a count, "0 unsupported of 403 known; 2,707 unknown". Verdicts for ops outside
    the catalog are said apart: "3,110 of 3,110 catalog ops known (100.0%) + 26 outside it"."""
    outside = cov.get("outside_catalog") or 0
    if what:
        return f"{cov['matching']:,} {what} of {cov['known']:,} known; {cov['unknown']:,} unknown"
    if not outside:
        return f"{cov['known']:,} of {cov['total']:,} ops known ({cov['percent']}%); {cov['unknown']:,} unknown"
    return (f"{cov['known'] - outside:,} of {cov['catalog']:,} catalog ops known ({cov['percent']}%), "
            f"+ {outside:,} names its sources give that are no overload of the catalog (a family name such as "
            f"aten::div, or another torch version's overload); {cov['unknown']:,} unknown")


def compare(conn: sqlite3.Connection, targets: list[str], mode: str = "eager", pattern: str | None = None,
            only_differences: bool = False, versions: dict[str, str] | None = None,
            keep_unknown: bool = True) -> dict[str, Any]:
    """A caniuse-style matrix: ops × targets (each at its newest version with data).
    With `only_differences` and not `keep_unknown`, rows where some target has no verdict
    are left out and counted in `unknown_left_out` (an unknown is no difference)."""
    versions = versions or {}
    maps, chosen = {}, {}
    for target in targets:
        maps[target] = support_map(conn, target, versions.get(target), mode)
        chosen[target] = pick_version(conn, target, versions.get(target))
    ops = sorted(set().union(*[set(m) for m in maps.values()])) if maps else []
    if pattern:
        ops = [op for op in ops if pattern in op]
    rows = []
    left_out = 0
    for op in ops:
        cells = {t: maps[t][op]["status"] if op in maps[t] else UNKNOWN for t in targets}
        effective = {t: verdict.effective_status(maps[t].get(op)) for t in targets}
        if only_differences and len(set(effective.values())) < 2:
            continue
        if only_differences and not keep_unknown and UNKNOWN in effective.values():
            left_out += 1
            continue
        rows.append({"op": op, **cells, "effective": effective,
                     "basis": {t: maps[t][op].get("basis") if op in maps[t] else None for t in targets},
                     "labels": {t: verdict.label(maps[t].get(op)) for t in targets}})
    notes = basis_notes(conn, [(t, chosen[t]) for t in targets])
    cover = {t: coverage(conn, t, chosen[t], mode, pattern, set(maps[t])) for t in targets}
    return {"targets": targets, "versions": chosen, "mode": mode, "rows": rows, "basis_notes": notes,
            "notices": basis_notices(conn, [(t, chosen[t]) for t in targets]),
            "coverage": cover, "unknown_left_out": left_out,
            "doc_rules": doc_rules_behind([maps[t][r["op"]] for r in rows for t in targets if r["op"] in maps[t]])}


def doc_rules_behind(verdicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The doc rules (kb.store.rules) that verdicts of basis `doc rule` rest on: each
    rule's summary, URL and how many of the verdicts it decides, for a table's footer."""
    found: dict[tuple, dict[str, Any]] = {}
    for v in verdicts:
        if v.get("basis") != "doc rule":
            continue
        key = (v["target"], v.get("note"), v.get("source_url"))
        entry = found.setdefault(key, {"target": v["target"], "rule": (v.get("note") or "").removeprefix("doc rule: "),
                                       "source_url": v.get("source_url"), "verdicts": 0})
        entry["verdicts"] += 1
    return sorted(found.values(), key=lambda e: (e["target"], -e["verdicts"]))


def diff(conn: sqlite3.Connection, target: str, old: str, new: str, mode: str = "eager") -> dict[str, Any]:
    """`kb diff TARGET OLD NEW`: ops whose verdict changed between two versions of a target
    — kernels gained and lost first, then every other change of where an op runs."""
    old_map = support_map(conn, target, old, mode)
    new_map = support_map(conn, target, new, mode)
    gained, lost, changed = [], [], []
    for op in sorted(set(old_map) | set(new_map)):
        before, after = old_map.get(op), new_map.get(op)
        row = {"op": op, "old": before["status"] if before else UNKNOWN, "new": after["status"] if after else UNKNOWN,
               "old_runs": verdict.effective_status(before), "new_runs": verdict.effective_status(after),
               "old_basis": before.get("basis") if before else None, "new_basis": after.get("basis") if after else None}
        if row["new"] == "native" and row["old"] != "native":
            gained.append(row)
        elif row["old"] == "native" and row["new"] != "native":
            lost.append(row)
        elif (row["old"], row["old_runs"]) != (row["new"], row["new_runs"]):
            changed.append(row)
    return {"target": target, "old": old, "new": new, "mode": mode, "gained": gained, "lost": lost,
            "changed": changed, "basis_notes": basis_notes(conn, [(target, old), (target, new)]),
            "same_presumed_source": same_presumed_source(old_map, new_map),
            "notices": basis_notices(conn, [(target, old), (target, new)])}


def _presumed_from(v: dict[str, Any] | None) -> str | None:
    if not v or v.get("basis") != "presumed":
        return None
    via = v.get("effective_via")
    return via.get("presumed_from") if isinstance(via, dict) else None


def same_presumed_source(old_map: dict[str, dict[str, Any]], new_map: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """Ops whose verdicts on both sides of a diff are presumed from one and the same older
    version: "no change" there is no evidence of no difference, so `kb diff` says so.
    {"ops": n, "of": compared, "sources": [...]}, or None when no op is in that case."""
    both = [op for op in set(old_map) & set(new_map)
            if (src := _presumed_from(old_map[op])) and src == _presumed_from(new_map[op])]
    if not both:
        return None
    sources = sorted({_presumed_from(old_map[op]) for op in both})
    return {"ops": len(both), "of": len(set(old_map) | set(new_map)), "sources": sources}


def target_versions_with_data(conn: sqlite3.Connection, target: str) -> list[str]:
    """A target's versions that have any verdict (the `kb targets` column), unordered."""
    return list(_release_versions(conn, target))


def targets_overview(conn: sqlite3.Connection, versions: dict[str, str] | None = None,
                     only: list[str] | None = None) -> list[dict[str, Any]]:
    """Each target with its versions that have verdicts and its status counts (at the
    newest version, or the one `versions` names: already resolved, kb.store.targetspec)."""
    out = []
    for row in conn.execute("SELECT * FROM target ORDER BY name"):
        if only and row["name"] not in only:
            continue
        target = dict(row)
        with_data = sorted(_release_versions(conn, row["name"]), key=version_key)
        latest = (versions or {}).get(row["name"]) or (with_data[-1] if with_data else None)
        versions_of = with_data
        counts, runs = {}, {}
        if latest:
            # the release ids as constants: SQLite hands them down into both halves of the view
            ids = [rid for (rid,) in conn.execute("SELECT id FROM release WHERE version = ?", (latest,))]
            marks = ", ".join("?" * len(ids)) or "NULL"
            counts = dict(conn.execute(
                f"SELECT s.status, count(*) FROM support_status s WHERE s.release_id IN ({marks}) "
                "AND +s.target = ? AND +s.mode = 'eager' GROUP BY s.status", (*ids, row["name"])).fetchall())
            # where the op runs: a decomposed op counts as its worst leaf (what kb ops --status and kb ask count)
            runs = dict(conn.execute(
                f"SELECT COALESCE(s.effective_status, s.status), count(*) FROM support_status s "
                f"WHERE s.release_id IN ({marks}) AND +s.target = ? AND +s.mode = 'eager' "
                "GROUP BY COALESCE(s.effective_status, s.status)", (*ids, row["name"])).fetchall())
        out.append({**target, "versions": versions_of, "latest": latest, "eager_counts": counts, "eager_runs": runs,
                    "coverage": coverage(conn, row["name"], latest, "eager"),
                    "basis_note": basis_note(conn, row["name"], latest) if latest else None,
                    # the folded form every other table prints on stderr (t26 r2 #9)
                    "basis_notice": basis_notices(conn, [(row["name"], latest)]).get(row["name"]) if latest else None})
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
    tables = ["target", "release", "op", "observation", "support", "limitation", "supportwindow", "proberun", "ingestrun",
              "caveat"]
    counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
    by_source = dict(conn.execute("SELECT source_kind, count(*) FROM observation GROUP BY source_kind").fetchall())
    meta = dict(conn.execute("SELECT key, value FROM kbmeta").fetchall())
    return {
        "schema_version": conn.execute("PRAGMA user_version").fetchone()[0],
        "tables": counts,
        "observations_by_source_kind": by_source,
        "disagreements": conn.execute("SELECT count(*) FROM support_status WHERE disagreement = 1").fetchone()[0],
        "meta": meta,
    }


# --- field caveats (schema 5) ---------------------------------------------------------------

_CAVEAT_JSON = ("dtypes", "arg_dtypes", "conditions", "figure")


def _caveat_row(row: sqlite3.Row) -> dict[str, Any]:
    out = dict(row)
    for key in _CAVEAT_JSON:
        if isinstance(out.get(key), str):
            out[key] = json.loads(out[key])
    out["family"] = bool(out["family"])
    return out


def _has_caveats(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'caveat'").fetchone() is not None


def caveat_matches_op(caveat: dict[str, Any], op: str) -> bool:
    """Whether a caveat names this op: the overload itself, or its family when the caveat
    covers every overload of a base name (sources that name functions, not overloads),
    in-place variants included."""
    if caveat["op"] == op:
        return True
    if not caveat["family"]:
        return False
    try:  # a family includes its in-place variant: scatter_add covers scatter_add_
        return opnames.base_name(caveat["op"]).rstrip("_") == opnames.base_name(op).rstrip("_")
    except opnames.OpNameError:
        return False


def caveat_in_range(caveat: dict[str, Any], version: str | None) -> bool:
    """Whether `version` lies in the caveat's inclusive range. With no version to compare
    (a check against a target with no data), a caveat is shown with its range stated."""
    if version is None:
        return True
    key = version_key(version)
    if caveat.get("min_version") and key < version_key(caveat["min_version"]):
        return False
    if caveat.get("max_version") and key > version_key(caveat["max_version"]):
        return False
    return True


def caveats(conn: sqlite3.Connection, *, ops: list[str] | None = None, target: str | None = None,
            version: str | None = None, kind: str | None = None) -> list[dict[str, Any]]:
    """Field caveats, optionally for some ops (overloads or families), one target, a version
    inside their range, one kind. Sorted by op, target, kind."""
    if not _has_caveats(conn):
        return []
    sql, args = "SELECT * FROM caveat WHERE 1 = 1", []
    if target:
        sql += " AND target = ?"
        args.append(target)
    if kind:
        sql += " AND kind = ?"
        args.append(kind)
    if ops is not None:  # by the op index first (an op, or its family's name range); matched exactly below
        stems = set()
        for op in ops:
            try:
                stems.add("aten::" + opnames.base_name(op).rstrip("_"))
            except opnames.OpNameError:
                pass
        clauses = [f"op IN ({','.join('?' * len(ops))})"] if ops else []
        args += list(ops)
        for stem in sorted(stems):
            clauses.append("(op >= ? AND op < ?)")
            args += [stem, stem + "\U0010ffff"]
        sql += " AND (" + (" OR ".join(clauses) or "0") + ")"
    rows = [_caveat_row(r) for r in conn.execute(sql + " ORDER BY op, target, kind, id", args)]
    if ops is not None:
        rows = [r for r in rows if any(caveat_matches_op(r, op) for op in ops)]
    if version is not None:
        rows = [r for r in rows if caveat_in_range(r, version)]
    return rows


def caveat_summary(conn: sqlite3.Connection) -> dict[str, Any]:
    """Counts of caveats by target and kind, and by source (for reports and the closing note)."""
    if not _has_caveats(conn):
        return {"total": 0, "by_target_kind": {}, "by_source": {}}
    by_tk: dict[str, dict[str, int]] = {}
    for target, kind, n in conn.execute("SELECT target, kind, count(*) FROM caveat GROUP BY target, kind"):
        by_tk.setdefault(target, {})[kind] = n
    by_source = {url or name: n for name, url, n in conn.execute(
        "SELECT source_name, source_url, count(*) FROM caveat GROUP BY source_name, source_url ORDER BY source_url")}
    total = conn.execute("SELECT count(*) FROM caveat").fetchone()[0]
    return {"total": total, "by_target_kind": by_tk, "by_source": by_source}
