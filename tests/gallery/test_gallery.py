"""The gallery: a census equals what `kb check` reports for the same export, usage counts
and the sort by them, the ops that block the most models, the Baseline line, and the CLI."""

from __future__ import annotations

import json

from kb.gallery import census as gc
from kb.gallery import views
from kb.store import db
from kb.store import gallery as store
from tests.conftest import run_kb


def _check_json(capsys, path, target="neuron", *more):
    code, out, err = run_kb(capsys, "check", path, "--target", target, "--json", *more)
    assert code in (0, 1), err
    return json.loads(out)["reports"][0]


def test_census_of_a_tiny_model_equals_what_kb_check_reports_for_its_export(gallery_kb, tiny_exports, capsys):
    for graph, path in tiny_exports.items():
        census = gc.per_op(gc.census_from_archive(path, "tiny", graph))
        report = _check_json(capsys, path)
        checked = {op["op"]: {"calls": op["count"], "flops": op["flops"], "bytes": op["bytes"], "phases": op["phases"]}
                   for op in report["ops"]}
        assert census == checked
        assert sum(v["calls"] for v in census.values()) == report["call_sites"]
    training = gc.census_from_archive(tiny_exports["training"], "tiny", "training")
    assert {r["phase"] for r in training} == {"forward", "backward"}


def test_the_model_page_is_kb_checks_report_of_the_census(gallery_kb, tiny_exports, capsys):
    conn = db.open_kb(gallery_kb[0])
    for target in ("neuron", "tpu"):
        rebuilt = views.report(conn, "tiny", target).to_dict()
        checked = _check_json(capsys, tiny_exports["inference"], target)
        assert [(o["op"], o["count"], o["status"], o["fallback_calls"], o["flops"], o["bytes"]) for o in rebuilt["ops"]] \
            == [(o["op"], o["count"], o["status"], o["fallback_calls"], o["flops"], o["bytes"]) for o in checked["ops"]]
        for key in ("eager", "device_flop_share", "device_byte_share", "host_flops", "verdict"):
            assert rebuilt[key] == checked[key], key
    code, out, err = run_kb(capsys, "gallery", "tiny", "-t", "neuron", "--json")
    assert code == 0, err
    page = json.loads(out)
    assert page["reports"][0]["verdict"] == views.report(conn, "tiny", "neuron").verdict
    assert page["gallery"]["config_source"].startswith("https://example.test/tiny")


def test_usage_counts_which_models_call_an_op(gallery_kb, capsys):
    conn = db.open_kb(gallery_kb[0])
    linear = store.used_by(conn, "aten::linear")
    assert (linear["count"], linear["of"], linear["used_by"]) == (3, 4, ["alpha-7b", "beta-moe", "tiny"])
    assert store.used_by(conn, "aten::gelu")["used_by"] == ["beta-moe", "tiny"]
    assert store.used_by_line(store.used_by(conn, "aten::embedding")) == "used by 1 of 4 gallery models (alpha-7b)"
    code, out, _ = run_kb(capsys, "op", "aten::layer_norm", "-t", "neuron")
    assert code == 0 and "used by 2 of 4 gallery models (alpha-7b, tiny)" in out
    code, out, _ = run_kb(capsys, "op", "aten::layer_norm", "--json")
    assert json.loads(out)["ops"][0]["gallery"]["count"] == 2


def test_ops_and_compare_sort_by_usage(gallery_kb, capsys):
    code, out, err = run_kb(capsys, "ops", "-t", "neuron", "--sort", "usage", "--json")
    assert code == 0, err
    ops = json.loads(out)["ops"]
    counts = [o["gallery_models"] for o in ops]
    assert counts == sorted(counts, reverse=True) and ops[0]["op"] == "aten::linear" and counts[0] == 3
    code, out, err = run_kb(capsys, "compare", "neuron", "tpu", "--sort", "usage", "--json")
    assert code == 0, err
    assert json.loads(out)["rows"][0]["op"] == "aten::linear"
    code, out, _ = run_kb(capsys, "ops", "-t", "neuron", "--sort", "usage")
    assert "gallery models" in out.splitlines()[1]
    code, _, err = run_kb(capsys, "ops", "-t", "neuron", "--sort", "popularity")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_the_gaps_that_block_the_most_models(gallery_kb, capsys):
    conn = db.open_kb(gallery_kb[0])
    found = views.blockers(conn, "neuron")
    assert found["ops"][0] == {"op": "aten::layer_norm", "blocks": 2, "models": ["alpha-7b", "tiny"], "status": "fallback",
                              "basis": "evidence"}
    assert views.blockers(conn, "tpu")["ops"] == []
    code, out, err = run_kb(capsys, "gallery", "--blockers", "-t", "neuron", "--json")
    assert code == 0, err
    assert json.loads(out)["blockers"][0]["ops"][0]["op"] == "aten::layer_norm"


