"""kb data export: local evidence back to sorted text, which rebuilds the same verdicts."""

import json

from cli.entry import main
from kb.store import db, queries
from kb.store import records as rec
from kb.store.ingest import ingest_records
from tests.conftest import op_status, probe_run, prov


def test_export_then_build_gives_the_same_verdicts(small_data, isolated_kb, tmp_path, monkeypatch, capsys):
    ingest_records(str(isolated_kb), [
        rec.Release(product="torch_tpu", version="0.2.0", date="2026-10", provenance=prov(name="tpu-doc")),
        op_status("aten::add.Tensor", "native", target="tpu", version="0.2.0", name="tpu-doc"),
        rec.Limitation(target="tpu", product="torch_tpu", version="0.2.0", feature="torch.sparse",
                       status="unsupported", provenance=prov(name="tpu-doc")),
        rec.SupportWindow(product="python", cycle="3.10", eol="2026-10-31", eol_kind="announced",
                          provenance=prov(name="tpu-doc")),
    ], source_name="tpu-doc")
    ingest_records(str(isolated_kb), [
        probe_run("run-9", kind="static", target="tpu", version="0.2.0"),
        op_status("aten::relu", "fallback", target="tpu", version="0.2.0", kind="static_probe",
                  name="static_probe", run="run-9", dtypes=["float32"]),
    ], source_name="probe")
    # an older word of the same doc source is history, not exported
    out = tmp_path / "exported"
    assert main(["data", "export", "--out", str(out), "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert files == {"probes/tpu-0.2.0-static.jsonl": 2, "scraped/tpu-doc.jsonl": 4}
    lines = (out / "scraped" / "tpu-doc.jsonl").read_text().splitlines()
    assert lines == sorted(lines)

    before = queries.support_map(db.open_kb(str(isolated_kb)), "tpu")
    # a second machine ships the exported files as its data/
    (out / "ops").mkdir()
    (out / "ops" / "aten.jsonl").write_text((small_data / "ops" / "aten-torch-2.13.0.jsonl").read_text())
    (out / "targets.csv").write_text((small_data / "targets.csv").read_text())
    monkeypatch.setenv("KB_DATA_DIR", str(out))
    other = tmp_path / "other.sqlite"
    after = queries.support_map(db.open_kb(str(other)), "tpu")
    strip = {"retrieved_at"}
    assert {k: {f: v for f, v in row.items() if f not in strip} for k, row in after.items()} == \
        {k: {f: v for f, v in row.items() if f not in strip} for k, row in before.items()}
    assert db.open_kb(str(other)).execute("SELECT origin FROM proberun").fetchone()[0] == "shipped"


def test_export_of_a_shipped_only_kb_writes_nothing(small_data, isolated_kb, tmp_path, capsys):
    assert main(["data", "export", "--out", str(tmp_path / "x")]) == 0
    assert "nothing to export" in capsys.readouterr().err
