"""The AST visitor on small snippets: each pattern, each alias form, each non-finding."""

from __future__ import annotations

import textwrap

import pytest

from kb.migrate.audit_python import audit_python_source, is_training_step


def audit(source: str, path: str = "pkg/mod.py"):
    return audit_python_source(textwrap.dedent(source).lstrip("\n"), path)


def rules(source: str, path: str = "pkg/mod.py") -> list[tuple[int, str]]:
    return [(f.line, f.rule) for f in audit(source, path)]


@pytest.mark.parametrize("source, rule", [
    ("x = y.cuda()", "cuda-method-call"),
    ("x = y.cuda(non_blocking=True)", "cuda-method-call"),
    ("x = y.to('cuda')", "cuda-device-string"),
    ("x = y.to('cuda:1')", "cuda-device-string"),
    ("x = torch.zeros(3, device='cuda')", "cuda-device-string"),
    ("import torch\nd = torch.device('cuda:0')", "cuda-device-string"),
    ("import torch\nd = torch.device('cuda', 0)", "cuda-device-string"),
    ("import torch\ntorch.set_default_device('cuda')", "cuda-device-string"),
    ("import torch\nm = torch.load('m.pt', map_location='cuda')", "cuda-device-string"),
    ("def f(device='cuda'):\n    pass", "cuda-device-string"),
    ("config = {'device': 'cuda'}", "cuda-device-string"),
    ("d = f'cuda:{rank}'", "cuda-device-string"),
    ("ok = t.is_cuda", "cuda-tensor-check"),
    ("import torch\ntorch.cuda.synchronize()", "torch-cuda-api"),
    ("import torch\npeak = torch.cuda.max_memory_allocated()", "torch-cuda-api"),
    ("import torch\nprops = torch.cuda.get_device_properties(0).total_memory", "torch-cuda-api"),
    ("import torch\nwith torch.cuda.amp.autocast():\n    pass", "cuda-amp"),
    ("import torch\ns = torch.cuda.amp.GradScaler()", "cuda-amp"),
    ("import torch\ntorch.backends.cudnn.benchmark = True", "cuda-backend-flag"),
    ("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True", "cuda-backend-flag"),
    ("import torch.distributed as dist\ndist.init_process_group('nccl')", "nccl-backend"),
    ("import triton", "triton-import"),
    ("from triton import language as tl", "triton-import"),
    ("from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('x', ['x.cu'])",
     "cuda-extension-build"),
    ("from torch.utils import cpp_extension\nm = cpp_extension.load('x', sources=['k.cu'])", "cuda-extension-build"),
])
def test_each_pattern_is_found_once(source, rule):
    assert [r for _, r in rules(source)] == [rule]


def test_triton_kernels_with_every_decorator_form():
    found = rules("""
        import triton
        from triton import jit as triton_jit

        @triton.jit
        def a(x): pass

        @triton.autotune(configs=[], key=[])
        @triton.jit
        def b(x): pass

        @triton_jit
        def c(x): pass
    """)
    assert found == [(1, "triton-import"), (5, "triton-kernel"), (9, "triton-kernel"), (12, "triton-kernel")]


@pytest.mark.parametrize("source", [
    "# x.cuda() and torch.cuda.synchronize() in a comment",
    '"""A docstring: call model.cuda() or torch.device("cuda:0")."""',
    "def f():\n    '''cuda'''\n    return 1",
    "text = 'move it with .cuda() or .to(\"cuda\")'",
    "text = 'torch.cuda.synchronize()'",
    "if x.device.type == 'cuda':\n    pass",
    "if device in ('cuda', 'mps'):\n    pass",
    "print('cuda')",
    "logger.info('cuda')",
    "import logging\nlogging.warning('running on %s', 'cuda')",
    "y = x.cudaify()",
    "y = obj.cuda",  # an attribute that is not called, not is_cuda
    "name = 'cuda_kernels'",
    "cuda = 1\nz = cuda + 1",  # a local called cuda, not imported from torch
    "import triton_helpers",  # a different package
    "from torch import accelerator\naccelerator.synchronize()",
    "match d:\n    case 'cuda':\n        pass",
])
def test_no_false_positives(source):
    assert rules(source) == []


