"""What reading a chat question costs over a plain `kb op` query, on the same KB in the
same run.

* baseline: `kb.store.queries.op_report(conn, "nonzero")` (what `kb op nonzero` computes);
* chat: `kb.chat.answer.answer(question, conn=conn)` over a mix of phrasings (op status, typo,
  torch function, comparison, limitation, end of support).

Prints milliseconds per call and the ratio chat/baseline. A chat front end answers one
message at a time, so the budget is human-scale (well under 100 ms), not throughput.
Usage: `python bench/chat_answer.py [ROUNDS]` (default 20). Uses the KB at KB_DB or the
default path (built from data/ if missing).
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kb.chat.answer import answer  # noqa: E402
from kb.store import queries  # noqa: E402
from kb.store.db import open_kb  # noqa: E402

QUESTIONS = [
    "is aten::_scaled_dot_product_flash_attention native on neuron 2.33?",
    "is nonzeroo native on neuron?",
    "is torch.nn.functional.silu supported on tpu?",
    "what's the difference between neuron and tpu for nonzero?",
    "does neuron support float64?",
    "when does PyTorch 2.9 leave support on Neuron?",
]


def per_call(fn, rounds: int) -> float:
    fn()  # warm caches (function map, difflib tables)
    start = time.perf_counter()
    for _ in range(rounds):
        fn()
    return (time.perf_counter() - start) / rounds


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    conn = open_kb()
    base = per_call(lambda: queries.op_report(conn, "nonzero"), rounds)
    print(f"baseline op_report('nonzero'): {base * 1000:.2f} ms")
    for question in QUESTIONS:
        t = per_call(lambda q=question: answer(q, conn=conn), rounds)
        print(f"{t * 1000:8.2f} ms  ×{t / base:6.1f}  {question}")


if __name__ == "__main__":
    main()
