"""Unpickling under `--trust`: an allow-list, never a deny-list.

A deny-list of exploit callables always misses one (`commands.check_call`, `cProfile.run`,
`pydoc.pipepager`, a name computed at load time). Here a pickle may name only:

* plain containers and values (`builtins` set/frozenset/slice/complex/bytearray...,
  `collections.OrderedDict`/`defaultdict`/`deque`, `_codecs.encode`, `copyreg._reconstructor`);
* from torch: what `torch.load(weights_only=True)` allows, tensor/parameter rebuild
  functions, dtypes, devices, sizes, storages, and classes that are `nn.Module`s;
* anything in the modules the user names with `--trust-module PKG` (their own code).

The same rule serves the static scan (`allowed_global`, on names, before anything is
loaded) and the unpickler that torch.load is handed (`RestrictedUnpickler.find_class`),
in the spirit of `torch.load(weights_only=True)` with `add_safe_globals`.
"""

from __future__ import annotations

import importlib
import pickle
from typing import Any

from kb.errors import KBError

_CONTAINERS = {
    "builtins": {"set", "frozenset", "slice", "complex", "bytearray", "dict", "list", "tuple", "int", "float",
                 "bool", "str", "bytes", "range", "object"},
    "collections": {"OrderedDict", "defaultdict", "deque"},
    "_codecs": {"encode"},
    "copyreg": {"_reconstructor"},
    "torch._utils": {"_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3", "_rebuild_parameter",
                     "_rebuild_parameter_with_state", "_rebuild_sparse_tensor", "_rebuild_meta_tensor_no_storage",
                     "_rebuild_qtensor", "_rebuild_device_tensor_from_numpy", "_rebuild_wrapper_subclass",
                     "_rebuild_nested_tensor"},
    "torch._tensor": {"_rebuild_from_type_v2", "_rebuild_from_type"},
    "torch.serialization": {"_get_layout"},
    "torch.nn.parameter": {"Parameter", "Buffer"},
    "numpy.core.multiarray": {"_reconstruct", "scalar"},
    "numpy._core.multiarray": {"_reconstruct", "scalar"},
    "numpy": {"dtype", "ndarray"},
}
_ALIASES = {"__builtin__": "builtins", "copy_reg": "copyreg"}
_TORCH_VALUE_TYPES = ("dtype", "device", "Size", "layout", "memory_format", "qscheme")


class NotAllowedGlobal(KBError):
    """A pickle names something outside the allow-list."""


def normalise_modules(names: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """`--trust-module` values, checked to be dotted module names."""
    out = []
    for name in names or ():
        name = name.strip()
        if not name or not all(part.isidentifier() for part in name.split(".")):
            raise KBError(f"--trust-module {name!r}: expected a module or package name such as mymodels")
        out.append(name)
    return tuple(dict.fromkeys(out))


def _in_modules(module: str, trusted: tuple[str, ...]) -> bool:
    return any(module == t or module.startswith(t + ".") for t in trusted)


def allowed_global(name: str, trusted: tuple[str, ...] = ()) -> bool:
    """Whether `module.attr` may be resolved. Names are checked first; torch names are
    also checked by what they resolve to (a class that is an nn.Module, a dtype...)."""
    module, _, attr = name.rpartition(".")
    module = _ALIASES.get(module, module)
    if not module or not attr or attr.startswith("__"):
        return False
    if attr in _CONTAINERS.get(module, ()):
        return True
    if _in_modules(module, trusted):
        return True
    if module == "torch" or module.startswith("torch."):
        return _allowed_torch_object(module, attr)
    return False


def _torch_weights_only_names() -> set[str]:
    try:
        from torch._weights_only_unpickler import _get_allowed_globals

        return set(_get_allowed_globals())
    except Exception:  # a private helper: without it, our own list still applies
        return set()


def _allowed_torch_object(module: str, attr: str) -> bool:
    if f"{module}.{attr}" in _torch_weights_only_names():
        return True
    if not (module == "torch" or module.startswith("torch.nn") or module == "torch.storage"):
        return False
    try:
        import torch

        obj = getattr(importlib.import_module(module), attr)
    except Exception:
        return False
    if isinstance(obj, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return True
    if not isinstance(obj, type):
        return False
    if issubclass(obj, (torch.nn.Module, torch.Tensor)) or attr in _TORCH_VALUE_TYPES:
        return True
    return attr.endswith("Storage") and module in ("torch", "torch.storage")


class RestrictedUnpickler(pickle.Unpickler):
    """pickle.Unpickler whose globals come from the allow-list only."""

    trusted: tuple[str, ...] = ()

    def find_class(self, module: str, name: str) -> Any:
        if not isinstance(module, str) or not isinstance(name, str):
            raise NotAllowedGlobal("the pickle computes a global's name at load time")
        dotted = f"{_ALIASES.get(module, module)}.{name}"
        if not allowed_global(dotted, self.trusted):
            raise NotAllowedGlobal(f"the pickle names {dotted}, which is not on the allow-list "
                                   "(torch, containers, --trust-module modules)")
        return super().find_class(_ALIASES.get(module, module), name)


def pickle_module(trusted: tuple[str, ...]):
    """A stand-in for the `pickle` module, as torch.load's `pickle_module` argument."""

    class Unpickler(RestrictedUnpickler):
        pass

    Unpickler.trusted = tuple(trusted)

    class Module:
        __name__ = "kb_restricted_pickle"
        UnpicklingError = pickle.UnpicklingError

        @staticmethod
        def load(fh, **kwargs):
            return Unpickler(fh, **kwargs).load()

        @staticmethod
        def loads(data: bytes, **kwargs):
            import io

            return Unpickler(io.BytesIO(data), **kwargs).load()

    Module.Unpickler = Unpickler
    return Module
