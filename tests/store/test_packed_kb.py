"""Schema 8: observations and stored verdicts packed (texts and provenance kept once, the
fingerprint as bytes) behind views that write out the same columns. The shipped KB is at
most 20 MB, answers exactly as the schema-7 KB did, a schema-7 file migrates keeping every
row, and plain SQL writes through the views still land."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3

import pytest

from kb import paths
from kb.store import build, db, migrations
from kb.store.ingest import ingest_records
from tests.conftest import op_status
from tests.store import kb_answers

MB = 1_000_000
FP = "ab" * 32  # a sha256 hex digest, as kb's writer makes them


def _records_digest() -> str:
    """The shipped records (not the Datasette metadata): the golden answers hold for this data only."""
    root = paths.data_dir()
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".jsonl", ".csv")):
                full = os.path.join(folder, name)
                digest.update(os.path.relpath(full, root).encode() + b"\0")
                with open(full, "rb") as fh:
                    digest.update(fh.read())
    return digest.hexdigest()


@pytest.fixture
def golden():
    with open(kb_answers.GOLDEN, encoding="utf-8") as fh:
        saved = json.load(fh)
    if saved.get("records_digest") != _records_digest():
        pytest.skip("data/ changed since the schema-7 answers were saved (tests/store/kb_answers.py)")
    return saved


@pytest.fixture
def shipped(isolated_kb, monkeypatch):
    monkeypatch.setenv("KB_TODAY", "2026-12-01")
    monkeypatch.delenv("KB_DATA_DIR", raising=False)
    db.open_kb(str(isolated_kb)).close()
    return str(isolated_kb)


def test_the_shipped_kb_is_at_most_20_mb(shipped):
    size = os.path.getsize(shipped)
    assert size <= 20 * MB, f"the shipped KB is {size / MB:.1f} MB"


def test_the_shipped_kb_answers_as_the_schema_7_kb_did(shipped, golden):
    names = ["op aten::add.Tensor", "op aten::nonzero", "op aten::quantize_per_tensor", "op aten::linalg_svd",
             "op aten::Int", "op aten::cauchy", "op sdpa", "op silu 2.33", "eol stack", "db stats"]
    assert kb_answers.answers(shipped, names) == {name: golden[name] for name in names}


def test_no_shipped_row_is_dated_by_the_build_itself(shipped):
    """Every dated row carries its source's day, not the day the KB was built: a KB built on a
    fresh clone tomorrow says "as of" the same days (CI failed once when the releases a probe
    run mentions were stamped with the build's clock)."""
    conn = sqlite3.connect(shipped)
    try:
        built = conn.execute("SELECT value FROM kbmeta WHERE key = 'built_at'").fetchone()[0]
        for table in ("observation", "release", "limitation", "supportwindow", "caveat"):
            stamped = conn.execute(f"SELECT count(*) FROM {table} WHERE retrieved_at >= ?", (built[:16],)).fetchone()[0]
            assert stamped == 0, f"{stamped} {table} rows dated by the build"
    finally:
        conn.close()


@pytest.mark.heavy
def test_every_sampled_answer_and_row_is_as_the_schema_7_kb_gave_it(shipped, golden):
    got = kb_answers.answers(shipped)
    assert got == {name: golden[name] for name in got}
    for table in ("support", "observation"):
        assert kb_answers.rows_digest(shipped, table) == golden[f"rows {table}"], table


def _schema_7_kb(path) -> sqlite3.Connection:
    """A schema-7 KB with two observations of one source, one verdict and one presumed verdict."""
    conn = sqlite3.connect(path)
    migrations.migrate(conn, upto=7)
    conn.executescript(f"""
        INSERT INTO target VALUES ('sim', 'Simulated', 'kb-sim', 'sim', 'PrivateUse1', 'kb', NULL);
        INSERT INTO release (id, product, version, source_kind, source_name, retrieved_at)
               VALUES (1, 'kb-sim', '0.1', 'doc', 'd', '2026-01-01'), (2, 'kb-sim', '0.2', 'doc', 'd', '2026-01-01');
        INSERT INTO observation (id, op, target, release_id, mode, status, conditions, note, detail, source_kind,
                                 source_name, source_url, retrieved_at, content_sha256, ingested_at, origin,
                                 fingerprint)
               VALUES (1, 'aten::relu', 'sim', 1, 'eager', 'fallback', '{{"p": [1, 2]}}', 'slow', '{{"ms": 3}}',
                       'doc', 'd', 'https://example.test/d', '2026-01-01', 'sha', '2026-01-02', 'shipped', '{FP}'),
                      (2, 'aten::silu', 'sim', 1, 'eager', 'native', NULL, 'slow', NULL,
                       'doc', 'd', 'https://example.test/d', '2026-01-01', 'sha', '2026-01-02', 'shipped', 'fp-2');
        INSERT INTO support_stored (id, op, target, release_id, mode, status, conditions, note, source_kind,
                                    source_name, source_url, retrieved_at, observation_id, sources, disagreement,
                                    basis, effective_status, effective_via)
               VALUES (1, 'aten::relu', 'sim', 1, 'eager', 'fallback', '{{"p": [1, 2]}}', 'slow', 'doc', 'd',
                       'https://example.test/d', '2026-01-01', 1, '{{"d": "fallback"}}', 0, 'evidence', 'fallback',
                       '{{"leaf": null}}');
        INSERT INTO support_presumed (id, release_id, from_id) VALUES (1, 2, 1);
    """)
    conn.commit()
    return conn


def _all(conn, table):
    conn.row_factory = sqlite3.Row
    return sorted((dict(r) for r in conn.execute(f"SELECT * FROM {table}")), key=lambda r: r["id"])


def test_a_schema_7_kb_migrates_to_8_keeping_every_row(tmp_path):
    conn = _schema_7_kb(tmp_path / "old.sqlite")
    before = {t: _all(conn, t) for t in ("observation", "support_stored", "support", "support_status")}
    assert migrations.migrate(conn) == [8]
    assert {t: _all(conn, t) for t in before} == before
    kinds = dict(conn.execute("SELECT name, type FROM sqlite_master WHERE name IN "
                              "('observation', 'support_stored', 'observation_packed', 'support_packed')"))
    assert kinds == {"observation": "view", "support_stored": "view", "observation_packed": "table",
                     "support_packed": "table"}
    # provenance once, the shared note once, the hex fingerprint as its bytes (another value as it was)
    assert conn.execute("SELECT count(*) FROM provenance_source").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM kbtext WHERE value = 'slow'").fetchone()[0] == 1
    assert [r[0] for r in conn.execute("SELECT typeof(fingerprint) FROM observation_packed ORDER BY id")] == \
        ["blob", "text"]
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


def test_a_schema_7_kb_opens_and_answers_after_the_migration(tmp_path, small_data):
    path = tmp_path / "old.sqlite"
    _schema_7_kb(path).close()
    conn = db.open_kb(str(path))  # migrates, then refreshes the shipped part from small_data
    assert migrations.schema_version(conn) == migrations.SCHEMA_VERSION == 8
    assert conn.execute("SELECT count(*) FROM observation").fetchone()[0] == 0  # its rows were 'shipped'


def test_plain_sql_writes_through_the_views(tmp_path):
    conn = sqlite3.connect(tmp_path / "kb.sqlite")
    conn.execute("PRAGMA foreign_keys = ON")
    migrations.migrate(conn)
    conn.executescript(f"""
        INSERT INTO target VALUES ('sim', 'Simulated', 'kb-sim', 'sim', 'PrivateUse1', 'kb', NULL);
        INSERT INTO release (id, product, version, source_kind, source_name, retrieved_at)
               VALUES (1, 'kb-sim', '0.1', 'doc', 'd', '2026-01-01');
        INSERT INTO observation (id, op, target, release_id, mode, status, note, source_kind, source_name,
                                 retrieved_at, ingested_at, origin, fingerprint)
               VALUES (1, 'aten::relu', 'sim', 1, 'eager', 'native', 'n', 'doc', 'd', '2026-01-01', '2026-01-01',
                       'local', '{FP}');
        INSERT INTO support_stored (id, op, target, release_id, mode, status, note, source_kind, source_name,
                                    retrieved_at, observation_id)
               VALUES (1, 'aten::relu', 'sim', 1, 'eager', 'native', 'n', 'doc', 'd', '2026-01-01', 1);
        UPDATE observation SET note = 'changed', source_url = 'https://example.test/x' WHERE id = 1;
        UPDATE support_stored SET effective_via = '{{"leaf": "x"}}' WHERE id = 1;
    """)
    row = conn.execute("SELECT note, source_url, fingerprint FROM observation").fetchone()
    assert row == ("changed", "https://example.test/x", FP)
    assert conn.execute("SELECT note, basis, disagreement, effective_via FROM support").fetchone() == \
        ("n", "evidence", 0, '{"leaf": "x"}')
    conn.execute("DELETE FROM support_stored")
    conn.execute("DELETE FROM observation WHERE origin = 'local'")
    assert conn.execute("SELECT count(*) FROM observation_packed").fetchone()[0] == 0


def test_a_reingest_replaces_lookups_nothing_else_points_at(small_data, isolated_kb):
    for note in ("first", "second"):
        record = op_status("aten::relu", "native", target="neuron", version="2.14.3.0", name="snap", sha=note)
        ingest_records(str(isolated_kb), [record], source_name="snap")
    raw = sqlite3.connect(isolated_kb)
    build.refresh(str(isolated_kb))
    used = {r[0] for r in raw.execute("SELECT source_id FROM observation_packed UNION SELECT source_id FROM support_packed")}
    assert {r[0] for r in raw.execute("SELECT id FROM provenance_source")} == used
    batches = {r[0] for r in raw.execute("SELECT batch_id FROM observation_packed")}
    assert {r[0] for r in raw.execute("SELECT id FROM provenance_batch")} == batches
    assert raw.execute("SELECT count(*) FROM observation WHERE content_sha256 IN ('first', 'second')").fetchone()[0] == 2
