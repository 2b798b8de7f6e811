"""The things a chat question names, read before any intent is chosen: its language, numbers
with units (prices with a currency, rates in tokens/s, token counts, durations, dates),
instance families, uses (training / inference), the Neuron feature lines people ask about
(PyTorch/XLA, NxD Inference, TorchNeuron), model architectures, and the cues that make a
question a cost, list, policy or end-of-support question.

Spanish questions are rewritten into the English words kb.chat.intents reads (a glossary,
`to_english`), never guessed at: the same question always reads the same way. Every
pattern here is a literal phrase or a bounded character class scanned once, so reading stays
linear in the question's length (kb.chat.reply caps that at 1,000 characters).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from itertools import islice

# ---------------------------------------------------------------- language

# Words that are Spanish and not English (accents stripped): two of them, or ¿ / ¡ / ñ, make a
# question Spanish.
_SPANISH = frozenset("""
que cuando cuanto cuantos cuantas cual cuales funciona funcionan soporte soportado soportada soportados
cubre cubren abarca incluye incluyen compilan compila entrenar
sigue siguen hasta el los las del de para con es esta estan puedo lista enumera ultima ultimo version
versiones modo hace hacen pasa ocurre tiene tienen falta por hora segundo millon precio entrenamiento
inferencia todavia aun ejecutar corre corren correra funcionara nativo nativa nativos termina acaba fin
un una lo la se y cuesta costo coste sin mi modelo dime muestra cuales hay soporta soportan compatible
compatibles operadores operador mientras ya deja dejan servir cae caen sale salen
en puede pueden usar novedades funsiona ejecuta compara comparar entre va van bien anda andan trae traen perdio perdieron gano
cambio cambios cambiaron nuevo nueva nuevas nuevos sirve hacer preguntar soportadas soportados cuales
le les faltan faltaria oye jala jalan porfa neta chido
salio vos sabes sabés usted dan soportarse dura che contame pasame cuanto funcoina fucniona funicona tira tiran
deprecado deprecada deprecados quitar quitan quitaran eliminar eliminan dejo dejaron trajo salida novedad
requisitos requerimientos dependencias requiere requieren afecta afectan quito quitaron usuarios quienes usan fecha
lanzamiento publico lanzaron lanzo sacaron cambia cambian uso usamos necesito necesitamos instalar
""".split())  # 29i: the last line, end of support said as removal, and release news
_ENGLISH_HINTS = frozenset("the is are does do what when which how on of for with and list still".split())


def fold(text: str) -> str:
    """Accents off (cuándo → cuando, versión → version); other letters as they are."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


_ACCENTED_ASK = re.compile(r"^\W*(?:cu[áÁ]nt[oa]s?|qu[éÉ]|cu[áÁ]l(?:es)?|c[óÓ]mo|d[óÓ]nde|cu[áÁ]ndo|por\s+qu[éÉ])\b", re.I)


# "answer in English please", "responde en inglés", "in Spanish:": the language the asker wants the answer in,
# whatever the question's own (attacker s11); the request is taken out of the question before it is read
def _request(english: str, spanish: str) -> re.Pattern[str]:
    """The ways to ask for an answer in one language, named in English ("english") and Spanish ("ingl[eé]s")."""
    return re.compile(rf"(?:\b(?:please,? )?(?:answer|reply|respond|write)(?: me)?(?: it| this)? in {english}\b(?:,? please)?"
                      rf"|\bin {english},? please\b|\b(?:responde|respondeme|contesta|contestame|contéstame|respóndeme|escribe)"
                      rf"(?:lo|me)? en {spanish}\b(?:,? por favor)?|\ben {spanish},? por favor\b)[.!:,]*", re.I)


_REQUEST = {"en": _request("english", "ingl[eé]s"), "es": _request("spanish", "espa[nñ]ol")}


def requested_language(text: str) -> str | None:
    """The language a question asks its answer in ("answer in English", "responde en español"), if it asks one."""
    asked = [lang for lang, pattern in _REQUEST.items() if pattern.search(text)]
    return asked[0] if len(asked) == 1 else None


