"""Answers to chat questions: `answer("is nonzero native on neuron 2.33?") -> Answer`.

One core for every chat front end (`kb ask`, the MCP server, the chat bot). The reading
of the question is deterministic (kb.intents); every fact in an answer comes from the
KB with its source, and where the KB has no evidence the answer says "unknown" rather
than guessing. Op names are matched forgivingly: ATen spellings, a torch function name
(through the shipped map data/functions/torch-*.json, traced from torch once), or a
typo close to a catalog name (difflib), and the answer says which match it made.
"""

from __future__ import annotations

import difflib
import json
import os
import sqlite3
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from kb import intents, opnames, paths, queries
from kb.errors import KBError, UnknownOpError
from kb.intents import Question, TargetMention
from kb.vocab import SEVERITY, SYMBOLS, UNKNOWN

MAX_OPS_PER_ANSWER = 6  # a chat answer about a whole family stays readable
MAX_LIST = 15
WORKS = ("native", "decomposed", "fallback")


@dataclass
class Answer:
    """Markdown for people, facts and sources for programs (MCP clients, tests)."""

    question: str
    intent: str
    text: str
    facts: list[dict[str, Any]] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Sources:
    """Numbered, de-duplicated sources for one answer: `[1]` in the text, listed at the end."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def cite(self, row: dict[str, Any]) -> str:
        item = {
            "kind": row.get("source_kind"),
            "name": row.get("source_name"),
            "url": row.get("source_url"),
            "probe_run_id": row.get("probe_run_id"),
            "retrieved_at": row.get("retrieved_at"),
        }
        key = (item["kind"], item["name"], item["url"], item["probe_run_id"])
        for number, known in enumerate(self.items, 1):
            if (known["kind"], known["name"], known["url"], known["probe_run_id"]) == key:
                return f"[{number}]"
        self.items.append(item)
        return f"[{len(self.items)}]"

    def markdown(self) -> str:
        if not self.items:
            return ""
        lines = ["", "", "**Sources**"]
        for number, item in enumerate(self.items, 1):
            where = item["url"] or f"probe run `{item['probe_run_id']}`"
            when = f", retrieved {item['retrieved_at'][:10]}" if item.get("retrieved_at") else ""
            lines.append(f"[{number}] {item['kind']} · {item['name']} · {where}{when}")
        return "\n".join(lines)


def answer(question: str, *, db: str | None = None, conn: sqlite3.Connection | None = None,
           allow_files: bool = False) -> Answer:
    """Answer one chat question from the KB (opened with kb.db.open_kb unless given).

    `allow_files`: a model path in the question may be read and checked (kb.check). Only
    for a local user (`kb ask`); a chat platform's messages must never make the server
    open files."""
    if conn is None:
        from kb.db import open_kb

        conn = open_kb(db)
    q = intents.read(question or "")
    if q.intent == "model" and allow_files and q.model_path and os.path.isfile(q.model_path):
        handler = _model_checked
    else:
        handler = _HANDLERS.get(q.intent, _unknown)
    try:
        return handler(conn, q)
    except KBError as exc:  # bad target, bad version...: a reply, not a crash
        return Answer(q.text, q.intent, f"I can't answer that: {exc}", facts=[{"error": str(exc)}])


# ---------------------------------------------------------------- op names


@lru_cache(maxsize=4)
def _function_map(path: str) -> dict[str, list[str]]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh).get("functions", {})


def function_map() -> tuple[dict[str, list[str]], str | None]:
    """torch function → ATen ops it dispatches to, from the newest shipped map (no torch import)."""
    for root in (paths.data_dir(), os.path.join(paths.PACKAGE_ROOT, "data")):
        folder = os.path.join(root, "functions")
        if os.path.isdir(folder):
            files = sorted((f for f in os.listdir(folder) if f.startswith("torch-") and f.endswith(".json")),
                           key=lambda f: queries.version_key(f[len("torch-"):-len(".json")]))
            if files:
                path = os.path.join(folder, files[-1])
                return _function_map(path), os.path.relpath(path, root)
    return {}, None


def _function_key(word: str) -> str:
    """F.silu / nn.functional.silu / Tensor.view / x.view → the map's spelling."""
    if word.startswith("F."):
        return "torch.nn.functional." + word[2:]
    if word.startswith("nn."):
        return "torch." + word
    if word.startswith("Tensor."):
        return "torch." + word
    if not word.startswith("torch.") and "." in word:  # x.view() → a Tensor method
        return "torch.Tensor." + word.rsplit(".", 1)[1]
    return word


