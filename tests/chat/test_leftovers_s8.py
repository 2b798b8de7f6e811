"""Leftovers of session 7's #29 list, fixed by the lead in session 8 (own paraphrases): a Spanish
question after the first keeps its opening "¿" in its section heading, and "?, ¿" joins two
questions as "? ¿" does."""

from __future__ import annotations

import pytest

from kb.chat import sections, understand
from tests.chat.phrasings import ask


@pytest.mark.parametrize(("text", "second"), [
    ("¿funciona nonzero en tpu?, ¿cuándo termina el soporte de python 3.10 en neuron?",
     "¿cuándo termina el soporte de python 3.10 en neuron?"),
    ("¿es nativo aten::sort en neuron?; ¿y cuánto cuesta a 2 USD/h con 900 tok/s?", "¿y cuánto cuesta a 2 USD/h con 900 tok/s?"),
    ("is aten::sort native on tpu?, and when does python 3.10 end on neuron?", "when does python 3.10 end on neuron?"),
])
def test_a_question_mark_then_a_comma_joins_two_questions(text, second):
    assert understand.split_two(text)[1] == second


def test_every_spanish_part_keeps_its_opening_mark_in_its_heading(conn):
    question = ("¿funciona nonzero en tpu?, ¿cuándo termina el soporte de python 3.10 en neuron? y ¿cuánto cuesta "
                "a 7.5 USD la hora con 1800 tokens/s?")
    assert sections.split_all(question) == ["¿funciona nonzero en tpu?", "¿cuándo termina el soporte de python 3.10 en neuron?",
                                            "¿cuánto cuesta a 7.5 USD la hora con 1800 tokens/s?"]
    text = ask(conn, question)["text"]
    assert "**(3)** _¿cuánto cuesta" in text and "**(2)** _¿cuándo termina" in text and "nonzero" in text.split("**(2)**")[0]


@pytest.mark.parametrize(("english", "spanish"), [
    ("1,127 of 3,136 ops", "1.127 de 3.136 ops"), ("(12,345,678 tokens)", "(12.345.678 tokens)"),
    ("a 1,34 USD/h", "a 1,34 USD/h"), ("versions 2.13.0, 2.14.0", "versions 2.13.0, 2.14.0")])
def test_spanish_numbers_group_thousands_with_a_point_everywhere(english, spanish):
    """Session 7 left "1,127 de 3.136": only a count before "ops" took Spanish digit groups."""
    from kb.chat.spanish import to_spanish
    assert to_spanish(english) == spanish


def test_a_link_in_a_part_is_never_echoed_in_its_heading(conn):
    """A chat client makes a bare URL in kb's answer a link: a heading names it as a word."""
    text = ask(conn, "is nonzero native on tpu? see https://evil.example/x and when does python 3.10 leave neuron?")["text"]
    headings = [line for line in text.splitlines() if line.startswith("**(")]
    assert len(headings) == 2 and "(a link)" in headings[0] and not any("evil" in h for h in headings)
    text = ask(conn, "¿funciona nonzero en tpu? mira www.evil.example/x y ¿cuándo termina python 3.10 en neuron? "
                     "y ¿cuánto cuesta a 2 USD/h con 900 tok/s?")["text"]
    assert "(un enlace)" in text and "evil" not in text


@pytest.mark.parametrize("tail", ["and what about 1,200 tok/s at $4/h?", "¿y qué tal a 3 EUR la hora con 800 tokens/s?"])
def test_what_about_a_price_and_a_rate_is_a_cost_question_of_its_own(tail):
    assert understand.split_two(f"is nonzero native on tpu? {tail}")[1] == tail.removeprefix("and ")


@pytest.mark.parametrize("question", ["what does tpu do with an op it has no kernel for in eager mode?",
                                      "¿qué hace torch_tpu con un op sin kernel?"])
def test_a_policy_question_without_a_version_also_names_an_older_rule_that_differs(conn, question):
    """Code written for TorchTPU 0.1.1 meets fallback_mode(ALLOW_FALLBACK), not 0.2.0's switch."""
    text = ask(conn, question)["text"].replace("\\_", "_")
    assert "TorchTPU 0.2.0" in text.split("\n")[0] and "fallback_mode(ALLOW_FALLBACK)" in text
    assert "ALLOW_FALLBACK" not in text.split("\n")[0]


