"""A report file someone hands to `kb ingest` is a local report: whatever its lines claim
to be, they are stored and shown as the file they came from, and they never outrank
shipped vendor evidence unless the user says --prefer-local."""

import json
import sqlite3

import pytest

from kb.store import db, queries, verdict
from kb.store import records as rec
from kb.store.ingest import IngestError, ingest_jsonl
from tests.conftest import op_status, probe_run, run_kb, write_records

VENDOR_URL = "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/frameworks/torch/ops.html"


@pytest.fixture
def shipped(small_data):
    """data/ with one vendor statement: aten::add.Tensor native on neuron 2.14.3.0 (a manual restatement)."""
    write_records(small_data / "manual" / "vendor-ops.jsonl", [
        op_status("aten::add.Tensor", "native", kind="manual", name="vendor-op-table", url=VENDOR_URL),
    ])
    return small_data


def _forged_line(**over) -> str:
    """What an attacker writes: the vendor's own kind, name and URL, a newer retrieval date."""
    line = {"record": "op_status", "op": "aten::add.Tensor", "target": "neuron", "backend_version": "2.14.3.0",
            "status": "unsupported", "mode": "eager",
            "provenance": {"source_kind": "manual", "source_name": "vendor-op-table", "source_url": VENDOR_URL,
                           "retrieved_at": "2030-01-01T00:00:00+00:00"}}
    line.update(over)
    return json.dumps(line)


def _neuron_eager(conn):
    (row,) = [v for v in queries.op_verdicts(conn, ["aten::add.Tensor"], "neuron") if v["mode"] == "eager"]
    return row


def test_a_forged_vendor_line_is_stored_as_the_local_file_it_came_from(shipped, isolated_kb, tmp_path):
    report = tmp_path / "handed-over.jsonl"
    report.write_text(_forged_line() + "\n")
    ingest_jsonl(str(isolated_kb), str(report))
    conn = db.open_kb(str(isolated_kb))
    row = dict(conn.execute("SELECT * FROM observation WHERE origin = 'report'").fetchone())
    assert (row["source_kind"], row["source_name"], row["source_url"]) == (
        "local_report", "local:handed-over.jsonl", None)
    stored = json.loads(row["report"])
    assert stored["file"] == "handed-over.jsonl" and stored["path"] == str(report)
    assert len(stored["sha256"]) == 64 and stored["ingested_at"] and stored["prefer_local"] is False
    assert stored["claimed"] == {"source_kind": "manual", "source_name": "vendor-op-table", "source_url": VENDOR_URL}
    # nothing under the vendor's name but the vendor's own row
    names = {r[0] for r in conn.execute("SELECT DISTINCT origin FROM observation WHERE source_name = 'vendor-op-table'")}
    assert names == {"shipped"}


def test_the_forged_verdict_does_not_outrank_shipped_evidence(shipped, isolated_kb, tmp_path, capsys):
    report = tmp_path / "handed-over.jsonl"
    report.write_text(_forged_line() + "\n")
    code, _, err = run_kb(capsys, "ingest", report, "--db", isolated_kb, "--json")
    assert code == 0, err
    row = _neuron_eager(db.open_kb(str(isolated_kb)))
    assert (row["status"], row["source_kind"], row["source_url"], row["report"]) == (
        "native", "manual", VENDOR_URL, None)
    assert row["disagreement"] and row["sources"]["local:handed-over.jsonl"] == "unsupported"
    code, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "-t", "neuron", "--json", "--db", isolated_kb)
    shown = [r for r in json.loads(out)["ops"][0]["targets"][0]["rows"] if r["mode"] == "eager"]
    assert [(r["status"], r["basis"], r["local_report"]) for r in shown] == [("native", "evidence", None)]


