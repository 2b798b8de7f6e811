"""End of support of a feature line, and whether a product runs on an instance family:
"is PyTorch/XLA training still supported on Trn1?", "how long is torch-xla supported on trn3
for serving?", "when is the last neuron release for XLA inference on trn2?", "Is NxD
Inference supported on Inf2?", "Does TorchNeuron run on Trn1?".

The answer comes from the support windows of that line (kb.eol.windows), narrowed by the use
(training / inference) and the instance family the question names — never from TorchNeuron's
platform matrix or the newest release, which say nothing about the XLA line. A window that
ends with a Neuron release names the release before it as the last one with support. For
TorchNeuron, which has no windows, the release registry and the platform matrix answer.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat.entities import Entities
from kb.chat.eol_advice import advice, advice_line
from kb.chat.intents import Question
from kb.chat.oplookup import same_line
from kb.chat.reply import Answer, Sources, quoted
from kb.store import queries, releases

STATUS_ES = {"not supported": "no soportado", "supported": "soportado", "unsupported": "no soportado"}

# Feature lines (kb.chat.entities.FEATURE_RE) → the support-window products that state them.
WINDOW_PRODUCTS = {
    "pytorch-xla": ("torch-neuronx-xla", "pytorch-xla-on-neuron"),
    "nxd-inference": ("nxd-inference",),
    "nxd-training": ("nxd-training",),
    "nxd": ("nxd-inference", "nxd-training"),
}
LABELS = {"pytorch-xla": "PyTorch/XLA (torch-neuronx on XLA)", "nxd-inference": "NxD Inference",
          "nxd-training": "NxD Training", "nxd": "NxD (NeuronX Distributed)", "torchneuron": "TorchNeuron"}
USE_ES = {"training": "entrenamiento", "inference": "inferencia"}


def _windows(conn: sqlite3.Connection, feature: str) -> list[dict[str, Any]]:
    from kb.eol import windows as eol

    wanted = WINDOW_PRODUCTS.get(feature, ())
    return [w for w in eol.current_windows(conn, eol.today()) if w["product"] in wanted]


def _about(w: dict[str, Any]) -> str:
    return f"{w.get('cycle') or ''} {w.get('title') or ''}".lower()


def narrow(windows: list[dict[str, Any]], ents: Entities) -> list[dict[str, Any]]:
    """Windows of the use and instance family asked about. A window naming other instance
    families only is dropped; one naming none stays (it covers the whole line)."""
    # each use asked narrowed on its own: "training on trn1, and inference?" keeps the training window that names no
    # family beside the inference one that names Trn1 (r22 q26)
    groups = [g for g in ([w for w in windows if u in _about(w)] for u in ents.uses) if g] or [windows]
    out: list[dict[str, Any]] = []
    for hits in groups:
        if ents.instances:  # "on trn2? and on inf2?": the windows naming any family asked about (r11 q63)
            named = [w for w in hits if _FAMILY.search(_about(w))]
            keep = [w for w in named if any(i in _about(w) for i in ents.instances)]
            unnamed = [w for w in hits if w not in named]
            hits = keep or unnamed or hits
        out += [w for w in hits if not any(w is o for o in out)]
    return out


def _by_use(hits: list[dict[str, Any]], uses: list[str], conn: sqlite3.Connection, es: bool) -> str | None:
    """"training: ended with Neuron 2.30 (2026-05-21); inference: maintenance mode stated, no date": each use
    asked, its windows' ends, when the question asks two uses and each has a window (r22 q26, q30)."""
    said = []
    for use in uses:
        mine = [w for w in hits if use in _about(w)]
        if not mine:
            return None
        ends = []
        for w in mine:
            fam = _FAMILY_SPAN.search(f"{w.get('cycle') or ''} {w.get('title') or ''}")
            where = f" ({fam.group(0).replace(' and ', ' y ') if es else fam.group(0)})" if fam else ""
            ends.append(_family_end(w, conn, es) + where)
        said.append(f"{USE_ES[use] if es else use}: {', '.join(ends)}")
    return "; ".join(said)


