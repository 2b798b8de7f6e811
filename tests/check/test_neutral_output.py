"""Neutral output of `kb check` (issue 24): a .pt2 export whose op and module names carry
ANSI escapes, rich markup, newlines with a forged gate line, control characters and Slack
control sequences is shown in every format without any of them acting.

The .pt2 reader is torch-free, so the hostile archive is the zoo's MLP export with its
graph JSON rewritten: no exporter would write these names, an attacker's zip can.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
import zipfile

import pytest

ANSI = "\x1b[2J\x1b]0;pwned\x07"
FORGED = "\n| Gate passed |\n**Gate passed**"
HOSTILE_OP = f"evil{ANSI}[/].[bold red]x[/]{FORGED}<!channel><https://evil|click>\x00\x01\x0b\x9b2J"
# brackets balanced and no `;` so the module-stack parser keeps it whole (ESC [2J opens one)
HOSTILE_MODULE = f"act\x1b[2J[bold red]x[/]]{FORGED}\x08\x7f<!channel>\x1bc"


def hostile_pt2(source: str, target) -> str:
    """`source` (an export of the zoo's MLP) with gelu's target and module path replaced."""
    with zipfile.ZipFile(source) as src:
        members = {name: src.read(name) for name in src.namelist()}
    graph_member = next(name for name in members if name.endswith("models/model.json"))
    document = json.loads(members[graph_member])
    for node in document["graph_module"]["graph"]["nodes"]:
        if node["target"] == "torch.ops.aten.gelu.default":
            node["target"] = f"torch.ops.{HOSTILE_OP}.default"
            node.setdefault("metadata", {})["nn_module_stack"] = f"L__self__act,{HOSTILE_MODULE},torch.nn.GELU"
    members[graph_member] = json.dumps(document).encode()
    with zipfile.ZipFile(target, "w") as dst:
        for name, data in members.items():
            dst.writestr(name, data)
    return str(target)


@pytest.fixture
def hostile(saved, tmp_path):
    return hostile_pt2(saved["mlp"]["exported_program"], tmp_path / "hostile.pt2")


def _no_acting_bytes(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\x00" not in text and "\x9b" not in text


def test_the_fixture_carries_the_names(hostile):
    from kb.check import pt2_graph

    sites, _ = pt2_graph.read_sites(hostile)
    assert any(ANSI in site.op for site in sites)
    assert any("\x1b[2J" in (site.module_path or "") for site in sites)


def test_table_piped_has_no_escape_and_no_forged_row(run_cli, hostile):
    code, out, err = run_cli("check", hostile, "--fail-on-unknown")
    assert code == 1, err
    _no_acting_bytes(out + err)
    assert "\\x1b[2J" in out  # shown, visibly
    assert not any(line.startswith(("| Gate passed", "**Gate passed")) for line in out.splitlines())


def test_table_on_a_forced_terminal_neither_crashes_nor_obeys(run_cli, hostile, monkeypatch):
    """Rich on a terminal: `[/]` in a cell would raise MarkupError and `[bold red]` would
    style; the only escapes in the output are rich's own colours."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    from cli import render

    monkeypatch.setattr(render.sys.stdout, "isatty", lambda: True, raising=False)
    code, out, err = run_cli("check", hostile, "--fail-on-unknown")
    assert code == 1, err
    assert "Traceback" not in err and "MarkupError" not in err
    assert re.sub(r"\x1b\[[0-9;]*m", "", out).count("\x1b") == 0  # only SGR colour codes
    assert "\x07" not in out and "\x1b]" not in out and "\x1b[2J" not in out
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "[bold red]x[/]" in plain  # the markup shown as written


def test_markdown_has_no_forged_line_and_no_html(run_cli, hostile):
    code, out, err = run_cli("check", hostile, "--format", "markdown", "--fail-on-unknown")
    assert code == 1, err
    _no_acting_bytes(out)
    lines = out.splitlines()
    assert not any(line.startswith(("| Gate passed", "**Gate passed")) for line in lines)
    assert [line for line in lines if line.startswith("**Gate")] == ["**Gate `--fail-on-unknown`: failed, 1 findings**"]
    outside_code = re.sub(r"(`+).*?\1", "", out)  # inside a code span nothing is markup
    assert "<" not in outside_code and "&lt;!channel&gt;" in outside_code
    table_rows = [line for line in lines if line.startswith("| ")]
    widths = {len(re.findall(r"(?<!\\)\|", row)) for row in table_rows}
    assert widths == {8}  # every row has exactly the table's 7 cells: no pipe from data split one


def test_junit_parses_with_control_characters(run_cli, hostile):
    code, out, err = run_cli("check", hostile, "--format", "junit", "--fail-on-unknown")
    assert code == 1, err
    root = ET.fromstring(out.split("\n", 1)[1])
    names = [case.get("name") for case in root.iter("testcase")]
    assert any("\\x1b[2J" in name for name in names)
    _no_acting_bytes(out)


def test_sarif_is_json_and_shows_no_control(run_cli, hostile):
    code, out, err = run_cli("check", hostile, "--format", "sarif", "--fail-on-unknown")
    assert code == 1, err
    _no_acting_bytes(out)
    doc = json.loads(out)
    result = next(r for r in doc["runs"][0]["results"] if "evil" in r["properties"]["op"])
    assert "\x1b" not in result["message"]["text"] and "\n" not in result["message"]["text"]
    assert result["properties"]["op"].startswith("evil\x1b")  # the data itself, JSON-escaped
    jsonschema = pytest.importorskip("jsonschema")
    from tests.migrate.audit.test_audit_sarif import official_schema

    errors = list(jsonschema.Draft4Validator(official_schema()).iter_errors(doc))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def test_json_keeps_the_data_and_prints_no_raw_control(run_cli, hostile):
    code, out, err = run_cli("check", hostile, "--json", "--fail-on-unknown")
    assert code == 1, err
    _no_acting_bytes(out)
    doc = json.loads(out)
    assert any(op["op"].startswith("evil\x1b[2J") and "\x9b" in op["op"] for op in doc["reports"][0]["ops"])
    assert doc["gate"]["failing"][0]["op"].startswith("evil\x1b")


def test_an_error_naming_a_hostile_path_is_one_clean_line(run_cli, tmp_path):
    code, out, err = run_cli("check", str(tmp_path / f"missing{ANSI}\n[/].pt2"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("kb: error:")
    _no_acting_bytes(err)
    assert "\\x1b[2J" in err
