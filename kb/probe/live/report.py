"""From the journal to kb.store.records: one `OpStatus` per ATen overload × dtype.

An overload is usually reached from several OpInfos and samples; its outcome for a dtype
is the worst thing that happened to it — a crash, then a timeout, then running through
the CPU fallback (directly, or inside its composite kernel), then decomposing, then
native — and `unsupported` only when every call raised (an overload that raised for
some arguments and ran for others keeps the status it ran with, and the errors in
`detail`). A sample whose device result differs from the CPU's is re-run call by call
against the CPU, and the overloads whose own output was wrong are flagged
(`detail["wrong_result"]`, with errors and tolerances, `blame: "per-call check"`); where
that re-run is impossible (no data on `meta`), every compute overload of the sample is
flagged (`blame: "sample"`, `sole` true when it was the sample's only compute op).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import kb
from kb.store.records import OpStatus, ProbeRun, Provenance, utc_now

SOURCE_NAME = "live_probe"
PROBE_VERSION = f"kb-live-probe {kb.__version__}"
MAX_LISTED = 8


def target_for(device: str) -> str:
    from kb.probe.backends import get_backend
    from kb.probe.live.device import DEVICE_BACKENDS

    return get_backend(DEVICE_BACKENDS[device]).target if device in DEVICE_BACKENDS else device


class _Tally:
    def __init__(self):
        self.counts: Counter[str] = Counter()
        self.error: dict[str, str] | None = None
        self.inner: set[str] = set()
        self.opinfos: set[str] = set()
        self.crash: dict[str, Any] | None = None
        self.timeout: dict[str, Any] | None = None
        self.wrong: list[dict[str, Any]] = []

    def status(self) -> str | None:
        c = self.counts
        if self.crash:
            return "crash"
        if self.timeout:
            return "timeout"
        if c["fallback"] or (c["decomposed"] and self.inner):
            return "fallback"
        if c["decomposed"]:
            return "decomposed"
        if c["native"]:
            return "native"
        if c["error"]:
            return "unsupported"
        return None


def tally(header: dict[str, Any], tasks: list[dict[str, Any]]) -> dict[tuple[str, str], _Tally]:
    """Per overload × dtype, what the tasks saw. Tasks are read in name order, not the
    order they finished in, so the first error kept for an overload is the same however
    many workers or shards ran them."""
    primary = header.get("primary") or {}
    out: dict[tuple[str, str], _Tally] = defaultdict(_Tally)
    for task in sorted(tasks, key=lambda t: (t["key"], t["dtype"])):
        key, dtype = task["key"], task["dtype"]
        fallback_op = primary.get(key)
        if task["outcome"] in ("crash", "timeout"):
            op = task.get("op") or fallback_op
            if op:
                t = out[(op, dtype)]
                t.opinfos.add(key)
                what = {k: task.get(k) for k in ("exit", "log_tail", "timeout") if task.get(k) is not None}
                what["opinfo"] = key
                what["attributed_by"] = "beacon" if task.get("op") else "opinfo name"
                setattr(t, task["outcome"], getattr(t, task["outcome"]) or what)
            continue
        for op, entry in task.get("calls", {}).items():
            t = out[(op, dtype)]
            t.opinfos.add(key)
            for word in ("native", "fallback", "decomposed", "error"):
                t.counts[word] += entry.get(word, 0)
            if entry.get("error_class") and t.error is None:
                t.error = {"class": entry["error_class"], "line": entry.get("error_line", ""), "opinfo": key}
            t.inner.update(entry.get("inner_fallback", ()))
            for inner in entry.get("inner_fallback", ()):  # evidence too: it reached the fallback
                inside = out[(inner, dtype)]
                inside.opinfos.add(key)
                inside.counts["fallback"] += 1
        if task.get("outside_errors") and fallback_op:
            t = out[(fallback_op, dtype)]
            t.opinfos.add(key)
            t.counts["error"] += task["outside_errors"]
            if t.error is None:
                cls, _, line = task.get("outside_error", "").partition(": ")
                t.error = {"class": cls, "line": line, "opinfo": key, "raised": "outside any ATen call"}
        for wrong in task.get("numerics", {}).get("mismatches", []):
            culprits = wrong.get("culprits")
            if culprits:  # the calls whose own output was wrong (see kb.probe.live.task._blame)
                for culprit in culprits:
                    out[(culprit["op"], dtype)].wrong.append(
                        {"opinfo": key, "sample": wrong.get("sample"), "sole": True, "blame": "per-call check",
                         **{k: v for k, v in culprit.items() if k != "op"}})
                continue
            ops = wrong.get("ops") or ([fallback_op] if fallback_op else [])
            for op in ops:
                out[(op, dtype)].wrong.append({"opinfo": key, "sole": len(ops) == 1, "blame": "sample",
                                               **{k: v for k, v in wrong.items() if k not in ("ops", "ok", "culprits")}})
    return out


def _detail(t: _Tally) -> dict[str, Any]:
    detail: dict[str, Any] = {k: v for k, v in t.counts.items() if v}
    opinfos = sorted(t.opinfos)
    detail["opinfos"] = opinfos[:MAX_LISTED]
    if len(opinfos) > MAX_LISTED:
        detail["opinfo_count"] = len(opinfos)
    if t.inner:
        detail["fell_back_inside"] = sorted(t.inner)[:MAX_LISTED]
    if t.error:
        detail["error"] = t.error
    if t.crash:
        detail["crash"] = t.crash
    if t.timeout:
        detail["timeout"] = t.timeout
    if t.wrong:
        worst = max(t.wrong, key=lambda w: (w.get("sole", False), w.get("max_abs") or 0))
        detail["wrong_result"] = True
        detail["numerics"] = {**worst, "samples_wrong": len(t.wrong)}
    return detail


def _note(status: str, t: _Tally) -> str | None:
    parts = []
    if t.error and status != "unsupported":
        parts.append(f"raised on {t.counts['error']} of {sum(t.counts.values())} calls: {t.error['class']}")
    if t.inner and status == "fallback" and not t.counts["fallback"]:
        parts.append(f"composite kernel falls back for {', '.join(sorted(t.inner)[:3])}")
    if t.wrong:
        w = max(t.wrong, key=lambda w: (w.get("sole", False), w.get("max_abs") or 0))
        why = w.get("why") or f"max abs error {w.get('max_abs'):.3g}, max rel error {w.get('max_rel'):.3g}"
        parts.append(f"wrong result vs CPU ({w['opinfo']}): {why}")
    return "; ".join(parts) or None


def build_records(header: dict[str, Any], tasks: list[dict[str, Any]], finished_at: str | None = None
                  ) -> tuple[ProbeRun, list[OpStatus]]:
    """The run header and its observations, sorted by op and dtype."""
    info, plan = header["device"], header["plan"]
    finished_at = finished_at or utc_now()
    target = target_for(plan["device"])
    prov = Provenance(source_kind="live_probe", source_name=SOURCE_NAME, probe_run_id=header["run_id"],
                      retrieved_at=finished_at, tool_version=PROBE_VERSION)
    statuses = []
    for (op, dtype), t in sorted(tally(header, tasks).items()):
        status = t.status()
        if status is None or not op.startswith("aten::"):
            continue
        statuses.append(OpStatus(op=op, target=target, backend_version=info["backend_version"], status=status,
                                 provenance=prov, torch_version=info["torch_version"], dtypes=(dtype,),
                                 note=_note(status, t), detail=_detail(t)))
    outcomes = Counter(task["outcome"] for task in tasks)
    run = ProbeRun(
        run_id=header["run_id"], kind="live", target=target, backend=info["backend"],
        backend_version=info["backend_version"], torch_version=info["torch_version"],
        python_version=info["python_version"], host=info["host"], started_at=header["started_at"],
        finished_at=finished_at, device=info.get("device_description"), fallback_policy=info.get("fallback_policy"),
        params={"dtypes": plan["dtypes"], "ops": plan["patterns"], "samples": plan["samples"],
                "timeout": plan["timeout"], "detector": info.get("detector"), "opinfos": header.get("opinfos"),
                "tasks": header.get("tasks"), "outcomes": dict(sorted(outcomes.items())),
                **({"versions": info["versions"]} if info.get("versions") else {}),
                "torch_build": info.get("torch_build")},
        tool_version=PROBE_VERSION,
    )
    return run, statuses


def summary(statuses: list[OpStatus]) -> dict[str, Any]:
    """Counts per dtype × status, and the overloads worth a look (crashes, timeouts, wrong results)."""
    by_dtype: dict[str, Counter[str]] = defaultdict(Counter)
    notable = []
    for s in statuses:
        dtype = s.dtypes[0] if s.dtypes else "any"
        by_dtype[dtype][s.status] += 1
        if s.status in ("crash", "timeout") or (s.detail or {}).get("wrong_result"):
            notable.append({"op": s.op, "dtype": dtype, "status": s.status, "note": s.note})
    return {"by_dtype": {d: dict(c) for d, c in sorted(by_dtype.items())}, "notable": notable,
            "overloads": len({s.op for s in statuses})}


def opinfo_map(tasks: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Which ATen overloads each OpInfo dispatched on the device (any dtype): the probe's
    by-product mapping from PyTorch functions to the overloads that carry their verdicts."""
    found: dict[str, set[str]] = defaultdict(set)
    for task in tasks:
        ops = [*task.get("calls", {}), *([task["op"]] if task.get("op") else [])]  # crash/timeout: the beacon's op
        found[task["key"]].update(op for op in ops if op.startswith("aten::"))
    return {key: sorted(ops) for key, ops in sorted(found.items())}
