"""`kb ... >&-`: the shell closed fd 1, so Python starts with sys.stdout = None (not the
same as stdout=DEVNULL, where fd 1 exists). No answer can be written, so every command
exits 2 with one line on stderr and never a traceback (issue #29 finding 14; issue #26:
`kb ops -t tpu >&-` used to exit 0 having written nothing). A read-only fd 1
(`1</dev/null`) is refused the same way; a reader that goes away after some output
(`| head -1`) is still the quiet exit 141 (tests/cli/test_cli_basics.py)."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _commands() -> list[str]:
    """Every top-level command of the typer app (groups included), so a new one is tested too."""
    import typer

    from cli.app import app

    return sorted(typer.main.get_command(app).commands)


COMMANDS = _commands()

# commands that also answer on a full run: the refusal comes before the work, whatever the arguments
CASES = [
    ["ask", "is nonzero native on neuron?"],
    ["ask", "¿funciona nonzero en TPU?", "--json"],
    ["ask", ""],
    ["cost", "--price-per-hour", "7.5", "--tokens-per-second", "1800"],
    ["op", "aten::add.Tensor"],
    ["ops", "--target", "tpu"],
    ["targets", "--json"],
    ["check", "no-such-model.pt2", "-t", "tpu"],
    ["nope"],
    ["--help"],
]


def _run(args: list[str], redirect: str) -> subprocess.CompletedProcess:
    line = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "cli.entry", *args])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(["sh", "-c", f"{line} {redirect}"], stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, text=True, env=env, timeout=120)


def _refused(proc: subprocess.CompletedProcess) -> None:
    from cli.entry import STDOUT_CLOSED

    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [f"kb: error: {STDOUT_CLOSED}"], proc.stderr


def test_every_command_is_listed():
    assert {"op", "ops", "check", "serve", "mcp", "db", "data", "ci", "gallery"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_closed_stdout_is_one_line_and_exit_2_for_every_command(command):
    _refused(_run([command], ">&-"))
    _refused(_run([command, "--json"], ">&-"))


@pytest.mark.parametrize("args", CASES, ids=[" ".join(a)[:30] for a in CASES])
def test_closed_stdout_refuses_before_any_work(args):
    _refused(_run(args, ">&-"))


@pytest.mark.parametrize("args", [["op", "aten::add.Tensor"], ["ops", "--target", "tpu"], ["version"]])
def test_unwritable_stdout_is_refused_the_same_way(filled, args):
    _refused(_run(args, "1</dev/null"))


def test_closed_stdout_and_stderr_exit_2_silently():
    proc = _run(["ops", "--target", "tpu"], ">&- 2>&-")
    assert proc.returncode == 2 and proc.stderr == ""


def test_in_process_main_with_no_stdout(monkeypatch, capsys):
    from cli import entry

    monkeypatch.setattr(sys, "stdout", None)
    assert entry.main(["op", "aten::add.Tensor"]) == 2
    assert capsys.readouterr().err == f"kb: error: {entry.STDOUT_CLOSED}\n"
