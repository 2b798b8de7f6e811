"""Fix-its: rewrites that keep a model on the chip, as reviewable data
(data/fixits/fixits.json: pattern, condition, replacement, why, effect, source, parity).

Like caveats, a fix-it is knowledge, not code: a reviewer reads the JSON and its source.
`kb check --suggest` shows the ones whose pattern matches a call (op, dtypes, argument
values and index dtypes, read from the call itself), and says what would remain after
them: each matched call is resolved again as the ops it would become (`replacement_ops`),
against the same KB verdicts, without torch. A fix-it with a `mechanical` pass name is one
`kb fix` applies to an ExportedProgram (kb.check.fixpass); the others say what to change
in the model's code.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections import OrderedDict
from collections.abc import Callable

from kb.check.callsites import CallSite, TensorSpec
from kb.check.work import base_name, site_work
from kb.errors import KBError

MAX_FIXIT_BYTES = 1 << 20


class FixitDataError(KBError):
    """The fix-it library cannot be read (a damaged data file)."""


def fixits_path() -> str:
    from kb import paths

    found = os.path.join(paths.data_dir(), "fixits", "fixits.json")
    return found if os.path.isfile(found) else os.path.join(paths.shipped_data_dir(), "fixits", "fixits.json")


@functools.cache
def _load(path: str) -> tuple[dict, ...]:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FIXIT_BYTES + 1)
    except OSError:
        return ()
    if len(data) > MAX_FIXIT_BYTES:
        raise FixitDataError(f"{path}: over {MAX_FIXIT_BYTES} bytes")
    try:
        document = json.loads(data)
    except ValueError as exc:
        raise FixitDataError(f"{path}: not JSON ({exc})") from None
    entries = document.get("fixits") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise FixitDataError(f"{path}: expected {{\"fixits\": [...]}}")
    return tuple(e for e in entries if isinstance(e, dict) and isinstance(e.get("match"), dict))


def library(path: str | None = None) -> tuple[dict, ...]:
    """The shipped fix-its (or those at `path`)."""
    return _load(path or fixits_path())


def graph_fixits(path: str | None = None) -> list[dict]:
    return [f for f in library(path) if f.get("applies_to", "graph") == "graph"]


# --- matching --------------------------------------------------------------------------------


def _named(site: CallSite) -> dict:
    from kb.check.resolve import _named_arguments

    return _named_arguments(site)


def _op_matches(ops: list[str], op: str, family: bool) -> bool:
    if "*" in ops:
        return True
    if op in ops:
        return True
    base = base_name(op)
    return family and any(base_name(o) == base for o in ops)


def _all_ones(value) -> bool:
    values = value if isinstance(value, (list, tuple)) else [value]
    return bool(values) and all(v == 1 for v in values)


def _condition_holds(name: str, wanted, named: dict) -> bool:
    """`wanted` is a value, a list of allowed values (None: the argument left out or None),
    or "all ones" (an int list of ones: output_size=1)."""
    value = named.get(name)
    if wanted == "all ones":
        return value is not None and _all_ones(value)
    options = wanted if isinstance(wanted, list) else [wanted]
    if isinstance(value, tuple):
        value = list(value)
    return any(value == option for option in options)


def matches(fixit: dict, site: CallSite, target: str | None = None) -> bool:
    """Whether the fix-it's pattern and conditions hold for this call on this target."""
    if fixit.get("applies_to", "graph") != "graph":
        return False
    rule = fixit["match"]
    if rule.get("targets") and target is not None and target not in rule["targets"]:
        return False
    if not _op_matches(rule.get("ops") or [], site.op, bool(rule.get("family"))):
        return False
    if rule.get("dtypes"):
        used = {t.dtype for t in site.tensor_args() if t.dtype}
        if not used & set(rule["dtypes"]):
            return False
    named = _named(site) if rule.get("conditions") or rule.get("arg_dtypes") or rule.get("index_dtypes") else {}
    for name, wanted in (rule.get("conditions") or {}).items():
        if not _condition_holds(name, wanted, named):
            return False
    for name, dtypes in (rule.get("arg_dtypes") or {}).items():
        value = named.get(name)
        if not (isinstance(value, TensorSpec) and value.dtype in dtypes):
            return False
    if rule.get("index_dtypes") and base_name(site.op) == "index":
        indices = named.get("indices")
        if indices is None and len(site.args) > 1:
            indices = site.args[1]
        if not any(isinstance(t, TensorSpec) and t.dtype in rule["index_dtypes"]
                   for t in (indices if isinstance(indices, (list, tuple)) else [])):
            return False
    return True


