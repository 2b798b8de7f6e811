"""What the entity layer (kb.chat.entities: language, the Spanish glossary, numbers with units,
cues) costs, against itself and against English, in the same run:

* linear: `entities.extract` per character on a 240-character question (baseline) and on
  24,000-character ones of the same shape (numbers, Spanish words, cues, mixed) — linear
  reading gives a ratio near 1 (kb ask caps questions at 1,000 characters; this is the margin);
* Spanish: `answer` for Spanish phrasings of the bank against their English twins (baseline),
  both on the same KB — the glossary and the answer's Spanish pass should cost little.

Usage: `python bench/chat_entities.py [ROUNDS]` (default 5). The second part uses the KB at
KB_DB or the default path (built from data/ if missing).
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kb.chat import entities  # noqa: E402

SHAPES = {
    "numbers": "7,5 USD la hora y 1.800 tokens/s ",
    "spanish": "¿cuándo termina el soporte de Python 3.10 en Neuron? ",
    "cues": "when is the last release still supported how long ",
    "mixed": "is PyTorch/XLA training on trn1 at $4/h 2.5k tok/s ¿sigue soportado? ",
    # slice 29g: typo'd names read (kb.chat.entities.correct_names) and clauses joined by "and" / "y"
    "typos": "is nonzero native on neuorn or tpuu and trainum? ",
    "joins": "is x on tpu?   and what is y and    how long y cuánto ",
}
PAIRS = [
    ("¿cuándo termina el soporte de Python 3.10 en Neuron?", "when does support for Python 3.10 end on Neuron?"),
    ("¿funciona nonzero en TPU?", "does nonzero run on TPU?"),
    ("¿sigue soportado PyTorch/XLA para entrenamiento en Trn1?", "is PyTorch/XLA training still supported on Trn1?"),
    ("enumera lo que TorchTPU 0.1.1 no puede ejecutar", "list what TorchTPU 0.1.1 can't run"),
    ("precio por millón de tokens a 7,5 USD la hora y 1800 tokens/s",
     "price per million tokens at 7.5 USD an hour and 1800 tokens/s"),
]


def per_char(text: str, rounds: int) -> float:
    """Microseconds per character of reading a question: its entities and its clauses
    (kb.chat.understand.split_two, which `answer` runs first)."""
    from kb.chat import understand

    start = time.perf_counter()
    for _ in range(rounds):
        entities.extract(text)
        understand.split_two(text)
    return (time.perf_counter() - start) / rounds / len(text) * 1e6


def per_answer(conn, questions: list[str], rounds: int) -> float:
    from kb.chat.answer import answer

    start = time.perf_counter()
    for _ in range(rounds):
        for q in questions:
            answer(q, conn=conn)
    return (time.perf_counter() - start) / rounds / len(questions) * 1e3


def main(rounds: int = 5) -> None:
    for name, unit in SHAPES.items():
        short = (unit * (240 // len(unit) + 1))[:240]
        long = (unit * (24_000 // len(unit) + 1))[:24_000]
        base = per_char(short, rounds * 20)
        cost = per_char(long, rounds)
        print(f"{name:8s} short {base:.3f} us/char  24k {cost:.3f} us/char  ratio {cost / base:.2f}")
    from kb.store.db import open_kb

    conn = open_kb(os.environ.get("KB_DB"))
    try:
        per_answer(conn, [e for _, e in PAIRS], 1)  # warm the caches both sides share
        english = per_answer(conn, [e for _, e in PAIRS], rounds)
        spanish = per_answer(conn, [s for s, _ in PAIRS], rounds)
    finally:
        conn.close()
    print(f"answer   english {english:.1f} ms  spanish {spanish:.1f} ms  ratio {spanish / english:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
