"""`kb report` with several targets side by side and with --train (issue 28): one
coverage item and one end-of-support item per target, the ops' statuses in one table
(Markdown and HTML), the backward pass's ops under --train; one target stays as it was."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

pytest.importorskip("torch")

from tests.migrate import report_fixtures as fx  # noqa: E402


@pytest.fixture
def made(tmp_path, small_data, isolated_kb, monkeypatch):
    """The fixture KB (neuron verdicts only: every op is unknown on tpu) and inputs."""
    monkeypatch.setenv("KB_TODAY", fx.TODAY)
    fx.ingest(isolated_kb)
    return fx.make_all(tmp_path)


def _args(made, *extra):
    return ("report", "--model", made["model"], "--input-shape", "2x4", "--next-cycle", fx.NEXT_CYCLE, *extra)


def test_two_targets_get_an_item_each(run_cli, made):
    code, out, err = run_cli(*_args(made, "--target", "neuron", "--target", "tpu", "--json"))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["targets"] == ["neuron", "tpu"] and doc["title"] == "Migration report: neuron, tpu"
    items = {item["key"]: item for item in doc["checklist"]}
    assert items["coverage-neuron"]["state"] == "warn" and items["coverage-neuron"]["title"] == "Every op runs on neuron"
    assert items["coverage-tpu"]["state"] == "unverified"  # no tpu data in this KB: not verified, never a pass
    assert {"eol-neuron", "eol-tpu"} <= set(items) and "coverage" not in items
    assert [c["target"] for c in doc["coverages"]] == ["neuron", "tpu"]
    assert doc["coverage"]["target"] == "neuron" and doc["eols"][1]["target"] == "tpu"


def test_markdown_and_html_show_the_targets_side_by_side(run_cli, made, tmp_path):
    code, out, err = run_cli(*_args(made, "-t", "neuron", "-t", "tpu"))
    assert code == 0, err
    assert "## Op coverage on neuron 2.14.3.0, tpu" in out
    assert "| op | calls | neuron 2.14.3.0 | tpu |" in out
    assert "| `aten::silu` | 1 | fallback | unknown |" in out
    page_path = tmp_path / "report.html"
    code, _, err = run_cli(*_args(made, "-t", "neuron", "-t", "tpu", "--out", page_path))
    assert code == 0, err
    page = BeautifulSoup(page_path.read_text(), "html.parser")
    assert [th.text for th in page.select("table.side-by-side thead th")] == ["op", "calls", "neuron", "tpu"]
    silu = next(tr for tr in page.select("table.side-by-side tbody tr") if tr.code.text == "aten::silu")
    assert [td.text for td in silu.select("td.status")] == ["fallback", "unknown"]
    assert {fig["data-target"] for fig in page.select("#coverage figure")} == {"neuron", "tpu"}
    assert page.select_one("#item-coverage-tpu")["data-state"] == "unverified"
    assert page.find("script") is None


def test_versions_per_target(run_cli, made):
    code, out, err = run_cli(*_args(made, "-t", "neuron=2.14.3.0", "-t", "tpu", "--json"))
    assert code == 0, err
    assert json.loads(out)["coverages"][0]["backend_version"] == "2.14.3.0"
    code, _, err = run_cli(*_args(made, "-t", "neuron", "--backend-version", "tpu=0.2.0"))
    assert code == 2 and "tpu is not a --target" in err


def test_train_adds_the_backward_ops(run_cli, made):
    code, out, err = run_cli(*_args(made, "--json"))
    assert code == 0, err
    forward = {op["op"] for op in json.loads(out)["coverage"]["ops"]}
    code, out, err = run_cli(*_args(made, "--train", "--json"))
    assert code == 0, err
    doc = json.loads(out)
    trained = {op["op"] for op in doc["coverage"]["ops"]}
    assert doc["train"] is True and doc["coverage"]["train"] is True
    assert "aten::silu_backward" in trained and not any("backward" in op for op in forward), trained - forward
    assert doc["title"] == "Migration report: neuron (training)"
    code, out, _ = run_cli(*_args(made, "--train", "-t", "neuron", "-t", "tpu"))
    assert code == 0 and "(training: forward and backward)" in out


def test_one_target_keeps_its_keys(run_cli, made):
    code, out, err = run_cli(*_args(made, "--json"))
    assert code == 0, err
    doc = json.loads(out)
    keys = [item["key"] for item in doc["checklist"]]
    assert keys == ["device", "kernels", "dependencies", "coverage", "parity", "cost", "eol"]
    assert doc["targets"] == ["neuron"] and len(doc["coverages"]) == 1


def test_hostile_op_names_side_by_side_are_escaped():
    from kb.migrate import report as kreport

    evil = "aten::x|<img src=x onerror=alert(1)>\x1b[2J`"

    def check(target, status):
        return {"model": "m<b>.pt2", "target": target, "backend_version": None, "mode": "eager", "warnings": [],
                "caveats": [], "summary": {"distinct_ops": 1, "call_sites": 1, "on_device_call_sites_pct": 0.0,
                                           "ops_by_status": {status: 1}, "call_sites_by_status": {status: 1}},
                "ops": [{"op": evil, "status": status, "count": 1, "via": []}]}

    doc = kreport.build_report(targets=["neuron", "tpu"], checks=[check("neuron", "fallback"),
                                                                  check("tpu", "unsupported")])
    page = kreport.render_html(doc)
    assert "<img" not in page and "\x1b" not in page and "&lt;img" in page
    text = kreport.render_markdown(doc)
    row = next(line for line in text.splitlines() if line.startswith("| `") and "img" in line)
    assert "\x1b" not in row and row.count(" | ") == 3 and row.endswith("| fallback | unsupported |")  # no cell forged
    assert row.startswith("| `` ") and "` `` |" in row  # the name sits in a code span, shown as written
