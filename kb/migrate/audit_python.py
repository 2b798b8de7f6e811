"""The Python half of `kb audit`: an AST visitor, so comments, strings and docstrings
never match and imported aliases are followed.

What it reports (rule ids from `kb.migrate.audit_findings.RULES`):

* `x.cuda()` (`cuda-method-call`) and `x.is_cuda` (`cuda-tensor-check`);
* a string literal that is exactly `cuda` / `cuda:N`, or an f-string `f"cuda:{rank}"`
  (`cuda-device-string`) wherever it is used as a value: `.to("cuda")`, `device="cuda"`,
  `torch.device("cuda:0")`, `map_location=`, a default argument, a config dict. Literals
  in comparisons (`device.type == "cuda"`) are guards, the portable pattern, and are not
  reported; nor are literals handed to print or a logger;
* `torch.cuda.*` uses (`torch-cuda-api`, `cuda-amp` for `torch.cuda.amp`), reached through
  any alias: `import torch as t`, `from torch import cuda`, `from torch.cuda import
  synchronize`, `import torch.cuda as tc`;
* `torch.backends.cuda` / `torch.backends.cudnn` settings (`cuda-backend-flag`);
* the string `"nccl"` (`nccl-backend`);
* `import triton` (`triton-import`, once per file) and Triton-decorated kernels
  (`triton-kernel`);
* imports of CUDA-only packages: `import apex`, `from flash_attn import ...`
  (`cuda-only-import`, once per package and file; kb.migrate.audit_deps.CUDA_ONLY_MODULES);
* `CUDAExtension` or `cpp_extension.load(...)` with CUDA sources (`cuda-extension-build`).

Imports are collected from the whole file first (also those inside functions and
branches, walking statements only, which is cheap), so one alias map serves the file and
a function that uses a name imported further down is still caught. A local variable that
shadows an imported name is not tracked (a rare source of false positives, never of
misses).

Speed: a file whose text mentions none of `TRIGGERS` (most files of most code bases)
is not parsed at all: nothing in it could match. Such a file is not checked for syntax
errors either, which is right: the audit did read it.
"""

from __future__ import annotations

import ast
import re

from kb import userfiles
from kb.migrate.audit_findings import Finding, grade

CUDA_DEVICE = re.compile(r"cuda(:\d+)?")
SNIPPET_MAX = 160
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

CENTRAL_DEVICE = "device = torch.accelerator.current_accelerator() or torch.device('cpu')"

# torch.cuda.<member> -> portable replacement. Members not listed get the generic advice.
TORCH_CUDA_ALTERNATIVES = {
    "synchronize": "torch.accelerator.synchronize()",
    "is_available": "torch.accelerator.is_available()",
    "device_count": "torch.accelerator.device_count()",
    "current_device": "torch.accelerator.current_device_index()",
    "set_device": "torch.accelerator.set_device_index(index)",
    "current_stream": "torch.accelerator.current_stream()",
    "set_stream": "torch.accelerator.set_stream(stream)",
    "empty_cache": "torch.accelerator.empty_cache()",
    "memory_allocated": "torch.accelerator.memory_allocated()",
    "max_memory_allocated": "torch.accelerator.max_memory_allocated()",
    "memory_reserved": "torch.accelerator.memory_reserved()",
    "max_memory_reserved": "torch.accelerator.max_memory_reserved()",
    "memory_stats": "torch.accelerator.memory_stats()",
    "reset_peak_memory_stats": "torch.accelerator.reset_peak_memory_stats()",
    "mem_get_info": "torch.accelerator.get_memory_info()",
    "manual_seed": "torch.manual_seed(seed) (seeds every device)",
    "manual_seed_all": "torch.manual_seed(seed) (seeds every device)",
    "Stream": "torch.Stream(device)",
    "Event": "torch.Event(device)",
    "stream": "torch.accelerator.set_stream / torch.Stream(device)",
    "device": "torch.device(device) / torch.accelerator.device_index(index)",
    "nvtx": "torch.profiler.record_function(name)",
}
AMP_ALTERNATIVES = {
    "autocast": "torch.autocast(device_type=device.type, dtype=...)",
    "GradScaler": "torch.amp.GradScaler(device.type)",
    "custom_fwd": "torch.amp.custom_fwd(device_type=device.type)",
    "custom_bwd": "torch.amp.custom_bwd(device_type=device.type)",
}
LOGGING_CALLS = frozenset({"print", "debug", "info", "warning", "warn", "error", "critical", "exception", "log"})
# Every finding needs one of these words somewhere in the file (an import, a call, a literal).
TRIGGERS = ("cuda", "cudnn", "triton", "nccl", "cpp_extension", "install_requires", "setup_requires",
            "extras_require", "apex", "flash_attn", "flashinfer", "xformers", "bitsandbytes", "cupy", "liger_kernel",
            "mamba_ssm", "causal_conv1d", "transformer_engine", "tensorrt", "gptq", "awq", "exllamav2", "nvml",
            "gpustat")
