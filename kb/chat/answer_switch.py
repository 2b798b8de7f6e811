"""A switch asked for: "is there a switch so a graph that fails to compile runs eagerly?", "¿hay alguna
variable de entorno para los ops complejos?" (held-out r12 q34, r10 q34 and q39).

The KB's manual policy facts name the vendor's settings (TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION and the
compile option fallback_execution, TORCH_NEURONX_COMPLEX_DECOMPOSE, TorchTPU's enable_cpu_fallback). A
question that asks for an environment variable, flag or option about one of those topics is answered with
that row and its default, quoted from the vendor's page; without this reading the words around the switch
("compile", "complex") sent it to the torch.compile-mode limitation or to the complex op family.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat.intents import Question
from kb.chat.reply import Answer, Sources
from kb.neutral import markdown as md
from kb.store import queries

# Words that ask for a setting: a switch, a knob, an environment variable, a flag, an option.
_ASKS = re.compile(r"\b(?:switch|knob|toggle|flag|setting|env(?:ironment)?[\s_-]*var(?:iable)?s?|envvar"
                   r"|variables? de entorno|interruptor|opci[oó]n|option)\b"
                   r"|\bcan (?:i|we) (?:get|have|turn)\b[^?]{0,40}\bback\b"
                   # "how do we get the old behaviour back?", "¿cómo volvemos al comportamiento de antes?" (r26 q34)
                   r"|\b(?:get|bring|have|restore|revert to)\b[^?]{0,12}\bold (?:behaviou?r|way)\b"
                   r"|\b(?:volver|volvemos|recuperar|recuperamos)\b[^?]{0,12}\bcomportamiento (?:anterior|de antes|viejo)\b"
                   # "is there a way to make it fall back to eager?", "¿hay forma de que caiga a eager?" (r30 q37)
                   r"|\b(?:is there (?:a|any) way|any way|hay (?:forma|manera|modo)|existe (?:forma|manera))\b"
                   r"(?=[^?]{0,60}\beager\b)",
                   re.I)
# (feature of the policy row, what the question says about it)
_TOPICS = (
    ("policy: compile fallback execution",
     re.compile(r"\b(?:fails?|failing|failed) to compile\b|\bbackendcompilerfailed\b|\beager(?:ly)? instead\b"
                r"|\bruns? (?:it )?eager(?:ly)?\b|\beager fallback back\b|\bfall ?back to eager\b|\bfallback[_ ]execution\b"
                # Spanish as kb.chat.entities glosses it: "un grafo que falla al compilar corra en eager"
                r"|\bfalla\w* (?:in compile mode|al compilar)\b|\b(?:corra|corre|ejecute|run) (?:on|en) eager\b"
                r"|\bno (?:compila|compile)\b|\ben eager\b"
                # "which env var brings back the eager fallback?": eager brought back is the compile fallback execution,
                # not the CPU fallback of an op in eager (held-out r13 q60)
                r"|\bback (?:the |to )?eager\b|\b(?:vuelv|devuelv|recuper|reactiv)\w* (?:el |la )?(?:fallback (?:a |en )?)?eager\b"
                r"|\bfallback (?:a|en) eager\b|\b(?:caig|cae|caer|fall|falls)\w* (?:back )?(?:a|to|en) eager\b"
                # "… graphs started raising during compilation … TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION" (r26 q34)
                r"|\btorch_neuronx_disable_fallback_execution\b|\b(?:raises?|raising) (?:during|at|on) compil\w*", re.I)),
    ("policy: complex decomposition", re.compile(r"\bcomplex\w*|\bcomplej\w*", re.I)),
    ("policy: missing op", re.compile(r"\bcpu fallback\b|\bfall ?back to (?:the )?(?:cpu|host)\b|\bfallback a la cpu\b", re.I)),
)
_DEFAULT_TARGET = {"policy: compile fallback execution": "neuron", "policy: complex decomposition": "neuron",
                   "policy: missing op": "tpu"}
# a question that asks which switch, not whether one exists (English, or Spanish before or after translation)
_WHICH = re.compile(r"\W*(?:which|what(?:'s|s)?|whats|how|cu[aá]l(?:es)?|qu[eé])\b", re.I)
_LABEL = {"neuron": "TorchNeuron", "tpu": "TorchTPU"}
_NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}\b|\b(?:enable_cpu_fallback|fallback_execution"
                   r"|fallback_mode\([\w.]+\))")
_BESIDE = {"policy: compile fallback execution": "policy: compile fallback"}
STATUS_ES = {"compile error": "error de compilación","compile error by default": "error de compilación por defecto",
             "decomposed by default": "descompuestos por defecto",
             "cpu fallback if enabled else error": "fallback a la CPU si está activado; si no, error",
             "error unless fallback_mode(ALLOW_FALLBACK)": "error salvo con fallback_mode(ALLOW_FALLBACK)"}


def asks_switch(text: str) -> bool:
    """Whether the text asks for a setting (see _ASKS)."""
    return _ASKS.search(text or "") is not None


def topic(text: str) -> str | None:
    """The policy row a switch question is about, or None."""
    return next((feature for feature, said in _TOPICS if said.search(text or "")), None)


def carry_topic(parts: tuple[str, str]) -> tuple[str, str]:
    """"¿los ops complejos se ejecutan? ¿hay alguna variable de entorno para eso?": the second clause asks for
    the switch of what the first names; the first's topic word is carried into it, in parentheses."""
    first, second = parts
    if asks_switch(second) and topic(second) is None and (feature := topic(first)) is not None:
        word = feature.removeprefix("policy: ")
        return first, second.rstrip(" ?¿.") + f" ({word})?"
    return parts


