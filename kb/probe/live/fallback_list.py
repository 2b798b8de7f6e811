"""The list `torch_neuronx.get_fallback_ops()` prints after a real run, as live evidence.

A Trainium owner who ran a model can save what that call printed (one op a line, or the
printed Python list/set) and `kb ingest FILE --fallback-ops --backend-version 2.14.3.0`:
every op named becomes a `fallback` verdict from a live run, under a probe run that says
what it is (the file, its sha256, the package version given), and goes through the same
ingest path as a JSONL probe report, so it is marked as a local report like any other.

The file is untrusted input: its size and line count are bounded, names are parsed, never
evaluated, and anything that is not an ATen name is counted and left out.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field

from kb import opnames, userfiles
from kb.errors import KBError
from kb.store import records as rec

MAX_BYTES = 1 << 20  # a run's fallback list is a few hundred names, not megabytes
MAX_LINES = 20_000
SOURCE_NAME = "get_fallback_ops"
WHAT = "torch_neuronx.get_fallback_ops()"
_TOKEN = re.compile(r"[A-Za-z_][\w:.]*")


class FallbackListError(KBError):
    """A fallback list that cannot be read (too big, not text, no op names)."""


@dataclass
class FallbackList:
    path: str
    sha256: str
    ops: list[str]  # canonical ATen names, sorted, without repeats
    skipped: list[str] = field(default_factory=list)  # tokens that are no ATen name


def read(path: str) -> FallbackList:
    """Parse a saved get_fallback_ops() output: names one a line, or a printed list/set."""
    data = userfiles.read_bytes(path, MAX_BYTES)  # regular file, size-capped, never blocks
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FallbackListError(f"{path}: not a text file") from None
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise FallbackListError(f"{path}: more than {MAX_LINES} lines")
    ops, skipped = set(), []
    for line in lines:
        line = line.split("#", 1)[0]
        for token in _TOKEN.findall(line):
            token = token.strip(".")
            if "::" in token and not token.startswith("aten::"):
                skipped.append(token)  # another namespace (torchvision::nms...): not an ATen op
                continue
            if not (token.startswith(("aten::", "aten.", "torch.ops.aten.")) or _bare_line(line, token)):
                skipped.append(token)
                continue
            try:
                ops.add(opnames.canonical(token))
            except opnames.OpNameError:
                skipped.append(token)
    if not ops:
        raise FallbackListError(f"{path}: no ATen op names found (expected the list {WHAT} printed)")
    return FallbackList(path, hashlib.sha256(data).hexdigest(), sorted(ops), skipped)


def _bare_line(line: str, token: str) -> bool:
    """A line that is just one bare name (`nonzero`) is an op name too."""
    return line.strip().strip("'\",[]{}") == token


def to_records(found: FallbackList, *, backend_version: str, target: str = "neuron",
               torch_version: str | None = None, retrieved_at: str | None = None) -> list[rec.Record]:
    """A probe run saying what the list is, and one eager `fallback` verdict per op."""
    name = os.path.basename(found.path)
    run_id = f"fallback-ops-{target}-{backend_version}-{found.sha256[:12]}"
    at = retrieved_at or rec.utc_now()
    run = rec.ProbeRun(run_id=run_id, kind="live", target=target, backend="torch_neuronx",
                       backend_version=backend_version, torch_version=torch_version or "unknown",
                       python_version="unknown", host=f"unknown (a {WHAT} list)", started_at=at, finished_at=at,
                       device=target, params={"from": WHAT, "file": name, "sha256": found.sha256,
                                              "ops": len(found.ops), "skipped": len(found.skipped)},
                       tool_version="fallback-list/1")
    prov = rec.Provenance(source_kind="live_probe", source_name=SOURCE_NAME, retrieved_at=at,
                          content_sha256=found.sha256, tool_version="fallback-list/1", probe_run_id=run_id)
    note = f"listed by {WHAT} after a run on {target} (file {name}): it ran on the CPU at least once"
    statuses = [rec.OpStatus(op=op, target=target, backend_version=backend_version, status="fallback",
                             provenance=prov, mode="eager", torch_version=torch_version, note=note,
                             detail={"from": WHAT, "file": name}) for op in found.ops]
    return [run, *statuses]
