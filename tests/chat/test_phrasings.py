"""Issue #29: the phrasing bank through the in-process API, and one test per kind of question
a team asks (cost with numbers, lists at a version, a feature's end of support, policy,
Spanish, models, products on instance families), on the shipped KB."""

from __future__ import annotations

import sys
import types
from decimal import Decimal

import pytest

from kb.chat import entities, scoring
from kb.chat.intents import read
from kb.migrate.cost import make_target
from kb.store import queries
from tests.chat.phrasings import ask, check, phrasings, rates, sample

PASS_RATE = 0.95


def test_bank_is_big_and_varied():
    bank = phrasings()
    assert len(bank) >= 300
    assert len({r["question"].lower() for r in bank}) == len(bank)
    kinds = {r["kind"] for r in bank}
    assert {"cost", "list", "feature_eol", "policy", "platform_eol", "support", "op", "model"} <= kinds
    for kind in kinds:  # every kind asked in both languages
        assert {r["language"] for r in bank if r["kind"] == kind} == {"en", "es"}, kind
    text = " ".join(r["question"].lower() for r in bank)
    for word in ("trn1", "trn2", "trn3", "inf2", "trainium", "v5e", "v6e", "tpu", "torchneuron", "torch-neuronx",
                 "pytorch/xla", "torch-xla", "nxd inference", "python", "trainig", "suported", "milion", "€", "dólares"):
        assert word in text, word


def _through_the_api(conn, bank):
    failed = {}
    for row in bank:
        problems = check(ask(conn, row["question"]), row)
        if problems:
            failed[row["question"]] = problems
    figures = rates(bank, set(failed))
    print(f"\nphrasing bank (API): {len(bank) - len(failed)}/{len(bank)}; {figures}")
    for question, problems in failed.items():
        print(f"  FAIL {question!r}: {'; '.join(problems)}")
    assert 1 - len(failed) / len(bank) >= PASS_RATE, failed


def test_bank_sample_through_the_api(conn):
    _through_the_api(conn, sample(phrasings(), every=24))


@pytest.mark.heavy
def test_bank_through_the_api(conn):
    _through_the_api(conn, phrasings())


# ---------------------------------------------------------------- numbers and cost


@pytest.mark.parametrize(("text", "lang", "value"), [
    ("7.5", "en", "7.5"), ("7,5", "es", "7.5"), ("1,800", "en", "1800"), ("1.800", "es", "1800"), ("1.8k", "en", "1800"),
    ("2M", "en", "2000000"), ("1,234.5", "en", "1234.5"), ("1.234,5", "es", "1234.5"), ("3,20", "es", "3.20")])
def test_numbers_as_people_write_them(text, lang, value):
    assert entities.number(text, lang) == Decimal(value)


def test_cost_uses_the_kb_cost_formula_with_its_currency(conn):
    a = ask(conn, "price per million tokens at 7.5 USD an hour and 1800 tokens/s")
    expected = make_target("t", "7.5", "1800").cost_per_million  # what `kb cost` computes
    fact = a["facts"][0]
    assert a["intent"] == "cost" and fact["currency"] == "USD"
    assert Decimal(fact["cost_per_million_tokens_exact"]) == expected.normalize()
    assert a["text"].startswith("**1.16 USD per million tokens**") and "leaves out" in a["text"]
    euro = ask(conn, "¿cuánto cuesta un millón de tokens a 3,20 € por hora y 900 tokens por segundo?")
    assert euro["language"] == "es" and euro["facts"][0]["currency"] == "EUR" and "0,99 EUR" in euro["text"]  # Spanish number format
    assert "deja fuera" in euro["text"] and "**Fuentes**" in euro["text"]


def test_cost_wins_over_an_op_word_and_names_the_other_reading(conn):
    a = ask(conn, "is aten::cos slow? at 4 EUR an hour and 2500 tokens/s what is the price per million tokens")
    assert a["intent"] == "cost" and "0.44 EUR" in a["text"]
    assert a["other_reading"] == "op" and "could also be read as an op question" in a["text"]


def test_cost_with_a_number_missing_asks_for_it(conn):
    a = ask(conn, "how much per million tokens at 7.5 USD an hour?")
    assert a["intent"] == "cost" and "I need" in a["text"] and "tokens/s" in a["text"]
    assert a["facts"][0]["missing"]


# ---------------------------------------------------------------- versions inside list questions


