"""Model questions answered from the gallery: "will Mixtral run on trn2?", "which popular
models need the CPU on tpu?" — without exporting anything.

`find_models` names the gallery models a question mentions (forgiving about spelling:
"llama 3 70b", "Mixtral", "gemma" → every Gemma); `gallery_answer` answers from their shipped
census with kb.check's own report (kb.gallery.views), citing the gallery entry (its config
source and what built it) and the sources of the verdicts that decide the answer. English or
Spanish (`lang="es"`); facts and sources are the same in both.
"""

from __future__ import annotations

import re
import sqlite3
from functools import lru_cache

from kb.chat.reply import MAX_LIST, Answer, Sources, quoted
from kb.gallery import views
from kb.neutral import markdown

# Words people use for a model that its slug does not start with.
ALIASES = {
    "all-minilm-l6-v2": ("minilm", "sentence transformers", "sentence-transformers"),
    "sd15-unet": ("stable diffusion", "sd 1.5", "sd1.5", "unet"),
    "pythia-1.4b": ("pythia", "gpt neox", "gpt-neox", "neox"),
    "dit-xl-2": ("dit",),
    "flan-t5-base": ("flan",),
    "wav2vec2-base": ("wav2vec", "wav2vec2"),
    "qwen1.5-moe-a2.7b": ("qwen moe", "qwen1.5 moe"),
    "qwen3-30b-a3b": ("qwen moe", "qwen3 moe"),
    "mixtral-8x7b": ("mixtral",),
    "gpt2": ("gpt-2", "gpt 2"),
}
# The word before a model's own tokens when its slug starts with something vaguer.
FAMILY_OVERRIDE = {"all-minilm-l6-v2": "minilm", "xlm-roberta-base": "xlm"}
TARGET_WORDS = {"neuron": ("trn1", "trn2", "trn3", "trainium", "neuron", "inf2", "aws"),
                "tpu": ("tpu", "tpus", "torchtpu", "torch_tpu")}
LIST_QUESTION = re.compile(r"\b(which|what|list|cu[aá]les|qu[eé])\b.*\b(models?|modelos?|architectures?|arquitecturas?)\b")
CPU_WORDS = re.compile(r"\b(cpu|host|fall ?backs?|fall back|falls back|need|necesitan|no corren|don'?t run|do not run)\b")
FULL_WORDS = re.compile(r"\b(fully|entirely|completely|run fully|enteros?|completos?|completamente|al 100|100 ?%)(?:\b|(?<=%))"
                        r"|\b100 ?%|\bend[- ]to[- ]end\b|\bpor completo\b")

FALLBACK_ASKED = re.compile(r"\b(?:any|some) (?:cpu )?fall ?backs?\b|\bfalls? back\b|\bcae[n]? a (?:la )?cpu\b"
                            r"|\b(?:anything|something|algo) (?:falling|fall) back\b|\balgo (?:cae|se va) a (?:la )?cpu\b"
                            r"|\bhace[n]? fallback\b|\bfallbacks?\s*\?")
# The headline of a model with no op on the host, when the question asks about fallbacks.
NO_FALLBACK = {"en": ("**No fallbacks** — {name} runs fully on the device on {where}",
                      "**Presumably no fallbacks** — {name} runs fully on the device on {where} "
                      "(verdicts presumed from an earlier version)"),
               "es": ("**No cae a la CPU** — {name} se ejecuta entero en el dispositivo en {where}",
                      "**Presumiblemente no cae a la CPU** — {name} se ejecuta entero en el dispositivo en {where} "
                      "(veredictos presumidos de una versión anterior)")}