@dataclass
class OpMatch:
    asked: str  # what the user wrote
    ops: list[str]  # canonical overloads it stands for
    how: str  # exact | typo | function-map | function-name
    note: str = ""


def _bases(conn: sqlite3.Connection) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in queries.known_op_names(conn):
        try:
            out.setdefault(opnames.base_name(name), []).append(name)
        except opnames.OpNameError:
            continue
    return out


def find_ops(conn: sqlite3.Connection, q: Question) -> tuple[list[OpMatch], list[str], list[str]]:
    """(matches, words that look like op names but match nothing, suggestions for them)."""
    matches: list[OpMatch] = []
    missing: list[str] = []
    suggestions: list[str] = []
    bases = None
    for word in q.op_words:
        try:
            matches.append(OpMatch(word, queries.resolve_op(conn, word), "exact"))
        except UnknownOpError as exc:
            bases = bases or _bases(conn)
            fixed = _fuzzy(opnames.base_name(word) if _op_like(word) else word, bases, 0.6)
            if fixed:
                matches.append(OpMatch(word, _family(conn, fixed, word), "typo", f"`{word}` is not in the op catalog; read as `{fixed}`"))
            else:
                missing.append(word)
                suggestions += exc.suggestions
        except KBError:
            missing.append(word)
    if q.function_words:
        fmap, where = function_map()
        bases = bases or _bases(conn)
        for word in q.function_words:
            key = _function_key(word)
            if key in fmap and fmap[key]:
                known = [op for op in fmap[key] if op in queries.known_op_names(conn)] or fmap[key]
                matches.append(OpMatch(word, known, "function-map", f"`{key}` dispatches to these ATen ops (traced, {where})"))
                continue
            base = key.rsplit(".", 1)[-1]
            if base in bases:
                matches.append(OpMatch(word, _family(conn, base, base), "function-name",
                                       f"`{key}` is not in the traced function map; matched by name to `aten::{base}`"))
            else:
                missing.append(word)
                suggestions += difflib.get_close_matches(base, list(bases), n=3, cutoff=0.6)
    if not matches and q.plain_words:
        bases = bases or _bases(conn)
        for word in q.plain_words:
            if "." in word and _op_like(word):  # add.Tensor, relu.default
                try:
                    matches.append(OpMatch(word, queries.resolve_op(conn, word), "exact"))
                    continue
                except KBError:
                    pass
            base = word.lower() if word.lower() in bases else word
            if base in bases:
                matches.append(OpMatch(word, _family(conn, base, base), "exact"))
                continue
            fixed = _typo(word, bases) if len(word) >= 4 else None
            if fixed:
                matches.append(OpMatch(word, _family(conn, fixed, fixed), "typo", f"no op `{word}`; read as `{fixed}`"))
            elif "_" in word:
                missing.append(word)
                suggestions += difflib.get_close_matches(word, list(bases), n=3, cutoff=0.5)
    return _dedupe(matches), missing, list(dict.fromkeys(suggestions))


def _op_like(word: str) -> bool:
    try:
        opnames.split(word)
        return True
    except opnames.OpNameError:
        return False


def _typo(word: str, bases: dict[str, list[str]]) -> str | None:
    """A plain chat word read as a misspelt op only when it is very close (nonzeroo →
    nonzero), so English words (inference) are not turned into ops (is_inference)."""
    if "_" in word:
        return _fuzzy(word, bases, 0.75)
    fixed = _fuzzy(word, bases, 0.85)
    return fixed if fixed and abs(len(fixed) - len(word)) <= 2 else None


def _fuzzy(word: str, bases: dict[str, list[str]], cutoff: float) -> str | None:
    close = difflib.get_close_matches(word.lower(), list(bases), n=1, cutoff=cutoff)
    return close[0] if close else None


def _family(conn: sqlite3.Connection, base: str, asked: str) -> list[str]:
    """Overloads for a corrected base name, keeping the overload the user typed if it exists."""
    if opnames.names_one_overload(asked) and _op_like(asked):
        _, overload = opnames.split(asked)
        exact = f"aten::{base}.{overload}" if overload else f"aten::{base}"
        if exact in queries.known_op_names(conn):
            return [exact]
    return queries.resolve_op(conn, base)


