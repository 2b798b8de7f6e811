"""`CheckResult._repr_html_` (what a notebook shows): well-formed HTML, the op table of `kb
check` with statuses in kb serve's colours, and every name from the model escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from kb.check.api import CheckResult
from kb.check.resolve import CheckReport, Leaf, OpReport
from tests.conftest import REPO

HOSTILE_OP = 'aten::x<script>alert(1)</script>'
HOSTILE_MODULE = 'blocks.0"><img src=x onerror=alert(1)>'
HOSTILE_URL = "javascript:alert(1)"
VOID = {"br", "hr", "img", "input", "meta", "link", "wbr", "col", "area", "base", "embed", "source", "track"}
ALLOWED = {"div", "p", "strong", "h4", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "code", "span", "a"}


class StrictParser(HTMLParser):
    """The stdlib parser, made strict: every tag known and closed in order, no event-handler
    or script attributes, links http(s) only, no undeclared entity or stray '<'."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.stack: list[str] = []
        self.text: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED:
            self.problems.append(f"tag {tag}")
        for name, value in attrs:
            if name.startswith("on") or name not in ("class", "style", "href"):
                self.problems.append(f"attribute {name}")
            if name == "href" and not re.match(r"https?://", value or ""):
                self.problems.append(f"href {value}")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.problems.append(f"unbalanced </{tag}>")

    def handle_data(self, data):
        if "<" in data:
            self.problems.append(f"raw < in {data!r}")
        self.text.append(data)

    def handle_entityref(self, name):
        if name not in ("lt", "gt", "amp", "quot"):
            self.problems.append(f"entity {name}")
        self.text.append({"lt": "<", "gt": ">", "amp": "&", "quot": '"'}.get(name, ""))

    def handle_charref(self, name):
        self.text.append(chr(int(name[1:], 16) if name.startswith("x") else int(name)))


def parse(fragment: str) -> StrictParser:
    parser = StrictParser()
    parser.feed(fragment)
    parser.close()
    assert not parser.stack, f"unclosed: {parser.stack}"
    assert not parser.problems, parser.problems
    return parser


def _op(name: str, status: str, **kw) -> OpReport:
    base = dict(op=name, count=1, status=status, via=[], dtypes=["float32"], shapes=[], module_paths=["fc1"],
                source_kind="doc", source_url="https://example.test/ops", backend_version="2.33.0", reason=None,
                conditions=None, phases=["forward"], first_index=0)
    return OpReport(**{**base, **kw})


def hostile_result() -> CheckResult:
    ops = [
        _op("aten::addmm", "native"),
        _op(HOSTILE_OP, "fallback", module_paths=[HOSTILE_MODULE, "ok\x1b[2J"], source_url=HOSTILE_URL),
        _op("aten::linear", "decomposed", via=[Leaf("aten::t", "native"), Leaf("aten::addmm<b>", "native")]),
        _op("custom::op&amp;", "unknown", source_kind=None, source_url=None, reason="no evidence <i>x</i>"),
        _op("aten::fft", "unsupported"),
    ]
    report = CheckReport(model="m<odel>.pt2", model_kind="exported_program", target="neuron", backend_version="2.33.0",
                         mode="eager", ops=ops, call_sites=5, warnings=["caveat: <b>bold</b> & more"],
                         notes=["note with \u202e bidi"], verdict="neuron 2.33.0: runs <everywhere>")
    return CheckResult(model="m<odel>.pt2", model_kind="exported_program", train=False, reports=[report])


def test_repr_html_is_well_formed_and_escapes_hostile_names():
    html = hostile_result()._repr_html_()
    parser = parse(html)
    text = "".join(parser.text)
    assert HOSTILE_OP in text and HOSTILE_MODULE in text  # shown as text, never as markup
    assert "<script" not in html and "<img" not in html and "javascript:" not in re.findall(r'href="([^"]*)"', html)
    assert "\x1b" not in html and "\u202e" not in html and "\\x1b" in text  # controls shown in their visible form
    assert 'href="https://example.test/ops"' in html


def test_statuses_are_coloured_as_kb_serve_colours_them():
    from kb.check.html import STATUS_COLOURS

    html = hostile_result()._repr_html_()
    for status in ("native", "fallback", "decomposed", "unknown", "unsupported"):
        assert f'class="kb-status kb-{status}"' in html
    css = (REPO / "data" / "datasette" / "static" / "kb.css").read_text(encoding="utf-8")
    for status, (background, colour) in STATUS_COLOURS.items():
        rule = re.search(r"\.kb-" + status + r"\b[^{]*\{([^}]*)\}", css)
        assert rule and f"background: {background}" in rule.group(1) and f"color: {colour}" in rule.group(1), status


def test_repr_html_of_a_real_check_has_the_cli_s_columns(saved):
    import kb
    from tests.check.test_api import STAND_IN

    result = kb.check(saved["mlp"]["exported_program"], targets=("neuron", "tpu"), **STAND_IN)
    parser = parse(result._repr_html_())
    text = " ".join(parser.text)
    for column in ("op", "count", "status", "via", "dtypes", "modules", "source"):
        assert column in text
    assert text.count("<code>") == 0 and "⇄ fallback" in text and "✔ native" in text and "legend:" in text
    assert result.to_html().count("<code>aten::gelu</code>") == 2  # a row per target
    assert result.to_html(fail_on="fallback").count("FAILED") == 1


def test_two_targets_in_html_mark_each_verdicts_basis():
    """t26b #1: a presumed or inferred verdict carries its mark in its status cell, and the
    legend explains the marks; an evidence verdict has none."""
    neuron = CheckReport(model="m.pt2", model_kind="exported_program", target="neuron", backend_version="2.14.3.1",
                         mode="eager", ops=[_op("aten::gelu", "fallback", basis="presumed"),
                                            _op("aten::t", "native", basis="inferred")], call_sites=2)
    tpu = CheckReport(model="m.pt2", model_kind="exported_program", target="tpu", backend_version="0.2.0",
                      mode="eager", ops=[_op("aten::gelu", "native"), _op("aten::t", "native")], call_sites=2)
    html = CheckResult(model="m.pt2", model_kind="exported_program", train=False, reports=[neuron, tpu]).to_html()
    text = "".join(parse(html).text)
    assert "⇄ fallbackᵖ" in text and "✔ nativeⁱ" in text and "nativeᵖ" not in text
    assert "ᵖ presumed (carried from an older version or snapshot)" in text and "ⁱ inferred" in text


def test_counts_in_the_summary_have_thousands_separators_as_stderr_has():
    """t26b #10: `1,157 call sites`, as the basis line on stderr writes `6,128 of 6,254`."""
    from kb.check.text import summary_lines

    report = CheckReport(model="m.pt2", model_kind="exported_program", target="neuron", backend_version="2.33.0",
                         mode="eager", ops=[_op("aten::addmm", "native", count=1157)], call_sites=1157)
    assert "1 distinct ops, 1,157 call sites" in summary_lines(report)[0]
