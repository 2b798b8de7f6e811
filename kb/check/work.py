"""How much work each call site is, from the graph's own shapes and dtypes (no torch).

A migrating engineer asks "how much of my model stays on the chip", and op counts answer
it badly: one fallback `adaptive_avg_pool1d` and one fallback `mm` are one op each, but
not the same share of the step. So every call site gets an approximate FLOP count (for
the families where FLOPs are what the time goes on: matmul, linear, convolution,
attention, norms, softmax, elementwise, reductions) and a byte count (tensor arguments
read plus results written; views move nothing). Ops outside those families are counted by
bytes only, and the report names them, so nobody mistakes "0 FLOPs" for "free".

The counts are the usual textbook ones (2 FLOPs per multiply-add; a few per element for
norms and softmax), good for shares and orders of magnitude, not for a roofline.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from kb.check.callsites import CallSite, TensorSpec, _flatten

# Families, by the op's base name (`aten::addmm.out` → `addmm`).
MATMUL = frozenset({"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "mv", "addmv", "dot", "vdot",
                    "_addmm_activation", "addbmm", "einsum"})
CONVOLUTION = frozenset({"convolution", "_convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                         "conv_transpose2d", "conv_transpose3d", "cudnn_convolution", "mkldnn_convolution"})
NORMS = frozenset({"layer_norm", "native_layer_norm", "rms_norm", "_fused_rms_norm", "batch_norm",
                   "native_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_no_training",
                   "_native_batch_norm_legit_functional", "group_norm", "native_group_norm", "instance_norm",
                   "softmax", "_softmax", "log_softmax", "_log_softmax", "_safe_softmax",
                   # their gradients: a few FLOPs per element as well
                   "native_layer_norm_backward", "native_batch_norm_backward", "native_group_norm_backward",
                   "_fused_rms_norm_backward", "_softmax_backward_data", "_log_softmax_backward_data"})
REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "prod", "var", "std",
                        "var_mean", "std_mean", "norm", "linalg_vector_norm", "logsumexp", "cumsum", "cumprod",
                        "all", "any", "count_nonzero", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
                        "_adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "max_pool1d", "max_pool2d",
                        "max_pool2d_with_indices"})
ELEMENTWISE = frozenset({
    "add", "sub", "mul", "div", "rsub", "neg", "abs", "relu", "gelu", "silu", "sigmoid", "tanh", "exp", "log",
    "sqrt", "rsqrt", "pow", "erf", "sin", "cos", "where", "clamp", "clamp_min", "clamp_max", "maximum",
    "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and", "logical_or", "bitwise_not",
    "reciprocal", "square", "hardtanh", "leaky_relu", "elu", "mish", "softplus", "hardswish", "hardsigmoid",
    "masked_fill", "lerp", "addcmul", "addcdiv", "exp2", "log1p", "expm1", "floor", "ceil", "round", "sign",
    "gelu_backward", "silu_backward", "threshold_backward", "sigmoid_backward", "tanh_backward", "fill",
    "dropout", "native_dropout", "triu", "tril", "_to_copy", "to", "copy", "clone", "type_as",
    "erfc", "erfinv", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh", "log2",
    "log10", "lgamma", "digamma", "logit", "sgn", "trunc", "frac", "nan_to_num", "logical_xor", "fmod",
    "remainder", "xlogy", "special_erfcx", "i0", "sinc",
})
# Sorting and transforms: n·log2(n) per transformed row (a constant of 1, stated in the method).
SORTS = frozenset({"sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode"})
FFTS_PREFIX = ("_fft_", "fft_")
ATTENTION_PREFIXES = ("scaled_dot_product_attention", "_scaled_dot_product_")
# Ops that only re-describe memory: no bytes move.
VIEWS = frozenset({"view", "_unsafe_view", "reshape", "transpose", "t", "permute", "expand", "slice", "select",
                   "unsqueeze", "squeeze", "split", "split_with_sizes", "chunk", "unbind", "alias", "detach",
                   "as_strided", "flatten", "unflatten", "view_as", "expand_as", "narrow", "movedim", "lift_fresh_copy",
                   "sym_size", "sym_stride", "sym_numel", "_assert_scalar", "_assert_tensor_metadata"})

# Per-element FLOPs of the non-matmul families (approximate, stated).
NORM_FLOPS_PER_ELEMENT = 5
TRANSCENDENTAL_FLOPS = 4  # gelu, silu, exp... counted a few FLOPs per element
_TRANSCENDENTAL = frozenset({"gelu", "silu", "sigmoid", "tanh", "exp", "log", "erf", "sin", "cos", "mish",
                             "softplus", "exp2", "log1p", "expm1", "gelu_backward", "silu_backward", "erfc",
                             "erfinv", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh",
                             "atanh", "log2", "log10", "lgamma", "digamma", "logit", "special_erfcx", "i0", "sinc"})


@dataclass(frozen=True)
class Work:
    """One call's work: FLOPs (0 where not counted), bytes read and written, and how it was counted."""

    flops: int
    nbytes: int
    counted_by: str  # "flops" (a family with a FLOP formula) or "bytes"


