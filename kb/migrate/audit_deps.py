"""The dependency half of `kb audit`: packages that only exist, or only do their job, on
NVIDIA GPUs — in requirements files, pyproject.toml, setup.cfg, Pipfile, conda
environment files, Dockerfiles (base images and `pip install` lines), `setup()` calls,
or the installed environment.

Three kinds of finding:

* `cuda-only-dependency`: a package from `CUDA_ONLY_PACKAGES` (compiled CUDA extensions
  such as flash-attn, xformers, apex; CUDA libraries such as cupy or the nvidia-* wheels);
* `cuda-build-pin`: a CUDA build chosen explicitly — a `+cu121` local version, a
  `-cu12` / `-cuda12x` package name, a `cuda` extra (`jax[cuda12]`), a wheel index such as
  `.../whl/cu121`;
* both graded low when the dependency is only for tests, docs or development (a
  requirements file or an extra/group whose name says test, dev, doc or lint).

Requirement strings are read with a small PEP 508 name pattern, not a resolver: kb
needs the name, the extras and the version text, nothing more.
"""

from __future__ import annotations

import configparser
import fnmatch
import re
from dataclasses import dataclass

from kb import userfiles
from kb.migrate.audit_findings import Finding, Severity, grade


@dataclass(frozen=True)
class CudaPackage:
    why: str
    instead: str
    severity: Severity = Severity.HIGH


SDPA = "torch.nn.functional.scaled_dot_product_attention (each backend picks its own kernel)"
CUDA_ONLY_PACKAGES: dict[str, CudaPackage] = {
    "flash-attn": CudaPackage("FlashAttention: CUDA kernels compiled at install", SDPA),
    "flashinfer-python": CudaPackage("FlashInfer: CUDA attention kernels", SDPA),
    "flashinfer": CudaPackage("FlashInfer: CUDA attention kernels", SDPA),
    "xformers": CudaPackage("xFormers: memory-efficient attention built as CUDA kernels", SDPA),
    "apex": CudaPackage("NVIDIA Apex: fused CUDA optimizers, norms and amp",
                        "torch.optim (foreach), torch.nn.LayerNorm/RMSNorm, torch.amp"),
    "bitsandbytes": CudaPackage("bitsandbytes: quantization and 8-bit optimizer kernels written for CUDA",
                                "its multi-backend build if the installed version has one for the target; otherwise "
                                "the target's own quantization path or plain torch.optim"),
    "cupy": CudaPackage("CuPy: NumPy on CUDA", "torch tensor operations on `device`, or NumPy on the host"),
    "pycuda": CudaPackage("PyCUDA: the CUDA driver API from Python", "torch tensor operations on `device`"),
    "triton": CudaPackage("Triton: a GPU kernel compiler (NVIDIA/AMD)",
                          "a pure-PyTorch reference path, or the target's kernel language"),
    "liger-kernel": CudaPackage("Liger Kernel: Triton kernels for LLM training", "the plain PyTorch modules"),
    "mamba-ssm": CudaPackage("mamba-ssm: selective-scan CUDA kernels", "a pure-PyTorch selective scan"),
    "causal-conv1d": CudaPackage("causal-conv1d: CUDA kernels", "torch.nn.functional.conv1d with left padding"),
    "transformer-engine": CudaPackage("NVIDIA Transformer Engine: FP8 kernels for NVIDIA GPUs",
                                      "torch.nn layers with torch.autocast"),
    "tensorrt": CudaPackage("NVIDIA TensorRT: inference engine for NVIDIA GPUs", "the target's compiler"),
    "torch-tensorrt": CudaPackage("Torch-TensorRT: TensorRT compilation", "torch.compile for the target"),
    "auto-gptq": CudaPackage("AutoGPTQ: CUDA quantized matmul kernels", "the target's quantization support"),
    "autoawq": CudaPackage("AutoAWQ: CUDA quantized matmul kernels", "the target's quantization support"),
    "exllamav2": CudaPackage("ExLlamaV2: CUDA inference kernels", "the target's inference stack"),
    "nvidia-dali": CudaPackage("NVIDIA DALI: GPU data loading", "torch.utils.data with CPU workers"),
    "onnxruntime-gpu": CudaPackage("onnxruntime-gpu: the CUDA build of ONNX Runtime", "onnxruntime",
                                   Severity.MEDIUM),
    "pynvml": CudaPackage("pynvml: NVIDIA management library bindings",
                          "torch.accelerator memory statistics", Severity.MEDIUM),
    "nvidia-ml-py": CudaPackage("nvidia-ml-py: NVIDIA management library bindings",
                                "torch.accelerator memory statistics", Severity.MEDIUM),
    "gpustat": CudaPackage("gpustat: NVIDIA GPU monitoring", "the target's monitoring tool", Severity.MEDIUM),
}

