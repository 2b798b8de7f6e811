"""On the shipped KB, the dispatcher replay answers every op: a transformer or a convnet
checked against neuron has no unknown op, and each verdict says what it rests on."""

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


@pytest.mark.parametrize("model", ["block", "convnet"])
def test_a_real_shaped_model_has_no_unknown_op_on_neuron(saved, shipped, capsys, model):
    code, out, err = run_kb(capsys, "check", saved[model]["exported_program"], "--target", "neuron", "--json",
                            "--db", shipped)
    assert code == 0, err
    (report,) = json.loads(out)["reports"] if "reports" in json.loads(out) else [json.loads(out)]
    statuses = {op["op"]: op["status"] for op in report["ops"]}
    assert "unknown" not in statuses.values(), statuses
    assert {op["basis"] for op in report["ops"]} <= {"evidence", "doc rule", "inferred", "presumed"}
    assert report["backend_version"] == "2.14.3.1"  # the newest package: Neuron 2.34's


def test_normal_falls_back_on_neuron_with_its_basis(shipped, capsys):
    code, out, _err = run_kb(capsys, "op", "aten::normal_", "--target", "neuron", "--json", "--db", shipped)
    assert code == 0
    rows = json.loads(out)["ops"][0]["verdicts"]
    eager = {r["backend_version"]: r for r in rows if r["mode"] == "eager"}
    assert eager["2.14.3.0"]["status"] == "fallback" and eager["2.14.3.0"]["basis"] == "presumed"
    assert eager["0.1.0.dev0+g98154b8"]["basis"] == "inferred"
    assert any("pre-release" in note for note in json.loads(out)["basis_notes"])
    code, out, err = run_kb(capsys, "op", "aten::normal_", "--target", "neuron", "--db", shipped)
    assert "presumed ᵖ" in out and "presumed from the pre-release snapshot 0.1.0.dev0+g98154b8" in err
    assert "basis:" in err


def test_sdpa_on_tpu_says_where_its_leaves_run(shipped, capsys):
    code, out, _err = run_kb(capsys, "op", "aten::scaled_dot_product_attention", "--target", "tpu", "--json",
                             "--db", shipped)
    assert code == 0
    (eager,) = [r for r in json.loads(out)["ops"][0]["verdicts"] if r["mode"] == "eager" and r["backend_version"] == "0.2.0"]
    assert eager["status"] == "decomposed" and eager["effective_status"] == "decomposed"
    assert "aten::bmm.out" in eager["effective_via"]["leaves"]
    code, out, _err = run_kb(capsys, "op", "aten::scaled_dot_product_attention", "--target", "tpu", "--db", shipped)
    assert "leaves on the device" in out


def test_linalg_qr_is_pinned_to_the_cpu_on_neuron(shipped, capsys):
    code, out, _err = run_kb(capsys, "ops", "--target", "neuron", "--status", "fallback", "--grep", "linalg_qr",
                             "--json", "--db", shipped)
    assert code == 0
    ops = {r["op"] for r in json.loads(out)["ops"]}
    assert "aten::linalg_qr" in ops


def test_diff_lists_kernels_gained_between_two_tpu_versions(shipped, capsys):
    code, out, _err = run_kb(capsys, "diff", "tpu", "0.1.1", "0.2.0", "--json", "--db", shipped)
    assert code == 0
    result = json.loads(out)
    assert len(result["gained"]) > 100 and all(r["new"] == "native" for r in result["gained"])
    code, _out, err = run_kb(capsys, "diff", "nosuch", "0.1.1", "0.2.0", "--db", shipped)
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_an_sdk_release_resolves_to_its_packages_and_says_it_is_presumed(saved, shipped, capsys):
    code, out, err = run_kb(capsys, "check", saved["block"]["exported_program"], "--target", "neuron",
                            "--backend-version", "neuron=2.33", "--db", shipped)
    assert code == 0, err
    assert "on neuron 2.14.3.0" in out and "presumed from 0.1.0.dev0+g98154b8 (a pre-release snapshot)" in out
    code, out, _err = run_kb(capsys, "ops", "--target", "neuron", "--version", "2.33", "--json", "--db", shipped)
    assert code == 0 and json.loads(out)["backend_version"] == "2.14.3.0"
