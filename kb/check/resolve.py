"""Resolve a traced model's ops against one target: native, decomposed, fallback,
unsupported or unknown, with the evidence, the places, and the cost.

The KB is reached only through a `lookup(op_name) -> Verdict | None` function, so this
module works with any source of verdicts (the SQLite KB via `kb.store.queries.support_map`,
an in-memory table in tests). Resolution of one op:

1. the KB's own verdict for the op, if any — its dtype restriction checked against the
   dtypes the model really uses (a verdict for float32 says nothing about bfloat16);
2. else, if PyTorch decomposes the op for a backend without its own kernel, the leaves
   are resolved the same way and the op's verdict is the worst leaf ("decomposed" when
   all are fine). The leaves come from tracing, on meta tensors shaped like the call's
   arguments, the CompositeImplicitAutograd "math kernel" or, for a default backend
   kernel (CompositeExplicitAutograd), PyTorch's Python decomposition of it; a
   structured op's default functional kernel has one leaf, its out= variant;
3. else unknown.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from kb.check.tracing import CallSite, TensorSpec, TracedModel
from kb.check.tracing import overload_for as _overload
from kb.vocab import DOC_RULE_BASIS, SEVERITY, STATUSES, UNKNOWN, worst

# How deep decompositions are followed (each level is one traced decomposition).
MAX_DEPTH = 4

# What a fallback op does to a compiled graph, per target (TorchNeuron 2.33 fails the
# compilation by default; elsewhere the graph is split around the op).
COMPILE_FALLBACK_EFFECT = {"neuron": "compile error"}
DEFAULT_COMPILE_FALLBACK_EFFECT = "graph break"

# Statuses that break a compiled graph or make it fail (unknown: may do either).
_PROBLEM_STATUSES = ("fallback", UNKNOWN, "unsupported", "crash", "timeout")


@dataclass(frozen=True)
class Verdict:
    """The KB's derived verdict for one op on the chosen target/version/mode."""

    status: str
    dtypes: tuple[str, ...] | None = None
    conditions: dict | None = None
    source_kind: str | None = None
    source_url: str | None = None
    backend_version: str | None = None
    basis: str = "evidence"  # evidence | doc rule | inferred | presumed
    effective_status: str | None = None  # where a decomposed op runs: its worst leaf's status
    effective_leaf: str | None = None
    note: str | None = None  # the verdict's note (a doc rule's summary, say)
    local_report: dict | None = None  # the local report file the verdict rests on (kb ingest FILE)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Verdict:
        """From a `kb.store.queries.support_map` row (dict with status, dtypes, conditions...)."""
        dtypes = row.get("dtypes")
        if isinstance(dtypes, str):
            import json

            dtypes = json.loads(dtypes)
        conditions = row.get("conditions")
        if isinstance(conditions, str):
            import json

            conditions = json.loads(conditions)
        via = row.get("effective_via")
        if isinstance(via, str):
            import json

            via = json.loads(via)
        return cls(
            status=row["status"],
            dtypes=tuple(dtypes) if dtypes else None,
            conditions=conditions or None,
            source_kind=row.get("source_kind"),
            source_url=row.get("source_url"),
            backend_version=row.get("backend_version"),
            basis=row.get("basis") or "evidence",
            effective_status=row.get("effective_status"),
            effective_leaf=(via or {}).get("leaf"),
            note=row.get("note"),
            local_report=_json_value(row.get("report")),
        )


def _json_value(value: Any) -> Any:
    if isinstance(value, str):
        import json

        return json.loads(value)
    return value or None


Lookup = Callable[[str], "Verdict | None"]


def lookup_from_rows(rows: Mapping[str, Any] | Callable[[str], Any]) -> Lookup:
    """A lookup over `{op: row or Verdict}` (what `kb.store.queries.support_map` returns), or
    over a function op → row (`kb.store.queries.support_lookup`: rows read when asked for,
    each made a Verdict once)."""
    if callable(rows):
        made: dict[str, Verdict | None] = {}

        def lookup(op: str) -> Verdict | None:
            if op not in made:
                row = rows(op)
                made[op] = None if row is None else row if isinstance(row, Verdict) else Verdict.from_row(row)
            return made[op]

        return lookup
    verdicts = {op: row if isinstance(row, Verdict) else Verdict.from_row(row) for op, row in rows.items()}
    return verdicts.get


