"""What a gallery model answer says beside the verdict it was asked for (kb.chat.answer_gallery):
the blockers named in the headline when the question asks what blocks the model, the leaf an op
fails at, and one line each for what the asker would ask next — the eager verdict beside a
compile one when they differ, the newer version of the target asked, or the other target.

Held-out rounds 10 and 11 (#29): "any blockers?" answered with a bare "No" over a list of
blockers; "can SD 1.5 UNet run on TorchTPU 0.1.1?" never said that 0.2.0 runs it; "ResNet-50 on
Trainium, what blocks it?" never said that tpu runs it fully. Each line is one short sentence with
its basis (evidence, inferred, presumed) and the census it rests on cited.
"""

from __future__ import annotations

import re

from kb.gallery import views
from kb.neutral import markdown

# "any blockers?", "what blocks it?", "¿qué lo frena?", "¿hay algún bloqueo?": the headline names them
BLOCKERS_ASKED = re.compile(r"\b(?:block\w*|bloque\w*|fren(?:a|an|ar|ando|e|en|o)|stopp\w*|stops? it|hold\w*\b.{0,40}?\bback"
                            r"|in the way|keeps? it off)\b", re.I)
HARD = ("unsupported", "crash", "timeout")
SHOWN = 3  # blockers named in a headline; the rest counted

TEXT = {
    "en": {"blockers": "**{n} blocker{s}: {ops}**", "more": " +{n} more",
           "no_blockers": "**No known blockers** — {name} runs fully on the device on {where}",
           "presumed_no_blockers": "**Presumably no blockers** — {name} runs fully on the device on {where} "
                                   "(verdicts presumed from an earlier version)",
           "at_leaf": " at {leaf}",
           "full": "it runs fully on the device{basis}",
           "host": "{ops} fall{v} back to the CPU", "hard": "{ops} {status}", "unknown": "{ops} unknown",
           "rest": "; every other op runs on the device{basis}", "compile_only": "torch.compile: {text}{basis}",
           "eager": "In eager mode (no torch.compile) on {where}: {brief} {mark}",
           "newer_fixes": "On the newer {where}: {brief} {mark} — upgrading fixes it.",
           "newer": "On the newer {where}: {brief} {mark}",
           "other": "On {where}: {brief} {mark}",
           "upgrade": "So moving from {old} to {new} fixes it: every op runs on the device there.",
           "basis": {"presumed": " (presumed from an earlier version)", "inferred": " (inferred)",
                     "evidence": " (evidence)", "none": " (no evidence in the KB)"}},
    "es": {"blockers": "**{n} bloqueo{s}: {ops}**", "more": " y {n} más",
           "no_blockers": "**Ningún bloqueo conocido** — {name} se ejecuta entero en el dispositivo en {where}",
           "presumed_no_blockers": "**Presumiblemente ningún bloqueo** — {name} se ejecuta entero en el dispositivo "
                                   "en {where} (veredictos presumidos de una versión anterior)",
           "at_leaf": " en {leaf}",
           "full": "corre entero en el dispositivo{basis}",
           "host": "{ops} cae{v} a la CPU", "hard": "{ops} {status}", "unknown": "{ops} sin evidencia",
           "rest": "; el resto de las ops corre en el dispositivo{basis}", "compile_only": "torch.compile: {text}{basis}",
           "eager": "En modo eager (sin torch.compile) en {where}: {brief} {mark}",
           "newer_fixes": "En la versión más nueva, {where}: {brief} {mark} — actualizar lo resuelve.",
           "newer": "En la versión más nueva, {where}: {brief} {mark}",
           "other": "En {where}: {brief} {mark}",
           "upgrade": "Así que pasar de {old} a {new} lo resuelve: ahí todas las ops corren en el dispositivo.",
           "basis": {"presumed": " (presumido de una versión anterior)", "inferred": " (inferido)",
                     "evidence": " (evidencia)", "none": " (sin evidencia en el KB)"}},
}
STATUS_ES = {"unsupported": "no soportada", "crash": "se cae", "timeout": "excede el tiempo"}


def say(lang: str) -> dict:
    return TEXT.get(lang, TEXT["en"])


