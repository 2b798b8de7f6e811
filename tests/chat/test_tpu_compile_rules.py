"""TorchTPU 0.2.0's compile rules, read from the installed package's code
(data/manual/torch-tpu-0.2.0-compile.jsonl), answer compile questions instead of "unknown"."""

from __future__ import annotations

import json

import pytest

from kb.chat.answer import answer
from tests.conftest import REPO

DATA = REPO / "data" / "manual" / "torch-tpu-0.2.0-compile.jsonl"


# shipped_kb: the session's KB of the shipped data (tests/chat/conftest.py), not a build of its own


@pytest.mark.parametrize("question, feature, status", [
    ("does torch.compile mode=max-autotune work on tpu?", "torch.compile mode", "TypeError"),
    ("can I use torch.compile with mode reduce-overhead on tpu?", "torch.compile mode", "TypeError"),
    ("does torch.compile dynamic=True work on tpu?", "torch.compile dynamic=True", "NotImplementedError"),
    ("does inductor work on tpu?", "torch.compile backend=inductor", "RuntimeError"),
])
def test_compile_questions_are_answered_from_the_package_code(shipped_kb, question, feature, status):
    reply = answer(question, db=shipped_kb)
    assert reply.intent == "limitation" and "Unknown" not in reply.text
    assert [f["feature"] for f in reply.facts if f["target"] == "tpu"][0].startswith(feature)
    assert status in reply.text  # the file is the source (its name is escaped in the markdown: torch\\_tpu)
    assert any((s["name"] or "").startswith("torch_tpu 0.2.0, torch_tpu/") for s in reply.sources)


def test_each_fact_names_the_file_and_its_sha256():
    for line in DATA.read_text().splitlines():
        row = json.loads(line)
        prov = row["provenance"]
        assert prov["source_name"].startswith("torch_tpu 0.2.0, torch_tpu/") and prov["source_name"].endswith(".py")
        assert len(prov["content_sha256"]) == 64 and row["version"] == "0.2.0" and row["target"] == "tpu"
