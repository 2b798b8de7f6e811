"""Issue #29, s8d-regb: bank rows that today's merges turned (an op asked 'in compile mode' read as the
torch.compile mode= limitation; 'which env var …?' answered 'Yes:')."""

from __future__ import annotations

from tests.chat.phrasings import ask


def test_an_op_in_compile_mode_is_the_op_not_the_mode_parameter(conn):
    a = ask(conn, "dropout in compile mode on tpu")
    assert a["intent"] == "op" and "aten::dropout" in a["text"] and "(compile)" in a["text"]
    assert ask(conn, "what does torch.compile mode max-autotune do on tpu?")["intent"] == "limitation"


def test_which_switch_is_named_not_answered_yes(conn):
    which = ask(conn, "which env var disables neuron's fallback execution?")["text"]
    assert which.startswith("**`TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`")
    asked = ask(conn, "Is there an env var so a torch.compile graph that fails to compile runs eagerly on neuron?")
    assert asked["text"].startswith("**Yes: `TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`")