def leaf(op, lang: str) -> str:
    """" at aten::var_mean.correction": where a decomposed op meets the status it is given
    (r11 q51: group_norm is unsupported on tpu 0.1.1 because var_mean.correction is)."""
    def base(name: str) -> str:
        return name.split("::")[-1].split(".", 1)[0].lstrip("_")
    # another overload or the private form of the same op (argmax → argmax.out, adaptive_avg_pool2d →
    # _adaptive_avg_pool2d) says nothing the asker can act on
    leaves = [lf.op for lf in op.via if lf.status == op.status and base(lf.op) != base(op.op)]
    if not leaves:
        return ""
    return say(lang)["at_leaf"].format(leaf=", ".join(markdown(x) for x in leaves[:2]))


def blocking(rep) -> list:
    """The ops that keep the model off the device: on the host CPU or not running at all."""
    return [op for op in rep.ops if op.status == "fallback" or op.status in HARD]


def blockers_head(head: str, rep, row: dict, name: str, where: str, lang: str) -> str:
    """The headline for "any blockers?" / "what blocks it?": the blockers by name, or none known.
    A bare "No" (it does not run) reads as "no blockers" under that question (r10 q51, r11 q52)."""
    text = say(lang)
    ops = blocking(rep)
    if ops:
        shown = ", ".join(markdown(op.op) for op in ops[:SHOWN])
        if len(ops) > SHOWN:
            shown += text["more"].format(n=len(ops) - SHOWN)
        rest = head.split("** — ", 1)[1] if head.startswith("**") and "** — " in head else head
        return text["blockers"].format(n=len(ops), s="" if len(ops) == 1 else "s", ops=shown) + " — " + rest
    if row["runs_fully"]:
        key = "presumed_no_blockers" if row["basis"] == "presumed" else "no_blockers"
        return text[key].format(name=name, where=where)
    return head


def brief(rep, row: dict, lang: str) -> str:
    """One clause for a whole report: "it runs fully on the device (inferred)", or its problem ops
    by status ("aten::roll, aten::adaptive_avg_pool1d fall back to the CPU; every other op runs on
    the device (presumed …)")."""
    text = say(lang)
    basis = text["basis"].get(row["basis"], "")
    problems = [op for op in rep.ops if op.status in views.PROBLEMS]
    if not problems:
        if row["runs_fully"]:
            return text["full"].format(basis=basis)
        clause = (rep.verdict or "").split("torch.compile: ", 1)[-1].split(" — ")[0]
        return text["compile_only"].format(text=markdown(clause), basis=basis)
    parts = []
    host = [op for op in problems if op.status == "fallback"]
    if host:
        names = ", ".join(markdown(op.op) + leaf(op, lang) for op in host[:SHOWN])
        parts.append(text["host"].format(ops=names + (text["more"].format(n=len(host) - SHOWN) if len(host) > SHOWN
                                                      else ""), v="s" if len(host) == 1 and lang == "en" else
                                         ("n" if len(host) > 1 and lang == "es" else "")))
    for status in HARD:
        hard = [op for op in problems if op.status == status]
        if hard:
            word = STATUS_ES.get(status, status) if lang == "es" else status
            parts.append(text["hard"].format(ops=", ".join(markdown(op.op) + leaf(op, lang) for op in hard[:SHOWN]),
                                             status=word + ("s" if lang == "es" and len(hard) > 1 and status ==
                                                            "unsupported" else "")))
    unknown = [op for op in problems if op.status == "unknown"]
    if unknown:
        parts.append(text["unknown"].format(ops=", ".join(markdown(op.op) for op in unknown[:SHOWN])))
    return "; ".join(parts) + text["rest"].format(basis=basis)


def differs(a, b) -> bool:
    """Whether two reports of one model (eager and compile) tell the asker different things."""
    def shape(rep):
        return sorted((op.op, op.status) for op in rep.ops if op.status in views.PROBLEMS), views.runs_fully(rep)
    return shape(a) != shape(b)


def newer_than(conn, target: str, asked: str | None, default: str | None) -> bool:
    """Whether `default` (the version a bare target reads as) is a later release than `asked`."""
    if not asked or not default or asked == default:
        return False
    held = views.versions_with_data(conn, target)
    return asked in held and default in held and held.index(default) > held.index(asked)
