"""Misses of held-out rounds r25–r27 fixed in session 13: a compile sub-part after an op, lists in compile mode, op
coverage counts by status, currencies said by country or symbol, a remark after a cost question, an instance price,
a bare SDK release before an instance, release maturity and future releases, and requirements a stack breaks."""

from __future__ import annotations

import pytest

from kb.chat import sections
from tests.chat.phrasings import ask


def test_a_compile_sub_part_asks_the_ops_compile_verdict(conn):
    text = ask(conn, "El modelo usa torch.roll. ¿Se ejecuta aten::roll de forma nativa en Neuron? "
                     "¿Y si compilamos con torch.compile(backend=\"neuron\")?")["text"]
    two = text.split("**(2)**")[1]
    assert "**`aten::roll` en neuron 2.14.3.1 (compile): no soportado" in two and "Limitaciones conocidas" not in two


@pytest.mark.parametrize("question", [
    "en modo compile ¿qué ops sí hacen fallback a CPU en neuron? me dijeron que casi ninguno",
    "¿hay algún op que todavía haga fallback a CPU en modo compile en neuron?",
    "in compile mode which ops still fall back to cpu on neuron 2.14.3.1?",
])
def test_ops_falling_back_in_compile_mode_are_a_list(conn, question):
    result = ask(conn, question)
    assert "2.14.3.1 (compile): 11 ops" in result["text"] and "`aten::linalg_qr`" in result["text"]


@pytest.mark.parametrize("question, lang", [
    ("give me the op coverage numbers for TorchNeuron 2.14.3.1 in eager - native / decomposed / CPU fallback / "
     "unsupported", "en"),
    ("números de cobertura de ops de torchneuron 2.14.3.1 en eager: nativo / descompuesto / fallback / no soportado", "es"),
])
def test_op_coverage_numbers_are_counts_by_status(conn, question, lang):
    text = ask(conn, question)["text"]
    assert "ops **decomposed**" in text and "ops **fallback**" in text and "ops **native**" in text
    assert "What each backend does" not in text and "Qué hace cada backend" not in text


@pytest.mark.parametrize("question, head", [
    ("si pago 3000 pesos la hora (argentinos) y saco 600 tokens/s cuanto me sale el millon?", "**1.388,89 ARS"),
    ("a 2500 pesos chilenos la hora y 300 tok/s cuanto sale el millon?", "CLP por millón"),
    ("oye en soles: S/ 5.80 por hora y 120 tok/s, cuanto por millon de tokens?", "**13,43 PEN"),
    ("my roommate says 2.5k tokens/s at 4 bucks an hour is cheaper than 900 tok/s at $1.50/h. is he right?",
     "0.44 USD per million tokens vs 0.46 USD"),
])
def test_currencies_said_by_country_symbol_or_slang(conn, question, head):
    assert head in ask(conn, question)["text"].splitlines()[0]


def test_a_remark_after_a_cost_question_is_no_part(conn):
    text = ask(conn, "a 0,76 usd/h con 35 tok/s cuanto sale el millon de tokens? es una inf2 chiquita")["text"]
    assert text.startswith("**6,03 USD por millón de tokens**") and "**(2)**" not in text


def test_an_instance_price_asked_says_kb_holds_none(conn):
    text = ask(conn, "how much is a trn1.2xlarge per hour and whats the cost per million tokens for llama 3 8b on it?")["text"]
    one = text.split("**(1)**")[1].split("**(2)**")[0]
    assert "kb holds no instance prices" in one and "could not read this part" not in one


@pytest.mark.parametrize("question, head", [
    ("la 2.33 soporta trn1? tengo creditos de aws solo para trn1 :( ya instale todo asi que decime q si jaja",
     "**No** — TorchNeuron en Trn1 (Neuron 2.33.0): no soportado"),
    ("neuron 2.34 supports trn3?", "**Presumably yes** — TorchNeuron on Trn3"),
    ("¿neuron 2.34 soporta trn1?", "**Presumiblemente no** — TorchNeuron en Trn1"),
])
def test_an_sdk_release_and_an_instance(conn, question, head):
    text = ask(conn, question)["text"]
    assert text.startswith(head)
    if "2.34" in question:  # 2.34 states no matrix: 2.33's is presumed, and said so
        assert "2.33" in text and ("is presumed" in text or "se presume" in text)


def test_release_maturity_is_the_release_card(conn):
    text = ask(conn, "is torchneuron still beta?")["text"]
    assert "**torchneuron 2.14.3.1** (Neuron SDK 2.34.0, beta)" in text


