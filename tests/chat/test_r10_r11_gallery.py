"""Slice s8-gallery (issue #29): the causes behind held-out rounds 10 and 11's model-question misses,
in our own words (never the held-out questions themselves). "What blocks it?" / "any blockers?"
names the blockers in the headline (or says none known); a second version said bare ("what about
0.2.0") is answered too; one asked target that does not run the model gets one line on the newer
version or the other target; an op that fails at a leaf names the leaf; the eager verdict sits
beside a compile one where they differ; "MobileNetV2" written as one word is the gallery's model."""

from __future__ import annotations

import re

import pytest

from kb.chat import answer_gallery, gallery_beside
from tests.chat import phrasings


def ask(conn, text: str) -> dict:
    """The answer, its text without the markdown escapes of op names (aten::group\\_norm)."""
    a = phrasings.ask(conn, text)
    a["text"] = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>])", r"\1", a["text"])
    return a


def _body(answer: dict) -> str:
    return answer["text"].split("\n\n**Sources**")[0].split("\n\n**Fuentes**")[0]


# ---------------------------------------------------------------- the headline names the blockers


@pytest.mark.parametrize(("text", "head"), [
    ("anything blocking Swin-T on trainium when compiled?", "**2 blockers: aten::roll, aten::adaptive_avg_pool1d** —"),
    ("what's holding ResNet-50 back on trn2?", "**3 blockers: aten::batch_norm, aten::max_pool2d, "
                                               "aten::adaptive_avg_pool2d** —"),
    ("¿qué bloquea a ConvNeXt-T en neuron?", "**1 bloqueo: aten::adaptive_avg_pool2d** —"),
    ("¿hay algo que frene a CLIP ViT-B/32 con torch.compile en trn2?", "**1 bloqueo: aten::argmax** —"),
])
def test_a_blockers_question_is_answered_with_the_blockers_by_name(conn, text, head):
    a = ask(conn, text)
    assert a["text"].startswith(head), a["text"][:200]
    assert not a["text"].startswith(("**No** ", "**No** —"))


@pytest.mark.parametrize(("text", "head"), [
    ("is anything blocking Gemma 2 9B under torch.compile on trn2?", "**Presumably no blockers** — Gemma 2 9B runs fully"),
    ("¿algún bloqueo para Whisper large-v3 en trainium?", "**Presumiblemente ningún bloqueo** — Whisper large-v3"),
])
def test_no_blockers_is_said_as_none_known(conn, text, head):
    assert ask(conn, text)["text"].startswith(head)


# ---------------------------------------------------------------- the eager verdict beside a compile one


@pytest.mark.parametrize(("text", "line"), [
    ("does CLIP ViT-B/32 compile on neuron? anything in the way?",
     "In eager mode (no torch.compile) on neuron 2.14.3.1: aten::argmax falls back to the CPU; every other op runs on "
     "the device (presumed from an earlier version)"),
    ("Swin-T con torch.compile en trn2, ¿qué lo bloquea?",
     "En modo eager (sin torch.compile) en neuron 2.14.3.1: aten::roll, aten::adaptive_avg_pool1d"),
])
def test_a_compile_question_also_says_eager_where_it_differs(conn, text, line):
    assert line in ask(conn, text)["text"]


def test_no_eager_line_when_both_modes_agree(conn):
    a = ask(conn, "will Gemma 2 9B compile on trainium?")
    assert "eager mode (no torch.compile)" not in a["text"]


# ---------------------------------------------------------------- every version said is answered


@pytest.mark.parametrize(("text", "lines"), [
    ("HuBERT base on torch_tpu 0.1.1 — and how about 0.2.0?",
     ["**No** — HuBERT base on tpu 0.1.1 (eager)", "**Yes** — HuBERT base runs fully on the device on tpu 0.2.0",
      "So moving from tpu 0.1.1 to tpu 0.2.0 fixes it"]),
    ("¿wav2vec2 funciona con TorchTPU 0.1.1 o conviene pasar a la 0.2.0?",
     ["**No** — wav2vec 2.0 base en tpu 0.1.1", "**Sí** — wav2vec 2.0 base se ejecuta entero en el dispositivo en tpu 0.2.0",
      "Así que pasar de tpu 0.1.1 a tpu 0.2.0 lo resuelve"]),
])
def test_a_second_version_said_bare_is_answered(conn, text, lines):
    body = ask(conn, text)["text"]
    for line in lines:
        assert line in body, line


