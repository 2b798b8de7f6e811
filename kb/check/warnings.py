"""Warnings `kb check` adds from the KB: known limitations the model hits, field caveats
its call sites trigger, end of support.

A limitation is feature-level ("torch.fft: partial", "float64: runs as float32"); it
becomes a warning only when the traced model uses that feature, judged from the ATen ops
and dtypes it runs. End-of-support warnings come from kb.eol.windows for the target's backend
version (its own windows, its SDK's, its PyTorch's). A field caveat (kb.store.records.Caveat)
becomes a warning at the call sites whose op, mode, dtypes and arguments trigger it, naming the
argument that does (an int64 index, an fp8 operand). Every warning names its source.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable
from datetime import date

# How a limitation's feature shows in a traced graph: a test over (op names, dtypes, mode).
# The fourth argument says whether the export has a dynamic dimension: the dynamic=True
# limitation is about this model only when it does (a static export compiles with dynamic=False).
_FEATURE_TESTS: dict[str, Callable[[set[str], set[str], str, bool], bool]] = {
    "float64": lambda ops, dtypes, mode, dynamic: "float64" in dtypes,
    "torch.fft": lambda ops, dtypes, mode, dynamic: any(op.startswith(("aten::fft_", "aten::_fft")) for op in ops),
    "torch.sparse": lambda ops, dtypes, mode, dynamic: any("sparse" in op for op in ops),
    "torch.nested": lambda ops, dtypes, mode, dynamic: any("nested" in op for op in ops),
    "complex": lambda ops, dtypes, mode, dynamic: any(d.startswith("complex") for d in dtypes),
    "torch.compile dynamic=True": lambda ops, dtypes, mode, dynamic: mode == "compile" and dynamic,
}


def _release_ids_for(conn: sqlite3.Connection, target: str, backend_version: str | None) -> list[int]:
    """The releases whose limitations apply: the backend version itself and its SDK
    release; without an SDK link, the newest release the target has limitations for."""
    ids = []
    product = conn.execute("SELECT product FROM target WHERE name = ?", (target,)).fetchone()
    if product and backend_version:
        row = conn.execute("SELECT id, sdk_version FROM release WHERE product = ? AND version = ?",
                           (product[0], backend_version)).fetchone()
        if row:
            ids.append(row[0])
            if row[1]:
                sdk = conn.execute("SELECT id FROM release WHERE product = 'neuron-sdk' AND version = ?",
                                   (row[1],)).fetchone()
                if sdk:
                    ids.append(sdk[0])
    if len(ids) < 2:
        from kb.store.queries import version_key

        stated = conn.execute("SELECT DISTINCT r.id, r.version FROM limitation l JOIN release r ON r.id = l.release_id "
                              "WHERE l.target = ?", (target,)).fetchall()
        if stated:
            ids.append(max(stated, key=lambda r: version_key(r[1]))[0])
    return list(dict.fromkeys(ids))


def limitation_warnings(conn: sqlite3.Connection, target: str, backend_version: str | None, ops: set[str],
                        dtypes: set[str], mode: str, dynamic: bool = False) -> list[str]:
    ids = _release_ids_for(conn, target, backend_version)
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT l.feature, l.status, l.note, l.source_url, r.product, r.version FROM limitation l "
        f"JOIN release r ON r.id = l.release_id WHERE l.target = ? AND l.release_id IN ({marks}) ORDER BY l.feature",
        (target, *ids)).fetchall()
    out = []
    for feature, status, note, url, product, version in rows:
        test = _FEATURE_TESTS.get(feature)
        if test is None or not test(ops, dtypes, mode, dynamic):
            continue
        detail = f" ({note})" if note else ""
        out.append(f"limitation on {target} ({product} {version}): {feature} — {status}{detail} [source: {url}]")
    return out


def _trigger(caveat: dict, site, mode: str, train: bool) -> str | None:
    """Why this call site triggers the caveat ("index int64"), "" when it applies to every
    call of the op, None when it does not apply. Arguments whose dtype was not recorded
    count as triggering (said so in the text): a warning too many beats a silent miss."""
    from kb.check.resolve import _named_arguments, _same_value
    from kb.check.tracing import TensorSpec

    if caveat.get("mode") and caveat["mode"] != mode:
        return None
    if caveat.get("phase") == "backward" and not train:
        return None
    if caveat.get("phase") == "backward" and getattr(site, "phase", "backward") != "backward":
        return None  # a gradient caveat is about the backward call, not the forward one
    reasons = []
    if caveat.get("dtypes"):
        used = {spec.dtype for spec in site.tensor_args() if spec.dtype}
        hit = sorted(used & set(caveat["dtypes"]))
        if hit:
            reasons.append("dtype " + ",".join(hit))
        elif used:
            return None
        else:
            reasons.append("dtypes not recorded")
    named = _named_arguments(site) if caveat.get("arg_dtypes") or caveat.get("conditions") else {}
    for name, wanted in (caveat.get("arg_dtypes") or {}).items():
        value = named.get(name)
        if isinstance(value, TensorSpec) and value.dtype:
            if value.dtype not in wanted:
                return None
            reasons.append(f"{name} {value.dtype}")
        else:
            reasons.append(f"{name} dtype not recorded")
    for name, allowed in (caveat.get("conditions") or {}).items():
        size = _SIZE_CONDITION.fullmatch(name)
        if size is not None:
            said = _size_trigger(named.get(size.group(1)), size.group(2), allowed)
            if said is None:
                return None
            reasons.append(f"{name} {said}")
            continue
        if name not in named or isinstance(named[name], TensorSpec):
            reasons.append(f"{name} not recorded")
            continue
        options = allowed if isinstance(allowed, list) else [allowed]
        if not any(_same_value(named[name], option) for option in options):
            return None
        reasons.append(f"{name}={named[name]}")
    return ", ".join(reasons)


# A size condition: `query.size(-2)` (one dimension) or `input.numel()`, with {"min": N, "max": M}.
_SIZE_CONDITION = re.compile(r"(\w+)\.(size\((-?\d+)\)|numel\(\))")


def _size_trigger(value, which: str, bounds) -> str | None:
    """The size text ("= 32768") when the tensor's size is within `bounds` (inclusive),
    None when it is outside them; "not recorded" when the shape is unknown (a warning too
    many beats a silent miss, as for dtypes)."""
    from kb.check.tracing import TensorSpec

    if not isinstance(bounds, dict):
        return "not recorded"
    if not isinstance(value, TensorSpec) or value.shape is None:
        return "not recorded"
    if which.startswith("numel"):
        actual = 1
        for dim in value.shape:
            actual *= dim
    else:
        axis = int(which[5:-1])
        if not -len(value.shape) <= axis < len(value.shape):
            return None
        actual = value.shape[axis]
    low, high = bounds.get("min"), bounds.get("max")
    if (isinstance(low, (int, float)) and actual < low) or (isinstance(high, (int, float)) and actual > high):
        return None
    return f"= {actual}"


def _where(sites) -> str:
    paths = sorted({s.module_path if s.module_path else "(root)" for s in sites if s.module_path is not None})
    if not paths:
        return ""
    return " in " + ", ".join(paths[:3]) + (f" (+{len(paths) - 3} more)" if len(paths) > 3 else "")


def caveat_findings(conn: sqlite3.Connection, target: str, backend_version: str | None, mode: str,
                    sites, train: bool = False) -> list[dict]:
    """The field caveats this model's call sites trigger on target/version/mode: one
    finding per caveat and trigger, with the call count, places and the source."""
    return caveat_matches(conn, target, backend_version, mode, sites, train)[0]


def caveat_matches(conn: sqlite3.Connection, target: str, backend_version: str | None, mode: str,
                   sites, train: bool = False) -> tuple[list[dict], int]:
    """(findings, how many caveats on the model's ops no call triggers: their dtype, size,
    argument, mode or phase conditions are not met — counted, not printed)."""
    from kb.store.queries import caveats

    ops = sorted({site.op for site in sites})
    known = caveats(conn, ops=ops, target=target, version=backend_version)
    if not known:
        return [], 0
    from kb.store.queries import caveat_matches_op

    findings: dict[tuple, dict] = {}
    on_ops: set = set()
    for site in sites:
        for caveat in known:
            if not caveat_matches_op(caveat, site.op):
                continue
            on_ops.add(caveat["id"])
            why = _trigger(caveat, site, mode, train)
            if why is None:
                continue
            key = (caveat["id"], site.op, why)
            entry = findings.setdefault(key, {"op": site.op, "trigger": why, "calls": 0, "sites": [],
                                              **{k: caveat[k] for k in ("kind", "statement", "figure", "workaround",
                                                                        "min_version", "max_version", "measured_on",
                                                                        "source_url", "source_name")}})
            entry["calls"] += 1
            entry["sites"].append(site)
    out = []
    for entry in findings.values():
        entry["where"] = _where(entry.pop("sites")).removeprefix(" in ")
        out.append(entry)
    unmatched = len(on_ops - {key[0] for key in findings})
    return sorted(out, key=lambda f: (f["op"], f["kind"], f["trigger"])), unmatched


def caveat_text(finding: dict, target: str) -> str:
    """One line for the report: op, what triggers it, the caveat, its figure and source."""
    trigger = f" with {finding['trigger']}" if finding["trigger"] else ""
    where = f" in {finding['where']}" if finding["where"] else ""
    figure = finding.get("figure") or {}
    fig = f" ({figure['value']} {figure['unit']}: {figure['what']})" if figure.get("value") is not None else ""
    fix = f" Workaround: {finding['workaround']}." if finding.get("workaround") else ""
    span = finding.get("min_version") or "?"
    span += f"–{finding['max_version']}" if finding.get("max_version") else "+"
    return (f"caveat ({finding['kind']}) on {target} {span}: {finding['op']}{trigger}, "
            f"{finding['calls']} call(s){where} — {finding['statement']}{fig}{fix} [source: {finding['source_url']}]")


def eol_warnings(conn: sqlite3.Connection, target: str, backend_version: str | None,
                 today: date | None = None) -> list[str]:
    from kb.eol import windows as eol

    out = []
    for warning in eol.warnings_for(conn, target, backend_version, today):
        if warning.get("severity") == "info":
            continue
        source = f" [source: {warning['source_url']}]" if warning.get("source_url") else ""
        out.append(f"end of support ({warning['severity']}): {warning['message']}{source}")
    return out


def hooks_for(db: str | None, today: date | None = None) -> list[Callable]:
    """Warning hooks for kb.check.resolve.check, reading the KB at `db`."""

    def kb_warnings(report, traced) -> Iterable[str]:
        from kb.store.db import open_kb
        from kb.vocab import INFO_CAVEAT_KINDS

        ops = {site.op for site in traced.sites}
        dtypes = {spec.dtype for site in traced.sites for spec in site.tensor_args() if spec.dtype}
        from kb.store.queries import basis_note

        conn = open_kb(db)
        try:
            basis = basis_note(conn, report.target, report.backend_version)
            findings, unmatched = caveat_matches(conn, report.target, report.backend_version, report.mode,
                                                 traced.sites, train=traced.train)
            report.caveats = findings
            report.caveats_unmatched = unmatched
            if unmatched:
                report.notes.append(f"{unmatched} caveat{'s' if unmatched != 1 else ''} on this model's ops "
                                    "not shown: the calls do not meet their dtype, size, argument, mode or phase "
                                    "conditions")
            report.notes.extend(caveat_text(f, report.target) for f in findings if f["kind"] in INFO_CAVEAT_KINDS)
            return (([f"basis: {basis}"] if basis else [])
                    + limitation_warnings(conn, report.target, report.backend_version, ops, dtypes, report.mode,
                                        dynamic=bool((traced.symbols or {}).get("dynamic")))
                    + [caveat_text(f, report.target) for f in findings if f["kind"] not in INFO_CAVEAT_KINDS]
                    + eol_warnings(conn, report.target, report.backend_version, today))
        finally:
            conn.close()

    return [kb_warnings]
