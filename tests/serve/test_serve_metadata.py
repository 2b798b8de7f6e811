"""The shipped Datasette metadata describes exactly the tables and columns of kb.store.schema."""

from __future__ import annotations

from sqlmodel import SQLModel

import kb.store.schema  # noqa: F401  (registers the tables)
from kb.serve import launch as serve


def test_every_schema_table_and_column_described():
    tables = serve.load_metadata()["databases"]["kb"]["tables"]
    for name, table in SQLModel.metadata.tables.items():
        assert tables.get(name, {}).get("description"), f"table {name} has no description"
        described = tables[name].get("columns", {})
        columns = {c.name for c in table.columns}
        assert columns <= set(described), f"{name}: undescribed columns {sorted(columns - set(described))}"
        assert set(described) <= columns, f"{name}: described columns not in kb.store.schema {sorted(set(described) - columns)}"


def test_only_proposed_tables_are_extra():
    tables = set(serve.load_metadata()["databases"]["kb"]["tables"])
    assert tables - set(SQLModel.metadata.tables) <= set(serve.PROPOSED_TABLES) | set(serve.VIEW_KEYS_FROM)


def test_canned_queries_have_titles_and_descriptions():
    queries = serve.load_metadata()["databases"]["kb"]["queries"]
    assert {"coverage", "native_vs_fallback", "disagreements", "probe_runs", "upcoming_eol", "model_check"} <= set(queries)
    for name, query in queries.items():
        assert query.get("title") and query.get("description"), name
        assert name == "coverage" or query.get("sql"), name  # coverage's SQL is generated per KB


def test_coverage_sql_quotes_target_names():
    sql = serve.coverage_sql(["neuron-xla", "o'dd"])
    assert 'AS "neuron-xla"' in sql and "s.target = 'o''dd'" in sql


def _matrix(targets, support, after=""):
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE support_status (op, target, release_id, mode, status, effective_status, basis, report)")
    conn.execute("CREATE TEMP TABLE latest_release (target, release_id, version)")
    conn.executemany("INSERT INTO latest_release VALUES (?, ?, '1')", [(t, i) for i, t in enumerate(targets)])
    conn.executemany("INSERT INTO support_status VALUES (?, ?, ?, 'eager', ?, NULL, 'evidence', NULL)",
                     [(op, t, targets.index(t), status) for op, t, status in support])
    return [r[0] for r in conn.execute(serve.coverage_sql(targets), {"mode": "", "grep": "", "after": after})]


def test_coverage_lists_ops_a_device_target_knows_first_and_pages_in_that_order():
    """Issue 26: ops unknown on neuron, tpu and neuron-xla (aten::Int, known to inf1 only)
    come after every op some device target knows, each group by name; `after` pages in
    that order (an op of either group, or any name)."""
    support = [("aten::Int", "inf1", "native"), ("aten::abs", "tpu", "native"), ("aten::Zed", "cpu", "native"),
               ("aten::add", "neuron", "fallback"), ("aten::add", "inf1", "native"), ("aten::zeros", "neuron-xla", "native")]
    targets = ["neuron", "tpu", "neuron-xla", "cpu", "inf1"]
    assert _matrix(targets, support) == ["aten::abs", "aten::add", "aten::zeros", "aten::Int", "aten::Zed"]
    assert _matrix(targets, support, after="aten::add") == ["aten::zeros", "aten::Int", "aten::Zed"]
    assert _matrix(targets, support, after="aten::zeros") == ["aten::Int", "aten::Zed"]
    assert _matrix(targets, support, after="aten::Int") == ["aten::Zed"]
    assert _matrix(targets, support, after="aten::ab") == ["aten::abs", "aten::add", "aten::zeros", "aten::Int", "aten::Zed"]
    assert _matrix(["cpu", "inf1"], support[:1] + support[2:3]) == ["aten::Int", "aten::Zed"]  # no device column: by name
