"""#26: `kb replay` of a spec whose run the KB ships (the README's tour) reproduces shipped rows;
ingesting them would restate them as local rows, and every later data/ change would then be a
full rebuild. kb.store.ingest.held_as_shipped tells such a run apart, so nothing is written."""

from __future__ import annotations

import sqlite3

from kb.store import build, db
from kb.store.ingest import held_as_shipped, ingest_replay
from tests.conftest import op_status, probe_run, write_records

RUN = "replay-tpu-0.1.1-test"


def _records(status="native"):
    return [probe_run(RUN, kind="replay", target="tpu", version="0.1.1"),
            op_status("aten::relu", status, target="tpu", version="0.1.1", kind="inferred", name="replay", run=RUN)]


def test_a_replay_the_kb_ships_as_it_is_is_not_ingested_again(small_data, isolated_kb):
    write_records(small_data / "inferred" / "replay.jsonl", _records())
    db.open_kb(str(isolated_kb)).close()
    assert held_as_shipped(str(isolated_kb), _records())
    assert ingest_replay(str(isolated_kb), _records(), RUN)["shipped"] is True
    assert not build.holds_local_rows(str(isolated_kb))


def test_a_replay_that_differs_or_is_not_shipped_is_ingested(small_data, isolated_kb):
    write_records(small_data / "inferred" / "replay.jsonl", _records())
    db.open_kb(str(isolated_kb)).close()
    assert not held_as_shipped(str(isolated_kb), _records("fallback"))  # one verdict differs
    other = [probe_run("replay-other", kind="replay", target="tpu", version="0.1.1")]
    assert not held_as_shipped(str(isolated_kb), other)  # a run the KB does not ship
    conn = sqlite3.connect(isolated_kb)
    assert conn.execute("SELECT count(*) FROM proberun WHERE run_id = ?", (RUN,)).fetchone()[0] == 1
    assert "shipped" not in ingest_replay(str(isolated_kb), _records("fallback"), RUN)  # ingested, as local
    assert build.holds_local_rows(str(isolated_kb))
