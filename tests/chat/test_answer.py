"""The answering core on the chat fixture KB: many phrasings per intent, each checked for
the fact it must state and for a source behind it."""

from __future__ import annotations

import pytest

from kb.chat import intents
from kb.chat.answer import answer, find_ops, pick_versions


def has_fact(a, **want) -> bool:
    return any(all(f.get(k) == v for k, v in want.items()) for f in a.facts)


def cited(a, url_part: str) -> bool:
    return any(url_part in (s.get("url") or "") or url_part == s.get("probe_run_id") for s in a.sources)


# (question, intent, expected fact, source that must be cited)
CASES = [
    # op status, many spellings
    ("is aten::_scaled_dot_product_flash_attention native on neuron 2.33?", "op",
     {"op": "aten::_scaled_dot_product_flash_attention", "backend_version": "2.14.3.0", "status": "native"}, "neuron/"),
    ("is aten.nonzero.default supported on trainium?", "op",
     {"op": "aten::nonzero", "target": "neuron", "status": "fallback"}, "neuron/"),
    ("does torch.ops.aten.nonzero run on tpu?", "op",
     {"op": "aten::nonzero", "target": "tpu", "status": "native", "source_kind": "static_probe"}, "static-tpu-1"),
    ("nonzero on tpu 0.2.0", "op", {"op": "aten::nonzero", "backend_version": "0.2.0", "status": "native"}, "static-tpu-1"),
    ("status of add.Tensor on neuron", "op", {"op": "aten::add.Tensor", "status": "native"}, "neuron/"),
    ("Is `silu` native on TorchTPU?", "op", {"op": "aten::silu", "target": "tpu", "status": "native"}, "tpu/"),
    ("is gelu ok on tpu", "op", {"op": "aten::gelu", "target": "tpu", "status": "fallback"}, "tpu/"),
    ("does sort work on neuron sdk 2.33?", "op", {"op": "aten::sort", "target": "neuron", "status": "unsupported"}, "neuron/"),
    ("is nonzero native on neuron 2.32?", "op", {"op": "aten::nonzero", "backend_version": "2.9.1.0", "status": "fallback"}, "neuron/"),
    ("is relu native on neuron?", "op", {"op": "aten::relu", "status": "fallback", "disagreement": True}, "live-neuron-1"),
    # typos
    ("is nonzeroo native on neuron?", "op", {"op": "aten::nonzero", "status": "fallback"}, "neuron/"),
    ("is aten::_scaled_dot_product_flash_atention native on neuron?", "op",
     {"op": "aten::_scaled_dot_product_flash_attention", "status": "native"}, "neuron/"),
    ("does sigmiod run on trainium", "op", {"op": "aten::sigmoid", "status": "native"}, "neuron/"),
    # torch functions → ATen through the shipped map
    ("is torch.nn.functional.silu supported on neuron?", "op", {"op": "aten::silu", "status": "native"}, "neuron/"),
    ("does F.gelu fall back on tpu?", "op", {"op": "aten::gelu", "status": "fallback"}, "tpu/"),
    ("is torch.nonzero native on tpu", "op", {"op": "aten::nonzero", "status": "native"}, "static-tpu-1"),
    ("x.masked_select() on tpu?", "op", {"op": "aten::masked_select", "status": "fallback"}, "tpu/"),
    # comparison
    ("what's the difference between neuron and tpu for nonzero?", "compare",
     {"op": "aten::nonzero", "target": "tpu", "status": "native"}, "static-tpu-1"),
    ("compare sort on neuron vs tpu", "compare", {"op": "aten::sort", "target": "neuron", "status": "unsupported"}, "tpu/"),
    ("neuron vs tpu: which ops differ?", "compare", {"op": "aten::gelu", "neuron": "unknown", "tpu": "fallback"}, "tpu/"),
    # ops by status
    ("what falls back to CPU on tpu?", "ops_by_status", {"op": "aten::gelu", "status": "fallback"}, "tpu/"),
    ("which ops fall back on neuron 2.33", "ops_by_status", {"op": "aten::nonzero", "status": "fallback"}, "neuron/"),
    # limitations
    ("does neuron support float64?", "limitation", {"feature": "float64", "status": "runs as float32"}, "neuron/"),
    ("known limitations of neuron 2.33", "limitation", {"feature": "torch.sparse", "status": "unsupported"}, "neuron/"),
    ("any limitations with torch.compile dynamic=True on tpu?", "limitation",
     {"feature": "torch.compile dynamic=True", "target": "tpu"}, "tpu/"),
    ("is flaot64 ok on trainium", "limitation", {"feature": "float64"}, "neuron/"),
    ("any sparse support on trn2?", "limitation", {"feature": "torch.sparse"}, "neuron/"),
    # end of support
    ("when does PyTorch 2.9 leave support on Neuron?", "eol", {"cycle": "2.9", "eol": "2026-12-15"}, "eos-pytorch"),
    ("end of support for neuron sdk 2.32?", "eol", {"cycle": "2.32", "eol_release": "2.35"}, "eos-pytorch"),
    ("python 3.9 eol", "eol", {"cycle": "3.9", "eol": "2025-10-31"}, "python.example"),
]


