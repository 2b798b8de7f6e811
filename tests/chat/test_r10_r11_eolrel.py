"""Causes of held-out rounds 10 and 11's end-of-support, release and policy misses (slice
s8-eolrel), pinned with own paraphrases: a feature line's end on the instance family asked
and one line for the other families; a when-question's date headline; Neuron's own end of a
Python before the upstream one when Neuron is asked first; what a Neuron SDK release shipped;
the vendor's claimed op coverage; an instance family asked of a Neuron SDK release; the
missing-op policy said with a vendor word before "kernel"; a release's whole limitation list
when one feature is named; a release's known issues on its other package line."""

from __future__ import annotations

import pytest

from kb.chat import answer_eol
from kb.chat.entities import to_english
from tests.chat.phrasings import ask


def test_a_feature_end_names_the_other_instance_families(conn):
    text = ask(conn, "we deploy with nxd inference on trn2. when will that end?")["text"]
    assert text.startswith("**Already ended (2026-11-30, with Neuron 2.34)**")
    assert "On other instance families: **NxD Inference and NxD Core inference APIs: Inf2 and Trn1" in text


def test_two_families_asked_get_one_end_each(conn):
    text = ask(conn, "when does NxD Inference support end on trn2 and inf2?")["text"]
    assert text.startswith("**It depends on the instance family** — NxD Inference: Trn2: ended with Neuron 2.34")
    assert "Inf2: maintenance mode stated, no date" in text and "the first decides the headline" not in text


@pytest.mark.parametrize("question", ["we still run it on trn2 — when does that end?", "when will it stop?"])
def test_a_when_question_reads_as_one(question):
    assert answer_eol._WHEN.search(question)


def test_neuron_first_then_upstream():
    assert answer_eol.neuron_first("is Python 3.10 ok on the Neuron SDK? and upstream?")
    assert not answer_eol.neuron_first("when does Python 3.10 itself reach end of life?")


def test_neuron_s_own_end_of_a_python_leads_when_neuron_is_asked_first(conn):
    text = ask(conn, "does the neuron sdk still support python 3.10? and upstream python itself?")["text"]
    assert text.startswith("**No** — Python 3.10: out of support since 2026-05-21 (Neuron 2.30)")


@pytest.mark.heavy  # the answer diffs TorchNeuron's verdicts against the release before (about 0.35 s)
def test_what_shipped_in_a_release_names_its_packages(conn):
    a = ask(conn, "what got shipped with Neuron 2.34?")
    assert a["intent"] == "release" and "torchao-neuron 0.18.0+neuron.1" in a["text"]
    assert "Trainium3 instances only" in a["text"] and "TorchNeuron (Beta) 2.34.0" in a["text"]


@pytest.mark.parametrize(("es", "en"), [("¿qué se incluyó en la Neuron 2.34?", "what shipped in Neuron 2.34?"),
                                        ("que ops incluye la familia sort", "which ops includes familia sort")])
def test_spanish_release_contents_are_read_only_before_a_release(es, en):
    assert to_english(es) == en


def test_the_vendor_s_claimed_coverage_leads_a_count_question(conn):
    text = ask(conn, "how many ATen ops does Google claim torch_tpu 0.2.0 covers?")["text"]
    assert text.startswith("**About 450 ATen operators** — the vendor's own claim") and "674 ops **native**" in text


def test_a_count_question_without_a_claim_word_gets_the_kb_s_counts(conn):
    assert "About 450" not in ask(conn, "how many ops are native on tpu 0.2.0?")["text"]


def test_an_instance_family_asked_of_an_sdk_release_is_its_platform_matrix(conn):
    a = ask(conn, "is trn1 supported with Neuron 2.33?")
    assert a["intent"] == "support" and a["text"].startswith("**No** — TorchNeuron on Trn1 (Neuron 2.33.0)")
    assert ask(conn, "is trn2 supported on neuron 2.29?")["text"].startswith("**Unknown** — the KB has no platform matrix")


def test_a_package_version_asked_until_when_stays_an_eol_question(conn):
    assert ask(conn, "¿hasta cuándo aguanta torch-neuronx 2.9 en trn1?")["intent"] == "eol"


def test_which_family_ops_hit_the_fallback_is_a_list_not_the_policy(conn):
    assert ask(conn, "which fft ops use the CPU fallback on neuron in eager mode?")["intent"] != "policy"
    assert ask(conn, "tell me what happens to the ops it has no kernel for in eager mode on tpu")["intent"] == "policy"


def test_sin_avisar_is_silently_not_the_op_sin(conn):
    a = ask(conn, "en torch_tpu 0.1.1, un op sin kernel de TPU, ¿se va a la CPU sin avisar?")
    assert a["intent"] == "policy" and "aten::sin" not in a["text"]


def test_a_release_s_limitations_are_all_shown_when_one_feature_is_named(conn):
    text = ask(conn, "what are the known limitations of neuron 2.33? we rely on float64")["text"]
    assert "**float64** on neuron" in text.split("\n- ")[1] and "**torch.sparse**" in text and "**torch.fft**" in text
    assert "Known limitations (1)" in ask(conn, "does float64 work on neuron 2.33?")["text"]


def test_known_issues_of_a_release_are_its_rows_on_the_xla_line(conn):
    a = ask(conn, "known issues of PyTorch NeuronX in the neuron 2.28 release?")
    assert a["intent"] == "limitation" and "Known limitations (3)" in a["text"]
