"""A live-probe worker: a child process that loads the device's backend and the OpInfo
database once, then runs (OpInfo, dtype) tasks sent over a pipe until told to stop.

Each task runs every sample twice: on the CPU (the reference) and on the device under a
`TorchDispatchMode` that records every ATen overload the sample dispatches on the
device, who served it (see kb.live.detect) and whether it raised. Before each device call
the worker writes the overload's name into a small shared file (the *beacon*), so when
an op kills or hangs the process the parent still knows which overload did it.

The worker's own stdout/stderr go to a log file (ops and backends print); the parent
reads its tail when the worker dies.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections import defaultdict
from itertools import islice
from typing import Any

BEACON_SIZE = 512
DEVICE_BACKENDS = {"sim": "sim", "cpu": "cpu", "meta": "meta", "cuda": "cuda", "neuron": "torch_neuronx",
                   "tpu": "torch_tpu"}
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


# --- process plumbing ------------------------------------------------------------------

def _die_with_parent() -> None:
    """Linux: get SIGKILL when the parent dies, so a killed probe leaves no worker behind."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _redirect_output(log_path: str | None) -> None:
    if not log_path:
        return
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


class Beacon:
    """The name of the call in progress, in a file the parent can read after a crash."""

    def __init__(self, path: str | None):
        self.mm = None
        if path:
            import mmap

            with open(path, "r+b") as fh:
                self.mm = mmap.mmap(fh.fileno(), BEACON_SIZE)

    def set(self, text: str) -> None:
        if self.mm is not None:
            data = text.encode()[:BEACON_SIZE - 1] + b"\0"
            self.mm[:len(data)] = data


