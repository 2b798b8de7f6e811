"""The other reading of a list question's name word, said in one line (s8, issue #29).

"which sort ops are unsupported?" can mean the ops whose name contains `sort` (sort, argsort, msort,
searchsorted) or the whole sorting family (topk, kthvalue, unique too); "the rnn ops tpu can't run" can
mean the rnn family (LSTM and GRU included) or the ops named `…rnn…`. A list answers one reading and
names the other with its size and the way to ask for it, so the asker who meant the other one is one
question away from it, and a reviewer sees which ops each reading holds.
"""

from __future__ import annotations

import sqlite3

from kb.store import families, verdict

SHOWN = 8  # names a one-line reading lists before it gives only the command


def family_line(conn: sqlite3.Connection, word: str, names: set[str], es: bool) -> str | None:
    """Under a list filtered by op name: the family the same word names, when it holds other ops."""
    fam = families.family(word)
    if fam is None:
        return None
    members = families.family_ops(conn, fam.name)
    if not members or set(members) <= names:
        return None
    if es:
        return (f"_Leído como los ops cuyo nombre contiene '{word}'; la otra lectura es la familia **{fam.name}** entera "
                f"({len(members)} sobrecargas en el catálogo, con otras que no llevan '{word}' en el nombre): pregunta por "
                f"«la familia {fam.name}» para esa lista._")
    return (f"_Read as the ops whose name contains '{word}'; the other reading is the whole **{fam.name}** family "
            f"({len(members)} overloads in the catalog, some without '{word}' in their name): ask for "
            f"\"the {fam.name} family\" for that list._")


def grep_line(verdicts: dict[str, dict], word: str, rows: list[dict], target: str, version: str, status: str,
              mode: str, es: bool) -> str | None:
    """Under a family's list: how many ops of `status` have the word itself in their name (the family's
    or not: what `kb ops --grep` lists, from the same `verdicts`), when that is fewer (the other reading)."""
    if not any(word in r["op"].partition("::")[2] for r in rows):
        return None
    named = [op for op, v in sorted(verdicts.items()) if word in op.partition("::")[2]
             and status in (v["status"], verdict.effective_status(v))]
    if len(named) == len(rows) and set(named) == {r["op"] for r in rows}:
        return None
    shown = ", ".join(f"`{n}`" for n in named[:SHOWN]) + (" …" if len(named) > SHOWN else "")
    command = (f"`kb ops --target {target}={version} --status {status}{' --mode compile' if mode == 'compile' else ''}"
               f" --grep {word}`")
    if es:
        return (f"_La otra lectura, los ops cuyo nombre contiene '{word}': {len(named)} de ellos ({shown}; {command})._")
    return f"_The other reading, the ops whose name contains '{word}': {len(named)} of them ({shown}; {command})._"


def grep_word(conn: sqlite3.Connection, fam: families.Family, ops: list[str], asked: str | None) -> str | None:
    """A `--grep` word every op of a family holds ("pool" for pooling), so the family's "N more"
    command lists the same ops; None when no single word does."""
    words = [w for w in ((asked,) if asked else ()) + fam.words + (fam.name,) if w and " " not in w]
    for word in sorted(dict.fromkeys(words), key=len):
        if ops and all(word in op.partition("::")[2] for op in ops):
            return word
    return None
