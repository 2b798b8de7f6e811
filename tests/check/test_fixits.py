"""Issue 27: every shipped fix-it matches the call it is written for (and not its near
misses), and one `kb fix` round trip: fewer fallbacks after, and parity on sim."""

from __future__ import annotations

import json

import pytest

from kb.check import fixits as fx
from kb.check.callsites import CallSite, TensorSpec


def spec(*shape, dtype="float32"):
    return TensorSpec(tuple(shape), dtype)


def site(op, **named):
    return CallSite(0, op, args=tuple(named.values()), named=dict(named), module_path="blocks.0")


# id → (a call it must match, target, a near miss it must not match, target)
EXAMPLES = {
    "adaptive-avg-pool-to-mean": (site("aten::adaptive_avg_pool1d", self=spec(2, 8, 6), output_size=(1,)), "neuron",
                                  site("aten::adaptive_avg_pool1d", self=spec(2, 8, 6), output_size=(2,)), "neuron"),
    "boolean-mask-to-where": (site("aten::index.Tensor", self=spec(4, 4), indices=(spec(4, 4, dtype="bool"),)), "tpu",
                              site("aten::index.Tensor", self=spec(4, 4), indices=(spec(3, dtype="int64"),)), "tpu"),
    "cpu-attention-kernel-reexport": (
        site("aten::_scaled_dot_product_flash_attention_for_cpu", query=spec(1, 2, 8, 4), key=spec(1, 2, 8, 4),
             value=spec(1, 2, 8, 4)), "neuron",
        site("aten::scaled_dot_product_attention", query=spec(1, 2, 8, 4), key=spec(1, 2, 8, 4),
             value=spec(1, 2, 8, 4)), "neuron"),
    "erf-gelu-to-tanh-gelu": (site("aten::gelu", self=spec(2, 8)), "neuron",
                              site("aten::gelu", self=spec(2, 8), approximate="tanh"), "neuron"),
    "float64-to-float32": (site("aten::mm", self=spec(2, 2, dtype="float64"), mat2=spec(2, 2, dtype="float64")), "tpu",
                           site("aten::mm", self=spec(2, 2), mat2=spec(2, 2)), "tpu"),
    "fold-batchnorm-for-inference": (
        site("aten::_native_batch_norm_legit_no_training", input=spec(2, 8, 4, 4), weight=spec(8)), "neuron",
        site("aten::_native_batch_norm_legit", input=spec(2, 8, 4, 4), weight=spec(8), training=True), "neuron"),
    "int32-index-on-neuron": (site("aten::gather", self=spec(2, 8), dim=1, index=spec(2, 3, dtype="int64")), "neuron",
                              site("aten::gather", self=spec(2, 8), dim=1, index=spec(2, 3, dtype="int64")), "tpu"),
    "nonzero-to-nonzero-static": (site("aten::nonzero", self=spec(4, 4)), "tpu",
                                  site("aten::nonzero_static", self=spec(4, 4), size=4), "tpu"),
}
SOURCE_EXAMPLES = {
    "cuda-calls-to-accelerator": ("if torch.cuda.is_available():\n    torch.cuda.synchronize()\n",
                                  "device = torch.accelerator.current_accelerator()\n"),
}


def test_every_shipped_fixit_has_an_example_here_and_its_fields():
    library = fx.library()
    assert {f["id"] for f in library} == set(EXAMPLES) | set(SOURCE_EXAMPLES)
    for fixit in library:
        for key in ("rewrite", "why", "effect", "parity", "source"):
            assert fixit.get(key), (fixit["id"], key)
        assert fixit["source"].startswith("https://")


@pytest.mark.parametrize("fixit_id", sorted(EXAMPLES))
def test_a_fixit_matches_its_call_and_not_the_near_miss(fixit_id):
    (fixit,) = [f for f in fx.library() if f["id"] == fixit_id]
    hit, hit_target, miss, miss_target = EXAMPLES[fixit_id]
    assert fx.matches(fixit, hit, hit_target)
    assert not fx.matches(fixit, miss, miss_target)


@pytest.mark.parametrize("fixit_id", sorted(SOURCE_EXAMPLES))
def test_a_source_fixit_matches_the_code_it_is_written_for(fixit_id):
    (fixit,) = [f for f in fx.library() if f["id"] == fixit_id]
    hit, miss = SOURCE_EXAMPLES[fixit_id]
    assert fx.matches_source(fixit, hit) == ["torch.cuda.is_available", "torch.cuda.synchronize"]
    assert fx.matches_source(fixit, miss) == []


