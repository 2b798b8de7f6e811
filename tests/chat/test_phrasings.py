"""Issue #29: the phrasing bank through the in-process API, and one test per kind of question
a team asks (cost with numbers, lists at a version, a feature's end of support, policy,
Spanish, models, products on instance families), on the shipped KB."""

from __future__ import annotations

import sys
import types
from decimal import Decimal

import pytest

from kb.chat import entities, scoring
from kb.chat.answer import answer
from kb.chat.intents import read
from kb.migrate.cost import make_target
from kb.store import db, queries
from tests.chat.phrasings import check, phrasings, rates, sample

PASS_RATE = 0.95


@pytest.fixture(scope="module")
def conn(shipped_kb):
    c = db.connect(shipped_kb)
    yield c
    c.close()


def ask(conn, text: str) -> dict:
    return answer(text, conn=conn).to_dict()


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
    _through_the_api(conn, sample(phrasings(), every=12))


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
    assert euro["language"] == "es" and euro["facts"][0]["currency"] == "EUR" and "0.99 EUR" in euro["text"]
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
    assert by[("tpu", "compile")]["status"] == "unknown"  # no stated rule: said, not guessed
    assert all(f["source_url"].startswith("https://") for f in both["facts"] if f["status"] != "unknown")


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
