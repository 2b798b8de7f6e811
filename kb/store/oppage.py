"""One op, one page: what `kb op NAME` prints and the web's op page shows, built once here.

For every overload the name stands for: its catalog facts, then every target (always all
of them: an unknown row says how to find out, kb.store.verdict.settle), each version ×
mode with its effective status and basis, restrictions and notes, the "runs via"
breakdown of a decomposed op with each sub-op's status at that version, and related
kernels (SDPA's fused/overrideable variants, `.out` and in-place forms) with their status.

Any spelling is taken: `aten::x.y`, `torch.ops.aten.x.y`, `x`, and torch function names
(`torch.nonzero`, `F.scaled_dot_product_attention`, `Tensor.view`): a function whose name is
an ATen op is that op; otherwise the shipped traced map (data/functions) names its ops.
A torch.nn module (`nn.Linear`, `torch.nn.LSTM`, `MultiheadAttention`) is its forward's ATen
ops (data/modules, kb.store.torchnames): the page then opens with the module, how it was
traced and one line per target ("tpu 0.2.0: 3 of 3 ops native"), and lists each op's
verdicts (related kernels are left out: a layer's ops are many).
"""

from __future__ import annotations

import sqlite3

from kb import opnames
from kb.errors import KBError, UnknownOpError
from kb.store import gallery, queries, torchnames, verdict
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
    ops, where = torchnames.function_map()
    if ops.get(key):
        return sorted(ops[key]), f"{key} dispatches to these ATen ops (traced: {where})"
    raise UnknownOpError(text, queries.suggest(queries.known_op_names(conn), name.split(".")[0]))


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
    module = module_named(conn, name)
    ops, how = (list(dict.fromkeys(module.ops)), module.traced_as()) if module else resolve_any(conn, name)
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
        names = [] if module else related_ops_indexed(conn, op)
        by_op: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
        for v in (queries.op_verdicts(conn, names, newest=True) if names else ()):  # one query for every related kernel
            by_op[v["op"]].append(v)
        for other in names:
            cells = {}
            for target in listed:
                found = _newest(by_op[other], target)
                cells[target] = {"status": verdict.effective_status(found), "label": verdict.label(found),
                                  "mark": verdict.mark(found)}
            related.append({"op": other, "targets": cells})
        pages.append({"op": op, "catalog": queries.op_catalog_entry(conn, op), "targets": per_target,
                      "verdicts": rows, "gallery": gallery.used_by(conn, op),
                      "unknown_targets": [{"target": t["target"], "status": UNKNOWN, "settle": t["settle"]}
                                          for t in per_target if t["settle"]],
                      "related": related,
                      "caveats": [c for c in queries.caveats(conn, ops=[op]) if c["target"] in listed]})
    shown = sorted({(r["target"], r["version"]) for p in pages for t in p["targets"] for r in t["rows"]})
    page = {"query": name, "how": how, "targets": listed, "ops": pages,
            "basis_notes": queries.basis_notes_each(conn, shown), "notices": queries.basis_notices(conn, shown)}
    if module:
        page["module"] = module_summary(conn, module, listed, versions)
    return page


def module_named(conn: sqlite3.Connection, name: str) -> torchnames.TorchName | None:
    """The torch.nn module NAME spells, if any. An ATen spelling never is one, and a bare
    name is a module only when no op has it (`Linear` is, `relu` stays the op)."""
    text = (name or "").strip()
    if not text or text.startswith(_ATEN_PREFIXES):
        return None
    found = torchnames.resolve_module(text)
    container = torchnames.container_of(text) if found is None else None
    if container:
        raise KBError(f"torch.nn.{container} holds other modules (or is their base class) and has no forward of its "
                      "own: ask about the layers inside it, e.g. nn.Linear or nn.Conv2d")
    if found is None and torchnames.looks_like_module(text):
        raise UnknownOpError(text, torchnames.close_modules(text))
    if found is None or "." in text.split("(")[0]:
        return found
    try:
        queries.resolve_op(conn, text)
        return None
    except KBError:
        return found


