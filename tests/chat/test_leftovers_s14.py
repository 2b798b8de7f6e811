"""Misses of held-out rounds r28 onward fixed in session 14: a tuned-variant name is a hub-like name, never words
of the sentence."""

from __future__ import annotations

import pytest

from tests.chat.phrasings import ask


@pytest.mark.parametrize("question, word", [
    ("does gemma-3-1b-it run on tpu", "'gemma-3-1b-it' is a tuned variant of Gemma 3 1B"),
    ("does Llama 3.1 8B Instruct run on trn2", "'8B Instruct' is a tuned variant of Llama 3.1 8B"),
])
def test_a_tuned_variant_is_named_by_its_hub_like_name(conn, question, word):
    assert word in ask(conn, question)["text"]


def test_sentence_words_after_a_model_size_are_no_tuned_variant(conn):
    text = ask(conn, "we want to move our Mixtral-8x7B endpoint off GPUs. will it run on trn2?")["text"]
    assert "tuned variant" not in text and "Mixtral 8x7B" in text


@pytest.mark.parametrize("question", [
    "what does TorchTPU do when it lacks one?",
    "si un op no está en la lista, ¿qué hace TorchTPU cuando le falta uno? ¿error o cpu?",
])
def test_it_lacks_one_is_the_missing_op_policy(conn, question):
    text = ask(conn, question)["text"]
    assert text.startswith("**What each backend does") or text.startswith("**Qué hace cada backend")


