"""Issue #29 slice 29l: two questions in one (every join people use, in both languages; each part read
with the other's context; an unread part said in one line), Spanish compile/eager policy questions,
and Spanish end of support asked with everyday verbs (a date or "no end date", never a bare yes)."""

from __future__ import annotations

import re

import pytest

from kb.chat import entities, understand
from kb.chat.answer_eol import _WHEN
from tests.chat.english_guard import english_in
from tests.chat.phrasings import ask

# ---------------------------------------------------------------- the joins


@pytest.mark.parametrize(("text", "parts"), [
    ("list what tpu can't run and tell me what happens to those ops in compile mode",
     ("list what tpu can't run?", "tell me what happens to those ops in compile mode")),
    ("¿funciona aten::cumsum en neuron? y de paso, ¿cuánto cuesta el millón de tokens a 1,34 USD/h y 900 tokens/s?",
     ("¿funciona aten::cumsum en neuron?", "¿cuánto cuesta el millón de tokens a 1,34 USD/h y 900 tokens/s?")),
    ("what did tpu gain between 0.1.1 and 0.2.0, and how many ops does it support now?",
     ("what did tpu gain between 0.1.1 and 0.2.0?", "how many ops does it support now?")),
    ("show me the unsupported ops on tpu 0.2.0; also what's the fallback policy in eager?",
     ("show me the unsupported ops on tpu 0.2.0?", "what's the fallback policy in eager?")),
    ("is aten::cumsum native on tpu, then how much is 1M tokens at 2 USD/h and 800 tok/s",
     ("is aten::cumsum native on tpu?", "how much is 1M tokens at 2 USD/h and 800 tok/s")),
    ("tell me if aten::nonzero runs on trn2 as well as the cost per million tokens at 3 USD/h and 1500 tok/s",
     ("tell me if aten::nonzero runs on trn2?", "the cost per million tokens at 3 USD/h and 1500 tok/s")),
    ("is nonzero native on tpu plus what does neuron do with an op it lacks",
     ("is nonzero native on tpu?", "what does neuron do with an op it lacks")),
    ("aten::nonzero es nativo en neuron? otra cosa: cuanto cuesta un millon de tokens a 5 USD la hora y 2000 tokens/s",
     ("aten::nonzero es nativo en neuron?", "cuanto cuesta un millon de tokens a 5 USD la hora y 2000 tokens/s")),
    ("¿corre aten::sort en tpu? aparte, ¿hasta cuándo hay soporte para python 3.10?",
     ("¿corre aten::sort en tpu?", "¿hasta cuándo hay soporte para python 3.10?")),
    ("dame las ops que no corren en tpu 0.2.0 y además qué pasa con ellas en modo compilación",
     ("dame las ops que no corren en tpu 0.2.0?", "qué pasa con ellas en modo compilación")),
    ("¿qué ganó tpu entre 0.1.1 y 0.2.0? también, ¿cuántos ops soporta ahora?",
     ("¿qué ganó tpu entre 0.1.1 y 0.2.0?", "¿cuántos ops soporta ahora?")),
    ("is aten::sort native on tpu? and when does python 3.10 end on neuron?",
     ("is aten::sort native on tpu?", "when does python 3.10 end on neuron?")),
    ("does aten::cumsum work on trainium? and also, what's the price per million tokens at 1.5 USD/h and 600 tok/s",
     ("does aten::cumsum work on trainium?", "what's the price per million tokens at 1.5 USD/h and 600 tok/s")),
    ("list the fallback ops on neuron 2.14.3.1, then tell me the policy in compile mode",
     ("list the fallback ops on neuron 2.14.3.1?", "tell me the policy in compile mode"))])
def test_every_join_splits_two_questions(text, parts):
    assert understand.split_two(text) == parts


@pytest.mark.parametrize("text", ["if an op is missing on neuron then what does it do",  # "then" of a condition
                                  "does torch.add as well as torch.mul run on tpu?",
                                  "costo por millon de tokens a 9 USD la hora y 1500 tokens por seg",
                                  "is nonzero native on tpu and is it fast?",
                                  # a Spanish clause opened by a bare verb continues the first one's subject
                                  "¿qué pasa si un op no tiene kernel en neuron y cae a la cpu?",
                                  "¿corre aten::cumsum en neuron y es nativo en tpu?"])
def test_a_join_inside_one_question_does_not_split(text):
    assert understand.split_two(text) is None


# ---------------------------------------------------------------- context carried between the parts


def test_a_part_without_a_target_takes_the_others():
    parts, facts = understand.carry_context(("what did tpu gain between 0.1.1 and 0.2.0?",
                                             "how many ops does it support now?"), "en")
    assert parts[1] == "how many ops does it support now on tpu?"
    assert facts == [{"part": 2, "carried": {"targets": ["tpu"]}}]


