"""`kb eol --stack` against what a package's release page says it requires (kb.eol.windows.requirement_issues): a Python
or PyTorch outside the stated range is incompatible; a requirement only a local report file states moves nothing (s13)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from kb.eol.windows import requirement_issues

NOTE = "PyPI; Requires-Python >=3.11; requires torch >=2.11.0,<=2.15.0 and libtpu"


def _kb(report: dict | None) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE release (product TEXT, version TEXT, note TEXT, source_url TEXT, report TEXT)")
    conn.execute("INSERT INTO release VALUES ('torch_tpu', '0.2.0', ?, 'https://pypi.org/project/torch-tpu/0.2.0/', ?)",
                 (NOTE, json.dumps(report) if report else None))
    return conn


def _stack(python: str, torch: str) -> list[dict[str, str]]:
    return [{"product": "torch_tpu", "key": "torch_tpu", "version": "0.2.0"},
            {"product": "python", "key": "python", "version": python},
            {"product": "pytorch", "key": "pytorch", "version": torch}]


@pytest.mark.parametrize("python, torch, flagged", [
    ("3.10", "2.9", {"python=3.10", "pytorch=2.9"}),
    ("3.11", "2.13", set()),
    ("3.12", "2.15.0", set()),
    ("3.13", "2.16", {"pytorch=2.16"}),
])
def test_a_stack_outside_the_stated_range_is_incompatible(python, torch, flagged):
    issues = requirement_issues(_kb(None), _stack(python, torch))
    assert {i["component"] for i in issues} == flagged and all(i["kind"] == "incompatible" for i in issues)


def test_a_local_reports_requirement_moves_nothing():
    assert requirement_issues(_kb({"path": "mine.json"}), _stack("3.10", "2.9")) == []
