"""Gallery answers from the KB: one model's `kb check` report from its shipped census, the
models × targets table, which models use an op, the gaps that block the most models, and
the Baseline line (how many gallery models run fully on the device).

Verdicts are the KB's at read time (kb.store.queries.support_map through kb.check's own
resolution and assessment): the census says what a model runs, the KB what a target runs.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter

import kb.check  # noqa: F401  (registers kb.check.assess on every report)
from kb.check import assess
from kb.check import resolve as kc
from kb.errors import KBError
from kb.gallery import census as gc
from kb.gallery import tablecache
from kb.store import gallery as store
from kb.store import queries

PROBLEMS = assess.PROBLEMS
DEFAULT_TARGETS = ("neuron", "tpu")
GRAPHS = gc.GRAPHS


class GalleryError(KBError):
    """An unknown gallery model or graph (an input error: exit 2)."""


def _json(value, default):
    try:
        return json.loads(value) if value else default
    except ValueError:
        return default


def models(conn: sqlite3.Connection) -> list[dict]:
    """Every gallery model, by slug, with its graphs' status (exported or the reason)."""
    if not store.has_tables(conn):
        return []
    out = []
    for row in conn.execute("SELECT * FROM gallery_model ORDER BY model"):
        item = dict(row)
        for key, default in (("built_with", {}), ("config", {}), ("inputs", []), ("graphs", {})):
            item[key] = _json(item[key], default)
        out.append(item)
    return out


def model_entry(conn: sqlite3.Connection, name: str) -> dict:
    """One model by slug or display name (case-insensitive); unknown → GalleryError naming the closest."""
    import difflib

    wanted = " ".join(name.strip().lower().split())
    found = models(conn)
    for item in found:
        if wanted in (item["model"], item["name"].lower(), _repo_name(item)):
            return item
    close = [m["model"] for m in found if wanted and (wanted in m["model"] or wanted in m["name"].lower()
                                                       or m["model"].startswith(wanted.replace(" ", "-")))]
    if len(close) == 1:  # a unique prefix or part of the name: "mixtral" is Mixtral 8x7B
        return next(m for m in found if m["model"] == close[0])
    if not close and wanted:  # a misspelling: the nearest slugs and names
        keys = {m["model"]: m["model"] for m in found} | {m["name"].lower(): m["model"] for m in found}
        close = list(dict.fromkeys(keys[k] for k in difflib.get_close_matches(wanted[:200], list(keys), n=3,
                                                                                  cutoff=0.6)))
    hint = f"; did you mean {', '.join(close[:5])}?" if close else "; kb gallery lists them"
    raise GalleryError(f"no gallery model {name[:80]!r}{hint}")


def _repo_name(item: dict) -> str:
    """The Hugging Face repo's own name ("Mixtral-8x7B-v0.1") from the config source URL."""
    import re

    match = re.match(r"https://huggingface\.co/[^/]+/([^/]+)", str(item.get("config_source") or ""))
    return match.group(1).lower() if match else ""


def census_rows(conn: sqlite3.Connection, model: str, graph: str = "inference") -> list[dict]:
    if not store.has_tables(conn):
        return []
    rows = conn.execute("SELECT * FROM gallery_op WHERE model = ? AND graph = ?", (model, graph))
    return [dict(r) for r in rows]


# (KB state digest, target, version chosen, mode) → (support rows, lookup): a chat answer about one
# model reads two or three of these (~0.1 s each), the same ones the previous answer read. Kept per
# KB state (kb.gallery.tablecache.kb_state), so any write to the KB shows at once; never for a
# connection whose state cannot be told (in memory, uncommitted writes).
_SUPPORT_MEMO: dict[tuple, tuple] = {}
_SUPPORT_MEMO_MAX = 16


def clear_support_memo() -> None:
    _SUPPORT_MEMO.clear()


tablecache.also_clear(clear_support_memo)