def without_request(text: str) -> str:
    """The question with its "answer in English" taken out, so the words are not read as part of it."""
    for pattern in _REQUEST.values():
        text = pattern.sub(" ", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def language(text: str) -> str:
    """"es" or "en": ¿ ¡ ñ, or more Spanish-only words than English ones (at least two). A message written in
    English with one short Spanish aside ("… on Neuron? ¿y Python 3.10?", "is it native? ¿sí?") stays English."""
    if _ACCENTED_ASK.match(text):  # "cuántos native kernels tiene tpu 0.2.0? like, how much bigger…": asked in Spanish (r22 q16)
        return "es"
    words = re.findall(r"[a-z]+", fold(text).lower())
    if words in (["ayuda"], ["hola"]):
        return "es"
    spanish = sum(1 for w in words if w in _SPANISH)
    if len(words) > 1 and words[0] in ("q", "k") and words[1] in _SPANISH:
        spanish += 1  # "q trae torchao neuron 0.18": the SMS "qué" opening a Spanish verb (s8c-intent3)
    english = sum(1 for w in words if w in _ENGLISH_HINTS)
    if any(c in text for c in "¿¡ñÑ"):
        return "en" if english >= 2 and spanish <= 1 and english > spanish else "es"
    if spanish >= 2 and spanish > english or spanish >= 1 and english == 0 and len(words) <= 8:
        return "es"  # "neuron 2.33 soporta trn1?": one Spanish verb and no English word in a short question (attacker s13)
    # "nn.MultiheadAttention en tpu 0.1.1": Spanish "en" before a target, and no English word (r2-29 #13)
    return "es" if english == 0 and re.search(r"\ben\s+(?:la\s+)?(?:tpu|neuron|trn\d|trainium|inf\d)", fold(text).lower()) else "en"


# ---------------------------------------------------------------- Spanish → the reader's English

# (pattern over the accent-folded text, English), longest and most specific first. Word order is
# fixed for the yes/no openings kb.chat.answer reads as yes/no questions ("does X run on Y?").
_ES_OPENINGS = [
    # "dame las ops que no corren en neuron 2.14.3.1" asks for the unsupported list (r3-29 #8)
    (r"^\s*(?:dame|muestrame|muestra|lista|enumera|ensename)\s+(?:todas\s+|todos\s+)?(?:las\s+|los\s+)?"
     r"(?:ops|operadores|operaciones)\s+que\s+no\s+(?:corren|funcionan|se ejecutan|van|jalan|andan"
     r"|se pueden (?:correr|ejecutar))\s+(?:en|sobre|con)\s+", r"list the ops that can't run on "),
    (r"^\s*(?:sigue|siguen|continua|continuan)\s+(?:estando\s+|siendo\s+)?(?:soportad[oa]s?|compatibles?|con soporte)"
     r"\s+(.+?)\s*\??\s*$", r"is \1 still supported?"),
    (r"^\s*(?:todavia|aun)\s+(?:se\s+)?(?:soporta|soportan|esta soportad[oa]|es compatible)\s+(.+?)\s*\??\s*$",
     r"is \1 still supported?"),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:corre|corren|funciona|funcionan|se ejecuta|se ejecutan)\s+(?:como\s+)?"
     r"(?:nativo|nativa|nativos|nativas|nativamente)\s+(?:en|sobre)\s+", r"is \1 native on "),
    (r"^\s*(?:funciona|funcionan|funsiona|funsionan|funcina|corre|corren|anda|andan|se ejecuta|se ejecutan|ejecuta)\s+"
     r"(.+?)\s+(?:en|sobre|con)\s+", r"does \1 run on "),
    (r"^\s*(?:funcionara|correra)\s+(.+?)\s+(?:en|sobre)\s+", r"will \1 run on "),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:se\s+)?(?:cae|caen|hace fallback)\s+(?:a|al|en)\s+(?:la\s+)?cpu\s+(?:en|sobre)\s+",
     r"does \1 fall back to cpu on "),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:va|van|anda|andan|jala|jalan)(?:\s+bien)?\s+(?:en|sobre)\s+", r"does \1 run on "),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:en|sobre)\s+(?:la\s+|el\s+)?(\S+)\s+(?:funciona|funcionan|corre|corren|anda|andan)"
     r"\s*\??\s*$", r"does \1 run on \2?"),
    (r"^\s*(?:puedo|podemos|se puede)\s+(?:usar|ejecutar|correr)\s+(.+?)\s+(?:en|sobre)\s+", r"can i use \1 on "),
    (r"^\s*(?:es|esta)\s+(.+?)\s+(?:nativo|nativa)\s+(?:en|sobre)\s+", r"is \1 native on "),
    (r"^\s*(?:es|esta)\s+(.+?)\s+(?:soportado|soportada|compatible)\s+(?:en|sobre|con|por)\s+", r"is \1 supported on "),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:es|esta)\s+(?:nativo|nativa)\s+(?:en|sobre)\s+", r"is \1 native on "),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:es|esta)\s+(?:soportado|soportada|compatible)\s+(?:en|sobre|con|por)\s+",
     r"is \1 supported on "),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:hace|hacen)\s+fallback\s+(?:en|sobre)\s+", r"does \1 fall back on "),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:funciona|funcionan|corre|corren)\s+(?:en|sobre)\s+", r"does \1 run on "),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:funcionara|correra)\s+(?:en|sobre)\s+", r"will \1 run on "),
]
# ---- 29j: "cuales operadores no corren en inferentia 1?" asks for a list, not whether "cuales operadores" runs
_ES_OPENINGS[:0] = [
    (r"^\s*(?:que|cuales|cual|q)\s+(?:ops|operadores|operaciones)\s+no\s+(?:corren|funcionan|andan|van|jalan"
     r"|se ejecutan|se pueden (?:correr|ejecutar))\s+(?:en|sobre|con)\s+", r"which ops can't run on "),
]
# ---- s11 (r20 q16): "listame las ops que neuron no soporta (para nada)": the target's unsupported list
_ES_OPENINGS[:0] = [
    (r"^\s*(?:listame|lista|dame|pasame|muestrame|ensename)\s+(?:todas\s+|todos\s+)?(?:las\s+|los\s+)?(?:ops|operadores|operaciones)"
     r"\s+que\s+([\w.-]+)\s+no\s+(?:soporta|corre|ejecuta|implementa|tiene)\b", r"list the ops \1 can't run"),
]
# ---- 29f: slang and typos of the openings ("pásame las ops que no andan en…", "nonzero funsiona en tpu??"), first
_ES_OPENINGS[:0] = [
    (r"^\s*(?:dame|pasame|muestrame|lista|ensename)\s+(?:la lista de\s+)?(?:las\s+|los\s+)?(?:ops|operadores|operaciones)"
     r"\s+(?:que|q)\s+(?:caen|se caen|se van|van|hacen fallback)\s+(?:a|al)\s+(?:la\s+)?cpu\s+(?:en|sobre)\s+",
     r"list the ops that fall back to cpu on "),
    (r"^\s*(?:pasame|pasa|tirame|mandame|dame)\s+(?:la lista de\s+)?(?:las\s+|los\s+)?(?:ops|operadores|operaciones)"
     r"\s+que\s+no\s+(?:andan|corren|funcionan|van|jalan)\s+(?:en|sobre)\s+", r"list the ops that can't run on "),
    (r"^\s*(?:(?:el|la|los|las)\s+)?(.+?)\s+(?:funsiona|funsionan|funcina|sirve|sirven)\s+(?:en|sobre)\s+",
     r"does \1 run on "),
]
_ES_PHRASES = [
    (r"(?:le |les )?(?:faltan|falta) (?:a|en)", "are unsupported on"),  # "qué ops le faltan a torchtpu 0.1.1"
    (r"cuanto (?:cuesta|cuestan|sale|salen|costaria)", "how much does it cost"),
    (r"(?:precio|costo|coste) por millon de tokens", "price per million tokens"),
    (r"por (?:cada )?millon de tokens", "per million tokens"),
    (r"(?:un|1) millon de tokens", "a million tokens"),
    (r"millon(?:es)? de tokens", "million tokens"),
    (r"tokens? por seg(?:undo)?s?\b", "tokens/s"),  # "tokens por seg" (r3-29 #4)
    (r"(?:a|por) la hora|por hora|la hora|cada hora", "an hour"),
    (r"cuando (?:termina|acaba|finaliza|se acaba|se termina) el soporte", "when is the end of support"),
    (r"(?:fin|final) del? soporte", "end of support"),
    (r"(?:termina|acaba|finaliza) el soporte", "end of support"),
    (r"(?:deja|dejan|dejara|dejaran) de (?:tener soporte|estar soportad[oa]s?|ser compatibles?)", "end of support"),
    # ---- 29f: end-of-support and release phrasings as people write them; policy as people ask it
    (r"(?:no tiene|no hay|le falta(?: el)?|falta el) kernel(?: (?:para|de) (?:un|el) (?:op|operador|operacion))?",
     "an op without a kernel"),
    (r"si un (?:op|operador|operacion) no (?:esta|es) (?:soportad[oa]|implementad[oa])", "what happens if an op is missing"),
    (r"(?:cae|caen|se cae|se caen) a (?:la )?cpu o (?:da|tira|lanza|falla con) (?:un )?error", "cpu fallback or error"),
    # s8c-intent3: "una operación que la TPU no tiene", "se cae o se va a la CPU": the missing-op policy, asked
    (r"(?:una |un )?(?:op|operacion|operador|kernel)(?:es)? que (?:la |el )?(tpu|trainium|neuron|dispositivo) no (?:tiene|tenga)n?",
     r"an op \1 lacks"),
    (r"se (?:cae|rompe|crashea|revienta) o ", "crashes or "),
    (r"(?:hace|hacen) fallback(?: a (?:la )?cpu)? o (?:falla|fallan|da error)", "cpu fallback or error"),
    (r"modo de fallback", "fallback mode"), (r"por defecto", "by default"),
    (r"(?:hace|hacen) fallback a (?:la )?cpu by default", "does cpu fallback by default"),
    (r"avisa(?:n)? (?:cuando|si) (?:un|una) (?:op|operador|operacion) (?:cae|hace fallback) a (?:la )?cpu",
     "warns on cpu fallback"),
    (r"(?:sigue|siguen) (?:vivo|viva|vivos|vivas|activo|activa|en pie)", "still supported"),
    (r"(?:si )?no (?:encuentra|halla) (?:un |el )?kernel(?: (?:para|de) (?:un|el) (?:op|operador|operacion))?",
     "with an op without a kernel"),
    (r"no se (?:puede|pueden) bajar", "can't be lowered"),
    (r"que (?:cambio|cambiaron|ha cambiado) en", "what changed in"),
    (r"(?:ops|operadores|operaciones) sin soporte", "unsupported ops"), (r"sin soporte", "unsupported"),
    (r"(?:que|cuales|q) (?:ops|operadores|operaciones) no (?:tiene|soporta|corre|implementa)", "which ops are unsupported on"),
    (r"(?:se )?(?:van|va|pasan|pasa|mandan|manda) (?:a|pa'?|para) (?:la )?cpu", "fall back to cpu"),  # "se va pa' CPU" (r30 q6)
    (r"(?:tira|tiran|da|dan|lanza|lanzan) (?:un )?error o (?:hace|hacen) fallback", "cpu fallback or error"),
    (r"(?:hace|hacen) fallback o (?:tira|tiran|da|dan|lanza|lanzan) (?:un )?error", "cpu fallback or error"),
    (r"(?:tira|tiran|lanza|lanzan) (?:un )?error si (?:le )?falta (?:un|una) (?:op|operador|kernel)",
     "what happens if an op is missing"),
    (r"que (?:salio|trajo) (?:en|con)(?: la)?", "what's new in"),
    (r"que hay en(?: la)?(?= (?:neuron |torchneuron |la )?\d)", "what's new in"),
    (r"(?:ops|operadores|operaciones) (?:que )?no (?:tiene|tienen) soporte", "ops are unsupported"),
    (r"no (?:tiene|tienen) soporte", "end of support"), (r"(?:se )?(?:cae|caen) al cpu", "falls back to cpu"),
    (r"(?:se )?(?:deja|dejan|dejara|dejaran) de (?:soportarse|soportar|dar soporte(?: a)?)", "end of support"),
    (r"^\s*cuando (?:termina|acaba|se acaba|se termina|muere|caduca)(?= )", "when is the end of support of"),
    # ---- 29j: "qué ops no compilan con torch.compile": the ops compile mode cannot run
    (r"\bno (?:se )?(?:compila|compilan|compilaria|compilarian)\b", "don't compile"),
    # s8: "¿qué se incluyó en la Neuron 2.34?", "qué vino con la 2.34": a release's contents (r11 q41)
    (r"que (?:se )?(?:incluyo|incluye|incluyen|incluia|vino|vinieron|publico|publicaron)(?: (?:en|con))?"
     r"(?=\s+(?:(?:la|el)\s+)?(?:neuron|torchneuron|torch[-_]?neuronx|sdk|version|release|\d))", "what shipped in"),
    (r"\b(?:cubre|cubren|abarca|abarcan)\b", "covers"), (r"\b(?:incluye|incluyen)\b", "includes"),
    # ---- 29j: the past tense, as a second clause asks it ("y cuando termino pytorch/xla para entrenamiento?")
    (r"^\s*cuando (?:termino|acabo|finalizo|se acabo|se termino|murio|caduco)(?= )", "when is the end of support of"),
    (r"hasta (?:que|q) version(?: de neuron)? (?:hay|se soporta|soporta|tiene) (\S+(?: \d[\d.]*)?)",
     r"until which neuron release is \1 supported"),
    (r"cuando (?:salio|salieron|se publico|se publicaron|se lanzo|se lanzaron|lanzaron|sacaron|publicaron)",
     "when was released"),
    (r"(?:dan|da) soporte (?:a|de|para)", "support"),
    (r"hasta cuando", "until when"),
    (r"(?:sigue|siguen|continua|continuan) (?:estando )?(?:soportad[oa]s?|siendo compatibles?|con soporte)",
     "still supported"),
    (r"(?:sigue|siguen) (?:funcionando|teniendo soporte|soportando)", "still supported"),
    (r"politica de fallback", "fallback policy"), (r"(?:ops|operadores) que (?:le )?faltan", "missing ops"),
    (r"no (?:esta|estan) implementad[oa]s?", "not implemented"),
    (r"(?:todavia|aun) (?:esta |estan |es |son )?(?:soportad[oa]s?|compatibles?|con soporte)", "still supported"),
    (r"(?:todavia|aun) (?:se )?(?:soporta|soportan)", "still supported"),
    # 29i: "dropped", not "no longer supported", whose "no" the word pass below would turn into "not"
    (r"ya no (?:esta |estan |es |son )?(?:soportad[oa]s?|compatibles?)", "dropped"),
    (r"cuanto tiempo", "how long"),
    (r"(?:ultima|ultimo) (?:version|release|lanzamiento) de neuron", "last neuron release"),
    (r"(?:ultima|ultimo) (?:version|release|lanzamiento)", "last release"),
    (r"(?:no|nunca) (?:se )?(?:puede|pueden|podra) (?:ejecutar|correr)", "can't run"),
    (r"no (?:esta|estan|es|son) (?:soportad[oa]s?|compatibles?)", "unsupported"),
    (r"no (?:soportad[oa]s?|compatibles?)", "unsupported"),
    (r"no (?:soporta|soportan)", "does not support"),
    (r"(?:hace|hacen) fallback (?:a|en|hacia) (?:la )?cpu", "fall back to cpu"),
    (r"(?:hace|hacen) fallback", "falls back"),
    (r"(?:recae|recaen|cae|caen|vuelve|vuelven) (?:en|a) (?:la )?cpu", "falls back to cpu"),
    (r"que (?:hace|hara)", "what does"),
    (r"que (?:pasa|ocurre|sucede) (?:si|cuando)", "what happens if"),
    (r"que (?:pasa|ocurre|sucede)", "what happens"),
    (r"no tiene (?:un|una|el|ese) (?:op|operador|operacion)", "lacks an op"),
    (r"(?:un|una|el|la) (?:op|operador|operacion) que no (?:tiene|implementa|soporta)", "an op it lacks"),
    (r"(?:un|una|el|la) (?:op|operador|operacion) (?:sin|que le falta)(?: (?:un )?kernel)?", "an op it lacks"),
    (r"(?:le )?falta (?:un|una|el) (?:op|operador|operacion|kernel)", "an op it lacks"),
    # "¿qué hace TorchTPU cuando le falta uno?": "uno" is the op of the sentence before (r28 q63)
    (r"(?:le |les )?(?:falta|faltan) (?:uno|alguno|alguna)\b", "it lacks one"),
    (r"no tiene (?:un )?kernel", "has no kernel"),
    (r"(?:sin|no hay) kernel", "without a kernel"),
    (r"modo eager", "eager mode"), (r"modo compil\w*", "compile mode"), (r"compilad[oa]", "compile mode"),
    # "¿torch.topk compila en neuron?": whether it compiles, as "does topk compile on neuron?" asks (r28 q64)
    (r"\b(?:compila|compilan|compilara|compilaria)\b", "compile"),
    (r"entrenamiento|entrenar", "training"), (r"inferencia", "inference"), (r"servir|produccion", "serving"),
    (r"(?:cuales|que) (?:ops|operadores|operaciones)", "which ops"),
    (r"(?:que )?(?:novedades|hay de nuevo|trae|traen)(?:\s(?:de|en|con))?(?:\s(?:la|el))?(?:\s(?:version|release))?",
     "what's new in"),
    (r"que (?:cambio|cambiaron|cambios hay|ha cambiado) (?:entre|de)", "what changed between"),
    (r"que (?:cambio|cambiaron|ha cambiado)", "what changed"),
    (r"(?:perdio|perdieron|ha perdido|han perdido)", "lost"), (r"(?:gano|ganaron)", "gained"),
    (r"compara(?:r)?", "compare"), (r"entre", "between"),
    (r"(?:va|van|anda|andan) bien", "runs"),
    (r"que puedo preguntar(?:te)?|que (?:sabes|puedes) hacer|que se puede preguntar", "what can you do"),
    (r"cuando sale", "when is the release of"),
    # ---- 29i: end of support said as removal ("se va a quitar"), past endings ("se dejo de soportar"),
    # release news ("que trajo neuron 2.33"), a release named before its product ("la 2.34 de neuron")
    (r"(?:se )?(?:va|van) a (?:quitar|eliminar|retirar|remover|deprecar|desaparecer)", "reach end of support"),
    (r"(?:se )?(?:quitara|quitaran|eliminara|eliminaran|retirara|retiraran)", "reach end of support"),
    (r"(?:esta|estan) (?:deprecad[oa]s?|obsolet[oa]s?)", "is deprecated"), (r"deprecad[oa]s?", "deprecated"),
    (r"(?:se )?(?:dejo|dejaron) de (?:soportarse|soportar|dar soporte(?: a)?|tener soporte|estar soportad[oa]s?)",
     "ended support"),
    (r"salida json", "json output"),
    (r"(?:todavia|aun|sigue|siguen) (?:tiene|tienen|teniendo) soporte", "still supported"),
    (r"que (?:trajo|trae|traen|salio)(?= )", "what's new in"),
    (r"(?:la |el )?(\d+\.\d+(?:\.\d+)?) de neuron\b", r"neuron \1"),
    (r"es (?:nuevo|nueva)", "is it new"),
    # ---- 29m: a release's requirements, its date, and who it is for ("para quien usa NxD Inference")
    (r"(?:los |sus )?(?:requisitos|requerimientos|dependencias)", "requirements"),
    (r"(?:requiere|requieren|pide|piden)(?= )", "requires"),
    (r"(?:para )?(?:quien|quienes|los que|el que|la gente que) (?:usa|usan|utiliza|utilizan)", "for users of"),
    (r"(?:para )?(?:usuarios|usuarias) de", "for users of"),
    (r"fecha de (?:lanzamiento|publicacion|salida)", "release date"),
    (r"cuando (?:se )?(?:lanzo|publicaron|publico|salio)", "when was released"),
    (r"(?:como )?(?:afecta|afectan|afectara|afectaran)(?: (?:a|al))?", "affects"),
    (r"(?:que )?(?:cambia|cambian|cambiara|cambiaran)(?= )", "what changes"), (r"cambios", "changes"),
    (r"^\s*(?:uso|usamos|utilizo|utilizamos)(?= )", "i use"),
    (r"que (?:necesito|necesitamos|necesita|hace falta) (?:para )?(?:instalar|usar)", "what do i need installed for"),
    # "lo que haga falta para montar la imagen": what is needed, never a missing op (r12 q46)
    (r"(?:lo que |todo lo que )?(?:haga|hace|hiciera|hagan|hacen) falta", "what is needed"),
    (r"(?:en )?que fecha (?:salio|se publico|se lanzo|lanzaron|sacaron|publicaron)", "when was released"),
    (r"(?:se )?(?:quito|quitaron|elimino|eliminaron|retiro|retiraron)(?= )", "removed"),
]
# ---- 29l: end of support said with everyday verbs ("¿Python 3.12 cuándo se acaba en Neuron?", "¿hasta cuándo
# aguanta…?", "¿cuánto le queda a Inf1?", "caduca", "vence", "fin de vida"), and compile mode and a missing op
# as people say them ("en compilación", "un op que le falta", "si no tiene el op"). A missing op first, before
# the phrases above read "le falta en" as a list of what a target lacks; the end verbs last (below).
_ES_PHRASES[:0] = [
    (r"cuanto (?:tiempo )?(?:de (?:vida|soporte) )?(?:le |les )?(?:queda|quedan)(?: de (?:vida|soporte))?(?: (?:a|al))?",
     "how long is support left for"),
    (r"cuanto (?:tiempo )?(?:mas )?(?:dura|duran|durara|duraran|aguanta|aguantan|aguantara|va a durar|van a durar)"
     r"(?: el soporte(?: de)?)?", "how long is support left for"),
    (r"hasta (?:cuando|cuado|cuadno|cundo|qndo|que fecha|q fecha) (?:aguanta|aguantan|aguantara|dura|duran|durara|vive|viven|tiene soporte|tienen soporte|hay soporte"
     r"(?: (?:de|para))?|se soporta|se soportan|llega|llegan|sigue|siguen)", "until when is support for"),
    (r"(?:un |una |el |la |los |las )?(?:op|ops|operador|operadores|operacion|operaciones|kernel|kernels) "
     r"(?:que )?(?:le |les )?(?:falta|faltan|faltantes?)(?! (?:a|al|en) (?!modo|eager|compil))", "the ops it lacks"),
    (r"(?:un |una |el |la )?(?:op|operador|operacion|kernel) (?:inexistente|que no existe|que no tiene)", "an op it lacks"),
    (r"(?:los |las )(?:ops|operadores|operaciones) que no (?:tiene|tienen|implementa|implementan)", "the ops it lacks"),
    (r"(?:si|cuando) no (?:tiene|encuentra|hay|halla) (?:el |un |una |ese |esa |su )?(?:op|operador|operacion|kernel)"
     r"(?: (?:para|de) (?:un|el|ese) (?:op|operador|operacion))?", "with an op without a kernel"),
]
_ES_PHRASES += [  # 29l: the everyday end verbs and compile words last, so the phrases above keep their reading
    (r"(?:fin|final) de (?:vida|su vida)", "end of life"), (r"hasta (?:cuado|cuadno|cundo|qndo|que fecha|q fecha)", "until when"),
    (r"politicas?", "policy"),
    (r"(?:deja|dejan|dejara|dejaran) de (?:funcionar|servir|ir|andar|recibir soporte|tener parches)", "reaches end of support"),
    (r"(?:se )?(?:acabo|termino|caduco|vencio|expiro|murio|finalizo)(?: el soporte(?: de)?)?",
     "reached end of support"),
    (r"(?:se )?(?:acaba|acaban|termina|terminan|caduca|caducan|vence|vencen|expira|expiran|muere|mueren|finaliza"
     r"|finalizan|acabara|terminara|caducara|vencera|expirara)(?: el soporte(?: de)?)?",
     "reaches end of support"),
    (r"(?:en |durante (?:la )?|con (?:la )?)?(?:compilacion|compilando|al compilar|si (?:lo |la |los )?compil(?:o|amos|as|an|a)|cuando (?:lo |la )?compil(?:o|amos|as|an|a))",
     "in compile mode"),
    (r"ahora", "now"),
]
_ES_PHRASES += [  # 29o: complex numbers, "as is", and a policy asked with "se ejecutan tal cual"
    (r"(?:numeros|tipos|dtypes?|datos) complejos", "complex numbers"), (r"complejos?", "complex"),
    (r"(?:se )?(?:ejecutan?|corren?|funcionan?|van?) (?:tal cual|tal y como (?:estan?|son)|sin cambios|directamente)",
     "run as is"),
    (r"limitacion(?:es)?(?: conocidas?)?", "known limitations"), (r"problemas conocidos", "known issues"),
    (r"sistemas? operativos?|\bso\b", "OS"), (r"entornos? virtuales?", "virtual environments"), (r"(?:las )?imagenes (?:de maquina|ami)|\bamis?\b", "AMIs"),
]
_ES_PHRASES += [  # 29p: past tenses of the support verbs, and what a vendor "stopped giving"
    (r"no (?:soportaba|soportaban|soporto|soportaron|soportaria|soportarian)", "did not support"),
    (r"no (?:funcionaba|funcionaban|corria|corrian|andaba|andaban|iba|iban|se ejecutaba|se ejecutaban)", "did not run"),
    (r"(?:soportaba|soportaban|soporto|soportaron)", "supported"),
    (r"(?:funcionaba|funcionaban|corria|corrian|andaba|andaban|se ejecutaba|se ejecutaban)", "ran"),
    (r"(?:se )?(?:dejo|dejaron|deja|dejan|dejara|dejaran) de (?:dar|ofrecer|publicar|sacar|proveer|distribuir|mantener"
     r"|actualizar|incluir)", "stopped providing"),
    (r"(?:el )?(?:numero|cantidad|conteo|recuento) de", "the number of"),
]
# ---- 29r: where an op ends up ("¿acaba en la CPU?", "¿termina corriendo en el host?") is a fallback, read before
# the end-of-support verbs below take "acaba" for an end of life; "el propio Python", "Ubuntu en sí" name the
# product's own (upstream) end of life, not Neuron's support of it
_ES_PHRASES[:0] = [
    (r"(?:se )?(?:acaba|acaban|acabara|acabaran|termina|terminan|terminara|terminaran|queda|quedan)"
     r"(?: (?:corriendo|ejecutandose|yendo))? (?:en|a) (?:la |el )?(?:cpu|host|anfitrion)\b", "falls back to cpu"),
    (r"propi[oa](?= (?:python|ubuntu|amazon|pytorch)\b)", "upstream"),
    (r"en si(?: mism[oa])?(?=[ ,?)]|$)", "itself"),
    # an op's history: "¿en qué versión se añadió X y en cuál se quitó?", "¿desde qué versión está?"
    (r"desde (?:que|cual) (?:version|release|lanzamiento)", "since which version"),  # before "qué versión" alone
    (r"(?:en |con )?(?:que|cual) (?:version|release|lanzamiento)", "in which version"),
    (r"se (?:anadio|agrego|incorporo|introdujo|sumo)|(?:anadieron|agregaron|incorporaron|introdujeron)", "was added"),
    (r"(?:se )?(?:quito|quitaron|elimino|eliminaron|retiro|retiraron)(?=[ ?,.]|$)", "was removed"),
]
# 29s: "¿inf1 se quedó sin DLAMI?", "¿cuándo se quedó inf1 sin sus DLAMI?", "¿python 3.9 se quedó sin soporte?": what
# a thing was left without, it lost (the subject kept, before "lost"); first, before "sin soporte" reads "unsupported"
# 29t: "¿qué variable de entorno controla el fallback?" names an environment variable (never the op aten::var)
_ES_PHRASES[:0] = [(r"variables? de(?:l)? (?:entorno|ambiente)", "env var"),
                   (r"(?:fin|final) de (?:su )?vida propi[oa]", "own end of life"),  # "su fin de vida propio" (29t)
                   # "¿cómo veo qué ops cayeron a la CPU?": how to see them (29t)
                   (r"(?:como|de que (?:manera|forma)) (?:veo|ver|puedo ver|se|sabe|puedo saber|compruebo|reviso|listo"
                    r"|averiguo|consulto)(?= )", "how do i see")]