def test_target_and_version_carry_both_ways_and_a_mode_forward_only():
    parts, _ = understand.carry_context(("is aten::sort native?", "what's the policy on tpu 0.2.0 in compile mode"), "en")
    assert parts[0] == "is aten::sort native on tpu 0.2.0?"  # no "compile mode": a later mode is its clause's
    parts, _ = understand.carry_context(("en modo compilación, ¿aten::sort es nativo en neuron?",
                                         "qué pasa con los ops que le faltan"), "es")
    assert parts[1] == "qué pasa con los ops que le faltan en neuron en modo compilación?"


def test_a_priced_part_takes_no_target():
    parts, facts = understand.carry_context(("¿funciona aten::cumsum en neuron?",
                                             "¿cuánto cuesta el millón de tokens a 1,34 USD/h y 900 tokens/s?"), "es")
    assert parts[1] == "¿cuánto cuesta el millón de tokens a 1,34 USD/h y 900 tokens/s?" and facts == []


def test_them_after_a_list_of_ops_it_cannot_run_is_those_ops():
    parts, facts = understand.carry_context(("which ops does neuron 2.14.3.1 fall back on?",
                                             "what does it do with them under torch.compile?"), "en")
    assert parts[1] == "what does it do with the ops it has no kernel for under torch.compile on neuron 2.14.3.1?"
    assert facts[0]["carried"]["them"] == "the ops it has no kernel for"
    kept, _ = understand.carry_context(("what does neuron do with ops without a kernel in eager?",
                                        "is torch.argmax one of them?"), "en")
    assert "one of them" in kept[1]  # an op named in the clause: "them" stays the first clause's subject


# ---------------------------------------------------------------- the held-out misses, answered in full


def test_a_list_and_a_policy_are_both_answered_on_the_target_named_once(conn):
    a = ask(conn, "list what tpu can't run and tell me what happens to those ops in compile mode")
    text = a["text"]
    one, two = text.index("**(1)**"), text.index("**(2)**")
    assert "595 ops that run as **unsupported**" in text[one:two]
    assert "_tell me what happens to the ops it has no kernel for in compile mode on tpu?_" in text[two:]
    assert "TorchTPU, torch.compile" in text[two:] and "Neuron SDK" not in text[two:]
    assert {"part": 2, "carried": {"them": "the ops it has no kernel for", "targets": ["tpu"]}} in a["facts"]


def test_an_op_and_a_cost_joined_by_y_de_paso_are_both_answered_in_spanish(conn):
    a = ask(conn, "¿funciona aten::cumsum en neuron? y de paso, ¿cuánto cuesta el millón de tokens a 1,34 USD/h "
                  "y 900 tokens/s?")
    assert a["intent"] == "op" and a["other_reading"] == "cost" and a["language"] == "es"
    text = a["text"]
    assert "_Dos preguntas en una" in text and "aten::cumsum" in text[:text.index("**(2)**")]
    assert "0,41 USD por millón de tokens" in text[text.index("**(2)**"):]
    assert not english_in(a)


def test_a_diff_and_a_count_are_both_answered_with_each_source_once(conn):
    a = ask(conn, "what did tpu gain between 0.1.1 and 0.2.0, and how many ops does it support now?")
    text = a["text"]
    assert a["intent"] == "diff" and "**166** kernels gained" in text
    assert "674 ops **native**" in text[text.index("**(2)**"):]
    listed = re.findall(r"(?m)^\[\d+\] (.*)$", text)
    assert len(listed) == len(set(listed)) == len(a["sources"])


def test_a_part_that_reads_as_nothing_is_said_in_one_line(conn):
    a = ask(conn, "is aten::nonzero native on tpu and what is the airspeed velocity of a swallow?")
    text = a["text"]
    assert a["intent"] == "op" and "**(2)**" in text and "**Yes**" in text
    assert "_I could not read this part on its own" in text[text.index("**(2)**"):]
    assert {"part_unread": "what is the airspeed velocity of a swallow on tpu?"} in a["facts"]
    es = ask(conn, "¿aten::nonzero es nativo en tpu? y de paso, ¿qué opinas del clima de hoy en la oficina?")
    assert "_No pude leer esta parte por sí sola" in es["text"] and not english_in(es)


def test_a_part_that_only_says_where_is_the_whole_questions(conn):
    assert understand.only_context("es nativo en tpu 0.2.0?", "es")
    assert not understand.only_context("what is the airspeed velocity of a swallow?", "en")


def test_two_lists_in_one_question_are_both_answered(conn):
    a = ask(conn, "which ops are missing on tpu 0.2.0 as well as how many does it run natively?")
    text = a["text"]
    two = text.index("**(2)**")
    assert "595 ops that run as **unsupported**" in text[:two] and "**674** ops run as native" in text[two:]