@dataclass
class Leaf:
    """One op a decomposition ends in, resolved."""

    op: str
    status: str
    count: int = 1
    source_kind: str | None = None
    source_url: str | None = None
    reason: str | None = None


@dataclass
class Resolution:
    status: str
    via: list[Leaf] = field(default_factory=list)
    source_kind: str | None = None
    source_url: str | None = None
    backend_version: str | None = None
    reason: str | None = None
    conditions: dict | None = None
    basis: str | None = None
    local_report: dict | None = None


@dataclass
class OpReport:
    """One distinct op of the model on one target."""

    op: str
    count: int
    status: str
    via: list[Leaf]
    dtypes: list[str]
    shapes: list[str]
    module_paths: list[str]
    source_kind: str | None
    source_url: str | None
    backend_version: str | None
    reason: str | None
    conditions: dict | None
    phases: list[str]
    first_index: int
    basis: str | None = None  # evidence | inferred | presumed: what the verdict rests on
    fallback_calls: int = 0  # device↔host round trips this op causes in eager mode
    local_report: dict | None = None  # the verdict rests on a local report file (kb ingest FILE)
    bytes_to_host: int = 0  # tensor bytes copied each way by those round trips
    allowed: bool = False
    waiver: dict | None = None  # the [tool.kb] waiver that accepts it (kb.check.project_config)
    flops: int = 0  # kb.check.work: summed over the op's call sites (0 where counted by bytes only)
    bytes: int = 0  # tensor bytes read and written, summed over the op's call sites


@dataclass
class CheckReport:
    model: str
    model_kind: str
    target: str
    backend_version: str | None
    mode: str
    ops: list[OpReport]
    call_sites: int
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # hook: limitations, field caveats, end of support
    caveats: list[dict] = field(default_factory=list)  # hook: field caveats the call sites trigger
    eager: dict | None = None
    compile: dict | None = None
    # kb.check.assess: work on the device, the host-cost estimate, hazards, fix-its, one sentence.
    verdict: str | None = None
    device_flop_share: float | None = None
    device_byte_share: float | None = None
    host_flops: int | None = None
    estimated_host_ms: dict | None = None
    cost_model: dict | None = None
    hazards: list[dict] = field(default_factory=list)
    suggestions: list[dict] = field(default_factory=list)
    after_rewrites: dict | None = None
    work: dict | None = None
    caveats_unmatched: int = 0  # caveats on the model's ops whose conditions its calls do not meet
    in_memory: bool = False  # checked from an object in memory (kb.check API): SARIF's `memory:` URI; not in JSON

    def summary(self) -> dict:
        counts = {s: 0 for s in (*STATUSES[:4], UNKNOWN)}
        site_counts = dict(counts)
        for op in self.ops:
            counts[op.status] = counts.get(op.status, 0) + 1
            site_counts[op.status] = site_counts.get(op.status, 0) + op.count
        native_sites = site_counts.get("native", 0)
        on_device = native_sites + site_counts.get("decomposed", 0)
        return {
            "distinct_ops": len(self.ops),
            "call_sites": self.call_sites,
            "native_call_sites_pct": round(100.0 * native_sites / self.call_sites, 1) if self.call_sites else 100.0,
            "on_device_call_sites_pct": round(100.0 * on_device / self.call_sites, 1) if self.call_sites else 100.0,
            "ops_by_status": {k: v for k, v in counts.items() if v},
            "call_sites_by_status": {k: v for k, v in site_counts.items() if v},
        }

    def to_dict(self) -> dict:
        body = asdict(self)
        del body["in_memory"]  # where the model came from is the document's own `model_kind`
        body["summary"] = self.summary()
        return body


# --- resolution --------------------------------------------------------------------------


