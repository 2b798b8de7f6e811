"""Web pages a person reads (issue 26): the product index's search box starts empty."""

from __future__ import annotations

import asyncio
import re

from kb.serve import launch as serve


def test_product_index_search_box_is_empty(kb_file):
    from cli.serve import register_pages

    register_pages()
    ds = serve.make_datasette(kb_file)

    async def run():
        return await ds.client.get("/-/eol")

    page = asyncio.run(run())
    assert page.status_code == 200
    box = re.search(r'<input type="search" name="product" value="([^"]*)"', page.text)
    assert box and box.group(1) == ""  # not "None"


def test_op_page_folds_its_basis_notices_into_one_line(kb_file):
    """The snapshot/presumed notices above the op page: one summary line, the per-version
    notes inside it (a <details> a reader opens)."""
    from cli.serve import register_pages

    register_pages()
    ds = serve.make_datasette(kb_file)

    async def run():
        return await ds.client.get("/-/op", params={"q": "aten::add.Tensor"})

    page = asyncio.run(run())
    assert page.status_code == 200
    assert page.text.count('class="kb-note"') <= 1
    assert page.text.count("<summary>basis: ") <= 1
