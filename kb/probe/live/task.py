"""One live-probe task: every sample of one OpInfo in one dtype, run on the CPU (the
reference) and on the device under a `TorchDispatchMode` that records each ATen overload
the sample dispatches there, who served it (kb.probe.live.detect) and whether it raised; then
the results compared (kb.probe.live.numerics), and a wrong sample re-run call by call to find
the overload at fault. Before each device call the overload's name goes into the
worker's beacon, so a crash or hang is still attributed."""

from __future__ import annotations

import os
import sys
import time
from collections import defaultdict
from itertools import islice
from typing import Any

from kb.probe.live.beacon import Beacon
from kb.probe.live.device import Device

# Calls that move or allocate data rather than compute: a wrong result is not theirs.
PLUMBING = frozenset({
    "aten::empty.memory_format", "aten::empty_strided", "aten::empty_like", "aten::_to_copy", "aten::copy_",
    "aten::clone", "aten::detach", "aten::lift_fresh", "aten::_copy_from", "aten::_copy_from_and_resize",
    "aten::_local_scalar_dense", "aten::resize_", "aten::contiguous", "aten::set_.source_Storage_storage_offset",
})


def op_name(func) -> str:
    schema = func._schema
    overload = func._overloadname
    return schema.name if overload in ("default", "") else f"{schema.name}.{overload}"


def first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:300] if lines else ""



def _touches(device_type: str, values) -> bool:
    import torch
    from torch.utils._pytree import tree_leaves

    for leaf in tree_leaves(values):
        if isinstance(leaf, torch.Tensor) and leaf.device.type == device_type:
            return True
        if isinstance(leaf, torch.device) and leaf.type == device_type:
            return True
    return False


def _is_view(func) -> bool:
    return any(r.alias_info is not None and not r.alias_info.is_write for r in func._schema.returns)


def recorder_class():
    from torch.utils._python_dispatch import TorchDispatchMode

    from kb.probe.live import detect

    class Recorder(TorchDispatchMode):
        """Records each ATen call that involves the device, who served it, and errors."""

        def __init__(self, device: Device, beacon: Beacon, prefix: str, calls: dict, sample_ops: set,
                     trace: bool = False):
            super().__init__()
            self.dev, self.beacon, self.prefix = device, beacon, prefix
            self.calls, self.sample_ops = calls, sample_ops
            self.raised: str | None = None
            self.trace = trace  # follow default backend kernels into the calls they make (replay)
            self.parents: list[str] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if not _touches(self.dev.device.type, (args, kwargs)):
                out = func(*args, **kwargs)
                if not _touches(self.dev.device.type, out):
                    return out  # host-side work inside the op's Python code
                name = op_name(func)  # a factory call that put its result on the device
                status = detect.ENTRY_STATUS.get(self.dev.detector.entry(name), "native")
                self.calls[name][status] += 1
                return out
            name = op_name(func)
            if self.parents:
                self.calls[self.parents[-1]].setdefault("children", set()).add(name)
            if self.trace:
                key = _default_backend_key(name, self.dev.detector)
                if key is not None:
                    return self._follow(func, name, key, args, kwargs)
            self.beacon.set(f"{self.prefix}\t{name}")
            detector = self.dev.detector
            token = detector.before(name)
            try:
                out = func(*args, **kwargs)
            except Exception as exc:
                detector.after(name, token)
                entry = self.calls[name]
                entry["error"] += 1
                if "error_class" not in entry:
                    entry["error_class"] = type(exc).__name__
                    entry["error_line"] = first_line(exc)
                self.raised = name
                raise
            status, inner = detector.after(name, token)
            entry = self.calls[name]
            entry[status] += 1
            if inner:
                entry.setdefault("inner_fallback", set()).update(inner)
            if name not in PLUMBING and not _is_view(func):
                self.sample_ops.add(name)
            return out

        def _follow(self, func, name, key, args, kwargs):
            """Run the op's CompositeExplicitAutograd kernel with this mode still on, so the
            ops it calls are recorded as its children (view ops end in as_strided/view)."""
            entry = self.calls[name]
            entry["decomposed"] += 1
            self.parents.append(name)
            try:
                with self:
                    return func._op_dk(key, *args, **kwargs)
            except Exception as exc:
                if "error_class" not in entry:
                    entry["error_class"] = type(exc).__name__
                    entry["error_line"] = first_line(exc)
                raise
            finally:
                self.parents.pop()

    return Recorder


def _default_backend_key(name: str, detector):
    """The dispatch key of `name`'s default backend kernel when that is what the device
    runs for it (no kernel of its own), else None."""
    import torch

    from kb.probe.dispatch import DEFAULT_BACKEND, is_stub_default

    if detector.entry(name) != DEFAULT_BACKEND or is_stub_default(name):
        return None
    for key in ("CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"):
        if torch._C._dispatch_has_kernel_for_dispatch_key(name, key):
            return getattr(torch._C.DispatchKey, key)
    return None



