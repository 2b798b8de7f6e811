"""Shard reports: what one machine of a sharded live probe writes, and how a complete set
becomes the run's records.

An overload is usually reached from several OpInfos, which may run on different shards,
so a shard cannot judge it alone: a shard's report is not evidence but its journal (the
run's header and the tasks it finished) carried in a single `probe_run` record whose
params say `shard: {index, count, plan_sha256, tasks_total}`. Merging checks that the
shards are one run (same run id, shard count, task list, device versions), that every
shard is there and no task was done twice, then rebuilds the records from the union of
the journals exactly as a single machine does (`report.build_records`), so the KB gets
the same observations under the same run id. A set with a shard missing is reported as
such and yields nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from kb import userfiles
from kb.errors import KBError
from kb.probe.live import report
from kb.store.records import OpStatus, ProbeRun

CONSISTENT_DEVICE_FIELDS = ("device", "backend", "backend_version", "torch_version")
MAX_SHARDS = 10_000  # machines one probe run is split over (a Slurm array or an Indexed Job)


class ShardMergeError(KBError):
    """Shard reports that do not make one run."""


def shard_record(header: dict[str, Any], tasks: list[dict[str, Any]], finished_at: str | None = None) -> ProbeRun:
    """The one record a shard writes: its own run header plus its journal."""
    run, _ = report.build_records(header, tasks, finished_at=finished_at)
    return replace(run, params={**(run.params or {}), "shard": header["shard"],
                                "journal": {"header": header, "tasks": tasks}})


def shard_info(record: Any) -> dict[str, Any] | None:
    """The `shard` params of a shard report's record, None for anything else."""
    if isinstance(record, ProbeRun) and isinstance(record.params, dict) and isinstance(record.params.get("shard"), dict):
        return record.params["shard"]
    return None


def check_shard(path: str, info: dict[str, Any]) -> None:
    """Refuse shard params a real sharded probe never writes: the count is a whole number
    in 1..MAX_SHARDS (a report claiming a billion shards would have kb list a billion
    missing ones) and the index lies below it."""
    count, index = info.get("count"), info.get("index")
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_SHARDS:
        raise ShardMergeError(f"{path}: shard count {count!r} is not a whole number in 1..{MAX_SHARDS:,} (bound)")
    if not isinstance(index, int) or isinstance(index, bool) or not 1 <= index <= count:
        raise ShardMergeError(f"{path}: shard index {index!r} is not one of 1..{count} (shards count from 1)")


def peek_shard(path: str) -> ProbeRun | None:
    """The shard record if `path` is a shard report (read from its first line), else None."""
    from kb.store.records import RecordError, from_dict

    try:
        first = next(userfiles.iter_lines(path), "")
    except userfiles.FileRefused as exc:
        raise ShardMergeError(str(exc)) from None
    try:
        data = userfiles.parse_json(first, f"{path}:1")
    except userfiles.FileRefused:
        return None
    if not isinstance(data, dict) or data.get("record") != "probe_run" or not isinstance(data.get("params"), dict) \
            or "shard" not in data["params"]:
        return None
    try:
        record = from_dict(data)
    except RecordError as exc:
        raise ShardMergeError(f"{path}: {exc}") from None
    info = shard_info(record)
    if info is None:
        return None
    check_shard(path, info)
    return record


@dataclass
class MergedRun:
    """One run's shards as given: complete (with records) or not (with what is missing)."""

    run_id: str
    count: int
    paths: dict[int, str] = field(default_factory=dict)  # shard index → report file
    missing: list[int] = field(default_factory=list)
    run: ProbeRun | None = None
    statuses: list[OpStatus] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.missing

    def describe_missing(self) -> str:
        have = ", ".join(f"{i}/{self.count}" for i in sorted(self.paths)) or "none"
        lost = ", ".join(f"{i}/{self.count}" for i in self.missing)
        return (f"run {self.run_id}: shard{'s' if len(self.missing) > 1 else ''} {lost} missing "
                f"(have {have}); nothing ingested for this run")


