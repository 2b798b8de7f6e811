"""Building the KB from data/: wall time at the size the shipped data is heading for.

Issue 2 targets about 1 s for a build. Synthetic data the size of three full static
probes (3,110 overloads x 2 modes x 3 targets) plus the real shipped data is built with
`kb db build` in a fresh process, and compared in the same run with a bare sqlite3
executemany of the same number of rows (the floor any builder pays).
Run: python bench/build_kb.py
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def synthetic_probe(path: str, target: str, version: str, ops: list[str]) -> int:
    run = f"bench-{target}"
    lines = [json.dumps({"record": "probe_run", "run_id": run, "kind": "static", "target": target, "backend": target,
                         "backend_version": version, "torch_version": "2.13.0", "python_version": "3.11",
                         "host": "bench", "started_at": "2026-11-30T00:00:00+00:00"})]
    statuses = ["native", "decomposed", "fallback", "unsupported"]
    for i, op in enumerate(ops):
        for mode in ("eager", "compile"):
            lines.append(json.dumps({"record": "op_status", "op": op, "target": target, "backend_version": version,
                                     "status": statuses[i % 4], "mode": mode,
                                     "provenance": {"source_kind": "static_probe", "source_name": "static_probe",
                                                    "retrieved_at": "2026-11-30T00:00:00+00:00",
                                                    "probe_run_id": run}}))
    with open(path, "w") as fh:
        fh.write("\n".join(sorted(lines)) + "\n")
    return len(lines) - 1


def main() -> None:
    work = tempfile.mkdtemp(prefix="kb-build-bench-")
    data = os.path.join(work, "data")
    shutil.copytree(os.path.join(REPO, "data"), data)
    with open(os.path.join(REPO, "data", "ops", "aten-torch-2.13.0.jsonl")) as fh:
        ops = [json.loads(line)["name"] for line in fh]
    os.makedirs(os.path.join(data, "bench"), exist_ok=True)
    rows = sum(synthetic_probe(os.path.join(data, "bench", f"{t}.jsonl"), t, v, ops)
               for t, v in (("sim", "bench"), ("meta", "2.13.0-bench"), ("cuda", "2.13.0-bench")))
    env = {**os.environ, "KB_DATA_DIR": data, "KB_DB": os.path.join(work, "kb.sqlite"), "KB_CACHE_DIR": work}
    kb = shutil.which("kb", path=os.path.dirname(sys.executable)) or "kb"

    start = time.perf_counter()
    subprocess.run([kb, "db", "build", "--clean"], env=env, check=True, capture_output=True)
    build = time.perf_counter() - start

    start = time.perf_counter()
    conn = sqlite3.connect(os.path.join(work, "floor.sqlite"))
    conn.execute("CREATE TABLE o (op TEXT, target TEXT, mode TEXT, status TEXT, fp TEXT UNIQUE)")
    conn.executemany("INSERT INTO o VALUES (?, ?, ?, ?, ?)",
                     ((op, t, m, "native", f"{op}{t}{m}") for t in ("a", "b", "c") for op in ops for m in ("e", "c")))
    conn.commit()
    floor = time.perf_counter() - start

    print(f"kb db build with {rows} synthetic probe observations + shipped data: {build:.2f} s (target about 1 s)")
    print(f"bare sqlite3 executemany of {rows} rows: {floor:.3f} s; ratio {build / floor:.1f}x")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
