"""Intents as scored patterns over a question's entities (kb.chat.entities) and the
reader's words (kb.chat.intents): a question with a price and a rate is a cost question
whatever else it mentions, one that names PyTorch/XLA, a use and an end-of-support cue is
about that feature's support window, and so on.

Each reading gets a score from the entities it rests on; the best one at or above its
threshold is answered, and a runner-up close to it is named in one line so the asker can
ask for that reading instead. Below every threshold, kb.chat.answer's classic routing
decides, exactly as before (the question bank pins it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.chat.entities import BY_STATUS, MODEL_RE, OP_COUNT, STATUS_SERIES, Entities
from kb.chat.intents import PLATFORM_PRODUCTS, Question, fallback_outcome
from kb.chat.list_filter import qualifies_ops
from kb.store import torchnames

THRESHOLD = 8
# A runner-up at this share of the best score is close enough to name (an op named as code beside a price
# and a rate: 11 of 13). Policy beside a list of the same missing ops (6 of 10) is not: one reading (29k).
CLOSE = 0.8


@dataclass
class Reading:
    intent: str
    score: int
    why: str  # the entities it rests on, for the "also read as" line and tests
    command: str = ""  # the kb command that answers this reading alone, named in the "also read as" line


def _command(r: Reading, q: Question, ents: Entities) -> str:
    """The command that answers a reading by itself, so the line naming it says how to get it."""
    targets = q.target_names() or []
    target = next((m for m in q.targets if m.target in ("neuron", "tpu", "neuron-xla")), None)
    if r.intent == "cost":
        if ents.prices and ents.rates:
            return (f"kb cost --price-per-hour {ents.prices[0].value.normalize():f} --tokens-per-second "
                    f"{ents.rates[0].value.normalize():f} --currency {ents.prices[0].unit}")
        return "kb cost --price-per-hour PRICE --tokens-per-second RATE"
    if r.intent == "op":
        word = next(iter(q.op_words or q.function_words), "")
        return f"kb op {word}" + (f" -t {targets[0]}" if targets else "") if word else ""
    if r.intent == "ops_list" and target is not None:
        spec = f"{target.target}={target.version}" if target.version else target.target
        return f"kb ops --target {spec} --status {list_status(ents.english) or 'fallback'}"
    if r.intent == "policy":
        return f'kb ask "what does {targets[0] if targets else "neuron"} do with an op it lacks?"'
    if r.intent == "model":
        return "kb gallery"
    if r.intent in ("feature_eol", "platform_eol"):
        return "kb eol"
    return ""


_CANT = re.compile(r"\b(?:can'?t|cannot|can not|won'?t|doesn'?t|does not|do not|don'?t|not able to|refuses? to|fails? to)"
                   r"\s+(?:[\w.-]+\s+){0,6}?(?:run|work|execute|compile)\b"
                   r"|\b(?:doesn'?t|does not|don'?t|do not|can'?t|cannot)\s+support\b|\bnot\s+(?:run|work|execute|support)\b"
                   r"|\bnot supported\b|\bunsupported\b|\bno kernel\b"
                   r"|\b(?:ops|operators|kernels)\b.*\bfail(?:s|ing)?\s+(?:on|under|with|in)\b", re.I)  # s8: "ops … fail on"
_FALLS = re.compile(r"\b(?:falls?|falling) back\b|\bfallbacks?\b|\bruns? on (?:the )?(?:cpu|host)\b"
                    r"|\b(?:needs?|uses?|hits?|requires?) (?:the )?(?:cpu|host)\b", re.I)


# Words that ask for money, not only "how much" (which also asks "how much slower").
_PER_MILLION = re.compile(r"\bper (?:1 ?m|one million|a million|million|mtok|m tokens)\b|\bmillion tokens\b|\$/m(?:tok)?\b"
                          r"|/ ?m ?tok\b|\bper 1m\b", re.I)
_COMPILE_OPTION = re.compile(r"\bdynamic\s*=|\bmode\s*=|\bfullgraph\b|\bdynamic shapes?\b|\bmax-autotune\b"
                             r"|\breduce-overhead\b", re.I)
_PRICE_WORDS = re.compile(r"\b(?:cost|costs|costing|price|prices|pricing|priced|expensive|cheaper|cheapest)\b"
                          # "how much is a trn1.2xlarge per hour?": an instance's price asked (r27 q19)
                          r"|\bhow much (?:is|are|does|do|would)\b[^?]{0,40}\b(?:per hour|an hour|a hour|hourly|/ ?h(?:r|our)?)\b",
                          re.I)


def list_status(text: str) -> str | None:
    """The status a list question asks for: "what can't TorchTPU run" is the unsupported list; "which ops end
    up on the CPU" is the fallback list (kb.chat.intents.fallback_outcome)."""
    text = fallback_outcome(text)
    if _CANT.search(text):
        return "unsupported"
    if _FALLS.search(text):
        return "fallback"
    if re.search(r"\bnative(?:ly)?\b|\bown kernels?\b", text, re.I):
        return "native"
    if re.search(r"\bdecompos\w*", text, re.I):
        return "decomposed"
    if re.search(r"\b(?:missing|lacks?|lacking|absent)\b", text, re.I):
        return "unsupported"  # "ops missing on tpu 0.2.0": what it has no kernel for and cannot run
    return None


