"""A simulated accelerator, device ``sim``: a pure-Python PyTorch ``PrivateUse1`` backend.

Why: the probes and ``kb parity`` need a backend with known answers, and nobody has a
Trainium or TPU in CI. ``load()`` registers, in this process,

* a device named ``sim`` (``PrivateUse1`` renamed), whose tensors are real
  ``PrivateUse1`` tensors with storage in host memory (see `to_sim`, `host_view`);
* one kernel per name in ``NATIVE`` (``torch.library`` impl on ``PrivateUse1``): these
  ops are *native* on sim;
* a boxed fallback for every other op that reaches the ``PrivateUse1`` key: it runs the
  op on the CPU views of its arguments (a *CPU fallback*), except for
  the ops in ``RAISES``, for which it raises ``NotImplementedError`` (*unsupported*).

Ops with a CompositeImplicitAutograd or CompositeExplicitAutograd kernel and no sim
kernel never reach the fallback: the dispatcher decomposes them. The tables below are
the ground truth the static probe is tested against, and the policy it reads
(``fallback_action``). Results are numerically those of the CPU, except for kernels
installed on purpose with ``install_drifting_kernel`` (for testing ``kb parity``).

Loading twice in one process is a no-op; loading after another backend claimed
``PrivateUse1`` raises ``SimUnavailableError``.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

DEVICE = "sim"
POLICY = {
    "eager": "per-op: the ops in kb.probe.sim.RAISES raise, every other op runs on the CPU",
    "compile": "raise",
    "note": "sim has no graph compiler: in compile mode an op without a sim kernel fails",
}

# Ops with their own sim kernel. The first group is plumbing every backend needs (allocate,
# copy to and from the host, read a scalar, make views); the second computes through the
# CPU, like a device kernel that happens to be exact.
PLUMBING = (
    "aten::empty.memory_format",
    "aten::empty_strided",
    "aten::copy_",
    "aten::_copy_from",
    "aten::_copy_from_and_resize",
    "aten::_local_scalar_dense",
    "aten::view",
    "aten::as_strided",
)
COMPUTE = (
    "aten::add.Tensor",
    "aten::add.out",
    "aten::sub.Tensor",
    "aten::mul.Tensor",
    "aten::mul.out",
    "aten::div.Tensor",
    "aten::neg",
    "aten::exp",
    "aten::abs",
    "aten::relu",
    "aten::mm",
    "aten::addmm",
    "aten::sum",
    "aten::sum.dim_IntList",
    "aten::mean.dim",
    "aten::fill_.Scalar",
    "aten::zero_",
    # PyTorch routes convolutions on PrivateUse1 to these two, whose default kernels only
    # raise: a backend that runs convolutions must override them.
    "aten::convolution_overrideable",
    "aten::convolution_backward_overrideable",
)
NATIVE = frozenset(PLUMBING + COMPUTE)

# Ops the boxed fallback refuses: on sim they raise (none of them has a composite kernel,
# so they do reach the fallback; tests/probe/test_probe_sim_runtime.py checks that).
RAISES = frozenset({
    "aten::nonzero",
    "aten::nonzero.out",
    "aten::bincount",
    "aten::histc",
    "aten::histc.out",
    "aten::unique_consecutive",
    "aten::_unique2",
    "aten::median",
    "aten::searchsorted.Tensor",
    "aten::_cdist_forward",
    "aten::bucketize.Tensor",
})

_LOCK = threading.Lock()
_libraries: list[Any] = []  # torch.library.Library objects must outlive the registration
_loaded = False
_drifting: dict[str, float] = {}
# What ran where since load (or `reset_counters`): like a real backend's op tracker.
fallback_counts: Counter[str] = Counter()
native_counts: Counter[str] = Counter()


class SimUnavailableError(RuntimeError):
    """PrivateUse1 is already taken by another backend in this process."""


def op_name(op) -> str:
    """Canonical name (``aten::add.Tensor``, ``aten::neg``) of a torch OpOverload."""
    overload = op._overloadname
    name = op._schema.name
    return name if overload in ("default", "") else f"{name}.{overload}"


# Replaying another backend (kb.probe.replay): a JSON file named by this variable gives
# the kernel list to register instead of COMPUTE, and what the boxed fallback does with
# every other op: {"kernels": ["aten::add.Tensor", ...], "fallback": "cpu" | "raise"}.
CONFIG_ENV = "KB_SIM_KERNELS"


def replay_config() -> dict[str, Any] | None:
    """The kernel list and fallback this process's sim imitates, or None (sim's own)."""
    import json
    import os

    path = os.environ.get(CONFIG_ENV)
    if not path:
        return None
    with open(path, encoding="utf-8") as fh:
        config = json.load(fh)
    return {"kernels": frozenset(config.get("kernels") or ()), "fallback": config.get("fallback", "cpu")}


def fallback_action(name: str) -> str:
    """What the boxed fallback does with op `name`: "cpu" (runs it on the host) or "raise"."""
    config = _config()
    if config is not None:
        return config["fallback"]
    return "raise" if name in RAISES else "cpu"


def native_ops() -> frozenset[str]:
    """The ops with a sim kernel now: NATIVE (or the replayed kernel list) plus any
    drifting kernels installed since."""
    config = _config()
    own = NATIVE if config is None else frozenset(PLUMBING) | config["kernels"]
    return own | frozenset(_drifting)


_UNREAD = object()
_config_cache: Any = _UNREAD


def _config() -> dict[str, Any] | None:
    global _config_cache
    if _config_cache is _UNREAD:
        _config_cache = replay_config()
    return _config_cache


def is_loaded() -> bool:
    return _loaded


def reset_counters() -> None:
    fallback_counts.clear()
    native_counts.clear()


# --- tensors -------------------------------------------------------------------------
# A sim tensor is a real PrivateUse1 tensor whose storage points at host memory: the
# storage is built over the data pointer of a CPU storage, which is kept alive as an
# attribute of the sim storage's Python object. So sizes, strides, offsets and views made
# by PyTorch's own C++ code (alias, detach, expand...) are all truthful, and the CPU view
# of any sim tensor is one `set_` away.

def _torch():
    import torch

    return torch


def _cpu_keyset():
    torch = _torch()
    return torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)


def _sim_storage(host_storage):
    """A sim storage over the bytes of a CPU storage, keeping the CPU storage alive."""
    torch = _torch()
    storage = torch._C._construct_storage_from_data_pointer(
        host_storage.data_ptr(), torch.device(DEVICE, 0), host_storage.nbytes())
    storage._sim_host = host_storage
    return storage


def _tensor_on(storage, dtype, size, stride, offset):
    """A sim tensor with this metadata over a sim storage (no kernel of ours runs)."""
    torch = _torch()
    shell = torch._C._acc.create_empty_tensor((0,), dtype)
    return torch.ops.aten.set_.source_Storage_storage_offset.redispatch(
        _cpu_keyset(), shell, storage, offset, tuple(size), tuple(stride))


def to_sim(cpu_tensor, storages: dict[int, Any] | None = None):
    """A sim tensor sharing `cpu_tensor`'s memory (views stay views). `storages` maps CPU
    data pointers to sim storages already made, so aliases share one sim storage."""
    host = cpu_tensor.untyped_storage()
    key = host.data_ptr()
    storage = storages.get(key) if storages is not None and key else None
    if storage is None:
        storage = _sim_storage(host)
        if storages is not None and key:
            storages[key] = storage
    return _tensor_on(storage, cpu_tensor.dtype, cpu_tensor.shape, cpu_tensor.stride(), cpu_tensor.storage_offset())


def host_view(tensor):
    """The CPU tensor that shares a sim tensor's memory (same sizes, strides, offset)."""
    torch = _torch()
    host = getattr(tensor.untyped_storage(), "_sim_host", None)
    if host is None:
        raise RuntimeError("sim: a sim tensor whose memory kb.probe.sim did not allocate")
    view = torch.empty(0, dtype=tensor.dtype).set_(host, tensor.storage_offset(), tensor.shape, tensor.stride())
    if tensor.is_conj():  # lazy conjugation and negation are flags on the tensor, not data
        view = view._conj()
    if tensor.is_neg():
        view = view._neg_view()
    return view


