"""`kb report`: the migration checklist from a fixture code base, a small model, a
fixture KB (ingested records), a parity result and a cost file — checked section by
section in Markdown, JSON and HTML; the HTML also in a real headless Chromium."""

from __future__ import annotations

import json
import re

import pytest
from bs4 import BeautifulSoup

pytest.importorskip("torch")

from tests.migrate import report_fixtures as fx  # noqa: E402
from tests.migrate.models import factory  # noqa: E402


@pytest.fixture
def inputs(tmp_path, small_data, isolated_kb, monkeypatch, run_cli):
    monkeypatch.setenv("KB_TODAY", fx.TODAY)
    fx.ingest(isolated_kb)
    made = fx.make_all(tmp_path)
    code, out, err = run_cli("parity", factory("mlp"), "--device", "sim", "--input-shape", "BxSx8", "--batch", "1",
                             "--sweep", "seq=4,32", "--json")
    assert code == 0, err
    parity = tmp_path / "parity.json"
    parity.write_text(out)
    made["parity"] = str(parity)
    return made


def full_args(inputs, *extra):
    """Every input; an option in `extra` replaces the default (a repeated option is refused)."""
    cycle = () if "--next-cycle" in extra else ("--next-cycle", fx.NEXT_CYCLE)
    return ("report", inputs["repo"], "--model", inputs["model"], "--input-shape", "2x4", "--target", "neuron",
            "--parity", inputs["parity"], "--cost", inputs["costs"], *cycle, *extra)


def test_checklist_states_come_from_each_tool(run_cli, inputs):
    code, out, err = run_cli(*full_args(inputs, "--json"))
    assert code == 0, err
    doc = json.loads(out)
    states = {item["key"]: item["state"] for item in doc["checklist"]}
    assert states == {"device": "fail", "kernels": "fail", "dependencies": "fail", "coverage": "warn",
                      "parity": "pass", "cost": "info", "eol": "fail"}
    items = {item["key"]: item for item in doc["checklist"]}
    assert "spread over 2 files" in items["device"]["summary"]
    assert not any("tests/" in d for d in items["device"]["details"])  # test code is graded low
    assert any("scale_kernel" in d for d in items["kernels"]["details"])
    assert any("aten::silu — fallback" in d for d in items["coverage"]["details"])
    assert doc["coverage"]["summary"]["ops_by_status"] == {"native": 3, "fallback": 1}
    assert items["cost"]["summary"].startswith("cheapest: trn2-48xlarge")
    assert items["eol"]["summary"] == "1 part(s) out of support by 2027-06-01"
    assert any("2.33" in d and "2027-03-15" in d and "neuron/eos" in d for d in items["eol"]["details"])
    assert doc["ready"] is False and doc["counts"]["fail"] == 4


def test_markdown_has_every_section(run_cli, inputs):
    code, out, err = run_cli(*full_args(inputs))
    assert code == 0, err
    for heading in ("# Migration report: neuron", "## Checklist", "## Op coverage on neuron",
                    "## Cost per million tokens", "### Device selection centralised",
                    "### Supported until the next upgrade cycle"):
        assert heading in out
    assert "| ❌ fail | No hand-written CUDA/Triton kernels |" in out
    assert "| ✅ pass | Numerical parity with the reference |" in out
    assert "| `aten::silu` | fallback | 1 |" in out


def test_html_is_self_contained_with_a_coverage_chart(run_cli, inputs, tmp_path):
    page_path = tmp_path / "report.html"
    code, _, err = run_cli(*full_args(inputs, "--out", page_path))
    assert code == 0, err
    assert f"html report written to {page_path}" in err
    assert re.search(r"\d+ pass, \d+ warn, \d+ not verified, \d+ fail, \d+ skipped", err)  # every state counted
    text = page_path.read_text()
    page = BeautifulSoup(text, "html.parser")
    assert page.find("script") is None
    assert not [tag for tag in page.find_all(["link", "img", "iframe"])]
    assert page.find("style") is not None
    rows = {row["id"]: row["data-state"] for row in page.select("table.checklist tr[id]")}
    assert rows["item-device"] == "fail" and rows["item-parity"] == "pass"
    bars = {rect["data-status"]: int(rect["data-ops"]) for rect in page.select("svg rect[data-status]")}
    assert bars == {"native": 3, "decomposed": 0, "fallback": 1, "unsupported": 0, "unknown": 0}
    assert page.select_one("#parity svg polyline") is not None  # error by size
    assert page.select_one("#eol") is not None and page.select_one("#cost") is not None


def test_without_inputs_items_are_skipped(run_cli, small_data, isolated_kb, monkeypatch):
    monkeypatch.setenv("KB_TODAY", fx.TODAY)
    code, out, err = run_cli("report", "--json")
    assert code == 0, err
    states = {item["key"]: item["state"] for item in json.loads(out)["checklist"]}
    assert states["device"] == states["coverage"] == states["parity"] == states["cost"] == "skipped"


