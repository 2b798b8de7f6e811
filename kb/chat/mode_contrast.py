"""Eager and torch.compile side by side when they differ (29n, issue #29 group A).

An op's verdict is stored per mode, and an answer to a question naming no mode shows the eager
one. Where torch.compile gives a different verdict for the same op, target and version (TorchNeuron
falls back to the CPU in eager but fails to compile the graph), an eager-only answer misleads anyone
who compiles: so the answer says both, right under its headline, and lists the compile verdict
under the eager one. A question that names a mode ("in compile mode", "eager") gets that mode only.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.store import queries, verdict

_NAMES_MODE = re.compile(r"compil|eager|dynamo|inductor|graph mode|modo grafo", re.I)

# Where an op runs, in a few words per language: (English, Spanish).
_WORDS = {
    "native": ("native (its own kernel)", "nativo (kernel propio)"),
    "device": ("runs on the device (decomposed)", "se ejecuta en el dispositivo (descompuesto)"),
    "untraced": ("decomposed (leaves not traced)", "descompuesto (hojas no trazadas)"),
    "fallback": ("falls back to the CPU", "cae a la CPU"),
    "part_fallback": ("partly falls back to the CPU", "cae en parte a la CPU"),
    "unsupported": ("unsupported (raises)", "sin soporte (lanza un error)"),
    "part_unsupported": ("unsupported (raises at a leaf)", "sin soporte (una hoja lanza un error)"),
}


def names_no_mode(text: str) -> bool:
    """Whether the question leaves the mode open (no "compile", "eager", "dynamo"...)."""
    return _NAMES_MODE.search(text or "") is None


# "is hardtanh native on neuron? and in compile mode?", "¿corre en neuron? ¿y en modo compile?" (read in English
# as "... and on compile mode?"): a mode said only in a trailing follow-up asks about it besides eager, so the
# first question keeps its eager answer and compile is answered beside it (29r)
# "… fall back on trn2 and what about under torch.compile?": "and what/how about" is a follow-up without a mark (s9)
_FOLLOW_UP_MODE = re.compile(r"(?:[?.;,]\s+|\s+(?=(?:and|but) (?:what|how) about\b))(?:and |but )?"
                             r"(?:also |plus |what about |how about )?(?:also )?(?:on |in |under |with |using )?"
                             r"(?:the )?(?:compile mode|torch\.compile|compiled|compile)(?: mode)?(?: too| as well)?\s*\?*\s*$",
                             re.I)


# "does aten::roll run natively or go back to the cpu? and would wrapping the block in torch.compile change anything?",
# "¿anda nativo o se va a la cpu? ¿y si lo compilo con torch.compile?": a last sentence of its own that brings compile
# in asks about it besides the eager question before it (r22 q01, q05)
_FOLLOW_UP_SENTENCE = re.compile(r"[?.;]\s+[^?.;]{0,160}\b(?:compil\w*|torch\.compile|dynamo|inductor)\b[^?.;]{0,80}[?.]*\s*$",
                                 re.I)


def follow_up_mode(text: str) -> bool:
    """Whether the only mode the question names is in a trailing "and in compile mode?" clause or sentence."""
    text = text or ""
    m = _FOLLOW_UP_MODE.search(text) or _FOLLOW_UP_SENTENCE.search(text)
    return m is not None and names_no_mode(text[:m.start()])


_BOTH = re.compile(r"\b(?:both|either|each|all|the two|two) (?:modes?|ways)\b"
                   r"|\b(?:ambos|los dos|dos|cada|todos los) mod(?:os?|es?)\b", re.I)  # also as glossed: "on dos modos"
_COMPILE = re.compile(r"compil|dynamo|inductor", re.I)


def names_both_modes(text: str) -> bool:
    """Whether the question asks about eager and torch.compile together ("in eager and compile",
    "in both modes", "en ambos modos"): then both verdicts are said, also when they agree (29q)."""
    text = text or ""
    return _BOTH.search(text) is not None or (re.search(r"\beager\b", text, re.I) is not None
                                              and _COMPILE.search(text) is not None)


def same_line(compiled: dict[str, Any], es: bool = False) -> str:
    """The compile verdict said under an eager one it agrees with (asked for both modes, 29q)."""
    said = "igual que eager" if es else "same as eager"
    return f"torch.compile: {said}: {where_words(compiled, es)}"


def no_compile_line(es: bool = False) -> str:
    """Asked for both modes, and the KB holds no compile verdict for this op there."""
    return ("torch.compile: ? desconocido: el KB no tiene veredicto en este modo" if es
            else "torch.compile: ? unknown: the KB holds no verdict in this mode")


def agree_line(pairs: list[tuple[dict[str, Any], dict[str, Any]]], es: bool = False) -> str | None:
    """Asked for both modes and they agree: one line that says so, where (29q)."""
    if not pairs:
        return None
    by_where: dict[str, list[str]] = {}  # several ops on one release (a functional's ops): said once (r12 q54)
    for eager, _compiled in pairs:
        words = by_where.setdefault(f"{eager['target']} {eager['backend_version']}", [])
        if where_words(eager, es) not in words:
            words.append(where_words(eager, es))
    said: dict[str, list[str]] = {}
    for where, words in by_where.items():
        one = words[0] if len(words) == 1 else ("el mismo veredicto para cada op mostrado" if es
                                               else "the same verdict for each op shown")
        said.setdefault(one, []).append(where)
    parts = [f"{'en' if es else 'on'} {(' y ' if es else ' and ').join(w)}: {words}" for words, w in said.items()]
    head = "**Eager y torch.compile coinciden**" if es else "**Eager and torch.compile agree**"
    return f"{head} — {' · '.join(parts)}."


def where_words(row: dict[str, Any], es: bool = False) -> str:
    """Where the op runs in one mode, in the question's language."""
    status, runs = row["status"], verdict.effective_status(row)
    if status == "native":
        key = "native"
    elif runs == "fallback":
        key = "part_fallback" if status == "decomposed" else "fallback"
    elif runs == "unsupported":
        key = "part_unsupported" if status == "decomposed" else "unsupported"
    elif status == "decomposed":
        key = "device" if verdict.leaves_traced(row) else "untraced"
    else:
        return status
    return _WORDS[key][1 if es else 0]


