"""`kb op nn.Linear`: a torch.nn module is the ATen ops its forward dispatches (the shipped
module map), with one line per target, its training step, and each op's verdict rows."""

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


@pytest.mark.parametrize("spelling", ["nn.Linear", "torch.nn.Linear", "Linear"])
def test_linear_json(capsys, shipped, spelling):
    code, out, err = run_kb(capsys, "op", spelling, "-t", "tpu", "-t", "neuron", "--json", "--db", shipped)
    assert code == 0, err
    page = json.loads(out)
    module = page["module"]
    assert module["kind"] == "module" and module["name"] == "torch.nn.Linear" and module["asked"] == spelling
    assert module["forward"] == ["aten::view", "aten::t", "aten::addmm"] and module["map"] == "modules/torch-2.13.0.json"
    assert module["constructor"] == "Linear(16, 8)" and module["inputs"] == ["float32[2, 4, 16]"]
    assert module["device"] == "meta" and "aten::mm" in module["training_ops"]
    assert [e["op"] for e in page["ops"]] == module["forward"]
    assert all(e["related"] == [] for e in page["ops"])  # a layer's page lists its ops, not their neighbours
    tpu = next(s for s in module["summary"] if s["target"] == "tpu")
    assert tpu["version"] == "0.2.0" and tpu["total"] == 3 and sum(tpu["counts"].values()) == 3
    assert tpu["line"].startswith("tpu 0.2.0: 3 of 3 ops ")
    assert {o["op"] for o in tpu["ops"]} == set(module["forward"])
    assert all(o["basis"] in ("evidence", "inferred", "presumed") for o in tpu["ops"])
    rows = next(t for t in page["ops"][2]["targets"] if t["target"] == "tpu")["rows"]
    assert rows and all(r["basis"] for r in rows)  # the usual verdict rows, with basis


def test_linear_text(capsys, shipped):
    code, out, err = run_kb(capsys, "op", "nn.Linear", "-t", "tpu", "--db", shipped)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("torch.nn.Linear is a module: its forward dispatches 3 ATen ops (Linear(16, 8) on "
                               "float32[2, 4, 16], meta tensors, eval mode, torch 2.13.0; modules/torch-2.13.0.json)")
    assert lines[1].startswith("  tpu 0.2.0: 3 of 3 ops ")
    assert lines[2].startswith("    training step: ")
    assert "aten::addmm" in out and "aten::addmm  — aten::addmm(Tensor self" in out
    assert "static probe" in out  # each op's rows keep their source


def test_a_version_asked_and_a_target_without_evidence(capsys, shipped):
    code, out, _ = run_kb(capsys, "op", "nn.LSTM", "-t", "tpu=0.1.1", "-t", "cuda", "--json", "--db", shipped)
    assert code == 0
    summary = {s["target"]: s for s in json.loads(out)["module"]["summary"]}
    assert summary["tpu"]["version"] == "0.1.1"
    assert summary["cuda"]["version"] is None and summary["cuda"]["counts"] == {"unknown": summary["cuda"]["total"]}
    assert "kb probe --static" in summary["cuda"]["settle"]


def test_dropout_forward_is_empty_in_eval(capsys, shipped):
    code, out, _ = run_kb(capsys, "op", "nn.Dropout", "-t", "tpu", "--db", shipped)
    assert code == 0
    assert "forward dispatches no ATen ops" in out and "tpu: nothing dispatched to run" in out
    assert "training step:" in out and "training-step ops × targets" in out and "aten::bernoulli_.float" in out


def test_op_names_stay_ops_and_unknown_modules_say_so(capsys, shipped):
    code, out, _ = run_kb(capsys, "op", "linear", "-t", "tpu", "--json", "--db", shipped)
    assert code == 0 and "module" not in json.loads(out)
    assert json.loads(out)["ops"][0]["op"] == "aten::linear"
    code, out, err = run_kb(capsys, "op", "nn.Lniear", "--db", shipped)
    assert code == 2 and out == "" and err.count("\n") == 1 and "torch.nn.Linear" in err
    code, _, err = run_kb(capsys, "op", "nn.Lniear", "--json", "--db", shipped)
    assert code == 2 and "did you mean" in err


def test_fast_path_prints_the_same(capsys, shipped):
    from cli import fast

    code = fast.try_run(["op", "nn.GELU", "-t", "tpu", "--db", shipped])
    fast_out = capsys.readouterr().out
    code2, out, _ = run_kb(capsys, "op", "nn.GELU", "-t", "tpu", "--verbose", "--db", shipped)
    assert code == 0 and code2 == 0
    assert fast_out.splitlines()[:3] == out.splitlines()[:3]


def test_module_page_never_imports_torch(shipped, tmp_path):
    import subprocess
    import sys

    from tests.conftest import REPO

    code = ("import sys, io, contextlib\nfrom cli.entry import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    rc = main(['op', 'nn.MultiheadAttention', '-t', 'tpu', '--db', {shipped!r}])\n"
            "from kb.chat.answer import answer\n"
            f"answer('does nn.LSTM work on tpu?', db={shipped!r})\n"
            "assert rc == 0 and 'torch' not in sys.modules, rc\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=str(REPO), capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "KB_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr


def test_a_container_is_no_layer(capsys, shipped):
    code, out, err = run_kb(capsys, "op", "nn.Sequential", "--db", shipped)
    assert code == 2 and out == "" and "has no forward of its own" in err and err.count("\n") == 1
