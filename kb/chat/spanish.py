"""Answers in Spanish for answers kb words in English (op, list, end-of-support, release,
limitation answers): the sentences kb itself writes are replaced phrase by phrase from a
fixed table; every fact — op names, statuses' symbols, versions, dates, counts, commands in
backticks — and every source stays exactly as it is. Text that comes from records (a vendor
page's title or note) is quoted as recorded, in its own language.

New answer kinds (cost, policy, feature support, a module's headline) write both languages
themselves; what they borrow from shared English code (kb.eol, kb.check, kb.gallery lines) still
passes the table. Record text an answer marks with kb.chat.reply.quoted is never translated and
shows as a quote (“…”). tests/chat/test_spanish_guard.py fails on any English clause left.
"""

from __future__ import annotations

import re

from kb.chat.reply import QUOTED, Answer, finish_quotes

# (English phrase kb writes, Spanish), longest first where one contains another. Applied
# outside `code spans` and URLs only.
PHRASES: list[tuple[str, str]] = [
    ("**Presumably yes**", "**Presumiblemente sí**"), ("**Presumably no**", "**Presumiblemente no**"),
    ("**Yes, but on the CPU**", "**Sí, pero en la CPU**"), ("**Yes, for now**", "**Sí, por ahora**"),
    ("**It depends**", "**Depende**"), ("on the version, mode or overload", "de la versión, el modo o la sobrecarga"), ("**Unknown**", "**Desconocido**"), ("**Yes**", "**Sí**"), ("**Yes, ", "**Sí, "),
    ("**Probably**", "**Probablemente**"), ("**Partly**", "**En parte**"), ("**They differ.**", "**Difieren.**"),
    ("**Same status on all of them.**", "**El mismo estado en todos.**"),
    ("**Not as its own kernel**", "**No como kernel propio**"), ("**Not stated for Neuron", "**No declarado para Neuron"),
    ("**Nothing the KB knows of**", "**Nada que el KB sepa**"), ("**Sources**", "**Fuentes**"),
    ("? **unknown**", "? **desconocido**"), ("**already ended**", "**ya terminó**"), ("(already ended)", "(ya terminó)"),
    ("its own kernel on", "kernel propio en"), ("(own kernel)", "(kernel propio)"), ("it falls back", "hace fallback"),
    ("it works, with copies to the host and back", "funciona, con copias al host y de vuelta"),
    ("carried from the pre-release snapshot", "heredado del snapshot previo al lanzamiento"),
    ("carried from an older version", "heredado de una versión anterior"),
    ("a dispatcher replay of a kernel list, not an observation of",
     "una reproducción del dispatcher sobre una lista de kernels, no una observación de"),
    ("dispatcher replay of a kernel list", "reproducción del dispatcher sobre una lista de kernels"),
    (" rests on evidence)", " se apoya en evidencia)"),
    ("by the vendor's doc rule", "por la regla documental del proveedor"),
    ("a rule for a class of ops, not a record naming this op for",
     "una regla para una clase de ops, no un registro que nombre este op para"),
    ("on local evidence", "con evidencia local"), ("ingested on this machine, not shipped data",
                                                   "ingerida en esta máquina, no datos publicados"),
    ("no evidence for", "sin evidencia para"), ("_presumed:", "_presunto:"), ("_inferred:", "_inferido:"),
    ("the KB has no evidence for this op there", "el KB no tiene evidencia de este op ahí"),
    ("the KB has no evidence for its ops there", "el KB no tiene evidencia de sus ops ahí"),
    ("(on a machine with a CUDA build of torch)", "(en una máquina con un torch compilado para CUDA)"),
    ("the KB has no evidence for that", "el KB no tiene evidencia de eso"),
    ("would settle it", "lo resolvería"), ("details below", "detalles abajo"),
    ("for every overload and version shown", "en cada sobrecarga y versión mostrada"),
    ("**Already ended", "**Ya terminó"), ("**Presumably already ended", "**Presumiblemente ya terminó"), ("No end date stated; the earliest date in this answer:",
                                           "Sin fecha de fin declarada; la primera fecha de la respuesta:"),
    ("No end date stated", "Sin fecha de fin declarada"), ("presumably supported now", "presumiblemente soportado hoy"),
    ("probably supported now", "probablemente soportado hoy"), ("in maintenance mode now", "en modo de mantenimiento hoy"),
    ("presumably not supported now", "presumiblemente no soportado hoy"), ("not supported now", "no soportado hoy"),
    ("supported for now", "soportado por ahora"), ("supported now", "soportado hoy"), ("partly ended", "terminado en parte"),
    ("where the KB has evidence", "donde el KB tiene evidencia"),
    ("**It runs on", "**Se ejecuta en"), ("runs on", "se ejecuta en"), ("runs as", "se ejecuta como"), ("and its leaves run on the device",
                                                                  "y sus hojas se ejecutan en el dispositivo"),
    ("(no CPU fallback)", "(sin fallback a la CPU)"), ("though not as one kernel", "aunque no como un solo kernel"),
    ("part of it", "parte de él"), ("leaves on the device", "hojas en el dispositivo"),
    (": ops that run as ", ": ops que se ejecutan como "), (" fewer on ", " menos en "), (" more on ", " más en "),
    ("The family's public ops run on the device there: ", "Los ops públicos de la familia sí se ejecutan en el dispositivo ahí: "),
    ("Under torch.compile a further ", "Con torch.compile, además, "),
    ("ops are **unsupported** there (the graph fails to compile)", "ops son **unsupported** ahí (el grafo no compila)"),
    ("ops that run as", "ops que se ejecutan como"), ("by their own status", "por su propio estado"),
    ("decomposed ops that run as", "ops descompuestos que se ejecutan como"), ("at a leaf", "en una hoja"),
    ("shows both counts", "muestra ambos recuentos"),
    ("ops it has no evidence for are unknown, not counted", "los ops sin evidencia son desconocidos y no se cuentan"),
    ("For a model,", "Para un modelo,"), ("lists the ops it runs and which of them fall back",
                                         "lista los ops que ejecuta y cuáles hacen fallback"),
    ("more:", "más:"), ("more overloads of", "sobrecargas más de"), ("ask for one by name", "pide una por nombre"),
    ("release date not stated", "sin fecha de publicación declarada"),
    ("_Left out, as they state support, not a limitation: ", "_Fuera de la lista, pues declaran soporte y no una limitación: "),
    ("no end of support stated", "sin fin de soporte declarado"), ("; released ", "; publicada el "),
    ("End-of-support statements for", "Declaraciones de fin de soporte de"), ("soonest first", "la más próxima primero"),
    ("First end of support in this stack", "Primer fin de soporte en esta pila"), (" Sooner, if you use Neuron's machine images: ", " Antes, si usas las imágenes de máquina de Neuron: "), ("Stack ", "Pila "),
    ("active support until", "soporte activo hasta"), ("end of life", "fin de vida"), ("ends with Neuron", "termina con Neuron"),
    ("ends with release", "termina con la versión"), ("no end date stated", "sin fecha de fin declarada"),
    ("no date yet", "aún sin fecha"), (" shipped it;", " la incluía;"), (" names PyTorch ", " nombra PyTorch "),
    ("⚠ not stated:", "⚠ sin declarar:"), ("shipped", "publicada"), ("announced", "anunciado"), ("projected", "proyectado"),
    ("out of support since", "sin soporte desde"), ("none of these has ended", "ninguna de estas ha terminado"),
    ("statements have ended", "declaraciones han terminado"), ("listed below", "listadas abajo"),
    ("the KB has no end-of-support statement for", "el KB no tiene ninguna declaración de fin de soporte de"),
    ("Soonest statements it does have:", "Las declaraciones más próximas que sí tiene:"),
    ("Related statements:", "Declaraciones relacionadas:"), ("own end of life", "fin de vida propio"), ("end of life: none stated", "end of life: ninguno declarado"),
    ("platform matrix", "matriz de plataformas"),
    ("Known limitations", "Limitaciones conocidas"), ("known issue", "problema conocido"),
    ("I could not tell which op, target or product you are asking about.",
     "No pude saber por qué op, destino o producto preguntas."),
    ("Try `help`, or name an op like", "Prueba `help`, o nombra un op como"), ("and a target like", "y un destino como"),
    ("I don't know an operator", "No conozco un operador"), ("not in the op catalog or any evidence",
                                                             "no está en el catálogo de ops ni en ninguna evidencia"),
    ("Did you mean", "¿Quisiste decir"), ("Status is", "El estado es"), ("Ask `help` for examples.",
                                                                          "Pregunta `help` para ver ejemplos."),
    ("with op verdicts in the KB:", "con veredictos de ops en el KB:"), ("Versions of ", "Versiones de "),
    ("The latest", "La última"), ("release in the KB is", "versión en el KB es"), ("released", "publicada el"),
    ("no release date in the KB", "sin fecha de publicación en el KB"), ("PyTorch packages in", "Paquetes de PyTorch en"),
    ("read as", "leído como"), ("ask about", "pregunta por"), ("the newest release that lists them",
                                                               "la versión más reciente que los lista"),
    ("as listed for", "según la lista de"), ("lists none", "no lista ninguno"), ("Trainium3 instances only", "solo instancias Trainium3"), ("instances", "instancias"),
    ("ops have a different status between", "ops tienen un estado distinto entre"),
    ("a missing verdict counts as unknown", "un veredicto ausente cuenta como desconocido"),
    ("Known issues for", "Problemas conocidos de"), ("No known issue recorded for", "Ningún problema conocido registrado para"),
    ("No caveat recorded beyond the verdict for", "Ninguna salvedad registrada más allá del veredicto para"),
    ("no public measurement in the KB; that is not a clean bill of health",
     "ninguna medición pública en el KB; eso no es un certificado de buena salud"),
    ("Verdicts (field caveats do not change them)", "Veredictos (las advertencias de campo no los cambian)"),
    ("retrieved", "consultado"),
]
PHRASES += [("ops run as", "ops se ejecutan como"), ("by own status and by where the op runs",
                                                   "por su propio estado y por dónde se ejecuta el op"),
            ("I answer from the kb knowledge base (every answer cites its sources). Ask me:",
             "Respondo desde la base de conocimiento de kb (cada respuesta cita sus fuentes). Pregúntame:"),
            ("Targets:", "Destinos:"), ("Versions:", "Versiones:")]
