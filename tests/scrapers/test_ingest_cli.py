"""`kb ingest` at the parse level: argument checks, --from-file folders and files,
--dry-run, --out (sorted JSONL), --list, and storage through kb.store.ingest when present."""

import json

import pytest

from cli.entry import main
from kb.store.records import read_jsonl

FOLDER_SOURCES = {"neuron-xla-op-list", "neuron-inf1-op-history", "neuron-release-notes", "neuron-sdk-manifest",
                  "neuron-eos-announcements"}


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_nothing_to_do_is_an_error(capsys):
    code, _, err = run(capsys, "ingest")
    assert code == 2 and "nothing to ingest" in err


def test_unknown_source(capsys):
    code, _, err = run(capsys, "ingest", "--source", "nope", "--dry-run")
    assert code == 2 and "unknown source 'nope'" in err and "neuron-release-notes" in err


def test_list(capsys):
    code, out, _ = run(capsys, "ingest", "--list", "--json")
    assert code == 0 and "torchneuron-op-table" in {row["source"] for row in json.loads(out)["sources"]}


def test_dry_run_over_a_docs_folder(capsys, neuron_docs_fixture):
    code, out, err = run(capsys, "ingest", "--all", "--from-file", str(neuron_docs_fixture), "--dry-run", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert {r["source"] for r in data["results"]} == FOLDER_SOURCES
    assert "torchneuron-op-table: skipped" in err
    by = {r["source"]: r for r in data["results"]}
    assert by["neuron-xla-op-list"]["records"] == {"op_status": 5}


def test_single_file_source(capsys, fixture_text, tmp_path):
    path = tmp_path / "torch_api_compatibility.md"
    path.write_text(fixture_text("torch_api_compatibility.md"))
    code, out, _ = run(capsys, "ingest", "--source", "torchneuron-op-table", "--from-file", str(path), "--dry-run")
    assert code == 0 and "torchneuron-op-table" in out and "op_status" in out


def test_scrape_error_is_one_line_and_exit_2(capsys, fixture_text, tmp_path):
    path = tmp_path / "torch_api_compatibility.md"
    path.write_text(fixture_text("torch_api_compatibility_changed.md"))
    code, _, err = run(capsys, "ingest", "--source", "torchneuron-op-table", "--from-file", str(path), "--dry-run")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"{path}: no operator table among the headers found: ['Kernel', 'Works?', 'Precision']" in err


def test_out_writes_sorted_jsonl(capsys, neuron_docs_fixture, tmp_path):
    out_dir = tmp_path / "scraped"
    code, _, err = run(capsys, "ingest", "--source", "neuron-eos-announcements", "--from-file",
                       str(neuron_docs_fixture), "--out", str(out_dir))
    assert code == 0, err
    lines = (out_dir / "neuron-eos-announcements.jsonl").read_text().splitlines()
    assert lines == sorted(lines) and len(lines) == 5
    records = list(read_jsonl(lines))
    assert records[0].provenance.source_url.startswith("https://awsdocs-neuron.readthedocs-hosted.com/en/latest/")


def test_missing_report_file(capsys, tmp_path):
    code, _, err = run(capsys, "ingest", str(tmp_path / "absent.jsonl"))
    assert code == 2 and "absent.jsonl: no such file" in err


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_ingest_into_kb_when_storage_exists(capsys, neuron_docs_fixture, tmp_path):
    db = str(tmp_path / "kb.sqlite")
    args = ("ingest", "--source", "neuron-xla-op-list", "--from-file", str(neuron_docs_fixture), "--db", db, "--json")
    code, out, err = run(capsys, *args)
    assert code == 0, err
    first = json.loads(out)["results"][0]
    assert first["source"] == "neuron-xla-op-list" and first["added"] >= 5
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert json.loads(out)["results"][0]["unchanged"] is True


def test_offline_without_cache_fails_clearly(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    code, _, err = run(capsys, "ingest", "--source", "torch-tpu-pypi", "--offline", "--dry-run")
    assert code == 2 and "not in the HTTP cache" in err and "pypi.org" in err


@pytest.mark.heavy
def test_refetch_of_unchanged_pages_is_a_no_op(capsys, tmp_path, monkeypatch, server, neuron_docs_fixture):
    """Online path end to end: the second run revalidates (304) and ingest reports no change."""
    import dataclasses

    from scrapers import registry
    from tests.scrapers.conftest import Reply

    page = server.route("/ops.html", Reply(body=(neuron_docs_fixture / "frameworks/torch/torch-neuronx/"
                                                 "pytorch-neuron-supported-operators.rst").read_text(),
                                           headers={"ETag": '"p1"'}))
    manifest = server.route("/n2-manifest.json", Reply(body=(neuron_docs_fixture / "src/helperscripts/n2-manifest.json")
                                                       .read_text(), headers={"ETag": '"m1"'}))
    source = dataclasses.replace(registry.SOURCES["neuron-xla-op-list"], urls=(page, manifest))
    monkeypatch.setitem(registry.SOURCES, "neuron-xla-op-list", source)
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    db = str(tmp_path / "kb.sqlite")
    args = ("ingest", "--source", "neuron-xla-op-list", "--db", db, "--json")
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert json.loads(out)["results"][0]["added"] == 5
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert json.loads(out)["results"][0]["unchanged"] is True
    assert server.hits("/ops.html")[-1].get("if-none-match") == '"p1"'


def test_dry_run_reads_report_files_without_storing(capsys, tmp_path):
    from kb.store.records import OpStatus, Provenance, write_jsonl

    report = tmp_path / "report.jsonl"
    prov = Provenance(source_kind="static_probe", source_name="static_probe", probe_run_id="run-1")
    with open(report, "w") as handle:
        write_jsonl([OpStatus(op="aten::add.Tensor", target="tpu", backend_version="0.2.0", status="native",
                              provenance=prov)], handle)
    db = tmp_path / "kb.sqlite"
    code, out, err = run(capsys, "ingest", str(report), "--dry-run", "--db", str(db), "--json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["records"] == {"op_status": 1}
    assert not db.exists()
