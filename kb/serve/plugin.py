"""kb's Datasette plugin: what metadata alone cannot say.

- every read connection to the KB gets a temporary `latest_release` table (each target's
  newest version with verdicts, computed once when `kb serve` starts) that the canned
  queries join on;
- statuses are shown with their symbol and colour, and each verdict links to its source
  (the source URL, or the probe run that produced it);
- op names link to the op page (`/-/op?q=NAME`, kb.store.oppage: the same page `kb op`
  prints, any spelling), reached from a search box on the home page; the coverage matrix's
  cells link to the verdicts behind them.

It is registered by kb.serve.launch on Datasette's plugin manager and acts only on instances
whose metadata carries a `plugins: kb:` block (the ones kb.serve.launch builds).
"""

from __future__ import annotations

import functools
import json
import weakref
from typing import Any
from urllib.parse import quote, unquote, urlencode, urlsplit

from datasette import hookimpl
from datasette.utils import tilde_encode
from markupsafe import Markup, escape

from kb.neutral import acts, clean, safe_url
from kb.serve import facets, matrix
from kb.store.provenance import describe
from kb.vocab import LOCAL_MARK, STATUSES, SYMBOLS, UNKNOWN

PLUGIN_NAME = "kb"
DB_NAME = "kb"
STATUS_WORDS = frozenset((*STATUSES, UNKNOWN))
STATUS_COLUMNS = frozenset(("status", "other_status", "verdict", "effective_status"))
# Tables whose rows are verdicts or evidence with their own source columns.
SOURCED_TABLES = frozenset(("support", "observation", "checkop"))

_configs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _config(datasette) -> dict[str, Any] | None:
    """The `plugins: kb:` block of this instance, read once (render_cell runs per cell)."""
    try:
        return _configs[datasette]
    except KeyError:
        config = datasette.plugin_config(PLUGIN_NAME) or None
        if config is not None:
            config = {**config, "matrix_columns": frozenset(config.get("matrix_columns", ()))}
            config["matrix_filters"] = {column: _matrix_filters(config, column) for column in config["matrix_columns"]}
        _configs[datasette] = config
        return config


# Bounds on what one query can make the server build: a value (string or blob) of at most
# 1 MB, so `zeroblob(1e9)`, `randomblob(1e8)` or `printf('%.*c', 1e8, 'x')` fail at once
# instead of filling memory (the time limit does not bound memory); SQL text of 100 KB.
VALUE_LIMIT = 1_000_000
SQL_LIMIT = 100_000
# Functions no page needs: fts3_tokenizer hands out pointers; the others make large values.
REFUSED_FUNCTIONS = {"fts3_tokenizer": (1, 2), "zeroblob": (1,), "randomblob": (1,)}


def limit_connection(conn) -> None:
    """SQLite-level caps and refused functions for a connection that answers web requests."""
    import sqlite3

    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, VALUE_LIMIT)
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, SQL_LIMIT)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)

    # Refused when the statement is prepared (SQLite's authorizer), not by a Python function
    # that raises when called: Datasette turns on callback tracebacks, so a raising
    # function prints a traceback per refused query.
    def authorizer(action, _arg1, name, _db, _source):
        if action == sqlite3.SQLITE_FUNCTION and (name or "").lower() in REFUSED_FUNCTIONS:
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    conn.set_authorizer(authorizer)


def add_functions(conn) -> None:
    """SQL functions the canned queries use: `kb_product(product, cycle)`, the canonical
    product name `kb eol` uses (kb.products), so the web and the CLI name products alike."""
    from kb import products

    conn.create_function("kb_product", 2, lambda product, cycle: products.window_product(product or "", cycle),
                         deterministic=True)


@hookimpl
def prepare_connection(conn, database, datasette):
    """Each connection to the KB gets kb's bounds (limit_connection) and the
    `latest_release` temp table the queries join on."""
    if database != DB_NAME:
        return
    limit_connection(conn)
    add_functions(conn)
    config = _config(datasette)
    if config is not None:
        _fill_latest_release(conn, config)
    conn.execute("PRAGMA query_only = 1")  # Datasette's write connection too: the KB is read, never written


def _fill_latest_release(conn, config: dict[str, Any]) -> None:
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS latest_release "
                 "(target TEXT PRIMARY KEY, release_id INTEGER, version TEXT)")
    conn.execute("DELETE FROM temp.latest_release")
    conn.executemany("INSERT INTO temp.latest_release VALUES (?, ?, ?)",
                     [(r["target"], r["release_id"], r["version"]) for r in config.get("latest", [])])
    conn.commit()  # an open transaction would pin this connection to a snapshot: new rows unseen


@hookimpl
def register_facet_classes():
    return [facets.NarrowColumnFacet]