def _dedupe(matches: list[OpMatch]) -> list[OpMatch]:
    seen: set[tuple[str, ...]] = set()
    out = []
    for m in matches:
        key = tuple(m.ops)
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


# ---------------------------------------------------------------- versions


def _product_of(conn: sqlite3.Connection, target: str) -> str:
    row = conn.execute("SELECT product FROM target WHERE name = ?", (target,)).fetchone()
    if row is None:
        queries.check_target(conn, target)
    return row[0]


def _same_line(short: str, full: str) -> bool:
    """2.33 ~ 2.33.0 and 2.14 ~ 2.14.3.0: every component the shorter has agrees."""
    a, b = short.split("."), full.split(".")
    return len(a) <= len(b) and a == b[:len(a)]


@dataclass
class VersionPick:
    target: str
    asked: str | None
    versions: list[str]  # backend versions to read (empty: the asked one has no release)
    label: str  # how to say it: "Neuron SDK 2.33 (torchneuron 2.13.3.0, 2.14.3.0)"
    with_data: list[str]  # backend versions that have any verdict for this target


def pick_versions(conn: sqlite3.Connection, mention: TargetMention) -> VersionPick:
    """A target mention's version phrase → backend versions. "neuron 2.33" is Neuron SDK
    2.33 (through release.sdk_version); "tpu 0.2.0" is the backend version itself."""
    target = mention.target
    product = _product_of(conn, target)
    with_data = sorted(queries._release_versions(conn, target), key=queries.version_key)
    if mention.version is None:
        latest = with_data[-1:] if with_data else []
        return VersionPick(target, None, latest, f"{product} {latest[0]}" if latest else product, with_data)
    asked = mention.version
    releases = [dict(r) for r in conn.execute("SELECT version, sdk_version FROM release WHERE product = ?", (product,))]
    direct = [r["version"] for r in releases if r["version"] == asked]
    by_sdk = [r["version"] for r in releases if r["sdk_version"] and _same_line(asked, r["sdk_version"])]
    by_line = [r["version"] for r in releases if _same_line(asked, r["version"])]
    if direct and not mention.sdk:
        chosen, label = direct, f"{product} {asked}"
    elif by_sdk:
        chosen = sorted(by_sdk, key=queries.version_key)
        label = f"Neuron SDK {asked} ({product} {', '.join(chosen)})"
    elif by_line and not mention.sdk:
        chosen = sorted(by_line, key=queries.version_key)
        label = f"{product} {', '.join(chosen)}"
    else:
        chosen, label = [], f"{'SDK ' if mention.sdk else product + ' '}{asked}"
    return VersionPick(target, asked, chosen, label, with_data)


# ---------------------------------------------------------------- intents


def _help(conn: sqlite3.Connection, q: Question) -> Answer:
    targets = ", ".join(f"`{t}`" for t in queries.target_names(conn))
    text = "\n".join([
        "I answer from the kb knowledge base (every answer cites its sources). Ask me:",
        "- **op status**: `is aten::_scaled_dot_product_flash_attention native on neuron 2.33?`, "
        "`does torch.nn.functional.silu run on tpu?`",
        "- **compare targets**: `what's the difference between neuron and tpu for nonzero?`",
        "- **what falls back**: `what falls back to CPU on tpu?`; for a model, run "
        "`kb check model.pt2 --target tpu`",
        "- **end of support**: `when does PyTorch 2.9 leave support on Neuron?`",
        "- **known limitations**: `does neuron support float64?`, `known limitations of neuron 2.33`",
        f"Targets: {targets}. Versions: `neuron 2.33` is a Neuron SDK release, `tpu 0.2.0` a torch_tpu version.",
    ])
    return Answer(q.text, "help", text, facts=[{"targets": queries.target_names(conn)}])


def _unknown(conn: sqlite3.Connection, q: Question) -> Answer:
    text = ("I could not tell which op, target or product you are asking about. "
            "Try `help`, or name an op like `aten::nonzero` and a target like `neuron` or `tpu`.")
    return Answer(q.text, "unknown", text)


