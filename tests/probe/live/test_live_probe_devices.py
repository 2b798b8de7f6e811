"""The live probe on PyTorch's own devices: `meta` (shape-only kernels, partial
coverage: data-dependent ops raise) and `cpu` (the reference itself: everything runs,
and numerics agree with themselves)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")

REPO = Path(__file__).resolve().parents[3]


def _probe(tmp_path: Path, device: str, ops: str, *extra: str, code: int = 0) -> tuple[dict[str, dict], str]:
    env = dict(os.environ, KB_CACHE_DIR=str(tmp_path / "cache"), KB_DB=str(tmp_path / "kb.sqlite"),
               PYTHONPATH=str(REPO))
    out = tmp_path / f"{device}.jsonl"
    done = subprocess.run([sys.executable, "-m", "cli.entry", "probe", "--device", device, "--ops", ops,
                           "--dtypes", "float32", "--samples", "3", "--out", str(out), *extra],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == code, done.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return {r["op"]: r for r in rows if r["record"] == "op_status"}, done.stdout


@pytest.mark.heavy
def test_meta_runs_shape_kernels_and_refuses_data_dependent_ops(tmp_path):
    found, stdout = _probe(tmp_path, "meta", "neg,nonzero,masked_select", "--ingest", "--compare-static", "--json",
                           code=1)  # 1: the live evidence contradicts the shipped static probe of meta
    contradictions = {(r["op"], r["live"], r["static"]) for r in json.loads(stdout)["contradictions"]}
    assert ("aten::nonzero", "unsupported", "native") in contradictions  # meta's nonzero kernel refuses by default
    assert found["aten::neg"]["status"] == "native"
    assert found["aten::nonzero"]["status"] == "unsupported"
    assert found["aten::masked_select"]["status"] == "unsupported"
    assert found["aten::masked_select"]["detail"]["error"]["class"] == "NotImplementedError"
    assert all(r["target"] == "meta" and r["backend_version"] == r["torch_version"] for r in found.values())


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_cpu_is_its_own_reference(tmp_path):
    found, stdout = _probe(tmp_path, "cpu", "neg,nonzero,masked_select")
    assert "live probe on cpu" in stdout
    assert {found[op]["status"] for op in ("aten::neg", "aten::nonzero", "aten::masked_select")} == {"native"}
    assert not [op for op, r in found.items() if r.get("detail", {}).get("wrong_result")]
