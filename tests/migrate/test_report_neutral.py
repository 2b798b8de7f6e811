"""Neutral output of `kb report` (issue 24): op names, warnings and end-of-support sources
that carry markup, controls, forged lines and `javascript:` URLs stay text in the HTML and
the markdown report."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from kb.migrate import report as kreport

OP = "evil\x1b[2J<img src=x onerror=alert(1)>::x\n| Gate passed |`"
WARN = "<script>alert(1)</script>\n## Ready to migrate\n[click](javascript:alert(1))"


def _doc() -> dict:
    check = {"model": "m<b>.pt2", "target": "neuron", "backend_version": "2.14.3.0", "mode": "eager",
             "summary": {"distinct_ops": 1, "call_sites": 1, "on_device_call_sites_pct": 0.0,
                         "ops_by_status": {"unknown": 1}, "call_sites_by_status": {"unknown": 1}},
             "ops": [{"op": OP, "status": "unknown", "count": 1,
                      "via": [{"op": "aten::mm\x07<i>", "status": "native"}]}],
             "warnings": [WARN], "caveats": []}
    eol = {"next_cycle": "2027-06-01", "warnings": [
        {"severity": "error", "message": WARN, "is_eol": True, "eol_from": "2026-01-01",
         "source_url": "javascript:alert(document.domain)"},
        {"severity": "error", "message": "fine", "is_eol": True, "eol_from": "2026-01-01",
         "source_url": "https://example.test/eol"}]}
    return kreport.build_report(target="neuron", check=check, eol=eol, title="T\x1b]0;x\x07<b>")


def test_html_has_no_live_markup_and_no_javascript_link():
    page = kreport.render_html(_doc())
    assert "\x1b" not in page and "\x07" not in page
    soup = BeautifulSoup(page, "html.parser")
    assert not soup.find_all("script") and not soup.find_all("img") and not soup.find_all("i")
    hrefs = [a["href"] for a in soup.find_all("a")]
    assert hrefs == ["https://example.test/eol"]
    assert "javascript:alert(document.domain)" in soup.get_text()  # named, as text


def test_markdown_forges_no_line_and_no_link():
    text = kreport.render_markdown(_doc())
    assert "\x1b" not in text and "\x07" not in text
    lines = text.splitlines()
    assert not any(line.startswith(("| Gate passed", "## Ready")) for line in lines)
    outside_code = re.sub(r"(`+).*?\1", "", text)
    assert "<" not in outside_code
    assert not re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(javascript:", outside_code)  # only `\[click\](…`: no link
    assert "\\[click\\](javascript:" in outside_code
