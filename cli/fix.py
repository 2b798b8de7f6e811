"""`kb fix MODEL.pt2 --out FIXED.pt2`: apply the mechanical fix-its (kb.check.fixpass)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cli.options import JsonOption


def fix_command(
    model: Annotated[str, typer.Argument(help="An ExportedProgram archive (torch.export.save).")],
    out: Annotated[str, typer.Option("--out", "-o", help="Where to write the rewritten program.")],
    trust: Annotated[bool, typer.Option("--trust", help="Allow the archive's pickled members to be loaded.")] = False,
    approximate: Annotated[bool, typer.Option("--approximate", help="Also apply the rewrites that change the numbers "
                                              "slightly (erf-gelu → tanh-gelu); check them with kb parity.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Rewrite MODEL with the fix-its that are mechanical graph passes (e.g. AdaptiveAvgPool
    to size 1 → mean) and save it to --out; then `kb check OUT` shows what remains
    and `kb parity MODEL --against OUT` checks the numbers. Needs the torch extra."""
    import os

    from kb.check.fixpass import FixError, fix_program

    if os.path.abspath(out) == os.path.abspath(model):
        raise FixError("--out must differ from MODEL (kb fix never overwrites its input)")
    result = fix_program(model, out, trust=trust, approximate=approximate)
    if as_json:
        from cli.render import emit_json

        emit_json(result.to_dict())
        return
    if result.applied:
        done = ", ".join(f"{name} ×{count}" for name, count in result.applied.items())
        sys.stdout.write(f"kb fix: {sum(result.applied.values())} rewrite(s) ({done}); wrote {out}\n")
    for line in result.notes:
        sys.stdout.write(f"kb fix: {line}\n")
    sys.stdout.write(f"next: kb check {out} (what remains) and kb parity {model} --against {out} --device sim\n")