@pytest.mark.parametrize(("question", "intent", "fact", "source"), CASES, ids=[c[0][:50] for c in CASES])
def test_phrasings(chat_conn, question, intent, fact, source):
    a = answer(question, conn=chat_conn)
    assert a.intent == intent, a.text
    assert has_fact(a, **fact), (a.facts, a.text)
    assert cited(a, source), a.sources
    assert "**Sources**" in a.text and "[1]" in a.text


def test_typo_and_function_matches_say_what_they_did(chat_conn):
    assert "read as `nonzero`" in answer("is nonzeroo native on neuron?", conn=chat_conn).text
    assert "traced" in answer("is torch.nn.functional.silu native on neuron?", conn=chat_conn).text


def test_yes_no_first_line(chat_conn):
    assert answer("is silu native on neuron?", conn=chat_conn).text.startswith("**Yes**")
    assert answer("is nonzero native on neuron?", conn=chat_conn).text.startswith("**No**")
    assert answer("is topk native on tpu?", conn=chat_conn).text.startswith("**Unknown**")


def test_unknown_op_is_honest_with_suggestions(chat_conn):
    a = answer("is aten::frobnicate native on neuron?", conn=chat_conn)
    assert has_fact(a, op="aten::frobnicate", status="unknown")
    assert "don't know an operator" in a.text and not a.sources


def test_op_without_evidence_is_unknown(chat_conn):
    a = answer("is topk supported on neuron?", conn=chat_conn)
    assert has_fact(a, op="aten::topk", target="neuron", status="unknown")
    assert "no evidence" in a.text


def test_version_without_data_says_so_and_shows_versions(chat_conn):
    a = answer("is nonzero native on tpu 0.1.0?", conn=chat_conn)
    assert has_fact(a, op="aten::nonzero", target="tpu", status="unknown")
    assert "versions with data: 0.2.0" in a.text
    b = answer("is silu native on neuron 2.32?", conn=chat_conn)  # SDK exists, no verdict for silu there
    assert "unknown" in b.text and "2.14.3.0" in b.text  # other versions are shown, labelled


def test_neuron_sdk_version_maps_to_backend_versions(chat_conn):
    pick = pick_versions(chat_conn, intents.TargetMention("neuron", "2.33"))
    assert pick.versions == ["2.13.3.0", "2.14.3.0"] and "Neuron SDK 2.33" in pick.label
    assert pick_versions(chat_conn, intents.TargetMention("tpu", "0.2.0")).versions == ["0.2.0"]
    assert pick_versions(chat_conn, intents.TargetMention("neuron", "9.99")).versions == []


