"""End to end: `kb serve` as a real process, the coverage matrix in a real headless Chromium.

Needs Chromium (Debian: `apt-get install -y chromium`); skipped with that reason without it.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from tests.serve import browser, kbfixture

pytestmark = pytest.mark.skipif(browser.find_chromium() is None,
                                reason="no Chromium to drive: apt-get install -y chromium (or set KB_CHROMIUM)")


@pytest.mark.heavy
def test_coverage_matrix_in_a_browser(kb_file, tmp_path):
    with browser.kb_serve(kb_file) as base:
        dom = browser.dump_dom(f"{base}/kb/coverage")
        shot = browser.screenshot(f"{base}/kb/coverage?grep=aten", str(tmp_path / "matrix.png"), 1000, 600)
    page = BeautifulSoup(dom, "html.parser")
    cells = {}
    for row in page.select("table.rows-and-columns tbody tr"):
        op = row.select_one("td.col-op").get_text(strip=True)
        cells[op] = {t: row.select_one(f"td.col-{t}").get_text(" ", strip=True) for t in ("neuron", "tpu")}
    assert cells["aten::nonzero"] == {"neuron": "⇄ fallback", "tpu": "✘ unsupported"}
    assert {op: {t: label.split()[-1] for t, label in row.items()} for op, row in cells.items()} == kbfixture.COVERAGE
    link = page.select_one("tr td.col-neuron a")
    assert link is not None and "/kb/support?op=" in link["href"]
    with open(shot, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def shipped_kb(isolated_kb, monkeypatch):
    """The KB of the shipped data/ (the session's one build, copied), at this test's KB_DB."""
    from kb.store.db import open_kb

    monkeypatch.delenv("KB_DATA_DIR", raising=False)
    open_kb(str(isolated_kb)).close()
    return str(isolated_kb)


# Every row of the matrix page as [op, neuron, tpu, neuron-xla] cell texts.
MATRIX_ROWS = ("Array.from(document.querySelectorAll('table.rows-and-columns tbody tr')).map(tr => "
               "['op', 'neuron', 'tpu', 'neuron-xla'].map(c => (tr.querySelector('td.col-' + c) || {}).innerText || ''))")
WIDE = ("[document.documentElement.scrollWidth, document.documentElement.clientWidth, "
        "Math.max(0, ...Array.from(document.querySelectorAll('table')).map(t => t.getBoundingClientRect().right))]")
# The SQL controls of Datasette's query page, which the coverage matrix must not show.
SQL_CONTROLS = ("({headings: Array.from(document.querySelectorAll('h3')).map(h => h.innerText)"
                ".filter(t => /SQL/.test(t)), editor: document.querySelectorAll('textarea, .CodeMirror, pre#sql-query').length,"
                " run: Array.from(document.querySelectorAll('input[type=submit]')).filter(b => /SQL/.test(b.value)).length,"
                " edit: document.querySelectorAll('a.canned-query-edit-sql').length,"
                " show: document.querySelectorAll('.show-hide-sql').length})")
PAGER = "document.querySelector('nav.kb-pages').innerText"
# How many lines the folded basis notice above the op page takes (distinct tops of its text's boxes).
def known(cell: str) -> bool:
    return bool(cell.strip()) and "unknown" not in cell


NOTICE_LINES = ("(() => { const s = document.querySelector('details.kb-note > summary'); if (!s) return 0;"
                " const r = document.createRange(); r.selectNodeContents(s);"
                " return new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size; })()")


@pytest.mark.heavy
def test_pages_a_person_reads_at_1400_px(shipped_kb):
    """Issue 26, on the shipped KB in a 1400-px-wide Chromium: the op page needs no
    horizontal scrollbar (related kernels and sources included) and folds its notices into
    one line; the coverage matrix lists ops some device target knows before the ones none
    knows (aten::ScalarImplicit, aten::Int), also across `after` pages, shows none of
    Datasette's SQL controls and reaches every op through its next links; the product
    index's search box is empty."""
    with browser.kb_serve(shipped_kb) as base, browser.Page(1400, 900) as page:
        for q in ("aten::add.Tensor", "scaled_dot_product_attention", "aten::nonzero"):
            page.goto(f"{base}/-/op?q={q}")
            scroll, client, right = page.value(WIDE)
            assert client == 1400 and scroll <= client and right <= client, (q, scroll, client, right)
            assert page.value("document.querySelectorAll('table.kb-related').length") >= 1, q
        page.goto(f"{base}/-/op?q=aten::add.Tensor")
        summary = page.value("document.querySelector('details.kb-note > summary').innerText")
        assert "inf1" in summary and "neuron" in summary
        assert page.value(NOTICE_LINES) == 1
        for q in ("aten::nonzero", "nn.Linear", "aten::Int", "scaled_dot_product_attention"):  # every op page folds
            page.goto(f"{base}/-/op?q={q}")
            assert page.value("document.querySelectorAll('details.kb-note').length") == 1, q
            assert page.value(NOTICE_LINES) == 1, q

        page.goto(f"{base}/kb/coverage")
        rows = page.value(MATRIX_ROWS)
        assert len(rows) >= 500 and all(any(known(c) for c in row[1:]) for row in rows)
        assert [row[0] for row in rows] == sorted(row[0] for row in rows)
        page.goto(f"{base}/kb/coverage?grep=Scalar")
        rows = page.value(MATRIX_ROWS)
        unknown = [i for i, row in enumerate(rows) if not any(known(c) for c in row[1:])]
        names = [row[0] for row in rows]
        assert "aten::ScalarImplicit" in names and unknown == list(range(len(rows) - len(unknown), len(rows)))
        assert names.index("aten::ScalarImplicit") in unknown and names.index("aten::add.Scalar") < unknown[0]
        last_known = names[unknown[0] - 1]
        page.goto(f"{base}/kb/coverage?grep=Scalar&after={last_known}")
        assert [row[0] for row in page.value(MATRIX_ROWS)] == names[unknown[0]:]
        page.goto(f"{base}/kb/coverage?grep=Int")
        assert "aten::Int" in [row[0] for row in page.value(MATRIX_ROWS)][-3:]

        # a person's page: no SQL heading, editor, Run SQL or Edit SQL; the next links reach every op
        page.goto(f"{base}/kb/coverage")
        controls = page.value(SQL_CONTROLS)
        assert controls == {"headings": [], "editor": 0, "run": 0, "edit": 0, "show": 0}, controls
        assert page.value("document.querySelector('form.kb-matrix-filter input[name=grep]').value") == ""
        seen, pages = [], 0
        while True:
            rows = page.value(MATRIX_ROWS)
            seen += [row[0] for row in rows]
            pages += 1
            assert page.value(PAGER).startswith(f"ops {len(seen) - len(rows) + 1:,}–{len(seen):,} of ")
            next_url = page.value("(document.querySelector('nav.kb-pages a[rel=next]') || {}).href || ''")
            if not next_url:
                break
            page.goto(next_url)
        assert pages >= 4 and len(seen) == len(set(seen)) and "aten::Int" in seen
        assert page.value(PAGER).endswith(f"of {len(seen):,} · ← previous 1,000 · first page")
        unknown = [i for i, op in enumerate(seen) if op in ("aten::Int", "aten::ScalarImplicit")]
        assert unknown and min(unknown) > 3000  # ops no device target knows come last

        page.goto(f"{base}/-/eol")
        assert page.value("document.querySelector('input[name=product]').value") == ""
