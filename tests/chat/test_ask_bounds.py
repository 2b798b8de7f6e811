"""`kb ask` on long and hostile questions: tokenizing is linear (the path pattern never
scans a piece longer than its bound, each character is scanned once), repeated words cost
nothing, and the CLI refuses a question over its length bound in one line (exit 2).
Timings are in bench/ask_tokenize.py; here the work is counted, not timed."""

import pytest

from kb.chat import intents
from kb.chat.reply import MAX_QUESTION_CHARS
from tests.conftest import run_kb


class _Counting:
    """Stands in for a compiled pattern and counts the characters it is asked to scan."""

    def __init__(self, pattern):
        self.pattern = pattern
        self.scanned = 0
        self.longest = 0

    def finditer(self, text):
        self.scanned += len(text)
        self.longest = max(self.longest, len(text))
        return self.pattern.finditer(text)


HOSTILE = {
    "slashes": "a/" * 12_000,  # the quadratic case: 24k characters took 12 s
    "dots": "a." * 12_000,
    "path-ish": "./x/" * 6_000 + "m.pt",
    "words": "is add native on neuron " * 1_000,
    "mixed": ("is ../a/b/model.pt2:build native on tpu 0.2.0? " * 500)[:24_000],
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_tokenizing_scans_each_character_once_with_a_bounded_path_pattern(monkeypatch, name):
    text = HOSTILE[name]
    with_path = _Counting(intents._TOKEN)
    without = _Counting(intents._TOKEN_NO_PATH)
    monkeypatch.setattr(intents, "_TOKEN", with_path)
    monkeypatch.setattr(intents, "_TOKEN_NO_PATH", without)
    intents.read(text)
    assert with_path.scanned + without.scanned <= len(text)  # linear: no character read twice
    # the one backtracking pattern only ever sees short pieces: its work is <= n * bound
    assert with_path.longest <= intents.MAX_PATH_PIECE


def test_short_questions_read_as_before():
    q = intents.read("does ./models/llama.pt2:build run on tpu 0.2.0? is aten::add.Tensor native on neuron 2.33")
    assert q.model_path == "./models/llama.pt2:build"
    assert [(t.target, t.version) for t in q.targets] == [("tpu", "0.2.0"), ("neuron", "2.33")]
    assert q.op_words == ["aten::add.Tensor"]


def test_repeated_mentions_are_read_once():
    q = intents.read("is add native on neuron " * 200)
    assert [t.target for t in q.targets] == ["neuron"] and q.plain_words.count("add") == 1


def test_the_cli_bounds_the_question_length(small_data, isolated_kb, capsys):
    code, out, err = run_kb(capsys, "ask", "x" * (MAX_QUESTION_CHARS + 1))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"limit is {MAX_QUESTION_CHARS}" in err and "Traceback" not in err
    code, out, err = run_kb(capsys, "ask", "--json", "a/" * (MAX_QUESTION_CHARS // 2))
    assert code == 0, err
