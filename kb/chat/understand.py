"""How a question was read, said in the answer: typo'd names read as a target or product
("read 'neuorn' as neuron"), an SDK release read as the packages it ships ("neuron 2.33 is
SDK release 2.33.0: torchneuron 2.13.3.0, 2.14.3.0"), a model answered by the nearest gallery
model, and a question of two clauses answered in two sections: each clause read on its own, with
the target, version and mode the other one names carried into it (and shown in its heading), and a
clause that reads as nothing said so in one line rather than dropped. Nothing here is ever a silent
swap: each reading the answer rests on is one line of its text and one fact of its --json.

Kept apart from kb.chat.answer so that the routing there stays one question, one reading;
`answer` calls `split_two` first and `with_readings` last.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat import entities, intents
from kb.chat.entities import Entities
from kb.chat.intents import Question
from kb.chat.op_since import asks_since
from kb.chat.package_on_instance import names_family, package_named
from kb.chat.reply import Answer
from kb.neutral import markdown as md
from kb.store import families

# ---------------------------------------------------------------- two questions in one

# A second clause that asks its own question: "... and what's the policy", "..., y cuánto cuesta",
# "...? also how long ...", "...; y de paso, ¿cuánto ...". A join followed by anything else ("neuron
# and tpu", "7 USD/h y 1500 tok/s") is one question.
_EN_ASK = (r"(?:what'?s|whats|what|how|which|since when|until when|till when|when|is|are|does|do|can|could|will|would|should|did|has|have"
           r"|(?:the )?(?:cost|price|fallback policy|policy|end of support) (?:per|of|for|at|on|in)"
           r"|list|show|give me|tell me|tell|count"
           # "… for neuron sdk 2.28 and any known issues?": a list of another kind asked beside (r24 q48)
           r"|any (?:known |major |important |big )?(?:issues?|bugs?|limitations?|problems?|gotchas?))\b")
_ES_ASK = (r"(?:¿ ?)?(?:(?:el |la )?(?:costo|coste|precio|pol[ií]tica) (?:por|de|a|en)|dame|lista|dime|mu[eé]strame"
           r"|ens[eé][nñ]ame|p[aá]same|desde cu[aá]ndo|qu[eé]|cu[aá]nto|cu[aá]nta|cu[aá]ntos|cu[aá]ntas|cu[aá]l|cu[aá]les|cu[aá]ndo"
           r"|c[oó]mo|d[oó]nde|es|est[aá]|corre|funciona|hay|hasta|sigue|cae|caen|puedo|se puede"
           # "… y q modelos bloquea", "y q cambió vs 0.1.1": Slack Spanish writes "qué" as "q" (held-out r13 q63, q64)
           r"|q(?= \w)"
           r"|alg[uú]n(?:a|os|as)? (?:known issues?|problemas?|bugs?|issues?|limitaci\w+|errores)(?: conocid\w+)?)\b")
# The words that join two questions (29l): English "and", "also", "plus", "as well as", "then"; Spanish
# "y", "e", "y de paso", "además", "también", "aparte", "otra cosa", each alone or after "y", and a
# comma or colon after it ("y de paso, ¿cuánto…", "otra cosa: cuánto…").
# "Also, unrelated: when did …", "y aparte, otra cosa: ¿cuándo …": a word that only says the next question is another
# one rides on the join (held-out r12 q52)
_ASIDE = (r"(?:(?:unrelated|separately|another thing|one more thing|one more|another one|by the way|btw|sin relaci[oó]n"
          r"|otra cosa|otra pregunta|otra m[aá]s|otra|aparte)[,:]? )?")  # "Y otra: en Trainium, ¿…?" (r31 q64)
_EN_LINK = r"(?:and(?: then| also| as well)?|also|plus|as well as)[,:]? " + _ASIDE  # "then" alone: only after , ; ?
_ES_LINK = (r"(?:(?:y |e )?(?:de paso|adem[aá]s|tambi[eé]n|aparte|otra cosa|luego)|y|e)[,:]? (?:adem[aá]s |tambi[eé]n )?"
            + _ASIDE)
# An op named as code opens a clause of its own ("... in eager and torch.roll is one of those?").
_CODE_OP = r"(?:(?:torch|F|nn|aten|Tensor)(?:\.|::)[\w.:]+|\w+\(\))"
# A subject's own verb, for a question that puts its subject first ("y ResNet-50 corre…", "y la Neuron 2.33 soporta…")
_SUBJECT_VERB = (r"(?:corre|corren|funciona|funcionan|anda|andan|se ejecuta|se ejecutan|soporta|soportan|sigue soportando"
                 r"|admite|admiten|incluye|runs|works|fits|cabe|supports)")
# "…? Y comparado con la 0.1.1, ¿cuáles perdió?", "…? And compared to 0.1.1, what did it lose?": a comparison opens a
# question of its own after a question mark (held-out r12 q56)
_COMPARED = r"(?:compared (?:to|with)|in comparison (?:to|with)|versus|vs\.?|comparad[oa] con|en comparaci[oó]n con|frente a)\b"
# Read over the text with each run of whitespace made one space, so no pattern here backtracks
# over a long run (the question is at most 1,000 characters; this keeps the scan linear anyway).
# A Spanish second question keeps its opening "¿" (the join is looked ahead of it, never taken in).
# "…? and on the older tpu one, what blocks the rest?": a place said first, then the question (r31 q51)
_PLACE_LEAD = rf"(?:on|in|for|en|para) [^,?¿]{{1,40}}, (?:{_EN_ASK}|{_ES_ASK})"
_JOIN = re.compile(rf" ?[,;]? {_EN_LINK}(?={_EN_ASK})|[,;] then[,:]? (?={_EN_ASK})"
                   rf"| ?[,;]? {_ES_LINK}(?=¿|{_ES_ASK})"
                   rf"|; (?=¿|{_EN_ASK}|{_ES_ASK})"
                   rf"|\?[,;]? (?:{_EN_LINK}|then[,:]? |{_ES_LINK})?(?=¿|{_EN_ASK}|{_ES_ASK}|{_COMPARED}|{_PLACE_LEAD})"
                   # "F.conv2d on trn2? y compilado??": the part before, asked again compiled (attacker s13)
                   # ("… trn2? y con torch.compile?" stays one part: its answer shows both modes)
                   r"|\?[,;]? (?=(?:and|y|e) (?:compiled|compilad[oa]s?)\b)"
                   # "…¿sigue con soporte? Y si paso a torchneuron, ¿qué hace…?": a condition, then its question (r20 q64); a decimal
                   # comma ("si me cuesta 4,20 $/h …, ¿cuánto…") is no end of the condition (r24 q64)
                   rf"|\?[,;]? (?:{_EN_LINK}|{_ES_LINK})?(?=(?:if|si) (?:[^?¿,]|(?<=\d),(?=\d)){{1,80}}, ?(?:¿|{_EN_ASK}|{_ES_ASK}))"
                   rf"| ?[,;]? (?:and|y) (?=(?:is |es |¿ ?)?{_CODE_OP} (?:{_EN_ASK}|{_ES_ASK}|one|una|uno|among|entre))"
                   # "…, y ResNet-50 corre en la 0.2.0?", "…, and BART large runs on trn2?": a comma, then a subject
                   # of one to three words and its verb, a question of its own (Spanish puts the subject first)
                   rf"|[,;] (?:and|y) (?=(?:[\w.-]+ ){{1,3}}{_SUBJECT_VERB}\b)"
                   # "¿…tokens/s? y la Neuron 2.33 soporta Python 3.11?": after a question mark, the same subject-first
                   # question, with or without its "y" (held-out r10 q63)
                   rf"|\?[,;]? (?:(?:and|y|e) )?(?=(?:[\w.-]+ ){{1,3}}{_SUBJECT_VERB}\b)"
                   # "cuanto sale … con 1500 tok/s y el sdpa corre en tpu": no comma, but an article opens the subject
                   # (held-out r13 q62)
                   rf"| (?:and|y|e) (?=(?:el|la|los|las|the) (?:[\w.-]+ ){{1,2}}{_SUBJECT_VERB}\b)"
                   # "… y en tpu q tal el rms norm", "… and on tpu how is rms_norm": a place, then a question word
                   # (held-out r13 q61)
                   rf"| ?[,;]? (?:and|y|e) (?=(?:on|in|en|con) (?:la |el |the )?[\w.-]+(?: v?\d+(?:\.\d+)*)?[,:]? "
                   rf"(?:q|qu[eé]|c[oó]mo|what|how|which|cu[aá]l)\b)"
                   # "¿funciona torch.cdist en neuron? ¿y el backward?": the gradient, asked apart (attacker s12)
                   rf"|\?[,;]? (?=¿? ?(?:and|y|e) (?:(?:el|the|its|su|la) )?backward\b)"
                   # "q cambio vs 0.1.1 desde cuando esta": a last "since when (is it out)" said without a join (r13 q64)
                   rf"| (?=(?:since when|desde cu[aá]ndo)(?: (?:est[aá]|is it|existe|hay)(?: \w+)?)?[ ?!.]*$)",
                   re.I)
# "cost at 0,76 usd/h with 300 tok/s, and nn.Embedding runs on inf1?": a comma, "and"/"y", then an op or
# module named as code with a word after it opens a second question when the first clause names no op
# (29o); after a clause that does name one, it is a list of ops ("torch.add, and torch.mul on tpu").
_COMMA_OP = re.compile(rf"[,;] (?:and|y|e|plus|also|adem[aá]s) (?=(?:¿ ?)?(?:is |es |does |el |la )?{_CODE_OP} \w)", re.I)
MIN_WORDS = 3  # a clause shorter than this is no question of its own
# A second clause about the first one's subject ("... and does it run natively on tpu", "... and what
# about compile mode?") is the same question continued: the whole question's reading answers it.
_FOLLOW_UP = re.compile(r"^(?:(?:does|do|is|are|can|will|would|could|did|how (?:does|do|well does))\s+(?:it|they|this|that|"
                        r"those|these|the same)\b|(?:what|how) about\b|(?:and )?(?:in|under|with) (?:torch\.)?(?:compile|eager)\b"
                        r"|y (?:en|con) (?:modo |el modo )?(?:torch\.)?compil|(?:y )?qu[eé] (?:tal|hay de)\b"
                        # 29t: "… and what's it set to by default?", "¿y cuál es su valor por defecto?": the same thing's value
                        r"|what(?:'s| is| does) (?:it|that|this)(?: set to| default to| by default)\b"
                        r"|(?:y )?(?:cu[aá]l|qu[eé]) (?:es|valor tiene) (?:su|el) valor(?: por defecto| predeterminado)?\b)", re.I)
# A Spanish clause opened by a bare verb ("... y cae a la cpu?", "... y es nativo en tpu?") has the first
# clause's subject: unless it names an op or a version of its own, it continues that question (29l).
_ES_BARE_VERB = re.compile(r"^(?:es|est[aá]|corre|corren|funciona|funcionan|cae|caen|sigue|siguen|va|van|da|dan"
                           r"|tira|tiran|lanza|lanzan|hace|hacen)\b", re.I)


# "... and what about aten::unique?", "¿y qué tal torch.roll?": a follow-up that names an op of its own is a
# second question about that op, asked where the first one asked (29q); without an op it continues the first.
_ABOUT = re.compile(r"^(?:(?:and|y) )?(?:(?:what|how) about|qu[eé] (?:tal|hay de|pasa con)|y)\b", re.I)
# "... and when?", "y desde cuándo?": a clause that asks only when; it asks about what the first one names (29q)
WHEN = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e|but|pero)[,:]? )?(?:¿ ?)?(?:since when|from when|when|desde cu[aá]ndo|cu[aá]ndo)"
                  r"(?: exactly| exactamente| then| entonces)?[ ?!.]*$"
                  # "desde cuándo está", "since when is it out": since when the thing named before is there (r13 q64)
                  r"|^(?:(?:and|y|e)[,:]? )?(?:¿ ?)?(?:since when|desde cu[aá]ndo) (?:est[aá]|is it|existe|hay)(?: disponible| out| fuera)?"
                  r"[ ?!.]*$", re.I)
# "… and until when?", "¿y hasta cuándo?": a clause that asks only until when what the part before names is supported
UNTIL = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e|but|pero)[,:]? )?(?:¿ ?)?(?:until when|till when|how long|hasta cu[aá]ndo|por cu[aá]nto tiempo)"
                   r"(?: exactly| exactamente| then| entonces)?[ ?!.]*$", re.I)


# "… costs £2.10 an hour and does 450 tok/s?", "… a 3 EUR la hora y saca 900 tokens/s?": a clause that only adds
# a figure (a verb, then a price or a rate) belongs to the first one's question (29t)
_FIGURE_VERB = re.compile(r"^(?:(?:it|we|that|this|the box|the instance|they)\s+)?(?:does|do|gets?|runs?|pushes|delivers?|makes?"
                          r"|manages?|hits?|reaches|is|costs?|hace|da|saca|rinde|genera|llega a|cuesta|sale|va a|corre a)"
                          r"(?:\s+(?:at|a|about|around|roughly|some|unos|unas|como|con))?\s+", re.I)


def _figure_only(second: str) -> bool:
    """Whether a clause is a verb and a figure only (see _FIGURE_VERB)."""
    m = _FIGURE_VERB.match(second)
    if m is None:
        return False
    rest = second[m.end():]
    return bool(intents.AMOUNT.search(rest)) and not intents.AMOUNT.sub(" ", rest).strip(" ?!.,;")


def _another_rate(first: str, second: str) -> bool:
    """"… 58 USD/h y 11.000 tok/s … ¿y si con los fallbacks bajamos a 8.000 tok/s?": a rate alone after a priced
    question is that cost again at the rate, answered with it (r31 q24)."""
    if not re.search(r"\d", second):
        return False
    later = entities.extract(second)
    return bool(later.rates) and not later.prices and _prices_and_rates(first)


def _prices_and_rates(clause: str) -> bool:
    """Whether a clause names both a price and a rate: a cost question of its own."""
    ents = entities.extract(clause)
    return bool(ents.prices and ents.rates)


def _continues(second: str) -> bool:
    """Whether a second clause is the first one's question continued (see _FOLLOW_UP, _ES_BARE_VERB)."""
    second = second.lstrip("¿ ")
    if _ABOUT.match(second) and (names_code_op(second) or _prices_and_rates(second)):
        return False  # "what about aten::unique?", "and what about 1,200 tok/s at $4/h?": a question of its own
    if _FOLLOW_UP.match(second) or _figure_only(second):
        return True
    return _ES_BARE_VERB.match(second) is not None and not names_code_op(second) and not re.search(r"\d", second)