def test_with_prefer_local_the_report_wins_and_every_view_says_it_is_local(shipped, isolated_kb, tmp_path, capsys):
    report = tmp_path / "handed-over.jsonl"
    report.write_text(_forged_line() + "\n")
    code, _, err = run_kb(capsys, "ingest", "--prefer-local", report, "--db", isolated_kb)
    assert code == 0, err
    conn = db.open_kb(str(isolated_kb))
    row = _neuron_eager(conn)
    assert (row["status"], row["basis"], row["source_kind"], row["source_url"]) == (
        "unsupported", "local", "local_report", None)
    assert row["report"]["prefer_local"] is True
    text = verdict.source_text(row)
    assert text.startswith("local report handed-over.jsonl (sha256 ") and row["report"]["sha256"][:12] in text
    assert "claims manual vendor-op-table" in text and VENDOR_URL not in text
    assert verdict.label(row).endswith("ˡ")
    # kb op (table and JSON)
    code, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "-t", "neuron", "--db", isolated_kb)
    line = next(x for x in out.splitlines() if " eager " in x)
    assert "unsupported" in line and "local report handed-over.jsonl" in line and VENDOR_URL not in line
    # kb ask
    code, out, _ = run_kb(capsys, "ask", "--json", "is add.Tensor native on neuron 2.14.3.0?", "--db", isolated_kb)
    answer = json.loads(out)
    assert "local report handed-over.jsonl" in answer["text"]
    assert any(f.get("local_report") for f in answer["facts"])
    assert all(s["url"] != VENDOR_URL for s in answer["sources"] if s.get("local_report"))


def test_the_preference_can_be_taken_back_by_ingesting_again_without_it(shipped, isolated_kb, tmp_path):
    report = tmp_path / "r.jsonl"
    report.write_text(_forged_line() + "\n")
    ingest_jsonl(str(isolated_kb), str(report), prefer_local=True)
    assert _neuron_eager(db.open_kb(str(isolated_kb)))["status"] == "unsupported"
    ingest_jsonl(str(isolated_kb), str(report))
    assert _neuron_eager(db.open_kb(str(isolated_kb)))["status"] == "native"


def test_a_report_cannot_add_to_a_shipped_probe_run(small_data, isolated_kb, tmp_path):
    write_records(small_data / "probes" / "neuron.jsonl", [
        probe_run("shipped-run", kind="static"),
        op_status("aten::relu", "native", kind="static_probe", name="static_probe", run="shipped-run"),
    ])
    report = write_records(tmp_path / "r.jsonl", [
        probe_run("shipped-run", kind="static"),
        op_status("aten::silu", "unsupported", kind="static_probe", name="static_probe", run="shipped-run"),
    ])
    with pytest.raises(IngestError, match="already in the KB"):
        ingest_jsonl(str(isolated_kb), str(report))


def test_a_probe_claim_without_its_run_in_the_file_is_only_a_local_report(small_data, isolated_kb, tmp_path):
    report = write_records(tmp_path / "r.jsonl", [
        op_status("aten::relu", "native", kind="live_probe", name="live_probe", run="someone-elses-run"),
    ])
    ingest_jsonl(str(isolated_kb), str(report))  # the run it names is not in the file: not probe evidence
    conn = sqlite3.connect(isolated_kb)
    conn.row_factory = sqlite3.Row
    row = dict(conn.execute("SELECT source_kind, source_name, probe_run_id, report FROM observation").fetchone())
    assert json.loads(row.pop("report"))["claimed"]["probe_run_id"] == "someone-elses-run"
    assert row == {"source_kind": "local_report", "source_name": "local:r.jsonl", "probe_run_id": None}


def test_a_real_probe_report_stays_probe_evidence_marked_local(small_data, isolated_kb, tmp_path, capsys):
    report = write_records(tmp_path / "trn2.jsonl", [
        probe_run("run-on-my-chip", kind="live"),
        op_status("aten::relu", "fallback", kind="live_probe", name="live_probe", run="run-on-my-chip"),
    ])
    code, _, err = run_kb(capsys, "ingest", report, "--db", isolated_kb)
    assert code == 0, err
    conn = db.open_kb(str(isolated_kb))
    (row,) = queries.op_verdicts(conn, ["aten::relu"], "neuron")
    assert (row["status"], row["source_kind"], row["probe_run_id"], row["basis"]) == (
        "fallback", "live_probe", "run-on-my-chip", "local")
    assert verdict.source_text(row).startswith("local report trn2.jsonl") and "live probe · run run-on-my-chip" in \
        verdict.source_text(row)
    run = dict(conn.execute("SELECT origin, report FROM proberun WHERE run_id = 'run-on-my-chip'").fetchone())
    assert run["origin"] == "report" and json.loads(run["report"])["file"] == "trn2.jsonl"


