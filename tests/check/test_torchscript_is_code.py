"""TorchScript is code (issue 24): `torch.jit.load` runs an archive's __setstate__, which
can write a file, print, loop or allocate. Without --trust kb never loads one (no marker
file appears, one line naming --trust and torch.export, exit 2); with --trust it is loaded
in a child with a timeout and a memory limit whose stdout never reaches kb's."""

from __future__ import annotations

import json
import os

import pytest

from kb.check import model_formats as mf
from kb.errors import KBError
from tests import hostile_cases as hc

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ts")
    marker = str(folder / "MARKER")
    made = {kind: hc.torchscript_case(folder, kind, marker if kind == "marker" else "")
            for kind in ("marker", "print", "loop", "allocate")}
    made["bomb"] = hc.torchscript_bomb(folder, made["print"], inflated=64 << 20)
    made["marker_file"] = marker
    return made


@pytest.mark.parametrize("kind", ["marker", "print", "loop", "allocate"])
def test_without_trust_nothing_is_loaded(scripts, kind):
    result = hc.run_kb("check", scripts[kind], "--target", "tpu", "--format", "json", timeout=60)
    line = hc.one_line_error(result)
    assert "TorchScript" in line and "--trust" in line and "torch.export" in line
    assert not os.path.exists(scripts["marker_file"])
    assert result["out"] == ""
    assert result["rss_mib"] < 200, result  # torch is not even imported


def test_detect_recognises_but_never_loads(scripts):
    source = mf.detect(scripts["marker"])
    assert source.kind == mf.TORCHSCRIPT
    assert not os.path.exists(scripts["marker_file"])


def test_the_chat_tool_refuses_torchscript(scripts):
    from kb.chat import answer_model

    assert answer_model.SAFE_MODEL_KINDS == ("exported_program",)
    with pytest.raises(KBError, match="only ExportedProgram"):
        answer_model.check_model_file(None, scripts["marker"], ["tpu"])
    assert not os.path.exists(scripts["marker_file"])


def test_inflated_constants_are_refused_by_the_zip_bounds(scripts):
    result = hc.run_kb("check", scripts["bomb"], "--target", "tpu", "--trust", timeout=60)
    line = hc.one_line_error(result)
    assert "constants.pkl" in line and "bound" in line
    assert result["rss_mib"] < 200, result


@pytest.mark.heavy
def test_trusted_load_keeps_the_childs_stdout_out_of_json(scripts):
    result = hc.run_kb("check", scripts["print"], "--target", "tpu", "--trust", "--format", "json", timeout=180)
    assert result["code"] == 0, result["err"]
    body = json.loads(result["out"])  # the archive's print went to /dev/null, not here
    assert [op["op"] for op in body["reports"][0]["ops"]] == ["aten::add.Tensor", "aten::relu"]


@pytest.mark.heavy
def test_trusted_load_that_loops_is_stopped_by_the_timeout(scripts):
    result = hc.run_kb("check", scripts["loop"], "--target", "tpu", "--trust", env={"KB_TRUST_TIMEOUT": "5"},
                       timeout=90)
    assert "longer than 5 s" in hc.one_line_error(result)
    assert result["seconds"] < 60


def test_trusted_load_that_allocates_is_stopped_by_the_memory_limit(scripts):
    # __setstate__ asks for 8 GiB; the child may have 3 GiB of address space
    result = hc.run_kb("check", scripts["allocate"], "--target", "tpu", "--trust",
                       env={"KB_TRUST_MEMORY_MB": "3072"}, timeout=180)
    assert "memory" in hc.one_line_error(result)
    assert result["rss_mib"] < 1500, result


def test_trust_limits_are_checked(scripts):
    result = hc.run_kb("check", scripts["print"], "--target", "tpu", "--trust", env={"KB_TRUST_TIMEOUT": "soon"},
                       timeout=60)
    assert "KB_TRUST_TIMEOUT must be a whole number" in hc.one_line_error(result)
