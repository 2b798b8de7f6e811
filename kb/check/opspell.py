"""Waiver and --allow names read as `kb op` reads them, without a KB (kb.store.torchnames):
one rule for [tool.kb] waivers, the API's waivers and `--allow`."""

from __future__ import annotations

from kb.errors import KBError


class OpSpellingError(KBError):
    """A name that cannot stand for one op (a module, a malformed name)."""


# Spellings that are ATen names already (kb.opnames), never read as torch functions.
_ATEN_PREFIXES = ("torch.ops.aten.", "torch.ops.aten::", "ops.aten.", "aten::", "aten.")
_FUNCTION_PREFIXES = ("torch.nn.functional.", "nn.functional.", "F.", "torch.Tensor.", "Tensor.", "torch.")


def op_spelling(name: str) -> tuple[str, tuple[str, ...]]:
    """(the ATen op, alternatives) a waiver or --allow name stands for, read as `kb op` reads
    it (kb.store.torchnames for torch names, no KB needed). A custom op (mylib::rope) is kept
    as written. A function (F.gelu, torch.nonzero) is its ATen name, with the ops the shipped
    function map says it runs as alternatives. A module (nn.BatchNorm2d) is refused: it runs
    several ops, and waiving them all at once would hide more than the author meant."""
    from kb.opnames import OpNameError, canonical
    from kb.store import torchnames

    text = name.strip()
    if "::" in text and not text.startswith(_ATEN_PREFIXES):
        return text, ()
    alternatives: tuple[str, ...] = ()
    if not text.startswith(_ATEN_PREFIXES):
        module = torchnames.resolve_module(text)
        if module is not None:
            ops = ", ".join(module.ops) or "none traced"
            raise OpSpellingError(f"{text} is a module, not an op: waive or allow the ATen ops it runs instead ({ops})")
        function = next((text[len(p):] for p in _FUNCTION_PREFIXES if text.startswith(p)), None)
        if function is not None:
            known = torchnames.resolve_function(text)
            alternatives = tuple(sorted(known.ops)) if known else ()
            text = function.split("(")[0].strip()
    try:
        return canonical(text), alternatives
    except OpNameError as exc:
        raise OpSpellingError(str(exc)) from None
