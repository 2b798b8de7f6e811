"""Arguments that used to pass leniently (exit 0/1, or a traceback) are usage errors:
exit 2 with one short line on stderr (issue 16, sections 3 and 7)."""

import os

import pytest

from kb.store import build
from tests.conftest import run_kb


def _one_line_usage_error(code: int, err: str) -> None:
    assert code == 2, err
    errors = [line for line in err.splitlines() if "(first use)" not in line]
    assert len(errors) == 1 and errors[0].startswith("kb: error: ") and "Traceback" not in err


@pytest.mark.parametrize("args", [
    ["compare", "neuron"],
    ["compare", "neuron", "neuron"],
    ["op", "aten::add."],
    ["op", "add", "--target", ""],
    ["eol", "--stack", "neuron=abc torch=="],
    ["ask", ""],
    ["serve", "--get", "/../../etc/passwd"],
    ["serve", "--get", "/kb/../../etc/passwd.json"],
    ["eol", "--within", "99999999999999999999d"],
    ["cost", "--price-per-hour", "1e308", "--tokens-per-second", "1e-308"],
])
def test_lenient_argument_is_a_usage_error(small_data, capsys, args):
    code, _, err = run_kb(capsys, *args)
    _one_line_usage_error(code, err)


def test_huge_argument_is_not_echoed_whole(small_data, capsys):
    code, _, err = run_kb(capsys, "op", "a" * 131_000)
    _one_line_usage_error(code, err)
    assert len(err.splitlines()[-1]) < 200


def test_extreme_but_valid_costs_still_compute(capsys):
    code, out, err = run_kb(capsys, "cost", "--price-per-hour", "1e11", "--tokens-per-second", "1e-9", "--json")
    assert code == 0 and "Traceback" not in err


def test_instance_family_still_goes_in_a_stack(small_data, capsys):
    code, _, err = run_kb(capsys, "eol", "--stack", "neuron=2.33 torch=2.9 trn2 xla=inference")
    assert code in (0, 1) and "error" not in err


def test_stale_building_files_are_removed_live_ones_kept(tmp_path):
    path = str(tmp_path / "kb.sqlite")
    dead = path + ".building-999999999"
    live = path + f".building-{os.getppid()}"
    for name in (dead, live):
        with open(name, "w") as fh:
            fh.write("half a KB")
    removed = build.remove_stale_builds(path)
    assert removed == [dead] and not os.path.exists(dead) and os.path.exists(live)


def test_unexpected_exception_is_one_line(monkeypatch, capsys):
    from cli import fast

    def boom(argv):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(fast, "try_run", boom)
    monkeypatch.delenv("KB_TRACEBACK", raising=False)
    code, _, err = run_kb(capsys, "op", "add")
    _one_line_usage_error(code, err)
