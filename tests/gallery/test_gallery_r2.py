"""The second fresh-eyes report on the gallery (report-r2-30): usage through a `leaf` and
the device's op, versions in chat model questions, one-line API errors, the issue's own chat
phrasings, and FLOPs shares that say when some ops' FLOPs are not counted."""

from __future__ import annotations

import json

from kb.store import db
from kb.store import gallery as store


def test_usage_counts_a_single_leaf_and_the_device_op(gallery_kb):
    conn = db.open_kb(gallery_kb[0])
    conn.execute("UPDATE support_stored SET effective_via = ? WHERE op = 'aten::gelu' AND target = 'neuron'",
                 (json.dumps({"leaf": "aten::gelu.leaf_only", "leaves": {"aten::gelu.other": "decomposed"}}),))
    conn.execute("INSERT INTO gallery_op VALUES ('beta-moe', 'inference', 'transformers::grouped_mm_fallback', "
                 "'forward', 'bfloat16', NULL, 2, 0, 500, 'bytes', 9)")
    found = store.usage(conn)
    assert found["aten::gelu.leaf_only"] == ["beta-moe", "tiny"]  # the named leaf counts (r2-30 #3)
    assert found["aten::gelu.other"] == ["beta-moe", "tiny"]
    assert found["aten::_grouped_mm"] == ["beta-moe"]  # on tpu the custom op is aten::_grouped_mm (r2-30 #4)
    for op in ("aten::gelu.leaf_only", "aten::gelu.other", "aten::_grouped_mm", "aten::linear",
               "transformers::grouped_mm_fallback"):
        assert store.used_by(conn, op)["used_by"] == found[op], op  # the one-op path gives the same counts


def test_via_leaves_reads_both_spellings_and_ignores_junk():
    assert store.via_leaves('{"leaf": "a", "leaves": {"b": "x"}}') == {"a", "b"}
    assert store.via_leaves('{"leaf": "a"}') == {"a"}
    assert store.via_leaves("not json") == set() and store.via_leaves(None) == set() and store.via_leaves("[1]") == set()


def _older_tpu(kb_path: str) -> None:
    """tpu 0.1.1 beside the fixture's 0.2.0: there aten::gelu is unsupported."""
    from kb.store import records as rec
    from kb.store.ingest import ingest_records
    from tests.conftest import prov
    from tests.gallery.conftest import TPU_DOC

    conn = db.open_kb(kb_path)
    ops = [op for op, in conn.execute("SELECT DISTINCT op FROM gallery_op")]
    conn.close()
    old = dict(target="tpu", backend_version="0.1.1", provenance=prov(url=TPU_DOC, name="tpu-ops-old"))
    ingest_records(kb_path, [rec.OpStatus(op=op, status="unsupported" if op == "aten::gelu" else "native", **old)
                             for op in ops], source_name="gallery-test-old", origin="shipped")


def test_a_model_question_uses_the_version_asked(gallery_kb):
    from kb.chat.answer_gallery import gallery_answer

    _older_tpu(gallery_kb[0])
    conn = db.open_kb(gallery_kb[0])
    old = gallery_answer(conn, "will Beta MoE run on tpu 0.1.1?", ["tpu"])
    assert old.facts[0]["backend_version"] == "0.1.1" and old.text.startswith("**No**") and "0.1.1" in old.text
    new = gallery_answer(conn, "will Beta MoE run on tpu?", ["tpu"])
    assert new.facts[0]["backend_version"] == "0.2.0" and new.text.startswith("**Yes**")
    missing = gallery_answer(conn, "will Beta MoE run on tpu 9.9?", ["tpu"])
    assert missing.text.startswith("(no ") and "9.9" in missing.text.splitlines()[0]  # said, never silent
    blockers = gallery_answer(conn, "which ops block the most gallery models on tpu 0.1.1?", ["tpu"])
    assert blockers.facts[0]["backend_version"] == "0.1.1" and "aten::gelu" in blockers.facts[0]["ops"][0]["op"]


def test_the_issues_own_phrasings_reach_the_gallery(gallery_kb, capsys):
    from tests.conftest import run_kb

    code, out, err = run_kb(capsys, "ask", "the 10 gaps that block the most models on neuron", "--json")
    assert code == 0, err
    found = json.loads(out)
    assert found["intent"] == "gallery_blockers" and found["facts"][0]["ops"][0]["op"] == "aten::layer_norm"
    code, out, err = run_kb(capsys, "ask", "what models are in the gallery?", "--json")
    found = json.loads(out)
    assert code == 0 and found["intent"] == "gallery_models", err
    assert found["facts"][0]["count"] == 4 and "Gamma 2B" in found["text"] and "Tiny MLP" in found["text"]
    assert "data/gallery/models.jsonl" in json.dumps(found["sources"])


