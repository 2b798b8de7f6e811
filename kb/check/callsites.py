"""What a traced model is made of, whatever read it: calls (`CallSite`) of ops with
argument templates (`TensorSpec` for tensors), and the module that made each call.

Kept free of torch: the ExportedProgram reader (kb.check.pt2_graph) builds these from
the archive's JSON, and resolution works on them, without importing torch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# Bytes per element, by dtype name (torch's itemsize; kept here so sizes need no torch).
ITEMSIZE = {
    "bool": 1, "uint8": 1, "int8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8,
    "uint64": 8, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "complex32": 4,
    "complex64": 8, "complex128": 16, "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1,
    "float8_e5m2fnuz": 1, "float8_e8m0fnu": 1,
}


@dataclass(frozen=True)
class TensorSpec:
    """What kb keeps of a tensor argument: enough to rebuild it on the meta device."""

    shape: tuple[int, ...] | None
    dtype: str | None
    stride: tuple[int, ...] | None = None

    @property
    def nbytes(self) -> int:
        if self.shape is None or self.dtype is None:
            return 0
        size = 1
        for dim in self.shape:
            size *= dim
        return size * ITEMSIZE.get(self.dtype, 0)

    def describe(self) -> str:
        dims = "?" if self.shape is None else ",".join(str(d) for d in self.shape)
        return f"{self.dtype or '?'}[{dims}]"


# The longest op or module name kept whole (ATen's longest is under 70 characters).
MAX_NAME = 200


def bound_name(name: str | None, limit: int = MAX_NAME) -> str | None:
    """`name` cut to `limit` characters, with an ellipsis and its full length when longer."""
    if not isinstance(name, str) or len(name) <= limit:
        return name
    return f"{name[:limit]}…({len(name):,} chars)"


@dataclass
class CallSite:
    """One call of one op at one place in the model."""

    index: int
    op: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    outputs: tuple = ()
    module_path: str | None = None  # "" is the root module, None when unknown
    module_type: str | None = None
    phase: str = "forward"
    # Every argument by its schema name, where the reader knew the names (ExportedProgram
    # archives): lets conditions be checked without torch's schemas. None elsewhere.
    named: dict | None = None
    # (flops, bytes, counted_by) known beforehand: a call rebuilt from a gallery census
    # (kb.gallery) carries its counted work instead of shapes. None: kb.check.work counts it.
    work: tuple | None = None

    def __post_init__(self) -> None:
        # A hostile archive can name an op or module with megabytes: every output would carry it
        # (the table, hazard lines, HTML, markdown). Names are cut once, here, where they are read.
        self.op = bound_name(self.op)
        self.module_path = bound_name(self.module_path)
        self.module_type = bound_name(self.module_type)

    def tensor_args(self) -> list[TensorSpec]:
        """The tensor arguments in order (positional, then keyword, nested lists walked). Called for
        every call site several times per check (a gallery table walks 100k of them), so it loops
        instead of chaining generators; the order is `_flatten`'s."""
        out: list[TensorSpec] = []
        _collect_specs(self.args, out)
        if self.kwargs:
            _collect_specs(self.kwargs.values(), out)
        return out

    def primary_dtype(self) -> str | None:
        """The dtype an op's support is usually stated for: its first tensor argument's,
        skipping boolean masks (`aten::where.self` is stated for its values, not its
        condition), or its output's when it takes none (`aten::arange`)."""
        tensors = [spec for spec in self.tensor_args() if spec.dtype]
        for spec in tensors:
            if spec.dtype != "bool":
                return spec.dtype
        if tensors:
            return tensors[0].dtype
        for spec in _flatten(self.outputs):
            if isinstance(spec, TensorSpec) and spec.dtype:
                return spec.dtype
        return None

    def has_shapes(self) -> bool:
        return all(t.shape is not None for t in self.tensor_args())

    def signature(self) -> str:
        """A key equal for calls that decompose the same way."""
        return repr((self.op, self.args, sorted(self.kwargs.items(), key=lambda kv: kv[0])))


@dataclass
class TracedModel:
    kind: str
    path: str
    sites: list[CallSite]
    notes: list[str] = field(default_factory=list)
    train: bool = False
    # Size symbols an export recorded (kb.check.pt2_graph): {"dynamic": {name: {min, max, where}},
    # "unbacked": [names]} — what kb.check.hazards reads; empty for other formats.
    symbols: dict = field(default_factory=dict)


def _collect_specs(values: Iterable[Any], out: list) -> None:
    """Append every TensorSpec in `values` (lists, tuples and dicts walked) to `out`."""
    for value in values:
        if isinstance(value, TensorSpec):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            _collect_specs(value, out)
        elif isinstance(value, dict):
            _collect_specs(value.values(), out)


def _flatten(value: Any) -> Iterable[Any]:
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _flatten(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _flatten(item)
    else:
        yield value


def _short_type(type_name: Any) -> str | None:
    if type_name is None:
        return None
    text = type_name if isinstance(type_name, str) else getattr(type_name, "__qualname__", str(type_name))
    return text.rsplit(".", 1)[-1]


_EXPORT_PATH_NOISE = re.compile(r"^L\['self'\]\.?|^L__self__\.?")


def _module_from_stack(stack: dict | None) -> tuple[str | None, str | None]:
    if not stack:
        return ("", None) if stack is not None else (None, None)
    path, type_name = list(stack.values())[-1]
    path = _EXPORT_PATH_NOISE.sub("", str(path))
    path = re.sub(r"\[(\d+)\]", r".\1", path).replace("._modules['", ".").replace("']", "")
    return path, _short_type(type_name)
