"""Device result vs CPU result, with dtype-aware tolerances.

A `native` op that computes the wrong thing is worse than a slow fallback, and only a
comparison shows it. Tolerances are torch.testing's defaults per dtype (rtol, atol);
integers and booleans must match exactly. On the `meta` device there is no data, so only
structure, shapes and dtypes are compared.
"""

from __future__ import annotations

import math
from typing import Any

from kb.tolerances import EXACT, TOLERANCES, dtype_name, tolerance  # noqa: F401  (re-exported)


def _leaves(value) -> tuple[list, Any]:
    from torch.utils._pytree import tree_flatten

    return tree_flatten(value)


def compare(expected, actual, *, data: bool = True) -> dict[str, Any]:
    """Compare two outputs (any pytree of tensors and scalars). Returns
    {"ok", "max_abs", "max_rel", "rtol", "atol", "mismatched", "numel", "why"}; `why` says
    what differs when the structure, a shape or a dtype does."""
    import torch

    exp_leaves, exp_spec = _leaves(expected)
    act_leaves, act_spec = _leaves(actual)
    out: dict[str, Any] = {"ok": True, "max_abs": 0.0, "max_rel": 0.0, "mismatched": 0, "numel": 0}
    if exp_spec != act_spec or len(exp_leaves) != len(act_leaves):
        return {**out, "ok": False, "why": "different output structure"}
    for e, a in zip(exp_leaves, act_leaves):
        if isinstance(e, torch.Tensor) != isinstance(a, torch.Tensor):
            return {**out, "ok": False, "why": "tensor vs non-tensor output"}
        if not isinstance(e, torch.Tensor):
            if not _scalar_equal(e, a):
                return {**out, "ok": False, "why": f"scalar output {a!r} != {e!r}"}
            continue
        if tuple(e.shape) != tuple(a.shape):
            return {**out, "ok": False, "why": f"shape {tuple(a.shape)} != {tuple(e.shape)}"}
        if e.dtype != a.dtype:
            return {**out, "ok": False, "why": f"dtype {dtype_name(a.dtype)} != {dtype_name(e.dtype)}"}
        if not data or e.layout != torch.strided or a.layout != torch.strided:
            continue
        _merge(out, _tensor_errors(e.detach(), a.detach()))
    out["ok"] = out["mismatched"] == 0
    return out


def _scalar_equal(e, a) -> bool:
    if isinstance(e, float) and isinstance(a, float):
        return (math.isnan(e) and math.isnan(a)) or math.isclose(e, a, rel_tol=1e-6, abs_tol=1e-9)
    return e == a


def _merge(out: dict[str, Any], errors: dict[str, Any]) -> None:
    out["max_abs"] = max(out["max_abs"], errors["max_abs"])
    out["max_rel"] = max(out["max_rel"], errors["max_rel"])
    out["mismatched"] += errors["mismatched"]
    out["numel"] += errors["numel"]
    out["rtol"], out["atol"] = errors["rtol"], errors["atol"]


def _tensor_errors(e, a) -> dict[str, Any]:
    """Element-wise errors of `a` against `e` (same shape and dtype, on the CPU)."""
    import torch

    rtol, atol = tolerance(e.dtype)
    if e.numel() == 0:
        return {"max_abs": 0.0, "max_rel": 0.0, "mismatched": 0, "numel": 0, "rtol": rtol, "atol": atol}
    wide = torch.complex128 if e.is_complex() else torch.float64
    e64, a64 = e.to(wide), a.to(wide)
    both_nan = torch.isnan(e64) & torch.isnan(a64) if e.is_floating_point() or e.is_complex() else None
    same = e64 == a64  # equal values, infinities of the same sign included
    diff = (a64 - e64).abs()
    allowed = atol + rtol * e64.abs()
    good = same | (diff <= allowed)
    if both_nan is not None:
        good |= both_nan
    finite = torch.isfinite(diff) & ~same
    max_abs = float(diff[finite].max()) if bool(finite.any()) else (0.0 if bool(good.all()) else math.inf)
    rel = diff / e64.abs().clamp_min(1e-30)
    max_rel = float(rel[finite].max()) if bool(finite.any()) else max_abs
    return {"max_abs": max_abs, "max_rel": max_rel, "mismatched": int((~good).sum()), "numel": e.numel(),
            "rtol": rtol, "atol": atol}
