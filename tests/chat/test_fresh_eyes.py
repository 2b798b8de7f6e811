"""Wrong answers a new user met (issue 25, "fresh eyes"): each reading rule pinned without a KB,
and each answer checked against the shipped KB (the question bank holds more phrasings)."""

from __future__ import annotations

import pytest

from kb.chat import english, intents
from kb.chat.answer import answer
from kb.store import db

# ---------------------------------------------------------------- reading: everyday English words


@pytest.mark.parametrize("question", [
    "How many ops are unsupported on TPU?", "which ops are unsupported on tpu, if any?",
    "list all ops that fall back on neuron", "where do ops fall back on neuron?", "what is the max number of ops on tpu",
    "how many modes does tpu support", "sort the fallback ops on neuron please", "show me a view of tpu ops",
    "does any op fall back on tpu?", "are all ops native on neuron?", "is any conv op unsupported on tpu",
])
def test_english_words_are_no_op_names(question):
    q = intents.read(question)
    words = {w.lower() for w in q.plain_words}
    assert not words & (english.ENGLISH_OPS | english.COMMON_ENGLISH) and not q.op_words and not q.function_words, q


@pytest.mark.parametrize(("question", "word"), [
    ("is where supported on tpu?", "where"), ("does sort run on neuron", "sort"), ("is max native on tpu?", "max"),
    ("can I use view on trn2?", "view"), ("Is any native on TPU?", "any"), ("what about split on tpu", "split"),
])
def test_an_english_op_word_is_an_op_as_the_subject(question, word):
    assert intents.read(question).plain_words == [word] or word in [w.lower() for w in intents.read(question).plain_words]


@pytest.mark.parametrize(("question", "kind"), [
    ("is aten::where native on tpu", "op_words"), ("is torch.where native on tpu", "function_words"),
    ("is `any` native on tpu", "op_words"), ("does where() run on neuron", "function_words"),
    ("is F.softmax native on tpu", "function_words"),
])
def test_marked_as_code_is_always_an_op(question, kind):
    assert getattr(intents.read(question), kind)


def test_fuzzy_matching_never_starts_from_or_lands_on_english_words():
    assert not english.fuzzy_allowed("many", "any")
    assert not english.fuzzy_allowed("modes", "mode")
    assert not english.fuzzy_allowed("nonzeroo", "where")
    assert english.fuzzy_allowed("nonzeroo", "nonzero")


def test_collective_reading():
    from kb.chat.answer_api import collective_in

    assert collective_in("Can I use torch.distributed.all_reduce on neuron?") == "torch.distributed.all_reduce"
    assert collective_in("is torch.ops._c10d_functional.all_gather_into_tensor ok") == \
        "torch.ops._c10d_functional.all_gather_into_tensor"
    assert collective_in("does dist.barrier() work") == "dist.barrier"
    assert collective_in("is broadcast_to native on tpu") is None
    assert collective_in("is aten::all native on tpu") is None


# ---------------------------------------------------------------- answers from the shipped KB


def test_how_many_counts_like_kb_ops(conn):
    from kb.store import queries

    a = answer("How many ops are unsupported on TPU?", conn=conn)
    listing = queries.list_ops(conn, "tpu", "unsupported", "0.2.0")
    assert a.intent == "ops_by_status" and "aten::any" not in a.text
    assert a.text.startswith(f"**{len(listing['ops']):,}** ops run as unsupported on tpu 0.2.0")
    count = next(f for f in a.facts if "count" in f)
    assert (count["count"], count["own_status"]) == (len(listing["ops"]), listing["matching_by"]["own_status"])


def test_collective_answer_cites_the_process_group_rule(conn):
    a = answer("Can I use torch.distributed.all_reduce on neuron?", conn=conn)
    assert a.intent == "collective" and a.text.startswith("**Yes on neuron once `torch.distributed.init_process_group`")
    assert any("supported-operators.html" in (s["url"] or "") for s in a.sources)
    tpu = answer("can I use torch.distributed.all_reduce on tpu?", conn=conn)
    assert tpu.text.startswith("**Unknown on tpu**") and not tpu.sources


