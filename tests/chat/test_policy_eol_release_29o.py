"""Issue #29 slice 29o (round 6): policy questions without the expected words, a second question
after a comma + and/y + an op, end-of-support statements picked by the question's own words, a
package release with no stated end, the vendor's advice in a statement's note, an SDK release
number after an SDK part, an OS family's rows, and limitation lists led by what does not work."""

from __future__ import annotations

import pytest

from kb.chat import entities, understand
from kb.chat.eol_advice import advice
from tests.chat.english_guard import english_in
from tests.chat.phrasings import ask

# ---------------------------------------------------------------- reading


@pytest.mark.parametrize("text", [
    "Does torch_tpu fall back to CPU for ops it doesn't implement?",
    "what does neuron do with operators they don't support",
    "unimplemented ops on tpu: error or cpu?",
])
def test_ops_a_backend_does_not_implement_ask_the_policy(text):
    assert "policy" in entities.extract(text).cues


def test_sms_q_reads_as_que():
    english = entities.to_english("q pasa con los ops q faltan en la tpu")
    assert english.startswith("what happens with ops")
    assert "policy" in entities.extract("q pasa con los ops q faltan en la tpu").cues


def test_spanish_complex_numbers_and_as_is():
    english = entities.to_english("¿Las operaciones con números complejos en Neuron se ejecutan tal cual?")
    assert "complex numbers" in english and "run as is" in english


@pytest.mark.parametrize(("text", "parts"), [
    ("costo x millon a 0,76 usd/h con 300 tok/s, y nn.Embedding anda en inf1?",
     ("costo x millon a 0,76 usd/h con 300 tok/s?", "nn.Embedding anda en inf1?")),
    ("cost per million at 2 usd/h and 500 tok/s, and torch.roll works on tpu?",
     ("cost per million at 2 usd/h and 500 tok/s?", "torch.roll works on tpu?")),
])
def test_comma_and_an_op_opens_a_second_question(text, parts):
    assert understand.split_two(text) == parts


def test_a_list_of_ops_after_a_comma_stays_one_question():
    assert understand.split_two("does torch.add, and torch.mul run on tpu?") is None


@pytest.mark.parametrize(("note", "said"), [
    ("no longer supported starting with Neuron 2.34.0; use TorchNeuron or vLLM Neuron", "use TorchNeuron or vLLM Neuron"),
    ("ends with 2.30, migrate to NxD Inference", "migrate to NxD Inference"),
    ("maintenance mode only", None),
    (None, None),
])
def test_advice_is_the_advising_clause_of_the_note(note, said):
    assert advice(note) == said


# ---------------------------------------------------------------- answers on the shipped KB


def test_tpu_policy_without_the_word_kernel(conn):
    a = ask(conn, "Does torch_tpu fall back to CPU for ops it doesn't implement?")
    assert a["intent"] == "policy" and "cpu fallback if enabled else error" in a["text"]


def test_complex_numbers_as_is_is_the_limitation_row(conn):
    a = ask(conn, "¿Las operaciones con números complejos en Neuron se ejecutan tal cual?")
    assert a["intent"] == "limitation" and "policy: complex decomposition" in a["text"]


def test_instance_family_beside_a_statements_words(conn):
    a = ask(conn, "Inf1 virtual envs and AMIs, when do they go EOL?")
    assert "2025-12-19" in a["text"] and "Neuron 2.27" in a["text"] and "1.9 and 1.10" not in a["text"]


def test_one_statement_header_has_no_soonest_first(conn):
    a = ask(conn, "when does inf1 support end?")
    assert "soonest first" not in a["text"]


def test_package_release_without_an_end_shows_its_row_not_every_notice(conn):
    a = ask(conn, "¿Hasta cuándo hay soporte para TorchNeuron 2.14.3.1?")
    assert "sin fecha de publicación declarada" in a["text"] and "Donde el proveedor lo declararía" in a["text"]
    assert "MxNet" not in a["text"] and not english_in(a)


def test_feature_end_shows_the_vendors_advice(conn):
    a = ask(conn, "when does pytorch/xla inference on trn2 stop being supported?")
    assert "use TorchNeuron (eager or torch.compile backend neuron) or vLLM Neuron" in a["text"]
    assert any(f.get("advice") for f in a["facts"])


def test_torchneuron_233_is_the_sdk_release(conn):
    a = ask(conn, "¿Qué instancias soporta TorchNeuron 2.33? ¿Trn1 también?")
    assert "Trn2, Trn3" in a["text"] and "**Trn1: no**" in a["text"] and "Desconocido" not in a["text"]


def test_os_family_rows_headline_in_spanish(conn):
    a = ask(conn, "¿Qué versiones de Ubuntu soporta TorchNeuron en la 2.33?")
    head = a["text"].split("\n", 1)[0]
    assert head.startswith("Ubuntu en el Neuron SDK 2.33.0") and "**Ubuntu 24.04**: soportada" in head


def test_limitations_list_the_limitations_first(conn):
    a = ask(conn, "known limitations of TorchNeuron 2.33?")
    text = a["text"]
    assert "torch.sparse" in text and "torch.nested" in text and "torch.func" in text
    assert "Ubuntu 24.04** on" not in text and "Left out, as they state support" in text
    assert "`kb ask --json`" in text


def test_which_backend_is_used_headlines_the_default(conn):
    a = ask(conn, "Si no le paso backend a torch.compile y los tensores están en la TPU, ¿qué backend usa?")
    assert a["text"].startswith("**torch.compile default backend**")


def test_yes_no_on_a_pytorch_line_gets_a_direct_word(conn):
    a = ask(conn, "Does Neuron 2.34 ship a TorchNeuron build for torch 2.13?")
    assert a["text"].startswith("**Unknown** — no package the KB records for this release is for PyTorch 2.13")


def test_compiler_topic_in_spanish_has_no_english_label(conn):
    a = ask(conn, "¿qué versión de neuronx-cc trae neuron 2.32?")
    assert "the Neuron compiler" not in a["text"]
