"""The README's promises for every command, found by walking the typer app (a new
command is covered the day it is added, or this test names it as missing):
`--json` prints one JSON object in the envelope, a usage error is one line on stderr
with exit 2, a single-value option given twice is refused, targets repeat and take
TARGET=VERSION."""

from __future__ import annotations

import json

import pytest
import typer

from cli import grammar
from cli.app import app
from kb.store.ingest import ingest_records
from tests.conftest import op_status, run_kb


def _commands(group=None, path=()):
    group = group or typer.main.get_command(app)
    for name, sub in sorted(group.commands.items()):
        if hasattr(sub, "commands"):
            yield from _commands(sub, (*path, name))
        else:
            yield " ".join((*path, name)), sub


COMMANDS = dict(_commands())


def _no_server(monkeypatch):
    """Servers print where they listen, then would serve forever: stop them at the door."""
    from kb.chat import bot, mcp_server
    from kb.serve import launch

    monkeypatch.setattr(launch, "serve", lambda *a, **k: None)
    monkeypatch.setattr(mcp_server, "serve", lambda *a, **k: None)

    class _Server:
        def run(self):
            return None

    monkeypatch.setattr(bot, "make_server", lambda *a, **k: _Server())


# The cheapest real invocation of each command with --json (tmp: the test's folder).
# Commands that trace a model or import torch run on a one-layer factory.
JSON_CALLS = {
    "version": [],
    "op": ["aten::add.Tensor"],
    "ops": ["--target", "neuron"],
    "compare": ["neuron", "tpu"],
    "diff": ["tpu", "0.1.1", "0.2.0"],
    "targets": [],
    "disagreements": [],
    "ingest": ["--list"],
    "eol": [],
    "audit": ["{tmp}/code"],
    "cost": ["--price-per-hour", "1", "--tokens-per-second", "10"],
    "serve": ["--get", "/kb.json"],
    "probe": ["--compare-static"],
    "replay": ["--no-ingest", "--no-trace", "data/replay/tpu-0.1.1.json"],
    "check": ["{tmp}/model.py:build", "--input-shape", "2x4"],
    "ask": ["help"],
    "mcp": ["--http", "--port", "1"],
    "bot": ["--signing-secret", "s", "--port", "1"],
    "parity": ["{tmp}/model.py:build", "--device", "sim", "--input-shape", "2x4"],
    "bench": ["{tmp}/model.py:build", "--device", "cpu", "--input-shape", "2x4", "--iters", "1", "--warmup", "0"],
    "report": [],
    "db path": [],
    "db build": [],
    "db stats": [],
    "db catalog": [],
    "data export": ["--out", "{tmp}/export"],
    "fix": ["{tmp}/model.pt2", "--out", "{tmp}/fixed.pt2"],
    "ci check": [],
    "ci audit": ["{tmp}/code/train.py"],
    "gallery": [],
}
TORCH_COMMANDS = {"check", "parity", "bench", "db catalog", "fix"}  # import torch: seconds each


def test_every_command_has_a_json_call():
    assert set(COMMANDS) == set(JSON_CALLS), "add the new command to JSON_CALLS"


@pytest.fixture
def world(small_data, isolated_kb, tmp_path, monkeypatch):
    ingest_records(str(isolated_kb), [
        op_status("aten::add.Tensor", "native", target="neuron", version="2.14.3.0"),
        op_status("aten::add.Tensor", "fallback", target="tpu", version="0.1.1", name="tpu-doc"),
        op_status("aten::add.Tensor", "native", target="tpu", version="0.2.0", name="tpu-doc"),
        op_status("aten::nonzero", "native", target="tpu", version="0.2.0", name="tpu-doc"),
    ], source_name="doc")
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "train.py").write_text("import torch\nx = torch.ones(2).cuda()\n")
    (tmp_path / "model.py").write_text("import torch\n\ndef build():\n    return torch.nn.Linear(4, 4)\n")
    _no_server(monkeypatch)
    monkeypatch.chdir(__import__("tests.conftest", fromlist=["REPO"]).REPO)
    return tmp_path


@pytest.mark.parametrize("command", [c if c not in TORCH_COMMANDS else pytest.param(c, marks=pytest.mark.heavy)
                                     for c in sorted(JSON_CALLS)])
def test_every_command_prints_json_in_the_envelope(world, capsys, command):
    args = [a.format(tmp=world) for a in JSON_CALLS[command]]
    if command == "fix":  # kb fix rewrites an export: make one
        import torch

        program = torch.export.export(torch.nn.AdaptiveAvgPool1d(1), (torch.ones(1, 2, 8),))
        torch.export.save(program, str(world / "model.pt2"))
    code, out, err = run_kb(capsys, *command.split(), *args, "--json")
    assert code in (0, 1), err
    doc = json.loads(out)
    assert isinstance(doc, dict), out[:200]
    assert list(doc)[:2] == ["kb_version", "command"] and doc["command"] == command


