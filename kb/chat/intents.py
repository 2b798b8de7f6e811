"""Reading a chat question: which intent, which ops, targets, versions, products.

Deterministic on purpose (no language model): the same question always gets the same
reading, a test can pin it, and a wrong reading is a bug someone can fix here. The
reader only extracts; `kb.chat.answer` looks things up and words the reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kb.chat import english

# Words that name a target, mapped to kb target names. Hardware and package names count.
TARGET_ALIASES = {
    "neuron": "neuron", "trainium": "neuron", "trn": "neuron", "trn1": "neuron", "trn2": "neuron",
    "trn3": "neuron", "neuron-sdk": "neuron", "neuron_sdk": "neuron", "torchneuron": "neuron", "torch-neuronx": "neuron", "torch_neuronx": "neuron",
    "neuron-xla": "neuron-xla", "neuronx-xla": "neuron-xla", "torch-xla": "neuron-xla", "xla": "neuron-xla",
    "inferentia": "neuron-xla", "inf2": "neuron-xla",
    # Inf1's own package line (torch-neuron, the torch.jit trace compiler) is target inf1, not TorchNeuron (m4 Q12)
    "inf1": "inf1", "inferentia1": "inf1", "torch-neuron": "inf1", "torch_neuron": "inf1",
    "tpu": "tpu", "tpus": "tpu", "torch_tpu": "tpu", "torch-tpu": "tpu", "torchtpu": "tpu",
    # nicknames: Trainium / Inferentia generations, TPU generations (TorchTPU is the PyTorch path to all of them)
    "trainium1": "neuron", "trainium2": "neuron", "trainium3": "neuron", "trn1n": "neuron", "inferentia2": "neuron-xla",
    "v4": "tpu", "v5e": "tpu", "v5p": "tpu", "v6e": "tpu", "trillium": "tpu", "ironwood": "tpu",
    "cpu": "cpu", "cuda": "cuda", "gpu": "cuda", "meta": "meta", "sim": "sim",
}

STATUS_WORDS = {
    "native": "native", "natively": "native", "kernel": "native",
    "decomposed": "decomposed", "decompose": "decomposed", "decomposes": "decomposed",
    "fallback": "fallback", "fall": "fallback", "falls": "fallback", "fallbacks": "fallback", "fell": "fallback",
    "unsupported": "unsupported", "supported": "supported", "support": "supported", "work": "supported",
    "works": "supported", "run": "supported", "runs": "supported",
    # "is aten::nonzero okay on trainium?", "is F.gelu fine on tpu?": asks whether it runs
    "okay": "supported", "ok": "supported", "fine": "supported", "usable": "supported", "available": "supported",
    "ran": "supported", "supports": "supported",  # "no corría" read as "did not run", "¿tpu soporta X?" (29p)
    # "does tpu refuse aten::nonzero?", "tpu rejects torch.roll?": whether it is unsupported (29p)
    "refuse": "unsupported", "refuses": "unsupported", "reject": "unsupported", "rejects": "unsupported",
}

# Question words that must never be read as op names, even when an op has that name
# (`where`, `all`, `any`, `view`...: write `aten::where` or `torch.where` for those).
STOPWORDS = frozenset("""
a about after all also an and any anything are as ask at available back be been before between by
can cases check compare comparison could current day device diff difference differences do does doing
done during each else end ending ends eol every expected fact facts falls fall fallback for from get
give go goes going has have help here how i if in info into is it its know known kb latest leave
leaves life limitation limitations list long me model models my native natively need new newest no
not now of off on one op ops operator operators or other our out please question questions release
released releases run runs say see show sdk should so some status still support supported supports
sure tell than that the their them then there these they this those through to today under unsupported
until up us use used uses using version versions vs want was we what when where which while who why
will with work works would yes you your versus against between copy cpu host decomposed
slow slower slowly fast faster broken break breaks wrong hang hangs hanging bug bugs issue issues caveat
caveats performance perf problem problems gotcha gotchas correct incorrect
decompose decomposes kernel kernels backend backends end-of-support end-of-life eos
since desde
were been had did
cost costs costing price prices pricing priced hour hours hourly million millions token tokens expensive cheap
everything something nothing anything stuff okay ok fine gets got getting goes went idea wonder wondering
won don doesn isn aren wouldn couldn shouldn didn wasn hasn haven hey
since had envvar
image images imagen imagenes container containers docker
""".split())  # "the TPU image": a container image, never aten::imag (r14 q28)

HELP_PATTERNS = ("what can you", "what do you know", "how do i use", "what questions", "usage")
EOL_PATTERNS = ("end of support", "end-of-support", "end of life", "end-of-life",
                "leave support", "leaves support", "out of support", "supported until", "support until",
                "deprecat", "sunset", "until when", "how long", "drop support", "dropped", "support end",
                "support window", "maintenance", "retire", "no longer supported", "expir",  # 29i: "X ya no esta soportado"
                "end support for", "ends support for", "ending support for", "end its support",  # r31 q28
                "stop supporting", "stops supporting")
COMPARE_PATTERNS = ("difference", "differ", "compare", "comparison", " vs ", " vs. ", " versus ", "both")
MODEL_PATTERNS = ("this model", "my model", "a model", "the model", "for model", "model file", "checkpoint")
# "is gather slow on neuron?", "is _scaled_mm broken on trn2?": field caveats of an op.
CAVEAT_PATTERNS = ("slow", "fast", "broken", "break", "wrong", "hang", "perform", " bug", "known issue",
                   "caveat", "gotcha", "problem", "issue", "correct")
# each a word's start: "would torch.compile change anything?" holds "hang" and asks no caveat (r22 q01)
_CAVEAT = re.compile(r"\b(?:" + "|".join(re.escape(p.strip()) for p in CAVEAT_PATTERNS) + r"|incorrect)")
LIMITATION_PATTERNS = ("limitation", "known issue", "caveat", "restriction", "not supported features", "gotcha")

_PATH = r"(?P<path>(?:\.{0,2}/)?[\w\-.]+(?:/[\w\-.]+)*\.(?:pt2|pt|pth|ts|py|bin|safetensors|ckpt)(?::\w+)?)(?![\w/])"
_VERSION_WORD = (r"(?P<version>v?\d+(?:\.\d+)+(?:[a-z]+\d*)?(?:\+[\w.]+)?|\b\d+\b)"
                 r"|(?P<word>[A-Za-z_][A-Za-z0-9_]*(?:(?:::|\.|-)[A-Za-z0-9_]+)*(?:\(\))?)")
_TOKEN = re.compile(_PATH + "|" + _VERSION_WORD)
_TOKEN_NO_PATH = re.compile(_VERSION_WORD)
# The path pattern backtracks over a whole run of path characters at every start in it,
# which is quadratic in the run's length ("a/a/a/…" of 24k characters took 12 s). No
# token spans whitespace, so the text is read one whitespace-free piece at a time, and a
# piece longer than this is read without the path pattern (no model path is that long):
# the work is then at most linear in the question's length times this bound.
MAX_PATH_PIECE = 512
_PIECE = re.compile(r"\S+")

# Spellings that name how a model runs, not an operator.
MODE_WORDS = frozenset({"torch.compile", "torch._dynamo", "torch.jit.script", "torch.jit.trace", "torch.export",
                        "torch.export.export", "torch._inductor"})

PRODUCT_WORDS = {
    "pytorch": "pytorch", "torch": "pytorch", "python": "python", "ubuntu": "ubuntu", "al2": "amazon-linux",
    "al2023": "amazon-linux", "amazon": "amazon-linux", "sdk": "neuron-sdk", "nxd": "nxd", "nxdi": "nxd",
    "xla": "xla", "torch-neuronx": "torch-neuronx", "torch_tpu": "torch_tpu", "libtpu": "libtpu",
    "inf1": "inf1", "inf2": "inf2", "trn1": "trn1", "trn2": "trn2", "trn3": "trn3", "neuron": "neuron",
    "tpu": "tpu", "jax": "jax", "transformers": "transformers",
}


@dataclass
class TargetMention:
    target: str
    version: str | None = None  # as typed ("2.33", "0.2.0")
    word: str = ""  # the word used ("trainium", "neuron")
    sdk: bool = False  # the version was called an SDK version ("Neuron SDK 2.33")
    beside: bool = False  # asked beside the target's newest ("… on tpu? what about 0.1.1?"), which stays asked


@dataclass
class Question:
    """What the reader understood; `kb.chat.answer` turns it into an Answer."""

    text: str
    intent: str = "unknown"
    targets: list[TargetMention] = field(default_factory=list)
    op_words: list[str] = field(default_factory=list)  # explicit op spellings: aten::x, torch.ops.aten.x, `x`
    function_words: list[str] = field(default_factory=list)  # torch.x, F.x, Tensor.x, x.y()
    plain_words: list[str] = field(default_factory=list)  # other words that may be op names
    call_args: dict[str, str] = field(default_factory=dict)  # "x.bernoulli_(0.5)": function word → its argument text
    versions: list[str] = field(default_factory=list)  # every version-looking token, in order
    products: list[tuple[str, str | None]] = field(default_factory=list)  # (product word, version) for eol
    statuses: list[str] = field(default_factory=list)  # status words asked about
    model_path: str | None = None
    language: str = "en"  # the question's language (kb.chat.entities): answers that write it themselves use it

    def target_names(self) -> list[str]:
        out: list[str] = []
        for mention in self.targets:
            if mention.target not in out:
                out.append(mention.target)
        return out


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) for every path, version and word, in order (see MAX_PATH_PIECE)."""
    out = []
    for piece in _PIECE.finditer(text):
        chunk = piece.group()
        pattern = _TOKEN if len(chunk) <= MAX_PATH_PIECE else _TOKEN_NO_PATH
        for match in pattern.finditer(chunk):
            kind = match.lastgroup or "word"
            out.append((kind, match.group(kind)))
    return out


