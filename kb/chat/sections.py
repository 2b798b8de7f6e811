"""A question of three or more parts answered in as many sections (29s).

"Q1: is nonzero native on tpu? Q2: what's the fallback policy on neuron? Q3: when does Python 3.10
leave Neuron?", or three questions joined by "?" and "and": kb.chat.understand.split_two finds the
first join only, so parts 2 and up used to share one section (and one reading). Here the question is
split at every join, each part is read with what the part before it names (kb.chat.understand's
carry_context, pairwise along the parts), and each gets its own section, headed by the part as read.
Sources are merged into one list at the end and every [n] renumbered into it, as for two parts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kb.chat import understand
from kb.chat.reply import Answer

MAX_PARTS = 6  # the first six parts are answered; the answer says how many more to ask on their own
HEAD = {"en": "_{n} questions in one; each is answered in turn._",
        "es": "_{n} preguntas en una; cada una se responde por separado._"}
LEFT_OUT = {"en": "_{n} questions in one; the first {max} are answered here: ask the other {left} on their own._",
            "es": "_{n} preguntas en una; aquí se responden las {max} primeras: haz las otras {left} por separado._"}
# The answers' text that one message carries at most before the parts left are only named: six parts of four
# gallery models on four targets each ran 3–5 s and made 37–107 KB (attacker s8 #5); a part is rarely over 3,000.
MAX_TEXT = 12_000
TOO_LONG = {"en": "_This answer is long already: ask this part on its own._",
            "es": "_Esta respuesta ya es larga: haz esta parte por separado._"}
SCAN_PARTS = 40  # how many joins are looked for at most (the question is at most 1,000 characters)


def split_all(text: str) -> list[str] | None:
    """Every part of a question of three or more parts, or None (one or two parts: kb.chat.understand)."""
    parts = understand.numbered(text)
    if parts:
        parts = [p if p.endswith("?") else p + "?" for p in parts]
    else:
        two = understand.split_two(text)
        if two is None:
            return None
        parts, rest = [two[0]], two[1]
        lang = understand.entities.language(text)
        # a last "y en tpu" of the rest is a part of its own (held-out r13 q63)
        while len(parts) < SCAN_PARTS - 1 and (more := understand.split_two(rest) or understand.tail_place(rest, lang)):
            parts.append(more[0])
            rest = more[1]
        parts.append(rest)
        parts = _ends_asked_once(parts)
    return parts if len(parts) >= 3 else None


def _ends_asked_once(parts: list[str]) -> list[str]:
    """"¿Python 3.11 sigue soportado en Neuron y hasta cuándo? y de paso …": a bare "until when?" / "when did it end?"
    after a part that asks an end of support is that part's own date, which its answer gives: one part, as split_two
    keeps it for two."""
    out = [parts[0]]
    for part in parts[1:]:
        bare = understand.UNTIL.match(part) or understand.WHEN.match(part) or understand.WHEN_END.match(part)
        if bare and understand.asks_end(out[-1]):
            out[-1] = out[-1].rstrip(" ?¿.") + " " + ("y " if understand.entities.language(out[-1]) == "es" else "and ") \
                + part.lstrip("¿ ")
            continue
        out.append(part)
    return out


def read_all(parts: list[str], lang: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Each part as read: with what the part before it (as read) names and it does not."""
    read, facts = [parts[0]], []
    for i in range(1, len(parts)):
        if i >= 2 and understand.only_context(parts[i], lang) and understand.subject_of(read[i - 1], lang) is None:
            # "sort va en neuron?, q modelos bloquea?, y en tpu": a part that only says where asks the question of the
            # last part that names an op, not of the one between (held-out r13 q63)
            again = next(((j, a) for j in reversed(range(i - 1)) if (a := understand.place_again(read[j], parts[i], lang))),
                         None)
            if again is not None:
                read.append(again[1][0])
                facts.append({"part": i + 1, "from_part": again[0] + 1, **again[1][1]})
                continue
        (before, mine), carried = understand.carry_context((read[i - 1], parts[i]), lang, tuple(read[:i - 1]))
        if i == 1:
            read[0] = before  # the first part takes the second's target, as with two parts
        read.append(mine)
        facts += [{**f, "part": i + 1} for f in carried if f.get("part") == 2]
        facts += [f for f in carried if f.get("part") == 1 and i == 1]
    return read, facts


