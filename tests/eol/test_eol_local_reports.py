"""A report file given to `kb ingest` cannot move a shipped end of support: an ended
Python stays ended for the `kb eol --stack … --within` gate, a release only the file
states ships nothing, unless the user ingested it with --prefer-local."""

import json

import pytest

from kb.store import records as rec
from tests.conftest import run_kb, write_records
from tests.eol.eol_fixtures import base_records


@pytest.fixture
def kb(small_data, isolated_kb, monkeypatch):
    write_records(small_data / "manual" / "eol.jsonl", base_records())  # shipped: python 3.9 ends 2026-12-15
    monkeypatch.setenv("KB_TODAY", "2026-12-20")  # ... so it has ended
    return isolated_kb


def _report(tmp_path, records, name="support.jsonl"):
    lines = [json.dumps(rec.to_dict(r)) for r in records]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _forged_window():
    """The vendor's URL and kind, a newer statement: Python 3.9 supported until 2099."""
    return rec.SupportWindow(product="python", cycle="3.9", eol="2099-01-01", eol_kind="announced",
                             statement_date="2030-01-01",
                             provenance=rec.Provenance(source_kind="doc", source_name="neuron-eos",
                                                       source_url="https://example.test/eos",
                                                       retrieved_at="2030-01-01T00:00:00+00:00"))


def test_an_ended_python_is_not_passed_by_a_local_line(kb, tmp_path, capsys):
    gate = ("eol", "--stack", "python=3.9", "--within", "90d", "--json", "--db", kb)
    code, out, _ = run_kb(capsys, *gate)
    assert code == 1 and json.loads(out)["issues"][0]["kind"] == "ended"
    code, _, err = run_kb(capsys, "ingest", _report(tmp_path, [_forged_window()]), "--db", kb)
    assert code == 0, err
    code, out, _ = run_kb(capsys, *gate)
    assert code == 1 and json.loads(out)["issues"][0]["kind"] == "ended"
    window = next(w for w in json.loads(out)["windows"] if w["cycle"] == "3.9")
    assert window["eol_from"] == "2026-12-15" and window["local_report"] is None


def test_with_prefer_local_the_file_wins_and_says_it_is_local(kb, tmp_path, capsys):
    code, _, err = run_kb(capsys, "ingest", "--prefer-local", _report(tmp_path, [_forged_window()]), "--db", kb)
    assert code == 0, err
    code, out, _ = run_kb(capsys, "eol", "--stack", "python=3.9", "--within", "90d", "--json", "--db", kb)
    window = next(w for w in json.loads(out)["windows"] if w["cycle"] == "3.9")
    assert code == 0 and window["eol_from"] == "2099-01-01"
    assert window["source_kind"] == "local_report" and window["source_url"] is None
    assert window["local_report"]["file"] == "support.jsonl" and window["local_report"]["prefer_local"] is True
    code, out, _ = run_kb(capsys, "eol", "python", "--db", kb)
    assert "local report support.jsonl" in out


def test_a_release_only_a_report_states_ships_nothing(kb, tmp_path, capsys):
    """Python 3.10 ends "with Neuron 2.35"; a file claiming 2.35 shipped long ago does not end it."""
    fake = rec.Release(product="neuron-sdk", version="2.35.0", date="2020-01-01", sdk_version="2.35.0",
                       provenance=rec.Provenance(source_kind="release_notes", source_name="neuron-rn",
                                                 source_url="https://example.test/rn"))
    code, _, err = run_kb(capsys, "ingest", _report(tmp_path, [fake]), "--db", kb)
    assert code == 0, err
    code, out, _ = run_kb(capsys, "eol", "python", "--json", "--db", kb)
    window = next(w for w in json.loads(out)["windows"] if w["cycle"] == "3.10")
    assert window["eol_pending"] is True and window["eol_from"] is None


def test_a_report_cannot_rewrite_a_shipped_release(kb, tmp_path, capsys):
    rewrite = rec.Release(product="torchneuron", version="2.14.3.0", python_versions=("3.9",),
                          torch_versions=("2.0.0",), date="2020-01-01",
                          provenance=rec.Provenance(source_kind="release_notes", source_name="neuron-rn",
                                                    source_url="https://example.test/rn"))
    run_kb(capsys, "ingest", _report(tmp_path, [rewrite]), "--db", kb)
    code, out, _ = run_kb(capsys, "eol", "--stack", "neuron=2.33 python=3.13", "--json", "--db", kb)
    assert not [i for i in json.loads(out)["issues"] if i["kind"] == "incompatible"]
    import sqlite3

    row = sqlite3.connect(kb).execute(
        "SELECT date, python_versions, conflicts FROM release WHERE product = 'torchneuron' AND version = '2.14.3.0'"
    ).fetchone()
    assert row == ("2026-10-19", '["3.12", "3.13"]', None)
