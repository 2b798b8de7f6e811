"""The coverage matrix's pages (kb serve, templates/query-kb-coverage.html): where a page sits
in the matrix order ("ops 1,001–2,000 of 3,169") and its previous, next and first-page links.

The order is the canned query's own (kb.serve.launch.coverage_order_sql), read once per mode
and KB file state; the next link is the shown page's last op (keyset on the query's `after`).
"""

from __future__ import annotations

import weakref
from typing import Any
from urllib.parse import urlencode

from kb.serve.facets import file_state

DB_NAME = "kb"
COVERAGE_TEMPLATE = "query-kb-coverage.html"
# the matrix order per (mode, KB file state): [(rank, op)], rank 0 = some device target knows the op
_orders: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def coverage_order(datasette, sql: str, mode: str) -> list[tuple[int, str]]:
    """Every op of the matrix in its order for `mode`, read once per KB state (one scan of the
    narrow support_status view, as the page itself costs) and kept for the next pages."""
    db = datasette.get_database(DB_NAME)
    state = file_state(db.path)
    cache = _orders.setdefault(datasette, {})
    if cache.get(mode, (None,))[0] != state:
        rows = await db.execute_fn(lambda conn: [(r[0], r[1]) for r in conn.execute(sql, {"mode": mode})])
        cache[mode] = (state, rows)
    return cache[mode][1]


def coverage_pages(order: list[tuple[int, str]], args: dict[str, str], path: str, size: int):
    """`kb_pages(rows, truncated)` for the coverage template: where this page sits in the
    matrix order (ops 1,001–2,000 of 3,148) and the links to the previous, next and first
    pages. The next link is the shown page's last op (keyset on the query's `after`), so it
    is right even when the KB changed since `order` was read."""
    import bisect

    from kb.vocab import MODES

    mode, grep, after = (args.get(k) or "" for k in ("mode", "grep", "after"))
    ranks = dict((op, rank) for rank, op in order)
    shown = [item for item in order if not grep or grep in item[1]]
    # where `after` sits, as the query's HAVING reads it (launch.coverage_sql)
    start = 0 if not after else bisect.bisect_right(shown, (1 if ranks.get(after) == 1 else 0, after))

    def url(after_op: str | None) -> str:
        query = {k: v for k, v in (("mode", mode), ("grep", grep), ("after", after_op or "")) if v}
        return path + ("?" + urlencode(query) if query else "")

    def pages(rows, truncated) -> dict[str, Any]:
        n = len(rows or ())
        prev = None
        if after:
            back = start - size
            prev = url(None) if back <= 0 else url(shown[back - 1][1])
        next_url = url(rows[-1]["op"]) if truncated and n else None
        return {"mode": mode or "eager", "unknown_mode": mode if mode and mode not in MODES else None, "grep": grep, "after": after, "size": size,
                "first": start + 1 if n else 0, "last": start + n, "total": max(len(shown), start + n),
                "prev": prev, "next": next_url, "next_count": min(size, max(len(shown) - start - n, 1)),
                "start_url": url(None) if after and start - size > 0 else None}

    return pages
