"""End-of-support questions in chat, answered through kb.eol.windows: stack checks
("is python 3.10 supported on neuron 2.33?"), product listings ("when does nxd inference
end?"), and for PyTorch versions the release lines that list them. Falls back to the raw
supportwindow rows in a checkout without kb.eol.windows.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from kb.chat import intents
from kb.chat.intents import Question
from kb.chat.oplookup import same_line
from kb.chat.reply import MAX_LIST, Answer, Sources
from kb.store import queries
from kb.vocab import UNKNOWN


def support_windows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every end-of-support window; kb.eol.windows's evaluated windows when that module exists."""
    try:
        from kb.eol import windows as eol
    except ImportError:  # a checkout without kb.eol.windows: the raw statements, newest last
        eol = None
    if eol is not None:
        return eol.current_windows(conn, eol.today())
    rows = conn.execute("SELECT * FROM supportwindow ORDER BY product, cycle, statement_date")
    return [dict(r) for r in rows]


def _window_text(w: dict[str, Any]) -> str:
    """One line in words: when (announced/projected/with release X), whether already over.
    Reads kb.eol.windows's evaluated windows (eol_from, state, is_eol) or raw supportwindow rows."""
    day = w.get("eol_from") or w.get("eol")
    if day:
        when = f"end of life {day}"
        if w.get("state") or w.get("eol_kind"):
            when += f" ({w.get('state') or w['eol_kind']})"
    elif w.get("eol_release"):
        when = w.get("state") or f"ends with release {w['eol_release']} (no date yet)"
    else:
        when = w.get("state") or "no end date stated"
    if w.get("support_end"):
        when = f"active support until {w['support_end']}, " + when
    if w.get("is_eol") is True:
        when += " — **already ended**"
    return when


def _eol_fact(w: dict[str, Any]) -> dict[str, Any]:
    fact = {k: w.get(k) for k in ("product", "cycle", "eol_kind", "eol_release", "support_end", "is_eol",
                                  "eol_from", "status", "title", "source_url")}
    fact["eol"] = w.get("eol_from") or w.get("eol")
    return fact


