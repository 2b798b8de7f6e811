"""Held-out round m4 (issue #29, slice 29j): how the readings behind its op, list and mixed misses
work, checked on reworded questions (the held-out questions themselves are never matched)."""

from __future__ import annotations

from kb.chat import entities, understand
from kb.chat.intents import read
from tests.chat.phrasings import ask


def targets(text: str) -> list[tuple[str, str | None]]:
    return [(m.target, m.version) for m in read(entities.extract(text).english).targets]


def test_inf1_names_are_the_inf1_target():
    assert targets("does aten::embedding run on inferentia 1?") == [("inf1", None)]
    assert targets("which ops fail on inf1 with torch-neuron 2.9.1.0?") == [("inf1", "2.9.1.0")]
    assert targets("is aten::add native on inf2?") == [("neuron-xla", None)]  # Inf2 stays Neuron's XLA line


def test_neuron_pytorch_xla_is_one_target_with_its_version():
    assert targets("what ops does neuron torch-xla 2.9.0.2.15 cover?") == [("neuron-xla", "2.9.0.2.15")]
    assert {t for t, _ in targets("is nonzero native on neuron and xla?")} == {"neuron", "neuron-xla"}


def test_the_named_op_decides_the_headline_not_its_overloads(conn):
    text = ask(conn, "can I use aten::_scaled_mm on trainium?")["text"]
    assert text.startswith("**Yes**"), text[:200]


def test_two_priced_machines_are_compared(conn):
    a = ask(conn, "inf2 at 1.5/h doing 500 tok/s vs v5e at 1.2/h doing 300 tok/s, cheaper per million?")
    assert a["intent"] == "cost"
    assert a["text"].startswith("**inf2 is cheaper**"), a["text"][:200]
    assert {f["machine"] for f in a["facts"]} == {"inf2", "v5e"}


def test_a_clause_naming_an_op_as_code_is_its_own_question():
    assert understand.split_two("what does tpu do with ops it lacks, and is torch.sort one of them?") == (
        "what does tpu do with ops it lacks?", "is torch.sort one of them?")
    assert understand.split_two("is torch.add and torch.mul native on tpu?") is None


def test_a_stack_with_versions_is_a_stack_check(conn):
    a = ask(conn, "running neuron 2.33 with python 3.11 and ubuntu 24.04 on trn2, problems?")
    assert a["intent"] == "eol"
    assert "not 3.11" in a["text"] and "instance=trn2" in a["text"]


def test_compile_lists_use_compile_mode(conn):
    a = ask(conn, "list the ops that don't compile on neuron 2.14.3.0")
    assert a["intent"] == "ops_by_status" and "(compile)" in a["text"], a["text"][:300]


def test_training_questions_use_the_training_graph(conn):
    a = ask(conn, "can we fine tune bert base uncased on trn2?")
    assert any(f.get("graph") == "training" for f in a["facts"]), a["facts"][:2]