# Tester t29 (#2): the module, diff, release and end-of-support bodies, and the short links
# between code spans, so a Spanish answer carries no English sentence of kb's own.
PHRASES += [
    ("**It depends, inferred**", "**Depende, inferido**"), ("**Yes, but partly on the CPU**", "**Sí, pero en parte en la CPU**"),
    ("**Not known**", "**No se sabe**"), ("though not all as own kernels", "aunque no todos como kernels propios"),
    ("**It runs on", "**Se ejecuta en"), ("the others decomposed into ops on the device",
                                          "los demás descompuestos en ops del dispositivo"),
    ("is a module whose forward dispatches no ATen ops in eval mode",
     "es un módulo cuyo forward no despacha ops ATen en modo eval"), ("its training step does.", "su paso de entrenamiento sí."),
    ("is a module: its forward dispatches", "es un módulo: su forward despacha"),
    ("dispatches to these ATen ops", "despacha a estos ops ATen"), ("traced once:", "trazado una vez:"),
    ("(traced, ", "(trazado, "), ("eval mode", "modo eval"), ("one ATen op", "un op ATen"), ("ATen ops", "ops ATen"),
    ("nothing to run in modo eval", "nada que ejecutar en modo eval"),
    ("training step (train-mode forward + backward)", "paso de entrenamiento (forward en modo train + backward)"),
    ("training-step ops", "ops del paso de entrenamiento"), ("where the leaves of", "dónde se ejecutan las hojas de"),
    ("run is not traced", "no está trazado"), ("falls back to the CPU", "hace fallback a la CPU"),
    ("fall back to the CPU", "hacen fallback a la CPU"), ("are unsupported", "no están soportados"),
    ("is unsupported", "no está soportado"), ("none of its", "ninguno de sus"), ("its one op,", "su único op,"),
    ("its one op has", "su único op tiene"), ("ops run on the device", "ops se ejecutan en el dispositivo"),
    ("on the device", "en el dispositivo"), ("the device", "el dispositivo"), ("(no evidence)", "(sin evidencia)"),
    ("(presumed: ", "(presunto: "), ("presumed from", "presunto desde"), ("(inferred: ", "(inferido: "),
    ("read as the op; it also names the", "leído como el op; también nombra la familia"),
    (" family: ask", ": pregunta"), ("for all of them", "para todas"), ("PyTorch decomposes", "PyTorch descompone"),
    ("on a backend that registers no kernel", "en un backend que no registra kernel"),
    ("kernels gained", "kernels ganados"), ("** lost,", "** perdidos,"),
    ("other changes of where an op runs", "otros cambios de dónde se ejecuta un op"),
    ("Gained a kernel:", "Ganó un kernel:"), ("Lost a kernel:", "Perdió un kernel:"),
    ("Runs elsewhere now:", "Ahora se ejecuta en otro sitio:"), ("verdicts for", "veredictos de"),
    ("are presumed from", "son presuntos desde"), ("(a pre-release snapshot)", "(un snapshot previo al lanzamiento)"),
    ("no evidence of its own for", "sin evidencia propia para"), ("(month only)", "(solo el mes)"),
    ("so they have ended", "así que ya terminaron"), ("(it shipped on", "(publicada el"), ("(it publicada on", "(publicada el"),
    ("(an op named as code)", "(un op nombrado como código)"), ("cpu fallback with warning", "fallback a la CPU con aviso"),
    ("the Neuron SDK release", "la versión del Neuron SDK"), ("for TorchNeuron", "para TorchNeuron"),
    ("Try ", "Prueba "), (", or name an op like", ", o nombra un op como"), ("the newest is", "la más reciente es"),
    ("more ops", "ops más"), ("**No** on", "**No** en"), ("** on ", "** en "), (") on ", ") en "),
    (", runs ", ", se ejecuta "), (", inferred**", ", inferido**"), (", presumably**", ", presumiblemente**"),
    (" falls back", " hace fallback"), (" fall back", " hacen fallback"), ("with leaves not traced", "con hojas no trazadas"),
    ("leaves not traced", "hojas no trazadas"), ("**It depends, presumably**", "**Depende, presumiblemente**"),
    ("(no word on this op for", "(nada sobre este op para"), (", presumed:", ", presunto:"), (", inferred:", ", inferido:"),
    ("states no matrix of its own as of", "no declara matriz propia a fecha de"), ("'s fin de vida propio:", ": fin de vida propio:"), (" is Neuron ", " es Neuron "),
    ("'s packages support Python", ": sus paquetes soportan Python"),
    ("'s packages support PyTorch", ": sus paquetes soportan PyTorch"),
    ("the newest Neuron matriz de plataformas in the KB that names", "la matriz de plataformas de Neuron más reciente del KB que nombra"),
    ("the newest Neuron platform matrix in the KB that names", "la matriz de plataformas de Neuron más reciente del KB que nombra"),
    ("'s, and it says", ", y dice"), ("no source dates the end of support of", "ninguna fuente fecha el fin de soporte de"),
    ("(not verified)", "(no verificado)"), ("the KB has no matriz de plataformas row for", "el KB no tiene fila de la matriz de plataformas para"),
    ("the newest one that names it,", "la más reciente que lo nombra,"), ("says:", "dice:"),
    ("no Neuron matriz de plataformas in the KB names", "ninguna matriz de plataformas de Neuron del KB nombra"),
    ("end of support", "fin de soporte"), (" supports Python ", " soporta Python "), (" supports PyTorch ", " soporta PyTorch "), (", not ", ", no "),
    ("as listed by the packages of Neuron SDK", "según los paquetes del Neuron SDK"),
    ("Instances: **", "Instancias: **"), (" — not among them, so not supported by this release.",
                                          " — no está entre ellas, así que esta versión no la soporta."),
    (" read as the Neuron SDK release that ships it", " leído como la versión del Neuron SDK que lo incluye"),
    (" has no version ", " no tiene ninguna versión "), (" of its own; ", " propia; "),
    (" is outside that range)", " queda fuera de ese rango)"), (" is inside that range)", " está dentro de ese rango)"),
    (" requires Python ", " requiere Python "), (" requires PyTorch ", " requiere PyTorch "),  # s8c-intent3
    ("PyTorch packages in it:", "Paquetes de PyTorch que incluye:"),
    ("PyTorch packages and compiler in it:", "Paquetes de PyTorch y compilador que incluye:"), ("What ends with Neuron", "Lo que termina con Neuron"),
    ("nothing the KB knows of", "nada que el KB sepa"), ("TorchNeuron's op verdicts", "Veredictos de ops de TorchNeuron"),
    ("lists them", "los lista"), ("— released", "— publicada el"), ("on a date the KB lacks", "en una fecha que el KB no tiene"),
    ("; the newest is", "; la más reciente es"),
    ("is not in the traced function map; matched by name to",
     "no está en el mapa de funciones trazado; emparejado por nombre con"),
    ("is not in the op catalog;", "no está en el catálogo de ops;"),
    ("another source gives package versions:", "otra fuente da estas versiones de paquetes:"),
    ("another source gives instances:", "otra fuente da estas instancias:"),
    ("another source gives", "otra fuente da"), (" more)", " más)"), ("(and ", "(y "),
    (" ships in Neuron SDK ", " viene en Neuron SDK "), ("PyTorch packages and compiler in", "Paquetes de PyTorch y compilador en"),
    ("the backward of ", "el backward de "),
    ("the release registry has no", "el registro de versiones no tiene"), ("newest first", "la más reciente primero"),
    ("refreshes the registry from the release notes and support matrices",
     "actualiza el registro desde las notas de versión y las matrices de soporte"),
    ("The **", "La familia **"), ("** family:", "**:"), ("overloads in the op catalog", "sobrecargas en el catálogo de ops"),
    ("where each op runs", "dónde se ejecuta cada op"), ("Python versions", "versiones de Python"), ("What ended", "Lo que terminó"),
    ("What's new", "Novedades"), ("released on", "publicada el"), ("knows no", "no conoce ninguna"),
]
# (English, Spanish) patterns for what a fixed phrase cannot catch: counts and dates.
PATTERNS = [(re.compile(r"; (\d+(?:\.\d+)*)'s is presumed:"), r"; se presume la de \1:"),(re.compile(r"\b(\d[\d,]*) of its (\d[\d,]*)\b"), r"\1 de sus \2"),
            (re.compile(r"\b(\d[\d,]*) of (\d[\d,]*)\b"), r"\1 de \2"),
            (re.compile(r"\bends (\d+) things?\b"), r"termina \1 cosas"),
            (re.compile(r"\b([A-Z][\w-]*(?: [A-Z][\w-]*)? \d+(?:\.\d+)*)'s fin de vida propio"), r"fin de vida propio de \1"),
            (re.compile(r" on (\d{4}-\d{2}(?:-\d{2})?)\b"), r" el \1"),
            (re.compile(r"\bpublicada (\d+(?:\.\d+)+) el\b"), r"publicada la \1 el"),
            # kb check's "except 2 unsupported ops" (s8-gallery)
            (re.compile(r"\b(\d+) unsupported ops\b"), r"\1 ops no soportadas"),
            (re.compile(r"\b1 unsupported op\b"), "1 op no soportada"),
            (re.compile(r"\b(\d+) unknown ops\b"), r"\1 ops sin evidencia"),
            (re.compile(r"\b1 unknown op\b"), "1 op sin evidencia"),
            (re.compile(r"\b(\d+) (crash|timeout) ops?\b"), r"\1 ops con \2")]
