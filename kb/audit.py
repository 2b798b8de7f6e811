"""`kb audit`: find what ties a code base to CUDA before a move to Trainium or TPU.

The migration guides say "grep for .cuda()"; grep also matches comments, strings and
docstrings, misses `import torch as t; t.cuda.synchronize()`, and cannot tell a
`.cuda()` in a model's `forward` (hot path, must change) from one in an export script
(harmless). This module walks a tree, hands each file to the checker for its kind
(`kb.audit_python` for Python and Jupyter notebooks, `kb.audit_deps` for dependency
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

import enum
import fnmatch
import io
import os
import re
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field

from kb.errors import KBError

SEVERITY_RULES = (
    "low: tests, export/conversion/benchmark scripts, dev/test-only dependencies, files that could not be read "
    "or parsed; high: inside a `forward` method or a training step (name contains 'train', ends in '_step', or is "
    "'fit'), Triton/CUDA kernels, CUDA-only compiled dependencies; medium: everything else."
)


class Severity(enum.IntEnum):
    """Ordered so that `finding.severity >= threshold` is the gate test."""

    LOW = 1
    MEDIUM = 2
    HIGH = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, word: str) -> Severity:
        try:
            return cls[word.strip().upper()]
        except KeyError:
            raise KBError(f"unknown severity {word!r} (expected high, medium or low)") from None


class AuditPathError(KBError):
    """The path given to `kb audit` does not exist."""


@dataclass(frozen=True)
class Rule:
    """One kind of finding; `id` is stable (SARIF rule ids, --json consumers)."""

    id: str
    title: str
    description: str
    base: Severity = Severity.MEDIUM  # before context adjusts it
    context_sensitive: bool = True  # False: severity fixed except in low-context paths


RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule("cuda-method-call", "`.cuda()` call",
             "Moves a tensor or module to the CUDA device; fails where no CUDA device exists."),
        Rule("cuda-device-string", "hard-coded CUDA device",
             "A 'cuda' / 'cuda:N' device literal (in .to(), device=, torch.device(), map_location=...)."),
        Rule("cuda-tensor-check", "`.is_cuda` check",
             "Branches on the tensor being on CUDA, so the other branch runs on every other accelerator."),
        Rule("torch-cuda-api", "torch.cuda API",
             "A torch.cuda function or class; most have a device-generic torch.accelerator or torch equivalent."),
        Rule("cuda-amp", "torch.cuda.amp",
             "CUDA-only mixed precision (autocast / GradScaler); the generic torch.amp takes a device type."),
        Rule("cuda-backend-flag", "torch.backends.cuda / cudnn setting",
             "A CUDA or cuDNN tuning flag; harmless elsewhere (ignored) but does nothing for the new target.",
             base=Severity.LOW, context_sensitive=False),
        Rule("nccl-backend", "NCCL process group",
             "The NCCL collective backend needs NVIDIA (or ROCm) GPUs; let PyTorch pick the backend for the device."),
        Rule("triton-import", "Triton import",
             "Triton kernels target GPUs (NVIDIA, AMD): expect to replace them on Trainium/TPU unless the "
             "target's backend documents Triton support."),
        Rule("triton-kernel", "Triton kernel",
             "A @triton.jit / @triton.autotune kernel: needs a rewrite for the target or a PyTorch fallback.",
             base=Severity.HIGH, context_sensitive=False),
        Rule("cuda-kernel-source", "CUDA C++ kernel",
             "A __global__ function in a .cu/.cuh file: a custom CUDA kernel to port or replace.",
             base=Severity.HIGH, context_sensitive=False),
        Rule("cuda-extension-build", "CUDA C++ extension build",
             "torch.utils.cpp_extension.CUDAExtension, or load()/load_inline() with CUDA sources.",
             base=Severity.HIGH, context_sensitive=False),
        Rule("cuda-only-dependency", "CUDA-only compiled dependency",
             "A dependency whose compiled extension or wheels exist only for CUDA.",
             base=Severity.HIGH, context_sensitive=False),
        Rule("cuda-build-pin", "CUDA build of a package",
             "A CUDA-specific build pin (a +cuXXX version, a cuXXX wheel index, a -cuXXX package).",
             base=Severity.HIGH, context_sensitive=False),
        Rule("cuda-base-image", "CUDA container base image",
             "A Dockerfile FROM line with an NVIDIA/CUDA image: the container has no runtime for the target.",
             base=Severity.HIGH, context_sensitive=False),
        Rule("syntax-error", "file could not be parsed",
             "A Python file with a syntax error: it was not audited.", base=Severity.LOW, context_sensitive=False),
        Rule("unreadable-file", "file could not be read",
             "A file that could not be read or decoded: it was not audited.",
             base=Severity.LOW, context_sensitive=False),
    )
}


@dataclass
class Finding:
    """One place in the code base that ties it to CUDA, with a portable alternative."""

    rule: str
    path: str  # relative to the audited root, forward slashes
    line: int  # 1-based; 0 when the finding is about the whole file
    column: int  # 1-based; 0 when unknown
    message: str
    suggestion: str
    severity: Severity = Severity.MEDIUM
    context: str = ""  # e.g. "forward of Net", "training step train_epoch", "test"
    snippet: str = ""
    cell: int | None = None  # notebooks: 1-based index among code cells; `line` is within it

    def as_dict(self) -> dict:
        data = asdict(self)
        data["severity"] = self.severity.label
        return data

    @property
    def location(self) -> str:
        path = self.path if self.cell is None else f"{self.path}[cell {self.cell}]"
        if self.line <= 0:
            return path
        return f"{path}:{self.line}" + (f":{self.column}" if self.column > 0 else "")


@dataclass
class AuditReport:
    root: str  # absolute path that was audited
    findings: list[Finding] = field(default_factory=list)
    files_scanned: int = 0
    skipped_dirs: list[str] = field(default_factory=list)  # relative paths of pruned trees

    def counts(self) -> dict[str, int]:
        counts = {s.label: 0 for s in sorted(Severity, reverse=True)}
        for finding in self.findings:
            counts[finding.severity.label] += 1
        return counts

    def worst(self) -> Severity | None:
        return max((f.severity for f in self.findings), default=None)

    def fails(self, threshold: Severity | None) -> bool:
        """True when a finding at or above `threshold` exists (the `--fail-on` gate)."""
        worst = self.worst()
        return threshold is not None and worst is not None and worst >= threshold

    def by_rule(self) -> dict[str, int]:
        """Findings per rule id, most frequent first."""
        counts: dict[str, int] = {}
        for finding in self.findings:
            counts[finding.rule] = counts.get(finding.rule, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    def as_dict(self) -> dict:
        return {
            "root": self.root,
            "summary": {"files_scanned": self.files_scanned, "findings": len(self.findings), **self.counts()},
            "by_rule": self.by_rule(),
            "skipped_dirs": self.skipped_dirs,
            "findings": [f.as_dict() for f in self.findings],
        }


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
    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
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


# --- context -> severity ------------------------------------------------------------

_LOW_PART = re.compile(r"export|convert|conversion|onnx|bench", re.IGNORECASE)


def path_context(rel_path: str) -> str:
    """'test' or 'export script' when the path says so, else ''."""
    parts = rel_path.split("/")
    name = parts[-1]
    stem = name.rsplit(".", 1)[0]
    if (any(p in ("test", "tests", "testing") for p in parts[:-1])
            or stem.startswith("test_") or stem.endswith("_test") or stem == "conftest"):
        return "test"
    if any(_LOW_PART.search(p) for p in parts):
        return "export/conversion script"
    return ""


def grade(rule_id: str, rel_path: str, code_context: str = "", hot: bool = False) -> tuple[Severity, str]:
    """Severity and a context label for a finding of `rule_id` at `rel_path`.

    `code_context` describes the enclosing code ("forward of Net"); `hot` says it is a
    forward or training step. See the module docstring for the rules.
    """
    rule = RULES[rule_id]
    where = path_context(rel_path)
    if where:
        return Severity.LOW, ", ".join(filter(None, (where, code_context)))
    if not rule.context_sensitive:
        return rule.base, code_context
    if hot:
        return Severity.HIGH, code_context
    return rule.base, code_context


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
        if os.path.getsize(path) > MAX_FILE_BYTES:
            raise _TooLarge
        with open(path, "rb") as handle:
            data = handle.read()
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0] if python else "utf-8-sig"
        return data.decode(encoding), None
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError, _TooLarge) as exc:
        if isinstance(exc, _TooLarge):
            reason = f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB"
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
    from kb import audit_deps, audit_python

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
    return checker(text, rel_path)


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
        findings = audit_file(file_path, rel_path)
        if findings is None:
            continue
        report.files_scanned += 1
        report.findings.extend(findings)
    sort_findings(report.findings)
    return report


def sort_findings(findings: list[Finding]) -> None:
    """Worst first, then by place: the order every format shows."""
    findings.sort(key=lambda f: (-f.severity, f.path, f.cell or 0, f.line, f.column, f.rule))