@hookimpl
def extra_template_vars(template, database, request, datasette):
    """The coverage page's pager (kb_pages); nothing for any other page."""
    config = _config(datasette)
    if template != matrix.COVERAGE_TEMPLATE or database != DB_NAME or request is None or not config \
            or not config.get("coverage_order_sql"):
        return None

    async def inner():
        args = {k: (request.args.get(k) or "")[:200] for k in ("mode", "grep", "after")}
        order = await matrix.coverage_order(datasette, config["coverage_order_sql"], args["mode"] or "eager")
        size = datasette.setting("max_returned_rows")
        return {"kb_pages": matrix.coverage_pages(order, args, request.path, size)}

    return inner


@hookimpl
def extra_css_urls(datasette):
    config = _config(datasette)
    if config is None or not config.get("css_url"):
        return []
    return [config["css_url"]]


def _get(row, key: str):
    try:
        return row[key]
    except (IndexError, KeyError, TypeError):
        return None


# Built once: render_cell runs for every cell of a 1,000-row page (see bench/serve_pages.py).
_SPANS = {word: f'<span class="kb-status kb-{word}">{SYMBOLS[word]} {word}</span>' for word in STATUS_WORDS}


def status_html(status: str | None, href: str | None = None, title: str | None = None) -> Markup:
    """A status as symbol + word with a CSS class per status; a link when href is given."""
    span = _SPANS.get(status or UNKNOWN) or f'<span class="kb-status kb-other">· {escape(status)}</span>'
    if href:
        title_attr = f' title="{escape(title)}"' if title else ""
        return Markup(f'<a href="{escape(href)}"{title_attr}>{span}</a>')
    if title:  # no page to link to (a local report without a probe run): still say where it came from
        return Markup(f'<span title="{escape(title)}">{span}</span>')
    return Markup(span)


@functools.lru_cache(maxsize=8192)
def _op_query(op: str) -> str:
    return "?op=" + quote(op, safe="")


def _support_url(datasette, op: str, extra: str = "") -> str:
    config = _config(datasette)
    base = config.get("support_url") if config else None
    if base is None:
        base = str(datasette.urls.table(DB_NAME, "support"))
        if config is not None:
            config["support_url"] = base
    return base + _op_query(op) + extra


def _source_link(datasette, row) -> tuple[str | None, str | None]:
    """Where a verdict came from: its source URL, else the probe run's row page. A URL
    that is not http(s) (`javascript:…` from a crafted report) is named, never linked; a
    verdict resting on a local report file (kb ingest FILE) says so in its title."""
    report = _get(row, "report")
    if report:
        try:
            info = json.loads(report) if isinstance(report, str) else report
        except ValueError:
            info = None
        if isinstance(info, dict):
            run = _get(row, "probe_run_id")
            href = datasette.urls.row(DB_NAME, "proberun", tilde_encode(str(run))) if run else None
            return href, clean(describe(info))
    url = _get(row, "source_url")
    if url:
        return safe_url(str(url)), f"source: {clean(url)}"
    run = _get(row, "probe_run_id")
    if run:
        return datasette.urls.row(DB_NAME, "proberun", tilde_encode(str(run))), f"probe run {run}"
    return None, None


def _matrix_filters(config: dict[str, Any], column: str) -> str:
    """`&target=..&release_id=..` for a matrix column: the verdicts behind its cells."""
    release_id = config["release_ids"].get(column)
    extra = {"target": column} if release_id is None else {"target": column, "release_id": release_id}
    return "&" + urlencode(extra)


@hookimpl
def render_cell(row, value, column, table, database, datasette):
    if database != DB_NAME:
        return None
    config = _config(datasette)
    if config is None:
        return None
    if table is None and column in config["matrix_columns"]:
        op = _get(row, "op")
        if not op:
            return None
        word, _, mark = (value or UNKNOWN).partition(" ")  # "fallback ᵖ": where it runs, and its basis
        cell = status_html(word, _support_url(datasette, op, config["matrix_filters"][column]))
        return Markup(f"{cell}{escape(mark)}") if mark else cell
    if column in STATUS_COLUMNS and isinstance(value, str):
        if table in SOURCED_TABLES or table is None:
            href, title = _source_link(datasette, row)
            cell = status_html(value, href, title)
            return Markup(f"{cell}{LOCAL_MARK}") if _get(row, "report") else cell
        return status_html(value)
    if column == "observation_id" and table in ("support", "support_stored"):
        # schema 8: `observation` is a view (no row pages); its filtered page shows the whole row
        number = value.get("value") if isinstance(value, dict) else value  # a labelled key comes as a dict
        if isinstance(number, int):
            href = datasette.urls.table(DB_NAME, "observation") + f"?id={number}"
            return Markup(f'<a href="{escape(href)}">{number}</a>')
    if column == "op" and isinstance(value, str) and value.startswith("aten::"):
        href = datasette.urls.path(OP_PAGE) + "?q=" + quote(value, safe="")
        return Markup(f'<a href="{escape(href)}">{escape(clean(value))}</a>')
    if column == "sources" and isinstance(value, str) and value.startswith("{"):
        try:
            sources = json.loads(value)
        except ValueError:
            return None
        if isinstance(sources, dict):
            return Markup("<br>").join(
                Markup(f"{escape(clean(name))}: {status_html(str(status))}")
                for name, status in sorted(sources.items()))
    if isinstance(value, str) and acts(value):  # any other cell: controls shown, not passed on
        return Markup(escape(clean(value)))
    return None



