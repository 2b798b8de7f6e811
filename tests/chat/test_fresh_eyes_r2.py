"""Wrong answers of the second fresh-eyes round on chat (report r2-29): each reading rule pinned
without a KB, and the answers checked on the shipped KB (the phrasing bank holds the questions too)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from kb.chat import answer_eol, answer_gallery, english, entities
from kb.chat.answer import answer
from kb.chat.answer_cost import _arg, _plain

# ---------------------------------------------------------------- reading, no KB

def test_everyday_words_and_op_questions_are_never_a_fuzzy_model():
    assert not english.fuzzy_allowed("faltan", "flan") and not english.fuzzy_allowed("compile", "complex")
    assert not answer_gallery._model_ish("q ops le faltan a torchtpu 0.1.1", "faltan")
    assert answer_gallery._model_ish("will mixtrl run on trainium?", "mixtrl")
    assert answer_gallery._model_ish("which ops does gema 2 9b need on tpu?", "gema")


def test_compile_is_never_an_op_word():
    assert not english.may_be_op("compile", "soporta trn2 el op nonzero en modo compile")


def test_a_decimal_comma_in_a_platform_version():
    assert "python 3.11" in entities.extract("fin de soporte de python 3,11 en neuron").english


@pytest.mark.parametrize(("question", "price", "currency", "rate"), [
    ("cost per million at 7,5 € la hora and 1.800 tokens/s", Decimal("7.5"), "EUR", Decimal(1800)),
    ("precio por millon de tokens a 100 yenes por hora y 1800 tokens/s", Decimal(100), "JPY", Decimal(1800)),
    ("cost per million tokens for 3 dollars per hour at 1e3 tokens/s", Decimal(3), "USD", Decimal(1000)),
])
def test_numbers_and_currencies_as_people_write_them(question, price, currency, rate):
    ents = entities.extract(question)
    assert (ents.prices[0].value, ents.prices[0].unit) == (price, currency)
    assert ents.rates[0].value == rate


def test_computed_figures_are_rounded():
    assert _plain(Decimal(2) / 24) == "0.08333"
    assert _plain(Decimal(30) / 168, es=True) == "0,1786"
    assert _plain(Decimal("0.000833")) == "0.000833"
    assert _arg(Decimal(120) / 24) == "5" and _arg(Decimal(2) / 24) == "0.083333"


@pytest.mark.parametrize("question", ["oye, la F.layer_norm jala en tpu?", "nn.MultiheadAttention en tpu 0.1.1",
                                      "q ops le faltan a torchtpu 0.1.1"])
def test_informal_spanish_is_spanish(question):
    assert entities.language(question) == "es"


def test_when_questions_get_a_date_headline():
    text = "**Yes, for now** — none of these has ended; X: ends 2027-04-30.\n\nmore"
    assert answer_eol.when_headline("until when is X supported?", text, False).startswith("**Until 2027-04-30** —")
    assert answer_eol.when_headline("is X supported?", text, False) == text
    no = "**No** — Neuron 2.34 supports Python 3.12, not 3.11; Python 3.11's own end of life: 2027-10."
    assert answer_eol.when_headline("when does neuron stop supporting python 3.11?", no, False).startswith(
        "**Already ended** — not supported now:")


# ---------------------------------------------------------------- answers on the shipped KB

def test_a_spanish_verb_is_no_model_and_the_list_is_answered(conn):
    got = answer("q ops le faltan a torchtpu 0.1.1", conn=conn)
    assert got.intent == "ops_by_status" and "800" in got.text and "FLAN" not in got.text


@pytest.mark.parametrize("question", ["eager vs compile: which one falls back to CPU on TorchTPU?",
                                      "soporta trn2 el op nonzero en modo compile"])
def test_compile_is_the_mode_never_aten_complex(conn, question):
    assert "complex" not in answer(question, conn=conn).text


def test_eager_vs_compile_is_a_policy_question(conn):
    assert answer("eager vs compile: which one falls back to CPU on TorchTPU?", conn=conn).intent == "policy"


def test_python_3_comma_11_is_3_11(conn):
    text = answer("fin de soporte de python 3,11 en neuron", conn=conn).text
    assert "3.11" in text and "Python 3.10" not in text and "python=3 " not in text


def test_record_text_is_quoted_as_recorded_in_spanish(conn):
    text = answer("¿aten::argmax cae a la cpu en trainium?", conn=conn).text
    assert "runs it en el host" not in text and text.startswith("**Presumiblemente sí**")


def test_natively_and_fall_back_are_what_the_headline_answers(conn):
    assert answer("does torch.cumsum run natively on tpu?", conn=conn).text.startswith("**It runs on tpu, though not")
    assert answer("does aten::argmax fall back to cpu on trainium?", conn=conn).text.startswith("**Presumably yes**")


def test_a_model_on_trn1_names_that_torchneuron_lists_no_trn1(conn):
    text = answer("does gemma work on trn1?", conn=conn).text
    assert text.startswith("_**Trn1**") and "neuron-xla" in text


def test_cost_figures_in_the_answer_are_rounded(conn):
    text = answer("cost per million tokens at 2 USD per day and 10 tokens/s", conn=conn).text
    assert "0.08333 USD an hour" in text and "0833333" not in text.replace("0.083333 ", "")
    assert "--price-per-hour 5 " in answer("how much per million tokens if the instance is 120 USD per day and we "
                                          "get 900 tokens/s?", conn=conn).text


def test_when_questions_on_the_kb(conn):
    assert answer("when does ubuntu 24.04 support end on trn2?", conn=conn).text.startswith("**No end date stated")
    assert answer("hasta cuando python 3.12 en neuron", conn=conn).text.startswith("**Sin fecha de fin declarada")