def test_list_at_a_version_is_kb_ops(conn):
    a = ask(conn, "list what TorchTPU 0.1.1 can't run")
    listing = queries.list_ops(conn, "tpu", "unsupported", "0.1.1")  # kb ops --target tpu=0.1.1 --status unsupported
    head = a["facts"][0]
    assert a["intent"] == "ops_by_status"
    assert head["backend_version"] == "0.1.1" and head["status"] == "unsupported"
    assert head["count"] == len(listing["ops"]) > 0
    es = ask(conn, "enumera lo que TorchTPU 0.1.1 no puede ejecutar")
    assert es["facts"][0]["count"] == head["count"] and es["language"] == "es"


# ---------------------------------------------------------------- end of support of a feature


def test_feature_end_of_support_reads_the_windows(conn):
    train = ask(conn, "is PyTorch/XLA training still supported on Trn1?")
    assert train["intent"] == "eol" and train["text"].startswith("**No**") and "2.30" in train["text"]
    assert all(f["product"] == "torch-neuronx-xla" and f["cycle"] == "training" for f in train["facts"])
    serving = ask(conn, "how long is torch-xla supported on trn3 for serving?")
    assert serving["text"].startswith("**Until Neuron 2.33") and "2.34" in serving["text"]
    assert [f["cycle"] for f in serving["facts"]] == ["inference on Trn2 and Trn3"]
    last = ask(conn, "when is the last neuron release for XLA inference on trn2?")
    assert last["text"].startswith("**Neuron 2.33") and last["facts"][0]["last_supported_release"].startswith("2.33")
    assert "2.34.0** (released" not in last["text"]  # not the newest release card


def test_products_on_instance_families(conn):
    trn1 = ask(conn, "Does TorchNeuron run on Trn1?")
    assert trn1["intent"] == "support" and trn1["text"].startswith("**No**") and "Trn1" in trn1["text"]
    nxd = ask(conn, "Is NxD Inference supported on Inf2?")
    assert nxd["intent"] == "eol" and "maintenance" in nxd["text"] and "could not tell" not in nxd["text"]


# ---------------------------------------------------------------- policy


def test_policy_in_eager_and_compile_mode(conn):
    compile_ = ask(conn, "what does neuron do with an op it lacks in compile mode?")
    assert compile_["intent"] == "policy"
    assert {f["mode"] for f in compile_["facts"]} == {"compile"} and "compile error" in compile_["text"]
    both = ask(conn, "what do neuron and tpu do with an op they lack?")
    by = {(f["target"], f["mode"]): f for f in both["facts"]}
    assert by[("neuron", "eager")]["status"] == "cpu fallback with warning"
    assert by[("tpu", "eager")]["status"].startswith("cpu fallback if enabled")
    # no stated rule: the per-op compile verdicts answer, said to be theirs, never as a vendor rule (29r)
    assert by[("tpu", "compile")]["basis"] == "per-op verdicts" and by[("tpu", "compile")]["rule_stated"] is False
    assert all(f["source_url"].startswith("https://") for f in both["facts"]
               if f["status"] != "unknown" and f.get("basis") != "per-op verdicts")


# ---------------------------------------------------------------- Spanish


def test_spanish_end_of_support_of_python(conn):
    es = ask(conn, "¿cuándo termina el soporte de Python 3.10 en Neuron?")
    en = ask(conn, "when does support for Python 3.10 end on Neuron?")
    assert es["language"] == "es" and en["language"] == "en"
    assert es["text"].startswith("**Terminó con Neuron 2.30**") and en["text"].startswith("**Ended with Neuron 2.30**")
    assert "release card" not in es["text"] and "2.33.0** (released" not in es["text"]
    assert es["sources"] == en["sources"] and es["facts"] == en["facts"]


def test_spanish_op_question_is_answered_in_spanish(conn):
    es = ask(conn, "¿funciona nonzero en TPU?")
    en = ask(conn, "does nonzero run on TPU?")
    assert es["text"].startswith("**Sí**") and es["facts"] == en["facts"] and es["sources"] == en["sources"]


def test_language_detection_and_reading():
    assert entities.language("is nonzero native on neuron?") == "en"
    assert entities.language("¿funciona nonzero en TPU?") == "es"
    assert entities.language("lista de ops no soportados en tpu 0.1.1") == "es"
    assert entities.to_english("¿aten::add.Tensor es nativo en neuron 2.33?") == "is aten::add.Tensor native on neuron 2.33?"
    q = read(entities.to_english("¿funciona torch.nonzero en tpu?"))
    assert q.function_words == ["torch.nonzero"] and q.target_names() == ["tpu"]