def test_a_policy_in_a_mode_is_the_missing_op_policy():
    assert "policy" in entities.extract("tell me the policy in compile mode on neuron").cues
    assert "policy" in entities.extract("what's neuron's eager policy?").cues
    assert "policy" not in entities.extract("what is the deprecation policy of neuron?").cues
    assert "policy" in entities.extract("neuron en modo eager: ¿los ops que no tiene se ejecutan en cpu?").cues


def test_how_many_ops_a_target_supports_is_its_counts_by_status(conn):
    a = ask(conn, "how many ops does tpu support now?")
    assert a["intent"] == "ops_by_status" and "674 ops **native**" in a["text"] and "406 ops **unsupported**" in a["text"]


# ---------------------------------------------------------------- Spanish policy, in compile and eager mode


@pytest.mark.parametrize(("question", "target", "mode"), [
    ("¿qué pasa en modo compile si a neuron le falta un op?", "neuron", "compile"),
    ("con torch.compile, ¿qué hace TorchTPU cuando no tiene kernel para un operador?", "tpu", "compile"),
    ("en compilación, ¿los ops que faltan caen a la CPU?", None, "compile"),
    ("¿qué hace neuron con un op que le falta en modo compilación?", "neuron", "compile"),
    ("¿neuron cae a la cpu en eager si no tiene el op?", "neuron", "eager")])
def test_spanish_policy_questions_are_policy_in_their_mode(conn, question, target, mode):
    a = ask(conn, question)
    assert a["intent"] == "policy" and a["language"] == "es", a["text"][:200]
    modes = {f["mode"] for f in a["facts"] if "mode" in f}
    assert modes == {mode}
    if target:
        assert {f["target"] for f in a["facts"] if "target" in f} == {target}
    assert not english_in(a)


def test_a_missing_op_is_not_a_target_list_unless_a_target_follows():
    assert "the ops it lacks" in entities.to_english("¿qué hace neuron con un op que le falta en modo compilación?")
    assert entities.to_english("que ops le faltan a torchtpu 0.1.1") == "which ops are unsupported on torchtpu 0.1.1"


# ---------------------------------------------------------------- Spanish end of support with everyday verbs


@pytest.mark.parametrize(("question", "head", "fact", "source"), [
    ("¿Python 3.12 cuándo se acaba en Neuron?", "**Sin fecha de fin declarada", "2028-10-01", "devguide.python.org"),
    ("¿hasta cuándo aguanta torch-neuronx 2.9 en trn1?", "**Desconocido**", "modo de mantenimiento", "pytorch-xla-inference"),
    ("¿cuándo deja de tener soporte la DLAMI de Ubuntu 22.04?", "**Presumiblemente ya terminó**", "2026-05-21", "dlamis"),
    ("¿cuánto le queda a Inf1?", "Declaraciones de fin de soporte de inf1", "2024-12-03", "torch-neuron-versions"),
    ("¿vllm v0 ya caducó en neuron?", "**Ya terminó**", "2026-02-26", "vllm-v0"),
    ("¿cuándo vence el soporte de pytorch/xla para entrenamiento?", "**Ya terminó (2026-05-21", "2026-05-21", "xla-training")])
def test_spanish_end_of_support_gets_a_date_or_no_date_and_a_source(conn, question, head, fact, source):
    a = ask(conn, question)
    assert a["intent"] == "eol" and a["language"] == "es"
    assert a["text"].startswith(head) and not a["text"].startswith(("**Sí**", "**No**")), a["text"][:200]
    assert fact in a["text"] and any(source in (s.get("url") or "") for s in a["sources"])
    assert not english_in(a)


@pytest.mark.parametrize(("spanish", "english"), [
    ("¿Python 3.12 cuándo se acaba en Neuron?", "Python 3.12 when reaches end of support on Neuron?"),
    ("¿cuánto le queda a Inf1?", "how long is support left for Inf1?"),
    ("¿hasta cuándo aguanta inf1?", "until when is support for inf1?"),
    ("¿fin de vida de transformers-neuronx?", "end of life of transformers-neuronx?"),
    ("¿vllm v0 ya caducó en neuron?", "vllm v0 reached end of support on neuron?"),
    ("¿hasta qué fecha aguanta python 3.12 en neuron?", "until when is support for python 3.12 on neuron?")])
def test_everyday_end_verbs_read_as_end_of_support(spanish, english):
    ents = entities.extract(spanish)
    assert ents.english == english and "eol" in ents.cues


def test_a_when_anywhere_in_an_end_of_support_question_asks_for_a_date():
    assert _WHEN.search("Python 3.12 when reaches end of support on Neuron?")
    assert _WHEN.search("has vllm v0 reached end of support?") and _WHEN.search("when does python 3.11 expire?")
    assert not _WHEN.search("is python 3.12 supported on neuron?")
