"""The phrasing bank (tests/chat/phrasings.jsonl, written by tests/chat/phrasings_make.py) and
the one check every front end applies to an answer of it: its facts stated, its source cited,
read as its intent, written in the question's language."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

BANK = Path(__file__).with_name("phrasings.jsonl")


def phrasings() -> list[dict]:
    with open(BANK, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def check(answer: dict, row: dict) -> list[str]:
    """What is wrong with one answer (an Answer.to_dict()); nothing when it passes."""
    text = answer.get("text") or ""
    plain = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>])", r"\1", text)  # markdown escapes of record text are rendering
    if row.get("case_insensitive"):
        text, plain = text.lower(), plain.lower()
        facts = [f.lower() for f in row["facts"]]
    else:
        facts = row["facts"]
    problems = [f"missing fact {f!r}" for f in facts if f not in text and f not in plain]
    source = row["source"]
    if source:
        cited = [s for s in answer.get("sources") or [] if source in (s.get("url") or "")
                 or source in (s.get("probe_run_id") or "") or source in (s.get("name") or "")]
        if not cited:
            problems.append(f"no source citing {source!r}")
    gallery = row["intent"] == "model" and str(answer.get("intent")).startswith("gallery_")  # #30's readers
    if answer.get("intent") != row["intent"] and not gallery:
        problems.append(f"read as {answer.get('intent')}, not {row['intent']}")
    if answer.get("language") != row["language"]:
        problems.append(f"answered in {answer.get('language')!r}, not {row['language']!r}")
    return problems


def rates(rows: list[dict], failed: set[str]) -> dict[str, dict[str, tuple[int, int]]]:
    """(passed, total) per kind and per language."""
    out: dict[str, dict[str, tuple[int, int]]] = {"kind": {}, "language": {}}
    for axis in out:
        totals = Counter(r[axis] for r in rows)
        fails = Counter(r[axis] for r in rows if r["question"] in failed)
        out[axis] = {k: (totals[k] - fails[k], totals[k]) for k in sorted(totals)}
    return out


def sample(rows: list[dict], every: int = 6) -> list[dict]:
    """A default-suite share of the bank: every `every`-th phrasing and the first of each
    kind × language, so each kind in each language is asked through every front end."""
    firsts = {}
    for r in rows:
        firsts.setdefault((r["kind"], r["language"]), r["question"])
    keep = set(firsts.values())
    return [r for i, r in enumerate(rows) if i % every == 0 or r["question"] in keep]


def one_per_kind(rows: list[dict]) -> list[dict]:
    """The first phrasing of each kind, in English for every other kind and Spanish for the rest:
    the smallest sample that still asks every kind, and both languages, through a front end."""
    kinds = sorted({r["kind"] for r in rows})
    wanted = {(k, "en" if i % 2 == 0 else "es") for i, k in enumerate(kinds)}
    out, seen = [], set()
    for r in rows:
        key = (r["kind"], r["language"])
        if key in wanted and key not in seen:
            seen.add(key)
            out.append(r)
    return out


def ask(conn, text: str) -> dict:
    """kb.chat.answer's answer to `text` on `conn`, as the dict the front ends send."""
    from kb.chat.answer import answer

    return answer(text, conn=conn).to_dict()