def test_the_baseline_line_counts_models_that_run_fully_on_the_device(gallery_kb, capsys):
    code, out, err = run_kb(capsys, "gallery", "--baseline", "-t", "neuron", "-t", "tpu", "--json")
    assert code == 0, err
    lines = {(b["target"], b["backend_version"], b["mode"]): (b["runs_fully"], b["of"], b["models"])
             for b in json.loads(out)["baseline"]}
    assert lines[("neuron", "2.14.3.0", "eager")] == (1, 3, ["beta-moe"])
    assert lines[("neuron", "2.14.3.0", "compile")][0] == 0  # no compile-mode evidence on neuron: unknown
    assert lines[("tpu", "0.2.0", "eager")] == (3, 3, ["alpha-7b", "beta-moe", "tiny"])
    assert lines[("tpu", "0.2.0", "compile")][0] == 3
    code, out, _ = run_kb(capsys, "gallery", "--baseline", "-t", "neuron")
    assert "neuron 2.14.3.0 · eager: 1 of 3 gallery models run fully on the device" in out


def test_the_gallery_table_lists_every_model_and_why_one_is_missing(gallery_kb, capsys):
    code, out, err = run_kb(capsys, "gallery", "--mode", "eager", "--mode", "compile", "--json")
    assert code == 0, err
    result = json.loads(out)
    cells = {(r["model"], r["target"], r["mode"]): r for r in result["rows"]}
    assert len(cells) == 3 * 2 * 2
    alpha = cells[("alpha-7b", "neuron", "eager")]
    assert alpha["fallback_ops"] == ["aten::layer_norm"] and not alpha["runs_fully"]
    assert 0 < alpha["device_flop_share"] < 1 and alpha["device_call_share"] == round(9 / 13, 6)  # exact, never rounded up to 1.0
    assert result["not_built"] == [{"model": "gamma-2b", "name": "Gamma 2B", "family": "decoder",
                                    "reason": "torch.export: GuardOnDataDependentSymNode"}]
    code, out, _ = run_kb(capsys, "gallery", "-t", "tpu")
    assert "Alpha 7B" in out and "not in the table: Gamma 2B — torch.export: GuardOnDataDependentSymNode" in out
    code, _, err = run_kb(capsys, "gallery", "nosuch")
    assert code == 2 and err.strip().splitlines() == ["kb: error: no gallery model 'nosuch'; kb gallery lists them"]
    code, _, err = run_kb(capsys, "gallery", "gamma-2b")
    assert code == 2 and "GuardOnDataDependentSymNode" in err


def test_a_kb_without_gallery_tables_reads_as_an_empty_gallery(tmp_path):
    import sqlite3

    conn = sqlite3.connect(tmp_path / "old.sqlite")
    assert views.models(conn) == [] and store.usage(conn) == {}
    assert store.used_by(conn, "aten::linear") == {"op": "aten::linear", "used_by": [], "count": 0, "of": 0}
    assert store.used_by_line(store.used_by(conn, "aten::linear")) is None


def test_the_training_graph_has_its_own_table_and_page(gallery_kb, capsys):
    code, out, err = run_kb(capsys, "gallery", "--graph", "training", "-t", "tpu", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert [r["model"] for r in result["rows"]] == ["tiny"]
    assert {m["model"] for m in result["not_built"]} == {"alpha-7b", "beta-moe", "gamma-2b"}
    code, out, err = run_kb(capsys, "gallery", "tiny", "--graph", "training", "-t", "neuron", "--json")
    assert code == 0, err
    phases = {p for op in json.loads(out)["reports"][0]["ops"] for p in op["phases"]}
    assert phases == {"forward", "backward"}
    code, _, err = run_kb(capsys, "gallery", "--graph", "backward")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_a_malformed_gallery_file_is_one_line_not_a_traceback(gallery_kb, capsys, monkeypatch, tmp_path):
    _, data, _ = gallery_kb
    (data / "gallery" / "census.jsonl").write_text('{"model": "tiny", "graph": "inference", "op": "aten::x", "calls": "many"}\n')
    monkeypatch.setenv("KB_DB", str(tmp_path / "other.sqlite"))
    code, _, err = run_kb(capsys, "gallery")
    assert code == 2 and len(err.strip().splitlines()) == 2  # the first-use build line, then the error
    assert "not a gallery file (ValueError" in err and "Traceback" not in err