_ES_PHRASES[:0] = [(r"(?:se )?(?:quedo|quedaron|ha quedado|han quedado)(?: ([a-z][\w.-]*))? sin", r"\1 lost")]
# "¿cuándo desapareció el entrenamiento?" (r11 q58), "¿cuál es la versión más nueva?" (r10 q47)
_ES_PHRASES[:0] = [(r"(?:desaparecio|desaparecieron|desaparecera|desapareceran)", "disappeared"),
                   (r"mas (?:nueva|nuevo|nuevas|nuevos|reciente|recientes)", "newest")]
# s8: "¿se va a la CPU sin avisar?": silently, not the op `sin` (r10 q35 paraphrase)
_ES_PHRASES[:0] = [(r"sin (?:avisar|aviso|advertencia|advertir|decir nada|warning)|silenciosamente|en silencio", "silently")]
_ES_WORDS = {
    "de": "of", "del": "of", "en": "on", "sobre": "on", "para": "for", "con": "with", "y": "and", "o": "or",
    "es": "is", "son": "are", "esta": "is", "estan": "are", "que": "what", "cual": "which", "cuales": "which",
    "cuando": "when", "cuanto": "how much", "cuantos": "how many", "cuantas": "how many", "lista": "list",
    "listar": "list", "enumera": "list", "enumerar": "list", "muestra": "show", "muestrame": "show", "dime": "tell me",
    "nativo": "native", "nativa": "native", "nativos": "native", "nativas": "native", "soportado": "supported",
    "soportada": "supported", "soportados": "supported", "soportadas": "supported", "compatible": "supported",
    "compatibles": "supported", "soporte": "support", "soporta": "supports", "soportan": "support",
    "version": "version", "versiones": "versions", "termina": "ends", "acaba": "ends", "hasta": "until",
    "operadores": "ops", "operador": "op", "operaciones": "ops", "operacion": "op", "modelo": "model",
    "mi": "my", "hay": "are there", "tiene": "has", "tienen": "have", "no": "not", "funciona": "runs",
    "funcionan": "run", "corre": "runs", "ejecuta": "runs", "ejecutar": "run", "correr": "run", "usar": "use",
    "puedo": "can i", "cuesta": "costs", "precio": "price", "coste": "cost", "costo": "cost", "hora": "hour",
    "segundo": "second", "por": "per", "al": "at", "dolares": "usd", "anos": "years", "meses": "months",
    "dias": "days", "modo": "mode", "kernels": "kernels", "sigue": "still", "todavia": "still", "aun": "still",
    "ultima": "last", "ultimo": "last", "ayuda": "help", "hola": "hello", "instancia": "instance", "instancias": "instances",
    "jala": "runs", "jalan": "run", "faltan": "lacks", "falta": "lacks", "q": "what",
    "tenia": "had", "tenian": "had",  # 29t: "¿cuántos kernels tenía la tpu en la 0.1.1?"
    "descompuesto": "decomposed", "descompuestos": "decomposed", "descompuesta": "decomposed", "descompuestas": "decomposed",
    "decompuesto": "decomposed", "decompuestos": "decomposed", "cobertura": "coverage",  # s13 (r26 q12)
    "aparecio": "appeared", "aparecieron": "appeared", "controla": "controls", "controlan": "control", "desactiva": "turns off", "activa": "turns on",
}
# ---- 29k: the op families people name in Spanish ("ops de convolución", "ops de pérdida"), read as the
# English family words of kb.store.families, so a Spanish list is filtered as the English one is
_ES_WORDS.update({
    "convolucion": "convolution", "convoluciones": "convolution", "convolucional": "convolutional",
    "atencion": "attention", "normalizacion": "normalization", "agrupamiento": "pooling", "agrupacion": "pooling",
    "incrustacion": "embedding", "incrustaciones": "embedding", "ordenamiento": "sorting", "ordenacion": "sorting",
    "perdida": "loss", "perdidas": "loss", "dispersion": "scatter", "indexacion": "indexing", "indexado": "indexing",
    "recurrentes": "recurrent", "recurrente": "recurrent", "cuantizacion": "quantization",
    "cuantizados": "quantized", "cuantizadas": "quantized", "cuantizado": "quantized", "cuantizada": "quantized", "activacion": "activation",
    "activaciones": "activation", "reduccion": "reduction", "reducciones": "reduction", "aleatorios": "random",
})
_ES_DROP = frozenset("el la los las lo un una unos unas se me le les nos te ya mientras tambien pero si oye porfa".split())
_PIECE = re.compile(r"\S+")
_EDGE = re.compile(r"^([^\w$€£¥`]*)(.*?)([?!.,;:)]*)$", re.S)


