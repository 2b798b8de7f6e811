"""Turn a recognised model into the list of ATen calls it makes, in order.

Every input ends as `CallSite`s: the canonical op name, its argument template (tensors
as `TensorSpec` shape/dtype/stride, other arguments as values), its output specs and
the module path that made the call. Modules are traced on the meta device, so an
8-billion-parameter model needs no weight memory:

- inference: `torch.export.export` (the graph users and compilers see; composite ops
  such as `aten::linear` stay whole and `kb.check.resolve` expands them per target);
- `--train`: the forward and backward passes run on meta tensors under a dispatch
  recorder, which sees the ops autograd actually dispatches (backward kernels included);
  `torch.utils.module_tracker.ModuleTracker` names the module in both passes;
- TorchScript (only with --trust: loading it runs its code): a static walk of the inlined
  graph (counts per graph node), in a child process with a time and memory limit
  (`kb.check.ts_child`); with `--input-shape`, TorchScript's own shape propagation gives
  the arguments' shapes.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from typing import Any

from kb.check import model_formats as mf
from kb.check.callsites import (  # noqa: F401 - re-exported: callers import them from here
    CallSite,
    TensorSpec,
    TracedModel,
    _flatten,
    _module_from_stack,
    _short_type,
)
from kb.errors import KBError, TorchMissingError, is_torch_missing, require_torch
from kb.opnames import OpNameError, canonical


class TracingError(mf.ModelInputError):
    """The model could not be traced (exit 2, one line)."""


# --- names and argument templates ----------------------------------------------------


def op_name(target: Any) -> str | None:
    """Canonical name of a dispatched op (`aten::add.Tensor`); None for Python callables
    such as `operator.getitem`, which never reach a backend."""
    import torch

    if isinstance(target, torch._ops.OpOverload):
        name = target.name()
        if target.namespace == "aten":
            try:
                return canonical(name)
            except OpNameError:
                return name
        return name
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"higher_order::{target.name()}"
    return None


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def _concrete(value: Any) -> Any:
    """A plain int/float for a symbolic one (its hint), so templates stay hashable."""
    import torch

    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        hint = getattr(value.node, "hint", None)
        if hint is not None:
            return hint
        try:
            return value.node.require_hint()
        except Exception:
            return 1
    return value


def spec_of(value: Any) -> Any:
    """Template of a runtime value: tensors become TensorSpec, the rest stays as is."""
    import torch

    if isinstance(value, torch.Tensor):
        try:
            shape = tuple(int(_concrete(d)) for d in value.shape)
            stride = tuple(int(_concrete(s)) for s in value.stride()) if value.layout == torch.strided else None
        except Exception:
            shape, stride = None, None
        return TensorSpec(shape, _dtype_name(value.dtype), stride)
    if isinstance(value, (list, tuple)):
        return tuple(spec_of(v) for v in value)
    if isinstance(value, dict):
        return {k: spec_of(v) for k, v in value.items()}
    if isinstance(value, (torch.dtype, torch.layout, torch.memory_format)):
        return value
    if isinstance(value, torch.device):
        return value
    value = _concrete(value)
    if isinstance(value, (int, float, bool, str, complex)) or value is None:
        return value
    return repr(value)


def _node_template(value: Any) -> Any:
    import torch.fx

    if isinstance(value, torch.fx.Node):
        return spec_of(value.meta.get("val")) if "val" in value.meta else TensorSpec(None, None)
    if isinstance(value, (list, tuple)):
        return tuple(_node_template(v) for v in value)
    if isinstance(value, dict):
        return {k: _node_template(v) for k, v in value.items()}
    return spec_of(value)


# --- graphs ----------------------------------------------------------------------------


def sites_from_graph(graph) -> list[CallSite]:
    """CallSites of an FX graph (ExportedProgram), in graph order; Python callables skipped."""
    sites: list[CallSite] = []
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        name = op_name(node.target)
        if name is None:
            continue
        path, mtype = _module_from_stack(node.meta.get("nn_module_stack"))
        val = node.meta.get("val")
        sites.append(CallSite(
            index=len(sites), op=name,
            args=_node_template(tuple(node.args)), kwargs=_node_template(dict(node.kwargs)),
            outputs=(spec_of(val),) if val is not None else (),
            module_path=path, module_type=mtype,
        ))
    return sites


def sites_from_torchscript(module, inputs: tuple | None = None) -> tuple[list[CallSite], bool]:
    """CallSites of a TorchScript module's inlined graph (static: a loop body counts once),
    and whether argument shapes are known.

    With example inputs (meta tensors), the graph's inputs and the module's tensors are
    typed and TorchScript's symbolic shape propagation fills in the shapes; dtypes that it
    leaves open are taken from each op's first tensor argument.
    """
    import torch

    graph = module.inlined_graph
    shaped = False
    if inputs:
        shaped = _type_torchscript_graph(module, graph, inputs, torch)
    sites: list[CallSite] = []
    dtypes: dict[str, str | None] = {}

    def walk(nodes) -> None:
        for node in nodes:
            kind = node.kind()
            if kind.startswith("aten::") and _device_op(node, torch):
                site = _torchscript_site(node, len(sites), torch, dtypes)
                sites.append(site)
                first = site.primary_dtype()
                for out in node.outputs():
                    dtypes.setdefault(out.debugName(), _ts_dtype(_scalar_type(out.type(), torch)) or first)
            for block in node.blocks():
                walk(block.nodes())

    walk(graph.nodes())
    return sites, shaped


def overload_for(op: str):
    """The OpOverload for a canonical name (`aten::add.Tensor`), or None."""
    import torch

    namespace, _, rest = op.partition("::")
    base, _, overload = rest.partition(".")
    try:
        packet = getattr(getattr(torch.ops, namespace), base)
        return getattr(packet, overload or "default")
    except (AttributeError, RuntimeError):
        return None


def _by_schema(op: str, values: list) -> tuple[tuple, dict]:
    """TorchScript passes every argument positionally; keyword-only ones become kwargs."""
    overload = overload_for(op)
    if overload is None:
        return tuple(values), {}
    args, kwargs = [], {}
    for argument, value in zip(overload._schema.arguments, values, strict=False):
        if argument.kwarg_only:
            kwargs[argument.name] = value
        else:
            args.append(value)
    return tuple(args), kwargs


def _scalar_type(vtype, torch) -> str | None:
    return vtype.scalarType() if isinstance(vtype, torch._C.TensorType) else None


def _type_torchscript_graph(module, graph, inputs: tuple, torch) -> bool:
    """Set tensor types on the graph's inputs and attribute reads, then propagate shapes."""
    values = list(graph.inputs())
    if len(values) - 1 != len(inputs):
        raise mf.ModelInputError(f"the TorchScript model takes {len(values) - 1} inputs; {len(inputs)} --input-shape given")
    owners = {values[0].debugName(): module}
    for value, tensor in zip(values[1:], inputs, strict=True):
        value.setType(torch._C.TensorType.create_from_tensor(tensor))

    def walk(block) -> None:
        for node in block.nodes():
            if node.kind() == "prim::GetAttr":
                owner = owners.get(node.input().debugName())
                if owner is not None:
                    attribute = getattr(owner, node.s("name"), None)
                    owners[node.output().debugName()] = attribute
                    if isinstance(attribute, torch.Tensor):
                        node.output().setType(torch._C.TensorType.create_from_tensor(attribute))
            for inner in node.blocks():
                walk(inner)

    walk(graph)
    try:
        torch._C._jit_pass_propagate_shapes_on_graph(graph)
    except Exception:
        return False
    return True


