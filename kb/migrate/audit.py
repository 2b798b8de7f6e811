"""`kb audit`: find what ties a code base to CUDA before a move to Trainium or TPU.

The migration guides say "grep for .cuda()"; grep also matches comments, strings and
docstrings, misses `import torch as t; t.cuda.synchronize()`, and cannot tell a
`.cuda()` in a model's `forward` (hot path, must change) from one in an export script
(harmless). This module walks a tree, hands each file to the checker for its kind
(`kb.migrate.audit_python` for Python and Jupyter notebooks, `kb.migrate.audit_deps` for dependency
lists, a small scanner here for CUDA C sources) and grades every finding by where it sits.

Severity rules (documented in `SEVERITY_RULES`, shown by `kb audit --help`):

* **low** — anything in a test (`tests/`, `test_*.py`, `*_test.py`, `conftest.py`) or in
  an export / conversion / benchmark script (a path part containing `export`, `convert`,
  `conversion`, `onnx` or `bench`), and files that could not be audited (unreadable, not
  UTF-8, syntax errors): they hide nothing CUDA-specific from us but we could not look.
  A dependency listed only for tests, docs or development is low too.
* **high** — code inside a method named `forward` or inside a training step (a function
  whose name contains `train`, ends in `_step`, or is `fit`), kernels written for NVIDIA
  GPUs (`@triton.jit`, CUDA `__global__` functions) and compiled dependencies that only
  ship CUDA builds: these break the migration rather than slow it.
* **medium** — everything else (module level, helpers, data loading, evaluation).

A low-context path wins over a high context: a `forward` inside a test stays low.
"""

from __future__ import annotations

import fnmatch
import io
import os
import re
import tokenize
from collections.abc import Callable, Iterator, Sequence

from kb import userfiles
from kb.errors import KBError
from kb.migrate import audit_deps, audit_python
from kb.migrate.audit_findings import AuditReport, Finding, grade


class AuditPathError(KBError):
    """The path given to `kb audit` does not exist."""


# --- walking ------------------------------------------------------------------------

SKIP_DIR_NAMES = frozenset({
    ".git", ".hg", ".svn", "node_modules", "site-packages", "dist-packages", "__pycache__",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs", ".ipynb_checkpoints",
    ".venv", "venv", ".virtualenv", "virtualenv",
    "third_party", "third-party", "thirdparty", "3rdparty", "vendor", "vendored", "_vendor",
})
PYTHON_SUFFIXES = (".py", ".pyw")
NOTEBOOK_SUFFIXES = (".ipynb",)
CUDA_SUFFIXES = (".cu", ".cuh")


def is_skipped_dir(path: str, name: str) -> bool:
    """Virtualenvs (any name: they carry pyvenv.cfg; conda envs carry conda-meta), VCS
    folders, caches and vendored trees hold other people's code: not ours to migrate."""
    if name in SKIP_DIR_NAMES or name.endswith(".egg-info"):
        return True
    return os.path.isfile(os.path.join(path, "pyvenv.cfg")) or os.path.isdir(os.path.join(path, "conda-meta"))


def iter_files(root: str, skipped: list[str], excludes: Sequence[str] = (),
               on_error: Callable[[OSError], None] | None = None) -> Iterator[tuple[str, str]]:
    """(path, path relative to the root) of the files under `root`, in a stable order,
    pruning skipped and excluded trees (recorded in `skipped`). Symlinked folders are not
    followed (no loops, no escaping the tree). A folder that cannot be listed goes to
    `on_error`."""
    if os.path.isfile(root):
        yield root, os.path.basename(root)
        return
    def skipped_folder(folder: str, reason: str) -> None:  # too deep, or not listable
        if on_error is not None:
            on_error(OSError(0, reason, folder))

    for dirpath, dirnames, filenames in userfiles.walk(root, on_skip=skipped_folder):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        prefix = "" if rel_dir == "." else rel_dir + "/"
        kept = []
        for name in sorted(dirnames):
            if is_skipped_dir(os.path.join(dirpath, name), name) or is_excluded(prefix + name, excludes):
                skipped.append(prefix + name)
            else:
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not is_excluded(prefix + name, excludes):
                yield os.path.join(dirpath, name), prefix + name


def is_excluded(rel_path: str, excludes: Sequence[str]) -> bool:
    """`--exclude` patterns: a glob on the relative path (`docs/*`, `*/examples/*`), on the
    name alone (`*_pb2.py`), or a folder prefix (`examples`, `examples/`)."""
    name = rel_path.rsplit("/", 1)[-1]
    for pattern in excludes:
        pattern = pattern.strip()
        folder = pattern.rstrip("/")
        if (fnmatch.fnmatchcase(rel_path, pattern) or fnmatch.fnmatchcase(name, pattern)
                or (folder and (rel_path == folder or rel_path.startswith(folder + "/")))):
            return True
    return False


# --- CUDA C sources -------------------------------------------------------------------

# Comments and string/char literals, removed (keeping newlines) before looking for __global__.
_C_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)
_GLOBAL_FN = re.compile(r"\b__global__\b[^;{(]*?\b([A-Za-z_]\w*)\s*\(")


