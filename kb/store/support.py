"""Deriving verdicts from evidence: precedence, dtype restrictions, disagreements.

For every op × target × release × mode, each source's *current* word (its newest ingest
for that target and release) is reduced to one status, then the source of highest
precedence wins (live_probe > static_probe > doc/manual > release_notes > doc_rule > inferred;
newest retrieval breaks ties). Sources that say different things are kept side by side
in `Support.sources` and flagged as a disagreement, never averaged away.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from kb.store import packed, queries
from kb.store.queries import version_key
from kb.vocab import DOC_RULE_BASIS, FAMILY_GRANULARITY, SEVERITY, SOURCE_RANK, best

# The basis a winning source kind gives a verdict (every other kind is evidence).
BASIS_OF_KIND = {"inferred": "inferred", "doc_rule": DOC_RULE_BASIS}


@dataclass(frozen=True)
class SourceVerdict:
    """One source's statement about one op × target × release × mode, reduced to one status."""

    source: str  # source name, plus the probe run for probes
    rank: int
    retrieved_at: str
    status: str
    dtypes: tuple[str, ...] | None
    conditions: dict[str, Any] | None
    observation: dict[str, Any]  # the row standing for this source's statement


def source_id(obs: dict[str, Any]) -> str:
    run = obs.get("probe_run_id")
    return f"{obs['source_name']}@{run}" if run else obs["source_name"]


def reduce_source(rows: list[dict[str, Any]]) -> SourceVerdict:
    """One source's rows (one per dtype, say) → one status with a structured restriction.

    Same status everywhere: that status, for the union of the dtypes. Mixed: the best
    status, restricted to the dtypes where it holds, the others listed by status in
    `conditions["other_dtypes"]` — partial support is a restriction, never a word.
    """
    statuses = {row["status"] for row in rows}
    first = max(rows, key=lambda r: r["retrieved_at"])
    if len(statuses) == 1:
        dtype_lists = [row["dtypes"] for row in rows]
        dtypes = None if any(d is None for d in dtype_lists) else tuple(sorted({d for ds in dtype_lists for d in ds}))
        conditions = first["conditions"]
        status = statuses.pop()
    else:
        status = best(statuses)
        held = sorted({d for row in rows if row["status"] == status for d in (row["dtypes"] or ())})
        others = {d: row["status"] for row in rows if row["status"] != status for d in (row["dtypes"] or ())}
        dtypes = tuple(held) or None
        conditions = {**(first["conditions"] or {}), "other_dtypes": dict(sorted(others.items()))}
        first = next(row for row in rows if row["status"] == status)
    return SourceVerdict(
        source=source_id(first),
        rank=SOURCE_RANK[first["source_kind"]],
        retrieved_at=first["retrieved_at"],
        status=status,
        dtypes=dtypes,
        conditions=conditions,
        observation=first,
    )


def tier(obs: dict[str, Any]) -> int:
    """Trust before precedence: a local report file (kb ingest FILE) ranks below every
    shipped or self-made source (0), unless it was ingested with --prefer-local (2)."""
    report = obs.get("report")
    if not report:
        return 1
    return 2 if report.get("prefer_local") else 0


def choose(verdicts: list[SourceVerdict]) -> SourceVerdict:
    """Most trusted, then highest precedence wins; among equals the newest retrieval."""
    return max(verdicts, key=lambda v: (tier(v.observation), v.rank, v.retrieved_at, -SEVERITY[v.status]))


def expand_families(observations: list[dict[str, Any]], catalog: Iterable[str]) -> list[dict[str, Any]]:
    """A fact stated for a whole op family (`aten::add` on a docs list) also stands for
    each overload of that family (`aten::add.Tensor`, `aten::add.out`...) that the same
    source does not name itself. The family row is kept as stated."""
    members: dict[str, list[str]] = defaultdict(list)
    for name in catalog:
        members[name.partition(".")[0]].append(name)
    named = {(source_id(o), o["op"], o["target"], o["release_id"], o["mode"]) for o in observations}
    out = list(observations)
    for obs in observations:
        detail = obs.get("detail") or {}
        if detail.get("granularity") != FAMILY_GRANULARITY or "." in obs["op"]:
            continue
        for overload in members.get(obs["op"], ()):
            if overload != obs["op"] and (source_id(obs), overload, obs["target"], obs["release_id"], obs["mode"]) not in named:
                note = f"{obs['note'] + '; ' if obs['note'] else ''}stated for the op family {obs['op']}"
                out.append({**obs, "op": overload, "note": note})
    return out