def _is_sim(value) -> bool:
    torch = _torch()
    return isinstance(value, torch.Tensor) and value.device.type == DEVICE


def _to_host(value, pairs: list | None = None):
    """Replace sim tensors by their CPU views and the sim device by the CPU, recursively;
    each (sim tensor, CPU view) pair is appended to `pairs`."""
    torch = _torch()
    if _is_sim(value):
        view = host_view(value)
        if pairs is not None:
            pairs.append((value, view))
        return view
    if isinstance(value, torch.device):
        return torch.device("cpu") if value.type == DEVICE else value
    if isinstance(value, str) and value.split(":")[0] == DEVICE:
        return "cpu"
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(v, pairs) for v in value)
    if isinstance(value, dict):
        return {k: _to_host(v, pairs) for k, v in value.items()}
    return value


def run_on_host(op, args, kwargs, host_fn=None):
    """Run `op` (or `host_fn`, a CPU stand-in for it) on the CPU views of its sim
    arguments; return sim results. An output that is an input (in-place and out= ops)
    comes back as that very input."""
    torch = _torch()
    pairs: list = []
    host_args, host_kwargs = _to_host(args, pairs), _to_host(kwargs, pairs)
    if host_fn is None:
        host_args, host_kwargs = _rewrap_numbers(op, host_args, host_kwargs)
    storages = {}
    for sim_tensor, _ in pairs:
        storage = sim_tensor.untyped_storage()
        if storage.data_ptr():
            storages[storage.data_ptr()] = storage
    with torch._C._AutoDispatchBelowADInplaceOrView():
        result = (host_fn or op)(*host_args, **host_kwargs)
    for sim_tensor, view in pairs:
        _follow_resize(sim_tensor, view)

    def back(value):
        if isinstance(value, torch.Tensor):
            for sim_tensor, view in pairs:
                if value is view:
                    return sim_tensor
            return to_sim(value, storages)
        if isinstance(value, (list, tuple)):
            return type(value)(back(v) for v in value)
        return value

    return back(result)


