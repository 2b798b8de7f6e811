"""Issue 25 follow-ups on the shipped data: a Neuron release that states no platform matrix
of its own (2.34) is checked against the previous release's, said to be presumed; a PyTorch
family the release does not mention is "not stated", never "incompatible"."""

import json

import pytest

from tests.conftest import run_kb


def _stack(capsys, monkeypatch, stack):
    monkeypatch.setenv("KB_TODAY", "2026-12-01")
    code, out, err = run_kb(capsys, "eol", "--stack", stack, "--within", "90d", "--json")
    data = json.loads(out)
    return code, {i["component"]: i for i in data["issues"]}


@pytest.mark.parametrize("part", ["ubuntu=22.04", "instance=inf2", "instance=trn1"])
def test_234_is_checked_against_233s_matrix_as_presumed(isolated_kb, capsys, monkeypatch, part):
    key, value = part.split("=")
    item = value if key == "instance" else part
    code, issues = _stack(capsys, monkeypatch, f"neuron=2.34 torch=2.14 python=3.12 {item}")
    assert code == 1 and issues[part]["kind"] == "incompatible" and issues[part]["presumed"]
    assert "Neuron 2.34 states no" in issues[part]["message"] and "2.33's is presumed" in issues[part]["message"]
    assert "as of 2026-" in issues[part]["message"]


def test_233_stack_is_flagged_on_its_own_matrix_not_presumed(isolated_kb, capsys, monkeypatch):
    code, issues = _stack(capsys, monkeypatch, "neuron=2.33 torch=2.14 python=3.12 ubuntu=22.04 inf2")
    assert code == 1 and not issues["ubuntu=22.04"]["presumed"] and not issues["instance=inf2"]["presumed"]
    assert issues["instance=inf2"]["kind"] == "incompatible"  # 2.32's XLA packages do not make it "not stated"


def test_supported_234_stack_passes_with_presumed_matrix(isolated_kb, capsys, monkeypatch):
    code, issues = _stack(capsys, monkeypatch, "neuron=2.34 torch=2.14 python=3.12 ubuntu=24.04 trn2")
    assert code == 0 and not any(i["gate"] for i in issues.values())
    # the pass rests on 2.33's matrix, and says so in one line (and in --json)
    code, out, err = run_kb(capsys, "eol", "--stack", "neuron=2.34 torch=2.14 python=3.12 ubuntu=24.04 trn2", "--json")
    presumed = json.loads(out)["presumed_matrix"]
    assert (presumed["release"], presumed["from"]) == ("2.34", "2.33")
    code, out, err = run_kb(capsys, "eol", "--stack", "neuron=2.34 torch=2.14 python=3.12 ubuntu=24.04 trn2")
    assert [line for line in err.splitlines() if "2.33's is presumed" in line] == [
        f"kb: {presumed['line']}"]
    code, out, _ = run_kb(capsys, "eol", "--stack", "neuron=2.33 trn2", "--json")
    assert json.loads(out)["presumed_matrix"] is None


def test_a_family_234_does_not_mention_is_not_stated_not_incompatible(isolated_kb, capsys, monkeypatch):
    code, issues = _stack(capsys, monkeypatch, "neuron=2.34 torch=2.13 python=3.12 ubuntu=24.04 trn2")
    issue = issues["torch=2.13"]
    assert code == 0 and issue["kind"] == "not stated" and not issue["gate"]
    assert "not stated for Neuron 2.34 as of 2026-" in issue["message"] and "2.33 shipped it" in issue["message"]
    # a family no release shipped is still incompatible
    code, issues = _stack(capsys, monkeypatch, "neuron=2.34 torch=2.9")
    assert code == 1 and issues["torch=2.9"]["kind"] == "incompatible"


def test_presumed_finding_is_labelled_in_the_table(isolated_kb, capsys, monkeypatch):
    monkeypatch.setenv("KB_TODAY", "2026-12-01")
    code, out, err = run_kb(capsys, "eol", "--stack", "neuron=2.34 ubuntu=22.04")
    assert code == 1 and "incompatible (presumed)" in out and "no conflicts" not in err
