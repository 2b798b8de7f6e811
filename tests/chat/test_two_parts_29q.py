"""Slice 29q (issue #29): two questions in one split by their clauses — numbered parts ("Q1: … Q2: …",
"1) … 2) …"), "¿…? y ¿…?", "… and when?" — with the target and version of one clause carried into a
later one that lacks them; both modes said when asked for both; a policy for every version; the
user's own name filter over a family; a missing model's nearest gallery model with its verdict."""

from __future__ import annotations

import pytest

from kb.chat import list_filter, mode_contrast, understand
from tests.chat.phrasings import ask

# ---------------------------------------------------------------- splitting


@pytest.mark.parametrize(("text", "parts"), [
    ("Q1: is aten::nonzero native on tpu 0.2.0? Q2: what is the fallback policy on neuron?",
     ("is aten::nonzero native on tpu 0.2.0?", "what is the fallback policy on neuron?")),
    ("1) is aten::nonzero native on tpu 0.2.0 2) how many ops does neuron run natively?",
     ("is aten::nonzero native on tpu 0.2.0?", "how many ops does neuron run natively?")),
    ("two questions: 1. is aten::sort native on tpu 2. what is the policy on neuron",
     ("is aten::sort native on tpu?", "what is the policy on neuron")),
    ("pregunta 1: ¿es nativo aten::nonzero en tpu? pregunta 2: ¿cuánto cuesta el millón a 5 USD/h y 2000 tok/s?",
     ("¿es nativo aten::nonzero en tpu?", "¿cuánto cuesta el millón a 5 USD/h y 2000 tok/s?")),
    ("¿es nativo aten::nonzero en tpu 0.2.0? y ¿cuál es la política de fallback en neuron?",
     ("¿es nativo aten::nonzero en tpu 0.2.0?", "¿cuál es la política de fallback en neuron?")),
    ("does TorchTPU 0.2.0 support nonzero and when?", ("does TorchTPU 0.2.0 support nonzero?", "when?")),
    ("is aten::unique native on tpu 0.2.0 and since when?", ("is aten::unique native on tpu 0.2.0?", "since when?")),
    ("¿tpu 0.2.0 soporta aten::nonzero y desde cuándo?", ("¿tpu 0.2.0 soporta aten::nonzero?", "desde cuándo?")),
    ("on neuron 2.33, does aten::nonzero run natively, and what about aten::unique?",
     ("on neuron 2.33, does aten::nonzero run natively?", "what about aten::unique?")),
    ("¿aten::nonzero es nativo en neuron 2.33? ¿y aten::unique?",
     ("¿aten::nonzero es nativo en neuron 2.33?", "¿y aten::unique?")),
])
def test_clauses_split(text, parts):
    assert understand.split_two(text) == parts


@pytest.mark.parametrize("text", ["cost at 7.5 USD/h and 1800 tok/s", "is python 3.10 supported on neuron 2.33?",
                                  "is nonzero native on tpu and what about compile mode?",
                                  "1) is aten::sort native on tpu"])  # one number alone numbers no parts
def test_numbers_and_follow_ups_that_are_not_parts(text):
    assert understand.split_two(text) is None


def test_the_whole_question_is_read_without_its_numbers():
    assert understand.unnumbered("Q1: is X native? Q2: what's the policy") == "is X native? what's the policy?"
    assert understand.unnumbered("is aten::sort native on tpu 0.2.0?") == "is aten::sort native on tpu 0.2.0?"


# ---------------------------------------------------------------- context carried


def test_and_when_asks_the_release_of_what_the_first_names():
    parts, facts = understand.carry_context(("does TorchTPU 0.2.0 support nonzero?", "when?"), "en")
    assert parts[1] == "when was tpu 0.2.0 released?"
    assert facts == [{"part": 2, "carried": {"targets": ["tpu 0.2.0"], "asks": "release date"}}]
    parts, _ = understand.carry_context(("¿tpu 0.2.0 soporta aten::nonzero?", "desde cuándo?"), "es")
    assert parts[1] == "¿cuándo salió tpu 0.2.0?"