def test_a_future_release_asked_when_it_drops_is_unknown(conn):
    text = ask(conn, "when does neuron 2.35 drop?")["text"]
    assert "**Unknown** — the release registry has no neuron-sdk 2.35; the newest is 2.34.0 (2026-11-30)" in text


def test_the_newest_package_after_a_versioned_part_is_the_newest(conn):
    text = ask(conn, "is python 3.12 supported by neuron 2.34? and whats the newest torch-neuronx")["text"]
    two = text.split("**(2)**")[1]
    assert "The latest torchneuron release in the KB is **2.14.3.1**" in two and "**neuron-sdk 2.34.0**" not in two


def test_which_is_newest_carries_no_op():
    read, facts = sections.read_all(["nonzero nativo en trn2?", "cual es el torchneuron mas nuevo?",
                                     "en tpu q tal el nonzero"], "es")
    assert read[1] == "cual es el torchneuron mas nuevo?" and not facts


def test_a_stack_outside_a_packages_requirements_does_not_fit(conn):
    text = ask(conn, "torch_tpu 0.2.0 needs what python/torch? i got py3.10 and torch 2.9 on my laptop")["text"]
    assert text.startswith("**Does not fit** — torch_tpu 0.2.0 requires Python >=3.11, not 3.10; "
                           "torch_tpu 0.2.0 requires PyTorch >=2.11.0,<=2.15.0, not 2.9.")
    assert "Neuron 2.30" not in text  # Neuron's end of Python 3.10 is no part of a TPU stack


def test_kb_eol_checks_a_packages_requirements(conn):
    from kb.eol import windows

    result = windows.check_stack(conn, "torch_tpu=0.2.0 python=3.10 pytorch=2.9")
    kinds = {(i["kind"], i["component"]) for i in result["issues"]}
    assert ("incompatible", "python=3.10") in kinds and ("incompatible", "pytorch=2.9") in kinds
    assert not any("Neuron" in i["message"] for i in result["issues"])
    fits = windows.check_stack(conn, "torch_tpu=0.2.0 python=3.11 pytorch=2.13")
    assert not [i for i in fits["issues"] if i["kind"] == "incompatible"]
    neuron = windows.check_stack(conn, "neuron=2.33 python=3.10")  # Neuron's own window still counts on Neuron
    assert any("Neuron 2.30" in (w.get("state") or "") for w in neuron["windows"])


def test_which_ubuntu_lists_every_release_of_the_matrix(conn):
    text = ask(conn, "neuron 2.33 q ubuntu soporta? tengo el 24.04")["text"]
    assert text.startswith("**Sí** — la matriz de plataformas de Neuron 2.33.0 da Ubuntu 24.04 como soportado")
    assert "**Ubuntu 22.04**: fin de soporte; **Ubuntu 24.04**: soportado; **Ubuntu 26.04**: soportado" in text


def test_flash_attention_said_in_words_is_sdpas_flash_kernel(conn):
    text = ask(conn, "did tpu 0.1.1 have flash attention?")["text"]
    assert text.startswith("**`aten::_scaled_dot_product_flash_attention` on tpu 0.1.1 (eager): runs on the device")


def test_parts_numbered_in_words(conn):
    text = ask(conn, "primero: cuantas ops unsupported tiene tpu 0.2.0 en eager. segundo: la 0.1.1 tenia flash "
                     "attention no?")["text"]
    one, two = text.split("**(2)**")
    assert "**595** ops no están soportados en tpu 0.2.0 (eager)" in one
    assert "`aten::_scaled_dot_product_flash_attention` en tpu 0.1.1 (eager): se ejecuta en el dispositivo" in two


def test_a_big_model_says_its_verdict_is_of_ops_not_memory(conn):
    text = ask(conn, "will llama 3 70b run on trainium? or do i need a tpu for that")["text"]
    assert "op coverage only: whether the weights and activations fit the device's memory is not checked" in text
    assert "cobertura de ops" not in ask(conn, "bert base en trainium?")["text"]


def test_the_gallery_share_running_fully_and_what_blocks_most(conn):
    text = ask(conn, "cuantos modelos de la galeria corren 100% en trainium? q es lo q mas frena")["text"]
    one, two = text.split("**(2)**")
    assert "**32 de 47** modelos de la galería corren enteros" in one
    assert "La op que bloquea más modelos de la galería en neuron 2.14.3.1 (eager): **aten::adaptive\\_avg\\_pool2d**" in two


