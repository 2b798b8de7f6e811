"""Leftovers the lead found in session 11: whether a named thing keeps working asks for its end of support,
and "…? and with 2.14.3.0?" after a question with no version answers both releases."""

from __future__ import annotations

import pytest

from tests.chat.phrasings import ask


@pytest.mark.parametrize("question, head", [
    ("our health check script parses the output of neuron-ls -j, will that break?", "**Already ended**"),
    ("we scrape neuron-ls --json-output in our exporter. is that going away or what", "**Already ended**"),
    ("will neuron-ls -j keep working?", "**No**"),
    ("will neuron-ls -j break?", "**Yes, it ended**"),
    ("mi script de monitoreo usa neuron-ls -j, ¿va a seguir funcionando en la 2.35?", "**Ya terminó**"),
    ("nuestro exporter lee neuron-ls -j, se rompe con la proxima version?", "**Ya terminó**"),
])
def test_whether_a_named_thing_keeps_working_is_its_end_of_support(conn, question, head):
    out = ask(conn, question)
    assert out["intent"] == "eol"
    assert out["text"].startswith(head)
    assert "neuron-ls" in out["text"] and "2026-11-30" in out["text"]


def test_a_model_that_may_break_is_no_end_of_support_question(conn):
    assert ask(conn, "will my model break on neuron?")["intent"] != "eol"


@pytest.mark.parametrize("question, first, second", [
    ("does aten::nonzero run on neuron? and with 2.14.3.0?", "on neuron 2.14.3.1", "on neuron 2.14.3.0"),
    ("¿aten::nonzero corre en neuron? y con la 2.14.3.0?", "en neuron 2.14.3.1", "en neuron 2.14.3.0"),
    ("is F.gelu native on tpu? what about 0.1.1?", "on tpu 0.2.0", "on tpu 0.1.1"),
])
def test_again_at_a_version_after_no_version_answers_both(conn, question, first, second):
    text = ask(conn, question)["text"]
    one, two = text.split("**(2)**")
    assert first in one and second in two and second not in one


def test_a_way_to_force_the_cpu_fallback_is_the_policy_in_spanish(conn):
    out = ask(conn, "con torch_tpu 0.1.1 si una op no tiene kernel que pasa? hay manera de forzar el fallback a cpu?")
    assert "No pude leer" not in out["text"] and "fallback_mode(ALLOW_FALLBACK)" in out["text"]


def test_what_builds_were_in_a_release_is_its_card(conn):
    text = ask(conn, "when did neuron 2.33 come out and what torchneuron builds were in it")["text"]
    assert "2026-10-19" in text and "torchneuron 2.14.3.0" in text and "could not read" not in text


def test_a_part_that_says_only_where_asks_the_model_or_list_before_it_there(conn):
    text = ask(conn, "¿Mixtral 8x7B corre en trn2 con torchneuron? ¿qué ops lo traban? y en tpu?")["text"]
    assert "No pude leer" not in text and "**(3)**" not in text  # (1) and (2) share a section: one verdict
    assert "Mixtral 8x7B se ejecuta entero en el dispositivo en tpu 0.2.0" in text
    listed = ask(conn, "1. cuantas ops caen a cpu en neuron?\n2. y en tpu 0.2.0?\n"
                       "3. cuando se termina el soporte de python 3.10 en neuron?")["text"]
    assert "**(2)** _cuantas ops caen a cpu en tpu 0.2.0?_" in listed and "No pude leer" not in listed


@pytest.mark.parametrize("question, wrong", [
    ("pinning torch_tpu in our lockfile - which torch and python does 0.2.0 want?", "Python 0.2.0"),
    ("¿Qué versiones de PyTorch soportan los SDK 2.29 y 2.30 de Neuron?", "2.29 neuron=2.30"),
])
def test_a_version_of_another_line_is_no_python_or_pytorch_version(conn, question, wrong):
    assert wrong not in ask(conn, question)["text"]


