"""`kb ask` on a pipe (report t26b item 9): plain text with no markdown backslash escapes, a
source whose kind and name are one word said once, lines wrapped to COLUMNS as other
commands' text is."""

from __future__ import annotations

import re

import pytest

from cli.entry import main
from kb.chat.reply import Sources

QUESTIONS = ["is nonzero native on neuron 2.33?", "does neuron support float64?",
             "what are the limitations of torch.compile on neuron?"]


def test_a_source_named_as_its_kind_is_said_once():
    cites = Sources()
    cites.cite({"source_kind": "static_probe", "source_name": "static_probe", "probe_run_id": "run-1",
                "retrieved_at": "2026-11-30T00:00:00"})
    cites.cite({"source_kind": "doc", "source_name": "release notes", "source_url": "https://docs.example.test/a"})
    lines = cites.markdown().strip().split("\n")
    assert lines[1].startswith("[1] static\\_probe · probe run `run-1`")
    assert lines[2].startswith("[2] doc · release notes · https://docs.example.test/a")


@pytest.mark.parametrize("question", QUESTIONS)
def test_plain_answers_have_no_escapes_and_fit_80_columns(chat_env, capsys, monkeypatch, question):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["ask", question]) == 0
    out = capsys.readouterr().out
    prose = re.sub(r"`[^`\n]*`", "", out)  # code spans are shown as written
    assert not re.search(r"\\[\\`*_\[\]#~|]", prose), out
    assert not re.search(r"^\[\d+\] (\S+) · \1 ·", out, re.M), out
    too_long = [line for line in out.split("\n") if len(line) > 80 and "://" not in line and not line.startswith("|")]
    assert not too_long, too_long

