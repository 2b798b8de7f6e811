"""The incremental refresh (kb.store.incremental): after a data/ change it must leave the KB
exactly as a full rebuild of the same data would, table by table, or hand over to the full
rebuild; and an interrupted refresh leaves the old KB as it was, usable.

Rows are compared without their ids and `ingested_at`, which must differ: a full build
numbers rows in file order and stamps them with its own time, while the incremental one
appends a changed file's new rows and keeps the first build's stamp (so that a source spread
over several files stays one batch). References are compared by what they point at (a
release by product and version, a verdict's observation by its fingerprint, a presumed
verdict's stored one by its key). Releases made by a probe run's mention carry the time of
the build that made them, so their retrieved_at is left out too."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3

import pytest

from kb import paths
from kb.store import build, db, incremental, queries, support
from kb.store import records as rec
from kb.store.ingest import ingest_records
from tests.conftest import REPO, op_status, probe_run, prov, write_records

RULE_URL = "https://example.test/rules"


# Schema 8 stores these packed, their texts and provenance by id: they are compared as the
# views `observation` and `support_stored` write them out, the lookups by their values.
PACKED = ("observation_packed", "support_packed")
LOOKUPS = ("kbtext", "provenance_source", "provenance_batch")


def snapshot(path) -> dict:
    """Every table's and view's rows as comparable text: no ids, no stamps, references by
    content (the packed tables through their views)."""
    conn = sqlite3.connect(path)
    releases = {i: (p, v) for i, p, v in conn.execute("SELECT id, product, version FROM release")}
    facts = dict(conn.execute("SELECT id, fingerprint FROM observation"))
    stored = {i: (op, t, releases[r], m) for i, op, t, r, m in
              conn.execute("SELECT id, op, target, release_id, mode FROM support_stored")}
    out = {}
    tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                                               "AND name NOT LIKE 'sqlite_%'") if name not in PACKED]
    assert {"observation", "support_stored", "support", "kbtext"} <= set(tables)
    for table in tables:
        cursor = conn.execute(f"SELECT * FROM {table}")
        names = [d[0] for d in cursor.description]
        if table == "kbmeta":
            out[table] = {k: v for k, v in cursor if k not in ("built_at", incremental.MAP_KEY, "data_fingerprint")}
            continue
        rows = []
        for values in cursor:
            row = dict(zip(names, values))
            row.pop("id", None)
            row.pop("ingested_at", None)
            if "release_id" in row:
                row["release_id"] = releases[row["release_id"]]
            if "observation_id" in row:
                row["observation_id"] = facts[row["observation_id"]]
            if "from_id" in row:
                row["from_id"] = stored[row["from_id"]]
            if table == "release" and row["source_name"] == "probe":
                row.pop("retrieved_at")
            rows.append(repr(sorted(row.items())))
        out[table] = sorted(rows)
    conn.close()
    return out


def orphans(path) -> dict[str, int]:
    """Lookup rows no packed row points at (kb.store.packed.prune leaves none)."""
    conn = sqlite3.connect(path)
    texts = " UNION ".join(f"SELECT {c} FROM {t} WHERE {c} IS NOT NULL" for t, cols in (  # NOT IN meets no NULL
        ("observation_packed", ("conditions_id", "note_id", "detail_id")),
        ("support_packed", ("conditions_id", "note_id", "sources_id", "effective_via_id"))) for c in cols)
    found = {
        "kbtext": f"SELECT count(*) FROM kbtext WHERE id NOT IN ({texts})",
        "provenance_source": "SELECT count(*) FROM provenance_source WHERE id NOT IN "
                             "(SELECT source_id FROM observation_packed UNION SELECT source_id FROM support_packed)",
        "provenance_batch": "SELECT count(*) FROM provenance_batch WHERE id NOT IN "
                            "(SELECT batch_id FROM observation_packed)",
    }
    try:
        return {name: n for name, sql in found.items() if (n := conn.execute(sql).fetchone()[0])}
    finally:
        conn.close()


def assert_same(got, want):
    a, b = snapshot(got), snapshot(want)
    assert a.keys() == b.keys()
    for table in a:
        assert a[table] == b[table], f"{table} differs"
    assert orphans(got) == {} and orphans(want) == {}


@pytest.fixture
def data(small_data):
    """small_data with files of every kind a build reads: verdicts (a family row among them),
    a probe run, caveats, limitations and windows, releases, a doc rule."""
    write_records(small_data / "manual" / "facts.jsonl", [
        rec.Release(product="torchneuron", version="0.1.0", provenance=prov(kind="manual", name="facts")),
        rec.Release(product="torchneuron", version="0.2.0", provenance=prov(kind="manual", name="facts")),
        op_status("aten::add.Tensor", "native", version="0.1.0", name="facts"),
        op_status("aten::add", "fallback", version="0.1.0", name="facts-family"),
        op_status("aten::relu", "native", version="0.1.0", name="facts"),
        op_status("aten::silu", "fallback", version="0.1.0", name="facts"),
        rec.Limitation(target="neuron", product="torchneuron", version="0.1.0", feature="torch.sparse",
                       status="unsupported", provenance=prov(kind="manual", name="facts")),
        rec.SupportWindow(product="torchneuron", cycle="0.1", eol="2027-06-30", eol_kind="announced",
                          provenance=prov(kind="manual", name="facts")),
    ])
    write_records(small_data / "probes" / "static.jsonl", [
        probe_run("run-1", kind="static", version="0.2.0"),
        *[op_status(op, status, version="0.2.0", kind="static_probe", name="probe", run="run-1")
          for op, status in (("aten::add.Tensor", "native"), ("aten::nonzero", "fallback"), ("aten::silu", "native"))],
    ])
    write_records(small_data / "scraped" / "tpu.jsonl", [
        op_status("aten::relu", "native", target="tpu", version="0.2.0", name="tpu-doc"),
        op_status("aten::nonzero", "unsupported", target="tpu", version="0.2.0", name="tpu-doc", dtypes=["float32"]),
    ])
    write_records(small_data / "scraped" / "tpu2.jsonl", [  # after tpu.jsonl, which made the release
        op_status("aten::silu", "fallback", target="tpu", version="0.2.0", name="tpu-doc-2"),
    ])
    write_records(small_data / "caveats" / "c.jsonl", [
        rec.Caveat(op="aten::nonzero", target="neuron", kind="slow", statement="host sync",
                   provenance=prov(kind="field", name="caveats")),
    ])
    write_records(small_data / "rules" / "r.jsonl", [
        rec.DocRule(rule_id="relu-ok", target="neuron", status="native", summary="relu runs", vendor_class="Y",
                    select={"ops": ["aten::relu"]}, provenance=prov(kind="doc_rule", name="rules", url=RULE_URL)),
    ])
    (small_data / "replay").mkdir()
    (small_data / "replay" / "kernels.csv").write_text("op\naten::add.Tensor\n")
    return small_data


def _edit(path, change):
    """Rewrite a JSONL file line by line through `change(record_dict) -> dict | None`."""
    lines = []
    for line in path.read_text().splitlines():
        row = change(json.loads(line))
        if row is not None:
            lines.append(json.dumps(row))
    path.write_text("".join(line + "\n" for line in lines))


def _full(tmp_path, name="full.sqlite"):
    out = tmp_path / name
    build.build(str(out))
    return out


def _refresh(kb_path):
    """ensure_built as a query's open_kb would run it; returns its result."""
    assert not db.is_current(str(kb_path))
    result = build.ensure_built(str(kb_path))
    assert db.is_current(str(kb_path))
    return result


