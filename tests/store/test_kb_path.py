"""The KB path: a regular file or nothing. Devices, FIFOs and folders are refused in one
line and left as they were; another application's SQLite file is refused, not migrated;
no --out may name the open KB; `kb data export` never writes outside its --out."""

import hashlib
import json
import os
import sqlite3
import stat

import pytest

from kb.store import db, dbfile, migrations
from kb.store.schema import APPLICATION_ID, SCHEMA_VERSION
from tests.conftest import op_status, run_kb, write_records


def _one_line_exit_2(code, out, err):
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err


def _sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_a_fifo_as_db_is_refused_and_stays_a_fifo(small_data, tmp_path, capsys, monkeypatch):
    fifo = tmp_path / "kb.fifo"
    os.mkfifo(fifo)
    code, out, err = run_kb(capsys, "op", "aten::relu", "--db", fifo)
    _one_line_exit_2(code, out, err)
    assert "FIFO" in err
    monkeypatch.setenv("KB_DB", str(fifo))
    code, out, err = run_kb(capsys, "db", "build")
    _one_line_exit_2(code, out, err)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and not list(tmp_path.glob("kb.fifo.building-*"))


def test_a_db_in_a_folder_that_does_not_exist_is_refused_and_no_folder_is_made(small_data, tmp_path, capsys,
                                                                                monkeypatch):
    """A typo'd --db once grew the folders and a fresh KB there. KB_DB's folder is still made (a CI job's cache)."""
    missing = tmp_path / "no" / "such" / "kb.sqlite"
    code, out, err = run_kb(capsys, "op", "aten::relu", "--db", missing)
    _one_line_exit_2(code, out, err)
    assert "does not exist" in err and not (tmp_path / "no").exists()
    code, out, err = run_kb(capsys, "ask", "is relu native on tpu?", "--db", missing)
    _one_line_exit_2(code, out, err)
    assert not (tmp_path / "no").exists()


def test_a_character_device_as_db_is_refused_and_untouched(small_data, tmp_path, capsys):
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # our own /dev/null, never the system's
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here ({exc})")
    before = os.stat(node)
    for args in (("op", "aten::relu"), ("db", "build"), ("db", "build", "--clean"), ("eol",), ("ask", "is relu native?")):
        code, out, err = run_kb(capsys, *args, "--db", node)
        assert code == 2 and "character device" in err and "Traceback" not in err, args
    after = os.stat(node)
    assert stat.S_ISCHR(after.st_mode) and (after.st_rdev, after.st_ino) == (before.st_rdev, before.st_ino)


def test_a_folder_as_db_is_refused(small_data, tmp_path, capsys):
    code, out, err = run_kb(capsys, "db", "build", "--db", tmp_path)
    _one_line_exit_2(code, out, err)
    assert "directory" in err


