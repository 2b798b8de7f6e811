"""kb: which ATen operators run natively, decompose, fall back to the CPU or fail on
Trainium (TorchNeuron) and TPU (TorchTPU), with the evidence behind every verdict.

The Python API (each function returns what the command's `--json` prints; none prints;
bad input raises `kb.KBError` with the command's one-line message):

    kb.check(model, example_inputs=None, *, targets=("neuron",), mode="eager", train=False)
    kb.op(name, targets=None)          kb.ops(target, status=None)
    kb.eol(product=None, stack=None, within=None)
    kb.ask(question)

`import kb` imports nothing else: each name loads its room on first use (`kb.check` and
`kb.eol` are packages that can be called; `import kb.check.assess` works as before).
"""

from __future__ import annotations

import sys
import types

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: `import kb` is on every command's start
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"
# The name on the package index (`pip install torch-accel-kb`); "kb" there is an unrelated project.
DIST_NAME = "torch-accel-kb"

# Name -> (module, attribute): the API functions, each in its room (check -> kb/check,
# op/ops -> kb/store, eol -> kb/eol, ask -> kb/chat). Loaded on first use so that `import kb`
# stays cheap; tests/test_layout.py checks each sits in its room.
API = {
    "check": ("kb.check", None),  # a callable package: kb.check(model) is kb.check.api.check
    "eol": ("kb.eol", None),  # a callable package: kb.eol() is kb.eol.api.eol
    "op": ("kb.store.api", "op"),
    "ops": ("kb.store.api", "ops"),
    "ask": ("kb.chat.api", "ask"),
    "KBError": ("kb.errors", "KBError"),
    "CheckResult": ("kb.check.api", "CheckResult"),
}
__all__ = ["__version__", "DIST_NAME", *API]


def __getattr__(name: str) -> Any:
    """The API's names, imported when first asked for (PEP 562)."""
    if name not in API:
        raise AttributeError(f"module 'kb' has no attribute {name!r}")
    import importlib

    module_name, attribute = API[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    if attribute is not None:
        globals()[name] = value  # a package sets itself on import; a function is kept here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *API})


class CallablePackage(types.ModuleType):
    """A package that is also a function: `kb.check(model)` calls the package's `__kb_call__`
    while `import kb.check.assess` keeps working. (A plain function `kb.check` would be
    replaced by the subpackage the first time anything imports it.)"""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__dict__["__kb_call__"](*args, **kwargs)


def make_callable(module_name: str) -> None:
    """Make the package `module_name` (already in sys.modules) callable through its `__kb_call__`."""
    sys.modules[module_name].__class__ = CallablePackage
