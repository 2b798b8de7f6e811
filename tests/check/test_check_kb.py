"""`kb check` against a real KB file: verdicts ingested as records, read back through
kb.store.queries.support_map, and reports saved with --save."""

from __future__ import annotations

import json
import sqlite3

import pytest

from kb.store.ingest import ingest_records
from tests.conftest import op_status, probe_run

FACTORY = """
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        return nn.functional.silu(x.relu() + x)


def build():
    return Net()
"""


@pytest.mark.heavy  # seconds each on 2 cores: behind `heavy` for the default suite's time (#26)
def test_check_reads_the_kb_and_saves_its_report(small_data, isolated_kb, tmp_path, capsys):
    from cli.entry import main

    ingest_records(str(isolated_kb), [
        probe_run("run-1", kind="static", version="2.14.3.0"),
        op_status("aten::relu", "native", kind="static_probe", run="run-1", version="2.14.3.0"),
        op_status("aten::add.Tensor", "native", dtypes=["bfloat16"], version="2.14.3.0"),
        op_status("aten::silu", "fallback", version="2.14.3.0"),
    ], source_name="test")
    model = tmp_path / "net.py"
    model.write_text(FACTORY)
    code = main(["check", f"{model}:build", "--input-shape", "2x4", "--json", "--save", "--fail-on", "fallback"])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    report = json.loads(captured.out)["reports"][0]
    assert report["backend_version"] == "2.14.3.0"
    statuses = {op["op"]: op["status"] for op in report["ops"]}
    assert statuses == {"aten::relu": "native", "aten::add.Tensor": "unknown", "aten::silu": "fallback"}
    assert "saved check report" in captured.err
    conn = sqlite3.connect(isolated_kb)
    (row,) = conn.execute("SELECT target, backend_version, verdict, model_sha256 FROM checkreport").fetchall()
    assert row[:3] == ("neuron", "2.14.3.0", "unknown") and len(row[3]) == 64
    ops = conn.execute("SELECT op, count, status FROM checkop ORDER BY id").fetchall()
    assert ops == [("aten::relu", 1, "native"), ("aten::add.Tensor", 1, "unknown"), ("aten::silu", 1, "fallback")]


@pytest.mark.heavy  # seconds each on 2 cores: behind `heavy` for the default suite's time (#26)
def test_unknown_target_is_a_one_line_error(small_data, isolated_kb, tmp_path, capsys):
    from cli.entry import main

    model = tmp_path / "net.py"
    model.write_text(FACTORY)
    code = main(["check", f"{model}:build", "--input-shape", "2x4", "--target", "cuda-nope"])
    err = capsys.readouterr().err
    assert code == 2 and "unknown target" in err and "Traceback" not in err


FLOAT64_FFT = """
import torch
import torch.nn as nn


class Spectral(nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x.double()).abs()


def build():
    return Spectral()
"""


@pytest.mark.heavy  # seconds each on 2 cores: behind `heavy` for the default suite's time (#26)
def test_limitations_the_model_hits_and_end_of_support_become_warnings(small_data, isolated_kb, tmp_path, capsys,
                                                                         monkeypatch):
    from cli.entry import main
    from kb.store import records as rec
    from tests.conftest import prov

    monkeypatch.setenv("KB_TODAY", "2026-11-30")
    ingest_records(str(isolated_kb), [
        rec.Release(product="torchneuron", version="2.14.3.0", sdk_version="2.33.0", date="2026-10-19",
                    provenance=prov()),
        op_status("aten::relu", "native", version="2.14.3.0"),
        rec.Limitation(target="neuron", product="neuron-sdk", version="2.33.0", feature="float64",
                       status="runs as float32", note="with a warning", provenance=prov(url="https://docs.test/lim")),
        rec.Limitation(target="neuron", product="neuron-sdk", version="2.33.0", feature="torch.fft",
                       status="partial", provenance=prov(url="https://docs.test/lim")),
        rec.Limitation(target="neuron", product="neuron-sdk", version="2.33.0", feature="torch.sparse",
                       status="unsupported", provenance=prov(url="https://docs.test/lim")),
        rec.SupportWindow(product="neuron-sdk", cycle="2.33", eol="2027-01-15", eol_kind="announced",
                          provenance=prov(url="https://docs.test/eos")),
    ], source_name="test")
    model = tmp_path / "spectral.py"
    model.write_text(FLOAT64_FFT)
    code = main(["check", f"{model}:build", "--input-shape", "2x8", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    warnings = json.loads(captured.out)["reports"][0]["warnings"]
    assert any("float64 — runs as float32" in w and "https://docs.test/lim" in w for w in warnings), warnings
    assert any("torch.fft — partial" in w for w in warnings), warnings
    assert not any("torch.sparse" in w for w in warnings)  # the model uses no sparse op
    assert any(w.startswith("end of support") and "https://docs.test/eos" in w for w in warnings), warnings