def test_a_policy_question_naming_the_version_gets_that_rule_only(conn):
    text = ask(conn, "what does torchtpu 0.2.0 do with an op it lacks in eager?")["text"].replace("\\_", "_")
    assert "ALLOW_FALLBACK" not in text and "enable_cpu_fallback" in text


@pytest.mark.parametrize(("question", "second"), [
    ("¿MobileNetV2 funciona en tpu? ¿y en trainium cómo va?", "MobileNetV2 1.0 224"),
    ("will BERT base run on trn2? and on tpu in compile mode?", "BERT base"),
])
def test_a_follow_up_part_asks_about_the_model_the_first_part_names(conn, question, second):
    """The gallery slice's leftover: part 2 had no model and was refused."""
    text = ask(conn, question)["text"]
    part2 = text.split("**(2)**")[1] if "**(2)**" in text else text.split("\n", 1)[1]  # split, or read whole
    assert second.lower() in part2.lower() and "could not read" not in part2 and "No pude leer" not in part2


@pytest.mark.parametrize(("question", "head"), [
    ("is pytorch/xla inference on trn2 over since when", "**Already ended (2026-11-30, with Neuron 2.34)**"),
    ("is pytorch/xla inference on trn2 over?", "**Yes, it ended**"),
    ("is pytorch/xla training still supported on trn1?", "**No**"),
])
def test_an_ended_feature_line_answers_the_question_asked(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


def test_an_end_of_support_part_takes_no_model_from_the_part_before(conn):
    """Held-out r13 q58: the model of part 1 was carried into part 2, answered as a gallery check."""
    text = ask(conn, "does llama 3.1 70b run on trn2 and is pytorch/xla inference on trn2 over since when")["text"]
    part2 = text.split("**(2)**")[1].split("**Sources**")[0]
    assert "2026-11-30" in part2 and "Llama" not in part2


@pytest.mark.parametrize(("text", "head"), [("compare nonzero between neuron and tpu", "**Same status on all of them.**"),
                                            ("nonzero en neuron vs tpu", "**El mismo estado en todos.**")])
def test_a_compare_of_targets_keeps_its_headline_over_the_mode_line(conn, text, head):
    # s8b-head2's "Eager and torch.compile agree" speaks of the modes: the targets compared still get their answer
    a = ask(conn, text)
    assert a["intent"] == "compare" and a["text"].startswith(head) and "torch.compile" in a["text"]


def test_trainium_alone_is_the_target_not_the_trn1_instance(conn):
    """Held-out r15 q36: 'Trainium' was read as Trn1 and answered with Trn1's platform matrix."""
    from kb.chat import entities
    assert entities.extract("does it work on Trainium?").instances == []
    assert entities.extract("does it work on Trainium2?").instances == ["trn2"]
    assert "dynamic=True" in ask(conn, "does torch.compile(dynamic=True) work on Trainium?")["text"].split("\n")[0]


def test_deberia_is_a_spanish_verb_not_a_typo_of_deberta(conn):
    """Held-out r15 q40: '¿qué backend debería usar?' read 'deberia' as DeBERTa."""
    text = ask(conn, "¿Qué backend debería usar con torch.compile en tpu?")["text"]
    assert "DeBERTa" not in text and "backend='tpu'" in text


def test_the_mode_line_speaks_of_the_headlines_op_not_its_out_overload(conn):
    """Held-out r15 q7: "Yes — its own kernel" then "eager: falls back to the CPU" (of aten::_scaled_mm.out)."""
    head = ask(conn, "is aten::_scaled_mm native on torch-neuronx 2.14.3.1?")["text"].split("\n")[:2]
    assert head[0].startswith("**Yes**") and "agree" in head[1] and "falls back" not in head[1]


def test_w_slash_is_with(conn):
    """Held-out r15 q18: 'w/ pool in the name' lost its filter."""
    assert "'pool'" in ask(conn, "list what tpu 0.1.1 cant run w/ pool in the name")["text"].split("\n")[0]