SECTION = {"en": "**({n})** _{part}_", "es": "**({n})** _{part}_"}
# A link of any form a chat client would make live: a scheme ("mailto:", "xmpp:", "//host"), "www.", an e-mail
# address, or a bare host with a common top-level domain ("evil.com/login"; never torch.compile or nn.Linear)
_URL = re.compile(r"\b(?:https?|ftp)://\S+|(?<![\w/])//\S+|\b(?:mailto|xmpp|tel|sms|javascript|data|file|slack):\S+"
                  r"|\bwww\.\S+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|dev|ai|co|app"
                  r"|xyz|info|biz|me|us|uk|ru|cn|de|fr|es|mx|ar|br|link|site|online|top|click)\b(?:[/:?#]\S*)?", re.I)
LINK_WORD = {"en": "(a link)", "es": "(un enlace)"}


# "two things: …", "dos preguntas rápidas - …": a lead-in that only counts the questions, left out of a heading (s10)
_COUNTING_LEAD = re.compile(r"^(?:(?:hey|hi|hola|ok|so|quick|two|three|a few|a couple of|dos|tres|un par de|unas?)\s+)*"
                            r"(?:things?|questions?|qs?|ones|cosas?|preguntas?|dudas?|consultas?)"
                            r"(?:\s+(?:r[aá]pidas?|quick))?\s*(?::|\s[-–])\s+(?=\S)", re.I)


def heading(n: int, part: str, lang: str) -> str:
    """A part's section heading: the part as read, markdown escaped, any link in it replaced by a word
    (a chat client would make a link in the question one in kb's answer); a lead-in that only counts
    the questions ("two things:") is left out."""
    text = _URL.sub(LINK_WORD.get(lang, LINK_WORD["en"]), _COUNTING_LEAD.sub("", part))
    text = re.sub(r"\[(\d+)\]", r"(\1)", text)  # "[1]" written in a part is no citation of kb's sources
    return SECTION.get(lang, SECTION["en"]).format(n=n, part=md(text))


TWO = {"en": "_Two questions in one; each is answered in turn._",
       "es": "_Dos preguntas en una; cada una se responde por separado._"}


# "Q1: ... Q2: ...", "1) ... 2) ...", "P1. ...", "pregunta 1: ...": a part's number, counted from 1 (29q)
_NUMBER = re.compile(r"(?:^|(?<=[\s?.;,:]))\(?(?:(?:q|p|question|pregunta|part|parte) ?)?(\d{1,2})(?:\)|[:.](?= )|(?<=\d) ?-(?= ))"
                     r" ?", re.I)


_LEAD_WORDS = 15  # the most words a lead that ends in a colon may have before the numbered parts


# "primero: … segundo: …", "first: … second: …", "1ro: … 2do: …": parts numbered in words (r27 q64)
_ORDINAL = re.compile(r"(?:^|(?<=[\s?.;,]))(primero|primera|segundo|segunda|tercero|tercera|first|second|third|1ro|2do|3ro)"
                      r"(?=\s?:\s)", re.I)
_ORDINALS = {"primero": 1, "primera": 1, "first": 1, "1ro": 1, "segundo": 2, "segunda": 2, "second": 2, "2do": 2,
             "tercero": 3, "tercera": 3, "third": 3, "3ro": 3}


def numbered(text: str) -> list[str] | None:
    """The parts of a question written as numbered parts ("Q1: is X native? Q2: what's the policy?",
    "1) ... 2) ...", "primero: … segundo: …"), their numbers dropped; None unless it numbers at least two parts 1, 2,
    ... in order. A bare "1." counts only when "2." follows, so a version or a price is never a part's number."""
    text = re.sub(r"\s+", " ", text).strip()
    text = _ORDINAL.sub(lambda m: str(_ORDINALS[m.group(1).lower()]), text)
    marks, want = [], 1
    for m in _NUMBER.finditer(text):
        if int(m.group(1)) == want:
            marks.append(m)
            want += 1
    if len(marks) < 2:
        return None
    lead = text[:marks[0].start()].strip()
    # a lead of a few words ("Q:"), or one that ends in a colon ("three things for the migration ticket: (1) …", r12 q49)
    if lead.strip(" :") and len(lead.split()) > (_LEAD_WORDS if lead.endswith(":") else 4):
        return None
    bounds = [m.start() for m in marks] + [len(text)]
    parts = [re.sub(r"(?<=\w)\.$", "", text[marks[i].end():bounds[i + 1]].strip(" ,;")) for i in range(len(marks))]
    return parts if all(parts) else None


def unnumbered(text: str) -> str:
    """The question without its parts' numbers, for the reading of the whole question."""
    parts = numbered(text)
    return " ".join(p if p.endswith("?") else p + "?" for p in parts) if parts else text


# "and compiled?", "¿y compilado?", "y en eager?": the part before asked again in a mode
_MODE_ONLY = re.compile(r"^(?:¿ ?)?(?:and|y|e) (?:compiled|compilad[oa]s?|(?:with|con|under|bajo) torch\.compile"
                        r"|(?:en|in) (?:modo )?(?:compile|eager)(?: mode)?|eager)\W*(?:thx|thanks|gracias)?\W*$", re.I)


def _short_ok(second: str, join: str) -> bool:
    """A clause shorter than MIN_WORDS that is still a question of its own: "and when?" (29q),
    "what about aten::unique?" / "¿y torch.roll?" (an op of its own, asked where the first one asked),
    or an op alone after a question mark ("¿…? y ¿aten::sort?")."""
    if WHEN.match(second) is not None or UNTIL.match(second) is not None:
        return True
    if "?" in join and _MODE_ONLY.match(second):  # "F.conv2d on trn2? y compilado??" (attacker s13)
        return True
    if not names_code_op(second):
        return False
    return _ABOUT.match(second.lstrip("¿ ")) is not None or ("?" in join and len(second.split()) <= 2)


def asks_end(clause: str) -> bool:
    """"our stack is neuron 2.29 + python 3.11: what leaves support first, and when?": a clause that asks an end
    of support; a bare "and when?" after it asks that end's date, which its own answer gives (29t)."""
    english = entities.extract(clause).english
    return intents.read(english).intent == "eol" or "eol" in entities.extract(clause).cues


# "… en trainium? y con torch.compile? ah y cuándo …": a word said only to go on ("ah", "oh", "btw") after a question
# mark belongs to no clause (held-out r11 q62: the first clause read "…? ah?")
_FILLER = re.compile(r"\?\s*(?:ah|oh|eh|ok|okay|vale|bueno|pues|btw|by the way|por cierto|anyway)[,.!]*$", re.I)
# "… still supported on Neuron? when did it end?", "¿… sigue soportado? ¿cuándo se terminó?": a clause that asks only
# when it ended, after one that asks an end of support, is that question's date, which its answer gives (r10 q30)
WHEN_END = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e|but|pero)[,:]? )?(?:¿ ?)?(?:when|cu[aá]ndo)(?: exactly| exactamente)?"
                      r"(?: (?:did|does|will|is|was|has))?(?: (?:it|that|this|support|its support|eso|el soporte|su soporte))?"
                      r"(?: se)? (?:end|ended|ends|stop|stopped|stops|go away|went away|termin[oó]|terminar[aá]|termina|acab[oó]"
                      r"|acaba|acabar[aá]|finaliz[oó]|finaliza|dej[oó] de estar soportad[oa])[ ?!.]*$", re.I)
# "does F.group_norm run on the device, will HuBERT base run fully there, and when …?": a comma then a verb or a
# question word opens a question of its own in a series that ends in ", and …" (r10 q57, q60)
_SERIES_ASK = (r"(?:does|do|is|are|will|would|can|could|did|has|have|when|what|which|how|where|"
               r"¿?(?:es|est[aá]|corre|funciona|hay|cu[aá]ndo|qu[eé]|cu[aá]l|c[oó]mo|d[oó]nde|sigue|se puede))\b")
_SERIES_COMMA = re.compile(rf", (?={_SERIES_ASK})", re.I)
_SUBORDINATE = re.compile(r"^(?:[^:]*:\s*)?(?:if|when|whenever|once|after|before|while|si|cuando|al)\b", re.I)


def _series(first: str) -> tuple[str, str] | None:
    """The first question of a series "A, B, and C" (see _SERIES_COMMA) and the rest of `first`, or None.
    A clause opened by "if"/"when" ("if an op has no kernel, what happens?") is no question of its own."""
    m = _SERIES_COMMA.search(first)
    if m is None or _SUBORDINATE.match(first):
        return None
    left, right = first[:m.start()].strip(), first[m.end():].strip()
    asks = re.search(rf"(?:^|\s|¿){_SERIES_ASK}", left, re.I)  # "on neuron 2.33, does …": a place, not a question
    if not asks or len(left.split()) < MIN_WORDS or len(right.split()) < MIN_WORDS or _continues(right):
        return None
    return (left if left.endswith("?") else left + "?"), right


