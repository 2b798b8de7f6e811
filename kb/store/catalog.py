"""The ATen op catalog: every overload the local torch's dispatcher knows.

Reading it needs torch (seconds to import), so it is built only on demand and cached per
torch version as JSONL; the catalog of the torch version kb was developed against ships
in `data/ops/`, so plain queries never import torch.
"""

from __future__ import annotations

import json
import os
import re

from kb import paths

# Dispatch keys whose own kernels we list per op (reference backends; PrivateUse1 is probed).
BACKEND_KEYS = ("CPU", "CUDA", "Meta", "QuantizedCPU", "SparseCPU", "SparseCsrCPU", "MkldnnCPU", "NestedTensorCPU")
# The composite alias keys a default ("explicit") kernel can be registered under. Both make
# `composite_explicit` true; which one it is goes into `backend_kernels` too, so a view
# names the key the dispatcher shows (silu: CompositeExplicitAutogradNonFunctional).
EXPLICIT_KEYS = ("CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional")


def composite_label(entry: dict) -> list[str]:
    """The composite kinds of a catalog entry, named as the dispatcher names them."""
    kinds = ["CompositeImplicitAutograd"] if entry.get("composite_implicit") else []
    if entry.get("composite_explicit"):
        named = [k for k in EXPLICIT_KEYS if k in (entry.get("backend_kernels") or ())]
        kinds += named or ["CompositeExplicitAutograd"]  # a catalog written before the keys were listed
    return kinds
_VIEW_RETURN = re.compile(r"->\s*\(?Tensor\([a-z]\)(?!!)")


def shipped_catalogs() -> list[str]:
    folder = os.path.join(paths.data_dir(), "ops")
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".jsonl"))


def cache_path(torch_version: str) -> str:
    return os.path.join(paths.cache_dir(), "catalogs", f"aten-torch-{torch_version}.jsonl")


def derived_tags(base: str, overload: str, schema: str) -> list[str]:
    """Tags the dispatcher does not spell out: inplace, out, view."""
    tags = []
    if base.endswith("_") and not base.endswith("__"):
        tags.append("inplace")
    if overload == "out" or overload.endswith("_out") or "(a!) out" in schema or "!) out" in schema:
        tags.append("out")
    if _VIEW_RETURN.search(schema) and "inplace" not in tags and "out" not in tags:
        tags.append("view")
    return tags


def build_catalog() -> list[dict]:
    """Read every aten overload from the local torch (imports torch)."""
    import torch

    has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
    schemas = {}
    for schema in torch._C._jit_get_all_schemas():
        key = f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name
        schemas.setdefault(key, str(schema))
    rows = []
    for name in sorted(n for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::")):
        qual = name[len("aten::"):]
        base, _, overload = qual.partition(".")
        packet = getattr(torch.ops.aten, base, None)
        overload_obj = getattr(packet, overload or "default", None) if packet is not None else None
        schema = schemas.get(name) or (str(overload_obj._schema) if overload_obj is not None else "")
        tags = sorted({t.name for t in getattr(overload_obj, "tags", ())} | set(derived_tags(base, overload, schema)))
        rows.append(
            {
                "name": name,
                "base": base,
                "overload": overload,
                "schema": schema,
                "composite_implicit": bool(has_kernel(name, "CompositeImplicitAutograd")),
                "composite_explicit": any(has_kernel(name, key) for key in EXPLICIT_KEYS),
                "backend_kernels": [key for key in (*BACKEND_KEYS, *EXPLICIT_KEYS) if has_kernel(name, key)],
                "tags": tags,
                "torch_version": torch.__version__.split("+")[0],
            }
        )
    return rows


def write_catalog(rows: list[dict], path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        for row in sorted(rows, key=lambda r: r["name"]):
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    os.replace(tmp, path)


def read_catalog(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def local_catalog() -> tuple[str, list[dict]]:
    """The catalog of the installed torch: from the cache, else built and cached."""
    import torch

    version = torch.__version__.split("+")[0]
    path = cache_path(version)
    if not os.path.exists(path):
        write_catalog(build_catalog(), path)
    return version, read_catalog(path)
