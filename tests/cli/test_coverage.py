"""Missing data is never good news: known/unknown counts in `kb targets` and `kb ops`,
`kb compare --diff` leaves unknowns out (with a line saying how many) unless --all."""

from __future__ import annotations

import json

import pytest

from kb.store.ingest import ingest_records
from tests.conftest import op_status, run_kb


@pytest.fixture
def kb(small_data, isolated_kb):
    ingest_records(str(isolated_kb), [
        op_status("aten::add.Tensor", "native", target="neuron"),
        op_status("aten::nonzero", "fallback", target="neuron"),
        op_status("aten::relu", "native", target="neuron"),
        op_status("aten::add.Tensor", "native", target="tpu", version="0.2.0"),
        op_status("aten::nonzero", "native", target="tpu", version="0.2.0"),
    ], source_name="doc")
    return isolated_kb


def test_compare_diff_leaves_unknown_out_with_a_summary(kb, capsys):
    code, out, err = run_kb(capsys, "compare", "neuron", "tpu", "--diff", "--json")
    doc = json.loads(out)
    assert [r["op"] for r in doc["rows"]] == ["aten::nonzero"] and doc["unknown_left_out"] == 1
    code, out, err = run_kb(capsys, "compare", "neuron", "tpu", "--diff")
    # under the table on stdout: stderr keeps to the folded basis line (t26 r2 #9)
    assert "1 more ops differ only because a target has no verdict (unknown); --all lists them" in out
    code, out, _ = run_kb(capsys, "compare", "neuron", "tpu", "--diff", "--all", "--json")
    assert [r["op"] for r in json.loads(out)["rows"]] == ["aten::nonzero", "aten::relu"]


def test_targets_say_known_and_unknown(kb, capsys):
    code, out, _ = run_kb(capsys, "targets", "--json")
    tpu = next(t for t in json.loads(out)["targets"] if t["name"] == "tpu")
    assert tpu["coverage"] == {"known": 2, "unknown": 4, "total": 6, "percent": 33.3, "catalog": 6, "outside_catalog": 0}
    code, out, _ = run_kb(capsys, "targets")
    assert "2 of 6 ops known (33.3%); 4 unknown" in out


def test_empty_status_list_says_no_data_not_none(kb, capsys):
    code, out, err = run_kb(capsys, "ops", "--target", "tpu", "--status", "unsupported")
    assert code == 0 and "0 unsupported of 2 known; 4 unknown" in out and not err.strip()  # under the table