TEXT = {
    "en": {"lang": "en", "yes": "**Yes** — {name} runs fully on the device on {where}",
           "presumed_yes": "**Presumably yes** — {name} runs fully on the device on {where} "
                           "(verdicts presumed from an earlier version)",
           "missing": "**{name} is not in the gallery.** The closest gallery models: {close}.",
           "none_close": "none by name (kb gallery lists all of them)",
           "check_route": "To check it: export it with torch.export and run `kb check model.pt2 -t {target}`.",
           "nearest": "_The nearest gallery model's own verdict, {name} (a different model: this is not {asked}'s "
                      "verdict, only the closest the gallery holds):_",
           "calls": "  op calls on the device: {share} ({target})",
           "blockers": "The op that blocks the most gallery models on {where}: {ops}; then:",
           "fuzzy": "(reading {word!r} as {reading})",
           "variant": "_{word!r} is a tuned variant of {name}: the same architecture, so its census (of {name}'s config) "
                      "answers for it._",
           "fit": "_This is op coverage only: whether the weights and activations fit the device's memory is not "
                  "checked here (shard or pick a bigger instance for a large model)._",
           "partly": "**Partly** — {name} on {where}: {n} op{s} on the host CPU",
           "no": "**No** — {name} on {where}: {n} op{s} unsupported",
           "unknown": "**Not known** — {name} on {where}: {n} op{s} without evidence{f}",
           "and_host": ", and {f} op{s} on the host CPU",
           "mostly": "**Mostly** — {name} on {where}: runs on the device{host}{unknown}",
           "mostly_host": " except {n} op{s} on the host CPU",
           "mostly_unknown": "; {n} op{s} unknown{custom}",
           "custom": " ({n} of them a custom op{s})", "custom_all": " (a custom op)",
           "share": "; {share} of op calls on the device", "presumed": " (verdicts presumed from an earlier version)",
           "compile": "torch.compile: {text}", "verdict": "kb check of its census: {verdict}",
           "entry": "gallery entry: {name}, {params} parameters, from {source}; built with {built}",
           "none": "No gallery model is named in the question; kb gallery lists them.",
           "list_cpu": "Gallery models that need the CPU (or do not run) on {where}: {models}",
           "list_full": "Gallery models that run fully on the device on {where}: {models}",
           "count_list_full": "**{n} of {of}** gallery models run fully on the device on {where}.",
           "count_list_cpu": "**{n} of {of}** gallery models need the CPU (or do not run) on {where}.",
           "models": "The gallery holds {n} models: {models}", "nobody": "none", "more": " and {n} more",
           "models_left": "_{n} more models named ({names}): ask about them one at a time, or `kb gallery --target {target}` lists every model._", "not_built": "{name} is in the gallery but did not export: {reason}",
           "no_training": "_{name}'s training graph is not in the gallery (only its inference graph, below); the closest "
                          "training graph it holds is {sibling}'s, after it._",
           "no_training_alone": "_{name}'s training graph is not in the gallery: its inference graph is below._"},
    "es": {"lang": "es", "yes": "**Sí** — {name} se ejecuta entero en el dispositivo en {where}",
           "presumed_yes": "**Presumiblemente sí** — {name} se ejecuta entero en el dispositivo en {where} "
                           "(veredictos presumidos de una versión anterior)",
           "missing": "**{name} no está en la galería.** Los modelos más cercanos de la galería: {close}.",
           "none_close": "ninguno por nombre (kb gallery los lista todos)",
           "check_route": "Para comprobarlo: expórtalo con torch.export y ejecuta `kb check modelo.pt2 -t {target}`.",
           "nearest": "_El veredicto propio del modelo más cercano de la galería, {name} (otro modelo: no es el "
                      "veredicto de {asked}, solo el más cercano que tiene la galería):_",
           "calls": "  llamadas a ops en el dispositivo: {share} ({target})",
           "blockers": "La op que bloquea más modelos de la galería en {where}: {ops}; después:",
           "fuzzy": "(leo {word!r} como {reading})",
           "variant": "_{word!r} es una variante ajustada de {name}: la misma arquitectura, así que su censo (de la "
                      "configuración de {name}) responde por ella._",
           "fit": "_Esto es cobertura de ops: aquí no se comprueba si los pesos y activaciones caben en la memoria del "
                  "dispositivo (para un modelo grande, particiona o elige una instancia mayor)._",
           "partly": "**En parte** — {name} en {where}: {n} op{s} en la CPU del host",
           "no": "**No** — {name} en {where}: {n} op{s} no soportada{s}",
           "unknown": "**Sin datos** — {name} en {where}: {n} op{s} sin evidencia{f}",
           "and_host": ", y {f} op{s} en la CPU del host",
           "mostly": "**En su mayoría** — {name} en {where}: se ejecuta en el dispositivo{host}{unknown}",
           "mostly_host": " salvo {n} op{s} en la CPU del host",
           "mostly_unknown": "; {n} op{s} sin evidencia{custom}",
           "custom": " ({n} de ellas op{s} propia{s} de una librería)", "custom_all": " (un op propio de una librería)",
           "share": "; {share} de las llamadas a ops en el dispositivo",
           "presumed": " (veredictos presumidos de una versión anterior)",
           "compile": "torch.compile: {text}", "verdict": "kb check de su censo: {verdict}",
           "entry": "entrada de la galería: {name}, {params} parámetros, de {source}; construida con {built}",
           "none": "La pregunta no nombra ningún modelo de la galería; kb gallery los lista.",
           "list_cpu": "Modelos de la galería que necesitan la CPU (o no corren) en {where}: {models}",
           "list_full": "Modelos de la galería que corren enteros en el dispositivo en {where}: {models}",
           "count_list_full": "**{n} de {of}** modelos de la galería corren enteros en el dispositivo en {where}.",
           "count_list_cpu": "**{n} de {of}** modelos de la galería necesitan la CPU (o no corren) en {where}.",
           "models": "La galería tiene {n} modelos: {models}", "nobody": "ninguno", "more": " y {n} más",
           "models_left": "_{n} modelos más nombrados ({names}): pregunta por ellos de uno en uno, o `kb gallery --target {target}` lista todos los modelos._", "not_built": "{name} está en la galería pero no se exportó: {reason}",
           "no_training": "_El grafo de entrenamiento de {name} no está en la galería (solo el de inferencia, abajo); el "
                          "grafo de entrenamiento más cercano que tiene es el de {sibling}, después._",
           "no_training_alone": "_El grafo de entrenamiento de {name} no está en la galería: abajo, su grafo de inferencia._"},
}


def _tokens(text: str) -> list[str]:
    """Lower-case words, a letter run split from the digits after it ("qwen3" → qwen, 3), and a
    version's "v" from the name it is glued to ("MobileNetV2" → mobilenet, v, 2, as the slug
    mobilenet-v2 reads; r11 q55 lost the model: "mobilenetv" matched no family)."""
    words = re.findall(r"[a-z0-9.]+", text.lower().replace("_", " ").replace("-", " "))
    out = []
    for word in words:
        word = word.strip(".")
        match = re.fullmatch(r"([a-z]+?)(v?)(\d[a-z0-9.]*)", word)
        out.extend([g for g in match.groups() if g] if match else [word] if word else [])
    return out


def _known() -> tuple:
    from kb.store import gallery as store

    return _known_in(store.folder())


@lru_cache(maxsize=4)
def _known_in(folder: str) -> tuple:
    """(slug, family word, other tokens, aliases, name) of every gallery model shipped in `folder`."""
    import os

    from kb.store import gallery as store

    rows = store.read_jsonl(os.path.join(folder, store.MODELS_FILE))
    out = []
    for row in rows:
        slug = row["model"]
        tokens = _tokens(slug)
        family = FAMILY_OVERRIDE.get(slug) or (tokens[0] if tokens else slug)
        out.append((slug, family, tuple(t for t in tokens if t != family), ALIASES.get(slug, ()),
                    str(row.get("name") or slug).lower()))
    return tuple(out)


def _score(asked: list[str], tokens: tuple) -> float:
    score = 0.0
    for token in tokens:
        if token in asked:
            score += 1
        elif any(token.startswith(a + ".") for a in asked if a[:1].isdigit()):
            score += 0.5  # "llama 3" names Llama 3.1 and 3.2
    return score


# Words of a question that are never a misspelled model name (kept out of the fuzzy match).
PLAIN_WORDS = frozenset("""run runs will does work works with models model modelos modelo gallery galeria which what
compile compiled eager neuron trainium tpu tpus host fully entirely need needs corre corren enteros base large small
mini tiny cpu device popular most block blocks the""".split())


# A size ("7b", "8x7B", "125m"), a model word, or an op word: what makes a question read as one about a model.
_SIZE_OR_MODEL = re.compile(r"\b(?:\d+x)?\d+(?:\.\d+)?[bm]\b|\b(?:models?|modelos?|llms?)\b", re.I)
_OP_WORDS = re.compile(r"\b(?:ops?|operator|operators|operadore?s?|operaciones|aten)\b", re.I)