_INTERJECTION = re.compile(r"^(?:(?:oye|oiga|oigan|che|vale|tio|tia|mira|mire|porfa|por favor|hola|bueno|a ver|"
                           r"una pregunta|pregunta|neta|ey|eh)\b\s*[,:;!]?\s*)+", re.I)


# s8: "ops relacionadas con sort", "ops que tienen que ver con el pooling": the ops related to a name part
_ES_PHRASES[:0] = [(r"(?:relacionad[oa]s?|que tienen que ver) con(?: (?:el|la|los|las))?", "related to")]
# s11 (r22 q37): "¿cómo sé cuáles cayeron a CPU?": the ops that fell back
_ES_PHRASES[:0] = [(r"(?:se )?(?:cayeron|cayo|han caido|ha caido|fueron|se fueron|hicieron fallback) (?:a|al) (?:la )?cpu",
                    "fell back to cpu")]
# s11 (r20 q37): "¿hay manera de forzar el fallback a cpu?": a way to switch the CPU fallback on is the policy's switch
_ES_PHRASES += [(r"(?:hay|existe) (?:alguna )?(?:manera|forma|modo|opcion) de", "is there a way to"),
                (r"(?:forzar|habilitar|activar|prender|encender|permitir)(?= (?:el )?fallback)", "enable"),
                (r"(?:el )?fallback a (?:la )?cpu", "cpu fallback")]
# s13 (r26 q40): "si un op no está en neuron con torch.compile…": an op the backend lacks
_ES_PHRASES[:0] = [(r"si (?:un|una|algun|alguna) (?:op|operador|operacion) no (?:esta|existe|tiene kernel)", "if an op is missing")]
# s13 (r26): "fechas de salida de neuron 2.29 a 2.34": the release dates
_ES_PHRASES[:0] = [(r"fechas? de (?:salida|lanzamiento|publicacion|release)", "release dates")]
# s13 (r26 q28): "qué versiones de python ha dejado de soportar neuron?": what Neuron dropped
_ES_PHRASES[:0] = [(r"(?:ha|han|habia|habian|hemos)? ?(?:dejado|dejo|dejaron) de (?:soportar|dar soporte a|incluir)",
                    "dropped")]
# s13 (r27 q55): "q es lo q mas frena?" after a gallery question: which ops block the most models
_ES_PHRASES[:0] = [(r"(?:que|q) es lo (?:que|q) (?:mas|más) (?:frena|frenan|bloquea|bloquean|traba|traban)",
                    "which ops block the most models")]
# s14 (r31 q40): "¿qué hace cuando una op no tiene lowering?": an op without a kernel, the missing-op policy
_ES_PHRASES[:0] = [(r"(?:una |un )?(?:op|operador|operacion) no tiene (?:un )?(?:lowering|kernel)|sin lowering",
                    "an op without a kernel")]
# s14 (fresh cases): "dame la lista de ops que se descomponen en tpu 0.1.1": the decomposed ops
_ES_PHRASES[:0] = [(r"(?:que|q) se (?:descompone|descomponen)", "that are decomposed")]
# s14 (r31 q55): "¿qué op molesta?" after a model part: what blocks it
_ES_PHRASES[:0] = [(r"(?:que|q|cual|cuales) (?:op|ops|operador|operadores) (?:molesta|molestan|estorba|estorban|falla|fallan"
                    r"|frena|frenan)", "which ops block it")]
# s14 (r31 q13): "¿cuáles son las ops que más modelos de la galería dejan fuera de Trainium?": the blockers
_ES_PHRASES[:0] = [(r"(?:que|q) (?:mas|más) modelos(?: de la galeria)? (?:dejan fuera|bloquean|frenan|traban|rompen)"
                    r"(?: (?:de|en))?", "that block the most gallery models on")]
# s13 (r26 q12): "números de cobertura de ops": the op coverage numbers, counts by status
_ES_PHRASES[:0] = [(r"(?:los )?(?:numeros|cifras|datos) de cobertura de (?:ops|operadores)", "op coverage numbers"),
                   (r"cobertura de (?:ops|operadores)(?: en (\S+))? por estado", r"op coverage by status on \1"),
                   (r"por estado", "by status")]
# s13 (r25 q16): "¿hay algún op que todavía haga fallback a CPU en modo compile?": ops that fall back, a list
_ES_PHRASES[:0] = [(r"(?:haga|hagan|hace|hacen|hara|haran|haria|harian) fallback (?:a|al) (?:la )?cpu", "falls back to cpu"),
                   (r"(?:hay|existe) (?:algun|alguno|alguna|algunos|algunas) (?:op|ops|operador|operadores)\b", "is there any op")]
_SMS_QUE = re.compile(r"(?<![\w./-])(?:q|k|ke)(?![\w./-])", re.I)


def to_english(text: str) -> str:
    """A Spanish question in the English words the reader knows; names (ops, products,
    versions, numbers) keep their spelling. English questions come back unchanged."""
    out = fold(text).replace("¿", " ").replace("¡", " ")
    out = re.sub(r"\s+", " ", out).strip()
    out = _INTERJECTION.sub("", out)  # "tio, funciona…", "oye: …": the opening is what follows (29f)
    for pattern, english in _ES_OPENINGS:
        out, n = re.subn(pattern, english, out, count=1, flags=re.I)
        if n:
            break
    out = _SMS_QUE.sub("que", out)  # 29o: SMS "q", "k" ("los ops q faltan") is "que" to the phrases below
    for pattern, english in _ES_PHRASES:
        out = re.sub(rf"(?<![\w/]){pattern}(?![\w])", english, out, flags=re.I)
    words = []
    for match in _PIECE.finditer(out):  # one whitespace-free piece at a time: names keep their spelling
        lead, core, tail = _EDGE.match(match.group()).groups()
        lower = core.lower()
        if lower in _ES_DROP:
            core = ""
        elif lower in _ES_WORDS:
            core = _ES_WORDS[lower]
        piece = lead + core + tail
        if piece:
            words.append(piece)
    return " ".join(words)


# ---------------------------------------------------------------- numbers with units