def _window_lines(windows: list[dict[str, Any]], src: Sources, *, bold: bool = True, notes: bool = False) -> list[str]:
    """One line per statement: windows sharing a title (one page naming cycles 2.7 and 2.8) are merged."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for w in windows:
        title = w.get("title") or f"{w.get('product_label') or w['product']} {w['cycle']}"
        grouped.setdefault(title, []).append(w)
    lines = []
    for title, group in list(grouped.items())[:MAX_LIST]:
        w = group[0]
        cycles = f" (cycles {', '.join(str(g['cycle']) for g in group)})" if len(group) > 1 else ""
        note = f" — {w['note']}" if notes and w.get("note") else ""
        name = f"**{title}**" if bold else title
        lines.append(f"- {name}{cycles}: {_window_text(w)}{note} {src.cite(w)}")
    return lines


def _stack_pairs(q: Question) -> list[tuple[str, str]]:
    """(product, version) pairs named in the question, as kb.eol.windows stack items:
    "PyTorch 2.9 on neuron 2.33" → [("pytorch", "2.9"), ("neuron", "2.33")]."""
    pairs = [(p, v) for p, v in q.products if v]
    for mention in q.targets:
        if mention.version and mention.target in ("neuron", "tpu", "neuron-xla"):
            key = {"neuron": "neuron", "tpu": "torch_tpu", "neuron-xla": "torch-neuronx-xla"}[mention.target]
            if not any(v == mention.version for _, v in pairs):
                pairs.append((key, mention.version))
    return list(dict.fromkeys(pairs))


def _product_filter(q: Question) -> list[str]:
    """Product words that select windows when no version is given (nxd, python, neuron...)."""
    words = [p for p, v in q.products if not v]
    words += [w.lower() for w in q.plain_words if w.lower() in intents.PRODUCT_WORDS.values()]
    return list(dict.fromkeys(words))


def eol_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    try:
        from kb.eol import products
        from kb.eol import windows as eol
    except ImportError:  # a checkout without kb.eol.windows: raw statements only
        return _eol_raw(conn, q)
    src = Sources()
    pairs = _stack_pairs(q)
    if pairs:
        stack = " ".join(f"{p}={v}" for p, v in pairs)
        try:
            result = eol.check_stack(conn, stack)
        except eol.EolError as exc:
            return Answer(q.text, "eol", f"**Unknown** — {exc}.", [{"stack": stack, "status": UNKNOWN}])
        lines = [f"Stack `{stack}`:"]
        lines += _window_lines(result["windows"], src)
        for issue in result["issues"]:
            cite = " " + src.cite({"source_kind": "doc", "source_name": "support matrix", "source_url": issue["source_url"]}) \
                if issue.get("source_url") else ""
            lines.append(f"- ⚠ {issue['kind']}: {issue['message']}{cite}")
        if not result["windows"] and not result["issues"]:
            named = ", ".join(f"{p} {v}" for p, v in pairs)
            lines = [f"**Unknown** — the KB has no end-of-support statement for {named}."]
            lines += _torch_in_releases(conn, q, src)
            if result["matrices_checked"]:
                lines.append(f"No conflict found in the support matrices of {', '.join(result['matrices_checked'])}.")
            related = [w for w in eol.current_windows(conn, eol.today())
                       if any(products.matches(p, w["product"]) for p, _ in pairs)]
            if related:
                lines.append(f"Statements it has about other cycles of {', '.join(dict.fromkeys(p for p, _ in pairs))}:")
                lines += _window_lines(related, src, bold=False)
        elif result["first_eol"]:
            first = result["first_eol"]
            lines.insert(0, f"First end of support in this stack: **{first['eol_from']}** ({first['product']} "
                            f"{first['cycle']}, {first['state']}).")
        facts = [_eol_fact(w) for w in result["windows"]] + [
            {"issue": i["kind"], "message": i["message"], "source_url": i.get("source_url")} for i in result["issues"]]
        if not facts:
            facts = [{"stack": stack, "status": UNKNOWN}]
        return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), facts, src.items)
    words = _product_filter(q)
    windows = eol.current_windows(conn, eol.today())
    hits = [w for w in windows if any(products.matches(word, w["product"]) for word in words)] if words else []
    if not hits:
        return _eol_unknown(conn, q, [], windows)
    lines = [f"End-of-support statements for {', '.join(words)} ({len(hits)}, soonest first):"]
    lines += _window_lines(hits, src, notes=True)
    if len(hits) > MAX_LIST:
        lines.append(f"_…{len(hits) - MAX_LIST} more: `kb eol --product {words[0]}`._")
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), [_eol_fact(w) for w in hits], src.items)


def _window_score(w: dict[str, Any], q: Question) -> int:
    haystack = " ".join(str(w.get(k) or "") for k in ("product", "cycle", "title")).lower()
    score = 0
    for product, version in q.products:
        if product in haystack:
            score += 2
            if version and same_line(version, str(w.get("cycle") or "")):
                score += 3
    return score


def _eol_raw(conn: sqlite3.Connection, q: Question) -> Answer:
    """End of support from the supportwindow rows alone (no kb.eol.windows in this checkout)."""
    windows = support_windows(conn)
    hits = [w for w, s in sorted(((w, _window_score(w, q)) for w in windows), key=lambda p: -p[1]) if s >= 2]
    asked_versions = [v for _, v in q.products if v]
    if asked_versions:
        hits = [w for w in hits if any(same_line(v, str(w.get("cycle") or "")) for v in asked_versions)]
    if not hits:
        return _eol_unknown(conn, q, [], windows)
    src = Sources()
    lines = [f"- **{w.get('title') or w['product'] + ' ' + w['cycle']}**: {_window_text(w)} {src.cite(w)}"
             for w in hits[:MAX_LIST]]
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), [_eol_fact(w) for w in hits], src.items)


def _eol_unknown(conn: sqlite3.Connection, q: Question, near: list[dict[str, Any]], windows: list[dict[str, Any]]) -> Answer:
    asked = ", ".join(f"{p} {v}" if v else p for p, v in q.products) or "that"
    lines = [f"**Unknown** — the KB has no end-of-support statement for {asked}."]
    src = Sources()
    lines += _torch_in_releases(conn, q, src)
    shown = near or windows[:5]
    if shown:
        lines.append("Related statements:" if near else "Soonest statements it does have:")
        lines += _window_lines(shown, src, bold=False)
    facts = [{"asked": asked, "status": UNKNOWN}]
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), facts, src.items)


def _torch_in_releases(conn: sqlite3.Connection, q: Question, src: Sources) -> list[str]:
    """For "PyTorch X on Neuron": which registry releases list that torch version, per
    product as a range, and whether the newest release of that product still does."""
    versions = [v for p, v in q.products if p == "pytorch" and v]
    if not versions:
        return []
    rows = [dict(r) for r in conn.execute("SELECT * FROM release WHERE torch_versions IS NOT NULL")]
    for r in rows:
        r["torch"] = json.loads(r["torch_versions"])
    lines = []
    for version in versions:
        hits = [r for r in rows if any(same_line(version, t) for t in r["torch"])]
        if not hits:
            listed = sorted({t for r in rows for t in r["torch"]}, key=queries.version_key)
            lines.append(f"No release in the KB lists PyTorch {version} (PyTorch versions listed: {', '.join(listed)}).")
            continue
        parts = []
        for product in sorted({r["product"] for r in hits}):
            mine = sorted((r for r in hits if r["product"] == product), key=lambda r: queries.version_key(r["version"]))
            span = mine[0]["version"] if len(mine) == 1 else f"{mine[0]['version']} … {mine[-1]['version']}"
            cite = src.cite(mine[-1])
            newest = max((r for r in rows if r["product"] == product), key=lambda r: queries.version_key(r["version"]))
            still = "" if newest in mine else f"; not by the newest, {newest['version']} {src.cite(newest)}"
            parts.append(f"{product} {span} ({len(mine)} releases) {cite}{still}")
        lines.append(f"PyTorch {version} is listed by " + "; ".join(parts) + ".")
    return lines
