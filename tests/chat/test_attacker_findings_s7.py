"""Findings of a hostile-input tester of chat (session 7), each as a case that must not come back:
"since"/"desde" read as the op aten::sinc (one letter off), and an unknown short op name answered
with another op's verdict (aten::foo as floor, aten::evil as ceil)."""

from __future__ import annotations

import pytest

from tests.chat.phrasings import ask


@pytest.mark.parametrize("question", [
    "since which version does nonzero run on neuron?",
    "since when is gelu native on tpu?",
    "¿desde qué versión funciona nonzero en neuron?",
    "is nonzero native on neuron since 2.33?",
])
def test_since_is_a_word_not_the_op_sinc(conn, question):
    got = ask(conn, question)
    assert "aten::sinc" not in got["text"] and "`sinc`" not in got["text"], got["text"][:300]


@pytest.mark.parametrize(("question", "not_this"), [
    ("is aten::foo native on neuron?", "floor"),
    ("is aten::evil native on tpu?", "ceil"),
])
def test_a_short_unknown_op_is_unknown_not_a_neighbours_verdict(conn, question, not_this):
    got = ask(conn, question)
    head = got["text"].splitlines()[0]
    assert "unknown" in head and "Did you mean" in head, head  # the close names offered, not answered
    assert not any(f.get("op", "").startswith(f"aten::{not_this}") for f in got["facts"])


def test_a_one_letter_typo_of_an_op_is_still_read(conn):
    got = ask(conn, "is nonzer native on tpu?")
    assert got["text"].startswith("**Yes**") and any(f.get("op") == "aten::nonzero" for f in got["facts"])


@pytest.mark.parametrize(("question", "head"), [
    (" ".join(f"Q{i}: is aten::nonzero native on tpu?" for i in range(1, 10)), "the first 6 are answered here: ask the other 3"),
    ("¿funciona nonzero en tpu? ¿y en neuron? ¿y gelu en tpu? ¿y relu en tpu? ¿y silu en tpu? ¿y sort en tpu? "
     "¿y topk en tpu? ¿y roll en tpu?", "las 6 primeras: haz las otras 2 por separado"),
])
def test_parts_past_six_are_said_not_silently_dropped(conn, question, head):
    got = ask(conn, question)
    assert head in got["text"].splitlines()[0]
    assert got["text"].count("**(") == 6  # six sections, each answered


def test_a_question_naming_many_models_answers_the_first_four_and_lists_the_rest(conn):
    got = ask(conn, "will gpt2, bert, t5, llama, mistral, mixtral, gemma, phi and whisper run on neuron?")
    text = got["text"]
    assert len(text) < 8_000  # 19 models named gave 41 KB
    assert text.index("GPT-2") < text.index("BERT base")  # in the order asked
    assert "more models named" in text and "mixtral-8x7b" in text and "`kb gallery --target neuron`" in text


@pytest.mark.parametrize("question", ["is aten::nonzero native on ｔｐｕ ０.２.０?", "is aten::nonzero native on tpu ٠.٢.٠?"])
def test_fullwidth_and_other_scripts_digits_read_as_ascii(conn, question):
    got = ask(conn, question)
    assert got["text"].startswith("**Yes**") and any(f.get("backend_version") == "0.2.0" for f in got["facts"])
