"""The kept gallery table (kb.gallery.tablecache): the same table as computing it, served from
memory and from the cache folder, and a change to the KB shows at once."""

from __future__ import annotations

import json
import os

import pytest

from kb.gallery import tablecache, views
from kb.store import db
from kb.store import records as rec
from kb.store.ingest import ingest_records
from tests.conftest import prov, run_kb
from tests.gallery.conftest import NEURON_DOC


@pytest.fixture
def fresh(monkeypatch):
    """No table kept in this process; `calls` counts how often a table is really computed."""
    tablecache.clear_memo()
    calls = []
    real = views._table

    def counted(*args, **kwargs):
        calls.append(args[1:])
        return real(*args, **kwargs)

    monkeypatch.setattr(views, "_table", counted)
    yield calls
    tablecache.clear_memo()


def _neuron_layer_norm(path: str, status: str, op: str = "aten::layer_norm") -> None:
    ingest_records(path, [rec.OpStatus(op=op, status=status, target="neuron", backend_version="2.14.3.0",
                                       provenance=prov(url=NEURON_DOC, name=f"neuron-fix-{status}"))],
                   source_name=f"gallery-test-fix-{status}", origin="shipped")


def test_the_kept_table_is_the_computed_one_in_memory_and_from_disk(gallery_kb, fresh):
    conn = db.open_kb(gallery_kb[0])
    computed = views.table(conn, cache=False)
    assert views.table(conn) == computed
    assert views.table(conn) == computed
    assert len(fresh) == 2  # the uncached call and the first cached one; the third came from memory
    files = os.listdir(os.path.join(os.environ["KB_CACHE_DIR"], tablecache.FOLDER))
    assert len(files) == 1 and files[0].endswith(".json")
    tablecache.clear_memo()  # a fresh process: read back from the cache folder
    assert views.table(conn) == computed
    assert len(fresh) == 2
    for targets, modes in ((["neuron"], ("eager",)), (["tpu"], ("eager", "compile"))):
        assert views.table(conn, targets, None, modes) == views.table(conn, targets, None, modes, cache=False)


def test_each_caller_gets_its_own_copy(gallery_kb, fresh):
    conn = db.open_kb(gallery_kb[0])
    first = views.table(conn)
    first["rows"][0]["name"] = "changed by a caller"
    first["rows"].clear()
    again = views.table(conn)
    assert again["rows"] and again["rows"][0]["name"] != "changed by a caller"


def test_a_kb_change_shows_at_once(gallery_kb, fresh):
    path = gallery_kb[0]
    conn = db.open_kb(path)
    before = {r["model"]: r["runs_fully"] for r in views.table(conn, ["neuron"])["rows"]}
    assert before["alpha-7b"] is False  # layer_norm falls back on neuron
    _neuron_layer_norm(path, "native")
    after = {r["model"]: r["runs_fully"] for r in views.table(conn, ["neuron"])["rows"]}
    assert after["alpha-7b"] is True
    assert views.table(conn, ["neuron"]) == views.table(conn, ["neuron"], cache=False)


def test_every_committed_write_is_a_new_state_even_in_quick_succession(gallery_kb, fresh):
    """Writes within one mtime tick: WAL size and header, or the change counter, still differ."""
    import sqlite3

    path = gallery_kb[0]
    reader = db.open_kb(path)
    writer = sqlite3.connect(path)
    writer.execute("CREATE TABLE scratch_writes (x)")
    writer.commit()
    seen = [json.dumps(tablecache.kb_state(reader))]
    for i in range(10):
        writer.execute("INSERT INTO scratch_writes VALUES (?)", (i,))
        writer.commit()
        seen.append(json.dumps(tablecache.kb_state(reader)))
    writer.close()
    assert len(set(seen)) == len(seen)


def test_the_cli_table_shows_a_change_at_once(gallery_kb, fresh, capsys):
    code, out, err = run_kb(capsys, "gallery", "-t", "neuron", "--json")
    assert code == 0, err
    assert json.loads(out)["baseline"][0]["runs_fully"] == 1  # beta-moe: layer_norm falls back in the others
    code, again, _ = run_kb(capsys, "gallery", "-t", "neuron", "--json")
    assert again == out
    _neuron_layer_norm(gallery_kb[0], "native")
    code, changed, err = run_kb(capsys, "gallery", "-t", "neuron", "--json")
    assert code == 0, err
    assert json.loads(changed)["baseline"][0]["runs_fully"] == 3


def test_uncommitted_writes_and_memory_databases_are_not_kept(gallery_kb, fresh):
    conn = db.open_kb(gallery_kb[0])
    conn.execute("CREATE TEMP TABLE scratch (x)")
    conn.execute("INSERT INTO scratch VALUES (1)")
    assert conn.in_transaction
    assert tablecache.kb_state(conn) is None
    conn.rollback()
    assert tablecache.kb_state(conn) is not None
    import sqlite3

    assert tablecache.kb_state(sqlite3.connect(":memory:")) is None


@pytest.mark.parametrize("content", [b"not json", b'{"key": {}, "table": {}}', b"[1, 2]", b"{" * 100_000])
def test_a_damaged_cache_file_is_recomputed(gallery_kb, fresh, content):
    conn = db.open_kb(gallery_kb[0])
    computed = views.table(conn)
    folder = os.path.join(os.environ["KB_CACHE_DIR"], tablecache.FOLDER)
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "wb") as fh:
            fh.write(content)
    tablecache.clear_memo()
    assert views.table(conn) == computed
    assert len(fresh) == 2


def test_an_unwritable_cache_folder_is_skipped(gallery_kb, fresh, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("KB_CACHE_DIR", str(blocker))  # the folder cannot be made under a file
    conn = db.open_kb(gallery_kb[0])
    assert views.table(conn) == views.table(conn, cache=False)


def test_the_bot_warms_the_list_tables_before_serving(gallery_kb, fresh, tmp_path, caplog):
    pytest.importorskip("uvicorn")
    from kb.chat import bot

    settings = bot.BotSettings(signing_secret="s" * 32, db=gallery_kb[0])
    bot.make_server(settings, "127.0.0.1", 0)
    warmed = len(fresh)
    assert {tuple(call[0]) for call in fresh} == {("neuron",), ("tpu",), ("neuron", "tpu")}
    conn = db.open_kb(gallery_kb[0])
    kept = [views.table(conn, targets, None, ("eager",), "inference") for targets in (["neuron"], ["tpu"], None)]
    assert len(fresh) == warmed  # all three from the warm-up
    assert kept == [views.table(conn, targets, None, ("eager",), "inference", cache=False)
                    for targets in (["neuron"], ["tpu"], None)]
    bot.make_server(bot.BotSettings(signing_secret="s" * 32, db=str(tmp_path)), "127.0.0.1", 0)  # not a KB
    assert "warm-up skipped" in caplog.text