# A link word alone between two code spans ("`neuron` or `tpu`").
LINKS = {" or ": " o ", " and ": " y ", " or the ": " o el ", ", or ": ", o "}
# s30b (#30): the help line between code spans, and kb check's verdict in gallery answers; put first, so
# that they match before the shorter phrases above ("on the device") take their words.
PHRASES[:0] = [
    ("preguntas. Try ", "preguntas. Prueba "), (", or name an op like ", ", o nombra un op como "),
    (" and a target like ", " y un destino como "),
    ("runs on the device except", "se ejecuta en el dispositivo salvo"),
    ("runs on the device", "se ejecuta en el dispositivo"), ("on the host", "en el host"),
    ("of FLOPs", "de los FLOPs"), ("per step", "por paso"), ("no known blocker", "ningún bloqueo conocido"),
    ("fails at", "falla en"), ("no evidence for", "sin evidencia de"),
    ("under compile on", "bajo compile en"), ("suggested rewrite", "reescritura sugerida"),
    ("after them", "después de ellas"), ("fallback calls", "llamadas con fallback"),
    ("neuron and tpu", "neuron y tpu"), ("tpu and neuron", "tpu y neuron"),  # one headline over two targets (r3 #14)
    (" presumed, ", " presunto, "), (" presumed)", " presunto)"), (" evidence, ", " evidencia, "),
    (" evidence)", " evidencia)"), (" inferred, ", " inferido, "), (" inferred)", " inferido)"),
    # an empty list's basis and why it is empty (r3 #5/#7)
    (" (from ", " (según "), (", the verdicts for ", ", los veredictos de "), ("_Why none: ", "_Por qué ninguno: "),
    ("'s eager policy for an op without a kernel is ", ": su política en modo eager para un op sin kernel es "),
    (": the CPU fallback is a switch, off unless enabled, so such an op raises instead",
     ": el fallback a la CPU es un interruptor, apagado salvo que se active, así que un op así lanza un error"),
    (" ops are unsupported on ", " ops no están soportados en "),
    # "o cae a cpu?" answered as asked (r3 #3)
    ("**No fallback: native**", "**No cae a la CPU: nativo**"), ("**No fallback**", "**No cae a la CPU**"),
    ("does not fall back", "no cae a la CPU"),
]
# ---- 29f (#29): kb's own clauses that still reached Spanish answers (module tallies, gallery verdicts,
# FLOPs shares, platform rows, eol states), found by tests/chat/test_spanish_guard.py.
PHRASES += [
    ("⚠ ended", "⚠ terminado"), ("✘ ended", "✘ terminado"), ("fallback at aten::", "fallback en aten::"),
    ("kernel of its own", "kernel propio"), ("registers no kernel propio", "no registra kernel propio"),
    ("it then runs wherever the ops it decomposes into run.",
     "se ejecuta entonces allí donde se ejecuten los ops en que se descompone."),
    ("so there it runs as one kernel; a backend without one runs the ops it decomposes into.",
     "así que ahí se ejecuta como un solo kernel; un backend sin él ejecuta los ops en que se descompone."),
    ("PyTorch has a decomposition for", "PyTorch tiene una descomposición para"), ("registers a", "registra un"),
    ("of FLOPs counted", "de los FLOPs contados"),
    ("a compile-mode probe on the device, or one compile run, would settle it",
     "una prueba en modo compile en el dispositivo, o una sola compilación, lo resolvería"),
    ("no known blocker", "ningún bloqueo conocido"), ("suggested rewrites", "reescrituras sugeridas"),
    ("its implementation is not in the archive; check the factory route",
     "su implementación no está en el archivo; prueba la ruta de la factoría"),
    (") to trace through it", ") para trazar a través de él"), ("custom op (", "op propio ("),
    ("but argument shapes are unknown: pass an ExportedProgram or a factory",
     "pero no se conocen las formas de los argumentos: pasa un ExportedProgram o una factoría"),
    ("the KB has no platform matrix row for", "el KB no tiene fila de la matriz de plataformas para"),
    ("not stated for Neuron", "no declarado para Neuron"), ("the newest one that names it,", "la más reciente que lo nombra,"),
    ("the registry lists no", "el registro no lista versiones de"), (" versions for this release: unknown whether ",
                                                                     " para esta versión: no se sabe si "),
    (" is supported (", " está soportado ("), ("reads the support matrices", "lee las matrices de soporte"),
    ("and filter by name", "y filtra por nombre"), ("maintenance mode stated, no date", "modo de mantenimiento declarado, sin fecha"),
    ("maintenance mode stated", "modo de mantenimiento declarado"), ("in maintenance mode", "en modo de mantenimiento"),
    ("gallery models run fully on the device", "modelos de la galería se ejecutan enteros en el dispositivo"),
    ("with leaves not traced", "con hojas no trazadas"), ("ops run on the device", "ops se ejecutan en el dispositivo"),
    ("op runs on the device", "op se ejecuta en el dispositivo"), ("ops of the training step", "ops del paso de entrenamiento"),
    ("not supported now", "no soportado hoy"), ("latest ", "última versión de "), ("(a list of ", "(una lista de "),
    (" unsupported ops)", " ops unsupported)"), (" fallback ops)", " ops fallback)"),
    ("ends with Neuron", "termina con Neuron"), ("(shipped ", "(publicada la "), ("ends in Neuron", "termina en Neuron"),
    ("says:", "dice:"), ("the others", "los demás"),
    ("no evidence for this op on this target", "sin evidencia para este op en este destino"),
    ("PyTorch decomposes it", "PyTorch lo descompone"), (", and part of it runs as", ", y parte de él se ejecuta como"),
    ("decomposes (", "se descompone ("), (" below ", " menor que "),
    ("native backend, device neuron", "backend nativo, dispositivo neuron"),
    ("no end stated by its maintainers", "sus mantenedores no declaran fin"), ("no end stated", "sin fin declarado"),
    # s29g's stack note (merged beside this slice): the SDK release added to a stack the question left open
    (": the newest release, as the question names none)", ": la versión más reciente, ya que la pregunta no nombra ninguna)"),
    ("no op of that family is", "ningún op de esa familia es"), ("where the KB has verdicts", "donde el KB tiene veredictos"),
    ("**Yes, some** — see the", "**Sí, algunos** — mira los"), (" ops listed below", " ops listados abajo"),
    ("have their own kernel", "tienen kernel propio"), ("are unsupported (raise)", "no están soportados (error)"),
    ("decompose into ops that run on the device", "se descomponen en ops que se ejecutan en el dispositivo"),
    (" in the KB.", " en el KB."), ("no evidence of its own for those ops", "sin evidencia propia para esos ops"),
    ("sin evidencia propia para those ops", "sin evidencia propia para esos ops"), (" as of ", " a fecha de "),
]
# A family's "No X op <verb>" line, its verb (kb.chat.answer_family._said, already in Spanish) in the singular.
_SINGULAR = {"tienen kernel propio": "tiene kernel propio", "hacen fallback a la CPU": "hace fallback a la CPU",
             "no están soportados (error)": "está sin soporte (error)",
             "se descomponen en ops que se ejecutan en el dispositivo": "se descompone en ops que se ejecutan en el dispositivo"}