def test_a_compile_fallback_list_counts_what_raises_too(conn):
    text = ask(conn, "cuantas ops con torch.compile se van a cpu en neuron? pense q con compile quedaba todo en el chip")["text"]
    assert "**11** ops recurren a la CPU en neuron 2.14.3.1 (compile)" in text
    assert "Con torch.compile, además, **1.184** ops son **unsupported** ahí (el grafo no compila)" in text


def test_a_family_of_private_kernels_names_its_public_ops_that_run(conn):
    text = ask(conn, "q ops de attention no soporta la tpu 0.2.0?")["text"]
    assert "Los ops públicos de la familia sí se ejecutan en el dispositivo ahí: `aten::scaled_dot_product_attention`" in text


def test_two_releases_counted_share_one_headline(conn):
    text = ask(conn, "tpu 0.1.1 vs 0.2.0 how many unsupported ops each? i heard 0.2.0 fixed basically everything")["text"]
    assert text.splitlines()[0] == ("**800** on tpu 0.1.1 [1] vs **595** on tpu 0.2.0 [2]: ops that run as unsupported "
                                    "(eager); 205 fewer on tpu 0.2.0.")


@pytest.mark.parametrize("question, head", [
    ("qué se nos acaba en los próximos 6 meses? hablo de todo el stack que tenga kb", "**1** fin de soporte en los 180 días"),
    ("what ends in the next 90 days?", "**Nothing** reaches its end of support within 90 days"),
    ("anything reaching end of support in the next year?", "**2** ends of support within 365 days"),
])
def test_what_ends_within_a_horizon_is_kb_eol_within(conn, question, head):
    text = ask(conn, question)["text"]
    assert text.startswith(head) and "--within" in text.splitlines()[0]


@pytest.mark.parametrize("question", ["which python versions has the neuron sdk dropped and in which release?",
                                      "qué versiones de python ha dejado de soportar neuron?"])
def test_what_neuron_dropped_is_neurons_ends_not_upstreams(conn, question):
    text = ask(conn, question)["text"]
    assert "Python 3.10 starting with Neuron 2.30" in text and "Python 3.7" in text
    assert "devguide" not in text  # Python's own end of life is not what Neuron dropped


def test_a_new_base_asked_after_an_ending_platform_is_the_supported_list(conn):
    text = ask(conn, "We're on Neuron 2.33 on trn2, base image Ubuntu 22.04. Someone said 22.04 is already out of support "
                     "for Neuron. When do we actually have to be off 22.04, and what should the new base be?")["text"]
    two = text.split("**(2)**")[1]
    assert two.startswith(" _which ubuntu does neuron 2.33 support?_") and "**Ubuntu 26.04**: supported" in two


def test_the_first_end_in_there_after_a_stack_is_the_stacks_first_end(conn):
    text = ask(conn, "Proposed stack: neuron=2.34 torch=2.13 python=3.11 ubuntu=24.04 trn2. Anything incompatible, "
                     "and what's the first end-of-support date in there?")["text"]
    assert text.startswith("First end of support in this stack: **2027-10-01** (python 3.11")
    assert "Neuron 2.34 ends" not in text


@pytest.mark.parametrize("question, head", [
    ("when were neuron 2.29 through 2.34 released?", "**neuron-sdk 2.29 to 2.34**: 8 releases in the KB, oldest first:"),
    ("fechas de salida de neuron 2.29 a 2.34?", "**neuron-sdk 2.29 a 2.34**: 8 versiones en el KB"),
])
def test_a_range_of_releases_is_dated_one_by_one(conn, question, head):
    text = ask(conn, question)["text"]
    assert text.startswith(head) and "**2.31.1**: 2026-08-12" in text and "**2.34.0**: 2026-11-30" in text


def test_a_word_ending_in_nt_is_no_negation(conn):
    text = ask(conn, "does torch.bincount run on tpu and neuron?")["text"]
    assert "- tpu: **Yes** — runs on tpu (own kernel)." in text and "Presumably no" not in text


def test_a_linalg_function_is_its_linalg_op(conn):
    text = ask(conn, "does torch.linalg.qr run on neuron?")["text"]
    assert "matched by name to `aten::linalg_qr`" in text and "**`aten::qr`**" not in text


@pytest.mark.parametrize("question, note", [
    ("will gemma-3-1b-it run on trainium?", "'gemma-3-1b-it' is a tuned variant of Gemma 3 1B"),
    ("¿corre gemma-3-1b-it en trainium?", "'gemma-3-1b-it' es una variante ajustada de Gemma 3 1B"),
])
def test_a_tuned_checkpoint_says_the_base_census_answers(conn, question, note):
    text = ask(conn, question)["text"]
    assert note in text and not text.startswith("_")  # the verdict leads, the note follows


