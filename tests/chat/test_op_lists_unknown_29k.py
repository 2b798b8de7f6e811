"""Slice 29k (issue #29): a named op beside "or does it fall back" is that op's verdict, a word naming
ops filters a list and the list states its denominator, an unplaced question names the likeliest kb
command, and the "could also be read as" line shows only for a close reading of a subject of its own."""

from __future__ import annotations

import pytest

from kb.chat import entities, list_filter, op_first, scoring
from kb.chat.intents import read
from tests.chat.phrasings import ask

# ---------------------------------------------------------------- 1. the op's verdict, not the policy


@pytest.mark.parametrize("text", ["does nonzero run natively on neuron or does it fall back?",
                                  "is nonzero native on tpu or does it fall back to the cpu?",
                                  "does masked_select run natively on tpu, or does it fall back?"])
def test_a_named_op_beside_falling_back_is_that_ops_verdict(conn, text):
    a = ask(conn, text)
    assert a["intent"] == "op" and "What each backend does" not in a["text"]
    assert a["text"].startswith("**Native")


def test_the_policy_reading_stays_for_ops_in_general(conn):
    for text in ("what does neuron do with an op it lacks?", "what happens on tpu when an op is missing in eager mode?",
                 "¿qué pasa si neuron no tiene un op en modo eager?"):
        assert ask(conn, text)["intent"] == "policy", text


def test_a_question_offering_choices_gets_the_verdict_named(conn):
    a = ask(conn, "is aten::sort native on neuron or does it fall back?")
    assert a["text"].startswith("**Partly falls back, presumably**")
    b = ask(conn, "does argsort fall back to CPU on tpu or run natively?")
    assert b["text"].startswith("**Runs on the device, decomposed**") and "(no CPU fallback)" in b["text"]
    es = ask(conn, "¿nonzero corre nativo en neuron o cae a la CPU?")
    assert es["language"] == "es" and es["text"].startswith("**Nativo, presumiblemente**")


def test_overloads_that_differ_in_how_say_where_they_all_run():
    rows = [{"target": "neuron", "status": "fallback"},
            {"target": "neuron", "status": "decomposed", "effective_status": "fallback",
             "effective_via": {"leaves": ["aten::x"]}}]
    assert op_first.choice_head(rows).startswith("**Falls back** — for every overload shown, in whole or in part")
    mixed = [{"target": "tpu", "status": "native"}, {"target": "tpu", "status": "unsupported"}]
    assert op_first.choice_head(mixed).startswith("**It depends**")


def test_a_yes_no_question_without_choices_keeps_its_yes_or_no(conn):
    assert ask(conn, "is nonzero native on tpu?")["text"].startswith("**Yes**")
    assert ask(conn, "does aten::sort fall back on neuron?")["text"].startswith("**Presumably yes**")


@pytest.mark.parametrize(("text", "offers"), [("native or does it fall back?", True), ("native or fallback", True),
                                               ("nativo or falls back to cpu", True), ("is it native on tpu?", False),
                                               ("neuron or tpu, which is native?", False)])
def test_offers_choices(text, offers):
    assert op_first.offers_choices(text) is offers


def test_names_op_needs_a_catalog_name(conn):
    assert op_first.names_op(conn, read("does nonzero fall back on neuron?"))
    assert not op_first.names_op(conn, read("what does neuron do with an op it lacks?"))


# ---------------------------------------------------------------- 2. and 3. filtered lists, with their denominator


@pytest.mark.parametrize(("text", "kind", "name"), [
    ("list the conv ops tpu can't run", "family", "convolution"),
    ("what attention ops are unsupported on tpu 0.1.1?", "family", "attention"),
    ("list the batch norm ops unsupported on tpu", "family", "normalization"),
    ("which ops in the pooling family fall back on neuron?", "family", "pooling"),
    ("which pad ops are unsupported on tpu?", "grep", "pad"),
    ("which ops with bitwise in the name are unsupported on tpu?", "grep", "bitwise"),
    ("which ops are unsupported on tpu 0.2.0?", None, None),
    ("which aten ops are unsupported by torch_tpu 0.2.0?", None, None),
    ("list the missing ops on tpu 0.2.0", None, None),
    ("which other ops fall back on neuron in eager mode?", None, None)])