def _model_ish(text: str, token: str) -> bool:
    """Whether a misspelled `token` may be read as a model: the question names a size or a
    model word, the token is followed by a version number ("gema 2"), or the question asks
    about no ops ("will mixtrl run?"). "¿qué ops le faltan a torchtpu 0.1.1?" is about ops."""
    if _SIZE_OR_MODEL.search(text) or re.search(rf"(?i)\b{re.escape(token)}[ -]?\d", text):
        return True
    return not _OP_WORDS.search(text)


# A family name this short read through a typo only when the typo drops or adds a letter ("gema" → gemma),
# not when it swaps one: one letter changed in five is another word as often as a misspelling.
SHORT_NAME = 5
SHORT_CUTOFF = 0.85


def _fuzzy(text: str) -> tuple[str, list[tuple[str, str]]]:
    """`text` with misspelled family words or aliases replaced ("mixtrl" → mixtral, "gema" →
    gemma), and the (word, reading) pairs replaced: a typo should still find the model. An
    everyday English or Spanish word ("faltan") is never read as a model."""
    import difflib

    from kb.chat import english

    words = sorted({fam for _, fam, *_ in _known()} | {a for *_, al, _ in _known() for a in al if " " not in a})
    fixed = []
    out = text
    for token in dict.fromkeys(_tokens(text)):
        if len(token) < 4 or token in PLAIN_WORDS or token in words or not token.isalpha():
            continue
        close = difflib.get_close_matches(token, words, n=1, cutoff=0.8)
        if close and len(close[0]) <= SHORT_NAME and difflib.SequenceMatcher(None, token, close[0]).ratio() < SHORT_CUTOFF:
            continue  # a short name asks more: "llamo" is one letter from "llama" and no model (29p)
        if close and english.fuzzy_allowed(token, close[0]) and _model_ish(text, token):
            fixed.append((token, close[0]))
            out = re.sub(rf"(?i)\b{re.escape(token)}\b", close[0], out)
    return out, fixed


def find_models(text: str) -> list[str]:
    """The gallery slugs a question names ("Mixtral", "llama 3 70b", "gemma" → all Gemmas;
    "mixtrl" → Mixtral); a family with a version no gallery model has ("Llama 4") names none."""
    from kb.chat.entities import without_llama_verb

    text = without_llama_verb(text)
    found = _find_exact(text)
    if not found:
        fixed, pairs = _fuzzy(text)
        if pairs:
            found = _find_exact(fixed)
    return found


def model_name(slug: str) -> str:
    """A gallery model's display name ("MobileNetV2 1.0 224"), as its census row gives it."""
    from kb.store import gallery as store

    return _names_in(store.folder()).get(slug) or slug


@lru_cache(maxsize=4)
def _names_in(folder: str) -> dict[str, str]:
    """slug → display name of every gallery model shipped in `folder`, read once (as _known_in)."""
    import os

    from kb.store import gallery as store

    return {r["model"]: str(r.get("name") or r["model"]) for r in store.read_jsonl(os.path.join(folder, store.MODELS_FILE))}


def missing_model(text: str) -> str | None:
    """The model a question asks about that the gallery does not hold ("Llama 4", "Grok-1"),
    as written; None when every model it names is in the gallery."""
    from kb.chat.entities import MODEL_RE

    lowered = text.lower()
    for match in re.finditer(MODEL_RE.pattern + r"(?:[ -]?(?:v?\d[\w.]*|[a-z]?\d+[bm]))?", lowered, re.I):
        said = match.group(0).strip()
        if not _find_exact(said):
            return text[match.start():match.end()].strip()
    return None


def _find_exact(text: str) -> list[str]:
    asked = _tokens(text)
    spaced = " " + " ".join(asked) + " "
    plain = " " + re.sub(r"[^a-z0-9.]+", " ", text.lower()) + " "
    hits: dict[str, float] = {}
    spans: dict[str, list[range]] = {}
    families = {}
    for slug, family, tokens, aliases, name in _known():
        named = f" {name} " in plain or any(f" {' '.join(_tokens(a))} " in spaced for a in aliases)
        short = len(family) == 1 and not _followed(asked, family, tokens[:1])  # "can't" is no T5
        if named or (family in asked and not short):  # its own name or an alias outranks the family word alone
            hits[slug] = _score(_after(asked, family), tokens) + (10 if named else 0)
            spans[slug] = _spans(asked, family, tokens, aliases)
            families[slug] = family
    inside = [slug for slug in hits if _inside_other(slug, asked, families, spans)]
    for slug in inside:  # "DETR ResNet-50" names no ResNet-50, "CLIP ViT-B/32" no ViT-B/16, "FLAN-T5" no T5
        del hits[slug]
    if not hits:
        return []
    best = max(hits.values())
    by_family: dict[str, list[str]] = {}
    for slug, family, *_ in _known():
        if slug in hits:
            by_family.setdefault(family, []).append(slug)
    chosen = []
    for family, slugs in by_family.items():  # within each family named, the closest matches
        top = max(hits[s] for s in slugs)
        if top == 0 and _unmatched_version(asked, family):
            continue  # "llama 4": a Llama the gallery lacks, not every Llama
        chosen.extend(s for s in slugs if hits[s] == top and (top > 0 or best == 0 or len(by_family) > 1))
    # in the order the question names them (the first few are answered in full), then by name
    return sorted(chosen, key=lambda s: (min((r.start for r in spans.get(s) or []), default=len(asked)), s))


def _inside_other(slug: str, asked: list[str], families: dict[str, str], spans: dict[str, list[range]]) -> bool:
    """Whether every time the question says a model's family word, it lies within a longer name
    of another model (the ResNet-50 of "DETR ResNet-50", the GPT of "GPT-NeoX"): then that model
    was not asked."""
    at = [i for i, t in enumerate(asked) if t == families[slug]]

    def covered(i: int) -> bool:
        own = max((sp.stop for sp in spans[slug] if sp.start == i), default=i + 1)
        return any(sp.start <= i and own <= sp.stop and len(sp) > own - i for other in spans if other != slug
                   and families[other] != families[slug] for sp in spans[other])
    return bool(at) and all(covered(i) for i in at)


def _spans(asked: list[str], family: str, tokens: tuple, aliases: tuple) -> list[range]:
    """Where in the question a model's name is said: its family word and the words of its own
    name right after it ("detr resnet 50"), and each alias said ("gpt neox")."""
    out = []
    for i, t in enumerate(asked):
        if t == family:
            j = i + 1
            while j < len(asked) and (asked[j] in tokens or any(k.startswith(asked[j] + ".") for k in tokens)):
                j += 1
            out.append(range(i, j))
    for alias in aliases:
        words = _tokens(alias)
        for i in range(len(asked) - len(words) + 1):
            if words and asked[i:i + len(words)] == words:
                out.append(range(i, i + len(words)))
    return out


