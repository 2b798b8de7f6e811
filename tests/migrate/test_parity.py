"""`kb parity`: cpu against the simulator (and cuda where there is one). A model the
simulator runs exactly passes; a drifting cumsum kernel fails at large sizes and the
sweep flags the growth; bad inputs are one line and exit 2."""

from __future__ import annotations

import json
import math

import pytest

torch = pytest.importorskip("torch")

from kb.migrate import parity  # noqa: E402
from tests.migrate.conftest import run_fresh  # noqa: E402
from tests.migrate.models import factory  # noqa: E402


def test_tolerances_follow_the_output_dtype_unless_given():
    assert parity.tolerances_for("float32", None, None) == (1e-5, 1.3e-6)
    assert parity.tolerances_for("bfloat16", None, None) == (1e-5, 1.6e-2)
    assert parity.tolerances_for("int64", None, None) == (0.0, 0.0)
    assert parity.tolerances_for("bfloat16", 0.5, None) == (0.5, 1.6e-2)


def test_compare_outputs_measures_abs_and_rel_and_applies_the_tolerance():
    expected = torch.tensor([1.0, 2.0, 4.0])
    actual = torch.tensor([1.0, 2.0, 4.004])
    (diff,) = parity.compare_outputs(actual, expected)
    assert math.isclose(diff.max_abs, 0.004, rel_tol=1e-3) and math.isclose(diff.max_rel, 0.001, rel_tol=1e-3)
    assert diff.mismatched == 1 and not diff.passed
    # the same gap is within bfloat16's tolerance
    (bf16,) = parity.compare_outputs(actual.bfloat16(), expected.bfloat16())
    assert bf16.dtype == "bfloat16" and bf16.passed
    # NaN meets NaN; a shape mismatch is a failure with a note
    (nan,) = parity.compare_outputs(torch.tensor([math.nan]), torch.tensor([math.nan]))
    assert nan.passed and nan.max_abs == 0
    (shape,) = parity.compare_outputs(torch.zeros(2), torch.zeros(3))
    assert not shape.passed and "shape" in shape.note


def test_nested_outputs_are_compared_leaf_by_leaf():
    a = (torch.ones(2), {"h": torch.zeros(1)})
    diffs = parity.compare_outputs(a, a)
    assert [d.name for d in diffs] == ["output[0]", "output[1]['h']"] and all(d.passed for d in diffs)


def test_trend_flags_growth_and_not_noise():
    grows = parity.trend([128, 2048, 32768], [1e-6, 1e-5, 1e-4])
    assert grows["grows"] and 0.8 < grows["slope"] < 0.9
    flat = parity.trend([128, 2048, 32768], [1e-6, 1.2e-6, 0.9e-6])
    assert not flat["grows"]
    assert not parity.trend([128], [1.0])["grows"]
    assert parity.trend([1, 2, 3], [0, 0, 0])["reason"] == "outputs identical at every size"


