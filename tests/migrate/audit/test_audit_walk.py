"""kb.migrate.audit on a whole tree: every pattern found once, nothing in skipped trees, bad files
reported as findings of their own kind, severity by context."""

from __future__ import annotations

import os

import pytest

from kb.migrate.audit import AuditPathError, audit_path, is_skipped_dir
from kb.migrate.audit_findings import Severity, path_context

EXPECTED = {
    # (path, line, rule): severity
    ("model/net.py", 10, "cuda-device-string"): "medium",
    ("model/net.py", 10, "torch-cuda-api"): "medium",
    ("model/net.py", 19, "cuda-method-call"): "high",
    ("model/net.py", 21, "torch-cuda-api"): "high",
    ("model/net.py", 22, "cuda-amp"): "high",
    ("model/net.py", 23, "cuda-device-string"): "high",
    ("model/net.py", 26, "cuda-device-string"): "medium",
    ("model/net.py", 27, "cuda-device-string"): "medium",
    ("model/net.py", 33, "torch-cuda-api"): "medium",
    ("model/net.py", 37, "cuda-device-string"): "medium",
    ("model/train.py", 6, "cuda-amp"): "high",
    ("model/train.py", 8, "cuda-device-string"): "high",
    ("model/train.py", 9, "torch-cuda-api"): "high",
    ("model/train.py", 14, "nccl-backend"): "medium",
    ("model/kernels.py", 1, "triton-import"): "medium",
    ("model/kernels.py", 7, "triton-kernel"): "high",
    ("model/kernels.py", 13, "triton-kernel"): "high",
    ("model/ops.cu", 5, "cuda-kernel-source"): "high",
    ("model/ops.cuh", 2, "cuda-kernel-source"): "high",
    ("model/broken.py", 1, "syntax-error"): "low",
    ("model/latin1.py", 0, "unreadable-file"): "low",
    ("model/dangling.py", 0, "unreadable-file"): "low",
    ("tests/test_net.py", 5, "cuda-method-call"): "low",
    ("scripts/export_onnx.py", 3, "cuda-device-string"): "low",
    ("requirements.txt", 2, "cuda-only-dependency"): "high",
    ("requirements.txt", 3, "cuda-build-pin"): "high",
    ("requirements.txt", 4, "cuda-build-pin"): "high",
    ("requirements-dev.txt", 2, "cuda-only-dependency"): "low",
    ("pyproject.toml", 3, "cuda-only-dependency"): "high",
    ("pyproject.toml", 3, "cuda-build-pin"): "high",
    ("pyproject.toml", 6, "cuda-only-dependency"): "low",
    ("setup.cfg", 3, "cuda-only-dependency"): "high",
}


def test_fixture_repo_finds_exactly_the_expected_findings(fixture_repo):
    report = audit_path(str(fixture_repo))
    found = {(f.path, f.line, f.rule): f.severity.label for f in report.findings}
    assert found == EXPECTED  # every true positive, no extra (comments, strings, docstrings, skipped trees)
    assert len(report.findings) == len(EXPECTED)  # nothing reported twice


def test_skipped_trees_are_listed_and_not_entered(fixture_repo):
    report = audit_path(str(fixture_repo))
    assert report.skipped_dirs == [".git", "myenv", "node_modules", "third_party"]
    assert not any(f.path.startswith(("myenv/", "node_modules/", "third_party/", ".git/")) for f in report.findings)


def test_files_scanned_counts_only_audited_kinds(fixture_repo):
    report = audit_path(str(fixture_repo))
    # 8 .py (incl. broken, latin1, dangling), ops.cu, ops.cuh, 2 requirements, pyproject, setup.cfg; not the .md
    assert report.files_scanned == 14


def test_findings_sorted_worst_first(fixture_repo):
    severities = [f.severity for f in audit_path(str(fixture_repo)).findings]
    assert severities == sorted(severities, reverse=True)


def test_virtualenv_detected_by_pyvenv_cfg_or_conda_meta_whatever_its_name(tmp_path):
    (tmp_path / "anything").mkdir()
    (tmp_path / "anything" / "pyvenv.cfg").write_text("home = /usr\n")
    (tmp_path / "condaenv" / "conda-meta").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    assert is_skipped_dir(str(tmp_path / "anything"), "anything")
    assert is_skipped_dir(str(tmp_path / "condaenv"), "condaenv")
    assert is_skipped_dir(str(tmp_path / ".venv"), ".venv")
    assert not is_skipped_dir(str(tmp_path / "src"), "src")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_file_without_read_permission_is_a_finding(tmp_path):
    path = tmp_path / "secret.py"
    path.write_text("x.cuda()\n")
    path.chmod(0)
    try:
        report = audit_path(str(tmp_path))
    finally:
        path.chmod(0o600)
    assert [(f.rule, f.path) for f in report.findings] == [("unreadable-file", "secret.py")]


