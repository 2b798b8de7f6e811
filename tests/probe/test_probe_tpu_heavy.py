"""Against a real torch-tpu install (heavy, optional: `pytest -m heavy`).

Install it beside the venv without touching torch, e.g.
``pip install --no-deps --target /work/tpu-site torch-tpu==0.2.0 libtpu absl-py portpicker
frozendict immutabledict pyzmq``, then ``KB_TPU_SITE=/work/tpu-site pytest -m heavy``.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from kb.probe.static import run_static_probe
from kb.store.records import read_jsonl

pytestmark = pytest.mark.heavy
REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "data" / "probes" / "static-torch_tpu-0.2.0.jsonl"


def tpu_site() -> list[str] | None:
    """Where torch_tpu is importable from: KB_TPU_SITE, a tpu-site folder near the
    checkout, or this environment itself ([]); None when nowhere."""
    candidates = [os.environ.get("KB_TPU_SITE"), REPO.parent / "tpu-site", REPO.parent.parent / "tpu-site"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "torch_tpu" / "__init__.py").exists():
            return [str(candidate)]
    return [] if importlib.util.find_spec("torch_tpu") else None


@pytest.fixture(scope="module")
def site():
    found = tpu_site()
    if found is None:
        pytest.skip("torch-tpu is not installed (set KB_TPU_SITE to its --target folder)")
    return found


def test_real_torch_tpu_matches_the_shipped_probe(site):
    probe = run_static_probe("torch_tpu", python_path=site)
    shipped = list(read_jsonl(SHIPPED.read_text(encoding="utf-8").splitlines()))
    run = shipped[0]
    assert probe.run.target == "tpu" and probe.run.params["dispatch_key"] == "PrivateUse1"
    counts = probe.counts()
    assert counts["eager"]["native"] > 400  # TorchTPU claims about 450 ATen operators
    if (probe.run.backend_version, probe.run.params["torch_build"]) == (run.backend_version, run.params["torch_build"]):
        assert probe.run.params["table_sha256"] == run.params["table_sha256"]
        assert {(s.op, s.mode): s.status for s in probe.statuses} == {(s.op, s.mode): s.status for s in shipped[1:]}


def test_cpu_fallback_switch_turns_refusals_into_fallbacks(site):
    off = run_static_probe("torch_tpu", python_path=site, options={"cpu_fallback": False})
    on = run_static_probe("torch_tpu", python_path=site, options={"cpu_fallback": True})
    assert on.run.fallback_policy["enable_cpu_fallback"] is True
    assert on.counts()["eager"]["fallback"] == off.counts()["eager"]["unsupported"]
    assert on.counts()["compile"] == off.counts()["compile"]
    assert on.run.run_id != off.run.run_id
