"""`kb ingest FILE --fallback-ops --backend-version V`: what torch_neuronx.get_fallback_ops()
printed after a real run becomes live evidence from a local file, saying what it is."""

from __future__ import annotations

import json

import pytest

from kb.probe.live import fallback_list
from kb.store import db, queries
from tests.conftest import run_kb


def _verdict(path, op, version="2.14.3.0"):
    rows = [r for r in queries.op_verdicts(db.open_kb(str(path)), [op], "neuron", "eager") if r["backend_version"] == version]
    return rows[0] if rows else None


def test_a_saved_list_becomes_live_fallback_evidence(small_data, isolated_kb, tmp_path, capsys):
    saved = tmp_path / "fallback.txt"
    saved.write_text("aten::nonzero\naten.relu.default  # a comment\ntorchvision::nms\n")
    code, out, err = run_kb(capsys, "ingest", saved, "--fallback-ops", "--backend-version", "2.14.3.0", "--json")
    assert code == 0, err
    result = json.loads(out)["results"][0]
    assert result["source"] == "file:fallback.txt" and result["ops"] == 2 and result["skipped"] == ["torchvision::nms"]
    row = _verdict(isolated_kb, "aten::nonzero")
    # a local report (the file someone handed kb), shown as such, whose probe run says what it is
    assert (row["status"], row["source_kind"], row["basis"]) == ("fallback", "live_probe", "local")
    assert "get_fallback_ops()" in row["note"] and "fallback.txt" in row["note"]
    run = db.open_kb(str(isolated_kb)).execute("SELECT * FROM proberun WHERE run_id = ?", (row["probe_run_id"],)).fetchone()
    params = json.loads(run["params"])
    assert (run["kind"], run["origin"], params["from"]) == ("live", "report", "torch_neuronx.get_fallback_ops()")
    assert _verdict(isolated_kb, "aten::relu")["status"] == "fallback"


def test_a_printed_python_list_is_read_too(tmp_path):
    saved = tmp_path / "printed.txt"
    saved.write_text("{'aten::nonzero', 'aten::_unique2', \"aten::sort.stable\"}\n")
    assert fallback_list.read(str(saved)).ops == ["aten::_unique2", "aten::nonzero", "aten::sort.stable"]


@pytest.mark.parametrize("args, words", [
    (["--fallback-ops"], "--backend-version"),
    (["--backend-version", "2.14.3.0"], "--fallback-ops"),
])
def test_the_flags_go_together(small_data, tmp_path, capsys, args, words):
    saved = tmp_path / "f.txt"
    saved.write_text("aten::nonzero\n")
    code, out, err = run_kb(capsys, "ingest", saved, *args)
    assert code == 2 and words in err and len([ln for ln in err.splitlines() if "error" in ln]) == 1


@pytest.mark.parametrize("content, words", [
    (b"a" * (fallback_list.MAX_BYTES + 1), "bound"),
    (b"\n" * (fallback_list.MAX_LINES + 1), "more than"),
    (b"\xff\xfe\x00", "not a text file"),
    (b"hello world\n", "no ATen op names"),
])
def test_the_file_is_bounded_and_checked(small_data, tmp_path, capsys, content, words):
    saved = tmp_path / "bad.txt"
    saved.write_bytes(content)
    code, out, err = run_kb(capsys, "ingest", saved, "--fallback-ops", "--backend-version", "2.14.3.0")
    assert code == 2 and words in err and "Traceback" not in err


def test_a_fifo_among_the_lists_is_refused_and_the_others_go_on(small_data, isolated_kb, tmp_path, capsys):
    import os
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)  # opening it for reading would block forever
    saved = tmp_path / "fallback.txt"
    saved.write_text("aten::nonzero\n")
    code, out, err = run_kb(capsys, "ingest", fifo, saved, "--fallback-ops", "--backend-version", "2.14.3.0")
    assert code == 2 and "FIFO" in err and len([ln for ln in err.splitlines() if "error" in ln]) == 1
    assert _verdict(isolated_kb, "aten::nonzero")["status"] == "fallback"


def test_a_list_that_disagrees_with_shipped_data_says_so_and_wins_only_when_preferred(small_data, isolated_kb,
                                                                                   tmp_path, capsys):
    from kb.store.ingest import ingest_records
    from tests.conftest import op_status

    ingest_records(str(isolated_kb), [op_status("aten::nonzero", "native", kind="doc", name="vendor-doc")],
                   source_name="vendor-doc")
    saved = tmp_path / "fallback.txt"
    saved.write_text("aten::nonzero\n")
    code, out, err = run_kb(capsys, "ingest", saved, "--fallback-ops", "--backend-version", "2.14.3.0")
    assert code == 0 and "1 verdict(s) of this report disagree" in err and "--prefer-local" in err
    assert _verdict(isolated_kb, "aten::nonzero")["status"] == "native"
    code, out, err = run_kb(capsys, "ingest", saved, "--fallback-ops", "--backend-version", "2.14.3.0", "--prefer-local")
    assert code == 0 and "disagree" not in err
    row = _verdict(isolated_kb, "aten::nonzero")
    assert (row["status"], row["basis"]) == ("fallback", "local")