def _ts_value(value, torch, dtypes: dict) -> Any:
    vtype = value.type()
    if isinstance(vtype, torch._C.TensorType):
        sizes = vtype.sizes()
        shape = tuple(sizes) if sizes is not None and all(d is not None for d in sizes) else None
        strides = vtype.strides()
        stride = tuple(strides) if shape is not None and strides and all(d is not None for d in strides) else None
        dtype = _ts_dtype(vtype.scalarType()) or dtypes.get(value.debugName())
        return TensorSpec(shape, dtype, stride)
    producer = value.node()
    if producer.kind() == "prim::Constant":
        try:
            return spec_of(value.toIValue())
        except Exception:
            return None
    if producer.kind() == "prim::ListConstruct":
        return tuple(_ts_value(v, torch, dtypes) for v in producer.inputs())
    return None


def _torchscript_site(node, index: int, torch, dtypes: dict) -> CallSite:
    schema = node.schema()
    name = schema.split("(", 1)[0] if schema and schema != "(no schema)" else node.kind()
    try:
        name = canonical(name)
    except OpNameError:
        pass
    args, kwargs = _by_schema(name, [_ts_value(value, torch, dtypes) for value in node.inputs()])
    if name == "aten::_convolution":
        name, args = export_form_of_convolution(args)
    hierarchy = node.getModuleHierarchy() if hasattr(node, "getModuleHierarchy") else ""
    parts = [p for p in (hierarchy or "").split(".") if p]
    path = ".".join(re.sub(r"\(.*\)$", "", p) for p in parts)
    mtype = None
    if parts:
        match = re.search(r"\(([^()]*)\)$", parts[-1])
        mtype = match.group(1) if match else None
    return CallSite(index=index, op=name, args=args, kwargs=kwargs, module_path=path, module_type=mtype)


