"""Answers a new user met that were wrong or unexplained (issue 25), each pinned down on
the shipped KB."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO, run_kb


@pytest.fixture(scope="module")
def shipped_kb(tmp_path_factory):
    from kb.store.build import build

    path = tmp_path_factory.mktemp("wrong") / "kb.sqlite"
    build(str(path))
    return path


@pytest.fixture(autouse=True)
def shared(shipped_kb, monkeypatch):
    monkeypatch.setenv("KB_DB", str(shipped_kb))


def _json(capsys, *args):
    code, out, err = run_kb(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_linear_on_tpu_is_not_said_to_decompose_where_tpu_has_a_kernel(capsys):
    doc = _json(capsys, "ask", "is linear native on tpu?")
    assert doc["text"].startswith("**Yes**")
    assert "on every backend" not in doc["text"]
    assert "tpu registers a kernel of its own" in doc["text"]


def test_a_decomposing_op_without_a_kernel_still_says_it_decomposes(capsys):
    doc = _json(capsys, "ask", "is aten::linear native on neuron 2.14.3.0?")
    assert "registers no kernel of its own" in doc["text"] or "registers a kernel" in doc["text"]
    assert "on every backend" not in doc["text"]


@pytest.mark.parametrize("op, kind", [("aten::silu", "CompositeExplicitAutogradNonFunctional"),
                                      ("aten::add.Tensor", "CompositeExplicitAutogradNonFunctional"),
                                      ("aten::silu.out", None),
                                      ("aten::quantize_per_tensor.out", "CompositeExplicitAutograd")])
def test_the_catalog_names_the_composite_key_the_dispatcher_shows(capsys, op, kind):
    doc = _json(capsys, "op", op)
    assert doc["ops"][0]["catalog"]["composite_kinds"] == ([kind] if kind else [])
    code, out, err = run_kb(capsys, "op", op)
    header = out.splitlines()[0]
    assert (f"[{kind}]" in header) if kind else "Composite" not in header


def test_the_shipped_catalog_matches_the_dispatcher():
    torch = pytest.importorskip("torch")
    if torch.__version__.split("+")[0] != "2.13.0":
        pytest.skip("the shipped catalog is torch 2.13.0's")
    rows = {json.loads(line)["name"]: json.loads(line) for line in open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl")}
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    for name in ("aten::silu", "aten::add.Tensor", "aten::mul.Tensor", "aten::zeros_like", "aten::quantize_per_tensor.out"):
        for key in ("CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"):
            assert (key in rows[name]["backend_kernels"]) == has(name, key), (name, key)


def test_targets_says_which_count_it_counts_and_ops_and_ask_agree(capsys):
    neuron = next(t for t in _json(capsys, "targets")["targets"] if t["name"] == "neuron")
    own, runs = neuron["eager_counts"]["fallback"], neuron["eager_runs"]["fallback"]
    assert runs > own
    listing = _json(capsys, "ops", "-t", "neuron", "--status", "fallback")
    assert len(listing["ops"]) == runs
    assert listing["matching_by"] == {"own_status": own, "runs_as": runs - own}
    code, out, err = run_kb(capsys, "targets")
    assert "by own status" in out and "by where the op runs" in out
    code, out, err = run_kb(capsys, "ops", "-t", "neuron", "--status", "fallback")
    assert f"{own:,} by own status + {runs - own:,} decomposed ops" in out  # under the table, on stdout
    answer = _json(capsys, "ask", "what falls back to CPU on neuron?")
    assert f"{runs:,} ops that run as **fallback** ({runs:,} of " in answer["text"]  # 29k: N of M ops with evidence
    assert f"ops with evidence): {own:,} by their own status" in answer["text"]


def test_compare_says_why_the_overload_counts_differ(capsys):
    doc = _json(capsys, "compare", "neuron", "tpu", "cpu")
    cov = doc["coverage"]
    assert cov["neuron"]["known"] - cov["neuron"]["outside_catalog"] == cov["cpu"]["known"] == cov["cpu"]["catalog"]
    code, out, err = run_kb(capsys, "compare", "neuron", "tpu", "cpu")
    neuron_line = next(line for line in out.splitlines() if line.startswith("neuron:"))  # under the table
    assert f"+ {cov['neuron']['outside_catalog']} names its sources give that are no overload of the catalog" in neuron_line


@pytest.mark.parametrize("spelling", ["torch.ops.aten.silu.default", "aten.silu.default", "torch.ops.aten::silu.default"])
def test_an_aten_spelling_is_not_read_as_a_torch_function(capsys, spelling):
    doc = _json(capsys, "op", spelling)
    assert [o["op"] for o in doc["ops"]] == ["aten::silu"]
    assert "ops.aten" not in (doc.get("how") or "")


def test_a_torch_function_names_its_aten_op_canonically(capsys):
    doc = _json(capsys, "op", "torch.nonzero")
    assert doc["how"].startswith("torch.nonzero names the ATen op aten::nonzero")