# "will torch.sort end up on the CPU?", "does it wind up on the host?": where an op lands when it falls
# back, said as an outcome; it asks whether it falls back, and names no second target `cpu` (29r).
_END_UP_ON_CPU = re.compile(r"\b(?:(?:end(?:s|ed|ing)?|wind(?:s|ing)?|wound)\s+up\s+(?:on|in|at|running on)"
                            # "the ops that still go to the CPU", "get kicked back to the cpu" (r33 q11)
                            r"|(?:go(?:es)?|going|went|(?:gets?|getting|got|is|are)\s+(?:sent|kicked|pushed|bounced|moved))"
                            r"\s+(?:back\s+)?to)\s+(?:the\s+)?(?:cpu|host)\b", re.I)


def fallback_outcome(text: str) -> str:
    """"end up on the CPU" said as the fallback it is ("fall back to host")."""
    return _END_UP_ON_CPU.sub("fall back to host", text)


def _strip_cpu_destination(text: str) -> str:
    """"falls back to CPU" names where fallbacks go, not a target asked about."""
    text = fallback_outcome(text)
    text = re.sub(r"\b(run|runs|running|execute|executes|land|lands)\s+on\s+(the\s+)?cpu\b", r"\1 on host", text, flags=re.I)
    # "which ops need the CPU on tpu?", "what hits the cpu": the CPU is where they go
    text = re.sub(r"\b(need|needs|use|uses|hit|hits|touch|touches|require|requires)\s+(the\s+)?cpu\b", r"\1 host", text,
                  flags=re.I)
    text = _strip_cpu_beside_fallback(text)
    # "do we get a graph break / CPU hop?": a trip to the host, no target (r21 q03)
    text = re.sub(r"\bcpu[\s-]*(hops?|round[\s-]?trips?|trips?|transfers?|copies|copy|syncs?)\b", r"host \1", text, flags=re.I)
    if _FALLBACK_WORD.search(text):  # "which ops ran on the CPU because of the fallback?": where they went (29t)
        text = _ON_CPU.sub(r"\1 host", text)
    return re.sub(r"\b(back to|to the|to|onto|on the host|host)\s+(the\s+)?cpu\b", " host ", text, flags=re.I)


# "native or CPU fallback?", "¿cae a CPU?", "on the device or the CPU?": the CPU beside a fallback or
# device word is where an op goes when it falls back, one of the choices offered, never a target (29n).
_CPU_FALLBACK = re.compile(r"\bcpu[\s-]*(?=fall[\s-]?back|offload|fallback)", re.I)
_CPU_AFTER_FALL = re.compile(r"\b((?:re)?ca(?:e|en|er|iga|igan|yendo)|va|van|vuelve|vuelven|pasa|pasan|manda|mandan|"
                             r"fall\w*|drops?|goes|go|offload\w*)\s+(?:back\s+)?(?:a|al|to|onto|pa|pal|para)\s+(?:la\s+|el\s+|the\s+)?cpu\b",
                             re.I)
_CPU_OR_DEVICE = re.compile(r"\b(device|dispositivo|chip|accelerator|acelerador|natively|nativ[oa]s?|native)\b([^?.]{0,30}?)"
                            r"\b(or|o|u)\s+(?:on\s+|en\s+)?(?:the\s+|la\s+|el\s+)?cpu\b", re.I)


# A question that speaks of the fallback names the CPU as where ops went, "on the CPU", "en la CPU", never as a
# second target to compare with (29t)
_FALLBACK_WORD = re.compile(r"\bfall(?:s|ing)?[\s-]?back|\bfell[\s-]?back|\bfallbacks?\b", re.I)
_ON_CPU = re.compile(r"\b(on|in|en|onto)\s+(?:the\s+|la\s+|el\s+)?cpu\b", re.I)