# "F.rms_norm es nativo en tpu 0.1.1? y en 0.2.0?", "is X native on tpu 0.1.1? what about 0.2.0?": the same question
# at another version (held-out r11 q61, r10 q52)
_AGAIN_AT = re.compile(r"\?\s*(?:¿\s*)?(?:(?:and|y|e|but|pero)\s+)?(?:(?:what|how)\s+about|qu[eé]\s+tal|qu[eé]\s+pasa\s+con)?"
                       r"\s*(?:(?:on|in|with|for|at|en|con|para)\s+)?(?:(?:la|el|the)\s+)?(?:(?:versi[oó]n|version|release)\s+)?"
                       r"v?(?P<version>\d+(?:\.\d+)+)\s*[?!.]*$", re.I)


def again_at(text: str) -> tuple[str, str] | None:
    """The two clauses of a question asked again at another version (see _AGAIN_AT): the first as said, the
    second the first with its version replaced by the new one; None unless the first names one version."""
    text = re.sub(r"\s+", " ", text).strip()
    m = _AGAIN_AT.search(text)
    if m is None:
        return None
    first = text[:m.start() + 1].strip()
    said = re.findall(r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w.])", first)
    if not said and len(first.split()) >= MIN_WORDS:
        return _again_at_unversioned(first, m.group("version"))
    if len(said) != 1 or len(first.split()) < MIN_WORDS or said[0].lstrip("v") == m.group("version"):
        return None
    if said[0].lstrip("v") not in [t.version for t in intents.read(entities.extract(first).english).targets]:
        return None  # a version the first clause's reading does not bind to its target would be answered at another
    second = re.sub(rf"(?<![\w.]){re.escape(said[0])}(?![\w.])", m.group("version"), first, count=1)
    return first, second


# "¿qué PyTorch soportan los SDK 2.29 y 2.30?", "neuron 2.29 vs 2.30 release dates": two releases of one line, joined
_TWO_RELEASES = re.compile(r"(?<![\w.])v?(?P<one>\d+\.\d+(?:\.\d+)*)\s*(?:,|and|y|e|vs\.?|versus|or|o|&)\s*"
                           r"v?(?P<two>\d+\.\d+(?:\.\d+)*)(?![\w.])", re.I)


_COMPARES = re.compile(r"\b(?:between|entre|chang\w*|cambi\w*|diff\w*|vs\.?|versus|compar\w*|from|desde|gain\w*|lost|lose"
                       r"|gan\w*|perd\w*|upgrad\w*|actualiz\w*)\b|->|→", re.I)


def two_releases(text: str) -> tuple[str, str] | None:
    """The question asked of each of two releases it joins ("SDK 2.29 y 2.30" → "SDK 2.29", "SDK 2.30"), or None
    unless it joins exactly two of the same line (one major); kb.chat.answer keeps the split only when both read
    as release questions, which answer one release each (r20 q47)."""
    found = list(_TWO_RELEASES.finditer(text))
    if len(found) != 1 or _COMPARES.search(text):
        return None  # "¿qué ops cambian entre 2.13.3.0 y 2.14.3.0?": one diff of the two, not a card each (r23 q16)
    m = found[0]
    one, two = m.group("one"), m.group("two")
    if one.split(".")[0] != two.split(".")[0] or one == two:
        return None
    return text[:m.start()] + one + text[m.end():], text[:m.start()] + two + text[m.end():]


def _again_at_unversioned(first: str, version: str) -> tuple[str, str] | None:
    """"does nonzero run on neuron? and with 2.14.3.0?": the first clause asks at the newest release, the second
    at the version it names, placed after the one target word the first names (s11); None unless it names one."""
    targets = intents.read(entities.extract(first).english).targets
    if len(targets) != 1 or targets[0].version or not targets[0].word:
        return None
    word = re.search(rf"(?<![\w.-]){re.escape(targets[0].word)}(?![\w.-])", first, re.I)
    if word is None:
        return None
    return first, first[:word.end()] + " " + version + first[word.end():]


# "…? And if the box is 1.34 USD an hour at 700 tok/s, what's the cost per million?": a conditional that brings a price
# and a rate after a question is a cost question of its own
_IF_COST = re.compile(r"\?[,;]? (?:(?:and|y|e|but|pero|so|entonces) )?(?=(?:if|si|say|suppose|sup[oó]n|suponiendo|assuming)\b)",
                      re.I)
# What an answer to the first part already says, asked again without a subject: since when and what to move to, after
# an end of support ("¿es cierto que ya no tiene soporte? ¿desde cuándo y a qué nos movemos?", r12 q30); which backend to
# use, after a backend that fails ("¿Inductor no jala en TPU? ¿Qué backend uso?", r12 q39); what was removed, after a
# diff ("what changed between 0.1.1 and 0.2.0? did anything get removed?", r12 q43)
_EOL_MORE = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e)[,:]? )?(?:since when|from when|desde cu[aá]ndo|what (?:do|should) we (?:move|migrate|"
                       r"switch|go) to|what(?:'s| is) the (?:replacement|alternative)|a qu[eé] nos (?:movemos|pasamos|cambiamos|"
                       r"migramos|vamos)|qu[eé] lo reemplaza|what replaces it)\b", re.I)
_BACKEND_MORE = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e|so|entonces)[,:]? )?(?:(?:which|what) backend (?:should|do|can|must) (?:i|we) use"
                           r"|(?:qu[eé]|cu[aá]l) backend (?:uso|usar|debo usar|usamos|me recomiendas|sirve))\b", re.I)
_DIFF_MORE = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e)[,:]? )?(?:(?:did|was|were|has|have)? ?(?:anything|something|any ops?|algo|alg[uú]n op)"
                        r"[^?]{0,20}\b(?:removed|lost|dropped|gained|added|quit[oó]|perdi[oó]|gan[oó]|se perdi[oó]|desapareci[oó])\b"
                        # "did we LOSE anything?", "¿perdimos algo?" (r23 q12)
                        r"|(?:did|do|have|has|will) (?:we|i|you|they|it) (?:lose|lost|gain|gained|drop|dropped) (?:anything|something|any)"
                        r"|(?:perdimos|perdemos|ganamos|perdi|perdí) (?:algo|alg[uú]n))\b", re.I)


# "cuándo salió neuron 2.33 y q paquetes de torch-neuronx trae": what a release ships, asked after a part about that
# release, is in that part's answer (held-out r13 q46)
_RELEASE_MORE = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e)[,:]? )?(?:q|qu[eé]|which|what|cu[aá]les)\b[^?]{0,40}"
                           r"\b(?:trae|incluye|lleva|ships?|includes?|comes? with|bundles?|(?:were|was|are|is|came|come) in it"
                           r"|(?:ven[ií]an?|vienen?|est[aá]n?|estaban?) en ella)\b", re.I)  # "what builds were in it" (r20 q44)


# "… cost per million for each, and which is cheaper?", "¿y cuál es más barata?": the comparison of the priced part
_CHEAPER_MORE = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e|so|entonces)[,:]? )?(?:which(?: one)? is (?:cheaper|cheapest|better value)"
                           r"|(?:cu[aá]l|qu[eé]) (?:es|sale|resulta|queda) (?:m[aá]s barat[oa]|mejor|m[aá]s econ[oó]mic[oa])"
                           r"|who wins)\b", re.I)
# "¿Hay alguna que directamente no esté soportada?", "any that are unsupported outright?": of the ops the part before
# lists, by another status
_ANY_OF_THEM = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e|also|tambi[eé]n)[,:]? )?(?:hay (?:alguna|alguno|algunas|algunos)|(?:is|are) there any"
                          r"|any(?: of them| ones?)?|alguna|alguno)\b", re.I)
OF_THEM_ASKS = {"en": "which {family} ops are {status} on {target}?", "es": "¿qué ops de {family} son {status} en {target}?"}


def _status_of(part: str, lang: str) -> str | None:
    """The status a follow-up asks of ops ("no esté soportada": unsupported), in the list's words."""
    from kb.chat.scoring import list_status

    english = entities.extract(part, lang).english
    if re.search(r"\bnot (?:\w+ ){0,2}supported\b|\bunsupported\b|\bno soportad", english + " " + part, re.I):
        return "unsupported"
    return list_status(english)


# A torch.compile option said in a part ("dynamic=True", "mode='max-autotune'"): carried into "¿y en TPU?"
_OPTION_SAID = re.compile(r"\b(?:dynamic\s*=\s*(?:True|False)|mode\s*=\s*['\"]?[\w-]+['\"]?|fullgraph\s*=\s*(?:True|False))",
                          re.I)
# "what should the new base be?", "¿y qué base usamos?": a replacement for the platform the part before ends
_NEW_BASE = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e|so|entonces)[,:]? )?(?:what should (?:the|our) new (?:base|image|os|version) be"
                       r"|what (?:base|image|os|ubuntu|version) should we (?:use|move to|pick|go with)|which (?:base|image|os) then"
                       r"|(?:qu[eé]|cu[aá]l) (?:base|imagen|versi[oó]n) (?:usamos|ponemos|elegimos|deber[ií]amos usar|nueva)"
                       r"|a qu[eé] (?:base|imagen|versi[oó]n) (?:nos pasamos|migramos|cambiamos))\b", re.I)
NEW_BASE_ASKS = {"en": "which {platform} does {neuron} support?", "es": "¿qué {platform} soporta {neuron}?"}
# "Anything incompatible, and what's the first end-of-support date in there?": the stack check's own first end (r26 q27)
_FIRST_END_MORE = re.compile(r"^(?:¿ ?)?(?:(?:and|y|e)[,:]? )?(?:what(?:'s| is)|which is|cu[aá]l es) (?:the |la )?(?:first|earliest"
                             r"|soonest|primera?|m[aá]s pr[oó]xim[oa])\b[^?]{0,40}\b(?:in there|in it|of them|among them|in the stack"
                             r"|ah[ií]|en (?:eso|ella|esa pila|la pila))\b", re.I)


def _more_of_first(first: str, second: str) -> bool:
    """Whether `second` asks only what the first part's answer gives (see _EOL_MORE, _BACKEND_MORE, _DIFF_MORE,
    _RELEASE_MORE)."""
    if _RELEASE_MORE.match(second) and not re.search(r"\d+\.\d+", second):
        read = intents.read(entities.extract(first).english)  # "when did neuron 2.33 come out": no op named (r20 q44)
        return re.search(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\w.])", first) is not None \
            and (read.intent in ("release", "eol", "unknown") or not (read.op_words or read.function_words))
    if _EOL_MORE.match(second):
        return asks_end(first)
    if _CHEAPER_MORE.match(second):  # "Cost per million for each, and which is cheaper?": the comparison says it
        ents = entities.extract(first)
        return len([p for p in ents.prices if p.per_hour]) >= 2 and len(ents.rates) >= 2
    if _FIRST_END_MORE.match(second):
        return asks_end(first) or len(re.findall(r"\b[a-z_-]+=\S+", first, re.I)) >= 2
    if _BACKEND_MORE.match(second):
        return re.search(r"\bbackend|\bcompil|\binductor\b", first, re.I) is not None
    if _DIFF_MORE.match(second):
        english = entities.extract(first).english
        changed = re.search(r"\b(?:changed?|changes|diff|between|compared?|cambi[oó]|cambios|entre|comparad[oa]|gain\w*"
                            r"|upgrad\w*|ganamos|ganó)\b|->|→", english, re.I)  # "0.1.1 -> 0.2.0: what did we gain?" (r23 q12)
        return changed is not None and (intents.read(english).intent == "diff"
                                        or len(re.findall(r"(?<![\w.])v?\d+(?:\.\d+)+(?!\w|\.\d)", first)) >= 2)
    return False


