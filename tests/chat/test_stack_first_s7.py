"""A stack question that asks what leaves support first is answered by the stack's first end of
support, which leads the answer (it led with the yes/no of the parts' compatibility; held-out
round 9)."""

from __future__ import annotations

import pytest

from tests.chat.phrasings import ask


@pytest.mark.parametrize(("question", "lead"), [
    ("our stack is neuron 2.29 + python 3.11 + ubuntu 22.04. what leaves support first?",
     "First end of support in this stack: **2026-05-21**"),
    ("neuron 2.33, python 3.12, ubuntu 24.04: which part ends soonest?", "First end of support in this stack:"),
    ("nuestra pila es neuron 2.29, python 3.11 y ubuntu 22.04: ¿qué pierde soporte primero?",
     "Primer fin de soporte en esta pila: **2026-05-21**"),
])
def test_what_leaves_first_leads_with_the_first_end_of_support(conn, question, lead):
    assert ask(conn, question)["text"].startswith(lead)


def test_a_stack_question_that_does_not_ask_first_keeps_its_headline(conn):
    text = ask(conn, "is neuron 2.29 with python 3.11 on ubuntu 22.04 still supported?")["text"]
    assert text.startswith("**")
