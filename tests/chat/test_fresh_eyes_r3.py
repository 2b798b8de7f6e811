"""Wrong answers of the third fresh-eyes round on chat (report r3-29), checked on the shipped KB
(the phrasing bank holds the questions too)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from kb.chat import entities
from tests.chat.phrasings import ask


def test_two_targets_with_versions_get_one_headline_and_each_its_own_basis(conn):
    """r3 #14: tpu 0.2.0 rests on the static probe, neuron 2.14.3.1 is presumed: the headline
    must not call the probed verdict presumed, nor open with two contradicting headlines."""
    text = ask(conn, "is F.scaled_dot_product_attention native on neuron 2.14.3.1 and on tpu 0.2.0?")["text"]
    head = text.split("\n\n")[0]
    assert "Same status" not in text and "It depends" not in head
    assert "no evidence for 2.14.3.1" in head and "0.2.0" not in head.partition("no evidence for")[2].split(" (")[0]
    assert "neuron presumed" in head and "tpu evidence" in head
    assert "leaves run on the device" in head


@pytest.mark.parametrize("rate", ["1500 tokens/seg", "1500 tok/seg", "1500 tokens por seg"])
def test_seg_is_a_second_in_a_rate(rate):
    """r3 #4: "seg" is how Spanish abbreviates segundo."""
    ents = entities.extract(f"costo por 1M tokens: 9 USD/h, {rate}")
    assert [r.value for r in ents.rates] == [Decimal(1500)]


@pytest.mark.parametrize(("question", "language"), [
    ("show me the unsupported ops for neuron 2.14.3.1", "en"), ("dame las ops que no corren en neuron 2.14.3.1", "es")])
def test_the_unsupported_list_at_a_version_is_the_list(conn, question, language):
    """r3 #6/#8: kb ops --target neuron=2.14.3.1 --status unsupported, not the policy, not "I could not tell"."""
    result = ask(conn, question)
    assert result["intent"] == "ops_by_status" and result["language"] == language
    assert "68" in result["text"] and "unsupported" in result["text"]


@pytest.mark.parametrize(("question", "why", "probe"), [
    ("which ops fall back to cpu on torchtpu 0.1.1?", "off unless enabled", "replay"),
    ("¿qué operadores caen a la CPU en tpu 0.2.0?", "apagado salvo que se active", "static-tpu-0.2.0")])
def test_an_empty_fallback_list_cites_its_source_and_says_why(conn, question, why, probe):
    """r3 #5/#7: 0 fallback ops on TorchTPU, because its CPU fallback is a switch (the KB's policy row)."""
    result = ask(conn, question)
    assert result["intent"] == "ops_by_status" and " 0 ops " in result["text"]
    assert why in result["text"] and "--status unsupported" in result["text"]
    urls = " ".join(f"{s.get('url')} {s.get('probe_run_id')} {s.get('name')}" for s in result["sources"])
    assert "google-pytorch/torch_tpu" in urls and probe in urls


@pytest.mark.parametrize(("question", "head"), [
    ("nn.Embedding va en tpu 0.2.0 o cae a cpu?", "**No cae a la CPU: nativo**"),
    ("does nn.Embedding fall back on tpu 0.2.0?", "**No fallback: native**"),
    ("whisper large v3 on neuron, any fallbacks?", "**Presumably no fallbacks**")])
def test_a_fallback_question_gets_a_headline_that_answers_it(conn, question, head):
    """r3 #3/#11: a bare No (or Yes) to "does it fall back?" reads as the opposite of the facts."""
    text = ask(conn, question)["text"]
    assert text.startswith(head), text.split("\n")[0]
    assert "does not hacen" not in text


@pytest.mark.parametrize("question", ["what changed in the last torchneuron release",
                                      "¿qué cambió en la última versión de torchneuron?"])
def test_the_last_release_is_the_newest_sdk_news(conn, question):
    """r3 #10: no version named, "last": the newest Neuron SDK release and TorchNeuron's diff in it."""
    result = ask(conn, question)
    assert result["intent"] == "release"
    assert "**Neuron SDK 2.34.0**" in result["text"] and "2.14.3.0 → 2.14.3.1" in result["text"]