# A short question up to its question mark, then the rest: "since when? and on neuron?"
_LEAD_ASK = re.compile(r"^([^?]{1,40}\?)\s*(\S.*)$")
# "… q modelos de la galería bloquea y en tpu": a last place alone, after a clause that names none
_TAIL_PLACE = re.compile(r"^(?P<head>.+?)\s*[,;]? (?P<tail>(?:and|y|e) (?:on|in|en|con) (?:la |el |the )?[\w.-]+(?: v?\d+(?:\.\d+)*)?"
                         r"[ ?!.]*)$", re.I)


def tail_place(text: str, lang: str) -> tuple[str, str] | None:
    """A part that ends in a place of its own ("… y en tpu"), split off when the rest names no target: the same
    question asked there, a part of its own in a question of three or more parts (held-out r13 q63). "on neuron and
    on tpu" names two places for one question and stays whole."""
    m = _TAIL_PLACE.match(text)
    if m is None or len(m.group("head").split()) < MIN_WORDS or _context(m.group("head"), lang)["targets"]:
        return None
    if not _context(m.group("tail"), lang)["targets"]:
        return None
    head = m.group("head")
    return (head if head.endswith("?") else head + "?"), m.group("tail")


_COUNT_OF_OPS = re.compile(r"\b(?:how many|cu[aá]nt[oa]s)\b[^?.]{0,40}\b(?:ops|operators|operadores|operaciones|kernels)\b",
                           re.I)


def count_without_context_ops(text: str) -> str:
    """"we do spectral losses with torch.fft.rfft/irfft. how many fft ops fall back on neuron?": a count of ops asked
    after a sentence of context; the ops named in that context are the asker's, not the question (r31 q12)."""
    sentences = re.split(r"(?<=[.!])\s+", text.strip())
    if len(sentences) < 2 or not _COUNT_OF_OPS.search(sentences[-1]) or any("?" in s for s in sentences[:-1]):
        return text
    if intents.read(entities.extract(sentences[-1]).english).targets:
        return sentences[-1]  # the count names where: the context's words (a family: "losses") are no filter of it
    context = [re.sub(_CODE_OP + r"(?:/\w+)*", " ", s) for s in sentences[:-1]]
    return " ".join(context + sentences[-1:])


def split_two(text: str) -> tuple[str, str] | None:
    """The two clauses of a question that joins two questions, or None. Only the first join
    that starts a question counts (a third clause stays with the second); numbered parts
    ("Q1: … Q2: …", "1) … 2) …") are split at their numbers first."""
    parts = numbered(text)
    if parts:
        rest = [p if p.endswith("?") or i == len(parts) - 2 else p + "?" for i, p in enumerate(parts[1:])]
        return (parts[0] if parts[0].endswith("?") else parts[0] + "?"), " ".join(rest)
    text = re.sub(r"\s+", " ", text).strip()
    lead = _LEAD_ASK.match(text)
    if lead and (WHEN.match(lead.group(1)) or UNTIL.match(lead.group(1))):
        return lead.group(1), lead.group(2)  # "since when? and on neuron?": the when, then the rest (r14 q58, q62)
    for m in _JOIN.finditer(text):
        first, second = _FILLER.sub("?", text[:m.start()].strip(" ,;")), text[m.end():].strip()
        if _continues(second) or (WHEN.match(second) or WHEN_END.match(second) or UNTIL.match(second)) and asks_end(first) \
                or _more_of_first(first, second) or _another_rate(first, second):
            return None
        if m.group(0) == " " and not _CHANGE.search(first):
            # a last "since when" with no join opens a question only after a diff ("q cambió vs 0.1.1 desde cuándo
            # está", r13 q64); elsewhere it asks the clause's own date ("is pytorch/xla inference on trn2 over since
            # when", r13 q58)
            continue
        lead = _LEAD_ASK.match(second)
        if lead and (WHEN.match(lead.group(1)) or UNTIL.match(lead.group(1)) or WHEN_END.match(lead.group(1))) \
                and asks_end(first):
            continue  # "¿… sigue soportado en Neuron y hasta cuándo? y de paso …": the when is the first part's own
        if m.group(0).lstrip().startswith(",") and (series := _series(first)) is not None:
            return series[0], series[1] + text[m.start():]  # "does A…, will B…, and when C?": A first (r10 q57)
        # "since when? and on neuron?": a bare "when" part, found when the part before it is split off (r14 q58)
        long_enough = len(first.split()) >= MIN_WORDS or "?" in m.group(0) and (WHEN.match(first) or UNTIL.match(first))
        if long_enough and (len(second.split()) >= MIN_WORDS or _short_ok(second, m.group(0))):
            return (first if first.endswith("?") else first + "?"), second
    m = _IF_COST.search(text)
    if m:  # "¿Corre entero en el chip? Y si la instancia sale a 1,34 USD la hora con 700 tok/s, ¿cuánto …?" (r12 q55)
        first, second = text[:m.start() + 1].strip(), text[m.end():].strip()
        if len(first.split()) >= MIN_WORDS and _prices_and_rates(second) and not _prices_and_rates(first):
            return first, second
    m = _COMMA_OP.search(text)
    if m and not names_code_op(text[:m.start()]):
        first, second = text[:m.start()].strip(" ,;"), text[m.end():].strip()
        if len(first.split()) >= MIN_WORDS and len(second.split()) >= 2:
            return (first if first.endswith("?") else first + "?"), second
    return None


# torch.compile / torch._dynamo name a mode, not an op: "¿…? ¿y con torch.compile?" continues the question (29r)
# and is no follow-up naming an op of its own (29q)
_MODE_AS_CODE = re.compile(r"\btorch\.(?:compile|_dynamo)\b(?:\(\))?", re.I)


def names_code_op(text: str) -> bool:
    """Whether a clause names an op as code (torch.roll, aten::nonzero, x()); torch.compile is a mode."""
    return re.search(_CODE_OP, _MODE_AS_CODE.sub(" ", text)) is not None


# Kinds of question whose reading of the whole question takes every op and target it names: two clauses
# of one of these kinds are one question ("is torch.add native on tpu and is torch.mul?").
ONE_READING = ("op", "compare", "caveat", "family", "collective")


def op_carried(carried: list[dict[str, Any]]) -> bool:
    """The second part asks the first one's op again in another mode ("… and what happens to it under torch.compile?"):
    its own section, since the whole question's reading would answer only the first mode (r12 q1); another target
    alone ("¿…en neuron? ¿y en la tpu?") is the whole question's comparison."""
    return any("own_mode" in f.get("carried", {}) or "backward" in f.get("carried", {}) for f in carried)


def same_answer(first: Answer, second: Answer) -> bool:
    """Both clauses got the same answer ("¿cuál es la versión más nueva de TorchTPU y qué requisitos tiene?": the
    release card answers both): one section would say it twice."""
    return first.intent not in WEAK and body_and_sources(first.text)[0] == body_and_sources(second.text)[0]


def answers_both(first: Answer, second: Answer) -> bool:
    """Both clauses read as questions the KB answers, and as different kinds of question, or as two
    of a kind the whole question's reading would answer only one of (two lists, two end-of-support
    questions: "which ops are missing on tpu as well as how many does it run natively?", 29l)."""
    if first.intent in WEAK or second.intent in WEAK:
        return False
    return first.intent != second.intent or first.intent not in ONE_READING


def own_ops(parts: tuple[str, str], lang: str) -> bool:
    """Both clauses name ops, and different ones ("on neuron 2.33, is aten::nonzero native, and what
    about aten::unique?"): two op questions, each answered in its own section where the other asked
    (29q), rather than one reading whose headline speaks for only one of them."""
    named = []
    for part in parts:
        q = intents.read(entities.extract(part, lang).english)
        named.append({w.lower() for w in q.op_words + q.function_words})
    return all(named) and not (named[0] & named[1])


WEAK = ("unknown", "help")
UNREAD = {"en": "_I could not read this part on its own: ask it alone, naming an op (`aten::nonzero`), a target "
                "(`neuron`, `tpu`), a version, or a price and a rate._",
          "es": "_No pude leer esta parte por sí sola: pregúntala aparte, con un op (`aten::nonzero`), un destino "
                "(`neuron`, `tpu`), una versión, o un precio y un ritmo en tokens/s._"}


def one_unread(first: Answer, second: Answer) -> bool:
    """One clause reads as a question the KB answers and the other as nothing: both are still
    answered, the unread one in one line that says so (29l: never only one part, silently)."""
    return (first.intent in WEAK) != (second.intent in WEAK)


# "¿y cuáles son, más o menos?", "which ones?", "list them": which of what the part before counted, which its answer lists
_WHICH_ONES = re.compile(r"^\W*(?:(?:and|y|e)\s+)?(?:(?:which|what|cu[aá]les|qu[eé]|list|lista|listame|show|dime|name)"
                         r"(?:\s+(?:ones?|are they|are those|them|son|serian|serían|eran|de ellas|de ellos|those|these))?"
                         r"|(?:p[aá]same|dame|m[aá]ndame|give me|send me|show me)\s+(?:la lista|el listado|the list|them|los|las))"
                         r"(?:\s+(?:m[aá]s o menos|roughly|more or less|aprox\w*|por ejemplo|for example|e\.g\.))?"
                         r"(?:\s+(?:porfa|por favor|please|pls|plz))?"
                         # "List them please, I want them in our lint rule.": why they are wanted asks nothing more (r26 q10)
                         r"(?:\s*[,;.:-]\s*(?:i|we|i'd|we'd|for|so|para|que|porque|because|quiero|necesito|queremos)\b[^?]{0,80})?"
                         r"\W*$", re.I)


def said_aside(part: str) -> bool:
    """Whether an unread part is a remark after the question, asking nothing ("…cuanto sale el millon de tokens? es
    una inf2 chiquita"): it has no question mark and opens with no question word (r27 q24)."""
    return bool(part.strip()) and "?" not in part and "¿" not in part and _ASKING_OPENER.match(part) is None


_ASKING_OPENER = re.compile(r"^\W*(?:(?:and|y|e|but|pero|also|tambi[eé]n)\s+)?(?:what|which|how|when|where|why|who|does|do|did|can|could"
                            r"|will|would|should|has|have|list|show|give|tell|compare|qu[eé]|q|cu[aá]l(?:es)?|c[oó]mo|cu[aá]nd[oa]"
                            r"|cu[aá]nt[oa]s?|d[oó]nde|por qu[eé]|qui[eé]n|hay|lista\w*|dime|dame|mu[eé]stra\w*|compar\w*"
                            r"|funciona\w*|corre\w*|va|van|sirve\w*|puedo|podemos|se puede)\b", re.I)


def which_ones(part: str) -> bool:
    """Whether a part only asks which ones, of what the part before counted (r22 q15)."""
    return _WHICH_ONES.match(part or "") is not None


def only_context(part: str, lang: str) -> bool:
    """A clause that names nothing but where or how ("y es nativo en tpu?", "and on tpu 0.2.0?"): the
    first clause's subject asked again there, which the whole question's reading answers."""
    said = _context(part, lang)
    return not (said["op"] or said["words"] or said["priced"] or said["news"])


def subject_of(part: str, lang: str) -> str | None:
    """The op or module a part asks about, a subject a later part that only says where can ask about again: one
    named as code or op-like, or the one plain word the part leaves ("sort va en neuron o cae a cpu?": sort)."""
    named = _context(part, lang)["named"]
    if named:
        return named[0]
    plain = intents.read(entities.extract(unglued(part), lang).english).plain_words
    return plain[0] if len(plain) == 1 else None