def _stable(obs: dict[str, Any]) -> tuple[str, str, str]:
    return obs["source_name"], obs["probe_run_id"] or "", obs["fingerprint"]


def derive(observations: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Support rows from current observations (dicts with Observation's columns).

    Each key's rows are taken in an order their content decides (source, run, fingerprint),
    never the order they were read in: ties in reduce_source and choose go to the first row,
    and an incremental refresh (kb.store.incremental) stores a changed file's rows after the
    others, yet must pick what a full build picks."""
    by_obs: dict[tuple, list] = defaultdict(list)
    for obs in observations:
        by_obs[(obs["op"], obs["target"], obs["release_id"], obs["mode"])].append(obs)
    by_key: dict[tuple, dict[str, list]] = {}
    for key, found in by_obs.items():
        if len(found) > 1:
            found.sort(key=_stable)
        per: dict[str, list] = defaultdict(list)
        for obs in found:
            per[source_id(obs)].append(obs)
        by_key[key] = per
    rows = []
    for (op, target, release_id, mode), per_source in by_key.items():
        verdicts = [reduce_source(source_rows) for source_rows in per_source.values()]
        win = choose(verdicts)
        obs = win.observation
        effective_status, effective_via = effective_of(win.status, obs, per_source)
        rows.append(
            {
                "op": op,
                "target": target,
                "release_id": release_id,
                "mode": mode,
                "status": win.status,
                "dtypes": list(win.dtypes) if win.dtypes is not None else None,
                "conditions": win.conditions,
                "note": obs["note"],
                "source_kind": obs["source_kind"],
                "source_name": obs["source_name"],
                "source_url": obs["source_url"],
                "probe_run_id": obs["probe_run_id"],
                "retrieved_at": obs["retrieved_at"],
                "observation_id": obs["id"],
                "sources": {v.source: v.status for v in sorted(verdicts, key=lambda v: v.source)},
                "disagreement": len({v.status for v in verdicts}) > 1,
                "basis": "local" if obs.get("report") else BASIS_OF_KIND.get(obs["source_kind"], "evidence"),
                "effective_status": effective_status,
                "effective_via": effective_via,
                "report": obs.get("report"),
            }
        )
    return rows


def effective_of(status: str, winner: dict[str, Any], per_source: dict[str, list[dict[str, Any]]]
                 ) -> tuple[str | None, dict[str, Any] | None]:
    """Where an op really runs. Anything but `decomposed` runs where its status says; a
    decomposed op runs as its worst leaf does, read from the observation that traced its
    leaves (the winner's own, else the dispatcher replay's for the same key). None when
    no source traced them."""
    if status != "decomposed":
        return status, None
    candidates = [winner] + [rows[0] for rows in per_source.values() if rows[0] is not winner]
    for obs in candidates:
        detail = obs.get("detail") or {}
        if "leaves" not in detail:
            continue
        if detail["leaves"] is None:
            continue
        via = {"leaf": detail.get("effective_at"), "leaves": detail["leaves"], "from": source_id(obs)}
        return detail.get("effective", "decomposed"), via
    traced = next((obs for obs in candidates if "leaves" in (obs.get("detail") or {})), None)
    if traced is not None:
        return None, {"leaves": None, "from": source_id(traced), "why": "no OpInfo samples: leaves not traced"}
    return None, None


def carry_forward(rows: list[dict[str, Any]], releases: dict[int, tuple[str, str]],
                  products: dict[str, str]) -> list[dict[str, Any]]:
    """Presumed verdicts: a newer version of a target's product line inherits, op by op,
    the verdict of the newest older version, wherever it has no word of its own on the
    op. Marked `presumed` with the version it comes from; any evidence for the newer
    version replaces it at the next rebuild. A local report file's word (not preferred with
    --prefer-local) does not displace a verdict presumed from shipped or self-made evidence:
    the presumed verdict stands, the report's status is kept beside it in `sources` (a
    disagreement when they differ), and the report's own row is dropped (`_displaced`)."""
    line: dict[str, list[int]] = defaultdict(list)  # target -> its product's release ids, oldest first
    for release_id, (product, _version) in releases.items():
        for target, target_product in products.items():
            if product == target_product:
                line[target].append(release_id)
    for ids in line.values():
        ids.sort(key=lambda rid: version_key(releases[rid][1]))
    by_target: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["release_id"] in line.get(row["target"], ()):
            by_target[row["target"]].append(row)
    added = []
    vias: dict[int, dict[str, Any]] = {}  # the rows stay alive in `rows`: their ids are stable
    for target, ids in line.items():
        at: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for row in by_target.get(target, ()):
            at[row["release_id"]].append(row)
        newest: dict[tuple[str, str], dict[str, Any]] = {}  # (op, mode) -> the newest row so far
        for release_id in ids:
            own = {(row["op"], row["mode"]): row for row in at[release_id]}
            for (op, mode), row in newest.items():
                mine = own.get((op, mode))
                if mine is not None and (tier(mine) >= 1 or tier(row) == 0):
                    continue
                source_version = releases[row["release_id"]][1]
                note = f"presumed from {source_version} (no word on this op for {releases[release_id][1]})"
                via = vias.get(id(row))
                if via is None:  # one dict per carried row, shared by every version it is carried to
                    via = vias[id(row)] = {**(row["effective_via"] or {}), "presumed_from": source_version}
                presumed = {**row, "release_id": release_id, "basis": "presumed", "effective_via": via,
                            "note": f"{note}; {row['note']}" if row["note"] else note, "_from": row}
                if mine is not None:  # an unpreferred local report: beside the presumed verdict, not instead
                    mine["_displaced"] = True
                    presumed["sources"] = {**(row["sources"] or {}), **(mine["sources"] or {})}
                    presumed["disagreement"] = len(set(presumed["sources"].values())) > 1
                    presumed["_own_sources"] = True
                added.append(presumed)
            for key, row in own.items():
                if not row.get("_displaced"):  # later versions presume from the trusted row still
                    newest[key] = row
    return added


