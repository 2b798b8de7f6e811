"""ATen operator names: one canonical spelling, many accepted ones.

Canonical is the dispatcher's spelling, `aten::name.overload`, or `aten::name` for the
default overload. Users and sources write `aten.add.Tensor`, `torch.ops.aten.add.Tensor`,
`add.Tensor`, `add.default` or plain `add`; all of these map here.
"""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s")  # str.isspace's characters (both are Py_UNICODE_ISSPACE), one C scan per name
_PREFIXES = ("torch.ops.aten.", "torch.ops.aten::", "ops.aten.", "aten::", "aten.")


class OpNameError(ValueError):
    """Not something that can be an ATen operator name."""


def split(name: str) -> tuple[str, str]:
    """Split any accepted spelling into (base, overload); overload is "" for the default."""
    text = name.strip()
    if not text:
        raise OpNameError("empty operator name")
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    if not text or _SPACE.search(text) or "::" in text:
        raise OpNameError(f"not an ATen operator name: {name!r}")
    base, dot, overload = text.partition(".")
    if dot and not overload:  # `aten::add.`: a dot promises an overload
        raise OpNameError(f"not an ATen operator name: {name!r} (nothing after the dot)")
    if not base or not (base[0].isalpha() or base[0] == "_"):
        raise OpNameError(f"not an ATen operator name: {name!r}")
    if overload == "default":
        overload = ""
    if "." in overload:
        raise OpNameError(f"not an ATen operator name: {name!r}")
    return base, overload


def canonical(name: str) -> str:
    """`aten::base.overload` (or `aten::base`) for any accepted spelling."""
    base, overload = split(name)
    return f"aten::{base}.{overload}" if overload else f"aten::{base}"


def names_one_overload(name: str) -> bool:
    """Whether the user named one overload (`add.Tensor`, `relu.default`) rather than a
    whole op family (`add`): a bare name asks for all of its overloads."""
    text = name.strip()
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    return "." in text


def base_name(name: str) -> str:
    return split(name)[0]
