"""Doc rules: a vendor page's rule for a class of ops applies to every member, outranks an
inferred or presumed verdict, and never evidence that names the op."""

from __future__ import annotations

import json

import pytest

from kb.store import db, queries, verdict
from kb.store import records as rec
from kb.store.ingest import ingest_records
from kb.store.rules import selected_ops
from tests.conftest import REPO, op_status, probe_run, prov

RULE_URL = "https://example.test/supported-operators"
QUANT = {"aten::quantize_per_tensor", "aten::quantile"}


@pytest.fixture
def rule_data(small_data):
    """small_data plus a quantized op and a look-alike that is not one (quantile)."""
    with open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl", encoding="utf-8") as src, \
            open(small_data / "ops" / "aten-torch-2.13.0.jsonl", "a", encoding="utf-8") as dst:
        for line in src:
            if json.loads(line)["name"] in QUANT:
                dst.write(line)
    return small_data


def _rule(**kw) -> rec.DocRule:
    fields = {"rule_id": "quantized", "target": "neuron", "status": "unsupported", "vendor_class": "N",
              "summary": "quantized variants are not supported",
              "select": {"name_regex": r"aten::quantize_per_\w+(\.\w+)?"}, "min_version": "2.13.3.0",
              "provenance": prov(kind="doc_rule", name="vendor-rules", url=RULE_URL)}
    return rec.DocRule(**{**fields, **kw})


def _releases(*versions):
    return [rec.Release(product="torchneuron", version=v, provenance=prov(kind="manual", name="facts"))
            for v in versions]


def _one(path, op, version, mode="eager"):
    rows = [r for r in queries.op_verdicts(db.open_kb(str(path)), [op], "neuron", mode) if r["backend_version"] == version]
    assert len(rows) == 1, rows
    return rows[0]


def test_the_rule_outranks_presumed_and_inferred_but_not_evidence(rule_data, isolated_kb):
    snapshot = [op_status(op, "fallback", version="0.1.0.dev0", kind="inferred", name="replay")
                for op in ("aten::quantize_per_tensor", "aten::relu")]
    ingest_records(str(isolated_kb), [*_releases("0.1.0.dev0", "2.13.3.0", "2.14.3.0"), *snapshot], source_name="replay")
    assert _one(isolated_kb, "aten::quantize_per_tensor", "2.14.3.0")["basis"] == "presumed"
    ingest_records(str(isolated_kb), [op_status("aten::quantize_per_tensor", "fallback", version="2.13.3.0",
                                                kind="inferred", name="replay-2")], source_name="replay-2")
    ingest_records(str(isolated_kb), [_rule()], source_name="vendor-rules")

    presumed_before = _one(isolated_kb, "aten::quantize_per_tensor", "2.14.3.0")
    assert (presumed_before["status"], presumed_before["basis"]) == ("unsupported", "doc rule")
    assert presumed_before["source_url"] == RULE_URL and "quantized variants" in presumed_before["note"]
    assert verdict.label(presumed_before).endswith("ʳ") and verdict.source_text(presumed_before).startswith("doc rule")
    inferred_before = _one(isolated_kb, "aten::quantize_per_tensor", "2.13.3.0")
    assert (inferred_before["status"], inferred_before["basis"]) == ("unsupported", "doc rule")
    assert inferred_before["disagreement"]  # the replay's own word stays visible
    # the snapshot is older than the rule's range: its inferred verdict stands
    assert _one(isolated_kb, "aten::quantize_per_tensor", "0.1.0.dev0")["basis"] == "inferred"
    # an op the rule does not select keeps its presumed verdict
    assert _one(isolated_kb, "aten::relu", "2.14.3.0")["basis"] == "presumed"

    ingest_records(str(isolated_kb), [probe_run("run-1"),
                                      op_status("aten::quantize_per_tensor", "native", version="2.14.3.0",
                                                kind="live_probe", name="probe", run="run-1")], source_name="probe")
    evidence = _one(isolated_kb, "aten::quantize_per_tensor", "2.14.3.0")
    assert (evidence["status"], evidence["basis"]) == ("native", "evidence")


