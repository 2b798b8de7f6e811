"""Options shared by every command, declared once."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

DbOption = Annotated[
    Optional[str],
    typer.Option("--db", envvar="KB_DB", help="KB file (default: the user cache folder; built from data/ on first use)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts instead of a table.")]
VerboseOption = Annotated[bool, typer.Option(
    "--verbose", "-v", help="Every notice in full (one per version) instead of one folded line per target.")]
