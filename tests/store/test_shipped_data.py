"""The shipped KB: built from data/ on first use, answering from real documents' facts."""

import hashlib
import json

from cli.entry import main
from kb.store import db, dbfile, queries
from kb.store import records as rec
from scrapers import reference_facts
from tests.conftest import REPO


def test_first_use_builds_the_shipped_kb_and_answers(isolated_kb, capsys):
    assert main(["op", "aten::add.Tensor", "--json"]) == 0
    captured = capsys.readouterr()
    assert "first use" in captured.err
    (entry,) = json.loads(captured.out)["ops"]
    targets = {v["target"] for v in entry["verdicts"]}
    assert "neuron" in targets
    for verdict in entry["verdicts"]:
        assert verdict["source_kind"] and (verdict["source_url"] or verdict["probe_run_id"])
    conn = db.open_kb(str(isolated_kb))
    assert conn.execute("SELECT count(*) FROM op").fetchone()[0] == 3110
    assert dbfile.meta(conn, "catalog_torch_version") == "2.13.0"


def test_the_dev_snapshot_is_labelled_as_such(isolated_kb):
    conn = db.open_kb(str(isolated_kb))
    release = dict(conn.execute("SELECT * FROM release WHERE version = ?", (reference_facts.SNAPSHOT_VERSION,)).fetchone())
    assert release["channel"] == "pre-release" and "not a Neuron SDK release" in release["note"]
    assert queries.support_map(conn, "neuron", reference_facts.SNAPSHOT_VERSION)["aten::nonzero"]["status"] == "native"


def _facts_without_time(lines):
    out = []
    for line in lines:
        data = json.loads(line)
        data["provenance"].pop("retrieved_at")
        out.append(json.dumps(data, sort_keys=True))
    return sorted(out)


def test_shipped_manual_facts_are_what_the_reference_documents_say(reference):
    """Acceptance: re-reading shared/reference/facts reproduces data/manual exactly."""
    for name, parse, shipped in (
        ("manual-facts.csv", reference_facts.parse_manual_facts, "manual-facts.jsonl"),
        ("torchneuron-dev-snapshot-registered-ops.txt", reference_facts.parse_snapshot_ops,
         "torchneuron-dev-snapshot.jsonl"),
    ):
        text = (reference / "facts" / name).read_text(encoding="utf-8")
        records = parse(text, source_file_url=f"file://shared/reference/facts/{name}", retrieved_at="x",
                        sha256=hashlib.sha256(text.encode()).hexdigest())
        fresh = [rec.dumps(r) for r in records]
        kept = (REPO / "data" / "manual" / shipped).read_text(encoding="utf-8").splitlines()
        assert _facts_without_time(fresh) == _facts_without_time(kept), name
    snapshot = [r for r in records if isinstance(r, rec.OpStatus)]
    assert len(snapshot) == 403


def test_changed_shipped_data_refreshes_and_keeps_local_evidence(small_data, isolated_kb, capsys):
    """A git pull that changes data/ must not lose what this machine probed or ingested."""
    from kb.store.ingest import ingest_records
    from tests.conftest import op_status, write_records

    write_records(small_data / "shipped.jsonl", [op_status("aten::relu", "native", name="shipped-doc")])
    ingest_records(str(isolated_kb), [op_status("aten::silu", "fallback", name="my-doc")], source_name="mine")
    write_records(small_data / "shipped.jsonl", [op_status("aten::relu", "fallback", name="shipped-doc", sha="v2"),
                                                  op_status("aten::nonzero", "native", name="shipped-doc", sha="v2")])
    assert main(["ops", "--target", "neuron", "--json"]) == 0
    captured = capsys.readouterr()
    assert "refreshing the shipped data" in captured.err
    got = {r["op"]: r["status"] for r in json.loads(captured.out)["ops"]}
    assert got == {"aten::relu": "fallback", "aten::nonzero": "native", "aten::silu": "fallback"}


def test_shipped_neuron_releases_reach_234(isolated_kb):
    """Pins the Neuron release registry the shipped data gives (issue 25): SDK 2.33.0 and
    2.34.0 dated from their release notes, and TorchNeuron's releases up to torch-neuronx
    2.14.3.1 (the one a stored page names for Neuron 2.34)."""
    conn = db.open_kb(str(isolated_kb))
    sdk = dict(conn.execute("SELECT version, date FROM release WHERE product = 'neuron-sdk' AND version IN ('2.33.0', '2.34.0')"))
    assert sdk == {"2.33.0": "2026-10-19", "2.34.0": "2026-11-30"}
    native = [r[0] for r in conn.execute("SELECT version FROM release WHERE product = 'torchneuron'")]
    assert sorted(native) == ["0.1.0.dev0+g98154b8", "2.13.3.0", "2.14.3.0", "2.14.3.1"]
    upstream = conn.execute("SELECT count(*) FROM supportwindow WHERE source_name = 'upstream-eol'").fetchone()[0]
    assert upstream == 17  # Python 3.8-3.14, Ubuntu 20.04-26.04, PyTorch 2.9/2.13/2.14, torch_tpu x2, libtpu