def _blank(match: re.Match) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def audit_cuda_source(text: str, rel_path: str) -> list[Finding]:
    """One finding per `__global__` kernel (not in comments or strings)."""
    code = _C_NOISE.sub(_blank, text)
    lines = text.splitlines()
    findings = []
    for match in _GLOBAL_FN.finditer(code):
        line = code.count("\n", 0, match.start()) + 1
        column = match.start() - (code.rfind("\n", 0, match.start()) + 1) + 1
        severity, context = grade("cuda-kernel-source", rel_path)
        findings.append(Finding(
            rule="cuda-kernel-source", path=rel_path, line=line, column=column,
            message=f"CUDA kernel `{match.group(1)}` (__global__)",
            suggestion="Port the kernel to the target's kernel language, or keep a pure-PyTorch reference path "
                       "and dispatch on device.type.",
            severity=severity, context=context, snippet=lines[line - 1].strip() if line <= len(lines) else "",
        ))
    return findings


# --- the audit --------------------------------------------------------------------------


MAX_FILE_BYTES = 20 * 1024 * 1024  # larger files are generated or data: reported, not read


def read_text(path: str, rel_path: str, python: bool = False) -> tuple[str | None, Finding | None]:
    """The file's text, or a finding saying why it could not be read (never an exception).
    Python sources honour their PEP 263 coding line; everything else is UTF-8 (a BOM is
    dropped)."""
    try:
        if userfiles.is_regular(path) and os.path.getsize(path) > MAX_FILE_BYTES:
            raise _TooLarge
        # a regular file only: x.py -> /dev/zero or a FIFO is reported, never read (or waited on)
        data = userfiles.read_bytes(path, MAX_FILE_BYTES, rel_path)
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0] if python else "utf-8-sig"
        return data.decode(encoding), None
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError, _TooLarge, userfiles.FileRefused) as exc:
        if isinstance(exc, _TooLarge):
            reason = f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB"
        elif isinstance(exc, userfiles.FileRefused):
            reason = str(exc).removeprefix(f"{rel_path}: ")
        elif isinstance(exc, OSError) and exc.strerror:
            reason = exc.strerror
        elif isinstance(exc, SyntaxError):  # detect_encoding: an unknown or contradictory coding line
            reason = exc.msg
        else:
            reason = type(exc).__name__
        severity, context = grade("unreadable-file", rel_path)
        return None, Finding(
            rule="unreadable-file", path=rel_path, line=0, column=0,
            message=f"could not read the file ({reason}); it was not audited",
            suggestion="Check the file's permissions and encoding (UTF-8 expected), then audit again.",
            severity=severity, context=context,
        )


class _TooLarge(Exception):
    pass


def audit_file(path: str, rel_path: str) -> list[Finding] | None:
    """Findings for one file, or None when kb audit does not look at this kind of file."""
    name = os.path.basename(path)
    python = name.endswith(PYTHON_SUFFIXES)
    if python:
        checker: Callable[[str, str], list[Finding]] = audit_python.audit_python_source
    elif name.endswith(NOTEBOOK_SUFFIXES):
        checker = audit_python.audit_notebook_source
    elif name.endswith(CUDA_SUFFIXES):
        checker = audit_cuda_source
    elif audit_deps.is_dependency_file(rel_path):
        checker = audit_deps.audit_dependency_file
    else:
        return None
    text, problem = read_text(path, rel_path, python=python)
    if problem is not None:
        return [problem]
    try:
        return checker(text, rel_path)
    except (RecursionError, MemoryError):  # a parser that recurses per nesting level
        severity, context = grade("unreadable-file", rel_path)
        return [Finding(rule="unreadable-file", path=rel_path, line=0, column=0,
                        message="nested too deep to parse (bound); it was not audited",
                        suggestion="Check the file (generated code?), then audit again.",
                        severity=severity, context=context)]


def audit_path(path: str, on_file: Callable[[str], None] | None = None,
               excludes: Sequence[str] = ()) -> AuditReport:
    """Audit a file or a tree. Raises AuditPathError when `path` does not exist."""
    if not os.path.exists(path):
        raise AuditPathError(f"no such file or directory: {path}")
    root = os.path.abspath(path)
    report = AuditReport(root=root)

    def unlistable(exc: OSError) -> None:
        rel_path = os.path.relpath(exc.filename or root, root).replace(os.sep, "/")
        severity, context = grade("unreadable-file", rel_path)
        report.findings.append(Finding(
            rule="unreadable-file", path=rel_path, line=0, column=0,
            message=f"could not list the folder ({exc.strerror or type(exc).__name__}); it was not audited",
            suggestion="Check the folder's permissions, then audit again.", severity=severity, context=context))

    for file_path, rel_path in iter_files(root, report.skipped_dirs, excludes, unlistable):
        if on_file is not None:
            on_file(rel_path)
        add_file(report, file_path, rel_path)
    sort_findings(report.findings)
    return report


def sort_findings(findings: list[Finding]) -> None:
    """Worst first, then by place: the order every format shows."""
    findings.sort(key=lambda f: (-f.severity, f.path, f.cell or 0, f.line, f.column, f.rule))


def add_file(report: AuditReport, file_path: str, rel_path: str) -> None:
    """Audit one file into `report` (a file audit_file skips, e.g. not Python, is not counted);
    the one step of a folder walk and of a list of changed files (kb.migrate.changed_files)."""
    findings = audit_file(file_path, rel_path)
    if findings is None:
        return
    report.files_scanned += 1
    report.findings.extend(findings)
