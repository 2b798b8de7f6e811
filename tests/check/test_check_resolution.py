"""Resolution against an in-memory KB: verdicts, decomposition leaves, dtype
restrictions, eager transitions and compile effects."""

from __future__ import annotations

from kb.check import resolve as kc
from tests.check.check_fixtures import lookup_for


def _ops(report):
    return {op.op: op for op in report.ops}


def _leaves(op):
    return {leaf.op: leaf.status for leaf in op.via}


def test_statuses_and_leaves_for_the_mlp(traced):
    ops = _ops(kc.check(traced["mlp"], lookup_for("neuron"), target="neuron"))
    assert ops["aten::linear"].status == "decomposed"
    assert _leaves(ops["aten::linear"]) == {"aten::t": "native", "aten::addmm": "native"}
    assert ops["aten::gelu"].status == "fallback"
    assert ops["aten::gelu"].source_kind == "live_probe"


def test_worst_leaf_wins_and_leaves_are_shown(traced):
    ops = _ops(kc.check(traced["block"], lookup_for("neuron"), target="neuron"))
    rms = ops["aten::rms_norm"]
    assert rms.status == "decomposed"
    assert set(_leaves(rms)) == {"aten::pow.Tensor_Scalar", "aten::mean.dim", "aten::add_.Scalar",
                                 "aten::rsqrt", "aten::mul.Tensor"}
    sdpa = ops["aten::scaled_dot_product_attention"]
    assert "aten::bmm" in _leaves(sdpa) and "aten::_safe_softmax" in _leaves(sdpa)
    assert sdpa.status == "unknown"  # _safe_softmax has no verdict in the table
    # a 3-D input to linear goes through view/t/addmm (no matmul kernel needed)
    assert set(_leaves(ops["aten::linear"])) >= {"aten::t", "aten::addmm", "aten::view"}
    assert ops["aten::embedding"].status == "native" and not ops["aten::embedding"].via


def test_dtype_restriction_applies_to_the_dtypes_used(traced):
    ops = _ops(kc.check(traced["spectral"], lookup_for("neuron"), target="neuron"))
    linear = ops["aten::linear"]  # addmm is native for float32/bfloat16 only; the model is float64
    assert linear.status == "unknown"
    assert "float64" in next(leaf.reason for leaf in linear.via if leaf.op == "aten::addmm")
    assert ops["aten::abs"].status == "unknown"  # native for float32 only, used with float64
    assert ops["aten::fft_rfft"].status == "unsupported"
    assert _leaves(ops["aten::fft_rfft"]) == {"aten::_fft_r2c": "unsupported"}


def test_unknown_without_evidence_or_decomposition(traced):
    ops = _ops(kc.check(traced["convnet"], lookup_for("neuron"), target="neuron"))
    assert ops["aten::relu"].status == "native"
    assert ops["aten::conv2d"].via  # CompositeImplicitAutograd → convolution
    assert "aten::convolution" in _leaves(ops["aten::conv2d"])


def test_eager_transitions_follow_the_fallbacks(traced):
    report = kc.check(traced["mlp"], lookup_for("neuron"), target="neuron", mode="eager")
    assert report.eager == {"fallback_calls": 1, "transitions": 2, "fallback_runs": 1,
                            "bytes_copied": 2 * 16 * 4 * 2}
    assert _ops(report)["aten::gelu"].fallback_calls == 1


