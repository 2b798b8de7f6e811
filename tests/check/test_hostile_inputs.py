"""Issue 16's hostile model files and factories, one test each: refused in one line
(exit 2), nothing run (a marker file never appears), memory and time bounded."""

from __future__ import annotations

import resource

import pytest

from kb.check import bounded_io as bio
from kb.check import model_formats as mf
from kb.check import trusted_pickle as tp
from tests.check import hostile_files as hostile

CODE_CASES = ["commands_check_call", "cprofile_run", "pydoc_pipepager", "computed_global", "legacy_fifth_pickle",
              "polyglot"]


def _one_line_error(code, err) -> str:
    assert code == 2, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("kb: error: "), err
    return lines[0]


@pytest.mark.parametrize("trust", [[], ["--trust"], ["--trust-module", "tests"]], ids=["plain", "trust", "trust-module"])
@pytest.mark.parametrize("case", CODE_CASES)
def test_code_never_runs(workdir, run_cli, case, trust):
    marker = workdir / "MARKER"
    path = getattr(hostile, case)(workdir, str(marker))
    code, _out, err = run_cli("check", path, "--input-shape", "2x8", *trust)
    _one_line_error(code, err)
    assert not marker.exists()


def test_the_unpickler_refuses_what_the_scan_might_miss(workdir):
    """Defence in depth: even handed straight to the loader, the payload does not run."""
    marker = workdir / "MARKER"
    for case in CODE_CASES[:-1]:
        path = getattr(hostile, case)(workdir, str(marker))
        source = mf.ModelSource(mf.PICKLED_MODULE, path, trusted_modules=("tests",))
        with pytest.raises(mf.ModelInputError):
            mf.load_pickled_module(source)
        assert not marker.exists(), case


def test_allow_list():
    assert tp.allowed_global("collections.OrderedDict")
    assert tp.allowed_global("torch.nn.modules.linear.Linear")
    assert tp.allowed_global("torch._utils._rebuild_tensor_v2")
    assert tp.allowed_global("mymodels.net.Net", ("mymodels",))
    for name in ("os.system", "posix.system", "commands.check_call", "cProfile.run", "pydoc.pipepager", "builtins.eval",
                 "builtins.getattr", "torch.load", "torch.hub.load", "torch.utils.cpp_extension.load_inline",
                 "mymodelsX.Net", "__main__.Net"):
        assert not tp.allowed_global(name, ("mymodels",)), name


@pytest.mark.parametrize("case, words", [
    ("encrypted_flag", "encrypted"),
    ("unknown_compression", "compression method"),
    ("deep_nesting", "nested deeper"),
])
def test_damaged_archives_are_one_line(workdir, run_cli, case, words):
    path = getattr(hostile, case)(workdir)
    code, _out, err = run_cli("check", path)
    assert words in _one_line_error(code, err)


def test_non_utf8_member_name_is_one_line(workdir, run_cli):
    code, _out, err = run_cli("check", hostile.non_utf8_name(workdir))
    _one_line_error(code, err)


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("case, bound", [
    (lambda d: hostile.zip_bomb_json(d, 256 << 20), "uncompressed"),
    (lambda d: hostile.zip_bomb_pickle(d, 256 << 20), "uncompressed"),
    (lambda d: hostile._zip_with(d, "ratio.pt", "archive/data.pkl", b"\x80\x02", 16 << 20, b"N"), "fold"),
    (lambda d: hostile.sparse_legacy(d, 3 << 30), "pickle"),
], ids=["json-bomb", "pickle-bomb", "pickle-ratio", "sparse-3GiB"])
def test_bombs_are_refused_naming_the_bound(workdir, run_cli, case, bound):
    path = case(workdir)
    before = _rss_mib()
    code, _out, err = run_cli("check", path)
    assert bound in _one_line_error(code, err)
    assert _rss_mib() - before < 300


def _opcodes_past_the_bound() -> bytes:
    return b"\x80\x02" + b"N0" * (bio.MAX_PICKLE_OPS // 2 + 10) + b"N."


def test_many_opcodes_hit_the_opcode_bound(monkeypatch):
    """The opcode count is checked as the scan goes (a smaller bound here, for speed; the heavy
    run crosses the real one)."""
    monkeypatch.setattr(bio, "MAX_PICKLE_OPS", 20_000)
    with pytest.raises(bio.BoundExceeded, match="20,000 pickle opcodes"):
        mf.pickle_globals(_opcodes_past_the_bound())


@pytest.mark.heavy
def test_many_opcodes_hit_the_real_opcode_bound():
    with pytest.raises(bio.BoundExceeded, match="opcodes"):
        mf.pickle_globals(_opcodes_past_the_bound())


def test_json_bounds():
    with pytest.raises(bio.BoundExceeded, match="nested"):
        bio.load_json(b"[" * 100_000 + b"]" * 100_000, "graph")
    with pytest.raises(bio.BoundExceeded, match="nested"):
        bio.load_json(b"[" * 600 + b"]" * 600, "graph")
    with pytest.raises(bio.BoundExceeded, match="MiB"):
        bio.load_json(b" " * 100, "graph", limit=10)


# --- factories -------------------------------------------------------------------------


FACTORY_HEAD = "import torch\n\n\ndef build():\n"


@pytest.mark.parametrize("body, words", [
    ("    import sys\n    sys.exit(0)\n", "SystemExit"),
    ("    import sys\n    sys.exit('msg')\n", "msg"),
    ("    class Odd(BaseException):\n        pass\n    raise Odd('odd')\n", "Odd"),
    ("    import os\n    os._exit(0)\n", "ended the tracing process"),
], ids=["exit-0", "exit-msg", "base-exception", "os-exit"])
def test_factory_that_ends_early_never_passes_the_gate(workdir, run_cli, body, words):
    (workdir / "model.py").write_text(FACTORY_HEAD + body)
    code, out, err = run_cli("check", "model.py:build", "--input-shape", "2x8", "--fail-on", "unsupported")
    assert words in _one_line_error(code, err)
    assert out == ""


@pytest.mark.heavy
def test_factory_that_hangs_is_stopped_by_timeout(workdir, run_cli):
    (workdir / "model.py").write_text(FACTORY_HEAD + "    import time\n    time.sleep(600)\n")
    code, _out, err = run_cli("check", "model.py:build", "--input-shape", "2x8", "--timeout", "8")
    assert "--timeout" in _one_line_error(code, err)
