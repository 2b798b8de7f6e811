"""What `kb audit` finds: the rules, their severities, one finding, the report, and how
a finding's place in the code base grades it.

Shared by the walker (`audit`) and the file readers (`audit_python`, `audit_deps`) and
by the SARIF writer, which is why it sits below all of them. The severity rules are
explained in `kb.migrate.audit`'s docstring.
"""

from __future__ import annotations

import enum
import re
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
        Rule("cuda-only-import", "import of a CUDA-only package",
             "Code imports a package whose compiled kernels exist only for CUDA (apex, flash_attn, xformers...).",
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
    forward or training step. See kb.migrate.audit's docstring for the rules.
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
