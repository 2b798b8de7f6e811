"""One op, one page: what `kb op NAME` prints and the web's op page shows, built once here.

For every overload the name stands for: its catalog facts, then every target (always all
of them: an unknown row says how to find out, kb.store.verdict.settle), each version ×
mode with its effective status and basis, restrictions and notes, the "runs via"
breakdown of a decomposed op with each sub-op's status at that version, and related
kernels (SDPA's fused/overrideable variants, `.out` and in-place forms) with their status.

Any spelling is taken: `aten::x.y`, `torch.ops.aten.x.y`, `x`, and torch function names
(`torch.nonzero`, `F.scaled_dot_product_attention`, `Tensor.view`): a function whose name is
an ATen op is that op; otherwise the shipped traced map (data/functions) names its ops.
"""

from __future__ import annotations

import json
import os
import sqlite3
from functools import lru_cache

from kb import opnames, paths
from kb.errors import KBError, UnknownOpError
from kb.store import queries, verdict
from kb.vocab import UNKNOWN

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: this module is on `kb op`'s start path
if TYPE_CHECKING:
    from typing import Any

_FUNCTION_PREFIXES = ("torch.nn.functional.", "nn.functional.", "F.", "torch.Tensor.", "Tensor.", "torch.")
# Kernels a dispatcher may pick instead of an op, not found by name alone.
EXTRA_RELATED = {"scaled_dot_product_attention": ("_fused_sdp_choice",)}
MAX_RELATED = 40


# Spellings that are ATen names already (kb.opnames): never read as torch functions.
_ATEN_PREFIXES = ("torch.ops.aten.", "torch.ops.aten::", "ops.aten.", "aten::", "aten.")


def resolve_any(conn: sqlite3.Connection, text: str) -> tuple[list[str], str]:
    """(canonical overloads, how they were found) for any spelling; UnknownOpError if none."""
    text = (text or "").strip()
    if not text:
        raise KBError("empty op name: try aten::nonzero, torch.nonzero or F.scaled_dot_product_attention")
    if text.startswith(_ATEN_PREFIXES):  # torch.ops.aten.silu.default is an ATen name, not a torch function
        return queries.resolve_op(conn, text), "name"
    function = next((text[len(p):] for p in _FUNCTION_PREFIXES if text.startswith(p)), None)
    if function is None:
        return queries.resolve_op(conn, text), "name"
    name = function.split("(")[0].strip()
    try:
        ops = queries.resolve_op(conn, name)
        named = ops[0] if len(ops) == 1 else f"aten::{opnames.base_name(ops[0])} ({len(ops)} overloads)"
        return ops, f"{text} names the ATen op {named}"
    except (UnknownOpError, KBError):
        pass
    key = ("torch.nn.functional." + name) if text.startswith(("F.", "nn.functional.", "torch.nn.functional.")) \
        else ("torch.Tensor." + name) if text.startswith(("Tensor.", "torch.Tensor.")) else "torch." + name
    ops, where = _function_map()
    if ops.get(key):
        return sorted(ops[key]), f"{key} dispatches to these ATen ops (traced: {where})"
    raise UnknownOpError(text, queries.suggest(queries.known_op_names(conn), name.split(".")[0]))


def _function_map() -> tuple[dict[str, list[str]], str | None]:
    folder = os.path.join(paths.data_dir(), "functions")
    if not os.path.isdir(folder):
        folder = os.path.join(paths.PACKAGE_ROOT, "data", "functions")
    if not os.path.isdir(folder):
        return {}, None
    files = sorted((f for f in os.listdir(folder) if f.startswith("torch-") and f.endswith(".json")),
                   key=lambda f: queries.version_key(f[len("torch-"):-len(".json")]))
    if not files:
        return {}, None
    return _read_map(os.path.join(folder, files[-1])), files[-1]


@lru_cache(maxsize=4)
def _read_map(path: str) -> dict[str, list[str]]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh).get("functions", {})


def related_ops(known: set[str], op: str) -> list[str]:
    """Kernels next to `op`: its other overloads (`.out`), the in-place form (`x_`), the
    native_/underscore kernels it is built on, and for a long name the variants sharing
    its stem (`_scaled_dot_product_fused_attention_overrideable` for SDPA)."""
    base = opnames.base_name(op)
    plain = base.rstrip("_")
    close = {plain, plain + "_", "_" + plain, "native_" + plain, plain + "_backward", "_" + plain + "_backward",
             *EXTRA_RELATED.get(plain, ())}
    stem = plain.rsplit("_", 1)[0] if plain.count("_") >= 2 else ""
    found = []
    for name in known:
        try:
            other = opnames.base_name(name)
        except opnames.OpNameError:
            continue
        if name == op:
            continue
        if other in close or (len(stem) >= 12 and other.lstrip("_").startswith(stem)):
            found.append(name)
    return sorted(found, key=lambda n: (opnames.base_name(n) != base, n))[:MAX_RELATED]


