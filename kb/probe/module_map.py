"""Generate data/modules/torch-<version>.json: torch.nn module class → the ATen ops it dispatches.

Run once per torch release (`python -m kb.probe.module_map`) and commit the output; `kb op
nn.Linear`, the op page's search, `kb ask` and the MCP tools then read the JSON through
kb.store.torchnames and never import torch. Each public `torch.nn.Module` subclass is built
from representative constructor arguments (SPECS; a class not listed gets a few generic
guesses) on the meta device, so no weight memory is used, and called on meta tensors under a
TorchDispatchMode that records every ATen op reaching the backend (below autograd:
CompositeImplicitAutograd ops appear as what they decompose into). Three lists per module:
`forward` in eval mode (inference), `train_forward` when training mode differs (dropout,
batch norm statistics), and `backward`: what autograd dispatches for the gradient of the
train-mode output (the loss seed is made outside the recording). A module whose ops need real
values (data-dependent sizes: CTC loss, adaptive log-softmax, unpooling) is traced on small
CPU tensors instead, and says so (`device`). The arguments and input shapes used are recorded
with each entry: other shapes may dispatch other ops (Linear on 2-D input is one addmm, on
3-D a view first).
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import sys
import warnings
from collections.abc import Callable
from typing import Any

from kb.store.torchnames import NOT_LAYERS

TIMEOUT_S = 10  # one module stuck this long is given up
MIN_MODULES = 100  # fewer means the tracing itself broke: refuse to write the map

# Input shapes, named: (batch, sequence, features) and (batch, channels, spatial...) layouts.
SEQ = ("f", (2, 4, 16))
VEC = ("f", (2, 16))
C1 = ("f", (2, 3, 16))
C2 = ("f", (2, 3, 8, 8))
C3 = ("f", (2, 3, 4, 8, 8))


def _layer(kind: str) -> Callable[[Any], Any]:
    """Sub-layers handed to TransformerEncoder/Decoder (built on the same device)."""
    def make(nn: Any) -> Any:
        cls = nn.TransformerEncoderLayer if kind == "encoder" else nn.TransformerDecoderLayer
        return cls(16, 2, dim_feedforward=32, batch_first=True)
    make.__name__ = "TransformerDecoderLayer(16, 2, dim_feedforward=32, batch_first=True)" if kind != "encoder" \
        else "TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)"
    return make


def _unpool_inputs(dims: int) -> Callable[[Any, str], tuple]:
    """MaxUnpool takes what MaxPool returned: values and their indices."""
    def make(torch: Any, device: str) -> tuple:
        shape = {1: (2, 3, 16), 2: (2, 3, 8, 8), 3: (2, 3, 4, 8, 8)}[dims]
        pool = getattr(torch.nn.functional, f"max_pool{dims}d")
        return pool(torch.rand(shape), 2, return_indices=True)
    make.__name__ = f"max_pool{dims}d(float32{list({1: (2, 3, 16), 2: (2, 3, 8, 8), 3: (2, 3, 4, 8, 8)}[dims])}, 2)"
    return make


def _ctc_inputs(torch: Any, device: str) -> tuple:
    log_probs = torch.rand(6, 2, 5).log_softmax(2)
    return log_probs, torch.randint(1, 5, (2, 3)), torch.full((2,), 6, dtype=torch.long), \
        torch.full((2,), 3, dtype=torch.long)


_ctc_inputs.__name__ = "log_probs float32[6, 2, 5], targets int64[2, 3], input_lengths [6, 6], target_lengths [3, 3]"

_ACTIVATIONS = ("CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU",
                "LogSigmoid", "Mish", "PReLU", "RReLU", "ReLU", "ReLU6", "SELU", "SiLU", "Sigmoid", "Softplus",
                "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Identity", "Dropout", "AlphaDropout")
_PAIR_LOSSES = ("L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "SoftMarginLoss", "BCEWithLogitsLoss",
                "PoissonNLLLoss", "HingeEmbeddingLoss", "MultiLabelSoftMarginLoss", "PairwiseDistance")
_SPATIAL = {"1d": C1, "2d": C2, "3d": C3}


def _specs() -> dict[str, tuple[tuple, dict, tuple]]:
    """class name → (constructor args, keyword args, inputs). An input is ("f", shape) float,
    ("i", shape, high) int64 below high, ("p", shape) a probability, or a callable(torch, device)
    returning the whole input tuple (values that must be real)."""
    specs: dict[str, tuple[tuple, dict, tuple]] = {name: ((), {}, (SEQ,)) for name in _ACTIVATIONS}
    specs.update({
        "Linear": ((16, 8), {}, (SEQ,)), "LazyLinear": ((8,), {}, (SEQ,)), "Bilinear": ((16, 16, 8), {}, (SEQ, SEQ)),
        "Flatten": ((), {}, (C2,)), "Unflatten": ((1, (4, 4)), {}, (VEC,)),
        "Threshold": ((0.1, 0.0), {}, (SEQ,)), "Softmax": ((), {"dim": -1}, (SEQ,)),
        "LogSoftmax": ((), {"dim": -1}, (SEQ,)), "Softmin": ((), {"dim": -1}, (SEQ,)), "Softmax2d": ((), {}, (C2,)),
        "ChannelShuffle": ((3,), {}, (C2,)), "FeatureAlphaDropout": ((), {}, (C2,)),
        "LayerNorm": ((16,), {}, (SEQ,)), "RMSNorm": ((16,), {}, (SEQ,)), "GroupNorm": ((1, 3), {}, (C2,)),
        "LocalResponseNorm": ((2,), {}, (C2,)), "CrossMapLRN2d": ((2,), {}, (C2,)),
        "SyncBatchNorm": ((3,), {}, (C2,)),
        "Embedding": ((10, 16), {}, (("i", (2, 4), 10),)), "EmbeddingBag": ((10, 16), {}, (("i", (2, 4), 10),)),
        "MultiheadAttention": ((16, 2), {"batch_first": True}, (SEQ, SEQ, SEQ)),
        "TransformerEncoderLayer": ((16, 2), {"dim_feedforward": 32, "batch_first": True}, (SEQ,)),
        "TransformerDecoderLayer": ((16, 2), {"dim_feedforward": 32, "batch_first": True}, (SEQ, SEQ)),
        "TransformerEncoder": ((_layer("encoder"), 1), {"enable_nested_tensor": False}, (SEQ,)),
        "TransformerDecoder": ((_layer("decoder"), 1), {}, (SEQ, SEQ)),
        "Transformer": ((), {"d_model": 16, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1,
                             "dim_feedforward": 32, "batch_first": True}, (SEQ, SEQ)),
        "LSTM": ((16, 8), {"batch_first": True}, (SEQ,)), "GRU": ((16, 8), {"batch_first": True}, (SEQ,)),
        "RNN": ((16, 8), {"batch_first": True}, (SEQ,)),
        "LSTMCell": ((16, 8), {}, (VEC,)), "GRUCell": ((16, 8), {}, (VEC,)), "RNNCell": ((16, 8), {}, (VEC,)),
        "Upsample": ((), {"scale_factor": 2, "mode": "nearest"}, (C2,)),
        "UpsamplingNearest2d": ((), {"scale_factor": 2}, (C2,)), "UpsamplingBilinear2d": ((), {"scale_factor": 2}, (C2,)),
        "PixelShuffle": ((2,), {}, (("f", (2, 4, 4, 4)),)), "PixelUnshuffle": ((2,), {}, (C2,)),
        "Fold": ((), {"output_size": (4, 4), "kernel_size": 2}, (("f", (2, 12, 9)),)),
        "Unfold": ((), {"kernel_size": 2}, (C2,)),
        "CosineSimilarity": ((), {}, (SEQ, SEQ)),
        "FractionalMaxPool2d": ((2,), {"output_size": 4}, (C2,)),
        "FractionalMaxPool3d": ((2,), {"output_size": 2}, (C3,)),
        "BCELoss": ((), {}, (("p", (2, 16)), ("p", (2, 16)))),
        "CrossEntropyLoss": ((), {}, (("f", (2, 10)), ("i", (2,), 10))),
        "NLLLoss": ((), {}, (("f", (2, 10)), ("i", (2,), 10))),
        "NLLLoss2d": ((), {}, (("f", (2, 3, 4, 4)), ("i", (2, 4, 4), 3))),
        "MultiMarginLoss": ((), {}, (("f", (2, 10)), ("i", (2,), 10))),
        "MultiLabelMarginLoss": ((), {}, (("f", (2, 4)), ("i", (2, 4), 4))),
        "KLDivLoss": ((), {"reduction": "batchmean"}, (VEC, VEC)),
        "GaussianNLLLoss": ((), {}, (VEC, VEC, ("p", (2, 16)))),
        "MarginRankingLoss": ((), {}, (("f", (2,)), ("f", (2,)), ("f", (2,)))),
        "CosineEmbeddingLoss": ((), {}, (VEC, VEC, ("f", (2,)))),
        "TripletMarginLoss": ((), {}, (VEC, VEC, VEC)), "TripletMarginWithDistanceLoss": ((), {}, (VEC, VEC, VEC)),
        "CTCLoss": ((), {}, _ctc_inputs),
        "AdaptiveLogSoftmaxWithLoss": ((16, 10, [4, 8]), {}, (VEC, ("i", (2,), 10))),
        "LinearCrossEntropyLoss": ((16, 10), {}, (VEC, ("i", (2,), 10))),
    })
    specs.update({name: ((), {}, (VEC, VEC)) for name in _PAIR_LOSSES})
    for dims, shape in _SPATIAL.items():
        n = int(dims[0])
        for conv in ("Conv", "ConvTranspose"):
            specs[f"{conv}{dims}"] = ((3, 4, 3), {}, (shape,))
            specs[f"Lazy{conv}{dims}"] = ((4, 3), {}, (shape,))
        for norm in ("BatchNorm", "InstanceNorm"):
            specs[f"{norm}{dims}"] = ((3,), {}, (shape,))
            specs[f"Lazy{norm}{dims}"] = ((), {}, (shape,))
        for pool in ("MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool"):
            specs[f"{pool}{dims}"] = ((2,), {}, (shape,))
        specs[f"LPPool{dims}"] = ((2, 2), {}, (shape,))
        specs[f"MaxUnpool{dims}"] = ((2,), {}, _unpool_inputs(n))
        specs[f"Dropout{dims}"] = ((), {}, (shape,))
        for pad in ("ReflectionPad", "ReplicationPad", "CircularPad", "ZeroPad"):
            specs[f"{pad}{dims}"] = ((1,), {}, (shape,))
        specs[f"ConstantPad{dims}"] = ((1, 0.0), {}, (shape,))
    return specs


# Tried, in order, for a class SPECS does not name (a newer torch's new layers).
GENERIC = (((), {}, (SEQ,)), ((), {}, (C2,)), ((16,), {}, (SEQ,)), ((), {}, (VEC, VEC)))


def module_classes(nn: Any) -> dict[str, Any]:
    """Public torch.nn classes that are layers (NOT_LAYERS are containers and bases)."""
    out = {}
    for name in sorted(dir(nn)):
        obj = getattr(nn, name, None)
        if name.startswith("_") or name in NOT_LAYERS or not inspect.isclass(obj):
            continue
        if issubclass(obj, nn.Module):
            out[name] = obj
    return out


def _describe_input(item: Any) -> str:
    if callable(item):
        return item.__name__
    kind, shape = item[0], list(item[1])
    return {"f": f"float32{shape}", "p": f"float32{shape} in [0, 1]", "i": f"int64{shape} below {item[-1]}"}[kind]


def _describe_ctor(name: str, args: tuple, kwargs: dict) -> str:
    parts = [a.__name__ if callable(a) else repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def _inputs(torch: Any, spec_inputs: Any, device: str, loss: bool) -> tuple:
    """The inputs on `device`; float ones require grad (for a loss only the prediction, the
    first: a target's gradient is no part of a training step)."""
    if callable(spec_inputs):
        made = [t.to(device) for t in spec_inputs(torch, device)]
    else:
        made = []
        for item in spec_inputs:
            kind, shape = item[0], item[1]
            if kind == "i":
                made.append(torch.randint(0, item[2], shape) if device == "cpu"
                            else torch.empty(shape, dtype=torch.long, device=device))
            else:
                made.append(torch.rand(shape) if device == "cpu" else torch.empty(shape, device=device))
    for i, t in enumerate(made):
        if t.is_floating_point() and (i == 0 or not loss):
            t.requires_grad_(True)
    return tuple(made)


class _Timeout(Exception):
    pass


def _alarm(_signum, _frame):
    raise _Timeout


def recorder(torch: Any) -> Any:
    """A TorchDispatchMode that lists the ATen ops dispatched under it (`.ops`, in call order,
    `name.overload`); the function map (kb.chat.function_map) records with it too."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Recorder(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops: list[str] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = func._schema.name + (f".{func._overloadname}" if func._overloadname != "default" else "")
            self.ops.append(name)
            return func(*args, **(kwargs or {}))

    return Recorder()


def _ops(recorder: Any) -> list[str]:
    # CPU-only kernels (flash attention "_for_cpu") say nothing about other backends
    return [op for op in dict.fromkeys(recorder.ops) if not op.endswith("_for_cpu")]


def _first_tensor(torch: Any, out: Any) -> Any:
    items = out if isinstance(out, (tuple, list)) else [out]
    for item in items:
        if isinstance(item, torch.Tensor) and item.requires_grad:
            return item
        if isinstance(item, (tuple, list)):
            found = _first_tensor(torch, item)
            if found is not None:
                return found
    return None


def trace_module(torch: Any, name: str, cls: Any, args: tuple, kwargs: dict, spec_inputs: Any,
                 device: str) -> dict[str, Any]:
    """One module's entry on `device`; raises when its eval forward does not run there."""
    from torch.utils._python_dispatch import _get_current_dispatch_mode, _pop_mode

    torch.manual_seed(0)
    with torch.device(device):
        module = cls(*[a(torch.nn) if callable(a) else a for a in args], **kwargs)
    inputs = _inputs(torch, spec_inputs, device, loss=name.endswith("Loss"))
    entry: dict[str, Any] = {"constructor": _describe_ctor(name, args, kwargs),
                             "inputs": [_describe_input(spec_inputs)] if callable(spec_inputs)
                             else [_describe_input(i) for i in spec_inputs], "device": device}
    try:
        module.eval()
        module(*inputs)  # a lazy module sizes itself on its first call: keep that out of the record
        record = recorder(torch)
        with record:
            module(*inputs)
        entry["forward"] = _ops(record)
        module.train()
        record = recorder(torch)
        with record:
            out = module(*inputs)
        train = _ops(record)
        if train != entry["forward"]:
            entry["train_forward"] = train
        result = _first_tensor(torch, out)
        if result is not None:
            seed = torch.ones_like(result)
            record = recorder(torch)
            with record:
                torch.autograd.backward(result, seed)
            entry["backward"] = _ops(record)
    finally:
        while _get_current_dispatch_mode() is not None:
            _pop_mode()
    if "forward" not in entry:
        raise RuntimeError("no forward")
    return entry


def _trace_one(torch: Any, name: str, cls: Any, spec: tuple | None) -> tuple[dict[str, Any] | None, str]:
    """(entry, why not) for one class: meta first, CPU when the ops need real values."""
    tries = [spec] if spec else list(GENERIC)
    last = ""
    for args, kwargs, spec_inputs in tries:
        for device in ("meta", "cpu"):
            previous = signal.signal(signal.SIGALRM, _alarm)
            signal.alarm(TIMEOUT_S)
            try:
                entry = trace_module(torch, name, cls, args, kwargs, spec_inputs, device)
                if spec is None:
                    entry["guessed"] = True  # SPECS does not name it: generic arguments that happened to work
                return entry, ""
            except _Timeout:
                last = f"timed out after {TIMEOUT_S} s on {device}"
            except Exception as exc:  # any failure: try the next device / guess
                last = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
            finally:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, previous)
    return None, last


