"""The name filter of a list question: "list the conv ops tpu can't run", "which pad ops fall
back on neuron?", "¿qué ops de convolución no soporta TPU?" (read in English as "ops of
convolution"). The words that qualify "ops" say which ops are meant; a list that ignored them
would answer with every op of the status, which nobody asked for.

A qualifying word that names an op family of the KB (kb.store.families: conv, pooling, norm,
attention, lstm...) filters by that family; any other word filters by op name, as
`kb ops --grep WORD` does, when some catalog op has it as a name part (`pad` in
`constant_pad_nd`). Everyday words (targets, statuses, "the", "other"...) never filter.
The scan is two bounded patterns over the question (at most 1,000 characters), linear.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from functools import lru_cache

from kb.chat import intents
from kb.store import families

_OPS = r"(?:ops|operators|operations|kernels|functions|layers)"
# "the conv ops", "batch norm operators", "what attention ops": up to two words right before "ops"
# a name part may start with underscores ("which _foreach ops…", r20 q15)
_BEFORE = re.compile(rf"\b(_*[a-z][\w-]*)(?:\s+(_*[a-z][\w-]*))?\s+(?:aten\s+|torch\s+)?{_OPS}\b")
# "ops of convolution", "ops related to attention", "ops with bitwise in the name", "ops in the pooling family"
_AFTER = re.compile(rf"\b{_OPS}\s+(?:of|for|in|about|like|named|matching|containing|with|related to|called)\s+"
                    r"(?:the\s+|an?\s+)?(_*[a-z][\w-]*)(?:\s+(_*[a-z][\w-]*))?")
# Words that qualify "ops" without naming any: statuses, targets, modes, determiners, list words.
_NOT_NAMES = frozenset("""
aten torch pytorch eager compile compiled graph mode modes other others all every some any few many most
common main key basic popular important remaining these those such same different new old known missing
unsupported supported native fallback decomposed failing broken slow cpu host device backend list show
which what give tell me torchneuron torchtpu neuronx family families name names kernel kernels related
""".split())
# Verbs that follow "ops" in a sentence ("which ops fall back", "ops that run"): never a name right after "ops"
_VERBS = frozenset("""
fall falls fell run runs ran work works break breaks lack lacks need needs use uses hit hits get gets add adds
cause causes make makes have has end ends fail fails raise raises error errors still does did can cannot will would
should are were was not dont don't aren't isn't won't can't go goes went hang hangs crash crashes land lands
""".split())
# "the ops rnn", Spanish "las ops rnn que…": a name right after "ops", read last and only as an op name part
_RIGHT_AFTER = re.compile(rf"\b{_OPS}\s+(_*[a-z][\w-]*)")
# "sort-related ops", "pool-like ops", "norm type ops": the word before the suffix is the name part
_SUFFIXED = re.compile(r"\b([a-z][a-z0-9_]*)(?:-(?:related|ish|like|type|style|based|flavou?red)|\s+(?:related|type|style|based))"
                       r"\b(?!\s+to\b)")
MIN_WORD = 3  # "mm" is a name part of half the catalog's matrix ops; shorter words filter nothing


@dataclass(frozen=True)
class NameFilter:
    """What a list is narrowed to: a family of the KB, or op names containing a word."""

    kind: str  # "family" or "grep"
    word: str  # as the question says it ("conv", "pad")
    family: families.Family | None = None

    @property
    def pattern(self) -> str:
        """The `kb ops --grep` pattern of a name filter."""
        return self.word


def _candidates(text: str) -> list[str]:
    """The words and two-word phrases that qualify "ops", the nearest to "ops" first."""
    out: list[str] = []
    for m in _BEFORE.finditer(text):
        first, second = m.group(1), m.group(2)
        out += [f"{first} {second}", second, first] if second else [first]
    for m in _AFTER.finditer(text):
        first, second = m.group(1), m.group(2)
        out += [first, f"{first} {second}"] if second else [first]
    out += [m.group(1) for m in _RIGHT_AFTER.finditer(text) if m.group(1) not in _VERBS]
    return [w for w in dict.fromkeys(out) if w]


def _is_name_word(word: str) -> bool:
    lower = word.lower()
    return (len(lower) >= MIN_WORD and lower not in _NOT_NAMES and lower not in intents.STOPWORDS
            and lower not in intents.TARGET_ALIASES and lower not in intents.STATUS_WORDS
            and lower not in intents.PRODUCT_WORDS and not lower[:1].isdigit())


@lru_cache(maxsize=4)
def _bases(conn: sqlite3.Connection) -> frozenset[str]:
    return frozenset(b for (b,) in conn.execute("SELECT DISTINCT base FROM op"))


def _names_ops(conn: sqlite3.Connection, word: str) -> bool:
    """Whether some catalog op has `word` as a name part: its base starts with it, or has it
    right after an `_` ("pad" in constant_pad_nd, "bitwise" in bitwise_and)."""
    part = re.compile(rf"(?:^|_){re.escape(word)}")
    return any(part.search(base) for base in _bases(conn))


# The user's own substring (29q): a quoted word ('conv', "pool", `norm`), or a word after "whose name
# contains", "with X in the name", Spanish "cuyo nombre contiene", "con X en el nombre" (also as the
# glossary leaves them: "what contengan X on nombre"). It wins over a family the same word names.
_WORD = r"([a-z_][\w.]{1,30})"
_LITERAL = re.compile(
    rf"['\"`‘“«]{_WORD}['\"`’”»]"
    rf"|\b(?:names?|nombres?)\s+(?:contains?|containing|includes?|including|has|have|with|matching|matches|like"
    rf"|contiene|contienen|contenga|contengan|lleva|llevan|tiene|tienen|incluye|incluyen|con)\s+"
    rf"(?:the (?:word|string|substring|text) |la palabra |el texto )?{_WORD}"
    rf"|\b(?:with|containing|having|have|has|con|tienen|tengan|contengan|llevan|lleven|what \w+)\s+{_WORD}"
    rf"\s+(?:in|on|en)\s+(?:the |their |its |el |su |sus )?(?:names?|nombres?)\b"
    # a glob ("unique* ops", "*pool*"): a pattern over names, spelled as such (s8)
    r"|(?<![\w*])\*?([a-z_][a-z0-9_]{2,30})\*(?![\w*])|(?<![\w*])\*([a-z_][a-z0-9_]{2,30})\b", re.I)


def member_op(conn: sqlite3.Connection, word: str, fam: families.Family) -> bool:
    """"which scatter ops fall back?" asks for the ops named scatter, not the whole indexing family: a single word
    that is one member op's own name (a catalog base), neither the family's name nor its short form ("norm",
    "conv", "pool"), narrows the list to op names containing it (29t). An op's name whose gerund is the family's
    name ("sort" of sorting, "index" of indexing) is that op's name too: "sort ops" are the ops named sort (s8)."""
    short = fam.name.startswith(word) and fam.name != word + "ing"
    return " " not in word and word in _bases(conn) and not short and word != fam.name


