"""The shipped TorchTPU 0.2.0 static probe, pinned in the default suite (the heavy test
re-probes a real install): a change of these counts is a change of what kb tells users,
and must show up as a failing test, not only in a diff of data/."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kb.store import db, queries
from kb.store.records import read_jsonl

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "probes" / "static-torch_tpu-0.2.0.jsonl"
COUNTS = {"native": 674, "decomposed": 2031, "unsupported": 406}  # per mode, eager and compile alike
TABLE_SHA256 = "7313d20be8a8135b1350f9537ae4fccbf8ddfe72c6289dc635271c113967008c"


def test_shipped_tpu_probe_counts():
    run, *statuses = read_jsonl(SHIPPED.read_text(encoding="utf-8").splitlines())
    assert (run.target, run.backend_version, run.params["table_sha256"]) == ("tpu", "0.2.0", TABLE_SHA256)
    for mode in ("eager", "compile"):
        assert dict(Counter(s.status for s in statuses if s.mode == mode)) == COUNTS


def test_the_kb_built_from_it_says_the_same(tmp_path):
    conn = db.open_kb(str(tmp_path / "kb.sqlite"))
    verdicts = queries.support_map(conn, "tpu", "0.2.0", "eager")
    assert dict(Counter((v["source_kind"], v["status"]) for v in verdicts.values())) == {
        ("static_probe", status): count for status, count in COUNTS.items()}
