"""A record's prose is bounded where it is read (report t26b item 4): a 250,000-character
note in a data/ record or a local report is cut to records.PROSE_MAX at ingest (with one
warning line for a report), so kb op (text and --json), the op page and kb ask stay small."""

from __future__ import annotations

import json

import pytest

from kb.store import records as rec
from tests.conftest import op_status, run_kb, write_records

HUGE = 250_000
LIMIT = 3 * rec.PROSE_MAX  # a cut note, shown once, and the rest of the answer


def _huge_note(word: str) -> str:
    return (word + " ") * (HUGE // (len(word) + 1))


@pytest.fixture
def long_notes(small_data, tmp_path):
    data_record = op_status("aten::relu", "native", version="2.14.3.0", name="vendor-page")
    write_records(small_data / "manual" / "long.jsonl",
                  [rec.OpStatus(**{**data_record.__dict__, "note": _huge_note("datanote")})])
    report = tmp_path / "report.jsonl"
    reported = op_status("aten::add.Tensor", "fallback", version="2.14.3.0", kind="local_report", name="mine")
    write_records(report, [rec.OpStatus(**{**reported.__dict__, "note": _huge_note("reportnote")})])
    return report


def test_cut_prose_says_how_long_the_whole_was():
    text = rec.cut_prose("word " * 1000, 100)
    assert len(text) < 160 and text.endswith("(cut at 100 of 5,000 characters)")
    assert rec.cut_prose("short") == "short"


def test_a_huge_note_is_bounded_everywhere(long_notes, capsys, monkeypatch):
    code, out, err = run_kb(capsys, "ingest", long_notes, "--prefer-local")
    assert code == 0, err
    assert "note cut to 2,000 of its" in err and len(err.splitlines()) <= 3, err
    monkeypatch.setenv("COLUMNS", "120")
    code, out, err = run_kb(capsys, "op", "aten::add.Tensor", "-t", "neuron")
    assert code == 0, err
    assert "reportnote" in out and len(out) < LIMIT * 2 and out.count("reportnote") < 600, len(out)
    code, out, err = run_kb(capsys, "op", "aten::relu", "-t", "neuron")
    assert code == 0, err
    assert "datanote" in out and len(out) < LIMIT * 2 and out.count("datanote") < 600, len(out)
    code, out, err = run_kb(capsys, "op", "aten::add.Tensor", "-t", "neuron", "--json")
    assert code == 0, err
    doc = json.dumps(json.loads(out))
    assert len(doc) < LIMIT * 4 and "characters)" in doc, len(doc)
    code, out, err = run_kb(capsys, "ask", "is add native on neuron 2.14.3.0?")
    assert code == 0, err
    assert len(out) < LIMIT * 2, len(out)


@pytest.mark.heavy
def test_the_op_page_is_bounded(long_notes, capsys):
    code, out, err = run_kb(capsys, "ingest", long_notes, "--prefer-local")
    assert code == 0, err
    code, out, err = run_kb(capsys, "serve", "--get", "/-/op?q=aten::add.Tensor")
    assert code == 0, err
    assert "reportnote" in out and len(out) < 150_000 and out.count("reportnote") < 600, len(out)
    code, out, err = run_kb(capsys, "serve", "--get", "/-/op?q=aten::relu")
    assert code == 0, err
    assert "datanote" in out and len(out) < 150_000 and out.count("datanote") < 600, len(out)


def test_a_note_carried_into_a_presumed_row_is_printed_once():
    """`presumed from X (…); NOTE` beside the row NOTE came from: the note once, a `see [N]` for the other."""
    from cli.render import fit_layout

    note = "a long vendor note " * 10
    rows = [["neuron", "2.14.3.1", f"presumed from 0.1.0 (no word on this op for 2.14.3.1); {note}"],
            ["neuron", "0.1.0", note]]
    _layout, cells, footnotes = fit_layout(["target", "version", "note"], rows, 60)
    assert sum(f.count(note) for f in footnotes) == 1, footnotes
    assert any(f.endswith("; see [2]") for f in footnotes) and cells[0][2] == "[1]", (cells, footnotes)
