"""Neutral output of `kb audit` (issue 24): file and folder names that carry ANSI escapes,
rich markup, newlines with a forged row, control characters or bytes that are not UTF-8
are shown in every format without acting."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest

from cli.entry import main

# a file name cannot hold "/", so the `[/]` that crashes rich markup is a folder "a[" and a file "]b.py"
NAMES = ["\x1b[2J\x1b]0;pwned\x07.py", "[bold red]x.py", "a[/]b.py", "a\n| Gate passed |.py", "ctl\x01\x08\x7f.py"]


@pytest.fixture
def hostile_tree(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a[").mkdir()
    for name in NAMES:
        (root / name).write_text("import torch\nx = torch.zeros(3).cuda()\n", encoding="utf-8")
    (root / os.fsdecode(b"latin\xe9.py")).write_text("y = 'cuda:0'\n", encoding="utf-8")
    skipped = root / "node_modules\x1b[31m"
    skipped.mkdir()
    return str(root)


def run(capsys, *args):
    code = main(["audit", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _no_acting_bytes(text: str) -> None:
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text), repr(text)


def test_table_piped(capsys, hostile_tree):
    code, out, err = run(capsys, hostile_tree)
    assert code == 0, err
    _no_acting_bytes(out + err)
    assert "\\x1b[2J" in out and "latin\\xe9.py" in out
    assert not any(line.startswith("| Gate passed") for line in out.splitlines())


def test_table_on_a_forced_terminal(capsys, hostile_tree, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    code, out, err = run(capsys, hostile_tree)
    assert code == 0, err
    assert re.sub(r"\x1b\[[0-9;]*m", "", out).count("\x1b") == 0  # rich's colours only
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "[bold red]x.py" in plain and "a[/]b.py" in plain


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_and_sarif_parse(capsys, hostile_tree, fmt):
    code, out, err = run(capsys, hostile_tree, "--format", fmt)
    assert code == 0, err
    _no_acting_bytes(out)
    doc = json.loads(out)
    if fmt == "sarif":
        jsonschema = pytest.importorskip("jsonschema")
        from tests.migrate.audit.test_audit_sarif import official_schema

        validator = jsonschema.Draft4Validator(official_schema())
        assert not list(validator.iter_errors(doc))
        uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]]
        assert "latin%E9.py" in uris and "%1B%5B2J%1B%5D0%3Bpwned%07.py" in uris


def test_markdown_forges_no_row(capsys, hostile_tree, tmp_path):
    code, out, err = run(capsys, hostile_tree, "--format", "markdown")
    assert code == 0, err
    _no_acting_bytes(out)
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert all(not line.startswith("| Gate passed") for line in rows)
    assert {len(re.findall(r"(?<!\\)\|", row)) for row in rows[:len(NAMES) + 3]} == {7}
    target = tmp_path / "audit.md"
    assert run(capsys, hostile_tree, "--format", "markdown", "-o", str(target))[0] == 0
    target.read_text(encoding="utf-8")