# Each source's newest word per target × release × mode: the rows of its latest ingest.
# Older batches of the same source are history (kept, never deleted).
CURRENT_OBSERVATIONS_SQL = """
SELECT o.*, r.version AS backend_version FROM observation o JOIN release r ON r.id = o.release_id
JOIN (SELECT source_name, target, release_id, mode, COALESCE(probe_run_id, '') AS run, MAX(ingested_at) AS at
      FROM observation GROUP BY source_name, target, release_id, mode, run) latest
  ON latest.source_name = o.source_name AND latest.target = o.target AND latest.release_id = o.release_id
 AND latest.mode = o.mode AND latest.run = COALESCE(o.probe_run_id, '') AND latest.at = o.ingested_at
"""
ALL_SQL = "SELECT o.*, r.version AS backend_version FROM observation o JOIN release r ON r.id = o.release_id"
SCOPED_ALL_SQL = """
SELECT o.*, r.version AS backend_version FROM temp._kb_load x
CROSS JOIN observation o ON o.op = x.op AND o.target = x.target JOIN release r ON r.id = o.release_id
"""
# The same, on the (op, target) pairs of temp table `_kb_load` only (kb.store.support.set_scope).
SCOPED_CURRENT_SQL = """
SELECT o.*, r.version AS backend_version FROM temp._kb_load x
CROSS JOIN observation o ON o.op = x.op AND o.target = x.target JOIN release r ON r.id = o.release_id
JOIN (SELECT source_name, target, release_id, mode, COALESCE(probe_run_id, '') AS run, MAX(ingested_at) AS at
      FROM observation WHERE (source_name, target, release_id, mode, COALESCE(probe_run_id, '')) IN
        (SELECT o2.source_name, o2.target, o2.release_id, o2.mode, COALESCE(o2.probe_run_id, '')
           FROM temp._kb_load x2 CROSS JOIN observation o2 ON o2.op = x2.op AND o2.target = x2.target)
      GROUP BY source_name, target, release_id, mode, run) latest
  ON latest.source_name = o.source_name AND latest.target = o.target AND latest.release_id = o.release_id
 AND latest.mode = o.mode AND latest.run = COALESCE(o.probe_run_id, '') AND latest.at = o.ingested_at
"""
_SUPPORT_COLUMNS = ("op", "target", "release_id", "mode", "status", "dtypes", "conditions", "note", "source_kind",
                    "source_name", "source_url", "probe_run_id", "retrieved_at", "observation_id", "sources",
                    "disagreement", "basis", "effective_status", "effective_via", "report")