def asked_mode(text: str) -> str | None:
    """"Is F.hardtanh ok under torch.compile? in eager it seemed to work": both modes are named, but the
    question itself (the first sentence with a question mark) names one; that one is asked, the other is
    context (r10 q3). None when the question names both, or neither, or asks about both modes."""
    text = text or ""
    if _BOTH.search(text) or "?" not in text:
        return None
    head, _, rest = text.partition("?")
    head = re.split(r"[.!;]\s", head)[-1]
    compiled, eager = _COMPILE.search(head) is not None, re.search(r"\beager\b", head, re.I) is not None
    if (compiled != eager) and _OTHER_MODE_FOLLOW_UP.match(rest.strip()):
        return None  # "… under torch.compile? and what about eager" asks both (s15)
    return "compile" if compiled and not eager else "eager" if eager and not compiled else None


# A short trailing follow-up that names a mode: "and what about eager", "and in eager mode?", "y en eager?"
_OTHER_MODE_FOLLOW_UP = re.compile(r"(?:and|but|also|plus|y|e|pero)?\s*(?:what|how|qu[ée]\s+tal|qu[ée]\s+pasa)?\s*"
                                   r"(?:about|con|en|in|on|under|with)?\s*(?:the\s+|el\s+|modo\s+)?"
                                   r"(?:eager|compil\w*|torch\.compile)(?:\s+mode|\s+modo)?\s*\??\s*$", re.I)


def other_mode(mode: str) -> str:
    return "eager" if mode == "compile" else "compile"