def related_ops_indexed(conn: sqlite3.Connection, op: str) -> list[str]:
    """`related_ops` over the KB's known names, found through the indexes (the op table's
    base names, the observations' op names by range, for the names only sources give)
    instead of parsing every name of the catalog and every observation on each page."""
    base = opnames.base_name(op)
    plain = base.rstrip("_")
    close = sorted({plain, plain + "_", "_" + plain, "native_" + plain, plain + "_backward",
                    "_" + plain + "_backward", *EXTRA_RELATED.get(plain, ())})
    stem = plain.rsplit("_", 1)[0] if plain.count("_") >= 2 else ""
    names = queries.ops_with_bases(conn, close)
    if len(stem) >= 12:
        for lead in range(6):  # base.lstrip("_") starts with the stem: a few leading underscores at most
            names.update(queries.ops_with_prefix(conn, "_" * lead + stem))
    return related_ops(names, op)


def _newest(rows: list[dict[str, Any]], target: str) -> dict[str, Any] | None:
    eager = [r for r in rows if r["target"] == target and r["mode"] == "eager"] or \
        [r for r in rows if r["target"] == target]
    return max(eager, key=lambda r: queries.version_key(r["backend_version"])) if eager else None


def _row(v: dict[str, Any]) -> dict[str, Any]:
    return {"target": v["target"], "version": v["backend_version"], "mode": v["mode"], "status": v["status"],
            "effective_status": verdict.effective_status(v), "runs": verdict.runs(v), "label": verdict.label(v),
            "basis": v.get("basis") or "evidence", "dtypes": v.get("dtypes"), "conditions": v.get("conditions"),
            "note": v.get("note"), "source": verdict.source_text(v), "source_url": v.get("source_url"),
            "probe_run_id": v.get("probe_run_id"), "disagreement": v.get("disagreement", False),
            "channel": v.get("channel"), "local_report": v.get("report")}


def _via(conn: sqlite3.Connection, v: dict[str, Any]) -> list[dict[str, Any]]:
    """Each sub-op a decomposed op runs via, with its status at the same target/version/mode."""
    leaves = (v.get("effective_via") or {}).get("leaves") or {}
    if not leaves:
        return []
    found = {r["op"]: r for r in queries.op_verdicts(conn, sorted(leaves), v["target"], v["mode"])
             if r["backend_version"] == v["backend_version"]}
    out = []
    for leaf, status in sorted(leaves.items(), key=lambda kv: (-_rank(kv[1]), kv[0])):
        row = found.get(leaf)
        out.append({"op": leaf, "status": status,
                    "effective_status": verdict.effective_status(row) if row else status,
                    "basis": (row.get("basis") if row else None) or "evidence"})
    return out


def _rank(status: str) -> int:
    from kb.vocab import SEVERITY

    return SEVERITY.get(status, 3)


def _wanted(v: dict[str, Any], versions: dict[str, Any] | None) -> bool:
    """A verdict at a version asked for (one version, or the list a spelling such as an SDK
    release stands for, kb.store.targetspec); every version when none was asked."""
    asked = (versions or {}).get(v["target"])
    if asked is None:
        return True
    return v["backend_version"] in ([asked] if isinstance(asked, str) else asked)


def _asked_list(versions: dict[str, Any] | None, target: str) -> list[str] | None:
    asked = (versions or {}).get(target)
    return list(asked) if isinstance(asked, (list, tuple)) and len(asked) > 1 else None


def op_page(conn: sqlite3.Connection, name: str, targets: list[str] | None = None,
            versions: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything `kb op` and the web's op page show for NAME (see the module docstring)."""
    for t in targets or ():
        queries.check_target(conn, t)
    ops, how = resolve_any(conn, name)
    listed = list(targets or queries.target_names(conn))
    pages = []
    for op in ops:
        rows = [v for v in queries.op_verdicts(conn, [op]) if v["target"] in listed and _wanted(v, versions)]
        per_target = []
        for target in listed:
            mine = [v for v in rows if v["target"] == target]
            newest = _newest(mine, target)
            per_target.append({
                "target": target,
                "status": verdict.effective_status(newest) if newest else UNKNOWN,
                "label": verdict.label(newest),
                "newest": newest["backend_version"] if newest else None,
                # a spelling that names an SDK release (neuron=2.33) asks for each of its
                # packages: the table shows every one, not only the newest
                "asked_versions": _asked_list(versions, target),
                "rows": [_row(v) for v in mine],
                "via": _via(conn, newest) if newest else [],
                "settle": None if mine else verdict.settle(target),
            })
        related = []
        names = related_ops_indexed(conn, op)
        by_op: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
        for v in (queries.op_verdicts(conn, names, newest=True) if names else ()):  # one query for every related kernel
            by_op[v["op"]].append(v)
        for other in names:
            cells = {}
            for target in listed:
                found = _newest(by_op[other], target)
                cells[target] = {"status": verdict.effective_status(found), "label": verdict.label(found)}
            related.append({"op": other, "targets": cells})
        pages.append({"op": op, "catalog": queries.op_catalog_entry(conn, op), "targets": per_target,
                      "verdicts": rows,
                      "unknown_targets": [{"target": t["target"], "status": UNKNOWN, "settle": t["settle"]}
                                          for t in per_target if t["settle"]],
                      "related": related,
                      "caveats": [c for c in queries.caveats(conn, ops=[op]) if c["target"] in listed]})
    shown = sorted({(r["target"], r["version"]) for p in pages for t in p["targets"] for r in t["rows"]})
    return {"query": name, "how": how, "targets": listed, "ops": pages,
            "basis_notes": queries.basis_notes_each(conn, shown), "notices": queries.basis_notices(conn, shown)}
