"""Policy questions: what a backend does with an ATen op it has no kernel for, in eager mode
and under torch.compile ("what does neuron do with an op it lacks in compile mode?").

Answered from the KB's policy rows (limitation features `policy: …`, each with its vendor
page: TorchNeuron's eager CPU fallback and compile error, TorchTPU's missing-op error or
CPU fallback switch), for the newest release of each target that states one, and the
counts of fallback verdicts that policy produces (`kb targets`). A mode with no stated rule
is said to be unknown, with the command that shows the per-op verdicts.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat.entities import Entities
from kb.chat.intents import Question
from kb.chat.oplookup import same_line
from kb.chat.reply import Answer, Sources, quoted
from kb.neutral import markdown as md
from kb.store import queries, releases

DEFAULT_TARGETS = ("neuron", "tpu")
# The policy statuses the KB records, glossed in Spanish beside the recorded value (which stays
# as recorded: it is what `kb eol`/`kb targets` and the tests show).
STATUS_ES = {"cpu fallback with warning": "fallback a la CPU con aviso", "compile error": "error de compilación",
             "cpu fallback if enabled else error": "fallback a la CPU si está activado, si no error",
             "compile error by default": "error de compilación por defecto", "error": "error",
             "error unless fallback_mode(allow_fallback)": "error, salvo dentro de fallback_mode(ALLOW_FALLBACK)"}
LABELS = {"neuron": "TorchNeuron", "tpu": "TorchTPU", "neuron-xla": "torch-neuronx (PyTorch/XLA)"}


def policy_rows(conn: sqlite3.Connection, target: str, version: str | None = None) -> list[dict[str, Any]]:
    """The policy rows of the newest release of `target` that states any, or of the release
    `version` names when it states its own ("torchtpu 0.1.1": 0.1.1's rule, not 0.2.0's)."""
    rows = [dict(r) for r in conn.execute(
        "SELECT l.target, r.product, r.version, l.feature, l.status, l.note, l.source_kind, l.source_name, "
        "l.source_url, l.retrieved_at FROM limitation l JOIN release r ON r.id = l.release_id "
        "WHERE l.target = ? AND l.feature LIKE 'policy:%' AND (l.feature LIKE '%fallback%' OR l.feature LIKE '%missing%')",
        (target,))]  # other policies (complex decomposition...) are not about an op without a kernel
    if not rows:
        return []
    newest = max((r["version"] for r in rows), key=queries.version_key)
    if version:
        mine = [r for r in rows if same_line(version, r["version"])]
        if mine:
            newest = max((r["version"] for r in mine), key=queries.version_key)
    return sorted((r for r in rows if r["version"] == newest), key=lambda r: r["feature"])


def policy_versions(conn: sqlite3.Connection, target: str) -> list[str]:
    """Every release of `target` that states a policy of its own, oldest first."""
    rows = conn.execute(
        "SELECT DISTINCT r.version FROM limitation l JOIN release r ON r.id = l.release_id WHERE l.target = ? "
        "AND l.feature LIKE 'policy:%' AND (l.feature LIKE '%fallback%' OR l.feature LIKE '%missing%')", (target,))
    return sorted((r[0] for r in rows), key=queries.version_key)


# "for each version", "all versions", "every release", "todas las versiones", "cada versión", "por versión"
_EVERY = re.compile(r"\b(?:each|every|all(?: the)?|all of the|both) (?:versions?|releases?)\b|\bper (?:version|release)\b"
                    r"|\bversion by version\b|\b(?:todas(?: las)?|cada|ambas|las dos) (?:versi(?:ons?|[oó]n(?:es)?)|releases?)\b"
                    r"|\bpor versi[oó]n\b|\bhistor(?:y|ia)\b|\bover (?:the )?versions\b", re.I)


def asked_versions(conn: sqlite3.Connection, q: Question, target: str) -> list[str | None]:
    """The versions a policy question asks about for `target`: every one the KB records a policy for
    when it says "each version" (or names none but compares: "0.1.1 vs 0.2.0"), the ones it names
    when it names two or more, else its one version (None: the newest), 29q."""
    held = policy_versions(conn, target)
    named = [m.version for m in q.targets if m.target == target and m.version]
    named += [v for v in q.versions if v not in named and any(same_line(v, h) for h in held)]
    named = list(dict.fromkeys(named))
    if _EVERY.search(q.text) and held:
        return list(held)
    if len(named) >= 2:
        return named
    return [named[0] if named else None]


def by_default(status: str, es: bool) -> str:
    """What a switch-guarded rule does when nobody turns the switch on ("cpu fallback if
    enabled else error", "error unless fallback_mode(...)"): the error. "" for a rule with no switch."""
    low = (status or "").lower()
    if "error" in low and ("if enabled" in low or "unless" in low):
        return ("; **por defecto, un error**: el fallback a la CPU solo ocurre si se activa" if es else
                "; **by default, an error**: the CPU fallback happens only when it is switched on")
    return ""


def _status(status: str, es: bool) -> str:
    gloss = STATUS_ES.get((status or "").strip().lower()) if es else None
    if es:  # the record's value, quoted as recorded, then its gloss where there is one
        return f"{quoted(md(status))} ({gloss})" if gloss else quoted(md(status))
    return md(status)


def version_label(conn: sqlite3.Connection, label: str, row: dict[str, Any]) -> str:
    """"TorchNeuron 2.14.3.0", or, when the policy row belongs to a Neuron SDK release, "Neuron SDK
    2.33.0 (TorchNeuron 2.13.3.0, 2.14.3.0)": an SDK version is never called a TorchNeuron one
    (tester t29 #9)."""
    if row.get("product") != "neuron-sdk":
        return f"{label} {row['version']}"
    inside = [r["version"] for r in releases.in_sdk(conn, row["version"]) if r["product"] == "torchneuron"]
    return f"Neuron SDK {row['version']}" + (f" ({label} {', '.join(inside)})" if inside else "")


def newer_sdk(conn: sqlite3.Connection, row: dict[str, Any]) -> set[tuple[str, str]]:
    """{(the rule's SDK version, the newest SDK version)} when a Neuron SDK release newer than the rule's shipped: the
    answer says the rule is the newest the KB records, so a 2.33.0 label is not read as stale by mistake (s9)."""
    if row.get("product") != "neuron-sdk":
        return set()
    newest = releases.latest(conn, "neuron-sdk")
    if newest and queries.version_key(newest["version"]) > queries.version_key(row["version"]):
        return {(row["version"], newest["version"])}
    return set()


def mode_of(row: dict[str, Any]) -> str:
    """"policy: compile fallback" applies to torch.compile; every other policy row to eager."""
    return "compile" if "compile" in row["feature"] else "eager"


def policy_answer(conn: sqlite3.Connection, q: Question, ents: Entities) -> Answer:
    es = ents.language == "es"
    targets = [t for t in q.target_names() if t in LABELS] or list(DEFAULT_TARGETS)
    modes = [m for m in ("eager", "compile") if m in ents.cues] or ["eager", "compile"]
    src = Sources()
    lines: list[str] = []
    heads: list[str] = []
    facts: list[dict[str, Any]] = []
    unknown_said: set[tuple[str, str]] = set()
    stale: set[tuple[str, str]] = set()
    for target in targets:
        label = LABELS[target]
        # each version asked (several: "for each version", "0.1.1 vs 0.2.0", 29q), mode by mode
        sets = [(asked, policy_rows(conn, target, asked)) for asked in asked_versions(conn, q, target)]
        for n, mode in enumerate(modes):
            for asked, rows in sets:
                if n == 0 and asked and rows and not same_line(asked, rows[0]["version"]):
                    lines.append(("- _el KB no registra la regla de " if es else "- _the KB records no rule of its own for ")
                                 + f"{label} {asked}" + ("; la más reciente que sí registra:_" if es else
                                                          "; the newest one it records:_"))
                mine = [r for r in rows if mode_of(r) == mode]
                if not mine and (target, mode) in unknown_said:
                    continue  # several versions asked: a mode no version has a rule for is said once
                unknown_said.add((target, mode))
                mode_word = ("modo eager" if mode == "eager" else "torch.compile") if es else \
                    ("eager mode" if mode == "eager" else "torch.compile")
                wanted = [a for a, _ in sets if a]
                verdicts = from_verdicts(conn, target, mode, src, es, wanted) if not mine else None
                if verdicts is not None:  # no vendor rule, but the per-op verdicts apply one: said as theirs (29r)
                    said, more, fact = verdicts
                    heads.append(f"{label}, {mode_word}: {said}")
                    lines += more
                    facts.append(fact)
                    if mode == "compile":
                        lines += compile_limits(conn, target, src, facts, es)
                    continue
                if not mine:
                    lines.append(f"- ? **{'desconocido' if es else 'unknown'}** — {label}, {mode_word}: "
                                 + ("el KB no registra ninguna regla del proveedor para un op sin kernel; "
                                    if es else "the KB records no vendor rule for an op without a kernel; ")
                                 + f"`kb ops --target {target} --status fallback --mode {mode}` "
                                 + ("muestra los veredictos por op." if es else "shows the per-op verdicts."))
                    facts.append({"target": target, "mode": mode, "status": "unknown"})
                    if mode == "compile":
                        lines += compile_limits(conn, target, src, facts, es)
                    continue
                first = mine[0]
                named = version_label(conn, label, first)
                stale |= newer_sdk(conn, first)
                heads.append(f"{named}, {mode_word}: {_status(first['status'], es)}{by_default(first['status'], es)}")
                for r in mine:
                    # the vendor's note, quoted as recorded: marked as a quote in a Spanish answer (#29)
                    note = (f" — “{md(r['note'])}”" if es else f" — {md(r['note'])}") if r.get("note") else ""
                    lines.append(f"- **{version_label(conn, label, r)}, {mode_word}** ({md(r['feature'])}): {_status(r['status'], es)}{note} "
                                 f"{src.cite(r)}")
                    facts.append({"target": target, "mode": mode, "backend_version": r["version"],
                                  "release_product": r["product"], "feature": r["feature"],
                                  "status": r["status"], "note": r.get("note"), "source_kind": r["source_kind"],
                                  "source_url": r["source_url"]})
                if asked is None and len(sets) == 1:
                    lines += earlier_rules(conn, target, mode, first, src, es)
    intro = ("Qué hace cada backend con un op ATen sin kernel propio" if es
             else "What each backend does with an ATen op it has no kernel for")
    head = f"**{intro}** — " + ("; ".join(heads) if heads else ("desconocido" if es else "unknown")) + "."
    for rule, newest in sorted(stale):
        head += (f"\n_La regla registrada es la de Neuron SDK {rule}; la más reciente, {newest}, no trae otra en el KB._"
                 if es else f"\n_The rule recorded is Neuron SDK {rule}'s; the newest, {newest}, brings no other in the KB._")
    tail = ("Para un modelo concreto, `kb check MODELO --target T --mode eager|compile` dice qué ops de él caen en "
            "esa regla." if es else "For a given model, `kb check MODEL --target T --mode eager|compile` says which "
            "of its ops that rule applies to.")
    return Answer(q.text, "policy", "\n".join([head, ""] + lines + ["", tail]) + src.markdown(), facts, src.items,
                  language=ents.language)


def earlier_rules(conn: sqlite3.Connection, target: str, mode: str, newest: dict[str, Any], src: Sources,
                  es: bool) -> list[str]:
    """An older release's rule that differs from the newest one (TorchTPU 0.1.1's fallback_mode switch beside
    0.2.0's enable_cpu_fallback), one line each, for a question that names no version: code written for an
    older release meets that rule."""
    label = LABELS[target]
    out = []
    for version in policy_versions(conn, target):
        if version == newest["version"]:
            continue
        for r in policy_rows(conn, target, version):
            if r["version"] == version and mode_of(r) == mode and r["status"] != newest["status"]:
                note = (f" — “{md(r['note'])}”" if es else f" — {md(r['note'])}") if r.get("note") else ""
                lead = "antes" if es else "earlier"
                out.append(f"- _{lead}_, **{version_label(conn, label, r)}**: {_status(r['status'], es)}{note} {src.cite(r)}")
                break
    return out


def compile_limits(conn: sqlite3.Connection, target: str, src: Sources, facts: list[dict[str, Any]],
                   es: bool) -> list[str]:
    """No compile rule for an op without a kernel, but the compile limitations the KB does hold for
    the target (TorchTPU: Inductor raises with TPU inputs, dynamic=True unsupported, other modes
    rejected), each with its source: what is known is said beside what is not."""
    rows = conn.execute(
        "SELECT l.feature, l.status, l.source_kind, l.source_name, l.source_url, l.retrieved_at, r.version "
        "FROM limitation l JOIN release r ON r.id = l.release_id WHERE l.target = ? AND l.feature LIKE 'torch.compile%' "
        "AND l.feature NOT LIKE '%options%' ORDER BY l.feature", (target,)).fetchall()
    if not rows:
        return []
    out = ["  " + ("Lo que el KB sí registra de torch.compile en " if es else "What the KB does record about "
                   "torch.compile on ") + f"{target}:"]
    for r in rows:
        r = dict(r)
        status = quoted(md(r["status"])) if es else md(r["status"])  # the record's words, quoted in Spanish
        out.append(f"  - {md(r['feature'])} ({target} {r['version']}): {status} {src.cite(r)}")
        if facts:  # on the unknown fact of that target and mode: what is known beside it
            facts[-1].setdefault("compile_limitations", []).append(
                {"feature": r["feature"], "status": r["status"], "backend_version": r["version"],
                 "source_url": r["source_url"]})
    return out


def why_no_fallbacks(conn: sqlite3.Connection, target: str, version: str, src: Sources) -> str | None:
    """Why a list of fallback ops at a version is empty, from the target's eager policy row: on
    TorchTPU the CPU fallback is a switch, off unless enabled, so an op without a kernel raises
    and is counted unsupported instead (r3-29 #5/#7). None when the KB records no eager rule."""
    rows = [r for r in policy_rows(conn, target) if mode_of(r) == "eager"]
    if not rows:
        return None
    row = rows[0]
    unsupported = len(queries.list_ops(conn, target, "unsupported", version)["ops"])
    status = (row["status"] or "").lower()
    label = LABELS.get(target, target)
    if "if enabled" in status:
        why = (f"{label}'s eager policy for an op without a kernel is {md(row['status'])} {src.cite(row)}: the CPU "
               f"fallback is a switch, off unless enabled, so such an op raises instead")
    else:
        why = f"{label}'s eager policy for an op without a kernel is {md(row['status'])} {src.cite(row)}"
    return (f"_Why none: {why}; {unsupported:,} ops are unsupported on {target} {version} "
            f"(`kb ops --target {target}={version} --status unsupported`)._")


BASIS_WORDS = {"inferred": ("inferred", "inferido"), "evidence": ("with evidence", "con evidencia"),
               "presumed": ("presumed", "presunto"), "doc rule": ("doc rule", "regla documental")}


def from_verdicts(conn: sqlite3.Connection, target: str, mode: str, src: Sources,
                  es: bool, asked: list[str] | None = None) -> tuple[str, list[str], dict[str, Any]] | None:
    """No vendor rule for `mode`, but per-op verdicts for the ops the target has no kernel for in eager
    (eager fallback or unsupported): what those verdicts say in `mode`, version by version, with the
    note they carry ("compile mode is assumed not to reach the eager CPU fallback") and their basis,
    so an inferred rule is said to be inferred, never a vendor's word. None without such verdicts."""
    other = "eager" if mode == "compile" else "compile"
    rows = conn.execute(
        "SELECT r.version, k.status, k.basis, k.note, count(*) AS n, min(k.source_kind) AS source_kind, "
        "min(k.source_name) AS source_name, min(k.source_url) AS source_url, min(k.probe_run_id) AS probe_run_id, "
        "min(k.retrieved_at) AS retrieved_at FROM support e JOIN support k ON k.op = e.op AND k.target = e.target "
        "AND k.release_id = e.release_id AND k.mode = ? JOIN release r ON r.id = e.release_id "
        "WHERE e.target = ? AND e.mode = ? AND e.status IN ('fallback', 'unsupported') "
        "GROUP BY r.version, k.status, k.basis, k.note", (mode, target, other)).fetchall()
    by_version: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_version.setdefault(r["version"], []).append(dict(r))
    if not by_version:
        return None
    versions = sorted(by_version, key=queries.version_key, reverse=True)
    # the versions asked (29q: several, or "each version") where they have verdicts, else the newest two
    versions = [v for v in versions if any(same_line(a, v) for a in asked or [])] or versions[:2]
    lines, summary = [], []
    for version in versions:
        mine = by_version[version]
        total = sum(r["n"] for r in mine)
        counts: dict[str, int] = {}
        for r in mine:
            counts[r["status"]] = counts.get(r["status"], 0) + r["n"]
        top = max(counts, key=lambda k: counts[k])
        noted = max((r for r in mine if r["status"] == top), key=lambda r: (bool(r["note"]), r["n"]))
        basis = BASIS_WORDS.get(noted["basis"] or "evidence", (noted["basis"], noted["basis"]))[1 if es else 0]
        note = f" — {quoted(md(noted['note']))}" if noted.get("note") else ""
        if es:
            lines.append(f"- **{LABELS.get(target, target)} {version}, {mode}** (veredictos por op, {basis}): "
                         f"{counts[top]:,} de {total:,} ops sin kernel en {other} son **{top}** en {mode}{note} "
                         f"{src.cite(noted)}")
        else:
            lines.append(f"- **{LABELS.get(target, target)} {version}, {mode}** (per-op verdicts, {basis}): "
                         f"{counts[top]:,} of {total:,} ops with no kernel in {other} are **{top}** in {mode}{note} "
                         f"{src.cite(noted)}")
        summary.append((version, top, basis, counts[top], total, noted["basis"] or "evidence"))
    version, top, basis, n, total, _ = summary[0]
    gloss = {"unsupported": " (sin soporte)", "fallback": " (fallback a la CPU)", "native": " (nativo)",
             "decomposed": " (descompuesto)"}.get(top, "")
    said = (f"{quoted(top)}{gloss} según los veredictos por op ({version}: {n:,} de {total:,}; {basis}), sin regla declarada "
            "del proveedor" if es else
            f"{top} by the per-op verdicts ({version}: {n:,} of {total:,}; {basis}), no vendor rule stated")
    fact = {"target": target, "mode": mode, "status": top, "basis": "per-op verdicts", "rule_stated": False,
            "versions": [{"backend_version": v, "status": t, "basis": b, "count": c, "of": o}
                           for v, t, _, c, o, b in summary]}
    return said, lines, fact