def _rewrap_numbers(op, args, kwargs):
    """A Python number passed where the schema wants a Tensor (``x % 5`` reaches a boxed
    kernel as remainder.Tensor with a wrapped number, which arrives in Python as an int)
    goes back into a 0-dim CPU tensor, so the overload accepts it again."""
    torch = _torch()
    schema = op._schema.arguments

    def fix(argument, value):
        if isinstance(argument.type, torch._C.TensorType) and isinstance(value, (bool, int, float, complex)):
            return torch.tensor(value)
        return value

    args = tuple(fix(argument, value) for argument, value in zip(schema, args)) + tuple(args[len(schema):])
    by_name = {argument.name: argument for argument in schema}
    kwargs = {k: fix(by_name[k], v) if k in by_name else v for k, v in kwargs.items()}
    return args, kwargs


def _follow_resize(sim_tensor, cpu_view) -> None:
    """If an op resized a CPU view (out= arguments), point the sim tensor at the new memory."""
    if tuple(cpu_view.shape) == tuple(sim_tensor.shape) and cpu_view.untyped_storage().data_ptr() == \
            sim_tensor.untyped_storage()._sim_host.data_ptr():
        return
    torch = _torch()
    storage = _sim_storage(cpu_view.untyped_storage())
    torch.ops.aten.set_.source_Storage_storage_offset.redispatch(
        _cpu_keyset(), sim_tensor, storage, cpu_view.storage_offset(), tuple(cpu_view.shape), tuple(cpu_view.stride()))


# --- kernels -------------------------------------------------------------------------

def _compute_kernel(name: str):
    torch = _torch()
    op = _overload(torch, name)
    host_fn = _HOST_STAND_INS.get(name)

    def kernel(*args, **kwargs):
        native_counts[name] += 1
        return run_on_host(op, args, kwargs, host_fn)

    return kernel


def _compute_kernel_or_none(torch, name: str):
    """A host-computing kernel for `name`, or None when this torch has no such overload
    (a replayed kernel list may name ops of another torch version)."""
    try:
        return _compute_kernel(name)
    except (AttributeError, RuntimeError):
        return None


def _host_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    torch = _torch()
    return torch.ops.aten.convolution.default(input, weight, bias, stride, padding, dilation, transposed,
                                              output_padding, groups)


def _host_convolution_backward(grad_output, input, weight, stride, padding, dilation, transposed, output_padding,
                               groups, output_mask):
    torch = _torch()
    bias_sizes = [weight.shape[1] * groups] if transposed else [weight.shape[0]]
    return torch.ops.aten.convolution_backward.default(grad_output, input, weight, bias_sizes, stride, padding,
                                                       dilation, transposed, output_padding, groups, output_mask)


# Ops whose sim kernel computes through a different CPU op (the CPU has no kernel for them).
_HOST_STAND_INS = {
    "aten::convolution_overrideable": _host_convolution,
    "aten::convolution_backward_overrideable": _host_convolution_backward,
}