# ---------------------------------------------------------------- models


def test_model_question_without_the_gallery_names_the_command(conn, monkeypatch):
    monkeypatch.setitem(sys.modules, "kb.chat.answer_gallery", None)  # as in a checkout without the gallery
    monkeypatch.delattr(sys.modules["kb.chat"], "answer_gallery", raising=False)  # `from kb.chat import` reads it
    a = ask(conn, "will Mixtral run on a trn2?")
    assert a["intent"] == "model" and "kb check mixtral.pt2 --target neuron" in a["text"]


def test_model_question_goes_to_the_gallery_when_it_is_there(conn, monkeypatch):
    from kb.chat.reply import Answer

    seen = {}

    def gallery_answer(c, text, targets, lang="en"):
        seen.update(text=text, targets=targets, lang=lang)
        return Answer(text, "model", "from the gallery")

    fake = types.ModuleType("kb.chat.answer_gallery")
    fake.gallery_answer = gallery_answer
    fake.find_models = lambda text: ["mixtral"]
    monkeypatch.setitem(sys.modules, "kb.chat.answer_gallery", fake)
    monkeypatch.setattr(sys.modules["kb.chat"], "answer_gallery", fake, raising=False)
    a = ask(conn, "¿correrá Mixtral en trn2?")
    assert a["text"] == "from the gallery" and a["language"] == "es"
    assert seen["targets"] == ["neuron"] and seen["lang"] == "es"
    fake.find_models = lambda text: ["zamba2"] if "zamba2" in text.lower() else []  # a model only the gallery knows
    assert ask(conn, "will Zamba2 run on tpu?")["text"] == "from the gallery" and seen["targets"] == ["tpu"]


# ---------------------------------------------------------------- readings and bounds


def test_scores_pick_the_reading_by_its_entities():
    def top(text):
        ents = entities.extract(text)
        best, _ = scoring.best(read(ents.english), ents)
        return best.intent if best else None

    assert top("price per million tokens at 7.5 USD an hour and 1800 tokens/s") == "cost"
    assert top("is nonzero native on neuron 2.33?") is None  # the classic routing answers it
    assert top("list what TorchTPU 0.1.1 can't run") == "ops_list"
    assert top("is PyTorch/XLA training still supported on Trn1?") == "feature_eol"


def test_hostile_spanish_and_numbers_stay_bounded(conn):
    for text in ("¿" + "cuánto cuesta 7,5 USD la hora " * 40, "1," * 499, "de " * 333, "1.8k tokens/s " * 70):
        a = ask(conn, text[:1000])
        assert a["intent"] and len(a["text"]) < 20_000
    ents = entities.extract("7,5 USD 1800 tokens/s " * 45)
    assert len(ents.prices) <= 50 and len(ents.rates) <= 50


def test_cuesta_is_a_cost_question_not_aten_cos(conn):
    """Tester t29 #3: "cuanto cuesta" was fuzzy-matched to aten::cos."""
    for text in ("cuanto cuesta una trn2 por hora", "¿cuánto cuesta nonzero en tpu?",
                 "¿cuánto cuesta un millón de tokens en trn2.48xlarge a 900 tokens/s?"):
        a = ask(conn, text)
        assert a["intent"] == "cost" and "aten::cos" not in a["text"] and a["language"] == "es", text


def test_prices_and_rates_in_other_units_are_converted(conn):
    """Tester t29 #4: per day / per second prices and per minute rates, the currency kept."""
    a = ask(conn, "cost per million tokens at 90 EUR per day and 50000 tokens per minute")
    assert a["facts"][0]["currency"] == "EUR" and a["text"].startswith("**1.25 EUR per million tokens**")
    assert "90 EUR per day = 3.75 EUR an hour" in a["text"] and "--currency EUR" in a["text"]
    b = ask(conn, "price per million tokens: 0.000833 USD per second, 1800 tok/s")
    assert b["text"].startswith("**0.46 USD per million tokens**") and "read as a price per hour" not in b["text"]
    c = ask(conn, "cost per million tokens at 4 EUR per hour")
    assert "--currency EUR" in c["text"]


def test_spanish_cost_answers_use_one_number_format(conn):
    a = ask(conn, "¿cuánto cuesta el millón de tokens a 3,2 €/h y 1.800 tokens/s?")
    assert a["text"].startswith("**0,49 EUR por millón de tokens** a 3,2 EUR la hora y 1.800 tokens/s")
    prose = a["text"].split("`kb cost --price")[0]  # the suggested command line keeps the machine format
    assert "1,800" not in prose and "3.2 " not in prose


