"""The readings kb.chat.scoring ranks above the classic routing: cost, policy, a feature
line's end of support, a product on an instance family, a platform's end of support, a list
of ops at a version, a model by name. Each goes to its own answer module; the close second
reading, when there is one, is named in one line at the end of the answer.
"""

from __future__ import annotations

import sqlite3

from kb.chat.answer_cost import cost_answer
from kb.chat.answer_eol import eol_answer
from kb.chat.answer_feature import feature_answer
from kb.chat.answer_model import model_answer, named_model_answer
from kb.chat.answer_policy import policy_answer
from kb.chat.entities import Entities
from kb.chat.intents import Question, asks_upstream
from kb.chat.list_filter import name_filter
from kb.chat.reply import Answer
from kb.chat.scoring import Reading, list_status

KIND_WORDS = {
    "en": {"cost": "a cost question", "policy": "a question about the fallback policy",
           "feature_eol": "an end-of-support question", "feature_on": "a support question",
           "platform_eol": "an end-of-support question", "ops_list": "a list of ops", "model": "a model question",
           "op": "an op question"},
    "es": {"cost": "una pregunta de costo", "policy": "una pregunta sobre la política de fallback",
           "feature_eol": "una pregunta de fin de soporte", "feature_on": "una pregunta de soporte",
           "platform_eol": "una pregunta de fin de soporte", "ops_list": "una lista de ops",
           "model": "una pregunta sobre un modelo", "op": "una pregunta sobre un op"},
}


def scored_answer(conn: sqlite3.Connection, q: Question, ents: Entities, top: Reading,
                  allow_files: bool = False) -> Answer | str | None:
    """The answer for the reading `top`; the name of a classic handler to answer it with (the
    question's reading adjusted for it); or None to leave the question to the classic routing."""
    if top.intent == "cost":
        return cost_answer(conn, q, ents)
    if top.intent == "policy":
        return policy_answer(conn, q, ents)
    if top.intent in ("feature_eol", "feature_on"):
        return feature_answer(conn, q, ents)
    if top.intent == "platform_eol":
        q.intent = "eol"
        return platform_headline(eol_answer(conn, q), ents.language)
    if top.intent == "ops_list":  # "list what TorchTPU 0.1.1 can't run" = kb ops --target tpu=0.1.1 --status unsupported
        status = list_status(ents.english) or "fallback"
        q.statuses = [status] + [s for s in q.statuses if s != status]
        named = name_filter(conn, q.text)
        if named is not None and named.kind == "family":  # "list the conv ops tpu can't run": the family's list (29k)
            q.intent = "family"
            return "family"
        q.intent = "ops_by_status"
        return "ops_by_status"
    if top.intent == "model":
        if allow_files and q.model_path:
            return None  # a model file on this machine: kb check reads it (classic routing)
        return gallery_answer(conn, q, ents) or named_model_answer(conn, q, ents) or model_answer(conn, q)
    return None


def platform_headline(result: Answer, lang: str) -> Answer:
    """"When does support of Python 3.10 end on Neuron?": the vendor's end (the release it
    ended with) first, then the platform's own end of life, above the stack listing."""
    vendor = next((f for f in result.facts if f.get("eol_release") and f.get("product") in PLATFORM_NAMES), None)
    if vendor is None or asks_upstream(result.question or ""):  # "Python 3.9 itself": its own end leads (29r)
        return result
    several = _vendor_ends(result)
    if len(several) > 1:  # "pytorch 2.5 y python 3.10": each one's end, in the order asked (s15)
        return _several_headline(result, several, lang)
    name = f"{PLATFORM_NAMES[vendor['product']]} {vendor['cycle']}"
    day = f" ({vendor['eol']})" if vendor.get("eol") else ""
    upstream = next((f for f in result.facts if f is not vendor and f.get("product") == vendor["product"]
                     and str(f.get("cycle")) == str(vendor["cycle"]) and not f.get("eol_release") and f.get("eol")), None)
    own = ""
    if upstream:
        own = (f"; fin de vida propio de {name}: {upstream['eol']}" if lang == "es"
               else f"; {name}'s own end of life: {upstream['eol']}")
    if vendor.get("is_eol") is True:
        head = (f"**Terminó con Neuron {vendor['eol_release']}**{day} — el soporte de {name} en Neuron{own}."
                if lang == "es" else f"**Ended with Neuron {vendor['eol_release']}**{day} — Neuron's support of {name}{own}.")
    else:
        head = (f"**Termina con Neuron {vendor['eol_release']}** — el soporte de {name} en Neuron{own}." if lang == "es"
                else f"**Ends with Neuron {vendor['eol_release']}** — Neuron's support of {name}{own}.")
    body = result.text
    if body.startswith("**") and not body.startswith("**`"):  # one headline: the vendor's end says it (r3-29)
        body = body.partition("\n")[2].lstrip("\n")
    result.text = head + "\n\n" + body
    return result