def _rows(conn: sqlite3.Connection, target: str, feature: str) -> list[dict[str, Any]]:
    rows = [dict(r) for r in conn.execute(
        "SELECT l.target, r.product, r.version, l.feature, l.status, l.note, l.source_kind, l.source_name, "
        "l.source_url, l.retrieved_at FROM limitation l JOIN release r ON r.id = l.release_id "
        "WHERE l.target = ? AND l.feature = ?", (target, feature))]
    if not rows:
        return []
    newest = max((r["version"] for r in rows), key=queries.version_key)
    return [r for r in rows if r["version"] == newest]


def switch_answer(conn: sqlite3.Connection, q: Question, lang: str) -> Answer | None:
    """The setting a question asks for, from the KB's policy rows; None when it asks none the KB records."""
    if not asks_switch(q.text) or (feature := topic(q.text)) is None:
        return None
    named = [t for t in q.target_names() if t in _LABEL]
    target = named[0] if named else _DEFAULT_TARGET[feature]
    rows = _rows(conn, target, feature)
    if not rows:
        return None
    es = lang == "es"
    src = Sources()
    row = rows[0]
    switches = list(dict.fromkeys(_NAME.findall(row.get("note") or "")))
    label = f"{_LABEL[target]} ({row['product']} {row['version']})"
    status = STATUS_ES.get(row["status"], row["status"]) if es else row["status"]
    said = ", ".join(f"`{s}`" for s in switches)
    # "is there an env var …?" is answered yes; "which env var …?" by the name alone (s8d-regb)
    yes = "" if _WHICH.match(q.text) else ("Sí: " if es else "Yes: ")
    if es:
        head = (f"**{yes}{said}** — {label}: {status}; documentado en el manual del proveedor." if switches else
                f"**{label}: {status}** — documentado en el manual del proveedor.")
        note = f"“{md(row['note'])}”"
    else:
        head = (f"**{yes}{said}** — {label}: {status}; documented in the vendor's manual." if switches else
                f"**{label}: {status}** — documented in the vendor's manual.")
        note = md(row["note"] or "")
    lines = [head, ""]
    # the rule the switch changes, said beside it: "an op that cannot be lowered fails compilation" (r11 q34)
    for r in _rows(conn, target, _BESIDE[feature]) if feature in _BESIDE else []:
        said_status = STATUS_ES.get(r["status"], r["status"]) if es else r["status"]
        said_note = f"“{md(r['note'])}”" if es else md(r["note"] or "")
        lines.append(f"- **{md(r['feature'])}** ({r['product']} {r['version']}): {said_status} — {said_note} {src.cite(r)}")
    lines.append(f"- **{md(row['feature'])}** ({label}): {status} — {note} {src.cite(row)}")
    facts = [{"target": target, "feature": row["feature"], "status": row["status"], "note": row["note"],
              "backend_version": row["version"], "switches": switches, "source_url": row["source_url"]}]
    return Answer(q.text, "policy", "\n".join(lines) + src.markdown(), facts, src.items, language=lang)
