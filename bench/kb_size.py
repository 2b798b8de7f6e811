"""Issue 26's KB-size figure in one run: the shipped KB's file size as built now (schema 8,
packed rows) against the same rows laid out as schema 7 stored them, and `kb op
aten::add.Tensor` on the built KB against `python -c pass` (goal <= 2.5), paired.

The schema-7 layout is made from the built file itself: the `observation` and
`support_stored` views written out as whole tables with schema 7's unique keys and indexes,
the packed tables dropped, VACUUM. So "before" and "after" hold exactly the same rows.

Run: python bench/kb_size.py [--pairs 8]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

MB = 1_000_000
SCHEMA_7_LAYOUT = """
CREATE TABLE observation_7 AS SELECT * FROM observation;
CREATE TABLE support_7 AS SELECT * FROM support_stored;
DROP VIEW support; DROP VIEW support_status; DROP VIEW observation; DROP VIEW support_stored;
DROP TABLE support_presumed; DROP TABLE support_packed; DROP TABLE observation_packed;
DROP TABLE kbtext; DROP TABLE provenance_source; DROP TABLE provenance_batch;
CREATE UNIQUE INDEX ux_observation_fingerprint ON observation_7 (fingerprint);
CREATE INDEX ix_observation_op ON observation_7 (op);
CREATE INDEX ix_observation_release_id ON observation_7 (release_id);
CREATE UNIQUE INDEX ux_support_key ON support_7 (op, target, release_id, mode);
CREATE INDEX ix_support_stored_op ON support_7 (op);
CREATE INDEX ix_support_stored_target ON support_7 (target);
CREATE INDEX ix_support_stored_release_id ON support_7 (release_id);
"""


def schema_7_size(built: str, presumed_bytes: int) -> int:
    """The file size of the same rows in schema 7's layout (support_presumed added back as is)."""
    with tempfile.TemporaryDirectory(prefix="kb-size-") as work:
        copy = os.path.join(work, "kb7.sqlite")
        shutil.copyfile(built, copy)
        conn = sqlite3.connect(copy)
        conn.executescript(SCHEMA_7_LAYOUT)
        conn.execute("VACUUM")
        conn.close()
        return os.path.getsize(copy) + presumed_bytes


def table_bytes(path: str, names: tuple[str, ...]) -> int:
    conn = sqlite3.connect(path)
    try:
        marks = ", ".join("?" * len(names))
        found = conn.execute(f"SELECT sum(pgsize) FROM dbstat WHERE name IN ({marks})", names).fetchone()[0]
    except sqlite3.OperationalError:  # an SQLite without the dbstat table
        found = None
    finally:
        conn.close()
    return found or 0


def _seconds(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=8)
    args = parser.parse_args()
    from kb.store import build

    kb = shutil.which("kb", path=os.path.dirname(sys.executable)) or "kb"
    with tempfile.TemporaryDirectory(prefix="kb-size-") as work:
        path = os.path.join(work, "kb.sqlite")
        started = time.perf_counter()
        build.write_prebuilt(path)  # the wheel's KB: what a first use copies
        build_s = time.perf_counter() - started
        after = os.path.getsize(path)
        presumed = table_bytes(path, ("support_presumed", "ix_support_presumed_from_id",
                                      "ix_support_presumed_release_id"))
        before = schema_7_size(path, presumed)
        env = {**os.environ, "KB_DB": path}
        subprocess.run([kb, "op", "aten::add.Tensor"], env=env, capture_output=True, check=False)  # warm
        pairs = []
        for _ in range(args.pairs):
            pairs.append((_seconds([kb, "op", "aten::add.Tensor"], env), _seconds([sys.executable, "-c", "pass"], env)))
    ratio = statistics.median(a / b for a, b in pairs)
    print(f"KB file, schema 7 layout of the same rows: {before / MB:5.1f} MB")
    print(f"KB file, schema 8 (packed), as built:      {after / MB:5.1f} MB  "
          f"({after / before:.2f} of before; goal <= 20 MB: {'ok' if after <= 20 * MB else 'MISSED'})")
    print(f"build of the shipped KB: {build_s:.1f} s")
    print(f"kb op aten::add.Tensor vs python -c pass: {ratio:.2f}x "
          f"(median of {len(pairs)} pairs, {statistics.median(a for a, _ in pairs) * 1000:.0f} ms; goal <= 2.5: "
          f"{'ok' if ratio <= 2.5 else 'MISSED'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
