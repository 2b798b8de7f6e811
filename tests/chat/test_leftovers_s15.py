"""Misses of held-out round r33 fixed in session 15: a module wholly on the CPU, several platform ends in one
question, a cost message in two parts, an instance family a release does not support, CPU said as a destination,
a follow-up naming the other mode."""

from __future__ import annotations

import pytest

from tests.chat.phrasings import ask


@pytest.mark.parametrize("question, head", [
    ("does nn.ReLU6 work on neuron?", "**It runs, but on the CPU** on neuron"),
    ("¿corre nn.ReLU6 en trainium?", "**Corre, pero en la CPU** en neuron"),
])
def test_a_module_whose_every_op_falls_back_is_said_to_run_on_the_cpu(conn, question, head):
    text = ask(conn, question)["text"]
    assert text.startswith(head) and "partly" not in text.partition("\n")[0]


def test_a_module_with_some_ops_on_the_device_is_still_partly_on_the_cpu(conn):
    assert "all of its ops" not in ask(conn, "does nn.TransformerEncoderLayer work on neuron?")["text"].partition("\n")[0]


@pytest.mark.parametrize("question, heads", [
    ("when does support end for pytorch 2.5 y python 3.10 on neuron?",
     ["**PyTorch 2.5: ended with Neuron 2.25**", "**Python 3.10: ended with Neuron 2.30**"]),
    ("¿hasta cuándo soporta neuron python 3.10 y pytorch 2.5?",
     ["**Python 3.10: terminó con Neuron 2.30**", "**PyTorch 2.5: terminó con Neuron 2.25**"]),
])
def test_several_platform_versions_each_get_their_vendor_end_in_the_order_asked(conn, question, heads):
    first = ask(conn, question)["text"].partition("\n")[0]
    assert all(h in first for h in heads) and first.find(heads[0]) < first.find(heads[1])


def test_a_platforms_own_end_is_that_cycles_own(conn):
    text = ask(conn, "when does neuron drop python 3.10?")["text"]
    assert "2027-10-01" not in text.partition("\n")[0]


def test_a_cost_message_in_two_parts_is_priced_as_one(conn):
    text = ask(conn, "the box is $7.50/h at 1800 tokens/s — price per million, and what does the 50M cost us?")["text"]
    assert text.startswith("**1.16 USD per million tokens**")


def test_an_instance_family_the_release_does_not_support_is_a_no_said_first(conn):
    text = ask(conn, "python 3.12, pytorch 2.13, ubuntu 24.04 on trn1 with neuron 2.33, is that stack ok?")["text"]
    assert text.startswith("**No** — Neuron 2.33 supports instance family Trn2, Trn3, not trn1")


@pytest.mark.parametrize("question", [
    "which ops get kicked back to the cpu on neuron under torch.compile?",
    "which ops still go to the cpu on neuron with torch.compile?",
])
def test_the_cpu_as_a_destination_asks_for_the_fallback_list(conn, question):
    result = ask(conn, question)
    assert result["intent"] == "ops_by_status" and "run as **fallback**" in result["text"].partition("\n")[0]


def test_a_trailing_follow_up_naming_the_other_mode_shows_both(conn):
    text = ask(conn, "does torch.sort work on tpu under torch.compile? and what about eager")["text"]
    assert "**Eager and torch.compile agree**" in text or "**Eager and torch.compile differ**" in text
