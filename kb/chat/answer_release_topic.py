"""Release questions by product or topic (issue #29, slice 29m): "what changed for PyTorch/XLA
users with Neuron 2.34?", "¿qué cambió en 2.34 para quien usa NxD Inference?" — the records of
one Neuron SDK release filtered to the product asked: its package releases in that SDK, the
release notes' words about it, the end-of-support notices that end with the release, the
limitations recorded for it, and TorchNeuron's op changes when TorchNeuron is asked. An answer
about the whole SDK (kb.chat.answer_sdk_news) buries the one line a PyTorch/XLA user needs.

Also the headline of a product release asked for its requirements or its date ("what does
torch_tpu 0.2.0 require?", "when was torch_tpu 0.2.0 released?"): the support-matrix lists or the
record's own words, and the date, first (kb.chat.answer_release writes the rest).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from kb.chat.answer_eol import _window_lines, ends_with
from kb.chat.answer_sdk_news import NEWS, _torchneuron_changes
from kb.chat.intents import Question
from kb.chat.reply import Answer, Sources, quoted
from kb.store import releases


@dataclass(frozen=True)
class Topic:
    label: str  # how answers name it
    products: tuple[str, ...]  # its registry products (release.product)
    words: re.Pattern  # how questions name it (English reading)
    window_products: tuple[str, ...] = ()  # kb.eol window products that are its own
    targets: tuple[str, ...] = ()  # limitation.target rows that are its own
    label_es: str = ""  # its name in a Spanish answer, when not a product name
    generic: bool = False  # a use (inference, training), not a product: yields to a product named with it

    def name(self, lang: str) -> str:
        return self.label_es if lang == "es" and self.label_es else self.label


def _words(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I)


# A product or component of a Neuron SDK release, as people name it. Order matters where one name
# contains another: NxD Inference / Training before NxD Core, PyTorch/XLA before TorchNeuron.
TOPICS = (
    Topic("PyTorch/XLA", ("torch-neuronx-xla", "torch-xla"),
          _words(r"\bpytorch ?/ ?xla\b|\btorch[-_ ]?xla\b|\bpytorch[- ]xla\b|\bneuron[- ]xla\b|\bxla\b"),
          ("torch-neuronx-xla",), ("neuron-xla",)),
    Topic("NxD Inference", ("neuronx-distributed-inference",),
          _words(r"\bnxd[- ]?i\b|\bnxd[- ]inference\b|\bneuronx[- ]distributed[- ]inference\b"), ("nxd-inference",)),
    Topic("NxD Training", ("neuronx-distributed-training",),
          _words(r"\bnxd[- ]?t\b|\bnxd[- ]training\b|\bneuronx[- ]distributed[- ]training\b"), ("nxd-training",)),
    Topic("NxD Core", ("neuronx-distributed",),
          _words(r"\bnxd(?:[- ]core)?\b(?![- ]?(?:i|t|inference|training)\b)|\bneuronx[- ]distributed\b"
                 r"(?![- ](?:inference|training))")),
    Topic("TorchAO Neuron", ("torchao-neuron",), _words(r"\btorchao\b|\btorch\.ao\b|\bquantiz\w*|\bmxfp8\b")),
    Topic("TorchNeuron", ("torchneuron",),
          _words(r"\btorch ?neuron\b(?![- ]?x)|\btorch[-_]neuronx\b(?![-_ ]xla)|\bnative (?:pytorch|backend)\b"),
          (), ("neuron",)),
    Topic("NKI", ("nki",), _words(r"\bnki\b"), ("nki",)),
    Topic("the Neuron compiler", ("neuronx-cc",), _words(r"\bneuronx[- ]cc\b|\bcompiler\b"),
          label_es="el compilador de Neuron (neuronx-cc)"),
    Topic("JAX", ("jax-neuronx",), _words(r"\bjax\b"), ("jax",)),
    Topic("vLLM", (), _words(r"\bvllm\b")),
    Topic("the Neuron tools", ("neuron-tools",), _words(r"\bneuron[- ]ls\b|\bneuron[- ]top\b|\bneuron tools\b|"
                                                      r"\bexplorer\b|\bprofiler\b"),
          label_es="las herramientas de Neuron"),
    Topic("the Neuron runtime", ("neuron-runtime",), _words(r"\bruntime\b"), label_es="el runtime de Neuron"),
    Topic("the Deep Learning Containers", ("neuron-dlc",), _words(r"\bdlcs?\b|\bcontainers?\b"),
          label_es="los Deep Learning Containers"),
    Topic("inference", (), _words(r"\binference\b|\bserving\b|\bserve\b"), label_es="inferencia", generic=True),
    Topic("training", (), _words(r"\btraining\b|\bfine-?tun\w*|\btrain\b"), label_es="entrenamiento", generic=True),
)

# What makes a question about a release ask how it changed things (not whether an op runs).
CHANGE_CUES = re.compile(NEWS.pattern + r"|\bch(?:ang|agn|nag|ag)\w*|\busers?\b|\bdeprecat\w*|\bremov\w*|\bdropped\b|\bdrop\b"
                         r"|\bimpact\w*|\baffect\w*|\bmean for\b|\bbreaking\b|\bupdates?\b|\bbr(?:ing|ings|ought)\b",
                         re.I)

SAY = {
    "en": {"head": "**Neuron SDK {v} for {label}** — released {date} {cite}: {summary}.",
           "nodate": "on a date the KB lacks", "and": " and ",
           "n_pkgs": "{n} {label} release{s} in it", "no_pkg": "no {label} release in it that the KB knows",
           "n_ends": "{n} end-of-support notice{s} for it end{s2} with it", "no_ends": "no end-of-support notice for it "
           "ends with it", "pkgs": "{label} in Neuron SDK {v}:", "none_pkg": "- the release registry has no {label} "
           "release shipped in Neuron SDK {v}; the newest it has is {p} {pv}{sdk} {cite}",
           "none_pkg_at_all": "- the release registry has no {label} release at all",
           "sdk_of": " (Neuron SDK {sdk})", "notes": "The release notes on it: {text} {cite}",
           "ends": "Ends with Neuron {v} for {label} ({n}):", "limits": "Recorded limitations of {label} in Neuron SDK {v}:",
           "other": "_Other parts of Neuron SDK {v}: `kb ask \"what's new in Neuron {v}?\"` lists them all._"},
    "es": {"head": "**Neuron SDK {v} para {label}** — publicada el {date} {cite}: {summary}.",
           "nodate": "en una fecha que el KB no tiene", "and": " y ",
           "n_pkgs": "{n} versión{es} de {label} incluida{s}", "no_pkg": "ninguna versión de {label} que el KB conozca",
           "n_ends": "{n} aviso{s} de fin de soporte suyo{s} termina{n2} con ella",
           "no_ends": "ningún aviso de fin de soporte suyo termina con ella", "pkgs": "{label} en Neuron SDK {v}:",
           "none_pkg": "- el registro de versiones no tiene ninguna versión de {label} incluida en Neuron SDK {v}; la "
           "más reciente que tiene es {p} {pv}{sdk} {cite}",
           "none_pkg_at_all": "- el registro de versiones no tiene ninguna versión de {label}",
           "sdk_of": " (Neuron SDK {sdk})", "notes": "Las notas de la versión sobre ello: {text} {cite}",
           "ends": "Lo que termina con Neuron {v} para {label} ({n}):",
           "limits": "Limitaciones registradas de {label} en Neuron SDK {v}:",
           "other": "_El resto de Neuron SDK {v}: `kb ask \"novedades de neuron {v}\"` lo lista todo._"},
}


def topics_in(text: str) -> list[Topic]:
    """The products a question names, in the order TOPICS lists them (each once); a use
    (inference, training) only when it names no product ("NxD Inference" is the product)."""
    found = [t for t in TOPICS if t.words.search(text)]
    products = [t for t in found if not t.generic]
    return products or found


def _sdk_version(conn: sqlite3.Connection, q: Question) -> str | None:
    """A Neuron SDK release the question names ("Neuron 2.34", "in 2.34"): a version of
    neuron-sdk that is no TorchNeuron version."""
    asked = [m.version for m in q.targets if m.version] + list(q.versions)
    for version in asked:
        if re.fullmatch(r"2\.\d{2}(?:\.\d+)?", version or "") and releases.find(conn, "neuron-sdk", version) \
                and not releases.find(conn, "torchneuron", version):
            return version
    return None


def topic_question(conn: sqlite3.Connection, q: Question) -> tuple[str, list[Topic]] | None:
    """(SDK version, products asked) when the question asks what a Neuron SDK release changed for
    a product; None for op questions and for questions about the whole release."""
    if q.op_words or q.function_words or not CHANGE_CUES.search(q.text):
        return None
    version = _sdk_version(conn, q)
    found = topics_in(q.text) if version else []
    return (version, found) if found else None


def topic_answer(conn: sqlite3.Connection, q: Question) -> Answer | None:
    asked = topic_question(conn, q)
    if asked is None:
        return None
    from kb.eol import windows as eol

    version, topics = asked
    found = releases.find(conn, "neuron-sdk", version)  # "2.29": the 2.29.0 release the line is named for
    sdk = next((r for r in found if r["version"] in (version, version + ".0")), found[0])
    lang = "es" if getattr(q, "language", "en") == "es" else "en"
    say = SAY[lang]
    src = Sources()
    facts: list[dict[str, Any]] = [{"product": "neuron-sdk", "version": sdk["version"], "date": sdk.get("date"),
                                    "topics": [t.label for t in topics]}]
    label = say["and"].join(t.name(lang) for t in topics)
    products = {p for t in topics for p in t.products}
    parts = [c for c in releases.in_sdk(conn, sdk["version"]) if c["product"] in products]
    ended = [w for w in ends_with(conn, version, eol) if _is_about(w, topics)]
    limits = _limitations(conn, sdk["version"], topics)
    sdk_cite = src.cite(sdk)
    body: list[str] = []
    if parts:
        body.append(say["pkgs"].format(label=label, v=sdk["version"]))
        for c in parts:
            body.append(f"- {c['product']} {c['version']}{_ships(c)} {src.cite(c)}")
            if c.get("note"):
                body.append(f"  - {quoted(c['note'])}")
            facts.append({"product": c["product"], "version": c["version"], "sdk_version": sdk["version"]})
    elif products:
        body += _no_package(conn, topics, sdk["version"], say, src, facts)
    notes = [piece.strip() for piece in (sdk.get("note") or "").split(";") if any(t.words.search(piece) for t in topics)]
    if notes:  # the first piece that names it: the release notes' own list of what they cover
        body.append(say["notes"].format(text=quoted(notes[0]), cite=sdk_cite))
    if ended:
        body.append(say["ends"].format(v=version, label=label, n=len(ended)))
        body += _window_lines(ended, src, bold=False, notes=True)
        facts += [{"ends_with": version, "title": w.get("title"), "eol": w.get("eol_from")} for w in ended]
    if limits:
        body.append(say["limits"].format(label=label, v=sdk["version"]))
        for row in limits:
            body.append(f"- {quoted(row['feature'])}: {quoted(row['status'])}"
                        + (f" — {quoted(row['note'])}" if row.get("note") else "") + f" {src.cite(row)}")
            facts.append({"feature": row["feature"], "status": row["status"], "source_url": row.get("source_url")})
    if any(t.label == "TorchNeuron" for t in topics):
        body += _torchneuron_changes(conn, parts, facts)
    summary = [_count(say, "n_pkgs", len(parts), label) if parts else say["no_pkg"].format(label=label)] \
        if products else []  # a use (inference) has no package of its own
    summary.append(_count(say, "n_ends", len(ended), label) if ended else say["no_ends"])
    head = say["head"].format(v=sdk["version"], label=label, date=sdk.get("date") or say["nodate"], cite=sdk_cite,
                              summary="; ".join(summary))
    lines = [head, *body, say["other"].format(v=version.rsplit(".0", 1)[0] if version.count(".") > 1 else version)]
    return Answer(q.text, "release", "\n".join(lines) + src.markdown(), facts, src.items)


def _count(say: dict[str, str], key: str, n: int, label: str) -> str:
    one = n == 1
    return say[key].format(n=n, label=label, s="" if one else "s", s2="s" if one else "", es="" if one else "es",
                           n2="" if one else "n")


def _ships(c: dict[str, Any]) -> str:
    bits = [c["channel"]] if c.get("channel") else []
    for key, name in (("torch_versions", "PyTorch"), ("python_versions", "Python"), ("instance_families", ""),
                      ("os", "")):
        if c.get(key):
            bits.append(f"{name} {', '.join(c[key])}".strip())
    if c.get("date"):
        bits.append(c["date"])
    return f" ({'; '.join(bits)})" if bits else ""


def _is_about(window: dict[str, Any], topics: list[Topic]) -> bool:
    """An end-of-support window is a product's when it is filed under that product or its title names it."""
    return any(window.get("product") in t.window_products or t.words.search(window.get("title") or "") for t in topics)


