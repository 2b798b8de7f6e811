"""Answers in Spanish for answers kb words in English (op, list, end-of-support, release,
limitation answers): the sentences kb itself writes are replaced phrase by phrase from a
fixed table; every fact — op names, statuses' symbols, versions, dates, counts, commands in
backticks — and every source stays exactly as it is. Text that comes from records (a vendor
page's title or note) is quoted as recorded, in its own language.

New answer kinds (cost, policy, feature support) write both languages themselves.
"""

from __future__ import annotations

import re

from kb.chat.reply import Answer

# (English phrase kb writes, Spanish), longest first where one contains another. Applied
# outside `code spans` and URLs only.
PHRASES: list[tuple[str, str]] = [
    ("**Presumably yes**", "**Presumiblemente sí**"), ("**Presumably no**", "**Presumiblemente no**"),
    ("**Yes, but on the CPU**", "**Sí, pero en la CPU**"), ("**Yes, for now**", "**Sí, por ahora**"),
    ("**It depends**", "**Depende**"), ("on the version, mode or overload", "de la versión, el modo o la sobrecarga"), ("**Unknown**", "**Desconocido**"), ("**Yes**", "**Sí**"),
    ("**Probably**", "**Probablemente**"), ("**Partly**", "**En parte**"), ("**They differ.**", "**Difieren.**"),
    ("**Same status on all of them.**", "**El mismo estado en todos.**"),
    ("**Not as its own kernel**", "**No como kernel propio**"), ("**Not stated for Neuron", "**No declarado para Neuron"),
    ("**Nothing the KB knows of**", "**Nada que el KB sepa**"), ("**Sources**", "**Fuentes**"),
    ("? **unknown**", "? **desconocido**"), ("**already ended**", "**ya terminó**"),
    ("its own kernel on", "kernel propio en"), ("(own kernel)", "(kernel propio)"), ("it falls back", "hace fallback"),
    ("it works, with copies to the host and back", "funciona, con copias al host y de vuelta"),
    ("carried from the pre-release snapshot", "heredado del snapshot previo al lanzamiento"),
    ("carried from an older version", "heredado de una versión anterior"),
    ("a dispatcher replay of a kernel list, not an observation of",
     "una reproducción del dispatcher sobre una lista de kernels, no una observación de"),
    ("dispatcher replay of a kernel list", "reproducción del dispatcher sobre una lista de kernels"),
    ("by the vendor's doc rule", "por la regla documental del proveedor"),
    ("a rule for a class of ops, not a record naming this op for",
     "una regla para una clase de ops, no un registro que nombre este op para"),
    ("on local evidence", "con evidencia local"), ("ingested on this machine, not shipped data",
                                                   "ingerida en esta máquina, no datos publicados"),
    ("no evidence for", "sin evidencia para"), ("_presumed:", "_presunto:"), ("_inferred:", "_inferido:"),
    ("the KB has no evidence for this op there", "el KB no tiene evidencia de este op ahí"),
    ("the KB has no evidence for that", "el KB no tiene evidencia de eso"),
    ("would settle it", "lo resolvería"), ("details below", "detalles abajo"),
    ("where the KB has evidence", "donde el KB tiene evidencia"),
    ("**It runs on", "**Se ejecuta en"), ("runs on", "se ejecuta en"), ("runs as", "se ejecuta como"), ("and its leaves run on the device",
                                                                  "y sus hojas se ejecutan en el dispositivo"),
    ("(no CPU fallback)", "(sin fallback a la CPU)"), ("though not as one kernel", "aunque no como un solo kernel"),
    ("part of it", "parte de él"), ("leaves on the device", "hojas en el dispositivo"),
    ("ops that run as", "ops que se ejecutan como"), ("by their own status", "por su propio estado"),
    ("decomposed ops that run as", "ops descompuestos que se ejecutan como"), ("at a leaf", "en una hoja"),
    ("shows both counts", "muestra ambos recuentos"),
    ("ops it has no evidence for are unknown, not counted", "los ops sin evidencia son desconocidos y no se cuentan"),
    ("For a model,", "Para un modelo,"), ("lists the ops it runs and which of them fall back",
                                         "lista los ops que ejecuta y cuáles hacen fallback"),
    ("more:", "más:"), ("more overloads of", "sobrecargas más de"), ("ask for one by name", "pide una por nombre"),
    ("End-of-support statements for", "Declaraciones de fin de soporte de"), ("soonest first", "la más próxima primero"),
    ("First end of support in this stack", "Primer fin de soporte en esta pila"), ("Stack ", "Pila "),
    ("active support until", "soporte activo hasta"), ("end of life", "fin de vida"), ("ends with Neuron", "termina con Neuron"),
    ("ends with release", "termina con la versión"), ("no end date stated", "sin fecha de fin declarada"),
    ("no date yet", "aún sin fecha"), ("shipped", "publicada"), ("announced", "anunciado"), ("projected", "proyectado"),
    ("out of support since", "sin soporte desde"), ("none of these has ended", "ninguna de estas ha terminado"),
    ("statements have ended", "declaraciones han terminado"), ("listed below", "listadas abajo"),
    ("the KB has no end-of-support statement for", "el KB no tiene ninguna declaración de fin de soporte de"),
    ("Soonest statements it does have:", "Las declaraciones más próximas que sí tiene:"),
    ("Related statements:", "Declaraciones relacionadas:"), ("own end of life", "fin de vida propio"),
    ("platform matrix", "matriz de plataformas"),
    ("Known limitations", "Limitaciones conocidas"), ("known issue", "problema conocido"),
    ("I could not tell which op, target or product you are asking about.",
     "No pude saber por qué op, destino o producto preguntas."),
    ("Try `help`, or name an op like", "Prueba `help`, o nombra un op como"), ("and a target like", "y un destino como"),
    ("I don't know an operator", "No conozco un operador"), ("not in the op catalog or any evidence",
                                                             "no está en el catálogo de ops ni en ninguna evidencia"),
    ("Did you mean", "¿Quisiste decir"), ("Status is", "El estado es"), ("Ask `help` for examples.",
                                                                          "Pregunta `help` para ver ejemplos."),
    ("The latest", "La última"), ("release in the KB is", "versión en el KB es"), ("released", "publicada el"),
    ("no release date in the KB", "sin fecha de publicación en el KB"), ("PyTorch packages in", "Paquetes de PyTorch en"),
    ("read as", "leído como"), ("ask about", "pregunta por"), ("the newest release that lists them",
                                                               "la versión más reciente que los lista"),
    ("as listed for", "según la lista de"), ("lists none", "no lista ninguno"), ("instances", "instancias"),
    ("ops have a different status between", "ops tienen un estado distinto entre"),
    ("a missing verdict counts as unknown", "un veredicto ausente cuenta como desconocido"),
    ("Known issues for", "Problemas conocidos de"), ("No known issue recorded for", "Ningún problema conocido registrado para"),
    ("Verdicts (field caveats do not change them)", "Veredictos (las advertencias de campo no los cambian)"),
    ("retrieved", "consultado"),
]
PHRASES += [("ops run as", "ops se ejecutan como"), ("by own status and by where the op runs",
                                                   "por su propio estado y por dónde se ejecuta el op"),
            ("I answer from the kb knowledge base (every answer cites its sources). Ask me:",
             "Respondo desde la base de conocimiento de kb (cada respuesta cita sus fuentes). Pregúntame:"),
            ("Targets:", "Destinos:"), ("Versions:", "Versiones:"),
            # s30b (#30): the help line between code spans, and kb check's verdict in gallery answers
            ("preguntas. Try ", "preguntas. Prueba "), (", or name an op like ", ", o nombra un op como "),
            (" and a target like ", " y un destino como "),
            ("runs on the device except", "se ejecuta en el dispositivo salvo"),
            ("runs on the device", "se ejecuta en el dispositivo"), ("on the host", "en el host"),
            ("of FLOPs", "de los FLOPs"), ("per step", "por paso"), ("no known blocker", "ningún bloqueo conocido"),
            ("fails at", "falla en"), ("no evidence for", "sin evidencia de"),
            ("under compile on", "bajo compile en"), ("suggested rewrite", "reescritura sugerida"),
            ("after them", "después de ellas"), ("fallback calls", "llamadas con fallback")]