@pytest.mark.parametrize("source, name", [
    ("import torch as t\nt.cuda.synchronize()", "torch.cuda.synchronize"),
    ("from torch import cuda\ncuda.synchronize()", "torch.cuda.synchronize"),
    ("from torch import cuda as c\nc.empty_cache()", "torch.cuda.empty_cache"),
    ("from torch.cuda import synchronize\nsynchronize()", "torch.cuda.synchronize"),
    ("from torch.cuda import synchronize as sync\nsync()", "torch.cuda.synchronize"),
    ("import torch.cuda as tc\ntc.device_count()", "torch.cuda.device_count"),
    ("import torch.cuda\ntorch.cuda.current_device()", "torch.cuda.current_device"),
    ("def f():\n    from torch.cuda import synchronize\n    synchronize()", "torch.cuda.synchronize"),
])
def test_aliases_are_followed(source, name):
    findings = audit(source)
    assert [f.rule for f in findings] == ["torch-cuda-api"]
    assert name in findings[0].message


def test_amp_aliases():
    found = audit("from torch.cuda.amp import autocast as ac, GradScaler\nwith ac():\n    s = GradScaler()")
    assert [(f.line, f.rule) for f in found] == [(2, "cuda-amp"), (3, "cuda-amp")]
    assert "torch.autocast(device_type=device.type" in found[0].suggestion
    assert "torch.amp.GradScaler" in found[1].suggestion


@pytest.mark.parametrize("member, alternative", [
    ("synchronize()", "torch.accelerator.synchronize()"),
    ("is_available()", "torch.accelerator.is_available()"),
    ("max_memory_allocated()", "torch.accelerator.max_memory_allocated()"),
    ("manual_seed(0)", "torch.manual_seed"),
    ("get_device_name(0)", "guard it"),
])
def test_suggestions_are_portable(member, alternative):
    (finding,) = audit(f"import torch\nv = torch.cuda.{member}")
    assert alternative in finding.suggestion


def test_device_strings_suggest_a_central_device():
    (finding,) = audit("y = x.to('cuda')")
    assert "torch.accelerator.current_accelerator()" in finding.suggestion
    assert ".to(device)" in finding.suggestion
    (finding,) = audit("import torch\nm = torch.load('m.pt', map_location='cuda')")
    assert "map_location='cpu'" in finding.suggestion
    (finding,) = audit("import torch\nwith torch.autocast(device_type='cuda'):\n    pass")
    assert "device.type" in finding.suggestion


def test_method_call_suggestion_names_the_receiver():
    (finding,) = audit("model = build().cuda()")
    assert finding.suggestion.startswith("`build().to(device)`")
    assert finding.column == 9 and finding.snippet == "model = build().cuda()"


def test_severity_by_context():
    source = """
        import torch

        class Net(torch.nn.Module):
            def forward(self, x):
                return x.cuda()

            def extra_repr(self):
                return str(torch.cuda.is_available())

        def training_step(batch):
            def inner(y):
                return y.cuda()
            return inner(batch)

        def evaluate(model):
            return model.cuda()

        model = Net().cuda()
    """
    found = [(f.line, f.severity.label, f.context) for f in audit(source)]
    assert found == [
        (5, "high", "forward of Net"),
        (8, "medium", "in extra_repr()"),
        (12, "high", "training step training_step()"),
        (16, "medium", "in evaluate()"),
        (18, "medium", ""),
    ]


@pytest.mark.parametrize("path", ["tests/test_net.py", "scripts/export_model.py", "tools/convert_to_hf.py"])
def test_low_context_paths_win_over_forward(path):
    source = "class Net:\n    def forward(self, x):\n        return x.cuda()\n"
    (finding,) = audit(source, path)
    assert finding.severity.label == "low"
    assert "forward of Net" in finding.context


