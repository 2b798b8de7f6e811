"""PyTorch's OpInfo database as the live probe's list of ops and inputs.

`op_db` is private API (torch.testing._internal): it moves between releases, so it is
loaded behind one function that turns any failure into a KBError naming the torch
version, and only the small surface used here is touched (name, variant_test_name,
aten_name, supported_dtypes, sample_inputs, __call__).
"""

from __future__ import annotations

import fnmatch
from typing import Any

from kb.errors import KBError

OPINFO_MODULE = "torch.testing._internal.common_methods_invocations"
# Versions this code was written against; others are tried, and a failure says so.
TESTED_TORCH = ("2.13",)
DEFAULT_DTYPES = ("float32", "bfloat16", "float16", "int64", "bool")


class OpInfoUnavailableError(KBError):
    """PyTorch's OpInfo database cannot be loaded or does not look as expected."""


def load_op_db() -> list[Any]:
    """The OpInfo list of the installed torch, or a clear error if the private API moved."""
    import importlib

    import torch

    version = torch.__version__.split("+")[0]
    tested = any(version.startswith(v) for v in TESTED_TORCH)
    hint = "" if tested else f" (kb's live probe was tested with torch {', '.join(TESTED_TORCH)})"
    try:
        module = importlib.import_module(OPINFO_MODULE)
        op_db = module.op_db
    except ModuleNotFoundError as exc:
        raise OpInfoUnavailableError(
            f"torch {version}: cannot import {OPINFO_MODULE}: missing module {exc.name!r}"
            f" (the OpInfo database needs it: pip install {exc.name}){hint}") from None
    except Exception as exc:
        raise OpInfoUnavailableError(
            f"torch {version}: PyTorch's OpInfo database ({OPINFO_MODULE}.op_db) is not available: "
            f"{type(exc).__name__}: {first_line(exc)}{hint}") from None
    _skip_test_lookup()
    if not op_db or not all(hasattr(op, attr) for op in op_db[:5] for attr in ("name", "sample_inputs", "supported_dtypes")):
        raise OpInfoUnavailableError(f"torch {version}: {OPINFO_MODULE}.op_db does not look like a list of OpInfos{hint}")
    return list(op_db)


def _skip_test_lookup() -> None:
    """`OpInfo.sample_inputs` looks for the unittest it runs in by crawling the stack with
    `inspect.stack()` (which reads the source of every frame): the probe is no unittest,
    and that crawl cost more than the samples themselves. Where the hook exists, it is
    told there is no test."""
    import sys

    for name in ("torch.testing._internal.opinfo.core", "torch.testing._internal.common_utils"):
        module = sys.modules.get(name)
        if module is not None and callable(getattr(module, "extract_test_fn", None)):
            module.extract_test_fn = _no_test


def _no_test():
    return None


def first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:300] if lines else ""


def key_of(opinfo) -> str:
    """The OpInfo's unique name: `name` or `name.variant` (as PyTorch's test names use)."""
    variant = getattr(opinfo, "variant_test_name", "") or ""
    return f"{opinfo.name}.{variant}" if variant else opinfo.name


def by_key(op_db) -> dict[str, Any]:
    return {key_of(op): op for op in op_db}


def matches(key: str, patterns: list[str] | None) -> bool:
    """`--ops` filter: comma-separated shell patterns against the OpInfo name (`add`,
    `nn.functional.*`, `*norm*`); no patterns selects everything."""
    if not patterns:
        return True
    return any(fnmatch.fnmatchcase(key, p) for p in patterns)


def parse_patterns(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [p.strip() for p in text.split(",") if p.strip()] or None


def task_list(op_db, patterns: list[str] | None, dtypes: list[str]) -> list[tuple[str, str]]:
    """(OpInfo key, dtype) pairs to run: each selected OpInfo with each requested dtype it
    supports on the CPU (the reference; an op the CPU cannot run gives no evidence)."""
    import torch

    tasks = []
    for op in op_db:
        key = key_of(op)
        if not matches(key, patterns):
            continue
        try:
            supported = op.supported_dtypes("cpu")
        except Exception:
            continue
        for name in dtypes:
            if getattr(torch, name) in supported:
                tasks.append((key, name))
    return tasks


def primary_overload(opinfo) -> str | None:
    """`aten::<aten_name>` when the OpInfo names an existing ATen op with a default
    overload; used to file an outcome no dispatched call explains (a crash before the
    first ATen call, a Python-level refusal)."""
    import torch

    name = getattr(opinfo, "aten_name", None) or opinfo.name
    packet = getattr(torch.ops.aten, name, None) if name.isidentifier() else None
    if packet is None:
        return None
    overloads = packet.overloads()
    if "default" in overloads:
        return f"aten::{name}"
    return f"aten::{name}.{overloads[0]}" if len(overloads) == 1 else None