def _limitations(conn: sqlite3.Connection, sdk_version: str, topics: list[Topic]) -> list[dict[str, Any]]:
    """Limitation rows recorded for that SDK release and one of the products' targets."""
    targets = {x for t in topics for x in t.targets}
    if not targets:
        return []
    rows = conn.execute("SELECT l.target, l.feature, l.status, l.note, l.source_kind, l.source_name, l.source_url, "
                        "l.retrieved_at FROM limitation l JOIN release r ON r.id = l.release_id "
                        "WHERE r.product = 'neuron-sdk' AND r.version = ? ORDER BY l.id", (sdk_version,))
    return [dict(r) for r in rows if r["target"] in targets and not str(r["feature"]).startswith("policy:")]


def _no_package(conn: sqlite3.Connection, topics: list[Topic], sdk_version: str, say: dict[str, str], src: Sources,
                facts: list[dict[str, Any]]) -> list[str]:
    """No package of the product in that SDK: said, with the newest release of it the registry has."""
    out = []
    for topic in topics:
        newest = [r for r in (releases.latest(conn, p) for p in topic.products) if r]
        if not topic.products:
            continue
        if not newest:
            out.append(say["none_pkg_at_all"].format(label=topic.label))
            continue
        r = max(newest, key=lambda r: (r.get("sdk_version") or "", r.get("date") or ""))
        sdk = say["sdk_of"].format(sdk=r["sdk_version"]) if r.get("sdk_version") else ""
        out.append(say["none_pkg"].format(label=topic.label, v=sdk_version, p=r["product"], pv=r["version"], sdk=sdk,
                                          cite=src.cite(r)))
        facts.append({"product": r["product"], "version": r["version"], "sdk_version": r.get("sdk_version"),
                      "newest_of": topic.label})
    return out