def answer_all(question: str, parts: list[str], lang: str, one: Callable[[str], Answer],
               whole: Callable[[], Answer], out_lang: str | None = None) -> Answer:
    """Each part answered by `one`; a part that reads as nothing says so in one line. When at most
    one part reads as something, the whole question's reading (`whole`) answers instead. Past
    MAX_PARTS parts, the first MAX_PARTS are answered and the head line says how many were not. `out_lang`: the
    language the answer is written in, when the message asked for one other than its own."""
    shown = out_lang or lang
    asked = len(parts)
    parts = parts[:MAX_PARTS]
    read, carried = read_all(parts, lang)
    answers: list[Answer] = []
    size = 0
    for n, part in enumerate(read):  # past MAX_TEXT characters of answers, the parts left are said, not computed
        again = next((f for f in carried if f.get("part") == n + 1 and "from_part" in f), None)
        if again is not None:
            read[n] = part = _op_as_read(part, again, answers[again["from_part"] - 1])
        answers.append(one(part) if size <= MAX_TEXT else _too_long(part, shown))
        if n and answers[-1].intent in understand.WEAK and size <= MAX_TEXT \
                and (there := understand.asked_there(read[n - 1], part, lang, unread=True)) is not None:
            asked_again = one(there)  # "… en neuron? 2. ¿y en tpu 0.2.0?": the part before, asked there (r20 q61)
            if asked_again.intent not in understand.WEAK:
                read[n], answers[-1] = there, asked_again
                carried.append({"part": n + 1, "from_part": n, "carried": {"question": there}})
        size += len(answers[-1].text)
    if sum(a.intent not in understand.WEAK for a in answers) <= 1:
        return whole()
    answers = [understand.unread_part(p, shown) if a.intent in understand.WEAK else a for p, a in zip(read, answers)]
    answered = len(read)
    read, answers = _said_once(read, answers)
    if len(answers) == 1:
        return whole()
    return combine_all(question, read, answers, shown, carried, asked - (answered - len(read)))


def _said(result: Answer) -> str:
    """An answer's body without its italic notes (another reading, a name read so): what it says."""
    body = understand.body_and_sources(result.text)[0]
    return "\n".join(line for line in body.strip().splitlines() if line.strip() and not line.startswith("_"))


def _said_once(read: list[str], answers: list[Answer]) -> tuple[list[str], list[Answer]]:
    """A part whose answer says what the one before it says ("¿Mixtral corre en trn2? ¿qué ops lo traban?": the
    model's verdict names its blocking ops) shares that section, headed by both parts, rather than saying it twice
    (r20 q53). A part asked twice, or left unanswered for length, still counts as its own (attacker s7, s8)."""
    parts, out = [read[0]], [answers[0]]
    for before, part, result in zip(read, read[1:], answers[1:]):
        if result.intent == out[-1].intent and result.intent not in (*understand.WEAK, "too_long") and part != before \
                and _said(result) == _said(out[-1]):
            parts[-1] = parts[-1].rstrip() + " " + part.lstrip()
            continue
        parts.append(part)
        out.append(result)
    return parts, out


def _too_long(part: str, lang: str) -> Answer:
    """The one line a part gets once the answer is long (MAX_TEXT)."""
    return Answer(part, "too_long", TOO_LONG.get(lang, TOO_LONG["en"]), [{"part_not_answered": part}], language=lang)


def _op_as_read(part: str, again: dict[str, Any], before: Answer) -> str:
    """A part carried a plain word ("y en tpu (sort)?") names the op the part it came from was answered for
    ("(aten::sort)"), so it is read as that op there, not as a family the word also names."""
    word = again["carried"]["ops"][0]
    ops = [f["op"] for f in before.facts if isinstance(f.get("op"), str)] if before.intent == "op" else []
    op = next((o for o in ops if o.split("::")[-1].split(".")[0] == word), None)
    if op is None or "::" in word:
        return part
    again["carried"]["ops"] = [op]
    return part.replace(f"({word})", f"({op})")


def _renumbered(body: str, numbers: dict[int, int]) -> str:
    """A section's [n] citations pointed into the one merged source list."""
    return re.sub(r"(?<!\\)\[(\d+)\]", lambda m: f"[{numbers.get(int(m.group(1)), int(m.group(1)))}]", body)


def combine_all(question: str, parts: list[str], answers: list[Answer], lang: str,
                carried: list[dict[str, Any]], asked: int | None = None) -> Answer:
    """One answer of a section per part; a source several sections cite keeps its first number.
    `asked`: how many parts the question had, when more than were answered."""
    seen: dict[str, int] = {}
    sources: list[str] = []
    if asked and asked > len(parts):
        lines = [LEFT_OUT.get(lang, LEFT_OUT["en"]).format(n=asked, max=len(parts), left=asked - len(parts))]
    else:
        lines = [HEAD.get(lang, HEAD["en"]).format(n=len(parts))]
    for n, (part, result) in enumerate(zip(parts, answers), start=1):
        body, src = understand.body_and_sources(result.text)
        numbers: dict[int, int] = {}
        for line in src:
            m = re.match(r"\[(\d+)\] (.*)", line)
            if m is None:
                sources.append(line)
                continue
            if m.group(2) not in seen:
                seen[m.group(2)] = len(seen) + 1
                sources.append(f"[{seen[m.group(2)]}] {m.group(2)}")
            numbers[int(m.group(1))] = seen[m.group(2)]
        body = _renumbered(body, numbers)
        lines += ["", understand.heading(n, part, lang), "", body]
    if sources:
        lines += ["", "**Fuentes**" if lang == "es" else "**Sources**", *sources]
    facts: list[dict[str, Any]] = list(answers[0].facts)
    merged = list(answers[0].sources)
    for n, result in enumerate(answers[1:], start=2):
        facts += [{"part": n, "question": parts[n - 1], "intent": result.intent}] + list(result.facts)
        merged += [s for s in result.sources if s not in merged]
    strong = [a.intent for a in answers if a.intent not in understand.WEAK]
    others = [i for i in strong[1:] if i != strong[0]]
    return Answer(question, strong[0], "\n".join(lines), facts + carried, merged, lang,
                  other_reading=others[0] if others else None)