_FAMILY_SPAN = re.compile(r"\b(?:Trn[123]|Inf[12])\b(?:\s+and\s+(?:Trn[123]|Inf[12]))?", re.I)


_FAMILY = re.compile(r"\b(trn[123]|inf[12])\b")


def other_families(windows: list[dict[str, Any]], hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The line's windows for instance families the question did not name ("NxD Inference on
    trn2" ended with 2.34; on Inf2 and Trn1 it is in maintenance mode, no date): one line beside
    the answer, since a user of the line on the other families is told a different end (r11 q26)."""
    return [w for w in windows if w not in hits and _FAMILY.search(_about(w))]


def _by_family(hits: list[dict[str, Any]], instances: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """(instance family asked, its window) for each family asked whose window differs from the others'."""
    out: list[tuple[str, dict[str, Any]]] = []
    for instance in instances:
        w = next((x for x in hits if instance in _about(x)), None)
        if w is not None and all(w is not y for _, y in out):
            out.append((instance.capitalize(), w))
    return out


def _family_end(w: dict[str, Any], conn: sqlite3.Connection, es: bool) -> str:
    """One family's end in words: "ended with Neuron 2.34 (2026-11-30)", or its state."""
    if w.get("is_eol") is True and w.get("eol_release"):
        day = f" ({w['eol_from']})" if w.get("eol_from") else ""
        return (f"terminó con Neuron {w['eol_release']}{day}" if es else f"ended with Neuron {w['eol_release']}{day}")
    return str(w.get("state") or "")


def _last_release(conn: sqlite3.Connection, ends_with: str) -> str | None:
    """The newest Neuron SDK release before the one a window ends with."""
    versions = [r[0] for r in conn.execute("SELECT version FROM release WHERE product = 'neuron-sdk'")]
    cut = queries.version_key(ends_with)
    before = [v for v in versions if queries.version_key(v) < cut and not v.startswith(ends_with + ".")]
    return max(before, key=queries.version_key) if before else None


# "me dijeron que ya no tiene soporte, ¿es cierto?", "is NxD Inference no longer supported?", "has support ended?":
# the question claims the end, so an ended window answers it yes; "is it still supported?" is answered no (r12 q30)
_CLAIMS_END = re.compile(r"\bno longer\b|\b(?:is|are|it's|its)\b[^?]{0,60}\bover\b|\bend of support\b(?![^?]{0,40}\b(?:date|fecha)\b)|\bya no\b|\bany ?more\b|\bout of support\b|\bfuera de soporte\b"
                         r"|\b(?:has|have|did)\b[^?]{0,60}\b(?:ended|end|dropped|drop|stopped|stop)\b"
                         r"|\b(?:terminó|termino|se acabó|dejó de|dejaron de|dejo de)\b|\bsin soporte\b", re.I)
_STILL = re.compile(r"\bstill\b|\bsigue\b|\bsiguen\b|\btodav[ií]a\b|\baún\b", re.I)
_WHEN_ASKED = re.compile(r"\bwhen\b|\bcu[aá]ndo\b|\buntil\b|\bhasta\b|\bhow long\b", re.I)  # a date asked: the eol heads
_TRUE = re.compile(r"\b(?:true|right|correct|cierto|verdad)\b", re.I)


def _ended_word(text: str, english: str, es: bool) -> str:
    """The headline word for a window that has ended: "No" to "still supported?", "Yes" to a question
    that says it ended ("¿es cierto que ya no tiene soporte?": "Sí, es cierto")."""
    said = f"{text} {english}"
    if _STILL.search(said) or not _CLAIMS_END.search(said) or _WHEN_ASKED.search(said):
        return "No"
    if _TRUE.search(said):
        return "Sí, es cierto" if es else "Yes, that is true"
    return "Sí, terminó" if es else "Yes, it ended"


def _window_line(w: dict[str, Any], src: Sources, es: bool) -> str:
    state = w.get("state") or ""
    ended = (" — **ya terminó**" if es else " — **already ended**") if w.get("is_eol") is True else ""
    return f"- **{w.get('title')}**: {state}{ended} {src.cite(w)}"


def feature_answer(conn: sqlite3.Connection, q: Question, ents: Entities) -> Answer:
    es = ents.language == "es"
    feature = next((f for f in ents.features if f != "torchneuron"), None)
    if feature is None:
        return platform_answer(conn, q, ents)
    label = LABELS[feature]
    uses = [] if feature in ("nxd-inference", "nxd-training") else ents.uses  # "NxD Inference (inference)" says it twice
    what = label + (f" ({', '.join(USE_ES[u] if es else u for u in uses)})" if uses else "") + \
        (f" {'en' if es else 'on'} {', '.join(i.capitalize() for i in ents.instances)}" if ents.instances else "")
    src = Sources()
    every = _windows(conn, feature)
    hits = narrow(every, ents)
    same_use = [w for w in every if not uses or any(u in _about(w) for u in ents.uses)] if ents.uses else every
    others = other_families(same_use, hits) if ents.instances else []  # the same use only: training's end is no inference news
    if not hits:
        text = (f"**Desconocido** — el KB no tiene ninguna declaración de fin de soporte de {what}." if es
                else f"**Unknown** — the KB has no end-of-support statement for {what}.")
        return Answer(q.text, "eol", text + " `kb eol`", [{"feature": feature, "status": "unknown"}],
                      language=ents.language)
    ended = [w for w in hits if w.get("is_eol") is True]
    w = ended[0] if ended and len(ended) == len(hits) else hits[0]
    last = _last_release(conn, str(w["eol_release"])) if w.get("eol_release") else None
    facts = [{"feature": feature, "uses": ents.uses, "instances": ents.instances, "product": x["product"],
              "cycle": x["cycle"], "is_eol": x.get("is_eol"), "eol_from": x.get("eol_from"),
              "eol_release": x.get("eol_release"), "state": x.get("state"), "title": x.get("title"),
              "last_supported_release": _last_release(conn, str(x["eol_release"])) if x.get("eol_release") else None,
              "source_url": x.get("source_url")} for x in hits]
    ends = f"Neuron {w['eol_release']}" if w.get("eol_release") else None
    day = w.get("eol_from")
    if "last_release" in ents.cues and last:
        head = (f"**Neuron {last}** es la última versión con {what}: el soporte termina con {ends}"
                + (f" (publicada el {day})." if day else ".") if es else
                f"**Neuron {last}** is the last release with {what}: support ends with {ends}"
                + (f" (released {day})." if day else "."))
    elif w.get("is_eol") is True:
        until = (f"; la última versión con soporte es Neuron {last}" if es else f"; the last release with it is Neuron {last}") \
            if last else ""
        title = w.get("title") or what  # the statement's own title first, as the eol answers write it
        word = _ended_word(q.text, ents.english, es)
        head = (f"**{word}** — {title}: terminó con {ends or w.get('state')}" + (f" ({day})" if day else "") + f"{until}."
                if es else f"**{word}** — {title}: ended with {ends or w.get('state')}" + (f" ({day})" if day else "")
                + f"{until}.")
        if re.search(r"\bhow long\b|\buntil when\b", ents.english.lower()) and last:
            head = (f"**Hasta Neuron {last}** — {what} terminó con {ends}" + (f" ({day})." if day else ".") if es else
                    f"**Until Neuron {last}** — {what} ended with {ends}" + (f" ({day})." if day else "."))
    elif w.get("in_maintenance") or "maintenance" in (w.get("state") or ""):
        head = (f"**Sí, en modo de mantenimiento** — {w.get('title') or what}: {w.get('state')} (solo correcciones críticas)."
                if es else f"**Yes, in maintenance mode** — {w.get('title') or what}: {w.get('state')} (critical fixes only).")
    else:
        head = (f"**Sí, por ahora** — {what}: {w.get('state')}." if es else f"**Yes, for now** — {what}: {w.get('state')}.")
    by_family = _by_family(hits, ents.instances)
    both_uses = _by_use(hits, uses, conn, es) if len(uses) > 1 else None
    if both_uses:
        head = (f"**Depende del uso** — {label}: {both_uses}." if es else f"**It depends on the use** — {label}: {both_uses}.")
    elif len(by_family) > 1:  # "on trn2? and on inf2?": each family asked gets its own end, in the order asked (r11 q63)
        said = "; ".join(f"{fam}: {_family_end(x, conn, es)}" for fam, x in by_family)
        head = (f"**Depende de la familia de instancias** — {label}: {said}." if es
                else f"**It depends on the instance family** — {label}: {said}.")
    lines = [head, ""] + [_window_line(x, src, es) for x in hits]
    lines += [("- En otras familias de instancias: " if es else "- On other instance families: ")
              + _window_line(x, src, es)[2:] for x in others]
    if others:  # kept under the first fact: the facts list is the windows asked about
        facts[0]["other_families"] = [{"cycle": x["cycle"], "is_eol": x.get("is_eol"), "eol_from": x.get("eol_from"),
                                       "state": x.get("state"), "title": x.get("title")} for x in others]
    said = advice_line(hits, src, es)  # "use TorchNeuron … or vLLM Neuron": the record's own way out (29o)
    if said:
        lines.append(said)
        facts[0]["advice"] = advice(next(x.get("note") for x in hits if advice(x.get("note"))))
    if len(hits) > 1 and len(by_family) < 2 and not both_uses:
        lines.append("_Varias declaraciones coinciden; la primera decide el titular._" if es
                      else "_Several statements match; the first decides the headline._")
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), facts, src.items, language=ents.language)