def test_a_follow_up_op_takes_the_target_and_its_version():
    parts, facts = understand.carry_context(("on neuron 2.33, does aten::nonzero run natively?",
                                             "what about aten::unique?"), "en")
    assert parts[1] == "what about aten::unique on neuron 2.33?"
    parts, facts = understand.carry_context(("is aten::nonzero native on neuron 2.33?",
                                             "is aten::unique native on neuron?"), "en")
    assert parts[1] == "is aten::unique native on neuron 2.33?"
    assert facts == [{"part": 2, "carried": {"version": "neuron 2.33"}}]


def test_two_op_clauses_are_two_sections_at_the_version(conn):
    a = ask(conn, "on neuron 2.33, does aten::nonzero run natively, and what about aten::unique?")
    assert a["text"].startswith("_Two questions in one")
    second = a["text"].split("**(2)**", 1)[1]
    assert "_what about aten::unique on neuron 2.33?_" in second and "torchneuron 2.13.3.0" in second
    a = ask(conn, "does TorchTPU 0.2.0 support nonzero and when?")
    assert "torch_tpu 0.2.0 was released in 2026-10" in a["text"].split("**(2)**", 1)[1]


# ---------------------------------------------------------------- both modes


def test_both_modes_are_read():
    for text in ("in eager and compile", "in both modes", "eager vs torch.compile", "en ambos modos", "on dos modos"):
        assert mode_contrast.names_both_modes(text), text
    for text in ("in compile mode", "eager", "is it native?"):
        assert not mode_contrast.names_both_modes(text), text


def test_the_compile_verdict_is_said_when_it_equals_eager(conn):
    a = ask(conn, "is aten::nonzero native on tpu 0.2.0 in eager and compile?")
    assert "torch.compile: same as eager: native (its own kernel)" in a["text"]
    assert "**Eager and torch.compile agree**" in a["text"]
    assert {f.get("mode") for f in a["facts"] if f.get("op") == "aten::nonzero"} == {"eager", "compile"}
    plain = ask(conn, "is aten::nonzero native on tpu 0.2.0?")  # a mode left open says nothing when they agree
    assert "same as eager" not in plain["text"]


# ---------------------------------------------------------------- policy, every version


def test_a_policy_for_each_version(conn):
    a = ask(conn, "what is the fallback policy on tpu for each version?")
    versions = {f.get("backend_version") for f in a["facts"] if f.get("feature")}
    assert versions == {"0.1.1", "0.2.0"}
    assert a["text"].count("TorchTPU, torch.compile") == 1  # a mode no version has a rule for: said once
    one = ask(conn, "what does tpu do with an op it lacks?")
    assert {f.get("backend_version") for f in one["facts"] if f.get("feature")} == {"0.2.0"}


# ---------------------------------------------------------------- the user's own filter


def test_a_spelled_substring_wins_over_the_family(conn):
    found = list_filter.literal(conn, "list the tpu ops whose name contains 'conv'")
    assert found is not None and found.word == "conv"
    assert list_filter.literal(conn, "which conv ops are unsupported on tpu?") is None
    a = ask(conn, "list the tpu ops whose name contains 'conv'")
    assert "Filtered to ops whose name contains 'conv'" in a["text"] and "family:" not in a["text"]
    assert a["facts"][0] == {"filter": "grep", "word": "conv", "ops": a["facts"][0]["ops"]}


# ---------------------------------------------------------------- a missing model


def test_a_missing_model_gets_its_nearest_models_verdict(conn):
    a = ask(conn, "will SDXL run on trn2?")
    assert a["intent"] == "gallery_missing" and a["text"].startswith("**SDXL is not in the gallery.**")
    assert "The nearest gallery model's own verdict, Stable Diffusion 1.5 UNet" in a["text"]
    assert "op calls on the device: " in a["text"]
    assert "**Yes**" not in a["text"] and "**Partly**" not in a["text"]  # never a verdict word about SDXL
    nearest = [f for f in a["facts"] if f.get("nearest_to")]
    assert nearest and nearest[0]["model"] == "sd15-unet" and nearest[0]["target"] == "neuron"


def test_trainium_2_is_the_chip_not_a_release():
    from kb.chat.intents import read

    mention = read("can I run SDXL on trainium 2?").targets[0]
    assert (mention.target, mention.version) == ("neuron", None)
    assert read("list unsupported operators for trainium 2.14.3.1").targets[0].version == "2.14.3.1"
