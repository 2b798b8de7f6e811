"""What every chat answer is: markdown for people, facts and numbered sources for programs.

Below `answer`, `answer_eol` and `answer_model` so that each of them builds answers of the
same shape without importing the others.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from kb.neutral import markdown, markdown_code, safe_url

MAX_LIST = 15  # rows an answer lists before it says "and N more"
# A list the question narrowed by name or family ("which pool ops fall back?") is what was asked: up to this many
# rows it is shown whole, each with where it runs (s8: a cut at 15 hid max_pool2d_with_indices.out)
MAX_FILTERED = 40
# The longest question `kb ask` takes (the MCP tool's bound; the Slack bot's is 500).
MAX_QUESTION_CHARS = 1000


# Characters that show nothing but change how a question reads: zero-width ones, bidi controls, the BOM (attacker s11)
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Cyrillic and Greek letters drawn like Latin ones ("аten" with a Cyrillic а, "тpu"): inside a word that also has Latin
# letters they are read as the Latin letter; a word wholly in another script is left as written
_LOOKALIKE = str.maketrans("аеорсухіјѕԁһӏтквмнАВЕКМНОРСТХУІЈЅοαινκτρχυΟΑΒΕΖΗΙΚΜΝΡΤΧΥ",
                           "aeopcyxijsdhltkbmhABEKMHOPCTXYIJSoaivktpxuOABEZHIKMNPTXY")
_WORD = re.compile(r"\w+")  # each word once: `\w*[A-Za-z]\w*` backtracked over a long run without a Latin letter


def clean_text(text: str) -> str:
    """A question as its reader sees it: NFKC-normalised (full-width digits are digits), invisible characters taken
    out, lone surrogates (which no UTF-8 reply can carry) replaced, and lookalike letters read as Latin ones in words
    that mix scripts (attacker s11: a zero-width space split `aten::nonzero`, a Cyrillic е dropped the target)."""
    import unicodedata

    text = _SURROGATE.sub("\ufffd", text or "")
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    return _WORD.sub(lambda m: m.group().translate(_LOOKALIKE) if _mixed(m.group()) else m.group(), text)


def _mixed(word: str) -> bool:
    """A word with a Latin letter and some other character (a lookalike, perhaps)."""
    return not word.isascii() and any(c.isascii() and c.isalpha() for c in word)


def check_question(text: str, limit: int = MAX_QUESTION_CHARS) -> str:
    """The question, or a KBError (one line, exit 2) when it is empty or too long."""
    from kb.errors import KBError

    text = text.strip()
    if not text:
        raise KBError('empty question: ask e.g. kb ask "is nonzero native on neuron?" (kb ask help lists what can be asked)')
    if len(text) > limit:
        raise KBError(f"that question is {len(text)} characters long; the limit is {limit}")
    return text


@dataclass
class Answer:
    """Markdown for people, facts and sources for programs (MCP clients, tests)."""

    question: str
    intent: str
    text: str
    facts: list[dict[str, Any]] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    language: str = "en"  # the question's language, which the text is written in ("en", "es")
    other_reading: str | None = None  # the close second reading of the question, when there was one

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _local(value: Any) -> dict[str, Any] | None:
    """A support row's local report (kb ingest FILE), parsed; None for shipped evidence."""
    if isinstance(value, str):
        import json

        value = json.loads(value)
    return value or None


class Sources:
    """Numbered, de-duplicated sources for one answer: `[1]` in the text, listed at the end."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def cite(self, row: dict[str, Any]) -> str:
        item = {
            "kind": row.get("source_kind"),
            "name": row.get("source_name"),
            "url": row.get("source_url"),
            "probe_run_id": row.get("probe_run_id"),
            "retrieved_at": row.get("retrieved_at"),
        }
        local = _local(row.get("report"))
        if local:
            item["local_report"] = local
        key = (item["kind"], item["name"], item["url"], item["probe_run_id"])
        for number, known in enumerate(self.items, 1):
            if (known["kind"], known["name"], known["url"], known["probe_run_id"]) == key:
                return f"[{number}]"
        self.items.append(item)
        return f"[{len(self.items)}]"

    def markdown(self) -> str:
        if not self.items:
            return ""
        lines = ["", "", "**Sources**"]
        for number, item in enumerate(self.items, 1):
            # record values: escaped (kb.neutral), and a URL is shown bare only when http(s)
            url = safe_url(item["url"]) or (markdown(item["url"]) if item["url"] else None)
            where = url or (f"probe run {markdown_code(item['probe_run_id'])}" if item.get("probe_run_id") else "kb")
            if item.get("local_report"):
                from kb.store.provenance import describe

                where = markdown(describe(item["local_report"])) + (
                    f" · probe run {markdown_code(item['probe_run_id'])}" if item.get("probe_run_id") else "")
            when = f", retrieved {markdown(item['retrieved_at'][:10])}" if item.get("retrieved_at") else ""
            # a probe's kind and name are often one word (static_probe): said once (report t26b item 9)
            said = [item["kind"]] + ([item["name"]] if item["name"] and item["name"] != item["kind"] else [])
            lines.append(f"[{number}] {' · '.join(markdown(part) for part in said)} · {where}{when}")
        return "\n".join(lines)


_ENTITY_OR_ESCAPE = re.compile(r"(`+)(?:.*?)\1|&(lt|gt|amp);|\\([\\`*_\[\]#~|])")
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&"}


def plain_text(text: str) -> str:
    """An answer's markdown for a plain-text pipe (`kb ask` when stdout is not a terminal): the
    escapes kb.neutral.markdown adds to record text (`&lt;`, `&amp;`, `\\_`) read back as the
    characters they stand for, since no markdown or HTML renderer will; code spans as written.
    One pass, so a record's own literal `&lt;` (escaped `&amp;lt;`) comes back as `&lt;`."""
    def one(m):
        if m.group(1):
            return m.group(0)
        return _ENTITIES[m.group(2)] if m.group(2) else m.group(3)
    return _ENTITY_OR_ESCAPE.sub(one, text)


# Record text (a vendor's note, a census note) inside kb's own sentence: marked while the answer is
# written, so the Spanish pass leaves it as recorded, and shown at the end as a quote in a Spanish
# answer (“…”), unmarked in an English one (issue #29: quoted record text may stay in its language).
_OPEN, _CLOSE = "\ue000", "\ue001"
QUOTED = re.compile(f"{_OPEN}[^{_CLOSE}]*{_CLOSE}")


def quoted(text: str) -> str:
    """`text` (already escaped for markdown) marked as quoted from a record."""
    return f"{_OPEN}{text}{_CLOSE}" if text else text


def finish_quotes(text: str, language: str) -> str:
    """The marks of `quoted` turned into quotation marks (Spanish) or dropped (English)."""
    if _OPEN not in text:
        return text
    if language == "es":
        return text.replace(_OPEN, "“").replace(_CLOSE, "”")
    return text.replace(_OPEN, "").replace(_CLOSE, "")
