"""Dispatcher replay vs the real package: replay TorchTPU 0.2.0 from its kernel list and
compare every overload × mode with the static probe of the installed package (shipped in
data/probes). Goal: ≥ 99.5% agreement; every difference listed with its reason.

Then, per target, the overloads by *effective* status (where they run) in the shipped KB,
and the share still unknown (goal for neuron eager: < 1%).

    .venv/bin/python bench/replay_agreement.py [--no-trace]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def static_probe(path: str) -> dict[tuple[str, str], str]:
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["record"] == "op_status":
                out[(row["op"], row["mode"])] = row["status"]
    return out


def agreement(trace: bool) -> None:
    from kb.probe import replay
    from kb.store.catalog import read_catalog, shipped_catalogs

    spec = replay.load_spec(os.path.join(REPO, "data", "replay", "tpu-0.2.0.json"))
    started = time.perf_counter()
    _run, statuses = replay.replay(spec, read_catalog(shipped_catalogs()[-1]), trace=trace, workers=2)
    seconds = time.perf_counter() - started
    mine = {(s.op, s.mode): s.status for s in statuses}
    real = static_probe(os.path.join(REPO, "data", "probes", "static-torch_tpu-0.2.0.jsonl"))
    keys = sorted(set(mine) | set(real))
    same = sum(1 for k in keys if mine.get(k) == real.get(k))
    print(f"TorchTPU 0.2.0 replay vs static probe of the package: {same}/{len(keys)} overload × mode agree "
          f"= {100 * same / len(keys):.2f}% (goal >= 99.5%); replay took {seconds:.1f} s (trace={trace})")
    per_class = Counter()
    totals = Counter()
    for k in keys:
        totals[real.get(k, "absent")] += 1
        if mine.get(k) == real.get(k):
            per_class[real.get(k, "absent")] += 1
    for status in sorted(totals):
        print(f"  {status:12} {per_class[status]:5}/{totals[status]:5} agree")
    for op, mode in keys:
        if mine.get((op, mode)) != real.get((op, mode)):
            print(f"  differs: {op} [{mode}] replay={mine.get((op, mode), 'absent')} package={real.get((op, mode), 'absent')}"
                  f" — {reason(op, mine.get((op, mode)), real.get((op, mode)))}")


def reason(op: str, mine: str | None, real: str | None) -> str:
    if mine is None:
        return "an overload the package defines itself (its own schema): the sim, without the package, has no such op"
    if real is None:
        return "this torch knows the overload, the package's probe did not list it"
    return "the sim could not take a Python kernel for it (the real package registers a C++ one)"


def effective_shares() -> None:
    from kb.store import queries
    from kb.store.db import open_kb

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["KB_CACHE_DIR"] = tmp
        conn = open_kb(os.path.join(tmp, "kb.sqlite"))
        catalog = conn.execute("SELECT count(*) FROM op").fetchone()[0]
        for target in ("neuron", "tpu", "neuron-xla", "inf1"):
            version = queries.latest_release_with_verdicts(conn, target)
            rows = conn.execute(
                "SELECT COALESCE(s.effective_status, s.status || ' (leaves not traced)'), s.basis, count(*) "
                "FROM support s JOIN release r ON r.id = s.release_id JOIN op ON op.name = s.op "
                "WHERE s.target = ? AND r.version = ? AND s.mode = 'eager' GROUP BY 1, 2", (target, version)).fetchall()
            known = sum(n for _s, _b, n in rows)
            print(f"{target} {version} eager: {known}/{catalog} overloads with a verdict, "
                  f"unknown {100 * (catalog - known) / catalog:.1f}%")
            for status, basis, n in sorted(rows, key=lambda r: (-r[2])):
                print(f"  {status:40} {basis:9} {n:5}")
        conn.close()


if __name__ == "__main__":
    agreement(trace="--no-trace" not in sys.argv)
    effective_shares()
