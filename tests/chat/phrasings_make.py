"""Writes tests/chat/phrasings.jsonl, the phrasing bank of issue #29: how a team asks, in
English and Spanish, with typos and nicknames, for every kind the chat must handle. Each
line: question, kind, language, the intent it must be read as, the facts its answer must
state and a source it must cite (part of a URL, a probe run id or a source name; "" for
model questions, which cite nothing until the model gallery exists).

Cost facts are computed here with kb.units.cost (the formula `kb cost` uses), so the bank
checks the chat's arithmetic against the CLI's. Run: python -m tests.chat.phrasings_make
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from kb.units.cost import cost_per_million_tokens, format_money

OUT = Path(__file__).with_name("phrasings.jsonl")
COST = "kb cost"
XLA_TRAIN = "announce-no-support-pytorch-xla-training"
XLA_INF_TRN = "announce-no-support-torch-xla-inference-trn"
NXDI = "announce-no-support-nxdi-nxd-core-inference-trn"
PY310 = "announcement-python-3-10-eol"
TORCHNEURON = "torchneuron.html"
NEURON_POLICY = "about-pytorch-neuron.html"
TPU_POLICY = "google-pytorch/torch_tpu"
TPU_PROBE = "static-tpu-0.2.0"
TPU_011 = "replay-tpu-0.1.1"

rows: list[dict] = []


def add(kind: str, lang: str, intent: str, facts: list[str], source: str, questions: list[str], **extra) -> None:
    for q in questions:
        rows.append({"question": q, "kind": kind, "language": lang, "intent": intent, "facts": facts,
                     "source": source, **extra})


# ---------------------------------------------------------------- cost: (price as written en, es), (rate en, es)
PRICES = [(("7.5 USD", "7,5 USD"), Decimal("7.5"), "USD"), (("$12.5", "12,5 dólares"), Decimal("12.5"), "USD"),
          (("4 EUR", "4 €"), Decimal("4"), "EUR"), (("€3.20", "3,20 euros"), Decimal("3.20"), "EUR"),
          (("2 GBP", "2 GBP"), Decimal("2"), "GBP"), (("48 usd", "48 USD"), Decimal("48"), "USD"),
          (("0.9 EUR", "0,9 EUR"), Decimal("0.9"), "EUR")]
RATES = [(("1800 tokens/s", "1.800 tokens por segundo"), Decimal("1800")),
         (("3,000 tok/s", "3000 tokens/s"), Decimal("3000")),
         (("2500 tokens per second", "2500 tokens por segundo"), Decimal("2500")),
         (("900 tokens/sec", "900 tok/s"), Decimal("900")),
         (("1.8k tokens/s", "1800 tokens/s"), Decimal("1800")),
         (("12000 tokens/s", "12.000 tokens por segundo"), Decimal("12000")),
         (("450 tps", "450 tokens/s"), Decimal("450"))]
COST_EN = ["price per million tokens at {p} an hour and {r}", "what does a million tokens cost at {p}/h with {r}?",
           "cost per 1M tokens: {p} per hour, {r}", "{p} an hour, {r}: how much per million tokens?",
           "how much is 1M tokens if the trn2 costs {p} per hour and we get {r}",
           "tpu v5e at {p}/hr doing {r}, cost per million tokens?",
           "at {p} per hour and {r} whats the price per milion tokens for our nonzero-heavy model",
           "Cost per million tokens on trainium at {p} hourly with {r} throughput?",
           "we measured {r} on inf2 at {p} an hour. price per million tokens?",
           "is nonzero a problem? anyway: {p} per hour, {r}, what's the cost per million tokens",
           "compute cost/1M tokens with {p} an hour and {r}", "how expensive is a million tokens at {p}/h and {r}?"]
COST_ES = ["precio por millón de tokens a {p} la hora y {r}", "¿cuánto cuesta un millón de tokens a {p} por hora con {r}?",
           "¿cuanto sale el millon de tokens con {p} la hora y {r}?", "coste por millón de tokens: {p} por hora, {r}",
           "una trn2 a {p} la hora que da {r}, ¿cuánto cuesta el millón de tokens?",
           "medimos {r} en inf2 a {p} la hora: ¿precio por millón de tokens?",
           "¿cuál es el coste por millón de tokens con {p} por hora y {r}?"]
for i, ((p_en, p_es), price, cur) in enumerate(PRICES):
    (r_en, r_es), rate = RATES[i]
    money = f"{format_money(cost_per_million_tokens(price, rate))} {cur}"
    for t in COST_EN:
        add("cost", "en", "cost", [money, "leaves out"], COST, [t.format(p=p_en, r=r_en)])
    money_es = money.translate(str.maketrans(",.", ".,"))  # Spanish answers write 1,16 and 1.800
    for t in COST_ES:
        add("cost", "es", "cost", [money_es, "deja fuera"], COST, [t.format(p=p_es, r=r_es)])
add("cost", "en", "cost", ["I need", "tokens/s"], COST,
    ["how much per million tokens at 7.5 USD an hour?", "price per million tokens on a $40/hour trn2 instance?",
     "cost per 1M tokens at 4 EUR per hour"])
add("cost", "es", "cost", ["Falta", "tokens/s"], COST,
    ["¿cuánto cuesta el millón de tokens a 7,5 USD la hora?", "precio por millón de tokens con una instancia de 40 USD por hora"])

# tester t29 (#3, #4): "cuesta" is no aten::cos; prices per day/second and rates per minute are converted
add("cost", "es", "cost", ["Falta", "precio por hora"], COST,
    ["¿cuánto cuesta un millón de tokens en trn2.48xlarge a 900 tokens/s?", "cuanto cuesta una trn2 por hora",
     "¿cuánto cuesta nonzero en tpu?", "cuanto cuesta el millon de tokens en inf2", "que precio tiene una trn1 por hora"])
add("cost", "en", "cost", ["I need", "price per hour"], COST,
    ["how much does a trn2 cost per hour?", "what does nonzero cost on tpu?", "price of a million tokens at 900 tokens/s"])
add("cost", "es", "cost", ["1,25 EUR", "3,75 EUR la hora", "833,3333 tokens/s"], COST,
    ["cuánto me sale el millón de tokens si pago 90 euros al día y saco 50000 tokens por minuto",
     "¿cuánto cuesta el millón de tokens a 90 € por día con 50.000 tokens por minuto?"])
add("cost", "en", "cost", ["1.25 EUR", "3.75 EUR an hour", "833.3333 tokens/s"], COST,
    ["cost per million tokens at 90 EUR per day and 50000 tokens per minute",
     "90 EUR/day, 50000 tokens/min: price per million tokens?"])
add("cost", "en", "cost", ["0.46 USD", "2.9988 USD an hour"], COST,
    ["price per million tokens: 0.000833 USD per second, 1800 tok/s",
     "cost per million tokens at 0.000833 USD/s and 1800 tokens/s"])
add("cost", "en", "cost", ["1.16 USD", "1,800 tokens/s"], COST,
    ["cost per million tokens at 7.5 USD an hour and 108000 tokens per minute"])

# ---------------------------------------------------------------- lists of ops at a version
add("list", "en", "ops_by_status", ["800", "unsupported", "0.1.1"], TPU_011,
    ["list what TorchTPU 0.1.1 can't run", "which ops can't torch_tpu 0.1.1 run?", "list unsupported ops on tpu 0.1.1",
     "what doesn't run on TPU 0.1.1?", "show the ops tpu 0.1.1 cannot run", "list what torchtpu 0.1.1 cant run",
     "which operators are not supported on torch-tpu 0.1.1", "what can't TPU v5e run with torch_tpu 0.1.1?"])
add("list", "es", "ops_by_status", ["800", "0.1.1", "ops que se ejecutan como"], TPU_011,
    ["enumera lo que TorchTPU 0.1.1 no puede ejecutar", "¿qué ops no están soportados en tpu 0.1.1?",
     "lista de ops no soportados en torch_tpu 0.1.1", "¿cuáles operadores no puede ejecutar TorchTPU 0.1.1?",
     "¿que ops no puede correr torchtpu 0.1.1?"])

# tester t29 (#5): the "more:" command pins the version answered
add("list", "en", "ops_by_status", ["800", "kb ops --target tpu=0.1.1 --status unsupported"], TPU_011,
    ["what can't TorchTPU 0.1.1 run", "what can not torch_tpu 0.1.1 run?"])
add("list", "es", "ops_by_status", ["800", "kb ops --target tpu=0.1.1 --status unsupported"], TPU_011,
    ["¿qué ops no soporta TorchTPU 0.1.1?", "que ops no soporta tpu 0.1.1"])

# ---------------------------------------------------------------- end of support of a feature line
add("feature_eol", "en", "eol", ["**No**", "2.30"], XLA_TRAIN,
    ["is PyTorch/XLA training still supported on Trn1?", "is torch-xla training still supported on trn1",
     "can I still train with PyTorch/XLA on Trainium1? is it still supported?", "pytorch xla training on trn1 still supported?",
     "Is XLA trainig still suported on trn1?", "is PyTorch/XLA training on trn2 still supported?",
     "is torch_xla training end of life on Trn1?", "PyTorch/XLA fine-tuning on trn1: still supported?"])
add("feature_eol", "es", "eol", ["**No**", "2.30", "terminó"], XLA_TRAIN,
    ["¿sigue soportado PyTorch/XLA para entrenamiento en Trn1?", "¿PyTorch/XLA para entrenamiento sigue soportado en Trn1?",
     "¿todavía está soportado el entrenamiento con torch-xla en trn1?", "¿sigue soportado el entrenamiento con xla en trn2?"])
add("feature_eol", "en", "eol", ["2.33", "2.34"], XLA_INF_TRN,
    ["how long is torch-xla supported on trn3 for serving?", "how long will PyTorch/XLA inference be supported on Trn3?",
     "until when is torch-xla inference supported on trn2?", "how long is xla serving supported on trainium3",
     "how long is PyTorch/XLA inferance supported on Trn2?", "until when can we deploy torch-xla on trn3?"])
add("feature_eol", "es", "eol", ["2.33", "2.34"], XLA_INF_TRN,
    ["¿hasta cuándo se soporta torch-xla en trn3 para inferencia?", "¿hasta cuando hay soporte de inferencia con PyTorch/XLA en Trn2?",
     "¿cuánto tiempo tiene soporte PyTorch/XLA para inferencia en Trn3?"])
add("feature_eol", "en", "eol", ["**Neuron 2.33", "2.34"], XLA_INF_TRN,
    ["when is the last neuron release for XLA inference on trn2?", "what's the last Neuron release with PyTorch/XLA inference on Trn3?",
     "last neuron version for torch-xla inference on trn2", "which is the final neuron release for xla inference on trn2?",
     "last neuron sdk release that supports torch-xla serving on trn3?"])
add("feature_eol", "es", "eol", ["**Neuron 2.33", "2.34"], XLA_INF_TRN,
    ["¿cuál es la última versión de neuron para inferencia XLA en trn2?", "¿última versión de Neuron con inferencia PyTorch/XLA en Trn3?",
     "ultima version de neuron para servir con torch-xla en trn2"])
add("feature_eol", "en", "eol", ["**No**", "2.34"], NXDI,
    ["is NxD Inference still supported on Trn2?", "is nxd inference still supported on trn3?", "is NxDI supported on Trn2 still?"])
add("feature_eol", "en", "eol", ["maintenance", "Inf2"], NXDI,
    ["Is NxD Inference supported on Inf2?", "is nxd inference still supported on inf2", "does NxD Inference work on Inf2?",
     "is NxD Inference supported on Trn1?", "NxD Inference on inf2: still supported?"])
add("feature_eol", "es", "eol", ["mantenimiento", "Inf2"], NXDI,
    ["¿NxD Inference está soportado en Inf2?", "¿sigue soportado NxD Inference en Inf2?", "¿funciona NxD Inference en Inf2?"])
add("feature_eol", "es", "eol", ["**No**", "2.34"], NXDI,
    ["¿NxD Inference todavía está soportado en Trn2?", "¿sigue soportado NxD Inference en Trn3?"])

# ---------------------------------------------------------------- a product on an instance family
add("support", "en", "support", ["**No**", "Trn1"], TORCHNEURON,
    ["Does TorchNeuron run on Trn1?", "does torch-neuronx work on trn1", "is TorchNeuron supported on Trainium1?",
     "can torchneuron run on trn1?", "Does TorchNeuron run on a trn1 instance?"])
add("support", "en", "support", ["**Yes**", "Trn2"], TORCHNEURON,
    ["Does TorchNeuron run on Trn2?", "is torchneuron supported on trn3", "does TorchNeuron work on Trainium2?"])
add("support", "es", "support", ["**No**", "Trn1"], TORCHNEURON,
    ["¿TorchNeuron funciona en Trn1?", "¿funciona TorchNeuron en trn1?", "¿está soportado TorchNeuron en Trn1?"])
add("support", "es", "support", ["**Sí**", "Trn2"], TORCHNEURON, ["¿TorchNeuron funciona en Trn2?", "¿funciona torch-neuronx en trn3?"])

# ---------------------------------------------------------------- a platform's end of support on Neuron
add("platform_eol", "en", "eol", ["2.30", "Python 3.10"], PY310,
    ["when does support for Python 3.10 end on Neuron?", "when does python 3.10 support end on neuron",
     "end of support of python 3.10 on neuron", "is python 3.10 still supported on neuron?",
     "when did neuron drop python 3.10?", "python 3.10 end of life on Trainium", "Is Python 3.10 still suported by Neuron?"])
add("platform_eol", "es", "eol", ["2.30", "Python 3.10", "Terminó"], PY310,
    ["¿cuándo termina el soporte de Python 3.10 en Neuron?", "¿hasta cuándo se soporta Python 3.10 en Neuron?",
     "fin del soporte de python 3.10 en neuron", "¿cuando termina el soporte de python 3.10 en trainium?",
     "¿sigue soportado Python 3.10 en Neuron?", "¿Neuron sigue soportando Python 3.10?"])

# ---------------------------------------------------------------- policy: an op the backend lacks
add("policy", "en", "policy", ["compile error"], NEURON_POLICY,
    ["what does neuron do with an op it lacks in compile mode?", "what happens on trn2 under torch.compile when an op has no kernel?",
     "what does TorchNeuron do with a missing op under torch.compile?", "neuron compile mode: what happens to ops without a kernel?"])
add("policy", "en", "policy", ["cpu fallback with warning"], NEURON_POLICY,
    ["what does neuron do with an op it lacks in eager mode?", "what does TorchNeuron do with a missing op in eager?",
     "what happens when an op is not implemented on neuron in eager mode?", "trainium eager: what happens with missing kernels?"])
add("policy", "en", "policy", ["cpu fallback if enabled else error", "policy: missing op"], TPU_POLICY,
    ["what happens on tpu when an op has no kernel?", "what does torch_tpu do with an op it lacks?",
     "what does TorchTPU do with missing ops in eager mode?", "tpu: what happens when an op is not implemented?"])
add("policy", "en", "policy", ["cpu fallback with warning", "cpu fallback if enabled else error"], NEURON_POLICY,
    ["what do neuron and tpu do with an op they lack?", "what happens with a missing op, eager vs compile?",
     "what does the backend do with an op it lacks"])
add("policy", "es", "policy", ["cpu fallback with warning", "modo eager"], NEURON_POLICY,
    ["¿qué hace neuron con un op que no tiene kernel en modo eager?", "¿qué hace TorchNeuron con un operador sin kernel en modo eager?",
     "¿qué ocurre en trn2 con un op que no está implementado en modo eager?"])
add("policy", "es", "policy", ["compile error", "torch.compile"], NEURON_POLICY,
    ["¿qué hace neuron con un op que no tiene en modo compile?", "¿qué pasa en trainium si falta un operador en modo compilado?"])
add("policy", "es", "policy", ["cpu fallback if enabled else error"], TPU_POLICY,
    ["¿qué pasa en tpu si falta un operador?", "política de fallback de tpu para ops que faltan",
     "¿qué hace torch_tpu con un op que no tiene kernel?"])

# ---------------------------------------------------------------- op questions in Spanish (answered in Spanish)
add("op", "es", "op", ["**Sí**", "aten::nonzero"], TPU_PROBE,
    ["¿funciona nonzero en TPU?", "¿nonzero funciona en tpu 0.2.0?", "¿es nativo aten::nonzero en tpu 0.2.0?",
     "¿aten::nonzero es nativo en torch_tpu?", "¿funciona torch.nonzero en tpu?"])
add("op", "es", "op", ["aten::nonzero", "native"], TPU_PROBE, ["¿se puede usar torch.nonzero en tpu?"])
add("op", "es", "op", ["**Sí**", "aten::silu"], TPU_PROBE, ["¿funciona F.silu en TorchTPU?"])
add("op", "es", "op", ["**Sí**", "aten::silu"], TPU_PROBE, ["¿funciona aten::silu en tpu v6e?"])  # every overload runs (r2 #6)
add("op", "es", "op", ["aten::add.Tensor", "Se ejecuta en tpu"], TPU_PROBE,
    ["¿es nativo aten::add.Tensor en tpu 0.2.0?", "¿aten::add.Tensor es nativo en v5e?"])
add("op", "en", "op", ["**Yes**", "aten::nonzero"], TPU_PROBE,
    ["does nonzero run on tpu v5e?", "is nonzero native on trillium?", "does torch.nonzero work on TPU v6e?"])

# tester t29 (#1, #2, #13): Spanish without ¿ or accents is Spanish, and answered with no English sentence
add("op", "es", "op", ["aten::cumsum", "hojas en el dispositivo"], TPU_PROBE,
    ["funciona torch.cumsum en tpu", "torch.cumsum funciona en tpu?", "torch.cumsum va bien en tpu 0.2.0?",
     "se puede usar torch.cumsum en tpu"])
add("op", "es", "op", ["aten::gelu", "Presumiblemente sí"], "",
    ["torch.nn.functional.gelu va bien en trn2?", "funciona F.gelu en trainium", "F.gelu anda en trn2?"])
add("op", "es", "op", ["aten::native_layer_norm", "es un módulo"], "",
    ["funciona nn.LayerNorm en neuron 2.33", "nn.LayerNorm en neuron funciona?"])
add("op", "es", "op", ["ops se ejecutan en el dispositivo", "es un módulo"], TPU_PROBE,
    ["nn.GRU en tpu funciona?", "funciona nn.GRU en tpu", "¿funciona nn.MultiheadAttention en tpu?"])
add("op", "es", "op", ["su único op", "en el dispositivo"], TPU_PROBE, ["¿es compatible nn.Embedding con la tpu?"])
add("op", "es", "op", ["**Sí, inferido**", "no una observación de 0.1.1"], TPU_011, ["¿funciona aten::silu en tpu 0.1.1?"])
add("op", "es", "compare", ["**Difieren.**", "aten::sort"], TPU_PROBE,
    ["compara aten::sort entre tpu y neuron", "comparar aten::sort entre neuron y tpu"])
add("list", "es", "diff", ["0.1.1 → 0.2.0", "kernels ganados", "perdidos"], TPU_PROBE,
    ["¿qué ops perdió tpu de 0.1.1 a 0.2.0?", "que cambio entre tpu 0.1.1 y 0.2.0", "novedades de tpu 0.2.0",
     "que ops gano tpu de 0.1.1 a 0.2.0"])
add("list", "es", "ops_by_status", ["595", "0.2.0", "ops que se ejecutan como"], TPU_PROBE,
    ["cuales ops no andan en tpu 0.2.0", "que ops no funcionan en tpu 0.2.0"])
add("list", "en", "diff", ["0.1.1 → 0.2.0", "kernels gained"], TPU_PROBE,
    ["what did tpu lose from 0.1.1 to 0.2.0?", "what changed between tpu 0.1.1 and 0.2.0"])
add("op", "en", "op", ["aten::cumsum", "leaves on the device"], TPU_PROBE,
    ["does torch.cumsum run on tpu", "is torch.cumsum ok on tpu en route to prod?"])

# tester t29 (#9, #10, #11, #12, #17): readings
add("policy", "en", "policy", ["Neuron SDK 2.33.0 (TorchNeuron", "compile error"], NEURON_POLICY,
    ["what does torchneuron do when an op is missing under torch.compile?"])
add("policy", "es", "policy", ["Neuron SDK 2.33.0 (TorchNeuron", "cpu fallback with warning"], NEURON_POLICY,
    ["¿qué pasa si neuron no tiene un op en modo eager?", "en modo eager neuron hace fallback?",
     "que pasa si trainium no tiene un operador en modo eager"])
add("op", "en", "op", ["aten::scaled_dot_product_attention", "(compile)"], "",
    ["does torch.nn.functional.scaled_dot_product_attention work on trn2 with torch.compile?",
     "does F.scaled_dot_product_attention run on tpu under torch.compile()?"])
add("op", "es", "op", ["aten::_unique", "(compile)"], TPU_PROBE,
    ["¿qué pasa con aten::unique en tpu cuando uso torch.compile?"])
add("op", "es", "op", ["es un módulo", "MultiheadAttention"], "",
    ["¿nn.MultiHeadAttention va en trn2 en modo compile?", "¿funciona nn.multiheadattention en trn2 en modo compile?"])
add("op", "es", "op", ["aten::scaled_dot_product_attention", "**Sí**"], TPU_PROBE,
    ["el scaled dot product attention funciona en la TPU?"])
add("op", "es", "op", ["**Trn1**", "Trn2, Trn3", "neuron-xla"], "",
    ["¿funciona nonzero en trn1?", "¿se ejecuta nn.GroupNorm en trn1?"])
add("op", "en", "op", ["**Trn1**", "Trn2, Trn3", "neuron-xla"], "",
    ["does nonzero run on trn1?", "is nn.GroupNorm native on trn1?"])
add("op", "en", "op", ["`xla` read as `neuron-xla`", "TorchTPU"], "", ["is add supported on xla?"])
add("list", "es", "ops_by_status", ["neuron", "2.14.3.1", "fallback"], "",
    ["que ops hacen fallback a cpu en neuron 2.14.3.1"])

# tester t29 (#6, #7, #8): Neuron's own support window for platforms, and SDK release questions
SDK234 = "release-notes/2.34.0.html"
add("platform_eol", "en", "eol", ["**No**", "Neuron 2.34 supports Python 3.12, 3.13, 3.14, not 3.11", "2027-10"], SDK234,
    ["is python 3.11 still supported on neuron?"])
# "when" questions lead with a date or "already ended" (tester r2 #14)
add("platform_eol", "en", "eol", ["**Already ended**", "Neuron 2.34 supports Python 3.12, 3.13, 3.14, not 3.11",
                                  "2027-10"], SDK234, ["when does python 3.11 reach end of support on neuron"])
add("platform_eol", "es", "eol", ["**Sí**", "3.12, 3.13, 3.14"], "", ["¿Python 3.12 sigue soportado?",
                                                                    "¿sigue soportado python 3.13 en neuron?"])
add("platform_eol", "es", "eol", ["**Presumiblemente no**", "Ubuntu 22.04", "2027-05"], "",
    ["¿sigue soportado ubuntu 22.04 en trainium?"])
add("platform_eol", "es", "eol", ["**Presumiblemente ya terminó**", "Ubuntu 22.04", "2027-05"], "",
    ["¿hasta cuándo tiene soporte Ubuntu 22.04 en Neuron?"])
add("platform_eol", "es", "eol", ["**Presumiblemente sí**", "Ubuntu 24.04"], "", ["ubuntu 24.04 soportado en neuron 2.34?"])
add("support", "en", "release", ["Python: **3.12, 3.13, 3.14**"], SDK234,
    ["which python versions does Neuron 2.34 support?", "what python versions are supported by neuron 2.34"])
add("support", "es", "release", ["Python: **3.12, 3.13, 3.14**"], SDK234, ["que versiones de python soporta neuron 2.34"])
add("support", "en", "release", ["**Neuron SDK 2.34.0**", "2026-11-30", "What ends with Neuron 2.34 (4)",
                                  "torchneuron (torch-neuronx) 2.14.3.1"],
    SDK234, ["what's new in Neuron 2.34?", "what is new in neuron sdk 2.34", "release notes of neuron 2.34"])
add("support", "es", "release", ["**Neuron SDK 2.34.0**", "2026-11-30", "Lo que termina con Neuron 2.34 (4)"], SDK234,
    ["¿qué trae la versión 2.34 de neuron?", "novedades de neuron 2.34"])
add("support", "es", "release", ["**Neuron SDK 2.33.0**", "2026-10-19"], "release-notes/2.33.0.html",
    ["novedades de neuron 2.33"])

# tester t29 (#15): yes/no headlines in Spanish
add("op", "es", "op", ["**Sí, pero en parte en la CPU**", "es un módulo"], "",
    ["¿se ejecuta nn.GroupNorm en trn2?", "se ejecuta nn.GroupNorm en trainium"])
add("op", "es", "op", ["**Sí**", "aten::convolution"], "", ["¿funsiona nn.Conv2d en trainium?", "funciona nn.Conv2d en trn2"])
add("op", "es", "op", ["**Se ejecuta en tpu, aunque no como un solo kernel, inferido**"], TPU_011,
    ["¿F.scaled_dot_product_attention corre nativo en tpu 0.1.1?"])

# tester t29 (#17): a release the KB does not know names the newest it does
add("support", "es", "release", ["neuron-sdk 2.35", "2.34.0 (2026-11-30)"], SDK234, ["¿Cuándo sale neuron 2.35?",
                                                                                  "cuando sale la version 2.35 de neuron"])
add("support", "en", "release", ["neuron-sdk 2.35", "2.34.0 (2026-11-30)"], SDK234, ["when is neuron 2.35 out?",
                                                                                  "when will neuron 2.35 be released?"])

add("op", "es", "op", ["aten::dropout", "(compile)", "la familia dropout: pregunta"], TPU_PROBE,
    ["dropout en modo compile en tpu", "funciona dropout en modo compilado en tpu"])
add("op", "en", "op", ["aten::dropout", "(compile)"], TPU_PROBE, ["dropout in compile mode on tpu"])

# ---------------------------------------------------------------- model questions (the gallery's, else the command)
for lang, qs in (("en", ["will Mixtral run on a trn2?", "does llama 3 run on tpu?", "can I run Qwen2 on trainium?",
                         "will BERT work on inf2?", "does whisper run on neuron?", "can mistral run on trn1?",
                         "will gemma run on TPU v5e?", "does T5 work on trn2?", "will deepseek run on trainium2?",
                         "can we serve llama on a trn2 instance?"]),
                 ("es", ["¿correrá Mixtral en trn2?", "¿funciona llama 3 en tpu?", "¿puedo usar BERT en trainium?",
                         "¿funcionará whisper en neuron?", "¿Mistral funciona en Trn2?", "¿funciona gemma en tpu v5e?"])):
    for q in qs:
        model = next(m for m in ("mixtral", "llama", "qwen", "bert", "whisper", "mistral", "gemma", "t5", "deepseek")
                     if m in q.lower())
        add("model", lang, "model", [model], "", [q], case_insensitive=True)

# ---------------------------------------------------------------- more of the same kinds: nicknames, typos, word order
add("feature_eol", "en", "eol", ["**No**", "2.30"], XLA_TRAIN,
    ["is pytorch/xla training still supported on trn1n?", "torch-xla training on Trainium: still supported?",
     "is PyTorch XLA pre-training still supported on trn1?", "is training with torch_xla on trn1 still supported",
     "still supported: PyTorch/XLA training on trn1?", "IS TORCH-XLA TRAINING STILL SUPPORTED ON TRN1??"])
add("feature_eol", "en", "eol", ["2.33", "2.34"], XLA_INF_TRN,
    ["how long is torch-xla inference supported on Trainium2?", "how long does PyTorch/XLA serving on trn3 stay supported?",
     "until when is xla inference on trn3 supported?", "how long is PyTorch/XLA supported on trn2 for inference"])
add("feature_eol", "en", "eol", ["**Neuron 2.33", "2.34"], XLA_INF_TRN,
    ["what is the last neuron release for pytorch/xla serving on trn2?", "last neuron release with xla inference on Trainium3?"])
add("feature_eol", "es", "eol", ["**No**", "2.30"], XLA_TRAIN,
    ["¿sigue soportado el entrenamiento con PyTorch/XLA en Trainium1?", "¿todavía está soportado torch-xla para entrenar en trn1?"])
add("feature_eol", "es", "eol", ["2.33", "2.34"], XLA_INF_TRN,
    ["¿hasta cuándo se soporta PyTorch/XLA para inferencia en Trainium2?", "¿hasta cuando se soporta xla para servir en trn3?"])
add("support", "en", "support", ["**No**", "Trn1"], TORCHNEURON,
    ["does torch_neuronx run on trn1?", "Is the native neuron backend supported on trn1?", "torchneuron on trn1?"])
add("support", "es", "support", ["**No**", "Trn1"], TORCHNEURON,
    ["¿torch-neuronx funciona en trn1?", "¿TorchNeuron está soportado en Trainium1?"])
add("platform_eol", "en", "eol", ["2.30", "Python 3.10"], PY310,
    ["when does neuron stop supporting python 3.10?", "python 3.10 on neuron: end of support?",
     "is Python 3.10 end of life on trn2?", "when did support for python 3.10 end on trainium?"])
add("platform_eol", "es", "eol", ["2.30", "Python 3.10"], PY310,
    ["¿cuándo se acaba el soporte de Python 3.10 en Neuron?", "fin de soporte de Python 3.10 en trn2",
     "¿python 3.10 sigue soportado en neuron?"])
add("policy", "en", "policy", ["cpu fallback with warning"], NEURON_POLICY,
    ["what happens to ops without a kernel on trn2 in eager mode?", "if an op has no kernel on neuron, what happens in eager?",
     "what happens when an op is missing on trainium (eager)?"])
add("policy", "en", "policy", ["cpu fallback if enabled else error"], TPU_POLICY,
    ["what happens on tpu v5e when an op has no kernel?", "what does torchtpu do with an unsupported op"])
add("policy", "es", "policy", ["cpu fallback with warning"], NEURON_POLICY,
    ["¿qué pasa en neuron si falta un operador en modo eager?", "¿qué hace trn2 con un operador que no tiene kernel en modo eager?"])
add("list", "en", "ops_by_status", ["800", "0.1.1"], TPU_011,
    ["list ops TorchTPU 0.1.1 doesn't support", "what does torch_tpu 0.1.1 not run?", "LIST WHAT TORCH_TPU 0.1.1 CANT RUN"])
add("list", "es", "ops_by_status", ["800", "0.1.1"], TPU_011,
    ["lista lo que no puede ejecutar torch_tpu 0.1.1", "¿qué no puede ejecutar tpu 0.1.1?"])
for lang, qs in (("en", ["will Llama 3 run on trn2?", "does Mixtral work on TPU v6e?", "can I run whisper on inf2?",
                         "will Qwen run on trn3?"]),
                 ("es", ["¿funcionará Mixtral en tpu?", "¿puedo usar whisper en inf2?", "¿Llama 3 funciona en trn3?"])):
    for q in qs:
        model = next(m for m in ("mixtral", "llama", "qwen", "whisper") if m in q.lower())
        add("model", lang, "model", [model], "", [q], case_insensitive=True)


# ---------------------------------------------------------------- held out: written after the code, asked once untuned
# (28 of 30 read right on that first try; the two misses — "if tpu lacks a kernel, does it raise or fall back?" and
# "does torch.compile on neuron fail when an op can't be lowered?" — taught the policy cue two phrasings)
XLA_INF_MAINT = "announce-maintenance-pytorch-xla-inference"
NXDT = "announce-eos-nxdt-nxd-core-training"
SNAPSHOT = "98154b867aa24562a3213e520d9ad7fd41032291"
add("cost", "en", "cost", ["2.03 USD"], COST, ["our trn2.48xlarge is 38 dollars/hour and does 5200 tok/s. what's that per million tokens?"])
add("cost", "en", "cost", ["0.79 EUR", "39.68 EUR"], COST,
    ["with 2,100 tokens per second at EUR 6 per hour, how much do 50M tokens cost?"])
add("cost", "en", "cost", ["0.48 USD"], COST, ["what would 1M tokens cost on TPU v5e at $1.2/h if we get 700 tokens/s"])
add("cost", "es", "cost", ["0,63 USD"], COST, ["¿Cuánto me sale el millón de tokens si pago 9 USD por hora y saco 4000 tokens/s?"])
add("cost", "en", "cost", ["0.83 USD", "could also be read as an op question"], COST,
    ["price per million tokens at 3 usd/h and 1000 tokens/s on neuron for aten::nonzero heavy workloads"])
add("list", "en", "ops_by_status", ["595", "unsupported"], TPU_PROBE, ["which aten ops are unsupported by torch_tpu 0.2.0?"])
add("list", "es", "ops_by_status", ["595", "ops que se ejecutan como"], TPU_PROBE, ["¿Qué operadores no soporta TorchTPU 0.2.0?"])
add("feature_eol", "en", "eol", ["**No**", "2.30"], XLA_TRAIN, ["can we keep training with torch-xla on trn1 next year?"])
add("feature_eol", "en", "eol", ["maintenance", "Inf2"], XLA_INF_MAINT, ["is pytorch/xla inference on inf2 still supported?"])
add("feature_eol", "en", "eol", ["2.33", "2.34"], XLA_INF_TRN, ["how long do we have for torch-xla inference on Trainium2?"])
add("feature_eol", "en", "eol", ["**No**", "2.29"], NXDT, ["is NxD Training still supported?"])
add("feature_eol", "es", "eol", ["**Hasta Neuron 2.33", "2.34"], NXDI, ["¿hasta cuándo tiene soporte NxD Inference en Trn2?"])
add("policy", "en", "policy", ["cpu fallback with warning", "compile error"], NEURON_POLICY,
    ["what does TorchNeuron do when it hits an op without a kernel?"])
add("policy", "en", "policy", ["cpu fallback if enabled else error"], TPU_POLICY, ["if tpu lacks a kernel, does it raise or fall back?"])
add("policy", "es", "policy", ["cpu fallback if enabled else error"], TPU_POLICY, ["¿qué hace TorchTPU cuando le falta un kernel?"])
add("policy", "en", "policy", ["compile error"], NEURON_POLICY,
    ["does torch.compile on neuron fail when an op can't be lowered?"])
add("policy", "en", "policy", ["cpu fallback with warning"], NEURON_POLICY, ["what happens to unsupported ops on trn2 in eager?"])
add("policy", "es", "policy", ["compile error"], NEURON_POLICY, ["¿qué pasa con los ops sin kernel en modo compile en neuron?"])
add("model", "en", "model", ["llama"], "", ["will our Llama 3.1 8B fine-tune run on trn2?"], case_insensitive=True)
add("model", "es", "model", ["qwen"], "", ["¿Puedo correr Qwen2.5 en una TPU v6e?"], case_insensitive=True)
add("op", "en", "op", ["**Yes**", "aten::nonzero"], TPU_PROBE, ["is nonzero natively supported on tpu v5e?"])
add("op", "es", "op", ["**Presumiblemente sí**", "aten::nonzero"], SNAPSHOT, ["¿es aten::nonzero nativo en neuron 2.33?"])
add("op", "es", "op", ["**Presumiblemente sí**", "aten::cumsum"], SNAPSHOT, ["¿funciona torch.cumsum en trn2?"])
add("support", "en", "support", ["**No**", "Inf2"], TORCHNEURON, ["does TorchNeuron support Inf2?"])
add("support", "en", "support", ["**Yes**", "Trn3"], TORCHNEURON, ["is torch-neuronx supported on trn3?"])
add("platform_eol", "es", "eol", ["Terminó con Neuron 2.27", "Python 3.9"], "announce", ["¿Python 3.9 todavía está soportado en Neuron?"])
add("platform_eol", "en", "eol", ["Ended with Neuron 2.27", "Python 3.9"], "announce", ["when did neuron stop supporting python 3.9?"])


# ---------------------------------------------------------------- fresh eyes r2 (report-r2-29): the tester's questions
add("list", "es", "ops_by_status", ["800", "0.1.1"], TPU_011, ["q ops le faltan a torchtpu 0.1.1"])
add("op", "es", "op", ["aten::nonzero", "(compile)"], "", ["soporta trn2 el op nonzero en modo compile"])
add("platform_eol", "es", "eol", ["Python 3.11", "2027-10"], "", ["fin de soporte de python 3,11 en neuron"])
add("cost", "en", "cost", ["2.31 USD", "0.08333 USD an hour"], COST,
    ["cost per million tokens at 2 USD per day and 10 tokens/s"])
add("cost", "es", "cost", ["0,1786 USD la hora"], COST,
    ["¿cuánto cuesta por millón de tokens a 30 USD por semana y 50 tokens/s?"])
add("cost", "en", "cost", ["--price-per-hour 5 "], COST,
    ["how much per million tokens if the instance is 120 USD per day and we get 900 tokens/s?"])
add("cost", "es", "cost", ["15,43 JPY"], COST, ["precio por millon de tokens a 100 yenes por hora y 1800 tokens/s"])
add("cost", "en", "cost", ["0.83 USD", "1,000 tokens/s"], COST, ["cost per million tokens for 3 dollars per hour at 1e3 tokens/s"])
add("cost", "en", "cost", ["1.16 EUR", "1,800 tokens/s"], COST, ["cost per million at 7,5 € la hora and 1.800 tokens/s"])
add("op", "en", "op", ["**It runs on tpu, though not as one kernel**", "aten::cumsum"], TPU_PROBE,
    ["does torch.cumsum run natively on tpu?"])
add("op", "en", "op", ["**Presumably yes**", "aten::argmax.out"], SNAPSHOT, ["does aten::argmax fall back to cpu on trainium?"])
add("op", "es", "op", ["**Presumiblemente sí**", "aten::argmax.out"], SNAPSHOT, ["¿aten::argmax cae a la cpu en trainium?"])
add("model", "en", "model", ["gemma", "trn1"], "", ["does gemma work on trn1?"], case_insensitive=True)
add("platform_eol", "en", "eol", ["**No end date stated", "2029-04-01"], "", ["when does ubuntu 24.04 support end on trn2?"])
add("platform_eol", "en", "eol", ["**Already ended**", "3.11"], "", ["when does Neuron stop supporting Python 3.11?"])
add("platform_eol", "es", "eol", ["**Sin fecha de fin declarada", "2028-10-01"], "", ["hasta cuando python 3.12 en neuron"])
add("feature_eol", "es", "eol", ["**Sin fecha de fin declarada**", "mantenimiento"], NXDI,
    ["¿hasta cuándo hay soporte de NxD Inference en trn1?"])
add("op", "es", "op", ["aten::native_layer_norm"], TPU_PROBE, ["oye, la F.layer_norm jala en tpu?"])
add("op", "es", "op", ["aten::bmm"], "", ["nn.MultiheadAttention en tpu 0.1.1"])
add("policy", "en", "policy", ["cpu fallback if enabled else error"], TPU_POLICY,
    ["eager vs compile: which one falls back to CPU on TorchTPU?"])


# ---------------------------------------------------------------- fresh eyes r3 (report-r3-29): the tester's questions
add("op", "en", "compare", ["**It runs on neuron and tpu, though not as one kernel, presumably**", "neuron presumed, tpu evidence"],
    TPU_PROBE, ["is F.scaled_dot_product_attention native on neuron 2.14.3.1 and on tpu 0.2.0?"])
add("op", "es", "compare", ["**Se ejecuta en neuron y tpu", "neuron presunto, tpu evidencia"], TPU_PROBE,
    ["¿es F.scaled_dot_product_attention nativo en neuron 2.14.3.1 y en tpu 0.2.0?"])
add("cost", "es", "cost", ["1,67 USD"], COST, ["costo por 1M tokens: 9 USD/h, 1500 tokens/seg",
                                                "costo por 1M tokens: 9 USD/h, 1500 tok/seg",
                                                "costo por millon de tokens a 9 USD la hora y 1500 tokens por seg"])
add("list", "en", "ops_by_status", ["68", "unsupported", "2.14.3.1"], "supported-operators",
    ["show me the unsupported ops for neuron 2.14.3.1"])
add("list", "es", "ops_by_status", ["68", "unsupported", "2.14.3.1"], "supported-operators",
    ["dame las ops que no corren en neuron 2.14.3.1", "muestrame los operadores que no funcionan en neuron 2.14.3.1"])
add("list", "en", "ops_by_status", ["0 ops that run as", "off unless enabled", "800 ops are unsupported"], TPU_POLICY,
    ["which ops fall back to cpu on torchtpu 0.1.1?"])
add("list", "es", "ops_by_status", ["0 ops que se ejecutan como", "apagado salvo que se active", "595 ops no están"],
    TPU_POLICY, ["¿qué operadores caen a la CPU en tpu 0.2.0?"])
add("op", "es", "op", ["**No cae a la CPU: nativo**", "aten::embedding"], TPU_PROBE,
    ["nn.Embedding va en tpu 0.2.0 o cae a cpu?"])
add("op", "en", "op", ["**No fallback: native**", "aten::embedding"], TPU_PROBE, ["does nn.Embedding fall back on tpu 0.2.0?"])
add("model", "en", "model", ["**Presumably no fallbacks**", "whisper"], "", ["whisper large v3 on neuron, any fallbacks?"])
add("model", "es", "model", ["**Presumiblemente no cae a la CPU**", "whisper"], "",
    ["¿whisper large v3 cae a la cpu en neuron?"])
add("support", "en", "release", ["**Neuron SDK 2.34.0**", "2.14.3.0 → 2.14.3.1", "kernels gained"], SDK234,
    ["what changed in the last torchneuron release", "what's new in the latest neuron release?"])
add("support", "es", "release", ["**Neuron SDK 2.34.0**", "2.14.3.0 → 2.14.3.1", "kernels ganados"], SDK234,
    ["¿qué cambió en la última versión de torchneuron?"])


# ---- 29g: how people ask (issue #29 slice g): lists in many phrasings, typo'd targets and products, models near
# a gallery one, SDK versions read as packages, two questions in one, answer shapes. Facts checked against
# kb ops / kb op / kb eol / kb cost / kb gallery on the shipped KB (2026-12-01).
SUPPORTED_OPS = "supported-operators"
TPU_COMPILE = "pypi.org/project/torch-tpu/0.2.0"
GALLERY = "data/gallery census"
# lists at a version: kb ops --target T=V --status S (counts by where the op runs, as the chat says them)
add("list", "en", "ops_by_status", ["68 ops that run as **unsupported**", "2.14.3.1"], SUPPORTED_OPS,
    ["what doesn't work on neuron 2.14.3.1", "list unsupported operators for trainium 2.14.3.1",
     "which ops does torchneuron 2.14.3.1 refuse to run?", "what can't trn2 run on torchneuron 2.14.3.1?"])
add("list", "en", "ops_by_status", ["68 ops that run as **unsupported**", "2.14.3.0"], SUPPORTED_OPS,
    ["which aten ops are unsupported in torch-neuronx 2.14.3.0", "ops that don't run on neuron 2.14.3.0",
     "show the unsupported kernels of torch-neuronx 2.14.3.0"])
add("list", "en", "ops_by_status", ["595 ops that run as **unsupported**", "0.2.0"], TPU_PROBE,
    ["ops missing on tpu 0.2.0", "what can't torchtpu 0.2.0 run?", "what ops lack a kernel on tpu 0.2.0",
     "list the missing ops on tpu 0.2.0", "enumerate the unsupported ops on tpu v5e",
     "which ops are unsupported on tpuu 0.2.0", "give me the ops torch_tpu 0.2.0 can not execute"])
add("list", "en", "ops_by_status", ["800 ops that run as **unsupported**", "0.1.1"], TPU_011,
    ["which kernels are missing on tpu 0.1.1", "everything unsupported on torchtpu 0.1.1 please",
     "what does tpu 0.1.1 not support?"])
add("list", "en", "ops_by_status", ["1,127 ops that run as **fallback**", "2.14.3.1"], SNAPSHOT,
    ["list the fallbacks for trn2", "list what falls back on trainum", "which ops run on the cpu on trainium 2.14.3.1?",
     "show me every fallback op for torchneuron 2.14.3.1", "what falls back in torch-nueronx 2.14"])
add("list", "en", "ops_by_status", ["**1,127** ops run as fallback"], SNAPSHOT,
    ["how many ops fall back on neuron 2.14.3.1?", "number of fallback ops on trn2 2.14.3.1?"])
add("list", "en", "ops_by_status", ["1,128 ops that run as **fallback**", "2.14.3.0"], SNAPSHOT,
    ["ops that fall back on nuron 2.14.3.0", "which operators fall back to the host on neuron 2.14.3.0"])
add("list", "en", "ops_by_status", ["2.14.3.0", "SDK release 2.33.0", "torchneuron 2.13.3.0, 2.14.3.0"], SNAPSHOT,
    ["show me the fallback ops for neuron 2.33", "what falls back on neuron sdk 2.33?"])
add("list", "en", "ops_by_status", ["2,031 ops that run as **decomposed**", "0.2.0"], TPU_PROBE,
    ["give me everything that is decomposed on tpu", "which ops get decomposed on tpu 0.2.0?"])
add("list", "en", "ops_by_status", ["1,991 ops that run as **decomposed**"], SNAPSHOT,
    ["what is decomposed on neuron 2.14.3.1?"])
add("list", "en", "ops_by_status", ["674 ops that run as **native**"], TPU_PROBE,
    ["show all native ops on tpu 0.2.0", "which ops have their own kernel on torchtpu 0.2.0?"])
add("list", "en", "ops_by_status", ["404 ops that run as **native**"], SNAPSHOT, ["what runs natively on neuron 2.14.3.1"])
add("list", "en", "ops_by_status", ["0 ops that run as", "off unless enabled"], TPU_POLICY,
    ["what falls back to cpu on tpu v6e?", "list the cpu fallbacks of torch_tpu 0.2.0"])

# ops, modules, functionals (kb op NAME -t T): typo'd targets are read and said
add("op", "en", "op", ["**Presumably yes**", "aten::nonzero", "native"], SNAPSHOT,
    ["is aten::nonzero okay on trainium", "is nonzero native on neuorn?", "is aten::nonzero fine on trn2?"])
add("op", "en", "op", ["**Native, presumably**", "aten::nonzero", "native"], SNAPSHOT,
    ["nonzero on trainium: native or fallback?"])  # 29k: a question offering choices gets the verdict named
add("op", "en", "op", ["Read 'neuorn' as neuron"], SNAPSHOT, ["does aten::sort fall back on neuorn?"])
add("op", "en", "op", ["Read 'nuron' as neuron", "aten::index_put_"], SNAPSHOT, ["is aten::index_put_ supported on nuron?"])
add("op", "en", "op", ["Read 'tpuu' as tpu", "aten::_unique2", "**Yes**"], TPU_PROBE, ["is torch.unique supported on tpuu?"])
add("op", "en", "op", ["Read 'trainum' as trainium", "aten::convolution"], SNAPSHOT, ["can we use nn.Conv3d on trainum"])
add("op", "en", "op", ["**Probably** on tpu 0.2.0", "17 of 19 ops run on the device"], TPU_PROBE,
    ["nn.TransformerEncoderLayer on tpu?", "does nn.TransformerEncoderLayer work on torchtpu?"])
add("op", "en", "op", ["nearest op by name", "aten::grid_sampler", "decomposed"], SNAPSHOT,
    ["can I use torch.nn.functional.grid_sample on neuron", "does F.grid_sample run on trn2?"])
add("op", "en", "op", ["**Probably** on neuron 2.14.3.1", "10 of 13 ops run on the device"], SNAPSHOT,
    ["does nn.LSTM work on trn2?", "nn.LSTM on trainium?"])
add("op", "en", "op", ["**Probably** on neuron 2.14.3.1", "13 of 16 ops run on the device"], SNAPSHOT, ["nn.GRU on neuron?"])
add("op", "en", "op", ["**Yes** — its own kernel on tpu.", "aten::gelu"], TPU_PROBE, ["is F.gelu native on tpu 0.2.0?"])
add("op", "en", "op", ["**Yes** — runs on tpu (leaves on the device).", "aten::_softmax"], TPU_PROBE,
    ["will F.softmax run on tpu v5e?"])
add("op", "en", "op", ["**Yes** — runs on tpu (leaves on the device).", "aten::upsample_nearest2d"], TPU_PROBE,
    ["F.interpolate on tpu 0.2.0?"])
add("op", "en", "op", ["**Presumably yes** — it falls back", "aten::sort.values_stable"], SNAPSHOT,
    ["does torch.argsort fall back to cpu on neuron?"])
add("op", "en", "op", ["**Presumably no** — native", "aten::masked_select"], SNAPSHOT,
    ["does aten::masked_select fall back on trn2?"])
add("op", "en", "op", ["**Probably** on tpu 0.2.0", "1 of 2 ops run on the device"], TPU_PROBE, ["is nn.GroupNorm ok on tpu 0.2.0"])
add("op", "en", "op", ["**Yes** on neuron-xla", "aten::embedding"], "pytorch-neuron-supported-operators",
    ["can i run nn.Embedding on inf2?"])
add("op", "en", "op", ["SDK release 2.33.0", "**Probably** on neuron 2.14.3.0"], SNAPSHOT,
    ["does nn.MultiheadAttention run on neuron 2.33?"])
add("op", "en", "op", ["the 2.14 line: torchneuron 2.14.3.0, 2.14.3.1", "aten::scaled_dot_product_attention"], SNAPSHOT,
    ["does F.scaled_dot_product_attention work on torch-neuronx 2.14?"])
# two questions in one: two sections, each answered (never one dropped)
add("op", "en", "op", ["Two questions in one", "**(1)**", "12 of 14 ops run on the device", "**(2)**",
                       "raises RuntimeError with TPU inputs"], TPU_COMPILE,
    ["does nn.MultiheadAttention work on tpu and what's tpu 0.2.0 policy for missing ops in compile"])
add("op", "en", "op", ["Two questions in one", "**Presumably no** — native", "1.11 USD per million tokens"], COST,
    ["does nonzero fall back on neuron, and what would 1M tokens cost at 4 USD/h and 1000 tokens/s?"])
add("op", "en", "op", ["Two questions in one", "aten::sort", "2028-10-01"], "devguide.python.org",
    ["is aten::sort native on tpu? also how long is python 3.12 supported on neuron?"])
add("op", "en", "op", ["Two questions in one", "10 of 13 ops run on the device", "ubuntu-22.04"], "ubuntu.com",
    ["is nn.LSTM ok on trn2 and when does ubuntu 22.04 support end?"])
add("policy", "en", "policy", ["Two questions in one", "cpu fallback with warning", "1.39 USD per million tokens"],
    NEURON_POLICY, ["what does neuron do with an op it lacks in eager mode and how much is a million tokens at 6 USD an "
                    "hour and 1200 tokens/s"])
add("list", "en", "ops_by_status", ["Two questions in one", "1,127 ops that run as **fallback**", "**Neuron SDK 2.34.0**"],
    SDK234, ["which ops fall back on neuron 2.14.3.1 and what's new in neuron 2.34?"])
add("model", "en", "model", ["Two questions in one", "Llama 3.1 8B runs fully on the device", "cpu fallback if enabled"],
    TPU_POLICY, ["does llama 3.1 8b run on tpu and what does tpu do with an op it has no kernel for?"])

# policy: what a backend does with an op it lacks (compile on TorchTPU: unknown, with the limitations the KB holds)
add("policy", "en", "policy", ["no vendor rule stated", "406 of 406 ops with no kernel in eager are **unsupported** in compile",
                               "torch.compile backend=inductor", "raises RuntimeError with TPU inputs",
                               "unsupported: NotImplementedError", "rejected: TypeError"], TPU_COMPILE,
    ["what's tpu 0.2.0 policy for missing ops in compile", "what does torchtpu do with a missing op under torch.compile?",
     "in compile mode, what happens on tpu when an op has no kernel?"])
add("policy", "en", "policy", ["cpu fallback if enabled else error"], TPU_POLICY,
    ["what happens on tpu when an op is missing in eager mode?", "does torchtpu fall back to cpu when a kernel is missing?"])
add("policy", "en", "policy", ["compile error"], NEURON_POLICY, ["in compile mode, what does neuron do with an unsupported op?",
                                                                 "torch.compile on trn2: what if an op can't be lowered?"])
add("policy", "en", "policy", ["cpu fallback with warning"], NEURON_POLICY,
    ["what's the fallback policy of trn2 in eager?", "what does nueron do with an op it doesn't have in eager mode?"])

# end of support: the window or date, one headline
add("feature_eol", "en", "eol", ["**No end date stated**", "maintenance mode"], NXDI,
    ["how long is NxD Inference supported on inf2?", "for how long will nxd inference keep support on inf2?"])
add("feature_eol", "en", "eol", ["**Until Neuron 2.33.0**", "Neuron 2.34"], XLA_INF_TRN,
    ["how long will PyTorch/XLA inference be supported on trn2?"])
add("feature_eol", "en", "eol", ["**Until Neuron 2.28.1**", "2.29"], NXDT, ["how long does nxd training last?"])
add("feature_eol", "en", "eol", ["**No**", "2.29.1"], XLA_TRAIN, ["is pytorch/xla training still alive on trn1?",
                                                                 "can I still train with torch-xla on trainum?"])
add("platform_eol", "en", "eol", ["**Ended with Neuron 2.30** (2026-05-21)", "2026-10-01"], PY310,
    ["when does python 3.10 support end on neuron?", "in which release did neuron drop python 3.10?",
     "how long was pyhton 3.10 supported by neuron?"])
add("platform_eol", "en", "eol", ["**Ended with Neuron 2.27**", "Python 3.9"], "announcement-python-3-9-eol",
    ["is python 3.9 still supported on neuron?"])
add("platform_eol", "en", "eol", ["**No**", "not 3.11", "Read 'pyhton' as python"], "2.34.0.html",
    ["is pyhton 3.11 still supported by neuron?"])
add("platform_eol", "en", "eol", ["**No end date stated", "2028-10-01"], "devguide.python.org",
    ["how long is python 3.12 supported on neuron?"])
add("platform_eol", "en", "eol", ["ubuntu-22.04", "2026-05-21", "2027-05-01"], "dlamis.html",
    ["when does ubuntu 22.04 support end?", "when does ubunut 22.04 leave support on trainium?",
     "is ubuntu 22.04 still ok for the neuron dlami?"])
add("platform_eol", "en", "eol", ["**No end date stated; the earliest date in this answer: 2029-04-01**"], "ubuntu.com",
    ["until when is ubuntu 24.04 supported on trn2?"])

# release news
add("support", "en", "release", ["**Neuron SDK 2.34.0**", "torchneuron (torch-neuronx) 2.14.3.1", "Read 'nueron' as neuron"],
    SDK234,
    ["whats new in nueron 2.34"])
add("support", "en", "release", ["2.34.0", "released 2026-11-30"], SDK234, ["what did neuron 2.34 ship?"])
add("support", "en", "release", ["**Neuron SDK 2.34.0**", "2.14.3.0 → 2.14.3.1"], SDK234,
    ["what changed in the newest torchneuron release?"])
add("list", "en", "diff", ["**tpu 0.1.1 → 0.2.0**", "**166** kernels gained"], TPU_PROBE,
    ["what changed between tpu 0.1.1 and 0.2.0?", "what's new in torchtpu 0.2.0?"])

# models: the nearest gallery model is named, an unknown model gets the kb check route
add("model", "en", "model", ["not in the gallery by that name", "Llama 3.1 70B"], GALLERY,
    ["does Llama 3 70B run on trn2?", "does llama 3.2 70b run on trn2?"])
add("model", "en", "model", ["not in the gallery by that name", "Mistral 7B v0.3"], GALLERY, ["mistral 7b v0.2 on tpu?"])
add("model", "en", "model", ["not in the gallery by that name", "Llama 3.1 8B"], GALLERY, ["is llama 3 8b ok on tpu?"])
add("model", "en", "model", ["Qwen2.5 7B runs fully on the device"], GALLERY, ["will qwen 2.5 7b work on neuron?"])
add("model", "en", "model", ["**No fallbacks**", "Whisper large-v3"], GALLERY, ["does whisper large v3 fall back on tpu?"])
add("model", "en", "model", ["**Partly**", "aten::group\\_norm"], GALLERY, ["will stable diffusion 1.5 run on neuron?"])
add("model", "en", "model", ["**Yes** — ResNet-50 runs fully on the device on tpu 0.2.0"], GALLERY, ["resnet-50 on tpu 0.2.0?"])
add("model", "en", "model", ["**Mostly** — Mixtral 8x7B"], GALLERY, ["can I run mixtral on trainium?"])
add("model", "en", "model", ["**I don't know the model", "kb check model.pt2"], "",
    ["does foobarnet 9b run on trn2?", "will my zorkformer 3b work on tpu?"])

# cost (kb cost formula, computed here)
for _q, _p, _r, _cur in [("cost per million tokens at 5.5 EUR per hour and 2400 tok/s on trn2", "5.5", "2400", "EUR"),
                         ("how much for 1M tokens at $3 an hour with 800 tokens per second", "3", "800", "USD"),
                         ("at 9 usd/hr and 3k tokens/s what's a million tokens?", "9", "3000", "USD"),
                         ("trainum at 11 USD an hour doing 4000 tokens/s: price per million tokens?", "11", "4000", "USD"),
                         ("what's 1M tokens on tpuu v5e at 2.2 GBP per hour and 950 tokens/s", "2.2", "950", "GBP")]:
    add("cost", "en", "cost", [f"{format_money(cost_per_million_tokens(Decimal(_p), Decimal(_r)))} {_cur}", "leaves out"],
        COST, [_q])

# more of the same, asked the way people type (informal openings, terse, "need the cpu", counts)
add("list", "en", "ops_by_status", ["0 ops that run as", "off unless enabled"], TPU_POLICY, ["which ops on tpu 0.2.0 need the cpu?"])
add("list", "en", "ops_by_status", ["**800** ops run as unsupported"], TPU_011, ["how many unsupported ops does torchtpu 0.1.1 have?"])
add("list", "en", "ops_by_status", ["595 ops that run as **unsupported**"], TPU_PROBE, ["tpu unsupported ops"])
add("list", "en", "ops_by_status", ["1,127 ops that run as **fallback**"], SNAPSHOT, ["neuron 2.14.3.1 fallback ops"])
add("list", "en", "ops_by_status", ["1,991 ops that run as **decomposed**"], SNAPSHOT,
    ["what gets decomposed on trainium?", "show the decomposed ops for torch-neuronx 2.14.3.1"])
add("list", "en", "ops_by_status", ["68 ops that run as **unsupported**", "2.14.3.1"], SUPPORTED_OPS,
    ["what's missing in torchneuron 2.14.3.1?", "what ops won't run on trn3?"])
add("list", "en", "ops_by_status", ["**404** ops run as native"], SNAPSHOT, ["count the native kernels on neuron 2.14.3.1"])
add("list", "en", "diff", ["**neuron 2.14.3.0 → 2.14.3.1**", "**1** kernels gained"], SNAPSHOT,
    ["what did torchneuron gain in 2.14.3.1?"])
add("op", "en", "op", ["**Presumably yes**", "aten::topk"], SNAPSHOT, ["any idea if aten::topk works on trn2?"])
add("op", "en", "op", ["**Yes** on tpu 0.2.0", "aten::gelu"], TPU_PROBE, ["do you know whether nn.GELU runs on tpu?"])
add("op", "en", "op", ["**Presumably no** — native", "aten::cumsum"], SNAPSHOT, ["is torch.cumsum going to fall back on trainium?"])
add("op", "en", "op", ["**Yes** on tpu 0.2.0", "aten::convolution"], TPU_PROBE, ["would nn.Conv2d run on tpu v6e"])
add("platform_eol", "en", "eol", ["**Yes**", "3.12, 3.13, 3.14"], "devguide.python.org", ["is python 3.13 supported on neuron 2.34?"])
add("feature_eol", "en", "eol", ["**No**", "2.28.1"], NXDT, ["does neuron still support nxd training?"])
add("feature_eol", "en", "eol", ["**No end date stated**", "maintenance mode"], XLA_INF_MAINT,
    ["when is pytorch/xla inference on inf2 going away?"])
add("policy", "en", "policy", ["cpu fallback if enabled else error"], TPU_POLICY, ["is there a cpu fallback on tpu?"])
add("policy", "en", "policy", ["compile error"], NEURON_POLICY, ["what happens to unsupported ops under torch.compile on trainium?"])
add("model", "en", "model", ["Gallery models that run fully on the device on tpu 0.2.0"], GALLERY, ["which models run fully on tpu?"])
add("model", "en", "model", ["deepseek is not in the gallery"], "data/gallery models", ["is deepseek supported on trn2?"])
add("model", "en", "model", ["GPT-2 (124M) runs fully on the device"], GALLERY, ["can i run gpt2 on neuron"])
add("support", "en", "release", ["**0.2.0**"], "pypi.org/project/torch-tpu", ["what's the latest torchtpu version?"])
add("support", "en", "release", ["**Neuron SDK 2.33.0**", "2026-10-19"], "2.33.0.html", ["what's in neuron 2.33?"])
add("cost", "en", "cost", ["0.74 USD per million tokens", "10,000,000 tokens: **7.41 USD**"], COST,
    ["how much would 10M tokens cost at 4 USD/h and 1500 tok/s?"])
for _q, _p, _r, _cur in [("price/1M tokens @ 2 eur/h, 600 tok/s", "2", "600", "EUR"),
                         ("what's the cost per million tokens on a trn2 at $12.5 per hour with 7000 tokens per sec",
                          "12.5", "7000", "USD")]:
    add("cost", "en", "cost", [f"{format_money(cost_per_million_tokens(Decimal(_p), Decimal(_r)))} {_cur}"], COST, [_q])
add("op", "en", "op", ["**Presumably yes**", "aten::silu"], SNAPSHOT, ["hey, does torch.nn.functional.silu run on trn2?"])
add("op", "en", "op", ["**Yes** on tpu 0.2.0 — all 3 of its ops run on the device"], TPU_PROBE, ["how does nn.Linear do on tpu?"])
add("op", "en", "op", ["**No fallback: native**", "aten::embedding"], SNAPSHOT, ["any fallbacks for nn.Embedding on neuron?"])
add("list", "en", "ops_by_status", ["595 ops that run as **unsupported**"], TPU_PROBE, ["what won't run on tpu?"])
add("list", "en", "ops_by_status", ["68 ops that run as **unsupported**"], SUPPORTED_OPS, ["ops neuron 2.14.3.1 cannot run"])
add("platform_eol", "en", "eol", ["**Presumably yes**", "2029-04"], "ubuntu.com", ["is ubuntu 24.04 supported on trn2?"])
add("policy", "en", "policy", ["cpu fallback if enabled else error"], TPU_POLICY,
    ["what does tpu do if an op doesn't exist in eager?"])
add("model", "en", "model", ["Your own model is not one the KB can look up by name", "kb check model.pt2 -t tpu"], "",
    ["does my custom transformer run on tpu?", "will our in-house model work on tpu v5e?"])
add("model", "en", "model", ["**I don't know the model acme-lm-13b**"], "", ["does acme-lm-13b run on trainium?"])
add("model", "en", "model", ["not in the gallery by that name", "Gemma 3 1B"], GALLERY, ["will gemma 3 27b work on tpu?"])
add("op", "en", "op", ["Two questions in one", "**Yes** — its own kernel on tpu.", "0.56 USD per million tokens"], COST,
    ["is nonzero native on tpu, and cost per million tokens at 4 USD/h and 2000 tok/s?"])
add("cost", "en", "cost", ["Two questions in one", "0.56 USD per million tokens", "**Yes** — its own kernel on tpu."],
    TPU_PROBE, ["what does 1M tokens cost at 4 USD/h and 2000 tok/s and is nonzero native on tpu"])
add("op", "en", "op", ["Two questions in one", "10 of 13 ops run on the device", "compile error"], NEURON_POLICY,
    ["does nn.LSTM run on trn2 and the policy for missing ops in compile on neuron?"])


# ---- 29f: Spanish as people write it (informal, regional, no accents, typos, vos/usted), every kind;
# facts checked against kb op / ops / eol / cost / gallery on the shipped KB (2026-12-01).
def _cost_es(price: str, rate: str, cur: str = "USD") -> str:
    money = f"{format_money(cost_per_million_tokens(Decimal(price), Decimal(rate)))} {cur}"
    return money.translate(str.maketrans(",.", ".,"))


PY39 = "announcement-python-3-9-eol"
JAX07 = "announce-no-support-jax-0-7"
add("op", "es", "op", ["**Sí**", "aten::nonzero", "native"], TPU_PROBE,
    ["anda nonzero en tpu?", "anda nonzero en la tpu 0.2.0?", "che, el nonzero anda en la tpu?",
     "oye y nonzero jala en tpu o q", "nonzero funsiona en tpu??", "usted sabe si nonzero corre en la tpu?"])
add("op", "es", "op", ["**Presumiblemente sí**", "aten::nonzero", "heredado"], SNAPSHOT,
    ["vos sabés si el nonzero corre en trainium?", "el nonzero jala en neuron?", "funciona aten::nonzero en trn2?",
     "nonzero anda en trainium 2?"])
add("op", "es", "op", ["**Presumiblemente sí**", "aten::gelu"], SNAPSHOT,
    ["gelu funciona en neuron 2.14.3.1?", "el gelu corre en trainium?"])
add("op", "es", "op", ["**Presumiblemente sí**", "aten::topk"], SNAPSHOT, ["torch.topk anda en neuron?"])
add("op", "es", "op", ["**Sí**", "aten::sort", "hojas en el dispositivo"], TPU_PROBE,
    ["aten::sort corre en la tpu 0.2.0?", "el sort va en tpu?"])
add("op", "es", "op", ["**Presumiblemente sí**", "aten::sort", "fallback"], SNAPSHOT,
    ["sort cae a cpu en neuron?", "el sort se cae a la cpu en trainium?"])
add("op", "es", "op", ["**Presumiblemente sí**", "aten::argmax", "fallback en aten::argmax.out"], SNAPSHOT,
    ["el argmax cae al cpu en trainium?", "argmax hace fallback en neuron?"])
add("op", "es", "op", ["**Probablemente**", "1 de 2 ops se ejecutan en el dispositivo", "con hojas no trazadas"], TPU_PROBE,
    ["nn.GroupNorm funciona en tpu?", "el nn.GroupNorm anda en la tpu?", "se puede usar nn.GroupNorm en tpu v5e?"])
add("op", "es", "op", ["**No cae a la CPU: nativo**", "su único op", "1 de 1 op nativo"], TPU_PROBE,
    ["nn.Embedding va en tpu 0.2.0 o cae al cpu?", "el nn.Embedding se cae a cpu en tpu?"])
add("op", "es", "op", ["**Sí**", "aten::native_layer_norm", "su único op"], SNAPSHOT,
    ["nn.LayerNorm funciona en neuron?", "la nn.LayerNorm anda en trainium?"])
add("op", "es", "op", ["**Sí**", "aten::convolution", "su único op"], SNAPSHOT, ["se puede usar nn.Conv2d en trainium?"])
add("op", "es", "op", ["**Presumiblemente no**", "parte de él recurre a la CPU",
                       "fallback en aten::upsample_nearest2d.out"], SNAPSHOT,
    ["F.interpolate corre nativo en trainium?", "el F.interpolate es nativo en neuron?"])
add("op", "es", "op", ["**Se ejecuta en tpu, aunque no como un solo kernel**", "aten::silu"], TPU_PROBE,
    ["el F.silu es nativo en tpu?"])
add("op", "es", "op", ["**Se ejecuta en tpu, aunque no como un solo kernel**", "aten::silu.out"], TPU_PROBE,
    ["silu corre nativo en la tpu?"])  # 29j: the headline follows aten::silu itself, not its .out overload
add("op", "es", "family", ["ningún op de esa familia es nativo", "41 decomposed, 44 que recurren a la CPU"], "",
    ["el interpolate es nativo en neuron?"])
add("op", "es", "op", ["kernel propio (CompositeImplicitAutograd en el catálogo de ops de torch 2.13.0)",
                       "se ejecuta entonces allí donde se ejecuten los ops"], TPU_PROBE,
    ["el scaled dot product attention anda en la tpu?"])
add("op", "es", "compare", ["**El mismo estado en todos.**", "aten::nonzero"], TPU_PROBE,
    ["compara nonzero entre neuron y tpu", "nonzero en neuron vs tpu"])
add("list", "es", "ops_by_status", ["1.128 ops que se ejecutan como", "fallback", "2.14.3.0"], SNAPSHOT,
    ["que ops caen a cpu en neuron 2.14.3.0?", "q operadores hacen fallback en neuron 2.14.3.0"])
add("list", "es", "ops_by_status", ["**1.128** ops recurren a la CPU en neuron 2.14.3.0"], SNAPSHOT,
    ["cuantos ops hacen fallback en neuron 2.14.3.0?"])
add("list", "es", "ops_by_status", ["800", "0.1.1", "unsupported"], TPU_011,
    ["cuales ops no corren en tpu 0.1.1?", "qué ops le faltan a torchtpu 0.1.1", "que le falta a tpu 0.1.1?"])
add("list", "es", "ops_by_status", ["68", "unsupported", "2.14.3.1"], "supported-operators",
    ["pasame la lista de ops sin soporte en neuron 2.14.3.1", "pásame las ops que no andan en neuron 2.14.3.1"])
add("list", "es", "ops_by_status", ["595", "0.2.0", "unsupported"], TPU_PROBE,
    ["que operadores no estan soportados en tpu 0.2.0", "cuales operadores no tienen soporte en tpu 0.2.0"])
add("list", "es", "diff", ["0.1.1 → 0.2.0", "**166** kernels ganados", "**2** perdidos"], TPU_PROBE,
    ["que cambio entre tpu 0.1.1 y tpu 0.2.0?", "que cambió de tpu 0.1.1 a 0.2.0"])
add("cost", "es", "cost", [_cost_es("6", "2000"), "deja fuera"], COST,
    ["cuánto sale el millón de tokens a 6 dolares la hora y 2000 tokens/s",
     "cuanto me sale el millon de tokens si pago 6 usd la hora y saco 2000 tokens/s",
     "che, cuanto sale 1M de tokens a 6 dólares por hora con 2000 tok/s?",
     "oiga, ¿cuánto le costaría el millón de tokens a 6 USD la hora y 2000 tokens por segundo?"])
add("cost", "es", "cost", [_cost_es("4", "1500", "EUR")], COST, ["cuanto cuesta el millon de tokens a 4 euros la hora y 1500 tokens/seg"])
add("cost", "es", "cost", [_cost_es("12", "3000")], COST, ["precio x millon de tokens, 12 usd/h, 3000 tok/s"])
add("cost", "es", "cost", [_cost_es("2", "900", "GBP")], COST, ["a 2 libras la hora y 900 tokens por segundo cuanto sale el millon?"])
add("cost", "es", "cost", [_cost_es("1.25", "500"), "30 USD por día = 1,25 USD la hora"], COST,
    ["costo del millon de tokens con 30 dolares al dia y 500 tokens/s"])
add("cost", "es", "cost", [_cost_es("48", "12000")], COST, ["sale caro el millon de tokens a 48 usd la hora con 12000 tokens/s?"])
add("support", "es", "release", ["**Neuron SDK 2.34.0**", "2026-11-30", "Lo que termina con Neuron 2.34 (4)"], SDK234,
    ["qué trae la 2.34", "que trae neuron 2.34?", "que hay de nuevo en neuron 2.34", "contame que trae la 2.34 de neuron"])
add("support", "es", "release", ["**neuron-sdk 2.34.0** (publicada el 2026-11-30)"], SDK234, ["cuando salio neuron 2.34?"])
add("support", "es", "release", ["**2.14.3.1**", "torchneuron"], "torchao-neuron.html",
    ["cual es la ultima version de torchneuron?"])
add("support", "es", "release", ["Python: **3.12, 3.13, 3.14**"], SDK234, ["que version de python soporta neuron 2.34?"])
add("support", "es", "support", ["**No**", "Trn1", "“the 2.33 support matrix covers Trn2 and Trn3 only”"], TORCHNEURON,
    ["torchneuron anda en trn1?", "se puede usar torchneuron en una trn1?"])
add("policy", "es", "policy", ["“cpu fallback with warning” (fallback a la CPU con aviso)"], NEURON_POLICY,
    ["qué pasa si a neuron le falta un op", "que pasa si a neuron le falta un operador en modo eager",
     "y si no hay kernel en neuron?", "si un op no esta soportado en trn2 cae a cpu o da error?",
     "neuron avisa cuando un op cae a cpu?"])
add("policy", "es", "policy", ["“compile error” (error de compilación)", "torch.compile"], NEURON_POLICY,
    ["que modo de fallback tiene neuron en compile?", "en modo compile, neuron hace fallback o falla?",
     "en torch.compile, ¿neuron hace fallback a cpu o falla?"])
add("op", "es", "op", ["aten::sort", "fallback en aten::sort.values_stable"], SNAPSHOT, ["funcoina aten::sort en neuorn?"])
add("op", "es", "op", ["**Sí**", "sus 3 ops se ejecutan en el dispositivo"], SNAPSHOT, ["nn.Linear anda en neuron?"])
add("op", "es", "op", ["**No cae a la CPU**", "ninguno de sus 14 ops hace fallback"], SNAPSHOT,
    ["nn.MultiheadAttention se cae a cpu en neuron?"])
add("list", "es", "ops_by_status", ["1.127 ops que se ejecutan como", "fallback", "2.14.3.1"], SNAPSHOT,
    ["que operadores se van a cpu en trainium?", "lista las ops que hacen fallback en neuron"])
add("list", "es", "ops_by_status", ["595", "unsupported"], TPU_PROBE, ["¿que ops no tiene tpu 0.2.0?"])
add("list", "es", "ops_by_status", ["**68** ops no están soportados en neuron 2.14.3.1"], "supported-operators",
    ["cuantas ops no soporta neuron 2.14.3.1"])
add("policy", "es", "policy", ["“cpu fallback with warning”"], NEURON_POLICY, ["neuron tira error o hace fallback?"])
add("policy", "es", "policy", ["“cpu fallback if enabled else error”"], TPU_POLICY, ["tpu tira error si falta un op?"])
add("support", "es", "release", ["**Neuron SDK 2.34.0**", "2026-11-30"], SDK234,
    ["que salio en neuron 2.34", "que novedades hay en la 2.34?"])
add("cost", "es", "cost", [_cost_es("40", "9000")], COST,
    ["cuanto sale el millon de tokens en una trn2 a 40 dolares la hora con 9000 tokens/s"])
add("cost", "es", "cost", [_cost_es("2.5", "600", "EUR")], COST, ["a cuanto sale el millon de tokens con 2,5 € por hora y 600 tok/s"])
add("cost", "es", "cost", [_cost_es("3", "1200")], COST,
    ["cuánto cuesta 1 millón de tokens a 1.200 tokens por segundo y 3 usd la hora"])
add("platform_eol", "es", "eol", ["2029-10-01", "3.12, 3.13, 3.14"], "devguide.python.org",
    ["¿hasta cuando hay soporte para python 3.13 en neuron?"])
add("platform_eol", "es", "eol", ["**Sí**", "3.12, 3.13, 3.14", "2030-10"], "devguide.python.org",
    ["python 3.14 está soportado en neuron 2.34?"])
add("model", "es", "model", ["**Sí**", "BERT base uncased"], "", ["el bert anda en tpu?"])
add("model", "es", "model", ["**En parte**", "ResNet-50", "aten::max\\_pool2d"], "", ["que le falta a resnet-50 en trainium?"])
add("feature_eol", "es", "eol", ["**No**", "2.34", "2.33.0"], NXDI, ["sigue habiendo soporte de nxd inference en trn2?"])
add("op", "es", "op", ["**Sí**", "aten::convolution", "su único op"], TPU_PROBE, ["tio, funciona el nn.Conv1d en tpu?"])
add("op", "es", "op", ["**Sí**", "no op `nonzro`; leído como `nonzero`"], TPU_PROBE, ["el nonzro anda en tpu?"])
add("list", "es", "ops_by_status", ["0 ops que se ejecutan como", "apagado salvo que se active"], TPU_POLICY,
    ["dame las ops q caen a cpu en tpu 0.2.0"])
add("list", "es", "diff", ["2.14.3.0 → 2.14.3.1", "**1** kernels ganados"], SNAPSHOT, ["que cambio en torchneuron 2.14.3.1?"])
add("cost", "es", "cost", [_cost_es("10", "2500", "EUR")], COST,
    ["si pago 10 euros/hora y genero 2500 tokens por segundo, cuanto me cuesta el millon?"])
add("cost", "es", "cost", [_cost_es("3", "800")], COST, ["cuanto saldria procesar un millon de tokens a 3 usd/h con 800 tok/s"])
add("feature_eol", "es", "eol", ["**No**", "2.29", "2.28.1"], "announce-eos-nxdt", ["el nxd training sigue vivo?"])
add("feature_eol", "es", "eol", ["mantenimiento", "2.31"], "announce-maintenance-pytorch-xla-inference",
    ["pytorch/xla para inferencia en inf2 sigue teniendo soporte?"])
add("platform_eol", "es", "eol", ["**No**", "no 3.11", "2027-10"], "devguide.python.org",
    ["se sigue soportando python 3.11 en neuron?"])
add("policy", "es", "policy", ["“cpu fallback with warning”"], NEURON_POLICY,
    ["que hace neuron si no encuentra kernel para un op?"])
add("policy", "es", "policy", ["“compile error” (error de compilación)"], NEURON_POLICY,
    ["que hace torch.compile en neuron si un op no se puede bajar?"])
add("support", "es", "release", ["**Neuron SDK 2.33.0**", "2026-10-19"], "release-notes/2.33.0.html",
    ["que novedades trajo neuron 2.33?"])
add("model", "es", "model", ["**En parte**", "CLIP ViT-B/32", "aten::argmax"], "", ["el clip vit-b/32 va en trainium?"])
add("model", "es", "model", ["**Sí**", "GPT-2 (124M)"], "", ["gpt2 funciona en tpu?"])
add("platform_eol", "es", "eol", ["**Terminó con Neuron 2.30**", "Python 3.10"], PY310,
    ["python 3.10 no tiene soporte en neuron?"])
add("op", "es", "op", ["aten::nonzero", "native"], TPU_PROBE, ["que hay con nonzero en tpu?"])
add("policy", "es", "policy", ["“cpu fallback if enabled else error”", "si está activado"], TPU_POLICY,
    ["y si tpu no tiene kernel para un op?", "que hace torch_tpu si le falta un op", "tpu hace fallback a cpu por defecto?",
     "la politica de fallback de tpu cual es?"])
add("platform_eol", "es", "eol", ["**Ya terminó**", "no 3.11", "2027-10"], "devguide.python.org",
    ["hasta cuándo dan soporte a python 3.11 en neuron?"])
add("platform_eol", "es", "eol", ["Sin fecha de fin declarada", "2028-10-01", "3.12, 3.13, 3.14"], "devguide.python.org",
    ["hasta cuando dan soporte a python 3.12 en neuron"])
add("platform_eol", "es", "eol", ["**Terminó con Neuron 2.30**", "Python 3.10"], PY310,
    ["cuando deja de soportarse python 3.10 en neuron", "usted sabe si python 3.10 sigue soportado en neuron?"])
add("platform_eol", "es", "eol", ["**Terminó con Neuron 2.27**", "2025-12-19", "Python 3.9"], PY39,
    ["cuando termina python 3.9 en neuron"])
add("platform_eol", "es", "eol", ["Presumiblemente", "Ubuntu 22.04", "2027-05-01"], TORCHNEURON,
    ["cuando deja de soportarse ubuntu 22.04 en trn2", "ubuntu 22.04 sigue teniendo soporte en neuron?"])
add("platform_eol", "es", "eol", ["Sin fecha de fin declarada", "2029-04-01", "“supported”"], TORCHNEURON,
    ["hasta cuando soportan ubuntu 24.04 en trainium"])
add("feature_eol", "es", "eol", ["**Hasta Neuron 2.29.1**", "2.30"], XLA_TRAIN,
    ["hasta cuando hay soporte de pytorch/xla para entrenamiento en trn1?"])
add("feature_eol", "es", "eol", ["**No**", "2.30", "2.29.1"], XLA_TRAIN,
    ["el entrenamiento con pytorch/xla en trn2 sigue soportado?"])
add("feature_eol", "es", "eol", ["mantenimiento", "Inf2"], NXDI,
    ["se acaba el soporte de nxd inference en inf2?"])
add("feature_eol", "es", "eol", ["**Hasta Neuron 2.33.0**", "2.34"], NXDI, ["hasta cuándo dura nxd inference en trn2?"])
add("feature_eol", "es", "eol", ["**Ya terminó (2026-11-30, con Neuron 2.34)**", "2.34", "2.33.0"], XLA_INF_TRN,
    ["cuando termina pytorch/xla inference en trn2", "cuando se deja de soportar pytorch/xla en trn3?"])
add("feature_eol", "es", "eol", ["**Terminó con Neuron 2.29**", "PyTorch 2.7"], "components/pytorch.html",
    ["fin de soporte de pytorch 2.7 en neuron"])
add("feature_eol", "es", "eol", ["2026-05-21", "JAX 0.7"], JAX07, ["jax 0.7 hasta cuando tiene soporte?"])
add("model", "es", "model", ["**En su mayoría**", "Mixtral 8x7B", "transformers::grouped\\_mm\\_fallback"], "",
    ["mixtral anda en trainium?", "che, mixtral corre en trn2?"])
add("model", "es", "model", ["**Sí**", "Llama 3.1 8B", "los 35 ops"], "", ["llama 3.1 8b funciona en tpu?"])
add("model", "es", "model", ["**Sí**", "Qwen3 8B"], "", ["se puede correr qwen3 8b en tpu?"])
add("model", "es", "model", ["**Presumiblemente no cae a la CPU**", "Whisper large-v3"], "",
    ["whisper large v3 cae a cpu en neuron?"])
add("model", "es", "model", ["**En parte**", "ResNet-50", "3 ops en la CPU del host", "0.68% de los FLOPs"], "",
    ["resnet-50 va bien en trainium?", "resnet 50 anda en trn2?"])
add("model", "es", "model", ["**En parte**", "T5 base", "aten::min.other"], "", ["el t5 corre en neuron?"])
add("model", "es", "model", ["**En parte**", "Stable Diffusion 1.5 UNet", "aten::group\\_norm"], "",
    ["stable diffusion 1.5 funciona en trn2?"])
add("model", "es", "model", ["**No cae a la CPU**", "EfficientNet-B0"], "", ["efficientnet b0 en tpu, hay fallback?"])
add("model", "es", "model", ["32 de 47 modelos de la galería se ejecutan enteros en el dispositivo"], "",
    ["que modelos corren en neuron?", "q modelos andan en trainium"])


# ---- 29i: end of support of anything the KB names (one statement, not the vendor's whole list), release news by
# version and package (an unknown release says so and names the newest), what a release ended, the fallback
# policy of the version asked and its default; facts checked against kb eol / kb ask on the shipped KB (2026-12-01).
VLLM_V0 = "announce-no-support-vllm-v0"
TNX = "announce-intent-eos-tnx"
NEURON_LS = "announce-intent-eos-neuron-ls-json"
TPU_011_POLICY = "torch_tpu/eager/tpu_aten_kernels.cc"
add("feature_eol", "en", "eol", ["vLLM V0", "2026-02-26", "Neuron 2.28"], VLLM_V0,
    ["does neuron still support vllm v0?", "vllm V0 on trainium: still ok?", "is vllm v0 deprecated on neuron?",
     "when did vLLM V0 support end on neuron?"])
add("feature_eol", "en", "eol", ["Transformers NeuronX", "2025-09-18", "Neuron 2.26"], TNX,
    ["is transformers neuronx still supported?", "when did transformers-neuronx reach end of support?",
     "transformers-neuronx end of support date?", "is transformers-neuronx eol already?"])
add("feature_eol", "en", "eol", ["neuron-ls", "2026-11-30", "--output-format json"], NEURON_LS,
    ["is neuron-ls -j output deprecated?", "when does the neuron-ls json output end?",
     "neuron-ls --json-output still supported?"])
add("feature_eol", "es", "eol", ["vLLM V0", "2026-02-26", "Neuron 2.28"], VLLM_V0,
    ["vllm v0 todavia tiene soporte en neuron?", "cuando se dejo de soportar vllm v0 en trainium?",
     "vllm v0 sigue vivo en neuron?"])
add("feature_eol", "es", "eol", ["Transformers NeuronX", "2025-09-18", "Neuron 2.26"], TNX,
    ["transformers-neuronx esta deprecado?", "transformers neuronx ya no esta soportado?",
     "fin de soporte de transformers-neuronx?"])
add("feature_eol", "es", "eol", ["neuron-ls", "2026-11-30", "--output-format json"], NEURON_LS,
    ["neuron-ls -j se va a eliminar?", "la opcion --json-output de neuron-ls sigue soportada?",
     "cuando quitaran la salida json de neuron-ls?"])
add("feature_eol", "en", "eol", ["neuron-ls", "NxD Inference", "PyTorch/XLA", "2026-11-30"], NEURON_LS,
    ["what was dropped in neuron 2.34?", "what did Neuron 2.34 stop supporting?"])
add("feature_eol", "es", "eol", ["neuron-ls", "NxD Inference", "PyTorch/XLA", "2026-11-30"], NEURON_LS,
    ["que se dejo de soportar en neuron 2.34?", "que dejo de tener soporte con la 2.34 de neuron?"])
add("support", "en", "release", ["**Unknown**", "Neuron SDK 2.34.0", "2026-11-30"], "release-notes/2.34.0",
    ["anything new in Neuron 2.36?", "what's new in neuron 2.40", "release notes for neuron 2.35?"])
add("support", "es", "release", ["**Desconocido**", "Neuron SDK 2.34.0", "2026-11-30"], "release-notes/2.34.0",
    ["novedades de neuron 2.35?", "que trae neuron 2.37?"])
add("support", "en", "release", ["2026-10-19", "torchneuron 2.13.3.0", "Trn2, Trn3", "beta"], "release-notes/2.33.0",
    ["what did neuron 2.33 bring for pytorch?", "what's new in Neuron 2.33 for native pytorch?"])
add("support", "es", "release", ["2026-10-19", "torchneuron (torch-neuronx) 2.13.3.0", "Trn2, Trn3", "beta"],
    "release-notes/2.33.0", ["que trajo la 2.33 de neuron?", "que trae neuron 2.33 para pytorch nativo?"])
add("support", "en", "release", ["0.18.0+neuron.1", "2.34.0", "MXFP8", "Trainium3"], "torchao-neuron.html",
    ["what's new in torchao-neuron?", "torchao-neuron: is it new? what's in it?"])
add("support", "es", "release", ["**Sí, es nuevo**", "0.18.0+neuron.1", "MXFP8", "Trainium3"], "torchao-neuron.html",
    ["torchao-neuron es nuevo?", "que novedades trae torchao-neuron?"])
add("policy", "en", "policy", ["cpu fallback with warning", "get_fallback_ops"], NEURON_POLICY,
    ["what does trainium do in eager mode when an op has no neuron kernel?",
     "my model hits an op with no device kernel on trn2 in eager, what happens?"])
add("policy", "en", "policy", ["TorchTPU 0.2.0", "by default, an error"], TPU_POLICY,
    ["torchtpu 0.2.0: does a missing kernel error or fall back to cpu by default?",
     "tpu 0.2.0 missing op: crash or cpu fallback?"])
add("policy", "es", "policy", ["TorchTPU 0.2.0", "por defecto, un error"], TPU_POLICY,
    ["torchtpu 0.2.0 hace fallback a cpu o da error si falta un kernel?", "en tpu 0.2.0 un op sin kernel se cae?"])
add("policy", "en", "policy", ["TorchTPU 0.1.1", "fallback_mode", "by default, an error"], TPU_011_POLICY,
    ["on torch_tpu 0.1.1 what happens to an op without a kernel?", "torchtpu 0.1.1: what if an op has no kernel?"])
add("policy", "es", "policy", ["TorchTPU 0.1.1", "fallback_mode", "por defecto, un error"], TPU_011_POLICY,
    ["que pasa en tpu 0.1.1 si un op no tiene kernel?", "con torchtpu 0.1.1 que hace un op sin kernel?"])
# ---- 29j: held-out m4's op, list and mixed misses, as paraphrases (never the m4 questions themselves); facts
# checked against kb op / ops / eol --stack / cost / gallery --graph training on the shipped KB (2026-12-01).
TORCHAO = "about-torchao-neuron"
INF1_OPS = "neuron-cc-ops-pytorch"
XLA_OPS = "pytorch-neuron-supported-operators"
add("op", "en", "op", ["**Yes**", "aten::_scaled_mm", "TorchAO Neuron MXFP8"], TORCHAO,
    ["is aten::_scaled_mm native on trainium?", "does aten::_scaled_mm run on neuron 2.14.3.1?",
     "can I use aten::_scaled_mm on neuron for mxfp8 matmuls?"])
add("op", "es", "op", ["**Sí**", "aten::_scaled_mm", "TorchAO Neuron MXFP8"], TORCHAO,
    ["aten::_scaled_mm corre en neuron?", "¿está soportado aten::_scaled_mm en trainium?"])
add("op", "en", "op", ["**Presumably no**", "inf1 torch-neuron 2.9.1.0", "1.0.1001.0"], INF1_OPS,
    ["is aten::embedding supported on inf1?", "does aten::embedding run on inferentia 1 with torch-neuron?"])
add("op", "es", "op", ["**Presumiblemente no**", "inf1 torch-neuron 2.9.1.0", "lanza un error"], INF1_OPS,
    ["aten::embedding funciona en inf1?", "el aten::embedding corre en inferentia1 (torch-neuron)?"])
add("list", "en", "ops_by_status", ["5 ops that run as **unsupported**", "aten::tf_padding", "The KB knows 428 ops"],
    INF1_OPS, ["which ops are unsupported on inf1 torch-neuron 2.9.1.0?", "list the ops torch-neuron can't run on inf1"])
add("list", "es", "ops_by_status", ["5 ops que se ejecutan como **unsupported**", "aten::tf_padding", "El KB conoce 428 ops"],
    INF1_OPS, ["que ops no soporta inf1 con torch-neuron 2.9.1.0?", "cuales operadores no corren en inferentia 1?"])
add("list", "en", "ops_by_status", ["**neuron-xla** 2.9.0.2.15.32035", "105 ops **native**", "3,017 ops **unknown**"],
    XLA_OPS, ["what ops does neuron torch-xla 2.9.0.2.15 cover?", "which ops does the neuron xla op list include?"])
add("list", "es", "ops_by_status", ["**neuron-xla** 2.9.0.2.15.32035", "105 ops **native**", "3.017 ops **unknown**"],
    XLA_OPS, ["que ops cubre neuron pytorch/xla 2.9.0.2.15?", "cuales operadores incluye la lista de neuron torch-xla?"])
add("list", "en", "ops_by_status", ["(compile): 1,184 ops that run as **unsupported**", "_Presumed:"], SNAPSHOT,
    ["which ops don't compile with torch.compile on neuron 2.14.3.1?", "list the ops that can't compile on neuron 2.14.3.1"])
add("list", "es", "ops_by_status", ["(compile): 1.184 ops que se ejecutan como **unsupported**", "_Presuntos:"], SNAPSHOT,
    ["cuales ops no compilan en neuron 2.14.3.1 con torch.compile?",
     "que operadores no se compilan con torch.compile en neuron 2.14.3.1?"])
_C1, _C2 = (format_money(cost_per_million_tokens(Decimal(p), Decimal(r))) for p, r in (("4.8", "2400"), ("1.2", "700")))
add("cost", "en", "cost", ["**v5e is cheaper**", _C1, _C2, "1.17×"], COST,
    ["trn2 at 4.8/h with 2400 tok/s vs v5e at 1.2/h with 700 tok/s: which is cheaper per million tokens?"])
add("cost", "en", "cost", ["**trn1 is cheaper**", "0.41 USD", "0.50 USD", "1.21×"], COST,
    ["compare trn1 at 1.34 USD/h doing 900 tokens/s and tpu v6e at 2.7 USD/h doing 1500 tokens/s"])
add("cost", "es", "cost", ["**trn2 es más barato**", _cost_es("5.2", "2600"), _cost_es("2.7", "1100"), "1,23×"], COST,
    ["comparar: trn2 a 5,2 USD la hora con 2600 tok/s vs tpu v6e a 2,7 USD la hora con 1100 tok/s, cual sale mas "
     "barato por millon?"])
add("platform_eol", "en", "eol", ["not 3.11", "not trn1", "Ubuntu 22.04 — end of support"], "2.33.0.html",
    ["we run neuron 2.33 on python 3.11 and ubuntu 22.04 with trn1, is that ok?"])
add("platform_eol", "en", "eol", ["instance=trn2", "Python 3.10"], PY310,
    ["our stack: neuron 2.34, python 3.10, ubuntu 22.04, trn2 — any problem?"])
add("platform_eol", "es", "eol", ["no 3.11", "instance=trn1"], "2.33.0.html",
    ["estamos en neuron 2.33 con python 3.11 y ubuntu 22.04 en trn1, hay algun problema?"])
add("op", "es", "op", ["_Dos preguntas en una", "aten::sort", "terminó con Neuron 2.34"], XLA_INF_TRN,
    ["dos cosas: aten::sort es nativo en tpu 0.2.0? y cuando termino pytorch/xla para inferencia en trn2?"])
add("op", "en", "policy", ["_Two questions in one", "falls back to the CPU", "aten::argmax"], SNAPSHOT,
    ["what does neuron do with ops without a kernel in eager, and is torch.argmax one of them?"])
add("op", "es", "policy", ["_Dos preguntas en una", "aten::sort", "fallback"], SNAPSHOT,
    ["que pasa en neuron con ops sin kernel en eager y torch.sort es uno de ellos?"])
add("model", "en", "model", ["**Presumably yes**", "Llama 3.2 1B", "the training graph"], "",
    ["can I fine-tune llama 3.2 1b on trn2?"])
add("model", "es", "model", ["Llama 3.2 1B", "el grafo de entrenamiento"], "",
    ["se puede entrenar llama 3.2 1b en trainium?"])
add("model", "es", "model", ["**En parte**", "ResNet-50", "el grafo de entrenamiento"], "",
    ["puedo hacer finetuning de resnet-50 en trn2?"])

# ---- 29m: release questions by product or topic (a Neuron SDK release filtered to PyTorch/XLA, NxD Inference,
# TorchNeuron...), a release's requirements and date, gallery headlines that say what is known first (Mostly, the
# share of op calls on the device) and only the models asked; facts checked against kb ask on the shipped KB.
SDK234 = "release-notes/2.34.0"
GALLERY_LIST = "data/gallery/models.jsonl"
add("support", "en", "release", ["**Neuron SDK 2.34.0 for PyTorch/XLA**", "2026-11-30", "inference on Trn2 and Trn3"], XLA_INF_TRN,
    ["what changed for pytorch/xla users in neuron 2.34?",
     "neuron 2.34: anything changing for torch-xla folks?",
     "does neuron 2.34 affect my pytorch xla setup?",
     "what's new for torch_xla in neuron 2.34",
     "waht changed for pytorch/xla in neuron 2.34"])
add("support", "en", "release", ["**Neuron SDK 2.34.0 for NxD Inference**", "2026-11-30", "Trn2 and Trn3"], NXDI,
    ["what changed in neuron 2.34 for nxd inference users?",
     "nxdi users: what does neuron 2.34 change?",
     "neuron 2.34 impact on neuronx-distributed-inference?",
     "whats new for NxD Inference in 2.34"])
add("support", "en", "release", ["**Neuron SDK 2.34.0 for TorchNeuron**", "torchneuron 2.14.3.1", "2.14.3.0 → 2.14.3.1"], SDK234,
    ["what's new for torchneuron in neuron 2.34?",
     "neuron 2.34 changes for the native pytorch backend?",
     "what did 2.34 bring for torch neuron?",
     "torch-neuronx updates in neuron 2.34?"])
add("support", "en", "release", ["**Neuron SDK 2.30.0 for JAX**", "JAX 0.7"], "",
    ["what changed for jax users in neuron 2.30?",
     "did neuron 2.30 drop anything for jax?"])
add("support", "en", "release", ["**Neuron SDK 2.30.0 for PyTorch/XLA**", "training"], "",
    ["neuron 2.30 pytorch/xla changes?",
     "what did neuron 2.30 remove for pytorch/xla?"])
add("support", "en", "release", ["**Neuron SDK 2.29.0 for NxD Training**", "NxDT"], "",
    ["what did neuron 2.29 remove for nxd training?",
     "nxdt users, what changed in neuron 2.29?"])
add("support", "en", "release", ["**What torch_tpu 0.2.0 requires**", "Requires-Python >=3.11", "torch >=2.11.0,<=2.15.0"], TPU_COMPILE,
    ["what does torch_tpu 0.2.0 need (python, torch)?",
     "torchtpu 0.2.0 requirements?",
     "which python and torch does tpu 0.2.0 require?",
     "dependencies of torch-tpu 0.2.0?",
     "torch_tpu 0.2.0 requirments"])
add("support", "en", "release", ["**What torch_tpu 0.2.0 requires**", "JAX: not named in its record"], TPU_COMPILE,
    ["does torch_tpu 0.2.0 require jax?",
     "what does torch_tpu 0.2.0 require: python, torch, jax?"])
add("support", "en", "release", ["**torch_tpu 0.2.0 was released in 2026-10**"], TPU_COMPILE,
    ["when did torch_tpu 0.2.0 come out?",
     "torchtpu 0.2.0 release date?",
     "when was tpu 0.2.0 published?"])
add("support", "en", "release", ["was released on 2026-10-19"], "",
    ["when was torchneuron 2.13.3.0 released?",
     "release date of torchneuron 2.14.3.0?"])
add("support", "es", "release", ["**Neuron SDK 2.34.0 para PyTorch/XLA**", "2026-11-30"], XLA_INF_TRN,
    ["¿qué cambió en neuron 2.34 para quienes usan pytorch/xla?",
     "¿cómo afecta neuron 2.34 a pytorch/xla?",
     "que cambio en la 2.34 para los usuarios de torch-xla"])
add("support", "es", "release", ["**Neuron SDK 2.34.0 para NxD Inference**", "2026-11-30"], NXDI,
    ["novedades de neuron 2.34 para nxd inference",
     "q cambio en 2.34 para los usuarios de nxdi?"])
add("support", "es", "release", ["**Neuron SDK 2.34.0 para TorchNeuron**", "torchneuron 2.14.3.1"], SDK234,
    ["que trae la 2.34 para torchneuron?",
     "¿qué hay de nuevo para torchneuron en neuron 2.34?"])
add("support", "es", "release", ["**Neuron SDK 2.30.0 para JAX**", "JAX 0.7"], "",
    ["¿qué se quitó en neuron 2.30 para jax?"])
add("support", "es", "release", ["**Lo que requiere torch_tpu 0.2.0**", "Requires-Python >=3.11"], TPU_COMPILE,
    ["requisitos de torchtpu 0.2.0",
     "¿qué python y torch requiere torch_tpu 0.2.0?",
     "dependencias de torch-tpu 0.2.0?"])
add("support", "es", "release", ["**torch_tpu 0.2.0 se publicó en 2026-10**"], TPU_COMPILE,
    ["¿cuándo salió torch_tpu 0.2.0?",
     "fecha de lanzamiento de torchtpu 0.2.0",
     "cuando se publico tpu 0.2.0?"])
add("model", "en", "model", ["**Mostly**", "Mixtral 8x7B", "97.1% of op calls on the device", "(a custom op)", "verdicts presumed"], GALLERY,
    ["mixtral 8x7b on trainium 2, does it work?",
     "can mixtrl run on trn2?",
     "is mixtral ok on neuron?"])
add("model", "es", "model", ["**En su mayoría**", "Mixtral 8x7B", "97.1% de las llamadas a ops en el dispositivo"], GALLERY,
    ["¿corre mixtral en trn2?",
     "mixtral funciona en trainium?"])
add("model", "en", "model", ["**Mostly**", "Qwen3-30B-A3B (MoE)", "97.5% of op calls on the device"], GALLERY,
    ["will qwen3 30b a3b run on trn2?"])
add("model", "en", "model", ["**Partly**", "ResNet-50", "68.6% of op calls on the device"], GALLERY,
    ["resnet50 on trn2, will it run?"])
add("model", "es", "model", ["**En parte**", "EfficientNet-B0", "74.0% de las llamadas a ops en el dispositivo"], GALLERY,
    ["¿efficientnet b0 corre en trainium?"])
add("model", "en", "model", ["**Presumably yes**", "Llama 3.1 8B"], GALLERY,
    ["will llama 3 8b run on trn2?"])
add("model", "en", "model", ["**Yes**", "BERT base uncased", "tpu 0.2.0"], GALLERY,
    ["does bert base work on tpu?"])
add("model", "es", "model", ["**Sí**", "Whisper small", "tpu 0.2.0"], GALLERY,
    ["¿funciona whisper en tpu?"])
add("model", "en", "model", ["sdxl is not in the gallery", "Stable Diffusion 1.5 UNet"], GALLERY_LIST,
    ["sdxl on tpu?"])
add("model", "es", "model", ["sdxl no está en la galería", "Stable Diffusion 1.5 UNet"], GALLERY_LIST,
    ["¿corre sdxl en trainium?"])
add("model", "en", "model", ["**Mostly**", "**Yes** — Mixtral 8x7B runs fully on the device on tpu"], GALLERY,
    ["will mixtral run on trn2 and on tpu?"])
add("support", "en", "release", ["**Neuron SDK 2.34.0 for PyTorch/XLA**"], XLA_INF_TRN,
    ["i'm on pytorch xla, what does neuron 2.34 mean for me?",
     "is there anything breaking for torch-xla in the 2.34 release of neuron?",
     "pytorch/xla + neuron 2.34: what changed?",
     "what chagned in neuron 2.34 for xla"])
add("support", "en", "release", ["**Neuron SDK 2.34.0 for NxD Inference**"], NXDI,
    ["we use nxd-inference: what's changed in neuron 2.34?",
     "neuron sdk 2.34 release notes for nxdi?"])
add("support", "en", "release", ["**Neuron SDK 2.34.0 for TorchNeuron**", "torchneuron 2.14.3.1"], SDK234,
    ["neuron 2.34 highlights for torchneuron",
     "what's in neuron 2.34 for torch-neuronx users?"])
add("support", "en", "release", ["**Neuron SDK 2.34.0 for TorchAO Neuron**", "0.18.0+neuron.1"], SDK234,
    ["what's new for torchao in neuron 2.34?"])
add("support", "en", "release", ["**What torch_tpu 0.2.0 requires**", "Requires-Python >=3.11"], TPU_COMPILE,
    ["what python version does torch_tpu 0.2.0 require?",
     "prerequisites for torchtpu 0.2.0?",
     "what do i need installed for torch_tpu 0.2.0?"])
add("support", "en", "release", ["**torch_tpu 0.2.0 was released in 2026-10**"], TPU_COMPILE,
    ["what date did torch_tpu 0.2.0 ship?",
     "when did torchtpu 0.2.0 land?",
     "torch_tpu 0.2.0 - when was it released?"])
add("support", "es", "release", ["**Neuron SDK 2.34.0 para PyTorch/XLA**"], XLA_INF_TRN,
    ["uso pytorch/xla, ¿qué cambia con neuron 2.34?",
     "¿qué trae neuron 2.34 para pytorch xla?",
     "cambios de neuron 2.34 para torch-xla"])
add("support", "es", "release", ["**Neuron SDK 2.34.0 para NxD Inference**"], NXDI,
    ["¿que cambia en neuron 2.34 para nxdi?",
     "nxd inference en neuron 2.34, ¿qué cambió?"])
add("support", "es", "release", ["**Lo que requiere torch_tpu 0.2.0**"], TPU_COMPILE,
    ["¿qué necesito para instalar torch_tpu 0.2.0?",
     "¿qué versión de python requiere torchtpu 0.2.0?"])
add("support", "es", "release", ["**torch_tpu 0.2.0 se publicó en 2026-10**"], TPU_COMPILE,
    ["¿en qué fecha salió torch_tpu 0.2.0?",
     "cuándo lanzaron torchtpu 0.2.0"])
add("model", "en", "model", ["**Mostly**", "Mixtral 8x7B", "97.1% of op calls on the device"], GALLERY,
    ["could I serve mixtral on trainium2?",
     "mixtral-8x7b trn2 compatibility?"])
add("model", "en", "model", ["**Mostly**", "Qwen1.5-MoE-A2.7B"], GALLERY,
    ["does qwen moe run on trn2?"])
add("model", "es", "model", ["**En parte**", "Swin-T"], GALLERY,
    ["¿swin-t funciona en trainium?"])
add("model", "en", "model", ["**Yes**", "Llama 3.1 70B"], GALLERY,
    ["llama 3.1 70b on a tpu, ok?"])
add("model", "es", "model", ["**Presumiblemente sí**", "Whisper large-v3"], GALLERY,
    ["¿whisper large v3 corre en trn2?"])

add("model", "en", "model", ["DETR ResNet-50", "99.9% of op calls on the device"], GALLERY,
    ["will DETR ResNet-50 run on trn2?", "detr resnet50 on trainium, any cpu ops?"])
add("model", "en", "model", ["Pythia-1.4B (GPT-NeoX)"], GALLERY, ["is gpt-neox ok on tpu?"])
add("model", "es", "model", ["FLAN-T5 base", "99.8% de las llamadas a ops en el dispositivo"], GALLERY,
    ["¿flan-t5 base corre en trn2?"])
add("model", "en", "model", ["gpt-5 is not in the gallery", "GPT-2 (124M)"], GALLERY_LIST, ["will gpt-5 run on trn2?"])

add("support", "en", "release", ["**Neuron SDK 2.34.0 for inference**", "NxD Inference and NxD Core inference APIs",
                                 "PyTorch/XLA on Neuron: inference"], NXDI,
    ["what's new for inference in neuron 2.34?", "neuron 2.34 changes for serving?"])
add("support", "es", "release", ["**Neuron SDK 2.34.0 para inferencia**"], XLA_INF_TRN,
    ["novedades de neuron 2.34 para inferencia", "¿qué cambió para inferencia en la 2.34?"])
add("support", "en", "release", ["**Neuron SDK 2.34.0 for TorchAO Neuron**", "0.18.0+neuron.1"], "torchao-neuron.html",
    ["what changed for quantization in neuron 2.34?", "mxfp8 news in neuron 2.34?"])
add("support", "en", "release", ["**What Neuron SDK 2.34.0 requires**", "torchneuron 2.14.3.1 — Python 3.12, 3.13, 3.14"],
    "torchao-neuron.html", ["what are the requirements of neuron 2.34?", "neuron sdk 2.34 requirements"])
add("support", "es", "release", ["**Lo que requiere Neuron SDK 2.34.0**", "PyTorch 2.14.0"], "torchao-neuron.html",
    ["¿qué requisitos tiene neuron 2.34?"])
add("support", "en", "release", ["**What torchneuron 2.14.3.1 requires**: Python 3.12, 3.13, 3.14; PyTorch 2.14.0"],
    "torchao-neuron.html", ["what does torchneuron 2.14.3.1 require?"])


# ---- 29l: two questions in one joined every way people join them (also, plus, as well as, then, ";", a second
# "?", y de paso, además, también, aparte, otra cosa), each part read with the other's target and version; the
# Spanish compile/eager policy asked in everyday words; end of support asked with se acaba / aguanta / le queda /
# caduca / vence / fin de vida / EOL (a date or "no end date", never a bare yes). Facts checked against kb ops /
# diff / eol / cost and the policy rows on the shipped KB (2026-12-01).
DLAMI = "components/dlamis.html"
PYDEV = "devguide.python.org"
PY_TORCH_NEURON = "announce-no-support-torch-neuron-versions"
add("list", "en", "ops_by_status", ["Two questions in one", "1,127 ops that run as **fallback**", "compile error"],
    NEURON_POLICY, ["which ops does neuron 2.14.3.1 fall back on, plus what does it do with them under torch.compile?"])
add("list", "en", "ops_by_status", ["Two questions in one", "595 ops that run as **unsupported**", "by default, an error"],
    TPU_POLICY, ["show me the unsupported ops on tpu 0.2.0; also what's the fallback policy in eager?"])
add("list", "en", "ops_by_status", ["Two questions in one", "**674** ops run as native", "by default, an error"],
    TPU_POLICY, ["how many ops does tpu 0.2.0 run natively; and what happens with missing ops in eager mode?"])
add("op", "en", "op", ["Two questions in one", "aten::cumsum", "0.87 USD per million tokens"], COST,
    ["is aten::cumsum native on tpu? then how much is a million tokens at 2.5 USD/h and 800 tokens/s"])
add("op", "en", "op", ["Two questions in one", "**Presumably yes**", "0.56 USD per million tokens"], COST,
    ["tell me if aten::nonzero runs on trn2 as well as the cost per million tokens at 3 USD/h and 1500 tok/s"])
add("op", "en", "op", ["Two questions in one", "aten::sort", "**Ended with Neuron 2.30** (2026-05-21)"], PY310,
    ["is aten::sort suported on tpu and whats the end of support for python 3.10 on neuron?"])
add("support", "en", "diff", ["Two questions in one", "**166** kernels gained", "**595** ops run as unsupported on tpu 0.2.0"],
    TPU_PROBE, ["what changed on tpu from 0.1.1 to 0.2.0 and how many ops are unsupported now?"])
add("support", "en", "diff", ["Two questions in one", "neuron 2.14.3.0 → 2.14.3.1", "404 ops **native**"], SNAPSHOT,
    ["what did neuron lose between 2.14.3.0 and 2.14.3.1? also how many ops does it support?"])
add("op", "es", "op", ["_Dos preguntas en una", "aten::cumsum", "0,56 USD por millón de tokens"], COST,
    ["¿corre aten::cumsum en tpu? y de paso, ¿cuánto sale el millón de tokens a 2 USD/h y 1000 tokens/s?"])
add("op", "es", "op", ["_Dos preguntas en una", "**Presumiblemente sí**", "0,69 USD por millón de tokens"], COST,
    ["aten::nonzero es nativo en neuron? otra cosa: cuanto cuesta un millon de tokens a 5 USD la hora y 2000 tokens/s"])
add("op", "es", "op", ["_Dos preguntas en una", "**Presumiblemente sí, pero en la CPU**", "2026-05-21"], PY310,
    ["¿funsiona aten::sort en trainium? aparte, ¿hasta cuándo hay soporte para python 3.10 en neuron?"])
add("op", "es", "op", ["_Dos preguntas en una", "**Sí**", "**Terminó con Neuron 2.30** (2026-05-21)"], PY310,
    ["¿aten::nonzero corre en tpu? además, ¿cuándo se acaba python 3.10 en neuron?"])
add("list", "es", "ops_by_status", ["_Dos preguntas en una", "595 ops que se ejecutan como **unsupported**",
                                    "torch.compile backend=inductor"], TPU_COMPILE,
    ["dame las ops que no corren en tpu 0.2.0 y además qué pasa con ellas en modo compilación"])
add("list", "es", "ops_by_status", ["_Dos preguntas en una", "1.127 ops que se ejecutan como **fallback**",
                                    "error de compilación"], NEURON_POLICY,
    ["¿cuáles ops hacen fallback en neuron 2.14.3.1? y también ¿qué hace con ellas torch.compile?"])
add("support", "es", "diff", ["_Dos preguntas en una", "**166** kernels ganados", "674 ops **native**"], TPU_PROBE,
    ["¿qué ganó tpu entre 0.1.1 y 0.2.0? también, ¿cuántos ops soporta ahora?"])
add("policy", "en", "policy", ["torch.compile: compile error"], NEURON_POLICY,
    ["under torch.compile what does trainium do with an op it has no kernel for?",
     "in compile mode, do missing ops fall back to cpu on neuron?"])
add("policy", "es", "policy", ["torch.compile: “compile error” (error de compilación)"], NEURON_POLICY,
    ["¿qué hace neuron en modo compilación con un op que le falta?",
     "si compilo con torch.compile en trainium y falta un operador, ¿qué pasa?",
     "con torch.compile en neuron, ¿los operadores sin kernel se van a la cpu o dan error?",
     "torch.compile en trn2: ¿qué pasa con un op que le falta?", "al compilar en neuron, ¿un op que no existe da error?"])
add("policy", "es", "policy", ["sin regla declarada del proveedor", "406 de 406 ops sin kernel en eager son **unsupported**",
                               "torch.compile backend=inductor"], TPU_COMPILE,
    ["¿que pasa en compilacion si a tpu le falta un kernel?",
     "en modo compilado, ¿torchtpu cae a la cpu cuando le falta un operador?"])
add("policy", "es", "policy", ["modo eager: “cpu fallback with warning” (fallback a la CPU con aviso)"], NEURON_POLICY,
    ["en modo eager, ¿qué hace neuron cuando le falta un op?", "¿neuron cae a la cpu en eager si no tiene el op?"])
add("policy", "es", "policy", ["TorchTPU 0.2.0", "por defecto, un error"], TPU_POLICY,
    ["en eager, ¿qué hace torchtpu 0.2.0 si no encuentra el kernel de un operador?"])
add("platform_eol", "es", "eol", ["no 3.11", "2027-10"], "2.34.0.html", ["¿python 3.11 hasta cuándo aguanta en neuron?"])
add("platform_eol", "en", "eol", ["not 3.11", "2027-10-01"], "2.34.0.html", ["when does python 3.11 expire on neuron?"])
add("platform_eol", "es", "eol", ["Neuron DLAMIs and DLCs ubuntu-22.04", "2026-05-21"], DLAMI,
    ["¿cuándo caduca ubuntu 22.04 en la dlami de neuron?", "¿se acaba pronto el soporte de ubuntu 22.04 en la dlami?"])
add("platform_eol", "en", "eol", ["Neuron DLAMIs and DLCs ubuntu-22.04", "2026-05-21"], DLAMI,
    ["when is ubuntu 22.04 EOL on the neuron dlami?"])
add("platform_eol", "es", "eol", ["**Sin fecha de fin declarada", "2028-10-01"], PYDEV,
    ["¿cuánto le queda de vida a python 3.12 en neuron?", "hasta cuado aguanta python 3.12 en neuron?"])
add("platform_eol", "es", "eol", ["**Sin fecha de fin declarada", "2029-10-01"], PYDEV,
    ["¿cuanto dura el soporte de python 3.13 en neuron?"])
add("platform_eol", "es", "eol", ["**Terminó con Neuron 2.30** (2026-05-21)"], PY310,
    ["¿EOL de python 3.10 en neuron?", "¿python 3.10 cuándo se termina en neuron?"])
add("feature_eol", "es", "eol", ["terminó con Neuron 2.30 (2026-05-21)"], XLA_TRAIN,
    ["¿cuándo vence el soporte de pytorch/xla para entrenamiento?"])
add("feature_eol", "es", "eol", ["**Sin fecha de fin declarada**", "modo de mantenimiento"], NXDI,
    ["¿cuánto le queda a nxd inference en inf2?"])
add("feature_eol", "en", "eol", ["**No end date stated**", "maintenance mode"], NXDI,
    ["how much time does nxd inference have left on inf2?"])
add("feature_eol", "es", "eol", ["Transformers NeuronX", "2025-09-18", "Neuron 2.26"], TNX, ["¿fin de vida de transformers-neuronx?"])
add("feature_eol", "es", "eol", ["**Ya terminó**", "2026-02-26", "Neuron 2.28"], VLLM_V0, ["¿vllm v0 ya caducó en neuron?"])
add("feature_eol", "es", "eol", ["2024-12-03"], PY_TORCH_NEURON, ["¿hasta cuándo aguanta inf1?"])
add("feature_eol", "es", "eol", ["neuron-ls", "2026-11-30"], NEURON_LS, ["¿cuándo deja de funcionar la salida json de neuron-ls?"])
# a second probe round (written after the first fixes; these six failed until the second ones)
add("op", "en", "op", ["Two questions in one", "**Presumably yes**", "0.69 USD per million tokens"], COST,
    ["does aten::cumsum work on trainum? and also, what's the price per million tokens at 1.5 USD/h and 600 tok/s"])
add("list", "en", "ops_by_status", ["Two questions in one", "595 ops that run as **unsupported**",
                                    "**674** ops run as native"], TPU_PROBE,
    ["which ops are missing on tpu 0.2.0 as well as how many does it run natively?"])
add("list", "en", "ops_by_status", ["Two questions in one", "1,127 ops that run as **fallback**", "torch.compile: compile error"],
    NEURON_POLICY, ["list the fallback ops on neuron 2.14.3.1, then tell me the policy in compile mode"])
add("op", "es", "op", ["_Dos preguntas en una", "**Sí**", "terminó con Neuron 2.34 (2026-11-30)"], XLA_INF_TRN,
    ["¿se puede usar aten::sort en tpu? y aparte: ¿cuándo termina pytorch/xla en trn2?"])
add("platform_eol", "es", "eol", ["**Sin fecha de fin declarada", "2028-10-01"], PYDEV,
    ["¿hasta qué fecha aguanta python 3.12 en neuron?"])
add("policy", "es", "policy", ["modo eager: “cpu fallback with warning” (fallback a la CPU con aviso)"], NEURON_POLICY,
    ["neuron en modo eager: ¿los ops que no tiene se ejecutan en cpu?"])


# ---- 29k: an op named beside "or does it fall back" is that op's verdict (the headline names it); a word
# naming ops filters a list (the KB's family, else op names containing it) and a list says N of M ops with
# evidence; an unplaced question names the likeliest kb command. Facts checked against kb op / kb ops
# --grep / kb ops --json on the shipped KB (2026-12-01).
for _op, _asked in (("aten::nonzero", ["does nonzero run natively on neuron or does it fall back?",
                                         "nonzero on neuron: native or does it fall back?"]),
                    ("aten::topk", ["does topk run on neuron natively or fall back?"]),
                    ("aten::cumsum", ["is cumsum natively supported on neuron or does it fallback?"]),
                    ("aten::gather", ["is gather native on trn2 or does it go to the host?"])):
    add("op", "en", "op", ["**Native, presumably**", _op], SNAPSHOT, _asked)
add("op", "en", "op", ["**Native** — its own kernel on tpu", "aten::nonzero"], TPU_PROBE,
    ["is nonzero native on tpu or does it fall back to the cpu?", "does nonzero run nativly on tpu or does it fall back?"])
add("op", "en", "op", ["**Native** — its own kernel on tpu", "aten::masked_select"], TPU_PROBE,
    ["does masked_select run natively on tpu, or does it fall back?"])
add("op", "en", "op", ["**Runs on the device, decomposed, presumably**", "aten::index_put"], SNAPSHOT,
    ["does index_put fall back on neuron or is it native?"])
add("op", "en", "op", ["**Runs on the device, decomposed**", "(no CPU fallback)"], TPU_PROBE,
    ["does argsort fall back to CPU on tpu or run natively?", "does sort fall back on tpu or run native?"])
add("op", "en", "op", ["**Partly falls back, presumably**", "fallback at aten::sort.values_stable"], SNAPSHOT,
    ["is aten::sort native on neuron or does it fall back?"])
add("op", "es", "op", ["**Nativo, presumiblemente**", "aten::nonzero"], SNAPSHOT,
    ["¿nonzero corre nativo en neuron o cae a la CPU?"])
add("op", "es", "op", ["**Nativo, presumiblemente**", "aten::gather"], SNAPSHOT, ["¿gather cae a la cpu en neuron o es nativo?"])
add("op", "es", "op", ["**Nativo** — kernel propio en tpu"], TPU_PROBE,
    ["nonzero es nativo en tpu o cae a la cpu", "¿masked_select corre nativo en tpu o ace fallback?"])
add("op", "es", "op", ["**Se ejecuta en el dispositivo, descompuesto**", "(sin fallback a la CPU)"], TPU_PROBE,
    ["¿el index_put es nativo en tpu o hace fallback?", "el topk es nativo en tpu o se va a la cpu?"])
add("op", "es", "op", ["**Cae en parte a la CPU, presumiblemente**", "aten::sort.values_stable"], SNAPSHOT,
    ["¿argsort hace fallback en trainium o corre nativo?", "¿aten::sort corre nativo en neuron o cae a la CPU?"])
add("list", "en", "family", ["The **convolution** family", "34 convolution ops are unsupported", "(34 of 80 ops with evidence)"],
    TPU_PROBE, ["list the conv ops tpu can't run"])
add("list", "en", "family", ["The **attention** family", "19 attention ops are unsupported", "on tpu 0.1.1"], TPU_011,
    ["what attention ops are unsupported on tpu 0.1.1?"])
add("list", "en", "family", ["The **normalization** family", "25 normalization ops fall back"], SNAPSHOT,
    ["list the norm ops that fall back on neuron"])
add("list", "en", "family", ["The **softmax** family", "5 softmax ops are unsupported", "(5 of 30 ops with evidence)"],
    TPU_PROBE, ["show me the softmax ops tpu 0.2.0 doesn't support"])
# 29t: "scatter" is one member op's own name: the ops named scatter, not the whole indexing family
add("list", "en", "ops_by_status", ["ops whose name contains 'scatter'", "5 ops that run as **fallback**"], SNAPSHOT,
    ["which scatter ops fall back on neuron 2.14.3.1?"])
add("list", "en", "family", ["The **pooling** family", "24 pooling ops are unsupported", "(24 of 78 ops with evidence)"],
    TPU_PROBE, ["lsit the pooling ops that tpu cant run"])
add("list", "en", "family", ["The **embedding** family", "2 embedding ops are unsupported"], TPU_PROBE,
    ["give me the embedding ops that tpu doesnt support"])
add("list", "en", "ops_by_status", ["ops whose name contains 'lstm'", "6 ops that run as **unsupported**"], TPU_PROBE,
    ["list the lstm ops tpu can't run"])  # 29t: lstm is an op's own name, not the rnn family
add("list", "en", "family", ["The **dropout** family", "2 dropout ops are unsupported"], TPU_PROBE,
    ["what dropout ops are unsupported on tpu?"])
add("list", "en", "family", ["The **fft** family", "44 fft ops fall back", "(44 of 48 ops with evidence)"], SNAPSHOT,
    ["list the fft ops that fall back on neuron"])
add("list", "en", "ops_by_status", ["contains 'pad'", "(4 of 50 matching ops with evidence)", "aten::to_padded_tensor"],
    TPU_PROBE, ["list the pad ops unsupported on tpu"])
add("list", "en", "ops_by_status", ["contains 'pad'", "22 ops that run as **fallback**", "(22 of 50 matching ops with evidence)"],
    SNAPSHOT, ["which pad ops fall back on neuron?"])
add("list", "en", "ops_by_status", ["contains 'bitwise'", "(0 of 43 matching ops with evidence)"], TPU_PROBE,
    ["which ops with bitwise in the name are unsupported on tpu?"])
add("list", "en", "ops_by_status", ["595 ops that run as **unsupported** (595 of 3,111 ops with evidence)"], TPU_PROBE,
    ["which ops can't tpu 0.2.0 run at all?"])
add("list", "es", "family", ["La familia **convolution**", "34 convolution ops no están soportados", "(34 de 80 ops con evidencia)"],
    TPU_PROBE, ["¿qué ops de convolución no soporta TPU?"])
add("list", "es", "family", ["La familia **attention**", "19 attention ops no están soportados"], TPU_011,
    ["¿qué ops de atención no corren en tpu 0.1.1?"])
add("list", "es", "family", ["La familia **normalization**", "18 normalization ops no están soportados"], TPU_PROBE,
    ["dame las ops de normalizacion que no soporta tpu"])
add("list", "es", "family", ["La familia **embedding**", "2 embedding ops no están soportados"], TPU_PROBE,
    ["¿qué ops de embedding no soporta la tpu?"])
add("list", "es", "family", ["La familia **softmax**", "5 softmax ops no están soportados"], TPU_PROBE,
    ["lista los ops de softmax sin soporte en tpu"])
add("list", "es", "family", ["La familia **loss**", "25 loss ops no están soportados"], TPU_PROBE,
    ["¿qué ops de pérdida no soporta tpu?"])
add("list", "es", "family", ["La familia **convolution**", "fallback"], SNAPSHOT, ["¿que ops de convolucion hacen fallback en neuron?"])
add("list", "es", "family", ["La familia **pooling**", "24 pooling ops no están soportados", "(24 de 78 ops con evidencia)"],
    TPU_PROBE, ["cuales ops de pooling no corren en tpu?"])
add("list", "es", "ops_by_status", ["contiene 'pad'", "(4 de 50 ops del filtro con evidencia)"], TPU_PROBE,
    ["lista las ops de pad sin soporte en tpu"])
add("list", "es", "ops_by_status", ["595 ops que se ejecutan como **unsupported** (595 de 3.111 ops con evidencia)"], TPU_PROBE,
    ["¿cuales ops no soporta la tpu 0.2.0?"])
add("unknown", "en", "unknown", ["`kb ops --target tpu`", "I read: target tpu"], "",
    ["what about the thing on tpu?", "blah blah tpu"])
add("unknown", "en", "unknown", ["`kb ops --target tpu=0.2.0`", "`kb eol tpu`"], "", ["blah blah tpu 0.2.0"])
add("unknown", "en", "unknown", ["`kb eol python`", "python 3.11"], "", ["python 3.11 ??"])
add("unknown", "es", "unknown", ["`kb ops --target neuron`", "leí: destino neuron"], "", ["¿y lo otro en neuron?"])
add("unknown", "es", "unknown", ["`kb ops --target tpu=0.2.0`", "`kb eol tpu`", "El comando que más probablemente responde"], "",
    ["¿qué onda con tpu 0.2.0?"])
# 29k held out: written after the rules above, asked once untuned (15 of 16 passed; bucketize's overloads,
# which differ in how they fall back, then got a headline of where they all run)
add("op", "en", "op", ["**Native** — its own kernel on tpu", "aten::nonzero"], TPU_PROBE,
    ["is aten::nonzero native on tpu or does it get sent to the cpu?"])
add("op", "en", "op", ["**Runs on the device, decomposed**", "aten::logsumexp"], TPU_PROBE,
    ["logsumexp on tpu 0.2.0: native or fallback?"])
add("op", "en", "op", ["**Falls back, presumably**", "for every overload shown, in whole or in part"], SNAPSHOT,
    ["does bucketize fall back on neuron or does it run native?"])
add("op", "es", "op", ["**Hace fallback, presumiblemente**", "en cada sobrecarga mostrada"], SNAPSHOT,
    ["¿bucketize cae a la cpu en neuron o corre nativo?"])
add("op", "es", "op", ["**Nativo, presumiblemente**", "aten::embedding"], SNAPSHOT,
    ["¿el embedding es nativo en trainium o hace fallback?"])
add("list", "en", "family", ["The **quantization** family", "38 quantization ops are unsupported", "(38 of 74 ops with evidence)"],
    TPU_PROBE, ["list all the quantization ops unsupported on tpu 0.2.0"])
add("list", "en", "ops_by_status", ["contains 'cholesky'", "(11 of 12 matching ops with evidence)"], TPU_PROBE,
    ["which cholesky ops are unsupported on tpu?"])
add("list", "es", "family", ["La familia **dropout**", "2 dropout ops no están soportados"], TPU_PROBE,
    ["¿qué ops de dropout no soporta tpu 0.2.0?"])
add("list", "es", "family", ["ops cuyo nombre contiene 'lstm'", "6 lstm ops no están soportados"], TPU_PROBE,
    ["¿cuáles ops de lstm no corren en tpu?"])  # 29t: lstm is an op's own name, not the rnn family
add("unknown", "en", "unknown", ["`kb ops --target tpu=0.1.1`", "I read: target tpu 0.1.1"], "", ["tpu 0.1.1 ??"])

# ---- 29n: op answers (issue #29 slice n): eager and torch.compile both said when the mode is left open and
# they differ; "CPU" beside fallback or device words is no target; a torch function's headline follows its
# default overload, targets that differ get a headline each; a named module outranks a product on an instance;
# misspelt modules and functions read as the one close name; decimal commas; currencies; how-many counts.
def add_29n(*args, **extra) -> None:
    add(*args, slice="29n", **extra)


EAGER_COMPILE = "**Eager and torch.compile differ**"
EAGER_COMPILE_ES = "**Eager y torch.compile difieren**"
add_29n("op", "en", "op", [EAGER_COMPILE, "eager: partly falls back to the CPU; torch.compile: unsupported (raises at a leaf)"],
    SNAPSHOT, ["torch.sort on trainium - native or not?", "does torch.sort run on trn2?", "torch.sort on neuron, ok?"])
add_29n("op", "es", "op", [EAGER_COMPILE_ES, "eager: cae en parte a la CPU; torch.compile: sin soporte (una hoja lanza un error)"],
    SNAPSHOT, ["torch.sort en trainium: ¿nativo, fallback o no soportado?", "¿torch.sort va en neuron?",
               "torch.sort en trn2 funciona?"])
add_29n("op", "en", "op", ["**Presumably yes** — it falls back"], SNAPSHOT,
    ["does torch.sort fall back on neuron in eager mode?"])
add_29n("op", "en", "op", ["**Native, presumably** — its own kernel on neuron"], SNAPSHOT,
    ["is torch.topk native on neuron or CPU fallback?", "torch.topk on trainium: native or cpu-fallback?"])
add_29n("op", "es", "op", ["**Nativo, presumiblemente** — kernel propio en neuron"], SNAPSHOT,
    ["torch.topk en neuron, ¿nativo o cae a CPU?", "¿torch.topk corre nativo en trn2 o se va a la CPU?"])
add_29n("op", "en", "op", ["**Runs on the device, decomposed, presumably**", "its leaves run on neuron (no CPU fallback)"],
    SNAPSHOT, ["Tensor.index_put_ on neuron: native or CPU fallback?"])
add_29n("op", "en", "op", ["**Presumably yes** — runs on neuron (leaves on the device)"], SNAPSHOT,
        ["Tensor.index_put_ on trn2 — device or CPU?"])
add_29n("op", "es", "op", ["**Se ejecuta en el dispositivo, descompuesto, presumiblemente**"], SNAPSHOT,
    ["¿Tensor.index_put_ en trainium es nativo o hace fallback a CPU?"])
add_29n("op", "es", "compare", ["- neuron: **Presumiblemente sí** — kernel propio en neuron",
                                 "- tpu: **Se ejecuta en tpu, aunque no como un solo kernel**"], SNAPSHOT,
    ["¿torch.cumsum es nativo en neuron? ¿y en la tpu?"])
add_29n("op", "en", "op", ["`torch.nonzeroo` is not a torch function; read as `torch.nonzero`", "**Yes** — its own kernel on tpu"],
    TPU_PROBE, ["is torch.nonzeroo native on tpu?"])
add_29n("op", "en", "op", ["read as `torch.sort`", EAGER_COMPILE], SNAPSHOT, ["torch.sortt on neuron?"])
add_29n("op", "es", "op", ["`torch.cumsun` no es una función de torch; leído como `torch.cumsum`"], TPU_PROBE,
    ["¿torch.cumsun corre en tpu?", "torch.cumsun en la tpu va?"])
add_29n("op", "en", "op", ["_Read `nn.Embeding` as `nn.Embedding`._", "**Yes** on tpu 0.2.0"], TPU_PROBE,
    ["can i run nn.Embeding on tpu?"])
add_29n("op", "en", "op", ["_Read `nn.LayerNrom` as `nn.LayerNorm`._", "**Yes** on neuron 2.14.3.1"], SNAPSHOT,
    ["nn.LayerNrom on trainium, native?"])
add_29n("op", "es", "op", ["_Leí `nn.Embeding` como `nn.Embedding`._", "**Sí** en tpu 0.2.0"], TPU_PROBE,
    ["¿nn.Embeding va en la tpu?"])
add_29n("op", "es", "op", ["_Leí `nn.Linaer` como `nn.Linear`._", "**Sí** en neuron 2.14.3.1"], SNAPSHOT, ["nn.Linaer en neuron?"])
add_29n("op", "en", "op", ["**Yes** on neuron 2.14.3.1 — its one op, `aten::native\\_layer\\_norm`, runs on the device"], SNAPSHOT,
    ["nn.LayerNorm on trn2 with TorchNeuron, on the device or on the CPU?"])
add_29n("op", "es", "op", ["**Sí** en neuron 2.14.3.1 — su único op, `aten::embedding`, se ejecuta en el dispositivo"], SNAPSHOT,
    ["nn.Embedding en trn2 con TorchNeuron, ¿va en el dispositivo o cae a CPU?"])
add_29n("cost", "es", "cost", ["**0,07 USD por millón de tokens**", "--price-per-hour 1.375 --tokens-per-second 5500"], COST,
    ["precio por millón a 1,375 USD/h y 5.500 tokens/seg"])
add_29n("cost", "es", "cost", ["**0,49 EUR por millón de tokens**", "--price-per-hour 2.125"], COST,
    ["¿cuánto sale el millón de tokens a 2,125 € la hora con 1.200 tokens por segundo?"])
add_29n("cost", "en", "cost", ["**0.40 USD per million tokens**", "--tokens-per-second 1375"], COST,
    ["cost per million at 2 USD/h and 1,375 tokens/s"])
add_29n("cost", "es", "cost", ["**0,56 USD por millón de tokens**", "--tokens-per-second 1500"], COST,
    ["costo por millón a 3 USD/h y 1,500 tokens/s"])
add_29n("cost", "en", "cost", ["**0.70 USD per million tokens**", "--currency USD`"], COST,
    ["trn2 0.76/h, 300 tokens per second -> $/Mtok?"])
add_29n("cost", "en", "cost", ["**0.83 (the price's currency) per million tokens**", "--tokens-per-second 500`"], COST,
    ["inf2 1.5/h with 500 tok/s, cost per million?"])
add_29n("cost", "es", "cost", ["**0,70 (moneda del precio) por millón de tokens**"], COST,
    ["inf2 0,76/h y 300 tokens/s, ¿costo por millón?"])
add_29n("cost", "en", "cost", ["**trn2 is cheaper**", "0.56 USD per million tokens vs 1.11 USD"], COST,
    ["trn2 $4/h @ 2k tok/s vs tpu $2/h @ 500 tok/s, cheaper per M tokens?"])
add_29n("list", "es", "family", ["**2 dropout ops** no están soportados (error) en tpu 0.2.0 (2 de 17 ops con evidencia)."],
    TPU_PROBE, ["¿cuántos ops de dropout no soporta tpu 0.2.0?"])
add_29n("list", "en", "family", ["**2 dropout ops** are unsupported (raise) on tpu 0.2.0 (2 of 17 ops with evidence)."],
    TPU_PROBE, ["how many dropout ops are unsupported on tpu 0.2.0?"])

# ---- 29o: policy, end-of-support and release questions phrased without the expected words (round 6): ops a
# backend "doesn't implement", SMS "q", complex numbers "tal cual"; a comma + and/y + an op named as code is a
# second question; an instance family beside a statement's own words ("Inf1 virtual envs"); a package release
# with no stated end (its kb eol row); the advice in a statement's note; TorchNeuron 2.33 as the SDK release;
# an OS family's rows; a limitation list led by what does not work. Facts checked against kb eol, kb eol
# torchneuron, the policy and limitation rows and the release registry on the shipped KB (2026-12-01).
ENV_INF1 = "announce-eos-inf1-virtual-environments"
ENV_VARS = "env-vars.html"
TORCH_COMPILE_TPU = "torch-tpu"
add("policy", "en", "policy", ["cpu fallback if enabled else error", "**by default, an error**"], TPU_POLICY,
    ["Does torch_tpu fall back to the CPU for ops it does not implement?",
     "what does tpu do with operators it doesn't support?", "torchtpu and unimplemented ops: cpu or error?",
     "what happens on tpu with ops it doesnt implement"])
add("policy", "en", "policy", ["cpu fallback with warning", "compile error"], NEURON_POLICY,
    ["does trainium fall back to cpu for ops it doesn't implement?", "neuron: what about ops that it does not support?"])
add("policy", "es", "policy", ["fallback a la CPU si está activado, si no error"], TPU_POLICY,
    ["q pasa con los ops q faltan en la tpu?", "k pasa con los ops q le faltan a torchtpu",
     "que pasa con las operaciones que no implementa la tpu?"])
add("policy", "es", "policy", ["Dos preguntas en una", "595"], TPU_POLICY,
    ["q pasa con los ops q faltan en tpu 0.2.0 y cuantos no estan soportados"])
add("limitation", "es", "limitation", ["policy: complex decomposition", "TORCH_NEURONX_COMPLEX_DECOMPOSE"], ENV_VARS,
    ["¿Los números complejos se ejecutan tal cual en trainium?", "las operaciones con numeros complejos corren tal cual en neuron?"])
add("limitation", "en", "limitation", ["policy: complex decomposition", "decomposed by default"], ENV_VARS,
    ["do complex number ops run as is on neuron?", "does neuron run complex number ops as-is?"])
add("cost", "es", "cost", ["Dos preguntas en una", "0,70 USD por millón", "aten::embedding"], COST,
    ["cuanto cuesta el millon a 0,76 usd/h con 300 tok/s, y nn.Embedding va en inf1?"])
add("cost", "en", "cost", ["Two questions in one", "1.11 USD per million tokens", "aten::roll"], COST,
    ["cost per million at 2 usd/h and 500 tok/s, and torch.roll works on tpu?"])
add("eol", "en", "eol", ["2025-12-19", "Neuron 2.27"], ENV_INF1,
    ["when did the inf1 virtual environments and AMIs reach end of support?", "inf1 virtual envs + amis: EOL date?"])
add("eol", "es", "eol", ["2025-12-19"], ENV_INF1,
    ["¿hasta cuándo hay soporte para los entornos virtuales y AMIs de Inf1?"])
add("eol", "es", "eol", ["**Desconocido**", "sin fecha de publicación declarada", "Donde el proveedor lo declararía"],
    "torchao-neuron.html", ["¿hasta cuando aguanta torchneuron 2.14.3.1?", "¿cuándo se acaba el soporte de TorchNeuron 2.14.3.1?"])
add("eol", "en", "eol", ["**Unknown**", "released 2026-10-19; no end of support stated", "Where the vendor would state it"],
    TORCHNEURON, ["until when is torchneuron 2.14.3.0 supported?"])
add("eol", "en", "eol", ["use TorchNeuron (eager or torch.compile backend neuron) or vLLM Neuron"], XLA_INF_TRN,
    ["how long is pytorch/xla inference on trn2 supported?", "is torch-xla inference still supported on trn3?"])
add("eol", "es", "eol", ["Lo que el proveedor aconseja en su lugar", "vLLM Neuron"], XLA_INF_TRN,
    ["¿hasta cuándo hay soporte de pytorch/xla para inferencia en trn2?"])
add("release", "es", "release", ["Trn2, Trn3", "**Trn1: no**"], TORCHNEURON,
    ["¿Qué instancias soporta TorchNeuron 2.33? ¿y Trn1?", "que instancias soporta torchneuron 2.33, trn1 tambien?"])
add("release", "en", "release", ["Trn2, Trn3", "read as the Neuron SDK release"], TORCHNEURON,
    ["which instances does torchneuron 2.33 support?"])
add("release", "es", "release", ["Ubuntu en el Neuron SDK 2.33.0", "**Ubuntu 24.04**: soportada", "fin de soporte"], TORCHNEURON,
    ["¿Qué versiones de Ubuntu soporta TorchNeuron en la 2.33?", "que ubuntu soporta neuron 2.33?"])
add("release", "en", "release", ["Ubuntu in Neuron SDK 2.33.0", "**Ubuntu 26.04**: supported"], TORCHNEURON,
    ["which ubuntu versions does neuron 2.33 support?"])
add("release", "en", "release", ["**Unknown** — no package the KB records for this release is for PyTorch 2.13"], "torchao-neuron.html",
    ["does neuron 2.34 ship a torchneuron package for pytorch 2.13?"])
add("limitation", "en", "limitation", ["torch.sparse", "torch.nested", "torch.func", "Left out, as they state support"],
    TORCHNEURON, ["what are the known limitations of torchneuron 2.33?"])
add("limitation", "es", "limitation", ["torch.sparse", "torch.nested", "Fuera de la lista"], TORCHNEURON,
    ["¿cuáles son las limitaciones conocidas de TorchNeuron 2.33?"])
add("limitation", "es", "limitation", ["**torch.compile default backend**", "tpu for TPU inputs"], TORCH_COMPILE_TPU,
    ["si no le digo el backend a torch.compile en la tpu, ¿qué backend usa?"])


# ---- 29p: unknown words read as neutral, the entities decide (held-out round 7): a negated support verb
# ("flat-out not support", "no soportaba", "refuses") asks whether the op is unsupported; "stopped shipping /
# dejaron de dar" Inf1's AMIs is their end of support; "reqs"; "llamo" is no Llama; an op named as code beats a
# model named as context; "18 mil", "1,5 millones", "2 mil millones" are numbers; "the nativ op count" is a count
# by status; a torch.compile backend named is compile mode. Facts checked against kb op aten::nonzero -t tpu,
# kb op aten::roll -t tpu=0.1.1, kb op nn.GroupNorm -t neuron, kb eol (inf1-virtual-environments-and-amis), the
# torchneuron 2.14.3.0 registry row, kb ops --status native --mode compile (tpu 674, neuron 386), kb cost and the
# policy rows, on the shipped KB (2026-12-01).
def add_29p(*args, **extra) -> None:
    add(*args, slice="29p", **extra)


add_29p("op", "en", "op", ["**No** — native (own kernel)", "`aten::nonzero`"], TPU_PROBE,
    ["does tpu flat-out not support torch.nonzero?", "does tpu really not support aten::nonzero?",
     "tpu just plain refuses aten::nonzero?"])
add_29p("op", "es", "op", ["**No** — nativo (kernel propio)", "`aten::nonzero`"], TPU_PROBE,
    ["¿tpu no soportaba torch.nonzero?", "¿es verdad que tpu no soportaba aten::nonzero?", "¿torch.nonzero no corría en tpu?"])
add_29p("op", "en", "op", ["**No, inferred** — native (own kernel)"], TPU_011,
    ["does tpu 0.1.1 really not support torch.roll?"])
add_29p("op", "es", "op", ["**No, inferido** — nativo (kernel propio)"], TPU_011,
    ["¿antes tpu 0.1.1 no soportaba torch.roll?"])
add_29p("eol", "en", "eol", ["2025-12-19", "Neuron 2.27", "Inf1 virtual environments and AMIs"], ENV_INF1,
    ["when did they stop shipping inf1 DLAMIs?", "when did aws quit providing the inf1 deep learning AMIs?",
     "inf1 dlami: when did that end?"])
add_29p("eol", "es", "eol", ["2025-12-19", "Neuron 2.27", "Inf1 virtual environments and AMIs"], ENV_INF1,
    ["¿cuándo dejaron de dar las AMIs de Inf1?", "¿cuándo dejaron de publicar las DLAMIs de inf1?",
     "¿cuándo dejaron de ofrecer AMIs para Inf1?"])
add_29p("release", "en", "release", ["Python 3.12, 3.13, 3.14", "PyTorch 2.14.0"], TORCHNEURON,
    ["torchneuron 2.14.3.0 reqs?", "what are the python reqs for torchneuron 2.14.3.0?"])
add_29p("release", "es", "release", ["Python 3.12, 3.13, 3.14", "PyTorch 2.14.0"], TORCHNEURON,
    ["¿cuáles son los reqs de torchneuron 2.14.3.0?"])
add_29p("release", "en", "release", ["Read as a question about the release itself", "PyTorch 2.14.0"], TORCHNEURON,
    ["torchneuron 2.14.3.0, what's the deal?"])
add_29p("release", "es", "release", ["Leído como una pregunta sobre la versión misma", "PyTorch 2.14.0"], TORCHNEURON,
    ["¿torchneuron 2.14.3.0, qué onda?"])
add_29p("op", "es", "op", ["`aten::nonzero`", "native"], TPU_PROBE,
    ["¿cómo llamo a torch.nonzero en tpu?", "si llamo torch.nonzero en tpu, ¿es nativo?",
     "¿llamo a torch.nonzero en tpu y corre nativo?"])
add_29p("op", "es", "op", ["**Sí** — kernel propio en tpu", "`aten::roll`"], TPU_PROBE,
    ["cuando llamo torch.roll en tpu 0.2.0, ¿es nativo?"])
add_29p("op", "en", "op", ["**Yes** — its own kernel on tpu", "`aten::nonzero`"], TPU_PROBE,
    ["if I call torch.nonzero on tpu, does it run natively?", "we call torch.nonzero in a loop, is it native on tpu?"])
add_29p("op", "en", "op", ["`aten::nonzero`", "native"], TPU_PROBE, ["calling torch.nonzero on tpu: native or not?"])
add_29p("op", "en", "op", ["`torch.nn.GroupNorm` is a module", "1 fallback (aten::native_group_norm)"], SNAPSHOT,
    ["my wav2vec uses nn.GroupNorm, does it run on neuron?"])
add_29p("op", "es", "op", ["`torch.nn.GroupNorm` es un módulo", "`aten::native_group_norm` hace fallback"], SNAPSHOT,
    ["mi whisper usa nn.GroupNorm, ¿corre en neuron?", "en nuestro wav2vec usamos nn.GroupNorm: ¿va en neuron?"])
add_29p("op", "es", "op", ["**Sí** — se ejecuta en tpu (kernel propio)", "`aten::nonzero`"], TPU_PROBE,
    ["mi llama usa torch.nonzero, ¿funciona en tpu?"])
add_29p("op", "en", "op", ["**Yes** — runs on tpu (own kernel)", "`aten::nonzero`"], TPU_PROBE,
    ["our bert calls torch.nonzero, is that ok on tpu?"])
add_29p("op", "en", "op", [EAGER_COMPILE, "`aten::sort`"], SNAPSHOT, ["for our mixtral, is aten::sort native on neuron?"])
for price, rate_en, rate_es, rate in ((Decimal(7), "18 thousand tokens per second", "18 mil tokens por segundo", Decimal(18000)),
                                      (Decimal(40), "18 thousand tok/s", "18 mil tokens/s", Decimal(18000)),
                                      (Decimal(9), "1.5 million tokens per minute", "1,5 millones de tokens por minuto",
                                       Decimal(25000))):
    money = f"{format_money(cost_per_million_tokens(price, rate))} USD"
    money_es = money.translate(str.maketrans(",.", ".,"))
    said = f"{rate:,}"
    add_29p("cost", "en", "cost", [money, f"{said} tokens/s"], COST,
        [f"at {price} usd/h and {rate_en}, price per million?"])
    add_29p("cost", "es", "cost", [money_es, f"{said.replace(',', '.')} tokens/s"], COST,
        [f"¿cuánto cuesta el millón de tokens a {price} USD la hora con {rate_es}?"])
add_29p("cost", "es", "cost", ["2.000.000.000 tokens: **2.592,59 USD**"], COST,
    ["¿cuánto cuestan 2 mil millones de tokens a 7 USD la hora y 1500 tokens/s?"])
add_29p("cost", "es", "cost", ["18.000 tokens: **0,02 USD**"], COST,
    ["precio de 18 mil tokens en una trn2 a 7 USD la hora con 1.500 tokens/s"])
add_29p("cost", "en", "cost", ["2,000,000,000 tokens: **2,592.59 USD**"], COST,
    ["cost of 2 billion tokens at 7 USD an hour and 1500 tokens/s"])
add_29p("list", "en", "ops_by_status", ["**674** ops run as native on tpu 0.2.0 (compile)"], TPU_PROBE,
    ["what is the nativ op count on tpu in compile mode", "what's the native op count for tpu under torch.compile?"])
add_29p("list", "en", "ops_by_status", ["**386** ops run as native on neuron 2.14.3.1 (compile)"], SNAPSHOT,
    ["nativ op count on neuron, compile mode?"])
add_29p("list", "es", "ops_by_status", ["**674** ops se ejecutan como nativos en tpu 0.2.0 (compile)"], TPU_PROBE,
    ["¿cuál es el número de ops nativs en tpu en modo compilación?", "dame el conteo de ops nativos de tpu en compilación"])
add_29p("list", "es", "ops_by_status", ["**386** ops se ejecutan como nativos en neuron 2.14.3.1 (compile)"], SNAPSHOT,
    ["¿cuál es la cantidad de ops nativos en neuron en modo compilación?"])
add_29p("policy", "en", "policy", ["TorchTPU, torch.compile", "torch.compile backend=inductor"], TORCH_COMPILE_TPU,
    ["torch.compile(backend='inductor') on tpu: what happens to ops without a kernel?",
     "with the inductor backend on tpu, what happens to ops with no kernel?"])
add_29p("policy", "en", "policy", ["torch.compile: compile error"], NEURON_POLICY,
    ["backend=inductor on trn2, what happens to an op it lacks?", "using inductor on neuron, what happens to missing ops?"])
add_29p("policy", "es", "policy", ["torch.compile: “compile error” (error de compilación)"], NEURON_POLICY,
    ["con backend inductor en trainium, ¿qué pasa si un op no tiene kernel?",
     "torch.compile(backend='inductor') en neuron: ¿qué pasa con los ops que le faltan?"])
add_29p("policy", "es", "policy", ["TorchTPU, torch.compile", "torch.compile backend=inductor"], TORCH_COMPILE_TPU,
    ["con el backend inductor en tpu, ¿qué pasa con los ops sin kernel?"])

# ---------------------------------------------------------------- slice 29q: two questions in one, split by clauses
# (numbered parts, "¿…? y ¿…?", "and when?"), context carried (a version into a follow-up naming its own op), both
# modes said when they agree, a policy for every version, the user's own name filter, a missing model's nearest verdict
TPU_RELEASE = "pypi.org/project/torch-tpu"
PRE_RELEASE_REPO = "test-repo-parmoham"  # the pre-release snapshot and its replay, which neuron's verdicts rest on
TWO_EN, TWO_ES = "Two questions in one", "Dos preguntas en una"
add("two_parts", "en", "op", [TWO_EN, "**(1)** _is aten::nonzero native on tpu 0.2.0?_", "cpu fallback with warning"],
    NEURON_POLICY, ["Q1: is aten::nonzero native on tpu 0.2.0? Q2: what does neuron do with an op it lacks?"])
add("two_parts", "en", "op", [TWO_EN, "**(2)** _what is the fallback policy on neuron in compile mode?_", "compile error"],
    NEURON_POLICY, ["1) does aten::sort run on tpu 0.2.0 2) what is the fallback policy on neuron in compile mode?"])
add("two_parts", "en", "op", [TWO_EN, "**Ended with Neuron 2.30** (2026-05-21)"], PY310,
    ["q1) is aten::nonzero native on neuron? q2) until when is python 3.10 supported on neuron?"])
add("two_parts", "es", "op", [TWO_ES, "**(2)** _¿qué hace neuron con un op sin kernel?_", "fallback a la CPU con aviso"],
    NEURON_POLICY, ["P1: ¿es nativo aten::nonzero en tpu 0.2.0? P2: ¿qué hace neuron con un op sin kernel?"])
add("two_parts", "es", "op", [TWO_ES, "**(1)** _¿corre aten::sort en tpu 0.2.0?_", "fallback a la CPU con aviso"],
    NEURON_POLICY, ["1) ¿corre aten::sort en tpu 0.2.0? 2) ¿cuál es la política de fallback en neuron?",
                    "¿corre aten::sort en tpu 0.2.0? y ¿cuál es la política de fallback en neuron?"])
add("two_parts", "es", "op", [TWO_ES, "**Sí** — kernel propio en tpu", "fallback a la CPU con aviso"], NEURON_POLICY,
    ["pregunta 1: ¿aten::nonzero es nativo en tpu? pregunta 2: ¿qué pasa con los ops que faltan en neuron?"])
# "… and when?": the clause asks when what the first one names came out
add("two_parts", "en", "op", [TWO_EN, "_when was tpu 0.2.0 released?_", "torch_tpu 0.2.0 was released in 2026-10"],
    TPU_RELEASE, ["does TorchTPU 0.2.0 support nonzero and when?", "is aten::sort native on tpu 0.2.0, and since when?"])
add("two_parts", "en", "op", [TWO_EN, "_when was neuron 2.33 released?_", "neuron-sdk 2.33.0 was released on 2026-10-19"],
    "release-notes/2.33.0.html", ["does neuron 2.33 run aten::nonzero natively and when?"])
add("two_parts", "es", "op", [TWO_ES, "_¿cuándo salió tpu 0.2.0?_", "torch_tpu 0.2.0 se publicó en 2026-10"], TPU_RELEASE,
    ["¿tpu 0.2.0 soporta aten::nonzero y desde cuándo?", "¿aten::sort corre en tpu 0.2.0? ¿y desde cuándo?"])
add("two_parts", "es", "op", [TWO_ES, "_¿cuándo salió neuron 2.33?_", "neuron-sdk 2.33.0 se publicó el 2026-10-19"],
    "release-notes/2.33.0.html", ["¿neuron 2.33 tiene aten::nonzero nativo y desde cuándo?"])
# a follow-up naming its own op is asked at the first clause's target and version
add("two_parts", "en", "op", [TWO_EN, "_what about aten::unique on neuron 2.33?_", "**Presumably yes, but on the CPU**"],
    PRE_RELEASE_REPO, ["on neuron 2.33, does aten::nonzero run natively, and what about aten::unique?"])
add("two_parts", "en", "op", [TWO_EN, "_what about aten::sort on tpu 0.1.1?_", "**Yes, inferred**"], TPU_011,
    ["is aten::nonzero native on tpu 0.1.1? and what about aten::sort?"])
add("two_parts", "en", "op", [TWO_EN, "_how about aten::argsort on tpu 0.2.0?_"], TPU_PROBE,
    ["does aten::sort run natively on tpu 0.2.0, and how about aten::argsort?"])
add("two_parts", "es", "op", [TWO_ES, "_¿y aten::unique en neuron 2.33?_", "**Presumiblemente sí, pero en la CPU**"],
    PRE_RELEASE_REPO, ["¿aten::nonzero es nativo en neuron 2.33? ¿y aten::unique?"])
add("two_parts", "es", "op", [TWO_ES, "_¿y qué tal aten::sort en tpu 0.1.1?_"], TPU_011,
    ["en tpu 0.1.1, ¿aten::nonzero es nativo? ¿y qué tal aten::sort?"])
add("two_parts", "es", "op", [TWO_ES, "_¿y aten::argsort en tpu 0.2.0?_"], TPU_PROBE,
    ["¿corre aten::sort nativo en tpu 0.2.0? ¿y aten::argsort?"])
# eager and compile asked together: the compile verdict is said also when it equals eager's
add("op", "en", "op", ["**Eager and torch.compile agree**", "torch.compile: same as eager: native (its own kernel)"],
    TPU_PROBE, ["is aten::nonzero native on tpu 0.2.0 in eager and compile?", "aten::nonzero on tpu 0.2.0: eager vs torch.compile?",
                "is aten::nonzero native on tpu 0.2.0 in both modes?"])
add("op", "en", "op", ["**Eager and torch.compile agree**", "torch.compile: same as eager: runs on the device (decomposed)"],
    TPU_PROBE, ["does aten::sort run on tpu 0.2.0 in both modes?"])
add("op", "es", "op", ["**Eager y torch.compile coinciden**", "torch.compile: igual que eager: nativo (kernel propio)"],
    TPU_PROBE, ["¿aten::nonzero es nativo en tpu 0.2.0 en eager y en compile?", "¿aten::nonzero corre en tpu en ambos modos?"])
add("op", "es", "op", ["**Eager y torch.compile coinciden**",
                       "torch.compile: igual que eager: se ejecuta en el dispositivo (descompuesto)"],
    TPU_PROBE, ["¿aten::sort funciona en tpu 0.2.0 en los dos modos?", "¿aten::sort corre en tpu 0.2.0 en eager y con torch.compile?"])
# a policy asked for every version: each version the KB records one for
add("policy", "en", "policy", ["TorchTPU 0.1.1, eager mode", "error unless fallback_mode(ALLOW_FALLBACK)",
                               "TorchTPU 0.2.0, eager mode", "cpu fallback if enabled else error"], TPU_POLICY,
    ["what is the fallback policy on tpu for each version?", "tpu fallback policy: 0.1.1 vs 0.2.0?",
     "what does torch_tpu do with missing ops in all versions?"])
add("policy", "es", "policy", ["TorchTPU 0.1.1, modo eager", "error unless fallback_mode(ALLOW_FALLBACK)",
                               "TorchTPU 0.2.0, modo eager", "fallback a la CPU si está activado, si no error"], TPU_POLICY,
    ["¿qué pasa con los ops que faltan en tpu en todas las versiones?", "política de fallback de tpu en cada versión",
     "¿cuál es la política de fallback de tpu 0.1.1 frente a 0.2.0?"])
# the user's own substring filters a list, over the family the same word names
add("list", "en", "family", ["Filtered to ops whose name contains 'conv'", "38 conv ops are unsupported (raise) on tpu 0.2.0",
                             "--grep conv"], TPU_PROBE,
    ["list the tpu ops whose name contains 'conv'"])
# s8-list: "conv in their name and unsupported" is the list of ops named conv with that status, shown whole (<= 40)
add("list", "en", "ops_by_status", ["Filtered to ops whose name contains 'conv'", "--grep conv",
                                    "38 ops that run as **unsupported** (38 of 86 matching ops with evidence)",
                                    "`aten::_conv_depthwise2d.out`: ✘ unsupported"], TPU_PROBE,
    ["which tpu ops have conv in their name and are unsupported?"])
add("list", "en", "ops_by_status", ["Filtered to ops whose name contains 'pool'", "56 ops that run as **fallback**"], PRE_RELEASE_REPO,
    ["which ops with 'pool' in the name fall back on neuron?"])
add("list", "es", "family", ["Filtrado a los ops cuyo nombre contiene 'conv'", "38 conv ops no están soportados (error) en tpu 0.2.0"],
    TPU_PROBE, ["lista los ops de tpu cuyo nombre contiene 'conv'"])
add("list", "es", "family", ["Filtrado a los ops cuyo nombre contiene 'conv'", "34 conv ops hacen fallback a la CPU en neuron 2.14.3.1"],
    PRE_RELEASE_REPO, ["¿qué ops de neuron tienen conv en el nombre?"])
add("list", "es", "ops_by_status", ["Filtrado a los ops cuyo nombre contiene 'pool'", "24 ops que se ejecutan como **unsupported**"],
    TPU_PROBE, ["¿qué ops con 'pool' en el nombre no soporta tpu?"])
# a model the gallery lacks: its nearest gallery model's own verdict, labelled as that model's
add("model", "en", "model", ["SDXL is not in the gallery", "The nearest gallery model's own verdict, Stable Diffusion 1.5 UNet",
                             "op calls on the device: 95.1% (neuron 2.14.3.1)"], GALLERY, ["will SDXL run on trn2?"])
add("model", "en", "model", ["sdxl is not in the gallery", "Stable Diffusion 1.5 UNet runs fully on the device on tpu 0.2.0",
                             "op calls on the device: 100.0% (tpu 0.2.0)"], GALLERY, ["does sdxl work on tpu?"])
add("model", "en", "model", ["llama 4 is not in the gallery", "The nearest gallery model's own verdict, Llama 3.1 70B",
                             "op calls on the device: 100.0% (tpu 0.2.0)"], GALLERY, ["will llama 4 run on tpu?"])
add("model", "es", "model", ["SDXL no está en la galería", "Stable Diffusion 1.5 UNet en neuron 2.14.3.1",
                             "llamadas a ops en el dispositivo: 95.1% (neuron 2.14.3.1)"], GALLERY, ["¿corre SDXL en trn2?"])
add("model", "es", "model", ["sdxl no está en la galería", "Stable Diffusion 1.5 UNet se ejecuta entero en el dispositivo",
                             "llamadas a ops en el dispositivo: 100.0% (tpu 0.2.0)"], GALLERY, ["¿funciona sdxl en tpu?"])
add("model", "es", "model", ["llama 4 no está en la galería", "El veredicto propio del modelo más cercano de la galería, Llama 3.1 70B"],
    GALLERY, ["¿llama 4 corre en tpu?"])

# ---------------------------------------------------------------- 29r (round 8's causes, own paraphrases): an
# upstream end of life asked ("X itself", "el propio X"), figures and a follow-up mode in two-part questions,
# where an op ends up ("end up on the CPU"), an op's history and several releases' dates, TorchTPU compile
# with a missing op from the per-op verdicts, and long answers folded
INF1_HISTORY = "neuron-inf1-op-history"


def add_29r(*args, **extra) -> None:
    add(*args, slice="29r", **extra)


add_29r("platform_eol", "en", "eol", ["**Until 2029-04** — Ubuntu 24.04's own (upstream) end of life"], "ubuntu.com",
    ["when does Ubuntu 24.04 itself go end of life?"])
add_29r("platform_eol", "en", "eol", ["**Until 2029-10** — Python 3.13's own (upstream) end of life"], PYDEV,
    ["Python 3.13 upstream: until when is it supported?"])
add_29r("platform_eol", "en", "eol", ["**Already ended (2026-10)** — Python 3.10's own (upstream) end of life"], PYDEV,
    ["has Python 3.10 itself reached its own end of life?"])
add_29r("platform_eol", "es", "eol", ["**Hasta 2029-04** — el fin de vida propio (upstream) de Ubuntu 24.04"],
    "ubuntu.com", ["¿Cuándo llega a fin de vida el propio Ubuntu 24.04?"])
add_29r("platform_eol", "es", "eol", ["**Hasta 2029-10** — el fin de vida propio (upstream) de Python 3.13"], PYDEV,
    ["¿Hasta cuándo tiene soporte el propio Python 3.13?"])
add_29r("platform_eol", "es", "eol", ["**Ya terminó (2026-10)** — el fin de vida propio (upstream) de Python 3.10"], PYDEV,
    ["¿Python 3.10 en sí ya llegó a fin de vida?"])
add_29r("model", "en", "model", ["runs fully on the device", "0.63 USD per million tokens"], COST,
    ["We'd run Llama 3.1 8B on tpu at 9 USD/hr with 4000 tokens/s. Does it run there, and what's the price per million tokens?"])
add_29r("model", "es", "model", ["se ejecuta entero en el dispositivo", "0,56 USD por millón de tokens"], COST,
    ["Con 5 USD por hora y 2500 tokens/s, ¿GPT-2 corre en la tpu? ¿y cuánto sale el millón de tokens?"])
add_29r("op", "en", "op", ["**Presumably no** — fallback", "**Eager and torch.compile differ**", "(compile)"], SNAPSHOT,
    ["is aten::hardtanh native on neuron? and in compile mode?", "is aten::hardtanh native on neuron? and with torch.compile?"])
add_29r("op", "en", "op", ["**Presumably yes** — it falls back", "**Eager and torch.compile differ**"], SNAPSHOT,
    ["does torch.sort fall back on trn2? what about compile mode?"])
add_29r("op", "es", "op", ["**Presumiblemente no** — recurre a la CPU", "**Eager y torch.compile difieren**", "(compile)"],
        SNAPSHOT,
    ["¿aten::hardtanh es nativo en neuron? ¿y en modo compilación?"])
add_29r("op", "es", "op", ["**Presumiblemente sí** — hace fallback", "**Eager y torch.compile difieren**"], SNAPSHOT,
    ["¿torch.sort cae a la CPU en trn2? ¿y con torch.compile?"])
add_29r("op", "en", "op", ["**Presumably yes** — it falls back (fallback at aten::sort.values_stable)"], SNAPSHOT,
    ["will torch.sort end up on the CPU on trn2?"])
add_29r("op", "en", "op", ["**Presumably yes** — it falls back (fallback at aten::argmax.out)"], SNAPSHOT,
    ["does aten::argmax wind up on the CPU on neuron?"])
add_29r("op", "en", "compare", ["**They differ.**", "neuron: **Presumably yes, but on the CPU**"], TPU_PROBE,
    ["is group_norm fine on tpu 0.2.0 and on neuron?"])
add_29r("op", "es", "op", ["**Presumiblemente sí** — hace fallback (fallback en aten::sort.values_stable)"], SNAPSHOT,
    ["¿torch.sort acaba en la CPU en trn2?"])
add_29r("op", "es", "op", ["**Presumiblemente sí** — hace fallback (fallback en aten::argmax.out)"], SNAPSHOT,
    ["¿aten::argmax termina en la CPU en neuron?"])
add_29r("op", "es", "compare", ["**Difieren.**"], TPU_PROBE, ["¿group_norm va bien en tpu 0.2.0 y en neuron?"])
add_29r("release", "en", "op", ["added in 1.0.763.0 (native); removed in 1.0.1001.0", "added in torch-neuron 1.0.763.0"],
    INF1_HISTORY, ["which torch-neuron version added aten::embedding on inf1?",
                   "in which release was aten::embedding removed on inf1?"])
add_29r("release", "en", "release", ["torchneuron 2.13.3.0 was released on 2026-10-19",
                                     "torchneuron 2.14.3.0 was released on 2026-10-19"], TORCHNEURON,
    ["when were torchneuron 2.13.3.0 and 2.14.3.0 released?"])
add_29r("release", "es", "op", ["añadido en 1.0.763.0 (native); quitado en 1.0.1001.0", "added in torch-neuron 1.0.763.0"],
    INF1_HISTORY, ["¿en qué versión de torch-neuron se añadió aten::embedding en inf1?",
                   "¿en cuál versión se quitó aten::embedding en inf1?"])
add_29r("release", "es", "release", ["torchneuron 2.13.3.0 se publicó el 2026-10-19",
                                     "torchneuron 2.14.3.0 se publicó el 2026-10-19"], TORCHNEURON,
    ["¿cuándo se publicaron torchneuron 2.13.3.0 y 2.14.3.0?"])
add_29r("policy", "en", "policy", ["TorchTPU, torch.compile: unsupported by the per-op verdicts", "no vendor rule stated",
                                   "compile mode is assumed not to reach the eager CPU fallback"], TPU_PROBE,
    ["under torch.compile on tpu, do missing ops fall back to the CPU?",
     "torch.compile on TorchTPU: what happens to an op with no kernel?",
     "with torch.compile on the tpu, is the CPU fallback used for ops it lacks?"])
add_29r("policy", "es", "policy", ["TorchTPU, torch.compile: “unsupported” (sin soporte) según los veredictos por op",
                                   "sin regla declarada del proveedor", "(veredictos por op, inferido)"], TPU_PROBE,
    ["con torch.compile en la tpu, ¿los ops que faltan caen a la CPU?",
     "¿qué pasa en TorchTPU con torch.compile si un op no tiene kernel?",
     "en modo compilación en tpu, ¿se usa el fallback a CPU para ops sin kernel?"])
add_29r("list", "en", "ops_by_status", ["**404** ops run as native on neuron", "**674** ops run as native on tpu",
                                        "more: `kb ops --target tpu=0.2.0 --status native`"], TPU_PROBE,
    ["how many ops are native on neuron vs tpu?"])
add_29r("list", "en", "ops_by_status", ["**1,127** ops run as fallback on neuron",
                                        "more: `kb ops --target neuron=2.14.3.1 --status fallback`"], SNAPSHOT,
    ["how many ops fall back on neuron and how many on tpu?"])
add_29r("op", "en", "op", ["Two questions in one", "`kb op aten::argmax -t neuron` shows them", "2026-05-21"], SNAPSHOT,
    ["does argmax fall back on trn2, and when did python 3.10 lose support on Neuron?"])
add_29r("list", "es", "ops_by_status", ["**404** ops se ejecutan como nativos en neuron 2.14.3.1",
                                        "más: `kb ops --target tpu=0.2.0 --status native`"], TPU_PROBE,
    ["¿cuántas ops son nativas en neuron y en tpu?"])
add_29r("list", "es", "ops_by_status", ["**1.127** ops recurren a la CPU en neuron 2.14.3.1",
                                        "más: `kb ops --target neuron=2.14.3.1 --status fallback`"], SNAPSHOT,
    ["¿cuántos ops hacen fallback en neuron y cuántos en tpu?"])
add_29r("op", "es", "op", ["Dos preguntas en una", "`kb op aten::argmax -t neuron` los muestra", "2026-05-21"], SNAPSHOT,
    ["¿argmax cae a la CPU en trn2? y de paso, ¿cuándo terminó el soporte de Python 3.10 en Neuron?"])


# ---------------------------------------------------------------- slice 29s (issue #29): more of how people ask
# An op asked with a verb kb does not know gets its verdict said plainly; "lose"/"perdió"/"se quedó sin" as end of
# support; "since when" an op runs on a target; three or more parts a section each; status labels in Spanish
# sentences said in Spanish. Facts from kb op aten::roll -t tpu, kb op aten::argmax -t neuron, kb op
# aten::_addmm_activation.out -t tpu, kb eol (inf1-virtual-environments, python 3.9), kb ops --status ... on the
# shipped KB (2026-12-01).
def add_29s(*args, **extra) -> None:
    add(*args, slice="29s", **extra)


INF1_AMIS = "announce-eos-inf1-virtual-environments"
TPU_REPLAY = "tpu_aten_kernels.cc"
add_29s("op", "en", "op", ["**`aten::roll` on tpu 0.2.0 (eager): runs on the device, its own kernel**"], TPU_PROBE,
        ["tpu chokes on torch.roll?", "does tpu choke on torch.roll?", "is torch.roll borked on tpu?",
         "torch.roll trips up the tpu?"])
add_29s("op", "en", "op", ["**`aten::argmax` on neuron 2.14.3.1 (eager): falls back to the CPU, presumably**",
                           "a leaf falls back to the CPU"], SNAPSHOT, ["neuron chokes on aten::argmax?"])
add_29s("op", "es", "op", ["**`aten::roll` en tpu 0.2.0 (eager): se ejecuta en el dispositivo, con kernel propio**"],
        TPU_PROBE, ["¿se atraganta la tpu con torch.roll?", "¿la tpu se traba con torch.roll?",
                    "¿torch.roll le sienta mal a la tpu?"])
add_29s("op", "es", "op", ["**`aten::argmax` en neuron 2.14.3.1 (eager): recurre a la CPU, presumiblemente**",
                           "una hoja recurre a la CPU"], SNAPSHOT, ["¿neuron se atraganta con aten::argmax?",
                                                                    "¿a neuron se le atraganta aten::argmax?"])
add_29s("eol", "en", "eol", ["**Already ended", "2025-12-19"], INF1_AMIS,
        ["did inf1 lose its DLAMI?", "has inf1 lost its DLAMI?", "when did inf1 lose its DLAMIs?"])
add_29s("eol", "en", "eol", ["**Already ended**", "2025-12-19"], "python-3-9", ["has python 3.9 lost support on neuron?"])
add_29s("eol", "es", "eol", ["**Ya terminó**", "2025-12-19"], INF1_AMIS,
        ["¿inf1 perdió su DLAMI?", "¿inf1 se quedó sin DLAMI?", "¿cuándo se quedó inf1 sin sus DLAMI?"])
add_29s("eol", "es", "eol", ["**Ya terminó**", "2025-12-19"], "python-3-9", ["¿python 3.9 se quedó sin soporte en neuron?"])
add_29s("op", "en", "op_since", ["**At least since tpu 0.1.1**", "the oldest tpu release the KB holds",
                                 "inferred: a dispatcher replay"], TPU_REPLAY,
        ["since when does tpu support torch.roll?", "since which version does tpu run aten::roll?"])
add_29s("op", "en", "op_since", ["**Since tpu 0.2.0**", "before it: 0.1.1 unsupported"], TPU_PROBE,
        ["since which version does tpu support aten::_addmm_activation.out?"])
add_29s("op", "en", "op", ["_Two questions in one", "**(2)** _since when does tpu support torch.roll?_",
                           "**At least since tpu 0.1.1**"], TPU_REPLAY, ["is torch.roll native on tpu? since when?"])
add_29s("op", "es", "op_since", ["**Al menos desde tpu 0.1.1**", "es la versión de tpu más antigua que tiene el KB"],
        TPU_REPLAY, ["¿desde cuándo soporta la tpu torch.roll?"])
add_29s("op", "es", "op_since", ["**Desde tpu 0.2.0**", "antes: 0.1.1 no soportado"], TPU_PROBE,
        ["¿desde qué versión es nativo aten::_addmm_activation.out en tpu?"])
add_29s("op", "es", "op", ["**(2)** _¿desde cuándo soporta tpu aten::nonzero?_", "**Al menos desde tpu 0.1.1**"], TPU_REPLAY,
        ["¿aten::nonzero es nativo en tpu? ¿desde cuándo?"])
add_29s("two", "en", "op", ["_3 questions in one", "**(2)** _what's the fallback policy on neuron?_",
                            "**(3)** _when does python 3.10 leave neuron?_", "**Ended with Neuron 2.30**"], NEURON_POLICY,
        ["is nonzero native on tpu? what's the fallback policy on neuron? when does python 3.10 leave neuron?"])
add_29s("two", "en", "op", ["_3 questions in one", "**(3)** _when does python 3.10 leave neuron?_"], NEURON_POLICY,
        ["Q1: is nonzero native on tpu? Q2: what's the fallback policy on neuron? Q3: when does python 3.10 leave neuron?",
         "1) is aten::sort native on tpu 0.2.0? 2) what does neuron do with an op it lacks? 3) when does python 3.10 "
         "leave neuron?"])
add_29s("two", "es", "op", ["_3 preguntas en una", "cuándo termina el soporte de python 3.10 en neuron?_",
                            "**Terminó con Neuron 2.30**"], NEURON_POLICY,
        ["1) ¿aten::nonzero es nativo en tpu? 2) ¿qué política de fallback tiene neuron? 3) ¿cuándo termina el soporte "
         "de python 3.10 en neuron?",
         "¿aten::nonzero es nativo en tpu? ¿qué política de fallback tiene neuron? ¿cuándo termina el soporte de python "
         "3.10 en neuron?",
         "P1: ¿corre aten::sort en tpu 0.2.0? P2: ¿qué hace neuron si le falta un op? P3: ¿cuándo termina el soporte de "
         "python 3.10 en neuron?"])
add_29s("list", "es", "ops_by_status", ["**595** ops no están soportados en tpu 0.2.0"], TPU_PROBE,
        ["¿cuántos ops no soporta tpu 0.2.0?", "¿cuántas operaciones no soporta tpu 0.2.0?"])
add_29s("list", "es", "ops_by_status", ["**1.127** ops recurren a la CPU en neuron 2.14.3.1"], SNAPSHOT,
        ["¿cuántas ops caen a la cpu en neuron 2.14.3.1?"])
add_29s("list", "es", "ops_by_status", ["**674** ops se ejecutan como nativos en tpu 0.2.0"], TPU_PROBE,
        ["¿cuántos ops nativos hay en tpu 0.2.0?"])
add_29s("op", "es", "op", ["descompuesto, y parte de él recurre a la CPU"], SNAPSHOT, ["¿F.interpolate corre nativo en trainium?"])
add_29s("list", "en", "ops_by_status", ["**595** ops run as unsupported on tpu 0.2.0"], TPU_PROBE,
        ["how many ops does tpu 0.2.0 not support?"])


# ---------------------------------------------------------------- 29t: the causes behind held-out round 9's misses
# A version after "in" bound to the one target named; a bare catalog op name; "scatter" as the ops named so;
# "env var" never aten::var; an arrow between two versions as a range.
def add_29t(*args, **extra) -> None:
    add(*args, slice="29t", **extra)


add_29t("list", "en", "ops_by_status", ["**800** ops run as unsupported on tpu 0.1.1"], TPU_REPLAY,
        ["how many ops were unsupported on the tpu back in 0.1.1?"])
add_29t("list", "en", "ops_by_status", ["**510** ops run as native on tpu 0.1.1"], TPU_REPLAY,
        ["what did the tpu run natively in 0.1.1? how many"])
add_29t("list", "es", "ops_by_status", ["**800** ops no están soportados en tpu 0.1.1"], TPU_REPLAY,
        ["¿cuántos ops no soportaba la tpu en la 0.1.1?"])
add_29t("list", "es", "ops_by_status", ["**510** ops se ejecutan como nativos en tpu 0.1.1"], TPU_REPLAY,
        ["¿cuántas ops nativas tenía la tpu en la versión 0.1.1?"])
add_29t("release", "en", "op", ["**`aten::pixel_shuffle` on inf1: added in 2.0.318.0"], INF1_OPS,
        ["which torch-neuron version added pixel_shuffle?", "when was pixel_shuffle added to inf1?"])
add_29t("release", "es", "op", ["**`aten::pixel_shuffle` en inf1: añadido en 2.0.318.0"], INF1_OPS,
        ["¿en qué versión de torch-neuron apareció pixel_shuffle?"])
add_29t("release", "es", "op_since", ["**Desde inf1 2.0.318.0**"], INF1_OPS, ["¿desde qué versión soporta inf1 pixel_shuffle?"])
add_29t("list", "en", "ops_by_status", ["ops whose name contains 'gather'", "2 ops that run as **unsupported**"],
        TPU_PROBE, ["which gather ops are unsupported on tpu 0.2.0?"])
# s8-list: "scatter ops" are the ops named scatter (as `kb ops --grep scatter`), the indexing family the other reading
add_29t("list", "en", "ops_by_status", ["ops whose name contains 'scatter'",
                                        "10 ops that run as **native** (10 of 31 matching ops with evidence)",
                                        "`aten::scatter_add_`: ✔ native", "the whole **indexing** family"], SNAPSHOT,
        ["what scatter ops run natively on neuron?"])
add_29t("list", "es", "ops_by_status", ["ops cuyo nombre contiene 'scatter'", "0 ops que se ejecutan como **unsupported**"],
        TPU_PROBE, ["¿qué ops de scatter no soporta la tpu 0.2.0?"])
add_29t("list", "es", "family", ["ops cuyo nombre contiene 'gather'"], SNAPSHOT, ["¿cuáles ops de gather caen a la cpu en neuron?"])
add_29t("policy", "en", "policy", ["**`TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`",
                                   "TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION defaults to 1"], ENV_VARS,
        ["which env var disables neuron's fallback execution?",
         "what environment variable governs fallback execution on neuron under torch.compile?"])
add_29t("policy", "es", "policy", ["**`TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`",
                                   "TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION defaults to 1"], ENV_VARS,
        ["¿qué variable de entorno gobierna la fallback execution de neuron?",
         "¿cuál es la variable de entorno de la fallback execution en neuron?"])
add_29t("release", "en", "diff", ["**tpu 0.1.1 → 0.2.0**", "**166** kernels gained", "_scaled_dot_product_flash_attention"],
        TPU_PROBE, ["which kernels did tpu gain going 0.1.1 -> 0.2.0?", "tpu 0.1.1 → 0.2.0: which kernels were lost?"])
add_29t("release", "es", "diff", ["**tpu 0.1.1 → 0.2.0**", "**166** kernels ganados", "_scaled_dot_product_efficient_attention"],
        TPU_PROBE, ["¿qué kernels ganó la tpu al pasar 0.1.1 -> 0.2.0?", "¿qué perdió la tpu de 0.1.1 → 0.2.0?"])

# "on the CPU" beside a fallback question is where the ops went, not a second target to compare with
add_29t("policy", "en", "policy", ["get_fallback_ops() lists them", "eager mode"], NEURON_POLICY,
        ["how do I see which ops ran on the CPU because of neuron's fallback?",
         "how can I list the ops that fell back to the cpu on neuron at runtime?"])
add_29t("policy", "es", "policy", ["get_fallback_ops() lists them", "modo eager"], NEURON_POLICY,
        ["¿cómo sé qué ops corrieron en la CPU por el fallback en trainium?",
         "¿de qué forma compruebo qué ops cayeron en la cpu por el fallback en neuron?"])
# two clauses: a figure is no question of its own; "and when?" after an end of support asks that end; a later clause's
# version stays there; a pronoun is the product the first clause names
add_29t("cost", "en", "cost", ["**1.74 USD per million tokens**"], COST,
        ["what's the price per million tokens if the trn1 runs 5 USD an hour and does 800 tok/s?"])
add_29t("cost", "en", "cost", ["**1.39 EUR per million tokens**"], COST,
        ["per 1M tokens, how much if we pay 3 EUR per hour and get 600 tokens/s?"])
add_29t("cost", "es", "cost", ["**1,11 EUR por millón de tokens**"], COST,
        ["¿cuánto sale el millón de tokens si pagamos 2 EUR la hora y saca 500 tokens por segundo?"])
add_29t("cost", "es", "cost", ["**1,11 USD por millón de tokens**"], COST,
        ["¿precio por millón de tokens si la máquina cuesta 6 USD por hora y hace 1500 tok/s?"])
add_29t("eol", "en", "eol", ["**Already ended**", "Python 3.10: out of support since 2026-05-21 (Neuron 2.30)",
                              "Python 3.10: own end of life 2026-10"], PYDEV,
        ["neuron 2.33 with python 3.10 and ubuntu 22.04: which part loses support first, and when?"])
add_29t("eol", "en", "eol", ["**Ended with Neuron 2.30** (2026-05-21)"], PY310,
        ["for python 3.10 on neuron 2.33, when does support end? and when?"])
add_29t("eol", "es", "eol", ["**Ya terminó**", "Python 3.10: sin soporte desde 2026-05-21 (Neuron 2.30)",
                              "Python 3.10: fin de vida propio 2026-10"], PYDEV,
        ["mi pila es neuron 2.33 + python 3.10 + ubuntu 22.04: ¿qué pierde soporte primero, y cuándo?"])
add_29t("eol", "es", "eol", ["**Terminó con Neuron 2.30** (2026-05-21)"], PY310,
        ["con neuron 2.33 y python 3.10, ¿cuándo termina el soporte? ¿y cuándo?"])
add_29t("mixed", "en", "ops_by_status", ["**inf1** 2.9.1.0 (eager): 5 ops that run as **unsupported**", "ended 2024-12-03"],
        PY_TORCH_NEURON, ["which ops are unsupported on inf1 with the newest torch-neuron, and when did torch-neuron 1.9 "
                          "reach end of support?"])
add_29t("mixed", "en", "ops_by_status", ["**0** ops run as fallback on tpu 0.2.0", "**(2)** _when was tpu 0.1.1 released?_"],
        TPU_PROBE, ["how many ops fall back on tpu (latest), and when was tpu 0.1.1 released?"])
add_29t("mixed", "es", "ops_by_status", ["**5** ops no están soportados en inf1 2.9.1.0", "terminó el 2024-12-03"],
        PY_TORCH_NEURON, ["¿cuántos ops no soporta inf1 (la última), y cuándo terminó el soporte de torch-neuron 1.9?"])
add_29t("mixed", "en", "eol", ["**(2)** _when is ubuntu 22.04's own end of life?_", "**Until 2027-05**"], "ubuntu.com",
        ["Ubuntu 22.04: is it still supported on neuron? and when is its own end of life?"])
add_29t("mixed", "en", "eol", ["**(2)** _when does python 3.11 reach end of life upstream?_", "**Until 2027-10**"], PYDEV,
        ["is python 3.11 supported on neuron, and when does it reach end of life upstream?"])
add_29t("mixed", "es", "eol", ["**(2)** _¿y cuándo es el fin de vida propio de ubuntu 22.04?_", "**Hasta 2027-05**"],
        "ubuntu.com", ["Ubuntu 22.04: ¿sigue soportado en neuron? ¿y cuándo es su fin de vida propio?"])
add_29t("mixed", "es", "eol", ["**(2)** _¿y cuándo llega el fin de vida upstream de python 3.11?_", "**Hasta 2027-10**"],
        PYDEV, ["¿python 3.11 está soportado en neuron? ¿y cuándo llega su fin de vida upstream?"])
add_29t("policy", "en", "policy", ["**`TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`",
                                   "TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION defaults to 1"], ENV_VARS,
        ["what env var sets neuron's fallback execution under torch.compile, and what's it set to by default?"])

# ---- s8-split: multi-part questions (held-out rounds 10 and 11): a subject-first question after "?", a series
# "A, B, and C", a filler word, a compile follow-up on a module, "when did it end?" after an end of support, "which
# ones", a version carried, "22.04" as Ubuntu's, "go away", "and on 0.2.0?", and one answer said once


def add_s8_split(*args, **extra) -> None:
    add(*args, slice="s8-split", **extra)


add_s8_split("mixed", "es", "cost", ["**(2)**", "no 3.11"], COST,
             ["¿Qué sale el millón de tokens a 9 USD la hora con 2000 tokens/s? y Neuron 2.33 soporta Python 3.11?"])
add_s8_split("mixed", "es", "cost", ["**(2)**", "no 3.10"], COST,
             ["¿cuánto cuesta un millón de tokens a 4 EUR por hora y 800 tokens/s? ¿la Neuron 2.33 admite Python 3.10?"])
add_s8_split("mixed", "en", "op", ["_3 questions in one", "**(3)**"], PRE_RELEASE_REPO,
             ["for our trn2 move: does F.layer_norm run on the device, will BERT base run fully there, and when did "
              "Neuron drop Python 3.9?"])
add_s8_split("mixed", "en", "release", ["_3 questions in one", "runs as mode default", "Neuron 2.30"], "2.33.0.html",
             ["What came out in Neuron 2.33, does torch.compile mode='max-autotune' do anything there, and when did "
              "PyTorch/XLA training end?"])
add_s8_split("mixed", "es", "op", ["**Eager y torch.compile difieren**", "Neuron 2.30",
                                   "_cuándo termina python 3.10 en neuron?_"], PRE_RELEASE_REPO,
             ["nn.BatchNorm1d funciona en trn2? y con torch.compile? ah y cuándo termina python 3.10 en neuron?"])
add_s8_split("mixed", "en", "op", ["**Eager and torch.compile differ**", "_when does python 3.10 end on neuron?_"],
             PRE_RELEASE_REPO, ["does nn.GroupNorm run on trainium? and with torch.compile? oh and when does python 3.10 "
                                "end on neuron?"])
add_s8_split("eol", "es", "eol", ["Neuron 2.29", "2026-04-09"], "pytorch.html",
             ["¿PyTorch 2.7 sigue soportado en Neuron? ¿cuándo se acabó?"])
add_s8_split("eol", "en", "eol", ["Neuron 2.29", "2026-04-09"], "pytorch.html",
             ["is PyTorch 2.8 still supported on Neuron? when did it end?"])
add_s8_split("policy", "en", "policy", ["fallback\\_ops"], NEURON_POLICY,
             ["in eager mode on neuron what happens to an op without a kernel? and how can I tell which ones fell back?"])
add_s8_split("eol", "en", "eol", ["2027-05", "2026-05-21"], "ubuntu.com",
             ["when does Ubuntu 22.04 reach end of life, and is Neuron's DLAMI on 22.04 still supported?"])
add_s8_split("eol", "es", "eol", ["2026-05-21"], "ubuntu.com", ["¿la DLAMI de Neuron sobre 22.04 sigue con soporte?"])
add_s8_split("release", "en", "release", ["0.1.1, 0.2.0", "**0.2.0**"], TPU_RELEASE,
             ["what TorchTPU versions are in the KB, and which is the latest?"])
add_s8_split("release", "es", "release", ["0.1.1, 0.2.0"], TPU_RELEASE, ["¿qué versiones de torch_tpu tenemos en el KB?"])
add_s8_split("release", "es", "release", ["en neuron 2.33?_", "3.12, 3.13, 3.14"], "2.33.0.html",
             ["¿qué incluye torch-neuronx en la 2.33? ¿qué versiones de python soporta?"])
add_s8_split("release", "en", "release", ["neuron 2.33?_", "2.13.0, 2.14.0"], "2.33.0.html",
             ["what's in torch-neuronx on 2.33? which pytorch versions does it support?"])
add_s8_split("mixed", "en", "eol", ["Neuron 2.34", "Neuron 2.30"], XLA_INF_TRN,
             ["is torch-xla inference on trn3 still supported? and when did training go away?"])
add_s8_split("mixed", "es", "eol", ["Neuron 2.34", "Neuron 2.30"], XLA_INF_TRN,
             ["¿la inferencia con torch-xla en trn2 sigue soportada? ¿y cuándo desapareció el entrenamiento?"])
add_s8_split("op", "es", "op", ["**(2)** _¿aten::nonzero es nativo en tpu 0.2.0?_"], "tpu_aten_kernels.cc",
             ["¿aten::nonzero es nativo en tpu 0.1.1? ¿y en la 0.2.0?"])
add_s8_split("op", "en", "op", ["**(2)** _is aten::nonzero native on tpu 0.2.0?_"], "tpu_aten_kernels.cc",
             ["is aten::nonzero native on tpu 0.1.1? what about 0.2.0?"])
add_s8_split("release", "es", "release", ["**0.2.0**", "torch >=2.11.0,<=2.15.0"], TPU_RELEASE,
             ["¿cuál es la versión más reciente de TorchTPU y qué requisitos tiene?"])

# ---- s8-list: held-out rounds 10/11's list misses, as paraphrases (never the held-out questions): the word that
# qualifies "ops" filters however spelled (sort-related, unique*, "ops gru", "relacionadas con"); "sort ops" are the
# ops named sort; a filtered list is whole up to 40, each op with where it runs; a policy word or an op's own name in
# a list question leaves it a list.
def add_s8_list(*args, **extra) -> None:
    add(*args, slice="s8-list", **extra)


add_s8_list("list", "en", "ops_by_status", ["'sort' (`--grep sort`)", "4 ops that run as **unsupported**",
                                            "`aten::searchsorted.Scalar_out`"], TPU_REPLAY,
            ["what sort-type ops does torch_tpu 0.1.1 fail on?"])
add_s8_list("list", "en", "family", ["'sort' (`--grep sort`)", "4 sort ops are unsupported (raise) on tpu 0.1.1"],
            TPU_REPLAY, ["sort related ops that tpu 0.1.1 cannot run?"])
add_s8_list("list", "es", "ops_by_status", ["'sort' (`--grep sort`)", "4 ops que se ejecutan como **unsupported**"],
            TPU_REPLAY, ["¿qué ops relacionadas con sort no puede correr TorchTPU 0.1.1?"])
add_s8_list("list", "en", "ops_by_status", ["'nan' (`--grep nan`)", "6 ops that run as **unsupported**"], TPU_PROBE,
            ["any nan* ops that tpu 0.2.0 can't run?"])
add_s8_list("list", "es", "ops_by_status", ["'gru' (`--grep gru`)", "4 ops que se ejecutan como **unsupported**"],
            TPU_PROBE, ["lista de ops gru no soportadas en TorchTPU 0.2.0"])
add_s8_list("list", "en", "family", ["(12 of 13 ops with evidence)", "`aten::sort.values_stable`: ✘ unsupported",
                                     "whole **sorting** family"], SNAPSHOT,
            ["list the sort ops that raise under torch.compile on trn2"])
add_s8_list("list", "es", "family", ["(12 de 13 ops con evidencia)", "familia **sorting** entera"], SNAPSHOT,
            ["¿qué ops de sort fallan con torch.compile en trainium?"])
add_s8_list("list", "en", "family", ["`aten::max_pool2d_with_indices.out`: ⇄ fallback", "--status fallback --grep pool`"],
            SNAPSHOT, ["which pool ops fall back to the cpu on trn2? need to rewrite our backbone"])
add_s8_list("list", "en", "ops_by_status", ["`aten::median.dim`: ◐ decomposed → ⇄ fallback at aten::median.dim_values"],
            SNAPSHOT, ["which median ops fall back on neuron?"])
add_s8_list("list", "es", "ops_by_status", ["⇄ fallback en aten::sort.values_stable"], SNAPSHOT,
            ["¿qué ops de nanquantile caen a la cpu en neuron?"])
add_s8_list("list", "en", "family", ["44 fft ops fall back to the CPU on neuron 2.14.3.1"], SNAPSHOT,
            ["which fft ops hit the cpu fallback on neuron in eager mode?"])
add_s8_list("list", "es", "family", ["84 linalg ops hacen fallback a la CPU", "los ops cuyo nombre contiene 'linalg': 65"],
            SNAPSHOT, ["¿qué ops de linalg acaban en el fallback a CPU en trainium en eager?"])
add_s8_list("list", "en", "ops_by_status", ["'group_norm' (`--grep group_norm`)",
                                            "`aten::group_norm`: ◐ decomposed → ✘ unsupported"], SNAPSHOT,
            ["give me the list of ops of group_norm unsupported in compile mode on neuron"])
add_s8_list("list", "es", "ops_by_status", ["'group_norm' (`--grep group_norm`)"], SNAPSHOT,
            ["dame la lista de ops de group_norm que no se soportan en compile en trainium"])
add_s8_list("list", "es", "family", ["17 rnn ops no están soportados", "los ops cuyo nombre contiene 'rnn': 7 de ellos"],
            TPU_PROBE, ["dame las ops rnn que no soporta la tpu 0.2.0"])


# ---- s8-eolrel: end-of-support, release and policy causes of held-out rounds 10/11 (own paraphrases)
def add_s8e(*args, **extra) -> None:
    add(*args, slice="s8-eolrel", **extra)


TORCHAO_RN = "components/torchao-neuron.html"
TPU_CLAIM = "TorchTPU announcement"
RN_228 = "neuron-release-notes"
add_s8e("eol", "en", "eol", ["**Already ended (2026-11-30, with Neuron 2.34)**", "Inf2 and Trn1 maintenance mode"], NXDI,
        ["our inference fleet runs NxD Inference on trn3, when does that stop?",
         "we deploy with nxd inference on trn2. when will that end?"])
add_s8e("eol", "es", "eol", ["**Depende de la familia de instancias**", "Trn2: terminó con Neuron 2.34 (2026-11-30)",
                              "Inf2: modo de mantenimiento declarado, sin fecha"], NXDI,
        ["¿cuándo se acaba el soporte de NxD Inference en trn2 y en inf2?"])
add_s8e("eol", "en", "eol", ["**No** — Python 3.10: out of support since 2026-05-21 (Neuron 2.30)",
                              "Upstream, a separate matter: **Already ended (2026-10)**"], PY310,
        ["does the neuron sdk still support python 3.10? and upstream python itself?"])
add_s8e("eol", "es", "eol", ["**No** — Python 3.10: sin soporte desde 2026-05-21 (Neuron 2.30)",
                              "Aguas arriba (upstream), aparte: **Ya terminó (2026-10)**"], PY310,
        ["¿python 3.10 sigue soportado en el SDK de Neuron? ¿y upstream?"])
add_s8e("release", "en", "release", ["0.18.0+neuron.1", "Trainium3 instances only", "torchneuron (torch-neuronx) 2.14.3.1",
                                      "released 2026-11-30"], TORCHAO_RN,
        ["what does neuron 2.34 include?", "what got shipped with Neuron 2.34?"])
add_s8e("release", "es", "release", ["0.18.0+neuron.1", "Trainium3 instances only", "publicada el 2026-11-30"], TORCHAO_RN,
        ["¿qué se incluyó en la Neuron 2.34?"])
add_s8e("release", "en", "ops_by_status", ["**About 450 ATen operators** — the vendor's own claim"], TPU_CLAIM,
        ["how many ATen ops does Google claim torch_tpu 0.2.0 covers?"])
add_s8e("release", "es", "ops_by_status", ["**Unos 450 operadores ATen** — es lo que anuncia el proveedor"], TPU_CLAIM,
        ["¿cuántos operadores ATen anuncian que cubre TorchTPU 0.2.0?"])
add_s8e("eol", "en", "support", ["**No** — TorchNeuron on Trn1 (Neuron 2.33.0): not supported",
                                  "the 2.33 support matrix covers Trn2 and Trn3 only"], TORCHNEURON,
        ["we want to run trn1 with neuron 2.33, is that supported?"])
add_s8e("eol", "es", "support", ["**No** — TorchNeuron en Trn1 (Neuron 2.33.0): no soportado"], TORCHNEURON,
        ["¿trn1 está soportado con Neuron 2.33 y TorchNeuron?"])
add_s8e("policy", "en", "policy", ["error unless fallback\\_mode(ALLOW\\_FALLBACK)", "**by default, an error**"], TPU_REPLAY,
        ["with torch_tpu 0.1.1, does an op lacking a TPU kernel quietly run on the CPU?"])
add_s8e("policy", "es", "policy", ["**por defecto, un error**"], TPU_REPLAY,
        ["en torch_tpu 0.1.1, un op sin kernel de TPU, ¿se va a la CPU sin avisar?"])
add_s8e("release", "en", "limitation", ["Known limitations (3)", "Performance degradation with public PyPI torch-xla 2.8.0",
                                         "Segmentation faults with certain vision models"], RN_228,
        ["known issues of PyTorch NeuronX in the neuron 2.28 release?"])
add_s8e("release", "es", "limitation", ["Limitaciones conocidas (3)", "PyTorch NeuronX 2.7 does not support Python 3.12"], RN_228,
        ["¿qué problemas conocidos tenía PyTorch NeuronX en la versión 2.28?"])
add_s8e("release", "en", "limitation", ["**float64** on neuron", "**torch.sparse** on neuron", "**torch.fft** on neuron"],
        TORCHNEURON, ["what are the known limitations of neuron 2.33? we rely on float64"])
add_s8e("release", "es", "limitation", ["**float64** en neuron", "**torch.nested** en neuron", "**torch.func** en neuron"],
        TORCHNEURON, ["¿qué limitaciones conocidas tiene TorchNeuron 2.33? usamos float64"])


# ---- s8-gallery (#29): held-out rounds 10 and 11's model-question causes, own paraphrases: "what blocks it?" names
# the blockers in the headline; a bare second version is answered; an old version or one target that does not run
# the model gets one line on the newer version or the other target; the leaf an op fails at; eager beside compile;
# "MobileNetV2" as one word. Facts checked with kb gallery (-t neuron/tpu, --mode eager/compile) on the shipped KB.
def add_s8g(*args, **extra) -> None:
    add(*args, slice="s8-gallery", **extra)


add_s8g("model", "en", "model", ["**1 blocker: aten::argmax**", "In eager mode (no torch.compile) on neuron 2.14.3.1: "
                                 "aten::argmax falls back to the CPU"], GALLERY,
        ["CLIP ViT-B/32 under torch.compile on trainium: is anything blocking it?"])
add_s8g("model", "en", "model", ["**2 blockers: aten::roll, aten::adaptive_avg_pool1d**",
                                 "aten::roll, aten::adaptive_avg_pool1d at aten::_adaptive_avg_pool2d fall back to the CPU"],
        GALLERY, ["what blocks swin-t from compiling on trn2?"])
add_s8g("model", "es", "model", ["**1 bloqueo: aten::min.other**", "En tpu 0.2.0 (eager): corre entero en el dispositivo"],
        GALLERY, ["¿qué frena a T5 base en trainium?"])
add_s8g("model", "es", "model", ["**3 bloqueos: aten::batch_norm, aten::max_pool2d, aten::adaptive_avg_pool2d**",
                                 "En tpu 0.2.0 (eager): corre entero en el dispositivo"], GALLERY,
        ["estamos migrando ResNet-50 a neuron, ¿qué lo bloquea?"])
add_s8g("model", "en", "model", ["**No** — HuBERT base on tpu 0.1.1", "HuBERT base runs fully on the device on tpu 0.2.0",
                                 "So moving from tpu 0.1.1 to tpu 0.2.0 fixes it"], GALLERY,
        ["is HuBERT base fine on torch_tpu 0.1.1, or only on 0.2.0?"])
add_s8g("model", "es", "model", ["wav2vec 2.0 base en tpu 0.1.1", "wav2vec 2.0 base se ejecuta entero en el dispositivo en tpu 0.2.0",
                                 "Así que pasar de tpu 0.1.1 a tpu 0.2.0 lo resuelve"], GALLERY,
        ["wav2vec2: ¿anda en TorchTPU 0.1.1 o hace falta la 0.2.0?"])
add_s8g("model", "en", "model", ["aten::group_norm unsupported at aten::var_mean.correction",
                                 "On the newer tpu 0.2.0 (eager): it runs fully on the device"], GALLERY,
        ["will the stable diffusion 1.5 unet work with TorchTPU 0.1.1?"])
add_s8g("model", "es", "model", ["**Sí** — MobileNetV2 1.0 224 se ejecuta entero en el dispositivo en tpu 0.2.0",
                                 "57.1% de las llamadas a ops en el dispositivo", "aten::hardtanh fallback"], GALLERY,
        ["¿MobileNetV2 funciona en tpu y en trainium?"])
add_s8g("model", "en", "model", ["**Partly** — MobileNetV2 1.0 224 on neuron 2.14.3.1 (eager)",
                                 "On tpu 0.2.0 (eager): it runs fully on the device"], GALLERY,
        ["does MobileNetV2 run on trn2?"])

# ---- s8-op: op and module answers of held-out rounds 10 and 11 (issue #29): the other mode beside a named one,
# the other releases asked, the newest release where an older one fails, the other target where a module does not
# run, a variable's method call read as the Tensor method (a number argument picks the overload), no caveat word
# inside an op name, and "no known issue" after the verdict
def add_s8op(*args, **extra) -> None:
    add(*args, slice="s8-op", **extra)


TPU_011 = "tpu_aten_kernels.cc"
add_s8op("op", "en", "op", ["**Presumably yes**", "`torch.Tensor.roll`", EAGER_COMPILE,
                            "torch.compile: unsupported (raises)"], SNAPSHOT, ["does t.roll(2, 0) fall back on trn2?"])
add_s8op("op", "es", "op", ["**Presumiblemente sí**", "`torch.Tensor.roll`", EAGER_COMPILE_ES], SNAPSHOT,
         ["¿t.roll(1) cae a la cpu en trainium?"])
add_s8op("op", "en", "op", ["**Yes, inferred**", "the argument `0.3` binds its `float` parameter",
                            "`aten::bernoulli_.Tensor` unsupported", "_Newer: on tpu 0.2.0, `aten::bernoulli_.Tensor` native"],
         TPU_011, ["mask.bernoulli_(0.3) on torch_tpu 0.1.1 — does it run?"])
add_s8op("op", "es", "op", ["**Sí, inferido**", "el argumento `0.2` va a su parámetro `float`",
                            "_Más nuevo: en tpu 0.2.0, `aten::bernoulli_.Tensor`: nativo"], TPU_011,
         ["¿corre y.bernoulli_(0.2) en tpu 0.1.1?"])
add_s8op("op", "en", "op", ["**Presumably no** — unsupported (raises)", EAGER_COMPILE, "eager: falls back to the CPU"],
         SNAPSHOT, ["is torch.searchsorted supported on neuron with torch.compile?",
                    "F.hardtanh under torch.compile on trainium: ok? eager looked fine"])
add_s8op("op", "es", "op", ["**Presumiblemente no**", EAGER_COMPILE_ES, "eager: cae a la CPU"], SNAPSHOT,
         ["¿torch.searchsorted funciona en neuron con torch.compile?"])
add_s8op("op", "en", "op", ["- tpu 0.2.0: **Yes**", "- tpu 0.1.1: **No, inferred**",
                            "0.1.1 unsupported (raises) → 0.2.0 native (its own kernel)"], TPU_PROBE,
         ["is F.logsigmoid native on tpu 0.2.0? I think it was unsupported on 0.1.1",
          "F.logsigmoid on tpu: does it work with 0.1.1? and with 0.2.0?"])
add_s8op("op", "es", "op", ["- tpu 0.2.0: **No**", "- tpu 0.1.1: **Sí, inferido**",
                            "0.1.1 nativo (kernel propio) → 0.2.0 sin soporte (lanza un error)"], TPU_011,
         ["¿aten::_scaled_dot_product_flash_attention es nativo en tpu 0.2.0? creo que en la 0.1.1 sí"])
add_s8op("op", "en", "op", ["**No** on tpu 0.1.1", "_Newer: tpu 0.2.0: 2 of 2 ops native (eager)"], TPU_PROBE,
         ["we are pinned to torch_tpu 0.1.1 — can nn.PReLU run there?"])
add_s8op("op", "es", "op", ["**No** en tpu 0.1.1", "_Más nuevo: tpu 0.2.0: 2 de 2 ops nativos (eager)"], TPU_PROBE,
         ["seguimos en TorchTPU 0.1.1: ¿nn.PReLU corre ahí?"])
add_s8op("op", "en", "op", ["**No** on neuron 2.14.3.1 — `aten::hardtanh` falls back to the CPU",
                            "_On the other target: tpu 0.2.0: 1 of 1 op native"], TPU_PROBE,
         ["is nn.ReLU6 native on trainium?"])
add_s8op("op", "es", "op", ["**Sí, cae a la CPU** en neuron 2.14.3.1", "_En el otro destino: tpu 0.2.0"], TPU_PROBE,
         ["¿nn.Upsample corre en neuron o cae a la cpu?"])
add_s8op("op", "en", "op", [EAGER_COMPILE, "torch.compile: unsupported (raises at a leaf)",
                            "torch.compile: neuron 2.14.3.1: 1 of 2 ops run on the device"], SNAPSHOT,
         ["does nn.BatchNorm2d run on neuron? and with torch.compile?"])
add_s8op("op", "es", "op", [EAGER_COMPILE_ES, "torch.compile: sin soporte (una hoja lanza un error)"], SNAPSHOT,
         ["¿nn.BatchNorm2d anda en neuron? ¿y con torch.compile?"])
add_s8op("op", "en", "op", ["**Presumably yes, but on the CPU**", EAGER_COMPILE], SNAPSHOT,
         ["does aten::var_mean.correction run on neuron?"])
add_s8op("op", "es", "op", ["**Presumiblemente sí, pero en la CPU**", EAGER_COMPILE_ES], SNAPSHOT,
         ["¿aten::var_mean.correction corre en neuron?"])


# ---- s8b-head2
# headlines that mislead and facts left out (held-out round 12): the other mode said in one line also when it
# agrees; no "differ" line for overloads that raise alike; no "no known issue" after a "no"; a migration's source
# platform is no target; "¿es cierto que ya no tiene soporte?" answered yes; a stack's "anything out of support?"
# answered for the stack; "tune through options" names the options
def add_s8b_head2(*args, **extra) -> None:
    add(*args, slice="s8b-head2", **extra)


AGREE = "**Eager and torch.compile agree**"
AGREE_ES = "**Eager y torch.compile coinciden**"
add_s8b_head2("op", "en", "op", ["**No**", AGREE, "unsupported (raises at a leaf)"], TPU_PROBE,
              ["our resize lowers to aten::_upsample_bilinear2d_aa on a v5e: does torch_tpu 0.2.0 have a kernel or "
               "will it crash?"])
add_s8b_head2("op", "es", "op", ["no soportado: lanza un error", AGREE_ES], TPU_PROBE,
              ["¿aten::_upsample_bilinear2d_aa tiene kernel en TorchTPU 0.2.0 o va a reventar?"])
add_s8b_head2("op", "en", "op", ["**No**", AGREE, "unsupported (raises at a leaf)"], TPU_PROBE,
              ["box regression uses F.smooth_l1_loss on torch_tpu 0.2.0: does that work on the device?"])
add_s8b_head2("op", "es", "op", ["**No** en tpu 0.2.0", AGREE_ES, "sin soporte (lanza un error)"], TPU_PROBE,
              ["¿nn.HuberLoss funciona en el dispositivo con TorchTPU 0.2.0?"])
add_s8b_head2("op", "en", "op", ["**Yes, but partly on the CPU** on neuron 2.14.3.1", EAGER_COMPILE], PRE_RELEASE_REPO,
              ["following the CUDA→Trainium migration guide: does nn.EmbeddingBag on torch-neuronx 2.14.3.1 run on "
               "the chip?"])
add_s8b_head2("op", "es", "op", ["**Sí** en neuron 2.14.3.1", AGREE_ES, "nativo (kernel propio)"], PRE_RELEASE_REPO,
              ["estamos migrando de GPU a Trainium: ¿nn.Embedding corre en el chip con 2.14.3.1?"])
add_s8b_head2("eol", "en", "eol", ["**Yes, that is true**", "ended with Neuron 2.34 (2026-11-30)"], NXDI,
              ["someone told me NxD Inference is no longer supported on trn2. Is that true?"])
add_s8b_head2("eol", "es", "eol", ["**Sí, es cierto**", "terminó con Neuron 2.30 (2026-05-21)"], XLA_TRAIN,
              ["me comentaron que PyTorch/XLA training en trn1 ya no tiene soporte, ¿es verdad?"])
add_s8b_head2("eol", "en", "eol", ["**No** — ", "ended with Neuron 2.34"], NXDI,
              ["is NxD Inference still supported on trn2 instances?"])
add_s8b_head2("eol", "en", "eol", ["**Yes** — Python 3.11: incompatible", "2027-10-01"], PYDEV,
              ["our stack: Neuron 2.34, Python 3.11, Ubuntu 24.04 on trn2. Is anything out of support or about to end?"])
add_s8b_head2("eol", "es", "eol", ["**Sí** — Python 3.11: incompatible", "2027-10-01"], PYDEV,
              ["pila de producción: Neuron 2.34, Python 3.11, Ubuntu 24.04, trn2. ¿Algo que termine pronto o esté "
               "fuera de soporte?"])
add_s8b_head2("eol", "en", "eol", ["**Nothing out of support**", "2028-10-01"], PYDEV,
              ["stack is Neuron 2.34 with Python 3.12 and Ubuntu 24.04 on trn2; anything unsupported in there?"])
add_s8b_head2("limitation", "en", "limitation", ["every mode except 'default'", "async_compile",
                                                 "num_dynamic_buckets (1-8)", "bucket_size"], TPU_COMPILE,
              ["torch.compile(mode='reduce-overhead') with torch_tpu 0.2.0 gives a TypeError. Which modes work and how "
               "do I tune the backend?"])
add_s8b_head2("limitation", "es", "limitation", ["async_compile", "num_dynamic_buckets (1-8)"], TPU_COMPILE,
              ["torch.compile con mode=max-autotune en torch_tpu 0.2.0 da TypeError: ¿qué modos acepta y cómo se afina?"])

# ---- s8b-route2: wrong readings of held-out round 12 (traceback frames, name filters, switches), our own words
def add_route2(*args, **extra) -> None:
    add(*args, slice="s8b-route2", **extra)


ENV_VARS = "env-vars.html"
add_route2("list", "en", "ops_by_status", ["_Filtered to ops whose name contains 'norm'"], SNAPSHOT,
           ["which ops with `norm` in the aten name fall back on neuron 2.14.3.1? I want to open an issue"])
add_route2("list", "en", "ops_by_status", ["37 ops that run as **fallback**"], SNAPSHOT,
           ["our sampler calls randn_like and randperm. On neuron 2.14.3.1, which ops with 'rand' in the name fall back?"])
add_route2("policy", "en", "policy", ["**Yes: `TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`"], ENV_VARS,
           ["Is there an env var so a torch.compile graph that fails to compile runs eagerly on neuron?"])
add_route2("policy", "es", "policy", ["**Sí: `TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`"], ENV_VARS,
           ["¿hay alguna variable de entorno para que un grafo que falla al compilar corra en eager en neuron?"])
add_route2("policy", "en", "policy", ["**Yes: `TORCH_NEURONX_COMPLEX_DECOMPOSE`"], ENV_VARS,
           ["is there a knob for complex numbers on trn2?"])

# ---- s8b-split2: multi-part questions of held-out round 12 (and r10's model follow-ups): numbered parts after a lead,
# "Also, unrelated:", "…? Y comparado con la 0.1.1", a conditional cost, follow-ups that carry the part before's subject
def add_s8b_split2(*args, **extra) -> None:
    add(*args, slice="s8b-split2", **extra)


add_s8b_split2("mixed", "en", "op", ["_3 questions in one", "**(2)** _same question on tpu 0.2.0 (nn.LayerNorm)?_",
                                     "tpu 0.2.0: 1 of 1 op native", "**Ended with Neuron 2.30** (2026-05-21)"], PY310,
               ["two things for the port doc: (1) is nn.LayerNorm native on neuron 2.14.3.1? (2) same question on "
                "tpu 0.2.0. (3) when did Neuron drop Python 3.10?"])
add_s8b_split2("mixed", "es", "op", ["_3 preguntas en una", "(nn.LayerNorm)?_", "tpu 0.2.0: 1 de 1 op nativo",
                                     "2026-05-21"], PY310,
               ["tres cosas para el ticket: (1) ¿nn.LayerNorm es nativo en neuron 2.14.3.1? (2) la misma pregunta en "
                "tpu 0.2.0. (3) ¿cuándo termina el soporte de Python 3.10 en Neuron?"])
add_s8b_split2("mixed", "en", "op", ["**(2)** _when did Neuron drop Python 3.10?_", "`aten::upsample\\_nearest2d`",
                                     "2026-05-21"], PY310,
               ["Is nn.Upsample ok on tpu 0.2.0? Also, unrelated: when did Neuron drop Python 3.10?"])
add_s8b_split2("mixed", "es", "gallery_model", ["BERT base uncased", "**0,62 USD por millón de tokens**"], COST,
               ["¿Corre BERT base entero en Trainium? Y si la instancia cuesta 2 USD la hora con 900 tokens por "
                "segundo, ¿cuánto sale el millón de tokens?"])
add_s8b_split2("mixed", "en", "gallery_model", ["GPT-2 (124M) runs fully on the device", "**0.69 USD per million tokens**"],
               COST, ["Does GPT-2 run fully on trn2? And if the box is 3 USD an hour at 1200 tok/s, what is the cost per "
                      "million tokens?"])
add_s8b_split2("mixed", "es", "family", ["**(2)** _comparado con tpu 0.1.1, ¿cuáles ganó o perdió en tpu 0.2.0?_",
                                         "`aten::_scaled_dot_product_flash_attention`: ✔ native → ✘ unsupported"],
               TPU_PROBE, ["¿Qué ops de atención no soporta TorchTPU 0.2.0? Y comparado con la 0.1.1, ¿cuáles ganó o "
                           "perdió?"])
add_s8b_split2("op", "en", "op", ["**(2)** _what happens to nn.GroupNorm under torch.compile on neuron 2.14.3.1?_",
                                  "1 unsupported (aten::native\\_group\\_norm)** (compile)"], SNAPSHOT,
               ["Our VAE uses nn.GroupNorm on trn2 with torch-neuronx 2.14.3.1. Does it fall back in eager, and what "
                "happens to it under torch.compile?"])
add_s8b_split2("op", "es", "op", ["(batch\\_norm)?_", "**`aten::batch_norm` en tpu 0.2.0 (eager): se ejecuta en el "
                                                       "dispositivo**"], TPU_PROBE,
               ["¿batch_norm cae a la CPU en neuron con torch-neuronx 2.14.3.1? ¿Y en TPU con torch_tpu 0.2.0? ¿Y cuál es "
                "la última versión de TorchTPU?"])
add_s8b_split2("policy", "en", "policy", ["enable\\_cpu\\_fallback", "**by default, an error**"], "torch_tpu",
               ["torch_tpu 0.2.0 eager: missing ops, CPU fallback or an error? And is there a knob?"])
add_s8b_split2("policy", "es", "policy", ["enable\\_cpu\\_fallback", "**por defecto, un error**"], "torch_tpu",
               ["¿TorchTPU 0.2.0 cae a la CPU cuando le falta un op o lanza un error? ¿Hay alguna opción?"])
add_s8b_split2("gallery", "en", "gallery_model", ["**(2)** _which ops block it (ResNet-50) on neuron?_",
                                                  "**3 blockers: aten::batch\\_norm"], GALLERY,
               ["Will ResNet-50 run on a trn2? which ops block it?"])
add_s8b_split2("gallery", "es", "gallery_model", ["**(2)** _¿qué ops bloquean ResNet-50 en neuron?_", "**3 bloqueos:"],
               GALLERY, ["¿ResNet-50 funciona en trainium? que ops se van a la CPU"])
add_s8b_split2("gallery", "en", "gallery_model", ["**(2)** _Is tpu 0.2.0 clean for this model (HuBERT base)?_",
                                                  "**Yes** — HuBERT base runs fully on the device on tpu 0.2.0"], GALLERY,
               ["HuBERT base on torch_tpu 0.1.1 is blocked by which op? Is 0.2.0 clean for this model?"])
add_s8b_split2("release", "en", "release", ["Versions of tpu with op verdicts in the KB: **0.1.1, 0.2.0**",
                                            "**0.2.0**"], "pypi.org/project/torch-tpu",
               ["Which torch_tpu releases does the kb have data for, and which is the newest?"])
add_s8b_split2("release", "es", "release", ["Versiones de tpu con veredictos de ops en el KB: **0.1.1, 0.2.0**"],
               "pypi.org/project/torch-tpu", ["¿De qué versiones de TorchTPU tiene datos el kb y cuál es la más nueva?"])



# ---- s8c-intent3: missing-op policy asked as an either/or, Inductor with a TPU, torchao-neuron in two words
def add_s8c_intent3(*args, **extra) -> None:
    add(*args, slice="s8c-intent3", **extra)


add_s8c_intent3("policy", "en", "policy", ["**What each backend does with an ATen op it has no kernel for**", "compile error",
                                          "TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION defaults to 1"],
                NEURON_POLICY,
                ["torch.compile on a trn2: if an op cannot be lowered, do we get an error or does it run eager?"])
add_s8c_intent3("release", "en", "release", ["torchao-neuron 0.18.0+neuron.1", "Trainium3"],
                "manual-facts-2026-11", ["what does torchao neuron 0.18 bring us?"])

# ---- s8c-names3: glued versions, spaced norm names, a function's own op, overloads by argument count
def add_s8c_names3(*args, **extra) -> None:
    add(*args, slice="s8c-names3", **extra)


add_s8c_names3("op", "en", "op", ["**Yes** — its own kernel on tpu", "native (its own kernel)", "`aten::rms_norm`"],
               "static-tpu-0.2.0",
               ["does F.rms_norm get its own kernel on tpu0.2?"])
add_s8c_names3("op", "es", "op", ["`aten::rms_norm`", "kernel propio"], "static-tpu-0.2.0",
               ["¿F.rms_norm va con kernel propio en tpu0.2?"])
add_s8c_names3("op", "en", "op", ["`aten::where.self`", "native"], "static-tpu-0.2.0",
               ["torch.where(keep, scores, floor) on torch_tpu 0.2.0: device or cpu?"])
add_s8c_names3("op", "es", "op", ["nn.LayerNorm", "1 de 1 op nativo"], "static-tpu-0.2.0",
               ["¿la layer norm corre nativa en tpu 0.2.0?"])
add_s8c_names3("eol", "en", "eol", ["**Ended with Neuron 2.30** (2026-05-21)", "2026-10-01"], PY310,
               ["is py3.10 still ok for neuron?"])
add_s8c_names3("cost", "en", "cost", ["0.18 USD per million tokens"], COST,
               ["inf2 0.76/h usd 1.2k tok/s -> cost per million tokens?"])

# ---- s8c-split3
def add_s8c_split3(*args, **extra) -> None:
    add(*args, slice="s8c-split3", **extra)


add_s8c_split3("mixed", "en", "op", ["_3 questions in one", "**(2)** _since when does tpu support torch.bucketize?_",
                                     "**(3)** _and on neuron (torch.bucketize)?_", "torch.compile: unsupported (raises)"],
               SNAPSHOT, ["does torch.bucketize work on torchtpu and since when? and on neuron?"])
add_s8c_split3("mixed", "es", "op", ["_3 preguntas en una", "**(2)** _¿desde cuándo soporta tpu torch.flip?_",
                                     "**(3)** _y en Trainium (torch.flip)?_"], SNAPSHOT,
               ["torch.flip funciona en TPU? desde cuándo? y en Trainium?"])
add_s8c_split3("mixed", "en", "gallery_model", ["**(2)** _until when is torchneuron 2.14.3.1 supported?_",
                                                "no end-of-support statement for torchneuron 2.14.3.1"], "torchao-neuron.html",
               ["is Mistral 7B fine on trn2 now, and until when is torchneuron 2.14.3.1 supported?"])
add_s8c_split3("mixed", "es", "release", ["**(2)** _¿hasta cuándo está soportado python 3.13 en neuron?_",
                                          "Sin fecha de fin declarada", "**0,93 USD por millón de tokens**"], COST,
               ["¿Python 3.13 sigue andando con Neuron y hasta cuándo? y de paso cuánto sale el millón a 10 USD la hora "
                "con 3000 tokens por segundo"])
add_s8c_split3("mixed", "es", "cost", ["**1,11 USD por millón de tokens**", "**(2)** _el nonzero corre en tpu_",
                                       "en tpu 0.2.0: nativo (kernel propio)"], TPU_PROBE,
               ["cuanto cuesta el millon a 4 usd/h con 1000 tok/s y el nonzero corre en tpu"])
add_s8c_split3("mixed", "es", "op", ["**(2)** _cual es el torchneuron mas nuevo?_", "**2.14.3.1**",
                                     "**(3)** _en tpu q tal el nonzero_"], TPU_PROBE,
               ["nonzero nativo en trn2 y cual es el torchneuron mas nuevo y en tpu q tal el nonzero"])
add_s8c_split3("mixed", "es", "eol", ["**(2)** _q gano vs tpu 0.1.1 en tpu 0.2?_", "**166** kernels ganados",
                                      "**(3)** _¿cuándo salió tpu 0.2?_", "2026-10"], TPU_RELEASE,
               ["torchtpu 0.2 tiene fecha de fin de soporte y q gano vs 0.1.1 desde cuando esta"])
add_s8c_split3("mixed", "en", "op", ["**(1)** _is aten::sort native on tpu 0.2?_", "**Ended with Neuron 2.27**"],
               TPU_PROBE, ["is aten::sort native on tpu0.2 and when did python 3.9 support end on neuron"])
add_s8c_split3("mixed", "en", "cost", ["**1.39 USD per million tokens**", "**`aten::multinomial`**",
                                       "torch.compile: unsupported (raises)"], SNAPSHOT,
               ["price per mtok at 5 usd/h doing 1k tok/s and does multinomial sampling work on neuron"])
add_s8c_split3("mixed", "en", "op", ["**(2)** _what flag brings back eager on neuron?_",
                                     "`TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`", "0 restores that fallback"], ENV_VARS,
               ["under torch.compile on neuron does nonzero fail and what flag brings back eager"])
add_s8c_split3("mixed", "es", "op", ["**(2)** _q variable de entorno devuelve el fallback a eager en neuron?_",
                                     "`TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`"], ENV_VARS,
               ["topk con torch.compile en neuron q pasa y q variable de entorno devuelve el fallback a eager"])
add_s8c_split3("limitation", "es", "limitation", ["**torch.nested** en neuron (neuron-sdk 2.33.0): unsupported",
                                                  "**torch.func** en neuron (neuron-sdk 2.33.0): unsupported",
                                                  "**float64** en neuron (neuron-sdk 2.33.0): se ejecuta como float32"],
               "manual-facts", ["limitaciones conocidas de neuron 2.33 con torch.nested, torch.func y float64"])
add_s8c_split3("limitation", "en", "limitation", ["**torch.sparse** on neuron (neuron-sdk 2.33.0): unsupported",
                                                  "**torch.fft** on neuron (neuron-sdk 2.33.0): partial"],
               "manual-facts", ["what known limitations does neuron 2.33 have for torch.sparse and torch.fft"])


def main() -> None:
    seen = set()
    with open(OUT, "w", encoding="utf-8") as out:
        for row in rows:
            assert row["question"].lower() not in seen, row["question"]
            seen.add(row["question"].lower())
            out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{len(rows)} phrasings -> {OUT}")


if __name__ == "__main__":
    main()