def test_anything_falling_back_gets_a_no_fallback_headline(conn):
    text = ask(conn, "will gemma-3-1b-it run on trainium? anything falling back?")["text"]
    assert text.startswith("**Presumably no fallbacks**")


def test_two_offers_with_figures_reworded_in_english_are_paired(conn):
    text = ask(conn, "Comparativa: opción A en Madrid, 24 €/h, produce 2,1 millones de tokens por hora. Opción B en "
                     "Londres, 19,50 €/h, 1,4 millones de tokens por hora. ¿Coste por millón de cada una y cuál es más "
                     "barata?")["text"]
    assert text.startswith("**opcion A es más barato**: 11,43 EUR por millón de tokens frente a 13,93 EUR")
    assert "**(2)**" not in text  # "which is cheaper" is the comparison's own headline


def test_an_unknown_price_keeps_the_rate_and_currency_asked(conn):
    text = ask(conn, "What's the on-demand price of a trn2.48xlarge in eu-west-2 (London) in GBP right now? We get "
                     "about 4,000 tok/s, so I'd like the cost per million tokens too.")["text"]
    assert text.startswith("**kb holds no instance prices**")
    assert "`kb cost --price-per-hour P --tokens-per-second 4000 --currency GBP`" in text


def test_a_verdict_held_on_some_instances_says_which(conn):
    text = ask(conn, "el _scaled_mm esta supported en neuron?? estoy en una trn2 btw, quiero probar fp8")["text"]
    assert text.startswith("**Solo en Trn3** —") and "tu Trn2 no es Trn3 (vía TorchAO Neuron MXFP8" in text.splitlines()[0]
    head = ask(conn, "is aten::_scaled_mm native on neuron?")["text"].splitlines()[0]
    assert head.startswith("**Yes**") and "; only on Trn3 (via TorchAO Neuron MXFP8" in head


def test_any_of_them_by_another_status_asks_the_family_again(conn):
    text = ask(conn, "Nuestro equipo usa varias capas de pooling. ¿Qué ops de pooling caen a CPU en neuron con "
                     "TorchNeuron? ¿Hay alguna que directamente no esté soportada?")["text"]
    two = text.split("**(2)**")[1]
    assert "6 pooling ops no están soportados (error) en neuron 2.14.3.1" in two and "`aten::quantized_max_pool1d`" in two


def test_quantized_said_in_spanish_is_the_quantization_family(conn):
    text = ask(conn, "cuantos ops cuantizados no soporta neuron? tenemos modelos int8 de la version vieja")["text"]
    assert text.startswith("**50 quantization ops** no están soportados (error) en neuron 2.14.3.1")


def test_anything_with_a_word_in_the_name_is_a_filtered_list(conn):
    text = ask(conn, "anything with 'norm' in the name that doesn't work on tpu 0.1.1? one of our clusters is still "
                     "pinned to 0.1.1")["text"]
    assert "**tpu** 0.1.1 (eager): 41 ops that run as **unsupported** (41 of 118 matching ops with evidence)" in text


def test_what_happens_with_a_compile_option_is_its_limitation_and_carries(conn):
    text = ask(conn, "¿Qué pasa si usamos torch.compile con dynamic=True en Trainium? ¿Y en TPU? Nuestras secuencias "
                     "tienen longitudes muy variables.")["text"]
    one, two = text.split("**(2)**")
    assert "**torch.compile dynamic=True** en neuron" in one and "Qué hace cada backend" not in one
    assert "(dynamic=True)" in two and "**torch.compile dynamic=True** en tpu (torch_tpu 0.2.0): unsupported" in two


def test_a_code_fences_language_names_no_release(conn):
    text = ask(conn, '```python\nmodel = torch.compile(model, mode="max-autotune", dynamic=True)\n```\non tpu 0.2.0 — '
                     "will either of these flags bite me?")["text"]
    assert text.startswith("Known limitations") and "**torch.compile dynamic=True** on tpu (torch_tpu 0.2.0)" in text


def test_cuda_named_as_the_known_way_is_no_target(conn):
    text = ask(conn, "si un op no esta en neuron con torch.compile hace graph break y lo corre en cpu como en cuda? o "
                     "que pasa")["text"]
    assert text.startswith("**Qué hace cada backend con un op ATen sin kernel propio** — Neuron SDK 2.33.0")
    assert "cuda" not in text.splitlines()[0].lower()


def test_the_old_behaviour_back_is_the_compile_fallback_switch(conn):
    text = ask(conn, "our torch.compile(backend='neuron') graph raises during compilation since Neuron 2.33. how do we "
                     "get the old behaviour back?")["text"]
    assert text.startswith("**Yes: `TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION`, `fallback_execution`**")