def test_what_remains_after_the_rewrites_is_resolved_against_the_kb():
    from kb.check.resolve import Verdict

    calls = [CallSite(0, "aten::adaptive_avg_pool1d", named={"self": spec(2, 8, 6), "output_size": (1,)}),
             CallSite(1, "aten::gelu", named={"self": spec(2, 8)})]
    suggestions, applied = fx.suggest(calls, "neuron")
    assert [s["id"] for s in suggestions] == ["adaptive-avg-pool-to-mean", "erf-gelu-to-tanh-gelu"]
    verdicts = {"aten::mean.dim": Verdict("native"), "aten::gelu": Verdict("fallback")}
    after = fx.after_rewrites(calls, {0: "fallback", 1: "fallback"}, applied, verdicts.get)
    assert after["fallback_calls_before"] == 2 and after["fallback_calls_after"] == 1
    assert after["problem_ops_after"] == ["aten::gelu"]


def test_kb_fix_round_trip_fewer_fallbacks_and_parity_on_sim(tmp_path, run_cli, monkeypatch):
    import torch
    import torch.nn as nn

    from cli import check as cli_check
    from kb.check.resolve import Verdict

    class Pooled(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)
            self.pooler = nn.AdaptiveAvgPool1d(1)
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            return self.head(self.pooler(self.proj(x).transpose(1, 2)).flatten(1))

    torch.manual_seed(0)
    original, fixed = tmp_path / "model.pt2", tmp_path / "fixed.pt2"
    torch.export.save(torch.export.export(Pooled().eval(), (torch.randn(2, 5, 8),)), str(original))
    code, out, err = run_cli("fix", original, "--out", fixed, "--json")
    assert code == 0, err
    assert json.loads(out)["applied"] == {"adaptive_avg_pool_to_mean": 1}

    verdicts = {"aten::adaptive_avg_pool1d": Verdict("fallback", source_kind="doc")}
    monkeypatch.setattr(cli_check, "make_lookup", lambda db, target, version, mode: (
        lambda op: verdicts.get(op, Verdict("native", source_kind="static_probe")), "2.33.0"))

    def fallbacks(path):
        code, out, err = run_cli("check", path, "--json")
        assert code == 0, err
        return json.loads(out)["reports"][0]["eager"]["fallback_calls"]

    assert fallbacks(original) == 1 and fallbacks(fixed) == 0
    code, out, err = run_cli("parity", original, "--against", fixed, "--device", "sim", "--json")
    assert code == 0, err + out
    assert json.loads(out)["passed"] is True


def test_kb_fix_refuses_to_overwrite_its_input(tmp_path, run_cli):
    path = tmp_path / "model.pt2"
    path.write_bytes(b"not read")
    code, _out, err = run_cli("fix", path, "--out", path)
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_an_approximate_rewrite_needs_asking_for_and_kb_parity_says_how_far_it_moves(tmp_path, run_cli):
    import torch
    import torch.nn as nn

    class Act(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x):
            return nn.functional.gelu(self.fc(x))

    torch.manual_seed(0)
    original, exact, approx = tmp_path / "m.pt2", tmp_path / "exact.pt2", tmp_path / "approx.pt2"
    torch.export.save(torch.export.export(Act().eval(), (torch.randn(4, 8),)), str(original))
    code, out, _ = run_cli("fix", original, "--out", exact, "--json")
    assert code == 0 and json.loads(out)["applied"] == {}
    assert any("--approximate applies them" in n for n in json.loads(out)["notes"])
    code, out, _ = run_cli("fix", original, "--out", approx, "--approximate", "--json")
    assert code == 0 and json.loads(out)["applied"] == {"gelu_to_tanh": 1}
    from kb.check import model_formats as mf
    from kb.check import pt2_graph

    (gelu,) = [s for s in pt2_graph.trace_archive(mf.detect(str(approx))).sites if s.op == "aten::gelu"]
    assert gelu.named.get("approximate") == "tanh"
    assert run_cli("parity", original, "--against", approx, "--device", "sim", "--json")[0] == 1  # default tolerance
    code, out, err = run_cli("parity", original, "--against", approx, "--device", "sim", "--atol", "1e-2", "--json")
    assert code == 0, err + out
