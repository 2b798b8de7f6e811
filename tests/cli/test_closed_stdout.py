"""`kb ... >&-`: the shell closed fd 1, so Python starts with sys.stdout = None (not the
same as stdout=DEVNULL, where fd 1 exists). Every command must still exit with its usual
code and at most one line on stderr, never a traceback (issue #29, tester's finding 14)."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CASES = [
    (["ask", "is nonzero native on neuron?"], 0),
    (["ask", "¿funciona nonzero en TPU?", "--json"], 0),
    (["ask", ""], 2),
    (["cost", "--price-per-hour", "7.5", "--tokens-per-second", "1800"], None),
    (["op", "aten::add.Tensor"], 0),
    (["ops", "--target", "neuron"], 0),
    (["targets", "--json"], 0),
    (["nope"], 2),
]


def _closed(args: list[str]) -> subprocess.CompletedProcess:
    line = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "cli.entry", *args])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(["sh", "-c", line + " >&-"], capture_output=False, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, text=True, env=env, timeout=120)


def _open(args: list[str]) -> int:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "cli.entry", *args], capture_output=True, env=env,
                          timeout=120).returncode


@pytest.mark.heavy
@pytest.mark.parametrize(("args", "code"), CASES)
def test_closed_stdout_keeps_the_exit_code_and_no_traceback(filled, args, code):
    proc = _closed(args)
    expected = _open(args) if code is None else code
    assert proc.returncode == expected, proc.stderr
    assert "Traceback" not in proc.stderr and "isatty" not in proc.stderr, proc.stderr
    assert "Exception ignored" not in proc.stderr
    assert len([line for line in proc.stderr.splitlines() if line.startswith("kb: error")]) <= 1
