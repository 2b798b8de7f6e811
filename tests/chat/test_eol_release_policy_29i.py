"""Issue #29 (slice 29i, held-out set m4): end of support of any product or feature a KB
statement names, release news by version and package, what a release ended, and the fallback
policy of the version asked with its default — on the shipped KB. The phrasing bank holds the
paraphrases; these pin the pieces (the scorer, the Spanish clause, the default) directly."""

from __future__ import annotations

import pytest

from kb.chat.answer import answer
from kb.chat.answer_eol import issue_text, named_windows
from kb.chat.answer_policy import by_default


def _windows(conn):
    from kb.eol import windows as eol

    return eol.current_windows(conn, eol.today())


@pytest.mark.parametrize(("question", "cycle"), [
    ("is vllm v0 still ok on trainium?", "vllm-v0"),
    ("transformers-neuronx: deprecated?", "transformers-neuronx-library"),
    ("will neuron-ls -j go away?", "neuron-ls JSON output (--json-output / -j)"),
])
def test_a_named_feature_finds_its_one_statement(conn, question, cycle):
    hits = named_windows(question, _windows(conn))
    assert [w["cycle"] for w in hits] == [cycle]


def test_a_question_naming_nothing_particular_finds_no_statement(conn):
    assert named_windows("is it still supported on neuron?", _windows(conn)) == []


def test_a_yes_no_deprecation_question_is_answered_yes_with_the_release(conn):
    a = answer("has transformers neuronx been deprecated?", conn=conn)
    assert a.intent == "eol" and a.text.startswith("**Yes, it ended**") and "2025-09-18" in a.text
    assert "Neuron 2.26" in a.text and "Python 3.11" not in a.text  # one statement, not the soonest dates


def test_the_unlisted_clause_is_spanish_in_a_spanish_answer():
    msg = "Neuron 2.33 lists 24.04, 26.04 as supported; 20.04 is not listed"
    assert issue_text("unlisted", msg, es=False) == f"unlisted: {msg}"
    es = issue_text("unlisted", msg, es=True)
    assert es.startswith("no listado:") and "lists" not in es and "20.04 no figura" in es


def test_a_switch_guarded_policy_says_its_default():
    assert "by default, an error" in by_default("cpu fallback if enabled else error", es=False)
    assert "por defecto, un error" in by_default("error unless fallback_mode(ALLOW_FALLBACK)", es=True)
    assert by_default("cpu fallback with warning", es=False) == ""


def test_the_policy_of_the_version_asked(conn):
    old = answer("torch_tpu 0.1.1: an op with no kernel, what then?", conn=conn)
    assert old.intent == "policy" and "TorchTPU 0.1.1" in old.text and "TorchTPU 0.2.0, eager" not in old.text


def test_a_release_past_the_newest_names_the_newest(conn):
    a = answer("what's new in Neuron 2.39?", conn=conn)
    assert a.intent == "release" and "Neuron SDK 2.34.0" in a.text and "2026-11-30" in a.text
    assert "probe" not in a.text and a.facts[0]["status"] == "unknown"
