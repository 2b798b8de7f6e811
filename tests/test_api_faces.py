"""kb.op, kb.ops, kb.eol and kb.ask return exactly what the commands' --json print (less
the kb_version/command envelope), print nothing, and raise one-line KBErrors."""

from __future__ import annotations

import json

import pytest

import kb


def _cli(capsys, *args) -> tuple[int, dict]:
    from cli.entry import main

    code = main([*args, "--json"])
    doc = json.loads(capsys.readouterr().out)
    return code, {k: v for k, v in doc.items() if k not in ("kb_version", "command")}


CASES = [
    (lambda: kb.op("aten::nonzero", targets=["tpu", "neuron=2.33"]), ["op", "aten::nonzero", "-t", "tpu", "-t", "neuron=2.33"]),
    (lambda: kb.op("silu"), ["op", "silu"]),
    (lambda: kb.ops("tpu", status="fallback"), ["ops", "--target", "tpu", "--status", "fallback"]),
    (lambda: kb.ops("neuron", grep="conv", mode="compile"), ["ops", "-t", "neuron", "--grep", "conv", "--mode", "compile"]),
    (lambda: kb.eol("python", today="2026-12-01"), ["eol", "python", "--today", "2026-12-01"]),
    (lambda: kb.eol(stack="neuron=2.33 torch=2.9 python=3.11", within="90d", today="2026-12-01"),
     ["eol", "--stack", "neuron=2.33 torch=2.9 python=3.11", "--within", "90d", "--today", "2026-12-01"]),
    (lambda: kb.ask("is nonzero native on tpu 0.2.0?"), ["ask", "is nonzero native on tpu 0.2.0?"]),
]


@pytest.mark.parametrize("call,argv", CASES, ids=[" ".join(argv[:2]) for _, argv in CASES])
def test_the_api_returns_the_command_s_json(call, argv, capsys):
    result = call()
    assert capsys.readouterr() == ("", "")  # not even the first use's build line
    _code, doc = _cli(capsys, *argv)
    assert json.loads(json.dumps(result, default=str)) == doc


def test_the_eol_gate_is_the_command_s_exit_code(capsys):
    from kb.eol.api import tripped

    result = kb.eol(stack="neuron=2.33 torch=2.9 python=3.11", within="3650d", today="2026-12-01")
    code, _doc = _cli(capsys, "eol", "--stack", "neuron=2.33 torch=2.9 python=3.11", "--within", "3650d",
                      "--today", "2026-12-01")
    assert tripped(result) == (code == 1)


def test_notes_go_to_on_note_not_to_stderr(capsys):
    seen: list[str] = []
    kb.op("add.Tensor", targets=["neuron=2.33"], on_note=seen.append)
    assert capsys.readouterr().err == ""
    assert any("first use" in line for line in seen) and any("2.33" in line for line in seen)
