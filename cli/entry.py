"""The `kb` console script.

Plain operator look-ups (`kb op NAME`) are answered by `cli.fast` without importing
typer, SQLModel or torch; everything else goes to the typer app. Any `KBError` becomes
one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from cli.render import error
    from kb.errors import KBError

    try:
        from cli import fast

        code = fast.try_run(argv)
        if code is not None:
            return code
        return _run_typer(argv)
    except KBError as exc:
        error(str(exc))
        return 2
    except SystemExit as exc:  # typer/click exit codes pass through
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except KeyboardInterrupt:
        error("interrupted")
        return 130
    except Exception as exc:  # a bug or an input nobody foresaw: still one line, never a traceback
        if os.environ.get("KB_TRACEBACK"):
            raise
        error(f"unexpected {type(exc).__name__}: {exc} (set KB_TRACEBACK=1 to see where)")
        return 2


def _run_typer(argv: list[str]) -> int:
    """Run the typer app with kb's grammar (cli.grammar): one value per single-value
    option, usage errors as one line with exit 2."""
    import typer
    from typer import exceptions as typer_exc
    from typer._click import exceptions as click_exc

    from cli import grammar, render
    from cli.app import app

    command = typer.main.get_command(app)
    grammar.install_single_value_check(command)
    render.COMMAND = grammar.command_path(command, argv)
    try:
        result = command.main(args=argv, prog_name="kb", standalone_mode=False)
    except click_exc.NoArgsIsHelpError as exc:  # `kb` or `kb db` alone: the help, as typer would
        sys.stdout.write(exc.ctx.get_help() + "\n")
        return 0
    except click_exc.UsageError as exc:
        render.error(grammar.usage_message(exc))
        return 2
    except typer_exc.Abort:
        render.error("aborted")
        return 1
    except click_exc.ClickException as exc:
        render.error(exc.format_message())
        return exc.exit_code
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
