"""The Python API of `kb check` (kb.check(...) -> CheckResult): the same verdicts as the CLI's
JSON for a path, an ExportedProgram in memory and an nn.Module; the gate and waivers; the
formats; errors of one line; nothing printed."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

import kb
from kb.errors import KBError
from tests.check.check_fixtures import lookup_for

STAND_IN = {"lookup": lambda db, target, version, mode: (lookup_for(target), version or "2.33.0"),
            "warning_hooks": lambda db: []}


def _cli_json(run_cli, *args) -> dict:
    code, out, err = run_cli("check", *args, "--format", "json")
    assert code in (0, 1), err
    return json.loads(out)


def _verdicts(doc: dict) -> dict:
    return {r["target"]: {op["op"]: op["status"] for op in r["ops"]} for r in doc["reports"]}


def _ops(doc: dict) -> dict:
    """Every op's whole entry per target (all but where the model came from)."""
    return {r["target"]: r["ops"] for r in doc["reports"]}


@pytest.mark.parametrize("name", ["mlp", "block", "spectral"])
def test_a_path_a_program_and_a_module_give_the_cli_s_verdicts(run_cli, saved, name):
    """The stand-in KB (two targets that differ): the API on the saved archive, on the
    ExportedProgram in memory and on the module itself says what `kb check --json` says."""
    import torch

    from kb.check.tracing import parse_input_shape
    from tests.check import model_zoo

    entry = saved[name]
    cli = _cli_json(run_cli, entry["exported_program"], "-t", "neuron", "-t", "tpu")
    on_path = kb.check(entry["exported_program"], targets=("neuron", "tpu"), **STAND_IN)
    in_memory = kb.check(entry["program"], targets=("neuron", "tpu"), **STAND_IN)
    factory, shapes = model_zoo.MODELS[name]
    module = getattr(model_zoo, factory)()
    inputs = tuple(torch.zeros(*spec.shape, dtype=getattr(torch, spec.dtype)) for spec in map(parse_input_shape, shapes))
    on_module = kb.check(module, inputs, targets=("neuron", "tpu"), **STAND_IN)
    assert _ops(json.loads(on_path.to_json())) == _ops(cli)
    assert on_path.verdicts() == _verdicts(cli)
    assert _ops(json.loads(in_memory.to_json())) == _ops(cli)  # the archive's reader, in memory
    assert on_module.verdicts() == _verdicts(cli)
    assert in_memory.model_kind == "exported_program" and on_module.model_kind == "nn_module"


