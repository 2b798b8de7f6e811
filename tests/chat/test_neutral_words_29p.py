"""Issue #29 slice 29p (round 7): words the reader does not know stay neutral and the entities a
question names decide it — a negated support verb asks whether the op is unsupported, what a vendor
"stopped shipping" is an end of support, "reqs" are requirements; fuzzy model names refuse everyday
words ("llamo" is no Llama); an op named as code beats a model named as context; Spanish thousands
("18 mil", "2 mil millones") are numbers; "the nativ op count" is a count by status; a torch.compile
backend named is compile mode."""

from __future__ import annotations

from decimal import Decimal

import pytest

from kb.chat import answer_gallery, english, entities, intents, scoring
from tests.chat.english_guard import english_in
from tests.chat.phrasings import ask

# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize("said, value", [
    ("18 mil", 18_000), ("1,5 millones", 1_500_000), ("2 mil millones", 2_000_000_000), ("3 thousand", 3_000),
    ("1.5 million", 1_500_000), ("7,5", Decimal("7.5")), ("1.800", 1_800),
])
def test_scale_words_are_part_of_the_number(said, value):
    assert entities.number(said, "es") == value


def test_a_rate_and_a_count_said_with_scale_words():
    ents = entities.extract("¿cuánto cuestan 2 mil millones de tokens a 7 USD la hora con 18 mil tokens por segundo?")
    assert [r.value for r in ents.rates] == [18_000]
    assert [t.value for t in ents.tokens] == [2_000_000_000]
    ents = entities.extract("at 7 usd/h and 18 thousand tokens per second, price per million?")
    assert [r.value for r in ents.rates] == [18_000]


def test_cost_with_spanish_thousands(conn):
    a = ask(conn, "a 40 USD la hora y 18 mil tokens/s, ¿cuánto sale el millón?")
    assert a["intent"] == "cost" and "18.000 tokens/s" in a["text"] and "Falta" not in a["text"]


# ---------------------------------------------------------------- negated and unknown verbs


@pytest.mark.parametrize("text", [
    "does tpu flat-out not support torch.nonzero?", "does torch.roll not run on tpu?",
    "tpu rejects torch.roll?", "does tpu 0.1.1 really not support torch.roll?",
])
def test_a_negated_support_verb_asks_whether_it_is_unsupported(text):
    assert intents.read(text).statuses == ["unsupported"]


def test_a_plain_support_question_keeps_its_status():
    assert intents.read("is torch.nonzero supported on tpu?").statuses == ["supported"]


@pytest.mark.parametrize("text, head", [
    ("does tpu flat-out not support torch.nonzero?", "**No** — native (own kernel)"),
    ("¿tpu no soportaba torch.nonzero?", "**No** — nativo (kernel propio)"),
    ("if I call torch.nonzero on tpu, does it run natively?", "**Yes** — its own kernel on tpu"),
])
def test_the_op_and_target_answer_whatever_the_verb(conn, text, head):
    a = ask(conn, text)
    assert a["intent"] == "op" and a["text"].startswith(head)


def test_spanish_past_tenses_read_as_support_verbs():
    assert entities.to_english("¿tpu no soportaba torch.nonzero?").startswith("tpu did not support")
    assert "stopped providing" in entities.to_english("¿cuándo dejaron de dar las AMIs de Inf1?")


@pytest.mark.parametrize("text", ["when did they stop shipping inf1 DLAMIs?", "inf1 dlami: when did that end?",
                                  "¿cuándo dejaron de dar las AMIs de Inf1?"])
def test_what_a_vendor_stopped_providing_is_its_end_of_support(conn, text):
    a = ask(conn, text)
    assert a["intent"] == "eol" and "Inf1 virtual environments and AMIs" in a["text"] and "2025-12-19" in a["text"]


def test_a_dlami_statement_of_another_family_is_still_found(conn):
    a = ask(conn, "is the ubuntu20 DLAMI still supported?")
    assert a["intent"] == "eol" and "Ubuntu20 DLCs and DLAMIs" in a["text"]