@pytest.mark.parametrize("command", sorted(JSON_CALLS))
def test_every_usage_error_is_one_line_exit_2(small_data, capsys, command):
    code, out, err = run_kb(capsys, *command.split(), "--no-such-flag")
    lines = [line for line in err.splitlines() if "(first use)" not in line]
    assert code == 2 and out == "" and len(lines) == 1, err
    assert lines[0].startswith("kb: error: ") and "--no-such-flag" in lines[0] and f"kb {command} --help" in lines[0]


@pytest.mark.parametrize("args", [["nope"], ["op"], ["compare"], ["db", "nope"], ["eol", "--within"],
                                  ["serve", "--port", "notanumber"]])
def test_other_usage_errors_are_one_line(small_data, capsys, args):
    code, out, err = run_kb(capsys, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith("kb: error: "), err


@pytest.mark.parametrize("command", sorted(JSON_CALLS))
def test_a_single_value_option_given_twice_is_refused(small_data, capsys, command):
    """--db is taken by most commands; otherwise the command's first single-value option."""
    cmd = COMMANDS[command]
    single = [p for p in cmd.params if p.param_type_name == "option" and not p.multiple and not p.is_flag]
    if not single:
        pytest.skip(f"kb {command} has no single-value option")
    option = next((p for p in single if "--db" in p.opts), single[0]).opts[0]
    code, _, err = run_kb(capsys, *command.split(), option, "x", option, "y")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "given twice" in err, err


def test_targets_repeat_and_take_versions(world, capsys):
    code, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "-t", "neuron", "-t", "tpu=0.1.1", "--json")
    assert code == 0
    (entry,) = json.loads(out)["ops"]
    assert {(v["target"], v["backend_version"]) for v in entry["verdicts"]} == {("neuron", "2.14.3.0"),
                                                                                 ("tpu", "0.1.1")}
    code, out, _ = run_kb(capsys, "compare", "--target", "neuron", "--target", "tpu=0.1.1", "--json")
    assert json.loads(out)["versions"] == {"neuron": "2.14.3.0", "tpu": "0.1.1"}
    code, out, _ = run_kb(capsys, "ops", "--target", "tpu=0.1.1", "--json")
    assert json.loads(out)["backend_version"] == "0.1.1"


def test_one_name_for_the_version_flag_old_spelling_kept(world, capsys):
    new = run_kb(capsys, "ops", "-t", "tpu", "--backend-version", "0.1.1", "--json")
    old = run_kb(capsys, "ops", "-t", "tpu", "--version", "0.1.1", "--json")
    assert new[0] == old[0] == 0 and json.loads(new[1])["backend_version"] == "0.1.1" and new[1] == old[1]
    code, help_text, _ = run_kb(capsys, "ops", "--help")
    assert code == 0 and "--backend-version" in help_text and "--version " not in help_text


def test_ops_with_two_targets_points_to_compare(world, capsys):
    code, _, err = run_kb(capsys, "ops", "-t", "neuron", "-t", "tpu")
    assert code == 2 and "kb compare --target neuron --target tpu" in err


def test_readable_source_column(world, capsys):
    code, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "-t", "tpu")
    assert "doc · tpu-doc · https://example.test/doc" in out and "doc: " not in out


def test_progress_lines_off_a_terminal(capsys, monkeypatch):
    import time

    from cli.progress import Heartbeat

    with Heartbeat("quiet", first_after=0.01, every=0.01):  # not asked for: stderr stays for the error line
        time.sleep(0.05)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("KB_PROGRESS", "lines")
    with Heartbeat("tracing", first_after=0.05, every=0.05) as beat:
        beat.update("3 of 9 ops")
        time.sleep(0.2)
    err = capsys.readouterr().err
    assert err.startswith("kb: tracing… ") and "(3 of 9 ops)" in err


def _readme_kb_lines():
    import re
    import shlex

    from tests.conftest import REPO

    text = (REPO / "README.md").read_text(encoding="utf-8")
    for block in re.findall(r"```(?:sh|bash|console)?\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = re.split(r"\s#\s", line)[0].strip()
            if line.startswith("kb ") and "..." not in line:
                yield shlex.split(line)[1:]


@pytest.mark.parametrize("args", list(_readme_kb_lines()), ids=" ".join)
def test_every_readme_example_parses(args):
    """Each `kb …` line of the README names real commands and options with the values
    they need (the parity example once lacked --batch; placeholders like RUN_ID pass)."""
    path = grammar.command_path(typer.main.get_command(app), args)
    cmd = COMMANDS[path]
    rest = args[args.index(path.split()[-1]) + 1:]
    assert grammar.repeated_option(cmd, rest) is None
    cmd.make_context(f"kb {path}", list(rest))
    if path == "parity" and any("B" in a.split(":")[0] for a in rest if "x" in a):
        assert "--batch" in rest or any(a.startswith("batch=") for a in rest), "B needs --batch or --sweep batch="