EXACT_CHUNKS = {" or ": " o "}  # "`neuron` or `tpu`": a chunk between two code spans
# Longest first: a phrase inside a longer one ("no evidence for" in "ops it has no evidence for are
# unknown") is replaced only after the longer one had its turn.
PHRASES.sort(key=lambda pair: -len(pair[0]))
_PROTECTED = re.compile(r"`[^`\n]*`|https?://\S+|\[\d+\]")


def to_spanish(text: str) -> str:
    """kb's English sentences in Spanish; code spans, URLs and citations untouched."""
    parts = []
    last = 0
    for m in _PROTECTED.finditer(text):
        parts.append((False, text[last:m.start()]))
        parts.append((True, m.group()))
        last = m.end()
    parts.append((False, text[last:]))
    out = []
    for protected, chunk in parts:
        if not protected and chunk in EXACT_CHUNKS:
            chunk = EXACT_CHUNKS[chunk]
        elif not protected:
            for english, spanish in PHRASES:
                if english in chunk:
                    chunk = chunk.replace(english, spanish)
        out.append(chunk)
    return "".join(out)


def in_spanish(result: Answer) -> Answer:
    """The same answer, facts and sources, its text in Spanish (kb.chat.answer's language pass)."""
    if result.language != "es":
        result.text = to_spanish(result.text)
        result.language = "es"
    else:  # written in Spanish by its answer module: only the shared source list is kb's English
        body, sep, sources = result.text.partition("\n\n**Sources**")
        if sep:
            result.text = body + "\n\n**Fuentes**" + sources.replace(", retrieved ", ", consultado ")
    return result