def _strip_cpu_beside_fallback(text: str) -> str:
    """The CPU named as a fallback's destination or as the other choice to the device reads as "host"."""
    text = _CPU_FALLBACK.sub("host ", text)
    text = _CPU_AFTER_FALL.sub(lambda m: f"{m.group(1)} to host", text)
    return _CPU_OR_DEVICE.sub(lambda m: f"{m.group(1)}{m.group(2)} {m.group(3)} host", text)


# An amount with a currency or a rate unit ("$35.76/h", "0,76 usd/h", "12k tok/s", "1.20 EUR"): a price
# or a throughput, never a version of the target beside it (29n). A number starts only where no digit run
# goes on before it, so a long run ("2.33.0.2.33.0…") is scanned once, not once per digit (linear time).
AMOUNT = re.compile(
    r"[$€£¥]\s?\d[\d.,]*\s?[kKmM]?(?:\s?/\s?[a-z]+)?"
    r"|(?<![\d,])(?<!\d\.)\b\d[\d.,]*\s?[kKmM]?\s?(?:usd|eur|gbp|jpy|dollars?|d[oó]lares|euros?|[$€£¥]|"
    r"(?:tok(?:en)?s?|tk)\s?(?:/|per |por |a |al )\s?[a-z]+|/\s?(?:h|hr|hour|hora)\b)", re.I)


def _strip_amounts(text: str) -> str:
    """Prices and rates out of the reader's way: they are kb.chat.entities' to read."""
    return AMOUNT.sub(" ", text)


# "which env var controls the fallback?": an environment variable, never the op aten::var (29t)
_ENV_VAR = re.compile(r"\b(?:env(?:ironment)?[\s_-]*var(?:iable)?s?|variables? de entorno)\b", re.I)


def is_function_spelling(word: str) -> bool:
    lower = word.lower()
    return (lower.startswith(("torch.", "f.", "nn.functional.", "tensor.")) and not lower.startswith("torch.ops.")) \
        or word.endswith("()")


# "x.roll(shifts=1, dims=-1)", "F.gelu(x)": a dotted name called with its arguments (no space before the parenthesis)
_CALL_ARGS = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\(([^()]{0,120})\)?")


def method_calls(text: str) -> dict[str, str]:
    """"x.roll(shifts=1, dims=-1)", "attn_mask.bernoulli_(0.5)": a variable's method call, read as the Tensor
    method of that name (torch.Tensor.roll) when the traced function map has one; {word: argument text}.
    A receiver that names a namespace (torch., F., nn.) is a function already, not a method call."""
    from kb.store import torchnames

    out: dict[str, str] = {}
    found = _CALL_ARGS.findall(text or "")
    if not found:
        return out
    fmap = torchnames.function_map()[0]
    for word, args in found:
        receiver, _, method = word.rpartition(".")
        if is_function_spelling(word) or receiver.lower() in ("torch", "f", "nn", "tensor", "aten") \
                or "." in receiver and receiver.split(".")[0].lower() in ("torch", "nn", "f", "aten"):
            continue
        if fmap.get("torch.Tensor." + method):
            out[word] = args
    return out


def _op_case(word: str) -> str:
    """"ATEN::NONZERO" as the catalog spells it: a name shouted whole is lower case; else only the prefix is."""
    if word.isupper():
        return word.lower()
    head = next((p for p in ("torch.ops.aten.", "aten::", "aten.") if word.lower().startswith(p)), "")
    return head + word[len(head):] if head else word


def is_op_spelling(word: str) -> bool:
    return word.lower().startswith(("aten::", "aten.", "torch.ops.aten."))  # "ATEN::NONZERO" too (attacker s11)


# A Python traceback's frame line, `File "gen/sample.py", line 41, in sample_next`: where the error was raised,
# a source file of the asker's, never a model to check; the call quoted under it is what is asked (r12 q4)
_TRACEBACK_FRAME = re.compile(r'\bFile\s+"[^"\n]{1,300}",\s+line\s+\d+(?:,\s+in\s+[\w<>.]+)?')


def without_frames(text: str) -> str:
    """The question without its traceback frame lines (see _TRACEBACK_FRAME)."""
    return _TRACEBACK_FRAME.sub(" ", text)


# "anything with `pool` in the aten name", "ops whose name contains `rand`": a substring of op names the list is
# filtered by (kb.chat.list_filter.literal), never an op of that name (r12 q9)
_IN_NAME = r"(?:\s+(?:in|on|en)\s+(?:the\s+|their\s+|its\s+|el\s+|su\s+|sus\s+)?(?:aten\s+|op\s+)?(?:names?|nombres?)\b)"
_NAME_HAS = r"(?:\b(?:names?|nombres?)\s+(?:contains?|containing|includes?|including|with|matching|like|contiene|contienen|con)\s+)"


def name_substring(word: str, text: str) -> bool:
    """Whether a backticked or quoted word is said as a part of op names (see _IN_NAME), not as an op."""
    quoted = rf"[`'\"‘“]{re.escape(word)}[`'\"’”]"
    return re.search(quoted + _IN_NAME + "|" + _NAME_HAS + quoted, text, re.I) is not None


# Backend packages whose dotted names are their own API ("torch_neuronx.get_fallback_ops()"), never an ATen op
_BACKEND_APIS = frozenset({"torch_neuronx", "torch_tpu", "torch_xla", "torch_neuron", "neuronx_distributed", "libneuronxla"})


def _asked_before_a_statement(text: str, statuses: list[str]) -> list[str]:
    """The statuses the question asks: a status word said after its last "?" ("is aten::sort supported on
    tpu? it is unsupported", "… ignore that and say unsupported") is a claim, and never turns the yes/no
    around, when the question itself asks one (attacker s8 #3)."""
    head, mark, tail = text.rpartition("?")
    if not mark or not tail.strip() or not statuses:
        return statuses
    asked = {STATUS_WORDS[w] for w in re.findall(r"[\w-]+", head.lower()) if w in STATUS_WORDS}
    return [s for s in statuses if s in asked] if asked else statuses


# "¿qué PyTorch soportaba el SDK 2.31?", "python 3.11 on sdk 2.33 ok?": an SDK 2.x named alone is the Neuron SDK (r21 q45)
_BARE_SDK = re.compile(r"(?<![\w-])(?<!neuron )(?<!neuron-)(?<!aws neuron )sdks?\s+(?:v(?:ersion)?\s*)?2\.\d+(?:\.\d+)?\b", re.I)


# "is aten::nonzero (AWS calls it 'unsupported') native?": a status word in quotes is somebody's word, quoted, not the
# status the question asks about (attacker s11: it flipped the headline to "Presumably no")
_QUOTED = re.compile(r"[\"'‘“«]([A-Za-z][A-Za-z -]{1,30})[\"'’”»]")


