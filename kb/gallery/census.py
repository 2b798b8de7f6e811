"""An op census from an export, read by the code `kb check` uses, and a TracedModel back
from a census.

A census row stands for the calls of one op in one phase with one dtype (and one hazard
kind): how many calls, their FLOPs and bytes (kb.check.work), and the index of the first,
so the rebuilt model keeps the graph's first-use order. Shapes and argument values are not
kept — a census is a few hundred lines for a 70B model, not its graph — so a rebuilt model
resolves by verdicts and dtypes; decompositions that would need shapes, and argument
conditions, are not traced again (said in the rebuilt model's notes). The census carries
no verdicts: those come from the KB when it is read.
"""

from __future__ import annotations

from collections import OrderedDict

from kb.check import hazards as hz
from kb.check import work
from kb.check.callsites import ITEMSIZE, CallSite, TensorSpec, TracedModel

CENSUS_FIELDS = ("model", "graph", "op", "phase", "dtype", "hazard", "calls", "flops", "bytes", "counted_by", "first")
GRAPHS = ("inference", "training")
REBUILT_KIND = "gallery census"
REBUILT_NOTE = ("rebuilt from the gallery census: calls grouped per op, phase and dtype in first-use order "
                "(shapes and argument values not kept: decompositions and argument conditions not re-checked)")


def _hazard(site: CallSite, unbacked: set[int]) -> str | None:
    kind = hz._kind_of(site)
    if kind is None and site.index in unbacked:
        kind = "data_dependent_shape"
    return kind


def census(traced: TracedModel, model: str, graph: str = "inference") -> list[dict]:
    """The census rows of one traced export (sorted the way data/gallery ships them)."""
    unbacked = set(traced.symbols.get("unbacked_sites") or [])
    rows: OrderedDict[tuple, dict] = OrderedDict()
    for site in traced.sites:
        done = work.site_work(site)
        key = (site.op, site.phase, site.primary_dtype(), _hazard(site, unbacked), done.counted_by)
        row = rows.get(key)
        if row is None:
            row = rows[key] = {"model": model, "graph": graph, "op": site.op, "phase": site.phase, "dtype": key[2],
                               "hazard": key[3], "calls": 0, "flops": 0, "bytes": 0, "counted_by": done.counted_by,
                               "first": site.index}
        row["calls"] += 1
        row["flops"] += done.flops
        row["bytes"] += done.nbytes
    return sorted(rows.values(), key=sort_key)


def sort_key(row: dict) -> tuple:
    return (row["model"], row["graph"], row["first"], row["op"], row["phase"], row["dtype"] or "",
            row["hazard"] or "", row["counted_by"])


def census_from_archive(path: str, model: str, graph: str = "inference") -> list[dict]:
    """Read a `.pt2` export as `kb check` does (kb.check.pt2_graph; no torch) and census it."""
    from kb.check import pt2_graph
    from kb.check.model_formats import EXPORTED_PROGRAM, ModelSource

    traced = pt2_graph.trace_archive(ModelSource(EXPORTED_PROGRAM, path))
    return census(traced, model, graph)


def per_op(rows: list[dict]) -> dict[str, dict]:
    """{op: {calls, flops, bytes, phases}} — the census as `kb check` lists ops."""
    out: dict[str, dict] = {}
    for row in sorted(rows, key=lambda r: r["first"]):
        entry = out.setdefault(row["op"], {"calls": 0, "flops": 0, "bytes": 0, "phases": []})
        entry["calls"] += row["calls"]
        entry["flops"] += row["flops"]
        entry["bytes"] += row["bytes"]
        if row["phase"] not in entry["phases"]:
            entry["phases"].append(row["phase"])
    return out


def _split(total: int, parts: int) -> list[int]:
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _stand_in(dtype: str | None, nbytes: int) -> tuple:
    """Arguments that carry the call's dtype and bytes (what a fallback copies), plus one of
    unknown shape so that nobody traces a decomposition on made-up shapes."""
    size = ITEMSIZE.get(dtype or "", 0)
    first = TensorSpec((nbytes // size,), dtype) if size else TensorSpec(None, dtype)
    return (first, TensorSpec(None, None))


def rebuild(rows: list[dict], name: str) -> TracedModel:
    """A TracedModel whose calls are the census's: each row's calls in a run at its first
    index, each carrying its share of the row's counted work (kb.check.work reads it)."""
    sites: list[CallSite] = []
    unbacked: list[int] = []
    for row in sorted(rows, key=lambda r: (r["first"], r["op"])):
        flops, nbytes = _split(row["flops"], row["calls"]), _split(row["bytes"], row["calls"])
        for i in range(row["calls"]):
            site = CallSite(index=len(sites), op=row["op"], args=_stand_in(row["dtype"], nbytes[i]), named={},
                            phase=row["phase"], work=(flops[i], nbytes[i], row["counted_by"]))
            if row["hazard"] == "data_dependent_shape" and hz._kind_of(site) is None:
                unbacked.append(site.index)
            sites.append(site)
    symbols = {"unbacked_sites": unbacked} if unbacked else {}
    train = any(r["phase"] == "backward" for r in rows)
    return TracedModel(REBUILT_KIND, name, sites, notes=[REBUILT_NOTE], train=train, symbols=symbols)
