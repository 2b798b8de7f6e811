""""Does TorchAO Neuron work on our Trn2?": whether a Neuron package's newest release is for the instance family asked,
from the families its release row lists or, where it lists none, the "Trainium3 instances only" its notes state
(r31 q47). Only packages whose release notes say so are answered; anything else is left to the other readings."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat.reply import Answer, Sources
from kb.store import releases

# package words → the registry's product
_PACKAGES = {"torchao-neuron": re.compile(r"\btorch[-_ ]?ao(?:[-_ ]neuron)?\b", re.I),
             "torchtitan-neuron": re.compile(r"\btorch[-_ ]?titan(?:[-_ ]neuron)?\b", re.I)}
_FAMILY = re.compile(r"\b(trn[123]|inf[12]|trainium ?[123])\b", re.I)
_ONLY = re.compile(r"\b(?:trainium|trn) ?([123]) instances only\b|\b(?:trainium|trn) ?([123]) only\b", re.I)


def _families(row: dict[str, Any]) -> list[str]:
    """The instance families a release is for: its listed ones, else the "TrainiumN … only" of its notes."""
    listed = [f.strip().lower() for f in re.split(r"[;,]", row.get("instance_families") or "") if f.strip()]
    if listed:
        return listed
    only = _ONLY.search(row.get("note") or "")
    return [f"trn{only.group(1) or only.group(2)}"] if only else []


def instances_only(row: dict[str, Any]) -> str | None:
    """The "Trainium3 instances only" a release's notes state when its row lists no instance family, else None."""
    only = None if row.get("instance_families") else _ONLY.search(row.get("note") or "")
    return only.group() if only else None


def package_named(text: str) -> str | None:
    """The words a question names a package of _PACKAGES by ("TorchAO Neuron"), or None."""
    m = next((m for pattern in _PACKAGES.values() if (m := pattern.search(text))), None)
    return m.group() if m else None


def names_family(text: str) -> bool:
    return _FAMILY.search(text) is not None


def package_on_instance(conn: sqlite3.Connection, text: str, lang: str) -> Answer | None:
    """The yes/no of a package on an instance family, or None when the question names no such pair."""
    product = next((p for p, pattern in _PACKAGES.items() if pattern.search(text)), None)
    asked = [re.sub(r"trainium ?", "trn", m.group(1).lower()) for m in _FAMILY.finditer(text)]
    if product is None or not asked:
        return None
    row = releases.latest(conn, product)
    families = _families(row) if row else []
    if not families:
        return None
    es = lang == "es"
    src = Sources()
    cite = src.cite(row)
    fits = [f for f in dict.fromkeys(asked) if f in families]
    left = [f for f in dict.fromkeys(asked) if f not in families]
    names = ", ".join(f.capitalize() for f in families)
    if left and not fits:
        head = (f"**No** — {product} {row['version']} es solo para {names}, no para {', '.join(f.capitalize() for f in left)} "
                f"(según sus notas) {cite}." if es else
                f"**No** — {product} {row['version']} is for {names} only, not {', '.join(f.capitalize() for f in left)} "
                f"(its release notes) {cite}.")
    else:
        head = (f"**Sí** — {product} {row['version']} es para {names} {cite}." if es else
                f"**Yes** — {product} {row['version']} is for {names} {cite}.")
    lines = [head, "", f"- {row['product']} {row['version']}: “{row.get('note') or ''}” {cite}"]
    facts = [{"product": product, "version": row["version"], "instance_families": families,
              "asked": asked, "fits": bool(fits) and not left}]
    return Answer(text, "release", "\n".join(lines) + src.markdown(), facts, src.items, language=lang)