# ---------------------------------------------------------------- requirements and date of one release

REQUIRES = re.compile(r"\brequir\w*|\bprerequisites?\b|\bdependenc\w*|\bdepends? on\b|\bneeds?\b|\bneed to install\b",
                      re.I)
WHEN = re.compile(r"\bwhen\b.*\b(?:released?|out|ship\w*|publish\w*|come out|came out|launch\w*|land\w*|arriv\w*)\b"
                  r"|\brelease date\b"
                  r"|\bdate of\b|\bwhat date\b", re.I)
# What a requirement question may name, and the words its record would use for it.
REQUIREMENT_ITEMS = (("Python", r"\bpython\b|\bcp3\d+|requires-python"), ("PyTorch", r"\b(?:py)?torch\b"),
                     ("JAX", r"\bjax\b"), ("libtpu", r"\blibtpu\b"), ("OS", r"\b(?:os|ubuntu|linux|manylinux)\b"),
                     ("CUDA", r"\bcuda\b"), ("NumPy", r"\bnumpy\b"), ("transformers", r"\btransformers\b"))
REQ_SAY = {
    "en": {"req": "**What {p} {v} requires**", "lists": "{what}", "record": "as its record states: {note}",
           "none": "**Unknown** — the registry lists no requirements for {p} {v}",
           "absent": "_{items}: not named in its record (the KB knows no such requirement for it)._",
           "when": "**{p} {v} was released {on} {date}**", "on": "on", "in": "in",
           "nowhen": "**Unknown** — the KB has no release date for {p} {v}"},
    "es": {"req": "**Lo que requiere {p} {v}**", "lists": "{what}", "record": "según su registro: {note}",
           "none": "**Desconocido** — el registro no da requisitos para {p} {v}",
           "absent": "_{items}: su registro no lo nombra (el KB no conoce tal requisito para ella)._",
           "when": "**{p} {v} se publicó {on} {date}**", "on": "el", "in": "en",
           "nowhen": "**Desconocido** — el KB no tiene fecha de publicación para {p} {v}"},
}


