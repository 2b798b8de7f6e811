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
from kb.chat.reply import Answer, Sources, quoted
from kb.store import queries, releases
from kb.vocab import UNKNOWN

NEWS = re.compile(r"\bwhat'?s new\b|\bwhat is new\b|\bnew in\b|\bnews\b|\bwhat changed\b|\bchanges in\b|\bchangelog\b"
                  r"|\brelease notes\b|\bwhat does .{0,40}\bbring\b|\bwhat'?s in\b|\bhighlights\b"
                  # "what shipped in Neuron 2.34?", "what does 2.34 include?": the release's contents too (r11 q41)
                  r"|\bwhat (?:got |was |is |has )?(?:shipped|ships|included|released|came out) (?:in|with)\b"
                  r"|\bwhat (?:does|did|do|will) .{0,40}\b(?:ship|include|contain)\b|\bwhat(?:'s| is) inside\b", re.I)
LATEST = re.compile(r"\b(?:last|latest|newest|most recent|recent|current|ultima|ultimo|reciente|nueva|nuevo)\b", re.I)
PACKAGES = ("torchneuron", "torch-neuronx-xla", "torch-xla", "torchao-neuron", "neuronx-cc")


def sdk_version_asked(conn: sqlite3.Connection, q: Question) -> str | None:
    """The Neuron SDK version a news question names (a version of neuron-sdk, not of torchneuron)."""
    if q.op_words or q.function_words or not NEWS.search(q.text):
        return None
    if re.search(r"\bknown issues?\b|\blimitations?\b", q.text, re.I):
        return None  # "any known issues for pytorch neuronx in the 2.28 release notes?": that release's rows (r30 q43)
    if q.target_names() not in (["neuron"], []):
        return None
    asked = [m.version for m in q.targets if m.version] + q.versions
    for version in asked:
        if releases.find(conn, "neuron-sdk", version) and not releases.find(conn, "torchneuron", version):
            return version
    newest = releases.latest(conn, "neuron-sdk")
    for version in asked:  # "what's new in Neuron 2.35?" past the newest SDK the KB knows: said so (sdk_news)
        if newest and re.fullmatch(r"2\.\d{2}(?:\.\d+)?", version) and not releases.find(conn, "torchneuron", version) \
                and queries.version_key(version) > queries.version_key(newest["version"]):
            return version
    if not asked and q.target_names() == ["neuron"] and LATEST.search(q.text):
        newest = releases.latest(conn, "neuron-sdk")  # "what changed in the last torchneuron release" (r3-29 #10)
        return newest["version"] if newest else None
    return None


def sdk_news(conn: sqlite3.Connection, q: Question, version: str) -> Answer:
    from kb.eol import windows as eol

    found = releases.find(conn, "neuron-sdk", version)
    src = Sources()
    if not found:
        return _unknown_release(conn, q, version, src)
    sdk = found[0]
    es = getattr(q, "language", "en") == "es"
    lines = [f"**Neuron SDK {sdk['version']}** — released {sdk['date'] or 'on a date the KB lacks'} {src.cite(sdk)}."]
    facts: list[dict[str, Any]] = [{"product": "neuron-sdk", "version": sdk["version"], "date": sdk["date"]}]
    said = _components_said(sdk.get("note"))
    if said:  # the release page's own list of component notes ("TorchNeuron (Beta) 2.34.0, TorchAO Neuron …")
        lines.append(f"- {quoted(said)} {src.cite(sdk)}")
    parts = [c for c in releases.in_sdk(conn, sdk["version"]) if c["product"] in PACKAGES]
    if parts:
        lines.append("PyTorch packages and compiler in it:" if any(c["product"] == "neuronx-cc" for c in parts)
                     else "PyTorch packages in it:")
        for c in parts:
            name = ALSO_CALLED.get(c["product"], c["product"])
            lines.append(f"- {name} {c['version']}{_package_bits(conn, c, es)} {src.cite(c)}")
            if re.search(r"\bfirst release\b|\bnew\b", c.get("note") or "", re.I):  # what the package brings, as recorded
                lines.append(f"  - {quoted(c['note'])}")
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


ALSO_CALLED = {"torchneuron": "torchneuron (torch-neuronx)"}  # the pip name people ask by


def _components_said(note: str | None) -> str | None:
    """The clauses of an SDK release's note that name its component notes, up to where the
    note turns to what was searched for and not found (kept for the release card, not here)."""
    kept = []
    for clause in (note or "").split("; ")[:8]:
        if clause.startswith(("searched", "no stored")):
            break
        kept.append(clause)
    said = "; ".join(kept)
    return said if "component" in said else None


def _package_bits(conn: sqlite3.Connection, c: dict[str, Any], es: bool) -> str:
    """What one package of the release ships, from its registry row: channel (beta), PyTorch,
    Python, instance families and OS, and whether it is the product's first release the KB knows
    (TorchNeuron's public beta in 2.33, TorchAO Neuron in 2.34: "is it new?")."""
    bits = [c["channel"]] if c.get("channel") else []
    for key, label in (("torch_versions", "PyTorch"), ("python_versions", "Python"), ("instance_families", ""), ("os", "")):
        if c.get(key):
            bits.append(f"{label} {', '.join(c[key])}".strip())
    older = [r for r in releases.releases(conn, c["product"]) if "dev" not in r["version"]
             and queries.version_key(r["version"]) < queries.version_key(c["version"])
             and (r.get("sdk_version") or "") != (c.get("sdk_version") or "")]
    if not older:
        bits.append("la primera versión del SDK con este paquete que el KB conoce" if es else "the first SDK release with it the KB knows")
    return f" ({'; '.join(bits)})" if bits else ""


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


def _unknown_release(conn: sqlite3.Connection, q: Question, version: str, src: Sources) -> Answer:
    """A Neuron SDK release newer than any the KB knows: no news to give, and the newest one
    it does know, with its date (an SDK release is not a TorchNeuron version to probe)."""
    newest = releases.latest(conn, "neuron-sdk")
    es = getattr(q, "language", "en") == "es"
    if es:
        text = (f"**Desconocido** — el KB no conoce ninguna versión Neuron {version}; la más reciente que conoce es "
                f"**Neuron SDK {newest['version']}**, publicada el {newest['date'] or '?'} {src.cite(newest)}. "
                f"`kb ask \"novedades de neuron {newest['version']}\"` la resume.")
    else:
        text = (f"**Unknown** — the KB knows no Neuron {version} release; the newest it knows is "
                f"**Neuron SDK {newest['version']}**, released {newest['date'] or 'on a date the KB lacks'} "
                f"{src.cite(newest)}. `kb ask \"what's new in Neuron {newest['version']}?\"` sums it up.")
    facts = [{"product": "neuron-sdk", "version": version, "status": UNKNOWN},
             {"product": "neuron-sdk", "version": newest["version"], "date": newest["date"], "newest": True}]
    return Answer(q.text, "release", text + src.markdown(), facts, src.items)
