"""Progress for long work when stderr is not a terminal (CI logs, `2>&1 | tee`).

A terminal stderr gets rich's spinner or bar (each command's own), whatever stdout is
(a pipe included). Off a terminal, KB_PROGRESS=lines asks for plain lines instead: work
that runs past ~2 s says so, `kb: tracing model.py… 12 s (40 of 120 ops)`, then every
10 s, few enough for a CI log. It is opt-in because stderr off a terminal is what scripts
read for the one-line error, and progress lines would come before it.
"""

from __future__ import annotations

import os
import sys
import threading
import time

FIRST_AFTER_S = 2.0


def lines_wanted() -> bool:
    """Plain progress lines off a terminal: only when KB_PROGRESS=lines."""
    return os.environ.get("KB_PROGRESS", "").strip().lower() == "lines"
EVERY_S = 10.0


class Heartbeat:
    """A context manager printing `kb: MESSAGE… N s (DETAIL)` while the block runs long."""

    def __init__(self, message: str, first_after: float = FIRST_AFTER_S, every: float = EVERY_S):
        self.message = message
        self.detail = ""
        self.first_after = first_after
        self.every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start = 0.0

    def update(self, detail: str) -> None:
        self.detail = detail

    def _run(self) -> None:
        wait = self.first_after
        while not self._stop.wait(wait):
            elapsed = time.monotonic() - self._start
            detail = f" ({self.detail})" if self.detail else ""
            try:
                sys.stderr.write(f"kb: {self.message}… {elapsed:.0f} s{detail}\n")
                sys.stderr.flush()
            except (OSError, ValueError):  # stderr closed: nobody is reading
                return
            wait = self.every

    def __enter__(self) -> Heartbeat:
        self._start = time.monotonic()
        if not lines_wanted():
            return self
        self._thread = threading.Thread(target=self._run, name="kb-heartbeat", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> bool:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        return False

    # the same face as rich's Status, so a command can hold either
    def __call__(self, *args) -> None:  # audit's per-file callback
        if args:
            self.detail = str(args[0])[-60:]