def aspect_headline(conn: sqlite3.Connection, q: Question, r: dict[str, Any], src: Sources) -> list[str]:
    """The headline lines for a release asked for its requirements or its date; [] otherwise."""
    lang = "es" if getattr(q, "language", "en") == "es" else "en"
    say = REQ_SAY[lang]
    cite = src.cite(r)
    if REQUIRES.search(q.text):
        if r["product"] == "neuron-sdk":
            return _sdk_requirements(conn, q, r, say, src)
        return _requirements(q, r, say, cite)
    if WHEN.search(q.text):
        if not r.get("date"):
            return [say["nowhen"].format(p=r["product"], v=r["version"]) + f" {cite}."]
        on = say["in"] if re.fullmatch(r"\d{4}(?:-\d{2})?", r["date"]) else say["on"]
        return [say["when"].format(p=r["product"], v=r["version"], on=on, date=r["date"]) + f" {cite}."]
    return []


def _requirements(q: Question, r: dict[str, Any], say: dict[str, str], cite: str) -> list[str]:
    """The support-matrix lists of the release (Python, PyTorch, OS, instances) and its record's
    own words where they state requirements; what the question names that neither has, said."""
    lists = [f"{name} {', '.join(r[key])}" for key, name in (("python_versions", "Python"), ("torch_versions", "PyTorch"),
                                                            ("os", "OS"), ("instance_families", "instances")) if r.get(key)]
    note = r.get("note") or ""
    stated = not lists and bool(re.search(r"\brequir\w*", note, re.I))  # the record's words when it lists nothing
    if not lists and not stated:
        return [say["none"].format(p=r["product"], v=r["version"]) + f" {cite}."]
    bits = ["; ".join(lists)] if lists else []
    if stated:
        bits.append(say["record"].format(note=quoted(note)))
    head = say["req"].format(p=r["product"], v=r["version"]) + ": " + "; ".join(bits) + f" {cite}."
    known = " ".join(lists) + " " + note
    absent = [name for name, pattern in REQUIREMENT_ITEMS if re.search(pattern, q.text, re.I)
              and not re.search(pattern, known, re.I)]
    return [head] + ([say["absent"].format(items=", ".join(absent))] if absent else [])


SDK_PACKAGES = ("torchneuron", "torchao-neuron", "torch-neuronx-xla", "neuronx-cc")


def _sdk_requirements(conn: sqlite3.Connection, q: Question, r: dict[str, Any], say: dict[str, str],
                      src: Sources) -> list[str]:
    """A Neuron SDK release lists no Python or PyTorch of its own; its PyTorch packages do."""
    parts = [c for c in releases.in_sdk(conn, r["version"]) if c["product"] in SDK_PACKAGES
             and (c.get("python_versions") or c.get("torch_versions"))]
    if not parts:
        return _requirements(q, r, say, src.cite(r))
    head = say["req"].format(p="Neuron SDK", v=r["version"]) + ": " + "; ".join(
        f"{c['product']} {c['version']} — " + "; ".join(
            f"{name} {', '.join(c[key])}" for key, name in (("python_versions", "Python"), ("torch_versions", "PyTorch"))
            if c.get(key)) + f" {src.cite(c)}" for c in parts) + "."
    return [head]