def test_a_file_url_in_a_report_is_dropped_too(small_data, isolated_kb, tmp_path, capsys):
    data = json.loads(_forged_line(op="aten::relu"))
    data["provenance"]["source_url"] = "file:///etc/passwd"
    report = tmp_path / "f.jsonl"
    report.write_text(json.dumps(data) + "\n")
    code, _, err = run_kb(capsys, "ingest", report, "--db", isolated_kb)
    assert code == 0 and "dropped source URL 'file:///etc/passwd'" in err
    claimed = json.loads(sqlite3.connect(isolated_kb).execute("SELECT report FROM observation").fetchone()[0])["claimed"]
    assert "source_url" not in claimed


def test_a_javascript_url_is_dropped_at_ingest_with_one_warning(small_data, isolated_kb, tmp_path, capsys):
    line = _forged_line(op="aten::relu")
    data = json.loads(line)
    data["provenance"]["source_url"] = "javascript:alert(document.cookie)"
    report = tmp_path / "js.jsonl"
    report.write_text(json.dumps(data) + "\n")
    code, _, err = run_kb(capsys, "ingest", report, "--db", isolated_kb)
    assert code == 0
    warnings = [x for x in err.splitlines() if "dropped" in x]
    assert len(warnings) == 1 and "dropped source URL" in warnings[0] and "js.jsonl:1" in warnings[0]
    conn = sqlite3.connect(isolated_kb)
    urls = [r[0] for r in conn.execute("SELECT source_url FROM observation")]
    claimed = [json.loads(r[0])["claimed"] for r in conn.execute("SELECT report FROM observation")]
    assert urls == [None] and all("javascript" not in json.dumps(c) for c in claimed)


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<script>x</script>", "vbscript:x",
                                 "https://", "JaVaScRiPt:alert(1)", "//evil.example/x"])
def test_a_url_kb_may_not_cite_is_dropped_for_every_source(small_data, isolated_kb, url):
    """Not only from report files: records from scrapers or shipped data never store such a link."""
    from kb.store.ingest import ingest_records

    assert not rec.citable_url(url)
    result = ingest_records(str(isolated_kb), [op_status("aten::relu", "native", url=url)], source_name="s")
    assert [w for w in result["warnings"] if "dropped source URL" in w]
    assert sqlite3.connect(isolated_kb).execute("SELECT source_url FROM observation").fetchall() == [(None,)]


@pytest.mark.parametrize(("dtypes", "why"), [("float32", "list of strings"), ([1, 2], "list of strings"),
                                              (["float32", "<b>x</b>"], "not a dtype name"),
                                              ({"a": 1}, "list of strings")])
def test_dtypes_are_validated_by_type_not_split_into_letters(small_data, isolated_kb, tmp_path, capsys, dtypes, why):
    report = tmp_path / "d.jsonl"
    report.write_text(_forged_line(dtypes=dtypes) + "\n")
    code, out, err = run_kb(capsys, "ingest", report, "--db", isolated_kb)
    assert code == 2 and err.count("\n") == 1 and why in err and "d.jsonl:1" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("field", "value"), [("note", ["a", "list"]), ("conditions", "p=2"), ("op", 7),
                                              ("detail", [1])])
def test_other_structured_fields_are_validated_by_type(field, value):
    data = json.loads(_forged_line(**{field: value}))
    with pytest.raises(rec.RecordError, match=field):
        rec.from_dict(data)


def test_a_dtype_list_keeps_its_words():
    data = json.loads(_forged_line(dtypes=["float32", "bfloat16"]))
    assert rec.from_dict(data).dtypes == ("bfloat16", "float32")


def test_mcp_and_the_slack_bot_mark_the_local_verdict(shipped, isolated_kb, tmp_path):
    from kb.chat.answer import answer
    from kb.chat.bot import answer_blocks
    from kb.chat.mcp_server import op_status_data

    report = tmp_path / "handed-over.jsonl"
    report.write_text(_forged_line() + "\n")
    ingest_jsonl(str(isolated_kb), str(report), prefer_local=True)
    conn = db.open_kb(str(isolated_kb))
    (op,) = op_status_data(conn, "aten::add.Tensor", target="neuron")["ops"]
    (row,) = [v for v in op["verdicts"] if v["mode"] == "eager"]
    assert row["basis"] == "local" and row["local_report"]["file"] == "handed-over.jsonl"
    assert row["source"].startswith("local report handed-over.jsonl") and row["source_url"] is None
    blocks = json.dumps(answer_blocks(answer("is add.Tensor native on neuron 2.14.3.0?", conn=conn)))
    assert "local report handed-over.jsonl" in blocks


