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


_NAME = re.compile(r"[A-Za-z_][\w.]*")


def _required(schema: str) -> list[str]:
    """The types of a schema's positional parameters that have no default (before any `*`)."""
    inside = schema.partition("(")[2].rpartition(") ->")[0]
    out = []
    for p in (p.strip() for p in inside.split(",")):
        if p == "*":
            break
        if p and "=" not in p:
            out.append(p.partition(" ")[0])
    return out


def by_arity(conn: sqlite3.Connection, base: str, args: str, method: bool = False
             ) -> tuple[str, list[str]] | None:
    """(the overload, the op's other overloads) that a call of names only reaches by their count:
    `torch.where(mask, x, y)` is `aten::where.self` (three Tensors), `torch.min(a, b)` is `aten::min.other`,
    `torch.repeat_interleave(kv, reps)` is `aten::repeat_interleave.self_Tensor` (r14 q2 q55 q60). A name is
    read as a Tensor, so only the one overload whose required parameters are all Tensors, as many as the names,
    is picked; keywords, numbers or two such overloads decide nothing (None)."""
    written = [a.strip() for a in args.split(",") if a.strip()]
    if not written or any(not _NAME.fullmatch(a) for a in written):
        return None
    count = len(written) + (1 if method else 0)
    overloads, fits = [], []
    for op in queries.resolve_op(conn, base):
        entry = queries.op_catalog_entry(conn, op)
        if not entry or not entry.get("schema") or "out" in (entry.get("tags") or []) or op.endswith("_out"):
            continue
        overloads.append(op)
        kinds = _required(entry["schema"])
        if len(kinds) == count and all(k.rstrip("?") == "Tensor" for k in kinds):
            fits.append(op)
    if len(fits) != 1 or len(overloads) < 2:
        return None
    return fits[0], [op for op in overloads if op != fits[0]]
