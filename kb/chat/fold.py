"""Long answers folded to fit one screen (29r, issue #29): at most MAX_LINES lines as a terminal
shows them, the sources included.

An answer that lists many things (ops counted on two targets, an op's rows beside a stack check)
grows past what anyone reads in a chat. Past the limit, each run of list items longer than KEEP
keeps its first KEEP items and says how many it left out and which command lists them all ("…and
12 more: `kb ops --target tpu=0.2.0 --status native` lists them"); where a list already ends in
such a line, its count grows instead. Headlines, basis lines and sources are never folded: only
list items, so no verdict and no source is dropped, only repeats of the same kind of row.
"""

from __future__ import annotations

import math
import re

from kb.chat.reply import Answer

MAX_LINES = 40  # the round-8 measure: answers past 40 terminal lines are too long to read in chat
KEEP = 3  # list items a folded list keeps
WIDTH = 116  # characters per terminal line, as kb ask wraps at 120 columns with its indent

_MORE = re.compile(r"^_…(?:and )?(?:y )?(\d[\d,.]*) (more|más)(.*)$")
_ITEM = re.compile(r"^(?:- |\d+\. )")
_KEPT = re.compile(r"^- (?:⚠|\? |no source|ninguna fuente)")  # findings and unknowns: kept whole
_BLOCK = re.compile(r"^\*\*`([^`]+)`\*\*$")  # an op's own block in an op answer: "**`aten::argmax.out`**"


def shown_lines(text: str) -> int:
    """How many terminal lines a text takes, each line wrapped at WIDTH."""
    return sum(max(1, math.ceil(len(line) / WIDTH)) for line in text.split("\n"))


def command_for(answer: Answer) -> str | None:
    """The command that lists everything an answer folds: its op's or product's own command."""
    facts = [f for f in answer.facts if isinstance(f, dict)]
    if answer.intent in ("op", "compare"):
        op = next((f["op"] for f in facts if f.get("op") and f.get("target")), None)
        targets = list(dict.fromkeys(f["target"] for f in facts if f.get("op") == op and f.get("target")))
        return f"kb op {op}" + "".join(f" -t {t}" for t in targets[:2]) if op else None
    if answer.intent == "eol":
        product = next((f["product"] for f in facts if f.get("product")), None)
        return f"kb eol {product}" if product else "kb eol"
    return None


def _items(lines: list[str]) -> list[tuple[int, int, int]]:
    """Runs of list items: (first line, end line, item count); an item holds its wrapped and
    indented lines ("    …", "  - …")."""
    runs, i = [], 0
    while i < len(lines):
        if not _ITEM.match(lines[i]):
            i += 1
            continue
        start, count = i, 0
        while i < len(lines) and _ITEM.match(lines[i]):
            count += 1
            i += 1
            while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
                i += 1
        runs.append((start, i, count))
    return runs


def _fold_lines(lines: list[str], command: str | None, es: bool, keep_items: int = KEEP) -> list[str]:
    """Each run of more than `keep_items` items cut to that many, with one line saying what was left out."""
    out: list[str] = []
    last = 0
    for start, end, count in _items(lines):
        out += lines[last:start]
        last = end
        if count <= keep_items:
            out += lines[start:end]
            continue
        kept, seen, left, keep = [], 0, 0, True
        for line in lines[start:end]:
            if _ITEM.match(line):  # a finding ("⚠ ended…", "no source dates…") is never folded away
                seen += 1
                keep = seen <= keep_items or _KEPT.match(line) is not None
                left += 0 if keep else 1
            if keep:
                kept.append(line)
        if not left:
            out += lines[start:end]
            continue
        out += kept
        nxt = lines[end] if end < len(lines) else ""
        more = _MORE.match(nxt)
        if more:  # "_…389 more: `kb ops …`._" under the list: its count grows by what is folded here
            n = int(re.sub(r"[,.]", "", more.group(1))) + left
            out.append(f"_…{n:,} {more.group(2)}{more.group(3)}".replace(",", "." if es else ","))
            last = end + 1
        elif command:
            out.append(f"_…y {left} más: `{command}` los lista._" if es else f"_…and {left} more: `{command}` lists them._")
        else:
            out.append(f"_…y {left} más: pregunta solo por esto para verlos todos._" if es else
                       f"_…and {left} more: ask about this alone for all of them._")
    out += lines[last:]
    return out