PATTERNS += [(re.compile(r"\(all (\d[\d,]*) ops\)"), r"(los \1 ops)"),
             (re.compile(r"\ball (\d[\d,]*) of its ops\b"), r"sus \1 ops"),
             (re.compile(r"\bentre (\S+) and (\S+)"), r"entre \1 y \2"),
             (re.compile(r"\bFLOPs of (\d+) (ops?) not counted"), r"FLOPs de \1 \2 sin contar"),
             (re.compile(r"\bLa última (\S+) versión en el KB es"), r"La última versión de \1 en el KB es"),
             # s13 (r27 q48): "Neuron 2.33.0's matriz de plataformas lists Ubuntu 24.04 as supported"
             (re.compile(r"\bNeuron (\S+)'s (?:platform matrix|matriz de plataformas) lists (.+?) as ([\w ()-]+?)(?=[;.]|$)", re.M),
              lambda m: f"la matriz de plataformas de Neuron {m.group(1)} da {m.group(2)} como "
                        f"{ {'supported': 'soportado', 'not supported': 'no soportado'}.get(m.group(3), m.group(3))}"),
             (re.compile(r"(\*\*Ubuntu [\d.]+\*\*): supported\b"), r"\1: soportado"),
             (re.compile(r"^- Ubuntu in Neuron (\S+)'s (?:platform matrix|matriz de plataformas):", re.M),
              r"- Ubuntu en la matriz de plataformas de Neuron \1:"),
             (re.compile(r"\((\w+) in torch ([\d.]+)'s op catalog\)"), r"(\1 en el catálogo de ops de torch \2)"),
             (re.compile(r"\+(\d+) more\b"), r"+\1 más"),
             (re.compile(r"(?<!\d)(\d[\d,]*) of (\d[\d,]*)\b"), r"\1 de \2"),  # "_6128 of 6254" (no \b after _)
             (re.compile(r"^No ([\w-]+) op (" + "|".join(re.escape(k) for k in _SINGULAR) + ")", re.M),
              lambda m: f"Ningún op {m.group(1)} {_SINGULAR[m.group(2)]}"),  # "No upsampling op have…" (family)
             (re.compile(r" on (neuron|tpu|xla)\b"), r" en \1"),  # after the phrases: "runs on" had its turn
             # Spanish digit groups: "1.127 de 3.136", "1.128 ops" (a decimal "1,34" has two digits, no group)
             (re.compile(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+)(?![\d]|[.,]\d)"), lambda m: m.group(1).replace(",", ".")),
             (re.compile(r"(\S) is (native|decomposed|fallback|unsupported|unknown)\b"), r"\1 es \2"),
             (re.compile(r"\bNeuron (\d[\d.]*)'s, "), r"la de Neuron \1, "),
             (re.compile(r" in Neuron (\d[\d.]*); "), r" en Neuron \1; "),
             (re.compile(r"\b(\d[\d.]*) on (\d{4}-\d{2}-\d{2})\b"), r"\1 el \2")]
# Longest first: a phrase inside a longer one ("no evidence for" in "ops it has no evidence for are
# unknown") is replaced only after the longer one had its turn.
PHRASES += [("**Presumably yes, but on the CPU**", "**Presumiblemente sí, pero en la CPU**"),  # 29j
            ("unsupported (raises)", "unsupported (lanza un error)"), ("; carried from ", "; heredado de "),
            ("the training graph, kb gallery --graph training", "el grafo de entrenamiento, kb gallery --graph training"),
            (" supports instance family ", " soporta las familias de instancias "),
            ("— not supported (", "— no soportado ("),
            (" The KB knows ", " El KB conoce "), ("no verdicts.", "sin veredictos."),
            ("(catalog ops it says nothing about, not counted as unsupported)",
             "(ops del catálogo sobre los que no dice nada; no se cuentan como unsupported)"), ("_Presumed: ", "_Presuntos: "),
            (" verdicts listed are carried over from ", " veredictos de la lista vienen de "),
            (", with no evidence of their own for ", ", sin evidencia propia para "), (" ops for that version; ", " ops de esa versión; "),  # 29j
            (" catalog ops have no evidence.", " ops del catálogo no tienen evidencia.")]
# ---- 29k: a list's filter and denominator; a family read from an op's name
PHRASES += [("_Filtered to ops whose name contains", "_Filtrado a los ops cuyo nombre contiene"),
            ("_Filtered to family:", "_Filtrado a la familia:"), ("(read from '", "(leído de '"),
            (" matching ops with evidence)", " ops del filtro con evidencia)"), (" ops with evidence)", " ops con evidencia)"),
            (" is read as the ", " se lee como la familia "), (" family; for the single op ask ", "; para el op solo, pregunta ")]
# ---- 29k: the headline of a question that offers choices ("native or does it fall back?")
PHRASES += [("**Native", "**Nativo"), ("**Runs on the device, decomposed", "**Se ejecuta en el dispositivo, descompuesto"),
            ("not as one kernel; its leaves run on", "no como un solo kernel; sus hojas se ejecutan en"),
            ("**Decomposed", "**Descompuesto"), ("where its leaves run is not traced", "no está trazado dónde se ejecutan sus hojas"),
            ("**Partly falls back", "**Cae en parte a la CPU"), ("**Falls back", "**Hace fallback"),
            ("it runs on the CPU", "se ejecuta en la CPU"), ("**Unsupported", "**Sin soporte"),
            ("neither native nor a CPU fallback: it raises", "ni nativo ni fallback a la CPU: lanza un error"),
            (", and part of it raises", ", y parte de él lanza un error"),
            ("for every overload shown, in whole or in part", "en cada sobrecarga mostrada, del todo o en parte"),
            ("for every overload shown (own kernel or decomposed; no CPU fallback)",
             "en cada sobrecarga mostrada (kernel propio o descompuesto; sin fallback a la CPU)"),
            ("**Runs on the device", "**Se ejecuta en el dispositivo"), ("for every overload shown", "en cada sobrecarga mostrada")]
PATTERNS += [(re.compile(r"(→ \S+ [a-z]+) at (aten::)"), r"\1 en \2"),  # a family list's "→ ✘ unsupported at aten::x"
             (re.compile(r"\), but (\S+) registra"), r"), pero \1 registra")]  # the implicit-decomposition line
PHRASES += [("No conflict found in the support matrices of", "Ningún conflicto en las matrices de soporte de"),  # 29l
            ("Statements it has about other cycles of", "Declaraciones que tiene sobre otros ciclos de"),
            (", instance:", ", instancia:"), (", instance trn", ", instancia trn"), (", instance inf", ", instancia inf")]
PHRASES += [("is not a torch function; read as", "no es una función de torch; leído como"),  # 29n
            (", which dispatches to these ATen ops", ", que despacha a estos ops ATen"),
            ("of 1 op run on the device", "de 1 op se ejecuta en el dispositivo"),
            ("**unsupported at ", "**unsupported en "),
            ("_Other overloads, below, differ:", "_Otras sobrecargas, abajo, difieren:")]
PHRASES.sort(key=lambda pair: -len(pair[0]))
_PROTECTED = re.compile(QUOTED.pattern + r"|`[^`\n]*`|https?://\S+|\[\d+\]")  # record text marked by reply.quoted


# Fact and source keys whose strings are quoted from records (kb's own messages are translated).
# kb's own lines that travel in facts under those keys: a module's tally, an upstream window's title.
_GENERATED = re.compile(r"^[\w-]+ [\d.]+: \d+ of \d+ ops?\b|: own end of life \d{4}|: no end stated$|^presumed from \S+ \([^)]*\)$")
_CARRIED = re.compile(r"^presumed from \S+ \(no word on this op for [^)]*\); ")
_RECORD_KEYS = frozenset("title note notes summary quote statement name source_name".split())


def _recorded(result: Answer) -> list[str]:
    """Text the answer quotes from records (titles, notes: strings of several words in its facts
    and sources), as recorded and as kb.neutral.markdown escapes it: kept in English as
    recorded, never half translated by the phrases above (r2-29 #2)."""
    from kb import neutral

    found: set[str] = set()

    def walk(value: object, key: str = "") -> None:
        if isinstance(value, str):
            if key in _RECORD_KEYS and value.count(" ") >= 2 and len(value) <= 2000 and not _GENERATED.search(value):
                value = _CARRIED.sub("", value)  # "presumed from X (no word on this op for Y); ": kb's own words
                found.update((value, neutral.markdown(value)))
        elif isinstance(value, dict):
            for name, item in value.items():
                walk(item, name if isinstance(item, str) else key)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, key)

    walk(result.facts)
    walk([s for s in (result.sources or []) if isinstance(s, dict)])
    return sorted((t for t in found if len(t) >= 12), key=len, reverse=True)