def test_two_releases_joined_get_a_card_each(conn):
    text = ask(conn, "¿Qué versiones de PyTorch soportan los SDK 2.29 y 2.30 de Neuron?")["text"]
    one, two = text.split("**(2)**")
    assert "neuron-sdk 2.29.0" in one and "neuron-sdk 2.30.0" in two


def test_a_version_joined_to_a_target_version_is_that_target_again(conn):
    text = ask(conn, "tpu 0.1.1 vs 0.2.0: how many aten ops are unsupported in each?")["text"]
    assert text.startswith("**800** on tpu 0.1.1 [1] vs **595** on tpu 0.2.0 [2]")  # one headline for both (s13)


def test_an_underscore_name_part_filters_a_list(conn):
    text = ask(conn, "che, que ops _foreach no soporta tpu 0.2.0?")["text"]
    assert "`--grep _foreach`" in text and "aten::_amp_foreach_non_finite_check_and_unscale_" in text


def test_a_model_without_a_training_graph_says_so_and_shows_the_closest(conn):
    text = ask(conn, "full fine-tuning of Llama 3.1 8B on trn2 with TorchNeuron: does the training graph run fully "
                     "on the device?")["text"]
    assert "did not export" not in text
    assert "Llama 3.1 8B's training graph is not in the gallery" in text and "Llama 3.2 1B" in text


@pytest.mark.parametrize("question, money", [
    ("box costs 350 cents an hour, does 1750 tok/s. cost per 1M tokens?", "**0.56 USD per million tokens**"),
    ("el price de la spot instance es 45 centavos de dólar por hora y el throughput es 120 tokens per second, how much "
     "per million tokens?", "**1,04 USD por millón de tokens**"),
    ("a 80 céntimos la hora y 500 tokens/s, ¿cuánto cuesta el millón?", "**0,44 EUR por millón de tokens**"),
])
def test_a_price_in_cents_is_a_hundredth(conn, question, money):
    assert ask(conn, question)["text"].startswith(money)


@pytest.mark.parametrize("question", [
    "how much per million tokens does it cost to serve llama 3.1 70b on trn2?",
    "cuanto cuesta el millon de tokens con llama 3.1 8b en trn2?",
])
def test_a_cost_per_million_without_figures_says_what_it_needs(conn, question):
    out = ask(conn, question)
    assert out["intent"] == "cost" and "`kb bench`" in out["text"]


def test_a_hub_id_of_a_gallery_model_is_that_model(conn):
    text = ask(conn, "will mistralai/Mixtral-8x7B-v0.1 run on trn2 in eager mode with torch-neuronx? what blocks it")["text"]
    assert "by that name" not in text and "aten::sort" in text


@pytest.mark.parametrize("question, head", [
    ("uso torch.multinomial en un trn2. anda nativo en neuron o se va a la cpu? y si lo compilo con torch.compile?",
     "**Hace fallback, presumiblemente**"),
    ("does aten::roll run natively on neuron or is it silently going back to the cpu? and would wrapping the block in "
     "torch.compile change anything?", "_Two questions in one"),
])
def test_compile_in_a_last_sentence_keeps_the_eager_headline(conn, question, head):
    text = ask(conn, question)["text"]
    assert text.startswith(head) and "Known issues" not in text
    assert "torch.compile: unsupported" in text or "torch.compile: sin soporte" in text


