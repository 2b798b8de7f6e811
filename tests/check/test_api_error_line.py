"""kb.check's input errors are the CLI's one visible line, also when the path they echo holds
a line break or a terminal escape (report-r2-30 #5)."""

from __future__ import annotations

import pytest

import kb
from kb.check.model_formats import ModelInputError


def test_a_hostile_path_is_one_visible_line(tmp_path):
    path = str(tmp_path / "no\nsuch\x1b[31m.pt2")
    with pytest.raises(ModelInputError) as caught:
        kb.check(path, targets=("neuron",))
    message = str(caught.value)
    assert "\n" not in message and "\x1b" not in message
    assert "such\\x1b[31m.pt2: no such file" in message
