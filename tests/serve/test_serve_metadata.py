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