class Resolver:
    """Resolves ops for one lookup, caching verdicts and traced decompositions."""

    def __init__(self, lookup: Lookup):
        self.lookup = lookup
        self._cache: dict[tuple[str, str | None, str], Resolution] = {}

    def resolve_site(self, site: CallSite, depth: int = 0) -> Resolution:
        key = (site.op, site.primary_dtype(), site.signature() if depth < MAX_DEPTH else "")
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = self._resolve(site, depth)
        return cached

    def _resolve(self, site: CallSite, depth: int) -> Resolution:
        verdict = self.lookup(site.op)
        if verdict is not None and not (verdict.status == "decomposed" and verdict.effective_status is None
                                         and depth < MAX_DEPTH and self._traceable(site)):
            return _effective(_apply_restriction(verdict, site), verdict)
        if depth >= MAX_DEPTH:
            return Resolution(UNKNOWN, reason="decomposition too deep to follow")
        leaves, why = decompose(site)
        if leaves is None and verdict is not None:
            # Tracing was only a refinement of the KB's own verdict: where it cannot run (the
            # call's shapes are symbolic, say), the verdict stands, so a check gives the same
            # answer whether or not torch happens to be loaded (saved .pt2 vs in memory).
            return _effective(_apply_restriction(verdict, site), verdict)
        if leaves is None:
            return Resolution(UNKNOWN, reason=why or "no evidence for this op on this target")
        if not leaves:
            return Resolution("decomposed", reason="decomposes into no device op (a view or no-op)")
        merged: OrderedDict[str, Leaf] = OrderedDict()
        for leaf_site in leaves:
            res = self.resolve_site(leaf_site, depth + 1)
            existing = merged.get(leaf_site.op)
            if existing is None:
                merged[leaf_site.op] = Leaf(leaf_site.op, res.status, 1, res.source_kind, res.source_url, res.reason)
            else:
                existing.count += 1
                if SEVERITY[res.status] > SEVERITY[existing.status]:
                    existing.status, existing.reason = res.status, res.reason
        status = worst(leaf.status for leaf in merged.values())
        reason = f"PyTorch decomposes it ({why})"
        if status in ("native", "decomposed"):
            status = "decomposed"
        else:
            culprit = next(leaf for leaf in merged.values() if leaf.status == status)
            reason += f"; {culprit.op} is {status}" + (f": {culprit.reason}" if culprit.reason else "")
        return Resolution(status, via=list(merged.values()), source_kind="inferred", reason=reason, basis="inferred")

    def _traceable(self, site: CallSite) -> bool:
        """Whether this process can trace the op's decomposition itself: torch is already
        loaded (factories, TorchScript) and decomposes the op. A check that got this far
        without torch does not import it for this."""
        import sys

        return "torch" in sys.modules and decomposition_kind(site.op) is not None


def _effective(res: Resolution, verdict: Verdict) -> Resolution:
    """A decomposed verdict as the op really runs: the status of its worst leaf, known
    from the KB (the dispatcher replay traced it), with that leaf shown."""
    res.basis = verdict.basis
    if verdict.basis == DOC_RULE_BASIS and not res.reason:
        res.reason = verdict.note  # the rule's summary: why a whole class of ops has this verdict
    res.local_report = verdict.local_report
    if res.status != "decomposed" or verdict.effective_status in (None, "decomposed"):
        return res
    leaf = verdict.effective_leaf
    res.status = verdict.effective_status
    res.via = [Leaf(leaf, verdict.effective_status, source_kind="inferred")] if leaf else []
    res.reason = (f"PyTorch decomposes it; {leaf or 'a leaf'} is {verdict.effective_status} "
                  f"(leaves traced by the dispatcher replay)")
    return res


def _apply_restriction(verdict: Verdict, site: CallSite) -> Resolution:
    """The verdict as it applies to this call: outside its dtypes or argument conditions
    the KB has no evidence, so the call is unknown (with the reason)."""
    res = Resolution(verdict.status, source_kind=verdict.source_kind, source_url=verdict.source_url,
                     backend_version=verdict.backend_version, conditions=verdict.conditions)
    if verdict.dtypes:
        used = site.primary_dtype()
        if used is not None and used not in verdict.dtypes:
            res.reason = f"{verdict.status} only for {', '.join(verdict.dtypes)}; used with {used}"
            res.status = UNKNOWN
            return res
    if verdict.conditions:
        broken, unchecked = _check_conditions(site, verdict.conditions)
        if broken:
            res.reason = f"{verdict.status} only when {_conditions_text(verdict.conditions)}; called with {broken}"
            res.status = UNKNOWN
        elif unchecked:
            res.reason = f"holds when {_conditions_text(unchecked)} (not checked against the model)"
    return res


def _check_conditions(site: CallSite, conditions: dict) -> tuple[str | None, dict]:
    """Compare `{argument: allowed value or values}` with the call's arguments by schema
    name. Returns (the first violated argument as text, the conditions that could not be
    checked: unknown names, argument values not recorded)."""
    values = _named_arguments(site)
    unchecked = {}
    for name, allowed in conditions.items():
        if name not in values or isinstance(values[name], TensorSpec):
            unchecked[name] = allowed
            continue
        options = allowed if isinstance(allowed, (list, tuple, set)) else [allowed]
        actual = values[name]
        if not any(_same_value(actual, option) for option in options):
            return f"{name}={actual}", {}
    return None, unchecked


