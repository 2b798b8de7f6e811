"""s8-split (issue #29): multi-part questions missed on held-out rounds 10 and 11, in paraphrases of our own:
a subject-first Spanish question after "?", a series "A, B, and C", a filler word between parts, a compile
follow-up on a module, "when did it end?" after an end of support, "which ones" (never aten::ones), a version
carried into the next part, "22.04" as Ubuntu's release, "go away" as an end of support, "and on 0.2.0?" as the
same question at that version, and one answer for two parts said once."""

from __future__ import annotations

import pytest

from kb.chat import intents, sections, understand
from tests.chat.phrasings import ask

# ---------------------------------------------------------------- splitting (no KB)


@pytest.mark.parametrize(("text", "parts"), [
    ("¿cuánto sale el millón a 3 USD la hora con 900 tokens/s? y la Neuron 2.33 soporta Python 3.11?",
     ("¿cuánto sale el millón a 3 USD la hora con 900 tokens/s?", "la Neuron 2.33 soporta Python 3.11?")),
    ("nn.LayerNorm funciona en trn2? y con torch.compile? ah y cuándo termina python 3.10 en neuron?",
     ("nn.LayerNorm funciona en trn2? y con torch.compile?", "cuándo termina python 3.10 en neuron?")),
])
def test_two_parts(text, parts):
    assert understand.split_two(text) == parts


def test_a_series_of_three_is_three_parts():
    parts = sections.split_all("does F.gelu run on trn2, will GPT-2 run fully there, and when did Neuron drop "
                               "Python 3.9?")
    assert parts == ["does F.gelu run on trn2?", "will GPT-2 run fully there?", "when did Neuron drop Python 3.9?"]


@pytest.mark.parametrize("text", [
    "is PyTorch 2.7 still supported on Neuron? when did it end?",
    "¿PyTorch 2.8 sigue soportado en Neuron? ¿cuándo se terminó?",
    "if an op has no kernel on neuron, what happens, and does it warn?",  # a clause opened by "if" is no question
])
def test_not_a_series_or_the_same_question(text):
    parts = understand.split_two(text)
    assert parts is None or not parts[0].lower().startswith("if an op has no kernel on neuron?")


def test_a_version_asked_again():
    assert understand.again_at("is aten::sort native on tpu 0.1.1? and on 0.2.0?") == (
        "is aten::sort native on tpu 0.1.1?", "is aten::sort native on tpu 0.2.0?")
    assert understand.again_at("¿F.gelu es nativo en tpu 0.1.1? ¿y en la 0.2.0?")[1] == "¿F.gelu es nativo en tpu 0.2.0?"
    # no version to replace: the first at the newest release, the second at the one it names (s11)
    assert understand.again_at("is aten::sort native on tpu? and on 0.2.0?") == (
        "is aten::sort native on tpu?", "is aten::sort native on tpu 0.2.0?")


def test_context_carried():
    (_, second), _ = understand.carry_context(("que trae torch-neuronx en la 2.33?", "que versiones de python soporta?"),
                                             "es")
    assert second.endswith("en neuron 2.33?")
    (_, second), _ = understand.carry_context(("does nn.Linear compile on neuron?", "when does python 3.10 end?"), "en")
    assert "compile" not in second  # an end of support has no mode
    (first, _), _ = understand.carry_context(("when is Ubuntu 22.04's end of life?", "is it fine on neuron?"), "en")
    assert "neuron" not in first  # a platform's own end of life takes no target


def test_ubuntu_release_is_no_neuron_version():
    q = intents.read("is the neuron dlami on 24.04 still supported?")
    assert not any(m.version for m in q.targets) and ("neuron", "24.04") not in q.products
    assert ("ubuntu", "24.04") in q.products


def test_which_ones_is_no_op():
    assert "ones" not in [w.lower() for w in intents.read("and how do I list the ones that fell back on neuron?").plain_words]

# ---------------------------------------------------------------- answers (shipped KB)


def test_three_parts_and_no_mode_leak(conn):
    text = ask(conn, "nn.BatchNorm2d funciona en trn2? y con torch.compile? ah y cuándo termina python 3.10 en "
                     "neuron?")["text"]
    assert "**Eager y torch.compile difieren**" in text and "Neuron 2.30" in text
    assert "_cuándo termina python 3.10 en neuron?_" in text


def test_go_away_is_an_end_of_support(conn):
    text = ask(conn, "is pytorch/xla inference on trn2 still supported? and when did training disappear?")["text"]
    assert "Neuron 2.34" in text and "Neuron 2.30" in text and "latest torch-neuronx-xla release" not in text


def test_versions_with_data(conn):
    text = ask(conn, "what versions of torch_tpu are in the kb?")["text"]
    assert "0.1.1, 0.2.0" in text


def test_same_answer_said_once(conn):
    text = ask(conn, "¿cuál es la versión más nueva de TorchTPU y qué requisitos tiene?")["text"]
    assert "**(2)**" not in text and "torch >=2.11.0,<=2.15.0" in text
