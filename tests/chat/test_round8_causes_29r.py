"""Issue #29 slice 29r (round 8's causes, asked in our own words): an upstream end of life asked ("X
itself", "el propio X") leads with the product's own date; in a two-part question the figures go to the
clause that asks the cost and a trailing "and in compile mode?" keeps the eager answer; "end up on the
CPU" is a fallback, not a target `cpu`, and "same status" compares where ops run; an op's history and
several releases' dates; TorchTPU compile with a missing op answered from the per-op verdicts, said as
theirs; long answers folded to one screen."""

from __future__ import annotations

import pytest

from kb.chat import entities, fold, intents, mode_contrast, op_history, understand
from kb.chat.reply import Answer
from tests.chat.english_guard import english_in
from tests.chat.phrasings import ask

# ---------------------------------------------------------------- 1. the upstream end of life


@pytest.mark.parametrize("text", ["when does Ubuntu 24.04 itself go end of life?", "Python 3.13 upstream, until when?",
                                  "what is Python 3.12's own end of life?"])
def test_upstream_words_are_read(text):
    assert intents.asks_upstream(text)


def test_spanish_upstream_words_read_in_english():
    assert "upstream Python 3.13" in entities.extract("¿hasta cuándo tiene soporte el propio Python 3.13?").english
    assert "itself" in entities.extract("¿Ubuntu 24.04 en sí, cuándo termina?").english
    # "kernel propio" is no upstream: only before a platform's name
    assert "upstream" not in entities.extract("¿nn.Embedding tiene kernel propio en tpu?").english


def test_upstream_question_leads_with_the_products_own_date(conn):
    a = ask(conn, "until when is Ubuntu 24.04 itself supported?")
    first = a["text"].split("\n")[0]
    assert first.startswith("**Until 2029-04**") and "own (upstream) end of life" in first
    assert "Neuron's support of it, a separate matter:" in a["text"]  # Neuron's status follows, said as such


def test_upstream_ended_says_so_in_spanish(conn):
    a = ask(conn, "¿el propio Python 3.10 ya llegó a su fin de vida?")
    assert a["text"].startswith("**Ya terminó (2026-10)**") and "Soporte de Neuron, aparte:" in a["text"]
    assert not english_in(a)


def test_a_neuron_support_question_keeps_neurons_headline(conn):
    a = ask(conn, "when does Python 3.11 reach end of support on Neuron?")
    assert "own (upstream)" not in a["text"].split("\n")[0]


# ---------------------------------------------------------------- 2. two parts: figures and a follow-up mode


def test_figures_move_to_the_clause_that_asks_the_cost(conn):
    a = ask(conn, "We'd put Llama 3.1 8B on tpu at 9 USD/hr with 4000 tokens/s. Will it run, and what's the cost per 1M "
                  "tokens?")
    one, two = a["text"].index("**(1)**"), a["text"].index("**(2)**")
    assert "runs fully on the device" in a["text"][one:two] and "USD/hr" not in a["text"][one:two]
    assert "0.63 USD per million tokens" in a["text"][two:]
    assert {"part": 2, "carried": {"figures": "at 9 USD an hour and 4000 tokens/s", "from_part": 1}} in a["facts"]


def test_figures_stay_when_the_priced_clause_asks_the_cost(conn):
    a = ask(conn, "with 3 USD per hour and 1000 tokens/s, what's the cost per million tokens? and is Python 3.12 "
                  "still supported on Neuron?")
    assert "0.83 USD per million tokens" in a["text"] and not any("figures" in str(f) for f in a["facts"])


@pytest.mark.parametrize("text, expected", [
    ("is aten::hardtanh native on neuron? and in compile mode?", True),
    ("does torch.sort fall back on trn2? what about compile mode?", True),
    ("torch.sort on neuron with torch.compile?", False),  # the mode is the question's own, not a follow-up
    ("in compile mode, is aten::hardtanh native on neuron? and in compile mode?", False),
])
def test_a_trailing_mode_is_a_follow_up(text, expected):
    assert mode_contrast.follow_up_mode(text) is expected


def test_a_follow_up_mode_keeps_the_eager_answer(conn):
    for text in ("¿aten::hardtanh corre en neuron? ¿y en modo compilación?", "does hardtanh run on neuron? and with "
                 "torch.compile?"):
        a = ask(conn, text)
        modes = {f.get("mode") for f in a["facts"] if f.get("op") == "aten::hardtanh"}
        assert modes == {"eager", "compile"}, text
        assert "fallback" in a["text"].split("\n")[0]  # the eager verdict leads: it falls back, it does not raise


def test_spanish_with_torch_compile_continues_the_question():
    assert understand.split_two("¿torch.sort cae a la CPU en trn2? ¿y con torch.compile?") is None


# ---------------------------------------------------------------- 3. where an op ends up, and "same status"