def test_a_report_for_a_newer_version_does_not_displace_the_presumed_verdict(shipped, isolated_kb, tmp_path):
    """Shipped says native for 2.14.3.0 and knows release 2.15.0.0; a file says unsupported
    for 2.15.0.0, which the KB otherwise presumes from 2.14.3.0. Without --prefer-local, the
    presumption stands and the file's word sits beside it; with the flag, the file wins."""
    write_records(shipped / "manual" / "releases.jsonl", [rec.Release(
        product="torchneuron", version="2.15.0.0",
        provenance=rec.Provenance(source_kind="release_notes", source_name="rn", source_url="https://vendor.example/rn"))])
    report = tmp_path / "newer.jsonl"
    report.write_text(_forged_line(backend_version="2.15.0.0") + "\n")
    ingest_jsonl(str(isolated_kb), str(report))
    conn = db.open_kb(str(isolated_kb))
    (row,) = [v for v in queries.op_verdicts(conn, ["aten::add.Tensor"], "neuron")
              if v["backend_version"] == "2.15.0.0" and v["mode"] == "eager"]
    assert (row["status"], row["basis"], row["report"]) == ("native", "presumed", None)
    assert row["disagreement"] and row["sources"]["local:newer.jsonl"] == "unsupported"
    ingest_jsonl(str(isolated_kb), str(report), prefer_local=True)
    (row,) = [v for v in queries.op_verdicts(db.open_kb(str(isolated_kb)), ["aten::add.Tensor"], "neuron")
              if v["backend_version"] == "2.15.0.0" and v["mode"] == "eager"]
    assert (row["status"], row["basis"]) == ("unsupported", "local")


def test_a_version_only_a_report_names_gets_no_presumed_verdicts(shipped, isolated_kb, tmp_path):
    report = tmp_path / "phantom.jsonl"
    report.write_text(_forged_line(op="aten::relu", backend_version="99.0") + "\n")
    ingest_jsonl(str(isolated_kb), str(report))
    conn = db.open_kb(str(isolated_kb))
    at_99 = [v for v in queries.op_verdicts(conn, ["aten::add.Tensor", "aten::relu"], "neuron")
             if v["backend_version"] == "99.0"]
    assert [(v["op"], v["basis"]) for v in at_99] == [("aten::relu", "local")]


def test_a_local_report_never_sets_the_kbs_as_of_date(small_data, isolated_kb, tmp_path, capsys):
    """A report may claim any retrieval date (2099): "as of" and the stale-data notice
    rest on shipped and self-made data only."""
    from kb.store import db, queries
    from tests.conftest import op_status, run_kb, write_records

    report = write_records(tmp_path / "future.jsonl",
                           [op_status("aten::relu", "unsupported", at="2099-01-01T00:00:00+00:00")])
    code, out, err = run_kb(capsys, "ingest", report)
    assert code == 0, err
    days = queries.compute_data_as_of(db.open_kb(str(isolated_kb)))
    assert all(day < "2099" for day in days.values()), days


def test_a_claimed_live_probe_whose_link_is_dropped_is_shown_as_its_claim(shipped, isolated_kb, tmp_path):
    """t26b #10: a line claiming `live_probe` with a javascript: link is stored as the local
    report it is, and shown as "claims live_probe …", not "claims local_report …"."""
    report = tmp_path / "evil.jsonl"
    report.write_text(_forged_line(provenance={"source_kind": "live_probe", "source_name": "evil",
                                               "source_url": "javascript:alert(1)"}) + "\n")
    ingest_jsonl(str(isolated_kb), str(report), prefer_local=True)
    conn = db.open_kb(str(isolated_kb))
    row = dict(conn.execute("SELECT * FROM observation WHERE origin = 'report'").fetchone())
    assert row["source_kind"] == "local_report" and json.loads(row["report"])["claimed"] == {
        "source_kind": "live_probe", "source_name": "evil"}
    text = verdict.source_text(_neuron_eager(conn))
    assert "claims live_probe evil" in text and "javascript" not in text
