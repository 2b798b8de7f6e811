"""TorchScript, loaded only with --trust, and then in a child process on a leash.

A TorchScript archive is code: `torch.jit.load` compiles the archive's code/*.py and runs
its `__setstate__` methods, which can write files (aten::from_file maps a file shared),
loop forever, print, or allocate gigabytes. So kb never calls it in its own process. With
--trust, a child (`python -m kb.check.ts_load`) loads the archive on the meta device and
walks its graph into CallSites; the parent gives it a wall-clock timeout and an address-
space limit (RLIMIT_AS), sends its stdout to /dev/null (so `--format json` stays kb's
alone), keeps only the tail of its stderr, and reads its answer from a result file
through the bounded reader. The limits are KB_TRUST_TIMEOUT (seconds) and
KB_TRUST_MEMORY_MB; a child that breaks one is one line, exit 2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any

from kb import userfiles
from kb.check.callsites import CallSite, TensorSpec
from kb.check.model_formats import ModelInputError
from kb.errors import KBError

DEFAULT_TIMEOUT_S = 300
DEFAULT_MEMORY_MB = 6144  # torch's own import maps ~1.5 GB of address space; a model on meta adds little
MAX_RESULT_BYTES = 256 << 20
STDERR_TAIL = 4096
CHILD_MARK = "kb-ts-child: "  # the child's own one-line reason, on its stderr


class TrustedLoadError(ModelInputError):
    """The child loading a trusted TorchScript archive failed or broke a limit."""


def _limit(name: str, default: int) -> int:
    try:
        value = int(os.environ.get(name, default))
    except ValueError:
        raise KBError(f"{name} must be a whole number (got {os.environ.get(name)!r})") from None
    if value <= 0:
        raise KBError(f"{name} must be positive (got {value})")
    return value


def load_sites(path: str, specs: list[TensorSpec] | None) -> tuple[list[CallSite], bool]:
    """(CallSites, whether shapes are known) of a trusted TorchScript archive, from a child."""
    from kb.paths import PACKAGE_ROOT

    timeout = _limit("KB_TRUST_TIMEOUT", DEFAULT_TIMEOUT_S)
    memory = _limit("KB_TRUST_MEMORY_MB", DEFAULT_MEMORY_MB) << 20
    shapes = json.dumps([[list(s.shape) if s.shape is not None else None, s.dtype] for s in specs or []])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)}
    with tempfile.TemporaryDirectory(prefix="kb-ts-") as work:
        result = os.path.join(work, "sites.json")
        with open(os.path.join(work, "stderr"), "w+b") as err:
            try:
                proc = subprocess.run(
                    [sys.executable, "-m", "kb.check.ts_load", os.path.abspath(path), shapes, result],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=work,
                    timeout=timeout, preexec_fn=lambda: _set_limits(memory), check=False,
                )
            except subprocess.TimeoutExpired:
                raise TrustedLoadError(f"{path}: loading the TorchScript archive took longer than {timeout} s "
                                       "(KB_TRUST_TIMEOUT) — stopped") from None
            err.seek(0, os.SEEK_END)
            err.seek(max(err.tell() - STDERR_TAIL, 0))
            tail = err.read().decode("utf-8", "replace")
        if proc.returncode != 0 or not os.path.exists(result):
            raise TrustedLoadError(f"{path}: {_why(proc.returncode, tail, memory)}")
        document = userfiles.parse_json(userfiles.read_bytes(result, MAX_RESULT_BYTES), f"{path}: the child's answer")
    return [_site(item) for item in document["sites"]], bool(document["shaped"])


def _set_limits(memory: int) -> None:
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:  # never above a limit kb itself runs under
        memory = min(memory, hard)
    resource.setrlimit(resource.RLIMIT_AS, (memory, hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _why(code: int, tail: str, memory: int) -> str:
    """One line for a failed child: its own last message line, or the signal or limit."""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    marked = [line for line in lines if line.startswith(CHILD_MARK)]
    if marked:
        return marked[-1][len(CHILD_MARK):]
    if any("MemoryError" in line or "std::bad_alloc" in line or "DefaultCPUAllocator" in line for line in lines):
        return f"loading the TorchScript archive needed more than {memory >> 20} MiB (KB_TRUST_MEMORY_MB) — stopped"
    if code < 0:
        return f"loading the TorchScript archive was ended by signal {-code} (memory limit {memory >> 20} MiB)"
    last = lines[-1] if lines else f"exit status {code}"
    return f"loading the TorchScript archive failed ({last[:200]})"


# --- the wire format between child and parent ------------------------------------------


def encode(value: Any) -> Any:
    import torch

    if isinstance(value, TensorSpec):
        return {"t": [value.shape, value.dtype, value.stride]}
    if isinstance(value, (tuple, list)):
        return {"u": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"d": [[str(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, torch.dtype):
        return {"v": ["dtype", str(value).removeprefix("torch.")]}
    if isinstance(value, torch.layout):
        return {"v": ["layout", str(value).removeprefix("torch.")]}
    if isinstance(value, torch.memory_format):
        return {"v": ["memory_format", str(value).removeprefix("torch.")]}
    if isinstance(value, torch.device):
        return {"v": ["device", str(value)]}
    if isinstance(value, complex):
        return {"c": [value.real, value.imag]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def decode(value: Any) -> Any:
    if isinstance(value, dict):
        if "t" in value:
            shape, dtype, stride = value["t"]
            return TensorSpec(tuple(shape) if shape is not None else None, dtype,
                              tuple(stride) if stride is not None else None)
        if "u" in value:
            return tuple(decode(v) for v in value["u"])
        if "d" in value:
            return {k: decode(v) for k, v in value["d"]}
        if "c" in value:
            return complex(*value["c"])
        if "v" in value:
            import torch

            kind, name = value["v"]
            return torch.device(name) if kind == "device" else getattr(torch, name)
    return value


def _site(item: dict) -> CallSite:
    return CallSite(index=item["index"], op=item["op"], args=decode(item["args"]), kwargs=decode(item["kwargs"]),
                    outputs=decode(item["outputs"]), module_path=item["module_path"], module_type=item["module_type"])