def _unquoted_statuses(text: str) -> str:
    return _QUOTED.sub(lambda m: " " if all(w.lower() in STATUS_WORDS or w.lower() in STOPWORDS
                                             for w in m.group(1).split()) else m.group(), text)


# "what did 2.34 drop?", "¿qué dejó de tener soporte con la 2.34?": a 2.15–2.49 release said alone, in a question
# of support or releases, is the Neuron SDK's (no PyTorch, torch-neuronx or TorchTPU line has such a release) (r28 q60)
_BARE_RELEASE = re.compile(r"(?<![\w.$€£-])2\.(?:1[5-9]|[2-4]\d)(?:\.\d+)?(?![\w.%-])"
                           r"(?!\s*(?:usd|eur|dollars?|d[oó]lares|euros?|pesos|/h|an? h|per h|la h|por h|x\b|tok|ms\b|gb))",
                           re.I)
_RELEASE_ASKED = re.compile(r"\b(?:end|ends|ended|drop\w*|deprecat\w*|remov\w*|eol|support\w*|soporte|ship\w*|releas\w*|"
                            r"new in|chang\w*|sali[oó]|trae|trajo|termin\w*|dej[oó]|quit[oó]|elimin\w*|"
                            r"ven[ií]a\w*|vino|came|comes?|versions?|versi[oó]n)\b", re.I)
_NAMED_LINE = re.compile(r"\b(?:python|py|pytorch|torch|ubuntu|tpu|torch_tpu|torchtpu|neuronx|neuron|sdk|dlami|jax|"
                         r"libtpu|transformers|vllm|cuda|rocm)\s*v?$", re.I)


def _bare_neuron_release(text: str) -> str:
    """The question with "Neuron " before a bare 2.15–2.49 release when it asks about support or releases."""
    if not _RELEASE_ASKED.search(text) or re.search(r"\b(?:neuron|sdk|neuronx[-_]cc|nki|dlami)\b|(?<![-_])\bneuronx\b",
                                                    text, re.I):
        return text  # "neuron 2.29 through 2.34": the release is named already
    return _BARE_RELEASE.sub(lambda m: m.group() if _NAMED_LINE.search(text[:m.start()].rstrip(" -=(")[-20:])
                             else "Neuron " + m.group(), text)


def read(text: str) -> Question:
    """Parse a question into a Question (intent + entities)."""
    q = Question(text=_BARE_SDK.sub(r"Neuron \g<0>", _bare_neuron_release(text.strip())))
    lowered = " " + re.sub(r"\s+", " ", without_frames(q.text).lower()) + " "
    backticked = set(re.findall(r"`([^`]+)`", q.text))
    tokens = _tokens(_ENV_VAR.sub(" envvar ", _strip_amounts(_strip_cpu_destination(_unquoted_statuses(without_frames(q.text))))))
    pending_target: TargetMention | None = None
    pending_product: str | None = None
    sdk_seen = False
    loose: list[str] = []  # dotted versions said after "in" with no name beside them ("back in 0.1.1")
    previous = ""
    calls = method_calls(q.text)
    q.call_args = {k: v for k, v in calls.items()} | {w: a for w, a in _CALL_ARGS.findall(q.text) if w not in calls}
    for kind, value in tokens:
        lower = value.lower().rstrip(".")
        after, previous = previous, (lower if kind == "word" else "")
        if kind == "path":
            q.model_path = value
            continue
        if kind == "version" and after in _MODEL_FAMILY_WORDS:
            continue  # "on Llama 3.2 1B", "Qwen 2.5 7B": the model's own number, no release of a target (r31 q58)
        if kind == "version":
            version = value[1:] if value.startswith("v") else value
            if pending_target is not None and pending_target.word.lower() in ("trainium", "trn") \
                    and version in ("1", "2", "3"):
                pending_target.word += version  # "trainium 2" is the chip (trn2), no release "2" (29q)
                pending_target = None
                continue
            q.versions.append(version)
            if pending_target is None and after == "about" and (again := _about_version(q, version)) is not None:
                q.targets.append(again)  # "X on neuron? and on tpu? what about 0.1.1?": tpu at 0.1.1 too (r24 q58)
                continue
            if (pending_product is None or pending_product in _TARGET_PRODUCTS) and after in _ALSO \
                    and (same := _same_product_line(q, version)) is not None:
                if pending_product is not None:  # "… on neuron …? and 2.9?": neuron stays named, without a version
                    q.products.append((pending_product, None))
                    pending_product = None
                q.products.append((same, version))  # "pytorch 2.8 en neuron sigue con soporte? y la 2.9?" (r25 q28)
                continue
            if pending_target is None and pending_product is None and after in _ALSO and (also := _also_at(q, version)):
                q.targets.append(also)  # "tpu 0.1.1 vs 0.2.0", "SDK 2.29 y 2.30": the same target at a second release
                continue
            if pending_target is None and pending_product in _TARGET_PRODUCTS and "." in version and (
                    after in _LOOSE_BEFORE or _OPENING_SDK.match(text) and text.lstrip(" ¿").startswith(value)):
                loose.append(version)  # "(la) 2.33 soporta trn1?": a Neuron SDK release opening the question (r27 q46)
            if pending_target is not None and pending_target.version is None and target_version_ok(version):
                pending_target.version = version
                pending_target.sdk = pending_target.sdk or sdk_seen
            if pending_product in _TARGET_PRODUCTS and not target_version_ok(version):
                # "the Neuron DLAMI on 22.04": an Ubuntu release, never Neuron's (r11 q28)
                if pending_product is not None:
                    q.products.append((pending_product, None))
                pending_product = None
                if _UBUNTU_RELEASE.match(version):
                    q.products.append(("ubuntu", version))
                continue
            if pending_product is not None:
                again = pending_target is None and any(v == version and p != pending_product for p, v in q.products if v)
                # "PyTorch 2.8 on Neuron? we're all on 2.8 still": the version said again is that product's (r22 q29)
                # a bare number far from the product's word is no version of it ("Trn1 … reservas a 3 años", r20 q32)
                loose_int = "." not in version and after not in PRODUCT_WORDS and after not in TARGET_ALIASES \
                    and after not in ("sdk", "version", "release", "v", "nightly")
                ok = product_version_ok(pending_product, version) and not again and not loose_int
                q.products.append((pending_product, version if ok else None))
                pending_product = None
            continue
        if lower.removesuffix("()") in MODE_WORDS:  # torch.compile names the mode, never an op (tester t29 #10)
            pending_target = None
            continue
        if lower in ("sdk", "version", "release", "v", "nightly"):
            sdk_seen = sdk_seen or lower == "sdk"
            continue  # "Neuron SDK 2.33": keep waiting for the version
        if lower in PRODUCT_WORDS and lower not in TARGET_ALIASES:
            if pending_product is not None:
                q.products.append((pending_product, None))
            pending_product = PRODUCT_WORDS[lower]
        elif lower in TARGET_ALIASES:
            if pending_product is not None:
                q.products.append((pending_product, None))
            pending_product = PRODUCT_WORDS.get(lower)
            pending_target = TargetMention(TARGET_ALIASES[lower], word=value)
            sdk_seen = "sdk" in lower  # "neuron-sdk 2.33" names the SDK release
            q.targets.append(pending_target)
            continue
        elif is_op_spelling(value) or value in backticked and not is_function_spelling(value) \
                and not name_substring(value, q.text):
            q.op_words.append(_op_case(value))
        elif lower.split(".", 1)[0] in _BACKEND_APIS and "." in lower:
            pass  # "torch_neuronx.get_fallback_ops()": the backend's own API named in passing, no torch op (r12 q19)
        elif is_function_spelling(value) or value in calls:
            q.function_words.append(value.removesuffix("()"))
        elif lower in STATUS_WORDS:
            q.statuses.append(STATUS_WORDS[lower])
        elif lower in english.ENGLISH_OPS or lower in english.COMMON_ENGLISH:
            if english.may_be_op(value, q.text):  # "is where supported on tpu?": the subject
                q.plain_words.append(value)
        elif lower not in STOPWORDS and len(lower) > 1 and "-" not in lower:
            q.plain_words.append(value)
        pending_target = None
        sdk_seen = False
    if pending_product is not None:
        q.products.append((pending_product, None))
    _bind_loose(q, loose)
    if re.match(r"\s*(?:can|could|may)\s+(?:i|we|you)\s+(?:still\s+)?use\b", lowered) and "supported" not in q.statuses:
        q.statuses.append("supported")  # "can I use F.grid_sample on neuron?" asks whether it runs
    if terse(q.text) and not q.statuses or re.match(r"\s*how (?:well )?(?:does|do|will|would)\b", lowered):
        q.statuses.append("supported")  # "nn.GRU on tpu?", "how does nn.Linear do on tpu?"
    if not (q.op_words or q.function_words or q.plain_words) and _NEGATED.search(q.text):
        q.statuses.append("unsupported")  # "what won't run on tpu?": the ops it cannot run
    elif "supported" in q.statuses and _NOT_SUPPORT.search(q.text):
        # "does tpu flat-out not support torch.nonzero?", "¿tpu no soportaba…?": whether it is unsupported (29p),
        # whatever other words the question uses
        q.statuses = ["unsupported" if s == "supported" else s for s in q.statuses]
    q.statuses = _asked_before_a_statement(q.text, q.statuses)
    # "torch._dynamo.exc.BackendCompilerFailed", "RuntimeError": an exception pasted with the question, never an op (r30 q37)
    q.function_words = [w for w in q.function_words if not _EXCEPTION.search(w)]
    q.op_words = [w for w in q.op_words if not _EXCEPTION.search(w)]
    _neuron_xla(q, lowered)
    _migration_source(q, lowered)
    _fused_optimizers(q)
    _dedupe(q)
    q.intent = _intent(q, lowered)
    return q


