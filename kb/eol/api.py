"""`kb.eol(...)`: the Python face of `kb eol`, and what the command calls.

Returns the data `kb eol --json` prints (without the kb_version/command envelope): the
support windows (one product, what is out of support on a day, what ends within a
horizon), or with `stack` the check of a whole stack with its gate (`failed`). Prints
nothing; bad input raises a KBError with the CLI's one-line message.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from kb.errors import KBError


def _day(value: str | date | None, what: str) -> date | None:
    from kb.eol import windows

    if value is None or isinstance(value, date):
        return value
    return windows.user_day(value, what)


def _horizon(within: str | int | timedelta | None) -> timedelta | None:
    from kb.eol import windows

    if within is None or isinstance(within, timedelta):
        return within
    return windows.parse_horizon(str(within))


def eol(product: str | None = None, stack: str | None = None, within: str | int | timedelta | None = None, *,
        at: str | date | None = None, today: str | date | None = None, fail_on_unknown: bool = False,
        db: str | None = None, conn: sqlite3.Connection | None = None,
        on_note: Callable[[str], None] | None = None) -> dict[str, Any]:
    """End of support: `product` (loose: torch-neuronx, xla, python, ubuntu, neuron…) or every
    product; `at`: what is out of support on that day; `within`: what ends within a horizon
    (`"90d"`, `12w`, a number of days, a timedelta); `stack`: check a whole stack
    (`"neuron=2.33 torch=2.14 python=3.12 ubuntu=22.04"`), `failed` saying whether its
    gate trips. `today`: the day answers are computed for (default KB_TODAY or the clock)."""
    from kb.eol import windows

    now = windows.today(today) if not isinstance(today, date) else today
    at_day = _day(at, "--at")
    horizon = _horizon(within)
    windows.check_product(product)
    if stack and (product or at):
        raise KBError("--stack checks a whole stack; drop the product / --at")
    if fail_on_unknown and not stack:
        raise KBError("--fail-on-unknown goes with --stack")
    own = None
    if conn is None:
        from kb.store.build import notices_to
        from kb.store.db import open_kb

        with notices_to(on_note):  # the first-use build's notice: to on_note, never printed
            conn = own = open_kb(db)
    try:
        if stack:
            return windows.check_stack(conn, stack, within=horizon, today_=now, fail_on_unknown=fail_on_unknown)
        return windows.listing(conn, product=product, at=at_day, within=horizon, today_=now)
    finally:
        if own is not None:
            own.close()


def tripped(result: dict[str, Any], within: Any = None) -> bool:
    """The gate of `kb eol` (exit 1): a stack check that failed, or, with a horizon, any
    window that ends within it."""
    if "failed" in result:
        return bool(result["failed"])
    return within is not None and bool(result.get("windows"))