# The top-level module each CUDA-only package is imported as (`import apex`), for the code
# half of the audit. Triton has rules of its own; onnxruntime-gpu imports as onnxruntime,
# which is not CUDA-only, so it is found only in the dependency lists.
CUDA_ONLY_MODULES: dict[str, str] = {
    "flash_attn": "flash-attn", "flashinfer": "flashinfer", "xformers": "xformers", "apex": "apex",
    "bitsandbytes": "bitsandbytes", "cupy": "cupy", "pycuda": "pycuda", "liger_kernel": "liger-kernel",
    "mamba_ssm": "mamba-ssm", "causal_conv1d": "causal-conv1d", "transformer_engine": "transformer-engine",
    "tensorrt": "tensorrt", "torch_tensorrt": "torch-tensorrt", "auto_gptq": "auto-gptq", "awq": "autoawq",
    "exllamav2": "exllamav2", "pynvml": "pynvml", "gpustat": "gpustat",
}
# Name patterns: NVIDIA's CUDA library wheels and RAPIDS-style per-CUDA-version builds.
CUDA_NAME_PATTERNS = (
    ("nvidia-*", "an NVIDIA CUDA library wheel"),
    ("*-cu[0-9][0-9]", "a build for one CUDA version"),
    ("*-cu[0-9][0-9][0-9]", "a build for one CUDA version"),
    ("*-cuda[0-9]*", "a build for one CUDA version"),
)
NOT_CUDA = frozenset({"nvidia-ml-py", "nvidia-ml-py3"})  # listed above with their own advice

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")
_CUDA_LOCAL_VERSION = re.compile(r"\+cu\d+", re.IGNORECASE)
_CUDA_INDEX = re.compile(r"https?://\S*/(cu\d{2,3}|cuda\d*)(/|\b)", re.IGNORECASE)
_DEV_WORDS = re.compile(
    r"(^|[^a-z])(tests?|testing|dev|develop|development|docs?|lint|linting|typing|types|bench|benchmarks?|ci)([^a-z]|$)",
    re.IGNORECASE,
)
_URL_EGG = re.compile(r"#egg=([A-Za-z0-9._-]+)")


