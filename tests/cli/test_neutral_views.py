"""Neutral output of `kb op`, `kb ops` and `kb compare` (issue 24): an op name, note,
source name or URL in the KB that carries ANSI escapes, rich markup or a forged line is
shown in tables (piped and on a terminal) and JSON without acting.

The values are written into the KB file after ingest, so the test holds whatever ingest
comes to refuse: the renderer must hold alone."""

from __future__ import annotations

import json
import re
import sqlite3
import sys

import pytest

from tests.conftest import run_kb

ANSI = "\x1b[2J\x1b]0;pwned\x07"
OP = f"aten::evil{ANSI}[/][bold red]x"
NOTE = f"note{ANSI}[/]\nneuron  2.14.3.0  eager  ✔ native  forged\x9b2J"


@pytest.fixture
def hostile(filled):
    """The shared small KB (tests/cli/conftest.py), hostile values written in after ingest."""
    isolated_kb = filled
    conn = sqlite3.connect(isolated_kb)
    with conn:
        for table in ("support_stored", "observation"):
            conn.execute(f"UPDATE {table} SET note = ?, source_name = ?, source_url = ? WHERE op = 'aten::add.Tensor'",
                         (NOTE, f"src{ANSI}[/]", f"javascript:{ANSI}"))
            conn.execute(f"UPDATE {table} SET op = ? WHERE op = 'aten::nonzero'", (OP,))
    conn.close()
    return isolated_kb


def _only_rich_styles(text: str) -> str:
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert "\x1b" not in plain and "\x07" not in plain and "\x9b" not in plain, repr(text[:500])
    return plain


COMMANDS = [("op", "aten::add.Tensor"), ("ops", "--target", "neuron"), ("ops", "--target", "tpu"),
            ("compare", "neuron", "tpu", "--all")]


@pytest.mark.parametrize("args", COMMANDS)
def test_piped_tables_show_and_do_not_obey(hostile, capsys, args):
    code, out, err = run_kb(capsys, *args)
    assert code == 0, err
    _only_rich_styles(out + err)
    assert "\\x1b[2J" in out  # the hostile value is there, shown visibly
    assert not re.search(r"^neuron +2\.14\.3\.0 +eager +✔ native +forged", out, re.M)  # no forged row


@pytest.mark.parametrize("args", COMMANDS)
def test_terminal_tables_neither_crash_nor_obey(hostile, capsys, monkeypatch, args):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    code, out, err = run_kb(capsys, *args)
    assert code == 0, err
    assert "[/]" in _only_rich_styles(out)


@pytest.mark.parametrize("args", COMMANDS)
def test_json_keeps_the_data(hostile, capsys, args):
    code, out, _ = run_kb(capsys, *args, "--json")
    assert code == 0
    _only_rich_styles(out)
    json.loads(out)
    assert "\\u001b[2J" in out  # the data itself, escaped by JSON
