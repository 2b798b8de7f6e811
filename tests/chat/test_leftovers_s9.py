"""Leftovers the lead found in session 9 with own questions: a release-news part of a multi-part
message takes no op from an earlier part."""

from __future__ import annotations

import pytest

from tests.chat.phrasings import ask


@pytest.mark.parametrize("question", [
    "quick ones - 1) is nn.GELU native on tpu 0.2.0 2) list the fallback ops on neuron with 'pool' in the name "
    "3) what's new in neuron 2.34",
    "1) ¿aten::sort es nativo en tpu? 2) ¿cuántas ops caen a cpu en neuron? 3) ¿qué trae neuron 2.34?",
])
def test_a_release_news_part_takes_no_op_of_an_earlier_part(conn, question):
    text = ask(conn, question)["text"]
    third = text.split("**(3)**")[1].split("\n")[0]
    assert "2.34" in third and "GELU" not in third and "sort" not in third
    assert "2026-11-30" in text.split("**(3)**")[1]


def test_a_headline_over_an_inferred_and_a_probed_version_calls_only_the_first_inferred(conn):
    text = ask(conn, "is aten::_unique2 supported on tpu 0.1.1 and 0.2.0?")["text"]
    head = text.split("\n")[0]
    assert head.startswith("**Yes** —") and "not an observation of 0.1.1 (0.2.0 rests on evidence)" in head
    assert text.count("`aten::_unique2.out` decomposed") == 1  # the other overload named once, not once per version
    assert ask(conn, "is aten::_unique2 supported on tpu 0.1.1?")["text"].startswith("**Yes, inferred**")


def test_since_when_after_two_versions_asks_since_which_release_the_op_runs(conn):
    text = ask(conn, "is aten::_unique2 supported on tpu 0.1.1? and on 0.2.0? and since when?")["text"]
    assert "since when does tpu support aten::\\_unique2?" in text and "**At least since tpu 0.1.1**" in text


@pytest.mark.parametrize("question", [
    "does torch.nn.functional.scaled_dot_product_attention fall back on trn2 and what about under torch.compile?",
    "¿F.scaled_dot_product_attention cae a cpu en trn2? ¿y con torch.compile?",
])
def test_and_what_about_compile_without_a_mark_answers_both_modes(conn, question):
    second = ask(conn, question)["text"].split("\n")[1]
    assert second.startswith(("**Eager and torch.compile agree**", "**Eager y torch.compile coinciden**"))
