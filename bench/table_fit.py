"""What fitting a table to COLUMNS costs (issue 26, second fresh-eyes round), as a ratio to
printing the same table unfitted in the same run.

`kb ops -t tpu` prints one row per overload of the op catalog (3,110 rows, six columns);
at COLUMNS=80 the fit cuts the op column, moves long notes to footnotes and wraps the
"where it runs" cells. Measured on the shipped catalog's names with the cells such a page
has, rendered to an in-memory stdout: fitted at 120 and 80 against unfitted (no COLUMNS).
Target: each ratio ≤ 3× (the fit reads each column a few times; the page prints in well
under the KB query it follows).
Run: python bench/table_fit.py   (BENCH_RUNS=5 by default)
"""

from __future__ import annotations

import io
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from cli import render  # noqa: E402
from kb import paths  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
TARGET = 3.0
COLUMNS = ["op", "status", "where it runs", "basis", "restriction", "source"]


def rows() -> list[list[str]]:
    with open(os.path.join(paths.PACKAGE_ROOT, "data", "ops", "aten-torch-2.13.0.jsonl"), encoding="utf-8") as fh:
        names = [json.loads(line)["name"] for line in fh if line.strip()]
    notes = ["", "only float32 and bfloat16 inputs; other dtypes fall back to the CPU", ""]
    return [[name, "decomposed" if i % 3 else "native", "leaves not traced" if i % 3 else "", "evidence",
             notes[i % 3], f"torch_tpu op list · https://example.test/torch_tpu/ops/{i // 50}.html"]
            for i, name in enumerate(names)]


def timed(table: list[list[str]], columns: str | None) -> float:
    times = []
    for _ in range(RUNS):
        if columns:
            os.environ["COLUMNS"] = columns
        else:
            os.environ.pop("COLUMNS", None)
        out, sys.stdout = sys.stdout, io.StringIO()
        render.FOOTNOTES_SHOWN = 0
        start = time.perf_counter()
        try:
            render.table(COLUMNS, table)
        finally:
            sys.stdout = out
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    table = rows()
    base = timed(table, None)
    worst = 0.0
    print(f"{len(table)} rows, median of {RUNS} runs; unfitted: {base * 1e3:.1f} ms")
    for columns in ("120", "80"):
        t = timed(table, columns)
        worst = max(worst, t / base)
        print(f"  COLUMNS={columns}: {t * 1e3:.1f} ms = {t / base:.2f}× unfitted")
    print(f"worst ratio: {worst:.2f}× (target ≤ {TARGET}×): {'ok' if worst <= TARGET else 'OVER'}")


if __name__ == "__main__":
    main()
