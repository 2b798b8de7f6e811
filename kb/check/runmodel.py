"""Run a model for real on a device: real weights, real inputs, shapes that can be swept.

`kb check` traces on meta tensors and never needs weights; `kb parity` and `kb bench`
must compute. This module holds what both need:

* **shape templates** — `--input-shape BxSx64:float32`: the letters `B` (batch) and `S`
  (sequence length) are placeholders filled in per run (`--sweep seq=128,512`, or
  `--batch/--seq`). Without placeholders the convention is *dim 0 = batch, dim 1 = seq*,
  applied to every input that has those dims.
* **models with real weights** — a factory `model.py:build` is called on the CPU after
  `torch.manual_seed(seed)`, so the reference and the device run the same numbers;
  each device gets a deep copy. An ExportedProgram file is opened by `kb.check.model_formats`
  (which refuses pickled members without `--trust`), then its stored weights are read.
* **devices** — `sim` is loaded on first use (`kb.probe.sim.load()`), `cuda` and other names
  are checked for availability, so an absent device is one line and exit 2.
"""

from __future__ import annotations

import copy
import itertools
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

from kb.check import model_formats as mf
from kb.errors import KBError

AXES = ("batch", "seq")
_PLACEHOLDER = {"b": "batch", "s": "seq"}
_AXIS_ALIASES = {"batch": "batch", "b": "batch", "seq": "seq", "s": "seq", "sequence": "seq", "seq_len": "seq"}
_FLOAT_DTYPES = ("float32", "float16", "bfloat16", "float64")


class RunInputError(KBError):
    """A model, shape, sweep or device that kb cannot run (exit 2)."""


class DeviceUnavailableError(RunInputError):
    """The device is not present in this process (no CUDA, backend not installed)."""


# --- shape templates ---------------------------------------------------------------------


@dataclass(frozen=True)
class ShapeTemplate:
    """One `--input-shape`: dims are ints or axis names ("batch"/"seq")."""

    text: str
    dims: tuple[int | str, ...]
    dtype: str

    @property
    def has_placeholders(self) -> bool:
        return any(isinstance(d, str) for d in self.dims)

    def resolve(self, values: dict[str, int], positional: bool) -> tuple[int, ...]:
        """Concrete dims. Placeholders take `values`; with `positional`, dim 0 takes the
        batch value and dim 1 the seq value when those are given."""
        out = []
        for index, dim in enumerate(self.dims):
            if isinstance(dim, str):
                if dim not in values:
                    raise RunInputError(f"--input-shape {self.text}: no value for {dim} "
                                        f"(pass --{dim} N or --sweep {dim}=N,M)")
                out.append(values[dim])
            elif positional and index < len(AXES) and AXES[index] in values:
                out.append(values[AXES[index]])
            else:
                out.append(dim)
        return tuple(out)


def parse_template(text: str) -> ShapeTemplate:
    """`Bx128:int64`, `BxS:int64`, `2x8` → ShapeTemplate (dtype defaults to float32)."""
    from kb.check.tracing import parse_input_shape

    dims_text, _, dtype_text = text.strip().partition(":")
    dims: list[int | str] = []
    numeric = []
    for part in dims_text.lower().split("x") if dims_text.strip() else []:
        part = part.strip()
        if part in _PLACEHOLDER:
            dims.append(_PLACEHOLDER[part])
            numeric.append("1")
        elif part.isdigit():
            dims.append(int(part))
            numeric.append(part)
        else:
            raise RunInputError(f"--input-shape {text}: expected dims like 1x128, or B and S placeholders "
                                f"as in BxS:int64 (got {part!r})")
    try:
        spec = parse_input_shape("x".join(numeric) + (":" + dtype_text if dtype_text else ""))
    except KBError as exc:
        raise RunInputError(str(exc)) from None
    return ShapeTemplate(text, tuple(dims), spec.dtype)


def parse_sweep(values: list[str]) -> dict[str, list[int]]:
    """`--sweep seq=128,512,2048` (repeatable, one axis each) → {"seq": [128, 512, 2048]}."""
    axes: dict[str, list[int]] = {}
    for value in values:
        name, sep, numbers = value.partition("=")
        axis = _AXIS_ALIASES.get(name.strip().lower())
        if not sep or axis is None:
            raise RunInputError(f"--sweep {value}: expected batch=1,2,4 or seq=128,512,2048")
        try:
            sizes = [int(n) for n in numbers.split(",") if n.strip()]
        except ValueError:
            raise RunInputError(f"--sweep {value}: sizes must be whole numbers") from None
        if not sizes or any(n <= 0 for n in sizes):
            raise RunInputError(f"--sweep {value}: give one or more sizes greater than 0")
        if axis in axes:
            raise RunInputError(f"--sweep {axis} given twice")
        axes[axis] = sizes
    return axes