def test_a_model_name_with_a_dot_version_is_no_target_version(conn):
    versions, notes = answer_gallery.asked_versions(conn, "wav2vec 2.0 base on tpu 0.1.1", ["tpu"])
    assert versions == {"tpu": ["0.1.1"]} and notes == []


# ---------------------------------------------------------------- the newer version, else the other target


@pytest.mark.parametrize(("text", "line"), [
    ("is the SD 1.5 UNet usable on torch_tpu 0.1.1?",
     "On the newer tpu 0.2.0 (eager): it runs fully on the device (evidence) [1] — upgrading fixes it."),
    ("¿la UNet de Stable Diffusion 1.5 anda en la tpu 0.1.1?",
     "En la versión más nueva, tpu 0.2.0 (eager): corre entero en el dispositivo (evidencia) [1] — actualizar lo resuelve."),
])
def test_an_old_version_that_fails_names_the_newer_one(conn, text, line):
    assert line in ask(conn, text)["text"]


@pytest.mark.parametrize(("text", "line"), [
    ("does T5 base run on trn2?", "On tpu 0.2.0 (eager): it runs fully on the device (evidence)"),
    ("¿ResNet-50 corre bien en trainium?", "En tpu 0.2.0 (eager): corre entero en el dispositivo (evidencia)"),
])
def test_one_target_that_does_not_run_it_names_the_other(conn, text, line):
    assert line in ask(conn, text)["text"]


def test_nothing_beside_a_model_that_runs_fully(conn):
    body = _body(ask(conn, "does BERT base run on trn2?"))
    assert "On tpu" not in body and "On the newer" not in body


# ---------------------------------------------------------------- the leaf an op fails at


@pytest.mark.parametrize(("text", "mark"), [
    ("can I run wav2vec2 on tpu 0.1.1?", "aten::group_norm unsupported at aten::var_mean.correction"),
    ("¿la UNet de SD 1.5 corre en torchtpu 0.1.1?", "aten::group_norm unsupported en aten::var_mean.correction"),
])
def test_an_op_that_fails_at_a_leaf_names_it(conn, text, mark):
    assert mark in ask(conn, text)["text"]


def test_another_overload_of_the_same_op_is_no_leaf():
    from kb.check.resolve import Leaf

    class Op:  # the two fields gallery_beside.leaf reads
        def __init__(self, op, status, via):
            self.op, self.status, self.via = op, status, via
    assert gallery_beside.leaf(Op("aten::argmax", "unsupported", [Leaf("aten::argmax.out", "unsupported")]), "en") == ""
    assert gallery_beside.leaf(Op("aten::adaptive_avg_pool2d", "fallback",
                                  [Leaf("aten::_adaptive_avg_pool2d", "fallback")]), "en") == ""
    assert gallery_beside.leaf(Op("aten::group_norm", "unsupported", [Leaf("aten::var_mean.correction", "unsupported")]),
                               "es") == " en aten::var\\_mean.correction"


# ---------------------------------------------------------------- a model written as one word


@pytest.mark.parametrize("text", ["MobileNetV2 on tpu? and on trainium, how is it?", "¿MobileNetV2 anda en neuron? ¿y en tpu?",
                                  "does mobilenetv2 run on trn2"])
def test_mobilenetv2_as_one_word_is_the_gallery_model(conn, text):
    assert answer_gallery.find_models(text) == ["mobilenet-v2"]
    a = ask(conn, text)
    assert a["intent"].startswith("gallery_") and "MobileNetV2 1.0 224" in a["text"]


def test_mobilenetv2_on_both_targets(conn):
    a = ask(conn, "MobileNetV2 en tpu y en trainium, ¿qué tal?")
    assert "**Sí** — MobileNetV2 1.0 224 se ejecuta entero en el dispositivo en tpu 0.2.0" in a["text"]
    assert "57.1% de las llamadas a ops en el dispositivo" in a["text"] and "aten::hardtanh fallback" in a["text"]


# ---------------------------------------------------------------- kb check's verdict counts ops


@pytest.mark.parametrize(("text", "verdict"), [
    ("does HuBERT base run on tpu 0.1.1?", "runs on the device except 1 unsupported op;"),
    ("¿HuBERT base corre en tpu 0.1.1?", "se ejecuta en el dispositivo salvo 1 op no soportada;"),
])
def test_the_verdict_counts_unsupported_ops_as_ops(conn, text, verdict):
    assert verdict in ask(conn, text)["text"]
