"""An op named in a question makes it a question about that op (29k).

"does nonzero run natively on neuron or does it fall back?" mentions falling back, which alone
reads as the backend's fallback policy; but it names an op, so it asks for that op's verdict.
The policy reading stays for questions about "an op it lacks" or "missing ops" in general.

Such a question often offers the choices ("native or does it fall back?", "¿nativo o cae a la
CPU?"): a yes/no headline would answer the first choice only, so the headline names the verdict
itself — native, on the device though decomposed, partly on the CPU, falls back, unsupported.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat import names
from kb.chat.intents import Question
from kb.store import torchnames, verdict

# The choices a question offers: two statuses joined by "or" ("native or fall back", "run on the
# device or go to the cpu", "supported or does it raise").
_CHOICE = (r"(?:nativ\w*|own kernel|fall\w*(?: back)?|fallback|decompos\w*|unsupported|raise\w*|error|cpu|host"
           r"|(?:on (?:the )?)?(?:device|dispositivo)|supported)")
_EITHER = re.compile(rf"\b{_CHOICE}\b[^?]{{0,60}}?\bor\b[^?]{{0,40}}?\b{_CHOICE}", re.I)


def names_op(conn: sqlite3.Connection, q: Question) -> bool:
    """Whether the question names a specific op: spelled as code, a torch.nn module, or a plain
    word that is an op's name in the catalog (the reader already keeps everyday words out)."""
    feature_words = {w for w in names.FEATURE_WORDS if "." in w}
    if q.op_words or [w for w in q.function_words if w.lower() not in feature_words]:
        return True
    for word in q.plain_words:
        lower = word.lower()
        if torchnames.looks_like_module(word) and torchnames.resolve_module(word):
            return True
        if conn.execute("SELECT 1 FROM op WHERE base = ? OR name = ? LIMIT 1", (lower, f"aten::{lower}")).fetchone():
            return True
    return False


def offers_choices(text: str) -> bool:
    """"native or does it fall back?": the question names two outcomes and asks which."""
    return _EITHER.search(text) is not None


def verdict_head(row: dict[str, Any]) -> str | None:
    """The headline naming one verdict (where the op runs), or None for a status it has no word for."""
    status, runs = row["status"], verdict.effective_status(row)
    where, target = verdict.runs(row), row["target"]
    if status == "native":
        return f"**Native** — its own kernel on {target}."
    if status == "decomposed" and runs == "decomposed" and verdict.leaves_traced(row):
        return f"**Runs on the device, decomposed** — not as one kernel; its leaves run on {target} (no CPU fallback)."
    if status == "decomposed" and runs == "decomposed":
        return f"**Decomposed** — where its leaves run is not traced ({where})."
    if status == "decomposed" and runs == "fallback":
        return f"**Partly falls back** — decomposed, and part of it runs as fallback ({where})."
    if status == "decomposed" and runs == "unsupported":
        return f"**Unsupported** — decomposed, and part of it raises ({where})."
    if status == "fallback":
        return f"**Falls back** — it runs on the CPU ({where})."
    if status == "unsupported":
        return f"**Unsupported** — neither native nor a CPU fallback: it raises ({where})."
    return None


def choice_head(rows: list[dict[str, Any]]) -> str | None:
    """One headline over the verdicts answered: the same verdict everywhere says it once (targets
    named together); overloads that differ only in how say where they all run; else it depends.
    None when some verdict has no word here."""
    heads = []
    for r in rows:
        head = verdict_head({**r, "target": "\0"})
        if head is None:
            return None
        heads.append(head)
    targets = " and ".join(dict.fromkeys(r["target"] for r in rows))
    found = {h.replace("\0", targets) for h in heads}
    if len(found) == 1:
        return found.pop()
    runs = {verdict.effective_status(r) for r in rows}  # overloads differ in how, not in where they run
    if runs == {"fallback"}:
        return "**Falls back** — for every overload shown, in whole or in part (details below)."
    if runs == {"unsupported"}:
        return "**Unsupported** — for every overload shown (details below)."
    if runs <= {"native", "decomposed"} and all(verdict.leaves_traced(r) for r in rows):
        return "**Runs on the device** — for every overload shown (own kernel or decomposed; no CPU fallback)."
    return "**It depends** — on the version, mode or overload (details below)."