@dataclass
class Point:
    """One combination of axis values and the concrete input shapes it gives."""

    values: dict[str, int]
    shapes: list[tuple[int, ...]]
    dtypes: list[str]

    @property
    def size(self) -> int:
        """Elements of all inputs together: what the trend is measured against."""
        total = 0
        for shape in self.shapes:
            n = 1
            for d in shape:
                n *= d
            total += n
        return total

    @property
    def label(self) -> str:
        if self.values:
            return " ".join(f"{k}={v}" for k, v in self.values.items())
        return " ".join("x".join(map(str, s)) for s in self.shapes)


def plan_points(templates: list[ShapeTemplate], sweep: dict[str, list[int]],
                fixed: dict[str, int] | None = None) -> list[Point]:
    """Every combination of the swept values (smallest inputs first), each with concrete
    shapes. Placeholders win over the dim-0/dim-1 convention when any input uses them."""
    if not templates:
        raise RunInputError("give the model's inputs, e.g. --input-shape Bx128:int64")
    positional = not any(t.has_placeholders for t in templates)
    if positional:
        for axis in list(sweep) + list(fixed or {}):
            index = AXES.index(axis)
            if not any(len(t.dims) > index for t in templates):
                raise RunInputError(f"--sweep {axis}: no input has a dim {index} ({axis} is dim {index} "
                                    "unless --input-shape uses B/S placeholders)")
    names = list(sweep)
    points = []
    for combo in itertools.product(*(sweep[n] for n in names)) if names else [()]:
        values = {**(fixed or {}), **dict(zip(names, combo))}
        shapes = [t.resolve(values, positional) for t in templates]
        shown = {k: v for k, v in values.items() if k in sweep or any(k in t.dims for t in templates)}
        points.append(Point(shown, shapes, [t.dtype for t in templates]))
    points.sort(key=lambda p: p.size)
    return points


def tokens_of(point: Point) -> int:
    """batch × seq of the first input: its placeholders' values, else its dims 0 and 1."""
    if "batch" in point.values or "seq" in point.values:
        return point.values.get("batch", 1) * point.values.get("seq", 1)
    shape = point.shapes[0] if point.shapes else ()
    tokens = 1
    for d in shape[:2]:
        tokens *= d
    return tokens


# --- devices -----------------------------------------------------------------------------


def prepare_device(name: str):
    """A torch.device for `name`, loading the simulator when asked for `sim` and checking
    that the device is there (DeviceUnavailableError otherwise)."""
    import torch

    if not re.fullmatch(r"[a-z_][a-z0-9_]*(:\d+)?", name or ""):
        raise RunInputError(f"--device {name!r}: expected a device name such as cpu, cuda, cuda:1, sim")
    kind = name.split(":")[0]
    if kind == "sim":
        from kb.probe import sim

        try:
            sim.load()
        except sim.SimUnavailableError as exc:
            raise DeviceUnavailableError(f"device sim: {exc}") from None
    elif kind == "cuda":
        if not torch.cuda.is_available():
            raise DeviceUnavailableError("device cuda is not available here (no CUDA device or a CPU-only torch)")
    elif kind not in ("cpu", "meta"):
        module = getattr(torch, kind, None)
        available = getattr(module, "is_available", None)
        if not callable(available) or not available():
            raise DeviceUnavailableError(f"device {kind} is not available in this process "
                                         f"(is its PyTorch backend installed and loaded?)")
    try:
        device = torch.device(name)
        torch.empty(1, device=device)
    except Exception as exc:  # any backend error: the device is not usable here
        raise DeviceUnavailableError(f"device {name} cannot allocate a tensor ({type(exc).__name__}: "
                                     f"{mf._short(exc)})") from None
    return device


def synchronize(device) -> None:
    """Wait for queued device work (timings must not stop at the launch)."""
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)
        return
    module = getattr(torch, device.type, None)
    sync = getattr(module, "synchronize", None)
    if device.type not in ("cpu", "sim", "meta") and callable(sync):
        sync()


# --- models --------------------------------------------------------------------------


@dataclass
class LoadedModel:
    """A CPU model with real weights, ready to be copied to devices."""

    kind: str
    path: str
    module: Any = None  # nn.Module (factories, pickled modules)
    program: Any = None  # ExportedProgram
    templates: list[ShapeTemplate] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def on(self, device, dtype: str | None = None):
        """A copy of the model on `device` (floating weights cast to `dtype` for modules)."""
        import torch

        if self.program is not None:
            from torch.export.passes import move_to_device_pass

            with warnings.catch_warnings():  # torch's own pytree deprecations on copying
                warnings.simplefilter("ignore", FutureWarning)
                program = copy.deepcopy(self.program)
                if device.type != "cpu":
                    program = move_to_device_pass(program, device)
                return program.module()
        module = copy.deepcopy(self.module)
        if dtype is not None:
            module = module.to(getattr(torch, dtype))
        return module.to(device).eval()


