"""Fixtures for the kb serve tests: one fixture KB per module, a copy per test."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.serve import kbfixture


@pytest.fixture(scope="module")
def built_kb(tmp_path_factory):
    """(data dir, KB file) built once per test module; tests use copies (see `kb_file`)."""
    root = tmp_path_factory.mktemp("servekb")
    data = kbfixture.make_data_dir(root / "data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KB_DATA_DIR", str(data))
        mp.setenv("KB_CACHE_DIR", str(root / "cache"))
        kbfixture.build(str(root / "kb.sqlite"))
    assert not os.path.exists(root / "kb.sqlite-wal")
    return data, root / "kb.sqlite"


@pytest.fixture
def kb_file(built_kb, isolated_kb, monkeypatch):
    """This test's own copy of the fixture KB at KB_DB, with KB_DATA_DIR set to match it."""
    data, path = built_kb
    monkeypatch.setenv("KB_DATA_DIR", str(data))
    shutil.copy(path, isolated_kb)
    return str(isolated_kb)
