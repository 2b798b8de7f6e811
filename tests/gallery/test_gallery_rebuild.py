"""The dev builder (tools/gallery_build.py) rebuilds one small shipped model to the same census."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

SMALL = "all-minilm-l6-v2"


def _lines(path, slug):
    return [json.loads(line) for line in path.read_text().splitlines() if json.loads(line)["model"] == slug]


@pytest.mark.heavy
def test_the_builder_rebuilds_a_small_model_to_the_shipped_census(tmp_path):
    pytest.importorskip("transformers")
    shipped = REPO / "data" / "gallery"
    if not (shipped / "census.jsonl").exists() or not _lines(shipped / "census.jsonl", SMALL):
        pytest.skip(f"{SMALL} is not in the shipped gallery")
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "gallery_build.py"), "--only", SMALL,
                           "--out", str(tmp_path), "--timeout", "600"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _lines(tmp_path / "census.jsonl", SMALL) == _lines(shipped / "census.jsonl", SMALL)
    rebuilt, = _lines(tmp_path / "models.jsonl", SMALL)
    entry, = _lines(shipped / "models.jsonl", SMALL)
    for key in ("config", "config_source", "parameters", "inputs"):
        assert rebuilt[key] == entry[key], key
    assert {g: v["status"] for g, v in rebuilt["graphs"].items()} == {g: v["status"] for g, v in entry["graphs"].items()}