def _vendor_ends(result: Answer) -> list[dict]:
    """The vendor's end of each platform version the question names, once each, in the order asked."""
    text = (result.question or "").lower()
    seen: dict[tuple[str, str], dict] = {}
    for f in result.facts:
        if f.get("eol_release") and f.get("product") in PLATFORM_NAMES and str(f.get("cycle")) in text:
            seen.setdefault((f["product"], str(f["cycle"])), f)
    return sorted(seen.values(), key=lambda f: text.find(str(f["cycle"])))


def _several_headline(result: Answer, vendors: list[dict], lang: str) -> Answer:
    """One headline line naming the Neuron release each asked platform version ended (or ends) with."""
    parts = []
    for f in vendors:
        name = f"{PLATFORM_NAMES[f['product']]} {f['cycle']}"
        day = f" ({f['eol']})" if f.get("eol") else ""
        if lang == "es":
            verb = "terminó" if f.get("is_eol") is True else "termina"
            parts.append(f"**{name}: {verb} con Neuron {f['eol_release']}**{day}")
        else:
            verb = "ended" if f.get("is_eol") is True else "ends"
            parts.append(f"**{name}: {verb} with Neuron {f['eol_release']}**{day}")
    body = result.text
    if body.startswith("**") and not body.startswith("**`"):
        body = body.partition("\n")[2].lstrip("\n")
    result.text = " · ".join(parts) + ".\n\n" + body
    return result


PLATFORM_NAMES = {"python": "Python", "ubuntu": "Ubuntu", "pytorch": "PyTorch", "amazon-linux": "Amazon Linux"}


def gallery_models(text: str) -> list[str]:
    """Models the gallery (kb.chat.answer_gallery, when this checkout has it) finds in a question,
    beyond the architectures kb.chat.entities names itself."""
    try:
        from kb.chat import answer_gallery
    except ImportError:
        return []
    return list(answer_gallery.find_models(text) or [])


def gallery_answer(conn: sqlite3.Connection, q: Question, ents: Entities) -> Answer | None:
    """The model gallery's answer (kb.chat.answer_gallery, its own issue) when this checkout has it."""
    try:
        from kb.chat import answer_gallery
    except ImportError:
        return None
    result = answer_gallery.gallery_answer(conn, q.text, q.target_names(), lang=ents.language)
    if result is not None:
        result.language = ents.language
    return result


def with_other_reading(result: Answer, other: Reading, lang: str) -> Answer:
    """One line naming the close second reading, above the sources."""
    words = KIND_WORDS.get(lang, KIND_WORDS["en"])
    command = getattr(other, "command", "")
    how = (f": `{command}`" if command else "")  # the command that answers it (slice 29g)
    line = (f"_También podría leerse como {words.get(other.intent, other.intent)} ({other.why}); pregunta solo por "
            f"eso para esa respuesta{how}._" if lang == "es" else
            f"_This could also be read as {words.get(other.intent, other.intent)} ({other.why}); ask about that "
            f"alone for that answer{how}._")
    body, sep, sources = result.text.partition("\n\n**Sources**")
    if not sep:
        body, sep, sources = result.text.partition("\n\n**Fuentes**")
    result.text = body + "\n\n" + line + (sep + sources if sep else "")
    result.other_reading = other.intent
    return result