def test_matching_model_passes_on_sim_over_a_sweep(run_cli):
    code, out, err = run_cli("parity", factory("mlp"), "--device", "sim", "--input-shape", "BxSx8", "--batch", "2",
                             "--sweep", "seq=4,16,64", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["passed"] and doc["device"] == "sim" and doc["ref"] == "cpu"
    assert [p["values"] for p in doc["points"]] == [{"batch": 2, "seq": s} for s in (4, 16, 64)]
    assert [p["shapes"] for p in doc["points"]] == [[[2, s, 8]] for s in (4, 16, 64)]
    assert all(p["max_abs"] == 0 for p in doc["points"])
    assert doc["trend"]["grows"] is False
    assert doc["tolerance"]["source"].startswith("torch.testing")


def test_positional_convention_token_ids_and_bfloat16(run_cli):
    """No placeholders: dim 0 is batch, dim 1 is seq. Int inputs stay ids below the
    embedding size; --dtype bfloat16 casts the weights and uses bfloat16 tolerances."""
    code, out, err = run_cli("parity", factory("tokens"), "--device", "sim", "--input-shape", "2x5:int64",
                             "--sweep", "seq=3,9", "--dtype", "bfloat16", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [p["shapes"] for p in doc["points"]] == [[[2, 3]], [[2, 9]]]
    outputs = doc["points"][0]["outputs"]
    assert [o["name"] for o in outputs] == ["output[0]", "output[1]"]
    assert {o["dtype"] for o in outputs} == {"bfloat16"} and outputs[0]["rtol"] == 1.6e-2


def test_table_output_names_the_verdict(run_cli):
    code, out, _ = run_cli("parity", factory("mlp"), "--device", "sim", "--input-shape", "2x3x8")
    assert code == 0
    assert "sim vs cpu" in out and "parity passed" in out and "max abs" in out


@pytest.mark.heavy  # a size sweep, ~2 s
def test_drifting_kernel_fails_at_size_and_the_sweep_flags_growth():
    """A fresh process: the drifting cumsum must not leak into the other tests' sim."""
    proc = run_fresh("parity", factory("running"), "--device", "sim", "--input-shape", "BxSx4", "--batch", "2",
                     "--sweep", "seq=16,256,4096", "--sim-drift", "aten::cumsum=1e-10", "--json")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert [p["passed"] for p in doc["points"]] == [True, True, False]
    errors = [p["max_abs"] for p in doc["points"]]
    assert errors == sorted(errors) and errors[-1] > 0
    assert doc["trend"]["grows"] and "grows" in doc["trend"]["reason"]
    assert doc["failed_points"] == ["batch=2 seq=4096"]


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_growth_within_tolerance_is_a_flag_unless_gated():
    args = ("parity", factory("running"), "--device", "sim", "--input-shape", "BxSx4", "--batch", "1",
            "--sweep", "seq=64,512,4096", "--sim-drift", "aten::cumsum=1e-10", "--rtol", "1e-3")
    proc = run_fresh(*args)
    assert proc.returncode == 0, proc.stderr
    assert "GROWS WITH SIZE" in proc.stdout and "parity passed" in proc.stdout
    gated = run_fresh(*args, "--fail-on-growth")
    assert gated.returncode == 1 and "parity FAILED" in gated.stdout


def test_exported_program_file_runs_with_its_stored_weights(run_cli, tmp_path):
    from tests.migrate.models import TokenMLP

    torch.manual_seed(3)
    model = TokenMLP().eval()
    path = tmp_path / "mlp.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(2, 4, 8),)), str(path))
    code, out, err = run_cli("parity", path, "--device", "sim", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["model_kind"] == "exported_program" and doc["points"][0]["shapes"] == [[2, 4, 8]]
    assert doc["passed"]


@pytest.mark.parametrize("args, message", [
    (("--device", "sim", "--input-shape", "BxSx8"), "no value for batch"),
    (("--device", "sim", "--input-shape", "2x4x8", "--sweep", "width=1,2"), "--sweep width=1,2"),
    (("--device", "sim", "--input-shape", "2x4x8", "--sweep", "seq=0"), "greater than 0"),
    (("--device", "sim", "--input-shape", "8", "--sweep", "seq=2,4"), "no input has a dim 1"),
    (("--device", "sim"), "give the model's inputs"),
    (("--device", "sim", "--input-shape", "2x4x8", "--dtype", "int8"), "--dtype int8"),
    (("--device", "not a device", "--input-shape", "2x4x8"), "expected a device name"),
    (("--device", "cpu", "--input-shape", "2x4x8", "--sim-drift", "aten::cumsum=1e-9"), "needs --device sim"),
    (("--device", "sim", "--input-shape", "2x4x8", "--atol", "-1"), "--atol"),
    (("--device", "sim", "--input-shape", "2xQx8"), "placeholders"),
])
def test_bad_inputs_are_one_line_and_exit_2(run_cli, args, message):
    code, out, err = run_cli("parity", factory("mlp"), *args)
    assert code == 2, (out, err)
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_missing_model_exits_2(run_cli, tmp_path):
    code, _, err = run_cli("parity", f"{tmp_path}/none.py:build", "--device", "sim", "--input-shape", "2x4")
    assert code == 2 and "no such file" in err


def test_cuda_against_cpu_or_a_clean_refusal(run_cli):
    args = ("parity", factory("mlp"), "--device", "cuda", "--input-shape", "2x4x8", "--json")
    if not torch.cuda.is_available():
        code, _, err = run_cli(*args)
        assert code == 2 and "cuda is not available" in err
        pytest.skip("no CUDA device here: checked the one-line refusal only")
    code, out, err = run_cli(*args, "--rtol", "1e-3", "--atol", "1e-4")  # TF32/cuBLAS differ from the CPU
    assert code == 0, err
    assert json.loads(out)["passed"]


def test_an_op_the_device_cannot_run_fails_the_point_with_its_error(run_cli):
    code, out, err = run_cli("parity", factory("positions"), "--device", "sim", "--input-shape", "2x3", "--json")
    assert code == 1, err
    (point,) = json.loads(out)["points"]
    assert not point["passed"] and point["error"].startswith("on sim: NotImplementedError")
    assert "aten::nonzero" in point["error"]