class Lookups:
    """The KB's verdicts per target × version × mode, read once for every model asked."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._maps: dict[tuple, tuple] = {}
        self.rows: dict[tuple, dict] = {}  # (target, version chosen, mode) → the support rows (for citing)
        self._state: str | None | bool = False  # False: not read yet

    def _digest(self) -> str | None:
        if self._state is False:
            import hashlib

            state = tablecache.kb_state(self.conn)
            self._state = None if state is None else hashlib.sha256(
                json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()
        return self._state

    def get(self, target: str, version: str | None, mode: str):
        key = (target, version, mode)
        if key not in self._maps:
            chosen = queries.pick_version(self.conn, target, version)
            digest = self._digest()
            kept = _SUPPORT_MEMO.get((digest, target, chosen, mode)) if digest else None
            if kept is None:
                rows = queries.support_map(self.conn, target, chosen, mode)
                kept = (rows, kc.lookup_from_rows(rows))
                if digest:
                    if len(_SUPPORT_MEMO) >= _SUPPORT_MEMO_MAX:
                        _SUPPORT_MEMO.clear()
                    _SUPPORT_MEMO[(digest, target, chosen, mode)] = kept
            self.rows[(target, chosen, mode)] = kept[0]
            self._maps[key] = (kept[1], chosen)
        return self._maps[key]


def report(conn: sqlite3.Connection, model: str, target: str, version: str | None = None, mode: str = "eager",
           graph: str = "inference", lookups: Lookups | None = None) -> kc.CheckReport:
    """The `kb check` report of a model's shipped census on one target (kb.check's code)."""
    entry = model_entry(conn, model)
    if graph not in GRAPHS:
        raise GalleryError(f"unknown graph {graph!r} (expected {' or '.join(GRAPHS)})")
    rows = census_rows(conn, entry["model"], graph)
    if not rows:
        why = (entry["graphs"].get(graph) or {}).get("reason") or f"no {graph} graph in the gallery"
        raise GalleryError(f"{entry['model']}: no {graph} census ({why})")
    lookup, chosen = (lookups or Lookups(conn)).get(target, version, mode)
    rows = device_rows(rows, target)
    traced = gc.rebuild(rows, f"gallery:{entry['model']}" + ("" if graph == "inference" else f" ({graph})"))
    rep = kc.check(traced, lookup, target=target, backend_version=chosen, mode=mode, warning_hooks=[])
    if basis(rep) == "none":  # "runs on the device except 31 unknown" would read as good news (t30 #9)
        rep.verdict = (f"{target}{' ' + chosen if chosen else ''}: no evidence for any of the model's "
                       f"{len(rep.ops)} ops (the KB has no verdicts here); not known whether it runs")
    return rep


DEVICE_OPS = store.DEVICE_OPS  # census op → the op a device calls instead (kb.store.gallery)


def device_rows(rows: list[dict], target: str) -> list[dict]:
    swap = DEVICE_OPS.get(target)
    if not swap:
        return rows
    return [dict(r, op=swap[r["op"]]) if r["op"] in swap else r for r in rows]


def runs_fully(rep: kc.CheckReport) -> bool:
    """Every op on the device, and (compile mode) a compile with no known blocker."""
    if any(op.status in PROBLEMS for op in rep.ops):
        return False
    if rep.mode == "compile":
        return assess.compile_outcome(rep, rep.compile)["state"] in ("clean", "recompiles")
    return True


COMPILE_STATES = (("fails at", "fails"), ("graph break", "breaks"), ("unknown", "unknown"), ("compiles", "recompiles"),
                  ("no known blocker", "clean"))


def compile_state(rep: kc.CheckReport) -> str:
    """The torch.compile state the report's own verdict states. An eager report has no compile
    effects of its own (kb.check computes them only for its verdict sentence), so reading the
    outcome again would say "clean" beside a verdict that says "fails" (t30 #8)."""
    if rep.mode == "compile" or not rep.verdict or "torch.compile: " not in rep.verdict:
        return assess.compile_outcome(rep, rep.compile)["state"]
    clause = rep.verdict.split("torch.compile: ", 1)[1]
    return next((state for words, state in COMPILE_STATES if clause.startswith(words) or words in clause.split(";")[0]),
                "unknown")


def basis(rep: kc.CheckReport) -> str:
    """What the row's verdicts rest on: presumed / inferred (kb.check), evidence, or none when
    the target has no verdict for any op of the model (a target without data, t30 #9)."""
    if rep.backend_version is None or (rep.ops and all(op.status == "unknown" for op in rep.ops)):
        return "none"
    return assess._basis(rep) or "evidence"


def call_share(rep: kc.CheckReport) -> float:
    """Share of call sites on the device, never rounded up to 1.0 beside a fallback (t30 #14)."""
    total = rep.call_sites or 0
    on_device = sum(op.count for op in rep.ops if op.status in ("native", "decomposed"))
    if not total:
        return 0.0
    return 1.0 if on_device >= total else min(round(on_device / total, 6), 0.999999)


def pct(value) -> str:
    """One decimal, but never 100.0% beside a fallback: 99.96% or >99.9% (t30 #14)."""
    if value is None:
        return "-"
    text = f"{100 * value:.1f}%"
    if value < 1 and text == "100.0%":
        text = f"{100 * value:.2f}%"
        return ">99.9%" if text == "100.00%" else text
    return text


def flop_pct(row: dict) -> str:
    """The FLOPs share as shown: marked * when some ops' FLOPs are not counted (MoE experts in a
    custom op), so that no row claims 100% of a model's FLOPs on the device (r2-30 #2)."""
    return pct(row["device_flop_share"]) + ("*" if row.get("flops_partial") else "")


def flops_footnote(rows: list[dict]) -> str | None:
    """The footnote under a table with a partial FLOPs share."""
    partial = sorted({op for r in rows if r.get("flops_partial") for op in r.get("flops_uncounted") or []})
    if not partial:
        return None
    return (f"* FLOPs of {len(partial)} op{'s' if len(partial) != 1 else ''} not counted ({', '.join(partial[:4])}: "
            "counted by bytes only); the share is of the counted FLOPs")


def summary_row(entry: dict, rep: kc.CheckReport) -> dict:
    """One cell of the gallery table: a model on one target × version × mode."""
    return {
        "model": entry["model"], "name": entry["name"], "family": entry["family"],
        "target": rep.target, "backend_version": rep.backend_version, "mode": rep.mode,
        "calls": rep.call_sites, "device_call_share": call_share(rep),
        "device_flop_share": rep.device_flop_share,
        "flops_partial": bool((rep.work or {}).get("flops_partial")),  # some ops' FLOPs not counted (r2-30 #2)
        "flops_uncounted": list((rep.work or {}).get("flops_uncounted") or []),
        "fallback_ops": [op.op for op in rep.ops if op.status == "fallback"],
        "unsupported_ops": [op.op for op in rep.ops if op.status in ("unsupported", "crash", "timeout")],
        "unknown_ops": [op.op for op in rep.ops if op.status == "unknown"],
        "hazards": sum(1 for h in rep.hazards if h["mode"] == "compile"),
        "compile": compile_state(rep), "basis": basis(rep),
        "runs_fully": runs_fully(rep), "verdict": rep.verdict,
    }


def table(conn: sqlite3.Connection, targets: list[str] | None = None, versions: dict | None = None,
          modes: tuple[str, ...] = ("eager",), graph: str = "inference", cache: bool = True) -> dict:
    """Models × targets (× modes): where each model runs; models that did not export are listed
    with the exporter's reason. Kept per KB state (kb.gallery.tablecache): a list question
    answers from it within Slack's ack instead of re-checking every model."""
    targets = list(targets or DEFAULT_TARGETS)
    if not cache:
        return _table(conn, targets, versions, modes, graph)
    args = {"targets": targets, "versions": versions or {}, "modes": list(modes), "graph": graph}
    return tablecache.cached(conn, args, lambda: _table(conn, targets, versions, modes, graph))


def _table(conn: sqlite3.Connection, targets: list[str], versions: dict | None, modes: tuple[str, ...],
           graph: str) -> dict:
    lookups = Lookups(conn)
    rows, not_built = [], []
    for entry in models(conn):
        if not census_rows_exist(conn, entry["model"], graph):
            not_built.append({"model": entry["model"], "name": entry["name"], "family": entry["family"],
                              "reason": (entry["graphs"].get(graph) or {}).get("reason") or entry.get("reason")})
            continue
        for target in targets:
            for mode in modes:
                rep = report(conn, entry["model"], target, (versions or {}).get(target), mode, graph, lookups)
                rows.append(summary_row(entry, rep))
    rows.sort(key=lambda r: (r["name"].lower(), r["model"]))  # stable: targets and modes keep their order
    chosen = {t: lookups.get(t, (versions or {}).get(t), modes[0])[1] for t in targets}
    return {"graph": graph, "targets": targets, "versions": chosen, "modes": list(modes), "rows": rows,
            "not_built": not_built, "models": len(models(conn)),
            "baseline": baseline_from_rows(rows, targets, modes)}


def census_rows_exist(conn: sqlite3.Connection, model: str, graph: str) -> bool:
    return conn.execute("SELECT 1 FROM gallery_op WHERE model = ? AND graph = ? LIMIT 1", (model, graph)).fetchone() \
        is not None


def baseline_from_rows(rows: list[dict], targets: list[str], modes) -> list[dict]:
    out = []
    for target in targets:
        for mode in modes:
            cells = [r for r in rows if r["target"] == target and r["mode"] == mode]
            if cells:
                out.append({"target": target, "backend_version": cells[0]["backend_version"], "mode": mode,
                            "runs_fully": sum(1 for r in cells if r["runs_fully"]), "of": len(cells),
                            "basis": overall_basis(r["basis"] for r in cells)})
    return out


BASIS_ORDER = ("none", "presumed", "inferred", "evidence")  # the weakest basis of any row decides the line's


def overall_basis(bases) -> str:
    found = set(bases)
    return next((b for b in BASIS_ORDER if b in found), "none")


def baseline_line(item: dict) -> str:
    """"neuron 2.14.3.0 · eager: 12 of 45 gallery models run fully on the device (presumed)"."""
    basis = item.get("basis")
    mark = f" ({basis})" if basis and basis != "evidence" else ""
    return (f"{item['target']} {item['backend_version'] or '(no data)'} · {item['mode']}: {item['runs_fully']} of "
            f"{item['of']} gallery models run fully on the device{mark}")


def versions_with_data(conn: sqlite3.Connection, target: str) -> list[str]:
    from kb.store.targetspec import version_key

    found = {r[0] for r in conn.execute("SELECT DISTINCT r.version FROM support s JOIN release r "
                                        "ON r.id = s.release_id WHERE s.target = ?", (target,))}
    return sorted(found, key=version_key)


def baseline(conn: sqlite3.Connection, targets: list[str] | None = None, graph: str = "inference",
             all_versions: bool = True) -> list[dict]:
    """The Baseline line for every version of each target with data, eager and compile."""
    out = []
    lookups = Lookups(conn)
    built = [m for m in models(conn) if census_rows_exist(conn, m["model"], graph)]
    for target in targets or DEFAULT_TARGETS:
        queries.check_target(conn, target)
        chosen = versions_with_data(conn, target) if all_versions else [None]
        for version in chosen:
            for mode in ("eager", "compile"):
                reps = [report(conn, m["model"], target, version, mode, graph, lookups) for m in built]
                out.append({"target": target, "backend_version": reps[0].backend_version if reps else version,
                            "mode": mode, "runs_fully": sum(1 for r in reps if runs_fully(r)), "of": len(reps),
                            "basis": overall_basis(basis(r) for r in reps),
                            "models": [m["model"] for m, r in zip(built, reps) if runs_fully(r)]})
    return out


usage = store.usage
used_by = store.used_by
used_by_line = store.used_by_line


def blockers(conn: sqlite3.Connection, target: str, version: str | None = None, mode: str = "eager",
             graph: str = "inference", limit: int | None = 10) -> dict:
    """The ops that keep the most gallery models off the device on one target: each op whose
    verdict in a model's report is a problem (fallback, unsupported, unknown), with the models."""
    lookups = Lookups(conn)
    blocked: dict[str, list[str]] = {}
    status: dict[str, Counter] = {}
    bases: dict[str, set] = {}
    chosen = None
    for entry in models(conn):
        if not census_rows_exist(conn, entry["model"], graph):
            continue
        rep = report(conn, entry["model"], target, version, mode, graph, lookups)
        chosen = rep.backend_version
        for op in rep.ops:
            if op.status in PROBLEMS:
                blocked.setdefault(op.op, []).append(entry["model"])
                status.setdefault(op.op, Counter())[op.status] += 1
                bases.setdefault(op.op, set()).add(op.basis or ("none" if op.status == "unknown" else "evidence"))
    ranked = sorted(blocked.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    rows = [{"op": op, "blocks": len(users), "models": users, "status": status[op].most_common(1)[0][0],
             "basis": overall_basis(bases[op])}
            for op, users in ranked[: limit or None]]
    return {"target": target, "backend_version": chosen, "mode": mode, "graph": graph, "ops": rows,
            "blocking_ops": len(blocked)}


def custom_op(conn: sqlite3.Connection, name: str) -> dict:
    """A non-ATen op a gallery census names ("transformers::grouped_mm_fallback"): which models
    call it, what the KB can say (no verdicts: they are kept for ATen ops only) and, where a
    library swaps it per device, the op each target reads instead. Not in any census → GalleryError."""
    op = name.strip()[:200]
    found = used_by(conn, op)
    if not found["count"]:
        raise GalleryError(f"not an ATen operator name, and no gallery model calls {op[:80]!r}")
    namespace = op.split("::", 1)[0]
    instead = {t: swap[op] for t, swap in DEVICE_OPS.items() if op in swap}
    return {"op": op, "kind": "custom op", "namespace": namespace, "used_by": found["used_by"],
            "count": found["count"], "of": found["of"], "read_on": instead,
            "verdicts": "none: the KB keeps verdicts for ATen ops; a custom op is unknown on every target unless "
                        "the model is checked through its factory (kb check model.py:build), which traces into it"}