_JSON = ("dtypes", "conditions", "sources", "effective_via", "report")


def current_observations(raw: sqlite3.Connection, scoped: bool = False, every_row_current: bool = False
                         ) -> list[dict[str, Any]]:
    """Each source's current rows; `scoped`: only those on the (op, target) pairs of temp
    table `_kb_load` (set_scope), while which batch of a source is current still counts all
    of the source's rows; `every_row_current`: the caller knows each source has one batch
    (a KB of one build's rows), so none is looked for."""
    sql = ALL_SQL if every_row_current else CURRENT_OBSERVATIONS_SQL
    if scoped:
        sql = SCOPED_ALL_SQL if every_row_current else SCOPED_CURRENT_SQL
    cursor = raw.execute(sql)
    names = [d[0] for d in cursor.description]
    rows = []
    for values in cursor:
        row = dict(zip(names, values))
        for key in ("dtypes", "conditions", "detail", "report"):
            if row[key] is not None:
                row[key] = json.loads(row[key])
        rows.append(row)
    return rows


def _json_text(value: Any, texts: dict[Any, Any]) -> str:
    """json.dumps of a value, once per object: a presumed verdict shares its `sources`
    (and often more) with the verdict it was carried from, and tens of thousands of
    dumps of the same dict cost a second of a build. The object is kept beside its text
    so its id cannot be reused while the memo lives."""
    found = texts.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    # most `sources` are one of a few small {source: status} maps: one dump per distinct map
    flat = tuple(value.items()) if isinstance(value, dict) and len(value) <= 4 else None
    if flat is not None and all(isinstance(v, str) for _k, v in flat):
        text = texts.get(flat)
        if text is None:
            text = texts[flat] = json.dumps(value)
    else:
        text = json.dumps(value)
    texts[id(value)] = (value, text)
    return text


def without_indexes(raw: sqlite3.Connection, table: str) -> list[str]:
    """Drop a table's secondary indexes, returning the SQL that makes them again: after a
    bulk insert one sort per index beats updating every B-tree row by row."""
    indexes = raw.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
                          "AND sql IS NOT NULL", (table,)).fetchall()
    for name, _sql in indexes:
        raw.execute(f'DROP INDEX "{name}"')
    return [sql for _name, sql in indexes]


def clear(raw: sqlite3.Connection) -> None:
    """Delete every derived verdict (presumed first: they point at the stored ones)."""
    raw.execute("DELETE FROM support_presumed")
    raw.execute("DELETE FROM support_packed")


def scope_ops(pairs: Iterable[tuple[str, str]], catalog: Iterable[str]) -> set[tuple[str, str]]:
    """The verdicts (op, target) that evidence on `pairs` decides: each op's own, and for a
    family row (an op named without overload, `aten::add`) every overload it stands for."""
    members: dict[str, list[str]] = defaultdict(list)
    for name in catalog:
        members[name.partition(".")[0]].append(name)
    out = set()
    for op, target in pairs:
        out.add((op, target))
        if "." not in op:
            out.update((member, target) for member in members.get(op, ()))
    return out


def set_scope(raw: sqlite3.Connection, scope: set[tuple[str, str]]) -> None:
    """Temp tables for a scoped rebuild: `_kb_scope`, the verdicts to redo (scope_ops), and
    `_kb_load`, the evidence they rest on (their own op and their family's). Queries join
    them first (CROSS JOIN keeps that order): SQLite has no statistics on a temp table and
    would otherwise scan a whole table of verdicts for a few of them."""
    for table in ("_kb_scope", "_kb_load"):
        raw.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table} (op TEXT NOT NULL, target TEXT NOT NULL, "
                    "PRIMARY KEY (op, target)) WITHOUT ROWID")
        raw.execute(f"DELETE FROM temp.{table}")
    raw.executemany("INSERT INTO temp._kb_scope VALUES (?, ?)", sorted(scope))
    load = scope | {(op.partition(".")[0], target) for op, target in scope}
    raw.executemany("INSERT INTO temp._kb_load VALUES (?, ?)", sorted(load))