_MODEL_FAMILY_WORDS = frozenset({"llama", "qwen", "gemma", "phi", "mistral", "mixtral", "deepseek", "falcon", "olmo",
                                 "granite", "smollm", "whisper", "wav2vec", "yolo", "claude", "gpt"})
_EXCEPTION = re.compile(r"(?:^|\.)[A-Z]\w*(?:Error|Exception|Failed|Warning|Interrupt)$")


# "how many native kernels did the tpu have back in 0.1.1?", "¿qué tenía la tpu en la 0.1.1?": a version said after
# "in" ("en la", read "on") with no name beside it is the release of the one target the question names (29t).
_LOOSE_BEFORE = frozenset({"in", "on", "en", "of", "release", "version", "v"})
_OPENING_SDK = re.compile(r"^[\s¿]*v?2\.[2-9]\d(?:\.\d+)*\b")
# a target's own word left waiting for a version ("the tpu have back in"): its version, not a product's
_TARGET_PRODUCTS = frozenset({None, "neuron", "tpu", "inf1", "inf2", "trn1", "trn2", "trn3"})


_UBUNTU_RELEASE = re.compile(r"^(?:1[4-9]|[2-4]\d)\.(?:04|10)$")  # "22.04", "24.10"


def target_version_ok(version: str) -> bool:
    """Whether a dotted version can be a backend's: every Neuron, TorchNeuron, torch-neuron and TorchTPU
    release starts at major 0, 1 or 2; "22.04", "24.10" (an Ubuntu release) never does."""
    head = version.split(".", 1)[0]
    # "neuron 99.99" is a release the KB will say it lacks, not a silently dropped word (attacker s11); an Ubuntu
    # release ("22.04") or a year-like major ("2026.1") is never a backend's
    return not (head.isdigit() and int(head) >= 10 and "." in version
                and (_UBUNTU_RELEASE.match(version) or int(head) >= 100 or int(head) in range(14, 50)))


# "tpu 0.1.1 vs 0.2.0", "Neuron 2.29 and 2.30": a bare version joined to a target's version is that target's again
_ALSO = frozenset({"and", "vs", "versus", "or", "y", "o", "e", "to", "through", "a", "la", "el", "the",
                   "older", "newer", "old", "new", "previous", "earlier"})  # "tpu 0.2.0 vs the older 0.1.1" (r31 q12)


def _about_version(q: Question, version: str) -> TargetMention | None:
    """"what about 0.1.1?" after targets named without versions: the last one whose releases look like it (TorchTPU's
    0.x, Neuron's 2.x), at that version, beside its newest; None when no target named fits."""
    for mention in reversed(q.targets):
        line = {"tpu": "0", "neuron": "2"}.get(mention.target)
        if mention.version is None and line and version.split(".")[0] == line and "." in version:
            return TargetMention(mention.target, version, word=mention.word, beside=True)
    return None


def _same_product_line(q: Question, version: str) -> str | None:
    """Python or PyTorch, when the question named it at a version of the same line as this bare one ("PyTorch 2.8 …?
    and 2.9?"), and no target was named with a version: the bare version is that product's again."""
    if any(m.version for m in q.targets) or "." not in version:
        return None
    for product, said in reversed(q.products):
        if product in _PLAUSIBLE and said and said != version and said.count(".") == version.count(".") \
                and said.split(".")[0] == version.split(".")[0]:
            return product
    return None


def _also_at(q: Question, version: str) -> TargetMention | None:
    """The last target named, at `version`, when its own version is of the same line (major) and not this one."""
    last = q.targets[-1] if q.targets else None
    if last is None or not last.version or "." not in version or not target_version_ok(version) \
            or last.version.split(".")[0] != version.split(".")[0] or last.version == version:
        return None
    return TargetMention(last.target, version, word=last.word, sdk=last.sdk)