def place_again(prior: str, part: str, lang: str) -> tuple[str, dict[str, Any]] | None:
    """"… y en tpu" after a part about an op: that op's question asked there, the op said in the part as read."""
    subject = subject_of(prior, lang)
    if subject is None or not _context(part, lang)["targets"]:
        return None
    return part.rstrip(" ?¿.") + f" ({subject})?", {"carried": {"ops": [subject]}}


# "and how much better is 0.2.0?", "¿y qué tan mejor es la 0.2.0?": the part before asked again at another release
_BETTER = re.compile(r"\b(?:better|worse|improv\w*|mejor\w*|peor\w*)\b", re.I)


def asked_there(prior: str, part: str, lang: str, unread: bool = False) -> str | None:
    """"1. ¿cuántas ops caen a cpu en neuron? 2. ¿y en tpu 0.2.0?": a part that only says where asks the part before it
    again there: that part with its one target (and version) replaced by this part's; None unless each names one
    target (r20 q61)."""
    said = _context(part, lang)
    # `unread`: the part read as nothing on its own, so words beside its place ("¿cuántos en tpu? lo necesito para la
    # slide", "en TPU andan joya") are no question of their own either (r23 q55, q56)
    if not (only_context(part, lang) or _BETTER.search(part) or unread and not (said["op"] or said["priced"])):
        return None
    before = intents.read(entities.extract(prior, lang).english).targets
    here = intents.read(entities.extract(part, lang).english).targets
    families = [m.word for m in here if m.word and re.fullmatch(r"(?i)(?:inf|trn)[123]", m.word)]
    if len(before) == 1 and before[0].word and len(here) >= 2 and len(families) == len(here) \
            and re.fullmatch(r"(?i)(?:inf|trn)[123]", before[0].word):
        # "¿NxD Inference sigue teniendo soporte en Trn2? ¿Y en Inf2 o Trn1?": the part before, on those families (r31 q31)
        joined = (" o " if lang == "es" else " or ").join(families)
        again, n = re.subn(rf"(?<![\w.-]){re.escape(before[0].word)}(?![\w.-])", joined, prior, count=1, flags=re.I)
        return again if n else None
    if len(before) != 1 or len(here) != 1 or not before[0].word or not here[0].word:
        return None
    if (before[0].target, before[0].version) == (here[0].target, here[0].version):
        return None  # the same place: nothing is asked again ("… on tpu and what is the airspeed of a swallow?")
    platforms = _context(prior, lang)["platforms"]
    if before[0].version is None and here[0].version and len(platforms) == 1:
        product, had = platforms[0].rsplit(" ", 1)
        if had.split(".")[0] == here[0].version.split(".")[0] and had != here[0].version:
            # "¿… soporte de PyTorch 2.8 en Neuron? ¿y el de la 2.7?": PyTorch 2.7, not Neuron 2.7 (r31 q30)
            again, n = re.subn(rf"(?<![\w.]){re.escape(had)}(?![\w.])", here[0].version, prior, count=1)
            return again if n else None
    place = here[0].word + (f" {here[0].version}" if here[0].version else "")
    version = rf"(?:\s+v?{re.escape(before[0].version)})?" if before[0].version else ""
    again, n = re.subn(rf"(?<![\w.-]){re.escape(before[0].word)}{version}(?![\w.-])", place, prior, count=1, flags=re.I)
    return again if n else None


def unread_part(part: str, lang: str) -> Answer:
    """The one line a clause that reads as nothing gets, in its language."""
    return Answer(part, "unknown", UNREAD.get(lang, UNREAD["en"]), [{"part_unread": part}], language=lang)


# ---------------------------------------------------------------- context carried between the clauses

WHEN_ASKS = {"en": "when was {name} released?", "es": "¿cuándo salió {name}?"}
UNTIL_ASKS = {"en": "until when is {name} supported?", "es": "¿hasta cuándo está soportado {name}?"}
STILL_ASKS = {"en": "is {name} still supported?", "es": "¿sigue soportado {name}?"}
# "¿Siguen soportados los AMIs de Inf1? ¿Y torch-neuron 1.10?": a bare name at a version after an end-of-support part
# asks the same of it (r22 q32)
_BARE_NAME = re.compile(r"^\W*(?:(?:and|y|e)\s+)?(?:(?:what|how) about\s+|qu[eé] (?:tal|pasa|hay) con\s+)?(?:(?:el|la|los|las|the)\s+)?"
                        r"(?P<name>[A-Za-z][\w.-]*(?:\s+[A-Za-z][\w.-]*)?\s+v?\d+(?:\.\d+)+)\s*[?!.]*\s*$", re.I)
_NAMED_TARGETS = ("neuron", "tpu", "neuron-xla", "inf1")  # the targets a clause's context can carry
MODE_WORDS = {"en": {"compile": "in compile mode", "eager": "in eager mode"},
              "es": {"compile": "en modo compilación", "eager": "en modo eager"}}


# "them", "those ops", "ellas": the ops a list clause before named, when the clause names no op itself
_THEM = {"en": re.compile(r"\b(?:them|those(?: ops| operators)?|these(?: ops| operators)?)\b", re.I),
         "es": re.compile(r"\b(?:ellas|ellos|esos(?: ops| operadores)?|esas(?: ops| operaciones)?|estos ops|estas ops)\b",
                          re.I)}
LACKED = {"en": "the ops it has no kernel for", "es": "los ops sin kernel"}


SINCE_ASKS = {"en": ("since when does {where} support {ops}?", "since when is {ops} supported?"),
              "es": ("¿desde cuándo soporta {where} {ops}?", "¿desde cuándo está soportado {ops}?")}


def since_asked(ops: list[str], targets: list[str], lang: str) -> str:
    """"since when?" after a clause about ops with no version, asked whole: since when the ops run."""
    with_where, without = SINCE_ASKS.get(lang, SINCE_ASKS["en"])
    joined = (" y " if lang == "es" else " and ").join(ops[:3])
    if targets:
        return with_where.format(where=(" y " if lang == "es" else " and ").join(targets), ops=joined)
    return without.format(ops=joined)


# "tpu0.2", "torchtpu0.1.1": a target with its version glued on, Slack style (held-out r13 q57, q59)
_GLUED = re.compile(r"\b(tpu|neuron|torch_?tpu|torchneuron|torch-neuronx)(\d+(?:\.\d+)+)\b", re.I)


def unglued(part: str) -> str:
    """A part with a target's glued version set apart ("tpu0.2" → "tpu 0.2"), so the part names its own target
    and none is carried into it from another part."""
    return _GLUED.sub(r"\1 \2", part)


_ASKS_NEWEST = re.compile(r"^\W*(?:which|what(?:'?s)?)\b(?:(?!\b(?:on|in|for)\b).)*\b(?:newest|latest)\b", re.I)


def _context(part: str, lang: str) -> dict[str, Any]:
    """What one clause names on its own: targets with their versions, modes, whether it is priced,
    whether it names an op, whether it lists ops a target cannot run on the device."""
    from kb.chat.scoring import list_status

    ents = entities.extract(unglued(part), lang)
    q = intents.read(ents.english)
    targets = [(m.target, m.version) for m in q.targets if m.target in _NAMED_TARGETS]
    said = {intents.TARGET_ALIASES.get(p.lower()): v for p, v in q.products if v} if len(q.versions) == 1 else {}
    # "que trae torch-neuronx en la 2.33?": the version said after "en la" is the target's, carried with it (r11 q45)
    targets = [(t, v or said.get(t)) for t, v in targets]
    op = bool(q.op_words or q.function_words)
    from kb.chat.answer_gallery import find_models
    from kb.chat.answer_sdk_news import NEWS

    news = bool(NEWS.search(ents.english))  # "what's new in neuron 2.34" carries no op or mode of the part before
    # "cual es el torchneuron mas nuevo?": which release is newest, no op's question (CI s12: "nonzero" was carried in)
    newest = not op and bool(_ASKS_NEWEST.search(ents.english))

    return {"targets": list(dict.fromkeys(targets)), "sdk": {m.target for m in q.targets if m.sdk and m.version},
            "target_words": {m.target: m.word for m in q.targets if m.word}, "modes": {"eager", "compile"} & ents.cues, "versions": list(q.versions),
            "models": [] if op else find_models(part), "features": list(ents.features) + [p for p, _ in q.products],
            "ops": list(dict.fromkeys(q.op_words + q.function_words)), "named": _named_ops(part, lang), "policy": "policy" in ents.cues,
            "platforms": [f"{p} {v}" for p, v in q.products if v and p in intents.PLATFORM_PRODUCTS],
            "priced": bool(ents.prices or ents.rates), "op": op, "words": bool(q.plain_words),
            "asks_cost": "cost" in ents.cues, "modeless": "eol" in ents.cues or q.intent in ("eol", "release", "diff")
            or news or newest, "news": news, "newest": newest, "prices": ents.prices, "rates": ents.rates,
            "lacking": not op and list_status(ents.english) in ("unsupported", "fallback") and "policy" not in ents.cues}


# A pronoun for a thing named before ("it", "its", Spanish "su", "sus")
_PRONOUN = {"en": re.compile(r"\b(?:it|its)\b", re.I), "es": re.compile(r"\b(?:su|sus)\b", re.I)}


def _name_for_pronoun(clause: str, name: str, lang: str) -> str:
    """The clause with its pronoun said as the product it stands for."""
    if lang == "es":
        return re.sub(r"\bsus?\b", "el", clause, count=1, flags=re.I).rstrip(" ?¿.") + f" de {name}?"
    if re.search(r"\bit\b", clause, re.I):
        return re.sub(r"\bit\b", name, clause, count=1, flags=re.I)
    return re.sub(r"\bits\b", f"{name}'s", clause, count=1, flags=re.I)


# "Is there a knob?", "¿hay alguna opción?": a switch, asked after a part about what a backend does with an op it lacks
_KNOB = re.compile(r"\b(?:knobs?|switch(?:es)?|flags?|settings?|toggles?|options?|env(?:ironment)? var\w*|config\w*|"
                   r"interruptor|opci[oó]n|opciones|variable|bandera|par[aá]metro|ajuste)\b", re.I)
_FALLBACK_ASKED = re.compile(r"\bfall(?:s|ing)? back\b|\bfallback\b|\braises?\b|\berrors? out\b|\bca(?:e|en) a la cpu\b"
                             r"|\blanza\b|\bfalla\b|\bda error\b", re.I)
KNOB_WORDS = {"en": "for the CPU fallback", "es": "(cómo se activa el fallback a la CPU)"}
# "… and compared to 0.1.1, what did it lose?": a part that asks what changed from a version
_CHANGE = re.compile(rf"{_COMPARED}|\b(?:lost|lose|gained|gain|removed|added|perdi[oó]|gan[oó]|quit[oó]|cambi[oó])\b", re.I)
# "which ops block it?", "¿qué ops se van a la CPU?", "is 0.2.0 clean for this model?": a part about the model named before
_OF_MODEL = re.compile(r"\b(?:which|what|qu[eé]|cu[aá]les?) ops?\b|\bops? (?:block|bloquea)|\b(?:block|blocks|blocking) it\b"
                       r"|\bthis model\b|\bthe model\b|\best?e modelo\b|\blo bloquea\b|\bfully\b|\bclean\b"
                       r"|\b(?:entero|completo)\b", re.I)