def clear_scope(raw: sqlite3.Connection) -> None:
    """Delete the verdicts in `_kb_scope` (set_scope), presumed ones first. Every presumed
    verdict points at a stored one of the same op and target, so none is left dangling."""
    ids = ("SELECT s.id FROM temp._kb_scope x CROSS JOIN support_packed s ON s.op = x.op AND s.target = x.target")
    raw.execute(f"DELETE FROM support_presumed WHERE from_id IN ({ids})")
    raw.execute(f"DELETE FROM support_packed WHERE id IN ({ids})")  # the table itself: no view trigger per row


BASIS_COUNTS_KEY = "basis_counts"  # kbmeta: what basis_stats is made of, so a scoped rebuild adjusts it


def basis_counts(raw: sqlite3.Connection, scoped: bool = False) -> dict[str, dict]:
    """The verdicts per target × release: stored ones, and presumed ones by the release they
    carry a verdict from; `scoped`: only those of the pairs in `_kb_scope` (set_scope)."""
    join = ("temp._kb_scope x CROSS JOIN support_packed s ON s.op = x.op AND s.target = x.target" if scoped
            else "support_packed s")
    stored = {f"{t}\t{r}": n for t, r, n in raw.execute(
        f"SELECT s.target, s.release_id, count(*) FROM {join} GROUP BY s.target, s.release_id")}
    presumed: dict[str, dict[str, int]] = defaultdict(dict)
    for t, r, f, n in raw.execute(f"SELECT s.target, p.release_id, s.release_id, count(*) FROM {join} "
                                  "CROSS JOIN support_presumed p ON p.from_id = s.id GROUP BY s.target, p.release_id, "
                                  "s.release_id"):
        presumed[f"{t}\t{r}"][str(f)] = n
    return {"stored": stored, "presumed": dict(presumed)}


def _add_counts(total: dict[str, dict], part: dict[str, dict], sign: int) -> None:
    for key, n in part["stored"].items():
        left = total["stored"].get(key, 0) + sign * n
        if left:
            total["stored"][key] = left
        else:
            total["stored"].pop(key, None)
    for key, by_from in part["presumed"].items():
        mine = total["presumed"].setdefault(key, {})
        for source, n in by_from.items():
            left = mine.get(source, 0) + sign * n
            if left:
                mine[source] = left
            else:
                mine.pop(source, None)
        if not mine:
            del total["presumed"][key]


def basis_stats_of(counts: dict[str, dict], versions: dict[int, str]) -> dict[str, list]:
    """Per target × release (kbmeta `basis_stats`): [verdicts, presumed verdicts, the version
    most were presumed from], so every view's header can say what its verdicts rest on
    without counting tens of thousands of rows on each start. Ties for that version go to
    the newest."""
    stats: dict[str, list] = {key: [n, 0, None] for key, n in counts["stored"].items()}
    for key, by_from in counts["presumed"].items():
        entry = stats.setdefault(key, [0, 0, None])
        entry[0] += sum(by_from.values())
        entry[1] += sum(by_from.values())
        ranked = [(n, version_key(versions[int(f)]), versions[int(f)]) for f, n in by_from.items()]
        entry[2] = max(ranked)[2] if ranked else None
    return stats


