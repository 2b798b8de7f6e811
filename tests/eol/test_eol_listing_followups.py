"""Issue 25 follow-ups in `kb eol PRODUCT`: a pre-release development snapshot is no
supported vendor release, and PRODUCT=VERSION is refused with the spelling that works."""

import json

import pytest

from tests.conftest import run_kb


def test_dev_snapshot_is_not_listed_as_a_supported_release(isolated_kb, capsys):
    code, out, _ = run_kb(capsys, "eol", "torch-neuronx", "--json")
    rows = {w["cycle"]: w for w in json.loads(out)["windows"] if w["product"] == "torchneuron"}
    assert code == 0 and "2.14.3.1" in rows and "0.1.0.dev0+g98154b8" not in rows
    code, out, _ = run_kb(capsys, "eol", "torch-neuronx")
    assert "0.1.0.dev0" not in out


@pytest.mark.parametrize("spelling", ["neuron=2.34", "torch-neuronx=2.14.3.1"])
def test_product_equals_version_is_refused_with_the_stack_spelling(isolated_kb, capsys, spelling):
    code, out, err = run_kb(capsys, "eol", spelling)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f'kb eol --stack "{spelling}"' in err and "Traceback" not in err
    code, out, err = run_kb(capsys, "eol", spelling, "--json")
    assert code == 2 and len(err.strip().splitlines()) == 1
