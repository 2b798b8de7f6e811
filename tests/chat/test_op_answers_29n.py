"""Slice 29n (issue #29): op answers say eager and torch.compile both when the question leaves the mode
open and they differ; "CPU" beside a fallback or device word is no target; a torch function's headline
follows its default overload and targets that differ get a headline each; a named torch.nn module outranks
a product-on-instance reading; misspelt modules and functions are read as the one close name; a decimal
comma is read by the question's own convention; a bare price takes the currency the question names; a
price is never a version; a how-many question gets the count in its headline."""

from __future__ import annotations

from decimal import Decimal

import pytest

from kb.chat import entities, mode_contrast, oplookup
from kb.chat.intents import read
from tests.chat.phrasings import ask, check, phrasings

BANK_29N = [r for r in phrasings() if r.get("slice") == "29n"]


def test_the_slice_has_thirty_phrasings_in_both_languages():
    assert len(BANK_29N) >= 30 and {r["language"] for r in BANK_29N} == {"en", "es"}


@pytest.mark.parametrize("row", BANK_29N, ids=[r["question"][:40] for r in BANK_29N])
def test_bank_rows_of_29n(conn, row):
    assert check(ask(conn, row["question"]), row) == []


# ---------------------------------------------------------------- A. eager and torch.compile


def test_compile_verdict_is_said_under_the_headline_when_it_differs(conn):
    a = ask(conn, "does torch.sort run on trn2?")
    first, second = a["text"].splitlines()[:2]
    assert first.startswith("**Presumably yes, but on the CPU**")
    assert second.startswith("**Eager and torch.compile differ**") and "torch.compile: unsupported" in second
    assert {f.get("mode") for f in a["facts"] if f.get("op") == "aten::sort"} == {"eager", "compile"}


def test_a_named_mode_leads_and_the_other_is_said_where_it_differs(conn):
    """A named mode is the one answered (its verdict first); where the other mode says otherwise it is
    said beside it in one line (r11 q2: compile asked, eager falls back — was: that mode only)."""
    eager = ask(conn, "does torch.sort fall back on neuron in eager mode?")["text"]
    assert eager.split("\n")[0].startswith("**Presumably yes**") and "torch.compile differ" in eager
    compiled = ask(conn, "torch.sort on neuron with torch.compile?")["text"]
    assert "(compile): unsupported" in compiled.split("\n")[0] and "torch.compile differ" in compiled
    assert "torch.compile differ" not in ask(conn, "is torch.topk native on neuron in eager mode?")["text"]


def test_no_contrast_when_the_modes_agree(conn):
    assert "torch.compile differ" not in ask(conn, "is torch.topk native on neuron?")["text"]


def test_where_words_per_language():
    row = {"status": "decomposed", "effective_status": "fallback", "effective_via": {"leaves": ["aten::x"]}}
    assert mode_contrast.where_words(row) == "partly falls back to the CPU"
    assert mode_contrast.where_words({"status": "unsupported"}, es=True) == "sin soporte (lanza un error)"
    assert mode_contrast.names_no_mode("is sort native on neuron?")
    assert not mode_contrast.names_no_mode("sort en modo eager") and not mode_contrast.names_no_mode("sort compilado")


# ---------------------------------------------------------------- B. CPU is no target beside fallback words


@pytest.mark.parametrize("text", ["Tensor.index_put_ on Trainium, native or CPU fallback?",
                                  "nn.GroupNorm on trn2 - runs on device or CPU?",
                                  "¿torch.roll en trn2 es nativo o cae a CPU?", "does sort go to the CPU on tpu?"])
def test_cpu_beside_fallback_or_device_words_is_no_target(text):
    assert read(text).target_names() != [] and "cpu" not in read(text).target_names(), text


def test_cpu_asked_as_a_target_stays_one():
    assert read("is torch.roll native on cpu?").target_names() == ["cpu"]
    assert "cpu" in read("sort on tpu vs cpu?").target_names()


def test_a_function_matched_by_name_follows_its_default_overload(conn):
    # the test KB has aten::sort and its overloads; the headline is aten::sort's, not "it depends"
    a = ask(conn, "does torch.sort run on trn2?")
    assert not a["text"].startswith("**It depends")