# Tensor metadata queries a TorchScript graph spells as ops; an export folds them into
# shapes, and no device runs them.
_METADATA_QUERIES = frozenset({
    "aten::dim", "aten::size", "aten::size.int", "aten::stride", "aten::stride.int", "aten::numel",
    "aten::len.Tensor", "aten::__is__", "aten::__isnot__", "aten::is_floating_point", "aten::is_complex",
})


def _device_op(node, torch) -> bool:
    """Whether a TorchScript node is an op a device runs, as an export would list it: it
    takes or returns a tensor and is not a metadata query. Scripted models are full of
    Python-level arithmetic on ints and lists (`aten::add.int`, `aten::__getitem__.t`,
    `aten::format`) that never reaches a backend."""
    if node.kind() in _METADATA_QUERIES:
        return False
    return any(_holds_tensor(value.type(), torch) for value in (*node.inputs(), *node.outputs()))


def _holds_tensor(vtype, torch) -> bool:
    if isinstance(vtype, torch._C.TensorType):
        return True
    if isinstance(vtype, (torch._C.ListType, torch._C.OptionalType)):
        return _holds_tensor(vtype.getElementType(), torch)
    if isinstance(vtype, torch._C.TupleType):
        return any(_holds_tensor(t, torch) for t in vtype.elements())
    return False


def export_form_of_convolution(args: tuple) -> tuple[str, tuple]:
    """`aten::_convolution` (what torch.jit.trace records) as the op an export of the same
    model shows: conv1d/2d/3d, or conv_transpose1d/2d/3d when `transposed`, with that op's
    arguments; `aten::convolution` when the rank or `transposed` is not known.

    _convolution takes (input, weight, bias, stride, padding, dilation, transposed,
    output_padding, groups, benchmark, deterministic, cudnn_enabled, allow_tf32)."""
    padded = tuple(args) + (None,) * (9 - len(args))
    inp, weight, bias, stride, padding, dilation, transposed, output_padding, groups = padded[:9]
    rank = len(stride) if isinstance(stride, tuple) else None
    if rank is None and isinstance(weight, TensorSpec) and weight.shape is not None:
        rank = len(weight.shape) - 2
    if rank not in (1, 2, 3) or not isinstance(transposed, bool):
        return "aten::convolution", padded[:9]
    if transposed:
        return f"aten::conv_transpose{rank}d.input", (inp, weight, bias, stride, padding, output_padding, groups, dilation)
    return f"aten::conv{rank}d", (inp, weight, bias, stride, padding, dilation, groups)


_TS_DTYPES = {
    "Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16",
    "Long": "int64", "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8",
    "Bool": "bool", "ComplexFloat": "complex64", "ComplexDouble": "complex128",
}


def _ts_dtype(dtype: str | None) -> str | None:
    return _TS_DTYPES.get(dtype, dtype.lower()) if dtype else None


# --- input shapes ------------------------------------------------------------------------

_DTYPE_ALIASES = {
    "fp32": "float32", "f32": "float32", "float": "float32", "fp16": "float16", "f16": "float16",
    "half": "float16", "bf16": "bfloat16", "fp64": "float64", "f64": "float64", "double": "float64",
    "i64": "int64", "long": "int64", "i32": "int32", "int": "int32", "i8": "int8", "u8": "uint8",
    "i16": "int16",
}