def to_spanish(text: str, recorded: list[str] | None = None) -> str:
    """kb's English sentences in Spanish; code spans, URLs, citations and the `recorded` texts
    quoted from records untouched."""
    parts = []
    last = 0
    protected = _PROTECTED
    if recorded:
        protected = re.compile("|".join([*(re.escape(t) for t in recorded[:200]), _PROTECTED.pattern]))
    quoted = set(recorded or [])
    for m in protected.finditer(text):
        parts.append((False, text[last:m.start()]))
        chunk = m.group()
        if chunk in quoted and not text[:m.start()].endswith(("“", '"')):
            chunk = f"“{chunk}”"  # record text stays as recorded, marked as a quote (#29)
        parts.append((True, chunk))
        last = m.end()
    parts.append((False, text[last:]))
    out = []
    for protected, chunk in parts:
        if not protected and chunk in LINKS:
            chunk = LINKS[chunk]
        elif not protected:
            for english, spanish in PHRASES:
                if english in chunk:
                    chunk = chunk.replace(english, spanish)
            for pattern, spanish in PATTERNS:
                chunk = pattern.sub(spanish, chunk)
        out.append(chunk)
    return "".join(out)


def in_spanish(result: Answer) -> Answer:
    """The same answer, facts and sources, its text in Spanish (kb.chat.answer's language pass)."""
    if result.language != "es":
        result.text = to_spanish(result.text, _recorded(result))
        result.language = "es"
    else:  # written in Spanish by its answer module; clauses it borrows from shared English code still pass
        body, sep, sources = result.text.partition("\n\n**Sources**")  # the glossary (29f), the sources' words too
        body = to_spanish(body, _recorded(result))
        result.text = body + ("\n\n**Fuentes**" + sources.replace(", retrieved ", ", consultado ") if sep else "")
    result.text = finish_quotes(result.text, "es")
    return result


