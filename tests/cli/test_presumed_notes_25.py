"""Issue 25 follow-ups: what presumed verdicts rest on is said where they are shown —
kb op shows every package an SDK release spelling names, kb diff says when both sides
are presumed from the same version, kb targets prints the basis notice."""

import json

from tests.conftest import run_kb


def test_op_with_an_sdk_release_shows_every_package_of_it(isolated_kb, capsys):
    code, out, err = run_kb(capsys, "op", "aten::add.Tensor", "-t", "neuron=2.33")
    rows = [line.split() for line in out.splitlines() if line.startswith("neuron ")]
    assert code == 0 and {r[1] for r in rows} == {"2.13.3.0", "2.14.3.0"}
    assert "not shown" not in err
    # a single package keeps the newest-only table (and, under --verbose, says what it left out)
    code, out, err = run_kb(capsys, "op", "aten::add.Tensor", "-t", "neuron", "--verbose")
    rows = [line.split() for line in out.splitlines() if line.startswith("neuron ")]
    assert "2.13.3.0" not in {r[1] for r in rows} and "not shown" in err


def test_diff_of_two_presumed_sides_says_it_is_no_evidence(isolated_kb, capsys):
    code, out, err = run_kb(capsys, "diff", "neuron", "2.33", "2.34", "--json")
    same = json.loads(out)["same_presumed_source"]
    assert code == 0 and same["sources"] == ["0.1.0.dev0+g98154b8"] and same["ops"] > 3000
    code, out, err = run_kb(capsys, "diff", "neuron", "2.33", "2.34")
    lines = [line for line in out.splitlines() if "no evidence of a difference" in line]  # under the table
    assert len(lines) == 1 and "both sides are presumed from 0.1.0.dev0+g98154b8" in lines[0]
    # two versions with evidence of their own: no such line, the field is null
    code, out, err = run_kb(capsys, "diff", "tpu", "0.1.1", "0.2.0", "--json")
    assert json.loads(out)["same_presumed_source"] is None


def test_targets_prints_the_basis_notice(isolated_kb, capsys):
    code, out, err = run_kb(capsys, "targets", "-t", "neuron")
    # the folded basis line every table prints (t26 r2 #9); --verbose: the per-version note
    notices = [line for line in err.splitlines() if "presumed from the pre-release snapshot 0.1.0.dev0+g98154b8" in line]
    assert code == 0 and len([line for line in err.splitlines() if "setting up" not in line]) == 1 and len(notices) == 1
    assert notices[0].startswith("kb: basis: neuron: ") and "2.14.3.1" in notices[0] and "as of" in notices[0]
    code, out, err = run_kb(capsys, "targets", "-t", "neuron", "--verbose")
    notices = [line for line in err.splitlines() if "are presumed from 0.1.0.dev0+g98154b8" in line]
    assert code == 0 and len(notices) == 1 and "neuron 2.14.3.1" in notices[0] and "as of" in notices[0]
    code, out, err = run_kb(capsys, "targets", "-t", "neuron", "--json")
    (row,) = json.loads(out)["targets"]
    assert "presumed from 0.1.0.dev0+g98154b8" in row["basis_note"]
