"""Ingest: transactional, idempotent, provenance kept, reports portable between machines."""

import sqlite3

import pytest

from kb.store import db, queries
from kb.store import records as rec
from kb.store.ingest import IngestError, ingest_jsonl, ingest_records
from tests.conftest import op_status, probe_run, prov, write_records


def _count(path, table):
    return sqlite3.connect(path).execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_records_round_trip_with_full_provenance(small_data, isolated_kb):
    records = [
        rec.Release(product="torchneuron", version="2.14.3.0", date="2026-10-19", sdk_version="2.33.0",
                    torch_versions=("2.14.0",), python_versions=("3.12", "3.13"), provenance=prov()),
        op_status("aten::add.Tensor", "native", dtypes=["float32", "bfloat16"]),
        rec.Limitation(target="neuron", product="neuron-sdk", version="2.33.0", feature="torch.sparse",
                       status="unsupported", provenance=prov()),
        rec.SupportWindow(product="python", cycle="3.9", eol="2026-12-01", eol_kind="announced", provenance=prov()),
    ]
    report = ingest_records(str(isolated_kb), records, source_name="doc", content_sha256="sha-1")
    assert report["added"] == 3 and not report["unchanged"]
    assert report["changes"][0]["new"] == "native"
    assert "torchneuron 2.14.3.0" in report["new_releases"]
    conn = db.open_kb(str(isolated_kb))
    (verdict,) = queries.op_verdicts(conn, ["aten::add.Tensor"])
    assert verdict["dtypes"] == ["bfloat16", "float32"]
    assert (verdict["source_kind"], verdict["source_url"], verdict["retrieved_at"]) == (
        "doc", "https://example.test/doc", "2026-11-01T00:00:00+00:00")
    obs = dict(conn.execute("SELECT content_sha256, source_name FROM observation").fetchone())
    assert obs == {"content_sha256": "sha-1", "source_name": "test-doc"}
    release = dict(conn.execute("SELECT * FROM release WHERE product = 'torchneuron'").fetchone())
    assert release["date"] == "2026-10-19" and release["sdk_version"] == "2.33.0"


def test_same_content_twice_is_a_no_op(small_data, isolated_kb):
    batch = [op_status("aten::relu", "native")]
    ingest_records(str(isolated_kb), batch, source_name="doc", content_sha256="abc")
    again = ingest_records(str(isolated_kb), batch, source_name="doc", content_sha256="abc")
    assert again["unchanged"] is True
    assert _count(isolated_kb, "observation") == 1 and _count(isolated_kb, "ingestrun") == 1


def test_the_same_fact_is_stored_once_even_without_a_hash(small_data, isolated_kb):
    batch = [op_status("aten::relu", "native")]
    ingest_records(str(isolated_kb), batch, source_name="doc")
    report = ingest_records(str(isolated_kb), batch, source_name="doc")
    assert report["added"] == 0 and report["changes"] == []
    assert _count(isolated_kb, "observation") == 1


def test_a_bad_record_leaves_the_kb_exactly_as_it_was(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [op_status("aten::relu", "native")], source_name="doc")
    before = {t: _count(isolated_kb, t) for t in ("observation", "support", "release", "ingestrun")}
    bad = [op_status("aten::silu", "native"), op_status("aten::nonzero", "native", target="no-such-target")]
    with pytest.raises(IngestError, match="unknown target 'no-such-target'.*KB unchanged"):
        ingest_records(str(isolated_kb), bad, source_name="doc2")
    assert {t: _count(isolated_kb, t) for t in before} == before


def test_release_conflicts_are_kept_visible(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [rec.Release(product="neuron-sdk", version="2.32.0", date="2026-08-21",
                                                  provenance=prov(url="https://a.test"))], source_name="a")
    ingest_records(str(isolated_kb), [rec.Release(product="neuron-sdk", version="2.32.0", date="2026-08-20",
                                                  provenance=prov(url="https://b.test"))], source_name="b")
    row = db.open_kb(str(isolated_kb)).execute("SELECT date, conflicts FROM release WHERE version='2.32.0'").fetchone()
    assert row["date"] == "2026-08-21"
    assert '"2026-08-20"' in row["conflicts"] and "https://b.test" in row["conflicts"]


def test_a_probe_report_moves_between_machines_as_jsonl(small_data, isolated_kb, tmp_path):
    report = write_records(tmp_path / "report.jsonl", [
        probe_run("run-7", kind="static", target="tpu", version="0.2.0"),
        op_status("aten::nonzero", "fallback", target="tpu", version="0.2.0", kind="static_probe",
                  name="static_probe", run="run-7"),
    ])
    first = ingest_jsonl(str(isolated_kb), str(report))
    second = ingest_jsonl(str(isolated_kb), str(report))
    assert first["added"] == 1 and second["unchanged"] is True
    conn = db.open_kb(str(isolated_kb))
    assert queries.support_map(conn, "tpu")["aten::nonzero"]["probe_run_id"] == "run-7"
    assert conn.execute("SELECT host FROM proberun").fetchone()[0] == "test-host"


@pytest.mark.parametrize("content, message", [
    ("not json\n", "report.jsonl:1: not JSON"),
    ('{"record": "op_status", "op": "aten::relu"}\n', "report.jsonl:1: op_status"),
    ('{"record": "mystery"}\n', "unknown record type"),
    ("", "no records"),
])
def test_bad_reports_name_the_file_and_line(small_data, isolated_kb, tmp_path, content, message):
    path = tmp_path / "report.jsonl"
    path.write_text(content)
    with pytest.raises(IngestError, match=message):
        ingest_jsonl(str(isolated_kb), str(path))


def test_records_refuse_bad_values():
    with pytest.raises(rec.RecordError, match="unknown status"):
        op_status("aten::relu", "partial")
    with pytest.raises(rec.RecordError, match="backend version is required"):
        op_status("aten::relu", "native", version="")
    with pytest.raises(rec.RecordError, match="canonical"):
        op_status("relu", "native")
    with pytest.raises(rec.RecordError, match="source URL or a probe run id"):
        rec.Provenance(source_kind="doc", source_name="x")