# ---- 29s: a status label inside a running Spanish sentence is said in Spanish ("1 de 1 op nativo", "68 ops no están
# soportados", "parte de él recurre a la CPU"); a label shown as a label (after its symbol, in bold, in code, in
# a table cell) stays kb's vocabulary. Applied last, over what the phrases and patterns above left.
_ONE = {"native": "nativo", "decomposed": "descompuesto", "unsupported": "no soportado", "unknown": "desconocido",
        "fallback": "que recurre a la CPU"}
_MANY = {"native": "nativos", "decomposed": "descompuestos", "unsupported": "no soportados", "unknown": "desconocidos",
         "fallback": "que recurren a la CPU"}
_RUNS_AS = {("native", False): "se ejecuta como nativo", ("native", True): "se ejecutan como nativos",
            ("decomposed", False): "se ejecuta descompuesto", ("decomposed", True): "se ejecutan descompuestos",
            ("fallback", False): "recurre a la CPU", ("fallback", True): "recurren a la CPU",
            ("unsupported", False): "no está soportado", ("unsupported", True): "no están soportados"}
_LABEL = r"(native|decomposed|fallback|unsupported|unknown)"
_NOT_LABEL = r"(?![\w*])"  # not "**native**", not "native_x"
_WORD_END = r"(?!\w)"  # "**… 1 de 1 op native**": the whole phrase in bold is a sentence still
_COUNT = r"(\d+(?:[.,]\d{3})*)"