def test_reqs_are_requirements(conn):
    assert "requirements" in entities.extract("torchneuron 2.14.3.0 reqs?").english
    a = ask(conn, "¿cuáles son los reqs de torchneuron 2.14.3.0?")
    assert a["intent"] == "release" and a["text"].startswith("**Lo que requiere torchneuron 2.14.3.0**")
    assert not english_in(a)


def test_a_release_named_with_words_the_kb_does_not_know_is_its_card(conn):
    a = ask(conn, "torch_tpu 0.2.0 lowdown?")  # a package named at a version; "blah tpu 0.2.0" stays unplaced (29k)
    assert a["intent"] == "release" and a["text"].startswith("_Read as a question about the release itself")
    assert ask(conn, "what is foo?")["intent"] == "unknown"


# ---------------------------------------------------------------- fuzzy model names


def test_everyday_words_are_never_a_model():
    assert not english.fuzzy_allowed("llamo", "llama") and not english.fuzzy_allowed("gamma", "gemma")
    assert answer_gallery.find_models("¿cómo llamo a torch.nonzero en tpu?") == []
    assert answer_gallery.find_models("si llamo torch.nonzero en neuron, cae a la cpu?") == []


def test_a_short_name_asks_more_of_a_typo():
    # a letter changed in a five-letter name is another word; a letter dropped is still a typo of it
    assert answer_gallery._fuzzy("does lamba run on tpu?")[1] == []
    assert answer_gallery._fuzzy("does gema 2 9b run on tpu?")[1] == [("gema", "gemma")]


def test_llamo_asks_about_the_op(conn):
    a = ask(conn, "si llamo torch.nonzero en tpu, ¿es nativo?")
    assert a["intent"] == "op" and a["text"].startswith("**Sí** — kernel propio en tpu") and "llama" not in a["text"].lower()


# ---------------------------------------------------------------- an op named beside a model


@pytest.mark.parametrize("text", ["my wav2vec uses nn.GroupNorm, does it run on neuron?",
                                  "mi llama usa torch.nonzero, ¿funciona en tpu?"])
def test_an_op_named_as_code_beats_a_model_named_as_context(conn, text):
    ents = entities.extract(text)
    q = intents.read(ents.english)
    assert all(r.intent != "model" for r in scoring.readings(q, ents))
    assert ask(conn, text)["intent"] == "op"


def test_a_model_alone_is_still_the_gallery(conn):
    assert ask(conn, "does mixtral run on neuron?")["intent"].startswith("gallery")


# ---------------------------------------------------------------- counts and compile mode


def test_a_misspelt_status_and_an_op_count_are_a_count_by_status(conn):
    ents = entities.extract("what is the nativ op count on tpu in compile mode")
    assert ents.corrections == [("nativ", "native")] and "list" in ents.cues
    a = ask(conn, "what is the nativ op count on tpu in compile mode")
    assert a["intent"] == "ops_by_status" and a["text"].startswith("**674** ops run as native on tpu 0.2.0 (compile)")


def test_status_neighbours_are_not_corrected():
    assert entities.read_name("supports") is None and entities.read_name("naive") is None


def test_an_op_count_without_a_status_is_the_overview(conn):
    a = ask(conn, "what is the op count on tpu?")
    assert a["intent"] == "ops_by_status" and "ops **native**" in a["text"] and "ops **decomposed**" in a["text"]


@pytest.mark.parametrize("text", ["with the inductor backend on tpu, what happens to ops with no kernel?",
                                  "backend=inductor on trn2, what happens to an op it lacks?"])
def test_a_compile_backend_named_is_compile_mode(text):
    assert "compile" in entities.extract(text).cues


def test_the_inductor_backend_gets_the_compile_policy(conn):
    a = ask(conn, "using inductor on neuron, what happens to missing ops?")
    assert a["intent"] == "policy" and "torch.compile: compile error" in a["text"] and "eager mode" not in a["text"]
