"""Facets and row counts of the support view, counted on its narrow twin (kb serve).

Since schema 7 `support` is a view (stored verdicts + presumed ones written out when read),
and Datasette counts a table page's rows and each of its facets over the whole view, once per
facet. `support_status` has the same rows with only the counting columns: the default facets
are counted there together in one scan (NarrowColumnFacet, metadata `{narrow: COLUMN}`) and the
page's `count(*)` too (narrow_counts), each kept per KB file state, whenever every filter is on
a column the twin has; any other filter counts on the view as Datasette would
(bench/serve_pages.py measures it). kb.serve.plugin registers the facet class.
"""

from __future__ import annotations

import os
from typing import Any

from datasette.facets import ColumnFacet


def file_state(path: str | None) -> tuple:
    """What changes when `kb ingest` writes the KB (the file and its WAL), to know a kept count is stale."""
    state = []
    for name in (path, f"{path}-wal") if path else ():
        try:
            st = os.stat(name)
            state.append((st.st_mtime_ns, st.st_size))
        except OSError:
            state.append(None)
    return tuple(state)


# A view and its narrow twin with the same rows (kb.store.migrations): facets of the first are
# counted on the second, all in one scan. Facets of the support view (schema 7) used to scan
# the whole view once per facet, the presumed half joined each time (bench/serve_pages.py).
NARROW_VIEWS = {"support": "support_status"}
_FACET_CACHE_SIZE = 64
_facet_cache: dict[tuple, dict[str, list[tuple[Any, int]]]] = {}
_count_cache: dict[tuple, Any] = {}


def clear_caches() -> None:
    """Forget the counted facets and row counts (bench/serve_pages.py measures first loads)."""
    _facet_cache.clear()
    _count_cache.clear()


# Request arguments that change a table page's rows in ways only the whole view can answer.
_WIDE_ARGS = ("_where", "_search", "_through", "_filter")


def _narrow_safe(request, columns: frozenset[str]) -> bool:
    """Whether every filter of the request is on a column the narrow twin has (SQLite would
    read `"source_kind" = 'doc'` on a view without it as two strings, not as an error)."""
    for key in request.args.keys():
        if key.startswith(_WIDE_ARGS):
            return False
        if not key.startswith("_") and key.split("__")[0] not in columns:
            return False
    return True


def _narrow_sql(sql: str, table: str | None) -> str | None:
    """The facet's `select COLUMNS from TABLE WHERE...` on the table's narrow twin, or None."""
    import re

    narrow = NARROW_VIEWS.get(table or "")
    if narrow is None:
        return None
    found = re.fullmatch(r"select .+? from (\[support\]|support|\"support\")( .*)?", sql.strip(), re.S)
    if found is None:
        return None
    return f"select * from {narrow}{found.group(2) or ''}"


_view_columns: dict[tuple[str, str], frozenset[str]] = {}


async def _columns(db, view: str) -> frozenset[str]:
    """The columns of `view` in this KB (read once)."""
    key = (db.path, view)
    if key not in _view_columns:
        names = await db.execute_fn(lambda conn: [r[1] for r in conn.execute(f"PRAGMA table_info({view})")])
        _view_columns[key] = frozenset(names)
    return _view_columns[key]


def _counts(conn, sql: str, params, columns: list[str]) -> dict[str, list[tuple[Any, int]]]:
    """Every column's (value, count) pairs from one GROUP BY over all of them."""
    from datasette.utils import escape_sqlite

    names = ", ".join(escape_sqlite(c) for c in columns)
    totals: list[dict[Any, int]] = [{} for _ in columns]
    for row in conn.execute(f"select {names}, count(*) from ({sql}) group by {names}", params or {}):
        for i, value in enumerate(row[:-1]):
            if value is not None:
                totals[i][value] = totals[i].get(value, 0) + row[-1]
    return {c: sorted(t.items(), key=lambda kv: (-kv[1], str(kv[0]))) for c, t in zip(columns, totals)}


# The words a Datasette table filter writes into a WHERE clause (`target = :p0`, `"status" in
# (:p1, :p2)`, `mode is not null`, `op like :p3`); any other word (a function, a subquery, a
# `_where` of the user's own) keeps a count on the whole view.
_FILTER_WORDS = frozenset(("and", "or", "not", "in", "is", "null", "like", "glob"))
_WHERE_TOKEN = None


