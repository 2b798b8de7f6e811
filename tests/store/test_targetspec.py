"""The grammar of `--target` (kb.store.targetspec.split_specs): one version per target, and a target named both
without a version (every version) and with one is refused with a one-line reason, never silently narrowed (s12)."""

from __future__ import annotations

import pytest

from kb.errors import KBError
from kb.store.targetspec import split_specs


def test_targets_and_versions_in_the_order_given():
    assert split_specs(["neuron", "tpu=0.2.0", "neuron"]) == (["neuron", "tpu"], {"tpu": "0.2.0"})


@pytest.mark.parametrize("specs, said", [
    (["tpu", "tpu=0.1.1"], "--target tpu given both without a version (every version) and as tpu=0.1.1"),
    (["tpu=0.1.1", "tpu"], "--target tpu given both without a version (every version) and as tpu=0.1.1"),
    (["tpu=0.1.1", "tpu=0.2.0"], "--target tpu given two versions (0.1.1, 0.2.0)"),
])
def test_a_target_asked_two_ways_is_refused(specs, said):
    with pytest.raises(KBError, match=said.replace("(", r"\(").replace(")", r"\)")):
        split_specs(specs)


def test_the_cli_says_it_in_one_line(tmp_path):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "cli.entry", "op", "aten::median", "-t", "tpu", "-t", "tpu=0.1.1"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == ["kb: error: --target tpu given both without a version (every version) "
                                               "and as tpu=0.1.1; give one of them"]