def _verdict_line(v: dict[str, Any], src: _Sources) -> str:
    restrict = []
    if v.get("dtypes"):
        restrict.append("dtypes " + ", ".join(v["dtypes"]))
    for key, value in (v.get("conditions") or {}).items():
        restrict.append(f"{key}: {value}")
    extra = f" ({'; '.join(restrict)})" if restrict else ""
    dis = " — sources disagree: " + ", ".join(f"{k} says {s}" for k, s in (v.get("sources") or {}).items()) \
        if v.get("disagreement") else ""
    note = f" — {v['note']}" if v.get("note") else ""
    return (f"{SYMBOLS.get(v['status'], '?')} **{v['status']}** on {v['target']} {v['product']} "
            f"{v['backend_version']} ({v['mode']}){extra}{note}{dis} {src.cite(v)}")


def _mentions_or_all(conn: sqlite3.Connection, q: Question) -> list[TargetMention]:
    if q.targets:
        return q.targets
    return [TargetMention(t["name"]) for t in queries.targets_overview(conn) if t["versions"]]


def _op_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    matches, missing, suggestions = find_ops(conn, q)
    if not matches:
        limitation = _limitation_hits(conn, q)
        if limitation:
            return _limitation_answer(conn, q, limitation)
        return _unknown_op(conn, q, missing, suggestions)
    src = _Sources()
    lines: list[str] = []
    facts: list[dict[str, Any]] = []
    mode = "compile" if "compile" in q.text.lower() else "eager"
    mentions = _mentions_or_all(conn, q)
    verdict_for_yes_no: list[str] = []
    for match in matches:
        if match.note:
            lines.append(f"_{match.note}._")
        ops = _focus(conn, match.ops)
        for op in ops:
            lines.append(f"**`{op}`**")
            rows = queries.op_verdicts(conn, [op], mode=mode)
            for mention in mentions:
                pick = pick_versions(conn, mention)
                mine = [r for r in rows if r["target"] == mention.target]
                chosen = [r for r in mine if r["backend_version"] in pick.versions] if pick.versions else []
                if mention.version is None and mine and not chosen:  # newest version with a verdict for this op
                    newest = max((r["backend_version"] for r in mine), key=queries.version_key)
                    chosen = [r for r in mine if r["backend_version"] == newest]
                if chosen:
                    for v in chosen:
                        lines.append("- " + _verdict_line(v, src))
                        facts.append(_fact(v))
                        verdict_for_yes_no.append(v["status"])
                    continue
                facts.append({"op": op, "target": mention.target, "backend_version": pick.asked, "mode": mode,
                              "status": UNKNOWN})
                verdict_for_yes_no.append(UNKNOWN)
                lines.append("- " + _no_verdict_line(mention, pick, mine, src, facts))
            catalog = queries.op_catalog_entry(conn, op)
            if catalog and catalog.get("composite_implicit"):
                lines.append(f"- PyTorch decomposes `{op}` on every backend (CompositeImplicitAutograd in torch "
                             f"{catalog['torch_version']}'s op catalog): it runs wherever the ops it decomposes into run.")
                facts.append({"op": op, "catalog": "composite_implicit", "torch_version": catalog["torch_version"]})
        hidden = len(match.ops) - len(ops)
        if hidden > 0:
            lines.append(f"_…and {hidden} more overloads of `{opnames.base_name(match.ops[0])}`: "
                         f"ask for one by name, e.g. `{match.ops[-1]}`._")
    if missing:
        lines.append(_missing_line(missing, suggestions))
    head = _yes_no(q, verdict_for_yes_no)
    text = "\n".join(([head, ""] if head else []) + lines) + src.markdown()
    return Answer(q.text, "op", text, facts, src.items)


def _focus(conn: sqlite3.Connection, ops: list[str]) -> list[str]:
    """The overloads worth showing first: the default one, then those with verdicts."""
    if len(ops) <= MAX_OPS_PER_ANSWER:
        return ops
    with_data = {r["op"] for r in queries.op_verdicts(conn, ops)}
    ranked = sorted(ops, key=lambda o: (0 if "." not in o[6:] else 1, 0 if o in with_data else 1, o))
    return ranked[:MAX_OPS_PER_ANSWER]


