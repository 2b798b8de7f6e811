"""The schema: migrations reach exactly the declared tables, old KBs upgrade and keep
their data, newer or foreign files are refused with a clear error."""

import sqlite3

import pytest
from sqlalchemy import create_engine
from sqlmodel import SQLModel

import kb.store.schema  # noqa: F401  (registers the tables)
from kb.errors import CorruptKBError, SchemaTooNewError
from kb.store import db, dbfile, migrations
from kb.store.schema import SCHEMA_VERSION


def _columns(conn):
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    return {t: sorted((r[1], r[2].upper(), bool(r[3])) for r in conn.execute(f"PRAGMA table_info({t})"))
            for t in tables}


def test_migrations_build_exactly_the_declared_schema(tmp_path):
    declared = tmp_path / "declared.sqlite"
    SQLModel.metadata.create_all(create_engine(f"sqlite:///{declared}"))
    migrated = sqlite3.connect(tmp_path / "migrated.sqlite")
    assert migrations.migrate(migrated) == list(range(1, SCHEMA_VERSION + 1))
    expected = _columns(sqlite3.connect(declared))
    got = _columns(migrated)
    # ALTER TABLE ADD COLUMN with a default is the one way SQLite differs: NOT NULL is kept
    assert got.keys() == expected.keys()
    for table in expected:
        assert [c[:2] for c in got[table]] == [c[:2] for c in expected[table]], table
    assert _indexes(migrated) == _indexes(sqlite3.connect(declared))


def _indexes(conn):
    return sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index' AND name LIKE 'ix_%'"))


def test_fast_path_mirror_of_the_schema_version_is_right():
    assert dbfile.SCHEMA_VERSION == SCHEMA_VERSION
    assert dbfile.APPLICATION_ID == kb.store.schema.APPLICATION_ID
    assert (migrations.SCHEMA_VERSION, migrations.APPLICATION_ID) == (SCHEMA_VERSION, kb.store.schema.APPLICATION_ID)


def test_a_build_imports_neither_sqlalchemy_nor_sqlmodel(small_data, tmp_path):
    """The first use builds with plain sqlite3 (kb.store.build): importing SQLAlchemy and
    SQLModel alone cost a noticeable part of it."""
    import subprocess
    import sys

    code = ("import sys; from kb.store import build; build.build(sys.argv[1]); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'sqlmodel', 'pydantic')))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "kb.sqlite")], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


def test_a_kb_written_by_schema_1_opens_and_keeps_its_probe_data(tmp_path, small_data):
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    migrations.migrate(conn, upto=1)
    # what kb 0.1 with schema 1 wrote: a probe run and its observation and verdict
    conn.executescript("""
        INSERT INTO kbmeta VALUES ('data_fingerprint', 'old');
        INSERT INTO target VALUES ('sim', 'Simulated', 'kb-sim', 'sim', 'PrivateUse1', 'kb', NULL);
        INSERT INTO release (id, product, version, source_kind, source_name, retrieved_at)
               VALUES (1, 'kb-sim', '0.1', 'live_probe', 'probe', '2026-01-01');
        INSERT INTO proberun (run_id, kind, target, release_id, backend, torch_version, python_version, host,
                              started_at, origin)
               VALUES ('run-1', 'live', 'sim', 1, 'sim', '2.13.0', '3.11', 'box', '2026-01-01', 'local');
        INSERT INTO observation (id, op, target, release_id, mode, status, source_kind, source_name, probe_run_id,
                                 retrieved_at, ingested_at, origin, fingerprint)
               VALUES (1, 'aten::relu', 'sim', 1, 'eager', 'fallback', 'live_probe', 'live_probe', 'run-1',
                       '2026-01-01', '2026-01-01', 'local', 'fp-1');
        INSERT INTO support (id, op, target, release_id, mode, status, source_kind, source_name, retrieved_at,
                             observation_id)
               VALUES (1, 'aten::relu', 'sim', 1, 'eager', 'fallback', 'live_probe', 'live_probe', '2026-01-01', 1);
    """)
    conn.commit()
    conn.close()

    from kb.store import queries

    reopened = db.open_kb(str(path))  # migrates to the current schema and refreshes shipped data
    assert migrations.schema_version(reopened) == SCHEMA_VERSION
    assert reopened.execute("SELECT count(*) FROM proberun WHERE run_id = 'run-1'").fetchone()[0] == 1
    verdicts = queries.op_verdicts(reopened, ["aten::relu"], "sim")
    assert [(v["status"], v["probe_run_id"], v["sources"]) for v in verdicts] == [
        ("fallback", "run-1", {"live_probe@run-1": "fallback"})
    ]


def test_a_kb_from_a_newer_kb_is_refused(tmp_path):
    conn = sqlite3.connect(tmp_path / "new.sqlite")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNewError, match="upgrade kb"):
        migrations.migrate(conn)


@pytest.mark.parametrize("content", [b"this is not a database at all" * 10, b"SQLite format 3\x00" + b"\xff" * 200])
def test_a_corrupt_file_is_a_clear_error(tmp_path, content):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(content)
    with pytest.raises(CorruptKBError, match="kb database"):
        db.open_kb(str(bad))


def test_new_kbs_use_wal(small_data, isolated_kb):
    db.open_kb(str(isolated_kb))
    assert sqlite3.connect(isolated_kb).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
