"""Jupyter notebooks: code cells audited as one module, findings mapped to their cell."""

from __future__ import annotations

import json

from kb.migrate.audit import audit_path
from kb.migrate.audit_python import audit_notebook_source
from kb.migrate.sarif import to_sarif


def notebook(*cells: tuple[str, str]) -> str:
    return json.dumps({
        "cells": [{"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True)}
                  for kind, source in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    })


NOTEBOOK = notebook(
    ("markdown", "Call `model.cuda()` first."),
    ("code", "import torch\n%matplotlib inline"),
    ("code", "!pip install flash-attn numpy\nmodel = torch.nn.Linear(2, 2).cuda()"),
    ("code", "%%bash\necho 'x.cuda()'"),
    ("code", "for step in range(3):\n    torch.cuda.synchronize()"),
)


def test_findings_are_mapped_to_code_cells():
    found = [(f.cell, f.line, f.rule) for f in audit_notebook_source(NOTEBOOK, "nb.ipynb")]
    assert sorted(found) == [(2, 1, "cuda-only-dependency"), (2, 2, "cuda-method-call"), (4, 2, "torch-cuda-api")]


def test_location_and_sarif_name_the_cell(tmp_path):
    (tmp_path / "nb.ipynb").write_text(NOTEBOOK)
    report = audit_path(str(tmp_path))
    assert "nb.ipynb[cell 2]:2:9" in [f.location for f in report.findings]
    results = to_sarif(report, "0")["runs"][0]["results"]
    assert all("region" not in r["locations"][0]["physicalLocation"] for r in results)
    assert any("(code cell 4, line 2)" in r["message"]["text"] for r in results)


def test_broken_notebook_is_a_finding():
    (finding,) = audit_notebook_source("{not json", "nb.ipynb")
    assert finding.rule == "syntax-error" and "notebook" in finding.message
    (finding,) = audit_notebook_source(notebook(("code", "def f(:\n    x.cuda()")), "nb.ipynb")
    assert finding.rule == "syntax-error" and finding.cell == 1