def _no_verdict_line(mention: TargetMention, pick: VersionPick, mine: list[dict[str, Any]], src: _Sources,
                     facts: list[dict[str, Any]]) -> str:
    if pick.asked and not pick.versions:
        known = ", ".join(pick.with_data) or "none"
        return (f"? **unknown** on {mention.target} {pick.label}: the KB has no release {pick.asked} for "
                f"{mention.target} (versions with data: {known})")
    if mine:
        others = sorted({r["backend_version"] for r in mine}, key=queries.version_key)
        newest = [r for r in mine if r["backend_version"] == others[-1]]
        for r in newest:
            facts.append({**_fact(r), "note": "other version"})
        shown = "; ".join(f"{r['status']} at {r['backend_version']} ({r['mode']}) {src.cite(r)}" for r in newest)
        return (f"? **unknown** on {mention.target} {pick.label}: no evidence for that version. "
                f"Other versions: {shown}")
    return f"? **unknown** on {mention.target} {pick.label}: the KB has no evidence for this op there"


def _fact(v: dict[str, Any]) -> dict[str, Any]:
    keys = ("op", "target", "product", "backend_version", "mode", "status", "dtypes", "conditions", "note",
            "source_kind", "source_name", "source_url", "probe_run_id", "disagreement")
    return {k: v.get(k) for k in keys}


def _yes_no(q: Question, statuses: list[str]) -> str | None:
    """A direct first line when the question asks about one status ("is X native on Y?")."""
    asked = [s for s in q.statuses if s in ("native", "decomposed", "fallback", "unsupported", "supported")]
    if not asked or not statuses or not q.text.lower().lstrip().startswith(("is ", "does ", "do ", "can ", "will ", "are ")):
        return None
    want = asked[0]
    if all(s == UNKNOWN for s in statuses):
        return "**Unknown** — the KB has no evidence for that (details below)."
    known = [s for s in statuses if s != UNKNOWN]
    hit = (lambda s: s in WORKS) if want == "supported" else (lambda s: s == want)
    if all(hit(s) for s in known):
        return "**Yes**" + (" (where the KB has evidence)." if UNKNOWN in statuses else ".")
    if not any(hit(s) for s in known):
        worst = max(known, key=lambda s: SEVERITY[s])
        return f"**No** — the KB says {worst}."
    return "**It depends** — on the version, mode or overload (details below)."


def _missing_line(missing: list[str], suggestions: list[str]) -> str:
    hint = f" Did you mean {', '.join(f'`{s}`' for s in suggestions[:5])}?" if suggestions else ""
    names = ", ".join(f"`{m}`" for m in missing)
    return f"I don't know an operator {names} (not in the op catalog or any evidence).{hint}"


def _unknown_op(conn: sqlite3.Connection, q: Question, missing: list[str], suggestions: list[str]) -> Answer:
    if not missing:
        missing = q.plain_words[:3]
    text = _missing_line(missing, suggestions) if missing else ""
    text = (text + " " if text else "") + "Status is **unknown**: the KB has no evidence for it. Ask `help` for examples."
    return Answer(q.text, "op", text, facts=[{"op": m, "status": UNKNOWN, "suggestions": suggestions} for m in missing])


def _compare(conn: sqlite3.Connection, q: Question) -> Answer:
    matches, missing, suggestions = find_ops(conn, q)
    mentions = q.targets
    if matches:  # the op answer already lists every target the question names
        result = _op_answer(conn, q)
        differ = _differs(result.facts)
        head = ("**They differ.**" if differ else "**Same status on all of them.**") if differ is not None else None
        text = (head + "\n\n" if head else "") + result.text
        return Answer(q.text, "compare", text, result.facts, result.sources)
    versions = {}
    for mention in mentions:
        pick = pick_versions(conn, mention)
        if mention.version and not pick.versions:
            return Answer(q.text, "compare", f"No verdicts for {mention.target} {pick.label}: versions with data: "
                          f"{', '.join(pick.with_data) or 'none'}.", [{"target": mention.target, "status": UNKNOWN}])
        with_data = [v for v in pick.versions if v in pick.with_data]
        if with_data:
            versions[mention.target] = with_data[-1]
    targets = q.target_names()
    matrix = queries.compare(conn, targets, only_differences=True, versions=versions)
    rows = matrix["rows"]
    versions_text = ", ".join(f"{t} {v or '(no data)'}" for t, v in matrix["versions"].items())
    lines = [f"{len(rows)} ops have a different status between {' and '.join(targets)} "
             f"({versions_text}, eager; a missing verdict counts as unknown)."]
    for row in rows[:MAX_LIST]:
        lines.append(f"- `{row['op']}`: " + ", ".join(f"{t} {row[t]}" for t in targets))
    if len(rows) > MAX_LIST:
        lines.append(f"_…{len(rows) - MAX_LIST} more: `kb compare {' '.join(targets)} --diff`._")
    src = _Sources()
    for target in targets:
        for r in conn.execute("SELECT DISTINCT s.source_kind, s.source_name, s.source_url, s.probe_run_id, s.retrieved_at "
                              "FROM support s JOIN release r ON r.id = s.release_id WHERE s.target = ? AND r.version = ?",
                              (target, matrix["versions"].get(target))):
            src.cite(dict(r))
    if missing:
        lines.append(_missing_line(missing, suggestions))
    facts = [{"op": r["op"], **{t: r[t] for t in targets}} for r in rows]
    return Answer(q.text, "compare", "\n".join(lines) + src.markdown(), facts, src.items)