def parse_input_shape(text: str) -> TensorSpec:
    """`1x128:int64` → TensorSpec((1, 128), "int64"); the dtype defaults to float32."""
    import torch

    dims_text, _, dtype_text = text.strip().partition(":")
    dtype_text = _DTYPE_ALIASES.get(dtype_text.strip().lower(), dtype_text.strip().lower()) or "float32"
    if not isinstance(getattr(torch, dtype_text, None), torch.dtype):
        raise mf.ModelInputError(f"--input-shape {text}: unknown dtype {dtype_text!r} (e.g. float32, bfloat16, int64)")
    dims: tuple[int, ...] = ()
    if dims_text.strip() not in ("", "scalar"):
        try:
            dims = tuple(int(d) for d in dims_text.lower().split("x"))
        except ValueError:
            raise mf.ModelInputError(f"--input-shape {text}: expected dimensions like 1x128 or 2x3x224x224") from None
        if any(d < 0 for d in dims):
            raise mf.ModelInputError(f"--input-shape {text}: negative dimension")
    return TensorSpec(dims, dtype_text)


def meta_inputs(specs: list[TensorSpec]) -> tuple:
    import torch

    return tuple(torch.empty(spec.shape, dtype=getattr(torch, spec.dtype), device="meta") for spec in specs)


# --- tracing ------------------------------------------------------------------------------


