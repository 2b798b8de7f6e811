"""`[tool.kb]` in pyproject.toml: found above the checked file, flags over it, waivers with
and without expiry (an expired one fails the gate in one line), bad files refused in one
line that names the file and the key (issue 28)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from kb.check import project_config as pc

MLP_CONFIG = """
[project]
name = "demo"

[tool.kb]
targets = ["neuron"]
fail-on = "fallback"
"""


def _project(root: Path, body: str, model: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(body, encoding="utf-8")
    if model is None:
        return root
    target = root / "models" / "mlp.pt2"
    target.parent.mkdir(exist_ok=True)
    shutil.copyfile(model, target)
    return target


def _waiver(op="aten::gelu", reason="gelu on the host is fine for the demo", expires=None, target=None) -> str:
    lines = ["[[tool.kb.waivers]]", f'op = "{op}"', f'reason = "{reason}"']
    if expires:
        lines.append(f"expires = {expires}")
    if target:
        lines.append(f'target = "{target}"')
    return "\n".join(lines) + "\n"


@pytest.fixture
def mlp(saved):
    return saved["mlp"]["exported_program"]


# --- the file: found, parsed, refused -----------------------------------------------------


def test_found_walking_up_from_the_checked_file(tmp_path):
    _project(tmp_path / "repo", MLP_CONFIG)
    deep = tmp_path / "repo" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "pyproject.toml").write_text("[project]\nname = 'no kb here'\n")  # no [tool.kb]: keep walking
    config = pc.load(str(deep / "model.pt2"), cwd=str(tmp_path))
    assert config.path == str(tmp_path / "repo" / "pyproject.toml")
    assert config.targets == ["neuron"] and config.fail_on == "fallback"


def test_falls_back_to_the_working_directory_and_none_is_fine(tmp_path):
    _project(tmp_path / "repo", MLP_CONFIG)
    (tmp_path / "elsewhere").mkdir()
    assert pc.load(str(tmp_path / "elsewhere" / "m.pt2"), cwd=str(tmp_path / "repo")).path.endswith("repo/pyproject.toml")
    assert pc.load(str(tmp_path / "elsewhere" / "m.pt2"), cwd=str(tmp_path / "elsewhere")).path is None
    assert pc.load(None, cwd=str(tmp_path / "repo"), disabled=True).path is None


def test_the_walk_is_bounded(tmp_path):
    _project(tmp_path, MLP_CONFIG)
    deep = tmp_path.joinpath(*["d"] * 5)
    deep.mkdir(parents=True)
    assert pc.find(str(deep), cwd=str(deep), max_levels=3) is None
    assert pc.find(str(deep), cwd=str(deep), max_levels=6)[0] == str(tmp_path / "pyproject.toml")


def test_a_full_table_parses():
    config = pc.parse({"targets": ["neuron", "tpu=0.2.0"], "mode": "compile", "fail-on": "unsupported",
                       "fail-on-unknown": True, "audit": {"fail-on": "medium", "exclude": ["vendor/*"]},
                       "waivers": [{"op": "nonzero", "reason": "r", "expires": dt.date(2027, 3, 1), "target": "tpu"},
                                   {"op": "torch.ops.aten.gelu.default", "reason": "no end", "expires": "2027-01-31"},
                                   {"op": "mylib::rope", "reason": "custom op"}]}, "p.toml")
    assert config.targets == ["neuron", "tpu=0.2.0"] and config.mode == "compile"
    assert config.fail_on_unknown is True and config.audit_fail_on == "medium"
    assert [w.op for w in config.waivers] == ["aten::nonzero", "aten::gelu", "mylib::rope"]
    assert config.waivers[1].expires == dt.date(2027, 1, 31) and config.waivers[2].expires is None


@pytest.mark.parametrize(("body", "names"), [
    ("bogus = 1", "[tool.kb] bogus: unknown key"),
    ('targets = "neuron"', "[tool.kb] targets: expected an array of strings, got a string"),
    ("targets = [1]", "[tool.kb] targets: expected an array of strings"),
    ('targets = ["tpu="]', "[tool.kb] targets: 'tpu=': expected TARGET or TARGET=VERSION"),
    ('mode = "fast"', "[tool.kb] mode: 'fast': expected one of eager, compile"),
    ("fail-on = 3", "[tool.kb] fail-on: expected a string, got an integer"),
    ('fail-on = "high"', "[tool.kb] fail-on: 'high': expected one of decomposed, fallback, unsupported"),
    ('fail-on-unknown = "yes"', "[tool.kb] fail-on-unknown: expected true or false, got a string"),
    ("waivers = 1", "[tool.kb] waivers: expected an array of tables"),
    ('[[tool.kb.waivers]]\nop = "gelu"', "[tool.kb] waivers[0].reason: missing"),
    ('[[tool.kb.waivers]]\nop = "gelu"\nreason = "  "', "[tool.kb] waivers[0].reason: empty"),
    ('[[tool.kb.waivers]]\nop = "gelu"\nreason = "r"\nwhen = 1', "[tool.kb] waivers[0].when: unknown key"),
    ('[[tool.kb.waivers]]\nop = "gelu"\nreason = "r"\nexpires = "2027-02-30"',
     "[tool.kb] waivers[0].expires: '2027-02-30' is not a date (expected YYYY-MM-DD)"),
    ('[[tool.kb.waivers]]\nop = "gelu"\nreason = "r"\nexpires = "next year"', "waivers[0].expires: 'next year' is not a date"),
    ('[[tool.kb.waivers]]\nop = "gelu"\nreason = "r"\nexpires = 2027-03-01T10:00:00',
     "waivers[0].expires: expected a date (YYYY-MM-DD), got a date-time"),
    ('[[tool.kb.waivers]]\nop = "gelu"\nreason = "r"\nexpires = 20270301', "waivers[0].expires: expected a date"),
    ('[audit]\nfail-on = "fallback"', "[tool.kb] audit.fail-on: 'fallback': expected one of high, medium, low"),
    ("[audit]\nskip = 1", "[tool.kb] audit.skip: unknown key"),
])
def test_bad_tables_name_the_file_and_the_key(tmp_path, body, names):
    if body.startswith("[audit]"):
        body = body.replace("[audit]", "[tool.kb.audit]")
        text = f"[tool.kb]\n{body}\n"
    elif body.startswith("[[tool.kb.waivers]]"):
        text = f"[tool.kb]\n{body}\n"
    else:
        text = f"[tool.kb]\n{body}\n"
    path = _project(tmp_path, text) / "pyproject.toml"
    with pytest.raises(pc.ConfigError) as caught:
        pc.load(None, cwd=str(tmp_path))
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and names in message and "\n" not in message


def test_broken_toml_meant_for_kb_is_a_one_line_error(tmp_path):
    from kb.errors import KBError

    _project(tmp_path, '[tool.kb]\nfail-on = "fallback\n')
    with pytest.raises(KBError, match="pyproject.toml: not valid TOML"):
        pc.load(None, cwd=str(tmp_path))
    _project(tmp_path, "[tool.kb.audit\n")
    with pytest.raises(KBError, match="pyproject.toml: not valid TOML"):
        pc.load(None, cwd=str(tmp_path))


def test_a_pyproject_that_is_not_about_kb_is_passed_by_when_unreadable(tmp_path):
    """An audited tree may hold any pyproject.toml: broken, nested past the bound, a FIFO.
    None of them says [tool.kb], so the walk goes on (kb audit reports the file itself);
    named with --config, the same file is an error."""
    import os

    from kb.errors import KBError

    _project(tmp_path, MLP_CONFIG)
    inner = tmp_path / "inner"
    for body in ("[project\n", "x = " + "[" * 300 + "]" * 300 + "\n"):
        _project(inner, body)
        assert pc.load(str(inner / "m.pt2"), cwd=str(inner)).path == str(tmp_path / "pyproject.toml")
    with pytest.raises(KBError, match="nested deeper than 200 levels"):
        pc.load(None, explicit=str(inner / "pyproject.toml"))
    (inner / "pyproject.toml").unlink()
    os.mkfifo(inner / "pyproject.toml")
    assert pc.load(str(inner / "m.pt2"), cwd=str(inner)).path == str(tmp_path / "pyproject.toml")
    with pytest.raises(KBError, match="a FIFO, not a regular file"):
        pc.load(None, explicit=str(inner / "pyproject.toml"))


def test_hostile_keys_are_shown_not_obeyed(tmp_path):
    _project(tmp_path, '[tool.kb]\n"\\u001b[2Jboom" = 1\n')
    with pytest.raises(pc.ConfigError) as caught:
        pc.load(None, cwd=str(tmp_path))
    assert "\x1b" not in str(caught.value) and "\\x1b[2Jboom" in str(caught.value)


def test_unknown_targets_are_refused_against_the_kb():
    config = pc.parse({"targets": ["neuron", "gpu9=1.0"]}, "p.toml")
    with pytest.raises(pc.ConfigError, match=r"p.toml: \[tool.kb\] targets\[1\]: unknown target 'gpu9'"):
        pc.check_targets(config, {"neuron", "tpu"})
    config = pc.parse({"waivers": [{"op": "gelu", "reason": "r", "target": "gpu9"}]}, "p.toml")
    with pytest.raises(pc.ConfigError, match=r"waivers\[0\].target: unknown target 'gpu9' \(known: neuron, tpu\)"):
        pc.check_targets(config, {"neuron", "tpu"})


def test_flags_beat_the_file_beats_the_defaults():
    config = pc.parse({"targets": ["tpu"], "fail-on": "unsupported", "fail-on-unknown": True}, "p.toml")
    settled = pc.settle(config, targets=["neuron"], mode=None, fail_on="fallback", fail_on_unknown=False)
    assert settled["targets"] == ["neuron"] and settled["fail_on"] == "fallback" and settled["fail_on_unknown"] is False
    assert settled["mode"] == "eager"
    assert settled["from"] == {"targets": "flag", "mode": "default", "fail_on": "flag", "fail_on_unknown": "flag"}
    settled = pc.settle(config)
    assert settled["targets"] == ["tpu"] and settled["from"]["targets"] == "config"
    assert pc.settle(pc.ProjectConfig())["targets"] == ["neuron"]


def test_a_waiver_ends_on_its_expiry_day():
    waiver = pc.Waiver("aten::gelu", "r", dt.date(2027, 3, 1))
    assert not waiver.expired(dt.date(2027, 2, 28)) and waiver.expired(dt.date(2027, 3, 1))
    assert not pc.Waiver("aten::gelu", "r").expired(dt.date(9999, 1, 1))


# --- kb check with the file -----------------------------------------------------------------


def test_config_sets_targets_and_gate(run_cli, mlp, tmp_path, workdir):
    model = _project(tmp_path / "repo", MLP_CONFIG, mlp)
    code, out, err = run_cli("check", model)
    assert code == 1, err
    assert "gate --fail-on fallback: FAILED, 1 finding — aten::gelu (fallback on neuron)" in out


def test_flags_override_the_config(run_cli, mlp, tmp_path, workdir):
    model = _project(tmp_path / "repo", MLP_CONFIG, mlp)
    code, out, _ = run_cli("check", model, "--fail-on", "unsupported")
    assert code == 0 and "gate --fail-on unsupported: passed" in out
    code, out, _ = run_cli("check", model, "--target", "tpu")  # gelu is native on tpu
    assert code == 0 and "on tpu" in out and "gate --fail-on fallback: passed" in out
    code, out, _ = run_cli("check", model, "--no-config")
    assert code == 0 and "gate" not in out
    code, out, _ = run_cli("check", model, "--json")
    used = json.loads(out)["config"]
    assert used["path"] == str(tmp_path / "repo" / "pyproject.toml")
    assert used["used"]["fail_on"] == "fallback" and used["used"]["from"]["fail_on"] == "config"
    code, out, _ = run_cli("check", model, "--json", "--fail-on", "unsupported", "--mode", "eager")
    assert json.loads(out)["config"]["used"]["from"] == {"targets": "config", "mode": "flag", "fail_on": "flag",
                                                        "fail_on_unknown": "default"}


def test_an_explicit_config_file(run_cli, mlp, tmp_path, workdir):
    other = _project(tmp_path / "other", MLP_CONFIG.replace('"fallback"', '"unsupported"')) / "pyproject.toml"
    model = _project(tmp_path / "repo", MLP_CONFIG, mlp)
    code, out, _ = run_cli("check", model, "--config", other)
    assert code == 0 and "gate --fail-on unsupported: passed" in out
    code, _, err = run_cli("check", model, "--config", other, "--no-config")
    assert code == 2 and "disagree" in err
    empty = _project(tmp_path / "empty", "[project]\nname = 'x'\n") / "pyproject.toml"
    code, _, err = run_cli("check", model, "--config", empty)
    assert code == 2 and err.strip() == f"kb: error: {empty}: no [tool.kb] table"


def test_a_waiver_without_expiry_passes_the_gate_and_is_shown(run_cli, mlp, tmp_path, workdir):
    model = _project(tmp_path / "repo", MLP_CONFIG + _waiver(), mlp)
    code, out, err = run_cli("check", model)
    assert code == 0, err
    assert "waived: aten::gelu on neuron (fallback) — gelu on the host is fine for the demo" in out
    assert "[waived: gelu on the host is fine for the demo]" in out  # the op's row says so too
    assert "gate --fail-on fallback: passed" in out
    doc = json.loads(run_cli("check", model, "--json")[1])
    gelu = next(op for op in doc["reports"][0]["ops"] if op["op"] == "aten::gelu")
    assert gelu["waiver"] == {"op": "aten::gelu", "reason": "gelu on the host is fine for the demo", "expires": None,
                              "target": None}
    assert doc["gate"]["waived"] == [{"target": "neuron", "op": "aten::gelu", "status": "fallback",
                                      "reason": "gelu on the host is fine for the demo", "expires": None}]
    assert doc["gate"]["failing"] == [] and doc["gate"]["expired_waivers"] == []


def test_a_waiver_before_its_expiry_passes(run_cli, mlp, tmp_path, workdir, monkeypatch):
    monkeypatch.setenv("KB_TODAY", "2027-02-28")
    model = _project(tmp_path / "repo", MLP_CONFIG + _waiver(expires="2027-03-01"), mlp)
    code, out, _ = run_cli("check", model)
    assert code == 0 and "waived: aten::gelu on neuron (fallback) until 2027-03-01" in out


def test_an_expired_waiver_fails_and_says_so_in_one_line(run_cli, mlp, tmp_path, workdir, monkeypatch):
    monkeypatch.setenv("KB_TODAY", "2027-03-01")
    model = _project(tmp_path / "repo", MLP_CONFIG + _waiver(expires="2027-03-01"), mlp)
    code, out, err = run_cli("check", model)
    assert code == 1, err
    (line,) = [x for x in out.splitlines() if "waiver expired" in x and not x.startswith("gate")]
    assert line == ("waiver expired: aten::gelu on neuron (fallback) was waived until 2027-03-01 — gelu on the host "
                    "is fine for the demo; renew the waiver or fix the op")
    assert "gate --fail-on fallback: FAILED, 1 finding — aten::gelu (fallback on neuron, waiver expired 2027-03-01)" in out
    doc = json.loads(run_cli("check", model, "--json")[1])
    assert doc["gate"]["failing"] == [{"target": "neuron", "op": "aten::gelu", "status": "fallback",
                                       "waiver_expired": "2027-03-01",
                                       "waiver_reason": "gelu on the host is fine for the demo"}]


def test_an_expired_waiver_of_an_op_that_now_passes_still_fails(run_cli, mlp, tmp_path, workdir, monkeypatch):
    """The op got better (tpu runs gelu natively), but the waiver has run out: clean it up."""
    monkeypatch.setenv("KB_TODAY", "2027-06-01")
    model = _project(tmp_path / "repo", MLP_CONFIG.replace('["neuron"]', '["tpu"]') + _waiver(expires="2027-03-01"), mlp)
    code, out, _ = run_cli("check", model)
    assert code == 1 and "waiver expired: aten::gelu on tpu (native)" in out
    import xml.etree.ElementTree as ET

    junit = ET.fromstring(run_cli("check", model, "--format", "junit")[1])
    (failure,) = junit.iter("failure")
    assert failure.get("type") == "expired-waiver" and "its waiver expired 2027-03-01" in failure.get("message")
    sarif = json.loads(run_cli("check", model, "--format", "sarif")[1])
    expired = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "kb/expired-waiver"]
    assert len(expired) == 1 and expired[0]["level"] == "error" and expired[0]["properties"]["expired"] == "2027-03-01"


def test_an_expired_waiver_without_a_gate_is_a_line_not_a_failure(run_cli, mlp, tmp_path, workdir, monkeypatch):
    monkeypatch.setenv("KB_TODAY", "2027-06-01")
    model = _project(tmp_path / "repo", "[tool.kb]\n" + _waiver(expires="2027-03-01"), mlp)
    code, out, _ = run_cli("check", model)
    assert code == 0 and "waiver expired: aten::gelu" in out


def test_waivers_by_target_and_a_renewal(run_cli, mlp, tmp_path, workdir, monkeypatch):
    monkeypatch.setenv("KB_TODAY", "2027-06-01")
    body = MLP_CONFIG.replace('["neuron"]', '["neuron", "tpu"]') + _waiver(target="tpu")
    model = _project(tmp_path / "repo", body, mlp)
    code, out, _ = run_cli("check", model)
    assert code == 1 and "aten::gelu (fallback on neuron)" in out  # the waiver is for tpu only
    renewed = MLP_CONFIG + _waiver(expires="2027-03-01") + _waiver(expires="2028-01-01", reason="renewed")
    model = _project(tmp_path / "repo2", renewed, mlp)
    code, out, _ = run_cli("check", model)
    assert code == 0 and "waived: aten::gelu on neuron (fallback) until 2028-01-01 — renewed" in out


def test_markdown_shows_waivers_escaped(run_cli, mlp, tmp_path, workdir):
    model = _project(tmp_path / "repo", MLP_CONFIG + _waiver(reason="<b>fine</b> | [x](http://e.test)"), mlp)
    code, out, _ = run_cli("check", model, "--format", "markdown")
    assert code == 0
    assert "<b>" not in out and "&lt;b&gt;fine&lt;/b&gt;" in out and "[x](http" not in out


@pytest.mark.parametrize(("body", "names"), [
    ('targets = ["gpu9"]', "[tool.kb] targets[0]: unknown target 'gpu9' (known: "),
    ('targets = ["tpu", "neuron=9.9"]', "[tool.kb] targets[1]: neuron=9.9: no torchneuron release"),
    ('[[tool.kb.waivers]]\nop = "gelu"\nreason = "r"\nexpires = "2027-13-01"', "[tool.kb] waivers[0].expires:"),
    ("fail-on = 1", "[tool.kb] fail-on: expected a string"),
])
def test_bad_config_exits_2_with_one_line(run_cli, mlp, tmp_path, workdir, body, names):
    model = _project(tmp_path / "repo", f"[tool.kb]\n{body}\n", mlp)
    code, out, err = run_cli("check", model)
    assert code == 2 and out == ""
    (line,) = [x for x in err.splitlines() if "(first use)" not in x]  # the first-use note aside
    assert line.startswith("kb: error: ") and names in line and str(tmp_path / "repo" / "pyproject.toml") in line
    assert "Traceback" not in err


def test_audit_excludes_are_relative_to_the_project_root(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    patterns = ["src/gen/*", "docs/*", "*_pb2.py", "vendor", "*/examples/*"]
    assert pc.rebase_excludes(patterns, str(root), str(root)) == patterns
    assert pc.rebase_excludes(patterns, str(root), str(root / "src")) == ["gen/*", "*_pb2.py", "vendor", "*/examples/*"]
    assert pc.rebase_excludes(["src/gen/*"], str(root), str(tmp_path)) == ["repo/src/gen/*"]
    config = pc.parse({"audit": {"exclude": ["src/gen/*"]}}, str(root / "pyproject.toml"))
    settled = pc.settle_audit(config, exclude=["extra"], base=str(root / "src"))
    assert settled["exclude"] == ["gen/*", "extra"] and settled["from"]["exclude"] == "config+flag"


def test_one_line_per_waiver_across_targets(run_cli, mlp, tmp_path, workdir, monkeypatch):
    """gelu: fallback on neuron, native on tpu (nothing to waive there, so not shown); the
    linear's addmm leaf is waived on both, in one line."""
    body = (MLP_CONFIG.replace('["neuron"]', '["neuron", "tpu"]').replace('"fallback"', '"decomposed"')
            + _waiver() + _waiver(op="aten::linear", reason="split is fine", expires="2027-03-01"))
    model = _project(tmp_path / "repo", body, mlp)
    monkeypatch.setenv("KB_TODAY", "2027-01-01")
    code, out, err = run_cli("check", model)
    assert code == 0, out + err
    lines = [x for x in out.splitlines() if x.startswith("waived:")]
    assert lines == ["waived: aten::linear on neuron (decomposed), tpu (decomposed) until 2027-03-01 — split is fine",
                     "waived: aten::gelu on neuron (fallback) — gelu on the host is fine for the demo"]
    monkeypatch.setenv("KB_TODAY", "2027-03-01")
    code, out, _ = run_cli("check", model)
    (line,) = [x for x in out.splitlines() if x.startswith("waiver expired:")]
    assert code == 1 and line.startswith("waiver expired: aten::linear on neuron (decomposed), tpu (decomposed) was "
                                         "waived until 2027-03-01 — split is fine")