CURRENCY_WORDS = {
    "usd": "USD", "us$": "USD", "$": "USD", "dollar": "USD", "dollars": "USD", "dolar": "USD", "dolares": "USD",
    "eur": "EUR", "€": "EUR", "euro": "EUR", "euros": "EUR", "gbp": "GBP", "£": "GBP", "pound": "GBP",
    "pounds": "GBP", "libras": "GBP", "jpy": "JPY", "¥": "JPY", "yen": "JPY", "yenes": "JPY", "mxn": "MXN", "pesos": "MXN",
    "cad": "CAD", "aud": "AUD", "chf": "CHF", "inr": "INR", "brl": "BRL", "reales": "BRL", "ars": "ARS", "clp": "CLP",
    "cop": "COP", "pen": "PEN", "soles": "PEN", "s/": "PEN", "bucks": "USD", "buck": "USD",  # s13 (r27 q20, q22)
}
# "3000 pesos la hora (argentinos)", "pesos chilenos": whose peso; "pesos" alone stays Mexico's (r27 q21)
_PESO_OF = re.compile(r"\bpesos?\b[^.?!\d]{0,24}?\b(argentin|chilen|colombian|mexican|uruguay|dominican|filipin)\w*"
                      r"|\b(argentin|chilen|colombian|mexican|uruguay|dominican|filipin)\w*\s+pesos?\b", re.I)
_PESO_CODES = {"argentin": "ARS", "chilen": "CLP", "colombian": "COP", "mexican": "MXN", "uruguay": "UYU",
               "dominican": "DOP", "filipin": "PHP"}


def currency_code(word: str, text: str) -> str:
    """The currency code a word or symbol names in a question; a peso is the country's the question says."""
    word = word.lower()
    if word == "pesos" and (m := _PESO_OF.search(text)):
        return _PESO_CODES[(m.group(1) or m.group(2)).lower()]
    return CURRENCY_WORDS.get(word, word.upper())
_NUM = r"\d{1,12}(?:[.,]\d{1,12}){0,4}(?:[eE][+-]?\d{1,3}(?!\w))?(?:\s?[kKmM](?![a-zA-Z]))?"
_CUR = (r"(?:us\$|\$|€|£|¥|usd|eur|gbp|jpy|mxn|cad|aud|chf|inr|brl|ars|clp|cop|pen|dollars?|dolar(?:es)?|euros?|pounds?|libras"
        r"|yen(?:es)?|pesos|reales|soles|bucks?|(?<![\w/])s/(?=\s?\d))")
# A number with a scale word after it ("18 mil", "1,5 millones", "2 mil millones", "3 thousand"): Spanish
# "mil" is a thousand and "mil millones" a billion (29p); kb.chat.entities.number reads the word.
_SCALE_WORD = r"(?:mil\s?millones|millones|millon|mil|thousand|millions?|billions?)"
_SNUM = rf"{_NUM}(?:\s?{_SCALE_WORD}(?![a-z]))?(?:\s(?:of|de)(?=\s))?"
_NEG = r"(?<![$€£¥]-)(?<![\s(]-)(?<!^-)"  # "$-5", "-5 USD": a negative figure is no price (a "5-10" range keeps its 10)
_PRICE_AFTER = re.compile(rf"(?<![\w.,]){_NEG}(?P<n>{_NUM})\s?(?P<c>{_CUR})(?![a-z])", re.I)
# a figure followed by tok/s is a rate whatever precedes it ("0.76/hr usd 1.2k tok/s", r13 q11)
_PRICE_BEFORE = re.compile(rf"(?<![a-z])(?P<c>{_CUR})\s?(?P<n>{_NUM})(?![\d]|[.,]\d)"
                           rf"(?!\s?[km]?\s?(?:{_SCALE_WORD})?\s?(?:tokens?|toks?|tk)\b)", re.I)
# A price in cents ("350 cents", "45 centavos de dólar", "80 céntimos"): a hundredth of the dollar (or of the euro,
# when the cents are céntimos or are said to be of the euro)
_CENTS = re.compile(rf"(?<![\w.,]){_NEG}(?P<n>{_NUM})\s?(?P<u>cents?|¢|centavos?|c[eé]ntimos?)"
                    r"(?:\s+(?:de|of)\s+(?:(?:un|a)\s+)?(?P<of>d[oó]lar(?:es)?|dollars?|usd|euros?|eur))?(?![a-z])", re.I)
# An hourly price said without a currency ("trn2 at 5.2/h"): its currency is left unnamed, never assumed.
_PRICE_BARE = re.compile(rf"(?<![\w.,$€£¥]){_NEG}(?P<n>{_NUM})\s?(?:/\s?(?:h|hr|hour|hora)|(?:an|per|por|la|a la) (?:hour|hora))\b",
                         re.I)
_HOURLY = re.compile(r"\s*(?:/\s?(?:h|hr|hour|hora)\b|(?:an?|per|each|every|por|la|a la|/)\s?(?:hour|hr|h|hora)\b"
                     r"|hourly|an hour|per hour|/hour|(?:the )?hour\b)", re.I)
_RATE = re.compile(rf"(?<![\w.,]){_NEG}(?P<n>{_SNUM})\s?(?:tokens?|toks?|tk)\s?(?:/|per|por|a|al|each|every|an?|cada)\s?"
                   r"(?:(?:el|la)\s)?(?P<u>s|sec|secs|second|seconds|segundo|segundos|seg|segs|m|min|mins|minute|minutes|minuto|minutos"
                   r"|h|hr|hour|hours|hora|horas)\b"
                   r"|(?<![\w.,])" + _NEG + r"(?P<n2>" + _SNUM + r")\s?(?:tps|tok/s)\b"
                   r"|(?<![\w.,])" + _NEG + r"(?P<n3>" + _SNUM + r")\s?(?:tpm|tok/min)\b", re.I)
# A price said per another period than the hour ("90 EUR per day", "0.000833 USD per second"):
# the unit and how many of it make an hour. The formula takes a price per hour and tokens per
# second, so both are converted, and the answer says so.
_PRICE_PERIOD = re.compile(r"\s*(?:/\s?|per\s|an?\s|each\s|every\s|por\s|al\s|a la\s|la\s|el\s|cada\s)?\s?"
                           r"(?P<u>day|days|dia|dias|daily|diario|minute|minutes|min|minuto|minutos|second|seconds|sec|s"
                           r"|segundo|segundos|week|semana|weekly|semanal)\b", re.I)
_PER_HOUR = {"day": Decimal(1) / 24, "dia": Decimal(1) / 24, "daily": Decimal(1) / 24, "diario": Decimal(1) / 24,
             "minute": Decimal(60), "min": Decimal(60), "minuto": Decimal(60), "second": Decimal(3600),
             "sec": Decimal(3600), "s": Decimal(3600), "segundo": Decimal(3600), "week": Decimal(1) / 168,
             "semana": Decimal(1) / 168, "weekly": Decimal(1) / 168, "semanal": Decimal(1) / 168}
_RATE_PER_SECOND = {"s": 1, "sec": 1, "second": 1, "segundo": 1, "m": 60, "min": 60, "minute": 60, "minuto": 60,
                    "h": 3600, "hr": 3600, "hour": 3600, "hora": 3600}
_UNIT_NAMES = {"en": {"day": "day", "minute": "minute", "second": "second", "week": "week", "hour": "hour"},
               "es": {"day": "día", "minute": "minuto", "second": "segundo", "week": "semana", "hour": "hora"}}


def _period(word: str) -> str:
    """day / minute / second / week / hour for any spelling above."""
    w = word.lower().rstrip("s") or "s"
    for name, spellings in (("day", ("day", "dia", "daily", "diario")), ("minute", ("minute", "min", "minuto", "m")),
                            ("week", ("week", "semana", "weekly", "semanal")), ("hour", ("hour", "hr", "h", "hora"))):
        if w in spellings:
            return name
    return "second"


def period_name(period: str, lang: str) -> str:
    return _UNIT_NAMES["es" if lang == "es" else "en"].get(period, period)


_TOKENS = re.compile(rf"(?<![\w.,])(?P<n>{_NUM})\s?(?P<scale>mil\s?millones|millions?|millones|millon|mil|thousand|billions?|m|k)?\s?"
                     r"(?:of |de )?tokens?\b(?!\s?(?:/|per|por|a)\s?(?:s|sec|second|segundo))", re.I)
_DURATION = re.compile(r"(?<![\w.,])(?P<n>\d{1,6})\s?(?P<u>days?|dias?|d|weeks?|semanas?|w|months?|meses|mes|"
                       r"years?|anos?|y)\b", re.I)
_DATE = re.compile(r"\b(?P<d>\d{4}-\d{2}(?:-\d{2})?)\b")
# "in the next 6 months", "en los próximos 90 días", "within 2 weeks", "over the coming year": a horizon ahead
_HORIZON = re.compile(r"\b(?:next|coming|upcoming|within|in the next|pr[oó]xim[oa]s?|siguientes?|dentro de)\s+"
                      r"(?:(?P<n>\d{1,4})\s?)?(?P<u>days?|d[ií]as?|weeks?|semanas?|months?|meses|mes|years?|a[nñ]os?|a[nñ]o)\b",
                      re.I)


_THIS_YEAR = re.compile(r"\b(?:this year|by (?:the )?(?:end of (?:the )?year|year[- ]end)|before (?:the )?year[- ]end"
                        r"|este ano|lo que queda del ano|antes de fin de ano)\b", re.I)


def horizon_days(text: str, today: str | None = None) -> int | None:
    """The days ahead a question asks about ("what ends in the next 6 months?": 180; "this year": to December 31 of
    `today`'s year), or None."""
    m = _HORIZON.search(fold(text))
    if m is None and today and _THIS_YEAR.search(fold(text)):
        from datetime import date

        day = date.fromisoformat(today)
        return max((date(day.year, 12, 31) - day).days, 1)
    if m is None:
        return None
    unit = m.group("u").lower().replace("ñ", "n").rstrip("s")
    unit = {"mese": "mes", "dia": "dia", "dias": "dia"}.get(unit, unit)
    days, n = _DAYS.get(unit) or _DAYS.get(unit[:3]) or 1, int(m.group("n") or 1)
    return n // 12 * 365 if days == 30 and n % 12 == 0 else n * days  # "the next 12 months" is a year
_SCALES = {"k": 1_000, "m": 1_000_000, "thousand": 1_000, "mil": 1_000, "million": 1_000_000, "millon": 1_000_000,
           "millions": 1_000_000, "billions": 1_000_000_000, "milmillones": 1_000_000_000, "mil millones": 1_000_000_000,
           "millones": 1_000_000, "billion": 1_000_000_000}
_DAYS = {"d": 1, "day": 1, "dia": 1, "w": 7, "week": 7, "semana": 7, "month": 30, "mes": 30, "y": 365, "year": 365,
         "ano": 365}


