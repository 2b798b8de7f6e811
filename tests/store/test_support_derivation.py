"""Precedence, dtype restrictions, disagreements and snapshots, on real KB files."""

import pytest

from kb.store import db, queries
from kb.store.ingest import ingest_records
from tests.conftest import op_status, probe_run


def _verdict(path, op="aten::relu", target="neuron", mode="eager"):
    rows = queries.op_verdicts(db.open_kb(str(path)), [op], target, mode)
    assert len(rows) == 1, rows
    return rows[0]


@pytest.mark.parametrize(
    "kinds, winner",
    [
        (["release_notes", "doc"], "doc"),
        (["doc", "static_probe"], "static_probe"),
        (["static_probe", "live_probe"], "live_probe"),
        (["live_probe", "release_notes", "static_probe", "doc", "inferred"], "live_probe"),
        (["inferred", "release_notes"], "release_notes"),
    ],
)
def test_precedence_picks_the_strongest_evidence(small_data, isolated_kb, kinds, winner):
    statuses = ["native", "fallback", "unsupported", "decomposed", "native"]
    expected = None
    for i, kind in enumerate(kinds):
        status = statuses[i]
        if kind == winner:
            expected = status
        probe = kind.endswith("probe")
        run = f"run-{kind}" if probe else None
        header = [probe_run(run, kind=kind.split("_")[0])] if probe else []
        ingest_records(str(isolated_kb), [*header, op_status("aten::relu", status, kind=kind, name=kind, run=run)],
                       source_name=kind)
    verdict = _verdict(isolated_kb)
    assert (verdict["source_kind"], verdict["status"]) == (winner, expected)
    assert verdict["disagreement"] is (len(set(statuses[: len(kinds)])) > 1)
    assert len(verdict["sources"]) == len(kinds)


def test_equal_rank_newest_retrieval_wins(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [op_status("aten::relu", "fallback", name="doc-a", at="2026-01-01T00:00:00+00:00")],
                   source_name="a")
    ingest_records(str(isolated_kb), [op_status("aten::relu", "native", name="doc-b", at="2026-06-01T00:00:00+00:00")],
                   source_name="b")
    verdict = _verdict(isolated_kb)
    assert (verdict["status"], verdict["source_name"]) == ("native", "doc-b")
    rows = queries.disagreements(db.open_kb(str(isolated_kb)))
    assert [(r["op"], r["sources"]) for r in rows] == [("aten::relu", {"doc-a": "fallback", "doc-b": "native"})]


def test_mixed_dtypes_become_a_structured_restriction(small_data, isolated_kb):
    recs = [
        probe_run("r1"),
        op_status("aten::relu", "native", dtypes=["float32"], kind="live_probe", name="live_probe", run="r1"),
        op_status("aten::relu", "native", dtypes=["bfloat16"], kind="live_probe", name="live_probe", run="r1"),
        op_status("aten::relu", "fallback", dtypes=["int64"], kind="live_probe", name="live_probe", run="r1"),
    ]
    ingest_records(str(isolated_kb), recs, source_name="probe")
    verdict = _verdict(isolated_kb)
    assert verdict["status"] == "native"
    assert verdict["dtypes"] == ["bfloat16", "float32"]
    assert verdict["conditions"] == {"other_dtypes": {"int64": "fallback"}}
    assert verdict["disagreement"] is False  # one source, one statement


def test_a_source_newer_batch_replaces_its_older_word(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [op_status("aten::relu", "fallback", sha="v1")], source_name="doc", content_sha256="v1")
    report = ingest_records(str(isolated_kb), [op_status("aten::relu", "native", sha="v2")], source_name="doc",
                            content_sha256="v2")
    assert report["changes"] == [{"op": "aten::relu", "target": "neuron", "backend_version": "2.14.3.0",
                                  "mode": "eager", "old": "fallback", "new": "native"}]
    verdict = _verdict(isolated_kb)
    assert verdict["status"] == "native" and verdict["disagreement"] is False
    # the history stays: both statements are still observations
    conn = db.open_kb(str(isolated_kb))
    assert conn.execute("SELECT count(*) FROM observation WHERE op = 'aten::relu'").fetchone()[0] == 2


def test_versions_and_modes_are_separate_verdicts(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [
        op_status("aten::relu", "fallback", version="2.13.3.0"),
        op_status("aten::relu", "native", version="2.14.3.0"),
        op_status("aten::relu", "unsupported", version="2.14.3.0", mode="compile"),
    ], source_name="doc")
    conn = db.open_kb(str(isolated_kb))
    got = {(v["backend_version"], v["mode"]): v["status"] for v in queries.op_verdicts(conn, ["aten::relu"])}
    assert got == {("2.13.3.0", "eager"): "fallback", ("2.14.3.0", "eager"): "native",
                   ("2.14.3.0", "compile"): "unsupported"}
    assert queries.latest_release_with_verdicts(conn, "neuron") == "2.14.3.0"
    assert queries.support_map(conn, "neuron", None, "compile")["aten::relu"]["status"] == "unsupported"


def test_a_family_level_fact_covers_the_overloads_its_source_does_not_name(small_data, isolated_kb):
    """Docs lists name `aten::add`; the verdict reaches add.Tensor, add.Scalar, add.out."""
    import dataclasses

    from kb.vocab import FAMILY_GRANULARITY

    family = dataclasses.replace(op_status("aten::add", "native", target="neuron-xla", version="2.9.0"),
                                 detail={"granularity": FAMILY_GRANULARITY})
    own = op_status("aten::add.out", "unsupported", target="neuron-xla", version="2.9.0")
    plain_bare = op_status("aten::nonzero", "fallback", target="neuron-xla", version="2.9.0")
    ingest_records(str(isolated_kb), [family, own, plain_bare], source_name="doc")
    conn = db.open_kb(str(isolated_kb))
    verdicts = queries.support_map(conn, "neuron-xla")
    assert {op: v["status"] for op, v in verdicts.items()} == {
        "aten::add": "native", "aten::add.Tensor": "native", "aten::add.Scalar": "native",
        "aten::add.out": "unsupported",  # the source's own word for that overload stands
        "aten::nonzero": "fallback",
    }
    assert "stated for the op family aten::add" in verdicts["aten::add.Tensor"]["note"]
