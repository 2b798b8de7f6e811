"""Quiet by default (issue 26): a table command prints at most one notice line for its
targets' basis (the pre-release snapshot and presumed verdicts folded per target) plus
the legend; --verbose prints every per-version note, and --json keeps them all."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kb.store import db
from tests.conftest import REPO, run_kb

BUILD_LINE = "building the KB from shipped data"


@pytest.fixture(scope="module")
def fresh_run(tmp_path_factory):
    """`kb op aten::add.Tensor` twice as a new user runs it: a fresh cache folder, the
    shipped data, a process each (the first builds the KB)."""
    cache = tmp_path_factory.mktemp("fresh-cache")
    env = {k: v for k, v in os.environ.items() if k not in ("KB_DB", "KB_DATA_DIR")}
    env.update(KB_CACHE_DIR=str(cache), COLUMNS="120")
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", "import sys; from cli.entry import main; sys.exit(main())",
                               "op", "aten::add.Tensor"], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        runs.append(done)
    return runs


def test_kb_op_stderr_is_at_most_two_lines_after_the_build_line(fresh_run):
    """Counted as the README states it: the first run prints the first-use build line and
    then at most 2 lines (the folded notice and the legend); a later run at most 2."""
    first, second = (r.stderr.splitlines() for r in fresh_run)
    assert BUILD_LINE in first[0]
    assert len(first) - 1 <= 2, first
    assert len(second) <= 2, second
    assert not any(BUILD_LINE in line for line in second)
    notice = second[0]
    assert "neuron:" in notice and "pre-release snapshot" in notice and "inf1:" in notice
    assert "--verbose" in notice


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    path = tmp_path_factory.mktemp("shipped") / "kb.sqlite"
    db.open_kb(str(path)).close()
    return str(path)


def test_verbose_prints_every_note_and_json_keeps_them(capsys, shipped):
    code, _, quiet = run_kb(capsys, "op", "aten::add.Tensor", "--db", shipped)
    assert code == 0
    code, _, loud = run_kb(capsys, "op", "aten::add.Tensor", "--verbose", "--db", shipped)
    assert code == 0
    assert len(loud.splitlines()) > len(quiet.splitlines()) + 3
    assert "verdicts for neuron 2.14.3.1 are presumed from 0.1.0.dev0+g98154b8" in loud
    code, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "--json", "--db", shipped)
    page = json.loads(out)
    assert any("inf1" in n for n in page["basis_notes"]) and len(page["basis_notes"]) > 10
    assert set(page["notices"]) == {"inf1", "neuron"}
    assert all(v.startswith(f"{k}: ") for k, v in page["notices"].items())


def test_compare_folds_its_notices_too(capsys, shipped):
    code, _, err = run_kb(capsys, "compare", "neuron", "inf1", "--grep", "add.Tensor", "--db", shipped)
    assert code == 0
    notices = [line for line in err.splitlines() if "presumed" in line and "basis:" not in line]
    assert len(notices) == 1 and "neuron:" in notices[0] and "inf1:" in notices[0]
