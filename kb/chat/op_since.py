"""Since when a target supports an op: "since when does tpu support torch.roll?",
"¿desde cuándo es nativo aten::nonzero en neuron?", or "is torch.roll native on tpu? since when?".

The answer is the oldest release of that target the KB holds a verdict for in which the op runs on
the device (native, or decomposed with every leaf on the device), with that verdict's basis and
source. kb knows only the releases it holds: when the oldest one it holds already runs the op, the
answer says "at least since", since an older release may have run it too, and it lists what the
versions before the first one said (29s). Without a "since when" these questions are end-of-support
questions ("when does … support end"), which is why this reading is checked first.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat.intents import Question, TargetMention
from kb.chat.oplookup import find_ops
from kb.chat.reply import Answer, Sources
from kb.store import queries, verdict

# "since when", "since which/what version", "from which release", "desde cuándo", "desde qué versión"; the
# Spanish glossary leaves "desde when", so both are read.
_SINCE = re.compile(r"\b(?:since|from|desde) (?:when|cu[aá]ndo|(?:which|what|qu[eé]|cu[aá]l) "
                    r"(?:version|release|versi[oó]n)s?)\b", re.I)


_REFERENCE = ("cpu", "meta")  # reference targets: every op runs there, so "since when" is no question about them


# "since which version was X removed?": a change in the op's history, answered by kb.chat.op_history (29r)
_CHANGED = re.compile(r"\b(?:was|were|got|been|is)\s+(?:removed|dropped|added|introduced|lost)\b|\bremoved\b", re.I)


def asks_since(text: str) -> bool:
    """Whether the question asks since when (or since which version) an op runs, not when it changed."""
    return _SINCE.search(text or "") is not None and _CHANGED.search(text or "") is None


def _on_device(row: dict[str, Any]) -> bool:
    return row["status"] == "native" or (row["status"] == "decomposed" and verdict.leaves_traced(row)
                                         and verdict.effective_status(row) in ("native", "decomposed"))


# What "since when" asks about: a status the question names ("since when does X fall back?"), else running on
# the device. (predicate, what it is said as, what its absence is said as) per language.
_ASKED = {
    "fallback": (lambda r: verdict.effective_status(r) == "fallback",
                 {"en": ("falls back to the CPU", "does not fall back"), "es": ("recurre a la CPU", "no recurre a la CPU")}),
    "unsupported": (lambda r: verdict.effective_status(r) in ("unsupported", "crash", "timeout"),
                    {"en": ("is unsupported", "is not unsupported"), "es": ("no está soportado", "sí está soportado")}),
    "native": (lambda r: r["status"] == "native",
               {"en": ("has its own kernel", "has no kernel of its own"), "es": ("tiene kernel propio", "no tiene kernel propio")}),
}
_RUNS = (lambda r: _on_device(r), {"en": ("runs on the device", "does not run on the device"),
                                   "es": ("se ejecuta en el dispositivo", "no se ejecuta en el dispositivo")})


def _asked(q: Question):
    """The predicate and words for what the question asks since when."""
    return next((_ASKED[s] for s in q.statuses if s in _ASKED), _RUNS)


def _named(match) -> list[str]:
    """The op a match stands for: the one named, else the default overload, else its first."""
    exact = [o for o in match.ops if o in (match.asked, f"aten::{match.asked}")]
    default = [o for o in match.ops if "." not in o.partition("::")[2]]
    return (exact or default or match.ops)[:1]


_TEXT = {
    "en": {"since": "**Since {target} {version}**{dev} — `{op}` {what} there ({status}) {cite}; {before}.",
           "least": "**At least since {target} {version}**{dev} — `{op}` {what} there ({status}) {cite}; "
                    "that is the oldest {target} release the KB holds, so an older one may have done the same.",
           "never": "**Not in any {target} release the KB holds** — `{op}` {what_not} in {versions} "
                    "(newest: {status}) {cite}.",
           "none": "**Unknown** — the KB holds no {target} verdict for `{op}`; `{settle}` would settle it.",
           "before": "before it: {said}",
           "silent": "the {target} releases the KB holds before it (from {oldest}) have no verdict for it, "
                     "so they are unknown, not unsupported",
           "dev": " (a pre-release snapshot)",
           "basis": {"inferred": "inferred: a dispatcher replay of a kernel list",
                     "presumed": "presumed: carried from an older version"}},
    "es": {"since": "**Desde {target} {version}**{dev} — `{op}` {what} ahí ({status}) {cite}; {before}.",
           "least": "**Al menos desde {target} {version}**{dev} — `{op}` {what} ahí ({status}) {cite}; "
                    "es la versión de {target} más antigua que tiene el KB, así que una anterior pudo hacer lo mismo.",
           "never": "**En ninguna versión de {target} que tenga el KB** — `{op}` {what_not} en "
                    "{versions} (en la más reciente: {status}) {cite}.",
           "none": "**Desconocido** — el KB no tiene ningún veredicto de {target} para `{op}`; `{settle}` lo resolvería.",
           "before": "antes: {said}",
           "silent": "las versiones de {target} anteriores que tiene el KB (desde {oldest}) no tienen veredicto para "
                     "él, así que son desconocidas, no sin soporte",
           "dev": " (un snapshot previo al lanzamiento)",
           "basis": {"inferred": "inferido: reproducción del dispatcher sobre una lista de kernels",
                     "presumed": "presunto: heredado de una versión anterior"}},
}


def since_answer(conn: sqlite3.Connection, q: Question) -> Answer | None:
    """The first release of each target named (or each with a verdict) where the op runs on the
    device; None when the question names no op the KB knows."""
    from kb.chat.oplookup import pick_versions
    from kb.chat.status_words import status_word

    matches, _, _ = find_ops(conn, q)
    ops = [op for m in matches if m.how != "module-map" for op in _named(m)]
    if not ops:
        return None
    lang = "es" if q.language == "es" else "en"
    say = _TEXT[lang]
    mode = "compile" if re.search(r"\bcompil", q.text, re.I) else "eager"
    src = Sources()
    lines: list[str] = []
    facts: list[dict[str, Any]] = []
    key = queries.version_key
    wanted, words = _asked(q)
    what, what_not = words[lang]
    for op in ops[:3]:
        rows = queries.op_verdicts(conn, [op], mode=mode)
        targets = q.target_names() or list(dict.fromkeys(r["target"] for r in rows if r["target"] not in _REFERENCE))
        for target in targets:
            mine = queries.op_timeline(rows, target)
            if not mine:
                lines.append(say["none"].format(target=target, op=op, settle=verdict.settle(target)))
                facts.append({"op": op, "target": target, "mode": mode, "since": None, "status": "unknown"})
                continue
            first = next((r for r in mine if wanted(r)), None)
            if first is None:
                versions = ", ".join(dict.fromkeys(r["backend_version"] for r in mine))
                lines.append(say["never"].format(target=target, op=op, versions=versions, cite=src.cite(mine[-1]), what_not=what_not,
                                                 status=status_word(mine[-1]["status"], lang)))
                facts.append({"op": op, "target": target, "mode": mode, "since": None, "versions": versions})
                continue
            version = first["backend_version"]
            status = f"{status_word(first['status'], lang)}, {mode}"
            status += f"; {say['basis'][first['basis']]}" if first.get("basis") in say["basis"] else ""
            held = sorted(pick_versions(conn, TargetMention(target)).with_data, key=key)
            oldest = held[0] if held else mine[0]["backend_version"]
            earlier = [r for r in mine if key(r["backend_version"]) < key(version)]
            fill = {"target": target, "version": version, "op": op, "status": status, "cite": src.cite(first), "what": what,
                    "dev": say["dev"] if "dev" in version else ""}
            if earlier:
                said = "; ".join(f"{r['backend_version']} {status_word(r['status'], lang)} {src.cite(r)}"
                                 for r in earlier[-3:])
                line = say["since"].format(**fill, before=say["before"].format(said=said))
            elif key(oldest) < key(version):
                line = say["since"].format(**fill, before=say["silent"].format(target=target, oldest=oldest))
            else:
                line = say["least"].format(**fill)
            lines.append(line)
            facts.append({"op": op, "target": target, "mode": mode, "since": version, "status": first["status"],
                          "basis": first.get("basis") or "evidence", "oldest_held": oldest,
                          "at_least": key(oldest) >= key(version), "source_url": first.get("source_url")})
    return Answer(q.text, "op_since", "\n".join(lines) + src.markdown(), facts, src.items, lang)