def _same_value(actual: Any, option: Any) -> bool:
    if isinstance(option, str) and option.lower() in ("inf", "+inf", "-inf"):
        return isinstance(actual, float) and actual == float(option)
    if isinstance(actual, tuple) and isinstance(option, list):
        return list(actual) == option
    return actual == option


def _named_arguments(site: CallSite) -> dict:
    """The call's arguments by schema name, defaults filled in where torch is loaded.

    An archive's graph names every argument it passes (`site.named`); that is enough
    without torch: an argument left at its default is then not checked."""
    import sys

    if site.named is not None and "torch" not in sys.modules:
        return dict(site.named)
    overload = _overload(site.op)
    if overload is None:
        return dict(site.named if site.named is not None else site.kwargs)
    if site.named is not None:
        values = dict(site.named)
        for argument in overload._schema.arguments:
            if argument.name not in values and argument.has_default_value():
                values[argument.name] = argument.default_value
        return values
    values = {}
    for position, argument in enumerate(overload._schema.arguments):
        if position < len(site.args) and not argument.kwarg_only:
            values[argument.name] = site.args[position]
        elif argument.name in site.kwargs:
            values[argument.name] = site.kwargs[argument.name]
        elif argument.has_default_value():
            values[argument.name] = argument.default_value
    return values


def _conditions_text(conditions: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in conditions.items())


# --- decomposition -------------------------------------------------------------------------


def decomposition_kind(op: str) -> str | None:
    """How PyTorch decomposes `op` for a backend without its own kernel, if it does."""
    import torch

    try:
        if torch._C._dispatch_has_kernel_for_dispatch_key(op, "CompositeImplicitAutograd"):
            return "CompositeImplicitAutograd"
    except (RuntimeError, UnicodeError):  # not registered; a non-ASCII name trips torch's own decoding
        return None
    # A default backend kernel (CompositeExplicitAutograd) runs for a backend without its
    # own; where PyTorch ships a Python decomposition of it, that shows the ops it needs.
    if torch._C._dispatch_has_kernel_for_dispatch_key(op, "CompositeExplicitAutograd"):
        overload = _overload(op)
        if overload is not None and overload in _python_decompositions():
            return "CompositeExplicitAutograd"
    # Structured ops get a default functional kernel (CompositeExplicitAutogradNonFunctional)
    # that computes the output's shape and calls the backend's out= variant.
    if torch._C._dispatch_has_kernel_for_dispatch_key(op, "CompositeExplicitAutogradNonFunctional"):
        if out_variant(op) is not None:
            return "CompositeExplicitAutogradNonFunctional"
    return None


@functools.cache
def out_variant(op: str) -> str | None:
    """The out= overload a functional op's default kernel calls (`aten::gelu` → `aten::gelu.out`,
    `aten::max.dim` → `aten::max.dim_max`): the overload taking the same arguments plus outs."""
    functional = _overload(op)
    if functional is None:
        return None
    wanted = [(a.name, str(a.type)) for a in functional._schema.arguments]
    base = op.partition(".")[0]
    packet = functional.overloadpacket
    for name in packet.overloads():
        candidate = getattr(packet, name)
        arguments = candidate._schema.arguments
        if any(a.is_out for a in arguments) and [(a.name, str(a.type)) for a in arguments if not a.is_out] == wanted:
            return f"{base}.{name}"
    return None


@functools.lru_cache(maxsize=1)
def _python_decompositions() -> dict:
    from torch._decomp import decomposition_table

    return decomposition_table