def trace(source: mf.ModelSource, input_shapes: list[str] | None = None, *, train: bool = False,
          trust: bool = False) -> TracedModel:
    """Trace any recognised model input into CallSites (any failure is one TracingError)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _trace(source, input_shapes, train=train, trust=trust)
    except KBError:
        raise
    except Exception as exc:  # a model can fail in any way; the user gets one line
        if is_torch_missing(exc):
            raise TorchMissingError(f"checking {source.path} ({source.kind.replace('_', ' ')})") from None
        raise TracingError(f"{source.path}: tracing failed ({type(exc).__name__}: {mf._short(exc)})") from None


def _trace(source: mf.ModelSource, input_shapes: list[str] | None, *, train: bool, trust: bool) -> TracedModel:
    specs = [parse_input_shape(s) for s in input_shapes or []]
    if source.kind == mf.EXPORTED_PROGRAM:
        if not train:  # the graph is read as data: no torch, no objects rebuilt
            from kb.check import pt2_graph

            return pt2_graph.trace_archive(source)
        program = mf.load_exported_program(source, trust=trust)
        if train:
            return TracedModel(source.kind, source.path, trace_training(_unflattened(program), _program_inputs(program, specs)),
                               notes=["--train: forward and backward replayed from the exported graph on meta tensors"],
                               train=True)
        return TracedModel(source.kind, source.path, sites_from_graph(program.graph))
    if source.kind == mf.TORCHSCRIPT:
        if not trust:
            mf.refuse_torchscript(source)
        from kb.check import ts_child

        sites, shaped = ts_child.load_sites(source.path, specs)
        notes = ["TorchScript, read statically: counts are per graph node (a loop body counts once)"
                 + ("" if shaped else "; argument shapes unknown (pass --input-shape)")]
        if train:
            notes.append("--train is not available for TorchScript: forward ops only")
        return TracedModel(source.kind, source.path, sites, notes=notes)
    if source.kind == mf.PICKLED_MODULE:
        model = mf.load_pickled_module(source)
        return _trace_module(source, model, specs, train)
    if source.kind == mf.FACTORY:
        build = mf.load_factory(source)
        model = _build_on_meta(build, source)
        return _trace_module(source, model, specs, train)
    raise mf.ModelInputError(f"{source.path}: cannot trace a {source.kind}")


def _unflattened(program):
    """The exported graph as nested modules again, so module paths survive the replay."""
    import torch

    try:
        return torch.export.unflatten(program)
    except Exception:
        return program.module()


def _program_inputs(program, specs: list[TensorSpec]) -> tuple:
    if specs:
        return meta_inputs(specs)
    user_inputs = [n for n in program.graph.nodes if n.op == "placeholder" and n.name in program.graph_signature.user_inputs]
    return meta_inputs([spec_of(n.meta["val"]) for n in user_inputs])


def _build_on_meta(build, source: mf.ModelSource):
    import torch

    try:
        with torch.device("meta"):
            model = build()
    except KBError:
        raise
    except (Exception, SystemExit) as exc:  # sys.exit in a factory is a failure, never kb's exit
        raise TracingError(f"{source.path}:{source.attribute}() raised {type(exc).__name__}: {mf._short(exc)}") from None
    if isinstance(model, tuple) and model and isinstance(model[0], torch.nn.Module):
        model = model[0]
    if not isinstance(model, torch.nn.Module):
        raise TracingError(f"{source.path}:{source.attribute}() returned a {type(model).__name__}, not an nn.Module")
    return model


def _trace_module(source: mf.ModelSource, model, specs: list[TensorSpec], train: bool) -> TracedModel:
    if not specs:
        raise mf.ModelInputError(f"{source.path}: give the model's inputs to trace it, e.g. --input-shape 1x128:int64")
    inputs = meta_inputs(specs)
    if train:
        return TracedModel(source.kind, source.path, trace_training(model, inputs), train=True)
    return TracedModel(source.kind, source.path, sites_from_graph(export_on_meta(model, inputs).graph))


@contextlib.contextmanager
def quiet_torch():
    """Nothing from torch reaches the user's streams while it traces: a failed export logs
    the graph it got to (torch's logging handlers hold the real stderr, so every record is
    turned off for the while) and some passes print(). kb says what failed, in one line."""
    import io
    import logging

    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield
    finally:
        logging.disable(previous)


def export_on_meta(model, inputs: tuple):
    """torch.export of a meta-device module on meta inputs (no weight memory)."""
    import torch

    model = model.to("meta") if any(p.device.type != "meta" for p in model.parameters()) else model
    model.eval()
    try:
        with warnings.catch_warnings(), quiet_torch():  # export's advice and graph dumps are noise here
            warnings.simplefilter("ignore")
            return torch.export.export(model, inputs, strict=False)
    except Exception as exc:
        raise TracingError(f"torch.export could not trace the model ({type(exc).__name__}: {mf._short(exc)})") from None


def trace_training(model, inputs: tuple) -> list[CallSite]:
    """Forward and backward on meta tensors under a dispatch recorder.

    The loss (a sum of the outputs) is ours, not the model's: calls made outside every
    module of the model are left out.
    """
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.module_tracker import ModuleTracker

    model = model.to("meta") if any(p.device.type != "meta" for p in model.parameters()) else model
    try:
        model.train()
    except NotImplementedError:  # exported modules refuse mode switches; they keep their own
        pass
    sites: list[CallSite] = []
    tracker = ModuleTracker()
    root = type(model).__name__
    phase = ["forward"]

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            name = op_name(func)
            parents = [p for p in tracker.parents if p != "Global"]
            if name is not None and parents:
                deepest = max(parents, key=len)
                path = deepest[len(root) + 1:] if deepest.startswith(root + ".") else ("" if deepest == root else deepest)
                sites.append(CallSite(index=len(sites), op=name, args=spec_of(tuple(args)), kwargs=spec_of(dict(kwargs)),
                                      outputs=(spec_of(out),), module_path=path, module_type=_type_at(model, path),
                                      phase=phase[0]))
            return out

    try:
        with tracker, Recorder():
            out = model(*inputs)
            tensors = [t for t in _flatten(out if isinstance(out, (tuple, list, dict)) else (out,))
                       if isinstance(t, torch.Tensor) and t.requires_grad]
            if not tensors:
                raise TracingError("--train: the model's outputs do not require grad (no parameters reached them)")
            loss = sum(t.float().sum() for t in tensors)
            phase[0] = "backward"
            loss.backward()
    except KBError:
        raise
    except Exception as exc:
        raise TracingError(f"tracing the training step failed ({type(exc).__name__}: {mf._short(exc)})") from None
    return sites


def _type_at(model, path: str) -> str | None:
    try:
        return type(model.get_submodule(path)).__name__ if path else type(model).__name__
    except Exception:
        return None


# --- factories in a child process ----------------------------------------------------------


def trace_in_child(source: mf.ModelSource, input_shapes: list[str] | None = None, *, train: bool = False,
                   timeout: float = 300) -> TracedModel:
    """Trace a factory (`model.py:build`) in a child process, so that whatever the user's
    code does — `sys.exit(0)`, raising a BaseException, `os._exit`, sleeping forever — ends
    as one TracingError and never as kb's own exit: a CI gate cannot pass on a run that
    did not finish. The child is killed after `timeout` seconds."""
    import multiprocessing

    what = f"{source.path}:{source.attribute}"
    require_torch(f"checking {what} (a factory)")
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child_trace, args=(sender, source, input_shapes, train), daemon=True)
    process.start()
    sender.close()
    try:
        if not receiver.poll(timeout):
            raise TracingError(f"{what}: building and tracing did not finish within {timeout:g} s (--timeout)")
        try:
            kind, payload = receiver.recv()
        except (EOFError, OSError):
            process.join(5)
            raise TracingError(f"{what}: the factory ended the tracing process (exit code {process.exitcode}) "
                               "before tracing finished") from None
    finally:
        if process.is_alive():
            process.kill()
        process.join(5)
        receiver.close()
    if kind == "error":
        raise TracingError(payload)
    return payload


def _child_trace(sender, source: mf.ModelSource, input_shapes, train: bool) -> None:
    """Runs in the child: the traced model, or one line saying why not, down the pipe."""
    what = f"{source.path}:{source.attribute}"
    try:
        result = ("ok", trace(source, input_shapes, train=train))
    except KBError as exc:
        result = ("error", str(exc))
    except SystemExit as exc:
        code = exc.code
        shown = "" if code is None or code == 0 else f" ({mf._short(Exception(code))})"
        result = ("error", f"{what}: the factory called sys.exit({'' if code is None else repr(code)[:40]}) "
                           f"before tracing finished{shown}")
    except BaseException as exc:  # the user's code may raise anything, even non-Exceptions
        result = ("error", f"{what}: the factory raised {type(exc).__name__}: {mf._short(exc)}")
    try:
        sender.send(result)
    except Exception as exc:  # an unpicklable result: still one line
        sender.send(("error", f"{what}: the traced result could not be handed back ({type(exc).__name__})"))
    finally:
        sender.close()


# --- models in memory (the Python API: kb.check(program) / kb.check(module, inputs)) ----------


def program_document(program) -> dict | None:
    """The graph document `torch.export.save` would write for `program`, built in memory and
    without its weights, constants or sample inputs (nothing is copied but the graph); None
    where this torch's serializer (a private module) is missing or refuses the program."""
    import json

    try:  # the graph and range constraints only: a fifth of serialize()'s time (it canonicalizes)
        import torch
        from torch._export.serde import serialize as serde

        graph = serde.GraphModuleSerializer(program.graph_signature, program.module_call_graph).serialize(
            program.graph_module)
        document = {"graph_module": graph, "range_constraints": serde.serialize_range_constraints(program.range_constraints),
                    "schema_version": {"major": serde.SCHEMA_VERSION[0], "minor": serde.SCHEMA_VERSION[1]},
                    "torch_version": torch.__version__}
        return json.loads(json.dumps(serde._dataclass_to_dict(document), cls=serde.EnumEncoder, allow_nan=False))
    except Exception:
        pass
    try:
        from torch._export.serde.serialize import serialize

        artifact = serialize(program, serialize_state_dict=False, serialize_constants=False,
                             serialize_example_inputs=False)
        return json.loads(artifact.exported_program)
    except Exception:  # a private API: when it moves, the graph itself still serves (sites_from_graph)
        return None


