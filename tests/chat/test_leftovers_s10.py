"""Leftovers the lead found in session 10: a heading leaves out a lead-in that only counts the questions."""

from __future__ import annotations

import pytest

from tests.chat.phrasings import ask


@pytest.mark.parametrize("question, first", [
    ("two things: is aten::nonzero native on tpu, and when does python 3.10 support end on neuron?",
     "**(1)** _is aten::nonzero native on tpu?_"),
    ("dos preguntas rápidas - ¿aten::sort es nativo en tpu? y ¿cuándo termina el soporte de python 3.10 en neuron?",
     "**(1)** _¿aten::sort es nativo en tpu?_"),
    ("on tpu 0.2.0: is aten::sort native, and what's the policy for missing ops?",
     "**(1)** _on tpu 0.2.0: is aten::sort native?_"),  # a lead that says where stays
])
def test_a_heading_leaves_out_a_counting_lead_in(conn, question, first):
    assert first in ask(conn, question)["text"].split("\n")