# s8: "which linalg ops…", "what batch norm ops…", "(pásame) la lista de ops…": ops asked for by kind, which a
# policy reading of the same words ("hit the CPU fallback") does not answer
OPS_ASKED = (r"(?:^|(?<=[.?!:;,]))\s*(?:which|what)\s+(?:(?!(?:happens?|happened|about|to|with|if|when|do|does|did|should|will|would"
             r"|can|are|is|was|were)\b)[\w*-]+\s+){0,2}(?:aten\s+)?(?:ops|operators|kernels)\b"
             r"|\blist of (?:the )?(?:aten )?(?:ops|operators|kernels)\b")


# A request for a list said as a request ("list", "show me", "give me", "which ops"): it outranks a
# policy reading of the same words ("list the missing ops on tpu 0.2.0").
_LIST_ASKED = re.compile(r"^\s*(?:please\s+)?(?:list|enumerate|show|give|get|tell)\b|^\s*(?:which|what)\s+(?:aten\s+)?"
                         r"(?:ops|operators|kernels)\b"
                         r"|" + OPS_ASKED + r"|^\s*(?:the\s+)?(?:aten\s+)?(?:ops|operators|kernels)\s+"
                         r"(?:missing|unsupported|that|which|without)\b|\beverything\b|\ball (?:the )?(?:aten )?(?:ops|operators)\b"
                         r"|^\s*(?:how many|number of|count)\b"
                         r"|" + OP_COUNT +  # 29p: "what is the native op count on tpu?"
                         r"|^\s*(?:the\s+)?(?:aten\s+)?(?:ops|operators|kernels)\b(?=.*\b(?:can'?t|cannot|won'?t|doesn'?t|"
                         r"does not|don'?t|missing|unsupported|lacks?)\b)"
                         # "tpu unsupported ops", "neuron 2.14.3.1 fallback ops": a target, a status, ops
                         r"|^\s*[\w.-]{2,30}(?:\s+v?\d[\w.]*)?\s+(?:unsupported|fallback|native|decomposed|missing)\s+"
                         r"(?:aten\s+)?(?:ops|operators|kernels)\s*\??\s*$", re.I)


def _gallery_score(text: str) -> int:
    """s30b (#30): kb.chat.answer_gallery's score for a gallery question, 0 without it."""
    try:
        from kb.chat.answer_gallery import gallery_score
    except ImportError:
        return 0
    return gallery_score(text)


def _gallery_list(text: str) -> bool:
    """Whether a question asks for a list of gallery models ("which gallery models fall back on neuron?")."""
    try:
        from kb.chat.answer_gallery import is_list_question
    except ImportError:
        return False
    return is_list_question(text)


_WHEN_WORD = re.compile(r"\b(?:when|until|how long|since)\b", re.I)
_SUPPORT_WORD = re.compile(r"\b(?:supported|supports?|compatible|runs?|works?|ok|okay|fine)\b", re.I)
_OPS_WORD = re.compile(r"\b(?:ops?|operators?|kernels?|layers?|models?|functions?|modules?|dtypes?|python|ubuntu|pytorch"
                       r"|torch \d)\b", re.I)