@pytest.mark.parametrize("question, head", [
    ("Our pipeline is built on torch-neuronx with PyTorch/XLA on trn1. Is PyTorch/XLA training on Neuron end of support "
     "already, and what about inference?", "**It depends on the use** — PyTorch/XLA (torch-neuronx on XLA): training: "
     "ended with Neuron 2.30 (2026-05-21); inference: maintenance mode"),
    ("buenas, NxD sigue vivo? tanto training como inference. estoy armando un proyecto en trn2",
     "**Depende del uso** — NxD (NeuronX Distributed): entrenamiento: terminó con Neuron 2.29 (2026-04-09); inferencia:"),
])
def test_two_uses_asked_get_an_end_each(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


def test_a_product_version_said_again_is_no_target_version(conn):
    text = ask(conn, "¿Hasta cuándo tiene soporte PyTorch 2.8 en Neuron? tenemos todo en 2.8 todavía")["text"]
    assert "neuron=2.8" not in text and "Neuron 2.29" in text


@pytest.mark.parametrize("question, head", [
    ("is trn1 going end of life? like the instance family itself, not the sdk", "**Unknown** — the KB has no "
     "end-of-support date for the Trn1 instance family itself"),
    ("¿hasta cuándo va a tener soporte Trn1? necesitamos saber si conviene comprar reservas a 3 años",
     "**Desconocido** — el KB no tiene ninguna fecha de fin de soporte de la familia de instancias Trn1"),
])
def test_an_instance_family_end_is_not_known_nor_borrowed(conn, question, head):
    text = ask(conn, question)["text"]
    assert text.startswith(head) and "trn1 3" not in text


def test_counted_ops_beside_a_feature_word_are_counted(conn):
    text = ask(conn, "cuántas ops de fft hacen fallback a la cpu en neuron? y cuáles son más o menos")["text"]
    assert text.startswith("**44 fft ops**") and "No pude leer" not in text
    text = ask(conn, "cuántos native kernels tiene tpu 0.2.0 vs la 0.1.1? like, how much bigger got the coverage")["text"]
    assert text.startswith("**674** en tpu 0.2.0 [1] vs **510** en tpu 0.1.1 [2]: ops que se ejecutan como nativos")


def test_how_much_better_at_another_version_asks_the_first_part_there(conn):
    text = ask(conn, "how many aten ops does torch_tpu 0.1.1 NOT support, and how much better is 0.2.0?")["text"]
    assert "**800** ops" in text and "**595** ops" in text and "could not read" not in text


def test_a_bare_name_after_an_end_of_support_part_asks_its_end(conn):
    text = ask(conn, "¿Siguen soportados los virtual environments y AMIs de Inf1? ¿Y torch-neuron 1.10?")["text"]
    assert "**(2)** _¿sigue soportado torch-neuron 1.10?_" in text and "2024-12-03" in text


def test_sdk_alone_is_the_neuron_sdk_and_a_line_dates_from_its_first_release(conn):
    text = ask(conn, "¿qué versiones de PyTorch soportaba el SDK 2.31? y cuándo salió")["text"]
    assert text.startswith("**neuron-sdk 2.31.0 se publicó el 2026-07-07**") and "2.12.0" in text


@pytest.mark.parametrize("question, wrong", [
    ("we wrap it with torch.compile(model, backend=\"neuron\") on torch-neuronx 2.14. The window shift uses torch.roll. "
     "Will that compile or do we get a graph break / CPU hop?", "on cpu"),
    ("en trn2 con torchneuron el init de pesos con tensor.normal_() corre en el device o se va pa la cpu?", "en cpu"),
])
def test_the_cpu_as_where_an_op_goes_is_no_target(conn, question, wrong):
    text = ask(conn, question)["text"]
    assert wrong not in text and "No known issue" not in text


def test_a_feature_of_my_model_is_its_limitation(conn):
    text = ask(conn, "mi modelo usa float64 en algunas partes. qué hace neuron con float64, tira error o lo castea?")["text"]
    assert "float32" in text and "kb check MODEL" not in text


def test_a_list_asked_in_spanish_with_the_target_before_no_soporta(conn):
    text = ask(conn, "listame las ops que neuron no soporta para nada, ni con fallback a cpu")["text"]
    assert "68 ops que se ejecutan como **unsupported**" in text


def test_examples_in_parentheses_of_a_family_list_are_no_ops_asked(conn):
    text = ask(conn, "que ops de normalizacion (batch_norm, group_norm y eso) caen a cpu en neuron? pasame la lista porfa")["text"]
    assert text.startswith("La familia **normalization**") and "No pude leer" not in text


def test_a_fused_optimizer_is_its_fused_op(conn):
    text = ask(conn, "torch.optim.AdamW(model.parameters(), fused=True) on trainium w/ torchneuron - is there a fused "
                     "kernel? same question for plain Adam(fused=True)")["text"]
    assert "**`aten::_fused_adamw_`**" in text and "**`aten::_fused_adam_`**" in text and "model.parameters" not in text


def test_a_condition_after_a_question_mark_opens_a_question(conn):
    text = ask(conn, "¿la inferencia con PyTorch/XLA en trn2 sigue con soporte? Y si paso a torchneuron, ¿qué hace en "
                     "eager cuando una op no tiene kernel?")["text"]
    one, two = text.split("**(2)**")
    assert "Neuron 2.34" in one and "cpu fallback with warning" in two


@pytest.mark.parametrize("question, wanted", [
    ("¿Cuántos modelos de la galería corren completos en neuron y cuántos en tpu? lo necesito para la slide del comité",
     ("**32 de 47** modelos de la galería corren enteros en el dispositivo en neuron", "**47 de 47**")),
    ("T5 base y FLAN-T5 base en neuron: ¿qué los bloquea? en TPU andan joya",
     ("aten::min.other", "T5 base se ejecuta entero en el dispositivo en tpu 0.2.0")),
])
def test_an_unread_part_naming_another_place_asks_the_part_before_there(conn, question, wanted):
    text = ask(conn, question)["text"]
    assert all(w in text for w in wanted) and "No pude leer" not in text


def test_a_future_release_asked_for_its_eta_is_unknown(conn):
    text = ask(conn, "Is there an ETA for Neuron 2.35, and will it pick up torch 2.15?")["text"]
    assert "**Unknown** — the release registry has no neuron-sdk 2.35; the newest is 2.34.0 (2026-11-30)" in text


def test_a_stack_pytorch_is_checked_against_the_sdk_packages(conn):
    text = ask(conn, "what's broken? neuron=2.33 torch=2.13 python=3.10 ubuntu=22.04")["text"]
    assert text.startswith("**Yes** — Neuron 2.33's packages support PyTorch 2.13.0, 2.14.0.")


def test_a_diff_then_did_we_lose_anything_is_one_diff(conn):
    text = ask(conn, "Upgrading torch_tpu 0.1.1 -> 0.2.0. What did we gain op-wise, and did we LOSE anything?")["text"]
    assert text.startswith("**tpu 0.1.1 → 0.2.0**") and "**(2)**" not in text
    text = ask(conn, "Oigan, ¿qué ops cambian entre torch-neuronx 2.13.3.0 y 2.14.3.0?")["text"]
    assert text.startswith("**neuron 2.13.3.0 → 2.14.3.0**")


def test_a_namespaced_torch_function_is_its_aten_op(conn):
    assert "aten::fft_rfft" in ask(conn, "¿torch.fft.rfft funciona en TPU 0.2.0 con torch.compile?")["text"]


def test_a_dotted_function_carried_into_a_later_part_keeps_its_name(conn):
    text = ask(conn, "1) does F.scaled_dot_product_attention run on neuron\n2) and with torch.compile?\n"
                     "3) what about tpu 0.1.1?")["text"]
    assert "nn.F." not in text and "Known limitations" not in text
    assert "on tpu 0.1.1 (compile): runs on the device, inferred" in text


def test_a_trailing_compile_follow_up_says_compile_for_every_target(conn):
    text = ask(conn, "torch.sort en trainium? y en tpu? y con torch.compile?")["text"]
    assert "torch.compile: igual que eager: se ejecuta en el dispositivo (descompuesto)" in text
