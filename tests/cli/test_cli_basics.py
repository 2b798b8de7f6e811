"""The CLI as a user meets it: exit codes, one-line errors, JSON, the fast path."""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, run_kb


def test_op_json_lists_a_verdict_per_target_with_its_source(filled, capsys):
    code, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "--json")
    assert code == 0
    (entry,) = json.loads(out)["ops"]
    got = {v["target"]: (v["status"], v["source_url"]) for v in entry["verdicts"]}
    assert got == {"neuron": ("native", "https://example.test/doc"), "tpu": ("fallback", "https://example.test/tpu")}
    assert entry["catalog"]["composite_explicit"] is True


@pytest.mark.parametrize("spelling", ["torch.ops.aten.add.Tensor", "aten.add.Tensor", "add.Tensor"])
def test_op_accepts_every_spelling(filled, capsys, spelling):
    code, out, _ = run_kb(capsys, "op", spelling, "--json")
    assert code == 0 and json.loads(out)["ops"][0]["op"] == "aten::add.Tensor"


def test_bare_name_lists_every_overload(filled, capsys):
    code, out, _ = run_kb(capsys, "op", "add", "--json")
    assert [e["op"] for e in json.loads(out)["ops"]] == ["aten::add.Scalar", "aten::add.Tensor", "aten::add.out"]


def test_unknown_op_is_one_line_with_suggestions(filled, capsys):
    code, out, err = run_kb(capsys, "op", "nonzer")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == ["kb: error: unknown operator 'nonzer' — did you mean nonzero?"]


def test_wrong_overload_suggests_the_real_ones(filled, capsys):
    code, _, err = run_kb(capsys, "op", "add.Tensr")
    assert code == 2 and "aten::add.Tensor" in err


def test_unknown_target_and_status_are_usage_errors(filled, capsys):
    assert run_kb(capsys, "ops", "--target", "gpu9")[0] == 2
    assert run_kb(capsys, "ops", "--target", "neuron", "--status", "partial")[0] == 2
    assert run_kb(capsys, "compare", "neuron", "nope")[0] == 2


def test_ops_and_compare(filled, capsys):
    code, out, _ = run_kb(capsys, "ops", "--target", "neuron", "--status", "fallback", "--json")
    assert code == 0 and [r["op"] for r in json.loads(out)["ops"]] == ["aten::nonzero"]
    code, out, _ = run_kb(capsys, "compare", "neuron", "tpu", "--json")
    rows = {r["op"]: (r["neuron"], r["tpu"]) for r in json.loads(out)["rows"]}
    assert rows == {"aten::add.Tensor": ("native", "fallback"), "aten::nonzero": ("fallback", "native")}
    code, out, _ = run_kb(capsys, "compare", "neuron", "tpu")
    assert code == 0 and "✔ native" in out and "⇄ fallback" in out


def test_ops_unknown_lists_catalog_ops_without_verdicts(filled, capsys):
    code, out, _ = run_kb(capsys, "ops", "--target", "neuron", "--status", "unknown", "--json")
    assert "aten::relu" in [r["op"] for r in json.loads(out)["ops"]]


def test_targets_and_db_commands(filled, capsys):
    code, out, _ = run_kb(capsys, "targets", "--json")
    neuron = next(t for t in json.loads(out)["targets"] if t["name"] == "neuron")
    assert neuron["versions"] == ["2.14.3.0"] and neuron["eager_counts"] == {"native": 1, "fallback": 1}
    code, out, _ = run_kb(capsys, "db", "stats", "--json")
    assert json.loads(out)["tables"]["observation"] == 4
    code, out, _ = run_kb(capsys, "db", "path")
    assert out.strip() == str(filled)


def test_corrupt_kb_is_one_line_exit_2(tmp_path, capsys, small_data):
    bad = tmp_path / "garbage.sqlite"
    bad.write_bytes(os.urandom(4096))
    code, _, err = run_kb(capsys, "op", "add", "--db", str(bad))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not a kb database" in err
    code, _, err = run_kb(capsys, "targets", "--db", str(bad))
    assert code == 2 and "not a kb database" in err


def test_fast_path_prints_what_the_typer_command_prints(filled, capsys):
    from cli import fast

    assert fast.try_run(["op", "nonzero", "--json"]) == 0
    fast_out = capsys.readouterr().out
    from cli.app import app

    with pytest.raises(SystemExit):
        app(args=["op", "nonzero", "--json"], prog_name="kb")
    assert capsys.readouterr().out == fast_out
    assert fast.try_run(["op", "--help"]) is None  # help and unknown flags go to typer


def test_console_script_never_prints_a_traceback(filled, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for args in (["op", "???"], ["op", "add", "--db", str(tmp_path)], ["compare"], ["nope"]):
        proc = subprocess.run([sys.executable, "-m", "cli.entry", *args], capture_output=True, text=True, env=env)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [["op", "aten::add.Tensor"], ["op", "add", "--json"], ["ops", "--target", "neuron"],
                                  ["targets"], ["--help"], ["check", "--help"]])
def test_a_closed_pipe_ends_quietly(filled, args):
    """`kb ... | head` when head has gone: exit 0 or 141 (SIGPIPE's), nothing on stderr."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "cli.entry", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # the reader is gone before the first write
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (0, 141), err
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipe" not in err
