"""Neutral output of `kb serve` (issue 24): a record whose source URL is `javascript:` or
whose note and source name carry markup and controls is shown as text on every page,
never as a link or as HTML.

The hostile values are written into the KB file directly, after ingest, so the test holds
whatever ingest comes to refuse: the renderer is the last line and must hold alone.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3

from kb.serve import launch as serve

EVIL_URL = "javascript:alert(document.domain)"
EVIL_TEXT = '<script>alert(1)</script>\x1b[2J"><img src=x onerror=alert(1)>'


def fetch(ds, *paths: str):
    async def run():
        return [await ds.client.get(p) for p in paths]
    return asyncio.run(run())


def _plant(path: str) -> None:
    conn = sqlite3.connect(path)
    with conn:
        for table in ("support_stored", "observation"):
            conn.execute(f"UPDATE {table} SET source_url = ?, note = ?, source_name = ? WHERE op = 'aten::relu'",
                         (EVIL_URL, EVIL_TEXT, "evil" + EVIL_TEXT))
        conn.execute("UPDATE supportwindow SET source_url = ?, source_name = ?", (EVIL_URL, "evil" + EVIL_TEXT))
    conn.close()


def _no_live_markup(html: str) -> None:
    assert not re.search(r"""(href|src)\s*=\s*["']?\s*javascript:""", html, re.IGNORECASE)
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert "\x1b" not in html


def test_pages_never_link_a_javascript_url(kb_file):
    from cli.serve import register_pages

    register_pages()
    _plant(kb_file)
    ds = serve.make_datasette(kb_file)
    pages = fetch(ds, "/kb/support?op=aten::relu", "/kb/observation?op=aten::relu", "/-/op?q=aten::relu",
                  "/kb/coverage", "/-/eol", "/-/eol/torch_tpu", "/kb/supportwindow")
    for response in pages:
        assert response.status_code == 200, (response.url, response.text[:300])
        _no_live_markup(response.text)
    support, _, op_page, _, _, product, _ = pages
    assert "javascript:alert" in support.text  # still named, as text (a title or a cell)
    assert "&lt;script&gt;" in op_page.text and "\\x1b[2J" in op_page.text
    assert "evil&lt;script&gt;" in product.text


def test_the_filters_and_the_cell_renderer():
    from kb.serve import plugin

    class Env:
        filters: dict = {}

    plugin.prepare_jinja2_environment(Env, None)
    assert Env.filters["http_url"](EVIL_URL) == "" and Env.filters["http_url"]("https://a.test/x") == "https://a.test/x"
    assert Env.filters["neutral"]("a\x1bb") == "a\\x1bb"
    assert plugin._source_link(None, {"source_url": EVIL_URL}) == (None, f"source: {EVIL_URL}")
