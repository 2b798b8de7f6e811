"""`kb audit` on a hostile tree (issue 24): `x.py` a link to /dev/zero, a FIFO named like
a source file, a notebook and a pyproject.toml nested 100,000 deep, 1,100 nested folders.
Each becomes a skipped file with a one-line finding; the audit ends, stays small, and the
rest of the tree is audited."""

from __future__ import annotations

import json
import os

import pytest

from tests import hostile_cases as hc


def _tree(root) -> str:
    os.makedirs(root)
    hc.link_to(root, "/dev/zero", "x.py")
    hc.fifo(root, "pipe.py")
    hc.deep_notebook(root)
    hc.deep_pyproject(root)
    with open(os.path.join(root, "train.py"), "w", encoding="utf-8") as fh:
        fh.write("import torch\nmodel = torch.nn.Linear(2, 2).cuda()\n")
    hc.nested_folders(os.path.join(root, "deep"), 1_100)
    return str(root)


@pytest.mark.heavy  # seconds each on 2 cores: behind `heavy` for the default suite's time (#26)
def test_hostile_tree_is_audited_with_one_finding_per_bad_file(tmp_path):
    root = _tree(str(tmp_path / "repo"))
    fifo_before = os.stat(os.path.join(root, "pipe.py"))
    try:
        result = hc.run_kb("audit", root, "--json", timeout=60)
    finally:
        hc.remove_tree(os.path.join(root, "deep"))  # pytest's clean-up recurses once per level
    assert result["code"] in (0, 1), result["err"]
    assert result["err"].strip() == "" or "Traceback" not in result["err"]
    assert result["rss_mib"] < 250, result  # /dev/zero grew until MemoryError before
    findings = {f["path"]: f["message"] for f in json.loads(result["out"])["findings"]}
    assert "not a regular file" in findings["x.py"] and "a character device" in findings["x.py"]
    assert "a FIFO" in findings["pipe.py"]
    assert "nested deeper than 200 levels" in findings["deep.ipynb"]
    assert "nested deeper than 200 levels" in findings["pyproject.toml"]
    assert any("nested deeper than 256 folders" in message for path, message in findings.items()
               if path.startswith("deep/"))
    assert "train.py" in findings  # the rest of the tree was audited
    for message in findings.values():
        assert "\n" not in message
    after = os.stat(os.path.join(root, "pipe.py"))
    assert after.st_mtime_ns == fifo_before.st_mtime_ns
