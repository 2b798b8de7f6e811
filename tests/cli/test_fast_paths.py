"""`kb op` starts fast (issue 26: ≤ 2.5 × `python -c pass`, bench/fast_and_quiet.py): the
plain look-up loads none of the libraries that cost its start, and finds names by index."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kb.store import db
from tests.conftest import REPO

# What `kb op` must not import: each costs milliseconds of every start (typer builds its
# options through pydantic; typing, dataclasses and hashlib's OpenSSL a few ms each).
HEAVY = ("typer", "pydantic", "rich", "sqlmodel", "sqlalchemy", "torch", "click", "httpx", "typing", "dataclasses",
         "hashlib", "_hashlib", "html.entities", "inspect")


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    path = tmp_path_factory.mktemp("shipped") / "kb.sqlite"
    db.open_kb(str(path)).close()
    return str(path)


@pytest.mark.parametrize("args", [("aten::add.Tensor",), ("scaled_dot_product_attention", "--json"), ("nonzero", "-t", "tpu")])
def test_kb_op_loads_nothing_heavy(shipped, args):
    probe = ("import sys; from cli.entry import main; code = main(sys.argv[1:]); "
             f"print(sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe, "op", *args, "--db", shipped], cwd=REPO, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_names_found_by_index_equal_the_full_scan(shipped):
    """resolve_op and the related kernels, found through the indexes, are what scanning
    every known name gave."""
    import sqlite3

    from kb import opnames
    from kb.store import oppage, queries

    conn = sqlite3.connect(shipped)
    conn.row_factory = sqlite3.Row
    known = queries.known_op_names(conn)
    for name in ("add", "aten::add", "bitwise_and", "Int", "_foreach_sub", "scaled_dot_product_attention"):
        base = opnames.base_name(name)
        assert queries.resolve_op(conn, name) == sorted(n for n in known if n == f"aten::{base}"
                                                        or n.startswith(f"aten::{base}."))
    for op in ("aten::add.Tensor", "aten::scaled_dot_product_attention", "aten::_foreach_sub.Tensor", "aten::Int"):
        assert oppage.related_ops_indexed(conn, op) == oppage.related_ops(known, op)
    rows = queries.op_verdicts(conn, ["aten::add", "aten::add.Scalar", "aten::add_.Tensor"])
    newest = queries.op_verdicts(conn, ["aten::add", "aten::add.Scalar", "aten::add_.Tensor"], newest=True)
    assert len(newest) < len(rows)
    for op in ("aten::add", "aten::add.Scalar", "aten::add_.Tensor"):
        for target in queries.target_names(conn):
            assert oppage._newest([r for r in rows if r["op"] == op], target) == \
                oppage._newest([r for r in newest if r["op"] == op], target)