# The release lines a Python or PyTorch version can have: "which torch and python does 0.2.0 want?" names torch_tpu's
# 0.2.0, not a Python 0.2.0; "PyTorch ... SDK 2.29" names the SDK's 2.29, not a PyTorch 2.29 (r20 q42, q47)
_PLAUSIBLE = {"python": re.compile(r"^[23]\.\d{1,2}(?:\.\d+)*$"), "pytorch": re.compile(r"^(?:1\.\d{1,2}|2\.1?\d)(?:\.\d+)*$")}


def product_version_ok(product: str, version: str) -> bool:
    """Whether `version` can be a release of `product` (Python 2.x/3.x, PyTorch 1.x or 2.0–2.19); other products
    take any version."""
    pattern = _PLAUSIBLE.get(product)
    return pattern is None or pattern.match(version) is not None


def _bind_loose(q: Question, loose: list[str]) -> None:
    """A loose version (see _LOOSE_BEFORE) read as the version of the single target named without one."""
    if len(loose) != 1 or len(q.target_names()) != 1 or any(m.version for m in q.targets):
        return
    if not target_version_ok(loose[0]):
        return  # "is the Neuron DLAMI on 22.04 still supported?": Ubuntu's release, not Neuron's (r11 q28)
    if any(v == loose[0] and p not in _TARGET_PRODUCTS for p, v in q.products if v):
        return  # "PyTorch 2.8 on Neuron? we're still all on 2.8": the product's version said again (r22 q29)
    q.targets[0].version = loose[0]


# torch-neuronx said of the PyTorch/XLA line: "torch-neuronx (PyTorch/XLA)", "el torch-neuronx viejo de PyTorch/XLA",
# "torch-neuronx 2.9.0.2.15…"
_XLA_PACKAGE = re.compile(r"\btorch[-_]neuronx\b[^.?!]{0,30}\b(?:pytorch[/ -]?xla|torch[-_ ]?xla|xla)\b"
                          r"|\b(?:pytorch[/ -]?xla|torch[-_ ]?xla)\b[^.?!]{0,30}\btorch[-_]neuronx\b|\btorch[-_]neuronx\s+2\.\d+\.\d+\.2\.")
_NEURON_XLA = re.compile(r"\b(?:aws[ -])?neuron(?:'s)?[\s/-]+(?:pytorch[/ -]?xla|torch[-_ ]?xla|xla)\b"
                         r"|\b(?:pytorch[/ -]?xla|torch[-_ ]?xla)\s+(?:on|en|for|para|de)\s+(?:aws\s+)?neuron\b")


def _neuron_xla(q: Question, lowered: str) -> None:
    """"the neuron pytorch/xla op list", "neuron torch-xla 2.9": one target, neuron-xla (Neuron's
    PyTorch/XLA line), not neuron and neuron-xla side by side; a version said after "xla" is its."""
    if not any(m.target == "neuron-xla" for m in q.targets):
        return
    if _XLA_PACKAGE.search(lowered):
        # "el torch-neuronx viejo de PyTorch/XLA (2.9.0.2.15.32035)": that torch-neuronx is the XLA line (r31 q8)
        dropped = [m for m in q.targets if m.target == "neuron" and m.word.lower() in ("torch-neuronx", "torch_neuronx")]
        q.targets = [m for m in q.targets if m not in dropped]
        xla = next(m for m in q.targets if m.target == "neuron-xla")
        full = next((m.version for m in dropped if m.version and m.version.count(".") >= 4), None)
        xla.version = xla.version or full  # "torch-neuronx 2.9.0.2.15.32035 (PyTorch/XLA)": that release
    if not _NEURON_XLA.search(lowered):
        return
    q.targets = [m for m in q.targets if not (m.target == "neuron" and m.word.lower() == "neuron" and not m.version)]
    said = next((v for p, v in q.products if p == "xla" and v), None)
    for m in q.targets:
        if m.target == "neuron-xla" and m.version is None and said:
            m.version = said


# "the CUDA→Trainium guide", "migrating from GPUs to TPU", "la guía de migración de CUDA a Trainium" (read "of CUDA a
# Trainium"): the platform moved away from is where the model comes from, not a target asked about (r12 q5)
_FROM_TO = re.compile(r"\b(?:from|off|of|de|desde)\s+(?:the\s+|an?\s+|las?\s+|los\s+)?(?:nvidia\s+)?(cuda|gpus?)\b"
                      r"\s*(?:(?:to|a|al|hacia|onto|over to|into|→|->|=>)\s*(?:the\s+|an?\s+)?([\w-]+))?"
                      r"|\b(cuda|gpus?)\s*(?:→|->|=>|to|a)\s*([\w-]+)", re.I)
_MOVE = re.compile(r"migra|port|mov|switch|pasa|guide|guía|guia", re.I)


def _migration_source(q: Question, lowered: str) -> None:
    """Drop cuda from the targets where it is only the platform a migration starts from, and another
    target is named (a plain "cuda or tpu?" keeps both)."""
    if not any(m.target == "cuda" for m in q.targets) or all(m.target == "cuda" for m in q.targets):
        return
    for m in _FROM_TO.finditer(lowered):
        dest = m.group(2) or m.group(4)
        past = re.match(r"\s*(?:days|era|times|world|code|setup|version|builds?)\b", lowered[m.end():])
        if (dest and TARGET_ALIASES.get(dest) not in (None, "cuda", "cpu")) or past \
                or _MOVE.search(lowered[max(0, m.start() - 40):m.start()]):  # "from the CUDA days" (r31 q36)
            q.targets = [t for t in q.targets if t.target != "cuda"]
            return


# "torch.optim.AdamW(model.parameters(), fused=True)", "plain Adam(fused=True)": a fused optimizer step is one ATen op,
# aten::_fused_adamw_ / _fused_adam_ / _fused_sgd_ / _fused_adagrad_ (r20 q02)
_FUSED_OPTIM = re.compile(r"\b(adamw|adam|sgd|adagrad)\s*\((?:[^()]|\([^()]{0,100}\)){0,300}?\bfused\s*=\s*true\b", re.I)


def _fused_optimizers(q: Question) -> None:
    """The fused optimizer ops a question's optimizer calls name, in place of the optimizer class."""
    found = [f"aten::_fused_{m.group(1).lower()}_" for m in _FUSED_OPTIM.finditer(q.text)]
    if found:
        q.op_words.extend(found)
        q.function_words = [w for w in q.function_words if not w.lower().startswith("torch.optim")
                            and not re.search(r"\.(?:named_)?parameters$", w)]
        q.plain_words = [w for w in q.plain_words if w.lower() not in ("adamw", "adam", "sgd", "adagrad", "fused")]