# ---- attacker s13 (/work/notes/attack-s13.md): fresh phrasings of the fixes above


@pytest.mark.parametrize("question", ["la 2.33 soporta trn1?", "neuron 2.33 soporta trn1?"])
def test_a_short_spanish_support_question_is_spanish(conn, question):
    assert ask(conn, question)["text"].startswith("**No** — TorchNeuron en Trn1 (Neuron 2.33.0): no soportado")


@pytest.mark.parametrize("question, two", [
    ("does torch.cdist run on neuron? ¿Y si compilamos?", "on neuron 2.14.3.1 (compile): unsupported: it raises"),
    ("@kb hey quick one - F.conv2d on trn2? y compilado?? thx", "on neuron 2.14.3.1 (compile): runs on the device"),
    ("cdist en neuron anda? y compilado??", "en neuron 2.14.3.1 (compile): no soportado: lanza un error"),
])
def test_a_spanish_compile_follow_up_asks_the_ops_compile_verdict(conn, question, two):
    assert two in ask(conn, question)["text"].split("**(2)**")[1]


@pytest.mark.parametrize("question", [
    "coverage numbers native/decomposed/fallback/unsupported on neuron", "op coverage by status for neuron?",
    "cobertura de ops en neuron por estado porfa", "how many ops are native, decomposed, fallback and unsupported on tpu",
])
def test_counts_by_status_in_other_words(conn, question):
    head = ask(conn, question)["text"].splitlines()[0]
    assert "ops **decomposed**" in head and "ops **native**" in head and "ops **unsupported**" in head


def test_a_tpu_stack_gets_no_neuron_machine_image_end(conn):
    text = ask(conn, "tpu 0.1.1 + py3.10 + ubuntu 22.04, sirve o no?")["text"]
    assert "neuron-dlami" not in text and "Neuron DLAMIs" not in text


@pytest.mark.parametrize("question, head", [
    ("torch_tpu 0.2.0 con python 3.12 y torch 2.13, ubuntu 24.04, todo bien?",
     "**Encaja** — sin conflictos con las matrices de soporte de torch_tpu 0.2.0."),
    ("torch_tpu 0.2.0 python 3.12 ubuntu 22.04 ok?", "**Fits** — no conflict with the support matrices of torch_tpu 0.2.0."),
])
def test_a_stack_that_fits_says_so_first(conn, question, head):
    assert ask(conn, question)["text"].splitlines()[0] == head


def test_what_ends_this_year_and_what_neuron_dropped(conn):
    assert ask(conn, "what ends this year?")["text"].startswith("**Nothing** reaches its end of support within 30 days")
    text = ask(conn, "which python versions did neuron drop")["text"]
    assert text.startswith("End-of-support statements for python (4, newest first)") and "devguide" not in text


def test_a_new_base_without_a_release_asks_the_newest_matrix(conn):
    two = ask(conn, "when does ubuntu 22.04 end for neuron? what should the new base be?")["text"].split("**(2)**")[1]
    assert "_Neuron 2.34.0 states no matrix of its own; 2.33.0's is presumed._ Ubuntu in Neuron SDK 2.33.0" in two


def test_an_instance_family_not_listed_says_why(conn):
    assert ask(conn, "¿la 2.34 de neuron va en inf2?")["text"].startswith(
        "**Presumiblemente no** — TorchNeuron en Inf2: no está entre sus instancias (Trn2, Trn3).")


def test_pesos_without_a_country_are_said_to_be_mexicos(conn):
    text = ask(conn, "cuanto cuesta el millon de tokens a 5000 pesos la hora y 1000 tok/s")["text"]
    assert "- Pesos leídos como MXN; di de qué país" in text
    assert "leídos como MXN" not in ask(conn, "a 2500 pesos chilenos la hora y 300 tok/s cuanto sale el millon?")["text"]


@pytest.mark.parametrize("question, head", [
    ("is torchneuron still beta", "**Yes** — torchneuron 2.14.3.1: channel **beta**"),
    ("¿torchneuron sigue en beta?", "**Sí** — torchneuron 2.14.3.1: canal **beta**"),
    ("is torch_tpu still experimental?", "**Unknown** — the registry states no channel (beta, GA…) for torch_tpu 0.2.0."),
])
def test_release_maturity_is_a_yes_or_no(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


def test_how_much_an_instance_costs_says_kb_holds_no_prices_first(conn):
    assert ask(conn, "how much is a trn2.48xlarge per hour")["text"].startswith("**kb holds no instance prices**")
