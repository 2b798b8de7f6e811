"""`kb report` and `kb audit` read one set of findings (report t26b items 5 and 6): a tree
kb audit flags high is never a pass in the report, `from torch.cuda.amp import autocast`
is flagged as the call form is, and the device item counts lines as lines."""

from __future__ import annotations

import pytest

from kb.migrate.audit import audit_path
from kb.migrate.audit_findings import RULES, Severity
from kb.migrate.audit_python import audit_python_source
from kb.migrate.report import DEPENDENCY_RULES, DEVICE_RULES, KERNEL_RULES, dependencies_item, device_item


def _tree(tmp_path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return audit_path(str(tmp_path))


def test_an_apex_import_fails_the_dependencies_item(tmp_path):
    audit = _tree(tmp_path, {"train.py": "import torch\nimport apex\n"})
    assert any(f.rule == "cuda-only-import" and f.severity >= Severity.HIGH for f in audit.findings)
    item = dependencies_item(audit)
    assert item["state"] == "fail"
    assert any("train.py:2" in d and "apex" in d for d in item["details"])


def test_every_high_rule_of_kb_audit_has_a_checklist_item():
    """A rule kb audit grades high by default must land in some report item, or the report
    could pass what the audit flags."""
    checked = set(DEVICE_RULES) | set(KERNEL_RULES) | set(DEPENDENCY_RULES)
    high = {rule.id for rule in RULES.values() if rule.base >= Severity.HIGH}
    assert high <= checked, high - checked


@pytest.mark.parametrize("source", ["from torch.cuda.amp import autocast\n",
                                    "from torch.cuda.amp import GradScaler as S\n",
                                    "import torch.cuda.amp\n",
                                    "from torch.cuda import amp\n"])
def test_the_import_form_of_cuda_amp_is_flagged(source):
    findings = audit_python_source("import torch\n" + source, "train.py")
    assert [(f.rule, f.line) for f in findings if f.rule == "cuda-amp"][:1] == [("cuda-amp", 2)]


def test_the_amp_import_is_flagged_once_per_file():
    source = "from torch.cuda.amp import autocast\nfrom torch.cuda.amp import GradScaler\n"
    assert [f.line for f in audit_python_source(source, "t.py") if f.rule == "cuda-amp"] == [1]


def test_a_used_amp_import_is_flagged_at_its_uses_only():
    source = "from torch.cuda.amp import autocast\nwith autocast():\n    pass\n"
    assert [f.line for f in audit_python_source(source, "t.py") if f.rule == "cuda-amp"] == [2]


def test_the_generic_amp_import_is_not_flagged():
    assert not [f for f in audit_python_source("from torch.amp import autocast\n", "t.py") if f.rule == "cuda-amp"]


def test_device_item_counts_lines_as_lines(tmp_path):
    source = ("import torch\n"
              "a = torch.zeros(1).cuda(); b = torch.ones(1).cuda()\n"
              "c = torch.zeros(1, device='cuda')\n")
    item = device_item(_tree(tmp_path, {"m.py": source}))
    assert item["summary"].startswith("3 CUDA-specific device finding(s) on 2 line(s), all in m.py"), item["summary"]
    assert len(item["details"]) == 3
    one_each = device_item(_tree(tmp_path, {"m.py": "import torch\nx = torch.zeros(1).cuda()\n"}))
    assert one_each["summary"].startswith("1 CUDA-specific device finding(s), all in m.py"), one_each["summary"]
