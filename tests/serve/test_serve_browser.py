"""End to end: `kb serve` as a real process, the coverage matrix in a real headless Chromium.

Needs Chromium (Debian: `apt-get install -y chromium`); skipped with that reason without it.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from tests.serve import browser, kbfixture

pytestmark = pytest.mark.skipif(browser.find_chromium() is None,
                                reason="no Chromium to drive: apt-get install -y chromium (or set KB_CHROMIUM)")


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
