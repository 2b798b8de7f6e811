"""Helpers for the migration-toolkit tests: the CLI in-process, and in a fresh process
(where kb.probe.sim drifting kernels can be installed without leaking into other tests)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def run_cli(capsys):
    """`kb ARGS` in this process: (exit code, stdout, stderr)."""
    from cli.entry import main

    def run(*args):
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def run_fresh(*args, timeout: float = 120) -> subprocess.CompletedProcess:
    """`kb ARGS` in a new Python process (clean sim state, no autograd run before)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (REPO, os.environ.get("PYTHONPATH")))))
    return subprocess.run([sys.executable, "-m", "cli.entry", *map(str, args)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
