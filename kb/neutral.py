"""Neutral output: a string that came from a file is shown, never obeyed.

Op names, module paths, notes, caveat text, source names and URLs, file names: all of
them arrive in model files, reports and folders that anyone can write. Printed raw, an
ESC sequence clears a terminal or retitles its window, a newline forges a "Gate passed"
line in markdown, a control character makes JUnit XML unparseable, `<!channel>` pings a
whole Slack channel and a `javascript:` URL becomes a link. Every renderer passes such
strings through the one function here for its format; this module is a basic (no
imports from the rooms) so every renderer, low or high, may use it.

The visible form of a character that must not act is its Python escape (`\\x1b`,
`\\u202e`): a reader sees that something odd was there, and nothing happens.
"""

from __future__ import annotations

import re


def _html_escape(text: str) -> str:
    """html.escape, imported when HTML is written: the html package loads its entity
    tables (a millisecond of every plain `kb op`, which writes none)."""
    import html

    return html.escape(text, quote=True)


# Line and paragraph breaks of every kind: shown as one space, so a value stays on its line.
_BREAKS = "\t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# What must not reach any output raw: C0 and C1 controls, DEL, the Unicode line and
# paragraph separators, the bidirectional marks, overrides and isolates (text that reads
# differently from what it is), lone surrogates (a file name decoded with surrogateescape)
# and the XML non-characters.
# (U+200B–U+200D, U+2060 and U+FEFF are invisible: a name holding them looks like another name)
_ACTING = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff"
                     "\ud800-\udfff\ufffe\uffff]")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    if char in _BREAKS:
        return " "
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def clean(text: object) -> str:
    """`text` as a str on one line with no character that acts: controls and bidi marks
    in their visible escape form, line breaks as spaces. The base of every format."""
    value = text if isinstance(text, str) else ("" if text is None else str(text))
    return _ACTING.sub(_visible, value) if _ACTING.search(value) else value


def acts(text: str) -> bool:
    """Whether `text` holds a character `clean` would change (cheap: one regex search)."""
    return _ACTING.search(text) is not None


def terminal(text: object) -> str:
    """For a terminal or a plain-text pipe: no escape sequence, no line break. Rich
    markup is a separate concern: render cells as rich Text objects, never markup."""
    return clean(text)


def xml(text: object) -> str:
    """For XML text or attributes (JUnit): only characters XML 1.0 allows; ElementTree
    escapes `<`, `&` and quotes itself."""
    return clean(text)


# HTML's three (no tag, no entity), then markdown's punctuation (no link, image, emphasis,
# code span, heading or table cell); the backslash first. Chained str.replace: several
# times faster than str.translate or re.sub for the short values renderers show.
_MARKDOWN = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"),
             *((c, "\\" + c) for c in "\\`*_[]#~|"))


def markdown(text: object) -> str:
    """For markdown prose or a table cell: one line, HTML escaped (no tag, no entity),
    markdown punctuation and table pipes backslash-escaped (no link, image, emphasis or
    heading formed from data)."""
    value = clean(text)
    for char, escaped in _MARKDOWN:
        if char in value:
            value = value.replace(char, escaped)
    return value


def markdown_code(text: object) -> str:
    """A markdown code span of `text`: inside one nothing is interpreted, so only the
    line, the fence (longer than any backtick run inside) and table pipes matter."""
    value = clean(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value.strip() else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def html(text: object) -> str:
    """For HTML text and attribute values: escaped, quotes included."""
    return _html_escape(clean(text))


def safe_url(url: object) -> str | None:
    """`url` when it is an http(s) URL that can be a link, else None (javascript:,
    data:, relative paths, anything with whitespace, a control, a quote, `<`, `>` or a
    `|` inside: nothing that could end an attribute, a Slack link or a table cell)."""
    if not isinstance(url, str) or not re.fullmatch(r"https?://[^\s\x00-\x1f\x7f-\x9f\"'<>`\\|]+", url, re.IGNORECASE):
        return None
    return url


def html_link(url: object, text: object | None = None) -> str:
    """An `<a href>` for an http(s) URL; any other value is shown as escaped text only."""
    label = html(url if text is None else text)
    href = safe_url(url)
    return f'<a href="{_html_escape(href)}">{label}</a>' if href else label


def slack(text: object) -> str:
    """For Slack mrkdwn: `&`, `<`, `>` escaped as Slack asks, so no mention
    (`<!channel>`, `<@U…>`) and no link (`<https://…|text>`) is formed from data."""
    return clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def json_text(document: str) -> str:
    """A JSON text (from json.dumps with ensure_ascii=False) with the characters JSON
    leaves raw but terminals obey (DEL, C1, bidi marks, line separators) and lone
    surrogates (which cannot be encoded) written as \\uXXXX: the same data, and
    nothing acts or fails when the JSON is printed."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