def _sdk_on_instance(q: Question, ents: Entities, text: str) -> bool:
    """"is trn1 supported with Neuron 2.33?", "queremos usar trn1 con Neuron 2.33, ¿está soportado?": an
    instance family and a Neuron SDK release, asked whether they go together (r10 q31) — no op, model,
    platform or list named, which the other readings answer."""
    return (any(m.target == "neuron" and m.version and re.fullmatch(r"2\.[1-9]\d(?:\.\d+)*", m.version)
                for m in q.targets) and not ents.models and not _WHEN_WORD.search(text)
            and _SUPPORT_WORD.search(text) is not None and _OPS_WORD.search(text) is None
            and not ({"eol", "last_release", "policy", "list"} & ents.cues))


_COUNTS_OPS = re.compile(r"\bhow many\b[^?]{0,40}\b(?:ops|operators|kernels)\b", re.I)


def readings(q: Question, ents: Entities) -> list[Reading]:
    """Every reading with a score, best first."""
    text = ents.english
    # a torch.nn module (nn.GroupNorm, even misspelt) names an op as explicitly as torch.roll does: its
    # verdict is asked, not whether the product runs on the instance also named (29n)
    explicit_op = bool(q.op_words or q.function_words) or any(torchnames.looks_like_module(w) for w in q.plain_words)
    out: list[Reading] = []
    hourly = any(p.per_hour for p in ents.prices)
    cost = (5 if ents.prices else 0) + (1 if hourly else 0) + (5 if ents.rates else 0) + \
        (2 if "cost" in ents.cues else 0) + (1 if ents.tokens else 0)
    if cost and not explicit_op and _PRICE_WORDS.search(text):
        cost = max(cost, THRESHOLD)  # "how much does a trn2 cost an hour?": a cost question, even without figures
    if "cost" in ents.cues and not explicit_op and _PER_MILLION.search(text):
        cost = max(cost, 12)  # "cost per million tokens to serve llama 3.1 70b on trn2?": kb cost's question (r21 q20)
    if cost:
        out.append(Reading("cost", cost, "price and rate" if ents.prices and ents.rates else "a price or a rate"))
    asked_list = _LIST_ASKED.search(text) is not None
    # "¿qué pasa si usamos torch.compile con dynamic=True?": what happens with a compile option, not with a missing op
    option_only = _COMPILE_OPTION.search(text) is not None and not re.search(
        r"\b(?:ops?|operators?|kernels?|missing|lacks?|fall(?:s|ing)? back|fallback)\b", text, re.I)
    if "policy" in ents.cues and not option_only:  # "which linalg ops hit the CPU fallback?" asks for ops, not the rule (s8)
        listed = 2 if re.search(OPS_ASKED, text, re.I) and list_status(text) else 0
        # "how many unsupported ops does each have?": a count of ops by status, not the rule (r31 q11)
        listed = 4 if _COUNTS_OPS.search(text) and list_status(text) else listed
        out.append(Reading("policy", 8 + (1 if q.targets else 0) + (1 if {"eager", "compile"} & ents.cues else 0) - listed,
                           "what a backend does with an op it lacks"))
    feature_lines = [f for f in ents.features if f != "torchneuron"]
    if feature_lines and ({"eol", "last_release"} & ents.cues):
        score = 4 + (5 if "last_release" in ents.cues else 4) + (1 if ents.uses else 0) + (1 if ents.instances else 0)
        out.append(Reading("feature_eol", score, f"{feature_lines[0]} and an end-of-support cue"))
    elif ents.instances and not explicit_op and (ents.features or _sdk_on_instance(q, ents, text)):
        short = len(text.split()) <= 5  # "torchneuron on trn1?" asks the same as "does TorchNeuron run on Trn1?"
        asked = "yes_no" in ents.cues or short or (_SUPPORT_WORD.search(text) is not None and "eol" not in ents.cues
                                                   and not _WHEN_WORD.search(text)  # "…, is it supported?"
                                                   and list_status(text) is None  # "what can't trn2 run on …": a list
                                                   # "what instances supports TorchNeuron 2.33?": the release's list
                                                   and not re.match(r"\W*(?:what|which)\b", text, re.I))
        out.append(Reading("feature_on", 4 + 3 + (1 if asked else 0) + (1 if ents.uses else 0),
                           f"{(ents.features or ['neuron'])[0]} on {ents.instances[0]}"))
    platform = [p for p, v in q.products if v and p in PLATFORM_PRODUCTS]
    if platform and ("eol" in ents.cues) and not explicit_op:
        out.append(Reading("platform_eol", 8, f"{platform[0]} with a version and an end-of-support cue"))
    status = list_status(text)
    versioned = any(m.version for m in q.targets)
    # "op coverage numbers: native / decomposed / fallback / unsupported": counts of every status, no one status's list
    by_status = BY_STATUS.search(text.lower()) is not None or (
        len(set(q.statuses) - {"supported"}) >= 3 or STATUS_SERIES.search(text.lower()) is not None) and (
        re.search(OP_COUNT, text, re.I) is not None or re.match(r"\s*(?:how many|number of) (?:aten )?(?:ops|operators)\b",
                                                                text, re.I) is not None)
    if ("list" in ents.cues or asked_list) and status and q.targets and not explicit_op and not by_status:
        out.append(Reading("ops_list", 3 + 3 + (2 if versioned else 0) + (4 if asked_list else 0),
                           f"a list of {status} ops"))
    if ents.models and not explicit_op:
        out.append(Reading("model", 8 + (1 if q.targets else 0), f"the model {ents.models[0]}"))
    gallery = _gallery_score(ents.english)  # s30b (#30): gallery lists and models, kb.chat.answer_gallery
    if gallery and explicit_op and not _gallery_list(ents.english):
        gallery = 0  # "my wav2vec uses nn.GroupNorm, does it run on neuron?": the op named is asked, the model is context (29p)
    if gallery and "policy" in ents.cues and not ents.models and MODEL_RE.search(text) is None \
            and not re.search(r"\bgaller(?:y|ies)\b", text, re.I):
        gallery = 0  # "what happens if the model uses an op the TPU lacks?": the rule, no model named (s8c-intent3)
    if gallery and not (explicit_op and q.op_words):
        out.append(Reading("model", gallery, "a gallery question"))
    if explicit_op and not (gallery and not q.op_words):  # s30b: "with torch.compile" is a mode of the model
        # an aten:: name spelled out wins over a policy or list reading ("what happens with
        # aten::unique on tpu under torch.compile?" asks for that op's verdict; tester t29 #17)
        out.append(Reading("op", 11 if q.op_words else 7, "an op named as code"))
    listed = next((r for r in out if r.intent == "ops_list"), None)
    if listed is not None and gallery and not qualifies_ops(text):
        for r in out:  # "ResNet-50 training step: which ops fall back?": the named model's ops, not the target's list
            if r.intent == "model":
                r.score = max(r.score, listed.score + 1)
    out.sort(key=lambda r: -r.score)
    for r in out:
        r.command = _command(r, q, ents)
    return out


