"""Every verdict says what it rests on and where a decomposed op really runs: evidence vs
inferred (the dispatcher replay) vs presumed (carried forward from an older version)."""

from __future__ import annotations

from kb.store import db, queries, verdict
from kb.store import records as rec
from kb.store.ingest import ingest_records
from tests.conftest import op_status, prov

REPLAY = "https://example.test/kernels.cc"


def _replayed(op, status, version, **detail):
    return rec.OpStatus(op=op, target="tpu", backend_version=version, status=status, mode="eager",
                        provenance=prov(kind="inferred", name="replay", url=REPLAY), detail=detail or None)


def _one(path, op, target, version):
    rows = [r for r in queries.op_verdicts(db.open_kb(str(path)), [op], target, "eager")
            if r["backend_version"] == version]
    assert len(rows) == 1, rows
    return rows[0]


def test_a_decomposed_verdict_runs_where_its_worst_leaf_does(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [
        _replayed("aten::silu", "decomposed", "0.2.0", rule="math", leaves={"aten::relu": "fallback"},
                  effective="fallback", effective_at="aten::relu"),
        _replayed("aten::add.Tensor", "native", "0.2.0", rule="kernel"),
    ], source_name="replay")
    row = _one(isolated_kb, "aten::silu", "tpu", "0.2.0")
    assert (row["status"], row["effective_status"], row["basis"]) == ("decomposed", "fallback", "inferred")
    assert row["effective_via"]["leaf"] == "aten::relu"
    assert verdict.label(row) == "◐ decomposed → ⇄ fallback at aten::relu" + "ⁱ"
    native = _one(isolated_kb, "aten::add.Tensor", "tpu", "0.2.0")
    assert native["effective_status"] == "native" and verdict.runs(native) == "own kernel"


def test_evidence_wins_the_status_and_the_replay_still_says_where_it_runs(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [
        _replayed("aten::silu", "decomposed", "0.2.0", rule="math", leaves={"aten::relu": "native"},
                  effective="decomposed"),
    ], source_name="replay")
    ingest_records(str(isolated_kb), [op_status("aten::silu", "decomposed", target="tpu", version="0.2.0",
                                                kind="doc", name="tpu-doc")], source_name="tpu-doc")
    row = _one(isolated_kb, "aten::silu", "tpu", "0.2.0")
    assert (row["source_kind"], row["basis"], row["effective_status"]) == ("doc", "evidence", "decomposed")
    assert verdict.runs(row) == "leaves on the device" and row["effective_via"]["leaves"] == {"aten::relu": "native"}


def test_untraced_leaves_are_said_to_be_untraced(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [_replayed("aten::silu", "decomposed", "0.2.0", rule="math", leaves=None)],
                   source_name="replay")
    row = _one(isolated_kb, "aten::silu", "tpu", "0.2.0")
    assert row["effective_status"] is None and verdict.runs(row) == "leaves not traced"
    assert verdict.effective_status(row) == "decomposed"


def test_newer_versions_inherit_as_presumed_until_they_have_their_own_word(small_data, isolated_kb):
    releases = [rec.Release(product="torchneuron", version=v, provenance=prov(kind="manual", name="facts"))
                for v in ("0.1.0.dev0", "2.13.3.0", "2.14.3.0")]
    ingest_records(str(isolated_kb), [*releases,
                                      op_status("aten::relu", "native", version="0.1.0.dev0", kind="manual", name="snap"),
                                      op_status("aten::silu", "fallback", version="0.1.0.dev0", kind="manual", name="snap")],
                   source_name="snap")
    for version in ("2.13.3.0", "2.14.3.0"):
        row = _one(isolated_kb, "aten::relu", "neuron", version)
        assert (row["status"], row["basis"]) == ("native", "presumed")
        assert row["effective_via"]["presumed_from"] == "0.1.0.dev0" and "presumed from 0.1.0.dev0" in row["note"]
    assert _one(isolated_kb, "aten::relu", "neuron", "0.1.0.dev0")["basis"] == "evidence"
    ingest_records(str(isolated_kb), [op_status("aten::relu", "fallback", version="2.14.3.0", kind="doc", name="d")],
                   source_name="d")
    assert _one(isolated_kb, "aten::relu", "neuron", "2.14.3.0")["basis"] == "evidence"  # its own word wins
    assert _one(isolated_kb, "aten::relu", "neuron", "2.13.3.0")["basis"] == "presumed"
    note = queries.basis_note(db.open_kb(str(isolated_kb)), "neuron", "2.13.3.0")
    assert "presumed from 0.1.0.dev0" in note