# "what happens to it", "same question on neuron", "¿y en TPU…?": a part whose subject is the part before's
_SAME_SUBJECT = re.compile(r"\b(?:it|them|same question|the same|la misma(?: pregunta)?|lo mismo|eso|esto)\b"
                           r"|^(?:¿ ?)?(?:and|y|e) (?:on|in|with|en|con)\b"
                           # "¿Y si compilamos?", "y compilado??" after an op (attacker s13)
                           r"|^(?:¿ ?)?(?:and|y|e) (?:(?:if|si) (?:we |i )?(?:lo |la )?compil\w*|compil(?:ed|ad[oa]s?)\b)"
                           # "si lo compilo con torch.compile, ¿qué onda?": "lo" is the op before (r31 q6)
                           r"|^(?:¿ ?)?(?:(?:and|y|e|pero) )?(?:si|if) (?:lo|la|los|las|it|we) compil\w*"
                           r"|^(?:¿ ?)?(?:(?:and|y|e) )?(?:if|si) (?:i|we)? ?compile (?:it|them)\b"
                           # "would wrapping the block in torch.compile change anything?" (r22 q01)
                           r"|\bchanges? anything\b|\bmake (?:a|any) difference\b|\bcambi\w* (?:en )?algo\b", re.I)


BLOCKS_ASK = {"en": "which ops block {name}?", "es": "¿qué ops bloquean {name}?"}


def _knob_for(parts: tuple[str, str], lang: str) -> str | None:
    """The subject a bare "is there a knob?" asks about: the CPU fallback the part before asks about."""
    if _KNOB.search(parts[1]) and len(parts[1].split()) <= 8 and _FALLBACK_ASKED.search(parts[0]) \
            and not _FALLBACK_ASKED.search(parts[1]):
        return KNOB_WORDS.get(lang, KNOB_WORDS["en"])
    return None


def _bare_version(part: str, targets: list[tuple[str, str | None]], other_targets: list[tuple[str, str | None]]
                  ) -> tuple[str, str] | None:
    """A part that names a version and no target, after a part that names one target: the part with the version said
    as that target's ("¿Con la 0.2.0 ya jala?" → "¿Con tpu 0.2.0 ya jala?"), and the name said."""
    names = {t for t, _ in other_targets}
    if targets or len(names) != 1:
        return None
    m = re.search(r"(?:\b(?:la|el|the|versi[oó]n|version|release) )*(?<![\w.])v?(\d+\.\d+(?:\.\d+)*)(?![\w.])", part, re.I)
    # "22.04", "Python 3.10": a platform's version, not the target's; a target's own line shares its first number
    if m is None or not any(v and v.split(".")[0] == m.group(1).split(".")[0] for _, v in other_targets):
        return None
    name = f"{next(iter(names))} {m.group(1)}"
    return part[:m.start()] + name + part[m.end():], name


# a word the reader leaves plain that still names an op or a module: nn.GroupNorm, batch_norm, LayerNorm
_OP_LIKE = re.compile(r"^(?:nn\.\w+|[a-z]\w*_\w+|[A-Z]\w*(?:Norm|Loss|Pool|Conv|Embedding|Attention|Linear|Upsample|Dropout"
                      r"|Softmax|LSTM|GRU)\w*)$")


def _torch_function(word: str) -> bool:
    """Whether a plain word is a torch function of the shipped map ("topk", "bincount"): an op named bare (r25 q58)."""
    from kb.chat.oplookup import function_map

    return len(word) >= 3 and word.islower() and f"torch.{word}" in function_map()[0]


def _named_ops(part: str, lang: str) -> list[str]:
    """The op or module a part asks about, at most one: the one its last sentence names (the question after the
    context: "CLIP does `x[torch.arange(n), ids.argmax()]`. Does argmax run …?" asks about argmax), a module first."""
    sentences = [x for x in re.split(r"(?<=[.?!])\s+(?=[¿A-Z])", part) if x.strip()]
    for text in ([sentences[-1]] if len(sentences) > 1 else []) + [part]:
        q = intents.read(entities.extract(text, lang).english)
        whole = intents.read(entities.extract(part, lang).english) if text != part else q
        said = q.op_words + q.function_words + [w for w in q.plain_words if _OP_LIKE.match(w) or _torch_function(w)]
        # "argmax" in the question, `input_ids.argmax(...)` in the code before it: the code's call
        said += [f"Tensor.{w}" for w in q.plain_words for f in whole.function_words if f.rsplit(".", 1)[-1] == w]
        # GroupNorm: nn.GroupNorm; a dotted name (F.scaled_dot_product_attention, Tensor.view) is kept (r24 q57)
        said = [f"nn.{w}" if w[:1].isupper() and "." not in w else w for w in said]
        if said:
            return sorted(said, key=lambda w: not w.startswith("nn."))[:1]
    return []


# "and its backward?", "¿y el backward…?": the gradient of the op the part before names
_BACKWARD = re.compile(r"\bbackward(?: pass)?\b", re.I)


def _ops_for(said: list[dict[str, Any]], part: str, lang: str) -> list[str]:
    """The first part's ops, for a second part that names no subject of its own (see _SAME_SUBJECT) but says where or
    how it asks: a target, a mode, or "same question"; none for a list, a cost, a release or an end of support."""
    mine = said[1]
    if said[0]["named"] and not mine["op"] and _BACKWARD.search(part):
        return said[0]["named"]  # "¿torch.cdist funciona en tpu? ¿y el backward en la 0.1.1?": that op's backward (r24 q64)
    # "¿Y en Trainium con la 2.14.3.1, o se nos va a la CPU?": the op's fallback asked there; "que ops se van a la CPU"
    # asks for ops (r31 q5)
    lacking = mine["lacking"] and re.search(r"\b(?:ops?|operadores?|operaciones|kernels?|which|cu[aá]les)\b", part, re.I)
    if not said[0]["named"] or mine["op"] or mine["named"] or mine["priced"] or mine["modeless"] or lacking \
            or mine["policy"] and re.search(r"\b(?:ops?|kernels?|operadore?s?)\b", part, re.I):
        return []  # "what does neuron do with an op it lacks?": "it" is the backend, the question its policy
    if mine["models"] and not _SAME_SUBJECT.search(part):
        return []
    if not (_SAME_SUBJECT.search(part) and (mine["targets"] or mine["modes"] or re.search(r"same|misma|mismo", part, re.I))
            or only_context(part, lang) and (mine["targets"] or mine["modes"])):
        return []
    return said[0]["named"]


def _version_key(version: str | None) -> tuple[int, ...]:
    """A version as numbers, for the newest of a few ("0.2" over "0.1.1"); none sorts first."""
    return tuple(int(x) for x in re.findall(r"\d+", version or ""))


def _since_means_the_op(first: dict[str, Any], earlier: tuple[str, ...], lang: str) -> bool:
    """Whether "since when?" after an op question asks since which release the op runs: no version was named,
    or more than one was (across the earlier parts too); after just one it asks when that release came out."""
    versions = {str(v) for v in first["versions"]} | {str(v) for p in earlier for v in _context(p, lang)["versions"]}
    return len(versions) != 1


# Words that only say where a model runs (a device, an instance, the backend's package): no feature line of its own,
# so "¿y en tpu?" after a model still asks about that model there (r20 q53)
_PLACE_WORDS = frozenset({"neuron", "tpu", "tpus", "trn", "trn1", "trn1n", "trn2", "trn3", "inf1", "inf2", "trainium",
                          "trainium1", "trainium2", "trainium3", "inferentia", "inferentia1", "inferentia2", "torchneuron",
                          "torch-neuronx", "torch_neuronx", "torch_tpu", "torch-tpu", "torchtpu"})


_GALLERY = re.compile(r"\b(?:gallery|galer[ií]a)\b", re.I)
_BLOCKS = re.compile(r"\b(?:blocks?|blocking|blockers?|bloquea\w*|frena\w*)\b", re.I)


