"""The `kb` console script.

Plain operator look-ups (`kb op NAME`) are answered by `cli.fast` without importing
typer, SQLModel or torch; everything else goes to the typer app. Any `KBError` becomes
one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import errno
import os
import re
import sys

# What a shell reports for a process ended by SIGPIPE (128 + 13): `kb ... | head` stops
# quietly with it, as `cat` and `grep` do.
EXIT_PIPE_CLOSED = 141
# `kb ... >&-`: no stdout at all, so no answer can be given; a usage error of the caller
# (exit 2, one line), as a read-only fd 1 (`1</dev/null`) is, not a silent success.
STDOUT_CLOSED = ("stdout is closed (>&-) or not writable: kb has nowhere to write its answer; "
                 "to discard the output, send it to /dev/null instead (>/dev/null)")


# Texts this long (a --json document, a served page) bypass the text layer: see _GuardedStdout._direct.
DIRECT_WRITE = 1 << 14


class _PipeClosed(BaseException):
    """stdout's reader went away. A BaseException, so no command's `except Exception`
    (nor click's own EPIPE handling) turns it into another exit code or a traceback."""


class _NoStdout(BaseException):
    """fd 1 is not writable (`1</dev/null`): nothing could be written, which is an error."""


class _GuardedStdout:
    """sys.stdout that turns a closed pipe into _PipeClosed and an unwritable fd 1 into
    _NoStdout; everything else delegated."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            if len(text) >= DIRECT_WRITE and self._direct(text):
                return len(text)
            return self._stream.write(text)
        except BrokenPipeError:
            raise _PipeClosed from None
        except OSError as exc:
            if exc.errno == errno.EBADF:
                raise _NoStdout from None
            raise

    def _direct(self, text) -> bool:
        """Write a large text straight to fd 1, every partial write checked: one big
        TextIOWrapper.write to a pipe whose reader stops early can lose the rest without an
        error (seen with `--json | (sleep 2; head -1)`), so kb would exit 0 on a cut answer.
        False when the stream has no fd (a test's StringIO): then it writes as usual."""
        try:
            fd = self._stream.fileno()
            data = text.encode(self._stream.encoding or "utf-8", self._stream.errors or "strict")
        except (AttributeError, ValueError, OSError, LookupError):  # io.UnsupportedOperation is both
            return False
        self._stream.flush()  # what the text layer holds goes first, in order
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        return True

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise _PipeClosed from None
        except OSError as exc:
            if exc.errno == errno.EBADF:
                raise _NoStdout from None
            raise

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's last flush has nowhere to fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass


def _say_no_stdout() -> int:
    """One line on stderr (when there is one) and exit 2: stdout was closed before kb could
    write anything. A broken pipe after some output stays a quiet EXIT_PIPE_CLOSED."""
    if sys.stderr is not None:
        try:
            sys.stderr.write(f"kb: error: {STDOUT_CLOSED}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "cli.render" in sys.modules:  # footnotes number from [1] on each command's page (in-process runs too)
        sys.modules["cli.render"].FOOTNOTES_SHOWN = 0
    stdout = sys.stdout
    if stdout is None:  # the shell closed fd 1 (`kb ... >&-`): Python starts with no sys.stdout
        return _say_no_stdout()
    if not isinstance(stdout, _GuardedStdout):
        sys.stdout = _GuardedStdout(stdout)
    try:
        code = _main(argv)
        sys.stdout.flush()
        return code
    except (_PipeClosed, BrokenPipeError):
        _silence_stdout()
        return EXIT_PIPE_CLOSED
    except _NoStdout:
        _silence_stdout()
        return _say_no_stdout()
    finally:
        sys.stdout = stdout


# `kb ask "-5 USD an hour and 100 tok/s?"`: a question that starts with "-" is the question, not an unknown option
# (attacker s11: "no such option: -5"); the options `kb ask` has are left to the parser
_ASK_OPTIONS = ("--json", "--db", "--help", "-h")


def _question_first(argv: list[str]) -> list[str]:
    if len(argv) >= 2 and argv[0] == "ask" and re.match(r"-(?:[\d$€£¥.]|\S*\s)", argv[1]) \
            and not argv[1].startswith(_ASK_OPTIONS):  # a figure ("-5") or words with spaces: never an option
        return ["ask", "--", *argv[1:]]
    return argv


def _main(argv: list[str]) -> int:
    from cli.render import error
    from kb.errors import KBError, TorchMissingError, is_torch_missing

    argv = _question_first(argv)
    try:
        from cli import fast

        code = fast.try_run(argv)
        if code is None:
            code = _run_typer(argv)
        if code in (0, 1):
            _freshness_notice()
        return code
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
        if is_torch_missing(exc):  # a command that runs PyTorch, on the core install
            error(str(TorchMissingError(_command(argv))))
            return 2
        error(f"unexpected {type(exc).__name__}: {exc} (set KB_TRACEBACK=1 to see where)")
        return 2


def _freshness_notice() -> None:
    """One line on stderr when the KB a command answered from holds only old data (more
    than 30 days before today, or KB_TODAY), naming `kb ingest --all`."""
    from kb.store import db

    if not db.OPENED:
        return
    path = db.OPENED[-1]
    db.OPENED.clear()
    from datetime import date

    from cli.render import note
    from kb.store.dbfile import connect
    from kb.store.queries import freshness_notice

    try:
        today = date.fromisoformat(os.environ["KB_TODAY"]) if os.environ.get("KB_TODAY") else date.today()
        conn = connect(path)
        try:
            line = freshness_notice(conn, today)
        finally:
            conn.close()
    except Exception:  # a notice never turns an answer into a failure
        return
    if line:
        note(line)


def _command(argv: list[str]) -> str:
    """The command's name for a message: `kb probe`, `kb db catalog` (groups take a second word)."""
    words = argv[:2] if argv[:1] in (["db"], ["data"]) else argv[:1]
    return " ".join(["kb", *(w for w in words if not w.startswith("-"))])


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