@pytest.mark.parametrize("question, head", [
    ("what did 2.34 drop?", "**Neuron 2.34 ends 4 things**"),
    ("¿qué dejó de tener soporte con la 2.34?", "**Neuron 2.34 termina 4 cosas**"),
])
def test_a_bare_neuron_release_asked_what_it_ended(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


def test_a_bare_price_like_release_number_stays_a_price(conn):
    assert ask(conn, "cost at 2.34 usd an hour and 500 tokens/s")["text"].startswith("**1.30 USD per million tokens**")


@pytest.mark.parametrize("question, head", [
    ("¿torch.topk compila en neuron?", "**`aten::topk` en neuron 2.14.3.1 (compile):"),
    ("¿compila topk en tpu?", "**`aten::topk` en tpu 0.2.0 (compile):"),
])
def test_compila_asks_the_compile_verdict(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


def test_aws_ending_support_for_an_instance_family_is_its_own_end(conn):
    text = ask(conn, "when does AWS end support for the trn1 instance family itself? trying to decide whether to keep "
                     "our trn1 reservation past 2027")["text"]
    assert text.startswith("**Unknown** — the KB has no end-of-support date for the Trn1 instance family itself")


def test_a_platforms_own_end_after_a_part_on_an_instance_is_upstreams(conn):
    text = ask(conn, "Tío, tenemos un venv viejo con Python 3.9 en una inf2. ¿Sigue soportado por Neuron? ¿Y el propio "
                     "Python 3.9, cuándo llegó a fin de vida?")["text"]
    assert "**Ya terminó (2025-10-31)** — el fin de vida propio (upstream) de Python 3.9" in text.split("**(2)**")[1]


def test_a_bare_version_after_a_pytorch_part_is_pytorchs(conn):
    text = ask(conn, "¿Cuándo se terminó el soporte de PyTorch 2.8 en Neuron? ¿y el de la 2.7? estamos planificando "
                     "migrar todo a la 2.14")["text"]
    two = text.split("**(2)**")[1]
    assert "PyTorch 2.7" in two and "neuron 2.7" not in two


def test_llama_the_spanish_verb_is_no_model(conn):
    text = ask(conn, "nuestro script de monitoreo llama a `neuron-ls --json-output`. ¿eso sigue soportado con la 2.34 o "
                     "ya murió?")["text"]
    assert text.startswith("**Ya terminó** — “Neuron feature: neuron-ls JSON output") and "Llama" not in text


def test_an_end_of_support_asked_again_on_other_instance_families(conn):
    text = ask(conn, "¿NxD Inference sigue teniendo soporte en Trn2? ¿Y en Inf2 o Trn1? Tenemos un servicio de "
                     "inferencia armado encima")["text"]
    assert "**Sí, en modo de mantenimiento** — “NxD Inference and NxD Core inference APIs: Inf2 and Trn1" in text


@pytest.mark.parametrize("question, head", [
    ("what neuronx-cc version shipped in SDK 2.32.0, and which vLLM Neuron version came with it?",
     "**vLLM Neuron (Beta) 0.24.0.1.1.0** ships in Neuron SDK 2.32.0 (released 2026-08-17)"),
    ("¿qué versión de vLLM Neuron venía en la 2.32? estamos migrando los endpoints",
     "**vLLM Neuron (Beta) 0.24.0.1.1.0** viene en Neuron SDK 2.32.0"),
])
def test_a_component_of_an_sdk_release_is_named_with_its_version(conn, question, head):
    assert head in ask(conn, question)["text"]


@pytest.mark.parametrize("question, head", [
    ("¿dynamic=True funciona en tpu y en trainium? tenemos secuencias de largo variable en el endpoint",
     "**No** — “torch.compile dynamic=True” no está soportado en neuron (neuron-sdk 2.33.0) ni en tpu (torch_tpu 0.2.0)"),
    ("does dynamic=True work on tpu and trainium?",
     "**No** — torch.compile dynamic=True is not supported on neuron (neuron-sdk 2.33.0) nor on tpu (torch_tpu 0.2.0)"),
    ("Otra: si le pongo torch.compile(model, backend=\"inductor\") en la TPU (torch_tpu 0.2.0), ¿funciona o qué hace?",
     "**No** — “torch.compile backend=inductor” no está soportado en tpu (torch_tpu 0.2.0)"),
])
def test_a_feature_unsupported_everywhere_asked_gets_a_headline(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


@pytest.mark.parametrize("question, head", [
    ("what's the single op blocking the most gallery models on trainum?",
     "The op that blocks the most gallery models on neuron 2.14.3.1 (eager): **aten::adaptive\\_avg\\_pool2d** fallback "
     "(4: convnext-tiny, efficientnet-b0, mobilenet-v2, resnet-50); then:\n- aten::batch\\_norm"),
    ("Buenas, ¿cuáles son las ops que más modelos de la galería dejan fuera de Trainium? Hablo de neuron 2.14.3.1 en "
     "eager.", "La op que bloquea más modelos de la galería en neuron 2.14.3.1 (eager): **aten::adaptive\\_avg\\_pool2d**"),
])
def test_the_op_blocking_the_most_models_leads_with_every_model(conn, question, head):
    assert head in ask(conn, question)["text"]


def test_gallery_counts_then_the_older_releases_blockers(conn):
    text = ask(conn, "how many of the gallery models run fully on trainum (2.14.3.1) vs tpu 0.2.0? and on the older tpu "
                     "one, what blocks the rest?")["text"]
    one, two = text.split("**(2)**")
    assert "**32 of 47**" in one and "**47 of 47**" in one and "resnet" not in one.lower().split("gallery models that")[0]
    assert "on tpu 0.1.1 (eager): **aten::group\\_norm** unsupported (3: hubert-base, sd15-unet, wav2vec2-base)" in two
    assert "'the older tpu one'" in two


@pytest.mark.parametrize("question, said", [
    ("¿corre nonzero en la tpu vieja?", "en tpu 0.1.1"),
    ("does nonzero run on the previous torchneuron release?", "on neuron 2.14.3.0"),
])
def test_an_older_release_is_the_one_before_the_newest(conn, question, said):
    assert said in ask(conn, question)["text"]


@pytest.mark.parametrize("question, head, more", [
    ("budget check: a trn2 node is 44.70 USD/h and we measured 5,200 tok/s. what's that per 1M tokens? and if the CPU "
     "fallbacks drag us down to 3,900 tok/s?", "**2.39 USD per million tokens**",
     "- At 3,900 tokens/s: **3.18 USD per million tokens**"),
    ("Presupuesto del cluster: 58 USD/h y 11.000 tok/s agregados. ¿Cuál es el costo por millón de tokens? ¿y si con los "
     "fallbacks bajamos a 8.000 tok/s?", "**1,46 USD por millón de tokens**",
     "- A 8.000 tokens/s: **2,01 USD por millón de tokens**"),
])
def test_a_second_rate_is_the_same_price_at_that_rate(conn, question, head, more):
    text = ask(conn, question)["text"]
    assert text.startswith(head) and more in text


def test_a_price_with_a_symbol_and_a_code_is_one_amount(conn):
    text = ask(conn, "Parce, la máquina cuesta $180.000 COP por hora y da 5400 tokens/s. ¿Cuánto sale el millón de "
                     "tokens?")["text"]
    assert text.startswith("**9.259,26 COP por millón de tokens**") and "no usados" not in text


@pytest.mark.parametrize("question, head", [
    ("anything in this stack hitting EOL in the next 6 months? `neuron=2.34 torch=2.14 python=3.12 ubuntu=22.04`",
     "**Yes** — within 180 days of 2026-12-01: ubuntu 22.04 on 2027-05-01 (151 days from today)."),
    ("¿algo de esta pila termina en los próximos 3 meses? neuron 2.34, python 3.12, ubuntu 24.04",
     "**Nada de esta pila termina en los 90 días** desde 2026-12-01."),
])
def test_a_stack_over_a_horizon_says_what_ends_inside_it(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


def test_two_statuses_counted_at_each_release_named(conn):
    text = ask(conn, "sizing the portng effort: how many ATen ops fall back to CPU on neuron 2.14.3.1 in eager, and how "
                     "many are flat-out unsupported? and on the older 2.13.3.0 package?")["text"]
    one, two = text.split("**(2)**")
    assert "**1,127** on neuron 2.14.3.1 [1] vs **1,128** on neuron 2.13.3.0" in one
    assert "**68** on neuron 2.14.3.1" in two and "on neuron 2.13.3.0" in two


def test_how_many_unsupported_each_is_a_count_not_the_policy(conn):
    text = ask(conn, "tpu 0.1.1 vs 0.2.0 — how many unsupported ops does each have in eager? and did 0.2.0 lose any "
                     "kernels vs 0.1.1 or was it pure gains?")["text"]
    one, two = text.split("**(2)**")
    assert "**800** on tpu 0.1.1" in one and "**595** on tpu 0.2.0" in one and "**2** lost" in two


def test_a_family_count_after_context_and_another_at_two_releases(conn):
    text = ask(conn, "we do spectral losses with torch.fft.rfft/irfft in training. how many fft ops fall back on neuron "
                     "2.14.3.1 eager? and how many fft ops are unsupported on tpu 0.2.0 vs the older 0.1.1?")["text"]
    one, two = text.split("**(2)**")
    assert "**44 fft ops** fall back to the CPU on neuron 2.14.3.1" in one
    assert "**0 fft ops** are unsupported (raise) on tpu 0.2.0" in two and "**28 fft ops**" in two


def test_an_op_carried_into_a_fallback_question_on_another_target(conn):
    text = ask(conn, "Oye, una duda rápida: para el sampling del decoder usamos torch.multinomial. ¿Corre en la TPU con "
                     "torch_tpu 0.2.0? ¿Y en Trainium con la 2.14.3.1 en eager, o se nos va a la CPU en cada paso?")["text"]
    assert "**`aten::multinomial` en neuron 2.14.3.1 (eager): recurre a la CPU" in text.split("**(2)**")[1]


def test_si_lo_compilo_asks_the_ops_compile_verdict(conn):
    text = ask(conn, "che, tengo esto:\n```python\nidx = torch.argsort(scores, dim=-1, descending=True)\n```\n¿anda en el "
                     "device con neuron 2.13.3.0 o se va a la CPU? y si lo compilo con torch.compile, ¿qué onda?")["text"]
    assert "**`aten::sort` en neuron 2.13.3.0 (compile): no soportado" in text.split("**(2)**")[1]


@pytest.mark.parametrize("question, head", [
    ("Parce, todavía tenemos un pipeline con el torch-neuronx viejo de PyTorch/XLA (2.9.0.2.15.32035). ¿aten::roll corre "
     "ahí nativo o no?", "**Desconocido**"),
    ("¿Qué hace PyTorch/XLA en neuron (torch-neuronx 2.9) cuando le falta un op? ¿cae a CPU o truena?",
     "**Qué hace cada backend con un op ATen sin kernel propio** — desconocido."),
    ("what does pytorch/xla on neuron do with an op it lacks?",
     "**What each backend does with an ATen op it has no kernel for** — unknown."),
])
def test_torch_neuronx_of_pytorch_xla_is_the_xla_line(conn, question, head):
    text = ask(conn, question)["text"]
    assert text.startswith(head) and "2.14.3.1" not in text.split("\n")[0]


def test_when_the_model_hits_one_is_the_missing_op_policy(conn):
    text = ask(conn, "how many ops are unsupported on tpu 0.2.0 eager, and what does torchtpu do when the model hits one?")
    assert "**What each backend does with an ATen op it has no kernel for** — TorchTPU 0.2.0" in \
        text["text"].split("**(2)**")[1]


def test_y_otra_opens_a_part(conn):
    text = ask(conn, "Para el plan de 2027: ¿hasta cuándo tiene soporte torch_tpu 0.2.0? Y otra: en Trainium, ¿qué pasa "
                     "con los tensores float64 y los complejos?")["text"]
    assert "**float64** en neuron (neuron-sdk 2.33.0)" in text.split("**(2)**")[1]


def test_what_blocks_two_models_asked_after_them(conn):
    text = ask(conn, "Tenemos un pipeline con FLAN-T5 base y T5 base. ¿Corren completos en neuron 2.14.3.1? ¿qué op "
                     "molesta?")["text"]
    assert text.split("**(2)**")[1].count("**1 bloqueo: aten::min.other**") == 2


def test_a_pasted_exception_is_no_op_and_falling_back_to_eager_is_the_switch(conn):
    text = ask(conn, "Con torch.compile en neuron nos sale `torch._dynamo.exc.BackendCompilerFailed: backend='neuron' "
                     "raised` cuando un op no se puede bajar. ¿Así es por default? ¿hay forma de que caiga a eager?")["text"]
    one, two = text.split("**(2)**")
    assert "No conozco un operador" not in one and "“compile error” (error de compilación)" in one
    assert "**Sí: `TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`" in two


def test_from_the_cuda_days_is_no_target(conn):
    text = ask(conn, 'we have torch.compile(model, mode="max-autotune") in the trainer from the CUDA days. what happens '
                     'with that on neuron (2.34) and on tpu 0.2.0?')["text"]
    assert "cuda" not in text.split("\n")[0].lower() and "runs as mode default" in text and "TypeError" in text


def test_a_version_of_one_target_narrows_only_its_own_limitations(conn):
    text = ask(conn, "¿Qué pasa en Trainium si uso torch.compile con dynamic=True? Tenemos secuencias de longitud "
                     "variable. ¿Y en la TPU con torch_tpu 0.2.0?")["text"]
    assert "no está soportado en neuron (neuron-sdk 2.33.0) ni en tpu (torch_tpu 0.2.0)" in text


def test_torch_neuronx_at_an_old_sdk_release_is_its_xla_package(conn):
    text = ask(conn, "che, ¿qué versión de torch-neuronx venía en la 2.31.0 y para qué PyTorch? seguimos con la de XLA")
    assert text["text"].startswith("**torch-neuronx-xla 2.9.0.2.15.32035** viene en Neuron SDK 2.31.0")


@pytest.mark.parametrize("question, head", [
    ("does TorchAO Neuron work on trn2?", "**No** — torchao-neuron 0.18.0+neuron.1 is for Trn3 only, not Trn2"),
    ("does torchao neuron run on trn3?", "**Yes** — torchao-neuron 0.18.0+neuron.1 is for Trn3"),
])
def test_a_package_on_an_instance_family(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


def test_a_package_carried_to_an_instance_follow_up(conn):
    text = ask(conn, "¿Qué trajo TorchAO Neuron en la 2.34? ¿Nos sirve en las Trn2 que ya tenemos reservadas?")["text"]
    assert "**No** — torchao-neuron 0.18.0+neuron.1 es solo para Trn3, no para Trn2" in text.split("**(2)**")[1]


def test_known_issues_of_a_release_said_bare_before_release(conn):
    text = ask(conn, "any known issues listed for pytorch neuronx in the 2.28 release notes? we hit segfaults on a vision "
                     "model")["text"]
    assert "Segmentation faults with certain vision models" in text and "torch-xla 2.8.0" in text
    assert "Python 3.12" in text and "2.29.0" not in text


def test_any_release_asks_every_release(conn):
    text = ask(conn, "is there any torch_tpu version where aten::cholesky runs?")["text"]
    assert "tpu torch_tpu 0.1.1" in text and "tpu torch_tpu 0.2.0" in text and text.startswith("**No**")


def test_an_sdk_releases_pytorch_packages_include_torchao(conn):
    text = ask(conn, "when did neuron 2.34 ship and what torch bits came with it?")["text"]
    assert "**torchao-neuron 0.18.0+neuron.1**" in text and "Trainium3 instances only" in text


def test_tpu_generations_are_said_not_told_apart(conn):
    text = ask(conn, "Oye, ¿cuántas ops soporta la TPU v6e frente a la v5e con torch_tpu 0.2.0?")["text"]
    assert text.startswith("_El KB no distingue generaciones de TPU (v5e, v6e…)")


def test_se_va_pa_cpu_names_no_cpu_target(conn):
    text = ask(conn, "Parce, tenemos `self.pool = nn.AdaptiveAvgPool2d((1, 1))` al final del backbone, ¿eso corre en "
                     "Trainium o se va pa' CPU?")["text"]
    assert "cpu 2.13.0" not in text and "Difieren" not in text


def test_a_throughput_asked_is_one_kb_does_not_hold(conn):
    text = ask(conn, "what's the on-demand hourly price of a trn2.48xlarge in us-east-1 right now, and how many tokens/s "
                     "will Llama 3.1 8B do on it?")["text"]
    assert "**kb holds no measured throughputs (tokens/s)**" in text.split("**(2)**")[1]


def test_an_op_of_another_library_is_unknown_and_kb_check_settles_it(conn):
    text = ask(conn, "nuestro detector hace `keep = torchvision.ops.nms(boxes, scores, 0.5)` — ¿eso corre en trn2 o "
                     "cae a CPU?")["text"]
    assert text.startswith("**Desconocido** — `torchvision::nms` no es un op ATen") and "kb check" in text


def test_one_status_counted_in_both_modes_compared(conn):
    text = ask(conn, "¿cuántas ops quedan unsupported en neuron con torch.compile, comparado con eager?")["text"]
    one, two = text.split("**(2)**")
    assert "**1.184** ops no están soportados en neuron 2.14.3.1 (compile)" in one and "(eager)" in two and "**68**" in two


def test_a_models_own_number_is_no_release(conn):
    text = ask(conn, "we pay 7.20 USD/h for the trn2 and get 2,000 tok/s on Llama 3.2 1B — cost per 1M? also, does "
                     "Llama 3.2 1B run fully on neuron or are there fallbacks?")["text"]
    assert "3.2 in the KB" not in text and "neuron 3.2" not in text and "Llama 3.2 1B" in text


def test_se_descomponen_lists_the_decomposed_ops(conn):
    text = ask(conn, "dame la lista de ops que se descomponen en tpu 0.1.1")["text"]
    assert text.startswith("**tpu** 0.1.1 (eager): 2.086 ops que se ejecutan como **decomposed**")
