"""Numeric tolerances per dtype, shared by the live probe and `kb parity`.

They are torch.testing.assert_close's defaults (rtol, atol) as its docstring lists them;
integer and bool results must match exactly. Kept as data so neither user imports torch
to read them.
"""

from __future__ import annotations

TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex32": (1e-3, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}
EXACT = (0.0, 0.0)


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def tolerance(dtype) -> tuple[float, float]:
    """(rtol, atol) for a dtype or dtype name."""
    return TOLERANCES.get(dtype_name(dtype), EXACT)
