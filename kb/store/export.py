"""Writing the KB's local knowledge back to `data/` as sorted JSONL records.

Refreshing the shipped data is: `kb ingest --all`, `kb data export`, review the diff,
commit. Only rows this machine added (origin `local`, and `report`: files given to `kb ingest`,
exported under their local provenance so a reviewer sees them as such) are exported, and of each source
only its current word (its newest ingest), so the files say what the sources say now.
One file per source (`data/scraped/<source>.jsonl`, caveats in `data/caveats/<source>.jsonl`) and per probe run
(`data/probes/<target>-<version>-<kind>.jsonl`); lines are sorted so diffs are small.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections import defaultdict

from kb.store import records as rec
from kb.store.support import CURRENT_OBSERVATIONS_SQL

_CURRENT_OBSERVATIONS = CURRENT_OBSERVATIONS_SQL + " WHERE o.origin IN ('local', 'report')"
_LOCAL = "origin IN ('local', 'report')"


def _j(value):
    return json.loads(value) if isinstance(value, str) else value


def _prov(row: sqlite3.Row, **extra) -> rec.Provenance:
    keys = row.keys()
    return rec.Provenance(
        source_kind=row["source_kind"], source_name=row["source_name"], source_url=row["source_url"],
        retrieved_at=row["retrieved_at"],
        content_sha256=row["content_sha256"] if "content_sha256" in keys else None,
        tool_version=row["tool_version"] if "tool_version" in keys else None,
        probe_run_id=row["probe_run_id"] if "probe_run_id" in keys else None, **extra,
    )


def slug(text: str) -> str:
    """A file-name part from a record field: letters, digits, `._-` only, no leading dot
    (so never `..`), bounded; record fields are data someone else wrote."""
    part = re.sub(r"[^A-Za-z0-9._-]+", "-", str(text)).strip("-.")[:80]
    return part or "unnamed"


def safe_path(out_dir: str, relative: str) -> str:
    """`out_dir/relative`, refused unless it stays under out_dir (symlinks resolved)."""
    from kb.errors import KBError

    root = os.path.realpath(out_dir)
    path = os.path.realpath(os.path.join(root, relative))
    if os.path.commonpath([root, path]) != root:
        raise KBError(f"refusing to write {relative!r}: it would land outside {out_dir}")
    return path


def collect(conn: sqlite3.Connection) -> dict[str, list[rec.Record]]:
    """Relative file path → records, for every local source in the KB."""
    conn.row_factory = sqlite3.Row
    files: dict[str, list[rec.Record]] = defaultdict(list)
    runs = {r["run_id"]: r for r in conn.execute(
        "SELECT p.*, r.version AS backend_version FROM proberun p JOIN release r ON r.id = p.release_id")}

    def run_file(run_id: str) -> str:
        run = runs[run_id]
        return f"probes/{slug(run['target'])}-{slug(run['backend_version'])}-{slug(run['kind'])}.jsonl"

    for row in conn.execute(_CURRENT_OBSERVATIONS):
        where = run_file(row["probe_run_id"]) if row["probe_run_id"] else f"scraped/{slug(row['source_name'])}.jsonl"
        files[where].append(rec.OpStatus(
            op=row["op"], target=row["target"], backend_version=row["backend_version"], status=row["status"],
            mode=row["mode"], torch_version=row["torch_version"], dtypes=_j(row["dtypes"]),
            conditions=_j(row["conditions"]), note=row["note"], detail=_j(row["detail"]), provenance=_prov(row)))
    for run_id, run in runs.items():
        if run["origin"] in ("local", "report"):
            files[run_file(run_id)].append(rec.ProbeRun(
                run_id=run_id, kind=run["kind"], target=run["target"], backend=run["backend"],
                backend_version=run["backend_version"], torch_version=run["torch_version"],
                python_version=run["python_version"], host=run["host"], started_at=run["started_at"],
                finished_at=run["finished_at"], device=run["device"], fallback_policy=_j(run["fallback_policy"]),
                params=_j(run["params"]), tool_version=run["tool_version"]))
    for row in conn.execute("SELECT l.*, r.product, r.version FROM limitation l JOIN release r ON r.id = l.release_id "
                            "WHERE l." + _LOCAL):
        files[f"scraped/{slug(row['source_name'])}.jsonl"].append(rec.Limitation(
            target=row["target"], product=row["product"], version=row["version"], feature=row["feature"],
            status=row["status"], note=row["note"], provenance=_prov(row)))
    window_fields = ("product", "cycle", "release_date", "support_end", "eol", "eol_kind", "eol_release",
                     "statement_date", "title", "note")
    for row in conn.execute("SELECT * FROM supportwindow WHERE " + _LOCAL):
        files[f"scraped/{slug(row['source_name'])}.jsonl"].append(
            rec.SupportWindow(provenance=_prov(row), **{k: row[k] for k in window_fields}))
    caveat_fields = ("op", "target", "kind", "statement", "family", "min_version", "max_version", "measured_on",
                     "mode", "phase", "dtypes", "arg_dtypes", "conditions", "figure", "workaround")
    for row in conn.execute("SELECT * FROM caveat WHERE " + _LOCAL):
        values = {k: _j(row[k]) if k in ("dtypes", "arg_dtypes", "conditions", "figure") else row[k]
                  for k in caveat_fields}
        values["family"] = bool(values["family"])
        values["dtypes"] = tuple(values["dtypes"]) if values["dtypes"] else None
        files[f"caveats/{slug(row['source_name'])}.jsonl"].append(rec.Caveat(provenance=_prov(row), **values))
    sources = {key.split("/", 1)[1].rsplit(".", 1)[0] for key in files if key.startswith("scraped/")}
    for row in conn.execute("SELECT * FROM release"):
        if slug(row["source_name"]) in sources and row["source_kind"] not in ("live_probe", "static_probe"):
            files[f"scraped/{slug(row['source_name'])}.jsonl"].append(rec.Release(
                product=row["product"], version=row["version"], date=row["date"], sdk_version=row["sdk_version"],
                torch_versions=tuple(_j(row["torch_versions"]) or ()),
                python_versions=tuple(_j(row["python_versions"]) or ()), os=tuple(_j(row["os"]) or ()),
                instance_families=tuple(_j(row["instance_families"]) or ()), channel=row["channel"],
                components=_j(row["components"]), note=row["note"], provenance=_prov(row)))
    return files


def export(conn: sqlite3.Connection, out_dir: str, kb_path: str | None = None) -> dict[str, int]:
    """Write every local source's records under out_dir; returns path → record count.
    Every file name is slugged from record fields and must stay under out_dir."""
    from kb.store.dbfile import check_output

    written = {}
    for relative, records in sorted(collect(conn).items()):
        path = safe_path(out_dir, relative)
        check_output(path, kb_path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        lines = sorted(rec.dumps(r) for r in records)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
        os.replace(tmp, path)
        written[relative] = len(lines)
    return written
