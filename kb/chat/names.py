"""Names in chat questions matched against the KB's own vocabulary: release-registry
products (with the nicknames people use for them), what of a release is asked about
(Python, PyTorch, OS, instances, date), feature areas and dtypes of the limitation table.

Matching is by whole words, never letter by letter: `conv` is a family word
(kb.store.families), not a misspelt `cov`. Where a word has two readings, the reading
taken and how to ask for the other travel with the answer (`Reading.note`).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from kb.chat.intents import Question
from kb.store import releases

# Words for a product line, mapped to registry products: the first is the reading taken,
# the others are named in the answer as the other readings.
PRODUCT_WORDS: dict[str, tuple[str, ...]] = {
    "torchneuron": ("torchneuron",), "torch-neuronx": ("torchneuron", "torch-neuronx-xla"),
    "torch_neuronx": ("torchneuron", "torch-neuronx-xla"), "neuronx": ("torchneuron", "torch-neuronx-xla"),
    "pytorch-neuronx": ("torchneuron", "torch-neuronx-xla"),
    "trainium": ("torchneuron", "neuron-sdk"), "trn": ("torchneuron", "neuron-sdk"), "trn1": ("torchneuron", "neuron-sdk"),
    "trn2": ("torchneuron", "neuron-sdk"), "trn3": ("torchneuron", "neuron-sdk"),
    "neuron": ("neuron-sdk", "torchneuron"), "neuron-sdk": ("neuron-sdk",), "aws-neuron": ("neuron-sdk",),
    "tpu": ("torch_tpu",), "tpus": ("torch_tpu",), "torchtpu": ("torch_tpu",), "torch_tpu": ("torch_tpu",),
    "torch-tpu": ("torch_tpu",),
    "neuron-xla": ("torch-neuronx-xla",), "torch-neuronx-xla": ("torch-neuronx-xla",),
    "torch-xla": ("torch-xla",), "torch_xla": ("torch-xla",), "neuronx-cc": ("neuronx-cc",), "compiler": ("neuronx-cc",),
    "nki": ("nki",), "nxd": ("neuronx-distributed",), "neuronx-distributed": ("neuronx-distributed",),
    "nxdi": ("neuronx-distributed-inference",), "nxdt": ("neuronx-distributed-training",),
    "jax-neuronx": ("jax-neuronx",), "runtime": ("neuron-runtime",), "neuron-runtime": ("neuron-runtime",),
    "dlc": ("neuron-dlc",), "torch-neuron": ("torch-neuron",), "inf1": ("torch-neuron",),
}
PRODUCT_LABELS = {
    "torchneuron": "TorchNeuron (torch-neuronx, native backend, device neuron)",
    "torch-neuronx-xla": "torch-neuronx on PyTorch/XLA (the older XLA-based package line)",
    "neuron-sdk": "the Neuron SDK release", "torch_tpu": "TorchTPU (torch_tpu)",
}
TARGET_OF = {"torchneuron": "neuron", "neuron-sdk": "neuron", "torch_tpu": "tpu", "torch-neuronx-xla": "neuron-xla",
             "torch-neuron": "inf1"}

# What of a release a question asks about.
ASPECTS = (
    ("python", r"\bpython|\bpy ?3|\bcpython"),
    ("torch", r"\b(py)?torch (version|versions|release)|\bwhich (py)?torch\b|\bpytorch\b|\btorch \d|\btorch versions?\b"),
    ("os", r"\b(os|operating systems?|ubuntu|linux|amazon linux|al2023|al2|platforms?)\b"),
    ("instances", r"\b(instances?|instance types?|hardware|chips?|trn1|trn2|trn3|inf2|ec2)\b"),
    ("date", r"\b(when|date|released|came out|come out|release date|ship date)\b"),
    ("sdk", r"\b(which|what) (neuron )?sdk\b|\bsdk version\b|\bpart of\b"),
    ("latest", r"\b(latest|newest|most recent|current|last|recent)\b"),
)
RELEASE_CUES = r"\b(latest|newest|most recent|current version|released?|release date|when was|when did|came out|" \
               r"(?:is|be|will be) out|when (?:is|will) .{1,30} (?:ship|land|arrive)|" \
               r"when (?:does|will|do) [\w .-]{1,30} (?:drop|land|ship|arrive)(?= ?\?| *$)|" \
               r"python versions?|which python|pythons|torch versions?|pytorch versions?|which (py)?torch|(which|what) os|" \
               r"operating systems?|ubuntu|instances?|instance types?|ships?|shipped|what'?s in|what is in|" \
               r"support matrix|requir\w*|prerequisites?|dependenc\w*|need\w* (?:to )?install\w*|compatible|which sdk|what sdk|sdk version|versions? of|" \
               r"what versions?|which versions?|(?:which|what) [\w.-]+ (?:releases|versions)|release notes|changelog|python|pytorch|hardware|current|" \
               r"what'?s new|is it new|news|bring|brings|brought|eta|expected|roadmap|upcoming|pick up|picks up|" \
               r"(?:still )?(?:in )?(?:beta|alpha|preview|experimental)|generally available|production[- ]ready|" \
               r"came with|comes? with|bundled|goes with|(?:which|what) [\w.-]+(?: [\w.-]+){0,2} version)\b"  # 29i: a package's news is its release card; r23 q43: "an ETA for Neuron 2.35?"


@dataclass
class Reading:
    products: list[str]  # registry products, reading taken first
    word: str  # the word that named it
    version: str | None
    note: str = ""  # the other readings, when there are some


def release_reading(conn: sqlite3.Connection, q: Question) -> Reading | None:
    """The product (and version) a release question is about, read against the registry."""
    known = set(releases.products(conn))
    text = q.text.lower()
    sdk = bool(re.search(r"\bsdk\b", text))
    candidates: list[tuple[str, str | None]] = [(m.word.lower(), m.version) for m in q.targets]
    tokens = re.findall(r"[a-z][a-z0-9_\-]*|\d+(?:\.\d+)+", text)
    for i, tok in enumerate(tokens):
        if tok in PRODUCT_WORDS or tok in known:
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            nxt2 = tokens[i + 2] if i + 2 < len(tokens) else None
            version = nxt if nxt and nxt[0].isdigit() else (nxt2 if nxt in ("sdk", "version", "v") and nxt2
                                                             and nxt2[0].isdigit() else None)
            if not any(w == tok for w, _ in candidates):
                candidates.append((tok, version))
            elif version:
                candidates = [(w, v or version) if w == tok else (w, v) for w, v in candidates]
    said = re.search(r"\b(?:version|release|versión)\s+(\d+(?:\.\d+)+)", text)  # "version 2.35 of neuron"
    if said:
        candidates = [(w, v or said[1]) for w, v in candidates]
    bare = re.findall(r"(?<![\w.])\d+\.\d{2}(?![\w.])", text)  # "TorchNeuron en la 2.33": the number apart
    for word, version in candidates:
        if not version and bare and PRODUCT_WORDS.get(word):
            version = next((v for v in bare if sdk_release_number(conn, PRODUCT_WORDS[word][0], v)), None)
        if word in known and word not in PRODUCT_WORDS:
            return Reading([word], word, version)
        products = list(PRODUCT_WORDS.get(word, ()))
        if not products:
            continue
        if sdk and "neuron-sdk" in products + ["neuron-sdk"] and word in ("neuron", "trainium", "trn2", "trn1", "trn3",
                                                                          "trn", "torch-neuronx", "neuronx", "neuron-sdk"):
            products = ["neuron-sdk"] + [p for p in products if p != "neuron-sdk"]
            # "which torch-neuronx versions are in neuron sdk 2.33": the SDK version named later
            version = version or next((v for _, v in candidates if v), None)
        elif version and products[0] == "neuron-sdk" and not sdk:
            # "neuron 2.14.3" is a TorchNeuron version, "neuron 2.33" an SDK release
            if releases.find(conn, "torchneuron", version) and not releases.find(conn, "neuron-sdk", version):
                products = ["torchneuron", "neuron-sdk"]
        if version and products[0] != "neuron-sdk" and sdk_release_number(conn, products[0], version):
            # "TorchNeuron 2.33": no such package version; x.yy (yy ≥ 20) after a part of the Neuron SDK
            # is the SDK release that ships it (29o)
            products = ["neuron-sdk", products[0]]
            return Reading(products, word, version, f"{word} has no version {version} of its own; {version} read as "
                                                    f"the Neuron SDK release that ships it")
        products = [p for p in products if p in known] or products
        note = ""
        if len(products) > 1 and not (sdk and products[0] == "neuron-sdk"):  # "Neuron SDK 2.33" said what it means
            other = products[1]
            note = (f"`{word}` read as {PRODUCT_LABELS.get(products[0], products[0])}; for "
                    f"{PRODUCT_LABELS.get(other, other)} ask about `{other}`")
        return Reading(products, word, version, note)
    return None


# Products the Neuron SDK ships: a release number after one of them may be the SDK's.
NEURON_SDK_PARTS = ("torchneuron", "torch-neuronx-xla", "neuronx-cc", "nki", "neuronx-distributed",
                    "neuronx-distributed-inference", "neuronx-distributed-training")


def sdk_release_number(conn: sqlite3.Connection, product: str, version: str) -> bool:
    """Whether `version` after `product` means the Neuron SDK release: the product is part of the
    SDK, the version reads x.yy with yy ≥ 20 (an SDK numbering, 2.20 onwards), the product has no
    such version of its own and the SDK has that release ("TorchNeuron 2.33" is Neuron 2.33)."""
    m = re.fullmatch(r"\d+\.(\d{2})(?:\.\d+)?", version or "")
    if product not in NEURON_SDK_PARTS or not m or int(m.group(1)) < 20:
        return False
    return not releases.find(conn, product, version) and bool(releases.find(conn, "neuron-sdk", version))


def aspects(text: str) -> list[str]:
    lowered = text.lower()
    return [name for name, pattern in ASPECTS if re.search(pattern, lowered)]


def is_release_question(text: str) -> bool:
    # "when is neuron 2.35 out?": a release question too; a code fence's language ("```python") names no Python release
    lowered = re.sub(r"```[\w+-]*", " ", text.lower())
    return re.search(RELEASE_CUES, lowered) is not None or re.search(r"\bout\s*\??\s*$", lowered) is not None


# Feature areas and dtypes as people say them → words of the limitation table's `feature`.
FEATURE_WORDS: dict[str, tuple[str, ...]] = {
    "float64": ("float64",), "fp64": ("float64",), "f64": ("float64",), "double": ("float64",),
    "double precision": ("float64",), "torch.float64": ("float64",), "torch.double": ("float64",),
    "float16": ("float16",), "fp16": ("float16",), "half": ("float16",),
    "bfloat16": ("bfloat16",), "bf16": ("bfloat16",), "int64": ("int64",), "long": ("int64",),
    "fp8": ("mxfp8", "fp8"), "mxfp8": ("mxfp8",), "float8": ("mxfp8", "fp8"),
    "sparse": ("torch.sparse",), "sparse tensors": ("torch.sparse",), "torch.sparse": ("torch.sparse",),
    "nested": ("torch.nested",), "nested tensors": ("torch.nested",), "torch.nested": ("torch.nested",),
    "njt": ("torch.nested",), "jagged": ("torch.nested",),
    "complex": ("complex",), "complex numbers": ("complex",), "complex64": ("complex",), "complex128": ("complex",),
    "fft": ("torch.fft",), "torch.fft": ("torch.fft",), "fourier": ("torch.fft",),
    "distributions": ("torch.distributions",), "torch.distributions": ("torch.distributions",),
    "torch.func": ("torch.func",), "functorch": ("torch.func",), "vmap": ("torch.func",), "jacrev": ("torch.func",),
    "torchao": ("torchao",), "torch.ao": ("torchao",),
    "dynamic shapes": ("dynamic=true",), "dynamic=true": ("dynamic=true",), "dynamic shape": ("dynamic=true",),
    "dynamic": ("dynamic=true",),
    "compile fallback": ("compile fallback",), "fallback_execution": ("compile fallback",),
    "fallback execution": ("compile fallback",),  # 29t: the vendor's name of that setting, said in words
    "fallback policy": ("fallback",), "cpu fallback": ("fallback",), "missing op": ("missing op",),
    "torch.compile": ("torch.compile", "compile"), "compile options": ("torch.compile", "compile"),
    # compile settings (TorchTPU reads them in its compile backend: data/manual/torch-tpu-0.2.0-compile.jsonl)
    "max-autotune": ("torch.compile mode",), "mode=max-autotune": ("torch.compile mode",),
    "reduce-overhead": ("torch.compile mode",), "mode=reduce-overhead": ("torch.compile mode",),
    "max-autotune-no-cudagraphs": ("torch.compile mode",), "compile mode": ("torch.compile mode",),
    "inductor": ("backend=inductor",), "backend=inductor": ("backend=inductor",),
    "dynamic=false": ("dynamic=true",), "options=": ("torch.compile options",),
}
# Feature words that only say "compile": a more specific word in the same question wins.
GENERIC_FEATURES = ("torch.compile", "compile options")
DTYPES = ("float64", "float16", "bfloat16", "int64", "mxfp8", "fp8", "complex")


def features_in(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """(word as asked, limitation words it stands for), whole words only, longest first."""
    tokens = re.findall(r"[a-z0-9_.+=/-]+", text.lower())
    joined = " " + " ".join(t.strip(".?!,") for t in tokens) + " "
    found: list[tuple[str, tuple[str, ...]]] = []
    for word in sorted(FEATURE_WORDS, key=len, reverse=True):
        if f" {word} " in joined and not any(word in w for w, _ in found):
            found.append((word, FEATURE_WORDS[word]))
    return found