def test_a_number_of_gaps_is_the_limit():
    from kb.chat.answer_gallery import _limit

    assert _limit("the 3 gaps that block the most models") == 3 and _limit("the 999 ops that block") == 50
    assert _limit("which ops block the most models") == 15


def test_a_flops_share_without_the_experts_flops_is_partial(gallery_kb, capsys):
    from kb.check.work import holds_uncounted_compute
    from kb.gallery import views
    from tests.conftest import run_kb

    assert holds_uncounted_compute("transformers::grouped_mm_fallback") and holds_uncounted_compute("aten::_grouped_mm")
    assert not holds_uncounted_compute("aten::cat") and not holds_uncounted_compute("aten::linear")
    conn = db.open_kb(gallery_kb[0])
    conn.execute("INSERT INTO gallery_op VALUES ('beta-moe', 'inference', 'transformers::grouped_mm_fallback', "
                 "'forward', 'bfloat16', NULL, 2, 0, 500, 'bytes', 9)")
    conn.commit()
    for target in ("neuron", "tpu"):  # on tpu it reads as aten::_grouped_mm, also without a FLOP formula
        row = views.summary_row(views.model_entry(conn, "beta-moe"), views.report(conn, "beta-moe", target))
        assert row["flops_partial"] and views.flop_pct(row).endswith("*"), target
    plain = views.summary_row(views.model_entry(conn, "alpha-7b"), views.report(conn, "alpha-7b", "tpu"))
    assert not plain["flops_partial"] and views.flop_pct(plain) == "100.0%"
    code, out, err = run_kb(capsys, "gallery", "-t", "tpu")
    assert code == 0 and "100.0%*" in out and "* FLOPs of 1 op not counted" in out, err
    code, out, _ = run_kb(capsys, "gallery", "beta-moe", "-t", "tpu")
    assert "of the counted FLOPs" in out and "100% of FLOPs" not in out
    code, out, _ = run_kb(capsys, "gallery", "-t", "tpu", "--json")
    assert {r["model"]: r["flops_partial"] for r in json.loads(out)["rows"]}["beta-moe"] is True


def test_the_mcp_gallery_tool_takes_target_equals_version(gallery_kb):
    import pytest

    from kb.chat.mcp_server import gallery_data
    from kb.errors import KBError

    _older_tpu(gallery_kb[0])
    conn = db.open_kb(gallery_kb[0])
    one = gallery_data(conn, model="beta-moe", target="tpu=0.1.1")
    assert one["facts"][0]["backend_version"] == "0.1.1" and one["text"].startswith("**No**")
    table = gallery_data(conn, target="tpu=0.1.1")
    assert table["versions"] == {"tpu": "0.1.1"} and {r["backend_version"] for r in table["rows"]} == {"0.1.1"}
    assert gallery_data(conn, model="beta-moe", target="tpu")["facts"][0]["backend_version"] == "0.2.0"
    with pytest.raises(KBError, match="9.9"):
        gallery_data(conn, model="beta-moe", target="tpu=9.9")


def test_no_blockers_says_none(gallery_kb, capsys):
    from tests.conftest import run_kb

    code, out, err = run_kb(capsys, "gallery", "--blockers", "-t", "tpu")  # every op native on tpu 0.2.0
    assert code == 0, err
    assert "tpu 0.2.0 · eager: no op blocks any gallery model" in out and "the 0 ops" not in out


def test_the_serve_model_page_marks_each_presumed_verdict(gallery_kb, capsys):
    from tests.conftest import run_kb

    conn = db.open_kb(gallery_kb[0])
    conn.execute("UPDATE support_stored SET basis = 'presumed' WHERE target = 'tpu' AND op = 'aten::gelu'")
    conn.commit()
    conn.close()
    code, out, err = run_kb(capsys, "serve", "--get", "/-/gallery/beta-moe?target=tpu")
    assert code == 0, err
    assert out.count("presumed ᵖ · ") == 1  # the gelu row only, as kb gallery MODEL marks it (r2-30 #9)


def test_the_serve_gallery_pages_take_the_training_graph(gallery_kb, capsys):
    from tests.conftest import run_kb

    code, out, err = run_kb(capsys, "serve", "--get", "/-/gallery?graph=training")
    assert code == 0 and "Tiny MLP" in out and "(showing training)" in out, err
    code, out, err = run_kb(capsys, "serve", "--get", "/-/gallery/tiny?graph=training")
    assert code == 0 and "(showing training)" in out, err
    code, out, err = run_kb(capsys, "serve", "--get", "/-/gallery?graph=nope")
    assert code == 1 and "HTTP 400" in err  # refused, never silently the inference page