def decompose(site: CallSite) -> tuple[list[CallSite] | None, str | None]:
    """The leaf calls `site` decomposes into, traced on meta tensors; (None, why) if it does not.

    Needs torch. A custom op (not aten/prims) is only looked at when torch is already
    loaded (its library may have registered it here); otherwise kb says what it can."""
    import sys

    namespace = site.op.partition("::")[0]
    if namespace not in ("aten", "prims") and "torch" not in sys.modules:
        return None, custom_op_reason(site.op)
    try:
        kind = decomposition_kind(site.op)
    except ImportError:
        return None, "no verdict in the KB, and torch is not installed here to trace its decomposition"
    if kind is None and namespace not in ("aten", "prims"):
        return None, custom_op_reason(site.op, registered=_registered_here(site.op))
    if kind is None:
        return None, None
    if kind == "CompositeExplicitAutogradNonFunctional":  # needs no shapes: one leaf, same arguments
        leaf = CallSite(0, out_variant(site.op), site.args, dict(site.kwargs), site.outputs,
                        site.module_path, site.module_type, site.phase)
        return [leaf], kind
    if not site.has_shapes():
        return None, f"decomposes ({kind}), but argument shapes are unknown: pass an ExportedProgram or a factory"
    key = site.signature()
    if key not in _DECOMP_CACHE:
        try:
            leaves = _trace_decomposition(site, kind)
            below_aten = sorted({leaf.op for leaf in leaves if not leaf.op.startswith("aten::")})
            if below_aten and kind == "CompositeExplicitAutograd":
                # A reference implementation written in prims says nothing about aten kernels.
                leaves = f"decomposes ({kind}), but PyTorch's decomposition of it is written in prims"
            _DECOMP_CACHE[key] = leaves
        except Exception as exc:  # a decomposition that cannot run on meta tensors
            _DECOMP_CACHE[key] = f"decomposes ({kind}), but tracing it failed ({type(exc).__name__})"
    value = _DECOMP_CACHE[key]
    if isinstance(value, str):
        return None, value
    return value, kind


def custom_op_reason(op: str, registered: str | None = None) -> str:
    """What kb can say about a custom op (namespace other than aten/prims)."""
    namespace = op.partition("::")[0]
    if registered:
        return (f"custom op ({namespace}): registered here with kernels for {registered}, "
                "none of them a decomposition kb can trace")
    return (f"custom op ({namespace}): its implementation is not in the archive; check the factory route "
            "(kb check model.py:build --input-shape ...) to trace through it")


def _registered_here(op: str) -> str | None:
    """Dispatch keys with a kernel for `op` in this process (torch loaded), or None."""
    import torch

    keys = ("CPU", "CUDA", "Meta", "CompositeExplicitAutograd", "PrivateUse1", "XLA")
    try:
        found = [key for key in keys if torch._C._dispatch_has_kernel_for_dispatch_key(op, key)]
    except (RuntimeError, UnicodeError):  # not registered in this process
        return None
    return ", ".join(found) or None


# Traced decompositions by call signature, shared by every resolver in the process.
_DECOMP_CACHE: dict[str, list[CallSite] | str] = {}


def _trace_decomposition(site: CallSite, kind: str) -> list[CallSite]:
    import torch
    from torch._C import DispatchKey
    from torch.fx.experimental.proxy_tensor import make_fx

    from kb.check.tracing import sites_from_graph

    op = _overload(site.op)
    args, kwargs = _by_schema(op, site) if site.named is not None else (site.args, site.kwargs)
    args = _materialise(args)
    kwargs = _materialise(kwargs)
    if kind == "CompositeImplicitAutograd":

        def run(*a):
            return op._op_dk(DispatchKey.CompositeImplicitAutograd, *a, **kwargs)
    else:
        decomposition = _python_decompositions()[op]
        # Python decompositions take optional arguments by keyword only, where the C++
        # schema takes them by position too.
        required = sum(1 for a in op._schema.arguments if not a.kwarg_only and not a.has_default_value())
        named = [a.name for a in op._schema.arguments if not a.kwarg_only][required:len(args)]
        kwargs = {**dict(zip(named, args[required:], strict=True)), **kwargs}
        args = args[:required]

        def run(*a):
            return decomposition(*a, **kwargs)
    with torch.device("meta"):
        graph_module = make_fx(run)(*args)
    return sites_from_graph(graph_module.graph)


def _by_schema(op, site: CallSite) -> tuple[tuple, dict]:
    """Positional and keyword arguments as the op's schema takes them, from the call's
    named arguments (older archives do not record which were passed by keyword)."""
    args: list = []
    kwargs: dict = {}
    for argument in op._schema.arguments:
        if argument.name not in site.named:
            continue
        value = site.named[argument.name]
        if argument.kwarg_only or len(args) < [a.name for a in op._schema.arguments].index(argument.name):
            kwargs[argument.name] = value
        else:
            args.append(value)
    return tuple(args), kwargs