def carry_context(parts: tuple[str, str], lang: str,
                  earlier: tuple[str, ...] = ()) -> tuple[tuple[str, str], list[dict[str, Any]]]:
    """Each clause read with what the other one named and it does not: the target (and its version)
    either way ("what did tpu gain…, and how many ops does it support now?" asks about tpu), the mode
    forward only ("in compile mode, is X native and what happens to missing ops?"), since a mode said
    in a later clause qualifies that clause ("does X work on tpu and what's the policy in compile").
    A priced clause names its own machine and takes no target. The words carried are appended to the
    clause as it is shown and read, and returned as facts, so the reading is never silent. `earlier` holds the
    parts (as read) before the pair, of a longer message: versions they name count for a "since when?"."""
    parts = (unglued(parts[0]), unglued(parts[1]))
    said = [_context(p, lang) for p in parts]
    words = MODE_WORDS.get(lang, MODE_WORDS["en"])
    out, facts = list(parts), []
    moved = _move_figures(parts, said, lang)
    if moved is not None:
        out, fact = moved
        facts.append(fact)
    for i, mine in enumerate(said):
        targets, modes, priced = mine["targets"], mine["modes"], mine["priced"]
        other_targets, other_modes = said[1 - i]["targets"], said[1 - i]["modes"]
        extra: list[str] = []
        carried: dict[str, Any] = {}
        them = _THEM.get(lang, _THEM["en"])
        if i == 1 and said[0]["lacking"] and not mine["op"] and them.search(parts[1]):
            # "which ops fall back on neuron, plus what does it do with them under torch.compile?": the ops
            # the first clause lists are ops without a kernel, so the second asks the policy for them
            out[1] = them.sub(LACKED.get(lang, LACKED["en"]), out[1], count=1)
            carried["them"] = LACKED.get(lang, LACKED["en"])
        kin = _ANY_OF_THEM.match(parts[1]) if i == 1 and not mine["op"] else None
        fams = families.families_in(entities.extract(parts[0], lang).english) if kin else []
        status = _status_of(parts[1], lang) if fams else None
        if kin and fams and status and other_targets:
            # "¿Qué ops de pooling caen a CPU en neuron? ¿Hay alguna que directamente no esté soportada?": that family's
            # ops of the other status, on the same target (r26 q15)
            where = " ".join(x for x in other_targets[0] if x)
            out[1] = OF_THEM_ASKS.get(lang, OF_THEM_ASKS["en"]).format(family=fams[0].name, status=status, target=where)
            facts.append({"part": 2, "carried": {"family": fams[0].name, "targets": [where], "status": status}})
            continue
        base = _NEW_BASE.match(parts[1]) if i == 1 else None
        sdk = next((v for t, v in other_targets if t == "neuron" and v), None)
        platform = re.search(r"\b(ubuntu|python|pytorch)\b", parts[0], re.I) if base else None
        if base and platform and (sdk or "neuron" in {t for t, _ in other_targets}):
            # "… base image Ubuntu 22.04 … when do we have to be off 22.04, and what should the new base be?": which
            # releases of that platform the SDK release supports (r26 q25)
            out[1] = NEW_BASE_ASKS.get(lang, NEW_BASE_ASKS["en"]).format(
                platform=platform.group(1).lower(), neuron=f"neuron {sdk}" if sdk else "neuron")
            facts.append({"part": 2, "carried": {"subject": platform.group(1).lower(), "targets": [f"neuron {sdk or ''}".strip()],
                                                 "asks": "supported releases"}})
            continue
        if i == 1 and WHEN.match(parts[1]) and said[0]["ops"] and asks_since(parts[1]) \
                and _since_means_the_op(said[0], earlier, lang):
            # "is torch.roll native on tpu? since when?": since which release the op runs (29s); after one version
            # named it asks when that release came out, after two ("… on tpu 0.1.1? and on 0.2.0? and since when?",
            # s9) since which release the op runs
            out[1] = since_asked(said[0]["ops"], [t for t, _ in other_targets], lang)
            facts.append({"part": 2, "carried": {"ops": said[0]["ops"], "targets": [t for t, _ in other_targets],
                                                 "asks": "first version"}})
            continue
        if i == 1 and WHEN.match(parts[1]) and len({t for t, _ in other_targets}) == 1:
            # "does TorchTPU 0.2.0 support nonzero, and when?": when what the first clause names came out (29q); after
            # "what changed vs 0.1.1 on tpu 0.2", the newer one's (held-out r13 q64)
            name = " ".join(x for x in max(other_targets, key=lambda tv: _version_key(tv[1])) if x)
            out[1] = WHEN_ASKS.get(lang, WHEN_ASKS["en"]).format(name=name)
            facts.append({"part": 2, "carried": {"targets": [name], "asks": "release date"}})
            continue
        if i == 1 and (bare_name := _BARE_NAME.match(parts[1])) and not mine["op"] and asks_end(parts[0]):
            out[1] = STILL_ASKS.get(lang, STILL_ASKS["en"]).format(name=bare_name.group("name"))
            facts.append({"part": 2, "carried": {"subject": bare_name.group("name"), "asks": "end of support"}})
            continue
        if i == 1 and UNTIL.match(parts[1]) and (said[0]["platforms"] or other_targets):
            # "¿Python 3.12 sigue con Neuron y hasta cuándo?": until when what the part before names is supported, the
            # platform it names on that target, or else the target itself (held-out r14 q61)
            platform = said[0]["platforms"][0] if len(said[0]["platforms"]) == 1 else None
            name = platform or " ".join(x for x in other_targets[0] if x)
            out[1] = UNTIL_ASKS.get(lang, UNTIL_ASKS["en"]).format(name=name)
            facts.append({"part": 2, "carried": {"subject": name, "asks": "end of support"}})
            if platform is None:
                continue
        elif i == 1 and not targets and not mine["platforms"] and len(said[0]["platforms"]) == 1 \
                and _PRONOUN.get(lang, _PRONOUN["en"]).search(parts[1]):
            # "Python 3.12: still supported on Neuron? and when is its own end of life?": the pronoun is the product
            # the first clause names, not its target (29t)
            out[1] = _name_for_pronoun(out[1], said[0]["platforms"][0], lang)
            facts.append({"part": 2, "carried": {"product": said[0]["platforms"][0]}})
            continue
        if i == 1 and not mine["op"] and not priced and (knob := _knob_for(parts, lang)):
            # "Does TorchTPU fall back to the CPU or raise? Is there a knob?": the switch of that fallback (r12 q35)
            out[1] = out[1].rstrip(" ?¿.") + f" {knob}?"
            carried["subject"] = knob
        elif i == 1 and (bare := _bare_version(out[1], targets, other_targets)) is not None:
            # "the prod image has torch_tpu 0.1.1 … is 0.2.0 actually clean?", "¿Con la 0.2.0 ya jala completo?": a bare
            # version is the other part's target at that version; said once, not "0.2.0 … on tpu 0.2.0 and tpu 0.1.1"
            out[1], name = bare
            carried["version"] = name
            targets = [tuple(name.split(" ", 1))]
            if _CHANGE.search(parts[1]):  # "comparado con la 0.1.1, ¿cuáles perdió?": from that version to the other's
                targets = []
                other_targets = [(t, v) for t, v in other_targets if f"{t} {v}" != name][:1]
        if i == 1 and (ops := _ops_for(said, parts[1], lang)):
            # "Is GroupNorm on the host in eager, and what happens to it under torch.compile?", "¿batch_norm corre en
            # Trainium? ¿Y en TPU con 0.2.0?", "(2) same question on neuron": the first part's op, asked again here
            it = re.compile(r"\b(?:it|them)\b", re.I)
            out[1] = it.sub(ops[0], out[1], count=1) if it.search(out[1]) else out[1].rstrip(" ?¿.") + f" ({ops[0]})?"
            carried["ops"] = ops
            if _BACKWARD.search(parts[1]):  # "¿y el backward?": another op, the gradient, in a section of its own
                carried["backward"] = True
            if mine["modes"] and mine["modes"] != said[0]["modes"]:
                carried["own_mode"] = sorted(mine["modes"])
        option = _OPTION_SAID.search(parts[0]) if i == 1 and not carried.get("ops") and targets else None
        if option and not _OPTION_SAID.search(parts[1]) and not mine["op"] and not priced and not mine["modeless"] \
                and (_ABOUT.match(parts[1].lstrip("¿ ")) or only_context(parts[1], lang)):
            # "¿Qué pasa si usamos torch.compile con dynamic=True en Trainium? ¿Y en TPU?": the same option there (r26 q37)
            out[1] = out[1].rstrip(" ?¿.") + f" ({option.group(0)})?"
            carried["option"] = option.group(0)
        # "¿Corren completos en neuron? ¿qué op molesta?": what blocks the models the part before names (r31 q55)
        blocks = i == 1 and bool(_BLOCKS.search(entities.to_english(parts[1]) if lang == "es" else parts[1]))
        if i == 1 and (len(said[0]["models"]) == 1 or blocks and 1 <= len(said[0]["models"]) <= 3) \
                and not mine["models"] and not mine["op"] and not priced \
                and not mine["modeless"] and not [f for f in mine["features"] if f.lower() not in _PLACE_WORDS] \
                and (targets or mine["modes"] or _OF_MODEL.search(parts[1]) or blocks):
            # a part that names a feature line or a product ("is pytorch/xla inference on trn2 over?") asks of it
            # "¿MobileNetV2 funciona en tpu? ¿y en trainium cómo va?": the model the first part asks about, asked
            # again where the second one names (s8)
            from kb.chat.answer_gallery import model_name

            name = (" y " if lang == "es" else " and ").join(model_name(m) for m in said[0]["models"][:3])
            # "¿… funciona en neuron? que ops se van a la CPU", "¿qué op molesta?": that model's blockers (r10 q55, r31 q55);
            # "which ops block it?" says it already, and names the model after it
            if mine["lacking"] or blocks and not re.search(r"\bblock", parts[1], re.I):
                out[1] = BLOCKS_ASK.get(lang, BLOCKS_ASK["en"]).format(name=name)
            else:
                out[1] = out[1].rstrip(" ?¿.") + f" ({name})?"
            carried["model"] = name
        package = package_named(parts[0]) if i == 1 else None
        if package and not package_named(parts[1]) and names_family(parts[1]) and not mine["op"] and not mine["models"]:
            # "¿Qué trajo TorchAO Neuron en la 2.34? ¿Nos sirve en las Trn2?": that package on that family (r31 q47)
            out[1] = out[1].rstrip(" ?¿.") + f" ({package})?"
            carried["package"] = package
            facts.append({"part": 2, "carried": carried})
            continue
        if i == 1 and _GALLERY.search(parts[0]) and _BLOCKS.search(parts[1]) and not _GALLERY.search(parts[1]) \
                and not mine["models"] and not mine["op"]:
            # "how many gallery models run fully on …? and on tpu 0.1.1, what blocks the rest?": of those models (r31 q51)
            out[1] = out[1].rstrip(" ?¿.") + (" de los modelos de la galería?" if lang == "es" else " of the gallery models?")
            carried["gallery"] = True
        versions = dict(other_targets)
        for t, v in targets:
            # forward only: a later clause's version never rewrites an earlier one ("… on inf1 (latest), and when did
            # torch-neuron 1.9 lose support?" asks the latest inf1 first, 29t)
            # a target named in code (torch.compile(backend="neuron")) is a string of the code, kept as written (r12 q1)
            named = rf"(?<![\w\"'=]){re.escape(t)}\b(?![\"'])"
            if i == 1 and v is None and versions.get(t) and re.search(named, out[i], re.I):
                # "on neuron 2.33 is X native, and on neuron is Y?": the same target at the version said (29q)
                out[i] = re.sub(named, f"{t} {versions[t]}", out[i], count=1, flags=re.I)
                carried["version"] = f"{t} {versions[t]}"
            elif i == 1 and v is None and versions.get(t) and mine["target_words"].get(t, "").lower() != t \
                    and not mine["newest"]:  # "… neuron 2.34? and whats the newest torch-neuronx": the newest (r27 q60)
                # "When did Neuron SDK 2.33 come out, and which PyTorch versions does its TorchNeuron support?": the
                # target named by another word (its package) at the release the part before names (r24 q43)
                name = f"Neuron SDK {versions[t]}" if t in said[1 - i]["sdk"] else f"{t} {versions[t]}"
                extra.append(("en " if lang == "es" else "in ") + name)
                carried["version"] = name
        own_platform = i == 0 and mine["platforms"] and mine["modeless"]  # "end of life for Ubuntu 22.04, and …": its own
        # "… en una inf2, ¿sigue soportado por Neuron? ¿Y el propio Python 3.9, cuándo llegó a fin de vida?": its own
        # end of life, asked apart from any target (r31 q29)
        own_platform = own_platform or bool(mine["platforms"]) and intents.asks_upstream(
            entities.to_english(parts[i]) if lang == "es" else parts[i])
        if not targets and not priced and 1 <= len(other_targets) <= 2 and not own_platform:
            names = [t + (f" {v}" if v else "") for t, v in other_targets]
            joined = (" y " if lang == "es" else " and ").join(names)
            extra.append(("en " if lang == "es" else "on ") + joined)
            carried["targets"] = names
        if i == 1 and not modes and len(other_modes) == 1 and not priced and not mine["modeless"]:
            # an end of support or a release has no mode: "… with torch.compile? and when does Python 3.10 end?"
            # carries none into the second (held-out r10 q60, r11 q62)
            mode = next(iter(other_modes))
            extra.append(words[mode])
            carried["mode"] = mode
        if extra:
            out[i] = out[i].rstrip(" ?¿.") + " " + " ".join(extra) + "?"
        if carried:
            facts.append({"part": i + 1, "carried": carried})
    return (out[0], out[1]), facts


# The words that tie a price or a rate into its clause ("at 6 USD/hr doing 12000 tokens/s", "con 3 EUR la hora y…")
_FIGURE_TIES = r"(?:at|doing|with|for|pushing|and|costing|paying|a|con|y|por|pagando|haciendo|dando|sacando)"
_PER_HOUR_TAIL = r"(?:\s?/\s?(?:h|hr|hour|hora)\b|\s(?:an|a|per|por|la|a la) (?:hour|hr|hora)\b)?"


def _without_figures(text: str, amounts: list[Any]) -> str:
    """A clause with its prices and rates (and the word tying each in) taken out, tidied."""
    for a in amounts:
        text = re.sub(rf"(?:\b{_FIGURE_TIES}\s+)?{re.escape(a.text)}{_PER_HOUR_TAIL}", " ", text, count=1, flags=re.I)
    text = re.sub(r"\s+([,.;?])", r"\1", re.sub(r"\s+", " ", text)).strip()
    return re.sub(r"^[,.;]\s*|(?<=[.?])[,.;]+", "", text).strip()


def _figures_said(said: dict[str, Any], lang: str) -> str:
    """One price and one rate, said again for the clause that asks the cost."""
    price, rate = said["prices"][0], said["rates"][0]
    p, r = format(price.value.normalize(), "f"), format(rate.value.normalize(), "f")
    if lang == "es":
        return f"a {p} {price.unit} por hora y {r} tokens/s"
    return f"at {p} {price.unit} an hour and {r} tokens/s"


