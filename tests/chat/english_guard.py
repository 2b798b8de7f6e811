"""Finds English that kb wrote itself inside a Spanish answer (issue #29: "answers in the
question's language"). What may stay English is taken out first: code spans, URLs, op names,
citations, the source list, status labels, and text quoted from records (the answer's facts
and sources name it: titles, notes, statements). What is left is kb's own sentences, and an
English function word or phrase there is a clause nobody translated.
"""

from __future__ import annotations

import re

# English function words and kb phrases that no Spanish sentence of kb's uses. Each is matched as
# a whole word, case-insensitively, in the generated text. Strict enough to catch every example of
# issue #29's slice 29f ("1 of 2 ops run on the device", "does not hacen fallback", "FLOPs counted",
# "the KB has no matriz", "own end of life", "latest torchneuron:", "(all 35 ops)", "(a list of ...)").
ENGLISH = [
    "the", "of", "and", "with", "does not", "doesn't", "runs", "run", "counted", "latest", "own", "all", "which",
    "is", "are", "has", "have", "not", "for", "from", "or", "it", "its", "that", "this", "there", "would", "will",
    "can", "could", "should", "no longer", "ended", "ends", "starting", "until", "when", "where", "what", "why",
    "how", "on", "only", "but", "also", "one", "ops run", "falls", "fall back", "on the", "in the", "by", "at", "to",
    "an", "leaves", "traced", "presumed", "inferred", "evidence", "unknown", "supported", "support", "yes",
    "probably", "presumably", "depends", "partly", "list", "shows", "none", "more", "than", "then", "each",
    "every", "step", "ask", "read", "says", "said", "says:", "row", "date", "since", "instead", "without",
    "between", "about", "these", "those", "they", "their", "was", "were", "be", "been", "per", "hour", "tokens per",
    "release", "released", "newest", "oldest", "matrix", "module", "missing", "known", "after", "before",
]
_WORDS = re.compile(r"(?<![\w'-])(" + "|".join(re.escape(w) for w in sorted(ENGLISH, key=len, reverse=True))
                    + r")(?![\w'-])", re.I)

# Status labels and kb vocabulary that stay as labels in both languages (issue #29: "status labels
# may stay as labels"), and technical words Spanish uses as they are.
_LABELS = re.compile(r"\b(native|decomposed|fallback|unsupported|crash|timeout|eager|compile|evidence|presumed|"
                     r"inferred|unknown|forward|backward|train|eval|host|kernel|kernels|op|ops|snapshot|gallery|"
                     r"doc|probe|static_probe|replay|dispatcher)\b", re.I)
# Product names kb labels windows with (kb.eol): names, not sentences.
_PRODUCTS = re.compile(r"torch-neuronx on XLA|JAX on Neuron|PyTorch/XLA on Neuron|NxD Inference and NxD Core inference APIs"
                       r"|Neuron DLAMIs and DLCs")
_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"https?://\S+|\b[\w.-]+\.(?:html?|md|json|jsonl|py|pt2)\b")
_CITE = re.compile(r"\[\d+\]")
_OPNAME = re.compile(r"\b(?:aten|prims|torch|F|nn)(?:::|\.)[\w.:]+")


# Fact and source keys whose values are recorded by others (a vendor's title or note, a record's
# feature or status value); kb's own lines in facts (a "summary", a "message") are no quote.
RECORD_KEYS = frozenset("title note notes statement quote name source_name feature status platform "
                        "product_label".split())


def _quoted(answer: dict) -> list[str]:
    """Strings of several words in the answer's facts and sources, under record keys."""
    found: set[str] = set()

    def walk(value: object, key: str = "") -> None:
        if isinstance(value, str):
            if key in RECORD_KEYS and value.count(" ") >= 1 and ": own end of life" not in value:
                found.add(value)
        elif isinstance(value, dict):
            for name, item in value.items():
                walk(item, name)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, key)

    walk(answer.get("facts") or [])
    walk(answer.get("sources") or [])
    return sorted(found, key=len, reverse=True)


def generated(answer: dict) -> str:
    """The answer's text less what may stay English (see the module's docstring)."""
    text = answer.get("text") or ""
    text = text.split("\n\n**Fuentes**")[0].split("\n\n**Sources**")[0]
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>])", r"\1", text)  # markdown escapes of record text
    text = re.sub(r"“[^”\n]*”|\"[^\"\n]*\"", " ", text)  # quoted record text, marked as a quote
    for quote in _quoted(answer):
        if len(quote) >= 8:
            text = text.replace(quote, " ").replace(_md(quote), " ")
    for pattern in (_PRODUCTS, _CODE, _URL, _CITE, _OPNAME):
        text = pattern.sub(" ", text)
    return _LABELS.sub(" ", text)


def _md(text: str) -> str:
    from kb import neutral

    return neutral.markdown(text)


def english_in(answer: dict) -> list[str]:
    """Each English word or phrase found in a Spanish answer's own text, with its context."""
    text = generated(answer)
    return [text[max(0, m.start() - 30):m.end() + 30].replace("\n", " ") for m in _WORDS.finditer(text)]
