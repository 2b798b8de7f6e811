"""A small code base with CUDA lock-in of every kind, written into tmp_path per test.

It lives in strings, not in committed .py files, so that ruff and pytest never lint or
collect the fixture (it contains a syntax error on purpose) and so that folders such as
`.venv` and unreadable files can be made as the test needs them.
"""

from __future__ import annotations

import os
import textwrap

import pytest

FIXTURE_FILES = {
    "model/net.py": '''
        """A model. Docstrings may say x.cuda() or torch.cuda.synchronize(): not findings."""
        import torch
        import torch as t
        from torch import cuda
        from torch.cuda import synchronize, max_memory_allocated
        from torch.cuda.amp import autocast as cuda_autocast

        # model.cuda() in a comment is not a finding, nor is torch.device("cuda:0") here.
        HELP = "call .cuda() on the model, or .to('cuda')"
        DEVICE = "cuda" if cuda.is_available() else "cpu"


        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x):
                x = x.cuda()
                if x.device.type == "cuda":
                    synchronize()
                with cuda_autocast():
                    return self.linear(x.to("cuda"))


        def build(device="cuda"):
            model = Net().to(torch.device("cuda:0"))
            print("cuda")
            return model


        def peak_memory():
            return max_memory_allocated()


        def rank_device(rank):
            return f"cuda:{rank}"
    ''',
    "model/train.py": '''
        import torch.cuda as tc
        import torch.distributed as dist


        def train_one_epoch(model, loader):
            scaler = tc.amp.GradScaler()
            for batch in loader:
                batch = batch.to(device="cuda")
                tc.synchronize()
            return scaler


        def setup():
            dist.init_process_group(backend="nccl")
    ''',
    "model/kernels.py": '''
        import triton
        import triton.language as tl
        from triton import jit


        @triton.jit
        def add_kernel(x_ptr, y_ptr, n):
            tl.store(x_ptr, tl.load(y_ptr))


        @triton.autotune(configs=[], key=["n"])
        @jit
        def scale_kernel(x_ptr, n):
            pass
    ''',
    "model/ops.cu": '''
        // __global__ void commented_out(float* x) {}
        /* __global__ void also_commented(float* x) {} */
        const char* doc = "__global__ void in_a_string()";

        __global__ void relu_kernel(float* x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n && x[i] < 0) x[i] = 0;
        }
    ''',
    "model/ops.cuh": '''
        template <typename T>
        __global__ void
        scale(T* x, T factor);
    ''',
    "tests/test_net.py": '''
        import torch


        def test_forward():
            assert torch.ones(1).cuda() is not None
    ''',
    "scripts/export_onnx.py": '''
        import torch

        model = torch.load("model.pt", map_location="cuda")
    ''',
    "model/broken.py": '''
        def broken(:
            return x.cuda()
    ''',
    "requirements.txt": '''
        numpy>=1.26  # flash-attn in a comment is not a finding
        flash-attn>=2.5
        --extra-index-url https://download.pytorch.org/whl/cu121
        torch==2.3.0+cu121
    ''',
    "requirements-dev.txt": '''
        pytest
        xformers
    ''',
    "pyproject.toml": '''
        [project]
        name = "fixture"
        dependencies = ["Apex>=0.1", "cupy-cuda12x", "requests"]

        [project.optional-dependencies]
        test = ["bitsandbytes"]
    ''',
    "setup.cfg": '''
        [options]
        install_requires =
            triton>=2.1
            numpy
    ''',
    # trees kb audit must not enter
    "myenv/pyvenv.cfg": "home = /usr/bin\n",
    "myenv/lib/python3.11/site-packages/pkg/mod.py": "x.cuda()\n",
    "node_modules/thing/build.py": "x.cuda()\n",
    "third_party/lib/vendored.py": "x.cuda()\n",
    ".git/hooks/hook.py": "x.cuda()\n",
    "notes/readme.md": "x.cuda() in prose is not audited\n",
}


def write_tree(root, files: dict[str, str]) -> None:
    for rel_path, text in files.items():
        path = os.path.join(root, *rel_path.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(text).lstrip("\n"))


@pytest.fixture
def fixture_repo(tmp_path):
    root = tmp_path / "repo"
    write_tree(root, FIXTURE_FILES)
    (root / "model" / "latin1.py").write_bytes(b"# caf\xe9\nx = y.cuda()\n")  # not UTF-8
    os.symlink(root / "model" / "missing_target.py", root / "model" / "dangling.py")
    return root