def normalize(name: str) -> str:
    """PEP 503 normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def is_dependency_file(rel_path: str) -> bool:
    """pyproject.toml, setup.cfg, Pipfile, `*requirements*.txt`, `*constraints*.txt`, any
    .txt under a `requirements/` folder, conda `environment*.yml`, and Dockerfiles."""
    parts = rel_path.lower().split("/")
    name = parts[-1]
    return (name in ("pyproject.toml", "setup.cfg", "pipfile")
            or (name.endswith(".txt") and ("requirements" in name or "constraints" in name
                                           or "requirements" in parts[:-1]))
            or is_conda_file(name) or is_dockerfile(name))


def is_conda_file(name: str) -> bool:
    return name.startswith("environment") and name.endswith((".yml", ".yaml"))


def is_dockerfile(name: str) -> bool:
    if name.endswith((".md", ".rst", ".txt", ".adoc", ".html")):  # docs about Dockerfiles
        return False
    return name in ("dockerfile", "containerfile") or name.startswith("dockerfile.") or name.endswith(".dockerfile")


def _name_from_url(url: str) -> str | None:
    """`flash_attn-2.5.8+cu122torch2.3-cp311-...whl` or `...#egg=name` -> the project name."""
    egg = _URL_EGG.search(url)
    if egg:
        return egg.group(1)
    filename = url.split("#", 1)[0].split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    if filename.endswith((".whl", ".tar.gz", ".zip")):
        return filename.split("-", 1)[0]
    return None


def _finding(rule: str, rel_path: str, line: int, message: str, suggestion: str, severity: Severity,
             dev: bool, snippet: str) -> Finding:
    base, context = grade(rule, rel_path)
    if dev or base == Severity.LOW:
        severity, context = Severity.LOW, context or "dev/test dependency"
    return Finding(rule=rule, path=rel_path, line=line, column=1 if line else 0, message=message,
                   suggestion=suggestion, severity=severity, context=context, snippet=snippet.strip())


def check_requirement(text: str, rel_path: str, line: int = 0, dev: bool = False) -> list[Finding]:
    """Findings for one requirement string such as `flash-attn>=2.5` or `torch==2.3+cu121`."""
    text = text.split(" #", 1)[0].strip()
    url = _CUDA_INDEX.search(text)
    if url:
        return [_finding("cuda-build-pin", rel_path, line, f"CUDA wheel index ({url.group(1)})",
                         "Install from the target's package index instead (or the CPU wheels plus the "
                         "target's backend package).", Severity.HIGH, dev, text)]
    if "://" in text and " @ " not in text and not text.startswith("-"):
        name_in_url = _name_from_url(text)
        if not name_in_url:
            return []
        text = f"{name_in_url} @ {text}"
    match = _REQUIREMENT.match(text)
    if not match or text.startswith("-"):
        return []
    raw_name, extras, rest = match.groups()
    name = normalize(raw_name)
    findings = []
    package = CUDA_ONLY_PACKAGES.get(name)
    if package:
        findings.append(_finding("cuda-only-dependency", rel_path, line, f"depends on {name}: {package.why}",
                                 f"Make it optional (an extra for CUDA machines); use {package.instead}.",
                                 package.severity, dev, text))
    elif name not in NOT_CUDA:
        for pattern, why in CUDA_NAME_PATTERNS:
            if fnmatch.fnmatchcase(name, pattern):
                findings.append(_finding("cuda-build-pin", rel_path, line, f"depends on {name}: {why}",
                                         "Depend on the generic package (or none: torch brings its own "
                                         "libraries) and keep CUDA builds in an optional extra.",
                                         Severity.HIGH, dev, text))
                break
    if extras and "cuda" in extras.lower():
        findings.append(_finding("cuda-build-pin", rel_path, line, f"requests the CUDA extra {extras} of {name}",
                                 "Drop the CUDA extra, or move it to an optional extra of your own.",
                                 Severity.HIGH, dev, text))
    if _CUDA_LOCAL_VERSION.search(rest or ""):
        findings.append(_finding("cuda-build-pin", rel_path, line, f"pins a CUDA build of {name}",
                                 "Pin the version without the +cuXXX local tag and install the target's build.",
                                 Severity.HIGH, dev, text))
    return findings


def is_dev_label(label: str) -> bool:
    return bool(_DEV_WORDS.search(label))


def _line_of(lines: list[str], needle: str, start: int = 0) -> int:
    """1-based line of the first line containing `needle` (quoted first), else 0."""
    for candidate in (f'"{needle}', f"'{needle}", needle):
        for index in range(start, len(lines)):
            if candidate in lines[index]:
                return index + 1
    return 0


def audit_requirements_txt(text: str, rel_path: str) -> list[Finding]:
    dev = is_dev_label(rel_path.rsplit("/", 1)[-1])
    findings = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith(("-", "http")) else raw.strip()
        if not line or line.startswith(("-r ", "-c ", "--requirement", "--constraint", "-e ")):
            continue
        findings.extend(check_requirement(line, rel_path, number, dev))
    return findings


def _toml_requirements(data: dict) -> list[tuple[str, bool]]:
    """(requirement string, dev?) pairs from PEP 621, PEP 735, build-system, Poetry, Pipfile."""
    found: list[tuple[str, bool]] = []
    project = data.get("project", {})
    found += [(r, False) for r in _strings(project.get("dependencies"))]
    for extra, reqs in _items(project.get("optional-dependencies")):
        found += [(r, is_dev_label(extra)) for r in _strings(reqs)]
    for group, reqs in _items(data.get("dependency-groups")):
        found += [(r, is_dev_label(group)) for r in _strings(reqs)]
    found += [(r, False) for r in _strings(data.get("build-system", {}).get("requires"))]
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    found += [(_poetry_requirement(n, v), False) for n, v in _items(poetry.get("dependencies"))]
    found += [(_poetry_requirement(n, v), True) for n, v in _items(poetry.get("dev-dependencies"))]
    for group, body in _items(poetry.get("group")):
        if isinstance(body, dict):
            found += [(_poetry_requirement(n, v), is_dev_label(group)) for n, v in _items(body.get("dependencies"))]
    found += [(_poetry_requirement(n, v), False) for n, v in _items(data.get("packages"))]  # Pipfile
    found += [(_poetry_requirement(n, v), True) for n, v in _items(data.get("dev-packages"))]
    return found


def _items(value) -> list[tuple[str, object]]:
    return list(value.items()) if isinstance(value, dict) else []


def _strings(value) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _poetry_requirement(name: str, spec) -> str:
    """`name` plus the version text of a Poetry/Pipfile entry (string or table)."""
    if isinstance(spec, dict):
        extras = spec.get("extras")
        extra_text = f"[{','.join(extras)}]" if isinstance(extras, list) else ""
        version = spec.get("version", "")
        return f"{name}{extra_text}{version if isinstance(version, str) and version != '*' else ''}"
    return f"{name}{spec if isinstance(spec, str) and spec != '*' else ''}"


def _toml_urls(value) -> list[str]:
    """Every string in the document that is a CUDA wheel index URL (uv, pdm, Poetry sources)."""
    if isinstance(value, dict):
        return [u for v in value.values() for u in _toml_urls(v)]
    if isinstance(value, list):
        return [u for v in value for u in _toml_urls(v)]
    return [value] if isinstance(value, str) and _CUDA_INDEX.search(value) else []


def audit_toml(text: str, rel_path: str) -> list[Finding]:
    lines = text.splitlines()
    try:
        data = userfiles.parse_toml(text, rel_path)
    except userfiles.FileRefused as exc:
        exc = str(exc).removeprefix(f"{rel_path}: ")
        severity, context = grade("syntax-error", rel_path)
        return [Finding(rule="syntax-error", path=rel_path, line=getattr(exc, "lineno", 0) or 0, column=0,
                        message=f"could not parse TOML ({exc}); dependencies not audited",
                        suggestion="Fix the TOML, then audit again.", severity=severity, context=context)]
    findings = []
    for requirement, dev in _toml_requirements(data):
        name = _REQUIREMENT.match(requirement)
        line = _line_of(lines, requirement) or (_line_of(lines, name.group(1)) if name else 0)
        findings.extend(check_requirement(requirement, rel_path, line, dev))
    for url in _toml_urls(data):
        findings.extend(check_requirement(url, rel_path, _line_of(lines, url)))
    return findings


def audit_setup_cfg(text: str, rel_path: str) -> list[Finding]:
    lines = text.splitlines()
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        severity, context = grade("syntax-error", rel_path)
        return [Finding(rule="syntax-error", path=rel_path, line=getattr(exc, "lineno", 0) or 0, column=0,
                        message=f"could not parse setup.cfg ({type(exc).__name__}); dependencies not audited",
                        suggestion="Fix the file, then audit again.", severity=severity, context=context)]
    entries: list[tuple[str, bool]] = []
    if parser.has_section("options"):
        for key in ("install_requires", "setup_requires"):
            entries += [(r, False) for r in parser.get("options", key, fallback="").splitlines()]
    if parser.has_section("options.extras_require"):
        for extra, value in parser.items("options.extras_require"):
            entries += [(r, is_dev_label(extra)) for r in value.splitlines()]
    findings = []
    for requirement, dev in entries:
        requirement = requirement.strip()
        if requirement and not requirement.startswith("#"):
            findings.extend(check_requirement(requirement, rel_path, _line_of(lines, requirement), dev))
    return findings


# conda packages that are CUDA itself (the pip names are in CUDA_ONLY_PACKAGES)
CONDA_CUDA_PACKAGES = frozenset({"cudatoolkit", "pytorch-cuda", "cudnn", "nccl", "cuda", "cutensor"})
_CONDA_ITEM = re.compile(r"^(\s*)-\s*(.+?)\s*$")
_CONDA_NAME = re.compile(r"^([A-Za-z0-9_.-]+)(.*)$")


def audit_conda_environment(text: str, rel_path: str) -> list[Finding]:
    """conda `environment.yml`: CUDA packages (cudatoolkit, pytorch-cuda, cuda-*, the
    nvidia channel), CUDA builds (`pytorch=2.1=py3.11_cuda12.1_0`), and the `pip:` list.
    Read line by line (no YAML library needed for this flat shape)."""
    findings: list[Finding] = []
    section, pip_indent = "", None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line[0].isspace() and not line.startswith("-"):
            section, pip_indent = line.split(":", 1)[0].strip(), None
            continue
        item = _CONDA_ITEM.match(line)
        if section != "dependencies" or not item:
            continue
        indent, spec = len(item.group(1)), item.group(2).strip("'\"")
        if spec == "pip:":
            pip_indent = indent
            continue
        if pip_indent is not None and indent > pip_indent:
            findings.extend(check_requirement(spec, rel_path, number))
            continue
        pip_indent = None
        findings.extend(_check_conda_spec(spec, rel_path, number))
    return findings


def _check_conda_spec(spec: str, rel_path: str, line: int) -> list[Finding]:
    channel, _, package = spec.rpartition("::")
    match = _CONDA_NAME.match(package)
    if not match:
        return []
    name, rest = normalize(match.group(1)), match.group(2)
    if name in CONDA_CUDA_PACKAGES or name.startswith(("cuda-", "magma-cuda")) or channel.lower() == "nvidia":
        return [_finding("cuda-build-pin", rel_path, line, f"conda package {spec}: CUDA itself",
                         "Drop it: the target's runtime comes from its own channel or pip package.",
                         Severity.HIGH, False, spec)]
    if "cuda" in rest.lower():
        return [_finding("cuda-build-pin", rel_path, line, f"pins a CUDA build of {name} ({rest.strip('=')})",
                         "Pin the version without a CUDA build string and install the target's build.",
                         Severity.HIGH, False, spec)]
    return check_requirement(name, rel_path, line)


_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)", re.IGNORECASE)
_CUDA_IMAGE = re.compile(r"nvidia/|nvcr\.io/|cuda|cudnn", re.IGNORECASE)
_PIP_INSTALL_WORDS = re.compile(r"\bpip3?\s+install\s+(.*?)(?:&&|;|\|\||$)")


def audit_dockerfile(text: str, rel_path: str) -> list[Finding]:
    """`FROM nvidia/cuda:...` / CUDA-tagged base images, and `pip install` in RUN lines."""
    findings: list[Finding] = []
    logical, start = "", 0
    for number, raw in enumerate(text.splitlines() + [""], start=1):
        if not logical:
            start = number
        stripped = raw.rstrip()
        if stripped.endswith("\\"):
            logical += stripped[:-1] + " "
            continue
        logical += stripped
        line, logical = logical, ""
        if line.lstrip().startswith("#"):
            continue
        image = _FROM.match(line)
        if image and _CUDA_IMAGE.search(image.group(1)):
            findings.append(_finding("cuda-base-image", rel_path, start, f"CUDA base image {image.group(1)}",
                                     "Build from the target's base image (or a plain Python image plus the "
                                     "backend's package) and keep the CUDA image as a separate build target.",
                                     Severity.HIGH, False, line.strip()))
            continue
        if line.lstrip().upper().startswith("RUN"):
            if _CUDA_INDEX.search(line):
                findings.extend(check_requirement(_CUDA_INDEX.search(line).group(0), rel_path, start))
            for words in _PIP_INSTALL_WORDS.findall(line):
                tokens = words.split()
                for index, word in enumerate(tokens):
                    option_value = index and tokens[index - 1] in ("-r", "-c", "-i", "--index-url",
                                                                   "--extra-index-url", "-f", "--find-links")
                    if not word.startswith("-") and not option_value and "://" not in word:
                        findings.extend(check_requirement(word.strip("'\""), rel_path, start))
    return findings


def audit_dependency_file(text: str, rel_path: str) -> list[Finding]:
    name = rel_path.rsplit("/", 1)[-1].lower()
    if name in ("pyproject.toml", "pipfile"):
        return audit_toml(text, rel_path)
    if name == "setup.cfg":
        return audit_setup_cfg(text, rel_path)
    if is_conda_file(name):
        return audit_conda_environment(text, rel_path)
    if is_dockerfile(name):
        return audit_dockerfile(text, rel_path)
    return audit_requirements_txt(text, rel_path)


def audit_installed(paths: list[str] | None = None) -> list[Finding]:
    """Findings for the distributions installed in this Python environment (or in the
    site folders `paths`), reported under the pseudo-path `<installed>`."""
    from importlib import metadata

    findings = []
    seen = set()
    for dist in metadata.distributions(**({"path": paths} if paths is not None else {})):
        name = dist.metadata["Name"] if dist.metadata else None
        if not name or normalize(name) in seen:
            continue
        seen.add(normalize(name))
        findings.extend(check_requirement(f"{name}=={dist.version}", "<installed>", 0))
    return findings
