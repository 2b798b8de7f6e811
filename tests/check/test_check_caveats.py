"""Field caveats where the user meets them: `kb check` warns at the call sites that
trigger one (with the argument that does), and only inside the caveat's version range."""

from __future__ import annotations

import json

import pytest

from kb.store import records as rec
from kb.store.ingest import ingest_records
from tests.conftest import op_status

GATHER = """
import torch
import torch.nn as nn


class Lookup(nn.Module):
    def forward(self, x, index):
        return torch.gather(x, 1, index).sin()


def build():
    return Lookup()
"""

SOURCE = "https://example.test/xpu-perf/README.md"


def field(**kw) -> rec.Provenance:
    return rec.Provenance(source_kind="field", source_name="bench-readme", source_url=SOURCE,
                          retrieved_at="2026-11-01T00:00:00+00:00", **kw)


def gather_caveat(**kw) -> rec.Caveat:
    values = dict(op="aten::gather", family=True, target="neuron", kind="slow", mode="eager",
                  statement="int64 index is hundreds of times slower than int32",
                  arg_dtypes={"index": ["int64"]}, min_version="2.12.3.0.1636",
                  figure={"value": 731, "unit": "x slower", "what": "bf16 dim 32768"}, provenance=field())
    values.update(kw)
    return rec.Caveat(**values)


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "lookup.py"
    path.write_text(GATHER)
    return f"{path}:build"


def check(model, index_dtype, *extra):
    import io
    from contextlib import redirect_stdout

    from cli.entry import main

    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["check", model, "--input-shape", "2x8", "--input-shape", f"2x3:{index_dtype}",
                     "--target", "neuron", "--json", *extra])
    return code, json.loads(out.getvalue())["reports"][0]


@pytest.mark.heavy  # seconds each on 2 cores: behind `heavy` for the default suite's time (#26)
def test_int64_gather_on_neuron_warns_with_the_source_and_int32_does_not(small_data, isolated_kb, model):
    ingest_records(str(isolated_kb), [op_status("aten::sin", "native", version="2.14.3.0"), gather_caveat()],
                   source_name="test")
    code, report = check(model, "int64")
    assert code == 0
    hits = [w for w in report["warnings"] if w.startswith("caveat (slow)")]
    assert len(hits) == 1, report["warnings"]
    assert "aten::gather with index int64" in hits[0] and f"[source: {SOURCE}]" in hits[0]
    assert "731 x slower" in hits[0]
    (finding,) = report["caveats"]
    assert finding["trigger"] == "index int64" and finding["calls"] == 1 and finding["source_url"] == SOURCE

    code, report = check(model, "int32")
    assert code == 0
    assert not [w for w in report["warnings"] if w.startswith("caveat")] and report["caveats"] == []


@pytest.mark.heavy
def test_a_caveat_outside_its_version_range_does_not_show(small_data, isolated_kb, model):
    ingest_records(str(isolated_kb), [
        op_status("aten::sin", "native", version="2.14.3.0"),
        op_status("aten::sin", "native", version="2.13.3.0"),
        gather_caveat(max_version="2.13.3.0"),  # fixed after 2.13.3.0, says this (made-up) caveat
    ], source_name="test")
    _, newer = check(model, "int64", "--backend-version", "neuron=2.14.3.0")
    assert newer["caveats"] == [] and not [w for w in newer["warnings"] if w.startswith("caveat")]
    _, older = check(model, "int64", "--backend-version", "neuron=2.13.3.0")
    assert [f["op"] for f in older["caveats"]] == ["aten::gather"]


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_dtype_caveats_fire_on_the_dtype_they_name_and_modes_stay_apart(small_data, isolated_kb, model):
    ingest_records(str(isolated_kb), [
        op_status("aten::sin", "native", version="2.14.3.0"),
        rec.Caveat(op="aten::sin", family=True, target="neuron", kind="slow", mode="eager", dtypes=("bfloat16",),
                   statement="bf16 sin is slower than fp32", provenance=field()),
        rec.Caveat(op="aten::gather", family=True, target="neuron", kind="compile_failure", mode="compile",
                   statement="fails to compile", provenance=field()),
    ], source_name="test")
    _, report = check(model, "int64")
    assert report["caveats"] == []  # float32 sin; the gather caveat is for compile mode only
    _, compiled = check(model, "int64", "--mode", "compile")
    assert [(f["op"], f["kind"]) for f in compiled["caveats"]] == [("aten::gather", "compile_failure")]


FLOOR = """
import torch.nn as nn


class Rounder(nn.Module):
    def forward(self, x):
        return x.floor()


def build():
    return Rounder()
"""


def shipped_tpu_caveat(op: str) -> rec.Caveat:
    """A caveat as shipped in data/caveats (TorchTPU's own op tests, pinned to 0.1.1)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "data" / "caveats" / "torch-tpu-op-tests.jsonl"
    with open(path, encoding="utf-8") as handle:
        return next(r for r in rec.read_jsonl(handle, where=str(path)) if r.op == op and r.phase is None)


@pytest.mark.heavy
def test_a_tpu_caveat_warns_against_tpu_in_its_range_with_the_source_and_not_outside(small_data, isolated_kb,
                                                                                       tmp_path):
    import io
    from contextlib import redirect_stdout

    from cli.entry import main

    caveat = shipped_tpu_caveat("aten::floor")
    assert caveat.target == "tpu" and caveat.min_version == caveat.max_version == "0.1.1"
    ingest_records(str(isolated_kb), [caveat, op_status("aten::floor", "native", target="tpu", version="0.1.1"),
                                      op_status("aten::floor", "native", target="tpu", version="0.2.0")],
                   source_name="test")
    path = tmp_path / "rounder.py"
    path.write_text(FLOOR)

    def check_tpu(version: str, dtype: str = "int32"):
        out = io.StringIO()
        with redirect_stdout(out):
            code = main(["check", f"{path}:build", "--input-shape", f"2x3:{dtype}", "--target", "tpu",
                         "--backend-version", f"tpu={version}", "--json"])
        return code, json.loads(out.getvalue())["reports"][0]

    code, report = check_tpu("0.1.1")
    assert code == 0
    hits = [w for w in report["warnings"] if w.startswith("caveat (error) on tpu 0.1.1")]
    assert len(hits) == 1 and "aten::floor with dtype int32" in hits[0], report["warnings"]
    assert f"[source: {caveat.provenance.source_url}]" in hits[0]
    assert "jonathan1920/torch_tpu/blob/0251a055" in hits[0]

    _, newer = check_tpu("0.2.0")  # the test list says nothing about the later release
    assert newer["caveats"] == [] and not [w for w in newer["warnings"] if w.startswith("caveat")]
    _, floats = check_tpu("0.1.1", "float32")  # the caveat is for integral dtypes only
    assert floats["caveats"] == []