def _overload(torch, name: str):
    base, _, overload = name.removeprefix("aten::").partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def _empty_memory_format(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    torch = _torch()
    native_counts["aten::empty.memory_format"] += 1
    return to_sim(torch.empty(size, dtype=dtype, memory_format=memory_format or torch.contiguous_format))


def _empty_strided(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    torch = _torch()
    native_counts["aten::empty_strided"] += 1
    return to_sim(torch.empty_strided(size, stride, dtype=dtype))


def _host(value):
    return host_view(value) if _is_sim(value) else value


def _copy(dst, src, non_blocking=False):
    # Own kernel for copy_: it passes PyTorch's Conjugate/Negative layers untouched, so
    # the CPU copy resolves lazy conj/neg flags (through _copy_from it would recurse).
    native_counts["aten::copy_"] += 1
    _host(dst).copy_(_host(src))
    return dst


def _copy_from(src, dst, non_blocking=False):
    native_counts["aten::_copy_from"] += 1
    _host(dst).copy_(_host(src))
    return dst


def _copy_from_and_resize(src, dst):
    native_counts["aten::_copy_from_and_resize"] += 1
    host_dst = _host(dst)
    host_dst.resize_(src.shape)
    host_dst.copy_(_host(src))
    if _is_sim(dst):
        _follow_resize(dst, host_dst)
    return dst


def _local_scalar_dense(tensor):
    native_counts["aten::_local_scalar_dense"] += 1
    return host_view(tensor).item()


def _view(tensor, size):
    # Views only change metadata: PyTorch's generic (CPU-registered) kernel does that.
    torch = _torch()
    native_counts["aten::view"] += 1
    return torch.ops.aten.view.default.redispatch(_cpu_keyset(), tensor, size)


def _as_strided(tensor, size, stride, storage_offset=None):
    torch = _torch()
    native_counts["aten::as_strided"] += 1
    return torch.ops.aten.as_strided.default.redispatch(_cpu_keyset(), tensor, size, stride, storage_offset)


_PLUMBING_KERNELS = {
    "aten::empty.memory_format": _empty_memory_format,
    "aten::empty_strided": _empty_strided,
    "aten::copy_": _copy,
    "aten::_copy_from": _copy_from,
    "aten::_copy_from_and_resize": _copy_from_and_resize,
    "aten::_local_scalar_dense": _local_scalar_dense,
    "aten::view": _view,
    "aten::as_strided": _as_strided,
}


def _boxed_fallback(keyset, op, *args, **kwargs):
    name = op_name(op)
    if fallback_action(name) == "raise":
        raise NotImplementedError(f"sim: {name} has no sim kernel and no CPU fallback")
    fallback_counts[name] += 1
    return run_on_host(op, args, kwargs)


def _give_rng_state(torch) -> None:
    """sim draws random numbers with the CPU's generator; `torch.random.fork_rng` (used by
    some OpInfos, SDPA's among them) asks every device module for its RNG state."""
    module = getattr(torch, DEVICE)
    if not hasattr(module, "get_rng_state"):
        module.get_rng_state = lambda device=None: torch.get_rng_state()
        module.set_rng_state = lambda state, device=None: None


def load() -> None:
    """Register the sim device in this process (idempotent)."""
    global _loaded
    with _LOCK:
        if _loaded:
            return
        torch = _torch()
        from torch.utils.backend_registration import _setup_privateuseone_for_python_backend

        current = torch._C._get_privateuse1_backend_name()
        if current not in ("privateuseone", DEVICE):
            raise SimUnavailableError(f"PrivateUse1 is already the {current!r} backend in this process")
        if current == DEVICE and not _libraries:
            raise SimUnavailableError("PrivateUse1 is already named 'sim' by code other than kb.probe.sim")
        _setup_privateuseone_for_python_backend(DEVICE)
        _give_rng_state(torch)
        aten = torch.library.Library("aten", "IMPL")
        for name in PLUMBING:
            aten.impl(name.removeprefix("aten::"), _PLUMBING_KERNELS[name], "PrivateUse1")
        config = _config()
        for name in (COMPUTE if config is None else sorted(config["kernels"] - set(PLUMBING))):
            kernel = _compute_kernel_or_none(torch, name)
            if kernel is None:
                continue
            try:
                aten.impl(name.removeprefix("aten::"), kernel, "PrivateUse1")
            except RuntimeError:  # an overload this torch cannot take a Python kernel for
                continue
        catch_all = torch.library.Library("_", "IMPL")
        catch_all.fallback(_boxed_fallback, "PrivateUse1", with_keyset=True)
        _libraries.extend([aten, catch_all])
        _loaded = True


def install_drifting_kernel(name: str, rel_error_per_element: float = 1e-6) -> None:
    """Give op `name` a sim kernel that is wrong on purpose: its floating-point results are
    off by a relative error of ``rel_error_per_element`` times the element count of its
    largest input, so small tests pass and large tensors fail. For testing numerical
    parity checks (``kb parity``)."""
    import warnings

    load()
    torch = _torch()
    op = _overload(torch, name)

    def kernel(*args, **kwargs):
        native_counts[name] += 1
        pairs: list = []
        _to_host((args, kwargs), pairs)
        size = max((sim_tensor.numel() for sim_tensor, _ in pairs), default=1)
        result = run_on_host(op, args, kwargs)
        for tensor in result if isinstance(result, (list, tuple)) else (result,):
            if _is_sim(tensor) and tensor.is_floating_point():
                host_view(tensor).mul_(1 + _drifting[name] * size)
        return result

    with _LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "overriding a previously registered kernel" is the point
        _drifting[name] = rel_error_per_element
        lib = torch.library.Library("aten", "IMPL")
        lib.impl(name.removeprefix("aten::"), kernel, "PrivateUse1")
        _libraries.append(lib)