def test_pytorch_leaving_support_on_neuron_is_checked_against_its_matrix(chat_conn):
    a = answer("when does PyTorch 2.7 leave support on Neuron?", conn=chat_conn)  # s12: no longer "unknown"
    assert a.intent == "eol" and a.text.startswith("**Already ended**")
    assert "Neuron 2.33 supports PyTorch 2.13.0, 2.14.0, not 2.7" in a.text and a.sources


def test_model_question_explains_kb_check(chat_conn):
    a = answer("what falls back to CPU on tpu for this model?", conn=chat_conn)
    assert a.intent == "model" and "kb check MODEL --target tpu" in a.text
    b = answer("what falls back in ./models/net.pt2 on neuron", conn=chat_conn)
    assert "kb check ./models/net.pt2 --target neuron" in b.text


def test_help_and_gibberish(chat_conn):
    assert answer("what can you answer?", conn=chat_conn).intent == "help"
    assert answer("", conn=chat_conn).intent == "help"
    assert answer("hmm ok thanks", conn=chat_conn).intent in ("unknown", "op")


def test_english_words_are_not_read_as_ops(chat_conn):
    q = intents.read("when does the inference stack leave support?")
    matches, _, _ = find_ops(chat_conn, q)
    assert matches == [] and q.intent == "eol"


def test_cpu_as_fallback_destination_is_not_a_target():
    assert intents.read("what falls back to CPU on tpu?").target_names() == ["tpu"]
    assert intents.read("is relu native on cpu?").target_names() == ["cpu"]


def test_bad_target_in_question_is_a_reply_not_a_crash(chat_conn):
    a = answer("is nonzero native on neuron 2.33 and tpu 7?", conn=chat_conn)
    assert a.text and a.intent in ("compare", "op")


def test_model_file_is_checked_for_a_local_user(chat_conn, model_files):
    path = model_files["exported"]
    a = answer(f"what falls back to CPU on tpu for {path}?", conn=chat_conn, allow_files=True)
    assert a.intent == "model"
    (fact,) = a.facts
    problems = {p["op"]: p["status"] for p in fact["problems"]}
    assert problems == {"aten::gelu": "fallback", "aten::sigmoid": "unknown"}
    assert fact["backend_version"] == "0.2.0" and cited(a, "tpu/")


def test_chat_platforms_never_open_files(chat_conn, model_files):
    a = answer(f"what falls back on tpu for {model_files['exported']}?", conn=chat_conn)  # allow_files off
    assert a.intent == "model" and "kb check" in a.text and not a.facts[0].get("summary")


def test_model_formats_that_run_code_are_refused(chat_conn, model_files):
    a = answer(f"what falls back on neuron for {model_files['pickled']}", conn=chat_conn, allow_files=True)
    assert "only ExportedProgram and TorchScript" in a.text or "--trust" in a.text


@pytest.mark.parametrize(("question", "intent"), [
    ("which is better for nonzero, neuron or tpu?", "compare"),
    ("what falls back on neuron and tpu?", "ops_by_status"),
    ("neuron or tpu, what differs", "compare"),
    ("what is the weather", "unknown"),
])
def test_more_intents(chat_conn, question, intent):
    assert answer(question, conn=chat_conn).intent == intent


def test_no_target_named_lists_evidence_and_unknown_devices(chat_conn):
    a = answer("tell me about aten::gelu", conn=chat_conn)
    assert has_fact(a, op="aten::gelu", target="tpu", status="fallback")
    assert has_fact(a, op="aten::gelu", target="neuron", status="unknown")
    assert "unknown** on neuron, neuron-xla" in a.text


def test_compare_at_a_version_without_data_says_unknown(chat_conn):
    a = answer("compare neuron 2.32 and tpu", conn=chat_conn)  # SDK 2.32 has verdicts only for nonzero
    assert a.intent == "compare" and "2.9.1.0" in a.text
    b = answer("compare neuron 9.9 and tpu", conn=chat_conn)
    assert b.text.startswith("**Unknown**") and "versions with data" in b.text
