"""Causes of held-out round 12's multi-part misses (slice s8b-split2), pinned with own paraphrases: numbered parts
after a lead that ends in a colon; "Also, unrelated:" and "…? Y comparado con la 0.1.1" as joins; a conditional
cost after a model question; a follow-up with no subject of its own carrying the op, the model or the CPU-fallback
switch of the part before; a bare version said as the other part's target; a target in code left as written; a
follow-up that asks only what the first part's answer says (since when / what to move to, which backend, what was
removed) answered as one question."""

from __future__ import annotations

import pytest

from kb.chat import understand
from tests.chat.phrasings import ask


def test_numbered_parts_after_a_lead_with_a_colon():
    parts = understand.numbered("two things for the port doc: (1) is nn.LayerNorm native on neuron 2.14.3.1? "
                                "(2) same question on tpu 0.2.0. (3) when did Neuron drop Python 3.10?")
    assert parts == ["is nn.LayerNorm native on neuron 2.14.3.1?", "same question on tpu 0.2.0",
                     "when did Neuron drop Python 3.10?"]


@pytest.mark.parametrize("question, second", [
    ("Is nn.Upsample ok on tpu 0.2.0? Also, unrelated: when did Neuron drop Python 3.10?",
     "when did Neuron drop Python 3.10?"),
    ("¿Qué ops de atención no soporta TorchTPU 0.2.0? Y comparado con la 0.1.1, ¿cuáles ganó o perdió?",
     "comparado con la 0.1.1, ¿cuáles ganó o perdió?"),
    ("¿Corre BERT base entero en Trainium? Y si la instancia cuesta 2 USD la hora con 900 tokens por segundo, "
     "¿cuánto sale el millón de tokens?", "si la instancia cuesta 2 USD la hora con 900 tokens por segundo, "
                                          "¿cuánto sale el millón de tokens?"),
])
def test_joins_that_open_a_question(question, second):
    assert understand.split_two(question)[1] == second


@pytest.mark.parametrize("question", [
    "Somebody said NxD Inference on trn2 lost support, is that true? Since when, and what do we move to?",
    "¿Inductor no jala en TPU con torch_tpu 0.2.0? ¿Qué backend uso?",
    "what changed in op coverage between torch_tpu 0.1.1 and 0.2.0? did anything get removed?",
])
def test_a_follow_up_the_first_answer_covers_is_one_question(question):
    assert understand.split_two(question) is None


@pytest.mark.parametrize("parts, lang, said", [
    (("Our VAE uses nn.GroupNorm on trn2 with torch-neuronx 2.14.3.1. Does it fall back in eager?",
      "what happens to it under torch.compile?"), "en", "what happens to nn.GroupNorm under torch.compile"),
    (("¿batch_norm cae a la CPU en neuron 2.14.3.1?", "¿Y en TPU con torch_tpu 0.2.0?"), "es", "(batch_norm)"),
    (("does torch_tpu 0.2.0 fall back to the CPU for a missing op or raise?", "Is there a knob?"), "en",
     "for the CPU fallback"),
    (("Will ResNet-50 run on a trn2?", "which ops block it?"), "en", "(ResNet-50)"),
    (("¿ResNet-50 funciona en trainium?", "que ops se van a la CPU"), "es", "¿qué ops bloquean ResNet-50"),
    (("HuBERT base on torch_tpu 0.1.1 is blocked by which op?", "Is 0.2.0 clean for this model?"), "en",
     "Is tpu 0.2.0 clean for this model (HuBERT base)?"),
])
def test_a_follow_up_without_a_subject_carries_the_one_before(parts, lang, said):
    (_, second), _ = understand.carry_context(parts, lang)
    assert said in second and "and tpu" not in second


def test_a_target_in_code_is_left_as_written():
    (_, second), _ = understand.carry_context(("is aten::argmax native on neuron 2.14.3.1?",
                                               'and with torch.compile(backend="neuron")?'), "en")
    assert 'backend="neuron")' in second


def test_a_follow_up_in_another_mode_gets_its_own_section(conn):
    text = ask(conn, "Our VAE uses nn.GroupNorm on trn2 with torch-neuronx 2.14.3.1. Does it fall back in eager, "
                     "and what happens to it under torch.compile?")["text"]
    assert "1 fallback (aten::native\\_group\\_norm)** (eager)" in text
    assert "1 unsupported (aten::native\\_group\\_norm)** (compile)" in text


@pytest.mark.heavy
def test_the_slice_rows_pass(conn):
    from tests.chat.phrasings import check, phrasings

    rows = [r for r in phrasings() if r.get("slice") == "s8b-split2"]
    assert len(rows) >= 14 and sum(r["language"] == "es" for r in rows) * 2 >= len(rows) - 1
    for row in rows:
        assert not check(ask(conn, row["question"]), row), (row["question"], check(ask(conn, row["question"]), row))