def test_fallback_leaves_count_as_transitions():
    from kb.check.tracing import CallSite, TensorSpec

    x = TensorSpec((4, 8), "float32", (8, 1))
    w = TensorSpec((16, 8), "float32", (8, 1))
    sites = [CallSite(0, "aten::linear", (x, w), outputs=(TensorSpec((4, 16), "float32"),), module_path="a"),
             CallSite(1, "aten::gelu", (TensorSpec((4, 16), "float32"),), module_path="b"),
             CallSite(2, "aten::relu", (TensorSpec((4, 16), "float32"),), module_path="c")]
    table = {"aten::t": kc.Verdict("native"), "aten::mm": kc.Verdict("fallback"),
             "aten::gelu": kc.Verdict("fallback"), "aten::relu": kc.Verdict("native")}
    model = kc.TracedModel("factory", "m.py", sites)
    report = kc.check(model, table.get, target="tpu")
    ops = _ops(report)
    assert ops["aten::linear"].status == "fallback" and _leaves(ops["aten::linear"])["aten::mm"] == "fallback"
    assert report.eager["fallback_calls"] == 2 and report.eager["transitions"] == 4
    assert report.eager["fallback_runs"] == 1  # linear then gelu: one stretch on the host
    compiled = kc.check(model, table.get, target="tpu", mode="compile")
    assert compiled.compile["graph_breaks"] == 1 and not compiled.compile["fails"]
    neuron = kc.check(model, table.get, target="neuron", mode="compile")
    assert neuron.compile["fails"] and neuron.compile["ops"][0] == {"op": "aten::linear", "effect": "compile error"}


def test_lookup_from_support_map_rows():
    rows = {"aten::addmm": {"op": "aten::addmm", "target": "neuron", "backend_version": "2.33.0", "mode": "eager",
                            "status": "native", "dtypes": ["float32"], "conditions": None,
                            "source_kind": "doc", "source_url": "https://example.test", "retrieved_at": "2026-11-30"}}
    verdict = kc.lookup_from_rows(rows)("aten::addmm")
    assert verdict == kc.Verdict("native", ("float32",), None, "doc", "https://example.test", "2.33.0")
    assert kc.lookup_from_rows(rows)("aten::mm") is None


def test_summary_counts(traced):
    summary = kc.check(traced["mlp"], lookup_for("neuron"), target="neuron").summary()
    assert summary["distinct_ops"] == 2 and summary["call_sites"] == 3
    assert summary["ops_by_status"] == {"decomposed": 1, "fallback": 1}
    assert summary["native_call_sites_pct"] == 0.0 and summary["on_device_call_sites_pct"] == 66.7


def test_primary_dtype_skips_boolean_masks():
    from kb.check.tracing import CallSite, TensorSpec

    site = CallSite(0, "aten::where.self", (TensorSpec((4,), "bool"), TensorSpec((4,), "bfloat16"), TensorSpec((4,), "bfloat16")))
    assert site.primary_dtype() == "bfloat16"
    assert kc.check(kc.TracedModel("factory", "m.py", [site]), {"aten::where.self": kc.Verdict("native", ("float32",))}.get,
                    target="neuron").ops[0].status == "unknown"


def test_argument_conditions_are_checked_by_schema_name():
    from kb.check.tracing import CallSite, TensorSpec

    x = TensorSpec((4, 8), "float32", (8, 1))
    two = CallSite(0, "aten::linalg_vector_norm", (x, 2.0))
    three = CallSite(1, "aten::linalg_vector_norm", (x, 3.0))
    default = CallSite(2, "aten::linalg_vector_norm", (x,))
    table = {"aten::linalg_vector_norm": kc.Verdict("native", conditions={"ord": [1.0, 2.0, "inf"], "dynamic": False})}
    ops, per_site = kc.resolve([two, three, default], table.get)
    assert per_site[0].status == "native" and "dynamic" in per_site[0].reason
    assert per_site[1].status == "unknown" and "ord=3.0" in per_site[1].reason
    assert per_site[2].status == "native"  # the schema default ord=2
    assert ops[0].status == "unknown" and ops[0].count == 3


def test_structured_op_resolves_through_its_out_variant(traced):
    table = {"aten::gelu.out": kc.Verdict("native", source_kind="static_probe")}
    gelu = _ops(kc.check(traced["mlp"], table.get, target="neuron"))["aten::gelu"]
    assert gelu.status == "decomposed" and _leaves(gelu) == {"aten::gelu.out": "native"}
    assert kc.out_variant("aten::max.dim") == "aten::max.dim_max"
    assert kc.out_variant("aten::pow.Tensor_Scalar") == "aten::pow.Tensor_Scalar_out"