def test_compile_mode_on_neuron_is_the_mode_fact_only(conn):
    a = answer("Does torch.compile mode reduce-overhead work on neuron?", conn=conn)
    assert a.intent == "limitation"
    assert {f["feature"] for f in a.facts} == {"torch.compile mode (reduce-overhead, max-autotune, max-autotune-no-cudagraphs)"}
    assert all("reference-torch-compile.html" in f["source_url"] for f in a.facts)


def test_pytorch_xla_inference_on_trn2_is_ended(conn):
    a = answer("Is PyTorch/XLA inference still supported on Trn2?", conn=conn)
    assert a.intent == "eol" and a.text.startswith("**No** — PyTorch/XLA on Neuron: inference on Trn2 and Trn3")
    assert "torchneuron 2.14.3.1" not in a.text
    assert [f["product"] for f in a.facts] == ["torch-neuronx-xla"] and a.facts[0]["is_eol"] is True


def test_ubuntu_in_neuron_234_reads_the_platform_matrix(conn):
    a = answer("Is Ubuntu 22.04 supported by TorchNeuron in Neuron 2.34?", conn=conn)
    # 2.34 states no matrix of its own: 2.33's is presumed, and the headline says so
    assert a.intent == "eol" and a.text.startswith("**Presumably no**") and "2.33's is presumed" in a.text
    assert "Neuron 2.33.0" in a.text and "2027-05" in a.text and "torchneuron 2.14.3.1" not in a.text


def test_presumed_headline_says_presumed(conn):
    a = answer("is nonzero native on neuron 2.34?", conn=conn)
    head = a.text.split("\n")[0]
    assert head.startswith("**Presumably yes**") and "pre-release snapshot" in head and "2.14.3.1" in head
    assert answer("is nonzero native on tpu?", conn=conn).text.startswith("**Yes** — its own kernel on tpu.")


def test_fallback_list_cross_reference_matches_kb_targets(conn):
    a = answer("Which ops fall back to CPU on neuron?", conn=conn)
    assert "counts own status only" not in a.text and "`kb targets` shows both counts" in a.text


def test_release_ends_headline_matches_the_list(conn):
    a = answer("What does Neuron 2.34 end or deprecate?", conn=conn)
    head = a.text.split("\n")[0]
    assert "Unknown" not in a.text and head.startswith(f"**Neuron 2.34 ends {len(a.facts)} things**")
    assert all(f["eol_release"] == "2.34" for f in a.facts)


def test_instances_of_torchneuron_from_the_platform_facts(conn):
    a = answer("Which instances does TorchNeuron support?", conn=conn)
    assert a.text.startswith("Instances: **Trn2, Trn3**") and "2.14.3.0" in a.text
    assert any("torchneuron.html" in (s["url"] or "") for s in a.sources)


def test_local_evidence_is_named_in_the_headline(chat_kb_paths, chat_env, tmp_path):
    import shutil

    from kb.store import records as rec
    from kb.store.ingest import ingest_records

    path = tmp_path / "kb.sqlite"
    shutil.copy(chat_kb_paths[0], path)
    prov = rec.Provenance(source_kind="doc", source_name="my-notes", source_url="https://notes.example.test/tpu.html",
                          retrieved_at="2026-12-01T10:00:00+00:00", content_sha256="sha-local")
    ingest_records(str(path), [rec.OpStatus(op="aten::cumsum", target="tpu", backend_version="0.2.0", status="native",
                                            provenance=prov)], source_name="my-notes", origin="local")
    c = db.connect(str(path))
    try:
        text = answer("is aten::cumsum native on tpu 0.2.0?", conn=c).text
        head = text.split("\n")[0]
    finally:
        c.close()
    assert head.startswith("**Yes, on local evidence**") and "ingested on this machine" in head, text
