"""Read an ExportedProgram archive (`torch.export.save`) as data, without torch.

The archive's graph is JSON (torch's export schema): every node names its op
(`torch.ops.aten.linear.default`), its arguments by schema name, the tensors' dtypes and
shapes (`tensor_values`) and the module that made the call (`nn_module_stack` metadata).
Reading that JSON directly, instead of rebuilding the program with torch's deserializer,
means:

- no Python object is rebuilt: output types registered as pytree nodes by other
  libraries (transformers' ModelOutput dataclasses), custom objects and the pickled
  sample inputs are never touched, and no third-party module is imported;
- a custom op of any namespace is just a name (its kernel need not be registered here);
- torch is not imported at all, which is most of a check's time;
- the layouts torch has written are all readable: the PT2 archive
  (`<root>/models/<name>.json`, torch 2.7 on) and the older flat archive
  (`serialized_exported_program.json` with a `version` file, up to torch 2.6).

Schema versions differ only in fields this reader does not need or reads defensively:
an argument without `kind` (older archives) is positional, an unknown argument kind is
kept as its raw text.

Bounds: the graph member may be at most MAX_GRAPH_BYTES uncompressed, JSON nesting at
most MAX_JSON_DEPTH, higher-order-op subgraphs at most MAX_SUBGRAPH_DEPTH deep, and at
most MAX_NODES nodes in all.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from dataclasses import dataclass, field
from typing import Any

from kb.check import model_formats as mf
from kb.check.callsites import CallSite, TensorSpec, TracedModel, _module_from_stack
from kb.opnames import OpNameError, canonical

MAX_GRAPH_BYTES = 512 * 1024 * 1024  # the graph JSON, uncompressed
MAX_JSON_DEPTH = 200  # nesting of the graph JSON
MAX_SUBGRAPH_DEPTH = 16  # higher-order ops (cond, map, wrappers) nesting graphs
MAX_NODES = 2_000_000

# torch._export.serde.schema.ScalarType values (stable across schema versions).
_DTYPES = {
    1: "uint8", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "float16", 7: "float32",
    8: "float64", 9: "complex32", 10: "complex64", 11: "complex128", 12: "bool", 13: "bfloat16",
    28: "uint16", 29: "float8_e4m3fn", 30: "float8_e5m2", 31: "float8_e4m3fnuz",
    32: "float8_e5m2fnuz", 33: "float8_e8m0fnu", 34: "uint32", 35: "uint64",
}
_LAYOUTS = {1: "sparse_coo", 2: "sparse_csr", 3: "sparse_csc", 4: "sparse_bsr", 5: "sparse_bsc",
            6: "_mkldnn", 7: "strided"}
_MEMORY_FORMATS = {1: "contiguous_format", 2: "channels_last", 3: "channels_last_3d", 4: "preserve_format"}

POSITIONAL, KEYWORD = 1, 2  # torch._export.serde.schema.ArgumentKind

# Higher-order ops that only run their subgraph under a mode (grad, autocast) or call it:
# the subgraph's calls are what a backend runs, and are listed instead.
_TRANSPARENT = frozenset({"higher_order::wrap_with_set_grad_enabled", "higher_order::wrap_with_autocast",
                          "higher_order::invoke_subgraph"})
# Higher-order ops that carry another op as their first argument (a mutating op made
# functional, an op with side effects put in order): that op is what runs.
_CARRYING = frozenset({"higher_order::auto_functionalized", "higher_order::auto_functionalized_v2",
                       "higher_order::with_effects"})
GRAPH_NAMESPACES = ("aten", "prims")  # ops kb has a catalog for; others are custom


@dataclass(frozen=True)
class TorchValue:
    """A dtype, layout, memory format or device argument, by name (torch not needed).
    `to_torch()` gives the torch object when a decomposition is traced."""

    kind: str  # dtype | layout | memory_format | device
    name: str

    def to_torch(self):
        import torch

        if self.kind == "device":
            return torch.device(self.name)
        return getattr(torch, self.name)

    def __repr__(self) -> str:
        return f"torch.{self.name}" if self.kind != "device" else f"device({self.name!r})"


@dataclass(frozen=True)
class GraphRef:
    """A subgraph argument of a higher-order op (its calls are read as sites too)."""

    name: str


@dataclass
class ArchiveGraph:
    """What the archive says about itself, besides its calls."""

    layout: str  # "pt2" (models/<name>.json) or "legacy" (serialized_exported_program.json)
    member: str
    schema_version: str | None
    torch_version: str | None
    read_through: list[str] = field(default_factory=list)  # wrapper higher-order ops, listed by their body
    backward_calls: int = 0  # calls a joint forward+backward graph runs after its loss
    attributed: int = 0  # calls given a module from their source line
    symbols: dict = field(default_factory=dict)  # see read_symbols


def is_custom(op: str) -> bool:
    """An op outside the namespaces kb catalogues (aten, prims) or higher-order ops."""
    namespace = op.partition("::")[0]
    return namespace not in GRAPH_NAMESPACES and namespace != "higher_order"


def op_from_target(target: str) -> str | None:
    """`torch.ops.aten.add.Tensor` → `aten::add.Tensor`; `torch.ops.mylib.scale.default` →
    `mylib::scale`; `torch.ops.higher_order.cond` → `higher_order::cond`. None for Python
    callables (`_operator.getitem`, `torch.sym_max`), which never reach a backend."""
    if not target.startswith("torch.ops."):
        return None
    parts = target[len("torch.ops."):].split(".")
    if len(parts) < 2 or not all(parts):
        return None
    namespace = parts[0]
    if namespace == "higher_order":
        return "higher_order::" + ".".join(parts[1:])
    if len(parts) == 2:  # an overload packet, not an overload: the default one
        base, overload = parts[1], ""
    else:
        base, overload = ".".join(parts[1:-1]), parts[-1]
    overload = "" if overload == "default" else overload
    if namespace == "aten":
        try:
            return canonical(f"aten::{base}.{overload}" if overload else f"aten::{base}")
        except OpNameError:
            pass
    return f"{namespace}::{base}" + (f".{overload}" if overload else "")


# --- the archive -------------------------------------------------------------------------


_PT2_GRAPH = re.compile(r"(?:[^/]+/)?models/[^/]+\.json")
_LEGACY_GRAPH = re.compile(r"(?:[^/]+/)?serialized_exported_program\.json")


def find_graph_member(names: list[str]) -> tuple[str, str] | None:
    """(member, layout) of the graph JSON in an archive's member names, or None. A PT2
    archive may hold several models; `model` is the one `torch.export.save` writes."""
    models = sorted(n for n in names if _PT2_GRAPH.fullmatch(n))
    if models:
        preferred = [n for n in models if n.endswith("models/model.json")]
        return (preferred or models)[0], "pt2"
    legacy = sorted((n for n in names if _LEGACY_GRAPH.fullmatch(n)), key=len)
    return (legacy[0], "legacy") if legacy else None


def read_document(path: str) -> tuple[dict, ArchiveGraph]:
    """The graph JSON of the archive at `path`, bounded, and where it came from."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            found = find_graph_member(names)
            if found is None:
                raise mf.ModelInputError(f"{path}: an export archive without a model graph (re-save it with torch.export.save)")
            member, layout = found
            info = archive.getinfo(member)
            if info.file_size > MAX_GRAPH_BYTES:
                raise mf.ModelInputError(f"{path}: the graph ({member}) is {info.file_size >> 20} MB, over kb's "
                                         f"{MAX_GRAPH_BYTES >> 20} MB bound")
            with archive.open(info) as fh:
                data = fh.read(MAX_GRAPH_BYTES + 1)  # the header's size can lie
            if len(data) > MAX_GRAPH_BYTES:
                raise mf.ModelInputError(f"{path}: the graph ({member}) is over kb's {MAX_GRAPH_BYTES >> 20} MB bound")
            version = _small_text(archive, names, member, "version" if layout == "legacy" else None)
    except mf.ModelInputError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, KeyError, RuntimeError) as exc:
        raise mf.ModelInputError(f"{path}: damaged export archive ({type(exc).__name__}: {mf._short(exc)})") from None
    document = _bounded_json(data, path, member)
    if not isinstance(document, dict) or not isinstance(document.get("graph_module"), dict):
        raise mf.ModelInputError(f"{path}: {member} is not an exported program's graph")
    schema = document.get("schema_version")
    if isinstance(schema, dict):
        version = f"{schema.get('major')}.{schema.get('minor')}"
    torch_version = document.get("torch_version") if isinstance(document.get("torch_version"), str) else None
    return document, ArchiveGraph(layout, member, version, torch_version)