def trace_program(program, name: str, *, train: bool = False, input_shapes: list[str] | None = None) -> TracedModel:
    """An ExportedProgram in memory, read as its archive would be (kb.check.pt2_graph) so a
    program checks the same saved or not; `train`: forward and backward replayed on a meta
    copy (the program's own weights are never touched)."""
    try:
        with warnings.catch_warnings(), mf.quiet_torch_logs():
            warnings.simplefilter("ignore")
            if train:
                specs = [parse_input_shape(s) for s in input_shapes or []]
                module = to_meta_in_place(_unflattened(program))  # a new module; the program's tensors stay
                sites = trace_training(module, _program_inputs(program, specs))
                return TracedModel(mf.EXPORTED_PROGRAM, name, sites, train=True,
                                   notes=["train: forward and backward replayed from the exported graph on meta tensors"])
            document = program_document(program)
            if document is not None:
                from kb.check import pt2_graph

                return pt2_graph.trace_document(document, name)
            return TracedModel(mf.EXPORTED_PROGRAM, name, sites_from_graph(program.graph))
    except KBError:
        raise
    except Exception as exc:
        raise TracingError(f"{name}: reading the exported program failed ({type(exc).__name__}: {mf._short(exc)})") from None


NN_MODULE = "nn_module"  # the kind of a report on a module handed over in memory


