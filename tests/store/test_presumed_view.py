"""Schema 7: a presumed verdict is stored as a reference to the verdict it carries, and the
`support` view writes it out as the whole row kb stored before (note, presumed_from,
sources), so every reader sees the same verdicts; a KB an older kb wrote keeps its
presumed verdicts through the migration."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

from kb.store import db, migrations, support
from kb.store.ingest import ingest_records
from kb.store.queries import version_key
from tests.conftest import op_status

_JSON = ("dtypes", "conditions", "sources", "effective_via", "report")


def _rows(conn, sql="SELECT * FROM support"):
    conn.row_factory = sqlite3.Row
    out = []
    for row in conn.execute(sql):
        item = {k: row[k] for k in row.keys() if k != "id"}
        for key in _JSON:
            if item[key] is not None:
                item[key] = json.loads(item[key])
        out.append(item)
    return sorted(out, key=lambda r: (r["op"], r["target"], r["release_id"], r["mode"]))


def test_the_view_shows_exactly_the_verdicts_the_derivation_makes(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [
        dataclasses.replace(op_status("aten::relu", "native", target="neuron", version="0.1.0.dev0", name="snap"),
                            note="from the list"),
        op_status("aten::silu", "fallback", target="neuron", version="0.1.0.dev0", name="snap"),
        op_status("aten::silu", "native", target="neuron", version="2.14.3.0", name="later"),
    ], source_name="snap")
    conn = db.open_kb(str(isolated_kb))
    raw = sqlite3.connect(str(isolated_kb))
    catalog = [name for (name,) in raw.execute("SELECT name FROM op")]
    derived = support.derive(support.expand_families(support.current_observations(raw), catalog))
    releases = {rid: (p, v) for rid, p, v in raw.execute("SELECT id, product, version FROM release")}
    products = dict(raw.execute("SELECT name, product FROM target"))
    presumed = support.carry_forward(derived, releases, products)
    assert presumed, "the fixture must carry some verdicts forward"
    expected = sorted(({k: v for k, v in row.items() if not k.startswith("_")} for row in derived + presumed),
                      key=lambda r: (r["op"], r["target"], r["release_id"], r["mode"]))
    for row in expected:
        row["disagreement"] = int(row["disagreement"])
    assert _rows(conn) == expected
    stored = raw.execute("SELECT count(*) FROM support_stored").fetchone()[0]
    assert stored == len(derived) and raw.execute("SELECT count(*) FROM support_presumed").fetchone()[0] == len(presumed)
    relu = [r for r in _rows(conn) if r["op"] == "aten::relu" and r["basis"] == "presumed"]
    newest = max(relu, key=lambda r: version_key(releases[r["release_id"]][1]))
    assert newest["note"].startswith("presumed from 0.1.0.dev0 (no word on this op for ") and \
        newest["note"].endswith("; from the list")
    assert newest["effective_via"]["presumed_from"] == "0.1.0.dev0"


def test_a_schema_6_kb_keeps_its_presumed_verdicts(tmp_path):
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    migrations.migrate(conn, upto=6)
    conn.executescript("""
        INSERT INTO target VALUES ('sim', 'Simulated', 'kb-sim', 'sim', 'PrivateUse1', 'kb', NULL);
        INSERT INTO release (id, product, version, source_kind, source_name, retrieved_at)
               VALUES (1, 'kb-sim', '0.1', 'doc', 'd', '2026-01-01'), (2, 'kb-sim', '0.2', 'doc', 'd', '2026-01-01');
        INSERT INTO observation (id, op, target, release_id, mode, status, source_kind, source_name,
                                 retrieved_at, ingested_at, origin, fingerprint)
               VALUES (1, 'aten::relu', 'sim', 1, 'eager', 'fallback', 'doc', 'd', '2026-01-01', '2026-01-01',
                       'local', 'fp-1');
        INSERT INTO support (id, op, target, release_id, mode, status, note, source_kind, source_name,
                             retrieved_at, observation_id, sources, disagreement, basis, effective_status,
                             effective_via)
               VALUES (1, 'aten::relu', 'sim', 1, 'eager', 'fallback', 'slow', 'doc', 'd', '2026-01-01', 1,
                       '{"d": "fallback"}', 0, 'evidence', 'fallback', NULL),
                      (2, 'aten::relu', 'sim', 2, 'eager', 'fallback',
                       'presumed from 0.1 (no word on this op for 0.2); slow', 'doc', 'd', '2026-01-01', 1,
                       '{"d": "fallback", "local:x": "native"}', 1, 'presumed', 'fallback',
                       '{"presumed_from": "0.1"}');
    """)
    conn.commit()
    before = _rows(conn)
    assert migrations.migrate(conn) == [7, 8]
    assert _rows(conn) == before
    assert conn.execute("SELECT count(*) FROM support_stored").fetchone()[0] == 1
    assert [tuple(r) for r in conn.execute("SELECT release_id, from_id, disagreement FROM support_presumed")] == [(2, 1, 1)]
