"""Dependency lists: requirements files, pyproject.toml, setup.cfg, Pipfile, installed."""

from __future__ import annotations

import textwrap

import pytest

from kb.migrate.audit_deps import (
    audit_dependency_file,
    audit_installed,
    check_requirement,
    is_dependency_file,
    is_dev_label,
)


def found(text: str, path: str) -> list[tuple[int, str, str]]:
    findings = audit_dependency_file(textwrap.dedent(text).lstrip("\n"), path)
    return [(f.line, f.rule, f.severity.label) for f in findings]


@pytest.mark.parametrize("requirement, rule", [
    ("flash-attn>=2.5", "cuda-only-dependency"),
    ("Flash_Attn==2.5.8", "cuda-only-dependency"),  # PEP 503 normalisation
    ("xformers; sys_platform == 'linux'", "cuda-only-dependency"),
    ("apex", "cuda-only-dependency"),
    ("bitsandbytes>=0.43", "cuda-only-dependency"),
    ("cupy", "cuda-only-dependency"),
    ("triton", "cuda-only-dependency"),
    ("cupy-cuda12x", "cuda-build-pin"),
    ("nvidia-cudnn-cu12==9.1.0.70", "cuda-build-pin"),
    ("cudf-cu12", "cuda-build-pin"),
    ("spconv-cu118", "cuda-build-pin"),
    ("jax[cuda12]>=0.4", "cuda-build-pin"),
    ("torch==2.3.0+cu121", "cuda-build-pin"),
    ("--extra-index-url https://download.pytorch.org/whl/cu124", "cuda-build-pin"),
    ("https://example.org/wheels/flash_attn-2.5.8+cu122torch2.3-cp311-cp311-linux_x86_64.whl",
     "cuda-only-dependency"),
    ("xformers @ https://example.org/xformers-0.0.26.tar.gz", "cuda-only-dependency"),
])
def test_cuda_requirements(requirement, rule):
    assert rule in [f.rule for f in check_requirement(requirement, "requirements.txt", 1)]


@pytest.mark.parametrize("requirement", [
    "numpy>=1.26", "torch==2.3.0", "torch==2.3.0+cpu", "requests", "--extra-index-url https://pypi.org/simple",
    "curl-cffi", "cudatext", "-r base.txt", "",
])
def test_portable_requirements(requirement):
    assert check_requirement(requirement, "requirements.txt", 1) == []


def test_monitoring_packages_are_medium():
    (finding,) = check_requirement("nvidia-ml-py>=12", "requirements.txt", 1)
    assert finding.severity.label == "medium" and "torch.accelerator" in finding.suggestion


def test_requirements_file_lines_comments_and_dev_files():
    text = """
        # flash-attn is mentioned in a comment only
        numpy
        flash-attn  # needed for training
        -r requirements-base.txt
    """
    assert found(text, "requirements.txt") == [(3, "cuda-only-dependency", "high")]
    assert found(text, "requirements-dev.txt") == [(3, "cuda-only-dependency", "low")]
    assert found(text, "requirements/test.txt") == [(3, "cuda-only-dependency", "low")]


@pytest.mark.parametrize("name, yes", [
    ("requirements.txt", True), ("requirements-dev.txt", True), ("dev-requirements.txt", True),
    ("requirements/base.txt", True), ("constraints.txt", True), ("pyproject.toml", True), ("setup.cfg", True),
    ("Pipfile", True), ("notes.txt", False), ("setup.py", False), ("pkg/README.md", False),
])
def test_dependency_file_names(name, yes):
    assert is_dependency_file(name) is yes


@pytest.mark.parametrize("label, dev", [
    ("test", True), ("tests", True), ("dev", True), ("docs", True), ("lint", True),
    ("requirements-dev.txt", True), ("requirements_test.txt", True),
    ("gpu", False), ("train", False), ("checkpoint", False), ("requirements.txt", False), ("device", False),
])
def test_dev_labels(label, dev):
    assert is_dev_label(label) is dev


def test_pyproject_all_sections():
    text = """
        [build-system]
        requires = ["setuptools", "torch==2.3.0+cu121"]

        [project]
        name = "x"
        dependencies = [
            "numpy",
            "xformers>=0.0.26",
        ]

        [project.optional-dependencies]
        cuda = ["flash-attn"]
        test = ["apex"]

        [dependency-groups]
        dev = ["cupy"]

        [[tool.uv.index]]
        name = "pytorch-cu121"
        url = "https://download.pytorch.org/whl/cu121"
    """
    assert sorted(found(text, "pyproject.toml")) == [
        (2, "cuda-build-pin", "high"),
        (8, "cuda-only-dependency", "high"),
        (12, "cuda-only-dependency", "high"),
        (13, "cuda-only-dependency", "low"),
        (16, "cuda-only-dependency", "low"),
        (20, "cuda-build-pin", "high"),
    ]