def matches_source(fixit: dict, text: str) -> list[str]:
    """Source-level fix-its (`applies_to: source`, e.g. torch.cuda.* calls): the matches in `text`."""
    if fixit.get("applies_to") != "source":
        return []
    return [m.group(0) for m in re.finditer(fixit["match"]["pattern"], text[:1_000_000])]


# --- suggestions and what remains -------------------------------------------------------------


def suggest(sites: list[CallSite], target: str, fixits: list[dict] | None = None) -> tuple[list[dict], dict[int, dict]]:
    """(suggestions, {site index: the fix-it applied to it}). One suggestion per fix-it × op ×
    module, with its call count; a call takes the first fix-it that matches it."""
    fixits = graph_fixits() if fixits is None else fixits
    out: OrderedDict[tuple, dict] = OrderedDict()
    applied: dict[int, dict] = {}
    by_op: dict[str, list[dict]] = {}  # the fix-its whose op pattern names this op, in library order
    for site in sites:
        candidates = by_op.get(site.op)
        if candidates is None:
            candidates = by_op[site.op] = [f for f in fixits if _op_matches(f["match"].get("ops") or [], site.op,
                                                                              bool(f["match"].get("family")))]
        for fixit in candidates:
            if not matches(fixit, site, target):
                continue
            applied[site.index] = fixit
            module = site.module_path if site.module_path else ("(root)" if site.module_path == "" else None)
            key = (fixit["id"], site.op, module)
            entry = out.get(key)
            done = site_work(site)
            if entry is None:
                out[key] = {"id": fixit["id"], "op": site.op, "module": module, "rewrite": fixit["rewrite"],
                            "why": fixit.get("why"), "effect": fixit.get("effect"), "parity": fixit.get("parity"),
                            "mechanical": fixit.get("mechanical"), "approximate": bool(fixit.get("approximate")),
                            "source": fixit.get("source"), "calls": 1, "flops": done.flops, "bytes": done.nbytes}
            else:
                entry["calls"] += 1
                entry["flops"] += done.flops
                entry["bytes"] += done.nbytes
            break
    return list(out.values()), applied


def after_rewrites(sites: list[CallSite], statuses: dict[int, str], applied: dict[int, dict],
                   lookup: Callable[[str], object]) -> dict:
    """What remains once the suggested rewrites are made: each rewritten call takes the worst
    KB verdict of the ops it becomes (no replacement ops: the call disappears; unknown
    replacement: the call keeps its status). Counts fallback and problem calls before/after."""
    from kb.vocab import SEVERITY, UNKNOWN

    def verdict(op: str) -> str:
        found = lookup(op)
        if found is None:
            return UNKNOWN
        status = getattr(found, "effective_status", None) or getattr(found, "status", UNKNOWN)
        return status if status in SEVERITY else UNKNOWN

    after: dict[int, str] = dict(statuses)
    rewritten = 0
    for index, fixit in applied.items():
        replacement = fixit.get("replacement_ops")
        if replacement is None:
            continue
        rewritten += 1
        after[index] = max((verdict(op) for op in replacement), key=lambda s: SEVERITY[s]) if replacement else "native"

    def count(table: dict[int, str], wanted: tuple[str, ...]) -> int:
        return sum(1 for s in table.values() if s in wanted)

    def ops(table: dict[int, str], wanted: tuple[str, ...]) -> list[str]:
        return sorted({site.op for site in sites if table.get(site.index) in wanted})

    problems = ("fallback", "unsupported", "crash", "timeout", UNKNOWN)
    return {
        "rewrites": len({f["id"] for f in applied.values()}),
        "rewritten_calls": rewritten,
        "fallback_calls_before": count(statuses, ("fallback",)),
        "fallback_calls_after": count(after, ("fallback",)),
        "problem_ops_before": ops(statuses, problems),
        "problem_ops_after": ops(after, problems),
        "statuses_after": after,
    }