def _materialise(template: Any) -> Any:
    """Meta tensors (and meta devices) for a template's specs."""
    import torch

    if hasattr(template, "to_torch"):  # a dtype/layout/device named in an archive's graph
        template = template.to_torch()

    if isinstance(template, TensorSpec):
        dtype = getattr(torch, template.dtype)
        if template.stride is not None:
            return torch.empty_strided(template.shape, template.stride, dtype=dtype, device="meta")
        return torch.empty(template.shape, dtype=dtype, device="meta")
    if isinstance(template, tuple):
        return [_materialise(v) for v in template] if _is_list_arg(template) else tuple(_materialise(v) for v in template)
    if isinstance(template, list):
        return [_materialise(v) for v in template]
    if isinstance(template, dict):
        return {k: _materialise(v) for k, v in template.items()}
    if isinstance(template, torch.device):
        return torch.device("meta")
    return template


def _is_list_arg(template: tuple) -> bool:
    # Ops take lists (Tensor[], int[]); templates store them as tuples. Lists of tensors
    # must be lists; int lists accept both.
    return any(isinstance(v, TensorSpec) for v in template)


# --- the whole model ---------------------------------------------------------------------------


def resolve(sites: Iterable[CallSite], lookup: Lookup) -> tuple[list[OpReport], dict[int, Resolution]]:
    """One OpReport per distinct op (first-use order) and each call site's resolution."""
    resolver = Resolver(lookup)
    per_site: dict[int, Resolution] = {}
    grouped: OrderedDict[str, list[tuple[CallSite, Resolution]]] = OrderedDict()
    for site in sites:
        res = resolver.resolve_site(site)
        per_site[site.index] = res
        grouped.setdefault(site.op, []).append((site, res))
    reports = [_op_report(op, pairs) for op, pairs in grouped.items()]
    return reports, per_site


def _op_report(op: str, pairs: list[tuple[CallSite, Resolution]]) -> OpReport:
    worst_pair = max(pairs, key=lambda p: SEVERITY[p[1].status])
    res = worst_pair[1]
    via: OrderedDict[str, Leaf] = OrderedDict()
    for _site, r in pairs:
        for leaf in r.via:
            if leaf.op not in via:
                via[leaf.op] = Leaf(leaf.op, leaf.status, leaf.count, leaf.source_kind, leaf.source_url, leaf.reason)
            elif SEVERITY[leaf.status] > SEVERITY[via[leaf.op].status]:
                via[leaf.op].status = leaf.status
    sites = [s for s, _ in pairs]
    return OpReport(
        op=op, count=len(pairs), status=res.status, via=list(via.values()),
        dtypes=_distinct(s.primary_dtype() for s in sites),
        shapes=_distinct(", ".join(t.describe() for t in s.tensor_args()) for s in sites)[:5],
        module_paths=_distinct(s.module_path if s.module_path else ("(root)" if s.module_path == "" else None) for s in sites),
        source_kind=res.source_kind, source_url=res.source_url, backend_version=res.backend_version,
        reason=res.reason, conditions=res.conditions, phases=_distinct(s.phase for s in sites), basis=res.basis,
        first_index=sites[0].index, local_report=res.local_report,
    )


def _distinct(values: Iterable[Any]) -> list:
    return [v for v in dict.fromkeys(values) if v]


def fallback_calls_at(res: Resolution) -> int:
    """Device↔host round trips one call makes: 1 for a fallback op, one per fallback leaf."""
    if res.status == "fallback" and not res.via:
        return 1
    return sum(leaf.count for leaf in res.via if leaf.status == "fallback")


def eager_cost(sites: list[CallSite], per_site: dict[int, Resolution]) -> dict:
    """What CPU fallback costs in eager mode, walking the calls in graph order.

    The boxed CPU fallback copies a call's tensor arguments to the host and its results
    back, so each fallback call is two transitions. `fallback_runs` counts stretches of
    consecutive fallback calls: the fewest round trips if those stretches ran on the CPU.
    """
    calls = transitions = runs = nbytes = 0
    previous_fallback = False
    for site in sites:
        n = fallback_calls_at(per_site[site.index])
        if n:
            calls += n
            transitions += 2 * n
            nbytes += sum(t.nbytes for t in site.tensor_args()) + sum(
                t.nbytes for t in site.outputs if isinstance(t, TensorSpec))
            if not previous_fallback:
                runs += 1
        previous_fallback = bool(n)
    return {"fallback_calls": calls, "transitions": transitions, "fallback_runs": runs, "bytes_copied": nbytes}


