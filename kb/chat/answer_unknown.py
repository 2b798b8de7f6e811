"""The answer to a question the reader could not place (29k): rather than only "try help", it
names the kb command most likely to answer, from whatever the question did name — a target
(`kb ops --target T`), a version or a product (`kb eol`, `kb targets`), a model (`kb gallery`,
`kb check`) — in the question's language. Nothing is guessed: each command is one the CLI
has, and what was read is said so the asker can see why that command.
"""

from __future__ import annotations

import re
import sqlite3

from kb.chat.entities import MODEL_RE
from kb.chat.intents import Question
from kb.chat.reply import Answer
from kb.neutral import markdown as md

DEVICE = ("neuron", "tpu", "neuron-xla", "inf1")
NOTHING = {"en": ("I could not tell which op, target or product you are asking about. "
                  "Try `help`, or name an op like `aten::nonzero` and a target like `neuron` or `tpu`."),
           "es": ("No pude saber por qué op, destino o producto preguntas. "
                  "Prueba `help`, o nombra un op como `aten::nonzero` y un destino como `neuron` o `tpu`.")}


def _hints(q: Question) -> tuple[list[str], list[tuple[str, str, str]]]:
    """(what was read, [(command, what it tells in English, in Spanish)]), most likely first."""
    read: list[str] = []
    hints: list[tuple[str, str, str]] = []
    models = list(dict.fromkeys(m.lower() for m in MODEL_RE.findall(q.text.lower())))
    target = next((m for m in q.targets if m.target in DEVICE), None)
    if models:
        read.append(f"model {md(models[0])}")
        flag = f" -t {target.target}" if target else ""
        hints.append(("kb gallery", "whether each published model runs on each target",
                      "si cada modelo publicado corre en cada destino"))
        hints.append((f"kb check model.pt2{flag}", "your own export, op by op", "tu propio export, op por op"))
    if target is not None:
        spec = f"{target.target}={target.version}" if target.version else target.target
        read.append(f"target {target.target}" + (f" {target.version}" if target.version else ""))
        hints.append((f"kb ops --target {spec}", "every op's verdict there (add `--status fallback` for what falls back)",
                      "el veredicto de cada op ahí (añade `--status fallback` para lo que cae a la CPU)"))
        hints.append((f"kb op NAME -t {target.target}", "one op's verdicts", "los veredictos de un op"))
    products = [(p, v) for p, v in q.products if p not in DEVICE]
    versioned = target is not None and target.version
    if products or versioned:
        product = products[0][0] if products else target.target
        said = next((v for _, v in products if v), None)
        if products:
            read.append(f"product {product}" + (f" {said}" if said else ""))
        hints.append((f"kb eol {product}", "its support windows, soonest end first",
                      "sus ventanas de soporte, el fin más próximo primero"))
        if versioned:
            hints.append(("kb targets", "the versions with data for each target", "las versiones con datos de cada destino"))
    unique: dict[str, tuple[str, str, str]] = {}
    for h in hints:
        unique.setdefault(h[0], h)
    return read, list(unique.values())


def unknown_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    lang = "es" if q.language == "es" else "en"
    read, hints = _hints(q)
    if not hints:
        return Answer(q.text, "unknown", NOTHING[lang], language=lang)
    first, *rest = hints
    if lang == "es":
        said = "; ".join(re.sub(r"^(model|target|product) ", lambda m: {"model": "modelo ", "target": "destino ",
                                                                       "product": "producto "}[m.group(1)], r)
                         for r in read)
        lines = [f"No pude saber qué preguntas (leí: {said}). El comando que más probablemente responde: "
                 f"`{first[0]}` — {first[2]}."]
        lines += [f"- `{c}` — {es}" for c, _, es in rest]
        lines.append("O pregunta `help` para ver qué preguntas respondo.")
    else:
        lines = [f"I could not tell what you are asking (I read: {'; '.join(read)}). The command most likely to "
                 f"answer: `{first[0]}` — {first[1]}."]
        lines += [f"- `{c}` — {en}" for c, en, _ in rest]
        lines.append("Or ask `help` for the questions I answer.")
    facts = [{"read": read, "commands": [c for c, _, _ in hints]}]
    return Answer(q.text, "unknown", "\n".join(lines), facts, language=lang)


# "`keep = torchvision.ops.nms(boxes, scores, 0.5)` ¿corre en trn2?": an op of another library's namespace (r30 q8)
_OTHER_NAMESPACE = re.compile(r"\b(torchvision|torchaudio|torchtext|mmcv|detectron2|xformers|flash_attn|apex)"
                              r"(?:\.ops)?(?:\.|::)(\w+)\b")


def other_library_op(text: str, targets: list[str], lang: str) -> Answer | None:
    """The "unknown" of an op from another library: kb holds verdicts of ATen ops only, and kb check traces a model's."""
    m = _OTHER_NAMESPACE.search(text or "")
    if m is None:
        return None
    op = f"{m.group(1)}::{m.group(2)}"
    target = targets[0] if targets else "neuron"
    text_out = (f"**Desconocido** — `{op}` no es un op ATen: el KB guarda veredictos de ops `aten::` y no tiene ninguno "
                f"para `{op}` en {target}. `kb check MODELO --target {target}` (un export `.pt2`, o `modelo.py:fabrica` "
                "con `--input-shape`) traza tu modelo y dice dónde corre cada op, también este." if lang == "es" else
                f"**Unknown** — `{op}` is no ATen op: the KB keeps verdicts of `aten::` ops and has none for `{op}` on "
                f"{target}. `kb check MODEL --target {target}` (a `.pt2` export, or `model.py:factory` with "
                "`--input-shape`) traces your model and says where each op runs, this one included.")
    return Answer(text, "unknown", text_out, [{"op": op, "target": target, "status": "unknown"}], language=lang)
