"""What the gallery list questions cost in chat, against the mean phrasing-bank question, on the
same KB in the same run (issue 29: every bank question within Slack's 3-second ack, ≤ 1 s here).

* baseline: the mean of `kb.chat.api.ask` over a sample of the phrasing bank (every 10th row;
  `--all`: every row, and the slowest ones listed);
* cold: a list question with no kept table (kb.gallery.tablecache emptied: memory and folder),
  i.e. kb check on every gallery model, as before the cache;
* from disk: the table read back from the cache folder (a fresh process, a restarted bot);
* kept: the table kept in this process.

Prints seconds and each one's ratio to the baseline. Uses the KB at KB_DB or the default path
(built from data/ if missing); the cold runs use a scratch cache folder, the user's is not touched.
Usage: `python bench/chat_gallery.py [--all]`.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from kb import paths  # noqa: E402
from kb.chat.api import ask  # noqa: E402
from kb.gallery import tablecache  # noqa: E402
from kb.store.db import open_kb  # noqa: E402

SLOW = ["q modelos andan en trainium", "which models run fully on tpu?", "que modelos corren en neuron?",
        "will BERT work on inf2?"]


def timed(question: str) -> float:
    start = time.perf_counter()
    ask(question)
    return time.perf_counter() - start


def bank(every: int) -> list[str]:
    with open(os.path.join(ROOT, "tests", "chat", "phrasings.jsonl"), encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [r["question"] for r in rows[::every]]


def main() -> None:
    every = 1 if "--all" in sys.argv else 10
    open_kb().close()  # built before anything is timed
    ask("is aten::add.Tensor native on neuron?")  # imports and first-use tables out of the way
    os.environ["KB_DB"] = paths.default_db_path()  # the KB stays where it is when the cache folder moves
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["KB_CACHE_DIR"] = scratch
        times = {}
        for question in SLOW:  # cold first: nothing kept yet in this process or folder
            tablecache.clear_memo()
            shutil.rmtree(os.path.join(scratch, tablecache.FOLDER), ignore_errors=True)
            times[question] = {"cold": timed(question)}
        for question in SLOW:
            ask(question)  # kept on disk (the cold runs above emptied the folder before each)
        for question in SLOW:
            tablecache.clear_memo()
            times[question]["from disk"] = timed(question)
            times[question]["kept"] = timed(question)
        questions = bank(every)
        each = {q: timed(q) for q in questions}
    base = sum(each.values()) / len(each)
    print(f"baseline: mean of {len(each)} bank questions {base:.3f} s (max {max(each.values()):.3f} s)")
    for question, found in times.items():
        print(f"{question!r}: " + ", ".join(f"{k} {v:.3f} s ×{v / base:.1f}" for k, v in found.items()))
    if every == 1:
        for question, took in sorted(each.items(), key=lambda kv: -kv[1])[:8]:
            print(f"  slowest: {took:.3f} s ×{took / base:.1f}  {question!r}")


if __name__ == "__main__":
    main()