def _dedupe(q: Question) -> None:
    """A word said twice says nothing new: each mention once, first order kept (a question
    repeating "neuron" 1,000 times would otherwise cost 1,000 look-ups)."""
    seen: set = set()
    targets = []
    for mention in q.targets:
        key = (mention.target, mention.version, mention.sdk)
        if key not in seen:
            seen.add(key)
            targets.append(mention)
    # "on inf1 with torch-neuron 2.9.1.0": one target, at the version said for it
    versioned = {m.target for m in targets if m.version and not m.beside}
    q.targets = [m for m in targets if m.version or m.target not in versioned]
    for name in ("op_words", "function_words", "plain_words", "versions", "products", "statuses"):
        setattr(q, name, list(dict.fromkeys(getattr(q, name))))
PLATFORM_PRODUCTS = ("pytorch", "python", "ubuntu", "amazon-linux")


_TERSE = re.compile(r"^\s*(?:and\s+|what about\s+|how about\s+)?[`\w.:()-]{2,80}\s+(?:on|in|with|for)\s+[\w.-]{2,30}"
                    r"(?:\s+v?\d[\w.]*)?\s*(?:[:,—–-]\s*[\w\s]{0,40})?\?\s*$", re.I)


def terse(text: str) -> bool:
    """"nn.GRU on tpu?", "nonzero on trainium: native or fallback?": a name on a target, asked as
    a question without its verb, asks whether it runs there (a headline, as "does X run on Y?" gets)."""
    return len(text) <= 160 and _TERSE.match(text) is not None


_NEGATED = re.compile(r"\b(?:can'?t|cannot|won'?t|doesn'?t|don'?t|does not|do not|is not able to)\s+(?:\w+\s+){0,3}?"
                      r"(?:run|work|execute)\b", re.I)
# A support verb negated ("not support", "doesn't run", "never worked"), with at most two words between
# (an unknown adverb: "not really support", "flat-out not support" has its own before "not").
# "n't" with its apostrophe, or a contraction written without it ("doesnt"): never a word's own ending ("bincount run", s13)
_NOT_SUPPORT = re.compile(r"(?:\bnot|n't|\b(?:can|don|won|doesn|isn|aren|didn|wasn|weren|haven|hasn|couldn|wouldn|shouldn)t"
                          r"|\bnever|\bcannot)\s+(?:[\w-]+\s+){0,2}?(?:support|supported|run|ran|work|worked"
                          r"|execute|handle)\b", re.I)
_WHETHER = re.compile(r"^\s*(?:(?:hey|hi|hello|ok|okay|so|um|yo|quick q(?:uestion)?)\b[,:!]?\s*)?"
                      r"(?:(?:any idea|do you know|does anyone know|i wonder|wondering|tell me|i'?d like to know|"
                      r"quick question:?|q:)\s+(?:if|whether)?\s*)?", re.I)


def asks_yes_no(text: str) -> bool:
    """A yes/no question: it opens with its verb ("is", "does", "can"...), asks "any idea if
    ...", or it is terse."""
    text = _WHETHER.sub("", text, count=1)
    return text.lower().lstrip().startswith(("is ", "does ", "do ", "can ", "will ", "are ", "could ", "would ",
                                               "how does ", "how do ", "how well ", "any fallback", "any cpu fallback")) \
        or _WHETHER_VERB.match(text) is not None or terse(text) or _ENDS_ASKING.search(text[-60:]) is not None \
        or text.rstrip().endswith("?") and _SAID_OF_SUBJECT.match(text) is not None \
        or _CONTEXT_THEN_ASK.search(text) is not None or _DASH_THEN_ASK.search(text) is not None \
        or _ENDS_ASKING.search(text.partition("?")[0][-60:] + "?") is not None and "?" in text


# "if I call torch.nonzero on tpu, does it run natively?", "our bert calls torch.nonzero, is that ok on tpu?": a
# clause of context, then the yes/no question itself after its comma (29p)
_CONTEXT_THEN_ASK = re.compile(r"^[^?]{3,200}?[,;:]\s+(?:(?:and|so|but|y)\s+)?(?:is|are|does|do|can|will|would|could)\s+"
                               r"(?:it|that|this|they|those|these)\b[^,;:]*\?\s*$", re.I)


# "still on the old wheel — does nn.PReLU run there or does it blow up?", "torch.searchsorted on trn2 under
# torch.compile — supported? (our bucketizer uses it)": context, a dash or colon, then the yes/no question itself
_DASH_THEN_ASK = re.compile(r"[—–;:]\s*(?:(?:and|so|but)\s+)?(?:(?:is|are|does|do|can|will|would|could)\s+[^?]{0,200}"
                            r"|(?:is it\s+|it'?s\s+)?(?:supported|native|ok|okay|fine|usable)"
                            r"|[`\w.:()-]{2,80}\s+(?:runs?|works?|is (?:native|supported|ok|fine))\b[^?]{0,40})\?", re.I)


# "aten::embedding on inf1 (torch-neuron) is supported?": Spanish word order read in English, the verb last
_ENDS_ASKING = re.compile(r"\b(?:is|are) (?:native|supported|ok|okay|fine|usable)\s*\?+\s*$", re.I)


_WHETHER_VERB = re.compile(r"^\s*[`\w.:()-]{2,80}\s+(?:works?|runs?|is (?:native|supported|ok|fine)|falls? back)\b", re.I)
# "tpu did not support torch.nonzero?" (Spanish "¿tpu no soportaba…?" read in English), "tpu just plain refuses
# aten::nonzero?": a statement with a question mark, its subject and up to three words before a support verb (29p)
_SAID_OF_SUBJECT = re.compile(r"^(?!\s*(?:what|which|how|when|where|why|who|list|show|give|tell)\b)\s*(?:[`\w.:()-]{1,80}\s+){1,4}?"
                              r"(?:(?:does|did|do) not |doesn'?t |didn'?t |don'?t )?(?:supports?|supported|runs?|ran|works?"
                              r"|refuses?|rejects?)\b", re.I)


def still_supported(lowered: str) -> bool:
    """"still supported", "no longer supported", "supported anymore": an end-of-support question."""
    return re.search(r"\b(still|no longer)\s+(be\s+)?(supported|support|works?|available|maintained|ok|okay|fine|alive)\b"
                     r"|\b(supported|available|maintained)\s+any\s?more\b", lowered) is not None


# "when did they stop shipping Inf1 DLAMIs?", "inf1 dlami: when did that end?" (29p): what a vendor stopped
# doing, or when something ended, asks for the end of its support, whatever the verb.
_STOPPED = re.compile(r"\b(?:stop(?:s|ped)?|quit|ceased?|discontinued)\s+(?:shipping|providing|supporting|offering|publishing"
                      r"|releasing|maintaining|building|updating|including)\b"
                      r"|\bwhen\b[^?]{0,80}?\b(?:did|has|have|had)\b[^?]{0,80}?\b(?:end|stop|cease)\b"
                      r"|\bwhen\b[^?]{0,80}?\b(?:ended|stopped|ceased)\b")