def _differs(facts: list[dict[str, Any]]) -> bool | None:
    by_op: dict[str, set[str]] = {}
    for f in facts:
        if "status" in f and f.get("note") != "other version":
            by_op.setdefault(f["op"], set()).add(f["status"])
    if not by_op:
        return None
    return any(len(s) > 1 for s in by_op.values())


def _ops_by_status(conn: sqlite3.Connection, q: Question) -> Answer:
    status = next((s for s in q.statuses if s in ("fallback", "native", "unsupported", "decomposed")), "fallback")
    src = _Sources()
    lines, facts = [], []
    for mention in q.targets:
        pick = pick_versions(conn, mention)
        versions = [v for v in pick.versions if v in pick.with_data]
        if not versions:
            lines.append(f"**{mention.target}** {pick.label}: **unknown** — no verdicts for that version "
                         f"(versions with data: {', '.join(pick.with_data) or 'none'}).")
            continue
        listing = queries.list_ops(conn, mention.target, status, versions[-1])
        ops = listing["ops"]
        lines.append(f"**{mention.target}** {listing['backend_version']} (eager): {len(ops)} ops with status **{status}** "
                     "in the KB (ops it has no evidence for are unknown, not counted).")
        for row in ops[:MAX_LIST]:
            lines.append(f"- `{row['op']}` {src.cite(row)}")
            facts.append(_fact(row))
        if len(ops) > MAX_LIST:
            lines.append(f"_…{len(ops) - MAX_LIST} more: `kb ops --target {mention.target} --status {status}`._")
    lines.append("For a model, `kb check MODEL --target TARGET` lists the ops it runs and which of them fall back.")
    return Answer(q.text, "ops_by_status", "\n".join(lines) + src.markdown(), facts, src.items)


def _model(conn: sqlite3.Connection, q: Question) -> Answer:
    targets = q.target_names() or ["neuron"]
    path = q.model_path or "MODEL"
    lines = ["To see what falls back for a model, check it against the KB:"]
    lines += [f"- `kb check {path} --target {t}`" for t in targets]
    lines.append("It accepts an ExportedProgram (`torch.export.save`), TorchScript, a `model.py:factory` "
                 "with `--input-shape`, or a pickled module with `--trust` (unpickling runs code). It lists every "
                 "ATen op with its status, where in the model it is used, and the device↔host hops fallbacks cause; "
                 "`--fail-on fallback` makes it a CI gate.")
    facts: list[dict[str, Any]] = [{"command": f"kb check {path} --target {t}"} for t in targets]
    return Answer(q.text, "model", "\n".join(lines), facts)


# Model files checked from a question or a tool call: formats that load without running
# code from the file. Factories (model.py:build) import Python; pickles need --trust.
SAFE_MODEL_KINDS = ("exported_program", "torchscript")


def check_available() -> bool:
    """Whether this checkout has `kb check` (kb.check, kb.tracing, kb.model_formats)."""
    import importlib.util

    spec = importlib.util.find_spec("kb.check")
    # only this checkout's own module (a shared venv's editable install may resolve another tree)
    here = os.path.dirname(os.path.abspath(__file__))
    return spec is not None and spec.origin is not None and os.path.dirname(spec.origin) == here


