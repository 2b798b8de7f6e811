"""A torch.nn module in a chat answer: "does nn.MultiheadAttention work on tpu?", "can I use
torch.nn.LSTM on neuron?". The module stands for the ATen ops its forward dispatches (the
shipped module map, kb.store.torchnames); per target the answer gives one tally line (the
same as `kb op`'s, kb.store.oppage.tally), then its ops grouped by where they run, each
group cited, and the training step's tally. Every verdict shown also goes into the answer's
facts; a yes/no question gets a headline per target for the whole layer (its worst op decides),
not one per op.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat import mode_contrast, op_versions
from kb.chat.intents import Question, TargetMention, asks_yes_no
from kb.chat.op_first import offers_choices
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
    # "…? ¿y con torch.compile?": a trailing compile follow-up asks compile beside eager (as for an op, 29r)
    open_mode = mode_contrast.names_no_mode(q.text) or mode_contrast.follow_up_mode(q.text)
    compile_rows = queries.op_verdicts(conn, forward, mode="compile") if open_mode and forward else []
    contrasts: list[str] = []
    asked = op_versions.mentions(conn, q) if q.targets else [TargetMention(t) for t in DEFAULT_TARGETS]
    elsewhere: list[str] = []  # the newest release, or the other target, where the asked one does not run it
    for mention in asked:
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
        if open_mode and mode == "eager":  # the mode left open: compile too where it says otherwise (29n)
            compiled = [r for r in compile_rows if r["target"] == mention.target
                        and r["backend_version"] == tally["version"]]
            both = oppage.tally(compiled, mention.target, forward) if compiled else None
            line = both and mode_contrast.module_contrast(f"{mention.target} {tally['version']}", tally, both,
                                                          q.language == "es")
            if both and line:
                lines.append(f"  - torch.compile: {md(both['line'])}")
                facts.append({"module": module.canonical, "target": mention.target, "backend_version": both["version"],
                              "mode": "compile", "counts": both["counts"], "summary": both["line"]})
                contrasts.append(line)
            elif both:  # "¿eso funciona?": the mode left open, and compile says the same: once, in a line (r12 q7)
                contrasts.append(mode_contrast.module_agree(f"{mention.target} {tally['version']}", tally,
                                                            q.language == "es"))
        _training_line(lines, mine, mention.target, training, forward)
        # "¿va en el dispositivo o cae a CPU?": a choice, so where it runs, not a yes to the last option (29n)
        heads.append(_verdict(tally, "supported" if offers_choices(q.text) else _asked(q), q.language,
                              _RUN_OR_FALL.search(q.text) is not None))
        if len(asked) == 1 and forward and not _runs_all(tally):
            elsewhere += _elsewhere(conn, q, mention, tally, forward, mode, src, facts, module.canonical)
    if elsewhere:
        lines.insert(0, "\n".join(elsewhere) + ("" if contrasts else "\n"))
    if contrasts:  # right under the headline, or first (29n)
        lines.insert(0, "\n".join(contrasts) + "\n")
    if heads and (asks_yes_no(q.text) or offers_choices(q.text)):  # "nn.GRU on tpu?", "… device or CPU?" too
        lines.insert(0, "; ".join(heads) + ("" if contrasts else "\n"))
    return lines


YES_NO_CUES = ("is ", "does ", "do ", "can ", "will ", "are ", "could ", "would ")
# The headline's words per language (#29: a Spanish question's headline is written in Spanish here,
# not rewritten from English afterwards). Facts — op names, counts, versions — fill the same slots.
SAY = {
    "en": {
        "presumed": "presumed: carried from an older version", "inferred": "inferred: a dispatcher replay",
        "ops": lambda n: "1 op" if n == 1 else f"{n} ops", "more": lambda n: f" and {n} more",
        "fallback": ("falls back", "fall back"), "unsupported": ("is unsupported", "are unsupported"),
        "yes_hit": "**Yes** on {where} — {few} ({hit} of its {count}) {verb}{suffix}",
        "yes_fallback": "**Yes, it falls back to the CPU** on {where} — {few} ({hit} of its {count}) {verb}{suffix}",
        "not_known": "**Not known** on {where} — none of those with evidence {verb}; {unknown} of its {count} have none{suffix}",
        "no_fallback_native": "**No fallback: native**", "no_fallback": "**No fallback**", "no": "**No**",
        "one_negated": {"fallback": "does not fall back", "unsupported": "is not unsupported"},
        "no_one": "{no} on {where} — its one op, `{op}`, {negated}{suffix}",
        "no_none": "{no} on {where} — none of its {count} {verb}{suffix}",
        "native_all_one": "its one op has", "native_all": "every one of its {count} has",
        "yes_native": "**Yes** on {where} — {mine} its own kernel{suffix}",
        "no_bad": ("**No** on {where} — {few} is unsupported{suffix}", "**No** on {where} — {few} are unsupported{suffix}"),
        "no_host": ("**No** on {where} — {few} falls back to the CPU{suffix}",
                    "**No** on {where} — {few} fall back to the CPU{suffix}"),
        "not_own": "**It runs on {target}, though not all as own kernels** on {where} — {native} of {count} native, "
                   "the others decomposed into ops on the device{suffix}",
        "partly_cpu": ("**Yes, but partly on the CPU** on {where} — {few} falls back{suffix}",
                       "**Yes, but partly on the CPU** on {where} — {few} fall back{suffix}"),
        "all_cpu": ("**It runs, but on the CPU** on {where} — its one op, {few}, falls back: none of it runs on the "
                    "device{suffix}",
                    "**It runs, but on the CPU** on {where} — all of its ops ({few}) fall back: none of it runs on the "
                    "device{suffix}"),
        "unknown": "**Unknown** on {where} for {unknown} of {total} ops ({few}){suffix}",
        "probably": "**Probably** on {where} — {traced} of {total} ops run on the device; where the leaves of {few} "
                    "run is not traced{suffix}",
        "yes_all": ("**Yes** on {where} — its one op, `{op}`, runs on the device{suffix}",
                    "**Yes** on {where} — all {total} of its ops run on the device{suffix}"),
    },
    "es": {
        "presumed": "presunto: heredado de una versión anterior", "inferred": "inferido: una reproducción del dispatcher",
        "ops": lambda n: "1 op" if n == 1 else f"{n} ops", "more": lambda n: f" y {n} más",
        "fallback": ("hace fallback", "hacen fallback"), "unsupported": ("no está soportado", "no están soportados"),
        "yes_hit": "**Sí** en {where} — {few} ({hit} de sus {count}) {verb}{suffix}",
        "yes_fallback": "**Sí, cae a la CPU** en {where} — {few} ({hit} de sus {count}) {verb}{suffix}",
        "not_known": "**No se sabe** en {where} — ninguno de los que tienen evidencia {verb}; {unknown} de sus {count} "
                     "no tienen evidencia{suffix}",
        "no_fallback_native": "**No cae a la CPU: nativo**", "no_fallback": "**No cae a la CPU**", "no": "**No**",
        "one_negated": {"fallback": "no cae a la CPU", "unsupported": "sí está soportado"},
        "no_one": "{no} en {where} — su único op, `{op}`, {negated}{suffix}",
        "no_none": "{no} en {where} — ninguno de sus {count} {verb}{suffix}",
        "native_all_one": "su único op tiene", "native_all": "cada uno de sus {count} tiene",
        "yes_native": "**Sí** en {where} — {mine} kernel propio{suffix}",
        "no_bad": ("**No** en {where} — {few} no está soportado{suffix}", "**No** en {where} — {few} no están soportados{suffix}"),
        "no_host": ("**No** en {where} — {few} hace fallback a la CPU{suffix}",
                    "**No** en {where} — {few} hacen fallback a la CPU{suffix}"),
        "not_own": "**Se ejecuta en {target}, aunque no todos como kernels propios** en {where} — {native} de {count} "
                   "nativos, los demás descompuestos en ops del dispositivo{suffix}",
        "partly_cpu": ("**Sí, pero en parte en la CPU** en {where} — {few} hace fallback{suffix}",
                       "**Sí, pero en parte en la CPU** en {where} — {few} hacen fallback{suffix}"),
        "all_cpu": ("**Corre, pero en la CPU** en {where} — su único op, {few}, hace fallback: nada corre en el "
                    "dispositivo{suffix}",
                    "**Corre, pero en la CPU** en {where} — todos sus ops ({few}) hacen fallback: nada corre en el "
                    "dispositivo{suffix}"),
        "unknown": "**Desconocido** en {where} para {unknown} de {total} ops ({few}){suffix}",
        "probably": "**Probablemente** en {where} — {traced} de {total} ops se ejecutan en el dispositivo; dónde se "
                    "ejecutan las hojas de {few} no está trazado{suffix}",
        "yes_all": ("**Sí** en {where} — su único op, `{op}`, se ejecuta en el dispositivo{suffix}",
                    "**Sí** en {where} — sus {total} ops se ejecutan en el dispositivo{suffix}"),
    },
}


def _runs_all(tally: dict[str, Any]) -> bool:
    return bool(tally["ops"]) and all(o["status"] == "native" or o["status"] == "decomposed" and o["on_device"]
                                      for o in tally["ops"])


def _elsewhere(conn: sqlite3.Connection, q: Question, mention: TargetMention, tally: dict[str, Any],
               forward: list[str], mode: str, src: Sources, facts: list[dict[str, Any]], module: str) -> list[str]:
    """One line where the layer does not run fully on the release asked: the newest release of that target
    when an older one was asked and it runs there (r11 q1), or, with no release asked, the other target
    this tool is for when it runs it there (r11 q5, q7). Nothing when neither runs it."""
    es = q.language == "es"
    rows = queries.op_verdicts(conn, forward, mode=mode)
    if mention.version:
        where = [mention.target]
    elif mention.target in DEFAULT_TARGETS:
        where = [t for t in DEFAULT_TARGETS if t != mention.target]
    else:
        return []
    out = []
    for target in where:
        other = oppage.tally([r for r in rows if r["target"] == target], target, forward)
        if not other["version"] or other["version"] == tally["version"] or not _runs_all(other):
            continue
        cites = "".join(dict.fromkeys(src.cite(r) for r in rows if r["target"] == target
                                      and r["backend_version"] == other["version"]))
        facts.append({"module": module, "target": target, "backend_version": other["version"], "mode": mode,
                      "counts": other["counts"], "summary": other["line"], "note": "elsewhere"})
        label = ("Más nuevo" if es else "Newer") if target == mention.target else ("En el otro destino" if es
                                                                                   else "On the other target")
        out.append(f"_{label}: {md(other['line'])} ({mode}) {cites}_")
    return out


def _asked(q: Question) -> str:
    """The status a yes/no question asks about: "does X fall back?", "is X native?"; else "supported"."""
    asked = [s for s in q.statuses if s in ("native", "fallback", "unsupported")]
    return asked[0] if asked else "supported"


# "does nn.Upsample run on trainium or fall back to cpu?": running and falling back offered as the two outcomes
_RUN_OR_FALL = re.compile(r"\b(?:runs?|works?)\b[^?]{0,60}?\bor\b[^?]{0,40}?\b(?:fall\w*|cpu|host)\b", re.I)


def _verdict(tally: dict[str, Any], want: str = "supported", language: str = "en", choice: bool = False) -> str:
    """One clause for a target: does the whole layer run there (its worst op decides), or,
    for "does it fall back / is it native / unsupported", do any / all of its ops? In the
    question's language (SAY)."""
    say = SAY.get(language, SAY["en"])
    ops = tally["ops"]
    where = f"{tally['target']} {tally['version']}"
    bad = [o["op"] for o in ops if o["status"] in ("unsupported", "crash", "timeout")]
    host = [o["op"] for o in ops if o["status"] == "fallback"]
    unknown = [o["op"] for o in ops if o["status"] == UNKNOWN]
    untraced = [o["op"] for o in ops if o["status"] == "decomposed" and not o["on_device"]]
    bases = {o["basis"] for o in ops if o["basis"]}
    weak = next((say[b] for b in ("presumed", "inferred") if b in bases), "")
    suffix = f" ({weak})" if weak else ""
    count = say["ops"](len(ops))
    few = lambda names: _few(names, say["more"])  # noqa: E731
    one = lambda pair, names: pair[0] if len(names) == 1 else pair[1]  # noqa: E731
    if want in ("fallback", "unsupported"):
        hit = host if want == "fallback" else bad
        if hit:
            # "¿anda en trainium o se va a la cpu?": a bare Yes reads as "it runs"; say which Yes (r11 q5)
            return say["yes_fallback" if want == "fallback" and choice else "yes_hit"].format(where=where, few=few(hit), hit=len(hit), count=count, verb=one(say[want], hit),
                                         suffix=suffix)
        if unknown:
            return say["not_known"].format(where=where, verb=say[want][0], unknown=len(unknown), count=count,
                                           suffix=suffix)
        # "does it run or fall back?": a bare No reads as "it doesn't run"; say which No (r3-29 #3)
        native = all(o["status"] == "native" for o in ops)
        no = (say["no_fallback_native"] if native else say["no_fallback"]) if want == "fallback" else say["no"]
        if len(ops) == 1:
            return say["no_one"].format(no=no, where=where, op=md(ops[0]["op"]), negated=say["one_negated"][want],
                                        suffix=suffix)
        return say["no_none"].format(no=no, where=where, count=count, verb=say[want][0], suffix=suffix)
    if want == "native":
        native = sum(1 for o in ops if o["status"] == "native")
        if native == len(ops):
            mine = say["native_all_one"] if len(ops) == 1 else say["native_all"].format(count=count)
            return say["yes_native"].format(where=where, mine=mine, suffix=suffix)
        if bad:
            return one(say["no_bad"], bad).format(where=where, few=few(bad), suffix=suffix)
        if host:
            return one(say["no_host"], host).format(where=where, few=few(host), suffix=suffix)
        if not (unknown or untraced):
            return say["not_own"].format(target=tally["target"], where=where, native=native, count=count, suffix=suffix)
    if bad:
        return one(say["no_bad"], bad).format(where=where, few=few(bad), suffix=suffix)
    if host:  # every op on the CPU is no "partly" (r33 q2: nn.ReLU6 is aten::hardtanh alone)
        key = "all_cpu" if len(host) == len(ops) else "partly_cpu"
        return one(say[key], host).format(where=where, few=few(host), suffix=suffix)
    if unknown:
        return say["unknown"].format(where=where, unknown=len(unknown), total=len(ops), few=few(unknown), suffix=suffix)
    if untraced:
        return say["probably"].format(where=where, traced=len(ops) - len(untraced), total=len(ops), few=few(untraced),
                                      suffix=suffix)
    return one(say["yes_all"], ops).format(where=where, op=md(ops[0]["op"]), total=len(ops), suffix=suffix)


def _few(names: list[str], more=SAY["en"]["more"]) -> str:
    shown = ", ".join(f"`{md(n)}`" for n in names[:3])
    return shown + (more(len(names) - 3) if len(names) > 3 else "")


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
