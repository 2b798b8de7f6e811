"""The question bank (tests/chat/question_bank.py) asked of the shipped KB: every phrasing's
answer must state its facts, cite its source and be read as the right kind of question.
The bank reports its pass rate and must pass at least 95%; failures are printed."""

from __future__ import annotations

import re

import pytest

from kb.chat.answer import answer
from kb.store import db
from tests.chat.question_bank import questions

PASS_RATE = 0.95


def check(a: dict, facts: list[str], source: str, intent: str) -> list[str]:
    """What is wrong with one answer (an Answer.to_dict()): nothing when it passes."""
    # a fact is stated when the text says it; markdown escapes of record text (TORCH\\_NEURONX) are rendering
    plain = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>])", r"\1", a["text"])
    problems = [f"missing fact {f!r}" for f in facts if f not in a["text"] and f not in plain]
    cited = [s for s in a["sources"] if source in (s.get("url") or "") or source in (s.get("probe_run_id") or "")
             or source in (s.get("name") or "")]
    if not a["sources"] or not cited:
        problems.append(f"no source citing {source!r}")
    if a["intent"] != intent:
        problems.append(f"read as {a['intent']}, not {intent}")
    return problems


def test_bank_is_big_and_varied():
    bank = questions()
    assert len(bank) >= 150
    assert len({q.lower() for q, *_ in bank}) == len(bank)
    kinds = {intent for *_, intent in bank}
    assert {"release", "diff", "family", "op", "limitation"} <= kinds
    text = " ".join(q.lower() for q, *_ in bank)
    for nickname in ("trainium", "trn2", "neuron", "torchneuron", "torch-neuronx", "tpu", "torchtpu", "torch_tpu"):
        assert nickname in text, nickname


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_bank_pass_rate(shipped_kb):
    conn = db.connect(shipped_kb)
    failures = []
    bank = questions()
    try:
        for question, facts, source, intent in bank:
            problems = check(answer(question, conn=conn).to_dict(), facts, source, intent)
            if problems:
                failures.append((question, problems))
    finally:
        conn.close()
    rate = 1 - len(failures) / len(bank)
    print(f"\nquestion bank: {len(bank) - len(failures)}/{len(bank)} pass ({rate:.1%})")
    for question, problems in failures:
        print(f"  FAIL {question!r}: {'; '.join(problems)}")
    assert rate >= PASS_RATE, failures