def _set_status(op, target, status):
    def change(row):
        if row.get("op") == op and row.get("target") == target:
            return {**row, "status": status}
        return row
    return change


CHANGES = {
    "edit a row": lambda d: _edit(d / "manual" / "facts.jsonl", _set_status("aten::silu", "neuron", "native")),
    "edit a family row": lambda d: _edit(d / "manual" / "facts.jsonl", _set_status("aten::add", "neuron", "native")),
    "drop a row": lambda d: _edit(d / "scraped" / "tpu.jsonl", lambda r: None if r["op"] == "aten::relu" else r),
    "edit a probe": lambda d: _edit(d / "probes" / "static.jsonl", _set_status("aten::nonzero", "neuron", "native")),
    "edit a caveat": lambda d: _edit(d / "caveats" / "c.jsonl", lambda r: {**r, "statement": "a host sync"}),
    "edit a window": lambda d: _edit(d / "manual" / "facts.jsonl",
                                     lambda r: {**r, "eol": "2027-09-30"} if r["record"] == "support_window" else r),
    "add a file": lambda d: write_records(d / "scraped" / "zz-more.jsonl", [
        op_status("aten::nonzero", "native", version="0.2.0", name="more"),
        op_status("aten::add.Tensor", "fallback", target="tpu", version="0.2.0", name="more")]),
    "delete a file": lambda d: os.remove(d / "scraped" / "tpu2.jsonl"),
    "delete the caveats": lambda d: os.remove(d / "caveats" / "c.jsonl"),
    "same records, other bytes": lambda d: (d / "scraped" / "tpu.jsonl").write_text(
        (d / "scraped" / "tpu.jsonl").read_text() + "\n"),
    "a file the build does not read": lambda d: (d / "replay" / "kernels.csv").write_text("op\naten::relu\n"),
    "change a rule file": lambda d: _edit(d / "rules" / "r.jsonl", lambda r: {**r, "status": "fallback"}),
    "every row retrieved anew": lambda d: _edit(d / "scraped" / "tpu2.jsonl", lambda r: {
        **r, "provenance": {**r["provenance"], "retrieved_at": "2026-11-20T00:00:00+00:00"}}),
    "add a rule file": lambda d: write_records(d / "rules" / "s.jsonl", [
        rec.DocRule(rule_id="silu-no", target="neuron", status="unsupported", summary="silu fails",
                    vendor_class="N", select={"ops": ["aten::silu"]}, apis=("torch.sparse",),
                    provenance=prov(kind="doc_rule", name="rules-2", url=RULE_URL))]),
}
# changes that must rebuild whole (incremental.refresh hands over: returns None)
FULL_CHANGES = {
    "change the op catalog": lambda d: (d / "ops" / "aten-torch-2.13.0.jsonl").write_text(
        (d / "ops" / "aten-torch-2.13.0.jsonl").read_text() + "\n"),
    "change targets.csv": lambda d: (d / "targets.csv").write_text((d / "targets.csv").read_text() + "\n"),
    "a new release": lambda d: write_records(d / "scraped" / "new.jsonl", [
        op_status("aten::relu", "native", version="0.3.0", name="newer")]),
    "a file that states releases is removed": lambda d: os.remove(d / "manual" / "facts.jsonl"),
    "a file that made a release is removed": lambda d: os.remove(d / "scraped" / "tpu.jsonl"),
    "a release a file made is first mentioned otherwise": lambda d: _edit(d / "scraped" / "tpu.jsonl", lambda r: {
        **r, "provenance": {**r["provenance"], "retrieved_at": "2026-11-20T00:00:00+00:00"}}),
    "a changed file names a release a later file made": lambda d: write_records(d / "caveats" / "c.jsonl", [
        *rec.read_jsonl((d / "caveats" / "c.jsonl").read_text().splitlines()),
        rec.Limitation(target="neuron", product="torchneuron", version="0.1.0", feature="torch.fx",
                       status="unsupported", provenance=prov(kind="manual", name="caveat-notes"))]),
    "an added file names a release a later file made": lambda d: write_records(d / "scraped" / "a-first.jsonl", [
        op_status("aten::relu", "fallback", target="tpu", version="0.2.0", name="first")]),
    "a release statement changes": lambda d: _edit(d / "manual" / "facts.jsonl",
                                                   lambda r: {**r, "date": "2026-01-01"} if r["record"] == "release"
                                                   else r),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_an_incremental_refresh_equals_a_full_rebuild(data, isolated_kb, tmp_path, change):
    build.build(str(isolated_kb))
    CHANGES[change](data)
    result = _refresh(isolated_kb)
    assert result.get("incremental"), result
    assert_same(isolated_kb, _full(tmp_path))


@pytest.mark.parametrize("change", list(FULL_CHANGES))
def test_what_an_incremental_refresh_cannot_promise_is_rebuilt_whole(data, isolated_kb, tmp_path, change):
    build.build(str(isolated_kb))
    FULL_CHANGES[change](data)
    result = _refresh(isolated_kb)
    assert not result.get("incremental"), result
    assert_same(isolated_kb, _full(tmp_path))


def test_several_refreshes_in_a_row_stay_equal_to_a_full_rebuild(data, isolated_kb, tmp_path):
    build.build(str(isolated_kb))
    for change in ("edit a row", "add a file", "edit a probe", "drop a row", "delete a file", "edit a family row",
                   "change a rule file"):
        CHANGES[change](data)
        assert _refresh(isolated_kb).get("incremental"), change
    assert_same(isolated_kb, _full(tmp_path))
    _edit(data / "scraped" / "zz-more.jsonl", _set_status("aten::nonzero", "neuron", "unsupported"))
    assert _refresh(isolated_kb).get("incremental")  # the added file's rows are its own now
    assert_same(isolated_kb, _full(tmp_path, "again.sqlite"))


def test_a_fact_in_two_files_is_rebuilt_whole(data, isolated_kb, tmp_path):
    """The same fact in two files is one row: neither file's refresh may delete it alone."""
    same = op_status("aten::relu", "native", target="tpu", version="0.2.0", name="tpu-doc")
    write_records(data / "scraped" / "twice.jsonl", [same])
    build.build(str(isolated_kb))
    stored = json.loads(sqlite3.connect(isolated_kb).execute(
        "SELECT value FROM kbmeta WHERE key = ?", (incremental.MAP_KEY,)).fetchone()[0])
    assert stored["files"]["scraped/tpu.jsonl"]["shared"] and stored["files"]["scraped/twice.jsonl"]["shared"]
    os.remove(data / "scraped" / "twice.jsonl")
    assert not _refresh(isolated_kb).get("incremental")
    assert_same(isolated_kb, _full(tmp_path))


def test_local_rows_are_kept_as_a_full_refresh_keeps_them(data, isolated_kb, tmp_path):
    build.build(str(isolated_kb))
    ingest_records(str(isolated_kb), [probe_run("mine-1", version="0.2.0"),
                                      op_status("aten::silu", "fallback", version="0.2.0", kind="live_probe",
                                                name="probe", run="mine-1")], source_name="probe:mine-1")
    assert build.holds_local_rows(str(isolated_kb))
    other = tmp_path / "other.sqlite"
    shutil.copy(isolated_kb, other)
    CHANGES["edit a probe"](data)
    CHANGES["add a file"](data)
    assert _refresh(isolated_kb).get("incremental")
    build.refresh(str(other))  # the full refresh in place
    assert_same(isolated_kb, other)
    conn = db.open_kb(str(isolated_kb))
    assert conn.execute("SELECT count(*) FROM observation WHERE probe_run_id = 'mine-1'").fetchone()[0] == 1


def test_a_local_scrape_of_a_shipped_source_is_refreshed_whole(data, isolated_kb):
    build.build(str(isolated_kb))
    ingest_records(str(isolated_kb), [op_status("aten::relu", "fallback", target="tpu", version="0.2.0",
                                                name="tpu-doc", at="2026-11-20T00:00:00+00:00")],
                   source_name="tpu-doc")
    CHANGES["edit a row"](data)
    assert not _refresh(isolated_kb).get("incremental")


def test_an_interrupted_refresh_leaves_the_old_kb_usable(data, isolated_kb, monkeypatch):
    build.build(str(isolated_kb))
    before = snapshot(isolated_kb)
    CHANGES["edit a row"](data)

    def broken(*args, **kwargs):
        raise KeyboardInterrupt  # killed halfway: rows deleted and written, verdicts not yet

    monkeypatch.setattr(support, "rebuild", broken)
    with pytest.raises(KeyboardInterrupt):
        db.open_kb(str(isolated_kb))
    assert snapshot(isolated_kb) == before  # nothing of the refresh was kept
    conn = sqlite3.connect(isolated_kb)
    assert conn.execute("SELECT s.status FROM support s JOIN release r ON r.id = s.release_id WHERE r.version = "
                        "'0.1.0' AND s.op = 'aten::silu' AND s.target = 'neuron' AND s.mode = 'eager'"
                        ).fetchall() == [("fallback",)]
    monkeypatch.undo()
    monkeypatch.setenv("KB_DATA_DIR", str(data))
    monkeypatch.setenv("KB_DB", str(isolated_kb))
    verdicts = queries.op_verdicts(db.open_kb(str(isolated_kb)), ["aten::silu"], "neuron")
    assert "native" in {v["status"] for v in verdicts}  # the next open refreshes it after all


def test_a_refresh_that_fails_its_reference_check_rolls_back_and_rebuilds(data, isolated_kb, tmp_path, monkeypatch):
    build.build(str(isolated_kb))
    CHANGES["edit a row"](data)

    def dangling(raw):
        raise incremental.Fallback("as if a verdict pointed at a deleted row")

    monkeypatch.setattr(incremental, "check_references", dangling)
    assert incremental.refresh(str(isolated_kb), build.record_files()) is None  # rolled back: a full rebuild follows
    assert not db.is_current(str(isolated_kb))
    assert not _refresh(isolated_kb).get("incremental")
    assert_same(isolated_kb, _full(tmp_path))


def test_the_digests_are_the_data_digest(data):
    from kb.store import dbfile

    digest, files = incremental.file_digests()
    assert digest == dbfile.data_digest()
    assert "manual/facts.jsonl" in files and "replay/kernels.csv" in files


def test_a_kb_without_the_map_is_rebuilt_whole(data, isolated_kb):
    build.build(str(isolated_kb))
    conn = sqlite3.connect(isolated_kb)
    conn.execute("DELETE FROM kbmeta WHERE key = ?", (incremental.MAP_KEY,))
    conn.commit()
    conn.close()
    CHANGES["edit a row"](data)
    assert not _refresh(isolated_kb).get("incremental")


@pytest.mark.heavy
def test_the_shipped_data_refreshed_after_an_edit_equals_its_full_rebuild(tmp_path, monkeypatch):
    """The real data/: one fact of the TorchNeuron snapshot edited, a row of the XLA op list
    dropped, one doc rule's summary edited."""
    copy = tmp_path / "data"
    shutil.copytree(REPO / "data", copy)
    monkeypatch.setenv("KB_DATA_DIR", str(copy))
    kb_path = tmp_path / "kb.sqlite"
    build.build(str(kb_path))
    edited = []

    def one_note(row):
        if row["record"] == "op_status" and not edited:
            edited.append(row["op"])
            return {**row, "note": (row.get("note") or "") + " (edited)", "status": "fallback"}
        return row

    _edit(copy / "manual" / "torchneuron-dev-snapshot.jsonl", one_note)
    _edit(copy / "scraped" / "neuron-xla-op-list.jsonl", lambda r: None if r.get("op") == "aten::add.Tensor" else r)
    rules = []

    def one_rule(row):
        if not rules:
            rules.append(row["rule_id"])
            return {**row, "summary": row["summary"] + " (edited)"}
        return row

    _edit(copy / "rules" / "torchneuron-supported-operators.jsonl", one_rule)
    assert paths.data_dir() == str(copy)
    result = _refresh(kb_path)
    assert result.get("incremental") and 0 < result["pairs"] < 200, result
    assert_same(kb_path, _full(tmp_path))


def test_verdicts_do_not_depend_on_the_order_rows_are_read_in(data, isolated_kb):
    """Ties (same source, same retrieval) go to a row chosen by content, not by insertion
    order, which the incremental refresh changes."""
    write_records(data / "scraped" / "ties.jsonl", [
        op_status("aten::relu", "native", target="tpu", version="0.2.0", name="tie", dtypes=["float32"]),
        op_status("aten::relu", "fallback", target="tpu", version="0.2.0", name="tie", dtypes=["int64"]),
        op_status("aten::relu", "native", target="tpu", version="0.2.0", name="tie2"),
    ])
    build.build(str(isolated_kb))
    raw = sqlite3.connect(isolated_kb)
    observations = support.current_observations(raw)
    forward = support.derive(observations)
    backward = support.derive(list(reversed(observations)))
    key = lambda row: (row["op"], row["target"], row["release_id"], row["mode"])  # noqa: E731
    assert sorted(forward, key=key) == sorted(backward, key=key)


def test_a_second_refresh_of_the_same_change_finds_nothing_to_do(data, isolated_kb, tmp_path):
    build.build(str(isolated_kb))
    CHANGES["edit a row"](data)
    assert incremental.refresh(str(isolated_kb), build.record_files())["pairs"] == 1
    again = incremental.refresh(str(isolated_kb), build.record_files())  # as a second kb that waited for the lock would
    assert again["incremental"] and again["pairs"] == 0 and again["files"] == 0
    assert_same(isolated_kb, _full(tmp_path))


def test_a_local_row_on_a_removed_probe_run_hands_over_to_the_full_refresh(data, isolated_kb):
    build.build(str(isolated_kb))
    conn = sqlite3.connect(isolated_kb)
    conn.execute("INSERT INTO observation (op, target, release_id, mode, status, source_kind, source_name, "
                 "probe_run_id, retrieved_at, ingested_at, origin, fingerprint) SELECT 'aten::relu', 'neuron', "
                 "release_id, 'eager', 'native', 'live_probe', 'mine', run_id, started_at, started_at, 'local', "
                 "'local-1' FROM proberun WHERE run_id = 'run-1'")
    conn.commit()
    conn.close()
    os.remove(data / "probes" / "static.jsonl")
    assert incremental.refresh(str(isolated_kb), build.record_files()) is None  # rolled back: that row would dangle
    assert not db.is_current(str(isolated_kb))


def test_a_refresh_that_would_redo_most_of_the_data_rebuilds_whole(data, isolated_kb, tmp_path, monkeypatch):
    monkeypatch.setattr(incremental, "MIN_WORK", 0)  # the small data counts as large
    build.build(str(isolated_kb))
    CHANGES["edit a probe"](data)  # probes/static.jsonl: well under 40 % of the record bytes
    assert _refresh(isolated_kb).get("incremental")
    for path in data.rglob("*.jsonl"):
        if "ops" not in path.parts:
            path.write_text(path.read_text() + "\n")  # every record file: a full rebuild is faster
    assert not _refresh(isolated_kb).get("incremental")
    assert_same(isolated_kb, _full(tmp_path))


def test_a_malformed_changed_file_is_one_error_and_the_kb_stays_as_it_was(data, isolated_kb):
    from kb.store.writer import IngestError

    build.build(str(isolated_kb))
    before = snapshot(isolated_kb)
    with open(data / "scraped" / "tpu.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"record": "op_status", "op": 1}\n')
    with pytest.raises(IngestError, match="tpu.jsonl"):
        db.open_kb(str(isolated_kb))
    assert snapshot(isolated_kb) == before


def test_the_refresh_writes_the_packed_tables_themselves(data, isolated_kb, tmp_path):
    """Schema 8: the refresh never writes through the views (their triggers go row by row):
    with the triggers dropped it still refreshes, and every kept or new fingerprint is its
    32 bytes again, none left set aside."""
    build.build(str(isolated_kb))
    conn = sqlite3.connect(isolated_kb)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.commit()
    conn.close()
    for change in ("edit a row", "add a file", "delete a file", "edit a family row", "edit a caveat"):
        CHANGES[change](data)
    assert _refresh(isolated_kb).get("incremental")
    conn = sqlite3.connect(isolated_kb)
    assert conn.execute("SELECT count(*) FROM observation_packed WHERE typeof(fingerprint) <> 'blob' "
                        "OR length(fingerprint) <> 32").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM caveat WHERE fingerprint LIKE '~%'").fetchone()[0] == 0
    conn.close()
    assert_same(isolated_kb, _full(tmp_path))  # triggers are not compared: the rows are


def test_a_shipped_observation_restated_by_a_local_ingest_is_refreshed_whole(data, isolated_kb, tmp_path):
    """A local ingest of a fact the shipped data holds moves that row to the ingest's batch
    (schema 8: its origin is the batch's): a full refresh makes it shipped again, so the
    incremental one hands over even when another file changed."""
    build.build(str(isolated_kb))
    same = rec.read_jsonl((data / "scraped" / "tpu2.jsonl").read_text().splitlines())
    ingest_records(str(isolated_kb), same, source_name="a-copy")
    conn = sqlite3.connect(isolated_kb)
    assert conn.execute("SELECT origin FROM observation WHERE source_name = 'tpu-doc-2'").fetchall() == [("local",)]
    conn.close()
    other = tmp_path / "other.sqlite"
    shutil.copy(isolated_kb, other)
    CHANGES["edit a row"](data)
    assert not _refresh(isolated_kb).get("incremental")
    build.refresh(str(other))
    assert_same(isolated_kb, other)
