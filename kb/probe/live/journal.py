"""The live probe's journal: one JSON line per finished task, appended and flushed as it
arrives, in the run's folder. It is the probe's commit log: after a `kill -9` the
journal holds every task that finished, `--resume` skips those, and the records (the
portable report, the KB's observations) are always rebuilt from the whole journal, so a
resumed run ends with exactly what an uninterrupted one would.

Layout of `<cache>/live-probe/<run id>/`: `journal.jsonl` (first line the run's header:
parameters and the device's versions; then tasks), `report.jsonl` and `opinfo-map.json`
(OpInfo → the ATen overloads it dispatched; both written at the end),
`worker-N.log` / `worker-N.beacon` (a worker's output and its call in progress).
"""

from __future__ import annotations

import json
import os
from typing import Any

from kb.errors import KBError
from kb.paths import cache_dir


class JournalError(KBError):
    """A run folder that is missing or unreadable."""


def runs_dir() -> str:
    return os.path.join(cache_dir(), "live-probe")


def run_dir(run_id: str) -> str:
    if not run_id or os.sep in run_id or run_id.startswith("."):
        raise JournalError(f"not a run id: {run_id!r}")
    return os.path.join(runs_dir(), run_id)


def task_key(key: str, dtype: str) -> str:
    return f"{key}|{dtype}"


class Journal:
    """Append-only JSONL; tolerant of a last line cut short by a kill."""

    def __init__(self, path: str):
        self.path = path
        self._fh = None

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def read(self) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """(header, finished task entries). A torn last line is dropped (and cut off on the
        next append)."""
        if not self.exists():
            raise JournalError(f"no live-probe run journal at {self.path}")
        header, tasks = None, []
        with open(self.path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if not line.endswith("\n"):
                    break  # cut short by a kill: that task did not finish
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    raise JournalError(f"{self.path}:{number}: not JSON (the journal is damaged)") from None
                if entry.get("kind") == "header":
                    header = entry
                elif entry.get("kind") == "task":
                    tasks.append(entry)
        return header, tasks

    def _open(self):
        if self._fh is None:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            self._truncate_torn_tail()
            self._fh = open(self.path, "a", encoding="utf-8")
            self._lock(self._fh)
        return self._fh

    def _lock(self, fh) -> None:
        """One writer per run: a second probe resuming the same run is refused (the lock
        goes away with the process that held it, kill -9 included)."""
        try:
            import fcntl
        except ImportError:  # not on POSIX: no lock
            return
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            self._fh = None
            raise JournalError(f"{os.path.dirname(self.path)}: another probe is writing this run right now") from None

    def lock_now(self) -> None:
        """Take the writer's lock before any work starts (see `_lock`)."""
        self._open()

    def _truncate_torn_tail(self) -> None:
        if not self.exists():
            return
        with open(self.path, "rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                fh.truncate(data.rfind(b"\n") + 1)

    def append(self, entry: dict[str, Any]) -> None:
        fh = self._open()
        fh.write(json.dumps(entry, sort_keys=True) + "\n")
        fh.flush()  # in the OS's hands now: a killed probe loses nothing that finished

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