def rebuild(raw: sqlite3.Connection, pairs: Iterable[tuple[str, str]] | None = None,
            every_row_current: bool = False) -> int:
    """Replace Support rows with verdicts derived from the current evidence; returns how many
    verdicts the `support` view shows (all of them, or those `pairs` rederived).

    `pairs` ((op, target)): rederive only the verdicts evidence on those pairs decides (an
    incremental refresh, kb.store.incremental, passes the pairs of the rows it deleted and
    wrote). A verdict rests only on evidence of its own op and target and of its op's family
    row (scope_ops), and presumed verdicts carry one op along one target's versions, so the
    rest stays as derived. The new stored rows take ids after the others'. `every_row_current`:
    see current_observations (a fresh build of the shipped data passes it).

    Runs on the DB-API connection inside the caller's transaction: at tens of thousands
    of rows the ORM's per-row work costs seconds that a KB build cannot afford. A presumed
    verdict is stored as a reference to the verdict it carries (schema 7, `support_presumed`);
    the `support` view writes it out as a whole row when read."""
    catalog = [name for (name,) in raw.execute("SELECT name FROM op")]
    if pairs is None:
        rows = derive(expand_families(current_observations(raw, every_row_current=every_row_current), catalog))
    else:
        scope = scope_ops(pairs, catalog)
        set_scope(raw, scope)
        evidence = expand_families(current_observations(raw, scoped=True, every_row_current=every_row_current),
                                   catalog)
        rows = derive(obs for obs in evidence if (obs["op"], obs["target"]) in scope)
    # a release only an unpreferred local report names gets no verdicts presumed for it
    releases = {rid: (product, version) for rid, product, version, report
                in raw.execute("SELECT id, product, version, report FROM release")
                if tier({"report": json.loads(report) if report else None}) >= 1}
    products = dict(raw.execute("SELECT name, product FROM target"))
    presumed = carry_forward(rows, releases, products)
    rows = [row for row in rows if not row.get("_displaced")]
    raw.execute("INSERT OR REPLACE INTO kbmeta (key, value) VALUES ('data_as_of', ?)",
                (json.dumps(queries.compute_data_as_of(raw), sort_keys=True),))
    first = 1
    counts = None
    if pairs is None:
        clear(raw)
    else:
        found = raw.execute("SELECT value FROM kbmeta WHERE key = ?", (BASIS_COUNTS_KEY,)).fetchone()
        counts = json.loads(found[0]) if found else None
        if counts is not None:
            _add_counts(counts, basis_counts(raw, scoped=True), -1)
        clear_scope(raw)
        first = raw.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM support_packed").fetchone()[0]
    # Stored op by op: a page reads one op's verdicts (every target, version and mode) from
    # a few neighbouring pages instead of one page per verdict across the whole table.
    order = itemgetter("op", "target", "release_id", "mode")
    rows.sort(key=order)
    presumed.sort(key=order)
    ids = {id(row): number for number, row in enumerate(rows, first)}
    # a few rows rederived: keeping the indexes beats making them again over every row
    indexes = (without_indexes(raw, "support_packed") + without_indexes(raw, "support_presumed")
               if pairs is None else [])
    packer = packed.Packer(raw)  # schema 8: texts and provenance by id; the views write them out
    raw.executemany(
        f"INSERT INTO support_packed (id, {', '.join(packed.SUPPORT_PACKED)}) "
        f"VALUES ({', '.join('?' * (len(packed.SUPPORT_PACKED) + 1))})",
        ([number] + packed.pack(packer, "support_stored", {
            c: _json_text(row[c], texts) if c in _JSON and row[c] is not None else row[c] for c in _SUPPORT_COLUMNS})
         for texts in [{}] for number, row in enumerate(rows, first)),
    )
    raw.executemany(
        "INSERT INTO support_presumed (release_id, from_id, sources, disagreement) VALUES (?, ?, ?, ?)",
        ((row["release_id"], ids[id(row["_from"])],
          json.dumps(row["sources"]) if row.get("_own_sources") else None,
          row["disagreement"] if row.get("_own_sources") else None) for row in presumed),
    )
    for sql in indexes:
        raw.execute(sql)
    if counts is None:
        counts = basis_counts(raw)
    else:
        _add_counts(counts, basis_counts(raw, scoped=True), 1)
    versions = dict(raw.execute("SELECT id, version FROM release"))
    raw.executemany("INSERT OR REPLACE INTO kbmeta (key, value) VALUES (?, ?)",
                    [("basis_stats", json.dumps(basis_stats_of(counts, versions), sort_keys=True)),
                     (BASIS_COUNTS_KEY, json.dumps(counts, sort_keys=True))])
    if pairs is None:
        packed.prune(raw)  # a scoped rebuild leaves that to its caller (once, at the end of a refresh)
    return len(rows) + len(presumed)