def merge(shards: list[tuple[str, ProbeRun]]) -> list[MergedRun]:
    """Group shard records by run and merge each complete group (see the module's doc)."""
    by_run: dict[str, list[tuple[str, ProbeRun]]] = defaultdict(list)
    for path, record in shards:
        by_run[record.run_id].append((path, record))
    merged = []
    for run_id, group in sorted(by_run.items()):
        try:
            merged.append(_merge_run(run_id, group))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:  # a journal kb did not write
            raise ShardMergeError(f"run {run_id}: a shard's journal is malformed ({type(exc).__name__}: "
                                  f"{str(exc)[:80]})") from None
    return merged


def _fingerprint(record: ProbeRun) -> str:
    journal = record.params["journal"]
    return hashlib.sha256(json.dumps(journal, sort_keys=True, default=str).encode()).hexdigest()


def _merge_run(run_id: str, group: list[tuple[str, ProbeRun]]) -> MergedRun:
    first = shard_info(group[0][1])
    check_shard(group[0][0], first)
    count, digest = first["count"], first["plan_sha256"]
    chosen: dict[int, tuple[str, ProbeRun]] = {}
    for path, record in group:
        info = shard_info(record)
        check_shard(path, info)
        if info["count"] != count:
            raise ShardMergeError(f"run {run_id}: {path} is shard {info['index']}/{info['count']}, "
                                  f"{group[0][0]} is one of {count}: not one run")
        if info["plan_sha256"] != digest:
            raise ShardMergeError(f"run {run_id}: {path} split a different task list than {group[0][0]} "
                                  "(another torch, OpInfo database or option): not one run")
        index = info["index"]
        if index in chosen and _fingerprint(chosen[index][1]) != _fingerprint(record):
            raise ShardMergeError(f"run {run_id}: two different reports for shard {index}/{count}: "
                                  f"{chosen[index][0]} and {path}; keep one")
        chosen.setdefault(index, (path, record))  # the same report given twice counts once
    merged = MergedRun(run_id, count, paths={i: p for i, (p, _) in chosen.items()},
                       missing=[i for i in range(1, count + 1) if i not in chosen])
    if merged.complete:
        merged.run, merged.statuses = _rebuild(run_id, [chosen[i] for i in sorted(chosen)])
    return merged


def _rebuild(run_id: str, shards: list[tuple[str, ProbeRun]]) -> tuple[ProbeRun, list[OpStatus]]:
    headers = [record.params["journal"]["header"] for _, record in shards]
    base = headers[0]
    for (path, _), header in zip(shards[1:], headers[1:]):
        for name in CONSISTENT_DEVICE_FIELDS:
            if header["device"].get(name) != base["device"].get(name):
                raise ShardMergeError(f"run {run_id}: {path} probed {name} {header['device'].get(name)}, "
                                      f"{shards[0][0]} {base['device'].get(name)}: not one run")
    tasks: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], str] = {}
    for path, record in shards:
        for task in record.params["journal"]["tasks"]:
            key = (task["key"], task["dtype"])
            if key in seen:
                raise ShardMergeError(f"run {run_id}: task {key[0]} {key[1]} is in {seen[key]} and {path}")
            seen[key] = path
            tasks.append(task)
    total = base["shard"]["tasks_total"]
    if len(tasks) != total:
        raise ShardMergeError(f"run {run_id}: the shards finished {len(tasks)} of {total} tasks "
                              f"(finish the unfinished shard with kb probe --resume)")
    hosts = sorted({h["device"].get("host") for h in headers if h["device"].get("host")})
    primary: dict[str, Any] = {}
    for header in headers:
        primary.update(header.get("primary") or {})
    header = {**base, "tasks": total, "primary": primary, "started_at": min(h["started_at"] for h in headers),
              "device": {**base["device"], "host": ",".join(hosts) or base["device"].get("host")}}
    header.pop("shard", None)
    finished = max((record.finished_at or "" for _, record in shards), default="") or None
    run, statuses = report.build_records(header, tasks, finished_at=finished)
    return replace(run, params={**(run.params or {}), "shards": {"count": len(shards), "hosts": hosts}}), statuses
