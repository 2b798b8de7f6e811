"""`kb.op` and `kb.ops`: the Python face of `kb op` and `kb ops`, and what the commands call.

Each returns the data the command's `--json` prints (without the kb_version/command
envelope) and prints nothing: how a version spelling resolved (the line the CLI prints on
stderr) goes to `on_note`. Bad input raises a KBError whose message is the CLI's line.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from kb.errors import KBError

TYPE_CHECKING = False  # typing stays unimported: this module is on `kb op`'s start path
if TYPE_CHECKING:
    from typing import Any

Note = Callable[[str], None]


@contextmanager
def _kb(db: str | None, conn: sqlite3.Connection | None, on_note: Note | None = None
        ) -> Iterator[sqlite3.Connection]:
    """The caller's connection, or the KB opened (built on first use, the build's notice
    sent to `on_note`, never printed) and closed after."""
    if conn is not None:
        yield conn
        return
    from kb.store.db import open_kb
    from kb.store.dbfile import notices_to

    with notices_to(on_note):
        own = open_kb(db)
    try:
        yield own
    finally:
        own.close()


def _specs(targets: str | Sequence[str] | None) -> list[str]:
    if targets is None:
        return []
    return [targets] if isinstance(targets, str) else list(targets)


def op(name: str, targets: str | Sequence[str] | None = None, *, db: str | None = None,
       conn: sqlite3.Connection | None = None, on_note: Note | None = None) -> dict[str, Any]:
    """One op's page (`kb op NAME --json`): per overload, every target's verdicts by version
    and mode with their basis and source, what a decomposed op runs via, related kernels,
    known issues. `name`: any spelling (`aten::add.Tensor`, `add`, `torch.nonzero`,
    `F.scaled_dot_product_attention`); `targets`: names or `TARGET=VERSION` (default: all)."""
    from kb.store import oppage
    from kb.store.targetspec import resolve_versions, split_specs

    names, versions = split_specs(_specs(targets))
    with _kb(db, conn, on_note) as c:
        versions = resolve_versions(c, versions, single=False, on_note=on_note)
        return oppage.op_page(c, name, names or None, versions)


def ops(target: str | Sequence[str], status: str | None = None, *, backend_version: str | None = None,
        mode: str = "eager", grep: str | None = None, sort: str = "name", db: str | None = None,
        conn: sqlite3.Connection | None = None, on_note: Note | None = None) -> dict[str, Any]:
    """One target's verdicts (`kb ops --target T --json`): every op with its status, where it
    runs, basis and source, optionally one `status` (`unknown`: catalog ops without a
    verdict) and a name filter `grep`. `target` may carry its version (`tpu=0.2.0`).
    `sort="usage"`: the ops most gallery models call first (kb gallery)."""
    from kb.store import queries
    from kb.store.targetspec import resolve_versions, split_specs
    from kb.vocab import MODES, STATUSES, UNKNOWN

    if mode not in MODES:
        raise KBError(f"unknown mode {mode!r} (expected {' or '.join(MODES)})")
    if status is not None and status not in (*STATUSES, UNKNOWN):
        raise KBError(f"unknown status {status!r} (expected one of {', '.join((*STATUSES, UNKNOWN))})")
    targets, versions = split_specs(_specs(target), [backend_version] if backend_version else None)
    if len(targets) != 1:
        raise KBError(f"ops lists one target; for {' and '.join(targets) or 'several'} side by side: kb compare "
                      + " ".join(f"--target {t}" for t in targets))
    with _kb(db, conn, on_note) as c:
        queries.check_target(c, targets[0])
        versions = resolve_versions(c, versions, single=True, on_note=on_note)
        from kb.store import gallery

        gallery.check_sort(sort)
        result = queries.list_ops(c, targets[0], status, versions.get(targets[0]), mode, grep)
        if sort == "usage":
            result["ops"] = gallery.sort_by_usage(c, result["ops"])
        return result
