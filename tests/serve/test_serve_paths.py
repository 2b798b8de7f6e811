"""`kb serve --db PATH` with hostile paths, and its first run (issue 24).

Datasette opens the KB as the URI `file:{path}?mode=ro` without escaping the path, so a
path with `#`, `?` or `%XX` opens another file; kb refuses such a path before anything opens it."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3

import pytest

from tests.conftest import run_kb


def _digest(path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mtime_ns


@pytest.mark.parametrize("name", ["foreign#.sqlite", "foreign?.sqlite", "fo%72eign"])
def test_a_path_sqlite_would_misread_is_refused_and_the_other_file_untouched(small_data, isolated_kb, tmp_path,
                                                                              capsys, name):
    foreign = tmp_path / "x" / "foreign"  # another app's SQLite file, beside the path kb is given
    foreign.parent.mkdir()
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE secrets (value TEXT)")
    conn.execute("INSERT INTO secrets VALUES ('not for kb')")
    conn.commit()
    conn.close()
    before = _digest(foreign)
    code, out, err = run_kb(capsys, "serve", "--db", str(foreign.parent / name), "--get", "/kb.json")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "SQLite would read another file" in err
    assert _digest(foreign) == before
    assert sorted(os.listdir(foreign.parent)) == ["foreign"]  # nothing built at the given path either


def test_a_fifo_beside_the_path_is_never_opened(small_data, isolated_kb, tmp_path, capsys):
    """`ff#.sqlite` would open the FIFO `ff` (and hang or fail with a disk I/O error)."""
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    code, _out, err = run_kb(capsys, "serve", "--db", str(tmp_path / "ff#.sqlite"), "--get", "/kb.json")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "disk I/O" not in err


def test_a_plain_path_still_serves(small_data, tmp_path, capsys):
    code, out, _err = run_kb(capsys, "serve", "--db", str(tmp_path / "plain.sqlite"), "--get", "/kb.json")
    assert code == 0 and "kb" in json.loads(out)["database"]


def test_a_missing_page_on_first_use_is_one_line_no_traceback(small_data, tmp_path, capsys, monkeypatch):
    """The first run builds the KB, then answers like every later run: the 404 page on stdout,
    one error line on stderr, no rich traceback anywhere (Datasette prints one when rich is there)."""
    import datasette.handle_exception
    import rich

    db = str(tmp_path / "new.sqlite")
    for run in ("first", "second"):
        monkeypatch.setattr(datasette.handle_exception, "rich", rich)  # as a fresh process has it
        code, out, err = run_kb(capsys, "serve", "--db", db, "--get", "/kb/nope.json")
        assert code == 1, run
        assert json.loads(out)["status"] == 404, run  # stdout is the page, nothing else
        assert "Traceback" not in out + err and "NotFound" not in out + err, run
        errors = [line for line in err.splitlines() if line.startswith("kb: error:")]
        assert errors == ["kb: error: --get /kb/nope.json: HTTP 404"], run
        assert len(err.strip().splitlines()) == (2 if run == "first" else 1), run  # + "building the KB" note
