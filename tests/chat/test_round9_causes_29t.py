"""Slice 29t (issue #29): the causes behind held-out round 9's misses, in our own words. A version said
after "in" is the one named target's; a catalog op's own name needs no aten::; "scatter" lists the ops
named scatter, not the whole indexing family; "env var" is no aten::var; "0.1.1 -> 0.2.0" is a range."""

from __future__ import annotations

import pytest

from kb.chat import entities, intents, understand
from tests.chat.phrasings import ask

# ---------------------------------------------------------------- a version after "in"


@pytest.mark.parametrize(("text", "version"), [
    ("how many ops did the tpu run natively back in 0.1.1?", "0.1.1"),
    ("which ops were unsupported on tpu in 0.1.1", "0.1.1"),
    ("what ran on the tpu as of version 0.1.1", "0.1.1"),
])
def test_a_version_after_in_is_the_named_targets(text, version):
    q = intents.read(text)
    assert [m.version for m in q.targets] == [version]


def test_a_loose_version_binds_only_one_target_and_never_a_platforms():
    assert [m.version for m in intents.read("compare tpu and neuron in 0.1.1").targets] == [None, None]
    q = intents.read("is python 3.11 supported on neuron?")
    assert [m.version for m in q.targets] == [None] and ("python", "3.11") in q.products


def test_spanish_en_la_version_reads_so(conn):
    a = ask(conn, "¿cuántos ops nativos había en la tpu en la 0.1.1?")
    assert "**510** ops se ejecutan como nativos en tpu 0.1.1" in a["text"]


# ---------------------------------------------------------------- a bare op name


@pytest.mark.parametrize("text", ["in which torch-neuron release did pixel_shuffle arrive?",
                                  "¿en qué versión de torch-neuron se añadió pixel_shuffle?"])
def test_a_bare_catalog_op_name_is_the_op(conn, text):
    a = ask(conn, text)
    assert a["intent"] == "op" and "`aten::pixel_shuffle`" in a["text"] and "2.0.318.0" in a["text"]


def test_since_is_no_op_name():
    assert "since" not in intents.read("since which version does inf1 run pixel_shuffle?").plain_words


# ---------------------------------------------------------------- scatter, gather: the ops named so


@pytest.mark.parametrize("text", ["which scatter ops fall back on neuron?", "¿qué ops de scatter caen a la cpu en neuron?"])
def test_scatter_lists_the_ops_named_scatter(conn, text):
    a = ask(conn, text)
    assert "'scatter' (`--grep scatter`)" in a["text"] and "indexing" not in a["text"].split("\n")[0]
    assert "aten::index_fill" not in a["text"]


def test_a_familys_own_short_name_still_names_the_family(conn):
    assert "The **normalization** family" in ask(conn, "list the norm ops that fall back on neuron")["text"]
    assert "The **convolution** family" in ask(conn, "list the conv ops tpu can't run")["text"]


# ---------------------------------------------------------------- env var


@pytest.mark.parametrize("text", ["which env var turns the fallback execution off on neuron?",
                                  "what environment variables control neuron's fallback execution?",
                                  "¿qué variable de entorno controla la fallback execution en neuron?"])
def test_env_var_is_no_aten_var(conn, text):
    a = ask(conn, text)
    assert "aten::var" not in a["text"] and "TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION" in a["text"].replace("\\_", "_")


# ---------------------------------------------------------------- an arrow between versions


@pytest.mark.parametrize("text", ["tpu 0.1.1 -> 0.2.0", "tpu 0.1.1→0.2.0", "tpu 0.1.1 => 0.2.0",
                                  "tpu from 0.1.1 -> 0.2.0"])
def test_an_arrow_is_a_range(text):
    assert entities.extract(text, "en").english == "tpu from 0.1.1 to 0.2.0"


@pytest.mark.parametrize("text", ["what did tpu lose going 0.1.1 -> 0.2.0?", "¿qué ganó la tpu de 0.1.1 → 0.2.0?"])
def test_an_arrow_range_is_a_diff(conn, text):
    a = ask(conn, text)
    assert a["intent"] == "diff" and "**tpu 0.1.1 → 0.2.0**" in a["text"]