# Words that end a model's name in a question: what follows is the target, the verb or the rest.
NAME_ENDS = frozenset("""on in at with for to run runs work works fit fits trn inf tpu tpus neuron trainium inferentia
aws en con para corre corren funciona funcionan va sobre y and or o vs""".split())


def _after(asked: list[str], family: str, span: int = 5) -> list[str]:
    """The words right after the family word, where a model's version and size are said: the
    "2" of "trn2" in "will gpt-5 run on trn2?" is no GPT-2 (held-out #29: rows for a model not
    asked). The whole question when the family word is not in it (a name or alias matched)."""
    at = [i for i, t in enumerate(asked) if t == family]
    if not at:
        return asked
    out = []
    for i in at:
        for t in asked[i + 1:i + 1 + span]:
            if t in NAME_ENDS:  # "on trn2", "run", "en tpu": the model's name has ended
                break
            out.append(t)
    return out


def _followed(asked: list[str], family: str, after: tuple) -> bool:
    return any(t == family and i + 1 < len(asked) and asked[i + 1] in after for i, t in enumerate(asked))


def _unmatched_version(asked: list[str], family: str) -> bool:
    """The word after the family word is a version or size ("llama 4", "qwen 7"), so the
    question names one model of the family, which the gallery lacks when nothing scored."""
    at = [i for i, t in enumerate(asked) if t == family]
    return any(i + 1 < len(asked) and asked[i + 1][:1].isdigit() for i in at)


def targets_in(text: str) -> list[str]:
    asked = set(re.findall(r"[a-z0-9_]+", text.lower()))
    return [t for t, words in TARGET_WORDS.items() if asked & set(words)]