def build() -> dict[str, Any]:
    import torch

    warnings.filterwarnings("ignore")
    specs = _specs()
    modules: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name, cls in module_classes(torch.nn).items():
        entry, why = _trace_one(torch, name, cls, specs.get(name))
        if entry is None:
            skipped[f"torch.nn.{name}"] = why
        else:
            modules[f"torch.nn.{name}"] = entry
    if len(modules) < MIN_MODULES:
        raise RuntimeError(f"only {len(modules)} modules traced (expected {MIN_MODULES}+): not writing a map")
    return {
        "torch_version": torch.__version__.split("+")[0],
        "generated_by": "python -m kb.probe.module_map",
        "method": ("each module built with the constructor shown on the meta device (CPU where noted) and called on "
                   "the inputs shown under a TorchDispatchMode: ATen ops below autograd, in first-call order; "
                   "forward in eval mode, train_forward where training mode differs, backward for the gradient "
                   "of the train-mode output"),
        "modules": dict(sorted(modules.items())),
        "skipped": dict(sorted(skipped.items())),
    }


def write_map(result: dict, kind: str, argv: list[str] | None = None) -> str:
    """Write a traced map (modules, or functions: kb.chat.function_map) as
    data/<kind>/torch-<version>.json, or into the folder given on the command line; its path."""
    from kb import paths

    out_dir = (argv or sys.argv[1:] or [os.path.join(paths.shipped_data_dir(), kind)])[0]
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"torch-{result['torch_version']}.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, sort_keys=False)
        fh.write("\n")
    return path


def main(argv: list[str] | None = None) -> int:
    result = build()
    path = write_map(result, "modules", argv)
    print(f"{len(result['modules'])} modules ({len(result['skipped'])} skipped) → {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