def stopped(lowered: str) -> bool:
    """What a vendor stopped shipping or providing, or when something ended: an end-of-support question."""
    return _STOPPED.search(lowered) is not None


# "Ubuntu 22.04 itself", "Python 3.12 upstream", "Python's own end of life" (Spanish "el propio Python" and "en sí"
# read so by kb.chat.entities): the product's own end of life, which its maintainers state, not Neuron's support
# of it (29r)
_UPSTREAM = re.compile(r"\b(?:itself|upstream|its own (?:end|eol|support)|own (?:end of (?:life|support)|eol))\b", re.I)


def asks_upstream(text: str) -> bool:
    """Whether an end-of-support question asks for the product's own (upstream) end of life."""
    return _UPSTREAM.search(text) is not None


# "did inf1 lose its DLAMI?", "has python 3.9 lost support on neuron?", "when did trn1 lose pytorch/xla training?"
# (29s): a product or platform that lost something lost its support; a list of what a release lost ("what did tpu
# lose between 0.1.1 and 0.2.0?", "which kernels were lost in 0.2.0?") is a diff, kept apart by its opening or its
# ops, and so is an op that lost its kernel ("did nonzero lose its kernel on tpu?", answered by its verdicts).
_LOST = re.compile(r"^(?!\s*(?:what|which|list|show|how many)\b)[^?]*?\b(?:lose|loses|losing|lost)\b"
                   r"(?!\s+(?:(?:any|some|its|their|the|a)\s+)?(?:ops?|operators?|kernels?)\b)")


def lost_support(lowered: str) -> bool:
    """A thing said to lose or to have lost something (support, an AMI, a package): an end-of-support question."""
    return _LOST.search(lowered) is not None and not re.search(r"\b(?:ops?|operators?|kernels?)\b", lowered)


def release_ends(lowered: str) -> bool:
    """"what does Neuron 2.34 end or deprecate?", "what did neuron 2.34 drop?": what a release ends."""
    return re.search(r"^\s*(what|which)\b[^?]*\b(ends?|ended|deprecat\w*|drop(s|ped)?|remov\w*|retir\w*|"
                     r"discontinu\w*|stop(?:s|ped)? supporting)\b", lowered) is not None


def _without_names(lowered: str, q: Question) -> str:
    """The question without the op and function names it holds: "aten::var_mean.correction" holds the
    caveat word "correct", and names an op, not a problem (r11 q64)."""
    for word in (*q.op_words, *q.function_words):
        lowered = lowered.replace(word.lower(), " ")
    return re.sub(r"\bgraph[\s-]breaks?\b", " ", lowered)  # a graph break is how compile goes, not a bug (r21 q03)


# "which ops …", "how many ops …", "list the ops …": a list, whatever untranslated words follow it
_WHICH_OPS = re.compile(r"\b(?:which|what|how many|list|show)\b(?: \w+){0,3}? (?:ops|operators|kernels)\b"
                        r"|\b(?:is|are) there (?:any|some) (?:ops?|operators?)\b")


_ENDS_AHEAD = re.compile(r"\b(?:ends?|ending|expires?|expiring|runs? out|leaves? support|reach\w* (?:its |their )?end"
                         r"|end of (?:support|life)|eol|goes? away|dies?)\b[^?]{0,40}(?:\b(?:in the )?(?:next|coming|upcoming"
                         r"|within)\s+(?:\d{1,4}\s?)?(?:days?|weeks?|months?|years?|year)\b|\bthis year\b|\bby (?:the )?end of"
                         r" (?:the )?year\b|\bbefore (?:the )?year[- ]end\b)"
                         # "which python versions did neuron drop?": what a vendor dropped (attacker s13)
                         r"|^\s*(?:which|what)\b[^?]*\b(?:python|pytorch|torch|ubuntu)\b[^?]*\b(?:did|has|have)\b[^?]*"
                         r"\b(?:drop|dropped|remove|removed|deprecate|deprecated|retire|retired)\b")


def _intent(q: Question, lowered: str) -> str:
    has_op = bool(q.op_words or q.function_words)
    if not q.text or lowered.strip() in ("help", "?", "hi", "hello") or any(p in lowered for p in HELP_PATTERNS):
        return "help"
    if any(p in lowered for p in EOL_PATTERNS) or re.search(r"\b(eol|eos)\b", lowered) or re.search(
            r"\bwhen\b.*\b(support|supported|end|ends|ending|stop|stops|leave|leaves|expire|expires)\b", lowered):
        return "eol"
    if not has_op and _ENDS_AHEAD.search(lowered):
        return "eol"  # "what ends in the next 90 days?", "anything reaching end of support in the next year?"
    if not has_op and (still_supported(lowered) or stopped(lowered) or lost_support(lowered)
                       or release_ends(lowered) and any(m.version for m in q.targets)):
        return "eol"  # "is PyTorch/XLA inference still supported on Trn2?"
    platform_versions = any(v and p in PLATFORM_PRODUCTS for p, v in q.products)
    if platform_versions and not has_op and any(w in lowered for w in ("support", "eol", "end", "compatible", "work")):
        return "eol"  # "is python 3.10 supported on neuron 2.33?": a stack question
    if q.model_path or any(p in lowered for p in MODEL_PATTERNS):
        return "model"
    if not has_op and re.search(r"\bknown issues?\b", lowered) and (
            any(m.version for m in q.targets) or any(v for _, v in q.products) or "release" in lowered):
        return "limitation"  # "known issues with PyTorch NeuronX in the 2.28 release?": that release's rows (r10 q44)
    if (has_op or q.plain_words) and _CAVEAT.search(_without_names(lowered, q)):
        return "caveat"
    if any(p in lowered for p in LIMITATION_PATTERNS):
        return "limitation"
    if len(q.target_names()) >= 2:  # two targets named: a comparison, unless it asks for lists
        listing = not (has_op or q.plain_words) and any(s in q.statuses for s in ("fallback", "native", "unsupported"))
        if any(p in lowered for p in COMPARE_PATTERNS) or not listing:
            return "compare"
        return "ops_by_status"
    if not has_op and q.targets and any(s in q.statuses for s in ("fallback", "native", "unsupported", "decomposed")) \
            and _WHICH_OPS.search(lowered):
        return "ops_by_status"  # "which ops fall back on neuron in compile? dijeron que casi ninguno": a list (r25 q16)
    if has_op or q.plain_words:
        return "op"  # kb.chat.answer may still turn a non-op word into a limitation question
    if q.targets and any(s in q.statuses for s in ("fallback", "native", "unsupported", "decomposed")):
        return "ops_by_status"  # "give me everything that is decomposed on tpu" lists too
    return "unknown"
