"""Slice s8-op (issue #29, held-out rounds 10 and 11): op and module answers. A named mode leads and the
other is said beside it where it differs; the other releases a question names are answered too; an older
release where the op does not run gets the newest release in one line; a module that does not run on the
target asked gets the other target in one line; `x.roll(...)` / `x.bernoulli_(0.5)` read as Tensor methods,
a number argument picking its overload; a caveat word inside an op name is no caveat question; "no known
issue" follows the verdict. Paraphrases of our own, not the held-out questions."""

from __future__ import annotations

import pytest

from kb.chat import intents, mode_contrast
from tests.chat.phrasings import ask, check, phrasings

BANK = [r for r in phrasings() if r.get("slice") == "s8-op"]


def test_the_slice_has_phrasings_in_both_languages():
    assert len(BANK) >= 15 and {r["language"] for r in BANK} == {"en", "es"}


@pytest.mark.parametrize("row", BANK, ids=[r["question"][:40] for r in BANK])
def test_bank_rows_of_s8_op(conn, row):
    assert check(ask(conn, row["question"]), row) == []


def test_a_method_call_on_a_variable_is_a_tensor_method_with_its_arguments():
    q = intents.read("does h.roll(shifts=2) fall back on trn2?")
    assert q.function_words == ["h.roll"] and q.call_args == {"h.roll": "shifts=2"}
    assert intents.read("does torch.roll(x, 1) run on tpu?").function_words == ["torch.roll"]
    assert intents.read("what about e.g. this on tpu?").function_words == []  # no call, no method


def test_a_caveat_word_inside_an_op_name_is_no_caveat():
    assert intents.read("does aten::var_mean.correction run on neuron?").intent == "op"
    assert intents.read("is aten::var_mean.correction slow on neuron?").intent == "caveat"


def test_the_asked_mode_is_the_question_clause_s():
    assert mode_contrast.asked_mode("ok under torch.compile? in eager it was fine") == "compile"
    assert mode_contrast.asked_mode("does it run in eager? compile was broken") == "eager"
    assert mode_contrast.asked_mode("does it run in eager and compile?") is None
    assert mode_contrast.asked_mode("does it run in both modes, eager and compile?") is None


def test_a_dash_or_colon_before_the_question_still_asks_yes_or_no():
    assert intents.asks_yes_no("stuck on 0.1.1 for now — does nn.PReLU run there?")
    assert intents.asks_yes_no("torch.bucketize on trn2 with torch.compile — supported? (we need it)")
    assert not intents.asks_yes_no("which ops are unsupported on tpu?")


def test_a_release_inside_a_call_argument_is_no_release(conn):
    text = ask(conn, "does w.bernoulli_(0.2) run on tpu 0.1.1?")["text"]
    assert "observation of 0.1.1." in text and "0.2.0, 0.1.1" not in text


def test_no_known_issue_follows_the_verdict(conn):
    asked = ask(conn, "is F.hardtanh fine under torch.compile on neuron? eager is slow for us")["text"]
    # after a "no" verdict, "no known issue" would read as its contradiction: nothing beyond the verdict (r12 q7)
    assert asked.startswith("**Presumably no**") and "No caveat recorded beyond the verdict" in asked


def test_no_known_issue_leads_a_pure_caveat_question(conn):
    pure = ask(conn, "is F.hardtanh slow on neuron?")["text"]
    assert pure.startswith("No known issue recorded")


def test_the_other_target_line_only_where_the_asked_one_does_not_run_it(conn):
    assert "other target" not in ask(conn, "does nn.Linear run on tpu?")["text"]
