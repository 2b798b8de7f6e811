"""Which overload a call with its arguments written out reaches: "x.bernoulli_(0.5)" is
`aten::bernoulli_.float` (a number for `float p`), "x.bernoulli_(mask)" is `aten::bernoulli_.Tensor`.

The traced function map (data/functions) records one call of each function, with arguments it
guessed; a question that writes its own arguments may reach another overload of the same op. Only a
number or a bool written as the argument decides here, read against each overload's schema in the op
catalog (the same rule PyTorch's argument parser follows: a Python number binds a Scalar / float /
int parameter, not a Tensor one); a name (`p`, `mask`) could hold either, so it decides nothing.
"""

from __future__ import annotations

import re
import sqlite3

from kb import opnames
from kb.store import queries

_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:e-?\d+)?|-?\.\d+")
_NUMBER_TYPES = ("Scalar", "float", "int", "SymInt", "bool")


def _first_argument(args: str) -> tuple[str | None, str]:
    """(keyword or None, value) of the first argument written ("0.5", "shifts=1")."""
    first = args.split(",", 1)[0].strip()
    name, eq, value = first.partition("=")
    return (name.strip(), value.strip()) if eq else (None, first)


def _parameter(schema: str, keyword: str | None) -> str | None:
    """The type of the parameter the first argument binds (after `self`, a method's receiver)."""
    inside = schema.partition("(")[2].rpartition(") ->")[0]
    params = [p.strip() for p in inside.split(",") if p.strip() and p.strip() != "*"]
    params = [p for p in params if not p.startswith("Tensor(a!) self") and not p.endswith(" self")]
    for p in params:
        kind, _, name = p.partition(" ")
        name = name.partition("=")[0].strip()
        if keyword is None or name == keyword:
            return kind
    return None


def picked(conn: sqlite3.Connection, ops: list[str], args: str) -> tuple[str, list[str], str] | None:
    """(the overload the written argument reaches, the op's other overloads, the parameter it binds)
    when a number argument tells one overload from the others; None when it does not."""
    if not ops or not args.strip():
        return None
    keyword, value = _first_argument(args)
    if not (_NUMBER.fullmatch(value) or value in ("True", "False")):
        return None
    base = opnames.base_name(ops[0])
    overloads = []
    for op in queries.resolve_op(conn, base):
        entry = queries.op_catalog_entry(conn, op)
        if entry and entry.get("schema") and "out" not in (entry.get("tags") or []):
            overloads.append((op, entry["schema"]))
    if len(overloads) < 2:
        return None
    fits = []
    for op, schema in overloads:
        kind = _parameter(schema, keyword)
        if kind and kind.rstrip("?").split("[")[0] in _NUMBER_TYPES:
            fits.append((op, kind))
    if len(fits) != 1:
        return None
    chosen, kind = fits[0]
    return chosen, [op for op, _ in overloads if op != chosen], kind.rstrip("?")
