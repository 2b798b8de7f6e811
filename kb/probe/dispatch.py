"""Read one dispatch key's column of PyTorch's dispatch table, for every ATen overload.

Runs inside the probe's child process (it needs the backend imported). The dispatcher's
computed table already encodes PyTorch's precedence rules (a backend's own kernel beats
CompositeExplicitAutograd, which beats CompositeImplicitAutograd, which beats the
backend's boxed fallback), so one line of `torch._C._dispatch_dump_table(op)` per op is
the whole answer; about 0.1 s for 3,000 overloads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kb.paths import PACKAGE_ROOT

# The labels torch prints after each computed entry, and what kb calls them.
KERNEL = "kernel"  # the backend's own kernel
MATH = "math kernel"  # CompositeImplicitAutograd: decomposes into other ops
DEFAULT_BACKEND = "default backend kernel"  # CompositeExplicitAutograd(NonFunctional)
BACKEND_FALLBACK = "backend fallback"  # the backend's boxed fallback
FALLTHROUGH = "fallthrough"  # a per-op fallthrough: nothing handles the op on this key
RAISING_DEFAULT = "raising default kernel"  # a default kernel that only raises (see is_stub_default)
ENTRIES = (KERNEL, MATH, DEFAULT_BACKEND, BACKEND_FALLBACK, FALLTHROUGH, RAISING_DEFAULT)


def is_stub_default(op: str) -> bool:
    """PyTorch's `*_overrideable` ops (convolution_overrideable, the fused-attention one,
    their backward and out= forms) exist for out-of-tree backends to override; their
    CompositeExplicitAutograd kernel only raises "not implemented". So a default backend
    kernel for them is no decomposition: without the backend's own kernel they fail."""
    return "_overrideable" in op


@dataclass(frozen=True)
class Entry:
    """What `key` resolves to for `op`; `entry` is None when nothing does."""

    op: str
    entry: str | None
    registered_at: str | None


def aten_ops(torch) -> list[str]:
    """Every ATen overload the dispatcher knows, in canonical spelling, sorted."""
    return sorted(name for name in torch._C._dispatch_get_all_op_names() if name.startswith("aten::"))


def parse_line(line: str) -> tuple[str | None, str | None]:
    """(entry, location) from one dump line, e.g.
    ``PrivateUse1: registered at csrc/x.cc:12 [kernel]`` -> ("kernel", "csrc/x.cc:12")."""
    body = line.split(": ", 1)[1] if ": " in line else line
    label = body[body.rfind("[") + 1:body.rfind("]")] if body.endswith("]") else None
    location = None
    if "registered at " in body:
        location = body.split("registered at ", 1)[1]
        if label is not None:
            location = location[:location.rfind(" [")]
        location = normalize_location(location)
    if body.startswith("fallthrough"):
        return FALLTHROUGH, location
    return label, location


def normalize_location(location: str) -> str:
    """Drop host-specific prefixes (virtualenv, checkout, build tree) so a report is the same
    on every machine: ``/x/.venv/lib/python3.11/site-packages/torch/f.py:5`` -> ``torch/f.py:5``,
    ``/__w/pytorch/pytorch/build/aten/src/ATen/RegisterCPU_0.cpp:7`` -> ``build/aten/...``."""
    for marker in ("site-packages" + os.sep, "/pytorch/pytorch/"):  # wheel installs; PyTorch's CI build tree
        if marker in location:
            return location.split(marker, 1)[1]
    root = PACKAGE_ROOT + os.sep
    if location.startswith(root):
        return location[len(root):]
    return location


def read_table(torch, key: str, ops: list[str] | None = None) -> list[Entry]:
    """The `key` column of the dispatch table for `ops` (default: every ATen overload)."""
    prefix = key + ": "
    anchored = "\n" + prefix
    dump = torch._C._dispatch_dump_table
    entries = []
    for op in aten_ops(torch) if ops is None else ops:
        text = dump(op)
        start = 0 if text.startswith(prefix) else text.find(anchored) + 1
        if start or text.startswith(prefix):
            end = text.find("\n", start)
            entry, location = parse_line(text[start:end if end >= 0 else len(text)])
        else:
            entry = location = None
        if entry == DEFAULT_BACKEND and is_stub_default(op):
            entry = RAISING_DEFAULT
        entries.append(Entry(op, entry, location))
    return entries
