"""One-line notes that travel with an answer when a word in the question had another reading
or names hardware the answered backend does not list (tester t29, #11 and #12):

- bare `xla` is read as neuron-xla (PyTorch/XLA on Trainium/Inferentia); the generic `xla`
  target and TPU's own path (TorchTPU, `tpu`) are the other readings;
- `trn1` with an answer for TorchNeuron (target `neuron`): TorchNeuron's newest release card
  lists its instance families, read from the KB; when Trn1 is not among them the answer says
  so and points to PyTorch/XLA (`neuron-xla`) / NxD, the way inf2 is read as neuron-xla.

The notes go above the answer, so a yes/no headline for hardware the backend does not list
never stands alone.
"""

from __future__ import annotations

import json
import re
import sqlite3

from kb.chat.entities import Entities
from kb.chat.intents import Question
from kb.store import queries

_BARE_XLA = re.compile(r"(?<![\w/-])xla(?![\w/-])", re.I)
_TRN1 = re.compile(r"\b(?:trn1n?|trainium1)\b", re.I)  # "trainium" alone names no generation
_OP_ANSWERS = ("op", "compare", "ops_by_status", "caveat", "family")
# A model question on trn1 gets the note too: "does gemma work on trn1?" (r2-29 #5).
_TRN1_ANSWERS = (*_OP_ANSWERS, "gallery_model", "model")


def torchneuron_instances(conn: sqlite3.Connection) -> tuple[str, list[str]] | None:
    """(version, instance families) of TorchNeuron's newest release card that lists them."""
    rows = [dict(r) for r in conn.execute(
        "SELECT version, instance_families FROM release WHERE product = 'torchneuron' AND instance_families IS NOT NULL")]
    if not rows:
        return None
    newest = max(rows, key=lambda r: queries.version_key(r["version"]))
    try:
        return newest["version"], [str(x) for x in json.loads(newest["instance_families"])]
    except (TypeError, ValueError):
        return None


def notes(conn: sqlite3.Connection, q: Question, ents: Entities, intent: str) -> list[str]:
    """The notes for one answered question, in its language."""
    es = ents.language == "es"
    out: list[str] = []
    targets = q.target_names()
    if intent in _TRN1_ANSWERS and "neuron" in targets and _TRN1.search(ents.english) \
            and not {"trn2", "trn3"} & set(ents.instances):
        card = torchneuron_instances(conn)
        if card and "trn1" not in [f.lower() for f in card[1]]:
            listed = ", ".join(card[1])
            out.append(f"_**Trn1**: la ficha de TorchNeuron {card[0]} lista solo {listed}; en Trn1, PyTorch va por "
                       "PyTorch/XLA (`neuron-xla`) o NxD: pregunta por `neuron-xla`. Abajo, el veredicto de "
                       f"TorchNeuron para {listed}._" if es else
                       f"_**Trn1**: TorchNeuron {card[0]}'s release card lists only {listed}; on Trn1, PyTorch runs "
                       "through PyTorch/XLA (`neuron-xla`) or NxD: ask about `neuron-xla`. Below: TorchNeuron's "
                       f"verdict, for {listed}._")
    if intent in _OP_ANSWERS and "neuron-xla" in targets and _BARE_XLA.search(ents.english) and not re.search(
            r"neuron[-_ ]?xla|torch[-_ ]?xla|pytorch/xla", ents.english, re.I):
        out.append("_`xla` leído como `neuron-xla` (PyTorch/XLA en Trainium/Inferentia); otras lecturas: el destino "
                   "genérico `xla` (sin datos en el KB) y, en TPU, TorchTPU (`tpu`)._" if es else
                   "_`xla` read as `neuron-xla` (PyTorch/XLA on Trainium/Inferentia); other readings: the generic "
                   "`xla` target (no data in the KB) and, on TPU, TorchTPU (`tpu`)._")
    if intent in (*_TRN1_ANSWERS, "gallery_list", "gallery_blockers") and "tpu" in targets \
            and _TPU_GENERATION.search(ents.english):
        # "¿cuántas ops soporta la TPU v6e frente a la v5e?": the verdicts are per torch_tpu release (r31 q16)
        out.append("_El KB no distingue generaciones de TPU (v5e, v6e…): sus veredictos son por versión de torch_tpu, "
                   "así que lo de abajo vale igual para cada una._" if es else
                   "_The KB does not tell TPU generations apart (v5e, v6e…): its verdicts are per torch_tpu release, "
                   "so what follows is the same for each._")
    return out


_TPU_GENERATION = re.compile(r"\b(?:tpu\s*)?v[2-7](?:e|p|lite)?\b|\btrillium\b|\bironwood\b", re.I)


def with_notes(text: str, lines: list[str]) -> str:
    """The notes above the answer's text."""
    return "\n".join(lines) + "\n\n" + text if lines else text