def test_gate_exits_1_on_a_blocker(run_cli, inputs):
    code, _, _ = run_cli(*full_args(inputs, "--fail-on-blocker", "--json"))
    assert code == 1


@pytest.mark.parametrize("extra, message", [
    (("--format", "pdf"), "--format pdf"),
    (("--next-cycle", "next june"), "not a date"),
    (("--next-cycle", "2020-01-01"), "in the past"),
])
def test_bad_report_options_exit_2(run_cli, inputs, extra, message):
    code, _, err = run_cli(*full_args(inputs, *extra))
    assert code == 2 and message in err and "Traceback" not in err


def test_bad_parity_file_exits_2(run_cli, inputs, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run_cli("report", "--parity", bad)
    assert code == 2 and "not JSON" in err
    bad.write_text('{"a": 1}')
    code, _, err = run_cli("report", "--parity", bad)
    assert code == 2 and "not a kb parity --json output" in err


def test_report_in_a_real_browser(run_cli, inputs, tmp_path):
    from tests.serve import browser

    if browser.find_chromium() is None:
        pytest.skip("no Chromium to drive: apt-get install -y chromium (or set KB_CHROMIUM)")
    page_path = tmp_path / "report.html"
    code, _, err = run_cli(*full_args(inputs, "--out", page_path))
    assert code == 0, err
    url = page_path.as_uri()
    dom = BeautifulSoup(browser.dump_dom(url), "html.parser")
    assert len(dom.select("table.checklist tbody tr")) == 7
    assert dom.select("svg rect[data-status='fallback']")
    shot = browser.screenshot(url, str(tmp_path / "report.png"), 1200, 1600)
    with open(shot, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_stack_parts_join_the_end_of_support_item(run_cli, inputs):
    code, out, err = run_cli(*full_args(inputs, "--stack", "python=3.9", "--json"))
    assert code == 0, err
    (item,) = [i for i in json.loads(out)["checklist"] if i["key"] == "eol"]
    assert item["state"] == "fail" and item["summary"].startswith("2 part(s)")
    assert any("3.9" in d and "python/eos" in d for d in item["details"]), item["details"]
    code, out, _ = run_cli(*full_args(inputs, "--json"))
    (item,) = [i for i in json.loads(out)["checklist"] if i["key"] == "eol"]
    assert not any("python/eos" in d for d in item["details"])


def test_field_caveats_the_model_triggers_are_listed_and_warn():
    """The migration report lists the caveats from the check and turns the coverage item to warn."""
    from kb.migrate.report import build_report

    check = {"model": "m.py:build", "target": "neuron", "backend_version": "2.14.3.0", "mode": "eager",
             "summary": {"distinct_ops": 1, "call_sites": 1, "on_device_call_sites_pct": 100.0,
                         "ops_by_status": {"native": 1}},
             "ops": [{"op": "aten::gather", "status": "native", "count": 1}],
             "warnings": ["caveat (slow) on neuron 2.12.3.0.1636+: aten::gather with index int64 [source: https://x.test/r]"],
             "caveats": [{"op": "aten::gather", "kind": "slow", "trigger": "index int64", "calls": 1, "where": "",
                          "statement": "int64 index is slow", "figure": None, "workaround": None,
                          "source_url": "https://x.test/r"}]}
    doc = build_report(target="neuron", check=check)
    (coverage,) = [i for i in doc["checklist"] if i["key"] == "coverage"]
    assert coverage["state"] == "warn" and any("index int64" in d for d in coverage["details"])
    assert doc["coverage"]["caveats"][0]["source_url"] == "https://x.test/r"


def test_missing_data_is_amber_not_verified_never_a_pass():
    from kb.migrate import report as kreport

    check = {"model": "m.py:build", "target": "neuron", "backend_version": "2.14.3.0", "warnings": [], "caveats": [],
             "summary": {"ops_by_status": {"native": 3, "unknown": 1}, "distinct_ops": 4, "call_sites": 9,
                         "call_sites_by_status": {"native": 8, "unknown": 1}, "on_device_call_sites_pct": 90.0},
             "ops": [{"op": "aten::scaled_dot_product_attention", "status": "unknown", "count": 1}]}
    coverage = kreport.coverage_item(check)
    assert coverage["state"] == "unverified" and "not verified" in coverage["summary"]
    eol = kreport.eol_item({"next_cycle": "2027-06-01", "warnings": []})
    assert eol["state"] == "unverified"
    doc = kreport.build_report(target="neuron", check=check, eol={"next_cycle": "2027-06-01", "warnings": []})
    assert doc["ready"] and not doc["verified"]
    assert "not verified" in kreport.headline(doc)
    assert "no blocker found**" not in kreport.render_markdown(doc)
    assert 'class="verdict unverified"' in kreport.render_html(doc)