def asked_versions(conn, text: str, targets: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """({target: [backend versions]} the question names, e.g. "on tpu 0.1.1" or "neuron 2.13.3.0",
    through the chat's own reading and version grammar (kb.chat.intents, kb.chat.oplookup), and
    the lines that say a version the KB lacks, so the answer never silently reads the newest.
    A bare version after the first ("torch_tpu 0.1.1? what about 0.2.0") counts for the target
    whose data holds exactly that version (r10 q52 dropped it); oldest first."""
    from kb.chat.intents import read
    from kb.chat.oplookup import pick_versions

    chosen: dict[str, list[str]] = {}
    notes: list[str] = []
    reading = read(text[:2000])
    for mention in reading.targets:
        if not mention.version or mention.target not in targets:
            continue
        pick = pick_versions(conn, mention)
        usable = [v for v in pick.versions if v in pick.with_data] or pick.versions
        if usable:
            chosen.setdefault(mention.target, []).append(usable[-1])  # the newest the spelling stands for
        elif mention.target not in chosen:
            notes.append(f"(no {markdown(pick.label)} in the KB: the answer below is for the newest "
                         f"{markdown(mention.target)} version)")
    for target in [t for t in targets if t in chosen]:
        held = views.versions_with_data(conn, target)
        chosen[target] += [v for v in reading.versions if v in held]  # exact only: "wav2vec 2.0" is no version
        chosen[target] = sorted(dict.fromkeys(chosen[target]), key=lambda v: held.index(v) if v in held else -1)
    return chosen, notes


# "can I fine-tune llama 3.2 1b on trn2?": the census of the training graph (kb gallery --graph training), m4 Q71
TRAINING_ASKED = re.compile(r"\b(?:fine[- ]?tun\w*|finetun\w*|train|training|trains|entrenar\w*|entrenamiento|backward"
                            r"|backprop\w*)\b")
TRAINING = "the training graph, kb gallery --graph training"


def _gallery_source(entry: dict) -> dict:
    built = ", ".join(f"{k} {v}" for k, v in sorted(entry["built_with"].items()) if v)
    return {"source_kind": "gallery", "source_name": f"data/gallery census of {entry['model']} (built with {built})",
            "source_url": entry["config_source"]}


def _plural(n: int) -> str:
    return "" if n == 1 else "s"


def _cells(targets: list[str], versions: dict | None) -> list[tuple[str, str | None]]:
    """(target, version) pairs to answer: each version asked of a target (a str or a list), else its default."""
    out = []
    for target in targets:
        asked = (versions or {}).get(target)
        out.extend((target, v) for v in ([asked] if asked is None or isinstance(asked, str) else asked or [None]))
    return out


def _first(versions: dict | None) -> dict:
    """{target: one version}: what the list answers read (the first version asked of each target)."""
    return {t: (v if isinstance(v, str) or v is None else (v[0] if v else None)) for t, v in (versions or {}).items()}


def _model_lines(conn, entry: dict, targets: list[str], mode: str, lookups, sources: Sources, say: dict,
                 facts: list, versions: dict | None = None, graph: str = "inference", beside: bool = False,
                 blockers: bool = False) -> list[str]:
    """Each (target, version) asked: a headline, the ops that decide it, kb check's verdict. With
    `beside` (a question about this model), the lines of kb.chat.gallery_beside after them; with
    `blockers` ("what blocks it?"), a headline that names the blockers."""
    from kb.chat import gallery_beside as gb

    lang = say.get("lang", "en")
    lines = []
    done = []
    if graph == "training" and "training" not in entry["graphs"] and views.census_rows_exist(conn, entry["model"], "inference"):
        return _no_training_lines(conn, entry, targets, mode, lookups, sources, say, facts, versions, beside, blockers)
    if not views.census_rows_exist(conn, entry["model"], graph):
        reason = (entry["graphs"].get(graph) or {}).get("reason") or "not built"
        return [say["not_built"].format(name=markdown(entry["name"]), reason=markdown(reason)) + " "
                + sources.cite(_gallery_source(entry))]
    gallery_mark = sources.cite(_gallery_source(entry))
    note = ["  " + quoted(markdown(entry["note"]))] if entry.get("note") else []  # under the first headline, not above it
    for target, version in _cells(targets, versions):
        rep = views.report(conn, entry["model"], target, version, mode, graph, lookups)
        row = views.summary_row(entry, rep)
        done.append((target, version, rep, row))
        where = _where(target, rep, mode, graph)
        problems = [op for op in rep.ops if op.status in views.PROBLEMS]
        fallback = [op for op in problems if op.status == "fallback"]
        if not problems and row["runs_fully"]:
            key = "presumed_yes" if row["basis"] == "presumed" else "yes"  # a presumed verdict is not a plain Yes
            head = say[key].format(name=markdown(entry["name"]), where=where)
        elif problems and len(fallback) == len(problems):
            head = say["partly"].format(name=markdown(entry["name"]), where=where, n=len(fallback), s=_plural(len(fallback)))
        elif any(op.status in ("unsupported", "crash", "timeout") for op in problems) or not problems:
            bad = sum(1 for op in problems if op.status in ("unsupported", "crash", "timeout"))
            head = say["no"].format(name=markdown(entry["name"]), where=where, n=bad, s=_plural(bad))
        elif row["device_call_share"] >= MOSTLY_SHARE:  # what is known first: the device, then the few gaps
            head = _mostly_head(entry, where, problems, fallback, say)
        else:  # unknown ops decide it: say so rather than no
            unknown = len(problems) - len(fallback)
            host = say["and_host"].format(f=len(fallback), s=_plural(len(fallback))) if fallback else ""
            head = say["unknown"].format(name=markdown(entry["name"]), where=where, n=unknown, s=_plural(unknown),
                                         f=host)
        if problems:  # how much of the model runs on the device, and on what basis (t29m)
            head += say["share"].format(share=views.pct(row["device_call_share"]))
            head += say["presumed"] if row["basis"] == "presumed" else ""
        if blockers:
            head = gb.blockers_head(head, rep, row, markdown(entry["name"]), where, lang)
        marks = []
        for op in (problems or rep.ops)[:MAX_LIST]:
            cited = lookups.rows.get((target, rep.backend_version, mode), {}).get(op.op)
            if cited is not None:  # the verdict row itself: kind, name, URL or probe run, retrieval date
                presumed = " (presumed)" if op.basis == "presumed" else ""  # as kb op marks it ᵖ
                marks.append(f"{markdown(op.op)} {op.status}{gb.leaf(op, lang)}{presumed} " + sources.cite(cited))
            elif problems:  # no verdict to cite: say why it is unknown
                marks.append(f"{markdown(op.op)} {op.status}{gb.leaf(op, lang)}"
                             + (f" ({markdown(op.reason)})" if op.reason else ""))
            if not problems and len(marks) >= 3:
                break
        lines.append(f"{head} {gallery_mark}")
        lines.extend(note)
        note = []
        if marks:
            lines.append("  " + "; ".join(marks))
        verdict = markdown(rep.verdict or "")
        if lang == "es":  # kb check's sentence in the answer's language
            from kb.chat.spanish import to_spanish

            verdict = to_spanish(verdict)
        lines.append("  " + say["verdict"].format(verdict=verdict))
        facts.append({**{k: row[k] for k in ("model", "target", "backend_version", "mode", "runs_fully",
                                             "device_call_share", "device_flop_share", "flops_partial", "fallback_ops",
                                             "unsupported_ops", "unknown_ops", "compile", "basis")}, "graph": graph})
    if beside:
        lines += _beside_lines(conn, entry, done, mode, graph, lookups, lang, gallery_mark, facts)
        if facts and not facts[-1].get("beside"):
            facts[-1].pop("beside", None)
    return lines


def _no_training_lines(conn, entry: dict, targets: list[str], mode: str, lookups, sources: Sources, say: dict,
                       facts: list, versions: dict | None, beside: bool, blockers: bool) -> list[str]:
    """"full fine-tuning of Llama 3.1 8B on trn2?" where the gallery built only its inference graph: said so, that
    graph's verdicts, then the training graph of the closest model of the same architecture that has one (fewest
    parameters apart), never "did not export" for a graph that was not attempted (r20 q49)."""
    sibling = min((e for e in views.models(conn) if e["model"] != entry["model"] and "training" in e.get("graphs", {})
                   and e.get("architecture") == entry.get("architecture")
                   and views.census_rows_exist(conn, e["model"], "training")),
                  key=lambda e: abs((e.get("parameters") or 0) - (entry.get("parameters") or 0)), default=None)
    facts.append({"model": entry["model"], "training_graph": False,
                  "closest_training_graph": sibling["model"] if sibling else None})
    if sibling is None:
        return [say["no_training_alone"].format(name=markdown(entry["name"]))] + _model_lines(
            conn, entry, targets, mode, lookups, sources, say, facts, versions, "inference", beside, blockers)
    return ([say["no_training"].format(name=markdown(entry["name"]), sibling=markdown(sibling["name"]))]
            + _model_lines(conn, entry, targets, mode, lookups, sources, say, facts, versions, "inference", False, blockers)
            + [""] + _model_lines(conn, views.model_entry(conn, sibling["model"]), targets, mode, lookups, sources, say,
                                  facts, versions, "training", False, blockers))


def _where(target: str, rep, mode: str, graph: str) -> str:
    return f"{target} {rep.backend_version or ''}".strip() + f" ({mode}{', ' + TRAINING if graph == 'training' else ''})"


def _beside_lines(conn, entry: dict, done: list, mode: str, graph: str, lookups, lang: str, mark: str,
                  facts: list) -> list[str]:
    """One line each, after the cells asked: the eager verdict beside a compile one where it differs
    (r10 q51: "with torch.compile — any blockers?" never said argmax only falls back in eager); the
    newest version of the one target asked where an older one does not run it (r11 q51, q56), or else
    the other target (r11 q50, q54); "moving from 0.1.1 to 0.2.0 fixes it" where both were asked."""
    from kb.chat import gallery_beside as gb

    text = gb.say(lang)
    lines = []
    said = facts[-1].setdefault("beside", []) if facts else []  # kept under the asked cell: one fact per cell asked

    def cell(target: str, version: str | None, cell_mode: str, role: str, keep: bool = True):
        rep = views.report(conn, entry["model"], target, version, cell_mode, graph, lookups)
        row = views.summary_row(entry, rep)
        if keep:
            said.append({**{k: row[k] for k in ("target", "backend_version", "mode", "runs_fully", "fallback_ops",
                                                "unsupported_ops", "unknown_ops", "basis")}, "role": role})
        return rep, row

    if mode == "compile":
        for target, version, rep, _row in done:
            eager, row = cell(target, version, "eager", "eager", keep=False)
            if gb.differs(eager, rep):
                said.append({**{k: row[k] for k in ("target", "backend_version", "mode", "runs_fully", "fallback_ops",
                                                    "unsupported_ops", "unknown_ops", "basis")}, "role": "eager"})
                lines.append(text["eager"].format(where=_where(target, eager, "eager", graph).replace(" (eager)", ""),
                                                  brief=gb.brief(eager, row, lang), mark=mark))
    asked_targets = list(dict.fromkeys(t for t, *_ in done))
    if len(asked_targets) != 1:
        return lines
    target = asked_targets[0]
    mine = [(v, rep, row) for t, v, rep, row in done if t == target]
    if len(mine) > 1 and not mine[0][2]["runs_fully"] and mine[-1][2]["runs_fully"]:
        lines.append(text["upgrade"].format(old=f"{target} {mine[0][1].backend_version}",
                                            new=f"{target} {mine[-1][1].backend_version}"))
        return lines
    if all(row["runs_fully"] for _, _, row in mine):
        return lines
    default = lookups.get(target, None, mode)[1]
    newest_asked = mine[-1][1].backend_version
    if gb.newer_than(conn, target, newest_asked, default):
        rep, row = cell(target, None, mode, "newer")
        key = "newer_fixes" if row["runs_fully"] else "newer"
        lines.append(text[key].format(where=_where(target, rep, mode, graph), brief=gb.brief(rep, row, lang), mark=mark))
        return lines
    other = [t for t in views.DEFAULT_TARGETS if t != target]
    if other and not lines and lookups.get(other[0], None, mode)[1]:  # one line beside at most: the eager one first
        rep, row = cell(other[0], None, mode, "other_target")
        lines.append(text["other"].format(where=_where(other[0], rep, mode, graph), brief=gb.brief(rep, row, lang),
                                          mark=mark))
    return lines


# A model with no unsupported op whose op calls run on the device at least this often reads as
# "Mostly" (what is known first), not "Not known", when a few ops lack evidence (held-out #29).
MOSTLY_SHARE = 0.9


def _mostly_head(entry: dict, where: str, problems: list, fallback: list, say: dict) -> str:
    """"Mostly — runs on the device except 1 op on the host CPU; 1 op unknown (a custom op)": the
    device first, then the ops on the host and those without evidence, a library's own op
    (a namespace other than aten) named as such since no ATen verdict can cover it."""
    unknown = [op for op in problems if op not in fallback]
    host = say["mostly_host"].format(n=len(fallback), s=_plural(len(fallback))) if fallback else ""
    custom = [op for op in unknown if "::" in op.op and not op.op.startswith(("aten::", "prims::"))]
    note = ""
    if custom:
        note = say["custom_all"] if len(custom) == len(unknown) == 1 else say["custom"].format(
            n=len(custom), s=_plural(len(custom)))
    gaps = say["mostly_unknown"].format(n=len(unknown), s=_plural(len(unknown)), custom=note) if unknown else ""
    return say["mostly"].format(name=markdown(entry["name"]), where=where, host=host, unknown=gaps)


def _list_answer(conn, text: str, targets: list[str], mode: str, say: dict, sources: Sources, facts: list,
                 versions: dict | None = None) -> list[str]:
    want_full = bool(FULL_WORDS.search(text.lower())) and not re.search(r"\b(cpu|host|fall)", text.lower())
    result = views.table(conn, targets, versions or None, (mode,), "inference")
    lines, counts = [], []  # "how many run fully on trainium vs tpu?": every target's count first (r31 q51)
    for target in targets:
        cells = [r for r in result["rows"] if r["target"] == target]
        picked = [r for r in cells if r["runs_fully"] == want_full] if want_full else \
            [r for r in cells if not r["runs_fully"] or r["fallback_ops"]]
        version = cells[0]["backend_version"] if cells else None
        where = f"{target} {version or ''}".strip() + f" ({mode})"
        names = [markdown(r["name"]) + ("" if want_full else f" ({', '.join(markdown(o) for o in (r['fallback_ops'] + r['unsupported_ops'] + r['unknown_ops'])[:3])})")
                 for r in picked]
        shown = ", ".join(names[:MAX_LIST]) or say["nobody"]
        if len(names) > MAX_LIST:
            shown += say["more"].format(n=len(names) - MAX_LIST)
        key = "list_full" if want_full else "list_cpu"
        if _COUNT_ASKED.search(text):  # "how many run fully?": the count leads, the names follow (r23 q55)
            counts.append(say["count_" + key].format(n=len(names), of=len(cells), where=where))
        lines.append(say[key].format(where=where, models=shown))
        facts.append({"target": target, "backend_version": version, "mode": mode, "runs_fully": want_full,
                      "models": [r["model"] for r in picked], "of": len(cells)})
    lines = counts + lines
    for item in result["baseline"]:
        lines.append("  " + views.baseline_line(item))
    sources.cite({"source_kind": "gallery", "source_name": f"data/gallery census of {result['models']} models",
                  "source_url": "data/gallery/census.jsonl"})
    return lines


_COUNT_ASKED = re.compile(r"\bhow many\b|\bcu[aá]nt[oa]s\b|\bnumber of\b|\bn[uú]mero de\b", re.I)
BLOCK_WORDS = re.compile(r"\b(blocks?|blocking|blockers?|bloquea\w*|keeps? .* off)\b")
GALLERY_WORD = re.compile(r"\b(gallery|galer[ií]a)\b")
# "the 10 gaps that block the most models on neuron": the blockers, asked without which/what (r2-30 #6)
GAPS_QUESTION = re.compile(r"\b(gaps?|ops?|operators?|operadores|huecos?)\b.*\b(block|blocks|blocking|bloquea\w*)\b"
                           r".*\b(models?|modelos?)\b")
# "what models are in the gallery?": the gallery's own list, not a verdict (r2-30 #6)
MODELS_QUESTION = re.compile(r"\b(what|which|list|cu[aá]les|qu[eé])\b.*\b(models?|modelos?)\b.*"
                             r"\b(in|on|of|en|de) (the |la )?(gallery|galer[ií]a)\b|\blist (the )?gallery\b")
VERDICT_WORDS = re.compile(r"\b(run|runs|work|works|corren?|funcionan?|block\w*|bloquea\w*)\b")


def _is_list(lowered: str) -> bool:
    return bool(GALLERY_WORD.search(lowered) or GAPS_QUESTION.search(lowered) or LIST_QUESTION.search(lowered) and (
        CPU_WORDS.search(lowered) or FULL_WORDS.search(lowered) or BLOCK_WORDS.search(lowered)
        or re.search(r"\b(popular|populares|run|runs|corren?|work)\b", lowered)))


def is_list_question(text: str) -> bool:
    """A question for a list of gallery models, not about one model (kb.chat.scoring)."""
    lowered = (text or "").lower()
    return _is_list(lowered) or _is_models_list(lowered)


def _is_models_list(lowered: str) -> bool:
    return bool(MODELS_QUESTION.search(lowered)) and not (
        CPU_WORDS.search(lowered) or FULL_WORDS.search(lowered) or VERDICT_WORDS.search(lowered))


def _models_answer(conn, say: dict, sources: Sources, facts: list) -> list[str]:
    """Every gallery model by name, with the count: the list the gallery ships."""
    entries = views.models(conn)
    names = ", ".join(markdown(e["name"]) for e in entries)
    facts.append({"models": [e["model"] for e in entries], "count": len(entries)})
    sources.cite({"source_kind": "gallery", "source_name": "data/gallery models (the gallery's list)",
                  "source_url": "data/gallery/models.jsonl"})
    return [say["models"].format(n=len(entries), models=names)]


def _limit(lowered: str) -> int:
    """"the 10 gaps": how many blockers the question asks for (at most 50; else the list's own length)."""
    found = re.search(r"\b(?:the |top |los |las )?(\d{1,3}) (?:gaps?|ops?|operators?|operadores|huecos?|blockers?)\b",
                      lowered)
    return max(1, min(int(found.group(1)), 50)) if found else MAX_LIST


def gallery_score(text: str) -> int:
    """How surely a question is for the gallery (kb.chat.scoring's "model" reading): 10 for a
    list of gallery models or a model the gallery does or does not hold, 0 otherwise."""
    lowered = (text or "").lower()
    if re.search(r"\b[a-z_]+::[a-z_]|\baten\.", lowered):
        return 0  # an op named as code is an op question
    if _is_list(lowered) or find_models(text) or missing_model(text):
        return 10
    return 0


def is_gallery_question(text: str) -> bool:
    return gallery_score(text) > 0


_VERDICT_WORD = re.compile(r"^\*\*[^*\n]{1,40}\*\* — ")
NEAREST_SHOWN = 1  # the nearest gallery models whose own verdict a missing model's answer gives


def _missing_answer(conn, name: str, targets: list[str], say: dict, mode: str = "eager", sources: Sources | None = None,
                    facts: list | None = None, versions: dict | None = None) -> list[str]:
    """"Llama 4 is not in the gallery": the gallery models of its family (or the nearest by
    name), how to check the model itself, and the nearest one's own verdict (its coverage and op
    calls on the device), labelled as that model's, never as the asked one's (29q: "will SDXL run on
    trn2?" named SD 1.5 UNet and stopped)."""
    import difflib

    known = _known()
    fixed = _find_exact(re.sub(r"[\d.]+", " ", name))  # "Llama 4" → the Llamas the gallery has
    if not fixed:
        by_name = {n: slug for slug, *_, n in known}
        fixed = [by_name[n] for n in difflib.get_close_matches(name.lower(), list(by_name), n=3, cutoff=0.6)]
    if not fixed:  # "sdxl": a name that starts with a gallery model's short name ("sd 1.5") is of its line
        word = re.match(r"[a-z]+", name.lower())
        heads = {slug: {a.split()[0] for a in aliases if " " in a} for slug, _, _, aliases, _ in known}
        fixed = [slug for slug, words in heads.items() if word and any(
            len(w) >= 2 and word.group(0) != w and word.group(0).startswith(w) for w in words)]
    names = {m["model"]: m["name"] for m in views.models(conn)}
    close = ", ".join(markdown(names.get(s, s)) for s in fixed[:MAX_LIST]) or say["none_close"]
    lines = [say["missing"].format(name=markdown(name), close=close)]
    lines.extend(say["check_route"].format(target=t) for t in targets[:1])
    if sources is None or facts is None:
        return lines
    lookups = views.Lookups(conn)
    for slug in fixed[:NEAREST_SHOWN]:
        entry = views.model_entry(conn, slug)
        if entry is None or not views.census_rows_exist(conn, slug, "inference"):
            continue
        mine: list[dict] = []
        lines.append(say["nearest"].format(name=markdown(entry["name"]), asked=markdown(name)))
        # its lines without their bold yes/no word, which would read as the answer about the model asked
        lines.extend("- " + _VERDICT_WORD.sub("", line, count=1) if line.startswith("**") else line
                     for line in _model_lines(conn, entry, targets, mode, lookups, sources, say, mine, versions))
        for fact in mine:
            lines.append(say["calls"].format(share=views.pct(fact["device_call_share"]),
                                             target=f"{fact['target']} {fact['backend_version'] or ''}".strip()))
            facts.append({**fact, "nearest_to": name})
    return lines


def _blockers_answer(conn, targets: list[str], mode: str, say: dict, sources: Sources, facts: list,
                     versions: dict | None = None, limit: int = MAX_LIST) -> list[str]:
    lines = []
    for target in targets:
        found = views.blockers(conn, target, (versions or {}).get(target), mode, "inference", limit=limit)
        where = f"{target} {found['backend_version'] or ''}".strip() + f" ({mode})"
        # the op that blocks the most first, with every model it blocks; the rest one line each (r30 q52, r31 q13)
        rows = found["ops"]

        def models_of(r: dict, most: int) -> str:
            shown = ", ".join(markdown(m) for m in r["models"][:most])
            return f"{r['blocks']}: {shown}" + (" …" if r["blocks"] > most else "")
        if not rows:
            lines.append(say["blockers"].format(where=where, ops=say["nobody"]).rsplit(";", 1)[0])
        else:
            head = say["blockers"].format(where=where, ops=f"**{markdown(rows[0]['op'])}** {rows[0]['status']} "
                                          f"({models_of(rows[0], 8)})")
            lines.append(head if len(rows) > 1 else head.rsplit(";", 1)[0])
            lines += [f"- {markdown(r['op'])} {r['status']} ({models_of(r, 4)})" for r in rows[1:]]
        facts.append(found)
    sources.cite({"source_kind": "gallery", "source_name": "data/gallery census (kb gallery --blockers)",
                  "source_url": "data/gallery/census.jsonl"})
    return lines


def gallery_answer(conn: sqlite3.Connection, text: str, targets: list[str], lang: str = "en",
                   versions: dict | None = None) -> Answer | None:
    """The answer to a model question from the gallery, or None when the question names no
    gallery model (nor one it lacks) and asks for no list of models. `versions`: {target:
    backend version} given apart from the text (the MCP tool's TARGET=VERSION); else the
    versions the question names."""
    say = TEXT.get(lang, TEXT["en"])
    if not views.models(conn):
        return None
    lowered = text.lower()
    if FALLBACK_ASKED.search(lowered):  # "any fallbacks?": a yes would read as "yes, there are" (r3-29 #11)
        say = {**say, "yes": NO_FALLBACK[lang if lang in NO_FALLBACK else "en"][0],
               "presumed_yes": NO_FALLBACK[lang if lang in NO_FALLBACK else "en"][1]}
    fixed, pairs = ("", [])
    named = _find_exact(text)
    if not named:
        fixed, pairs = _fuzzy(text)
        named = _find_exact(fixed) if pairs else []
    missing = None if named else missing_model(text)
    targets = [t for t in targets if t != "cpu"]  # "need the CPU on tpu": the CPU is the fallback, not a target
    targets = list(dict.fromkeys(targets or targets_in(text) or views.DEFAULT_TARGETS))
    mode = "compile" if COMPILE_ASKED.search(lowered) else "eager"
    sources = Sources()
    facts: list[dict] = []
    found_versions, version_notes = asked_versions(conn, text, targets)
    versions = {**found_versions, **(versions or {})}
    from kb.chat.gallery_beside import BLOCKERS_ASKED

    if named:
        lookups = views.Lookups(conn)
        lines = [say["fuzzy"].format(word=w, reading=r) for w, r in pairs[:1]] + version_notes
        for slug in named[:MAX_MODELS]:
            lines.extend(_model_lines(conn, views.model_entry(conn, slug), targets, mode, lookups, sources, say, facts,
                                      versions, "training" if TRAINING_ASKED.search(lowered) else "inference",
                                      beside=len(named) == 1, blockers=bool(BLOCKERS_ASKED.search(lowered))))
        tuned = _TUNED.search(text)
        if tuned and len(named) == 1 and not any(t in named[0] for t in ("instruct", "-it", "chat")):
            # "gemma-3-1b-it", "Llama-3.1-8B-Instruct": answered by the base model's census, and said so (s12 leftover)
            lines.append(say["variant"].format(word=tuned.group(0).strip(), name=model_name(named[0])))
        if FIT_ASKED.search(lowered) or any(_billions(slug) >= 30 for slug in named[:MAX_MODELS]):
            # "will llama 3 70b run on trainium? or do i need a tpu for that": the verdict is of ops, not of size (r27 q49)
            lines.append(say["fit"])
        if len(named) > MAX_MODELS:  # a question naming many models: each in full would be pages long
            left = named[MAX_MODELS:]
            lines.append(say["models_left"].format(n=len(left), names=", ".join(markdown(m) for m in left[:MAX_LIST])
                                                   + (" …" if len(left) > MAX_LIST else ""), target=targets[0]))
        intent = "gallery_model"
    elif missing:
        lines = _missing_answer(conn, missing, targets, say, mode, sources, facts, versions)
        sources.cite({"source_kind": "gallery", "source_name": "data/gallery models (the gallery's list)",
                      "source_url": "data/gallery/models.jsonl"})
        facts.append({"model": missing, "in_gallery": False})
        intent = "gallery_missing"
    elif _is_models_list(lowered):
        lines = _models_answer(conn, say, sources, facts)
        intent = "gallery_models"
    elif _is_list(lowered) and BLOCK_WORDS.search(lowered):
        lines = version_notes + _blockers_answer(conn, targets, mode, say, sources, facts, _first(versions),
                                                 _limit(lowered))
        intent = "gallery_blockers"
    elif _is_list(lowered):
        lines = version_notes + _list_answer(conn, text, targets, mode, say, sources, facts, _first(versions))
        intent = "gallery_list"
    else:
        return None
    return Answer(question=text, intent=intent, text="\n".join(lines) + sources.markdown(), facts=facts,
                  sources=sources.items)


# a chat- or instruction-tuned checkpoint named ("gemma-3-1b-it", "Llama-3.1-8B-Instruct", "mistral 7b instruct")
# a hub-like name glued by - or _ ("gemma-3-1b-it", "Llama-3.1-8B-Instruct"), or "8B Instruct" spelt with a space;
# never words of the sentence ("Mixtral-8x7B endpoint off GPUs. will it" is no tuned name: r28 q49)
_TUNED = re.compile(r"[\w.-]*?\d+(?:\.\d+)?[bm](?:(?:[-_][\w.]+)*?[-_](?:it|instruct|chat|sft|dpo)| (?:instruct|chat))\b", re.I)
# memory, size or fit asked of a model: the gallery answers op coverage only, and says so
FIT_ASKED = re.compile(r"\b(?:memory|hbm|vram|fits?|big enough|too big|enough room|oom|out of memory|memoria|cabe|caben"
                       r"|muy grande)\b")


def _billions(slug: str) -> float:
    """The parameter count a gallery model's name says, in billions ("llama-3.1-70b": 70; "mixtral-8x7b": 56), else 0."""
    m = re.search(r"(?:(\d+)x)?(\d+(?:\.\d+)?)b(?![a-z])", slug)
    return float(m.group(2)) * int(m.group(1) or 1) if m else 0.0


# "with torch.compile", "compiled", "from compiling", "compilando": the compile-mode census (s8-gallery)
COMPILE_ASKED = re.compile(r"\b(compile[sd]?|compiling|torch\.compile|compilad[oa]s?|compilar|compilando|compila)\b")
MAX_MODELS = 4  # models of one question answered in full (a hostile tester named 19: a 41 KB answer)
WARM_TARGETS = (("neuron",), ("tpu",), views.DEFAULT_TARGETS)  # what list questions name: one target or both


def warm(db: str | None = None) -> None:
    """Make the first gallery answers of a long-running front end (the Slack bot) as quick as
    the next: the list tables kept (kb.gallery.tablecache) and, where installed, torch loaded
    (a model's report asks it how ops without a verdict decompose). Called before serving."""
    from kb.store.db import open_kb

    conn = open_kb(db)
    try:
        for targets in WARM_TARGETS:
            views.table(conn, list(targets), None, ("eager",), "inference")
    finally:
        conn.close()
    try:
        import torch  # noqa: F401
    except ImportError:
        pass
