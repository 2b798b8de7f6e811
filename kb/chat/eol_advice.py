"""What an end-of-support statement tells its users to do instead, from the statement's own note
("…; use TorchNeuron (eager or torch.compile backend neuron) or vLLM Neuron"): an answer that
says a line has ended or is ending names the vendor's way out beside the date (r6 eol-en-2).

Only the clause that advises is taken, as recorded; a note with no such clause gives None, and
nothing is ever suggested that the record does not say.
"""

from __future__ import annotations

import re
from typing import Any

from kb.chat.reply import Sources, quoted

# A clause that tells the reader what to use: "use X", "migrate to X", "switch to X", "X instead",
# "replaced by X", "customers should …", "we recommend …". Matched at a clause start only.
_ADVICE = re.compile(r"^(?:please )?(?:use|migrate|move|switch|upgrade|transition|adopt|(?:customers|users) (?:should|are encouraged)"
                     r"|we recommend|(?:it is )?recommended|replaced by|superseded by|(?:the )?alternatives? (?:is|are))\b",
                     re.I)
_CLAUSES = re.compile(r"[;.]\s+|,\s+(?=(?:please )?(?:use|migrate|switch|move)\b)|\s+[—-]{1,2}\s+")
MAX_NOTE = 600  # notes are short records; a longer one is read up to here (linear, bounded)


def advice(note: str | None) -> str | None:
    """The advising clause of a statement's note, or None."""
    if not note:
        return None
    for clause in _CLAUSES.split(note[:MAX_NOTE]):
        clause = clause.strip(" ;,.")
        if _ADVICE.match(clause) or re.search(r"\binstead\b", clause, re.I):
            return clause
    return None


def advice_line(windows: list[dict[str, Any]], src: Sources, es: bool) -> str | None:
    """One line with the first advice any of the windows' notes give, cited to its window."""
    for w in windows:
        said = advice(w.get("note"))
        if said:
            label = "Lo que el proveedor aconseja en su lugar" if es else "What the vendor advises instead"
            return f"- {label}: {quoted(said)} {src.cite(w)}"
    return None
