"""Deriving verdicts from evidence: precedence, dtype restrictions, disagreements.

For every op × target × release × mode, each source's *current* word (its newest ingest
for that target and release) is reduced to one status, then the source of highest
precedence wins (live_probe > static_probe > doc/manual > release_notes > inferred;
newest retrieval breaks ties). Sources that say different things are kept side by side
in `Support.sources` and flagged as a disagreement, never averaged away.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kb.vocab import SEVERITY, SOURCE_RANK, best


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


def choose(verdicts: list[SourceVerdict]) -> SourceVerdict:
    """Highest precedence wins; among equals the newest retrieval."""
    return max(verdicts, key=lambda v: (v.rank, v.retrieved_at, -SEVERITY[v.status]))


def derive(observations: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Support rows from current observations (dicts with Observation's columns)."""
    by_key: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for obs in observations:
        key = (obs["op"], obs["target"], obs["release_id"], obs["mode"])
        by_key[key][source_id(obs)].append(obs)
    rows = []
    for (op, target, release_id, mode), per_source in by_key.items():
        verdicts = [reduce_source(source_rows) for source_rows in per_source.values()]
        win = choose(verdicts)
        obs = win.observation
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
            }
        )
    return rows


def current_observations(conn) -> list[dict[str, Any]]:
    """Each source's newest word per target × release × mode (older batches are history)."""
    from sqlalchemy import and_, func, select

    from kb.schema import Observation as O

    run = func.coalesce(O.probe_run_id, "")
    latest = (
        select(O.source_name, O.target, O.release_id, O.mode, run.label("run"), func.max(O.ingested_at).label("at"))
        .group_by(O.source_name, O.target, O.release_id, O.mode, run)
        .subquery()
    )
    query = select(O).join(
        latest,
        and_(
            O.source_name == latest.c.source_name,
            O.target == latest.c.target,
            O.release_id == latest.c.release_id,
            O.mode == latest.c.mode,
            run == latest.c.run,
            O.ingested_at == latest.c.at,
        ),
    )
    return [dict(row._mapping) for row in conn.execute(query.with_only_columns(*O.__table__.columns))]


def rebuild(conn) -> int:
    """Replace every Support row with verdicts derived from the current evidence."""
    from sqlalchemy import delete, insert

    from kb.schema import Support

    rows = derive(current_observations(conn))
    conn.execute(delete(Support))
    if rows:
        conn.execute(insert(Support), rows)
    return len(rows)