def test_torch_compile_is_the_mode_not_an_op(conn):
    """Tester t29 #10."""
    a = ask(conn, "does torch.nn.functional.scaled_dot_product_attention work on trn2 with torch.compile?")
    assert "`torch.compile`" not in a["text"] and "I don't know an operator" not in a["text"]
    assert "(compile)" in a["text"]


def test_policy_names_the_sdk_release_not_a_torchneuron_version(conn):
    """Tester t29 #9: TorchNeuron has no 2.33.0; that is the Neuron SDK."""
    a = ask(conn, "what does torchneuron do with a missing op under torch.compile?")
    assert "TorchNeuron 2.33.0" not in a["text"] and "Neuron SDK 2.33.0 (TorchNeuron " in a["text"]


def test_trn1_answers_say_torchneuron_lists_only_trn2_trn3(conn):
    """Tester t29 #12: the note comes first, read from TorchNeuron's release card."""
    a = ask(conn, "¿funciona nonzero en trn1?")
    assert a["text"].startswith("_**Trn1**") and "neuron-xla" in a["text"] and a["language"] == "es"
    b = ask(conn, "does nonzero run on trn2?")
    assert "**Trn1**" not in b["text"]


def test_other_readings_are_named(conn):
    """Tester t29 #11: bare `xla`, "fallback a cpu" as the destination, Spanish policy questions."""
    a = ask(conn, "is add supported on xla?")
    assert "`xla` read as `neuron-xla`" in a["text"]
    b = ask(conn, "que ops hacen fallback a cpu en neuron 2.14.3.1")
    assert b["intent"] == "ops_by_status" and "**cpu**" not in b["text"]
    for text in ("¿qué pasa si neuron no tiene un op en modo eager?", "en modo eager neuron hace fallback?"):
        assert ask(conn, text)["intent"] == "policy", text


def test_a_named_op_or_module_wins_the_reading(conn):
    """Tester t29 #17."""
    a = ask(conn, "¿nn.MultiHeadAttention va en trn2 en modo compile?")
    assert a["intent"] == "op" and "torch.nn.MultiheadAttention" in a["text"]
    b = ask(conn, "¿qué pasa con aten::unique en tpu cuando uso torch.compile?")
    assert b["intent"] == "op" and "(compile)" in b["text"]
    c = ask(conn, "el scaled dot product attention funciona en la TPU?")
    assert c["intent"] == "op" and c["text"].startswith("**Sí**")


def test_platform_support_on_neuron_comes_from_neuron_first(conn):
    """Tester t29 #6/#7: Neuron's own support (2.34 lists Python 3.12-3.14), then the upstream date;
    a "when" question gets a date headline, the yes/no in words after it (report r2-29 #14)."""
    a = ask(conn, "when does python 3.11 reach end of support on neuron")
    assert a["text"].startswith("**Already ended** — not supported now: Neuron 2.34 supports Python 3.12, 3.13, 3.14, "
                                "not 3.11")
    b = ask(conn, "which python versions does Neuron 2.34 support?")
    assert b["text"].startswith("Python: **3.12, 3.13, 3.14**") and "3.9" not in b["text"].split("\n")[0]
    c = ask(conn, "¿hasta cuándo tiene soporte Ubuntu 22.04 en Neuron?")
    assert c["text"].startswith("**Presumiblemente ya terminó**") and "2027-05" in c["text"]


def test_sdk_release_questions_answer_the_release(conn):
    """Tester t29 #8: date, packages, what ended, TorchNeuron's op changes, all cited."""
    a = ask(conn, "what's new in Neuron 2.34?")
    assert a["intent"] == "release" and a["text"].startswith("**Neuron SDK 2.34.0** — released 2026-11-30 [1]")
    assert "What ends with Neuron 2.34 (4)" in a["text"] and "TorchNeuron's op verdicts" in a["text"]
    body = a["text"].split("**Sources**")[0]
    assert all(f"[{n}]" in body for n in range(1, len(a["sources"]) + 1))
    b = ask(conn, "¿qué trae la versión 2.34 de neuron?")
    assert b["language"] == "es" and b["text"].startswith("**Neuron SDK 2.34.0** — publicada el 2026-11-30")
    c = ask(conn, "ubuntu 24.04 soportado en neuron 2.34?")
    assert c["text"].startswith("**Presumiblemente sí**")
