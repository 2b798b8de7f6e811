"""A torch.nn module in a chat answer: "does nn.MultiheadAttention work on tpu?", "can I use
torch.nn.LSTM on neuron?". The module stands for the ATen ops its forward dispatches (the
shipped module map, kb.store.torchnames); per target the answer gives one tally line (the
same as `kb op`'s, kb.store.oppage.tally), then its ops grouped by where they run, each
group cited, and the training step's tally. Every verdict shown also goes into the answer's
facts; a yes/no question gets a headline per target for the whole layer (its worst op decides),
not one per op.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from kb.chat.intents import Question, TargetMention, asks_yes_no
from kb.chat.oplookup import OpMatch, pick_versions
from kb.chat.reply import Sources
from kb.neutral import markdown as md
from kb.store import oppage, queries, verdict
from kb.vocab import SYMBOLS, UNKNOWN

DEFAULT_TARGETS = ("neuron", "tpu")  # a module question naming no target: the two this tool is for


def module_lines(conn: sqlite3.Connection, q: Question, match: OpMatch, src: Sources, facts: list[dict[str, Any]],
                 mode: str = "eager") -> list[str]:
    """The answer lines for one module match (headline first for a yes/no question); appends to `facts`."""
    module = match.module
    assert module is not None
    forward = list(match.ops)
    training = module.training_ops()
    entry = module.entry
    if forward:
        count = f"{len(forward)} ATen ops" if len(forward) > 1 else "one ATen op"
        intro = (f"_`{md(module.canonical)}` is a module: its forward dispatches {count} (traced once: "
                 f"{md(entry.get('constructor', '?'))} on {md(', '.join(entry.get('inputs', [])))}, eval mode, "
                 f"torch {md(module.torch_version)}; {md(module.map_file)})._")
    else:
        intro = (f"_`{md(module.canonical)}` is a module whose forward dispatches no ATen ops in eval mode "
                 f"({md(module.map_file)}); its training step does._")
    lines = [intro]
    heads: list[str] = []
    facts.append({"module": module.canonical, "kind": "module", "forward": forward, "training_ops": training,
                  "map": module.map_file, "constructor": module.entry.get("constructor"),
                  "inputs": module.entry.get("inputs"), "torch_version": module.torch_version})
    wanted = sorted(set(forward) | set(training))
    rows = [r for r in (queries.op_verdicts(conn, wanted, mode=mode) if wanted else [])]
    for mention in q.targets or [TargetMention(t) for t in DEFAULT_TARGETS]:
        pick = pick_versions(conn, mention)
        mine = [r for r in rows if r["target"] == mention.target]
        if mention.version:
            mine = [r for r in mine if r["backend_version"] in pick.versions]
            if not pick.versions:
                lines.append(f"- ? **unknown** on {mention.target} {md(pick.label)}: the KB has no release "
                             f"{md(pick.asked or '')} for {mention.target} (versions with data: "
                             f"{', '.join(pick.with_data) or 'none'})")
                facts.append({"module": module.canonical, "target": mention.target, "status": UNKNOWN})
                heads.append(f"**Unknown** on {mention.target} {md(pick.label)}")
                continue
        tally = oppage.tally(mine, mention.target, forward)
        facts.append({"module": module.canonical, "target": mention.target, "backend_version": tally["version"],
                      "mode": mode, "counts": tally["counts"], "summary": tally["line"]})
        if not tally["version"]:
            if forward:
                lines.append(f"- ? **unknown** on {mention.target}: the KB has no evidence for its ops there ("
                             + ", ".join(f"`{md(op)}`" for op in forward) + f"); `{verdict.settle(mention.target)}` "
                             "would settle it")
                heads.append(f"**Unknown** on {mention.target} (no evidence)")
            else:
                lines.append(f"- **{mention.target}**: nothing to run in eval mode")
            _training_line(lines, mine, mention.target, training, forward)
            continue
        at = {r["op"]: r for r in mine if r["backend_version"] == tally["version"]}
        lines.append(f"- **{md(tally['line'])}** ({mode})")
        lines += _groups(forward, at, src, facts)
        _training_line(lines, mine, mention.target, training, forward)
        heads.append(_verdict(tally, _asked(q)))
    if heads and asks_yes_no(q.text):  # "nn.GRU on tpu?", "how does nn.Linear do on tpu?" too
        lines.insert(0, "; ".join(heads) + "\n")
    return lines


YES_NO_CUES = ("is ", "does ", "do ", "can ", "will ", "are ", "could ", "would ")
_WEAK = {"presumed": "presumed: carried from an older version", "inferred": "inferred: a dispatcher replay"}


def _asked(q: Question) -> str:
    """The status a yes/no question asks about: "does X fall back?", "is X native?"; else "supported"."""
    asked = [s for s in q.statuses if s in ("native", "fallback", "unsupported")]
    return asked[0] if asked else "supported"


def _verdict(tally: dict[str, Any], want: str = "supported") -> str:
    """One clause for a target: does the whole layer run there (its worst op decides), or,
    for "does it fall back / is it native / unsupported", do any / all of its ops?"""
    ops = tally["ops"]
    where = f"{tally['target']} {tally['version']}"
    bad = [o["op"] for o in ops if o["status"] in ("unsupported", "crash", "timeout")]
    host = [o["op"] for o in ops if o["status"] == "fallback"]
    unknown = [o["op"] for o in ops if o["status"] == UNKNOWN]
    untraced = [o["op"] for o in ops if o["status"] == "decomposed" and not o["on_device"]]
    bases = {o["basis"] for o in ops if o["basis"]}
    weak = next((_WEAK[b] for b in ("presumed", "inferred") if b in bases), "")
    suffix = f" ({weak})" if weak else ""
    count = f"{len(ops)} ops" if len(ops) != 1 else "1 op"
    if want in ("fallback", "unsupported"):
        hit = host if want == "fallback" else bad
        verb = "falls back" if want == "fallback" else "is unsupported"
        if hit:
            plural = {"falls back": "fall back", "is unsupported": "are unsupported"}[verb] if len(hit) > 1 else verb
            return f"**Yes** on {where} — {_few(hit)} ({len(hit)} of its {count}) {plural}{suffix}"
        if unknown:
            return (f"**Not known** on {where} — none of those with evidence {verb}; {len(unknown)} of its {count} "
                    f"have none{suffix}")
        # "does it run or fall back?": a bare No reads as "it doesn't run"; say which No (r3-29 #3)
        native = all(o["status"] == "native" for o in ops)
        no = ("**No fallback: native**" if native else "**No fallback**") if want == "fallback" else "**No**"
        if len(ops) == 1:
            negated = "does not fall back" if want == "fallback" else "is not unsupported"
            return f"{no} on {where} — its one op, `{md(ops[0]['op'])}`, {negated}{suffix}"
        return f"{no} on {where} — none of its {count} {verb}{suffix}"
    if want == "native":
        native = sum(1 for o in ops if o["status"] == "native")
        if native == len(ops):
            mine = "its one op has" if len(ops) == 1 else f"every one of its {count} has"
            return f"**Yes** on {where} — {mine} its own kernel{suffix}"
        if bad:
            return f"**No** on {where} — {_few(bad)} {'is' if len(bad) == 1 else 'are'} unsupported{suffix}"
        if host:
            return f"**No** on {where} — {_few(host)} {'falls' if len(host) == 1 else 'fall'} back to the CPU{suffix}"
        if not (unknown or untraced):
            return (f"**It runs on {tally['target']}, though not all as own kernels** on {where} — {native} of "
                    f"{count} native, the others decomposed into ops on the device{suffix}")
    if bad:
        return f"**No** on {where} — {_few(bad)} {'is' if len(bad) == 1 else 'are'} unsupported{suffix}"
    if host:
        return f"**Yes, but partly on the CPU** on {where} — {_few(host)} {'falls' if len(host) == 1 else 'fall'} back{suffix}"
    if unknown:
        return f"**Unknown** on {where} for {len(unknown)} of {len(ops)} ops ({_few(unknown)}){suffix}"
    if untraced:
        return (f"**Probably** on {where} — {len(ops) - len(untraced)} of {len(ops)} ops run on the device; where the "
                f"leaves of {_few(untraced)} run is not traced{suffix}")
    every = f"all {len(ops)} of its ops run" if len(ops) > 1 else f"its one op, `{md(ops[0]['op'])}`, runs"
    return f"**Yes** on {where} — {every} on the device{suffix}"


def _few(names: list[str]) -> str:
    shown = ", ".join(f"`{md(n)}`" for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _groups(ops: list[str], at: dict[str, dict[str, Any]], src: Sources, facts: list[dict[str, Any]]) -> list[str]:
    """Ops grouped by where they run (`✔ native`, `◐ decomposed (leaves on the device)`...), each
    group with the sources it rests on."""
    groups: dict[str, list[str]] = {}
    cites: dict[str, list[str]] = {}
    for op in ops:
        row = at.get(op)
        if row is None:
            groups.setdefault(f"{SYMBOLS.get(UNKNOWN, '?')} unknown (no evidence)", []).append(op)
            facts.append({"op": op, "status": UNKNOWN})
            continue
        status = row["status"]
        key = f"{SYMBOLS.get(status, '?')} {status}" + (f" ({verdict.runs(row)})" if status == "decomposed" else "")
        basis = row.get("basis") or "evidence"
        if basis != "evidence":
            key += f", {basis}"
        groups.setdefault(key, []).append(op)
        cite = src.cite(row)
        if cite not in cites.setdefault(key, []):
            cites[key].append(cite)
        facts.append({k: row.get(k) for k in ("op", "target", "product", "backend_version", "mode", "status",
                                               "effective_status", "basis", "source_kind", "source_name",
                                               "source_url", "probe_run_id")})
    return [f"  - {md(key)}: " + ", ".join(f"`{md(op)}`" for op in names) + (" " + "".join(cites[key]) if cites.get(key)
                                                                            else "")
            for key, names in groups.items()]


def _training_line(lines: list[str], rows: list[dict[str, Any]], target: str, training: list[str],
                   forward: list[str]) -> None:
    if not training or training == forward:
        return
    tally = oppage.tally(rows, target, training, what="training-step ops")
    if tally["version"]:
        lines.append(f"  - training step (train-mode forward + backward): {md(tally['line'].split(': ', 1)[1])}")
