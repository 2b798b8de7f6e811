"""The versions an op or module question is answered at, beyond the one bound to its target.

"F.logsigmoid en TPU: ¿funciona con la 0.1.1? ¿y con la 0.2.0?", "is X native on tpu 0.2.0? pretty sure it was
on 0.1.1": a question that names one target and several of its releases asks about each (r10 q8, r11 q3);
and one that asks about an older release where the op does not run is told, in one line, what the newest
release does (r11 q1, r10 q2). Versions bound to another product ("torch 2.8", "python 3.11") are not the
target's.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat import mode_contrast
from kb.chat.intents import Question, TargetMention
from kb.chat.oplookup import pick_versions
from kb.store import queries, verdict

_OTHER_PRODUCTS = frozenset({"pytorch", "python", "ubuntu", "amazon-linux", "jax", "transformers", "xla", "libtpu",
                             "nxd", "inf1", "inf2", "trn1", "trn2", "trn3"})


def mentions(conn: sqlite3.Connection, q: Question) -> list[TargetMention]:
    """The question's target mentions, plus one per other release of its single target that it names."""
    if len(q.target_names()) != 1:
        return q.targets
    first = q.targets[0]
    said = {m.version for m in q.targets if m.version}
    other = {v for p, v in q.products if v and p in _OTHER_PRODUCTS}
    in_calls = " ".join(q.call_args.values())  # "y.bernoulli_(0.2)": an argument, not release 0.2
    extra = []
    for version in q.versions:
        if "." not in version or version in said or version in other or version in extra \
                or re.search(rf"(?<![\w.]){re.escape(version)}(?![\w.])", in_calls):
            continue
        if pick_versions(conn, TargetMention(first.target, version)).versions:
            extra.append(version)
    if not extra and not said and _ANY_RELEASE.search(q.text):
        # "is there any torch_tpu version where aten::cholesky runs?": every release with verdicts (r31 q60)
        pick = pick_versions(conn, TargetMention(first.target))
        extra = sorted((v for v in pick.with_data if "dev" not in v), key=queries.version_key)
        return [TargetMention(first.target, v, word=first.word) for v in extra] or q.targets
    if not extra:
        return q.targets
    ordered = [v for v in q.versions if v in said or v in extra]
    known = {m.version: m for m in q.targets if m.version}
    return [known.get(v) or TargetMention(first.target, v, word=first.word) for v in ordered]


_ANY_RELEASE = re.compile(r"\b(?:any|every|each|all)\s+(?:[\w-]+\s+)?(?:versions?|releases?)\b"
                          r"|\b(?:alguna|cualquier|todas las|cada)\s+(?:versi[oó]n|versiones|release)\b", re.I)


def on_device(row: dict[str, Any]) -> bool:
    return verdict.effective_status(row) in ("native", "decomposed") and verdict.leaves_traced(row)


def newest(conn: sqlite3.Connection, op: str, target: str, mode: str) -> list[dict[str, Any]]:
    """The op's verdicts at the newest release of `target` that has one."""
    rows = [r for r in queries.op_verdicts(conn, [op], mode=mode) if r["target"] == target]
    if not rows:
        return []
    top = max((r["backend_version"] for r in rows), key=queries.version_key)
    return [r for r in rows if r["backend_version"] == top]


def change_line(rows: list[dict[str, Any]], es: bool = False) -> str | None:
    """Two releases of one target asked, and the op's verdict differs between them: "_On tpu,
    `aten::x`: 0.1.1 native (its own kernel) → 0.2.0 unsupported (raises)._" (newest last). None otherwise."""
    by_op: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        if r is not None:
            by_op.setdefault((r["op"], r["target"]), []).append(r)
    said = []
    for (op, target), mine in by_op.items():
        mine = sorted({r["backend_version"]: r for r in mine}.values(), key=lambda r: queries.version_key(r["backend_version"]))
        if len(mine) < 2 or len({mode_contrast.where_words(r) for r in mine}) < 2:
            continue
        steps = " → ".join(f"{r['backend_version']} {mode_contrast.where_words(r, es)}" for r in mine)
        said.append(f"`{op}` {'en' if es else 'on'} {target}: {steps}")
    if not said:
        return None
    return ("_Cambia entre versiones: " if es else "_Changed between releases: ") + "; ".join(said[:3]) + "._"


def newer_line(older: dict[str, Any], newer: dict[str, Any], cite: str, es: bool = False) -> str:
    """"_Newer: on tpu 0.2.0 `aten::x` is native (its own kernel) [2] (0.1.1: unsupported (raises))._\""""
    if queries.version_key(newer["backend_version"]) < queries.version_key(older["backend_version"]):
        # the pair the other way round: the asked release lost a kernel the one before it had (r13 q2)
        before, now = newer, older
        if es:
            return (f"_Antes: en {before['target']} {before['backend_version']}, `{before['op']}`: "
                    f"{mode_contrast.where_words(before, True)} {cite} (perdido en {now['backend_version']})._")
        return (f"_Before: on {before['target']} {before['backend_version']}, `{before['op']}` "
                f"{mode_contrast.where_words(before)} {cite} (lost in {now['backend_version']})._")
    if es:
        return (f"_Más nuevo: en {newer['target']} {newer['backend_version']}, `{newer['op']}`: "
                f"{mode_contrast.where_words(newer, True)} {cite} ({older['backend_version']}: "
                f"{mode_contrast.where_words(older, True)})._")
    return (f"_Newer: on {newer['target']} {newer['backend_version']}, `{newer['op']}` "
            f"{mode_contrast.where_words(newer)} {cite} ({older['backend_version']}: {mode_contrast.where_words(older)})._")
