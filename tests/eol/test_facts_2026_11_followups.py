"""Issue 25 follow-ups in the project facts file: TorchAO Neuron's documented _scaled_mm on
Neuron (evidence for 2.14.3.1, with its condition), the Neuron Explorer JSON post, and what
the 2.34 search found about the platform matrix."""

import json

import pytest

from scrapers import reference_facts
from tests.conftest import REPO, run_kb

FACTS = REPO / "scrapers" / "facts" / "manual-facts-2026-11.csv"
TORCHAO = "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/training/torchao-neuron/about-torchao-neuron.html"


def _records():
    return reference_facts.parse_manual_facts(FACTS.read_text(encoding="utf-8"), source_file_url="file://x",
                                              retrieved_at="x", sha256="s", source_name=reference_facts.PROJECT_FACTS)


def test_scaled_mm_is_documented_evidence_with_its_condition(isolated_kb, capsys):
    code, out, _ = run_kb(capsys, "op", "aten::_scaled_mm", "-t", "neuron=2.14.3.1", "--json")
    found = [v for v in _walk(json.loads(out)) if v.get("source_url") == TORCHAO]
    assert code == 0 and {v["mode"] for v in found} == {"eager", "compile"}
    for v in found:  # outranks the presumed fallback (eager) / unsupported (compile)
        assert v["status"] == "native" and v["basis"] == "evidence"
        assert v["conditions"]["instance_families"] == ["Trn3"] and "TorchAO Neuron MXFP8" in v["conditions"]["via"]


def _walk(node):
    """Every dict in a JSON answer that carries a verdict (status + mode)."""
    if isinstance(node, dict):
        if "status" in node and "mode" in node:
            yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def test_op_rows_parse_modes_and_conditions():
    ops = [r for r in _records() if type(r).__name__ == "OpStatus"]
    assert {(r.op, r.mode, r.backend_version) for r in ops} == {("aten::_scaled_mm", "eager", "2.14.3.1"),
                                                               ("aten::_scaled_mm", "compile", "2.14.3.1")}
    text = ("kind,product,subject,value,note,source_url\n"
            "op,torch-neuronx (native TorchNeuron),aten::x,native,\"modes: eager\",https://example.test/\n")
    with pytest.raises(reference_facts.FactsError, match="package version"):
        reference_facts.parse_manual_facts(text, source_file_url="file://t", retrieved_at="x", sha256="s")


def test_explorer_json_announcement_ends_with_234(isolated_kb, capsys, monkeypatch):
    monkeypatch.setenv("KB_TODAY", "2026-12-01")
    code, out, _ = run_kb(capsys, "eol", "neuron-feature", "--json")
    (w,) = [w for w in json.loads(out)["windows"] if w["cycle"].startswith("Neuron Explorer full-profile JSON")]
    assert w["eol_from"] == "2026-11-30" and w["is_eol"]
    assert w["source_url"].endswith("/announce-no-maintain-explorer-json.html")


def test_234_search_findings_are_recorded_without_inventing_a_matrix():
    (sdk,) = [r for r in _records() if type(r).__name__ == "Release" and r.version == "2.34.0"]
    assert "no stored 2.34 page states a TorchNeuron platform matrix" in sdk.note
    assert sdk.instance_families == () and sdk.os == ()  # the finding is a note, never a matrix
