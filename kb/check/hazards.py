"""What will go wrong under torch.compile (and what costs a sync in eager), read from the
graph itself: data-dependent output sizes, host syncs, dynamic dimensions.

An export records these plainly: an op whose output size depends on the data
(`nonzero`, `masked_select`, `unique`…) gets an unbacked size symbol (`u0`), `.item()`
stays as `aten::item` / `_local_scalar_dense`, and a dimension exported as dynamic gets a
backed symbol (`s77`) with its range in `range_constraints` (kb.check.pt2_graph keeps
them in TracedModel.symbols). What each means depends on the target and mode; the rules
below say so, each with the page it rests on, and name the usual remedy.
"""

from __future__ import annotations

from collections import OrderedDict

from kb.check.callsites import CallSite, TensorSpec, TracedModel
from kb.check.work import base_name, site_work

# Ops whose output size depends on the input's values.
DATA_DEPENDENT = frozenset({"nonzero", "nonzero_numpy", "argwhere", "masked_select", "unique", "_unique",
                            "_unique2", "unique_dim", "unique_consecutive", "unique_dim_consecutive",
                            "bincount"})
# Ops that hand a device value to Python: the host waits for the device.
HOST_SYNC = frozenset({"item", "_local_scalar_dense", "equal", "is_nonzero", "allclose"})

NEURON_STATIC = "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/compiler/error-codes/EMOD025.html"
NEURON_COMPILE = "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/torch/compile/reference-torch-compile.html"
TORCH_DYNAMIC = "https://docs.pytorch.org/docs/main/torch.compiler_dynamic_shapes.html"
TORCH_RECOMPILE = "https://docs.pytorch.org/docs/stable/compile/programming_model.recompilation.html"
XLA_TPU_DYNAMIC = "https://docs.pytorch.org/xla/release/r2.8/learn/dynamic_shape.html"

FIXES = {
    "data_dependent_shape": ("give the output a fixed size: torch.nonzero_static(x, size=N), or keep the full "
                             "tensor and use a mask (torch.where, masked_fill) instead of boolean indexing / "
                             "masked_select"),
    "host_sync": "keep the value a tensor (no .item(), int() or bool() of a device tensor inside the step), "
                 "or move the check outside the compiled region",
    "dynamic_dim": "pad or bucket this dimension to a few fixed sizes and compile with dynamic=False",
}

# (kind, target, mode) → (effect, source); target None is any other target.
RULES: dict[tuple[str, str | None, str], tuple[str, str]] = {
    ("data_dependent_shape", "neuron", "compile"): (
        "compile failure: the Neuron compiler needs every dimension static", NEURON_STATIC),
    ("data_dependent_shape", "tpu", "compile"): (
        "graph break (dynamo does not capture data-dependent output sizes by default); TPU programs need "
        "statically sized, at best bounded, shapes", XLA_TPU_DYNAMIC),
    ("data_dependent_shape", None, "compile"): (
        "graph break (dynamo does not capture data-dependent output sizes by default)", TORCH_DYNAMIC),
    ("data_dependent_shape", None, "eager"): (
        "runs, but the output size is read back from the device: a host sync per call", TORCH_DYNAMIC),
    ("host_sync", None, "compile"): (
        "graph break at the read-back (scalar outputs are not captured by default): the step runs as separate "
        "graphs with a host round trip between them", TORCH_DYNAMIC),
    ("host_sync", None, "eager"): (
        "host sync: the host waits for the device and copies the value back, once per call", TORCH_DYNAMIC),
    ("dynamic_dim", "neuron", "compile"): (
        "recompiles for every new size: torch.compile on Neuron takes dynamic=False only, so each new size is "
        "compiled as a new static graph", NEURON_COMPILE),
    ("dynamic_dim", "tpu", "compile"): (
        "recompiles for every new size: TPU programs are compiled for static shapes", XLA_TPU_DYNAMIC),
    ("dynamic_dim", None, "compile"): (
        "recompiles for a new size (up to torch._dynamo's recompile limit, then eager) unless the backend "
        "takes dynamic shapes", TORCH_RECOMPILE),
}


def rule(kind: str, target: str, mode: str) -> tuple[str, str] | None:
    return RULES.get((kind, target, mode)) or RULES.get((kind, None, mode))


def _kind_of(site: CallSite) -> str | None:
    base = base_name(site.op)
    if base in HOST_SYNC:
        return "host_sync"
    if base in DATA_DEPENDENT:
        return "data_dependent_shape"
    if base == "repeat_interleave" and site.op.endswith(".Tensor") and _arg(site, "output_size") is None:
        return "data_dependent_shape"
    if base == "index" and any(isinstance(t, TensorSpec) and t.dtype in ("bool", "uint8")
                               for t in _index_tensors(site)):
        return "data_dependent_shape"  # boolean-mask indexing: x[mask]
    return None


def _arg(site: CallSite, name: str):
    return (site.named or site.kwargs or {}).get(name)


def _index_tensors(site: CallSite) -> list:
    indices = _arg(site, "indices")
    if indices is None and len(site.args) > 1:
        indices = site.args[1]
    return list(indices) if isinstance(indices, (list, tuple)) else []


def sync_sites(traced: TracedModel) -> list[int]:
    """The calls that wait for the device in eager mode (host syncs, data-dependent sizes)."""
    unbacked = set(traced.symbols.get("unbacked_sites") or [])
    return [s.index for s in traced.sites if _kind_of(s) or s.index in unbacked]


def find(traced: TracedModel, target: str, mode: str) -> list[dict]:
    """The hazards of one model on one target and mode: one entry per kind × op × module."""
    found: OrderedDict[tuple, dict] = OrderedDict()
    # Calls whose output the export gave an unbacked size (its own word that the size is
    # data-dependent), whatever the op: a custom op or one this module does not list.
    unbacked = set(traced.symbols.get("unbacked_sites") or [])
    for site in traced.sites:
        kind = _kind_of(site) or ("data_dependent_shape" if site.index in unbacked else None)
        if kind is None:
            continue
        stated = rule(kind, target, mode)
        if stated is None:
            continue
        module = site.module_path if site.module_path else ("(root)" if site.module_path == "" else None)
        key = (kind, site.op, module)
        entry = found.get(key)
        done = site_work(site)
        if entry is None:
            found[key] = {"kind": kind, "op": site.op, "module": module, "mode": mode, "effect": stated[0],
                          "fix": FIXES[kind], "source": stated[1], "calls": 1, "flops": done.flops,
                          "bytes": done.nbytes}
        else:
            entry["calls"] += 1
            entry["flops"] += done.flops
            entry["bytes"] += done.nbytes
    for name, about in (traced.symbols.get("dynamic") or {}).items():
        stated = rule("dynamic_dim", target, mode)
        if stated is None:
            continue
        span = f"{about.get('min')}..{about.get('max')}"
        found[("dynamic_dim", name)] = {
            "kind": "dynamic_dim", "op": None, "module": about.get("where"), "mode": mode,
            "effect": stated[0], "fix": FIXES["dynamic_dim"], "source": stated[1], "calls": 0, "flops": 0, "bytes": 0,
            "symbol": name, "range": span}
    return list(found.values())


def compile_blockers(hazards: list[dict]) -> list[dict]:
    """The hazards that make compilation fail (as opposed to breaking or recompiling)."""
    return [h for h in hazards if h["mode"] == "compile" and h["effect"].startswith("compile failure")]
