"""Slice 29s (issue #29): more of how people ask. An op asked with a verb kb does not know gets its
verdict said plainly (no guessed yes/no); "lose"/"perdió"/"se quedó sin" ask for an end of support;
"since when" an op runs on a target is the oldest release the KB holds that runs it; three or more
parts get a section each; status labels inside Spanish sentences are said in Spanish."""

from __future__ import annotations

import re

import pytest

from kb.chat import intents, op_since, plain_verdict, sections, spanish
from tests.chat.english_guard import english_in
from tests.chat.phrasings import ask, check, phrasings

# ---------------------------------------------------------------- the verdict said plainly


def _row(status, **extra):
    return {"op": "aten::x", "target": "tpu", "backend_version": "0.2.0", "mode": "eager", "status": status, **extra}


@pytest.mark.parametrize(("row", "said"), [
    (_row("native"), "runs on the device, its own kernel"),
    (_row("fallback"), "falls back to the CPU"),
    (_row("unsupported"), "unsupported: it raises"),
    (_row("decomposed", effective_status="fallback", effective_via={"leaves": ["aten::y"], "leaf": "aten::y"}),
     "falls back to the CPU"),
    (_row("decomposed", effective_via={"leaves": ["aten::y"]}), "runs on the device"),
    (_row("decomposed"), "decomposed into other ops"),
])
def test_the_headline_says_the_verdict_never_yes_or_no(row, said):
    head = plain_verdict.headline([row], "en")
    assert head.startswith(f"**`aten::x` on tpu 0.2.0 (eager): {said}")
    assert not re.search(r"\*\*(?:Yes|No)\b", head)


def test_the_headline_keeps_a_restriction_and_says_it_in_spanish():
    head = plain_verdict.headline([_row("native", dtypes=["float32"])], "es")
    assert head == "**`aten::x` en tpu 0.2.0 (eager): se ejecuta en el dispositivo, con kernel propio** (solo con dtypes float32)"
    assert plain_verdict.headline([None], "en") is None


@pytest.mark.parametrize("text", ["tpu chokes on torch.roll?", "is aten::roll borked on tpu?",
                                  "¿se atraganta la tpu con torch.roll?"])
def test_an_unknown_verb_gets_the_verdict_as_headline(conn, text):
    a = ask(conn, text)
    assert a["intent"] == "op" and a["text"].startswith("**`aten::roll` ")
    assert "(eager): " in a["text"].split("\n")[0] and not a["text"].startswith(("**Yes", "**No", "**Sí"))


def test_a_known_status_word_still_gets_its_yes_or_no(conn):
    assert ask(conn, "is torch.roll native on tpu?")["text"].startswith("**Yes**")


# ---------------------------------------------------------------- lose / lost / perdió / se quedó sin


@pytest.mark.parametrize(("text", "lost"), [
    ("did inf1 lose its dlami?", True), ("has python 3.9 lost support on neuron?", True),
    ("when did trn1 lose pytorch/xla training?", True),
    ("what did tpu lose between 0.1.1 and 0.2.0?", False), ("which kernels were lost in tpu 0.2.0?", False),
    ("did nonzero lose its kernel on tpu?", False), ("is nonzero native on tpu?", False),
])
def test_lost_reads_as_end_of_support_unless_it_lists_ops(text, lost):
    assert intents.lost_support(text) is lost


def test_a_diff_of_what_a_release_lost_stays_a_diff(conn):
    assert ask(conn, "what did tpu lose between 0.1.1 and 0.2.0?")["intent"] == "diff"


@pytest.mark.parametrize("text", ["did inf1 lose its DLAMI?", "¿inf1 se quedó sin DLAMI?", "¿inf1 perdió su DLAMI?"])
def test_a_lost_dlami_is_its_end_of_support(conn, text):
    a = ask(conn, text)
    assert a["intent"] == "eol" and "2025-12-19" in a["text"]
    assert a["text"].startswith(("**Already ended", "**Ya terminó"))  # no yes/no turned around by "lose"


def test_se_quedo_sin_is_no_aten_sin(conn):
    a = ask(conn, "¿cuándo se quedó inf1 sin sus DLAMI?")
    assert a["intent"] == "eol" and "aten::sin" not in a["text"]


# ---------------------------------------------------------------- since when


@pytest.mark.parametrize(("text", "asks"), [
    ("since when does tpu support torch.roll?", True), ("since which version is it native?", True),
    ("desde when is native aten::nonzero on neuron?", True), ("¿desde qué versión?", True),
    ("when does python 3.10 leave neuron?", False), ("is it supported since 0.2.0?", False),
])
def test_since_is_read(text, asks):
    assert op_since.asks_since(text) is asks