def check_model_file(conn: sqlite3.Connection, path: str, targets: list[str], version: str | None = None,
                     mode: str = "eager") -> list[Any]:
    """kb.check reports (one per target) for a model file, refusing formats that run code."""
    if not check_available():
        raise KBError("this kb has no `kb check` (kb.check); cannot check a model file")
    from kb import check as kc
    from kb import model_formats, tracing

    source = model_formats.detect(path, trust=False)
    if source.kind not in SAFE_MODEL_KINDS:
        raise KBError(f"{path}: a {source.kind.replace('_', ' ')}; only ExportedProgram and TorchScript files are "
                      f"checked here (they load without running code). Run `kb check {path}` yourself.")
    traced = tracing.trace(source, None, trust=False)
    reports = []
    for target in targets:
        queries.check_target(conn, target)
        pick = pick_versions(conn, TargetMention(target, version))
        chosen = [v for v in pick.versions if v in pick.with_data]
        backend_version = chosen[-1] if chosen else None
        rows = queries.support_map(conn, target, backend_version, mode) if (chosen or not version) else {}
        reports.append(kc.check(traced, kc.lookup_from_rows(rows), target=target,
                                backend_version=backend_version or pick.asked, mode=mode))
    return reports


def _model_checked(conn: sqlite3.Connection, q: Question) -> Answer:
    mentions = q.targets or [TargetMention("neuron")]
    version = next((m.version for m in mentions if m.version), None)
    reports = check_model_file(conn, q.model_path or "", [m.target for m in mentions], version)
    src = _Sources()
    lines, facts = [], []
    for report in reports:
        summary = report.summary()
        lines.append(f"**{os.path.basename(report.model)}** ({report.model_kind}) on **{report.target}** "
                     f"{report.backend_version or '(no data)'}, {report.mode}: {summary['distinct_ops']} distinct ops, "
                     f"{summary['on_device_call_sites_pct']}% of {summary['call_sites']} calls on the device.")
        problems = [op for op in report.ops if op.status != "native" and op.status != "decomposed"]
        for op in sorted(problems, key=lambda o: (-SEVERITY.get(o.status, 3), o.op))[:MAX_LIST]:
            where = f" in {', '.join(op.module_paths[:2])}" if op.module_paths else ""
            cite = " " + src.cite({"source_kind": op.source_kind, "source_name": op.source_kind,
                                   "source_url": op.source_url}) if op.source_url else ""
            lines.append(f"- `{op.op}` ×{op.count}: **{op.status}**{where}{cite}")
        if len(problems) > MAX_LIST:
            lines.append(f"_…{len(problems) - MAX_LIST} more: `kb check {report.model} --target {report.target}`._")
        if not problems:
            lines.append("- every op is native or decomposes into native ops.")
        lines += [f"- ⚠ {w}" for w in report.warnings[:5]]
        facts.append({"model": report.model, "target": report.target, "backend_version": report.backend_version,
                      "summary": summary, "problems": [{"op": o.op, "status": o.status, "count": o.count}
                                                       for o in problems]})
    return Answer(q.text, "model", "\n".join(lines) + src.markdown(), facts, src.items)


# ---------------------------------------------------------------- limitations


def _limitation_rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT l.target, r.product, r.version, l.feature, l.status, l.note, l.source_kind, l.source_name, "
        "l.source_url, l.retrieved_at FROM limitation l JOIN release r ON r.id = l.release_id "
        "ORDER BY l.target, l.feature")
    return [dict(r) for r in rows]


def _limitation_hits(conn: sqlite3.Connection, q: Question) -> list[dict[str, Any]]:
    """Limitations whose feature the question names (case-insensitive, typo-tolerant)."""
    rows = _limitation_rows(conn)
    words = [w.lower() for w in (*q.plain_words, *q.function_words, *q.op_words)]
    text = q.text.lower()
    hits = []
    for row in rows:
        feature = row["feature"].lower()
        parts = [p for p in feature.replace("(", " ").replace(")", " ").split() if len(p) > 2]
        if feature in text or any(p in words or difflib.get_close_matches(p, words, n=1, cutoff=0.85) for p in parts):
            hits.append(row)
    targets = q.target_names()
    return [r for r in hits if not targets or r["target"] in targets]


def _limitation_matches_version(row: dict[str, Any], q: Question) -> bool:
    versions = [m.version for m in q.targets if m.version]
    return not versions or any(_same_line(v, row["version"]) for v in versions)


def _limitation(conn: sqlite3.Connection, q: Question) -> Answer:
    hits = _limitation_hits(conn, q)
    if not hits:
        targets = q.target_names()
        hits = [r for r in _limitation_rows(conn) if not targets or r["target"] in targets]
    return _limitation_answer(conn, q, hits)