def _counted(number: str, label: str) -> str:
    many = number.replace(".", "").replace(",", "") != "1"
    return f"{number} {(_MANY if many else _ONE)[label]}"


PATTERNS += [
    (re.compile(r"\bse (ejecutan?) como " + r"(native|decomposed|fallback|unsupported)" + _WORD_END),
     lambda m: _RUNS_AS[(m.group(2), m.group(1) == "ejecutan")]),
    (re.compile(r"\b(ops?) " + _LABEL + _WORD_END),  # "1 de 1 op native", "(una lista de 5 ops unsupported)"
     lambda m: f"{m.group(1)} {(_MANY if m.group(1) == 'ops' else _ONE)[m.group(2)]}"),
    (re.compile(r"(?<=[(,;] )" + _COUNT + " " + _LABEL + _NOT_LABEL), lambda m: _counted(m.group(1), m.group(2))),
    (re.compile(r"(?<=\()" + _COUNT + " " + _LABEL + _NOT_LABEL), lambda m: _counted(m.group(1), m.group(2))),
    (re.compile(r"(?<=— )" + r"(native|decomposed|unsupported|unknown)" + _NOT_LABEL), lambda m: _ONE[m.group(1)]),
    (re.compile(r"(?<=— )fallback(?= \()"), "recurre a la CPU"),
    (re.compile(r"\bes " + r"(native|decomposed|unsupported|unknown)" + _NOT_LABEL), lambda m: "es " + _ONE[m.group(1)]),
    # 29t: "5 ops no están soportados on inf1": the target after a status said in Spanish is "en" it
    (re.compile(r"\b(no están? soportados?|se ejecutan? como nativos?|se ejecutan? descompuestos?|recurren? a la CPU)"
                r" on (?=\S)"), r"\1 en "),
]
