"""An op's history on one target: which release added it and which removed it (29r, issue #29).

"Which torch-neuron version added aten::embedding?" asks about the versions an op's status changed
in, not about the newest verdict. The KB holds one row per version; the rows that rest on evidence
of their own (not presumed from an older version) are where something was said about the op, and
the changes of status between them are the history. The vendor's note of each row ("added in
torch-neuron 1.0.763.0", "removed in …") is quoted as recorded; a change read from two rows that
say only a status is said to be read so.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat.reply import Sources, quoted
from kb.store import queries
from kb.vocab import SYMBOLS

# "which version added X", "in which release was X removed", "when was X introduced", "since which
# version", "X's history on inf1" (Spanish read so by kb.chat.entities: "en qué versión se añadió")
_ASKS = re.compile(
    r"\b(?:which|what)\s+(?:[\w.-]+\s+){0,4}?(?:versions?|releases?)\b[^?]{0,80}?\b(?:add(?:s|ed)?|introduc\w*|remov\w*"
    r"|drop(?:s|ped)?|gain(?:s|ed)?|lost|los(?:e|es)|appear\w*|arriv\w*|first)\b"
    r"|\bwhen\s+(?:was|were|did|has|have)\b[^?]{0,80}?\b(?:added|introduced|removed|dropped|add|introduce|remove|drop)\b"
    r"|\bsince (?:which|what) (?:version|release)\b|\b(?:op )?history\b", re.I)
WORKS = ("native", "decomposed", "fallback")


def asks_history(text: str) -> bool:
    """Whether the question asks in which release an op was added or removed."""
    return _ASKS.search(text or "") is not None


def _said_rows(conn: sqlite3.Connection, op: str, target: str, mode: str) -> list[dict[str, Any]]:
    """The op's rows on the target that rest on evidence of their own, oldest version first."""
    return queries.op_timeline(queries.op_verdicts(conn, [op], mode=mode), target, evidence_only=True)


def history(conn: sqlite3.Connection, op: str, target: str, mode: str, src: Sources,
            es: bool = False) -> tuple[str | None, list[str], list[dict[str, Any]]]:
    """(headline, lines, facts) for one op's history on one target; (None, [], []) without rows."""
    rows = _said_rows(conn, op, target, mode)
    if not rows:
        return None, [], []
    lines = [("Historia de `{op}` en {t} (filas con evidencia propia, de la más antigua a la más reciente):" if es else
              "History of `{op}` on {t} (rows with evidence of their own, oldest first):").format(op=op, t=target)]
    facts: list[dict[str, Any]] = []
    added = removed = None
    previous = None
    for r in rows:
        note = f" — {quoted(r['note'])}" if r.get("note") else ""
        lines.append(f"- {r['backend_version']}: {SYMBOLS.get(r['status'], '?')} **{r['status']}**{note} {src.cite(r)}")
        facts.append({"op": op, "target": target, "backend_version": r["backend_version"], "mode": mode,
                      "status": r["status"], "note": r.get("note"), "history": True})
        works = r["status"] in WORKS
        if works and added is None:
            added = r
        if previous is not None and previous["status"] in WORKS and not works and removed is None:
            removed = r
        previous = r
    return _head(op, target, rows, added, removed, es), lines, facts


def _head(op: str, target: str, rows: list[dict[str, Any]], added: dict[str, Any] | None,
          removed: dict[str, Any] | None, es: bool) -> str:
    """"Added in 1.0.763.0; removed in 1.0.1001.0", as the rows say it."""
    first = rows[0]
    parts = []
    if added is not None:
        since = "" if added is first else (" (antes: " if es else " (before it: ") + first["status"] + ")"
        parts.append(f"añadido en {added['backend_version']} ({added['status']}){since}" if es else
                      f"added in {added['backend_version']} ({added['status']}){since}")
    if removed is not None:
        parts.append(f"quitado en {removed['backend_version']} ({removed['status']})" if es else
                      f"removed in {removed['backend_version']} ({removed['status']})")
    if not parts:
        newest = rows[-1]
        parts.append(f"{newest['status']} en cada fila con evidencia, desde {first['backend_version']}" if es else
                      f"{newest['status']} in every row with evidence, from {first['backend_version']}")
    said = "según las filas del KB y sus notas" if es else "as the KB's rows and their notes say"
    return f"**`{op}` {'en' if es else 'on'} {target}: {'; '.join(parts)}** — {said}."