# ---------------------------------------------------------------- the op page

OP_PAGE = "/-/op"
LEGEND_HTML = ("<p class=\"kb-legend\">" + " ".join(f'<span class="kb-status kb-{w}">{SYMBOLS[w]} {w}</span>'
                                                     for w in (*STATUSES[:4], UNKNOWN))
               + " · basis: evidence, ʳ doc rule (a vendor page's rule for a class of ops),"
               + " ⁱ inferred (dispatcher replay), ᵖ presumed (carried from an older version or snapshot),"
               + " ˡ local report (a file ingested here, not a shipped source)"
               + " · unknown: no evidence yet, never “unsupported”</p>")


@hookimpl
def prepare_jinja2_environment(env, datasette):
    """`|http_url` (a URL fit for href, else empty: the templates then show text) and
    `|neutral` (controls and bidi marks in visible form) for values from records."""
    env.filters["http_url"] = lambda url: safe_url(url) or ""
    env.filters["neutral"] = clean


@hookimpl
def register_routes(datasette):
    return [(r"^/-/op$", op_page_view), (r"^/-/eol$", eol_page_view), (r"^/-/eol/(?P<product>[^/]{1,100})$", eol_page_view),
            (r"^/-/gallery$", gallery_page_view), (r"^/-/gallery/(?P<model>[^/]{1,100})$", gallery_page_view)]


# Pages whose answers live in a room of the same rank as this one (kb.eol): the command that
# starts the server hands them in (cli.serve.register_pages), so kb.serve imports no sibling.
PROVIDERS: dict[str, Any] = {}


def _restriction(r: dict[str, Any]) -> str:
    parts = []
    if r.get("dtypes"):
        parts.append("dtypes " + ",".join(r["dtypes"]))
    parts += [f"{k}={v}" for k, v in (r.get("conditions") or {}).items()]
    if r.get("note"):
        parts.append(r["note"])
    return " · ".join(parts)


def _source_label(r: dict[str, Any]) -> str:
    """The source as a link's text: kind · name · host when the link is the source URL (the
    whole URL is the link itself, in its title), so the column fits a 1400-px window."""
    text, url = r.get("source") or "", r.get("source_url") or ""
    if r.get("link") and url and text.endswith(" · " + url):
        host = urlsplit(url).netloc or url
        return text[:-len(url)] + host
    return text


def _fit_related(entry: dict[str, Any], targets: list[str]) -> None:
    """The related-kernels table shows the targets that know one of the kernels; the
    targets none of them is known on are named in one line under it instead of a column
    of `? unknown` each."""
    related = entry.get("related") or []
    entry["related_targets"] = [t for t in targets if any(r["targets"][t]["status"] != UNKNOWN for r in related)]
    entry["related_unknown"] = [t for t in targets if t not in entry["related_targets"]]


def _page(path: str, q: str) -> dict[str, Any]:
    """The op page from the KB file, on a read-only connection of its own (bounded)."""
    import sqlite3

    from kb.store import oppage

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        limit_connection(conn)
        return oppage.op_page(conn, q)
    finally:
        conn.close()


async def op_page_view(datasette, request):
    """`/-/op?q=NAME`: the op page; without q, the search box; an unknown name, 404 with suggestions."""
    import asyncio

    from datasette.utils.asgi import Response

    from kb.errors import KBError

    q = (request.args.get("q") or "").strip()[:200]
    page, error, code = None, None, 200
    if q:
        database = datasette.get_database(DB_NAME)
        try:
            page = await asyncio.to_thread(_page, database.path, q)
        except KBError as exc:
            error, code = str(exc), 404
    if page is not None:
        for entry in page["ops"]:
            for t in entry["targets"]:
                for r in t["rows"]:
                    r["restriction"] = _restriction(r)
                    r["link"], _ = _source_link(datasette, r)
                    r["source_label"] = _source_label(r)
            _fit_related(entry, page["targets"])
    html = await datasette.render_template("kb_op.html", {"q": q, "page": page, "error": error, "status": status_html,
                                                          "legend": LEGEND_HTML}, request=request)
    return Response.html(html, status=code)