class State:
    def __init__(self, config: dict[str, Any]):
        from kb.probe.live.opinfos import by_key, load_op_db

        self.config = config
        self.device = Device(config["device"], generic_detector=config.get("generic_detector", False),
                             options=config.get("options"))
        for module in config.get("setup") or ():
            import_setup(module)
        self.op_db = load_op_db()
        self.ops = by_key(self.op_db)
        self.beacon = Beacon(config.get("beacon"))
        self.recorder = recorder_class()


def import_setup(name: str) -> None:
    """Import a module (dotted name, or a path to a .py file) in the worker before it runs
    anything: how tests install kernels that crash, hang or compute wrong results."""
    import importlib
    import importlib.util

    if not name.endswith(".py"):
        importlib.import_module(name)
        return
    spec = importlib.util.spec_from_file_location(f"kb_live_setup_{abs(hash(name))}", name)
    if spec is None or spec.loader is None or not os.path.isfile(name):
        from kb.errors import KBError

        raise KBError(f"--setup {name}: no such file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)



def _move(value, device):
    """A copy of a sample's arguments on `device` (factory `device=` arguments included)."""
    import torch

    if isinstance(value, torch.Tensor):
        return _move_tensor(value.detach(), device)
    if isinstance(value, list):
        return [_move(v, device) for v in value]
    if isinstance(value, tuple):
        return tuple(_move(v, device) for v in value)
    if isinstance(value, dict):
        return {k: (device if k == "device" and _is_cpu(v) else _move(v, device)) for k, v in value.items()}
    return value


def _move_tensor(t, device):
    """A copy of `t` on `device`. A view of part of a larger storage (an offset, an
    expanded or strided window) is moved with its whole storage and re-viewed, so ops
    that look past the view (as_strided, set_) see what they see on the CPU."""
    import torch

    itemsize = t.element_size()
    partial = (t.layout == torch.strided and not t.is_conj() and not t.is_neg() and not t.is_quantized
               and (t.storage_offset() or t.untyped_storage().nbytes() != t.numel() * itemsize))
    if not partial or t.untyped_storage().nbytes() % itemsize:
        return t.to(device, copy=True)
    storage = t.untyped_storage()
    whole = torch.empty(0, dtype=t.dtype).set_(storage, 0, (storage.nbytes() // itemsize,), (1,))
    return whole.to(device, copy=True).as_strided(t.shape, t.stride(), t.storage_offset())


def _is_cpu(value) -> bool:
    import torch

    return (isinstance(value, str) and value.split(":")[0] == "cpu") or (
        isinstance(value, torch.device) and value.type == "cpu")


def _to_cpu(value):
    import torch
    from torch.utils._pytree import tree_map

    return tree_map(lambda v: v.detach().cpu() if isinstance(v, torch.Tensor) else v, value)


def expected_cost(state: State, key: str, dtype_name: str) -> int:
    """What a task will cost, for sharding: the samples it will run (counted, not run:
    generating CPU inputs is cheap next to compiling them on a device) plus one for the
    op's set-up. The same on every machine with the same torch (the generator is seeded)."""
    import torch

    _seed(0)
    try:
        samples = state.ops[key].sample_inputs("cpu", getattr(torch, dtype_name), requires_grad=False)
        count = sum(1 for _ in islice(samples, state.config.get("samples") or None))
    except Exception:
        count = 0  # it will fail fast on the device too
    return 1 + count


def run_task(state: State, key: str, dtype_name: str) -> dict[str, Any]:
    """Run every sample of OpInfo `key` in `dtype_name` on the CPU and on the device."""
    import torch

    started = time.perf_counter()
    opinfo = state.ops[key]
    dtype = getattr(torch, dtype_name)
    dev = state.device
    max_samples = state.config.get("samples") or None
    calls: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    result: dict[str, Any] = {"key": key, "dtype": dtype_name, "samples": 0, "cpu_errors": 0, "outside_errors": 0,
                              "numerics": {"checked": 0, "mismatches": [], "skipped": None}}
    prefix = f"{key}\t{dtype_name}"
    state.beacon.set(prefix)
    skip_numerics = "empty" in key  # uninitialised memory: nothing to compare
    if skip_numerics:
        result["numerics"]["skipped"] = "uninitialized output"
    try:
        samples = list(islice(opinfo.sample_inputs("cpu", dtype, requires_grad=False), max_samples))
    except Exception as exc:
        result["task_error"] = f"samples: {type(exc).__name__}: {first_line(exc)}"
        return _finish(result, calls, started)
    for index, sample in enumerate(samples):
        sample_ops: set[str] = set()
        mode = state.recorder(dev, state.beacon, prefix, calls, sample_ops)
        try:
            with mode:
                moved = _move((sample.input, sample.args, sample.kwargs), dev.device)
        except Exception as exc:
            result.setdefault("transfer_error", f"{type(exc).__name__}: {first_line(exc)}")
            continue
        _seed(0)
        try:
            expected = opinfo(sample.input, *sample.args, **sample.kwargs)
        except Exception:
            result["cpu_errors"] += 1
            continue
        result["samples"] += 1
        sample_ops.clear()
        mode = state.recorder(dev, state.beacon, prefix, calls, sample_ops,
                              trace=bool(state.config.get("trace_decompositions")))
        _seed(0)
        try:
            with mode:
                actual = opinfo(moved[0], *moved[1], **moved[2])
            # Reading the result back is where an asynchronous device reports its errors.
            got = _to_cpu(actual) if dev.has_data else actual
        except Exception as exc:
            if mode.raised is None:  # raised in Python between device calls, or on read-back
                result["outside_errors"] += 1
                result.setdefault("outside_error", f"{type(exc).__name__}: {first_line(exc)}")
            continue
        if not skip_numerics:
            _check(state, opinfo, sample, expected, got, sorted(sample_ops), index, result)
    return _finish(result, calls, started)


def _check(state, opinfo, sample, expected, actual, ops, index, result) -> None:

    from kb.probe.live.numerics import compare

    numerics = result["numerics"]
    try:
        verdict = compare(expected, actual, data=state.device.has_data)
    except Exception as exc:
        numerics["skipped"] = f"cannot compare: {type(exc).__name__}: {first_line(exc)}"
        return
    numerics["checked"] += 1
    if verdict["ok"]:
        return
    _seed(1)  # does the op draw random numbers? then the CPU disagrees with itself
    try:
        again = opinfo(sample.input, *sample.args, **sample.kwargs)
        if not compare(expected, again)["ok"]:
            numerics["skipped"] = "random output"
            return
    except Exception:
        pass
    culprits = _blame(state, opinfo, sample) if state.device.has_data else None
    entry = {"sample": index, "ops": ops, **verdict}
    if culprits is not None:
        entry["culprits"] = culprits
    numerics["mismatches"].append(entry)


def _blame(state, opinfo, sample) -> list[dict[str, Any]] | None:
    """Re-run a sample whose result was wrong, checking every device call against the same
    call on the CPU, on CPU copies of that call's own device inputs: the calls whose
    outputs differ are the culprits (a later op fed a wrong input is judged on that input,
    so it is not blamed). None when the re-run itself fails."""
    import torch
    from torch.utils._pytree import tree_map

    from kb.probe.live.numerics import compare

    device_type = state.device.device.type
    culprits: list[dict[str, Any]] = []

    def host_copy(value):
        if isinstance(value, torch.Tensor):
            return value.detach().cpu().clone()
        if isinstance(value, torch.device) and value.type == device_type:
            return torch.device("cpu")
        return value

    class Shadow(torch.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = op_name(func)
            if not _touches(device_type, (args, kwargs)) or name in PLUMBING or _is_view(func):
                return func(*args, **kwargs)
            try:
                host_args, host_kwargs = tree_map(host_copy, (args, kwargs))
            except Exception:
                return func(*args, **kwargs)
            out = func(*args, **kwargs)
            try:
                verdict = compare(func(*host_args, **host_kwargs), _to_cpu(out))
            except Exception:
                return out
            if not verdict["ok"] and name not in {c["op"] for c in culprits}:
                culprits.append({"op": name, **{k: v for k, v in verdict.items() if k != "ok"}})
            return out

    try:
        moved = _move((sample.input, sample.args, sample.kwargs), state.device.device)
        _seed(0)
        with Shadow():
            opinfo(moved[0], *moved[1], **moved[2])
    except Exception:
        return None
    return culprits


def _seed(value: int) -> None:
    """Seed the CPU generator only: `torch.manual_seed` also queues a lazy seed call with
    a formatted stack for every uninitialised accelerator module (cuda, xpu, mtia...),
    which costs more than many ops and grows without bound over a run."""
    import torch

    torch.default_generator.manual_seed(value)


def _finish(result: dict[str, Any], calls, started: float) -> dict[str, Any]:
    result["calls"] = {name: {k: (sorted(v) if isinstance(v, set) else v) for k, v in entry.items()}
                       for name, entry in sorted(calls.items())}
    result["seconds"] = round(time.perf_counter() - started, 4)
    return result