def compile_rows(conn: sqlite3.Connection, eager: list[dict[str, Any]], *,
                 every: bool = False, mode: str = "compile") -> dict[tuple[str, str, str], dict[str, Any]]:
    """The compile verdict of each eager verdict's op, target and version, where it says otherwise
    (`every`: also where it agrees, for a question that asks about compile as well or about both modes).
    `mode="eager"`: the other way round, the eager verdict of each compile verdict (compile asked)."""
    ops = sorted({r["op"] for r in eager})
    if not ops:
        return {}
    wanted = {(r["op"], r["target"], r["backend_version"]): r for r in eager}
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in queries.op_verdicts(conn, ops, mode=mode):
        key = (row["op"], row["target"], row["backend_version"])
        mine = wanted.get(key)
        if mine is not None and (every or differs(mine, row)):
            out[key] = row
    return out


def differs(eager: dict[str, Any], compiled: dict[str, Any]) -> bool:
    """Whether one op's eager and compile verdicts say different things (own status or where it runs)."""
    return (eager["status"], verdict.effective_status(eager)) != (compiled["status"], verdict.effective_status(compiled))


def contrast_line(pairs: list[tuple[dict[str, Any], dict[str, Any]]], es: bool = False) -> str | None:
    """One line saying both verdicts: "**Eager and torch.compile differ** on neuron 2.14.3.1 —
    eager: falls back to the CPU; torch.compile: unsupported (raises)." None without a pair."""
    if not pairs:
        return None
    said: dict[tuple[str, str], list[str]] = {}  # (eager words, compile words) → the targets saying so
    for eager, compiled in pairs:
        where = f"{eager['target']} {eager['backend_version']}"
        wheres = said.setdefault((where_words(eager, es), where_words(compiled, es)), [])
        if where not in wheres:
            wheres.append(where)
    parts = []
    for (e, c), wheres in said.items():
        on = (" en " if es else " on ") + (" y " if es else " and ").join(wheres)
        parts.append(f"{on.strip()}: eager: {e}; torch.compile: {c}")
    return f"{_head(es)} — {' · '.join(parts)}."


def _head(es: bool) -> str:
    return "**Eager y torch.compile difieren**" if es else "**Eager and torch.compile differ**"


def starts_with_mode_line(text: str) -> bool:
    """Whether an answer opens with the line on eager against torch.compile (agree or differ): it speaks of
    the modes, so it answers no question that compares targets ("nonzero on neuron vs tpu")."""
    return text.startswith(("**Eager and torch.compile ", "**Eager y torch.compile "))


def tally_words(counts: dict[str, int], total: int, es: bool = False) -> str:
    """Where a module's ops run in one mode, from a tally's counts: its worst op decides."""
    if counts.get("unsupported"):
        return _WORDS["unsupported" if counts["unsupported"] == total else "part_unsupported"][1 if es else 0]
    if counts.get("fallback"):
        return _WORDS["fallback" if counts["fallback"] == total else "part_fallback"][1 if es else 0]
    if counts.get("native", 0) == total:
        return _WORDS["native"][1 if es else 0]
    return _WORDS["device"][1 if es else 0]


def module_contrast(where: str, eager: dict[str, Any], compiled: dict[str, Any], es: bool = False) -> str | None:
    """The contrast line for a module's two tallies ("neuron 2.14.3.1"), None when they agree."""
    if eager["counts"] == compiled["counts"]:
        return None
    e, c = tally_words(eager["counts"], eager["total"], es), tally_words(compiled["counts"], compiled["total"], es)
    if e == c:
        return None
    return f"{_head(es)} — {'en' if es else 'on'} {where}: eager: {e}; torch.compile: {c}."


def module_agree(where: str, eager: dict[str, Any], es: bool = False) -> str:
    """A module's eager and compile tallies agree: the line that says so, so that a question leaving the
    mode open ("does it work on the device?") hears about both (r12 q7)."""
    head = "**Eager y torch.compile coinciden**" if es else "**Eager and torch.compile agree**"
    return f"{head} — {'en' if es else 'on'} {where}: {tally_words(eager['counts'], eager['total'], es)}."