@functools.lru_cache(maxsize=4096)
def base_name(op: str) -> str:
    return op.partition("::")[2].partition(".")[0]


def _numel(spec: TensorSpec | None) -> int:
    if spec is None or spec.shape is None:
        return 0
    size = 1
    for dim in spec.shape:
        size *= dim
    return size


def _tensors(values: Iterable) -> list[TensorSpec]:
    return [v for v in _flatten(values) if isinstance(v, TensorSpec)]


def _matmul_flops(base: str, tensors: list[TensorSpec], out: TensorSpec | None) -> int:
    """2·M·N·K from the output's size and the contracted dimension of the first operand."""
    shaped = [t for t in tensors if t.shape]
    if not shaped:
        return 0
    if base in ("addmm", "baddbmm", "addmv", "addbmm", "_addmm_activation") and len(shaped) >= 3:
        shaped = shaped[1:]  # the bias/input term comes first
    first = shaped[0]
    if base == "linear":
        k = first.shape[-1]
        n = shaped[1].shape[0] if len(shaped) > 1 and shaped[1].shape else 1
        return 2 * (_numel(first) // max(k, 1)) * k * n
    k = first.shape[-1] if first.shape else 1
    out_elems = _numel(out)
    if not out_elems and len(shaped) > 1 and shaped[1].shape:
        out_elems = (_numel(first) // max(k, 1)) * shaped[1].shape[-1]
    if base == "addbmm" and shaped[0].shape and len(shaped[0].shape) == 3:
        out_elems *= shaped[0].shape[0]
    return 2 * out_elems * k


def _conv_flops(tensors: list[TensorSpec], out: TensorSpec | None) -> int:
    """2 · output elements · (input channels per group × kernel size): the weight's trailing dims."""
    if len(tensors) < 2 or not tensors[1].shape:
        return 0
    weight = tensors[1]
    per_output = 1
    for dim in weight.shape[1:]:
        per_output *= dim
    return 2 * _numel(out) * per_output


def _attention_flops(base: str, tensors: list[TensorSpec]) -> int:
    """QKᵀ and PV: 2·B·H·L·S·(E + Ev), plus ~5 FLOPs per score for the softmax; a backward
    kernel is counted as twice its forward."""
    shaped = [t for t in tensors if t.shape and len(t.shape) >= 2]
    if len(shaped) < 3:
        return 0
    if base.endswith("_backward"):
        shaped = shaped[1:]  # grad_out first
        if len(shaped) < 3:
            return 0
    q, k, v = shaped[:3]
    length, e = q.shape[-2], q.shape[-1]
    source, ev = k.shape[-2], v.shape[-1]
    heads = _numel(q) // max(length * e, 1)
    scores = heads * length * source
    forward = 2 * scores * (e + ev) + 5 * scores
    return 2 * forward if base.endswith("_backward") else forward


def _log2(n: int) -> int:
    return max(int(n - 1).bit_length(), 1) if n > 1 else 1


def _sort_flops(site: CallSite, tensor: TensorSpec | None, fft: bool) -> int:
    """numel · log2(length of the sorted/transformed dimensions)."""
    if tensor is None or not tensor.shape:
        return 0
    named = site.named or site.kwargs or {}
    dims = named.get("dim")
    if dims is None and not fft and len(site.args) > 1 and isinstance(site.args[1], int):
        dims = site.args[1]
    if dims is None:
        dims = list(range(len(tensor.shape))) if fft else [-1]
    dims = dims if isinstance(dims, (list, tuple)) else [dims]
    length = 1
    for d in dims:
        if isinstance(d, int) and -len(tensor.shape) <= d < len(tensor.shape):
            length *= tensor.shape[d]
    return _numel(tensor) * _log2(length)


def site_work(site: CallSite) -> Work:
    """FLOPs and bytes of one call (shapes unknown: zeros, counted by bytes)."""
    if site.work is not None:  # counted when the census was taken (kb.gallery)
        return Work(*site.work)
    base = base_name(site.op)
    inputs = site.tensor_args()
    outputs = _tensors(site.outputs)
    out = outputs[0] if outputs else None
    if base in VIEWS:
        return Work(0, 0, "flops")
    nbytes = sum(t.nbytes for t in inputs) + sum(t.nbytes for t in outputs)
    if base in MATMUL:
        return Work(_matmul_flops(base, inputs, out), nbytes, "flops")
    if base in CONVOLUTION:
        return Work(_conv_flops(inputs, out), nbytes, "flops")
    if base == "convolution_backward" and len(inputs) >= 3:
        # (grad_output, input, weight): the input and weight gradients, each as costly as the forward
        return Work(2 * _conv_flops(inputs[1:3], inputs[0]), nbytes, "flops")
    if base.startswith(ATTENTION_PREFIXES):
        return Work(_attention_flops(base, inputs), nbytes, "flops")
    if base in NORMS:
        return Work(NORM_FLOPS_PER_ELEMENT * _numel(inputs[0] if inputs else None), nbytes, "flops")
    if base in REDUCTIONS:
        return Work(_numel(inputs[0] if inputs else None), nbytes, "flops")
    if base in SORTS or base.startswith(FFTS_PREFIX):
        return Work(_sort_flops(site, inputs[0] if inputs else None, base not in SORTS), nbytes, "flops")
    base_plain = base.rstrip("_")
    if base_plain in ELEMENTWISE:
        per = TRANSCENDENTAL_FLOPS if base_plain in _TRANSCENDENTAL else 1
        if base_plain in ("_to_copy", "to", "copy", "clone", "type_as", "fill", "triu", "tril"):
            per = 0
        elements = _numel(out) or max((_numel(t) for t in inputs), default=0)
        return Work(per * elements, nbytes, "flops")
    return Work(0, nbytes, "bytes")


# Byte-counted ops that may hold most of a model's arithmetic: matmuls without a FLOP formula
# here (aten::_grouped_mm, the MoE experts) and any non-ATen custom op (transformers::
# grouped_mm_fallback). With one of them the FLOPs share is partial (r2-30 #2); the other
# byte-counted ops move data (cat, index, arange) and change no share worth stating.
UNCOUNTED_COMPUTE = frozenset({"_grouped_mm", "grouped_mm", "_scaled_grouped_mm"})


def holds_uncounted_compute(op: str) -> bool:
    namespace = op.partition("::")[0]
    return (namespace not in ("aten", "prims", "") and "::" in op) or base_name(op) in UNCOUNTED_COMPUTE


# Where a call's work happens, by its resolution's status.
ON_DEVICE = ("native", "decomposed")


def account(sites: list[CallSite], where: dict[int, str], works: dict[int, Work] | None = None) -> dict:
    """Totals and shares for one target: `where[site.index]` is "device", "host" or
    "unresolved" (unsupported or unknown: neither side can be claimed).

    A decomposed op that falls back at one leaf is counted as host work whole (the leaf's
    own share is not known without tracing it): a pessimistic share, said in the output."""
    totals = {"device": [0, 0], "host": [0, 0], "unresolved": [0, 0]}
    by_bytes: dict[str, int] = {}
    for site in sites:
        work = works[site.index] if works is not None else site_work(site)
        bucket = totals[where.get(site.index, "unresolved")]
        bucket[0] += work.flops
        bucket[1] += work.nbytes
        if work.counted_by == "bytes" and work.nbytes:
            by_bytes[site.op] = by_bytes.get(site.op, 0) + 1
    flops = sum(v[0] for v in totals.values())
    nbytes = sum(v[1] for v in totals.values())
    return {
        "flops": flops,
        "bytes": nbytes,
        "device_flops": totals["device"][0],
        "host_flops": totals["host"][0],
        "unresolved_flops": totals["unresolved"][0],
        "device_bytes": totals["device"][1],
        "host_bytes": totals["host"][1],
        "unresolved_bytes": totals["unresolved"][1],
        # No FLOPs counted (only byte-counted ops) is not "100% of FLOPs on the device":
        # the share is unknown (None), and the byte share is the one to read.
        "device_flop_share": _share(totals["device"][0], flops) if flops or not nbytes else None,
        "flops_counted": bool(flops) or not nbytes,
        "device_byte_share": _share(totals["device"][1], nbytes),
        "counted_by_bytes": sorted(by_bytes),
        # FLOPs of these ops are not counted and may be most of the model's: the share is of the
        # counted FLOPs only, and every format marks it partial
        "flops_uncounted": sorted(op for op in by_bytes if holds_uncounted_compute(op)),
        "flops_partial": bool(flops) and any(holds_uncounted_compute(op) for op in by_bytes),
        "method": ("FLOPs for matmul/linear/conv/attention/norm/softmax/elementwise/reduction/sort/fft calls from "
                   "their shapes (sort, topk, fft: numel·log2 n; cumsum and reductions: numel; transcendental "
                   "elementwise ops: 4 per element); other ops by bytes only (listed in counted_by_bytes); a "
                   "decomposed op that falls back at a leaf counts as host work whole"),
    }


def _share(part: int, whole: int) -> float:
    """A share rounded to 6 places; 1.0 for a model with no work of that kind (nothing leaves)."""
    return round(part / whole, 6) if whole else 1.0