def best(q: Question, ents: Entities) -> tuple[Reading | None, Reading | None]:
    """(the reading to answer, a close other one to name) — (None, None) leaves the classic routing."""
    ranked = readings(q, ents)
    if not ranked or ranked[0].score < THRESHOLD or ranked[0].intent == "op":
        return None, None
    top = ranked[0]
    other = next((r for r in ranked[1:] if r.intent != top.intent and r.score >= CLOSE * top.score
                  and plausible(r, q, ents)), None)
    return top, other


def plausible(other: Reading, q: Question, ents: Entities) -> bool:
    """Whether a close second reading would answer something the asker plausibly wanted: it rests
    on a subject of its own that the best reading leaves unanswered — an op named as code, figures
    of a price or a rate, a model named, a list asked for in words, a yes/no about a feature line —
    not on the same words the best reading already answers (29k: a compile-policy answer is not
    "also" a list of unsupported ops because the question said "missing ops")."""
    asked_list = _LIST_ASKED.search(ents.english) is not None
    return {
        "op": bool(q.op_words or q.function_words),
        "cost": bool(ents.prices or ents.rates),
        "model": MODEL_RE.search(ents.english) is not None,  # a model's name as a word, not a near spelling
        "ops_list": asked_list,
        "policy": not asked_list,
        "feature_on": "yes_no" in ents.cues,
    }.get(other.intent, True)