# ---------------------------------------------------------------- C. module over platform, typos


def test_a_named_module_outranks_a_product_on_an_instance(conn):
    a = ask(conn, "nn.Embedding en trn2 con TorchNeuron, ¿va en el dispositivo o cae a CPU?")
    assert a["intent"] == "op" and any(f.get("module") == "torch.nn.Embedding" for f in a["facts"])


def test_a_product_on_an_instance_alone_is_still_that(conn):
    assert ask(conn, "does torchneuron run on trn2?")["intent"] != "op"


def test_function_typos_need_one_clear_name():
    fmap = {"torch.cumsum": ["aten::cumsum"], "torch.sort": ["aten::sort"], "torch.msort": ["aten::msort"],
            "torch.sqrt": ["aten::sqrt"]}
    assert oplookup._function_typo("torch.cumsun", fmap) == "torch.cumsum"
    assert oplookup._function_typo("torch.sortt", fmap) == "torch.sort"
    assert oplookup._function_typo("torch.sqr", fmap) is None  # too short to guess
    assert oplookup._function_typo("torch.blahblah", fmap) is None


# ---------------------------------------------------------------- F. numbers, currencies, prices


@pytest.mark.parametrize(("text", "lang", "price", "rate"), [
    ("1,375 USD/h y 5.500 tokens/seg", "es", "1.375", "5500"),   # dots group thousands: the comma is decimal
    ("a 1,375 USD la hora y 300 tokens/s", "es", "1.375", "300"),  # a Spanish price: decimal comma
    ("a 2 USD/h y 1,375 tokens/s", "es", "2", "1375"),            # a Spanish count alone: thousands
    ("at 1,375 USD/h and 300 tokens/s", "en", "1375", "300"),     # English: always thousands
    ("at 2 USD/h and 1,375 tokens/s", "en", "2", "1375")])
def test_a_decimal_comma_by_the_questions_convention(text, lang, price, rate):
    found = entities.extract(text, lang)
    assert found.prices[0].value == Decimal(price) and found.rates[0].value == Decimal(rate)


def test_a_bare_price_takes_the_one_currency_named():
    assert entities.extract("0.76/h, 300 tokens per second -> $/Mtok?").prices[0].unit == "USD"
    assert entities.extract("0.76/h, 300 tokens per second, cost per million?").prices[0].unit == ""


def test_no_empty_currency_flag(conn):
    a = ask(conn, "inf2 1.5/h with 500 tok/s, cost per million?")
    assert "--currency `" not in a["text"] and "--currency  " not in a["text"] and "(the price's currency)" in a["text"]


def test_a_price_is_never_a_version():
    q = read("trn2 $35.76/h @ 12k tok/s vs tpu v5e $1.20/h @ 1.5k tok/s")
    assert all(m.version is None for m in q.targets) and "35.76" not in q.versions
    assert read("is add native on neuron 2.33?").targets[0].version == "2.33"


def test_how_many_gets_the_count_in_the_headline(conn):
    a = ask(conn, "¿cuántos ops de dropout no soporta tpu 0.2.0?")
    assert a["text"].startswith("**2 dropout ops**") and "Sí, algunos" not in a["text"]


def test_spanish_answers_of_the_slice_hold_no_english_of_kb(conn):
    from tests.chat.test_spanish_guard import _english_found

    assert _english_found(conn, [r["question"] for r in BANK_29N if r["language"] == "es"]) == {}


def test_overloads_left_out_of_the_headline_are_named_when_they_differ():
    from kb.chat.answer import _other_overloads

    base = {"op": "aten::bincount", "target": "neuron", "status": "fallback"}
    out = {"op": "aten::bincount.out", "target": "neuron", "status": "decomposed", "effective_via": {}}
    line = _other_overloads([base], [out])
    assert line.startswith("_Other overloads, below, differ: `aten::bincount.out` decomposed (leaves not traced)")
    assert _other_overloads([base], [{**base, "op": "aten::bincount.x"}]) is None  # the same verdict: nothing to add


def test_running_on_the_cpu_in_spanish_keeps_the_cpu_a_target():
    assert "cpu" in read("is roll native on cpu or on tpu?").target_names()
