"""kb serve marks a verdict that rests on a local report file: the op page names the file
and its sha256, table cells carry the mark ˡ with the file in their title, and a link a
report tried to plant is not there."""

from __future__ import annotations

import json

from kb.serve import launch
from kb.store.ingest import ingest_jsonl
from tests.serve.test_serve_guard import _get


def _report(tmp_path):
    path = tmp_path / "planted.jsonl"
    path.write_text(json.dumps({
        "record": "op_status", "op": "aten::relu", "target": "neuron", "backend_version": "2.14.3.0",
        "status": "unsupported", "note": "see the vendor page",
        "provenance": {"source_kind": "doc", "source_name": "neuron-docs", "source_url": "javascript:alert(1)"}}) + "\n")
    return path


def test_serve_marks_local_verdicts_and_plants_no_link(kb_file, tmp_path):
    ingest_jsonl(kb_file, str(_report(tmp_path)), prefer_local=True)
    app = launch.app(kb_file)
    page = _get(app, "/-/op?q=aten::relu").text
    assert "local report planted.jsonl (sha256 " in page and "javascript:" not in page
    table = _get(app, "/kb/support?op=aten::relu&target=neuron").text
    assert "ˡ" in table and "local report planted.jsonl" in table and "javascript:" not in table
    matrix = _get(app, "/kb/coverage").text
    assert "javascript:" not in matrix