def _limitation_answer(conn: sqlite3.Connection, q: Question, rows: list[dict[str, Any]]) -> Answer:
    wanted = [r for r in rows if _limitation_matches_version(r, q)]
    src = _Sources()
    if not wanted:
        seen = sorted({f"{r['product']} {r['version']}" for r in rows})
        text = ("**Unknown** — the KB has no limitation recorded for that version"
                + (f" (it has limitations stated for {', '.join(seen)})." if seen else "."))
        return Answer(q.text, "limitation", text, [{"status": UNKNOWN}])
    lines = [f"Known limitations ({len(wanted)}):"]
    for r in wanted[:MAX_LIST]:
        note = f" — {r['note']}" if r.get("note") else ""
        lines.append(f"- **{r['feature']}** on {r['target']} ({r['product']} {r['version']}): {r['status']}{note} {src.cite(r)}")
    if len(wanted) > MAX_LIST:
        lines.append(f"_…{len(wanted) - MAX_LIST} more._")
    facts = [{k: r[k] for k in ("target", "product", "version", "feature", "status", "note", "source_url")} for r in wanted]
    return Answer(q.text, "limitation", "\n".join(lines) + src.markdown(), facts, src.items)


# ---------------------------------------------------------------- end of support


def support_windows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every end-of-support window; kb.eol's evaluated windows when that module exists."""
    try:
        from kb import eol
    except ImportError:  # a checkout without kb.eol: the raw statements, newest last
        eol = None
    if eol is not None:
        return eol.current_windows(conn, eol.today())
    rows = conn.execute("SELECT * FROM supportwindow ORDER BY product, cycle, statement_date")
    return [dict(r) for r in rows]


def _window_text(w: dict[str, Any]) -> str:
    """One line in words: when (announced/projected/with release X), whether already over.
    Reads kb.eol's evaluated windows (eol_from, state, is_eol) or raw supportwindow rows."""
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


def _window_lines(windows: list[dict[str, Any]], src: _Sources, *, bold: bool = True, notes: bool = False) -> list[str]:
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
    """(product, version) pairs named in the question, as kb.eol stack items:
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


def _eol(conn: sqlite3.Connection, q: Question) -> Answer:
    try:
        from kb import eol, products
    except ImportError:  # a checkout without kb.eol: raw statements only
        return _eol_raw(conn, q)
    src = _Sources()
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
            if version and _same_line(version, str(w.get("cycle") or "")):
                score += 3
    return score


def _eol_raw(conn: sqlite3.Connection, q: Question) -> Answer:
    """End of support from the supportwindow rows alone (no kb.eol in this checkout)."""
    windows = support_windows(conn)
    hits = [w for w, s in sorted(((w, _window_score(w, q)) for w in windows), key=lambda p: -p[1]) if s >= 2]
    asked_versions = [v for _, v in q.products if v]
    if asked_versions:
        hits = [w for w in hits if any(_same_line(v, str(w.get("cycle") or "")) for v in asked_versions)]
    if not hits:
        return _eol_unknown(conn, q, [], windows)
    src = _Sources()
    lines = [f"- **{w.get('title') or w['product'] + ' ' + w['cycle']}**: {_window_text(w)} {src.cite(w)}"
             for w in hits[:MAX_LIST]]
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), [_eol_fact(w) for w in hits], src.items)


def _eol_unknown(conn: sqlite3.Connection, q: Question, near: list[dict[str, Any]], windows: list[dict[str, Any]]) -> Answer:
    asked = ", ".join(f"{p} {v}" if v else p for p, v in q.products) or "that"
    lines = [f"**Unknown** — the KB has no end-of-support statement for {asked}."]
    src = _Sources()
    lines += _torch_in_releases(conn, q, src)
    shown = near or windows[:5]
    if shown:
        lines.append("Related statements:" if near else "Soonest statements it does have:")
        lines += _window_lines(shown, src, bold=False)
    facts = [{"asked": asked, "status": UNKNOWN}]
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), facts, src.items)


def _torch_in_releases(conn: sqlite3.Connection, q: Question, src: _Sources) -> list[str]:
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
        hits = [r for r in rows if any(_same_line(version, t) for t in r["torch"])]
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


_HANDLERS = {
    "help": _help,
    "unknown": _unknown,
    "op": _op_answer,
    "compare": _compare,
    "ops_by_status": _ops_by_status,
    "model": _model,
    "limitation": _limitation,
    "eol": _eol,
}
