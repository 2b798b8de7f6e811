"""kb where people already work (issue 28): the pre-commit hooks and the GitHub Action.

- `.pre-commit-hooks.yaml` is a valid manifest (pre-commit's own validator), its entries
  parse with kb's parser, and `pre-commit try-repo` of this checkout runs both hooks on a
  temporary git repository (heavy: pre-commit builds the hook's virtualenv with the core
  package from the checkout, its dependencies from the configured index, no torch).
- `action.yml` validates against schemastore's GitHub Action schema (the copy that
  check-jsonschema ships: `--builtin-schema vendor.github-actions`), every `kb ...` line of
  its steps parses with the real typer app once the shell's expansions are replaced by
  sample values, and its check step runs in bash against real exports (heavy).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

ACTION = REPO / "action.yml"
HOOKS = REPO / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent
# What the action's shell expands, as a run would: the sample values a parse stands in for them.
SHELL_SAMPLES = {
    '"${args[@]}"': "--target neuron --target tpu=0.2.0 --fail-on fallback",
    '"${files[@]}"': "models/a.pt2 'models/with space.pt2'",
    '"$sarif"': "/tmp/runner/kb.sarif",
    '"$GITHUB_STEP_SUMMARY"': "/tmp/runner/summary.md",
}


def parse_kb(line: str):
    """(click command, context) of a `kb ...` command line through the real app: every
    option and argument checked as a run would, without running anything."""
    import typer

    from cli.app import app

    args = shlex.split(line)
    assert args[0] == "kb", line
    command = typer.main.get_command(app)
    ctx = command.make_context("kb", args[1:])
    while hasattr(command, "resolve_command"):  # a group: descend to the subcommand
        name, command, rest = command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        ctx = command.make_context(name, rest, parent=ctx)
    return command, ctx


def _kb_lines(script: str) -> list[str]:
    lines = []
    for raw in script.splitlines():
        line = raw.strip()
        if re.match(r"kb\s", line):
            for shell, sample in SHELL_SAMPLES.items():
                line = line.replace(shell, sample)
            assert "$" not in line, f"an expansion the test has no sample for: {line}"
            lines.append(line)
    return lines


def _action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def _step(action: dict, step_id: str) -> dict:
    return next(step for step in action["runs"]["steps"] if step.get("id") == step_id)


# --- the action -------------------------------------------------------------------------------


def test_action_validates_against_the_github_action_schema():
    tool = shutil.which("check-jsonschema", path=str(BIN)) or shutil.which("check-jsonschema")
    if tool is None:
        pytest.skip("needs check-jsonschema (pip install -e '.[dev]')")
    done = subprocess.run([tool, "--builtin-schema", "vendor.github-actions", str(ACTION)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_action_is_composite_with_the_inputs_and_steps_asked_for():
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {"exports", "targets", "fail-on", "allow-empty", "python-version", "version"}
    uses = [step.get("uses", "") for step in action["runs"]["steps"]]
    assert any(u.startswith("actions/setup-python@") for u in uses)
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    check = _step(action, "check")
    assert "$GITHUB_STEP_SUMMARY" in check["run"] and "--sarif" in check["run"]
    for name in action["inputs"]:  # inputs reach the shell through env, never pasted into it
        assert "${{ inputs." + name + " }}" not in "".join(s.get("run", "") for s in action["runs"]["steps"]), name


def test_every_kb_line_of_the_action_parses_with_kbs_own_parser():
    scripts = [step["run"] for step in _action()["runs"]["steps"] if "run" in step]
    lines = [line for script in scripts for line in _kb_lines(script)]
    assert lines, "the action runs no kb command"
    for line in lines:
        command, ctx = parse_kb(line)
        assert command.name == "check" and ctx.parent.info_name == "ci"
        assert ctx.params["files"] == ["models/a.pt2", "models/with space.pt2"]
        assert ctx.params["target"] == ["neuron", "tpu=0.2.0"] and ctx.params["fail_on"] == "fallback"
        assert ctx.params["sarif"] == "/tmp/runner/kb.sarif"
        assert ctx.params["markdown"] == "/tmp/runner/summary.md"


def test_the_parser_used_above_does_refuse_bad_lines():
    from typer._click.exceptions import UsageError  # typer ships its own click

    for bad in ("kb ci check --bogus x.pt2", "kb ci chek x.pt2", "kb ci check --target"):
        with pytest.raises(UsageError):
            parse_kb(bad)


def _export(path: Path, name: str = "linear") -> Path:
    """A small ExportedProgram file: Linear then ReLU (every target runs them)."""
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    path.mkdir(parents=True, exist_ok=True)
    out = path / f"{name}.pt2"
    torch.export.save(torch.export.export(model, (torch.randn(2, 4),)), str(out))
    return out


EXPIRED = ('[[tool.kb.waivers]]\nop = "aten::linear"\nreason = "legacy head"\nexpires = 2020-01-01\n')


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KB_DATA_DIR", "VIRTUAL_ENV")}
    env.update(KB_CACHE_DIR=str(tmp_path / "cache"), KB_DB=str(tmp_path / "cache" / "kb.sqlite"), **extra)
    return env


@pytest.mark.heavy
def test_the_action_check_step_runs_in_bash(tmp_path):
    """The step's script as the runner runs it (bash -e), kb from this environment: the
    glob with ** and a space in a name, targets and fail-on from inputs, SARIF and the
    summary written, the gate's exit status in the step's outputs."""
    work = tmp_path / "repo"
    _export(work / "models" / "deep", "linear")
    shutil.copyfile(work / "models" / "deep" / "linear.pt2", work / "models" / "with space.pt2")
    (work / "pyproject.toml").write_text('[tool.kb]\nfail-on = "unsupported"\n' + EXPIRED, encoding="utf-8")
    script = _step(_action(), "check")["run"]
    runner = tmp_path / "runner"
    runner.mkdir()
    outputs, summary = runner / "output", runner / "summary.md"

    def run(**inputs: str) -> dict[str, str]:
        outputs.write_text("")
        env = _env(tmp_path, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", RUNNER_TEMP=str(runner),
                   GITHUB_OUTPUT=str(outputs), GITHUB_STEP_SUMMARY=str(summary),
                   KB_EXPORTS=inputs.get("exports", "**/*.pt2"), KB_TARGETS=inputs.get("targets", ""),
                   KB_FAIL_ON=inputs.get("fail_on", ""))
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=work, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return dict(line.split("=", 1) for line in outputs.read_text().splitlines()), done.stdout

    values, out = run(targets="neuron tpu")
    assert values["rc"] == "1"  # the expired waiver of aten::linear fails the gate
    assert "kb check models/deep/linear.pt2" in out and "kb check models/with space.pt2" in out
    assert re.search(r"waiver expired: aten::linear on neuron \(\w+\), tpu \(\w+\) was waived until 2020-01-01", out)
    import json

    sarif = json.loads(Path(values["sarif"]).read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"kb/expired-waiver"}
    assert "# kb: 2 export(s) checked, 2 failed the gate" in summary.read_text()
    (work / "pyproject.toml").write_text('[tool.kb]\nfail-on = "unsupported"\n', encoding="utf-8")
    values, out = run(exports="models/deep/*.pt2 nothing/*.pt2", targets="neuron", fail_on="unsupported")
    assert values["rc"] == "0" and "with space" not in out and "gate --fail-on unsupported: passed" in out


def test_the_action_fails_when_its_glob_matches_nothing_unless_allowed(tmp_path):
    """A typo in `exports` would turn the gate off: one error line and a failed step,
    unless `allow-empty: true`."""
    script = _step(_action(), "check")["run"]
    (tmp_path / "runner").mkdir()

    def run(allow: str):
        env = _env(tmp_path, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", RUNNER_TEMP=str(tmp_path / "runner"),
                   GITHUB_OUTPUT=str(tmp_path / "runner" / "output"),
                   GITHUB_STEP_SUMMARY=str(tmp_path / "runner" / "summary.md"),
                   KB_EXPORTS="nomatch/**/*.pt2", KB_TARGETS="", KB_FAIL_ON="", KB_ALLOW_EMPTY=allow)
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)

    done = run("false")
    assert done.returncode == 1
    assert done.stdout.splitlines() == ["::error title=kb::exports matched no file; set allow-empty: true if that "
                                        "is expected"]
    assert run("true").returncode == 0


# --- pre-commit ---------------------------------------------------------------------------------


def _pre_commit() -> str:
    tool = shutil.which("pre-commit", path=str(BIN)) or shutil.which("pre-commit")
    if tool is None:
        pytest.skip("needs pre-commit (pip install -e '.[dev]')")
    return tool


def test_the_hook_manifest_is_valid_and_installs_no_torch():
    done = subprocess.run([_pre_commit(), "validate-manifest", str(HOOKS)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    assert set(hooks) == {"kb-audit", "kb-check"}
    assert all(h["language"] == "python" and not h.get("additional_dependencies") for h in hooks.values())
    assert re.search(hooks["kb-check"]["files"], "models/net.pt2") and not re.search(hooks["kb-check"]["files"], "a.py")
    assert "python" in hooks["kb-audit"]["types_or"]


def test_the_hook_entries_parse_with_kbs_own_parser():
    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    command, ctx = parse_kb(hooks["kb-audit"]["entry"] + " src/a.py 'src/b c.py'")
    assert command.name == "audit" and ctx.params["files"] == ["src/a.py", "src/b c.py"]
    command, ctx = parse_kb(hooks["kb-check"]["entry"] + " models/a.pt2")
    assert command.name == "check" and ctx.params["files"] == ["models/a.pt2"]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.test",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.test"})


HOT = "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda()\n"
PORTABLE = "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x.to(x.device)\n"


@pytest.mark.heavy
def test_pre_commit_try_repo_runs_both_hooks(tmp_path):
    """Both hooks from this checkout on a fresh repository: they fail on CUDA lock-in in a
    forward and on an expired waiver, and pass once both are fixed; the hook's
    environment installs without torch."""
    tool = _pre_commit()
    if shutil.which("git") is None:
        pytest.skip("needs git")
    work = tmp_path / "project"
    work.mkdir()
    _git(work, "init", "-q", ".")
    (work / "net.py").write_text(HOT, encoding="utf-8")
    _export(work / "models")
    (work / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.kb]\ntargets = ["neuron", "tpu"]\n'
                                         'fail-on = "unsupported"\n' + EXPIRED, encoding="utf-8")
    _git(work, "add", "-A")
    # No torch in the hook's environment: a constraint no torch release meets makes pip fail
    # the hook's install if anything in it asked for torch (try-repo's store is temporary,
    # so the environment cannot be looked at afterwards).
    no_torch = tmp_path / "no-torch.txt"
    no_torch.write_text("torch<0\n", encoding="utf-8")
    env = _env(tmp_path, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PIP_CONSTRAINT=str(no_torch))

    def try_repo() -> subprocess.CompletedProcess:
        return subprocess.run([tool, "try-repo", str(REPO), "--all-files", "--color", "never"], cwd=work, env=env,
                              capture_output=True, text=True, timeout=1200, stdin=subprocess.DEVNULL)

    done = try_repo()
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert re.search(r"kb audit \(CUDA lock-in\)\.+Failed", out), out
    assert re.search(r"kb check \(\.pt2 exports\)\.+Failed", out), out
    assert "net.py:6" in out and "forward of Net" in out
    assert "waiver expired: aten::linear on neuron" in out and "legacy head" in out

    (work / "net.py").write_text(PORTABLE, encoding="utf-8")
    (work / "pyproject.toml").write_text('[tool.kb]\ntargets = ["neuron", "tpu"]\nfail-on = "unsupported"\n',
                                         encoding="utf-8")
    _git(work, "add", "-A")
    done = try_repo()
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert re.search(r"kb audit \(CUDA lock-in\)\.+Passed", out) and re.search(r"kb check \(\.pt2 exports\)\.+Passed", out)

