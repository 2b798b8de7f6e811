"""`kb fix MODEL.pt2 --out FIXED.pt2`: the mechanical fix-its as graph passes (torch extra).

A fix-it in data/fixits/fixits.json with a `mechanical` name is one kb can apply to an
ExportedProgram without a person deciding anything: the rewrite is exact (up to
summation order) and local to one node. Each pass here edits the program's graph in
place, keeps the node's metadata (shapes, module stack) so the archive still says where
the call came from, and reports what it changed. `kb check FIXED.pt2` then shows what
remains and `kb parity ORIG.pt2 --against FIXED.pt2` checks the numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kb.errors import KBError


class FixError(KBError):
    """A program kb fix cannot rewrite or save (exit 2)."""


@dataclass
class FixResult:
    model: str
    out: str
    applied: dict[str, int] = field(default_factory=dict)  # pass name → nodes rewritten
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"model": self.model, "out": self.out, "applied": dict(self.applied),
                "rewrites": sum(self.applied.values()), "notes": list(self.notes)}


def _all_ones(value) -> bool:
    values = value if isinstance(value, (list, tuple)) else [value]
    return bool(values) and all(v == 1 for v in values)


def adaptive_avg_pool_to_mean(graph) -> int:
    """adaptive_avg_pool{1,2,3}d(x, output_size=1…) → mean(x, the pooled dims, keepdim=True)."""
    import torch

    aten = torch.ops.aten
    dims_of = {aten.adaptive_avg_pool1d.default: 1, aten.adaptive_avg_pool2d.default: 2,
               aten._adaptive_avg_pool2d.default: 2, aten.adaptive_avg_pool3d.default: 3,
               aten._adaptive_avg_pool3d.default: 3}
    changed = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target not in dims_of:
            continue
        source, size = node.args[0], node.args[1] if len(node.args) > 1 else node.kwargs.get("output_size")
        if not _all_ones(size):
            continue
        dims = list(range(-dims_of[node.target], 0))
        with graph.inserting_before(node):
            mean = graph.call_function(aten.mean.dim, (source, dims, True))
        mean.meta = dict(node.meta)
        node.replace_all_uses_with(mean)
        graph.erase_node(node)
        changed += 1
    return changed


def gelu_to_tanh(graph) -> int:
    """gelu(x) (the erf form) → gelu(x, approximate="tanh"): changes the numbers slightly, so
    kb fix applies it only with --approximate, and kb parity must say whether the model allows it."""
    import torch

    changed = 0
    for node in graph.nodes:
        if node.op == "call_function" and node.target == torch.ops.aten.gelu.default:
            approximate = node.kwargs.get("approximate", node.args[1] if len(node.args) > 1 else "none")
            if approximate == "none":
                node.args = node.args[:1]
                node.kwargs = {**node.kwargs, "approximate": "tanh"}
                changed += 1
    return changed


# The passes, by the `mechanical` name the fix-it data uses.
PASSES: dict[str, Callable] = {"adaptive_avg_pool_to_mean": adaptive_avg_pool_to_mean, "gelu_to_tanh": gelu_to_tanh}


def mechanical_names(approximate: bool = False) -> list[str]:
    """The mechanical fix-its the shipped library names that this module implements; those
    marked approximate (they change the numbers) only when asked for."""
    from kb.check.fixits import graph_fixits

    return [f["mechanical"] for f in graph_fixits()
            if f.get("mechanical") in PASSES and (approximate or not f.get("approximate"))]


def _copy_graph(program):
    """A copy of the program's graph, to see whether a pass would match without changing it."""
    import copy

    return copy.deepcopy(program.graph_module).graph


def _rename_outputs(program) -> None:
    """The signature names each output by its node: a pass that replaced an output node
    leaves the old name there, and torch.export.save refuses the program."""
    output = next(n for n in program.graph_module.graph.nodes if n.op == "output")
    for spec, node in zip(program.graph_signature.output_specs, output.args[0]):
        if hasattr(spec.arg, "name") and hasattr(node, "name"):
            spec.arg.name = node.name


def fix_program(model: str, out: str, *, trust: bool = False, passes: list[str] | None = None,
                approximate: bool = False) -> FixResult:
    """Load MODEL (an ExportedProgram with its weights), apply the passes (default: the exact
    mechanical fix-its, and the approximate ones with `approximate`), save to OUT."""
    import torch

    from kb.check import runmodel

    loaded = runmodel.load_model(model, None, trust=trust)
    if loaded.program is None:
        raise FixError(f"{model}: kb fix rewrites ExportedProgram archives (torch.export.save); "
                       f"this is a {loaded.kind}")
    program = loaded.program
    result = FixResult(model, out)
    for name in passes or mechanical_names(approximate):
        if name not in PASSES:
            raise FixError(f"unknown fix pass {name!r} (expected one of {', '.join(PASSES)})")
        count = PASSES[name](program.graph_module.graph)
        if count:
            result.applied[name] = count
    if result.applied:
        _rename_outputs(program)
        program.graph_module.graph.lint()
        program.graph_module.recompile()
    else:
        result.notes.append(f"no mechanical fix-it matches this program: saved unchanged to {out}")
    if not approximate and any(PASSES[n](_copy_graph(program)) for n in mechanical_names(True)
                               if n not in mechanical_names(False)):
        result.notes.append("approximate rewrites (they change the numbers) also match: --approximate applies them")
    try:
        torch.export.save(program, out)
    except Exception as exc:  # a program torch's serializer refuses
        raise FixError(f"saving {out} failed ({type(exc).__name__}: {str(exc)[:200]})") from None
    return result
