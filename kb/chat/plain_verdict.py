"""A one-line headline for an op question that asks about no status kb knows by name.

"tpu chokes on torch.roll?", "is aten::nonzero borked on tpu?", "¿se atraganta la tpu con torch.roll?":
the reader's verb is none of native / falls back / supported, so kb cannot say Yes or No without
guessing which way the verb points ("chokes" is bad, "handles" is good, and a new verb tomorrow is
neither). Instead the headline states the verdict itself, which answers whatever the verb meant:
"**`aten::roll` on tpu 0.2.0 (eager): falls back to the CPU** — …". Used by kb.chat.answer's op
answer only where no yes/no headline was made (29s).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kb.store import verdict

# Where the op runs, said plainly, by its effective status (a decomposed op runs where its worst leaf runs).
_SAID = {
    "en": {"native": "runs on the device, its own kernel", "fallback": "falls back to the CPU",
           "unsupported": "unsupported: it raises", "crash": "unsupported: it crashed the runtime",
           "timeout": "unsupported: it hung", "decomposed": "decomposed into other ops"},
    "es": {"native": "se ejecuta en el dispositivo, con kernel propio", "fallback": "recurre a la CPU",
           "unsupported": "no soportado: lanza un error", "crash": "no soportado: hizo caer el runtime",
           "timeout": "no soportado: se colgó", "decomposed": "descompuesto en otros ops"},
}
_WHY = {
    "en": {"fallback": "it works, with copies to the host and back",
           "leaves": "decomposed, and its leaves run on the device (no CPU fallback)",
           "untraced": "where its leaves run is not traced",
           "leaf": "decomposed, and a leaf falls back to the CPU"},
    "es": {"fallback": "funciona, con copias al host y de vuelta",
           "leaves": "descompuesto, y sus hojas se ejecutan en el dispositivo (sin recurrir a la CPU)",
           "untraced": "no está trazado dónde se ejecutan sus hojas",
           "leaf": "descompuesto, y una hoja recurre a la CPU"},
}
_ONLY = {"en": "only with", "es": "solo con"}
MAX_ROWS = 3  # more verdicts than this: the table below says them better than one line


def _restricted(rows: list[dict[str, Any]], lang: str) -> str:
    """"only with dtypes float32; instance_families: ['Trn3']": a verdict's restriction, so the
    headline never says more than the row (kb states partial support as a restriction)."""
    said = []
    for r in rows:
        if r.get("dtypes"):
            said.append("dtypes " + ", ".join(r["dtypes"]))
        said += [f"{k}: {v}" for k, v in (r.get("conditions") or {}).items()]
    said = list(dict.fromkeys(said))
    return f"{_ONLY[lang]} {'; '.join(said)}" if said else ""


def _said(row: dict[str, Any], lang: str) -> tuple[str, str]:
    """(what the verdict means, a few words on why) for one verdict row."""
    said, why = _SAID[lang], _WHY[lang]
    status, runs = row["status"], verdict.effective_status(row)
    if status != "decomposed":
        return said.get(status, status), why["fallback"] if status == "fallback" else ""
    if not verdict.leaves_traced(row):
        return said["decomposed"], why["untraced"]
    if runs == "fallback":
        return said["fallback"], why["leaf"]
    if runs in ("native", "decomposed"):
        return (said["native"].split(",")[0], why["leaves"])
    return said.get(runs, runs), ""


def headline(rows: list[dict[str, Any]], lang: str,
             qualify: Callable[[str, list[dict[str, Any]]], str | None] = lambda head, rows: head) -> str | None:
    """"**`aten::roll` on tpu 0.2.0 (eager): falls back to the CPU** — it works, …": the verdicts
    answered, said plainly; several rows that say the same are said once, each line through `qualify`
    (the basis a presumed or inferred verdict rests on). None for no row or too many."""
    lang = lang if lang in _SAID else "en"
    rows = [r for r in rows if r is not None]
    if not rows:
        return None
    by_meaning: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        by_meaning.setdefault(_said(r, lang), []).append(r)
    if len(by_meaning) > MAX_ROWS:
        return None
    on = " en " if lang == "es" else " on "
    parts = []
    for (said, why), mine in by_meaning.items():
        ops = ", ".join(f"`{op}`" for op in dict.fromkeys(r["op"] for r in mine))
        where = (" y " if lang == "es" else " and ").join(
            dict.fromkeys(f"{r['target']} {r['backend_version']} ({r['mode']})" for r in mine))
        limits = _restricted(mine, lang)
        parts.append(qualify(f"**{ops}{on}{where}: {said}**" + (f" ({limits})" if limits else "")
                             + (f" — {why}." if why else ""), mine) or "")
    return parts[0] if len(parts) == 1 else "\n".join(f"- {p}" for p in parts)