SETUP_FUNCTIONS = frozenset({"setuptools.setup", "distutils.core.setup"})
HOT_NAME_TOKENS = frozenset({"train", "training", "pretrain", "finetune", "fit"})


def is_training_step(name: str) -> bool:
    """`train`, `train_epoch`, `training_step`, `pretrain`, `fit`, `*_step`: the loop that
    runs every batch. Split on underscores so `constrain` is not a training step."""
    tokens = [t for t in name.lower().strip("_").split("_") if t]
    return bool(tokens) and (any(t in HOT_NAME_TOKENS or t.startswith("train") for t in tokens)
                             or tokens[-1] == "step")


def _statements(tree: ast.Module):
    """Every statement of the module, nested ones included, without visiting expressions."""
    pending = list(tree.body)
    while pending:
        statement = pending.pop()
        yield statement
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(statement, name, None)
            if isinstance(block, list):
                pending.extend(block)


def _short(node: ast.AST, limit: int = 40) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Auditor(ast.NodeVisitor):
    def __init__(self, tree: ast.Module, source: str, rel_path: str):
        self.rel_path = rel_path
        self.lines = _LINE_BREAK.split(source)  # as the tokenizer counts (not str.splitlines: \f, \x1c...)
        self.findings: list[Finding] = []
        self.parents: dict[int, ast.AST] = {}  # filled on the way down (generic_visit)
        self.aliases: dict[str, str] = {}  # local name -> dotted path
        for statement in _statements(tree):
            if isinstance(statement, ast.Import | ast.ImportFrom):
                self._bind_aliases(statement)
        self.scopes: list[ast.AST] = []
        self.triton_import_reported = False
        self.cuda_imports_reported: set[str] = set()
        self.amp_import: Finding | None = None  # the first `from torch.cuda.amp import ...`

    # -- names ----------------------------------------------------------------------

    def _bind_aliases(self, node: ast.Import | ast.ImportFrom) -> None:
        """Local name -> the dotted module path it stands for."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.aliases[top] = top
        elif node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*":
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif node.module in ("torch.cuda", "torch.cuda.amp"):  # star import: the names we know
                    known = AMP_ALTERNATIVES if node.module.endswith("amp") else TORCH_CUDA_ALTERNATIVES
                    for member in known:
                        self.aliases.setdefault(member, f"{node.module}.{member}")

    def generic_visit(self, node: ast.AST) -> None:
        """Visit the children, recording each one's parent first: one pass over the tree
        instead of a separate walk to build a parent map."""
        parents = self.parents
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
            self.visit(child)

    def qualname(self, node: ast.AST) -> str | None:
        """`t.cuda.synchronize` -> `torch.cuda.synchronize` when `t` is torch; None when the
        expression does not start from an imported name."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    # -- context ----------------------------------------------------------------------

    def code_context(self) -> tuple[str, bool]:
        """A label for the enclosing code and whether it is hot (forward / training step)."""
        label, hot = "", False
        for index, scope in enumerate(self.scopes):
            if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            enclosing = self.scopes[index - 1] if index else None
            if scope.name == "forward" and isinstance(enclosing, ast.ClassDef):
                return f"forward of {enclosing.name}", True
            if is_training_step(scope.name):
                label, hot = f"training step {scope.name}()", True
        if hot:
            return label, True
        for scope in reversed(self.scopes):
            if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
                return f"in {scope.name}()", False
            if isinstance(scope, ast.ClassDef):
                return f"class {scope.name}", False
        return "", False

    def report(self, rule: str, node: ast.AST, message: str, suggestion: str) -> None:
        label, hot = self.code_context()
        severity, context = grade(rule, self.rel_path, label, hot)
        line = getattr(node, "lineno", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        # col_offset counts UTF-8 bytes; report characters (code points), as SARIF is told
        column = len(text.encode("utf-8")[: getattr(node, "col_offset", -1)].decode("utf-8", "ignore")) + 1
        snippet = text.strip()
        if len(snippet) > SNIPPET_MAX:
            snippet = snippet[: SNIPPET_MAX - 1] + "…"
        self.findings.append(Finding(
            rule=rule, path=self.rel_path, line=line, column=column if line else 0,
            message=message, suggestion=suggestion, severity=severity, context=context, snippet=snippet,
        ))

    # -- scopes -------------------------------------------------------------------------

    def _visit_scope(self, node: ast.AST) -> None:
        self.scopes.append(node)
        try:
            self.generic_visit(node)
        finally:
            self.scopes.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._visit_scope(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._check_triton_decorators(node)
        self._visit_scope(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def _check_triton_decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = self.qualname(target)
            if name and (name == "triton" or name.startswith("triton.")):
                self.report("triton-kernel", node, f"Triton kernel `{node.name}` (@{name})",
                            "Keep a pure-PyTorch reference implementation and dispatch on device.type, or "
                            "port the kernel to the target's own kernel language.")
                return

    # -- imports --------------------------------------------------------------------------

    def _triton_import(self, node: ast.AST, module: str) -> None:
        if self.triton_import_reported:
            return
        self.triton_import_reported = True
        self.report("triton-import", node, f"imports {module}",
                    "Import Triton lazily behind a device check (`if device.type == 'cuda'`) so the module "
                    "imports on other accelerators.")

    def _cuda_only_import(self, node: ast.AST, module: str) -> None:
        """`import apex`, `from flash_attn import ...`: once per package and file."""
        from kb.migrate.audit_deps import CUDA_ONLY_MODULES, CUDA_ONLY_PACKAGES

        top = module.split(".")[0]
        name = CUDA_ONLY_MODULES.get(top)
        if name is None or top in self.cuda_imports_reported:
            return
        self.cuda_imports_reported.add(top)
        package = CUDA_ONLY_PACKAGES[name]
        self.report("cuda-only-import", node, f"imports {module}: {package.why}",
                    f"Import it only on CUDA machines (behind a device check) and use {package.instead} elsewhere.")

    def _amp_import(self, node: ast.AST, module: str) -> None:
        """`from torch.cuda.amp import autocast`: flagged where it is imported, as the call
        form `torch.cuda.amp.autocast()` is (report t26b item 6); once per file, and only
        while no use of it is flagged (audit_python_source drops it then: one place is enough)."""
        if self.amp_import is not None:
            return
        self.report("cuda-amp", node, f"imports {module}: CUDA-only mixed precision",
                    "Import autocast / GradScaler from torch.amp instead and pass device_type=device.type.")
        self.amp_import = self.findings[-1]

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == "triton" or alias.name.startswith("triton."):
                self._triton_import(node, alias.name)
            elif alias.name == "torch.cuda.amp" or alias.name.startswith("torch.cuda.amp."):
                self._amp_import(node, alias.name)
            else:
                self._cuda_only_import(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level == 0 and (module == "triton" or module.startswith("triton.")):
            self._triton_import(node, module)
        elif node.level == 0 and (module == "torch.cuda.amp" or module.startswith("torch.cuda.amp.")):
            self._amp_import(node, module)
        elif node.level == 0 and module == "torch.cuda" and any(a.name == "amp" for a in node.names):
            self._amp_import(node, "torch.cuda.amp")
        elif node.level == 0 and module:
            self._cuda_only_import(node, module)

    # -- expressions ----------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "cuda" and self.qualname(func) != "torch.cuda":
            receiver = _short(func.value)
            self.report("cuda-method-call", node, f"`{receiver}.cuda()` moves it to the CUDA device",
                        f"`{receiver}.to(device)` with one central `{CENTRAL_DEVICE}`")
        name = self.qualname(func)
        if name:
            self._check_extension_build(node, name)
            if name in SETUP_FUNCTIONS:
                self._check_setup_requirements(node)
        self.generic_visit(node)

    def _check_setup_requirements(self, node: ast.Call) -> None:
        """install_requires / setup_requires / extras_require literals of a setup() call."""
        from kb.migrate.audit_deps import check_requirement, is_dev_label

        for keyword in node.keywords:
            if keyword.arg not in ("install_requires", "setup_requires", "extras_require"):
                continue
            groups = [("", keyword.value)]
            if isinstance(keyword.value, ast.Dict):
                groups = [(k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else "", v)
                          for k, v in zip(keyword.value.keys, keyword.value.values, strict=True)]
            for label, value in groups:
                for item in ast.walk(value):
                    if isinstance(item, ast.Constant) and isinstance(item.value, str):
                        self.findings.extend(check_requirement(
                            item.value, self.rel_path, item.lineno, dev=bool(label) and is_dev_label(label)))

    def _check_extension_build(self, node: ast.Call, name: str) -> None:
        if not name.startswith("torch.utils.cpp_extension."):
            return
        member = name.rsplit(".", 1)[-1]
        cuda_sources = any(kw.arg == "cuda_sources" for kw in node.keywords) or any(
            isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.endswith((".cu", ".cuh"))
            for n in ast.walk(node)
        )
        if member == "CUDAExtension" or (member in ("load", "load_inline") and cuda_sources):
            self.report("cuda-extension-build", node, f"builds a CUDA C++ extension ({member})",
                        "Build a CppExtension for CPU, keep a PyTorch fallback, and port the kernels to the "
                        "target's kernel language where speed matters.")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "is_cuda" and isinstance(node.ctx, ast.Load):
            self.report("cuda-tensor-check", node, f"`{_short(node)}` tests for CUDA only",
                        "`t.device.type == device.type` (or `t.device.type != 'cpu'`) with a central device")
        self._check_torch_name(node)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._check_torch_name(node)

    def _check_torch_name(self, node: ast.Name | ast.Attribute) -> None:
        parent = self.parent(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return  # the longest chain reports, once
        name = self.qualname(node)
        if not name:
            return
        parts = name.split(".")
        if parts[:3] == ["torch", "cuda", "amp"]:
            member = parts[3] if len(parts) > 3 else ""
            self.report("cuda-amp", node, f"`{name}` is CUDA-only mixed precision",
                        AMP_ALTERNATIVES.get(member, "torch.amp with device_type=device.type"))
        elif parts[:2] == ["torch", "cuda"]:
            member = parts[2] if len(parts) > 2 else ""
            alternative = TORCH_CUDA_ALTERNATIVES.get(member)
            suggestion = alternative or ("No device-generic equivalent: guard it with "
                                         "`if device.type == 'cuda':` or drop it.")
            self.report("torch-cuda-api", node, f"`{name}`" + (" call" if isinstance(parent, ast.Call)
                                                                  and parent.func is node else ""), suggestion)
        elif parts[:3] in (["torch", "backends", "cuda"], ["torch", "backends", "cudnn"]):
            self.report("cuda-backend-flag", node, f"`{name}` tunes CUDA/cuDNN only",
                        "For matmul precision use torch.set_float32_matmul_precision(...), which every backend "
                        "may honour; other flags can stay but do nothing on the target.")

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str) or self._is_ignored_literal(node):
            return
        if CUDA_DEVICE.fullmatch(node.value):
            self.report("cuda-device-string", node, f"hard-coded device {node.value!r}",
                        self._device_suggestion(node))
        elif node.value == "nccl":
            self.report("nccl-backend", node, "NCCL collective backend",
                        "torch.distributed.init_process_group() without a backend, or "
                        "backend=torch.distributed.get_default_backend_for_device(device)")

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        values = node.values
        if (not self._is_ignored_literal(node) and len(values) >= 2 and isinstance(values[0], ast.Constant)
                and values[0].value == "cuda:" and isinstance(values[1], ast.FormattedValue)):
            self.report("cuda-device-string", node, f"hard-coded device {ast.unparse(node)}",
                        self._device_suggestion(node))
        for value in values:  # nested expressions may hold calls; literal parts never match
            if isinstance(value, ast.FormattedValue):
                self.parents[id(value)] = node
                self.visit(value)

    def _is_ignored_literal(self, node: ast.AST) -> bool:
        """Docstrings and other bare string statements, comparisons (guards), match
        patterns, and text handed to print or a logger are not device choices."""
        child, parent = node, self.parent(node)
        while isinstance(parent, ast.IfExp | ast.BoolOp | ast.Tuple | ast.List | ast.Set):
            child, parent = parent, self.parent(parent)
        if isinstance(parent, ast.Expr | ast.Compare | ast.MatchValue | ast.JoinedStr | ast.FormattedValue):
            return True
        if isinstance(parent, ast.Call) and child is not parent.func:
            func = parent.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            return called in LOGGING_CALLS
        return False

    def _device_suggestion(self, node: ast.AST) -> str:
        parent = self.parent(node)
        while isinstance(parent, ast.IfExp):
            parent = self.parent(parent)
        if isinstance(parent, ast.keyword) and parent.arg == "map_location":
            return "map_location='cpu' (then .to(device)) or map_location=device"
        if isinstance(parent, ast.keyword) and parent.arg == "device_type":
            return "device_type=device.type with a central device"
        if isinstance(parent, ast.Call):
            called = self.qualname(parent.func) or ""
            if called.startswith(("torch.amp.", "torch.autocast")):
                return "pass device.type instead of 'cuda'"
        if isinstance(parent, ast.Assign | ast.AnnAssign) and not self.scopes:
            return ("This is already the central place: set it to "
                    "`torch.accelerator.current_accelerator() or torch.device('cpu')` instead of a literal")
        return f"Choose the device once — `{CENTRAL_DEVICE}` — and pass `device` (`.to(device)`, `device=device`)"


def audit_python_source(source: str, rel_path: str) -> list[Finding]:
    """Findings for one Python file; a file that does not parse is one `syntax-error`
    finding, never an exception."""
    lowered = source.lower()
    if not any(trigger in lowered for trigger in TRIGGERS):
        return []
    try:
        tree = ast.parse(source, filename=rel_path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None) or 0
        reason = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
        severity, context = grade("syntax-error", rel_path)
        return [Finding(rule="syntax-error", path=rel_path, line=line, column=0,
                        message=f"could not parse ({reason}); the file was not audited",
                        suggestion="Fix the syntax (or the Python version the file needs), then audit again.",
                        severity=severity, context=context)]
    auditor = _Auditor(tree, source, rel_path)
    try:
        auditor.visit(tree)
    except RecursionError:  # e.g. a generated 1,000-term expression: keep what was found
        severity, context = grade("syntax-error", rel_path)
        auditor.findings.append(Finding(
            rule="syntax-error", path=rel_path, line=0, column=0,
            message="nested too deeply for the auditor; the file was only partly audited",
            suggestion="Audit the code that generated this file instead.", severity=severity, context=context))
    if auditor.amp_import is not None and sum(f.rule == "cuda-amp" for f in auditor.findings) > 1:
        auditor.findings.remove(auditor.amp_import)  # its uses are flagged: those are the lines to change
    return auditor.findings


_MAGIC = re.compile(r"^(\s*)[%!?]")


_PIP_INSTALL = re.compile(r"^\s*pass  # (?:pip|python -m pip|pip3) install (.+)$")


def _pip_install_findings(cells: list[str], rel_path: str) -> list[Finding]:
    """`!pip install flash-attn` / `%pip install ...` lines: dependencies too. Runs on the
    cells after magics became `pass  # ...`; line numbers are in the joined module."""
    from kb.migrate.audit_deps import check_requirement

    findings = []
    for number, line in enumerate("\n".join(cells).splitlines(), start=1):
        match = _PIP_INSTALL.match(line)
        if not match:
            continue
        for word in match.group(1).split():
            if not word.startswith("-"):
                findings.extend(check_requirement(word.strip("'\""), rel_path, number))
    return findings


def _notebook_cells(text: str) -> list[str]:
    """The code cells' sources; IPython magics (`%time`, `!pip`) become `pass` at the same
    indentation and `%%` cell magics blank out their cell, so line numbers still match."""
    try:
        document = userfiles.parse_json(text, "notebook")
    except userfiles.FileRefused as exc:
        raise ValueError(str(exc).removeprefix("notebook: ")) from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise ValueError("no cells list")
    sources = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        lines = source.splitlines()
        if lines and lines[0].lstrip().startswith("%%"):
            lines = [""] * len(lines)
        sources.append("\n".join(_MAGIC.sub(r"\1pass  # ", line) for line in lines))
    return sources


def audit_notebook_source(text: str, rel_path: str) -> list[Finding]:
    """A Jupyter notebook: its code cells audited as one module (that is how they run:
    an import in cell 1 serves cell 7), each finding mapped back to its cell. `line` is
    the line within the cell and `cell` the 1-based index among code cells."""
    try:
        cells = _notebook_cells(text)
    except (ValueError, TypeError, AttributeError) as exc:
        severity, context = grade("syntax-error", rel_path)
        return [Finding(rule="syntax-error", path=rel_path, line=0, column=0,
                        message=f"not a readable notebook ({exc if 'bound' in str(exc) else type(exc).__name__}); "
                                "it was not audited",
                        suggestion="Check the .ipynb JSON, then audit again.", severity=severity, context=context)]
    starts, offset = [], 0
    for source in cells:
        starts.append(offset)
        offset += source.count("\n") + 1
    findings = audit_python_source("\n".join(cells), rel_path)
    findings += _pip_install_findings(cells, rel_path)
    for finding in findings:
        if finding.line <= 0:
            continue
        index = max(i for i, start in enumerate(starts) if start < finding.line)
        finding.cell = index + 1
        finding.line -= starts[index]
    return findings
