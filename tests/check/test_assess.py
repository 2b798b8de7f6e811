"""Issue 27: work on the device, the host-cost estimate, compile hazards, fix-its, the
verdict sentence and phases from joint graphs — on models made here, read from their
.pt2 archives the way `kb check` reads them (kb.check.pt2_graph, no torch needed)."""

from __future__ import annotations

import json

import pytest

from kb.check import hazards as hz
from kb.check import hostcost, pt2_graph
from kb.check import model_formats as mf
from kb.check import resolve as kc
from kb.check.resolve import Verdict

NATIVE = Verdict("native", source_kind="static_probe")


def table(**statuses):
    """A lookup: every op native except those named (op name with '::' as '__')."""
    named = {k.replace("__", "::", 1).replace("_DOT_", "."): Verdict(v, source_kind="doc") for k, v in statuses.items()}
    return lambda op: named.get(op, NATIVE)


@pytest.fixture(scope="session")
def exports(tmp_path_factory):
    """Small models exported once per session: {name: path}."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(16, 32), nn.Linear(32, 8)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    class Pool(nn.Module):  # swin's pooler: a linear head after AdaptiveAvgPool1d(1)
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)
            self.pooler = nn.AdaptiveAvgPool1d(1)
            self.head = nn.Linear(8, 4)

        def forward(self, x):
            y = self.proj(x).transpose(1, 2)
            return self.head(self.pooler(y).flatten(1))

    class Nonzero(nn.Module):
        def forward(self, x):
            return torch.nonzero(x > 0).sum()

    class MaskedSelect(nn.Module):
        def forward(self, x):
            return x.masked_select(x > 0).sum()

    class Item(nn.Module):
        def forward(self, x):
            return x * x.sum().item()

    class Attention(nn.Module):
        def forward(self, q):
            return F.scaled_dot_product_attention(q, q, q)

    class Loss(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return (F.gelu(self.fc(x)).sum(),)

    root = tmp_path_factory.mktemp("assess")
    torch.manual_seed(0)
    made = {
        "mlp": (MLP(), (torch.randn(2, 16),), None),
        "pool": (Pool(), (torch.randn(2, 6, 8),), None),
        "nonzero": (Nonzero(), (torch.randn(4, 4),), None),
        "masked_select": (MaskedSelect(), (torch.randn(4, 4),), None),
        "item": (Item(), (torch.randn(4, 4),), None),
        "dynamic": (MLP(), (torch.randn(2, 16),), ({0: torch.export.Dim("batch", min=1, max=64)},)),
        "attention_short": (Attention(), (torch.randn(1, 2, 16, 8),), None),
        "attention_long": (Attention(), (torch.randn(1, 2, 128, 8),), None),
    }
    out = {}
    for name, (model, args, dynamic) in made.items():
        program = torch.export.export(model, args, dynamic_shapes=dynamic)
        out[name] = str(root / f"{name}.pt2")
        torch.export.save(program, out[name])
    from torch.export.experimental import _export_forward_backward

    joint = _export_forward_backward(torch.export.export(Loss(), (torch.randn(2, 4),)).run_decompositions())
    out["joint"] = str(root / "joint.pt2")
    torch.export.save(joint, out["joint"])
    return out


def traced(path):
    return pt2_graph.trace_archive(mf.detect(path))


def report_for(path, lookup, target="neuron", mode="eager", **kw):
    return kc.check(traced(path), lookup, target=target, backend_version="2.33.0", mode=mode, warning_hooks=[], **kw)


# --- work on the device ---------------------------------------------------------------------


def test_an_all_native_model_keeps_all_its_work_on_the_device(exports):
    report = report_for(exports["mlp"], table())
    assert report.device_flop_share == 1.0 and report.device_byte_share == 1.0
    assert report.host_flops == 0
    # 2·M·N·K for both linears, plus the relu: the work is counted, not guessed
    assert report.work["flops"] >= 2 * 2 * 16 * 32 + 2 * 2 * 32 * 8
    assert report.estimated_host_ms["low"] == report.estimated_host_ms["high"] == 0
    assert report.verdict.startswith("neuron 2.33.0: runs on the device (all ")


def test_a_fallback_model_has_a_share_below_one_and_an_estimate_that_moves_with_its_parameters(exports):
    lookup = table(aten__adaptive_avg_pool1d="fallback")
    report = report_for(exports["pool"], lookup)
    assert 0 < report.device_flop_share < 1 and 0 < report.device_byte_share < 1
    assert report.host_flops > 0
    base = report.estimated_host_ms
    assert 0 < base["low"] < base["high"]
    for name, parameter in report.cost_model["parameters"].items():
        assert parameter["sources"] and all(s.startswith("https://") for s in parameter["sources"]), name
        assert parameter["low"] <= parameter["high"]
    assert "not a measurement" in report.cost_model["note"]
    slower_link = report_for(exports["pool"], lookup, cost_overrides={"link_gbps": "1"}).estimated_host_ms
    longer_wait = report_for(exports["pool"], lookup, cost_overrides={"latency_us": "500:900"}).estimated_host_ms
    slower_cpu = report_for(exports["pool"], lookup, cost_overrides={"host_gflops": "0.00001"}).estimated_host_ms
    assert slower_link["high"] > base["high"] and longer_wait["low"] > base["high"] and slower_cpu["low"] > base["high"]
    assert report.verdict.startswith("neuron 2.33.0: runs on the device except 1 op on the host (")
    assert "ms per step" in report.verdict and "torch.compile: fails at aten::adaptive_avg_pool1d" in report.verdict


def test_a_bad_cost_override_is_a_usage_error(run_cli, exports):
    code, _out, err = run_cli("check", exports["mlp"], "--cost-link-gbps", "fast")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--cost-link-gbps" in err


def test_estimate_arithmetic():
    model = hostcost.cost_model({"latency_us": "10", "link_gbps": "1", "host_gflops": "1"})
    got = hostcost.estimate(transitions=2, bytes_copied=1_000_000, host_flops=1_000_000, model=model)
    assert got["low"] == got["high"] == pytest.approx(0.02 + 1.0 + 1.0)


# --- hazards -------------------------------------------------------------------------------


def _hazards(path, target):
    t = traced(path)
    return {mode: [(h["kind"], h["op"], h["effect"]) for h in hz.find(t, target, mode)] for mode in ("eager", "compile")}


@pytest.mark.parametrize("model, op", [("nonzero", "aten::nonzero"), ("masked_select", "aten::masked_select")])
def test_data_dependent_sizes_per_target_and_mode(exports, model, op):
    neuron, tpu = _hazards(exports[model], "neuron"), _hazards(exports[model], "tpu")
    assert [(k, o) for k, o, _ in neuron["eager"]] == [("data_dependent_shape", op)]
    assert "host sync" in neuron["eager"][0][2]
    assert neuron["compile"][0][2].startswith("compile failure")
    assert tpu["compile"][0][2].startswith("graph break")
    assert pt2_graph.read_sites(exports[model])[1].symbols["unbacked"]  # the export's own word: an unbacked size


def test_item_is_a_host_sync_in_eager_and_a_graph_break_under_compile(exports):
    for target in ("neuron", "tpu"):
        found = _hazards(exports["item"], target)
        assert [(k, o) for k, o, _ in found["eager"]] == [("host_sync", "aten::item")]
        assert found["compile"][0][0] == "host_sync" and found["compile"][0][2].startswith("graph break")


def test_a_dynamic_batch_dimension_recompiles_under_compile_and_is_no_hazard_in_eager(exports):
    for target, source in (("neuron", hz.NEURON_COMPILE), ("tpu", hz.XLA_TPU_DYNAMIC)):
        t = traced(exports["dynamic"])
        assert hz.find(t, target, "eager") == []
        (hazard,) = hz.find(t, target, "compile")
        assert hazard["kind"] == "dynamic_dim" and hazard["effect"].startswith("recompiles")
        assert hazard["module"] == "input x dim 0" and hazard["range"] == "1..64" and hazard["source"] == source
    assert _hazards(exports["mlp"], "neuron") == {"eager": [], "compile": []}


def test_report_json_has_the_issue_fields(run_cli, exports):
    code, out, _ = run_cli("check", exports["nonzero"], "-t", "neuron", "-t", "tpu", "--json")
    assert code == 0
    for report in json.loads(out)["reports"]:
        for key in ("device_flop_share", "device_byte_share", "host_flops", "estimated_host_ms", "cost_model",
                    "hazards", "suggestions", "verdict"):
            assert key in report, key
        assert {"low", "high"} <= set(report["estimated_host_ms"])
        for hazard in report["hazards"]:
            assert {"kind", "op", "module", "mode", "effect", "fix", "source"} <= set(hazard)
        for suggestion in report["suggestions"]:
            assert {"op", "module", "rewrite", "effect", "source"} <= set(suggestion)
        assert all("phases" in op for op in report["ops"])


def test_suggest_shows_the_rewrite_and_what_remains(run_cli, exports, monkeypatch):
    from cli import check as cli_check

    monkeypatch.setattr(cli_check, "make_lookup", lambda db, target, version, mode: (
        table(aten__adaptive_avg_pool1d="fallback"), "2.33.0"))
    code, out, _ = run_cli("check", exports["pool"], "--suggest")
    assert code == 0
    assert "suggest: adaptive_avg_pool1d in pooler, 1 call(s)" in out and "(kb fix applies it)" in out
    assert "after 1 rewrite: 0 fallback calls (from 1)" in out
    assert "— 1 suggested rewrite (after them: 0 fallback calls)" in out.splitlines()[0]
    code, sarif_out, _ = run_cli("check", exports["pool"], "--format", "sarif")
    (assessment,) = json.loads(sarif_out)["runs"][0]["properties"]["kbAssessment"]
    assert assessment["suggestions"] == 1 and assessment["fallback_calls_after_rewrites"] == 0


# --- joint graphs ----------------------------------------------------------------------------


def test_a_joint_graph_labels_backward_ops_backward(exports):
    t = traced(exports["joint"])
    assert t.train
    phases = {}
    for site in t.sites:
        phases.setdefault(site.op, set()).add(site.phase)
    assert phases["aten::addmm"] == {"forward"} and phases["aten::gelu"] == {"forward"}
    assert "backward" in phases["aten::mm"] and phases["aten::full_like"] == {"backward"}
    assert all(site.module_path != "" for site in t.sites)  # not recorded is unknown, never "(root)"
    # joint graphs record no module stack: the parameters read, or whose gradient a call makes, say it
    assert {s.module_path for s in t.sites if s.op == "aten::addmm"} == {"fc"}
    assert {s.module_path for s in t.sites if s.op == "aten::mm"} == {"fc"}
    report = report_for(exports["joint"], table())
    assert {op.op: op.phases for op in report.ops}["aten::mm"] == ["backward"]
    assert any("labelled backward" in note for note in report.notes)


# --- caveats that match the call ---------------------------------------------------------------


def test_a_size_conditioned_caveat_fires_above_its_size_and_not_below(exports):
    from kb.check.warnings import _trigger

    caveat = {"dtypes": ["float32"], "conditions": {"query.size(-2)": {"min": 64}}, "mode": "eager"}
    for name, fires in (("attention_long", True), ("attention_short", False)):
        (site,) = [s for s in traced(exports[name]).sites if s.op == "aten::scaled_dot_product_attention"]
        why = _trigger(caveat, site, "eager", False)
        assert (why is not None) is fires, name
        if fires:
            assert "query.size(-2) = 128" in why
    bf16_only = {**caveat, "dtypes": ["bfloat16"]}
    (site,) = [s for s in traced(exports["attention_long"]).sites if s.op == "aten::scaled_dot_product_attention"]
    assert _trigger(bf16_only, site, "eager", False) is None


def test_unmatched_caveats_are_counted_in_one_line(small_data, isolated_kb, exports):
    from kb.check.warnings import hooks_for
    from kb.store import records as rec
    from kb.store.ingest import ingest_records
    from tests.conftest import op_status

    def caveat(size):
        return rec.Caveat(op="aten::scaled_dot_product_attention", target="neuron", kind="hang", family=True,
                          statement=f"hangs from {size} tokens", dtypes=("float32",),
                          conditions={"query.size(-2)": {"min": size}},
                          provenance=rec.Provenance(source_kind="field", source_name="t",
                                                    source_url="https://example.test/hang",
                                                    retrieved_at="2026-11-01T00:00:00+00:00"))

    ingest_records(str(isolated_kb), [op_status("aten::scaled_dot_product_attention", "native", version="2.14.3.0"),
                                      caveat(64), caveat(100_000)], source_name="test")
    t = traced(exports["attention_long"])
    report = kc.check(t, table(), target="neuron", backend_version="2.14.3.0", warning_hooks=hooks_for(None))
    assert [f["statement"] for f in report.caveats] == ["hangs from 64 tokens"]
    assert report.caveats_unmatched == 1
    assert sum("caveat" in n and "not shown" in n for n in report.notes) == 1


def test_every_format_carries_the_verdict(run_cli, exports):
    code, md, _ = run_cli("check", exports["pool"], "--format", "markdown")
    assert code == 0 and md.splitlines()[2].startswith("**neuron 2.33.0")
    code, xml, _ = run_cli("check", exports["pool"], "--format", "junit")
    assert code == 0 and '<property name="verdict" value="neuron 2.33.0' in xml
    assert xml.index("<properties>") < xml.index("<testcase")


def test_names_from_the_model_cannot_put_control_characters_in_the_lines():
    from types import SimpleNamespace

    from cli.check_assess import lines

    hazard = {"kind": "host_sync", "op": "aten::item", "module": "evil\x1b[2J\nfake: line", "mode": "eager",
              "effect": "host sync", "fix": "keep it a tensor", "source": "https://example.test", "calls": 1}
    report = SimpleNamespace(work=None, estimated_host_ms=None, hazards=[hazard], mode="eager", suggestions=[])
    (line,) = lines(report)
    assert "\x1b" not in line and "\n" not in line and "evil\\x1b[2J fake: line" in line  # visible form, as the table


def test_flop_formulas_of_the_common_families():
    from kb.check.callsites import CallSite, TensorSpec
    from kb.check.work import site_work

    def spec(*shape):
        return TensorSpec(tuple(shape), "float32")

    mm = CallSite(0, "aten::mm", args=(spec(8, 16), spec(16, 4)), outputs=(spec(8, 4),))
    linear = CallSite(0, "aten::linear", args=(spec(2, 3, 16), spec(4, 16)), outputs=(spec(2, 3, 4),))
    conv = CallSite(0, "aten::convolution", args=(spec(1, 3, 8, 8), spec(6, 3, 3, 3)), outputs=(spec(1, 6, 8, 8),))
    conv_back = CallSite(0, "aten::convolution_backward", args=(spec(1, 6, 8, 8), spec(1, 3, 8, 8), spec(6, 3, 3, 3)))
    attention = CallSite(0, "aten::scaled_dot_product_attention", args=(spec(1, 2, 8, 4),) * 3, outputs=(spec(1, 2, 8, 4),))
    view = CallSite(0, "aten::view", args=(spec(8, 16), (128,)), outputs=(spec(128),))
    gather = CallSite(0, "aten::gather", args=(spec(8, 16), 1, TensorSpec((8, 2), "int64")), outputs=(spec(8, 2),))
    assert site_work(mm).flops == 2 * 8 * 16 * 4
    assert site_work(linear).flops == 2 * 6 * 16 * 4
    assert site_work(conv).flops == 2 * (6 * 64) * (3 * 9)
    assert site_work(conv_back).flops == 2 * site_work(conv).flops
    assert site_work(attention).flops == 2 * (2 * 8 * 8) * (4 + 4) + 5 * (2 * 8 * 8)
    assert site_work(view) == site_work(view).__class__(0, 0, "flops")  # a view moves nothing
    counted = site_work(gather)
    assert counted.flops == 0 and counted.counted_by == "bytes" and counted.nbytes == 128 * 4 + 16 * 8 + 16 * 4


def test_any_op_the_export_gives_an_unbacked_size_is_a_data_dependent_hazard(tmp_path):
    """Not only the listed ops: a custom op whose output size depends on the data (its fake
    kernel asks for a new dynamic size) is found from the export's unbacked symbol."""
    import torch

    @torch.library.custom_op("kbtest27::keep_positive", mutates_args=(), schema="(Tensor x) -> Tensor")
    def keep_positive(x: torch.Tensor) -> torch.Tensor:
        return x[x > 0]

    @keep_positive.register_fake
    def _(x):
        return x.new_empty(torch.library.get_ctx().new_dynamic_size())

    class Model(torch.nn.Module):
        def forward(self, x):
            return keep_positive(x).sum()

    path = tmp_path / "custom.pt2"
    torch.export.save(torch.export.export(Model(), (torch.randn(8),)), str(path))
    t = traced(str(path))
    assert t.symbols["unbacked_by"] == {"u0": "kbtest27::keep_positive"}
    (neuron,) = hz.find(t, "neuron", "compile")
    assert neuron["kind"] == "data_dependent_shape" and neuron["op"] == "kbtest27::keep_positive"
    assert neuron["effect"].startswith("compile failure")