def literal(conn: sqlite3.Connection, text: str) -> NameFilter | None:
    """The substring the user spelled for op names ("whose name contains 'conv'"), when some op has it."""
    for m in _LITERAL.finditer(text or ""):
        word = next(g for g in m.groups() if g).lower().strip(".")
        if len(word) >= MIN_WORD and word not in _NOT_NAMES and any(word in base for base in _bases(conn)):
            return NameFilter("grep", word)
    return None


def name_filter(conn: sqlite3.Connection, text: str) -> NameFilter | None:
    """The filter a list question's words put on its ops, or None when they name none; the user's
    own spelled substring first (`literal`)."""
    spelled = literal(conn, text)
    if spelled is not None:
        return spelled
    lowered = _SUFFIXED.sub(r"\1", re.sub(r"\s+", " ", text.lower()))
    for phrase in _candidates(lowered):
        words = phrase.split()
        if not all(_is_name_word(w) for w in words):
            continue
        fam = families.family(phrase)
        if fam is not None and member_op(conn, phrase, fam):
            return NameFilter("grep", phrase)
        if fam is not None:
            return NameFilter("family", phrase, fam)
    for phrase in _candidates(lowered):
        if " " in phrase or not _is_name_word(phrase):
            continue
        for word in dict.fromkeys((phrase, phrase[:-1] if phrase.endswith("s") else phrase)):
            if len(word) >= MIN_WORD and _names_ops(conn, word):
                return NameFilter("grep", word)
    return None


def qualifies_ops(text: str) -> bool:
    """Whether a list question's words say which ops (a spelled substring, or a name word before or after
    "ops"), read without the KB: "which ops fall back in ResNet-50's training graph?" says none, so it asks
    for the model's ops; "which upsample ops fail in the UNet?" says which (kb.chat.scoring, r12 q16, q19)."""
    if _LITERAL.search(text or ""):
        return True
    lowered = _SUFFIXED.sub(r"\1", re.sub(r"\s+", " ", (text or "").lower()))
    return any(all(_is_name_word(w) for w in phrase.split()) for phrase in _candidates(lowered))


def said(f: NameFilter) -> str:
    """The line that says which filter a list applied (kb.chat.spanish has its Spanish)."""
    if f.kind == "family":
        return f"_Filtered to family: {f.family.name} (read from '{f.word}')._"
    return f"_Filtered to ops whose name contains '{f.word}' (`--grep {f.word}`)._"