def number(text: str, lang: str = "en", decimal_comma: bool = False) -> Decimal | None:
    """A number as people write it: 7.5, 7,5 (Spanish decimal comma), 1,800 / 1.800 (thousands:
    a separator followed by exactly three digits), 1.8k, 2M. `decimal_comma`: the question writes
    a comma for the decimal point, so 1,375 is 1.375 (kb.chat.entities._comma_is_decimal)."""
    raw = text.strip().replace(" ", "")
    worded = re.fullmatch(r"(?P<n>.*?\d)(?P<w>milmillones|millones|millon|mil|thousand|millions?|billions?)(?:of|de)?",
                          raw, re.I)
    if worded:  # "18 mil", "1,5 millones": the number times its scale word
        value = number(worded.group("n"), lang, decimal_comma)
        return None if value is None else value * _SCALES[worded.group("w").lower()]
    scientific = re.fullmatch(r"\d{1,12}(?:\.\d{1,12})?[eE]([+-]?\d{1,3})", raw)
    if scientific:  # 1e3, 1.5e3, 1.8e-3: scientific, as written; past 1e±15 no price or rate, so no figure (nor a crash)
        if abs(int(scientific.group(1))) > 15:
            return None
        value = Decimal(raw)
        return value.to_integral_value() if value == value.to_integral_value() else value
    scale = 1
    if raw[-1:].lower() in ("k", "m"):
        scale = _SCALES[raw[-1].lower()]
        raw = raw[:-1]
    if decimal_comma and re.fullmatch(r"\d{1,12},\d{1,12}", raw):
        return Decimal(raw.replace(",", ".")) * scale
    parts = re.split(r"([.,])", raw)
    seps = parts[1::2]
    groups = parts[0::2]
    if seps and all(len(g) == 3 for g in groups[1:]) and len(groups[0]) <= 3 and (
            len(set(seps)) == 1 and (seps[0] == "," or lang == "es" or len(seps) > 1)):
        raw = "".join(groups)  # 1,800 · 1.800 (es) · 1.000.000
    elif len(seps) == 1:
        raw = groups[0] + "." + groups[1]
    elif len(set(seps)) == 2:  # 1,234.5 or 1.234,5: the last separator is the decimal point
        last = seps[-1]
        raw = "".join(g + ("." if i == len(groups) - 2 and seps[i] == last else "")
                      for i, g in enumerate(groups) if g) if seps.count(last) == 1 else raw
    try:
        return Decimal(raw) * scale
    except InvalidOperation:
        return None


@dataclass
class Amount:
    value: Decimal
    unit: str  # a currency code, "tokens/s", "tokens", "days", "date"
    text: str  # as written
    per_hour: bool = False  # a price said to be per hour (or per another period, converted)
    period: str = ""  # the period it was said per when that is not the formula's (day, minute, second...)
    said: Decimal | None = None  # the value as said, before converting to per hour / per second


@dataclass
class Entities:
    """What a question names besides ops and targets (kb.chat.intents reads those)."""

    language: str = "en"
    english: str = ""  # the question in the reader's English (itself when English)
    source: str = ""  # the question as asked, folded (accents off): where each amount's text is found
    prices: list[Amount] = field(default_factory=list)
    rates: list[Amount] = field(default_factory=list)
    tokens: list[Amount] = field(default_factory=list)
    durations: list[Amount] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)
    instances: list[str] = field(default_factory=list)  # trn1, trn2, trn3, inf1, inf2
    uses: list[str] = field(default_factory=list)  # training, inference
    features: list[str] = field(default_factory=list)  # pytorch-xla, nxd-inference, nxd-training, torchneuron
    models: list[str] = field(default_factory=list)
    cues: set[str] = field(default_factory=set)  # cost, list, eol, last_release, policy, yes_no, compile, eager
    corrections: list[tuple[str, str]] = field(default_factory=list)  # (word as typed, how it was read): neuorn → neuron


_POWER = re.compile(r"(?<![\w.])(?:(\d{1,12}(?:\.\d{1,12})?)\s?[x×*·]\s?)?10\s?(?:\^|\*\*)\s?([+-]?\d{1,3})(?!\d)")
MAX_AMOUNTS = 32  # figures read of each kind: a question names a few; a hostile one thousands (each checked
# against those taken before it)


def _amounts(text: str, lang: str) -> tuple[list[Amount], list[Amount], list[Amount]]:
    """Prices, throughputs and token counts of a question. A decimal comma anywhere ("7,5 €")
    makes "1.800" a thousands group, as in Spanish (r2-29 #11)."""
    # "10^50 tokens/s", "2×10^3": a power of ten written out is that figure in scientific form (attacker s11)
    text = _POWER.sub(lambda m: f"{m.group(1) or '1'}e{m.group(2)}", text)
    if re.search(r"(?<![\d.,])\d{1,6},\d{1,2}(?![\d.,])", text):
        lang = "es"
    comma = _comma_is_decimal(text, lang)
    prices: list[Amount] = []
    taken: list[tuple[int, int]] = []
    for m in islice(_CENTS.finditer(text), MAX_AMOUNTS):  # "350 cents an hour" is 3.50 USD an hour (r22 q18, q24)
        value = number(m.group("n"), lang, comma["price"])
        if value is None:
            continue
        of = (m.group("of") or "").lower()
        code = "EUR" if of.startswith("eur") or m.group("u").lower().startswith(("cént", "centimo")) else "USD"
        hourly = _HOURLY.match(text, m.end()) is not None
        prices.append(Amount(value / 100, code, m.group(), hourly))
        taken.append((m.start(), m.end()))
    for pattern in (_PRICE_AFTER, _PRICE_BEFORE):
        for m in islice(pattern.finditer(text), MAX_AMOUNTS):
            if any(a <= m.start() < b for a, b in taken):
                continue
            value = number(m.group("n"), lang, comma["price"])
            if value is None:
                continue
            code = currency_code(m.group("c"), text)
            other = _PRICE_PERIOD.match(text, m.end())
            if other and not re.match(r"\s*(?:/|per|por|a)?\s?(?:hour|hr|h|hora)\b", text[m.end():], re.I):
                unit = other.group("u").lower()
                factor = _PER_HOUR.get(unit) or _PER_HOUR.get(unit.rstrip("s")) or Decimal(3600)
                prices.append(Amount(value * factor, code, m.group() + other.group(), True, _period(unit), value))
                taken.append((m.start(), other.end()))
                continue
            hourly = _HOURLY.match(text, m.end()) is not None or re.search(
                r"(?:per|an?|por|la|/)\s?(?:hour|hr|hora)\s*$", text[max(0, m.start() - 12):m.start()], re.I) is not None
            prices.append(Amount(value, code, m.group(), hourly))
            taken.append((m.start(), m.end()))
    for m in islice(_PRICE_BARE.finditer(text), MAX_AMOUNTS):  # "5.2/h": an hourly price that names no currency
        value = number(m.group("n"), lang, comma["price"])
        if value is not None and not any(a <= m.start() < b for a, b in taken):
            prices.append(Amount(value, "", m.group(), True))
            taken.append((m.start(), m.end()))
    named = currencies_named(text)
    if len(named) == 1:  # "0.76/h … -> $/Mtok?": the one currency the question names is its prices' (29n)
        for price in prices:
            price.unit = price.unit or next(iter(named))
    rates = []
    for m in islice(_RATE.finditer(text), MAX_AMOUNTS):
        value = number(m.group("n") or m.group("n2") or m.group("n3"), lang, comma["any"])
        if value is not None:
            unit = (m.group("u") or ("min" if m.group("n3") else "s")).lower()
            per = _RATE_PER_SECOND.get(unit) or _RATE_PER_SECOND.get(unit.rstrip("s"), 1)
            if per == 1:
                rates.append(Amount(value, "tokens/s", m.group()))
            else:
                rates.append(Amount(value / per, "tokens/s", m.group(), period=_period(unit), said=value))
            taken.append((m.start(), m.end()))
    tokens = []
    for m in islice(_TOKENS.finditer(text), MAX_AMOUNTS):
        if any(a <= m.start() < b for a, b in taken):
            continue
        value = number(m.group("n"), lang, comma["any"])
        if value is not None:
            scale = _SCALES.get((m.group("scale") or "").lower(), 1)
            tokens.append(Amount(value * scale, "tokens", m.group()))
    return prices, rates, tokens


_CURRENCY_NAMED = re.compile(r"[$€£¥]|(?<![\w/])s/(?=\s?\d)|\b(?:" + "|".join(sorted((re.escape(w) for w in CURRENCY_WORDS if w.isalpha()),
                                                                  key=len, reverse=True)) + r")\b", re.I)


def currencies_named(text: str) -> set[str]:
    """Every currency a question names anywhere, as codes ("$/Mtok" → USD)."""
    return {currency_code(m.group(), text) for m in _CURRENCY_NAMED.finditer(text)}


_COMMA_THREE = re.compile(r"(?<![\d.,])\d{1,3},\d{3}(?![\d.,])")  # 1,375: thousands or a decimal comma?
_DOT_GROUPS = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+(?![\d.,])")  # 5.500, 1.000.000


def _comma_is_decimal(text: str, lang: str) -> dict[str, bool]:
    """Whether "1,375" is 1.375 here, for prices and for any amount. One question keeps one
    convention: where it also writes dots between groups of three ("5.500 tokens/seg") and is
    Spanish, or writes a dotted group next to a comma group, the comma is its decimal point, for
    every amount. A Spanish question's price alone ("1,375 USD/h") reads the comma as decimal too,
    the Spanish convention, while its bare counts ("1,375 tokens/s") stay thousands as in English;
    an English question's comma is always a thousands separator."""
    if lang != "es" or not _COMMA_THREE.search(text):
        return {"price": False, "any": False}
    dotted = any(len(m.group()) > 5 or m.group().count(".") for m in _DOT_GROUPS.finditer(text))
    return {"price": True, "any": dotted}


INSTANCE_RE = re.compile(r"\b(trn[123]n?|inf[12]|trainium[123]?|inferentia[12]?)\b", re.I)
_INSTANCE_NAMES = {"trainium": "trn1", "trainium1": "trn1", "trainium2": "trn2", "trainium3": "trn3",
                   "inferentia": "inf1", "inferentia1": "inf1", "inferentia2": "inf2", "trn1n": "trn1"}
FEATURE_RE = {
    "pytorch-xla": r"\bpytorch[/ -]?xla\b|\btorch[-_ ]?xla\b|\bneuron[-_]xla\b|\bxla\b|\btorch-neuronx-xla\b",
    "nxd-inference": r"\bnxd[- ]?i\b|\bnxdi\b|\bnxd inference\b|\bneuronx[- ]distributed[- ]inference\b",
    "nxd-training": r"\bnxd[- ]?t\b|\bnxdt\b|\bnxd training\b|\bneuronx[- ]distributed[- ]training\b",
    "nxd": r"\bnxd\b|\bneuronx[- ]distributed\b",
    "torchneuron": r"\btorch ?neuron\b|\btorch[-_]neuronx\b(?![-_]xla)|\bnative (?:neuron )?backend\b",
}
USE_RE = {"training": r"\btrain(?!ium)\w*|\bfine-?tun\w*|\bpre-?train\w*",
          "inference": r"\binfer(?:ence|encing)?\b|\bserv(?:e|ing)\b|\bdeploy\w*|\bpredict\w*|\bgenerat\w*"}