@pytest.mark.parametrize("text", ["will torch.sort end up on the CPU on trn2?", "does argmax wind up on the host on "
                                                                               "neuron?"])
def test_end_up_on_the_cpu_is_no_target(text):
    q = intents.read(text)
    assert "cpu" not in q.target_names() and "fallback" in q.statuses


def test_acaba_en_la_cpu_is_a_fallback_not_an_end_of_support():
    english = entities.extract("¿torch.sort acaba en la CPU en trn2?").english
    assert "falls back to cpu" in english and "end of support" not in english


def test_same_status_compares_where_the_op_runs(conn):
    a = ask(conn, "is group_norm fine on tpu 0.2.0 and on neuron?")
    assert a["text"].startswith("**They differ.**")


# ---------------------------------------------------------------- 4. release history and several releases


def test_history_words():
    assert op_history.asks_history("which torch-neuron version added aten::embedding on inf1?")
    assert op_history.asks_history("when was aten::embedding removed on inf1?")
    assert not op_history.asks_history("is aten::embedding supported on inf1?")


def test_op_history_names_the_releases_it_changed_in(conn):
    a = ask(conn, "in which torch-neuron release was aten::embedding added on inf1?")
    assert a["text"].startswith("**`aten::embedding` on inf1: added in 1.0.763.0 (native); removed in 1.0.1001.0")
    history = [f for f in a["facts"] if f.get("history") and f["op"] == "aten::embedding"]
    assert [f["backend_version"] for f in history] == ["1.0.763.0", "1.0.1001.0"]


def test_op_history_in_spanish(conn):
    a = ask(conn, "¿desde qué versión se quitó aten::embedding en inf1?")
    assert "quitado en 1.0.1001.0" in a["text"].split("\n")[0]


def test_several_releases_dated(conn):
    a = ask(conn, "¿cuándo salieron torchneuron 2.13.3.0 y 2.14.3.0?")
    assert "torchneuron 2.13.3.0 se publicó el 2026-10-19" in a["text"]
    assert "torchneuron 2.14.3.0 se publicó el 2026-10-19" in a["text"]
    assert {f["version"] for f in a["facts"] if f.get("product") == "torchneuron"} >= {"2.13.3.0", "2.14.3.0"}


# ---------------------------------------------------------------- 5. TorchTPU compile from the per-op verdicts


def test_tpu_compile_missing_op_from_the_per_op_verdicts(conn):
    a = ask(conn, "under torch.compile on tpu, do missing ops fall back to the CPU?")
    fact = next(f for f in a["facts"] if f.get("basis") == "per-op verdicts")
    assert fact["status"] == "unsupported" and fact["rule_stated"] is False
    assert {v["basis"] for v in fact["versions"]} == {"evidence", "inferred"}  # 0.2.0 probed, 0.1.1 inferred
    assert "no vendor rule stated" in a["text"] and "compile mode is assumed not to reach the eager CPU fallback" in a["text"]


def test_tpu_compile_missing_op_in_spanish(conn):
    a = ask(conn, "con torch.compile en la tpu, ¿se usa el fallback a CPU para los ops que faltan?")
    assert "sin regla declarada del proveedor" in a["text"] and "(veredictos por op, inferido)" in a["text"]


# ---------------------------------------------------------------- 6. long answers folded


def test_fold_keeps_findings_and_merges_more_lines():
    text = "\n".join(["**Head**", "- a [1]", "- b [1]", "- c [1]", "- d [1]", "- ⚠ ended: x [1]", "- e [1]",
                      "_…10 more: `kb ops --target tpu --status native`._"])
    out = fold.fold_text(text, None, False)
    assert "- ⚠ ended: x [1]" in out and "- d [1]" not in out
    assert "_…12 more: `kb ops --target tpu --status native`._" in out  # d and e folded into the 10


def test_fold_line_names_the_command():
    a = Answer("q", "eol", "\n".join(["- x"] * 30 + ["", "- y"] * 1 + ["- z"] * 30),
               [{"product": "python"}])
    folded = fold.fit(a).text
    assert "`kb eol python` lists them" in folded and fold.shown_lines(folded) <= fold.MAX_LINES


def test_one_list_asked_is_not_folded(conn):
    a = ask(conn, "known limitations of TorchNeuron 2.33?")
    assert "torch.sparse" in a["text"]  # the list is the answer: it stops at its own limit


@pytest.mark.parametrize("text", ["how many ops are native on neuron vs tpu?",
                                  "¿cuántos ops hacen fallback en neuron y cuántos en tpu?"])
def test_counts_on_two_targets_fit_one_screen(conn, text):
    a = ask(conn, text)
    assert fold.shown_lines(a["text"]) <= fold.MAX_LINES
    assert ("more: `kb ops --target" in a["text"]) or ("más: `kb ops --target" in a["text"])
