"""`kb op` is the op page: every target listed (an unknown says how to find out), versions
× mode with basis, what a decomposed op runs via, related kernels; any spelling."""

from __future__ import annotations

import json

import pytest

from kb.store import db
from tests.conftest import run_kb


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    path = tmp_path_factory.mktemp("shipped") / "kb.sqlite"
    db.open_kb(str(path)).close()
    return str(path)


def _page(capsys, shipped, *args):
    code, out, err = run_kb(capsys, "op", *args, "--json", "--db", shipped)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("spelling", ["aten::scaled_dot_product_attention", "F.scaled_dot_product_attention",
                                      "torch.nn.functional.scaled_dot_product_attention"])
def test_sdpa_page_lists_every_target_with_runs_via_and_related_kernels(capsys, shipped, spelling):
    page = _page(capsys, shipped, spelling)
    (entry,) = page["ops"]
    assert entry["op"] == "aten::scaled_dot_product_attention"
    targets = {t["target"]: t for t in entry["targets"]}
    assert set(targets) == set(page["targets"]) and {"neuron", "tpu", "cuda"} <= set(targets)
    assert targets["neuron"]["rows"] and targets["tpu"]["rows"]
    assert {r["mode"] for r in targets["neuron"]["rows"]} == {"eager", "compile"}
    assert all(r["basis"] in ("evidence", "inferred", "presumed") for r in targets["neuron"]["rows"])
    assert targets["neuron"]["via"] and all(v["op"].startswith("aten::") for v in targets["neuron"]["via"])
    assert targets["cuda"]["status"] == "unknown" and "kb probe --static" in targets["cuda"]["settle"]
    related = {r["op"] for r in entry["related"]}
    assert {"aten::_scaled_dot_product_fused_attention_overrideable", "aten::_fused_sdp_choice",
            "aten::_scaled_dot_product_flash_attention"} <= related


def test_torch_function_name_and_related_out_form(capsys, shipped):
    page = _page(capsys, shipped, "torch.nonzero", "-t", "tpu")
    assert "aten::nonzero" in [e["op"] for e in page["ops"]]  # the family, as `kb op nonzero` lists it
    entry = next(e for e in page["ops"] if e["op"] == "aten::nonzero")
    assert [t["target"] for t in entry["targets"]] == ["tpu"]
    assert "aten::nonzero.out" in {r["op"] for r in entry["related"]}


def test_layer_norm_page_names_native_layer_norm(capsys, shipped):
    (entry,) = _page(capsys, shipped, "aten::layer_norm")["ops"]
    neuron = next(t for t in entry["targets"] if t["target"] == "neuron")
    assert neuron["rows"] and "aten::native_layer_norm" in {v["op"] for v in neuron["via"]}
    assert "aten::native_layer_norm" in {r["op"] for r in entry["related"]}


def test_table_shows_unknown_rows_and_sections(capsys, shipped):
    code, out, err = run_kb(capsys, "op", "F.scaled_dot_product_attention", "--db", shipped)
    assert code == 0
    assert "how to find out: kb probe --static" in out and "runs via, on neuron" in out and "related kernels" in out
    # t26b #10: what the name was read as opens the page on stdout; stderr keeps to one line
    assert out.startswith("F.scaled_dot_product_attention names the ATen op aten::scaled_dot_product_attention\n")
    assert "names the ATen op" not in err and len(err.splitlines()) <= 1, err
