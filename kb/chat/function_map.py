"""Generate data/functions/torch-<version>.json: torch function → the ATen ops it dispatches.

Run once per torch release (`python -m kb.chat.function_map`) and commit the output;
answering chat questions then reads the JSON and never imports torch. Each overridable
function (torch.overrides.get_testing_overrides: torch.*, torch.nn.functional.*, Tensor
methods) is called on small CPU tensors under a TorchDispatchMode with a few guessed
argument lists; the first call that succeeds gives its ops. Functions that need other
arguments are left out (kb.chat.answer then falls back to matching by name). The ops are the
ones that reach a backend: CompositeImplicitAutograd ops appear as what they decompose into.
"""

from __future__ import annotations

import signal
import sys
import warnings
from typing import Any

SKIP_WORDS = ("save", "load", "seed", "set_", "compile", "cuda", "distributed", "jit", "sleep", "share_memory",
              "pin_memory", "backward", "register", "numpy", "tolist", "storage", "manual", "use_deterministic",
              "record_stream", "from_file", "_nested", "quantize", "sparse", "mkldnn", "to_padded", "dequantize",
              "fbgemm", "vulkan", "miopen", "cudnn", "lobpcg")  # lobpcg: iterative, timing-dependent

TIMEOUT_S = 5  # one call stuck this long is given up (a loaded CI machine is slow)
MIN_FUNCTIONS = 500  # fewer means the tracing itself broke: refuse to write the map


def _samples(torch: Any) -> list[tuple]:
    torch.manual_seed(0)  # some functions succeed or fail by value (lobpcg): keep the map reproducible
    x = torch.rand(2, 3, 4, 4)
    v = torch.rand(4)
    m = torch.rand(4, 4)
    idx = torch.tensor([0, 1])
    return [(x,), (x, x), (x, 1), (x, 0), (m,), (m, m), (v,), (v, v), (x, 2.0), (x, [4, 4]), (x, 1, idx),
            (x, torch.rand(3, 3, 1, 1)), (x, (2, 2)), (m, 2), (x, x, x), (x, torch.rand(2, 3, 4, 4) > 0.5),
            (x, -1), (x, 1, 2), (x, 0, 1)]


def _named_functions(torch: Any) -> dict[str, Any]:
    import torch.nn.functional as F
    from torch.overrides import get_testing_overrides

    overridable = get_testing_overrides()
    out: dict[str, Any] = {}
    for prefix, space in (("torch.", torch), ("torch.nn.functional.", F), ("torch.Tensor.", torch.Tensor)):
        for name in sorted(dir(space)):
            if name.startswith("__") or any(w in name for w in SKIP_WORDS):
                continue
            obj = getattr(space, name, None)
            try:
                if obj is not None and obj in overridable:
                    out[prefix + name] = obj
            except TypeError:  # unhashable
                continue
    return out


class _Timeout(Exception):
    pass


def _alarm(_signum, _frame):
    raise _Timeout


def trace(fn: Any, torch: Any, samples: list[tuple]) -> list[str] | None:
    """The ATen ops the first successful call of `fn` on `samples` dispatches (None: none worked)."""
    from kb.probe.module_map import recorder

    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for args in samples:
            ops = _one_call(fn, torch, args, lambda: recorder(torch))
            if ops:
                return ops
        return None
    finally:
        signal.signal(signal.SIGALRM, previous)


def _one_call(fn: Any, torch: Any, args: tuple, make_recorder: Any) -> list[str] | None:
    torch.manual_seed(0)  # random ops inside fn see the same stream whatever ran before
    args = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    recorder = make_recorder()
    signal.alarm(TIMEOUT_S)
    try:
        with recorder:
            fn(*args)
    except (Exception, _Timeout):
        _clear_modes()
        return None
    finally:
        signal.alarm(0)
    # CPU-only kernels (e.g. flash attention "_for_cpu") say nothing about other backends
    return [op for op in dict.fromkeys(recorder.ops) if not op.endswith("_for_cpu")] or None


def _clear_modes() -> None:
    """A timeout can land inside the mode's own enter/exit and leave it pushed; every later
    trace would then fail. Pop whatever is left."""
    from torch.utils._python_dispatch import _get_current_dispatch_mode, _pop_mode

    while _get_current_dispatch_mode() is not None:
        _pop_mode()


def build() -> dict[str, Any]:
    import torch

    warnings.filterwarnings("ignore")
    samples = _samples(torch)
    torch.nn.functional.gelu(torch.add(samples[0][0], 1))  # lazy initialisation outside any timeout
    functions: dict[str, list[str]] = {}
    for name, fn in _named_functions(torch).items():
        ops = trace(fn, torch, samples)
        if ops:
            functions[name] = ops
    if len(functions) < MIN_FUNCTIONS:
        raise RuntimeError(f"only {len(functions)} functions traced (expected {MIN_FUNCTIONS}+): not writing a map")
    return {
        "torch_version": torch.__version__.split("+")[0],
        "generated_by": "python -m kb.chat.function_map",
        "method": "TorchDispatchMode on small CPU tensors; ops below autograd, in call order",
        "functions": dict(sorted(functions.items())),
    }


def main(argv: list[str] | None = None) -> int:
    from kb.probe.module_map import write_map

    result = build()
    path = write_map(result, "functions", argv)
    print(f"{len(result['functions'])} functions → {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
