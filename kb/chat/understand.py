"""How a question was read, said in the answer: typo'd names read as a target or product
("read 'neuorn' as neuron"), an SDK release read as the packages it ships ("neuron 2.33 is
SDK release 2.33.0: torchneuron 2.13.3.0, 2.14.3.0"), a model answered by the nearest gallery
model, and a question of two clauses answered in two sections. Nothing here is ever a silent
swap: each reading the answer rests on is one line of its text and one fact of its --json.

Kept apart from kb.chat.answer so that the routing there stays one question, one reading;
`answer` calls `split_two` first and `with_readings` last.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat.entities import Entities
from kb.chat.intents import Question
from kb.chat.reply import Answer
from kb.neutral import markdown as md

# ---------------------------------------------------------------- two questions in one

# A second clause that asks its own question: "... and what's the policy", "..., y cuánto cuesta",
# "...? also how long ...". A join followed by anything else ("neuron and tpu", "7 USD/h y 1500
# tok/s") is one question.
_EN_ASK = (r"(?:what'?s|whats|what|how|which|when|is|are|does|do|can|could|will|would|should"
           r"|(?:the )?(?:cost|price|fallback policy|policy|end of support) (?:per|of|for|at|on|in)"
           r"|list|show|tell me)\b")
_ES_ASK = (r"(?:¿ ?)?(?:(?:el |la )?(?:costo|coste|precio|pol[ií]tica) (?:por|de|a|en)|dame|lista|"
           r"qu[eé]|cu[aá]nto|cu[aá]nta|cu[aá]ntos|cu[aá]l|cu[aá]les|cu[aá]ndo|c[oó]mo|es|est[aá]|"
           r"corre|funciona|hay|hasta|sigue|cae|caen)\b")
# An op named as code opens a clause of its own ("... in eager and torch.roll is one of those?").
_CODE_OP = r"(?:(?:torch|F|nn|aten|Tensor)(?:\.|::)[\w.:]+|\w+\(\))"
# Read over the text with each run of whitespace made one space, so no pattern here backtracks
# over a long run (the question is at most 1,000 characters; this keeps the scan linear anyway).
_JOIN = re.compile(rf" ?[,;]? (?:and|also|plus) (?:also )?(?={_EN_ASK})"
                   rf"| ?[,;]? (?:y|e|adem[aá]s) (?:adem[aá]s )?(?={_ES_ASK})"
                   rf"|\? (?:and |also |y )?(?=¿|{_EN_ASK}|{_ES_ASK})"
                   rf"| ?[,;]? (?:and|y) (?=(?:is |es |¿ ?)?{_CODE_OP} (?:{_EN_ASK}|{_ES_ASK}|one|una|uno|among|entre))", re.I)
MIN_WORDS = 3  # a clause shorter than this is no question of its own
# A second clause about the first one's subject ("... and does it run natively on tpu", "... and what
# about compile mode?") is the same question continued: the whole question's reading answers it.
_FOLLOW_UP = re.compile(r"^(?:(?:does|do|is|are|can|will|would|could|did|how (?:does|do|well does))\s+(?:it|they|this|that|"
                        r"those|these|the same)\b|(?:what|how) about\b|(?:and )?(?:in|under|with) (?:compile|eager)\b"
                        r"|y (?:en|con) (?:modo )?compil|(?:y )?qu[eé] (?:tal|hay de)\b)", re.I)
SECTION = {"en": "**({n})** _{part}_", "es": "**({n})** _{part}_"}
TWO = {"en": "_Two questions in one; each is answered in turn._",
       "es": "_Dos preguntas en una; cada una se responde por separado._"}


def split_two(text: str) -> tuple[str, str] | None:
    """The two clauses of a question that joins two questions, or None. Only the first join
    that starts a question counts (a third clause stays with the second)."""
    text = re.sub(r"\s+", " ", text).strip()
    for m in _JOIN.finditer(text):
        first, second = text[:m.start()].strip(" ,;"), text[m.end():].strip()
        if _FOLLOW_UP.match(second.lstrip("¿ ")):
            return None
        if len(first.split()) >= MIN_WORDS and len(second.split()) >= MIN_WORDS:
            return (first if first.endswith("?") else first + "?"), second
    return None


def names_code_op(text: str) -> bool:
    """Whether a clause names an op as code (torch.roll, aten::nonzero, x())."""
    return re.search(_CODE_OP, text) is not None


def answers_both(first: Answer, second: Answer) -> bool:
    """Both clauses read as questions the KB answers, and as different kinds of question (two op
    questions are one question about two ops, which the whole question's reading answers)."""
    weak = ("unknown", "help")
    return first.intent not in weak and second.intent not in weak and first.intent != second.intent


def _body_and_sources(text: str) -> tuple[str, list[str]]:
    for header in ("\n\n**Sources**", "\n\n**Fuentes**"):
        body, sep, rest = text.partition(header)
        if sep:
            return body, [line for line in rest.split("\n") if line.strip()]
    return text, []


def combine(question: str, parts: tuple[str, str], first: Answer, second: Answer, lang: str) -> Answer:
    """One answer of two sections, each headed by its clause; the second's sources renumbered after
    the first's, so every [n] points into the one list at the end."""
    body1, src1 = _body_and_sources(first.text)
    body2, src2 = _body_and_sources(second.text)
    shift = len(src1)

    def renumber(m: re.Match) -> str:
        return f"[{int(m.group(1)) + shift}]"

    body2 = re.sub(r"(?<!\\)\[(\d+)\]", renumber, body2)
    src2 = [re.sub(r"^\[(\d+)\]", renumber, line) for line in src2]
    say = SECTION.get(lang, SECTION["en"])
    lines = [TWO.get(lang, TWO["en"]), "", say.format(n=1, part=md(parts[0])), "", body1, "",
             say.format(n=2, part=md(parts[1])), "", body2]
    sources = src1 + src2
    if sources:
        lines += ["", "**Fuentes**" if lang == "es" else "**Sources**", *sources]
    facts = first.facts + [{"part": 2, "question": parts[1], "intent": second.intent}] + second.facts
    return Answer(question, first.intent, "\n".join(lines), facts, first.sources + second.sources, lang,
                  other_reading=second.intent)


# ---------------------------------------------------------------- how names and versions were read

READ_WORD = {"en": "_Read {pairs}._", "es": "_Leí {pairs}._"}
AS = {"en": "'{typed}' as {name}", "es": "'{typed}' como {name}"}


def _version_lines(conn: sqlite3.Connection, q: Question, intent: str, lang: str,
                   facts: list[dict[str, Any]]) -> list[str]:
    """"neuron 2.33" is an SDK release that ships torchneuron 2.13.3.0 and 2.14.3.0: said in the
    answer (kb.store.targetspec's own line, as the CLI prints it on stderr), and which of them a
    one-version answer shows."""
    from kb.errors import KBError
    from kb.store.targetspec import resolve

    out: list[str] = []
    if intent in ("eol", "release", "diff", "cost", "help", "unknown"):
        return out  # these read "neuron 2.34" as the SDK release itself, and say so in their own words
    single = intent in ("ops_by_status", "gallery_model", "gallery_list", "gallery_blockers", "policy")
    for mention in q.targets:
        if not mention.version:
            continue
        try:
            found = resolve(conn, mention.target, mention.version, sdk_only=mention.sdk)
        except KBError:
            continue
        if found.how not in ("sdk", "line") or not found.versions:
            continue
        shown = found.chosen if single and len(found.versions) > 1 else None
        facts.append({"version_read": f"{mention.target}={mention.version}", "how": found.how, "sdk": found.sdk,
                      "product": found.product, "versions": found.versions, "shown": shown})
        versions = ", ".join(found.versions)
        if lang == "es":
            what = (f"la versión del SDK {found.sdk}" if found.how == "sdk" else f"la línea {mention.version}")
            line = f"_{mention.target} {mention.version} es {what}: {found.product} {versions}"
            line += f"; se muestra {shown}_" if shown else "_"
        else:
            what = f"SDK release {found.sdk}" if found.how == "sdk" else f"the {mention.version} line"
            line = f"_{mention.target} {mention.version} is {what}: {found.product} {versions}"
            line += f"; showing {shown} (ask for {mention.target} {found.versions[0]} for the other)_" if shown else "_"
        out.append(line)
    return out


_MODEL_NUMBER = re.compile(r"v?\d+(?:\.\d+)*[a-z]?")


def _model_tokens(name: str) -> set[str]:
    """"Llama-3.1-70B" → {llama, 3.1, 70b}; "qwen2.5 7b" → {qwen, 2.5, 7b}; "v0.2" → {0.2}."""
    spaced = re.sub(r"(?<=[a-z])(?=\d)", " ", name.lower().replace("-", " ").replace("_", " "))
    return {t.lstrip("v") or t for t in re.findall(r"[a-z]+|\d+(?:\.\d+)*[a-z]?", spaced)}


def _model_note(conn: sqlite3.Connection, text: str, result: Answer, lang: str) -> str | None:
    """"Llama 3 70B" answered by Llama 3.1 70B: the numbers the question gives its model (version,
    size) that the model answered lacks make the answer the nearest, and the answer says so."""
    if result.intent != "gallery_model":
        return None
    from kb.chat.entities import MODEL_RE
    from kb.gallery import views

    slugs = list(dict.fromkeys(f["model"] for f in result.facts if isinstance(f, dict)
                               and isinstance(f.get("model"), str) and "target" in f))
    names = {m["model"]: m["name"] for m in views.models(conn)}
    answered = [(s, names.get(s, s)) for s in slugs]
    m = MODEL_RE.search(text.lower())
    if m is None or not answered:
        return None
    tail = re.match(r"(?:[\s-]+(?:v?\d[\w.]*|large|base|small|medium|instruct|chat))*", text.lower()[m.end():])
    said = text[m.start():m.end() + (tail.end() if tail else 0)].strip()
    numbers = {t for t in _model_tokens(said) if t[:1].isdigit()}
    if not numbers or any(numbers <= _model_tokens(s) | _model_tokens(n) for s, n in answered):
        return None
    names = ", ".join(md(n) for _, n in answered[:3])
    if lang == "es":
        return (f"_'{md(said)}' no está en la galería con ese nombre; se responde con el más cercano: {names} "
                "(`kb gallery` los lista; para tu propio modelo, `kb check model.pt2 -t TARGET` sobre un export)._")
    return (f"_'{md(said)}' is not in the gallery by that name; answering the nearest: {names} "
            "(`kb gallery` lists them; for your own model, `kb check model.pt2 -t TARGET` on an export)._")


_SIZE = re.compile(r"\b(?P<name>[A-Za-z][\w.-]{2,30})[\s-]+(?P<size>\d{1,4}(?:\.\d)?[bBmM])\b")


_OWN_MODEL = re.compile(r"\b(?:my|our|mi|nuestro|custom|in-house|inhouse|own|internal|propio)\b[\w\s-]{0,30}?"
                        r"\b(?:model|modelo|network|net|transformer|llm|checkpoint)s?\b", re.I)


def unknown_model(text: str, lang: str, targets: list[str] | None = None) -> Answer | None:
    """A model name the KB does not know ("foobarnet 9b on trn2?") or one's own model ("will our
    in-house model work on trn2?"): say so, and how to check it."""
    flags = " ".join(f"-t {t}" for t in (targets or ["neuron", "tpu"])[:2])
    m = _SIZE.search(text)
    if m is None:
        if not _OWN_MODEL.search(text):
            return None
        line = (f"**Un modelo propio no se puede buscar por nombre**: expórtalo con torch.export y ejecuta "
                f"`kb check model.pt2 {flags}` (o `kb check model.py:build --input-shape ...`); `kb gallery` lista "
                "los modelos publicados que conozco." if lang == "es" else
                f"**Your own model is not one the KB can look up by name**: export it with torch.export and run "
                f"`kb check model.pt2 {flags}` (or `kb check model.py:build --input-shape ...`); `kb gallery` lists "
                "the published models I know.")
        return Answer(text, "gallery_missing", line, [{"model": "own", "in_gallery": False}], language=lang)
    said = md(text[m.start():m.end()])
    if lang == "es":
        line = (f"**No conozco el modelo {said}**: no está en la galería. Para saber si corre, expórtalo con "
                f"torch.export y ejecuta `kb check model.pt2 {flags}` (`kb gallery` lista los modelos que conozco).")
    else:
        line = (f"**I don't know the model {said}**: it is not in the gallery. To find out, export it with "
                f"torch.export and run `kb check model.pt2 {flags}` (`kb gallery` lists the models I know).")
    return Answer(text, "gallery_missing", line, [{"model": text[m.start():m.end()], "in_gallery": False}],
                  language=lang)


def with_readings(conn: sqlite3.Connection, result: Answer, q: Question, ents: Entities) -> Answer:
    """The lines that say how names, versions and models were read, right under the headline."""
    lang = ents.language if ents.language in READ_WORD else "en"
    lines = []
    facts: list[dict[str, Any]] = []
    if ents.corrections:
        pairs = ", ".join(AS[lang].format(typed=md(t), name=n) for t, n in ents.corrections[:4])
        lines.append(READ_WORD[lang].format(pairs=pairs))
        facts += [{"word_read": t, "as": n} for t, n in ents.corrections[:4]]
    lines += _version_lines(conn, q, result.intent, lang, facts)
    note = _model_note(conn, result.question or q.text, result, lang)
    if note:
        lines.append(note)
        facts.append({"model_read": "nearest"})
    if not lines:
        return result
    block = "\n".join(lines)
    text = result.text
    if text.startswith("**") and not text.startswith("**`"):  # keep the headline line first
        head, _, rest = text.partition("\n")
        rest = rest.lstrip("\n")
        result.text = f"{head}\n\n{block}" + (f"\n\n{rest}" if rest else "")
    else:
        result.text = f"{block}\n\n{text}"
    result.facts = result.facts + facts
    return result
