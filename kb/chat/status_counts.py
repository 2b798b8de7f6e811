""""How many ops fall back on neuron 2.14.3.1, and how many are unsupported? and on the older 2.13.3.0?": counts of
two statuses of one target, at each release the message names; each status is asked as a count of its own, at every
release, so no count is left for one release only (r31 q9)."""

from __future__ import annotations

import re
import sqlite3

from kb.chat import entities, intents
from kb.store import queries

_COUNT = re.compile(r"\bhow many\b", re.I)
_STATUS_WORDS = (("fallback", re.compile(r"\bfall(?:s|ing)? back\b|\bfallbacks?\b|\bon the cpu\b", re.I)),
                 ("unsupported", re.compile(r"\bunsupported\b|\bnot supported\b|\bcan'?t run\b|\bcannot run\b", re.I)),
                 ("native", re.compile(r"\bnative(?:ly)?\b", re.I)),
                 ("decomposed", re.compile(r"\bdecompos\w*", re.I)))
_ASKS = {"en": {"fallback": "how many ops fall back to the CPU on {where}?",
                "unsupported": "how many ops are unsupported on {where}?",
                "native": "how many ops are native on {where}?", "decomposed": "how many ops are decomposed on {where}?"},
         "es": {"fallback": "¿cuántas ops hacen fallback a la CPU en {where}?",
                "unsupported": "¿cuántas ops no están soportadas en {where}?",
                "native": "¿cuántas ops son nativas en {where}?", "decomposed": "¿cuántas ops son descompuestas en {where}?"}}


def status_parts(conn: sqlite3.Connection, question: str, lang: str) -> tuple[str, str] | None:
    """The two count questions (one per status, each at every release named; or one status in each of the two modes
    compared), or None unless the message asks how many ops have those statuses on one target and names no op, model,
    price or end of support."""
    ents = entities.extract(question, lang)
    english = ents.english
    q = intents.read(english)
    if not _COUNT.search(english) or q.op_words or q.function_words or ents.models or ents.prices or ents.rates \
            or ({"eol", "cost", "policy"} & ents.cues and not re.search(r"\bhow many\b[^?]{0,30}\bops\b", english)):
        return None
    found = sorted((m.start(), status) for status, pattern in _STATUS_WORDS for m in [pattern.search(english)] if m)
    statuses = list(dict.fromkeys(status for _, status in found))
    names = {m.target for m in q.targets}
    if not 1 <= len(statuses) <= 2 or len(names) != 1:
        return None
    target = next(iter(names))
    with_data = set(queries.target_versions_with_data(conn, target))
    versions = [m.version for m in q.targets if m.version] + [v for v in q.versions if v in with_data]
    versions = list(dict.fromkeys(v for v in versions if v in with_data))
    asks = _ASKS.get(lang, _ASKS["en"])
    if len(statuses) == 1 and len(names) == 1 and len(versions) <= 1 and {"eager", "compile"} <= ents.cues:
        # "¿cuántas ops quedan unsupported en neuron con torch.compile, comparado con eager?": each mode (r30 q16)
        where = f"{target} {versions[0]}" if versions else target
        modes = (" en modo compile", " en modo eager") if lang == "es" else (" in compile mode", " in eager mode")
        return asks[statuses[0]].format(where=where + modes[0]), asks[statuses[0]].format(where=where + modes[1])
    if len(statuses) != 2 or not 1 <= len(versions) <= 2:
        return None
    where = f"{target} {versions[0]}" + (f" vs {versions[1]}" if len(versions) == 2 else "")
    where += (" en modo compile" if lang == "es" else " in compile mode") if "compile" in ents.cues else ""
    return asks[statuses[0]].format(where=where), asks[statuses[1]].format(where=where)
