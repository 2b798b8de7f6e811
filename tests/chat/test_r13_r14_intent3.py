"""Causes of held-out rounds 13 and 14's wrong readings (slice s8c-intent3), pinned with own paraphrases:
the missing-op policy asked as an either/or ("error or run eager", "crash or just slow", "se cae o se va a
la CPU"), also when "the model" is only the asker's; PyTorch's Inductor named with a TPU (a limitation, not
the torch_tpu release card); the torchao-neuron package written as two words and "what does it bring";
what an SDK release ends when its number has a trailing .0; a Python asked of a release whose note
states Requires-Python."""

from __future__ import annotations

import pytest

from tests.chat.phrasings import ask


@pytest.mark.parametrize("question", [
    "under torch.compile on trn2, an op that can't be lowered: does it error or fall back to eager?",
    "if something in our net has no trainium kernel, does it crash or just get slow?",
    "torch.compile en trn2 con un op que no se puede bajar: ¿da error o corre en eager?",
])
def test_neuron_missing_op_either_or_is_the_policy(conn, question):
    text = ask(conn, question)["text"]
    assert "no kernel for" in text or "sin kernel propio" in text
    assert "compile error" in text or "error de compilación" in text


@pytest.mark.parametrize("question", [
    "On TorchTPU 0.1.1, what happens when the model hits an op the TPU lacks — crash or CPU?",
    "con TorchTPU 0.1.1, si el modelo usa un operador que la TPU no tiene, ¿se cae o se va a la CPU?",
])
def test_tpu_011_missing_op_is_the_policy_not_the_gallery(conn, question):
    text = ask(conn, question)["text"]
    assert text.startswith(("**What each backend", "**Qué hace cada backend")) and "ALLOW_FALLBACK" in text.replace("\\_", "_")


@pytest.mark.parametrize("question", [
    "Does PyTorch's stock Inductor compiler work with tensors on the TPU?",
    "Y con Inductor de PyTorch, el de siempre, con tensores en la TPU, ¿funciona?",
])
def test_inductor_on_tpu_is_its_limitation(conn, question):
    text = ask(conn, question)["text"]
    assert text.startswith("**No** —") and "backend=inductor" in text and "RuntimeError" in text


@pytest.mark.parametrize("question", ["what does torchao neuron 0.18 bring?", "k trae torchao_neuron 0.18?"])
def test_torchao_neuron_in_two_words_is_its_release(conn, question):
    text = ask(conn, question)["text"]
    assert "torchao-neuron 0.18.0+neuron.1" in text and "MXFP8" in text and "Trainium3" in text


def test_what_a_release_ends_with_a_trailing_zero(conn):
    text = ask(conn, "what's new in the latest neuron release for pytorch users on trn2?")["text"]
    assert "What ends with Neuron 2.34.0 (4):" in text and "PyTorch/XLA on Neuron: inference on Trn2 and Trn3" in text


@pytest.mark.parametrize("question,head", [
    ("Python 3.10 for TorchTPU 0.2.0: usable or done?", "**No** — torch_tpu 0.2.0 requires Python >=3.11"),
    ("¿Python 3.11 sirve para TorchTPU 0.2.0?", "**Sí** — torch_tpu 0.2.0 requiere Python >=3.11"),
])
def test_requires_python_in_the_note_decides(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)