def module_summary(conn: sqlite3.Connection, module: torchnames.TorchName, targets: list[str],
                   versions: dict[str, Any] | None = None) -> dict[str, Any]:
    """The module's facts (how it was traced, its op lists) and, per target, one tally of its
    forward ops and one of its training step's ops at the target's newest version with data."""
    forward = list(dict.fromkeys(module.ops))
    training = module.training_ops()
    wanted = sorted(set(forward) | set(training))
    rows = [v for v in (queries.op_verdicts(conn, wanted) if wanted else []) if v["target"] in targets
            and _wanted(v, versions)]
    entry = module.entry
    return {"kind": "module", "name": module.canonical, "asked": module.asked, "map": module.map_file,
            "torch_version": module.torch_version, "constructor": entry.get("constructor"),
            "inputs": entry.get("inputs", []), "device": entry.get("device"), "mode": "eval",
            "forward": forward, "train_forward": entry.get("train_forward"), "backward": entry.get("backward"),
            "training_ops": training, "traced_as": module.traced_as(),
            "summary": [tally(rows, t, forward) for t in targets],
            "training_summary": [tally(rows, t, training, what="training-step ops") for t in targets]}


def tally(rows: list[dict[str, Any]], target: str, ops: list[str], what: str = "ops") -> dict[str, Any]:
    """How `ops` run on `target` at its newest version with data (eager mode): counts by
    effective status and one line, e.g. "tpu 0.2.0: 3 of 3 ops native"."""
    from kb.vocab import SEVERITY

    what = what.removesuffix("s") if len(ops) == 1 else what
    mine = [v for v in rows if v["target"] == target and v["op"] in ops]
    eager = [v for v in mine if v["mode"] == "eager"] or mine
    if not ops:
        return {"target": target, "version": None, "mode": "eager", "total": 0, "counts": {}, "ops": [],
                "line": f"{target}: nothing dispatched to run"}
    if not eager:
        return {"target": target, "version": None, "mode": "eager", "total": len(ops), "counts": {UNKNOWN: len(ops)},
                "ops": [{"op": op, "status": UNKNOWN, "basis": None} for op in ops],
                "line": f"{target}: no evidence for any of its {len(ops)} {what}", "settle": verdict.settle(target)}
    version = max((v["backend_version"] for v in eager), key=queries.version_key)
    mode = eager[0]["mode"]
    at = {v["op"]: v for v in eager if v["backend_version"] == version and v["mode"] == mode}
    listed = [{"op": op, "status": verdict.effective_status(at.get(op)),
               "on_device": bool(at.get(op)) and verdict.effective_status(at[op]) in ("native", "decomposed")
               and verdict.leaves_traced(at[op]),
               "basis": (at[op].get("basis") or "evidence") if op in at else None} for op in ops]
    counts: dict[str, int] = {}
    for item in listed:
        counts[item["status"]] = counts.get(item["status"], 0) + 1
    on_device = sum(1 for i in listed if i["on_device"])
    if counts.get("native", 0) == len(ops):
        line = f"{target} {version}: {len(ops)} of {len(ops)} {what} native"
    else:
        split = {s: sum(1 for i in listed if i["status"] == s and i["on_device"]) for s in ("native", "decomposed")}
        kinds = [f"{n} {s}" for s, n in split.items() if n]
        line = f"{target} {version}: {on_device} of {len(ops)} {what} run on the device" + \
            (f" ({', '.join(kinds)})" if kinds else "")
        untraced = [i["op"] for i in listed if i["status"] == "decomposed" and not i["on_device"]]
        if untraced:
            line += f", {len(untraced)} decomposed with leaves not traced ({_few(untraced)})"
        for status in sorted((s for s in counts if s not in ("native", "decomposed")),
                             key=lambda s: (-SEVERITY.get(s, 3), s)):
            line += f", {counts[status]} {status} ({_few([i['op'] for i in listed if i['status'] == status])})"
    return {"target": target, "version": version, "mode": mode, "total": len(ops), "counts": counts,
            "ops": listed, "line": line}


def _few(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" +{len(names) - 3} more" if len(names) > 3 else "")