def test_poetry_and_pipfile():
    poetry = """
        [tool.poetry.dependencies]
        python = "^3.11"
        flash-attn = {version = ">=2", optional = true}

        [tool.poetry.group.dev.dependencies]
        xformers = "*"
    """
    assert found(poetry, "pyproject.toml") == [(3, "cuda-only-dependency", "high"),
                                               (6, "cuda-only-dependency", "low")]
    pipfile = """
        [packages]
        cupy = "*"

        [dev-packages]
        apex = "*"
    """
    assert found(pipfile, "Pipfile") == [(2, "cuda-only-dependency", "high"), (5, "cuda-only-dependency", "low")]


def test_setup_cfg():
    text = """
        [metadata]
        name = x

        [options]
        install_requires =
            numpy
            mamba-ssm>=2

        [options.extras_require]
        docs = causal-conv1d
    """
    assert found(text, "setup.cfg") == [(7, "cuda-only-dependency", "high"), (10, "cuda-only-dependency", "low")]


def test_bad_toml_and_cfg_are_findings_not_exceptions():
    assert [r for _, r, _ in found("[project\n", "pyproject.toml")] == ["syntax-error"]
    assert [r for _, r, _ in found("no section header\n", "setup.cfg")] == ["syntax-error"]


def test_installed_distributions(tmp_path):
    for name, version in (("flash_attn", "2.5.8"), ("numpy", "2.0.0"), ("torch", "2.3.0+cu121")):
        info = tmp_path / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    findings = audit_installed([str(tmp_path)])
    assert sorted((f.path, f.rule, f.message.split(":")[0]) for f in findings) == [
        ("<installed>", "cuda-build-pin", "pins a CUDA build of torch"),
        ("<installed>", "cuda-only-dependency", "depends on flash-attn"),
    ]


def test_installed_environment_runs():
    assert isinstance(audit_installed(), list)  # this environment: whatever it holds, no exception


def test_conda_environment():
    text = """
        name: train
        channels:
          - pytorch
          - nvidia
        dependencies:
          - python=3.11
          - pytorch=2.1.0=py3.11_cuda12.1_cudnn8.9.2_0
          - pytorch-cuda=12.1
          - nvidia::cuda-nvcc
          - cupy
          - numpy  # cudatoolkit in a comment
          - pip:
            - flash-attn>=2
            - requests
          - scipy
    """
    assert found(text, "environment.yml") == [
        (7, "cuda-build-pin", "high"),
        (8, "cuda-build-pin", "high"),
        (9, "cuda-build-pin", "high"),
        (10, "cuda-only-dependency", "high"),
        (13, "cuda-only-dependency", "high"),
    ]


def test_dockerfile():
    text = """
        # FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04 in a comment
        FROM --platform=linux/amd64 nvidia/cuda:12.1.0-cudnn8-runtime-ubuntu22.04 AS base
        RUN pip install --no-cache-dir numpy \\
            flash-attn==2.5.8 && rm -rf /root/.cache
        RUN pip install torch --index-url https://download.pytorch.org/whl/cu121
        FROM python:3.11-slim
        RUN pip3 install -r requirements.txt
    """
    assert found(text, "Dockerfile") == [
        (2, "cuda-base-image", "high"),
        (3, "cuda-only-dependency", "high"),
        (5, "cuda-build-pin", "high"),
    ]
    assert found("FROM pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\n", "docker/train.dockerfile") == [
        (1, "cuda-base-image", "high")]


@pytest.mark.parametrize("name, yes", [
    ("environment.yml", True), ("environment-gpu.yaml", True), ("Dockerfile", True), ("Dockerfile.train", True),
    ("docker/serve.dockerfile", True), ("Containerfile", True), ("config.yml", False), ("Dockerfile.md", False),
])
def test_more_dependency_file_names(name, yes):
    assert is_dependency_file(name) is yes


def test_every_replacement_reads_after_use():
    """The suggestion is "use {instead}": no replacement may start with a verb of its own
    ("use check whether…")."""
    from kb.migrate.audit_deps import CUDA_ONLY_PACKAGES

    for package in CUDA_ONLY_PACKAGES.values():
        assert package.instead.split()[0].lower() not in ("check", "use", "replace", "see"), package.instead
