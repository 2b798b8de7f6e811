"""List questions about an op family in chat: "which conv ops fall back on neuron", "what
ops does torch_tpu not support for conv?", "list the attention ops on tpu". The family is
read from the KB's family vocabulary (kb.store.families), the ops are the catalog's, and
each op is counted where it really runs (verdict.effective_status: a decomposed op whose
leaf falls back counts as a fallback).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat import list_readings
from kb.chat.intents import Question, TargetMention
from kb.chat.oplookup import pick_versions
from kb.chat.reply import MAX_FILTERED, Answer, Sources, quoted
from kb.store import families, queries, verdict
from kb.vocab import SEVERITY, UNKNOWN

LISTED = ("native", "decomposed", "fallback", "unsupported", "crash", "timeout")


def asked_status(q: Question) -> str | None:
    """The status a list question filters on: "not support"/"unsupported" → unsupported,
    "fall back" → fallback, "native" → native; None lists every status."""
    text = q.text.lower()
    if any(w in text for w in ("not support", "unsupported", "doesn't support", "don't support", "no support",
                               "fail", "missing", "raise", "error")):
        return "unsupported"
    for status in ("fallback", "native", "decomposed", "unsupported"):
        if status in q.statuses:
            return status
    if any(w in text for w in ("run on the cpu", "runs on the cpu", "on cpu", "to cpu", "host")):
        return "fallback"
    return None


def family_answer(conn: sqlite3.Connection, q: Question, fam: families.Family | None = None, note: str = "",
                  literal: str | None = None) -> Answer:
    """`literal`: the substring the user spelled ("whose name contains 'conv'"): the ops whose name holds
    it are listed, in place of any family the same word names (29q), and the answer says which filter."""
    from kb.chat import list_filter
    from kb.chat.list_filter import NameFilter, said

    src = Sources()
    lines = [f"_{note}._"] if note else []
    if literal:
        fam = families.Family(literal, literal, (literal,))
        ops = [n for (n,) in conn.execute("SELECT name FROM op ORDER BY name") if literal in n.partition("::")[2]]
        lines.append(said(NameFilter("grep", literal)))
        facts: list[dict[str, Any]] = [{"filter": "grep", "word": literal, "ops": len(ops)}]
    else:
        fam = fam or families.families_in(q.text)[0]
        ops = families.family_ops(conn, fam.name)
        # the family's label is kb's data, in English: quoted as such in a Spanish answer (29f)
        lines.append(f"The **{fam.name}** family: {quoted(fam.label)} — {len(ops)} overloads in the op catalog.")
        facts = [{"family": fam.name, "ops": len(ops)}]
    status = asked_status(q)
    mode = "compile" if "compile" in q.text.lower() else "eager"
    named = None if literal else list_filter.name_filter(conn, q.text)
    asked = named.word if named is not None and named.kind == "family" and " " not in named.word else None
    mentions = q.targets or [TargetMention("neuron"), TargetMention("tpu")]
    yes_no: list[str] = []
    counted: list[str] = []  # per target and status asked: the count, for a how-many headline (29n)
    for mention in mentions:
        pick = pick_versions(conn, mention)
        versions = [v for v in pick.versions if v in pick.with_data]
        if not versions:
            lines.append(f"**{mention.target}** {pick.label}: **unknown** — no verdicts for that version (versions with "
                         f"data: {', '.join(pick.with_data) or 'none'}). `{verdict.settle(mention.target)}` would record them.")
            facts.append({"target": mention.target, "family": fam.name, "status": UNKNOWN})
            continue
        version = versions[-1]
        verdicts = queries.support_map(conn, mention.target, version, mode)
        by_status: dict[str, list[dict[str, Any]]] = {}
        for op in ops:
            row = verdicts.get(op)
            by_status.setdefault(verdict.effective_status(row), []).append(row or {"op": op, "status": UNKNOWN})
        counts = ", ".join(f"{len(by_status[s])} {s}" for s in sorted(by_status, key=lambda s: SEVERITY.get(s, 3)))
        notes = queries.basis_note(conn, mention.target, version)
        lines.append(f"**{mention.target}** {version} ({mode}), where each op runs: {counts}.")
        if notes:
            lines.append(f"_{notes}._")
        wanted = [status] if status else [s for s in LISTED if s in by_status and s not in ("native", "decomposed")]
        known = len(ops) - len(by_status.get(UNKNOWN, []))  # the denominator: the family's ops with a verdict (29k)
        for s in wanted:
            rows = sorted(by_status.get(s, []), key=shown_first)
            yes_no.append(s if rows else f"no-{s}")
            counted.append(f"**{len(rows)} {fam.name} ops** {_said(s)} on {mention.target} {version} "
                           f"({len(rows)} of {known} ops with evidence)")
            lines.append(f"{len(rows)} {fam.name} ops {_said(s)} on {mention.target} {version} "
                         f"({len(rows)} of {known} ops with evidence):" if rows else
                         f"No {fam.name} op {_said(s)} on {mention.target} {version} in the KB.")
            for row in rows[:MAX_FILTERED]:  # a family is a filter: shown whole up to MAX_FILTERED (s8)
                lines.append(f"- `{row['op']}`: {verdict.label(row)} {src.cite(row)}")
                facts.append({"op": row["op"], "target": mention.target, "backend_version": version,
                              "status": row["status"], "effective_status": verdict.effective_status(row),
                              "basis": row.get("basis"), "family": fam.name, "source_url": row.get("source_url")})
            if len(rows) > MAX_FILTERED:
                grep = literal or list_readings.grep_word(conn, fam, ops, asked)  # the same ops, by kb's --grep (s8)
                how = f" --grep {grep}`" if grep else "` and filter by name"
                lines.append(f"_…{len(rows) - MAX_FILTERED} more: `kb ops --target {mention.target}={version} --status {s}"
                             f"{' --mode compile' if mode == 'compile' else ''}{how}._")
            public = [r["op"] for st in ("native", "decomposed") for r in by_status.get(st, [])
                      if not r["op"][len("aten::"):].startswith("_") and "_backward" not in r["op"]]
            if rows and s in ("unsupported", "fallback") and public and all(shown_first(r)[0] for r in rows):
                # "q ops de attention no soporta la tpu 0.2.0?": only private kernels; the public ops still run (r27 q14)
                lines.append("The family's public ops run on the device there: "
                             + ", ".join(f"`{op}` ({verdict.label(verdicts[op])})" for op in public[:4]) + ".")
            es = q.language == "es"
            other = (list_readings.family_line(conn, literal, set(ops), es) if literal else
                     list_readings.grep_line(verdicts, asked, rows, mention.target, version, s, mode, es) if asked and rows
                     else None)  # the other reading of the word, in one line (s8)
            lines += [other] if other and other not in lines else []
        if not status:  # the ones that run on the device, counted and cited once
            for row in (by_status.get("native") or by_status.get("decomposed") or [])[:1]:
                src.cite(row)
        unknown = by_status.get(UNKNOWN, [])
        if unknown:
            lines.append(f"{len(unknown)} {fam.name} ops have no verdict on {mention.target} {version} (unknown); "
                         f"`{verdict.settle(mention.target)}` would settle them.")
        facts.append({"target": mention.target, "backend_version": version, "family": fam.name,
                      "counts": {s: len(r) for s, r in by_status.items()}})
    head = "; ".join(counted) + "." if counted and _HOW_MANY.search(q.text) else _head(q, status, yes_no)
    text = "\n".join(([head, ""] if head else []) + lines) + src.markdown()
    return Answer(q.text, "family", text, facts, src.items)


BACKEND_VARIANTS = ("cudnn", "miopen", "mkldnn", "mps", "nnpack", "slow", "thnn", "fbgemm", "cslt", "triton", "cufft")


def shown_first(row: dict[str, Any]) -> tuple:
    """Public ops before private (`_x`) ones and other backends' variants (cudnn_, mps_...)."""
    base = row["op"][len("aten::"):].split(".")[0]
    stem = base.lstrip("_")
    return (base.startswith("_"), stem.startswith(BACKEND_VARIANTS) or "_mps" in stem, "_backward" in base, row["op"])


def _said(status: str) -> str:
    return {"fallback": "fall back to the CPU", "unsupported": "are unsupported (raise)", "native": "have their own kernel",
            "decomposed": "decompose into ops that run on the device"}.get(status, f"are {status}")


_HOW_MANY = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b", re.I)  # "¿Cuántos…?" reads as "how many"


# "(dame) la lista de…", "¿qué ops…?" (read "does which ops…"): a list asked for, no yes/no headline (s8)
_ASKS_LIST = re.compile(r"\b(?:list|give me|show me|dame|pasame|muestrame)\b|^\s*does (?:which|what)\b")


def _head(q: Question, status: str | None, seen: list[str]) -> str | None:
    if not status or not q.text.lower().lstrip().startswith(("is ", "does ", "do ", "are ", "can ", "will ", "any ")) \
            or _ASKS_LIST.search(q.text.lower()):
        return None
    if all(s.startswith("no-") for s in seen):
        return f"**No** — no op of that family is {status} where the KB has verdicts."
    return f"**Yes, some** — see the {status} ops listed below."