def test_another_applications_sqlite_file_is_refused_not_migrated(small_data, tmp_path, capsys):
    other = tmp_path / "other-app.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("INSERT INTO invoices (total) VALUES (12.5)")
    conn.commit()
    conn.close()
    before = _sha(other)
    for args in (("db", "build"), ("db", "build", "--clean"), ("op", "aten::relu"), ("db", "stats")):
        code, out, err = run_kb(capsys, *args, "--db", other)
        _one_line_exit_2(code, out, err)
        assert "another application" in err, args
    assert _sha(other) == before
    check = sqlite3.connect(other)
    assert check.execute("PRAGMA user_version").fetchone()[0] == 0
    assert [r[0] for r in check.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["invoices"]


def test_an_sqlite_file_with_a_foreign_application_id_is_refused(small_data, tmp_path):
    other = tmp_path / "x.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("PRAGMA application_id = 1234")
    conn.execute("CREATE TABLE kbmeta (key TEXT, value TEXT)")  # even with a table of the same name
    conn.commit()
    conn.close()
    with pytest.raises(Exception, match="another application"):
        db.open_kb(str(other))


def test_new_kbs_carry_the_application_id(small_data, isolated_kb):
    db.open_kb(str(isolated_kb)).close()
    assert sqlite3.connect(isolated_kb).execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_a_kb_made_by_an_older_kb_without_the_id_keeps_opening_and_its_data(small_data, isolated_kb):
    conn = sqlite3.connect(isolated_kb)
    for step in range(1, 6):  # the schema 1..5 steps, as older kb wrote them
        conn.executescript(f"BEGIN;\n{migrations.STEPS[step]}\nPRAGMA user_version = {step};\nCOMMIT;")
    conn.executescript("""
        INSERT INTO kbmeta VALUES ('data_fingerprint', 'old');
        INSERT INTO target VALUES ('sim', 'Simulated', 'kb-sim', 'sim', 'PrivateUse1', 'kb', NULL);
        INSERT INTO release (id, product, version, source_kind, source_name, retrieved_at)
               VALUES (1, 'kb-sim', '0.1', 'doc', 'old-doc', '2026-01-01');
        INSERT INTO observation (id, op, target, release_id, mode, status, source_kind, source_name, source_url,
                                 retrieved_at, ingested_at, origin, fingerprint)
               VALUES (1, 'aten::relu', 'sim', 1, 'eager', 'native', 'doc', 'old-doc', 'https://example.test/d',
                       '2026-01-01', '2026-01-01', 'local', 'fp-old');
    """)
    conn.commit()
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0
    conn.close()
    reopened = db.open_kb(str(isolated_kb))
    assert migrations.schema_version(reopened) == SCHEMA_VERSION
    assert reopened.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    row = reopened.execute("SELECT status, source_name, report FROM support WHERE op = 'aten::relu'").fetchone()
    assert tuple(row) == ("native", "old-doc", None)


@pytest.mark.parametrize("how", ["same", "symlink", "wal"])
def test_no_out_may_name_the_open_kb(small_data, isolated_kb, tmp_path, capsys, how):
    db.open_kb(str(isolated_kb)).close()
    capsys.readouterr()
    before = _sha(isolated_kb)
    out_path = {"same": isolated_kb, "symlink": tmp_path / "link.ics", "wal": f"{isolated_kb}-wal"}[how]
    if how == "symlink":
        os.symlink(isolated_kb, out_path)
    code, out, err = run_kb(capsys, "eol", "--ics", "--out", out_path, "--db", isolated_kb)
    _one_line_exit_2(code, out, err)
    assert "names the KB file itself" in err
    assert _sha(isolated_kb) == before
    db.open_kb(str(isolated_kb)).close()


def test_check_output_allows_other_files(small_data, isolated_kb, tmp_path):
    dbfile.check_output(str(tmp_path / "feed.ics"), str(isolated_kb))
    dbfile.check_output(None, str(isolated_kb))


def test_export_paths_from_record_fields_stay_under_out(small_data, isolated_kb, tmp_path, capsys):
    hostile = tmp_path / "hostile.jsonl"
    run = {"record": "probe_run", "run_id": "../../../../escaped", "kind": "../../../../escaped-kind",
           "target": "neuron", "backend": "x", "backend_version": "../../../../v", "torch_version": "2.13.0",
           "python_version": "3.11", "host": "h", "started_at": "2026-11-01T00:00:00+00:00"}
    status = {"record": "op_status", "op": "aten::relu", "target": "neuron", "backend_version": "../../../../v",
              "status": "native", "provenance": {"source_kind": "live_probe", "source_name": "live_probe",
                                                 "probe_run_id": "../../../../escaped"}}
    named = json.loads(json.dumps(rec_line := {
        "record": "op_status", "op": "aten::silu", "target": "neuron", "backend_version": "2.14.3.0",
        "status": "native", "provenance": {"source_kind": "doc", "source_name": "../../../../escaped-source",
                                           "source_url": "https://example.test/d"}}))
    assert named == rec_line
    hostile.write_text("\n".join(json.dumps(x) for x in (run, status, named)) + "\n")
    code, _, err = run_kb(capsys, "ingest", hostile, "--db", isolated_kb)
    assert code == 0, err
    out_dir = tmp_path / "deep" / "a" / "b" / "export"
    out_dir.mkdir(parents=True)
    code, out, err = run_kb(capsys, "data", "export", "--out", out_dir, "--db", isolated_kb, "--json")
    assert code == 0, err
    files = json.loads(out)["files"]
    assert files
    for relative in files:
        path = os.path.realpath(out_dir / relative)
        assert path.startswith(str(out_dir) + os.sep) and os.path.isfile(path)
        assert ".." not in relative.split("/")
    assert not [p for p in tmp_path.rglob("*escaped*") if not str(p).startswith(str(out_dir))]


def test_export_refuses_a_symlinked_folder_that_leads_outside(small_data, isolated_kb, tmp_path, capsys):
    write_records(tmp_path / "r.jsonl", [op_status("aten::relu", "native")])
    run_kb(capsys, "ingest", tmp_path / "r.jsonl", "--db", isolated_kb)
    out_dir = tmp_path / "export"
    outside = tmp_path / "outside"
    out_dir.mkdir()
    outside.mkdir()
    os.symlink(outside, out_dir / "scraped")
    code, out, err = run_kb(capsys, "data", "export", "--out", out_dir, "--db", isolated_kb)
    _one_line_exit_2(code, out, err)
    assert "outside" in err and not list(outside.iterdir())


def test_rows_an_older_kb_took_from_a_report_file_become_local_reports(small_data, isolated_kb):
    conn = sqlite3.connect(isolated_kb)
    for step in range(1, 6):
        conn.executescript(f"BEGIN;\n{migrations.STEPS[step]}\nPRAGMA user_version = {step};\nCOMMIT;")
    conn.executescript("""
        INSERT INTO kbmeta VALUES ('data_fingerprint', 'old');
        INSERT INTO target VALUES ('sim', 'Simulated', 'kb-sim', 'sim', 'PrivateUse1', 'kb', NULL);
        INSERT INTO release (id, product, version, source_kind, source_name, retrieved_at)
               VALUES (1, 'kb-sim', '0.1', 'doc', 'd', '2026-01-01');
        -- what `kb ingest forged.jsonl` stored before schema 6: the line's claims as its identity
        INSERT INTO ingestrun (source_name, content_sha256, started_at, added, origin)
               VALUES ('file:forged.jsonl', 'abc123', '2026-11-05T10:00:00+00:00', 1, 'local');
        INSERT INTO observation (op, target, release_id, mode, status, source_kind, source_name, source_url,
                                 retrieved_at, ingested_at, origin, fingerprint)
               VALUES ('aten::relu', 'sim', 1, 'eager', 'unsupported', 'manual', 'vendor-op-table',
                       'https://vendor.example/ops', '2030-01-01', '2026-11-05T10:00:00+00:00', 'local', 'fp-forged');
        -- and a page kb's own scraper read on this machine: stays the vendor's document
        INSERT INTO ingestrun (source_name, content_sha256, started_at, added, origin)
               VALUES ('vendor-docs', 'def456', '2026-11-06T10:00:00+00:00', 1, 'local');
        INSERT INTO observation (op, target, release_id, mode, status, source_kind, source_name, source_url,
                                 retrieved_at, ingested_at, origin, fingerprint)
               VALUES ('aten::silu', 'sim', 1, 'eager', 'native', 'doc', 'vendor-docs', 'https://vendor.example/d',
                       '2026-11-06', '2026-11-06T10:00:00+00:00', 'local', 'fp-scraped');
    """)
    conn.commit()
    conn.close()
    reopened = db.open_kb(str(isolated_kb))
    reopened.row_factory = sqlite3.Row
    forged = dict(reopened.execute("SELECT * FROM observation WHERE fingerprint = 'fp-forged'").fetchone())
    assert (forged["origin"], forged["source_kind"], forged["source_name"], forged["source_url"]) == (
        "report", "local_report", "local:forged.jsonl", None)
    report = json.loads(forged["report"])
    assert report["sha256"] == "abc123" and report["claimed"]["source_url"] == "https://vendor.example/ops"
    scraped = dict(reopened.execute("SELECT * FROM observation WHERE fingerprint = 'fp-scraped'").fetchone())
    assert (scraped["origin"], scraped["source_kind"], scraped["report"]) == ("local", "doc", None)
    basis = dict(reopened.execute("SELECT op, basis FROM support").fetchall())
    assert basis == {"aten::relu": "local", "aten::silu": "evidence"}


def test_a_question_mark_in_db_names_a_file_not_url_parameters(small_data, tmp_path, capsys):
    """`--db "other.db?x=1"` is the file of that name: never other.db opened through a URL."""
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = _sha(other)
    code, out, err = run_kb(capsys, "db", "build", "--db", f"{other}?x=1")
    assert code == 0, err
    assert _sha(other) == before and (tmp_path / "other.db?x=1").is_file()