def test_the_rule_covers_both_modes_and_every_matching_overload_only(rule_data, isolated_kb):
    ingest_records(str(isolated_kb), [*_releases("2.14.3.0"), _rule()], source_name="vendor-rules")
    assert _one(isolated_kb, "aten::quantize_per_tensor", "2.14.3.0", "compile")["basis"] == "doc rule"
    assert queries.op_verdicts(db.open_kb(str(isolated_kb)), ["aten::quantile"], "neuron", "eager") == []


def test_api_names_become_limitations_with_the_rule(rule_data, isolated_kb):
    from kb.chat.answer import answer

    rule = _rule(rule_id="backends", select=None, apis=("torch.backends.mps",), api_status="not supported (N)")
    ingest_records(str(isolated_kb), [*_releases("2.14.3.0"), rule], source_name="vendor-rules")
    reply = answer("does torch.backends.mps work on neuron?", db=str(isolated_kb))
    assert "not supported (N)" in reply.text and RULE_URL in reply.text


def test_the_shipped_rule_selects_quantized_variants_and_not_look_alikes():
    rules = [r for r in rec.read_jsonl(open(REPO / "data" / "rules" / "torchneuron-supported-operators.jsonl"))]
    quantized = next(r for r in rules if r.rule_id == "torchneuron-quantized-variants")
    catalog = [json.loads(line)["name"] for line in open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl")]
    chosen = set(selected_ops(quantized, catalog))
    assert {"aten::quantize_per_tensor", "aten::dequantize.self", "aten::quantized_max_pool2d",
            "aten::int_repr", "aten::_flash_attention_forward.quantized"} <= chosen
    assert not chosen & {"aten::quantile", "aten::nanquantile", "aten::fake_quantize_per_tensor_affine", "aten::relu"}


@pytest.mark.parametrize("bad", [{"name_regex": "("}, {"name_regex": "a" * 3000}])
def test_a_bad_selector_is_an_input_error(bad):
    with pytest.raises(rec.RecordError):
        selected_ops(_rule(select=bad), ["aten::relu"])


def test_a_rule_needs_its_own_source_kind():
    with pytest.raises(rec.RecordError):
        _rule(provenance=prov(kind="doc"))


FACTORY = """
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        return nn.functional.silu(x)


def build():
    return Net()
"""


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_check_and_compare_show_the_rule_and_its_url(rule_data, isolated_kb, tmp_path, capsys):
    from tests.conftest import run_kb

    rule = _rule(rule_id="silu-rule", summary="silu is not supported (test rule)", select={"ops": ["aten::silu"]})
    ingest_records(str(isolated_kb), [*_releases("2.14.3.0"), rule], source_name="vendor-rules")
    model = tmp_path / "net.py"
    model.write_text(FACTORY)
    code, out, err = run_kb(capsys, "check", f"{model}:build", "--input-shape", "2x4", "-t", "neuron=2.14.3.0")
    assert "doc rule ʳ" in out and "silu is not supported (test rule)" in out and RULE_URL in out, out
    code, out, err = run_kb(capsys, "compare", "neuron", "cpu", "--json")
    row = next(r for r in json.loads(out)["rows"] if r["op"] == "aten::silu")
    assert row["neuron"] == "unsupported" and row["labels"]["neuron"].endswith("ʳ")
    code, out, err = run_kb(capsys, "compare", "neuron", "cpu")
    assert "verdicts by the doc rule \"silu is not supported (test rule)\"" in out and RULE_URL in out  # under the table


def test_the_serve_op_page_shows_the_rule(rule_data, isolated_kb):
    from urllib.parse import urlencode

    from kb.serve import launch as serve
    from tests.serve.test_serve_app import fetch

    ingest_records(str(isolated_kb), [*_releases("2.14.3.0"), _rule()], source_name="vendor-rules")
    (page,) = fetch(serve.make_datasette(str(isolated_kb)), "/-/op?" + urlencode({"q": "aten::quantize_per_tensor"}))
    assert page.status_code == 200
    assert "doc rule" in page.text and "quantized variants are not supported" in page.text and RULE_URL in page.text
