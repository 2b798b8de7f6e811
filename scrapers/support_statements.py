"""Reading end-of-support statements ("Neuron no longer supports Python 3.10 starting
with Neuron 2.30", "Neuron release 2.26 will be the last release that includes PyTorch
NeuronX 2.6", "… starting next release") into `SupportWindow` rows.

Shared by the announcements scraper (one statement per page) and the release notes
scraper (statements inside bullets). Two questions per statement:
  what ends — a product and its cycles (`subjects`), and
  when — a release that ends it, a date, or only a projection (`effect`).
"ends with release X" keeps X as `eol_release` with kind `with_release`; the KB turns
it into a date once release X has one. A statement that takes effect "this release"
takes the statement's own date (kind `announced`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.store.records import Provenance, SupportWindow

_VERSION = r"(\d+\.\d+(?:\.\d+)?)"
_NEURON_RELEASE = (r"Neuron\s+(?:SDK\s+)?(?:[Rr]elease\s+|[Vv]ersion\s+)?" + _VERSION)
_STARTING = re.compile(r"(?:starting|beginning|from|effective)\s+(?:with\s+|from\s+|in\s+)?(?:the\s+)?(?:AWS\s+)?"
                       + _NEURON_RELEASE, re.I)
_SINCE = re.compile(r"\bsince\s+(?:the\s+)?(?:AWS\s+)?(?:Neuron\s+)?(?:SDK\s+)?(?:[Rr]elease\s+|[Vv]ersion\s+)?"
                    + _VERSION, re.I)
_IN_RELEASE = re.compile(r"\b(?:in|with)\s+(?:the\s+)?(?:AWS\s+)?" + _NEURON_RELEASE + r"(?:\s+release)?", re.I)
_LAST = re.compile(_NEURON_RELEASE + r"\s+(?:will\s+be|is|was)\s+the\s+(?:last|final)\s+release", re.I)
_THIS = re.compile(r"\b(?:(?:starting|from|beginning|effective)\s+(?:with\s+)?|with\s+|as\s+of\s+|in\s+)"
                   r"(?:this|the\s+current)\s+release\b", re.I)
_NEXT = re.compile(r"\b(?:next|future|upcoming|coming)\s+(?:Neuron\s+)?releases?\b|\bin\s+a\s+future\b|\bintent\b", re.I)
_PAST = re.compile(r"\bno longer (?:supports?|supported|includes?|publishes?)\b|\bis now end of life\b|\bare now end of life\b"
                   r"|\breached end of (?:support|life)\b|\b(?:have|has) been removed\b", re.I)
_MAINTENANCE = re.compile(r"maintenance mode", re.I)


@dataclass(frozen=True)
class Subject:
    product: str
    cycle: str


def _numbers_after(pattern: str, text: str) -> list[str]:
    """Version numbers listed right after a name: "PyTorch versions 2.7 and 2.8" → 2.7, 2.8."""
    m = re.search(pattern + r"\s+(?:versions?\s+)?(" + r"\d+(?:\.\d+|\.x)*" + r"(?:\s*(?:,|and|&)\s*\d+(?:\.\d+|\.x)*)*)",
                  text, re.I)
    if not m:
        return []
    return re.findall(r"\d+(?:\.\d+|\.x)*", m[1])


def _ubuntu_cycle(text: str) -> str | None:
    m = re.search(r"Ubuntu\s*(\d{2})(?:\.(\d{2}))?", text, re.I)
    return f"{m[1]}.{m[2] or '04'}" if m else None


def slug(text: str) -> str:
    words = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")
    return re.sub(r"-{2,}", "-", words)[:60].strip("-") or "unnamed"


_LEAD = re.compile(r"^(?:announcing\s+)?(?:the\s+)?(?:upcoming\s+)?(?:end[- ]of[- ](?:support|life)|deprecation|"
                   r"maintenance mode|no longer supports?|no longer includes?|no longer publishes?|"
                   r"neuron no longer (?:supports|includes|publishes)(?: support for)?)\s*(?:for|of)?\s*", re.I)
_TAIL = re.compile(r"\s*(?:,|\bstarting\b|\bbeginning\b|\beffective\b|\bin (?:a |the )?(?:future|next|upcoming)\b|"
                   r"\bcoming\b|\bend[- ]of[- ](?:support|life)\s*$|\bin neuron\b|\bwith neuron\b|\bno longer supported\b|\bis now\b|\bare now\b|\benters?\b).*$", re.I)


def subject_slug(title: str) -> str | None:
    """A stable name for what a title says ends, for subjects kb has no product for:
    "Neuron Explorer Replaces Neuron Profiler, Starting with Neuron 2.29" and the same
    notice re-issued for 2.30.0 get the same slug, so the newer statement replaces the
    older one."""
    text = rst_free(title)
    text = re.sub(r"\s+(?:from|in|for)$", "", _LEAD.sub("", _TAIL.sub("", text)).strip(), flags=re.I)
    return slug(text) if text else None


def rst_free(text: str) -> str:
    return re.sub(r"[`*]", "", re.sub(r"\([^)]*\)", " ", text)).strip()


def subjects(title: str, fallback: str) -> list[Subject]:
    """What a statement's title says ends. Unrecognised subjects become product
    `neuron-feature` with the `fallback` slug as cycle (never dropped silently)."""
    text = re.sub(r"\([^)]*\)", " ", title)  # "(PyTorch 2.10)" qualifies a release, it is not the subject
    text = text.replace("`", "")
    # What follows "starting with …" says when, not what: "… APIs Starting with PyTorch 2.10".
    text = re.split(r"\b(?:starting|beginning|effective)\b", text, maxsplit=1, flags=re.I)[0]
    inner = _plain_subjects(text)
    # "Ubuntu 22.04 DLAMIs", "PyTorch 2.1 DLCs": the images end, not Ubuntu or PyTorch.
    images = [name for name, pattern in (("neuron-dlc", r"\bDLCs?\b|Deep Learning Containers?"),
                                         ("neuron-dlami", r"\b(?:DL)?AMIs?\b|Deep Learning AMIs?"))
              if re.search(pattern, text)]
    if images and inner:
        return [Subject(image, f"{s.product}-{s.cycle}") for image in images for s in inner]
    return inner or [Subject("neuron-feature", subject_slug(title) or fallback)]


def _plain_subjects(text: str) -> list[Subject]:
    """Products kb knows by name (PyTorch/XLA, Ubuntu, Python, PyTorch, TensorFlow...)."""
    if re.search(r"(?:PyTorch|Torch)\s*/\s*XLA", text, re.I):
        cycle = "training" if re.search(r"training", text, re.I) else "inference" if re.search(r"inference", text, re.I) else "all"
        return [Subject("torch-neuronx-xla", cycle)]
    if cycle := _ubuntu_cycle(text):
        return [Subject("ubuntu", cycle)]
    if versions := _numbers_after(r"\bPython", text):
        return [Subject("python", v) for v in versions]
    if re.search(r"Amazon Linux 2\b|\bAL2\b", text):
        return [Subject("amazon-linux", "2")]
    if versions := (_numbers_after(r"\btorch-neuron\b(?!x)", text) or _numbers_after(r"PyTorch Neuron(?!X)", text)):
        return [Subject("torch-neuron", v) for v in versions]
    if versions := _numbers_after(r"PyTorch(?: NeuronX)?", text):
        return [Subject("pytorch", v) for v in versions]
    if versions := _numbers_after(r"Tensorflow(?:-Neuron)?", text):
        return [Subject("tensorflow-neuron", v) for v in versions]
    if versions := _numbers_after(r"\bJAX", text):
        return [Subject("jax", v) for v in versions]
    return []


@dataclass(frozen=True)
class Effect:
    eol: str | None
    eol_kind: str | None
    eol_release: str | None
    note: str


def _next_minor(version: str) -> str:
    major, minor = version.split(".")[:2]
    return f"{major}.{int(minor) + 1}"


def effect(title: str, body: str, statement_date: str | None) -> Effect:
    """When the statement takes effect. An explicit release in the title wins, then a
    "X is the last release" statement, then a release named in the body; "this release"
    adds the statement's date; otherwise a future release is only projected."""
    both = f"{title} {body}"
    title_release = _STARTING.search(title) or _SINCE.search(title) or _IN_RELEASE.search(title)
    last = _LAST.search(both)
    body_release = _STARTING.search(body) or _SINCE.search(body) or _IN_RELEASE.search(body)
    this = bool(_THIS.search(both)) and statement_date is not None
    if title_release or (body_release and not last):
        release = (title_release or body_release)[1]
        if this:
            return Effect(statement_date, "announced", release, f"ends with Neuron {release}, released with this statement")
        return Effect(None, "with_release", release, f"ends with Neuron {release}")
    if last:
        return Effect(None, "with_release", _next_minor(last[1]),
                      f"last supported in Neuron {last[1]}; ends with the next minor release (inferred)")
    if this:
        return Effect(statement_date, "announced", None, "takes effect with the release published on the statement date")
    if _NEXT.search(title) or _NEXT.search(body):
        return Effect(None, "projected", None, "ends in a future release (no version stated)")
    if (_PAST.search(title) or _PAST.search(body)) and statement_date:
        return Effect(statement_date, "announced", None, "stated as already ended on the statement date")
    return Effect(None, "projected", None, "no release or date stated")


def windows(title: str, body: str, *, statement_date: str | None, provenance: Provenance,
            fallback_slug: str) -> list[SupportWindow]:
    """SupportWindow rows for one statement (one per subject cycle)."""
    when = effect(title, body, statement_date)
    maintenance = bool(_MAINTENANCE.search(title)) and not re.search(r"end of support|no longer", title, re.I)
    rows = []
    for subject in subjects(title, fallback_slug):
        if maintenance:
            # Maintenance mode ends active support, not the product's life.
            rows.append(SupportWindow(
                product=subject.product, cycle=subject.cycle, provenance=provenance,
                support_end=when.eol, statement_date=statement_date, title=title,
                note=f"maintenance mode: {when.note}",
            ))
            continue
        rows.append(SupportWindow(
            product=subject.product, cycle=subject.cycle, provenance=provenance,
            eol=when.eol, eol_kind=when.eol_kind, eol_release=when.eol_release,
            statement_date=statement_date, title=title, note=when.note,
        ))
    return rows
