"""A wheel's prebuilt KB (kb/_prebuilt/kb.sqlite, made by setup.py with
kb.store.build.write_prebuilt): a first use copies it instead of building, only when it was
built from exactly the data kb reads now; a refresh uses it only for a KB that holds no
local rows, so probes and ingests made here are never lost."""

from __future__ import annotations

import sqlite3

import pytest

from kb import paths
from kb.store import build, db, queries
from kb.store.ingest import ingest_records
from tests.conftest import op_status, write_records


@pytest.fixture
def prebuilt(small_data, tmp_path, monkeypatch):
    write_records(small_data / "manual" / "facts.jsonl",
                  [op_status("aten::relu", "native", target="neuron", version="0.1.0.dev0", name="snap")])
    out = tmp_path / "wheel" / "kb" / "_prebuilt" / "kb.sqlite"
    build.write_prebuilt(str(out))
    monkeypatch.setattr(paths, "PREBUILT_KB", str(out))
    return out


def _rows(path, table):
    """A table's rows as a build would compare them (ids and stamps of when a row was written left out)."""
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        return sorted(tuple((k, r[k]) for k in r.keys() if k not in ("id", "ingested_at", "observation_id", "release_id"))
                      for r in conn.execute(f"SELECT * FROM {table}"))
    finally:
        conn.close()


def _verdicts(path):
    return [(v["status"], v["basis"]) for v in queries.op_verdicts(db.open_kb(str(path)), ["aten::relu"], "neuron")]


def test_first_use_copies_the_prebuilt_kb(prebuilt, isolated_kb, capsys, monkeypatch):
    monkeypatch.setattr(build, "build", lambda path: pytest.fail("built instead of copying the prebuilt KB"))
    got = _verdicts(isolated_kb)
    assert got == [("native", "evidence")]
    assert "(first use)" in capsys.readouterr().err
    conn = sqlite3.connect(isolated_kb)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert sqlite3.connect(prebuilt).execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert db.is_current(str(isolated_kb))  # this install's data fingerprint, not the build machine's


def test_a_prebuilt_kb_of_other_data_is_not_used(prebuilt, small_data, isolated_kb):
    write_records(small_data / "manual" / "more.jsonl",
                  [op_status("aten::silu", "fallback", target="neuron", version="0.1.0.dev0", name="snap2")])
    assert build.install_prebuilt(str(isolated_kb)) is None
    db.open_kb(str(isolated_kb))  # built from the data as it is now
    assert [v["status"] for v in queries.op_verdicts(db.open_kb(str(isolated_kb)), ["aten::silu"], "neuron")
            if v["basis"] == "evidence"] == ["fallback"]


def test_a_prebuilt_kb_of_older_data_is_copied_and_refreshed_not_rebuilt(prebuilt, small_data, isolated_kb, monkeypatch):
    """#26: after a `git pull` that changes a record file, the editable install's prebuilt KB is of
    the older data; a first use in a new cache folder copies it and redoes just that file
    (kb.store.incremental) instead of building everything, and gets what a build gets."""
    write_records(small_data / "manual" / "facts.jsonl",
                  [op_status("aten::relu", "fallback", target="neuron", version="0.1.0.dev0", name="snap")])
    real_build = build.build
    monkeypatch.setattr(build, "build", lambda path: pytest.fail("built instead of refreshing the prebuilt KB"))
    assert _verdicts(isolated_kb) == [("fallback", "evidence")] and db.is_current(str(isolated_kb))
    fresh = isolated_kb.parent / "built.sqlite"
    real_build(str(fresh))
    assert _verdicts(fresh) == _verdicts(isolated_kb)
    tables = ("observation", "support", "release")
    assert [_rows(fresh, t) for t in tables] == [_rows(isolated_kb, t) for t in tables]


def test_a_refresh_replaces_only_a_kb_without_local_rows(prebuilt, isolated_kb):
    db.open_kb(str(isolated_kb)).close()
    assert not build.holds_local_rows(str(isolated_kb))
    ingest_records(str(isolated_kb), [op_status("aten::silu", "native", target="tpu", version="0.2.0",
                                                kind="live_probe", name="mine")], source_name="mine")
    assert build.holds_local_rows(str(isolated_kb))
    conn = sqlite3.connect(isolated_kb)
    conn.execute("UPDATE kbmeta SET value = 'stale' WHERE key IN ('data_fingerprint', 'data_digest')")
    conn.commit()
    conn.close()
    reopened = db.open_kb(str(isolated_kb))  # refreshed in place: the local row stays
    assert reopened.execute("SELECT count(*) FROM observation WHERE source_name = 'mine'").fetchone()[0] == 1


def test_a_stale_kb_without_local_rows_is_replaced_by_the_prebuilt_one(prebuilt, isolated_kb, monkeypatch):
    db.open_kb(str(isolated_kb)).close()
    conn = sqlite3.connect(isolated_kb)
    conn.execute("UPDATE kbmeta SET value = 'stale' WHERE key IN ('data_fingerprint', 'data_digest')")
    conn.commit()
    conn.close()
    monkeypatch.setattr(build, "refresh", lambda path: pytest.fail("refreshed instead of copying the prebuilt KB"))
    assert _verdicts(isolated_kb) == [("native", "evidence")] and db.is_current(str(isolated_kb))


def test_a_kb_of_a_newer_schema_is_refused_not_replaced(small_data, isolated_kb):
    from kb.errors import SchemaTooNewError
    from kb.store.schema import SCHEMA_VERSION

    db.open_kb(str(isolated_kb)).close()
    conn = sqlite3.connect(isolated_kb)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaTooNewError):
        db.open_kb(str(isolated_kb))
    assert sqlite3.connect(isolated_kb).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1


def test_another_install_of_the_same_data_does_not_refresh_the_kb(small_data, isolated_kb, tmp_path, monkeypatch):
    """The pre-commit hook's kb and a checkout's share the cache: same data, other mtimes. The
    data digest decides, each install's fingerprint is remembered; changed data refreshes."""
    import os
    import shutil

    db.open_kb(str(isolated_kb)).close()
    other = tmp_path / "other-install" / "data"
    shutil.copytree(small_data, other)
    for folder, _dirs, files in os.walk(other):
        for name in files:
            os.utime(os.path.join(folder, name), ns=(1, 1))  # another install: other mtimes
    monkeypatch.setattr(build, "ensure_built", lambda path: pytest.fail("refreshed for the same data"))
    for data in (other, small_data, other):
        monkeypatch.setenv("KB_DATA_DIR", str(data))
        assert db.is_current(str(isolated_kb))
    seen = sqlite3.connect(isolated_kb).execute(
        "SELECT value FROM kbmeta WHERE key = 'data_fingerprints_seen'").fetchone()[0]
    assert len(__import__("json").loads(seen)) == 1
    write_records(other / "manual" / "facts.jsonl",
                  [op_status("aten::relu", "native", target="neuron", version="0.1.0.dev0", name="snap")])
    monkeypatch.setenv("KB_DATA_DIR", str(other))
    assert not db.is_current(str(isolated_kb))  # other data: refreshed as before