def platform_answer(conn: sqlite3.Connection, q: Question, ents: Entities) -> Answer:
    """"Does TorchNeuron run on Trn1?": the platform matrix rows and the newest release's
    instance families."""
    from kb.eol import windows as eol

    es = ents.language == "es"
    src = Sources()
    facts = [f for f in eol.load_platform_facts(conn) if f["platform"].lower() in ents.instances]
    rows = [dict(r) for r in conn.execute(
        "SELECT * FROM release WHERE product = 'torchneuron' AND instance_families IS NOT NULL")]
    sdk = next((m.version for m in q.targets if m.target == "neuron" and m.version), None)
    presumed = ""
    if sdk and not releases.find(conn, "torchneuron", sdk):  # "on Neuron 2.29?": that release's matrix, not the newest
        matrix_of = sdk
        if not any(same_line(sdk, str(f["version"])) for f in facts):
            # "neuron 2.34 supports trn3?": a release stating no matrix is checked against the last one stated, as
            # `kb eol --stack` does, and said to be presumed (r27)
            matrix_of = eol.platform_matrix_of(eol.load_releases(conn), eol.load_platform_facts(conn), sdk) or sdk
        facts = [f for f in facts if same_line(matrix_of, str(f["version"]))]
        rows = [r for r in rows if same_line(sdk, str(r.get("sdk_version") or ""))] \
            or [r for r in rows if same_line(matrix_of, str(r.get("sdk_version") or ""))]
        if not facts and not rows:
            return _no_matrix(q, ents, sdk)
        if matrix_of != sdk:
            as_of = eol.releases_known_as_of(eol.load_releases(conn), "neuron-sdk") or "the KB's data"
            presumed = (f"_Neuron {sdk} no declara matriz propia a fecha de {as_of}; se presume la de {matrix_of}._" if es
                        else f"_Neuron {sdk} states no matrix of its own as of {as_of}; {matrix_of}'s is presumed._")
    newest = max(rows, key=lambda r: queries.version_key(r["version"])) if rows else None
    lines, heads, out = [], [], []
    for instance in ents.instances:
        mine = [f for f in facts if f["platform"].lower() == instance]
        listed = None
        if newest:
            import json

            families = [x.lower() for x in json.loads(newest["instance_families"])]
            listed = instance in families
            lines.append(f"- TorchNeuron {newest['version']} (Neuron {newest['sdk_version']}): "
                         + ("instancias " if es else "instances ") + ", ".join(json.loads(newest["instance_families"]))
                         + f" {src.cite(newest)}")
        for f in mine:
            lines.append(f"- Neuron {f['version']} " + ("matriz de plataformas" if es else "platform matrix")
                         + f": {f['platform']} — {f['status']}" + (f" ({quoted(f['note'])})" if f.get("note") else "")
                         + " " + src.cite({"source_kind": "manual", "source_name": "platform matrix",
                                           "source_url": f.get("source_url"), "retrieved_at": f.get("retrieved_at")}))
        status = (mine[0]["status"].lower() if mine else "")
        yes = status.startswith("supported") or (not mine and listed)
        no = status.startswith(("not supported", "unsupported", "end")) or (not mine and listed is False)
        word = ("**Sí**" if es else "**Yes**") if yes and not no else ("**No**" if no else
                                                                       ("**Desconocido**" if es else "**Unknown**"))
        if presumed and (yes or no):  # another release's matrix: our presumption, not the vendor's word for this one
            word = {"**Sí**": "**Presumiblemente sí**", "**Yes**": "**Presumably yes**", "**No**":
                    "**Presumiblemente no**" if es else "**Presumably no**"}[word]
        said = (STATUS_ES.get(mine[0]["status"].lower(), quoted(mine[0]["status"])) if es else mine[0]["status"]) \
            if mine else ""
        if not mine and listed is False and newest:  # "¿la 2.34 va en inf2?": why not, in the same line (attacker s13)
            listed_as = ", ".join(json.loads(newest["instance_families"]))
            said = f"no está entre sus instancias ({listed_as})" if es else f"not among its instances ({listed_as})"
        heads.append(f"{word} — TorchNeuron {'en' if es else 'on'} {instance.capitalize()}"
                     + (f" (Neuron {mine[0]['version']})" if mine and sdk else "") + (f": {said}" if said else ""))
        out.append({"product": "torchneuron", "instance": instance, "status": mine[0]["status"] if mine else
                    ("listed" if listed else "not listed" if listed is False else "unknown"),
                    "release": newest["version"] if newest else None})
    head = "; ".join(heads) + "." if heads else ("**Desconocido**." if es else "**Unknown**.")
    if presumed:
        out.append({"presumed_matrix": {"release": sdk, "from": facts[0]["version"] if facts else None}})
    return Answer(q.text, "support", "\n".join([head] + ([presumed] if presumed else []) + [""] + lines) + src.markdown(),
                  out, src.items, language=ents.language)


def _no_matrix(q: Question, ents: Entities, sdk: str) -> Answer:
    """An instance family asked of a Neuron release the KB has no platform matrix or TorchNeuron
    release for: unknown, said as such, with the command that lists what it has."""
    es = ents.language == "es"
    fams = ", ".join(i.capitalize() for i in ents.instances)
    text = (f"**Desconocido** — el KB no tiene matriz de plataformas ni versión de TorchNeuron para Neuron {sdk}, así que "
            f"no puede decir si {fams} está soportado ahí. `kb eol --stack \"neuron={sdk} {ents.instances[0]}\"`" if es else
            f"**Unknown** — the KB has no platform matrix or TorchNeuron release for Neuron {sdk}, so it cannot say "
            f"whether {fams} is supported there. `kb eol --stack \"neuron={sdk} {ents.instances[0]}\"`")
    return Answer(q.text, "support", text, [{"sdk": sdk, "instances": ents.instances, "status": "unknown"}],
                  language=ents.language)