def _where_is_narrow(where: str, columns: frozenset[str]) -> bool:
    """Whether a WHERE clause names only the twin's columns, parameters and filter words."""
    import re

    global _WHERE_TOKEN
    if _WHERE_TOKEN is None:
        _WHERE_TOKEN = re.compile(r"\s*(?:\"((?:[^\"]|\"\")+)\"|\[([^\]]+)\]|(:\w+)|('(?:[^']|'')*')|(-?\d+(?:\.\d+)?)"
                                  r"|([A-Za-z_]\w*)|(!=|<>|>=|<=|[=<>(),]))\s*")
    at = 0
    while at < len(where):
        token = _WHERE_TOKEN.match(where, at)
        if token is None or token.end() == at:
            return False
        quoted, bracketed, word = token.group(1), token.group(2), token.group(6)
        if (quoted or bracketed) and (quoted or bracketed).replace('""', '"') not in columns:
            return False
        if word and word.lower() not in _FILTER_WORDS and word not in columns:
            return False
        at = token.end()
    return True


def narrow_counts(db) -> None:
    """The table page's `select count(*) from support WHERE…` counted on the narrow twin
    (the same rows, a third of the cost), once per KB file state: Datasette has no setting
    for what a view's page counts, so this database answers that one query for it."""
    import re

    own = db.execute
    pattern = re.compile(r"select count\(\*\) from (\w+|\[\w+\]|\"\w+\")\s*(?:where (.*?))?\s*", re.S | re.I)
    cache = _count_cache

    async def execute(sql, params=None, *args, **kwargs):
        found = pattern.fullmatch(sql) if isinstance(sql, str) else None
        narrow = NARROW_VIEWS.get(found.group(1).strip('[]"')) if found else None
        if narrow is None or args or kwargs.get("truncate"):
            return await own(sql, params, *args, **kwargs)
        where = found.group(2) or ""
        if where and not _where_is_narrow(where, await _columns(db, narrow)):
            return await own(sql, params, *args, **kwargs)
        key = (db.path, file_state(db.path), where, repr(sorted((params or {}).items()) if isinstance(params, dict) else params))
        if key not in cache:
            if len(cache) >= _FACET_CACHE_SIZE:
                cache.pop(next(iter(cache)))
            cache[key] = await own(f"select count(*) from {narrow}" + (f" where {where}" if where else ""),
                                   params, *args, **kwargs)
        return cache[key]

    db.execute = execute


class NarrowColumnFacet(ColumnFacet):
    """Column facets (metadata: `{narrow: COLUMN}`) counted together in one scan of the view's
    narrow twin (NARROW_VIEWS), kept per KB file state: the support page's default facets cost
    one pass over support_status, not one pass over the support view each. A filter on a column
    the twin lacks (source_kind, note...) falls back to Datasette's own facet on the view."""

    type = "narrow"

    async def facet_results(self):
        configs = self.get_configs()
        if not configs:
            return [], []
        narrow = _narrow_sql(self.sql, self.table)
        db = self.ds.get_database(self.database)
        if narrow is None or not _narrow_safe(self.request, await _columns(db, NARROW_VIEWS[self.table])):
            return await self._as_column(super().facet_results())
        columns = [c["config"].get("column") or c["config"]["simple"] for c in configs]
        params = dict(self.params) if isinstance(self.params, dict) else self.params
        key = (file_state(db.path), narrow, repr(sorted(params.items()) if isinstance(params, dict) else params),
               tuple(columns))
        counts = _facet_cache.get(key)
        if counts is None:
            try:
                counts = await db.execute_fn(lambda conn: _counts(conn, narrow, params, columns))
            except Exception:  # a filter on a column the twin lacks: the view's own facets
                return await self._as_column(super().facet_results())
            if len(_facet_cache) >= _FACET_CACHE_SIZE:
                _facet_cache.pop(next(iter(_facet_cache)))
            _facet_cache[key] = counts
        size = self.get_facet_size()
        results = [await self._result(config, counts[column], size) for config, column in zip(configs, columns)]
        return results, []

    async def _as_column(self, awaitable):
        results, timed_out = await awaitable
        for info in results:
            info["type"] = "column"
        return results, timed_out

    async def _result(self, config: dict, pairs: list[tuple[Any, int]], size: int) -> dict[str, Any]:
        from datasette.utils import path_with_added_args, path_with_removed_args

        column = config["config"].get("column") or config["config"]["simple"]
        shown = pairs[:size]
        labels = await self.ds.expand_foreign_keys(self.database, self.table, column, [v for v, _ in shown])
        arg = f"{column}__exact" if column.startswith("_") else column
        chosen = set(self.get_querystring_pairs())
        values = []
        for value, count in shown:
            selected = (arg, str(value)) in chosen
            path = (path_with_removed_args(self.request, {arg: str(value)}) if selected
                    else path_with_added_args(self.request, {arg: value}))
            values.append({"value": value, "label": labels.get((column, value), value), "count": count,
                           "toggle_url": self.ds.absolute_url(self.request, self.ds.urls.path(path)),
                           "selected": selected})
        return {"name": column, "type": "column", "hideable": config["source"] != "metadata",
                "toggle_url": self.ds.urls.path(path_with_removed_args(self.request, {"_facet_narrow": column})),
                "results": values, "truncated": len(pairs) > size}
