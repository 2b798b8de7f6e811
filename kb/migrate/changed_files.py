"""`kb audit` of a list of files (what a pre-commit hook is handed), as one report.

pre-commit passes the changed files, relative to the repository root, possibly split over
several calls. Auditing them one by one as trees would grade each against its own
basename; here each file keeps its path relative to the root (so `tests/...` is still
graded as a test), the project's `exclude` globs apply as they do to a tree, and every
finding lands in one AuditReport that the usual renderers and gate take.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from kb.migrate.audit import add_file, is_excluded, sort_findings
from kb.migrate.audit_findings import AuditReport

MAX_FILES = 100_000  # one commit's changed files; far above a real one


def audit_files(paths: Sequence[str], root: str | None = None, excludes: Sequence[str] = ()) -> AuditReport:
    """Findings for each of `paths` (files; a folder given here is skipped), graded by its
    path relative to `root` (default: the working directory). Files matching `excludes` are
    left out. A missing file is an input error, as `kb ci check` has it: pre-commit hands a
    hook only files that exist, so a missing one is a typo that would pass the gate unseen."""
    from kb.errors import KBError

    if len(paths) > MAX_FILES:
        raise KBError(f"{len(paths):,} files to audit (bound: {MAX_FILES:,})")
    base = os.path.abspath(root or os.getcwd())
    report = AuditReport(root=base)
    for path in dict.fromkeys(paths):
        absolute = os.path.abspath(path)
        rel_path = os.path.relpath(absolute, base).replace(os.sep, "/")
        if rel_path.startswith("../"):
            rel_path = absolute.replace(os.sep, "/")
        if not os.path.lexists(absolute):
            from kb import neutral

            raise KBError(f"{neutral.clean(path)[:200]}: no such file")
        if not os.path.isfile(absolute) or is_excluded(rel_path, excludes):
            continue
        add_file(report, absolute, rel_path)
    sort_findings(report.findings)
    return report