@pytest.mark.heavy  # builds the shipped KB and resolves two targets against it twice (~15 s on 2 cores)
def test_the_real_kb_agrees_with_the_cli(saved, capsys):
    """The shipped KB, both targets: API and CLI give the same reports; the API prints nothing."""
    from cli.entry import main

    path = saved["block"]["exported_program"]
    result = kb.check(saved["block"]["program"], targets=["neuron", "tpu"])
    assert capsys.readouterr() == ("", "")  # not even the KB's first-use build line
    assert main(["check", path, "-t", "neuron", "-t", "tpu", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert result.verdicts() == _verdicts(cli)
    assert [r["summary"] for r in cli["reports"]] == list(result.summaries().values())
    assert [r["backend_version"] for r in cli["reports"]] == [r.backend_version for r in result.reports]


def test_a_module_is_left_as_it_was(saved):
    import torch

    from tests.check import model_zoo

    module = model_zoo.MLP().train()
    before = {k: v.clone() for k, v in module.state_dict().items()}
    result = kb.check(module, torch.zeros(2, 8), **STAND_IN)
    assert module.training and all(p.device.type == "cpu" for p in module.parameters())
    assert all(torch.equal(before[k], v) for k, v in module.state_dict().items())
    assert result["neuron"].ops and result.model == "MLP"
    shaped = kb.check(module, ["2x8"], **STAND_IN)  # shapes instead of tensors
    assert shaped.verdicts() == result.verdicts()


def test_train_traces_the_backward_pass_of_a_module_and_a_program(saved):
    from tests.check import model_zoo

    module = model_zoo.MLP()
    result = kb.check(module, ["2x8"], train=True, **STAND_IN)
    assert result.train and any(op.phases == ["backward"] or "backward" in op.phases for op in result["neuron"].ops)
    program = kb.check(saved["mlp"]["program"], train=True, **STAND_IN)
    assert program.train and {op.op for op in program["neuron"].ops} >= {op.op for op in result["neuron"].ops} - {"aten::t"}


def test_the_gate_is_the_cli_s_gate(run_cli, saved):
    path = saved["mlp"]["exported_program"]
    result = kb.check(path, **STAND_IN)
    code, out, _ = run_cli("check", path, "--fail-on", "fallback", "--format", "json")
    assert code == 1 and result.fails(fail_on="fallback")
    assert result.gate("fallback") == json.loads(out)["gate"]
    assert not result.fails(fail_on="unsupported")
    assert not result.fails("fallback", allow=["gelu"])  # any spelling kb op takes
    assert result.to_dict(fail_on="fallback")["gate"]["failed"]


def test_waivers_with_and_without_expiry(saved, monkeypatch):
    """The API's waivers are [tool.kb]'s (one rule): in force until their expiry day, which
    itself no longer waives; an expired waiver of an op the model uses fails the gate."""
    from kb.check.gate import to_waivers

    monkeypatch.setenv("KB_TODAY", "2026-12-01")
    waivers = to_waivers([
        {"op": "aten::gelu", "reason": "host gelu is fine for now", "expires": "2027-01-31"},
        {"op": "silu", "reason": "no expiry"},
        {"op": "aten::nonzero", "reason": "was to be fixed by 2.33", "expires": date(2026, 11, 30)},
    ])
    assert [(w.op, w.expires) for w in waivers] == [
        ("aten::gelu", date(2027, 1, 31)), ("aten::silu", None), ("aten::nonzero", date(2026, 11, 30))]
    with pytest.raises(KBError, match="not a date"):
        to_waivers([{"op": "gelu", "reason": "r", "expires": "soon"}])
    result = kb.check(saved["mlp"]["exported_program"], **STAND_IN)
    gate = result.gate("fallback", waivers=waivers)
    assert not gate["failed"] and [w["op"] for w in gate["waived"]] == ["aten::gelu"]
    assert gate["expired_waivers"] == []  # nonzero's waiver expired, but the model does not use it


def test_a_waiver_accepts_an_op_until_it_expires(saved):
    result = kb.check(saved["mlp"]["exported_program"], **STAND_IN)
    later = (date.today() + timedelta(days=30)).isoformat()
    assert not result.fails("fallback", waivers=[{"op": "aten::gelu", "reason": "r", "expires": later}])
    gate = result.gate("fallback", waivers=[{"op": "aten::gelu", "reason": "r", "expires": "2020-01-01"}])
    assert gate["failed"] and gate["expired_waivers"][0]["op"] == "aten::gelu"
    assert result.gate("fallback")["expired_waivers"] == []  # no waivers: nothing expired


def test_formats_match_the_cli(run_cli, saved):
    path = saved["mlp"]["exported_program"]
    result = kb.check(path, **STAND_IN)
    _, markdown, _ = run_cli("check", path, "--format", "markdown")
    assert result.to_markdown() == markdown
    _, sarif, _ = run_cli("check", path, "--format", "sarif", "--fail-on", "fallback")
    assert result.to_sarif(fail_on="fallback") == json.loads(sarif)
    _, junit, _ = run_cli("check", path, "--format", "junit")
    assert result.to_junit() == junit
    doc = json.loads(result.to_json())
    assert doc["command"] == "check" and doc["reports"][0]["ops"][1]["status"] == "fallback"


def test_to_pandas_says_in_one_line_when_pandas_is_missing(saved, monkeypatch):
    import sys

    result = kb.check(saved["mlp"]["exported_program"], **STAND_IN)
    monkeypatch.setitem(sys.modules, "pandas", None)  # an import of it fails
    with pytest.raises(KBError) as caught:
        result.to_pandas()
    assert "\n" not in str(caught.value) and "pip install pandas" in str(caught.value)


@pytest.mark.parametrize("call,expected", [
    (lambda: kb.check("no/such/model.pt2"), "no/such/model.pt2"),
    (lambda: kb.check(42), "must be a path"),
    (lambda: kb.check("x.pt2", mode="fast"), "--mode fast"),
    (lambda: kb.ops("tpu", status="sometimes"), "unknown status"),
    (lambda: kb.ops(["neuron", "tpu"]), "ops lists one target"),
    (lambda: kb.eol("neuron=2.34"), "takes no version"),
    (lambda: kb.ask("   "), "empty question"),
    (lambda: kb.op("aten::surely_not_an_op"), "unknown operator"),
    (lambda: kb.op("add", targets=["tpu=9.9.9"]), "9.9.9"),
])
def test_errors_are_one_kb_error_of_one_line(call, expected, capsys):
    with pytest.raises(kb.KBError) as caught:
        call()
    message = str(caught.value)
    assert expected in message and "\n" not in message and len(message) < 1000
    assert capsys.readouterr() == ("", "")


def test_the_result_s_gate_refuses_an_unknown_level(saved):
    result = kb.check(saved["mlp"]["exported_program"], **STAND_IN)
    with pytest.raises(KBError, match="fail_on_unknown=True"):
        result.fails(fail_on="unknown")
    with pytest.raises(KBError, match="expected one of"):
        result.gate("sometimes")


def test_a_program_with_real_weights_is_left_as_it_was(capsys):
    import torch

    from tests.check import model_zoo

    program = torch.export.export(model_zoo.MLP(), (torch.zeros(2, 8),))
    before = {k: v.clone() for k, v in program.state_dict.items()}
    forward = kb.check(program, **STAND_IN)
    both = kb.check(program, train=True, **STAND_IN)
    assert {k: v.device.type for k, v in program.state_dict.items()} == dict.fromkeys(before, "cpu")
    assert all(torch.equal(before[k], v) for k, v in program.state_dict.items())
    assert both.train and not forward.train and len(both["neuron"].ops) > len(forward["neuron"].ops)
    with pytest.raises(KBError):  # torch's own traceback is not logged on the way
        kb.check(model_zoo.MLP(), torch.zeros(2, 3), **STAND_IN)
    assert capsys.readouterr() == ("", "")


def test_waivers_are_judged_on_kb_today(saved, monkeypatch):
    result = kb.check(saved["mlp"]["exported_program"], **STAND_IN)
    waiver = {"op": "aten::gelu", "reason": "r", "expires": "2026-12-31"}
    monkeypatch.setenv("KB_TODAY", "2026-12-30")
    assert not result.fails("fallback", waivers=[waiver])
    monkeypatch.setenv("KB_TODAY", "2026-12-31")  # from the expiry day on, the waiver waives nothing
    gate = result.gate("fallback", waivers=[waiver])
    assert gate["failed"] and gate["expired_waivers"][0]["expired"] == "2026-12-31"
