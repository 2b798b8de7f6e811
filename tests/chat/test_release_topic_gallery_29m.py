"""Issue #29 (slice 29m): a Neuron SDK release asked about one product ("what changed for
PyTorch/XLA users with Neuron 2.34?") answers with that release's records filtered to it; a
release asked for its requirements or date says that first; a gallery model whose op calls run
on the device but for a few gaps reads "Mostly" with the device share, and a model not asked
never gets rows. The phrasing bank holds the paraphrases; these pin the rules on the shipped KB."""

from __future__ import annotations

import pytest

from kb.chat.answer import answer
from kb.chat.answer_gallery import find_models
from kb.chat.answer_release_topic import CHANGE_CUES, topics_in


@pytest.mark.parametrize(("text", "labels"), [
    ("what changed for pytorch/xla users in neuron 2.34?", ["PyTorch/XLA"]),
    ("what changed in 2.34 for nxd inference users?", ["NxD Inference"]),
    ("nxd core changes in 2.30", ["NxD Core"]),
    ("what's new for torch-neuronx in neuron 2.34", ["TorchNeuron"]),
    ("torch-neuronx-xla news", ["PyTorch/XLA"]),
    ("what's new in neuron 2.34 for trn2?", []),
    ("what's new for inference in neuron 2.34?", ["inference"]),  # a use, when no product is named
    ("what changed for nxd inference in 2.34?", ["NxD Inference"]),  # the product, not the use
    ("mxfp8 news in neuron 2.34", ["TorchAO Neuron"]),
])
def test_products_are_named_by_the_words_people_use(text, labels):
    assert [t.label for t in topics_in(text)] == labels


def test_a_release_change_question_is_told_from_an_op_question():
    assert CHANGE_CUES.search("what did neuron 2.34 bring for jax?")
    assert CHANGE_CUES.search("waht chagned for xla in 2.34")
    assert not CHANGE_CUES.search("does aten::sort run on neuron 2.34?")


def test_a_release_asked_for_one_product_lists_only_that_product(conn):
    a = answer("what changed for PyTorch/XLA users with Neuron 2.34?", conn=conn)
    assert a.intent == "release" and a.text.startswith("**Neuron SDK 2.34.0 for PyTorch/XLA** — released 2026-11-30")
    assert "inference on Trn2 and Trn3" in a.text  # its end-of-support notice, cited
    assert "neuron-ls" not in a.text and "NxD Inference" not in a.text  # other products' notices are left out
    assert "torch-neuronx-xla 2.9.0.2.15.32035 (Neuron SDK 2.31.0)" in a.text  # no package in 2.34: the newest, said
    assert any("announce-no-support-torch-xla-inference-trn" in (s.get("url") or "") for s in a.to_dict()["sources"])


def test_a_release_asked_for_torchneuron_has_its_package_and_op_changes(conn):
    a = answer("what's new for TorchNeuron in 2.34?", conn=conn)
    assert a.text.startswith("**Neuron SDK 2.34.0 for TorchNeuron**")
    assert "torchneuron 2.14.3.1" in a.text and "2.14.3.0 → 2.14.3.1" in a.text
    assert "Explorer" not in a.text


def test_a_spanish_release_topic_question_is_answered_in_spanish(conn):
    a = answer("¿qué cambió en 2.34 para quien usa NxD Inference?", conn=conn)
    assert a.language == "es" and a.text.startswith("**Neuron SDK 2.34.0 para NxD Inference** — publicada el 2026-11-30")
    assert "PyTorch/XLA on Neuron" not in a.text


def test_a_named_patch_line_reads_its_first_release(conn):
    a = answer("what did neuron 2.29 remove for nxd training?", conn=conn)
    assert a.text.startswith("**Neuron SDK 2.29.0 for NxD Training**")


def test_a_whole_release_question_is_not_filtered(conn):
    a = answer("what's new in Neuron 2.34?", conn=conn)
    assert "for PyTorch/XLA**" not in a.text and "neuron-ls" in a.text