def load_model(spec: str, input_shapes: list[str] | None, *, seed: int = 0, trust: bool = False) -> LoadedModel:
    """Open MODEL for running: a factory (built on the CPU after seeding), an
    ExportedProgram (with its stored weights), or a pickled module with --trust."""
    import torch

    source = mf.detect(spec, trust=trust)
    templates = [parse_template(s) for s in input_shapes or []]
    if source.kind == mf.FACTORY:
        build = mf.load_factory(source)
        torch.manual_seed(seed)
        try:
            module = build()
        except KBError:
            raise
        except (Exception, SystemExit) as exc:  # sys.exit in a factory is a failure, never kb's exit
            raise RunInputError(f"{source.path}:{source.attribute}() raised {type(exc).__name__}: "
                                f"{mf._short(exc)}") from None
        if isinstance(module, tuple) and module and isinstance(module[0], torch.nn.Module):
            module = module[0]
        if not isinstance(module, torch.nn.Module):
            raise RunInputError(f"{source.path}:{source.attribute}() returned a {type(module).__name__}, "
                                "not an nn.Module")
        return LoadedModel(source.kind, source.path, module=module.eval(), templates=templates)
    if source.kind == mf.EXPORTED_PROGRAM:
        program = mf.load_exported_program(source, trust=trust)  # refuses pickles without --trust
        if any(t.device.type == "meta" for t in program.state_dict.values()):
            try:  # the archive holds raw tensor bytes only (checked above): read them
                with mf.quiet_torch_logs():
                    program = torch.export.load(source.path)
            except Exception as exc:
                raise RunInputError(f"{source.path}: cannot read the stored weights ({type(exc).__name__}: "
                                    f"{mf._short(exc)})") from None
        if not templates:
            from kb.check.tracing import spec_of

            user = [n for n in program.graph.nodes
                    if n.op == "placeholder" and n.name in program.graph_signature.user_inputs]
            specs = [spec_of(n.meta["val"]) for n in user]
            if any(s.shape is None for s in specs):
                raise RunInputError(f"{source.path}: the exported inputs have symbolic shapes; give --input-shape")
            templates = [parse_template("x".join(map(str, s.shape)) + f":{s.dtype}") for s in specs]
        return LoadedModel(source.kind, source.path, program=program, templates=templates,
                           notes=["ExportedProgram: weights and dtypes as stored; --dtype casts float inputs only"])
    if source.kind == mf.PICKLED_MODULE:  # detect() only lets this through with --trust
        module = mf.load_pickled_module(source, map_location="cpu")  # the allow-list unpickler
        return LoadedModel(source.kind, source.path, module=module.eval(), templates=templates)
    if source.kind == mf.TORCHSCRIPT:
        raise RunInputError(f"{source.path}: TorchScript is not supported here; export the model "
                            "(torch.export.save) or pass a factory model.py:build")
    raise RunInputError(f"{source.path}: a {source.kind} holds no code to run; pass a factory model.py:build "
                        "or an ExportedProgram")


def integer_high(model: LoadedModel) -> int:
    """Upper bound for random integer inputs: the smallest embedding table (token ids must
    index every table), else 100."""
    import torch

    module = model.module if model.module is not None else None
    sizes = [m.num_embeddings for m in module.modules() if isinstance(m, torch.nn.Embedding)] if module else []
    if model.program is not None:
        sizes = [t.shape[0] for name, t in model.program.state_dict.items()
                 if "embed" in name.lower() and t.dim() == 2]
    return max(1, min(sizes)) if sizes else 100


def make_inputs(point: Point, dtype: str | None, high: int, seed: int) -> tuple:
    """Random CPU inputs for one point, the same for every device (seeded per point).
    Floating inputs are cast to `dtype` when given; integer inputs lie in [0, high)."""
    import torch

    generator = torch.Generator().manual_seed(seed + point.size)
    inputs = []
    for shape, name in zip(point.shapes, point.dtypes):
        torch_dtype = getattr(torch, name)
        if torch_dtype.is_floating_point:
            value = torch.randn(shape, generator=generator)
            value = value.to(getattr(torch, dtype) if dtype else torch_dtype)
        elif torch_dtype == torch.bool:
            value = torch.randint(0, 2, shape, generator=generator).bool()
        else:
            value = torch.randint(0, high, shape, generator=generator, dtype=torch_dtype)
        inputs.append(value)
    return tuple(inputs)


def to_device(value: Any, device) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def check_dtype(dtype: str | None) -> str | None:
    if dtype is None:
        return None
    name = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16", "half": "float16",
            "float": "float32"}.get(dtype.lower(), dtype.lower())
    if name not in _FLOAT_DTYPES:
        raise RunInputError(f"--dtype {dtype}: expected one of {', '.join(_FLOAT_DTYPES)}")
    return name