def _small_text(archive: zipfile.ZipFile, names: list[str], member: str, name: str | None) -> str | None:
    if name is None:
        return None
    folder = member.rpartition("/")[0]
    wanted = f"{folder}/{name}" if folder else name
    if wanted not in names or archive.getinfo(wanted).file_size > 64:
        return None
    return archive.read(wanted).decode("utf-8", "replace").strip() or None


def _bounded_json(data: bytes, path: str, member: str) -> Any:
    """json.loads with nesting bounded: the C parser counts nesting against the recursion
    limit, so the limit is set to the current depth plus MAX_JSON_DEPTH while it runs."""
    depth = _frame_depth()
    old = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(depth + MAX_JSON_DEPTH)
        return json.loads(data)
    except RecursionError:
        raise mf.ModelInputError(f"{path}: {member} nests deeper than kb's bound ({MAX_JSON_DEPTH})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise mf.ModelInputError(f"{path}: {member} is not valid JSON ({mf._short(exc)})") from None
    finally:
        sys.setrecursionlimit(old)


def _frame_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


# --- the graph ---------------------------------------------------------------------------


class _GraphReader:
    """Turns one graph (and the subgraphs its higher-order ops carry) into CallSites."""

    def __init__(self, path: str):
        self.path = path
        self.sites: list[CallSite] = []
        self.nodes = 0
        self.read_through: set[str] = set()
        # Top-level data flow (input names, output names, site index or None) and each
        # site's source line: what phases and joint-graph module attribution are read from.
        self.flow: list[tuple[list[str], list[str], int | None]] = []
        self.lines: dict[int, str] = {}
        self.unbacked: dict[str, int] = {}  # unbacked size symbol → the call whose output first carries it

    def read(self, graph: dict, depth: int = 0) -> None:
        if depth > MAX_SUBGRAPH_DEPTH:
            raise mf.ModelInputError(f"{self.path}: subgraphs nest deeper than kb's bound ({MAX_SUBGRAPH_DEPTH})")
        if not isinstance(graph, dict):
            raise mf.ModelInputError(f"{self.path}: malformed graph (expected an object)")
        tensors = graph.get("tensor_values") or {}
        symbols = {**(graph.get("sym_int_values") or {}), **(graph.get("sym_float_values") or {}),
                   **(graph.get("sym_bool_values") or {})}
        values = _Values(tensors, symbols)  # one per graph: tensor specs are shared by name
        for node in graph.get("nodes") or []:
            self.nodes += 1
            if self.nodes > MAX_NODES:
                raise mf.ModelInputError(f"{self.path}: more than {MAX_NODES} nodes, over kb's bound")
            if not isinstance(node, dict) or not isinstance(node.get("target"), str):
                raise mf.ModelInputError(f"{self.path}: malformed graph node")
            self._node(node, values, depth)

    def _node(self, node: dict, values: _Values, depth: int) -> None:
        op = op_from_target(node["target"])
        args: list = []
        kwargs: dict = {}
        named: dict = {}
        subgraphs: list[dict] = []
        for position, item in enumerate(node.get("inputs") or []):
            if not isinstance(item, dict):
                continue
            arg = item.get("arg")
            if isinstance(arg, dict) and isinstance(arg.get("as_graph"), dict):
                subgraphs.append(arg["as_graph"].get("graph") or {})
            value = values.of(arg)
            name = item.get("name") or f"arg{position}"
            named[name] = value
            if item.get("kind") == KEYWORD:
                kwargs[name] = value
            else:  # positional, or an older archive that did not record the kind
                args.append(value)
        if op in _TRANSPARENT:  # its body's calls are read below, as the ones that run
            self.read_through.add(op)
            op = None
        elif op in _CARRYING and args and isinstance(args[0], str) and op_from_target(args[0]):
            op, args = op_from_target(args[0]), args[1:]  # the op it functionalizes or orders
            named = {k: v for k, v in named.items() if not (isinstance(v, str) and op_from_target(v))}
        index = None
        if op is not None:
            metadata = node.get("metadata") or {}
            if "nn_module_stack" in metadata:
                path, module_type = _module_from_stack(parse_module_stack(metadata.get("nn_module_stack")))
            else:  # not recorded (joint graphs drop it): unknown, not the root module
                path, module_type = None, None
            outputs = tuple(values.of(out) for out in node.get("outputs") or [])
            index = len(self.sites)
            self.sites.append(CallSite(
                index=index, op=op, args=tuple(args), kwargs=kwargs, outputs=_tensors_only(outputs),
                module_path=path, module_type=module_type, named=named,
            ))
            trace = metadata.get("stack_trace")
            if isinstance(trace, str) and trace.strip():
                self.lines[index] = trace.strip().splitlines()[-1][:500]
        if depth == 0:
            self.flow.append((_ref_names(node.get("inputs")), _ref_names(node.get("outputs")), index))
        if index is not None:
            for name in _ref_names(node.get("outputs")):
                for symbol in _unbacked_in(values.tensors.get(name), values.symbols.get(name)):
                    self.unbacked.setdefault(symbol, index)
        for sub in subgraphs:
            self.read(sub, depth + 1)


def _ref_names(value: Any, depth: int = 0) -> list[str]:
    """Names of the tensors and symbols a node's inputs or outputs refer to."""
    names: list[str] = []
    if depth > 8:
        return names
    if isinstance(value, list):
        for item in value:
            names.extend(_ref_names(item, depth + 1))
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in ("as_tensor", "as_sym_int", "as_sym_float", "as_sym_bool") and isinstance(item, dict):
                name = item.get("name") or item.get("as_name")
                if isinstance(name, str):
                    names.append(name)
            elif key != "as_graph":
                names.extend(_ref_names(item, depth + 1))
    return names


_UNBACKED = re.compile(r"\b((?:u|zuf|zf)\d+)\b")


def _unbacked_in(tensor: Any, symbol: Any) -> list[str]:
    """Unbacked symbols (u0, zuf0) in a tensor's sizes or a symbolic value's expression."""
    texts = []
    sizes = tensor.get("sizes") if isinstance(tensor, dict) else None
    for size in sizes if isinstance(sizes, list) else []:
        expr = size.get("as_expr") if isinstance(size, dict) else None
        if isinstance(expr, dict) and isinstance(expr.get("expr_str"), str):
            texts.append(expr["expr_str"])
    expr = symbol.get("as_expr") if isinstance(symbol, dict) else None
    if isinstance(expr, dict) and isinstance(expr.get("expr_str"), str):
        texts.append(expr["expr_str"])
    return [m for text in texts for m in _UNBACKED.findall(text.replace("Symbol('", " ").replace("'", " "))]


def label_phases(sites: list[CallSite], flow: list, loss: str | None) -> int:
    """In a joint forward+backward graph (its signature names a loss output), the calls the
    loss depends on are the forward pass and every other call is backward. Returns how
    many calls were labelled backward (0 for a forward-only graph)."""
    if not loss:
        return 0
    producer = {}
    for position, (_inputs, outputs, _index) in enumerate(flow):
        for name in outputs:
            producer.setdefault(name, position)
    needed, stack = set(), [loss]
    while stack:
        position = producer.get(stack.pop())
        if position is None or position in needed:
            continue
        needed.add(position)
        stack.extend(flow[position][0])
    forward = {flow[p][2] for p in needed if flow[p][2] is not None}
    backward = 0
    for site in sites:
        if site.index not in forward:
            site.phase = "backward"
            backward += 1
    return backward


def attribute_modules(sites: list[CallSite], lines: dict[int, str]) -> int:
    """A call with no module recorded gets the module of a call made from the same source
    line (a backward op points at the forward line that made it). Returns how many."""
    by_line: dict[str, tuple[str, str | None]] = {}
    for site in sites:
        line = lines.get(site.index)
        if line and site.module_path is not None:
            by_line.setdefault(line, (site.module_path, site.module_type))
    done = 0
    for site in sites:
        line = lines.get(site.index)
        if site.module_path is None and line in by_line:
            site.module_path, site.module_type = by_line[line]
            done += 1
    return done


_VIEWISH = frozenset({"aten::permute", "aten::view", "aten::t", "aten::transpose.int", "aten::reshape",
                      "aten::_unsafe_view", "aten::squeeze.dim", "aten::unsqueeze", "aten::expand"})


def attribute_by_parameters(sites: list[CallSite], flow: list, document: dict) -> int:
    """Joint graphs record no module stack. Their signature still names each parameter
    (`fc.weight`) and which output is whose gradient: a call that reads a parameter, or
    makes a parameter's gradient (through views), belongs to that parameter's module."""
    signature = (document.get("graph_module") or {}).get("signature")
    if not isinstance(signature, dict):
        return 0
    owner: dict[str, str] = {}  # placeholder name → module path
    for spec in signature.get("input_specs") or []:
        for kind in ("parameter", "buffer"):
            entry = spec.get(kind) if isinstance(spec, dict) else None
            if isinstance(entry, dict) and isinstance(entry.get("arg"), dict):
                target = entry.get("parameter_name") or entry.get("buffer_name")
                if isinstance(target, str) and isinstance(entry["arg"].get("name"), str):
                    owner[entry["arg"]["name"]] = target.rpartition(".")[0]
    grads: dict[str, str] = {}  # output name → module of the parameter it is the gradient of
    for spec in signature.get("output_specs") or []:
        entry = spec.get("gradient_to_parameter") if isinstance(spec, dict) else None
        if isinstance(entry, dict) and isinstance(entry.get("arg"), dict) and isinstance(entry.get("parameter_name"), str):
            grads[entry["arg"].get("name")] = entry["parameter_name"].rpartition(".")[0]
    by_index = {site.index: site for site in sites}
    producer = {name: position for position, (_i, outputs, _s) in enumerate(flow) for name in outputs}
    done = 0

    def give(position: int, module: str) -> bool:
        site = by_index.get(flow[position][2])
        if site is None or site.module_path is not None or not module:
            return False
        site.module_path = module
        return True

    for position, (inputs, _outputs, _index) in enumerate(flow):
        read = next((owner[name] for name in inputs if name in owner), None)
        if read is not None and give(position, read):
            done += 1
    for name, module in grads.items():
        position = producer.get(name)
        while position is not None:
            site = by_index.get(flow[position][2])
            if give(position, module):
                done += 1
            if site is None or site.op not in _VIEWISH or not flow[position][0]:
                break
            position = producer.get(flow[position][0][0])
    return done


_SYMBOL = re.compile(r"\b((?:s|u|zuf|zf)\d+)\b")


def read_symbols(document: dict) -> dict:
    """Dynamic (backed) and unbacked size symbols of the export, with ranges and, for a
    dynamic one, the first tensor dimension that carries it (`x dim 0`)."""
    ranges = document.get("range_constraints")
    if not isinstance(ranges, dict) or not ranges:
        return {}
    graph = (document.get("graph_module") or {}).get("graph") or {}
    where: dict[str, str] = {}
    tensors = graph.get("tensor_values") if isinstance(graph, dict) else None
    for name, meta in (tensors if isinstance(tensors, dict) else {}).items():
        sizes = meta.get("sizes") if isinstance(meta, dict) else None
        for position, size in enumerate(sizes if isinstance(sizes, list) else []):
            expr = size.get("as_expr") if isinstance(size, dict) else None
            text = expr.get("expr_str") if isinstance(expr, dict) else None
            if isinstance(text, str):
                for symbol in _SYMBOL.findall(text.replace("Symbol('", " ").replace("'", " ")):
                    where.setdefault(symbol, f"input {name} dim {position}")
    dynamic, unbacked = {}, []
    for symbol, span in list(ranges.items())[:10_000]:
        if not isinstance(symbol, str):
            continue
        span = span if isinstance(span, dict) else {}
        if symbol.startswith("s"):
            dynamic[symbol] = {"min": span.get("min_val"), "max": span.get("max_val"), "where": where.get(symbol)}
        else:
            unbacked.append(symbol)
    return {"dynamic": dynamic, "unbacked": unbacked}


def _loss_output(document: dict) -> str | None:
    signature = (document.get("graph_module") or {}).get("signature")
    specs = signature.get("output_specs") if isinstance(signature, dict) else None
    for spec in specs if isinstance(specs, list) else []:
        loss = spec.get("loss_output") if isinstance(spec, dict) else None
        if isinstance(loss, dict):
            arg = loss.get("arg") or {}
            name = arg.get("name") if isinstance(arg, dict) else None
            if isinstance(name, str):
                return name
    return None


def _tensors_only(values: tuple) -> tuple:
    out = []
    for value in values:
        if isinstance(value, TensorSpec):
            out.append(value)
        elif isinstance(value, tuple):
            out.extend(v for v in value if isinstance(v, TensorSpec))
    return tuple(out)


class _Values:
    """Argument values of one graph: tensors as TensorSpec, symbols as their hints."""

    def __init__(self, tensors: dict, symbols: dict):
        self.tensors = tensors
        self.symbols = symbols
        self._specs: dict[str, TensorSpec] = {}

    def tensor(self, ref: Any) -> TensorSpec:
        name = ref.get("name") if isinstance(ref, dict) else None
        spec = self._specs.get(name)
        if spec is None:
            spec = self._specs[name] = tensor_spec(self.tensors.get(name))
        return spec

    def symbol(self, ref: Any) -> Any:
        """A SymInt/SymFloat/SymBool argument: its value, or the hint of its symbol."""
        if not isinstance(ref, dict):
            return None
        if "as_name" in ref:
            return _hint(self.symbols.get(ref["as_name"]))
        for key in ("as_int", "as_float", "as_bool"):
            if key in ref:
                return ref[key]
        return None

    def of(self, arg: Any) -> Any:  # noqa: C901 - one branch per schema union member
        if not isinstance(arg, dict) or not arg:
            return None
        key, value = next(iter(arg.items()))
        if key == "as_none":
            return None
        if key == "as_tensor":
            return self.tensor(value)
        if key == "as_tensors":
            return tuple(self.tensor(v) for v in value or [])
        if key in ("as_optional_tensors",):
            return tuple(self.tensor(v["as_tensor"]) if isinstance(v, dict) and "as_tensor" in v else None
                         for v in value or [])
        if key == "as_optional_tensor":
            return self.tensor(value["as_tensor"]) if isinstance(value, dict) and "as_tensor" in value else None
        if key in ("as_int", "as_float", "as_bool", "as_string", "as_operator"):
            return value
        if key in ("as_ints", "as_floats", "as_bools", "as_strings"):
            return tuple(value or [])
        if key in ("as_int_lists", "as_float_lists"):
            return tuple(tuple(v) for v in value or [])
        if key in ("as_sym_int", "as_sym_float", "as_sym_bool"):
            return self.symbol(value)
        if key in ("as_sym_ints", "as_sym_floats", "as_sym_bools"):
            return tuple(self.symbol(v) for v in value or [])
        if key == "as_scalar_type":
            return TorchValue("dtype", _DTYPES.get(value, f"scalar_type_{value}"))
        if key == "as_layout":
            return TorchValue("layout", _LAYOUTS.get(value, f"layout_{value}"))
        if key == "as_memory_format":
            return TorchValue("memory_format", _MEMORY_FORMATS.get(value, f"memory_format_{value}"))
        if key == "as_device":
            device = value if isinstance(value, dict) else {}
            index = device.get("index")
            return TorchValue("device", f"{device.get('type', 'cpu')}" + (f":{index}" if index is not None else ""))
        if key == "as_complex":
            return complex(value.get("real", 0.0), value.get("imag", 0.0)) if isinstance(value, dict) else None
        if key == "as_graph":
            return GraphRef(value.get("name", "") if isinstance(value, dict) else "")
        if key == "as_custom_obj":
            return f"<{value.get('class_fqn', 'custom object')}>" if isinstance(value, dict) else "<custom object>"
        if key == "as_nested_tensors":
            return tuple(tuple(self.tensor(t) for t in inner) for inner in value or [])
        if key == "as_string_to_argument":
            return {k: self.of(v) for k, v in (value or {}).items()}
        return f"<{key}>"  # a member a newer schema added: kept visible, not interpreted


def _hint(symbolic: Any) -> int | float | bool | None:
    """The concrete value of a serialized SymInt/SymFloat/SymBool: itself, or its hint."""
    if not isinstance(symbolic, dict):
        return symbolic if isinstance(symbolic, (int, float, bool)) else None
    for key in ("as_int", "as_float", "as_bool"):
        if key in symbolic:
            return symbolic[key]
    expr = symbolic.get("as_expr")
    if isinstance(expr, dict):
        hint = expr.get("hint")
        if isinstance(hint, dict):
            for value in hint.values():
                return value
    return None


def tensor_spec(meta: Any) -> TensorSpec:
    """TensorSpec of a serialized TensorMeta; shape None where a size has no hint."""
    if not isinstance(meta, dict):
        return TensorSpec(None, None)
    dtype = _DTYPES.get(meta.get("dtype"))
    sizes = [_hint(s) for s in meta.get("sizes") or []]
    strides = [_hint(s) for s in meta.get("strides") or []]
    shape = tuple(sizes) if all(isinstance(s, int) for s in sizes) else None
    stride = tuple(strides) if shape is not None and all(isinstance(s, int) for s in strides) else None
    if meta.get("layout") not in (None, 7):  # sparse and other layouts have no strides
        stride = None
    return TensorSpec(shape, dtype, stride)


def parse_module_stack(text: Any) -> dict:
    """`key,path,type;key,path,type` (how export writes nn_module_stack) → {key: (path, type)}.
    Commas inside brackets belong to the path (`layers[0,1]`)."""
    if not isinstance(text, str) or not text:
        return {}
    out: dict = {}
    for item in text.split(";"):
        if "[" not in item and "(" not in item:  # the common case: no commas inside a path
            parts = item.split(",", 2)
            if len(parts) == 3:
                out[parts[0]] = (parts[1], parts[2])
            continue
        parts, start, level = [], 0, 0
        for end, ch in enumerate(item):
            if ch in "[(":
                level += 1
            elif ch in ")]":
                level -= 1
            elif ch == "," and level == 0:
                parts.append(item[start:end])
                start = end + 1
        parts.append(item[start:])
        if len(parts) != 3 and item.count(",") >= 2:
            # Unbalanced brackets (a module named "x\x1b[2Jy"): the key ends at the first comma
            # and the type name (a dotted class name) starts after the last.
            key, rest = item.split(",", 1)
            parts = [key, *rest.rsplit(",", 1)]
        if len(parts) == 3:
            out[parts[0]] = (parts[1], parts[2])
    return out


# --- the whole thing ---------------------------------------------------------------------


def read_sites(path: str) -> tuple[list[CallSite], ArchiveGraph]:
    """Every op call in the archive's graph, in order (subgraphs after their op)."""
    document, about = read_document(path)
    return document_sites(document, about, path)


def document_sites(document: dict, about: ArchiveGraph, path: str) -> tuple[list[CallSite], ArchiveGraph]:
    """Every op call of an export's graph document (read from an archive, or serialized from
    a program in memory by kb.check.tracing.program_document), in order."""
    graph = document["graph_module"].get("graph")
    reader = _GraphReader(path)
    reader.read(graph)
    about.read_through = sorted(reader.read_through)
    about.backward_calls = label_phases(reader.sites, reader.flow, _loss_output(document))
    about.attributed = attribute_modules(reader.sites, reader.lines)
    if about.backward_calls:
        about.attributed += attribute_by_parameters(reader.sites, reader.flow, document)
    about.symbols = read_symbols(document)
    if about.symbols and reader.unbacked:
        about.symbols["unbacked_by"] = {symbol: reader.sites[i].op for symbol, i in reader.unbacked.items()}
        about.symbols["unbacked_sites"] = sorted(set(reader.unbacked.values()))
    return reader.sites, about


def trace_archive(source: mf.ModelSource) -> TracedModel:
    """A TracedModel from the archive's graph alone (torch is not imported)."""
    sites, about = read_sites(source.path)
    return traced_model(sites, about, source.path)


def trace_document(document: dict, name: str) -> TracedModel:
    """A TracedModel from a graph document already in memory (an ExportedProgram the Python
    API was handed, serialized without its weights): read exactly as an archive's graph is,
    so a program checks the same in memory as saved."""
    if not isinstance(document, dict) or not isinstance(document.get("graph_module"), dict):
        raise mf.ModelInputError(f"{name}: not an exported program's graph")
    schema = document.get("schema_version")
    version = f"{schema.get('major')}.{schema.get('minor')}" if isinstance(schema, dict) else None
    torch_version = document.get("torch_version") if isinstance(document.get("torch_version"), str) else None
    sites, about = document_sites(document, ArchiveGraph("memory", "", version, torch_version), name)
    return traced_model(sites, about, name)


def traced_model(sites: list[CallSite], about: ArchiveGraph, path: str) -> TracedModel:
    """The TracedModel of an export's calls, with the notes its graph earns."""
    notes = []
    if about.layout == "legacy":
        notes.append(f"older export archive (schema {about.schema_version or '?'}), read from its graph JSON")
    if about.read_through:
        notes.append(f"{', '.join(about.read_through)}: read through; the ops they wrap are listed")
    custom = sorted({site.op for site in sites if is_custom(site.op)})
    if custom:
        shown = ", ".join(custom[:5]) + (f" +{len(custom) - 5} more" if len(custom) > 5 else "")
        notes.append(f"custom ops (not ATen): {shown} — their implementation is not in the archive")
    if about.backward_calls:
        notes.append(f"joint forward+backward graph: {about.backward_calls} calls after the loss are labelled backward"
                     + (f"; modules of {about.attributed} calls inferred from the parameters they read or whose "
                        "gradients they make (joint graphs record none)" if about.attributed else ""))
    return TracedModel(mf.EXPORTED_PROGRAM, path, sites, notes=notes, train=bool(about.backward_calls),
                       symbols=about.symbols)