def test_since_names_the_first_release_that_runs_it_and_what_came_before(conn):
    a = ask(conn, "since which version does tpu support aten::_addmm_activation.out?")
    fact = next(f for f in a["facts"] if f.get("since"))
    assert a["intent"] == "op_since" and fact["since"] == "0.2.0" and fact["at_least"] is False
    assert "before it: 0.1.1 unsupported" in a["text"] and a["sources"]


def test_since_the_oldest_release_held_says_at_least_and_its_basis(conn):
    a = ask(conn, "since when does tpu support torch.roll?")
    fact = next(f for f in a["facts"] if f.get("since"))
    assert fact["since"] == "0.1.1" and fact["at_least"] is True and fact["basis"] == "inferred"
    assert a["text"].startswith("**At least since tpu 0.1.1**") and "inferred" in a["text"]


def test_since_when_after_a_clause_with_no_version_asks_the_first_version(conn):
    a = ask(conn, "is torch.roll native on tpu? since when?")
    assert "**(2)** _since when does tpu support torch.roll?_" in a["text"]
    assert any(f.get("carried", {}).get("asks") == "first version" for f in a["facts"])
    with_version = ask(conn, "does tpu 0.2.0 support nonzero, and since when?")  # 29q: the release's date
    assert "when was tpu 0.2.0 released?" in with_version["text"]


# ---------------------------------------------------------------- three parts or more


@pytest.mark.parametrize(("text", "n"), [
    ("is nonzero native on tpu? what's the fallback policy on neuron? when does python 3.10 leave neuron?", 3),
    ("Q1: is nonzero native on tpu? Q2: what's the policy on neuron? Q3: is aten::sort native on tpu? "
     "Q4: when does python 3.10 leave neuron?", 4),
    ("¿es nativo aten::nonzero en tpu? ¿cuál es la política de fallback en neuron? ¿hasta cuándo hay soporte de "
     "python 3.10 en neuron?", 3),
])
def test_every_part_is_split(text, n):
    assert len(sections.split_all(text)) == n


@pytest.mark.parametrize("text", ["is nonzero native on tpu? what's the fallback policy on neuron?",
                                  "is nonzero native on tpu and tpu 0.1.1?"])
def test_one_or_two_parts_are_left_to_the_two_part_reading(text):
    assert sections.split_all(text) is None


def test_each_part_has_its_own_section_and_every_citation_is_listed(conn):
    a = ask(conn, "Q1: is nonzero native on tpu? Q2: what's the fallback policy on neuron? "
                  "Q3: when does python 3.10 leave neuron?")
    body, _, listed = a["text"].partition("\n\n**Sources**\n")
    assert [f"**({n})**" in body for n in (1, 2, 3)] == [True] * 3 and "**(4)**" not in body
    numbers = {int(n) for n in re.findall(r"(?<!\\)\[(\d+)\]", body)}
    assert numbers and numbers <= {int(n) for n in re.findall(r"^\[(\d+)\]", listed, re.M)}
    assert [f["intent"] for f in a["facts"] if "intent" in f and "part" in f] == ["policy", "eol"]


# ---------------------------------------------------------------- Spanish sentences, Spanish labels


@pytest.mark.parametrize(("english", "spanish_"), [
    ("**68** ops run as unsupported on neuron 2.14.3.1", "**68** ops no están soportados en neuron 2.14.3.1"),
    ("- **tpu 0.2.0: 1 of 1 op native** (eager)", "- **tpu 0.2.0: 1 de 1 op nativo** (eager)"),
    ("**No** — decomposed, and part of it runs as fallback (x)", "**No** — descompuesto, y parte de él recurre a la CPU (x)"),
    ("(1 native, 2 decomposed)", "(1 nativo, 2 descompuestos)"),
])
def test_labels_in_sentences_are_spanish(english, spanish_):
    assert spanish.to_spanish(english) == spanish_


def test_labels_shown_as_labels_stay():
    for label in ("- ✔ **native** on tpu", "◐ decomposed → ✘ unsupported at aten::x", "`native`"):
        assert not re.search(r"nativo|descompuesto|no soportado", spanish.to_spanish(label))


def test_the_slice_rows_pass_and_hold_no_english(conn):
    rows = [r for r in phrasings() if r.get("slice") == "29s"]
    assert len(rows) >= 30 and sum(r["language"] == "es" for r in rows) * 2 >= len(rows)
    for row in rows:
        a = ask(conn, row["question"])
        assert not check(a, row), (row["question"], check(a, row))
        if row["language"] == "es":
            assert not english_in(a), (row["question"], english_in(a))


def test_since_when_a_status_asks_for_that_status(conn):
    a = ask(conn, "since when is aten::_addmm_activation.out native on tpu?")
    assert a["text"].startswith("**Since tpu 0.2.0** — `aten::_addmm_activation.out` has its own kernel there")
    never = ask(conn, "since when is aten::nonzero unsupported on tpu?")
    assert never["text"].startswith("**Not in any tpu release the KB holds**")
