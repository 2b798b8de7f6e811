"""`kb serve` page loads on a full-size KB, as ratios to Datasette's plain table page.

Target (issue 8): the coverage matrix (canned query) and the faceted support table each
≤ 1.5 × stock Datasette's page for the same `support` table (no kb metadata, no plugin,
its default settings), measured in the same run through Datasette's ASGI client. A
stricter column compares with that page without its facet suggestions (which kb serve
turns off). Both are measured again with the indexes proposed for the schema. The KB is synthetic: every
ATen overload of the shipped catalog (3,110) × 5 targets × 3 versions, eager, one
observation per verdict, written straight with SQL (ingest would take minutes and is
not what is measured). Run: python bench/serve_pages.py   (BENCH_RUNS=10 by default)
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kb import paths  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "10"))
TARGETS = {"neuron": "torchneuron", "tpu": "torch_tpu", "neuron-xla": "torch-neuronx-xla", "cpu": "torch",
           "meta": "torch"}
VERSIONS = ("1.0.0", "1.1.0", "2.0.0")
STATUSES = ("native",) * 6 + ("decomposed",) * 2 + ("fallback", "unsupported")
TARGET = 1.5


def catalog_ops() -> list[str]:
    with open(os.path.join(paths.PACKAGE_ROOT, "data", "ops", "aten-torch-2.13.0.jsonl"), encoding="utf-8") as fh:
        return [json.loads(line)["name"] for line in fh if line.strip()]


def build_kb(path: str) -> int:
    """A KB of this kb's schema filled with synthetic verdicts; returns the verdict count."""
    from kb.store.dbfile import data_fingerprint, open_for_write

    conn = open_for_write(path)
    rng = random.Random(8)
    at = "2026-11-30T00:00:00+00:00"
    with conn:
        # the current data/'s fingerprint, so that `kb serve` takes this KB as built (no rebuild)
        conn.execute("INSERT INTO kbmeta VALUES ('data_fingerprint', ?)", (data_fingerprint(),))
        for name, product in TARGETS.items():
            conn.execute("INSERT INTO target (name, label, product, dispatch_key) VALUES (?, ?, ?, 'PrivateUse1')",
                         (name, name.upper(), product))
        releases = {}
        for product in TARGETS.values():
            for version in VERSIONS:
                key = (product, version)
                if key not in releases:
                    cur = conn.execute("INSERT INTO release (product, version, source_kind, source_name, retrieved_at) "
                                       "VALUES (?, ?, 'doc', 'bench', ?)", (*key, at))
                    releases[key] = cur.lastrowid
        obs, sup = [], []
        for op in catalog_ops():
            for name, product in TARGETS.items():
                for version in VERSIONS:
                    status = rng.choice(STATUSES)
                    oid = len(obs) + 1
                    url = f"https://example.test/{name}/{version}"
                    obs.append((oid, op, name, releases[(product, version)], "eager", status, "doc", "bench", url,
                                at, at, "shipped", f"{oid}"))
                    sup.append((op, name, releases[(product, version)], "eager", status, "doc", "bench", url, at, oid,
                                json.dumps({"bench": status})))
        conn.executemany("INSERT INTO observation (id, op, target, release_id, mode, status, source_kind, source_name, "
                         "source_url, retrieved_at, ingested_at, origin, fingerprint) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", obs)
        conn.executemany("INSERT INTO support_stored (op, target, release_id, mode, status, source_kind, source_name, "
                         "source_url, retrieved_at, observation_id, sources) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         sup)
    conn.execute("PRAGMA journal_mode = DELETE")  # merge the WAL: the server opens the file immutable
    conn.close()
    return len(sup)


async def median_ms(ds, path: str) -> float:
    response = await ds.client.get(path)  # warm: schema, counts, connections
    assert response.status_code == 200, (path, response.status_code, response.text[:300])
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        response = await ds.client.get(path)
        times.append(time.perf_counter() - start)
        assert response.status_code == 200
    return statistics.median(times) * 1000


# Indexes proposed for the KB schema (a migration step): each facet of the support table
# counts one column over every verdict; an index on it turns that scan into an index scan.
PROPOSED_INDEXES = (
    "CREATE INDEX IF NOT EXISTS ix_support_target ON support (target)",
    "CREATE INDEX IF NOT EXISTS ix_support_status ON support (status)",
    "CREATE INDEX IF NOT EXISTS ix_support_source_kind ON support (source_kind)",
    "CREATE INDEX IF NOT EXISTS ix_support_mode ON support (mode)",
    "CREATE INDEX IF NOT EXISTS ix_support_release_id ON support (release_id)",
)

BASELINE = "stock Datasette /support (its defaults)"
STRICT = "stock Datasette /support, no facet suggestions"
MEASURED = ("kb serve /kb/coverage (1,000 rows)", "kb serve /kb/support (5 facets)")


async def measure(path: str) -> dict[str, float]:
    from datasette.app import Datasette

    from kb.serve.launch import make_datasette

    plain = Datasette(immutables=[path])
    plain_name = next(name for name, db in plain.databases.items() if db.path)
    ours = make_datasette(path)
    return {
        BASELINE: await median_ms(plain, f"/{plain_name}/support"),
        STRICT: await median_ms(plain, f"/{plain_name}/support?_nosuggest=1"),
        MEASURED[0]: await median_ms(ours, "/kb/coverage"),
        MEASURED[1]: await median_ms(ours, "/kb/support"),
        "kb serve /kb/coverage?grep=aten::nonzero": await median_ms(ours, "/kb/coverage?grep=aten::nonzero"),
    }


def report(title: str, results: dict[str, float]) -> float:
    print(title)
    for name, ms in results.items():
        print(f"  {name:48s} {ms:8.1f} ms  {ms / results[BASELINE]:5.2f}×  ({ms / results[STRICT]:5.2f}× strict)")
    return max(results[name] / results[BASELINE] for name in MEASURED)


def start_seconds(db: str) -> float:
    """Wall time from `kb serve` (a fresh process) on the full KB to its first coverage page."""
    import socket
    import subprocess

    import httpx

    env = {**os.environ, "KB_CACHE_DIR": os.path.dirname(db), "KB_DB": db}
    cli = [sys.executable, "-m", "cli.entry"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    start = time.perf_counter()
    proc = subprocess.Popen([*cli, "serve", "--port", str(port)], env=env, cwd=root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/kb/coverage", timeout=5).status_code == 200:
                    return time.perf_counter() - start
            except httpx.TransportError:
                time.sleep(0.02)
            if proc.poll() is not None:
                raise SystemExit("kb serve exited before answering")
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    workdir = tempfile.mkdtemp(prefix="kb-bench-serve-")
    path = os.path.join(workdir, "kb.sqlite")
    start = time.perf_counter()
    verdicts = build_kb(path)
    print(f"synthetic KB: {verdicts} verdicts ({len(TARGETS)} targets × {len(VERSIONS)} versions), "
          f"built in {time.perf_counter() - start:.1f} s, {os.path.getsize(path) / 1e6:.1f} MB; median of {RUNS}")
    worst = report("schema as it is:", asyncio.run(measure(path)))
    conn = sqlite3.connect(path)
    for sql in PROPOSED_INDEXES:
        conn.execute(sql)
    conn.commit()
    conn.close()
    with_indexes = report("with the proposed support indexes (target, status, source_kind, mode, release_id):",
                          asyncio.run(measure(path)))
    print(f"worst ratio to stock Datasette's table page: {worst:.2f}× as is, {with_indexes:.2f}× with the indexes "
          f"(target ≤ {TARGET}×): {'ok' if min(worst, with_indexes) <= TARGET else 'OVER'}")
    print(f"kb serve start to its first coverage page on this KB: {start_seconds(path):.2f} s (target < 3 s)")
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
