""""What's new in Neuron 2.34?", "novedades de neuron 2.33": a Neuron SDK release answered as
one: its date, the PyTorch packages it ships (TorchNeuron's version inside it, with their
Python versions), what ends with it (the end-of-support windows, as `kb eol` has them), and
how TorchNeuron's op verdicts changed from the TorchNeuron of the SDK before — each line
cited (tester t29 #8: the bare op diff never said it was TorchNeuron's, nor when 2.34 shipped).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat.answer_eol import _window_lines, ends_with
from kb.chat.intents import Question
from kb.chat.reply import Answer, Sources
from kb.store import queries, releases

NEWS = re.compile(r"\bwhat'?s new\b|\bwhat is new\b|\bnew in\b|\bnews\b|\bwhat changed\b|\bchanges in\b|\bchangelog\b"
                  r"|\brelease notes\b|\bwhat does .{0,40}\bbring\b|\bwhat'?s in\b|\bhighlights\b", re.I)
LATEST = re.compile(r"\b(?:last|latest|newest|most recent|recent|current|ultima|ultimo|reciente|nueva|nuevo)\b", re.I)
PACKAGES = ("torchneuron", "torch-neuronx-xla", "torch-xla", "torchao-neuron", "neuronx-cc")


def sdk_version_asked(conn: sqlite3.Connection, q: Question) -> str | None:
    """The Neuron SDK version a news question names (a version of neuron-sdk, not of torchneuron)."""
    if q.op_words or q.function_words or not NEWS.search(q.text):
        return None
    if q.target_names() not in (["neuron"], []):
        return None
    asked = [m.version for m in q.targets if m.version] + q.versions
    for version in asked:
        if releases.find(conn, "neuron-sdk", version) and not releases.find(conn, "torchneuron", version):
            return version
    if not asked and q.target_names() == ["neuron"] and LATEST.search(q.text):
        newest = releases.latest(conn, "neuron-sdk")  # "what changed in the last torchneuron release" (r3-29 #10)
        return newest["version"] if newest else None
    return None


def sdk_news(conn: sqlite3.Connection, q: Question, version: str) -> Answer:
    from kb.eol import windows as eol

    sdk = releases.find(conn, "neuron-sdk", version)[0]
    src = Sources()
    lines = [f"**Neuron SDK {sdk['version']}** — released {sdk['date'] or 'on a date the KB lacks'} {src.cite(sdk)}."]
    facts: list[dict[str, Any]] = [{"product": "neuron-sdk", "version": sdk["version"], "date": sdk["date"]}]
    parts = [c for c in releases.in_sdk(conn, sdk["version"]) if c["product"] in PACKAGES]
    if parts:
        lines.append("PyTorch packages in it:")
        for c in parts:
            py = f" (Python {', '.join(c['python_versions'])})" if c.get("python_versions") else ""
            lines.append(f"- {c['product']} {c['version']}{py} {src.cite(c)}")
            facts.append({"product": c["product"], "version": c["version"], "sdk_version": sdk["version"]})
    ended = ends_with(conn, version, eol)
    if ended:
        lines.append(f"What ends with Neuron {version} ({len(ended)}):")
        lines += _window_lines(ended, src, bold=False)
        facts += [{"ends_with": version, "title": w.get("title"), "eol": w.get("eol_from")} for w in ended]
    else:
        lines.append(f"What ends with Neuron {version}: nothing the KB knows of.")
    lines += _torchneuron_changes(conn, parts, facts)
    return Answer(q.text, "release", "\n".join(lines) + src.markdown(), facts, src.items)


def _torchneuron_changes(conn: sqlite3.Connection, parts: list[dict[str, Any]], facts: list[dict[str, Any]]) -> list[str]:
    """TorchNeuron's op verdicts, this SDK's newest TorchNeuron against the one before it."""
    mine = sorted((c["version"] for c in parts if c["product"] == "torchneuron"), key=queries.version_key)
    with_data = sorted(queries._release_versions(conn, "neuron"), key=queries.version_key)
    if not mine or mine[-1] not in with_data:
        return []
    new = mine[-1]
    older = [v for v in with_data if queries.version_key(v) < queries.version_key(new) and "dev" not in v]
    if not older:
        return []
    old = older[-1]
    diff = queries.diff(conn, "neuron", old, new, "eager")
    g, lo, ch = len(diff["gained"]), len(diff["lost"]), len(diff["changed"])
    facts.append({"target": "neuron", "old": old, "new": new, "gained": g, "lost": lo, "changed": ch})
    return [f"TorchNeuron's op verdicts, {old} → {new} (eager): **{g}** kernels gained, **{lo}** lost, **{ch}** other "
            f"changes of where an op runs (`kb diff neuron {old} {new}` lists them)."]