# ---------------------------------------------------------------- the CPU beside a fallback question


@pytest.mark.parametrize("text", ["which ops ran on the cpu because neuron fell back?",
                                  "how do I see what executed on the CPU through the fallback on trn2?"])
def test_the_cpu_beside_a_fallback_is_no_second_target(text):
    assert intents.read(text).target_names() == ["neuron"]


@pytest.mark.parametrize("text", ["how can I tell which ops fell back to the CPU on neuron?",
                                  "¿cómo puedo ver qué ops se ejecutaron en la CPU por el fallback en neuron?"])
def test_how_to_see_the_fallback_ops_is_the_policy(conn, text):
    a = ask(conn, text)
    assert a["intent"] == "policy" and "get_fallback_ops()" in a["text"].replace("\\_", "_")


def test_the_cpu_compared_without_a_fallback_word_stays_a_target():
    assert intents.read("compare cpu and neuron for aten::add").target_names() == ["cpu", "neuron"]


# ---------------------------------------------------------------- two clauses


@pytest.mark.parametrize("text", ["what's the cost per 1M tokens if trn2 costs 7 USD an hour and does 2000 tok/s?",
                                  "price per million tokens: 3 EUR per hour and it gets 900 tokens/s?",
                                  "¿cuánto cuesta el millón de tokens si pago 4 EUR la hora y saca 1200 tokens por segundo?"])
def test_a_figure_after_and_is_no_second_question(text):
    assert understand.split_two(text) is None


def test_a_real_second_question_after_a_figure_still_splits():
    assert understand.split_two("cost per 1M tokens at 7 USD an hour and 2000 tok/s, and does aten::nonzero run on tpu?")


@pytest.mark.parametrize("text", ["neuron 2.33 + python 3.10: what reaches end of support first, and when?",
                                  "con neuron 2.33 y python 3.10, ¿qué pierde soporte primero? ¿y cuándo?"])
def test_and_when_after_an_end_of_support_asks_that_end(text):
    assert understand.split_two(text) is None


def test_and_when_after_a_release_question_still_asks_the_release_date():
    parts = understand.split_two("does tpu 0.2.0 support aten::nonzero, and when?")
    read, _ = understand.carry_context(parts, "en")
    assert read[1] == "when was tpu 0.2.0 released?"


def test_a_later_clauses_version_stays_in_it():
    parts = understand.split_two("how many ops are unsupported on inf1 (latest), and when did torch-neuron 1.9 lose support?")
    read, _ = understand.carry_context(parts, "en")
    assert "1.9" not in read[0] and "1.9" in read[1]


def test_a_version_carries_forward_never_back():
    read, _ = understand.carry_context(("is aten::sort native on neuron 2.33?", "is aten::nonzero native on neuron?"), "en")
    assert read[1] == "is aten::nonzero native on neuron 2.33?"
    read, _ = understand.carry_context(("is aten::sort native on neuron?", "is aten::nonzero native on neuron 2.33?"), "en")
    assert read[0] == "is aten::sort native on neuron?"


@pytest.mark.parametrize(("text", "lang", "second", "product"), [
    ("Python 3.12: is it supported on neuron? and when does it reach end of life upstream?", "en",
     "when does python 3.12 reach end of life upstream?", "python 3.12"),
    ("Ubuntu 22.04: ¿sigue soportado en neuron? ¿y cuándo es su fin de vida propio?", "es",
     "¿y cuándo es el fin de vida propio de ubuntu 22.04?", "ubuntu 22.04"),
])
def test_a_pronoun_is_the_product_the_first_clause_names(text, lang, second, product):
    read, facts = understand.carry_context(understand.split_two(text), lang)
    assert read[1] == second and {"part": 2, "carried": {"product": product}} in facts


def test_whats_it_set_to_continues_the_env_var_question(conn):
    text = "which env var turns off neuron's fallback execution, and what's it set to by default?"
    assert understand.split_two(text) is None
    assert "defaults to 1" in ask(conn, text)["text"]
