"""The one door to the KB for every query: `open_kb` finds the file, builds it from the
shipped `data/` on first use, refreshes the shipped part when `data/` changed since
(local evidence is kept), and returns a plain sqlite3 read connection.

The file itself (checks, connections, migrations, the write engine) is `kb.store.dbfile`.
"""

from __future__ import annotations

import sqlite3

from kb.store.dbfile import connect, is_current, resolve_path

# KB files this process opened, newest last: the CLI's freshness notice reads the last.
OPENED: list[str] = []


def open_kb(db: str | None = None) -> sqlite3.Connection:
    """The read connection every query uses: builds, migrates or refreshes first if needed."""
    path = resolve_path(db)
    OPENED.append(path)
    if not is_current(path):
        from kb.store.build import ensure_built  # SQLModel: only when there is something to build

        ensure_built(path)
    return connect(path)