def _move_figures(parts: tuple[str, str], said: list[dict[str, Any]], lang: str
                  ) -> tuple[list[str], dict[str, Any]] | None:
    """"We'd serve GPT-2 on tpu at 6 USD/hr doing 12000 tokens/s. Will it run there, and what's the cost
    per 1M tokens?": the figures belong to the clause that asks the cost; left in the other one, they
    would make it a cost question and the model question would be lost (29r). Only one price and one
    rate, said in a clause that does not ask the cost itself, move; the move is a fact of the answer."""
    for i in (0, 1):
        mine, other = said[i], said[1 - i]
        if not (len(mine["prices"]) == 1 and len(mine["rates"]) == 1 and not mine["asks_cost"]
                and other["asks_cost"] and not other["priced"]):
            continue
        out = list(parts)
        left = _without_figures(parts[i], mine["prices"] + mine["rates"])
        if len(left.split()) < MIN_WORDS:
            return None
        out[i] = left if left.endswith("?") else left + "?"
        out[1 - i] = parts[1 - i].rstrip(" ?¿.") + " " + _figures_said(mine, lang) + "?"
        other["priced"] = True  # the cost clause names its own machine now: no target is carried into it
        return out, {"part": 2 - i, "carried": {"figures": _figures_said(mine, lang), "from_part": i + 1}}
    return None


def body_and_sources(text: str) -> tuple[str, list[str]]:
    """An answer's text without its sources block, and that block's lines (to merge sections' sources)."""
    for header in ("\n\n**Sources**", "\n\n**Fuentes**"):
        body, sep, rest = text.partition(header)
        if sep:
            return body, [line for line in rest.split("\n") if line.strip()]
    return text, []


def combine(question: str, parts: tuple[str, str], first: Answer, second: Answer, lang: str,
            carried: list[dict[str, Any]] | None = None) -> Answer:
    """One answer of two sections, each headed by its clause as read (with the context carried into
    it, `carried`); the second's sources renumbered after the first's, so every [n] points into the
    one list at the end. A first clause that read as nothing leaves the answer the second's intent."""
    body1, src1 = body_and_sources(first.text)
    body2, src2 = body_and_sources(second.text)
    # a source both sections cite keeps the first's number; the second's others follow the first's list
    seen = {line.partition("] ")[2]: int(line[1:line.index("]")]) for line in src1 if line.startswith("[") and "] " in line}
    numbers: dict[int, int] = {}
    extra: list[str] = []
    for line in src2:
        if not (line.startswith("[") and "] " in line and line[1:line.index("]")].isdigit()):
            extra.append(line)
            continue
        n, rest = int(line[1:line.index("]")]), line.partition("] ")[2]
        if rest not in seen:
            seen[rest] = len(src1) + len([e for e in extra if e.startswith("[")]) + 1
            extra.append(f"[{seen[rest]}] {rest}")
        numbers[n] = seen[rest]

    def renumber(m: re.Match) -> str:
        n = int(m.group(1))
        return f"[{numbers.get(n, n + len(src1))}]"

    body2 = re.sub(r"(?<!\\)\[(\d+)\]", renumber, body2)
    src2 = extra
    lines = [TWO.get(lang, TWO["en"]), "", heading(1, parts[0], lang), "", body1, "", heading(2, parts[1], lang), "", body2]
    sources = src1 + src2
    if sources:
        lines += ["", "**Fuentes**" if lang == "es" else "**Sources**", *sources]
    facts = first.facts + [{"part": 2, "question": parts[1], "intent": second.intent}] + second.facts + (carried or [])
    merged = list(first.sources) + [src for src in second.sources if src not in first.sources]
    if first.intent in WEAK and second.intent not in WEAK:
        return Answer(question, second.intent, "\n".join(lines), facts, merged, lang, other_reading=None)
    return Answer(question, first.intent, "\n".join(lines), facts, merged, lang,
                  other_reading=None if second.intent in WEAK else second.intent)


# ---------------------------------------------------------------- how names and versions were read

READ_WORD = {"en": "_Read {pairs}._", "es": "_Leí {pairs}._"}
AS = {"en": "'{typed}' as {name}", "es": "'{typed}' como {name}"}


def _version_lines(conn: sqlite3.Connection, q: Question, intent: str, lang: str,
                   facts: list[dict[str, Any]]) -> list[str]:
    """"neuron 2.33" is an SDK release that ships torchneuron 2.13.3.0 and 2.14.3.0: said in the
    answer (kb.store.targetspec's own line, as the CLI prints it on stderr), and which of them a
    one-version answer shows."""
    from kb.errors import KBError
    from kb.store.targetspec import resolve

    out: list[str] = []
    if intent in ("eol", "release", "diff", "cost", "help", "unknown"):
        return out  # these read "neuron 2.34" as the SDK release itself, and say so in their own words
    single = intent in ("ops_by_status", "gallery_model", "gallery_list", "gallery_blockers", "policy")
    for mention in q.targets:
        if not mention.version:
            continue
        try:
            found = resolve(conn, mention.target, mention.version, sdk_only=mention.sdk)
        except KBError:
            continue
        if found.how not in ("sdk", "line") or not found.versions:
            continue
        shown = found.chosen if single and len(found.versions) > 1 else None
        facts.append({"version_read": f"{mention.target}={mention.version}", "how": found.how, "sdk": found.sdk,
                      "product": found.product, "versions": found.versions, "shown": shown})
        versions = ", ".join(found.versions)
        if lang == "es":
            what = (f"la versión del SDK {found.sdk}" if found.how == "sdk" else f"la línea {mention.version}")
            line = f"_{mention.target} {mention.version} es {what}: {found.product} {versions}"
            line += f"; se muestra {shown}_" if shown else "_"
        else:
            what = f"SDK release {found.sdk}" if found.how == "sdk" else f"the {mention.version} line"
            line = f"_{mention.target} {mention.version} is {what}: {found.product} {versions}"
            line += f"; showing {shown} (ask for {mention.target} {found.versions[0]} for the other)_" if shown else "_"
        out.append(line)
    return out


_MODEL_NUMBER = re.compile(r"v?\d+(?:\.\d+)*[a-z]?")


def _model_tokens(name: str) -> set[str]:
    """"Llama-3.1-70B" → {llama, 3.1, 70b}; "qwen2.5 7b" → {qwen, 2.5, 7b}; "v0.2" → {0.2}."""
    spaced = re.sub(r"(?<=[a-z])(?=\d)", " ", name.lower().replace("-", " ").replace("_", " "))
    return {t.lstrip("v") or t for t in re.findall(r"[a-z]+|\d+(?:\.\d+)*[a-z]?", spaced)}


def _model_note(conn: sqlite3.Connection, text: str, result: Answer, lang: str) -> str | None:
    """"Llama 3 70B" answered by Llama 3.1 70B: the numbers the question gives its model (version,
    size) that the model answered lacks make the answer the nearest, and the answer says so."""
    if result.intent != "gallery_model":
        return None
    from kb.chat.entities import MODEL_RE
    from kb.gallery import views

    slugs = list(dict.fromkeys(f["model"] for f in result.facts if isinstance(f, dict)
                               and isinstance(f.get("model"), str) and "target" in f))
    entries = {m["model"]: m for m in views.models(conn)}
    names = {slug: m["name"] for slug, m in entries.items()}
    answered = [(s, names.get(s, s)) for s in slugs]
    m = MODEL_RE.search(text.lower())
    if m is None or not answered:
        return None
    hubs = [_hub_id(entries.get(s)) for s, _ in answered]
    if any(hub and hub.split("/")[-1] in text.lower() for hub in hubs):
        return None  # "mistralai/Mixtral-8x7B-v0.1" is the very repository the model's census was built from (r22 q49)
    tail = re.match(r"(?:[\s-]+(?:v?\d[\w.]*|large|base|small|medium|instruct|chat))*", text.lower()[m.end():])
    said = text[m.start():m.end() + (tail.end() if tail else 0)].strip()
    numbers = {t for t in _model_tokens(said) if t[:1].isdigit()}
    if not numbers or any(numbers <= _model_tokens(s) | _model_tokens(n) for s, n in answered):
        return None
    names = ", ".join(md(n) for _, n in answered[:3])
    if lang == "es":
        return (f"_'{md(said)}' no está en la galería con ese nombre; se responde con el más cercano: {names} "
                "(`kb gallery` los lista; para tu propio modelo, `kb check model.pt2 -t TARGET` sobre un export)._")
    return (f"_'{md(said)}' is not in the gallery by that name; answering the nearest: {names} "
            "(`kb gallery` lists them; for your own model, `kb check model.pt2 -t TARGET` on an export)._")


def _hub_id(entry: dict[str, Any] | None) -> str:
    """A gallery model's Hugging Face repository ("mistralai/mixtral-8x7b-v0.1"), read from its config's URL."""
    hit = re.match(r"https://huggingface\.co/([\w.-]+/[\w.-]+)/", str((entry or {}).get("config_source") or ""))
    return hit.group(1).lower() if hit else ""


_SIZE = re.compile(r"\b(?P<name>[A-Za-z][\w.-]{2,30})[\s-]+(?P<size>\d{1,4}(?:\.\d)?[bBmM])\b")


_OWN_MODEL = re.compile(r"\b(?:my|our|mi|nuestro|custom|in-house|inhouse|own|internal|propio)\b[\w\s-]{0,30}?"
                        r"\b(?:model|modelo|network|net|transformer|llm|checkpoint)s?\b", re.I)


def unknown_model(text: str, lang: str, targets: list[str] | None = None) -> Answer | None:
    """A model name the KB does not know ("foobarnet 9b on trn2?") or one's own model ("will our
    in-house model work on trn2?"): say so, and how to check it."""
    flags = " ".join(f"-t {t}" for t in (targets or ["neuron", "tpu"])[:2])
    m = _SIZE.search(text)
    if m is None:
        if not _OWN_MODEL.search(text):
            return None
        line = (f"**Un modelo propio no se puede buscar por nombre**: expórtalo con torch.export y ejecuta "
                f"`kb check model.pt2 {flags}` (o `kb check model.py:build --input-shape ...`); `kb gallery` lista "
                "los modelos publicados que conozco." if lang == "es" else
                f"**Your own model is not one the KB can look up by name**: export it with torch.export and run "
                f"`kb check model.pt2 {flags}` (or `kb check model.py:build --input-shape ...`); `kb gallery` lists "
                "the published models I know.")
        return Answer(text, "gallery_missing", line, [{"model": "own", "in_gallery": False}], language=lang)
    said = md(text[m.start():m.end()])
    if lang == "es":
        line = (f"**No conozco el modelo {said}**: no está en la galería. Para saber si corre, expórtalo con "
                f"torch.export y ejecuta `kb check model.pt2 {flags}` (`kb gallery` lista los modelos que conozco).")
    else:
        line = (f"**I don't know the model {said}**: it is not in the gallery. To find out, export it with "
                f"torch.export and run `kb check model.pt2 {flags}` (`kb gallery` lists the models I know).")
    return Answer(text, "gallery_missing", line, [{"model": text[m.start():m.end()], "in_gallery": False}],
                  language=lang)


def with_readings(conn: sqlite3.Connection, result: Answer, q: Question, ents: Entities) -> Answer:
    """The lines that say how names, versions and models were read, right under the headline."""
    lang = ents.language if ents.language in READ_WORD else "en"
    lines = []
    facts: list[dict[str, Any]] = []
    if ents.corrections:
        pairs = ", ".join(AS[lang].format(typed=md(t), name=n) for t, n in ents.corrections[:4])
        lines.append(READ_WORD[lang].format(pairs=pairs))
        facts += [{"word_read": t, "as": n} for t, n in ents.corrections[:4]]
    lines += _version_lines(conn, q, result.intent, lang, facts)
    note = _model_note(conn, result.question or q.text, result, lang)
    if note:
        lines.append(note)
        facts.append({"model_read": "nearest"})
    if not lines:
        return result
    block = "\n".join(lines)
    text = result.text
    if text.startswith("**") and not text.startswith("**`"):  # keep the headline line first
        head, _, rest = text.partition("\n")
        rest = rest.lstrip("\n")
        result.text = f"{head}\n\n{block}" + (f"\n\n{rest}" if rest else "")
    else:
        result.text = f"{block}\n\n{text}"
    result.facts = result.facts + facts
    return result