# "what is the native op count on tpu?", "the number of ops native on tpu" (29p): a count of ops by status
OP_COUNT = (r"\b(?:op|ops|operator|operators|kernel|kernels) counts?\b|\b(?:count|number) of (?:aten )?(?:ops|operators|kernels)\b"
            # s13 (r26 q12): "the op coverage numbers for TorchNeuron 2.14.3.1"
            r"|\b(?:op|ops|operator|aten) coverage (?:numbers?|figures?|stats|statistics|counts?|breakdown|summary)\b"
            r"|\bcoverage (?:numbers?|figures?|counts?|breakdown)\b|\b(?:op |ops )?coverage by status\b")
# "op coverage by status", "cobertura de ops por estado", "how many are native, decomposed, fallback and unsupported":
# the counts of every status (kb.chat.answer's ops_overview)
BY_STATUS = re.compile(r"\bby status\b|\bcoverage (?:numbers?|figures?|counts?|breakdown)\b")
# "native / decomposed / CPU fallback / unsupported": statuses named as a series, the columns of a count, no policy asked
STATUS_SERIES = re.compile(r"\b(?:native|decomposed|(?:cpu )?fallback|unsupported)\s*[/,|]\s*"
                            r"(?:native|decomposed|(?:cpu )?fallback|unsupported)\b")
CUES = {
    "cost": r"\b(?:cost|costs|price|prices|pricing|priced|cheap\w*|expens\w*|how much|per million|/ ?m(?:tok)?\b"
            r"|per 1m|\$/m|dollars per)\b",
    "list": r"^\s*(?:list|show|which|what)\b|\b(?:list|enumerate)\b|\bhow many\b|\bwhich ops\b|\bwhat ops\b"
            r"|" + OP_COUNT,
    "eol": r"\bend of (?:support|life)\b|\bend-of-(?:support|life)\b|\bstill (?:be )?(?:supp?orted|supports?|works?|available"
           r"|ok|okay|fine|alive)\b|\bdrop(?:s|ped|ping)?\b"
           r"|\bno longer\b|\bhow long\b|\buntil when\b|\bsupported until\b|\bdeprecat\w*|\bsunset\b|\beol\b"
           r"|\bwhen (?:is|does|will|did)\b[^?]*\b(?:end|ends|stop|stops|drop|dropped|leave|leaves|support|go away"
           r"|goes away|disappear|disappears|disappeared|die|died|dies)\b|\bwhen disappeared\b"  # "when did training go away?" (r11 q58)
           r"|\bmaintenance\b|\bsupport window\b"
           # 29p: what a vendor stopped doing ("when did they stop shipping Inf1 DLAMIs?")
           r"|\b(?:stop(?:s|ped)?|quit|ceased?|discontinued) (?:shipping|providing|supporting|offering|publishing|releasing"
           r"|maintaining|building|updating|including)\b",
    "last_release": r"\blast (?:neuron )?(?:sdk )?(?:release|version)\b|\bfinal (?:neuron )?(?:release|version)\b",
    "policy": r"\b(?:an?|the) (?:op|ops|operator|operators|aten op) (?:it|that it|the backend|they) (?:lacks?|doesn'?t have|"
              r"does not have|has no kernel for|cannot run|can'?t run|doesn'?t implement|does not implement|"
              r"doesn'?t support|does not support|can'?t handle|cannot handle)\b"
              # 29o: "for ops it doesn't implement", "operators they don't support", "unimplemented ops"
              r"|\b(?:op|ops|operators?|kernels?) (?:it|they|the backend|that it|that they) (?:doesn'?t|does not|don'?t|do not|"
              r"can'?t|cannot) (?:implement|support|handle|cover|provide)\b|\bunimplemented (?:op|ops|operators?)\b|\b(?:op|ops|operators?|kernels?) (?:it|they|the backend) (?:lacks?|"
              r"doesn'?t have|don'?t have|does not have|has no|have no)\b|\bmissing (?:op|ops|kernel|"
              r"kernels|operator|operators)\b|\bhas no kernel\b|\bno kernel\b"
              # s8: "an op without a TPU kernel", "lacking a Neuron kernel" (r10 q35)
              r"|\bwithout (?:a |an |its own |any )?(?:(?:neuron|tpu|device|native|xla|trainium) )?kernels?\b"
              r"|\bnot implemented\b|\bfallback (?:policy|behaviou?r|mode)\b|\bwhat happens (?:when|if|to|with)\b"
              r"|\bunsupported (?:op|ops|operator|operators)\b(?! on| in| for| at)|\bop (?:is|isn'?t) (?:not )?supported\b"
              r"|\bno (?:neuron|tpu|device|native|own) kernel\b"  # 29i: "an op with no neuron kernel"
              r"|\b(?:when|if) it (?:lacks|is missing|doesn'?t have|does not have|has no) (?:one|it)\b"  # r28 q63
              # "what does torchtpu do when the model hits one?" after a count of unsupported ops (r30 q59)
              r"|\b(?:when|if) (?:the |a |our |my )?(?:model|it|we|code|graph) (?:hits?|meets?|runs? into|encounters?|uses?)"
              r" (?:one|such an? op|an? (?:unsupported|missing) op)\b"
              r"|\b(?:has|have) no lowering\b|\bwithout (?:a )?lowering\b|\bno lowering (?:for|rule)\b"
              r"|\bcpu fallback\b|\bfall ?back policy\b|\bdoes (?:it|the backend) fall back\b"
              r"|\b(?:an? |the )?(?:op|ops|operator|operators|kernel) (?:is|are) missing\b"
              r"|\b(?:neuron|tpu|trainium|torchneuron|torch_tpu|trn[123])\s+(?:falls? back|does fallback)\s*\??\s*$"
              r"|\b(?:lacks?|lacking|missing|without) (?:a |an )?(?:(?:neuron|tpu|device|native) )?(?:kernel|op)\b|\b(?:can'?t|cannot|can not) be lowered\b"
              r"|\b(?:if|when) (?:an? |the )?(?:op|operator|kernel) (?:doesn'?t|does not|isn'?t|is not) (?:exist|there|"
              r"available|implemented|supported)\b"
              # "eager vs compile: which one falls back to CPU?" (r2-29 #4): the modes compared, no op
              r"|\b(?:eager|compile)\s*(?:vs\.?|versus|or)\s*(?:torch\.)?(?:eager|compile)\b(?=.*\bfalls? ?back\b)"
              # 29l: "the policy in compile mode", "neuron's eager policy": a mode's policy is the missing-op one
              r"|\bpolic(?:y|ies)\b(?=[^?]{0,40}\b(?:eager|compile)\b)|\b(?:eager|compile)(?: mode)? polic(?:y|ies)\b"
              # 29t: "how do I see which ops ran on the CPU because of the fallback?": how to list them
              # s8c-intent3: "an op that can't lower", "something Trainium doesn't have a kernel for", and the
              # either/or a missing op is asked by ("does it error or run eager?", "crash or just get slow?")
              r"|\b(?:can'?t|cannot|can not|won'?t|fails? to) (?:be )?lower(?:ed)?\b"
              r"|\b(?:an?|the) (?:op|ops|operator|operators) (?:that )?(?:the )?(?:tpu|neuron|trainium|device|backend) "
              r"(?:lacks?|doesn'?t have|does not have)\b"
              r"|\b(?:doesn'?t|does not|don'?t|do not) have (?:a |an |any )?(?:\w+ )?kernels? for\b"
              r"|\b(?:error|errors|crash\w*|raise\w*|fail|fails)\b[^?]{0,20}\bor\b[^?]{0,24}\b(?:(?:run\w* )?eager\w*"
              r"|(?:just )?(?:get|gets|go|goes|run|runs)? ?slow\w*|falls? back|go(?:es)? to the (?:cpu|host)|(?:the )?cpu)\b"
              r"|\bhow (?:do|can|could|would|should) (?:i|we|you|one) (?:see|tell|know|find out|check|list|log|inspect|get"
              r"|spot)\b[^?]{0,80}?\b(?:fall(?:s|ing)? ?back|fell back|fallbacks?)\b",
    "yes_no": r"^\s*(?:is|are|does|do|can|will|could|would|has)\b"
              # "neuron 2.33 supports trn1?" ("la 2.33 soporta trn1?"): a statement asked as a question (r27 q46)
              r"|^(?!\s*(?:which|what|how|when|where|why|who)\b)[^?]{0,60}\b(?:supports?|runs?|works?) (?:on )?[\w.-]+\s*\?",
    # 29p: a torch.compile backend named ("backend='inductor'", "the inductor backend") is compile mode
    "compile": r"\bcompile\w*\b|\btorch\.compile\b|\bgraph mode\b|\bdynamo\b|\binductor\b|\baot_?eager\b"
               r"|\bcompil(?:amos|ado|ada|ados|adas|ar|ando|o)\b"  # a Spanish aside in an English message (attacker s13)
               r"|\bbackend\s?=",
    "eager": r"\beager\b",
}
# "nuestro script llama a `neuron-ls`", "se llama así": the Spanish verb, never the Llama model (r31 q32)
_LLAMA_VERB = re.compile(r"\b(?:(?:se|lo|la|le|los|las|que|q|nos|te|me)\s+)?llam(?:a|an|amos|aba|aban|ó|o)\s+"
                         r"(?=(?:a|al|como|desde|con|así|asi|cada)\b)|\b(?:se|lo|la|le)\s+llama\b", re.I)


def without_llama_verb(text: str) -> str:
    """The text without the Spanish verb "llamar" said where a model name would be (kept a word apart)."""
    return _LLAMA_VERB.sub(" calls ", text)


# Model architectures people name (the gallery's, kb.chat.answer_gallery, when it is there).
MODEL_RE = re.compile(
    r"\b(llama ?[234](?:\.\d)?|llama|mixtral|mistral|qwen ?[23]?(?:\.\d)?|qwen|gemma ?[23]?|gemma|phi-?[234]?|"
    r"deepseek(?:-v[23])?|falcon|gpt-?\d+(?:\.\d+)?|gpt-?j|gpt-?neox?|bloom|bert|roberta|distilbert|t5|flan-t5|bart|"
    r"vit|deit|swin|resnet-?\d*|wav2vec2?|whisper|mamba|stable diffusion|sdxl|yolo\w*|olmo|granite|"
    r"starcoder\d?|codellama|dbrx|grok)\b", re.I)