def test_the_words_that_name_ops_filter(conn, text, kind, name):
    f = list_filter.name_filter(conn, entities.extract(text).english)
    if kind is None:
        assert f is None
    else:
        assert f.kind == kind and (f.family.name if f.family else f.word) == name


def test_a_family_word_filters_the_list_by_the_family(conn):
    a = ask(conn, "list the conv ops tpu can't run")
    assert a["intent"] == "family" and "The **convolution** family" in a["text"]
    assert "(34 of 80 ops with evidence)" in a["text"] and "aten::_aminmax" not in a["text"]
    es = ask(conn, "¿qué ops de convolución no soporta TPU?")
    assert es["language"] == "es" and "La familia **convolution**" in es["text"] and "(34 de 80 ops con evidencia)" in es["text"]


def test_another_word_filters_by_name_and_says_so(conn):
    a = ask(conn, "list the pad ops unsupported on tpu")
    assert a["intent"] == "ops_by_status" and "contains 'pad' (`--grep pad`)" in a["text"]
    assert "(4 of 50 matching ops with evidence)" in a["text"] and "aten::_aminmax" not in a["text"]
    assert {"filter": "grep", "word": "pad", "family": None} in a["facts"]
    b = ask(conn, "which pad ops fall back on neuron?")  # below the list threshold: the classic routing filters too
    assert b["intent"] == "ops_by_status" and "(22 of 50 matching ops with evidence)" in b["text"]
    # s8: a filtered list of up to 40 ops is shown whole, each op with where it runs: no "N more" line
    assert b["text"].count("\n- `aten::") == 22 and "more: `kb ops" not in b["text"]


def test_an_unfiltered_list_states_its_denominator(conn):
    a = ask(conn, "which ops can't tpu 0.2.0 run at all?")
    assert "595 ops that run as **unsupported** (595 of 3,111 ops with evidence)" in a["text"]
    assert any(f.get("with_evidence") == 3111 for f in a["facts"])
    es = ask(conn, "¿cuales ops no soporta la tpu 0.2.0?")
    assert "(595 de 3.111 ops con evidencia)" in es["text"]


# ---------------------------------------------------------------- 4. unknown answers name a command


def test_an_unplaced_question_names_the_likeliest_command(conn):
    a = ask(conn, "blah blah tpu 0.2.0")
    assert a["intent"] == "unknown" and "The command most likely to answer: `kb ops --target tpu=0.2.0`" in a["text"]
    assert "`kb eol tpu`" in a["text"] and a["facts"][0]["commands"][0] == "kb ops --target tpu=0.2.0"
    b = ask(conn, "python 3.11 ??")
    assert "`kb eol python`" in b["text"]
    es = ask(conn, "¿y lo otro en neuron?")
    assert es["language"] == "es" and "`kb ops --target neuron`" in es["text"] and "leí: destino neuron" in es["text"]


def test_an_unplaced_question_naming_nothing_says_so(conn):
    a = ask(conn, "asdf qwer")
    assert a["intent"] == "unknown" and a["text"].startswith("I could not tell which op, target or product")


# ---------------------------------------------------------------- 5. the other reading, only when close and its own


def _best(text):
    ents = entities.extract(text)
    return scoring.best(read(ents.english), ents)


@pytest.mark.parametrize("text", ["what's tpu 0.2.0 policy for missing ops in compile",
                                  "what does neuron do with an op it lacks in compile mode?",
                                  "list the missing ops on tpu 0.2.0", "what ops lack a kernel on tpu 0.2.0",
                                  "what can't trn2 run on torchneuron 2.14.3.1?"])
def test_no_other_reading_for_a_clear_question(conn, text):
    top, other = _best(text)
    assert top is not None and other is None
    a = ask(conn, text)
    assert a["other_reading"] is None and "could also be read as" not in a["text"]


def test_the_other_reading_for_a_truly_ambiguous_question(conn):
    a = ask(conn, "price per million tokens at 3 usd/h and 1000 tokens/s on neuron for aten::nonzero heavy workloads")
    assert a["intent"] == "cost" and a["other_reading"] == "op" and "could also be read as an op question" in a["text"]


def test_a_far_second_reading_is_not_named():
    top, other = scoring.Reading("policy", 10, ""), scoring.Reading("ops_list", 6, "")
    assert other.score < scoring.CLOSE * top.score