def meta_clone(model):
    """A copy of `model` whose parameters and buffers live on the meta device: the structure
    is copied, the weights are not (each one is replaced by an empty meta tensor before the
    copy reaches it), and the caller's module is left exactly as it was."""
    import copy
    import itertools

    import torch

    memo: dict[int, Any] = {}
    for tensor in itertools.chain(model.parameters(), model.buffers()):
        if id(tensor) in memo or tensor.device.type == "meta":
            continue
        meta = torch.empty_like(tensor, device="meta")
        if isinstance(tensor, torch.nn.Parameter):
            meta = torch.nn.Parameter(meta, requires_grad=tensor.requires_grad)
        memo[id(tensor)] = meta
    return copy.deepcopy(model, memo)


def to_meta_in_place(module):
    """`module` with every parameter and buffer entry replaced by an empty meta tensor of its
    shape. The entries are replaced, not changed (`Module.to` would change the shared tensors
    themselves): for a module made from a program (unflatten), whose tensors are the program's."""
    import torch

    for sub in module.modules():
        for key, tensor in list(sub._parameters.items()):
            if tensor is not None and tensor.device.type != "meta":
                sub._parameters[key] = torch.nn.Parameter(torch.empty_like(tensor, device="meta"),
                                                          requires_grad=tensor.requires_grad)
        for key, tensor in list(sub._buffers.items()):
            if tensor is not None and tensor.device.type != "meta":
                sub._buffers[key] = torch.empty_like(tensor, device="meta")
    return module


def as_meta(value: Any) -> Any:
    """An example input on the meta device: a tensor as an empty one of its shape and dtype,
    a shape spec (`1x128:int64`) as the tensor it describes; containers element by element."""
    import torch

    if isinstance(value, torch.Tensor):
        return torch.empty_like(value, device="meta")
    if isinstance(value, str):
        return meta_inputs([parse_input_shape(value)])[0]
    if isinstance(value, (list, tuple)):
        return type(value)(as_meta(v) for v in value)
    if isinstance(value, dict):
        return {k: as_meta(v) for k, v in value.items()}
    return value


def trace_module(model, example_inputs: tuple, name: str, *, train: bool = False) -> TracedModel:
    """An nn.Module in memory with example inputs, traced on a meta copy (no weight memory;
    the module itself is not moved, put in eval mode or otherwise changed)."""
    if not example_inputs:
        raise mf.ModelInputError(f"{name}: give the model's example inputs to trace it (tensors or shapes "
                                 "such as '1x128:int64')")
    try:
        clone = meta_clone(model)
    except Exception as exc:
        raise TracingError(f"{name}: could not copy the module to the meta device ({type(exc).__name__}: "
                           f"{mf._short(exc)}); build it under `with torch.device('meta')` or pass an "
                           "ExportedProgram") from None
    try:
        inputs = tuple(as_meta(v) for v in example_inputs)
        with warnings.catch_warnings(), quiet_torch():  # torch logs tracebacks before it raises
            warnings.simplefilter("ignore")
            if train:
                return TracedModel(NN_MODULE, name, trace_training(clone, inputs), train=True)
            traced = trace_program(export_on_meta(clone, inputs), name)
    except KBError:
        raise
    except Exception as exc:
        raise TracingError(f"{name}: tracing failed ({type(exc).__name__}: {mf._short(exc)})") from None
    traced.kind = NN_MODULE
    return traced
