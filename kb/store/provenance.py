"""Whose word is it: provenance of evidence that arrives as a file (`kb ingest FILE`).

A JSONL report is data someone handed us. What its lines say about their own source
(kind, name, URL) is a claim, not an identity: kept as `claimed`, never written as the
row's own source. Its facts are stored as a *local report* (origin `report`, the file's
name, path, sha256 and ingest time beside every row), so no line can pose as a vendor's
document or a shipped source. The one exception keeps real probe reports useful: results
of a probe run that the same file defines (a `probe_run` record) stay probe evidence
(static / live probe, or an inferred replay) under the probe's own name, still marked
local. Precedence then keeps shipped evidence first unless the user ingested the file with
`--prefer-local` (kb.store.support.tier).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from kb.store import records as rec
from kb.vocab import CAVEAT_SOURCE_KIND, LOCAL_REPORT_KIND

# Kinds a report may keep for the results of a run it defines, and the only name each goes by.
PROBE_KIND_NAMES = {"live_probe": "live_probe", "static_probe": "static_probe", "inferred": "replay"}


def report_info(path: str, sha256: str, ingested_at: str, *, prefer_local: bool = False) -> dict[str, Any]:
    """What every row from one report file carries (the `report` JSON column)."""
    return {"file": os.path.basename(path), "path": os.path.abspath(path), "sha256": sha256,
            "ingested_at": ingested_at, "prefer_local": bool(prefer_local)}


def report_of_files(paths: list[str], prefer_local: bool = False) -> dict[str, Any]:
    """One report made of several files (the shards of one probe run)."""
    import hashlib

    from kb import userfiles

    digest = hashlib.sha256("\n".join(userfiles.file_sha256(p) for p in paths).encode()).hexdigest()
    info = report_info(paths[0], digest, rec.utc_now(), prefer_local=prefer_local)
    if len(paths) > 1:
        info["file"] = f"{os.path.basename(paths[0])} (+{len(paths) - 1} shards)"
        info["files"] = [os.path.abspath(p) for p in paths]
    return info


def local_name(report: dict[str, Any]) -> str:
    return f"local:{report['file']}"


def claimed(prov: rec.Provenance) -> dict[str, Any]:
    """What a line said about its own source, kept for the reader (never as identity)."""
    out = {"source_kind": prov.claimed_kind or prov.source_kind, "source_name": prov.source_name, "source_url": prov.source_url}
    if prov.probe_run_id:
        out["probe_run_id"] = prov.probe_run_id
    return {k: v for k, v in out.items() if v is not None}


def defined_runs(records: list[rec.Record]) -> set[str]:
    return {r.run_id for r in records if isinstance(r, rec.ProbeRun)}


def localize(prov: rec.Provenance, report: dict[str, Any], runs: set[str]) -> rec.Provenance:
    """The provenance a report's record is stored under (see the module's doc)."""
    if prov.source_kind in PROBE_KIND_NAMES and prov.probe_run_id in runs:
        # the same run's results in another file are the same facts: the file is in `report`
        return dataclasses.replace(prov, source_name=PROBE_KIND_NAMES[prov.source_kind], source_url=None)
    return rec.Provenance(source_kind=LOCAL_REPORT_KIND if prov.source_kind != CAVEAT_SOURCE_KIND else prov.source_kind,
                          source_name=local_name(report), source_url=None, retrieved_at=prov.retrieved_at,
                          content_sha256=report["sha256"], tool_version=prov.tool_version)


def describe(report: dict[str, Any] | None) -> str:
    """`local report x.jsonl (sha256 1a2b3c4d5e6f, ingested 2026-12-01…)`, the words every view uses."""
    if not report:
        return ""
    text = f"local report {report.get('file')} (sha256 {str(report.get('sha256') or '')[:12]}"
    if report.get("ingested_at"):
        text += f", ingested {report['ingested_at']}"
    if report.get("prefer_local"):
        text += ", preferred with --prefer-local"
    claim = report.get("claimed") or {}
    if claim.get("source_kind") or claim.get("source_name"):
        said = " ".join(str(claim[k]) for k in ("source_kind", "source_name") if claim.get(k))
        text += f"; claims {said}"
    return text + ")"