def test_kernel_severity_is_high_outside_tests_only():
    source = "import triton\n@triton.jit\ndef k(x):\n    pass\n"
    assert [f.severity.label for f in audit(source, "ops/k.py")] == ["medium", "high"]
    assert [f.severity.label for f in audit(source, "tests/test_k.py")] == ["low", "low"]


@pytest.mark.parametrize("name, hot", [
    ("train", True), ("train_one_epoch", True), ("training_step", True), ("pretrain", True),
    ("fit", True), ("optimizer_step", True), ("_train_loop", True), ("trainer_run", True),
    ("constrain", False), ("evaluate", False), ("stepper", False), ("restrain_weights", False),
])
def test_training_step_names(name, hot):
    assert is_training_step(name) is hot


def test_syntax_error_is_a_finding_not_an_exception():
    (finding,) = audit("def broken(:\n    return x.cuda()\n")
    assert finding.rule == "syntax-error" and finding.line == 1
    assert finding.severity.label == "low"


def test_null_bytes_are_a_finding_not_an_exception():
    (finding,) = audit_python_source("x = y.cuda()\x00\n", "pkg/nul.py")
    assert finding.rule == "syntax-error"


def test_files_that_cannot_match_are_not_parsed():
    """The prefilter: no trigger word, no parse (so a broken file without one is quiet)."""
    assert audit("def broken(:\n    pass\n") == []
    assert rules("import torch.backends.cudnn as cd\ncd.benchmark = True") == [(2, "cuda-backend-flag")]


def test_imports_further_down_still_count():
    source = """
        def early():
            return cuda.synchronize()

        from torch import cuda

        def late():
            return cuda.synchronize()
    """
    assert rules(source) == [(2, "torch-cuda-api"), (7, "torch-cuda-api")]


def test_setup_py_requirements_are_checked():
    source = """
        from setuptools import setup
        setup(name="x", install_requires=["flash_attn>=2", "numpy"], extras_require={"dev": ["xformers"]})
    """
    found = [(f.rule, f.severity.label) for f in audit(source, "setup.py")]
    assert found == [("cuda-only-dependency", "high"), ("cuda-only-dependency", "low")]


def test_columns_count_characters_not_bytes():
    (finding,) = audit("naïve = 'é'; y = x.cuda()")
    assert finding.column == 18  # 1-based character column of `x.cuda()`


def test_module_level_device_constant_is_called_the_central_place():
    (finding,) = audit("DEVICE = 'cuda'")
    assert finding.suggestion.startswith("This is already the central place")


def test_star_import_from_torch_cuda():
    assert rules("from torch.cuda import *\nsynchronize()\nfrom torch.cuda.amp import *\ns = GradScaler()") == [
        (2, "torch-cuda-api"), (4, "cuda-amp")]


def test_snippets_follow_python_line_numbering_with_form_feeds():
    (finding,) = audit("x = 1  # page\x0c break\ny = z.cuda()\n")
    assert finding.line == 2 and finding.snippet == "y = z.cuda()"


@pytest.mark.parametrize("source", ["import apex", "from apex import amp", "from apex.optimizers import FusedAdam",
                                    "import flash_attn", "from flash_attn import flash_attn_func",
                                    "import xformers.ops as xops", "import bitsandbytes as bnb"])
def test_import_of_a_cuda_only_package_is_reported(source):
    (finding,) = [f for f in audit(source) if f.rule == "cuda-only-import"]
    assert finding.line == 1 and finding.severity.name == "HIGH"


def test_cuda_only_import_once_per_package_and_not_for_lookalikes():
    assert rules("import apex\nfrom apex import amp\nimport apexlib\nfrom mypkg.apex import x\n") == \
        [(1, "cuda-only-import")]