def read_beacon(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(BEACON_SIZE).split(b"\0", 1)[0].decode(errors="replace")
    except OSError:
        return ""


def make_beacon_file(path: str) -> None:
    with open(path, "wb") as fh:
        fh.write(b"\0" * BEACON_SIZE)


# --- device ------------------------------------------------------------------------------

class Device:
    """The loaded device: its torch device, dispatch key, detector and versions."""

    def __init__(self, name: str, generic_detector: bool = False, options: dict[str, Any] | None = None):
        import importlib.util

        import torch

        from kb.errors import KBError
        from kb.live import detect
        from kb.probe.backends import get_backend

        self.name = name
        spec = get_backend(DEVICE_BACKENDS[name]) if name in DEVICE_BACKENDS else None
        if spec is not None:
            if spec.needs is not None and spec.needs(torch):
                raise KBError(spec.needs(torch))
            if spec.activate is not None:
                spec.activate()
            elif spec.module is not None:
                if importlib.util.find_spec(spec.module) is None:
                    raise KBError(f"its backend package {spec.module} is not installed in this Python")
                __import__(spec.module)
            key = spec.dispatch_key
        else:  # any other PrivateUse1 backend: let torch's entry-point autoload find it
            torch._import_device_backends()
            key = "PrivateUse1"
        self.spec = spec
        self.key = key
        current = torch._C._get_privateuse1_backend_name()
        if key == "PrivateUse1" and current != name:
            if spec is not None:
                raise KBError(f"{spec.module} was imported but registered no device named {name!r} (PrivateUse1 "
                              f"is {current!r}): is there a {name} device on this machine?")
            raise KBError(f"no installed backend registers a device named {name!r} "
                          f"(known: {', '.join(DEVICE_BACKENDS)})")
        self.device = torch.device(name)
        # Reading the policy also applies the backend's switches (torch_tpu's CPU fallback).
        self.policy = spec.read_policy(options or {}) if spec is not None else None
        if name == "cuda":  # compare true float32 results, not TensorFloat-32 ones
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        self.detector = detect.for_device(name, key, generic=generic_detector)
        self.has_data = name != "meta"

    def info(self) -> dict[str, Any]:
        import platform
        import socket

        import torch

        from kb.probe._child import _backend_version, public_version

        version = _backend_version(self.spec, torch) if self.spec is not None else _distribution_version(self.name)
        described = str(self.device)
        if self.name == "cuda":
            described = torch.cuda.get_device_name(0)
        return {
            "versions": self.versions(),
            "device": self.name, "device_description": described, "dispatch_key": self.key,
            "backend": self.spec.name if self.spec else self.name, "backend_version": version,
            "torch_version": public_version(torch.__version__), "torch_build": torch.__version__,
            "python_version": platform.python_version(), "host": socket.gethostname(),
            "detector": self.detector.name, "fallback_policy": self.policy,
        }


    def versions(self) -> dict[str, str]:
        """Versions beyond the backend's own that explain a result: companion packages
        (libtpu...), and for CUDA the toolkit torch was built with and the driver."""
        import importlib.metadata

        import torch

        found: dict[str, str] = {}
        for name in (self.spec.companions if self.spec is not None else ()):
            try:
                found[name] = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                continue
        if self.name == "cuda":
            found["cuda"] = str(torch.version.cuda)
            driver = getattr(torch._C, "_cuda_getDriverVersion", None)
            if driver is not None:
                found["cuda_driver"] = str(driver())
        return found


def _distribution_version(name: str) -> str:
    import importlib.metadata

    for dist in (f"torch_{name}", f"torch-{name}"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


# --- recording -----------------------------------------------------------------------------

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

    from kb.live import detect

    class Recorder(TorchDispatchMode):
        """Records each ATen call that involves the device, who served it, and errors."""

        def __init__(self, device: Device, beacon: Beacon, prefix: str, calls: dict, sample_ops: set):
            super().__init__()
            self.dev, self.beacon, self.prefix = device, beacon, prefix
            self.calls, self.sample_ops = calls, sample_ops
            self.raised: str | None = None

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

    return Recorder


# --- one task --------------------------------------------------------------------------------

class State:
    def __init__(self, config: dict[str, Any]):
        from kb.live.opinfos import by_key, load_op_db

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
        mode = state.recorder(dev, state.beacon, prefix, calls, sample_ops)
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

    from kb.live.numerics import compare

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

    from kb.live.numerics import compare

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


# --- the loop --------------------------------------------------------------------------------

def send(conn, kind: str, body: Any) -> None:
    """Messages to the parent are JSON, not pickles: the parent never imports torch (a
    `torch.__version__` in a pickle would make it) and never unpickles what a worker,
    which runs arbitrary backend code, produced."""
    import json

    conn.send_bytes(json.dumps([kind, body], default=str).encode())


def receive(conn) -> tuple[str, Any]:
    import json

    kind, body = json.loads(conn.recv_bytes())
    return kind, body


def serve(conn, config: dict[str, Any]) -> None:
    """Worker entry point (a multiprocessing target): hello, then tasks until EOF/None."""
    import signal

    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle (it keeps the journal)
    _redirect_output(config.get("log"))
    for path in reversed(config.get("python_path") or ()):
        if path not in sys.path:
            sys.path.insert(0, path)
    try:
        state = State(config)
        hello: dict[str, Any] = state.device.info()
        if config.get("list_tasks"):
            from kb.live.opinfos import primary_overload, task_list

            hello["tasks"] = task_list(state.op_db, config.get("patterns"), config["dtypes"])
            hello["opinfos"] = len(state.op_db)
            hello["primary"] = {key: primary_overload(state.ops[key]) for key in {k for k, _ in hello["tasks"]}}
    except BaseException as exc:  # a backend import can raise anything
        from kb.errors import KBError

        message = str(exc) if isinstance(exc, KBError) else f"{type(exc).__name__}: {first_line(exc)}"
        traceback.print_exc()
        send(conn, "fatal", message)
        return
    send(conn, "hello", hello)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        key, dtype = message
        try:
            outcome = run_task(state, key, dtype)
        except Exception as exc:  # a bug in the probe, not in the op: report and go on
            traceback.print_exc()
            outcome = {"key": key, "dtype": dtype, "task_error": f"probe: {type(exc).__name__}: {first_line(exc)}",
                       "calls": {}}
        state.beacon.set("")
        sys.stdout.flush()
        send(conn, "result", outcome)
