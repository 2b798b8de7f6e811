"""What reading a long chat question costs, against reading a short one, in the same run:
the tokenizer must be linear in the question's length (24k characters of "a/a/…" took
12 s when the path pattern backtracked over the whole run at every start; 8,000 of "2.33.0."
took 2.4 s when the price pattern did the same).

* baseline: `kb.chat.intents.read` and `kb.chat.entities.extract` on a 240-character question, per character;
* long: the same on 24,000-character questions (slashes, dots, words, mixed).

Prints microseconds per character and the ratio long/baseline (linear: about 1; the old
quadratic reader gave hundreds). Usage: `python bench/ask_tokenize.py [ROUNDS]` (default 5).
No KB is needed.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kb.chat import entities, intents  # noqa: E402

SHAPES = {
    "slashes": "a/",
    "dots": "a.",
    "words": "is add native on neuron ",
    "mixed": "is ../a/b/model.pt2:build native on tpu 0.2.0? ",
    "versions": "2.33.0.",  # one digit run: the price pattern once started at every digit (quadratic)
    "prices": "$1.1$",  # thousands of prices: each was checked against every one taken before it
}


def per_char(text: str, rounds: int) -> float:
    """The reader of a question's words and its entity layer (figures, versions, names), per character."""
    start = time.perf_counter()
    for _ in range(rounds):
        intents.read(text)
        entities.extract(text)
    return (time.perf_counter() - start) / rounds / len(text) * 1e6


def main(rounds: int = 5) -> None:
    for name, unit in SHAPES.items():
        short = (unit * (240 // len(unit) + 1))[:240]
        long = (unit * (24_000 // len(unit) + 1))[:24_000]
        base = per_char(short, rounds * 20)
        cost = per_char(long, rounds)
        print(f"{name:8s} short {base:.3f} us/char  24k {cost:.3f} us/char  ratio {cost / base:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
