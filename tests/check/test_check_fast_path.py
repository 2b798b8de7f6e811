"""A plain `kb check MODEL` runs without typer (cli.fast → cli.check.run): the same output,
exit code and errors as the typer path, and no typer or pydantic loaded (issue 26: a check
of a .pt2 costs a fraction of `import torch`)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

# `--timeout` is not a fast-path option: with it, the same check goes through the typer app
TYPER = ("--timeout", "300")


@pytest.mark.parametrize("args", [
    (), ("-t", "neuron", "-t", "tpu"), ("--json",), ("--format", "sarif"), ("-f", "markdown", "--suggest"),
    ("--fail-on", "decomposed"), ("--fail-on-unknown", "--verbose"), ("--allow", "aten::relu", "--fail-on", "fallback"),
    ("--mode", "bogus"), ("--fail-on", "unknown"), ("--mode=compile", "--format=junit"),
])
def test_fast_path_prints_what_the_typer_path_prints(run_cli, saved, args):
    model = saved["mlp"]["exported_program"]
    fast = run_cli("check", model, *args)
    typer_path = run_cli("check", model, *args, *TYPER)
    assert fast == typer_path


@pytest.mark.parametrize("args", [("--json", "--json"), ("--mode", "eager", "--mode", "compile"), ("--help",), ()])
def test_what_the_fast_path_does_not_take_goes_to_typer(run_cli, saved, args):
    from cli.fast import _parse_check

    model = () if args == () else (saved["mlp"]["exported_program"],)
    assert _parse_check([*model, *args]) is None
    code, out, err = run_cli("check", *model, *args)
    assert (code, len(err.splitlines())) == ((0, 0) if args == ("--help",) else (2, 1)), err


def test_plain_check_loads_no_typer_pydantic_or_torch(saved, isolated_kb, monkeypatch):
    from kb.store.db import open_kb

    monkeypatch.delenv("KB_DATA_DIR", raising=False)
    open_kb(str(isolated_kb)).close()  # the shipped KB
    probe = ("import sys; from cli.entry import main; code = main(sys.argv[1:]); "
             "print(sorted(m for m in ('typer', 'pydantic', 'rich', 'sqlmodel', 'sqlalchemy', 'torch', 'click') "
             "if m in sys.modules), file=sys.stderr); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe, "check", saved["mlp"]["exported_program"], "-t", "neuron",
                           "--db", str(isolated_kb)], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"
