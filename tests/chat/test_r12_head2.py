"""Slice s8b-head2 (issue #29, held-out round 12): headlines that mislead and facts left out. A question that
leaves the mode open hears about the other mode in one line, also when it agrees; overloads that raise alike
never "differ"; after a "no" verdict no "no known issue" line; the platform a migration starts from is no target;
a claim that support ended is answered yes when it did; a stack's "anything out of support?" is answered for
the stack; a limitation that says "tune through options" comes with the options the KB records. Paraphrases
of our own, not the held-out questions."""

from __future__ import annotations

import pytest

from kb.chat import intents
from tests.chat.phrasings import ask, check, phrasings

BANK = [r for r in phrasings() if r.get("slice") == "s8b-head2"]


def test_the_slice_has_phrasings_in_both_languages():
    assert len(BANK) >= 12 and {r["language"] for r in BANK} == {"en", "es"}


@pytest.mark.parametrize("row", BANK, ids=[r["question"][:40] for r in BANK])
def test_bank_rows_of_s8b_head2(conn, row):
    assert check(ask(conn, row["question"]), row) == []


def test_overloads_that_raise_alike_do_not_differ(conn):
    text = ask(conn, "is there a kernel for aten::_upsample_bilinear2d_aa on tpu 0.2.0, or will it blow up?")["text"]
    assert "Other overloads, below, differ" not in text and "**Eager and torch.compile agree**" in text


def test_no_known_issue_never_follows_a_no():
    from kb.chat.answer import _negative

    assert _negative("**No** — unsupported (raises).") and _negative("**Presumably no** — x")
    assert not _negative("**Yes** — runs on tpu.")


@pytest.mark.parametrize("text", ["following the CUDA→Trainium guide, does nn.Embedding run on trn2?",
                                  "we are migrating from GPUs to TPU: does F.gelu run?",
                                  "porting from cuda to trainium: is aten::nonzero native?"])
def test_a_migration_source_is_no_target(text):
    assert [m.target for m in intents.read(text).targets if m.target == "cuda"] == []


def test_cuda_asked_as_a_target_stays():
    assert "cuda" in [m.target for m in intents.read("does aten::nonzero run on cuda or on tpu?").targets]


def test_still_supported_keeps_no(conn):
    assert ask(conn, "is pytorch/xla training on trn1 still supported?")["text"].startswith("**No** — ")