def test_single_file_audit_uses_its_name_as_path(fixture_repo):
    report = audit_path(str(fixture_repo / "model" / "train.py"))
    assert {f.path for f in report.findings} == {"train.py"}
    assert report.files_scanned == 1


def test_missing_path_raises_a_kb_error(tmp_path):
    with pytest.raises(AuditPathError, match="no such file or directory"):
        audit_path(str(tmp_path / "nope"))


def test_empty_tree_has_no_findings(tmp_path):
    report = audit_path(str(tmp_path))
    assert report.findings == [] and report.files_scanned == 0
    assert report.worst() is None and not report.fails(Severity.LOW)


@pytest.mark.parametrize("rel_path, expected", [
    ("tests/test_model.py", "test"),
    ("pkg/test_model.py", "test"),
    ("pkg/model_test.py", "test"),
    ("conftest.py", "test"),
    ("scripts/export_onnx.py", "export/conversion script"),
    ("tools/convert_checkpoint.py", "export/conversion script"),
    ("bench/speed.py", "export/conversion script"),
    ("model/net.py", ""),
    ("latest.py", ""),  # 'test' inside a word is not a test
])
def test_path_context(rel_path, expected):
    assert path_context(rel_path) == expected


def test_fail_gate_thresholds(fixture_repo):
    report = audit_path(str(fixture_repo / "tests"))
    assert report.worst() is Severity.LOW
    assert report.fails(Severity.LOW)
    assert not report.fails(Severity.MEDIUM)
    assert not report.fails(None)


def test_python_coding_line_is_honoured_and_bom_dropped(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\nx = y.cuda()\n")
    (tmp_path / "bogus.py").write_bytes(b"# -*- coding: no-such-codec -*-\nx = y.cuda()\n")
    (tmp_path / "requirements.txt").write_bytes(b"\xef\xbb\xbfflash-attn\n")
    found = {(f.path, f.rule) for f in audit_path(str(tmp_path)).findings}
    assert found == {("latin.py", "cuda-method-call"), ("bogus.py", "unreadable-file"),
                     ("requirements.txt", "cuda-only-dependency")}


def test_huge_files_are_reported_not_read(tmp_path, monkeypatch):
    from kb.migrate import audit

    monkeypatch.setattr(audit, "MAX_FILE_BYTES", 10)
    (tmp_path / "big.py").write_text("x = y.cuda()\n")
    (finding,) = audit_path(str(tmp_path)).findings
    assert finding.rule == "unreadable-file" and "larger than" in finding.message


def test_deeply_nested_code_does_not_crash():
    import sys

    from kb.migrate.audit_python import audit_python_source

    terms = 2 * sys.getrecursionlimit()  # deeper than the visitor may recurse, whatever the limit
    source = "import torch\nx = " + "+".join(["torch.cuda.a"] * terms) + "\n"
    findings = audit_python_source(source, "gen.py")
    assert findings[-1].rule == "syntax-error"


@pytest.mark.parametrize("patterns, gone", [
    (["model"], {"model/"}),
    (["model/"], {"model/"}),
    (["model/*.cu*"], {"model/ops.cu", "model/ops.cuh"}),
    (["*.toml", "setup.cfg"], {"pyproject.toml", "setup.cfg"}),
    (["tests/*"], {"tests/"}),
])
def test_exclude_patterns(fixture_repo, patterns, gone):
    everything = {f.path for f in audit_path(str(fixture_repo)).findings}
    kept = {f.path for f in audit_path(str(fixture_repo), excludes=patterns).findings}
    removed = everything - kept
    assert removed and all(any(p == g or (g.endswith("/") and p.startswith(g)) for g in gone) for p in removed)
    assert all(not (p == g or (g.endswith("/") and p.startswith(g))) for p in kept for g in gone)


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists folders whatever their mode")
def test_folder_without_permission_is_a_finding(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "a.py").write_text("x.cuda()\n")
    locked.chmod(0)
    try:
        report = audit_path(str(tmp_path))
    finally:
        locked.chmod(0o700)
    assert [(f.rule, f.path) for f in report.findings] == [("unreadable-file", "locked")]


def test_folder_listing_errors_become_findings(tmp_path, monkeypatch):
    """The same path as above, driven through a listing that fails (runs as root too)."""
    (tmp_path / "locked").mkdir()
    real_scandir = os.scandir

    def scandir_with_error(path):
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir_with_error)
    (finding,) = audit_path(str(tmp_path)).findings
    assert (finding.rule, finding.path) == ("unreadable-file", "locked")
    assert "Permission denied" in finding.message