# ---------------------------------------------------------------- product pages (end of support)

EOL_MARKS = {"supported": "✔", "ending": "◐", "ended": "✘", "unknown": "?"}


def _eol(path: str, product: str | None) -> dict[str, Any]:
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        limit_connection(conn)
        return PROVIDERS["eol"](conn, product)
    finally:
        conn.close()


async def eol_page_view(datasette, request):
    """`/-/eol/PRODUCT`: every cycle of a product with its resolved end, state and how long
    ago / until, soonest first; `/-/eol`: every product's cycles. Names as `kb eol` takes them."""
    import asyncio

    from datasette.utils.asgi import Response

    from kb.errors import KBError

    # the path value percent-decoded (`/-/eol/torch%20tpu` is `kb eol "torch tpu"`, t26 r2 #7)
    product = (unquote(request.url_vars.get("product") or "") or request.args.get("product") or "").strip()[:100] or None
    if request.args.get("product") and not request.url_vars.get("product"):
        return Response.redirect(datasette.urls.path("/-/eol/" + quote(product, safe="")))
    context: dict[str, Any] = {"product": product, "windows": [], "error": None, "scope": None, "related": [],
                               "marks": EOL_MARKS, "heading": "End of support", "today": "", "ending_days": ""}
    code = 200
    if "eol" not in PROVIDERS:
        context["error"], code = "end-of-support pages are served by `kb serve` (kb.eol is not connected here)", 404
    else:
        try:
            result = await asyncio.to_thread(_eol, datasette.get_database(DB_NAME).path, product)
        except KBError as exc:
            context["error"], code = str(exc), 404
        else:
            windows = result["windows"]
            context.update(windows=windows, related=result.get("related") or [], today=result["today"],
                           ending_days=result.get("ending_days", ""),
                           with_support_end=any(w.get("support_end") for w in windows),
                           with_whose=any(w.get("support_by") for w in windows))
            if product:
                context["heading"] = f"{result.get('product_label') or product}: end of support"
                by = sorted({w["support_by"] for w in windows if w.get("support_by") not in (None, "upstream")})
                if by:
                    context["scope"] = (f"These dates are the {', '.join(by)}'s support for "
                                        f"{result.get('product_label') or product}, not its own end of life"
                                        + (", beside its own end of life (rows marked upstream)."
                                           if any(w.get("support_by") == "upstream" for w in windows) else "."))
                if not windows:
                    context["error"] = "no support window is known for this product: no end of support stated"
    html = await datasette.render_template("kb_eol.html", context, request=request)
    return Response.html(html, status=code)


# ---------------------------------------------------------------- the model gallery (kb.gallery)


def _gallery(path: str, model: str | None, target: str | None, mode: str, graph: str = "inference") -> dict[str, Any]:
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        limit_connection(conn)
        return PROVIDERS["gallery"](conn, model, target, mode, graph)
    finally:
        conn.close()


async def gallery_page_view(datasette, request):
    """`/-/gallery`: models × targets with the Baseline line; `/-/gallery/MODEL`: one model's
    kb check report of its census, per target (`?mode=compile`, `?target=tpu`, `?graph=training`)."""
    import asyncio

    from datasette.utils.asgi import Response

    from kb.errors import KBError

    model = unquote(request.url_vars.get("model") or "").strip()[:100] or None  # "Mixtral%208x7B" is a name
    mode = request.args.get("mode") or "eager"
    target = (request.args.get("target") or "").strip()[:40] or None
    graph = request.args.get("graph") or "inference"
    context: dict[str, Any] = {"model": model, "mode": mode if mode in ("eager", "compile") else "eager",
                               "target": target, "graph": graph if graph in ("inference", "training") else "inference",
                               "result": None, "error": None, "status": status_html,
                               "legend": LEGEND_HTML}
    code = 200
    unknown = sorted(set(request.args.keys()) - {"mode", "target", "graph"})
    if mode not in ("eager", "compile") or graph not in ("inference", "training") or unknown:  # refused (t30 #15)
        context["error"], code = (f"unknown parameter {unknown[0][:40]!r} (the pages take mode, target and graph)"
                                  if unknown else f"mode {mode[:40]!r}: expected eager or compile"
                                  if mode not in ("eager", "compile") else
                                  f"graph {graph[:40]!r}: expected inference or training"), 400
    elif "gallery" not in PROVIDERS:
        context["error"], code = "gallery pages are served by `kb serve` (kb.gallery is not connected here)", 404
    else:
        try:
            context["result"] = await asyncio.to_thread(_gallery, datasette.get_database(DB_NAME).path, model,
                                                        target, mode, graph)
        except KBError as exc:
            context["error"], code = str(exc), 404
    html = await datasette.render_template("kb_gallery.html", context, request=request)
    return Response.html(html, status=code)