_NORM_NAMES = {"rms": "rms_norm", "batch": "nn.BatchNorm2d", "layer": "nn.LayerNorm", "group": "nn.GroupNorm",
               "instance": "nn.InstanceNorm2d"}


# Op and module names people write as words (tester t29 #17).
_SPOKEN_NAMES = [(re.compile(r"\bscaled[ -]dot[ -]product[ -]attention\b(?!\()", re.I), "F.scaled_dot_product_attention"),
                 (re.compile(r"(?<![\w.])multi[ -]?head(?:ed)?[ -]attention\b", re.I), "nn.MultiheadAttention"),
                 # "rms norm", "batch norm", "layer-norm": that op, or the module whose forward it is (which says
                 # each op it dispatches), never aten::norm (r13 q61, r14 q6 q7)
                 (re.compile(r"(?<![\w.:])(rms|batch|layer|group|instance)[ -]norm(?:ali[sz]ation)?\b(?![.(])(?!\s+(?:ops?|operations?|operators?|kernels?|family)\b)", re.I),
                  lambda m: _NORM_NAMES[m.group(1).lower()]),
                 # "la 0.1.1 tenia flash attention no?": SDPA's flash (or memory-efficient) kernel op (r27 q64)
                 (re.compile(r"(?<![\w.:])flash[ -]?att(?:entio)?n\b(?![.(])(?!\s+(?:ops?|operators?|kernels?|family)\b)",
                             re.I), "aten::_scaled_dot_product_flash_attention"),
                 (re.compile(r"(?<![\w.:])(?:memory[ -])?efficient[ -]attention\b(?![.(])"
                             r"(?!\s+(?:ops?|operators?|kernels?|family)\b)", re.I),
                  "aten::_scaled_dot_product_efficient_attention")]



# A target or product with its version glued on ("tpu0.2", "neuron2.34", "py3.10", "python3.11", "torch2.9"):
# the name at that version, as if spaced (r13 q2 q26), so the asked target is the only one answered.
_GLUED_VERSION = re.compile(r"(?i)(?<![\w.:/`-])(tpus?|torch[_-]?tpu|neuron(?:-sdk)?|torch[_-]?neuronx?|torchneuron|"
                            r"python|py|pytorch|torch|ubuntu|sdk)(v?\d+(?:\.\d+)+)(?![\w-])")
# "py 3.10" (spaced) is Python as well; "py" alone is no product word
_PY_VERSION = re.compile(r"(?i)(?<![\w.:/`-])py\s+(3\.\d+)(?![\w-])")


def _unglue(m: re.Match) -> str:
    name = m.group(1)
    return ("python" if name.lower() == "py" else name) + " " + m.group(2)


# A platform version written with a decimal comma ("python 3,11", "ubuntu 22,04").
_VERSION_COMMA = re.compile(r"(?i)\b(python|py|ubuntu|pytorch|torch)\s*(\d{1,2}),(\d{1,2})\b")


# Target and product names read through a typo ("neuorn", "trainum", "tpuu", "pyhton"): one edit away
# (a swap of two neighbours counts as one), two for the long names. Words that are names already, or
# everyday words one edit away from a name ("training" is two from "trainium"; "neutron"), stay as typed.
FUZZY_NAMES = ("neuron", "trainium", "inferentia", "torchneuron", "torchtpu", "torch-neuronx", "tpu", "pytorch",
               "python", "ubuntu",
               # 29p: the status words a count or a list is asked by ("the nativ op count"); not "supported",
               # whose neighbours ("supports") are words of their own
               "native", "natively", "fallback", "unsupported", "decomposed")
_KNOWN_WORDS = frozenset("""
neuron neurons trainium inferentia torchneuron torchtpu torch-neuronx torch_neuronx torch-tpu torch_tpu tpu tpus
pytorch python ubuntu torch neuronx torch-neuron torch_neuron neutron neurona neuronas cpu gpu tpuv input inputs output outputs typo typos
native natives nativo nativa nativos nativas naive nation natively fallback fallbacks unsupported decomposed decompose
decomposes decomposing unsupport supported
""".split())
_WORD = re.compile(r"(?<![\w.:/`-])(?P<w>[A-Za-z][A-Za-z_-]{2,19})(?P<d>[123]?)(?![\w.:/`(-])")


def _edits(a: str, b: str, most: int) -> int:
    """Edit distance with adjacent swaps (optimal string alignment), or most + 1 when over `most`;
    both words are at most 20 letters, so this stays a few hundred steps."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        if min(row) > most:
            return most + 1
        prev2, prev = prev, row
    return prev[-1]


def read_name(word: str) -> str | None:
    """The target or product name a typo'd word stands for, or None."""
    lower = word.lower()
    if lower in _KNOWN_WORDS or len(lower) < 4:
        return None
    for name in FUZZY_NAMES:
        most = 2 if len(name) >= 9 else 1
        if name == "tpu" and not lower.startswith("tp"):
            continue  # "tpuu", "tpu" typed twice; never "cpus" or "gpus"
        if lower[0] == name[0] and _edits(lower, name, most) <= most:
            return name
    return None


def correct_names(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text with typo'd target and product names read as the name, and what was read."""
    fixed: list[tuple[str, str]] = []

    def one(m: re.Match) -> str:
        name = read_name(m.group("w"))
        if name is None or m.group("d") and name not in ("trainium", "inferentia"):
            return m.group()
        name += m.group("d")  # "trainum2" is Trainium2
        if (m.group(), name) not in fixed:
            fixed.append((m.group(), name))
        return name

    return _WORD.sub(one, text), fixed


_INFERENTIA_1 = re.compile(r"\binferentia[ -]1\b(?![.\d])", re.I)


# Shorthand people type in either language, read as the word it stands for (29p): "python reqs for neuron
# 2.33" asks for its requirements.
_SHORTHAND = [(re.compile(r"(?<![\w.-])(?:pre-?)?(?:reqs?|reqts|requirments|requirenments)(?![\w.-])", re.I), "requirements"),
              # s8c-intent3: "torchao neuron 0.18", "torchao_neuron": the package's own name, one word
              (re.compile(r"(?<![\w.-])torch[ _-]?ao[ _]neuron(?![\w-])", re.I), "torchao-neuron"),
              # chat shorthand: "w/ pool in the name", "w/o a kernel" (held-out r15 q18)
              (re.compile(r"(?<![\w/])w/o(?![\w/])", re.I), "without"), (re.compile(r"(?<![\w/])w/(?![\w/])", re.I), "with")]


def _shorthand(text: str) -> str:
    for pattern, word in _SHORTHAND:
        text = pattern.sub(word, text)
    return text


# "going 0.1.1 -> 0.2.0", "0.1.1 → 0.2.0": two versions joined by an arrow are a range, said in words
_ARROW = re.compile(r"(\bfrom\s+)?(?<![\d.])(v?\d+(?:\.\d+)+)\s*(?:-+>|=+>|→|⇒|⟶|➔)\s*(v?\d+(?:\.\d+)+)", re.I)


def _arrow_range(m: re.Match) -> str:
    return f"from {m.group(2)} to {m.group(3)}"


_LIKE_CUDA = re.compile(r",?\s*\b(?:like|as|the way it does|como|igual que|al igual que)\s+(?:(?:on|in|with|en|con)\s+)?(?:the\s+)?"
                        r"(?:cuda|gpus?|nvidia)(?:\s+(?:does|do|did|hace|hacen))?\b", re.I)
_TARGET_WORD = re.compile(r"\b(?:neuron|tpu|trainium|inferentia|trn[123]|inf[12]|torchneuron|torch_tpu)\b", re.I)


def extract(text: str, lang: str | None = None) -> Entities:
    """Everything of the above a question names, with its English reading (`lang`: the language
    when known, for one clause of a longer question)."""
    lang = lang or language(text)
    english = to_english(text) if lang == "es" else text
    english = _INFERENTIA_1.sub("inf1", english)  # "inferentia 1" is Inf1, not Inferentia at version 1
    # "does torch.cdist run on neuron? ¿Y si compilamos?": a Spanish compile word left in an English message (attacker s13)
    english = re.sub(r"\b(?:lo |la )?compil(?:amos|ado|ada|ados|adas|ar|ando|o)\b", "compiled", english, flags=re.I)
    # "… lo corre en cpu como en cuda?": CUDA named as what the asker knows, beside the target asked (r26 q40)
    english = _LIKE_CUDA.sub(" ", english) if _TARGET_WORD.search(_LIKE_CUDA.sub(" ", english)) else english
    english = _shorthand(english)
    english, corrections = correct_names(english)
    english = _ARROW.sub(_arrow_range, english)  # "0.1.1 -> 0.2.0" is the range from 0.1.1 to 0.2.0 (29t)
    english = _VERSION_COMMA.sub(r"\1 \2.\3", english)  # "python 3,11" is Python 3.11, not Python 3 (r2-29 #1)
    english = _PY_VERSION.sub(r"python \1", _GLUED_VERSION.sub(_unglue, english))  # "tpu0.2" is tpu 0.2 (r13 q2)
    for pattern, name in _SPOKEN_NAMES:  # "scaled dot product attention" is F.scaled_dot_product_attention
        english = pattern.sub(name, english)
    found = Entities(language=lang, english=english, corrections=corrections)
    source = fold(text)
    found.source = source
    found.prices, found.rates, found.tokens = _amounts(source, lang)
    for m in _DURATION.finditer(source):
        unit = m.group("u").lower().rstrip("s") or "d"
        days = _DAYS.get(unit) or _DAYS.get(unit[:3]) or _DAYS.get(unit[0], 1)
        found.durations.append(Amount(Decimal(m.group("n")) * days, "days", m.group()))
    found.dates = _DATE.findall(source)
    lowered = english.lower()
    found.instances = list(dict.fromkeys(_INSTANCE_NAMES.get(i.lower(), i.lower().removesuffix("n") if i.lower()
                                                              != "trn1n" else "trn1")
                                         for i in INSTANCE_RE.findall(lowered) if i.lower() != "trainium"))
    # "Trainium" alone is the chip family (the neuron target), no instance: "does torch.compile(dynamic=True) work on
    # Trainium?" is no Trn1 platform question (held-out r15 q36); "Trainium1", "trn1" name Trn1
    found.uses = [use for use, pattern in USE_RE.items() if re.search(pattern, lowered)]
    found.features = [name for name, pattern in FEATURE_RE.items() if re.search(pattern, lowered)]
    if "nxd" in found.features and ("nxd-inference" in found.features or "nxd-training" in found.features):
        found.features.remove("nxd")
    found.cues = {name for name, pattern in CUES.items() if re.search(pattern, lowered)}
    if STATUS_SERIES.search(lowered):
        found.cues.discard("policy")
    found.models = list(dict.fromkeys(m.lower() for m in MODEL_RE.findall(without_llama_verb(lowered))))
    return found