def test_requirements_come_first_and_what_the_record_lacks_is_said(conn):
    a = answer("what does torch_tpu 0.2.0 require (Python, torch, JAX…)?", conn=conn)
    assert a.intent == "release" and a.text.startswith("**What torch_tpu 0.2.0 requires**")
    assert "Requires-Python >=3.11" in a.text and "JAX: not named in its record" in a.text
    es = answer("¿qué requisitos tiene torch_tpu 0.2.0?", conn=conn)
    assert es.language == "es" and es.text.startswith("**Lo que requiere torch_tpu 0.2.0**")


def test_the_release_date_is_the_headline(conn):
    assert answer("when was torch_tpu 0.2.0 released?", conn=conn).text.startswith(
        "**torch_tpu 0.2.0 was released in 2026-10**")
    assert answer("when was torchneuron 2.13.3.0 released?", conn=conn).text.startswith(
        "**torchneuron 2.13.3.0 was released on 2026-10-19**")
    assert answer("¿cuándo salió torch_tpu 0.2.0?", conn=conn).text.startswith("**torch_tpu 0.2.0 se publicó en 2026-10**")


def test_a_model_that_mostly_runs_says_what_is_known_first(conn):
    a = answer("will Mixtral run on trn2?", conn=conn)
    head = a.text.splitlines()[0]
    assert head.startswith("**Mostly** — Mixtral 8x7B on neuron")
    assert "except 1 op on the host CPU" in head and "1 op unknown (a custom op)" in head
    assert "97.1% of op calls on the device" in head and "verdicts presumed" in head
    models = {f.get("model") for f in a.facts if isinstance(f, dict) and "target" in f}
    assert models == {"mixtral-8x7b"}  # no rows for models not asked
    es = answer("¿corre mixtral en trn2?", conn=conn)
    assert es.text.startswith("**En su mayoría** — Mixtral 8x7B") and "97.1% de las llamadas a ops" in es.text


def test_a_partly_answer_states_the_device_share(conn):
    head = answer("will resnet-50 run on trn2?", conn=conn).text.splitlines()[0]
    assert head.startswith("**Partly**") and "68.6% of op calls on the device" in head


@pytest.mark.parametrize(("text", "models"), [
    ("will gpt-5 run on trn2?", []),  # the 2 of trn2 is no GPT-2
    ("will gpt 2 run on trn2?", ["gpt2"]),
    ("will llama 3 8b run on trn2?", ["llama-3.1-8b"]),
    ("qwen3 30b a3b on trn2?", ["qwen3-30b-a3b"]),
    ("will DETR ResNet-50 run on trn2?", ["detr-resnet-50"]),  # no ResNet-50 rows: it was not asked
    ("¿CLIP ViT-B/32 corre en tpu?", ["clip-vit-b-32"]),
    ("is gpt-neox ok on tpu?", ["pythia-1.4b"]),
    ("will XLM-RoBERTa base run on trn2?", ["xlm-roberta-base"]),
    ("t5 and flan-t5 on neuron?", ["t5-base", "flan-t5-base"]),  # each said on its own: both, in the question's order
    ("will resnet-50 and detr run on trn2?", ["resnet-50", "detr-resnet-50"]),
])
def test_model_numbers_are_read_after_the_family_word(text, models):
    assert find_models(text) == models


def test_a_missing_model_named_after_a_gallery_line_gets_it_as_closest(conn):
    a = answer("sdxl on tpu?", conn=conn)
    assert a.intent == "gallery_missing" and "Stable Diffusion 1.5 UNet" in a.text
    assert "GPT-2 (124M)" in answer("will gpt-5 run on trn2?", conn=conn).text


def test_a_use_filters_the_release_by_its_notices(conn):
    a = answer("what's new for inference in neuron 2.34?", conn=conn)
    assert a.text.startswith("**Neuron SDK 2.34.0 for inference**") and "neuron-ls" not in a.text
    assert "NxD Inference and NxD Core inference APIs" in a.text and "PyTorch/XLA on Neuron: inference" in a.text


def test_an_sdk_release_requires_what_its_pytorch_packages_list(conn):
    a = answer("what are the requirements of neuron 2.34?", conn=conn)
    assert a.text.startswith("**What Neuron SDK 2.34.0 requires**: ")
    assert "torchneuron 2.14.3.1 — Python 3.12, 3.13, 3.14; PyTorch 2.14.0" in a.text
