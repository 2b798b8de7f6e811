"""The typer application: one function per command, each parsing arguments, calling
`kb` and rendering. Command groups that grow large live in their own cli/ module and
are registered at the bottom of this file.

Exit codes: 0 ok, 1 a finding or a gate tripped, 2 usage or input error.
"""

from __future__ import annotations

import typer

import kb

app = typer.Typer(
    name="kb",
    help="Which ATen ops run natively, decompose, fall back to CPU or fail on Trainium (neuron) and TPU.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root() -> None:
    """kb: a compatibility knowledge base for PyTorch on Trainium and TPU."""


@app.command("version")
def version_command() -> None:
    """Print kb's version."""
    typer.echo(kb.__version__)

from cli import check as _check  # noqa: E402

app.command("check")(_check.check_command)
