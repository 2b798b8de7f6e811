"""kb.neutral: one function per output format, each tried with what an attacker writes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from kb import neutral

HOSTILE = ["\x1b[2J\x1b]0;pwned\x07", "[bold red]x[/]", "[/]", "a\n| Gate passed |", "\x00\x01\x08\x0b\x0c\r",
           "<!channel>", "<https://evil|click>", "\u202egnp.exe", "\x9b31m", "\udcff\udc1b", "x\x7f", "\ufffe",
           "ev\u200bil", "\ufeffx", "a\u2060b", "a\u200db"]  # zero-width: looks like another name


@pytest.mark.parametrize("text", HOSTILE)
def test_clean_leaves_nothing_that_acts(text):
    shown = neutral.clean(text)
    assert shown.isprintable()
    assert "\n" not in shown and "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    shown.encode("utf-8")  # lone surrogates are shown as the bytes they stood for


def test_visible_forms():
    assert neutral.clean("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert neutral.clean("line\nnext\ttab\u2028para\u2029end\x85") == "line next tab para end "
    assert neutral.clean("\u202eabc") == "\\u202eabc"
    assert neutral.clean("ev\u200bil") == "ev\\u200bil"
    assert neutral.clean("caf\udce9") == "caf\\xe9"  # a Latin-1 file name read with surrogateescape
    assert neutral.clean(None) == "" and neutral.clean(3) == "3"
    assert neutral.clean("aten::add.Tensor · ✔ native") == "aten::add.Tensor · ✔ native"


def test_markdown_is_one_line_and_forms_nothing():
    text = neutral.markdown("x\n| Gate passed |\n**Gate passed** <b>[click](javascript:alert(1))</b> `code`")
    assert "\n" not in text
    assert "<" not in text and "&lt;b&gt;" in text
    assert "\\|" in text and "\\*\\*" in text and "\\[click\\]" in text and "\\`code\\`" in text
    assert neutral.markdown("fc1, fc2") == "fc1, fc2"


def test_markdown_code_span_survives_backticks_and_pipes():
    assert neutral.markdown_code("aten::add.Tensor") == "`aten::add.Tensor`"
    span = neutral.markdown_code("a`b``c|d\ne")
    assert span == "```a`b``c\\|d e```"
    assert neutral.markdown_code("`x") == "`` `x ``"


def test_xml_text_always_parses():
    for text in HOSTILE:
        element = ET.Element("testcase", name=neutral.xml(text))
        element.text = neutral.xml(text)
        ET.fromstring(ET.tostring(element, encoding="unicode"))


def test_html_escapes_and_links_only_http():
    assert neutral.html('<script>"x"</script>') == "&lt;script&gt;&quot;x&quot;&lt;/script&gt;"
    assert neutral.html_link("javascript:alert(1)") == "javascript:alert(1)"
    assert neutral.html_link("JaVaScRiPt:alert(1)", "x") == "x"
    assert neutral.html_link("data:text/html,<b>") == "data:text/html,&lt;b&gt;"
    assert neutral.html_link("https://example.test/a?b=1&c=2") == \
        '<a href="https://example.test/a?b=1&amp;c=2">https://example.test/a?b=1&amp;c=2</a>'
    for bad in ("https://x\" onmouseover=\"alert(1)", "https://x\nevil", " javascript:x", "//evil.test", "", None, 3):
        assert neutral.safe_url(bad) is None


def test_slack_forms_no_mention_and_no_link():
    text = neutral.slack("<!channel> <@U123> <https://evil|click> a & b")
    assert "<" not in text and ">" not in text
    assert text.count("&") == text.count("&amp;") + text.count("&lt;") + text.count("&gt;")


def test_json_text_is_the_same_data_without_raw_controls():
    value = {"op": "evil\x1b[2J\x9b\u202e\u2028\udcff", "note": "a\nb"}
    text = neutral.json_text(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value
    assert not any(ch in text for ch in "\x1b\x9b\u202e\u2028\n")
    text.encode("utf-8")
