"""`kb check` on a model whose op verdict rests on a local report file: shipped vendor
evidence decides unless the file was ingested with --prefer-local, and then the report
names the file (JSON and the table's source column)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import op_status, run_kb, write_records

FACTORY = """
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        return x.relu()


def build():
    return Net()
"""


def _setup(small_data, tmp_path):
    write_records(small_data / "manual" / "vendor.jsonl", [
        op_status("aten::relu", "native", kind="manual", name="vendor-op-table",
                  url="https://vendor.example/ops.html"),
    ])
    report = tmp_path / "claims.jsonl"
    report.write_text(json.dumps({
        "record": "op_status", "op": "aten::relu", "target": "neuron", "backend_version": "2.14.3.0",
        "status": "unsupported", "provenance": {"source_kind": "manual", "source_name": "vendor-op-table",
                                                "source_url": "https://vendor.example/ops.html",
                                                "retrieved_at": "2030-01-01T00:00:00+00:00"}}) + "\n")
    model = tmp_path / "net.py"
    model.write_text(FACTORY)
    return report, model


def _check(capsys, model, *extra):
    return run_kb(capsys, "check", f"{model}:build", "--input-shape", "2x4", "--target", "neuron", *extra)


@pytest.mark.heavy  # seconds each on 2 cores: behind `heavy` for the default suite's time (#26)
def test_check_keeps_the_vendor_verdict_over_a_local_report(small_data, isolated_kb, tmp_path, capsys):
    report, model = _setup(small_data, tmp_path)
    run_kb(capsys, "ingest", report)
    code, out, err = _check(capsys, model, "--json")
    (op,) = json.loads(out)["reports"][0]["ops"]
    assert code == 0, err
    assert (op["status"], op["source_kind"], op["local_report"]) == ("native", "manual", None)


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_check_names_the_local_report_it_rests_on(small_data, isolated_kb, tmp_path, capsys):
    report, model = _setup(small_data, tmp_path)
    run_kb(capsys, "ingest", "--prefer-local", report)
    code, out, err = _check(capsys, model, "--json")
    (op,) = json.loads(out)["reports"][0]["ops"]
    assert (op["status"], op["basis"], op["source_kind"], op["source_url"]) == (
        "unsupported", "local", "local_report", None)
    assert op["local_report"]["file"] == "claims.jsonl"
    code, out, err = _check(capsys, model)
    line = next(x for x in out.splitlines() if x.startswith("aten::relu"))  # the op's row, not the verdict line
    assert "local report claims.jsonl" in line and "vendor.example" not in line