def compile_effects(target: str, sites: list[CallSite], per_site: dict[int, Resolution]) -> dict:
    """Ops that would break the captured graph or fail its compilation, in graph order."""
    fallback_effect = COMPILE_FALLBACK_EFFECT.get(target, DEFAULT_COMPILE_FALLBACK_EFFECT)
    effects: OrderedDict[str, str] = OrderedDict()
    breaks = 0
    previous = False
    for site in sites:
        status = per_site[site.index].status
        if status in _PROBLEM_STATUSES:
            effect = {"fallback": fallback_effect, UNKNOWN: "unknown (may break or fail)"}.get(status, "compile error")
            effects.setdefault(site.op, effect)
            # only a fallback is known to break the graph; an unknown op may or may not
            if status == "fallback" and not previous:
                breaks += 1
            previous = status == "fallback"
        else:
            previous = False
    return {
        "fallback_effect": fallback_effect,
        "ops": [{"op": op, "effect": effect} for op, effect in effects.items()],
        "graph_breaks": breaks if fallback_effect == "graph break" else 0,
        "fails": any(e == "compile error" for e in effects.values()),
    }


# Hooks that add warnings to a report: known limitations and end-of-support notices are
# other modules' knowledge; they register a function here (or pass `warning_hooks=`).
WarningHook = Callable[["CheckReport", TracedModel], Iterable[str]]
WARNING_HOOKS: list[WarningHook] = []
# Functions that fill a report's further answers once its ops are resolved:
# (report, traced, per_site, lookup, cost_overrides=) → None. kb.check registers kb.check.assess.
ANNOTATORS: list[Callable] = []


def check(traced: TracedModel, lookup: Lookup, *, target: str, backend_version: str | None = None,
          mode: str = "eager", warning_hooks: Iterable[WarningHook] | None = None,
          cost_overrides: dict | None = None) -> CheckReport:
    """The full report for one target (`cost_overrides`: kb.check.hostcost parameters)."""
    ops, per_site = resolve(traced.sites, lookup)
    if mode == "eager":
        for op in ops:
            op.fallback_calls = 0
        by_op = {op.op: op for op in ops}
        for site in traced.sites:
            n = fallback_calls_at(per_site[site.index])
            if n:
                by_op[site.op].fallback_calls += n
                by_op[site.op].bytes_to_host += sum(t.nbytes for t in site.tensor_args())
    report = CheckReport(
        model=traced.path, model_kind=traced.kind, target=target, backend_version=backend_version,
        mode=mode, ops=ops, call_sites=len(traced.sites), notes=list(traced.notes),
    )
    if mode == "eager":
        report.eager = eager_cost(traced.sites, per_site)
    else:
        report.compile = compile_effects(target, traced.sites, per_site)
    for annotate in ANNOTATORS:
        annotate(report, traced, per_site, lookup, cost_overrides=cost_overrides)
    for hook in WARNING_HOOKS if warning_hooks is None else warning_hooks:
        report.warnings.extend(hook(report, traced))
    return report


# --- saved reports (`kb check --save`, schema 3) -----------------------------------------------


def file_sha256(path: str) -> str | None:
    """Hash of the model file (streamed: checkpoints can be large); None for folders."""
    import hashlib

    from kb import userfiles

    if not userfiles.is_regular(path):
        return None
    digest = hashlib.sha256()
    with userfiles.open_file(path, userfiles.MAX_MODEL_BYTES) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def save_report(conn, report: CheckReport, *, model_sha256: str | None, tool_version: str | None) -> int:
    """Store one report (checkreport row and one checkop row per op); returns its id.
    The caller commits."""
    import json

    from kb.store.records import utc_now

    body = report.to_dict()
    cursor = conn.execute(
        "INSERT INTO checkreport (created_at, model, model_sha256, target, backend_version, mode, verdict,"
        " report_json, tool_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (utc_now(), report.model, model_sha256, report.target, report.backend_version, report.mode,
         worst(op.status for op in report.ops) if report.ops else "native",
         json.dumps(body, default=str), tool_version),
    )
    report_id = cursor.lastrowid
    conn.executemany(
        "INSERT INTO checkop (report_id, op, count, status, via, source_kind, source_url, module_paths)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(report_id, op.op, op.count, op.status, ", ".join(leaf.op for leaf in op.via) or None,
          op.source_kind, op.source_url, json.dumps(op.module_paths)) for op in report.ops],
    )
    return report_id