def _fold_blocks(lines: list[str], command: str | None, es: bool) -> list[str]:
    """An op answer's blocks after the first (other overloads, each with its rows) said in one line
    naming them, with the command that shows them: the first op, the one asked, keeps its rows."""
    heads = [i for i, line in enumerate(lines) if _BLOCK.match(line)]
    if len(heads) < 2:
        return lines
    out, dropped, i = lines[:heads[1]], [], heads[1]
    while i < len(lines):
        m = _BLOCK.match(lines[i])
        if m:
            dropped.append(m.group(1))
            i += 1
            while i < len(lines) and (_ITEM.match(lines[i]) or lines[i].startswith(" ") and lines[i].strip()
                                      or lines[i].startswith("_…")):
                i += 1
            continue
        out.append(lines[i])
        i += 1
    names = ", ".join(f"`{d}`" for d in dropped[:3]) + (" …" if len(dropped) > 3 else "")
    where = f"`{command}`" if command else ("pregunta por cada uno" if es else "ask about each")
    line = (f"_…y {len(dropped)} op(s) más ({names}): {where} los muestra._" if es else
            f"_…and {len(dropped)} more op(s) ({names}): {where} shows them._")
    at = heads[1]
    return out[:at] + [line] + out[at:]


def _body(text: str) -> tuple[str, str]:
    for header in ("\n\n**Sources**", "\n\n**Fuentes**"):
        body, sep, rest = text.partition(header)
        if sep:
            return body, sep + rest
    return text, ""


def fold_text(text: str, command: str | None, es: bool, *, blocks: bool = False, keep: int = KEEP) -> str:
    """The text with its long lists folded (`blocks`: its other ops' blocks too); sources kept whole."""
    body, sources = _body(text)
    lines = _fold_lines(body.split("\n"), command, es, keep)
    return "\n".join(_fold_blocks(lines, command, es) if blocks else lines) + sources


# Folding goes by steps, each only while the answer is still too long: long lists to 8, 5, then KEEP
# items, then an op answer's other ops. A list of KEEP items or fewer is never folded.
STEPS = ((8, False), (5, False), (KEEP, False), (KEEP, True))


def _fold(answer: Answer, keep: int, blocks: bool) -> Answer:
    text = fold_text(answer.text, command_for(answer), answer.language == "es", blocks=blocks, keep=keep)
    answer.text = text  # the facts stay whole: only the text is folded, and its fold lines say so
    return answer


def fit(answer: Answer) -> Answer:
    """An answer over MAX_LINES with its lists folded, then, if still over, its other ops' blocks. An
    answer with one long list is that list, asked for (it stops at MAX_LIST with its own "N more"):
    only an answer of several lists (ops counted on two targets) is folded."""
    body = _body(answer.text)[0].split("\n")
    if len([run for run in _items(body) if run[2] > KEEP]) < 2:
        return answer
    for keep, blocks in STEPS:
        if shown_lines(answer.text) <= MAX_LINES:
            break
        answer = _fold(answer, keep, blocks)
    return answer


def fit_pair(first: Answer, second: Answer) -> tuple[Answer, Answer]:
    """Two sections of one answer folded when together (with their headings) they pass MAX_LINES."""
    heading = 6  # the "two questions" line, two section headings, blank lines
    for keep, blocks in STEPS:
        if shown_lines(first.text) + shown_lines(second.text) + heading <= MAX_LINES:
            break
        first, second = _fold(first, keep, blocks), _fold(second, keep, blocks)
    return first, second

