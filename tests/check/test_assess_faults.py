"""Issue 27, the fresh-eyes faults: each test would have caught one of them (numbered as in
the lead's list). Models are made here and read from their .pt2 archives, as kb check does."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from kb.check import fixits as fx
from kb.check.callsites import CallSite, TensorSpec
from tests.check.test_assess import NATIVE, report_for, table, traced


@pytest.fixture(scope="session")
def models(tmp_path_factory):
    """{name: .pt2 path}, exported once."""
    import torch
    import torch.nn as nn

    class ConvBN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)

        def forward(self, x):
            return self.bn(self.conv(x))

    class Nonzero(nn.Module):
        def forward(self, x):
            return torch.nonzero(x > 0)

    class Unique(nn.Module):
        def forward(self, x):
            return torch.unique(x)

    class Erfc(nn.Module):
        def forward(self, x):
            return torch.erfc(x)

    class Gather(nn.Module):
        def forward(self, x, i):
            return torch.gather(x, 1, i)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            return torch.relu(self.fc(x))

    @torch.library.custom_op("kbfault27::mystery", mutates_args=(), schema="(Tensor x) -> Tensor")
    def mystery(x):
        return x.clone()

    @mystery.register_fake
    def _(x):
        return torch.empty_like(x)

    class Custom(nn.Module):
        def forward(self, x):
            return mystery(x) + 1

    root = tmp_path_factory.mktemp("faults")
    batch = torch.export.Dim("batch", min=1, max=64)
    made = {
        "convbn": (ConvBN().eval(), (torch.randn(1, 3, 8, 8),), None),
        "convbn_train": (ConvBN().train(), (torch.randn(2, 3, 8, 8),), None),
        "nonzero": (Nonzero(), (torch.randn(4, 4),), None),
        "unique": (Unique(), (torch.randn(16),), None),
        "erfc": (Erfc(), (torch.randn(4, 4),), None),
        "gather": (Gather(), (torch.randn(4, 8), torch.zeros(4, 2, dtype=torch.int64)), None),
        "mlp": (MLP(), (torch.randn(2, 8),), None),
        "dynamic": (MLP(), (torch.randn(2, 8),), ({0: batch},)),
        "custom": (Custom(), (torch.randn(4),), None),
    }
    out = {}
    for name, (model, args, dynamic) in made.items():
        program = torch.export.export(model, args, dynamic_shapes=dynamic)
        out[name] = str(root / f"{name}.pt2")
        torch.export.save(program, out[name])
        if name == "convbn":
            out["convbn_decomposed"] = str(root / "convbn_decomposed.pt2")
            torch.export.save(program.run_decompositions(), out["convbn_decomposed"])
    return out


def _use(monkeypatch, lookup):
    from cli import check as cli_check

    monkeypatch.setattr(cli_check, "make_lookup", lambda db, target, version, mode: (lookup, "2.33.0"))


# 1 ------------------------------------------------------------------------------------------


def test_fold_batchnorm_is_offered_for_every_eval_mode_export_form(models):
    for name, op in (("convbn", "aten::batch_norm"), ("convbn_decomposed", "aten::_native_batch_norm_legit_no_training")):
        sites = traced(models[name]).sites
        assert op in {s.op for s in sites}, name
        suggestions, _ = fx.suggest(sites, "neuron")
        assert "fold-batchnorm-for-inference" in {s["id"] for s in suggestions}, name
    # a training-mode export updates its statistics: nothing to fold
    suggestions, _ = fx.suggest(traced(models["convbn_train"]).sites, "neuron")
    assert "fold-batchnorm-for-inference" not in {s["id"] for s in suggestions}


# 2, 3, 10 -----------------------------------------------------------------------------------


def test_compile_line_agrees_with_the_verdict_and_every_format_counts_the_same_hazards(run_cli, models, monkeypatch):
    _use(monkeypatch, table())
    path = models["nonzero"]
    code, out, err = run_cli("check", path, "-t", "neuron", "-t", "tpu", "--mode", "compile")
    assert code == 0, err
    assert "no op breaks or fails" not in out and "no op or hazard" not in out
    compile_lines = [line for line in out.splitlines() if line.startswith("  compile:")]
    assert compile_lines[0].startswith("  compile: fails at aten::nonzero") and "1 compile hazard" in compile_lines[0]
    assert compile_lines[1].startswith("  compile: 1 graph break")
    table_counts = [sum(1 for line in block.splitlines() if line.startswith("  hazard ("))
                    for block in out.split("verdict: ")[1:]]
    assert table_counts == [1, 1]
    code, js, _ = run_cli("check", path, "-t", "neuron", "-t", "tpu", "--mode", "compile", "--json")
    reports = json.loads(js)["reports"]
    assert [len(r["hazards"]) for r in reports] == table_counts
    assert all(h["mode"] == "compile" for r in reports for h in r["hazards"])
    assert "fails at aten::nonzero" in reports[0]["verdict"]
    code, sarif, _ = run_cli("check", path, "-t", "neuron", "-t", "tpu", "--mode", "compile", "--format", "sarif")
    run = json.loads(sarif)["runs"][0]
    assert [a["hazards"] for a in run["properties"]["kbAssessment"]] == table_counts
    assert [(a["hazards_eager"], a["hazards_compile"]) for a in run["properties"]["kbAssessment"]] == [(0, 1), (0, 1)]
    code, xml, _ = run_cli("check", path, "-t", "neuron", "-t", "tpu", "--mode", "compile", "--format", "junit")
    got = [int(p.get("value")) for p in ET.fromstring(xml).iter("property") if p.get("name") == "hazards"]
    assert got == table_counts
    # eager reports carry both modes, and say so in every format
    code, js, _ = run_cli("check", path, "-t", "neuron", "--json")
    (report,) = json.loads(js)["reports"]
    assert sorted(h["mode"] for h in report["hazards"]) == ["compile", "eager"]


def test_sarif_lists_compile_failures_as_results_with_their_source(run_cli, models, monkeypatch):
    _use(monkeypatch, table())
    args = ("check", models["nonzero"], "-t", "neuron", "--mode", "compile", "--format", "sarif")
    for extra, level in (((), "warning"), (("--fail-on", "unsupported"), "error")):
        code, out, err = run_cli(*args, *extra)
        assert code in (0, 1), err
        (result,) = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "kb/compile-failure"]
        assert result["level"] == level
        assert result["properties"]["op"] == "aten::nonzero" and result["properties"]["source"].startswith("https://")
        assert "compile failure" in result["message"]["text"]


# 4 ------------------------------------------------------------------------------------------


def test_a_host_sync_on_an_op_that_falls_back_is_not_priced_twice(models):
    t = traced(models["unique"])
    (op,) = [s.op for s in t.sites if "unique" in s.op]
    report = report_for(models["unique"], table(**{op.replace("::", "__", 1).replace(".", "_DOT_"): "fallback"}))
    inputs = report.estimated_host_ms["inputs"]
    assert inputs["host_syncs"] == 0 and inputs["transitions"] == report.eager["transitions"]
    on_device = report_for(models["unique"], table())
    assert on_device.estimated_host_ms["inputs"]["host_syncs"] == 1  # on the device, the read-back is a wait


# 5 ------------------------------------------------------------------------------------------


def test_transcendentals_sort_cumsum_and_fft_count_flops():
    from kb.check.work import site_work

    def spec(*shape):
        return TensorSpec(tuple(shape), "float32")

    x = spec(4, 16)
    assert site_work(CallSite(0, "aten::erfc", args=(x,), outputs=(x,))).flops == 4 * 64
    assert site_work(CallSite(0, "aten::sort", args=(x, -1), outputs=(x,))).flops == 64 * 4
    assert site_work(CallSite(0, "aten::cumsum", args=(x, 1), outputs=(x,))).flops == 64
    fft = site_work(CallSite(0, "aten::_fft_r2c", args=(x,), named={"self": x, "dim": [1]}, outputs=(spec(4, 9),)))
    assert fft.flops == 64 * 4 and fft.counted_by == "flops"


def test_an_erfc_fallback_is_not_all_flops_on_the_device_and_a_bytes_only_model_says_so(models):
    report = report_for(models["erfc"], table(aten__erfc="fallback"))
    assert report.host_flops > 0 and report.device_flop_share == 0.0
    assert "(100% of FLOPs;" in report.verdict  # on the host: erfc's own FLOPs, no longer 0
    from cli.check_assess import lines

    assert lines(report)[0].startswith("  work: 0% of FLOPs")
    gathered = report_for(models["gather"], table(aten__gather="fallback"))
    assert gathered.device_flop_share is None and gathered.work["flops_counted"] is False
    assert "no FLOPs counted" in gathered.verdict and "100% of FLOPs" not in gathered.verdict

    assert any("no FLOPs counted (bytes only)" in line for line in lines(gathered))


# 6 ------------------------------------------------------------------------------------------


def test_json_ops_carry_flops_and_bytes(run_cli, models, monkeypatch):
    _use(monkeypatch, table())
    code, out, err = run_cli("check", models["mlp"], "--json")
    assert code == 0, err
    (report,) = json.loads(out)["reports"]
    ops = {op["op"]: op for op in report["ops"]}
    assert all("flops" in op and "bytes" in op for op in ops.values())
    assert sum(op["flops"] for op in ops.values()) == report["work"]["flops"]
    assert sum(op["bytes"] for op in ops.values()) == report["work"]["bytes"]
    (linear,) = [op for name, op in ops.items() if "linear" in name or "addmm" in name]
    assert linear["flops"] >= 2 * 2 * 8 * 4 and linear["bytes"] > 0
    code, out, _ = run_cli("check", models["nonzero"], "--json")
    for hazard in json.loads(out)["reports"][0]["hazards"]:
        assert "flops" in hazard and hazard["bytes"] > 0


# 7 ------------------------------------------------------------------------------------------


def test_the_dynamic_true_limitation_is_about_dynamic_exports_only():
    from kb.check.warnings import _FEATURE_TESTS

    test = _FEATURE_TESTS["torch.compile dynamic=True"]
    assert not test(set(), set(), "compile", False)
    assert test(set(), set(), "compile", True)
    assert not test(set(), set(), "eager", True)


# 8, 9 ---------------------------------------------------------------------------------------


def test_a_dynamic_dim_is_named_by_where_it_is_and_the_verdict_agrees_with_its_effect(models):
    from cli.check_assess import lines

    for target in ("neuron", "tpu"):
        report = report_for(models["dynamic"], table(), target=target, mode="compile")
        (hazard,) = report.hazards
        assert "rejects" not in hazard["effect"] and hazard["effect"].startswith("recompiles")
        assert "no known blocker" not in report.verdict
        assert "torch.compile: compiles, recompiles for every new size of input x dim 0" in report.verdict
        (line,) = [x for x in lines(report) if x.startswith("  hazard (")]
        assert "dynamic dim): input x dim 0 (s" in line


def test_an_unknown_op_is_unknown_under_compile_on_both_targets(models):
    lookup = lambda op: None if op.startswith("kbfault27::") else NATIVE  # noqa: E731
    for target in ("neuron", "tpu"):
        report = report_for(models["custom"], lookup, target=target, mode="compile")
        assert report.compile["graph_breaks"] == 0
        assert "torch.compile: unknown" in report.verdict, report.verdict
        assert "no evidence for kbfault27::mystery" in report.verdict and "would settle it" in report.verdict


# 11 -----------------------------------------------------------------------------------------


def test_a_reversed_cost_range_is_refused_in_one_line(run_cli, models):
    code, _out, err = run_cli("check", models["mlp"], "--cost-latency-us", "5:1")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "LOW is above HIGH" in err

