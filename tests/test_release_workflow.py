""".github/workflows/release.yml: valid against the published GitHub workflow schema; a tag
builds, checks and tests the very files it then publishes by trusted publishing (an OIDC
token, no stored secret), and the tag must match kb.__version__."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO, load_workflow

WORKFLOW = REPO / ".github" / "workflows" / "release.yml"


@pytest.fixture(scope="module")
def workflow() -> dict:
    return load_workflow(WORKFLOW)


def test_valid_against_the_published_workflow_schema():
    pytest.importorskip("check_jsonschema")
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(WORKFLOW)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_tag_builds_checks_tests_then_publishes(workflow):
    assert workflow["on"] == {"push": {"tags": ["v*"]}}
    assert workflow["permissions"] == {"contents": "read"}  # only the publish job gets a token
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    runs = [step.get("run", "") for step in build["steps"]]
    wanted = ["kb.__version__", "pip install torch==2.13.0", "python -m pytest -q", "python -m build --outdir dist",
              "twine check --strict dist/*", "-m heavy tests/test_package_wheel.py"]
    order = [next(i for i, r in enumerate(runs) if text in r) for text in wanted]
    assert order == sorted(order)
    upload = [s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload and upload[0]["with"]["path"] == "dist/"
    assert publish["needs"] == "build" and publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    uses = [s.get("uses", "") for s in publish["steps"]]
    assert uses[0].startswith("actions/download-artifact") and uses[-1].startswith("pypa/gh-action-pypi-publish")
    assert not any("password" in (s.get("with") or {}) for s in publish["steps"])  # trusted publishing, no token


def test_the_changelog_starts_and_ci_runs_the_wheel_test():
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.startswith("# Changelog") and "## Unreleased" in changelog and "torch-accel-kb" in changelog
    # CI runs every heavy test (the built wheel among them: tests/test_package_wheel.py)
    assert ".venv/bin/python -m pytest -q -m heavy\n" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
