"""Hostile JSONL reports, generated: whatever a file's lines claim (kinds, names, links,
run ids, field types), `kb ingest` ends in exit 0 or a one-line exit 2, no row from the
file is stored as a vendor document or under a shipped source, no link but http(s)
survives, and the shipped verdict does not move."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from tests.conftest import op_status, run_kb, write_records

VENDOR = "https://vendor.example/ops.html"
KINDS = ["doc", "manual", "release_notes", "static_probe", "live_probe", "inferred", "field", "local_report", "nope", 7]
NAMES = ["vendor-op-table", "live_probe", "static_probe", "replay", "../../x", "", None, "local:other.jsonl"]
URLS = [VENDOR, "javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "https://", None, 5, "http://ok.example/"]
RUNS = [None, "shipped-run", "mine", "../../../run", "", 3]
DTYPES = [None, ["float32"], "float32", ["<b>"], [1], {"a": 1}]
STATUSES = ["native", "unsupported", "fallback", "partial", None]


@pytest.fixture
def shipped(small_data):
    from tests.conftest import probe_run

    write_records(small_data / "manual" / "vendor.jsonl", [
        op_status("aten::add.Tensor", "native", kind="manual", name="vendor-op-table", url=VENDOR)])
    write_records(small_data / "probes" / "shipped.jsonl", [
        probe_run("shipped-run", kind="static"),
        op_status("aten::relu", "native", kind="static_probe", name="static_probe", run="shipped-run")])
    return small_data


def _pick(rng: random.Random, good: list, bad: list):
    """Mostly well-formed values (so that lines get stored and their provenance is tested), some hostile."""
    return rng.choice(good) if rng.random() < 0.85 else rng.choice(bad)


def _line(rng: random.Random) -> dict:
    kind = rng.choice(["op_status", "op_status", "op_status", "probe_run", "support_window", "release"])
    prov = {"source_kind": _pick(rng, KINDS[:8], KINDS[8:]), "source_name": _pick(rng, NAMES[:5], NAMES[5:]),
            "source_url": _pick(rng, URLS[:5], URLS[5:]), "probe_run_id": _pick(rng, RUNS[:3], RUNS[3:]),
            "retrieved_at": "2030-01-01T00:00:00+00:00"}
    if prov["source_kind"] == "field":
        prov["source_kind"] = "doc"  # a verdict under kind field is refused by contract: test the rest
    prov = {k: v for k, v in prov.items() if v is not None or rng.random() < 0.2}
    if kind == "probe_run":
        return {"record": "probe_run", "run_id": _pick(rng, ["mine"], ["shipped-run", "../../r"]), "kind": "static",
                "target": "neuron", "backend": "b", "backend_version": "2.14.3.0", "torch_version": "2.13.0",
                "python_version": "3.11", "host": "h", "started_at": "2026-11-01T00:00:00+00:00"}
    if kind == "support_window":
        return {"record": "support_window", "product": "python", "cycle": "3.9", "eol": "2099-01-01",
                "eol_kind": "announced", "statement_date": "2030-01-01", "provenance": prov}
    if kind == "release":
        return {"record": "release", "product": "torchneuron", "version": "2.14.3.0", "date": "2020-01-01",
                "python_versions": _pick(rng, [["3.9"]], ["3.9"]), "provenance": prov}
    line = {"record": "op_status", "op": _pick(rng, ["aten::add.Tensor", "aten::relu", "aten::silu"], ["relu"]),
            "target": _pick(rng, ["neuron"], ["nowhere"]), "backend_version": "2.14.3.0",
            "status": _pick(rng, STATUSES[:3], STATUSES[3:]), "mode": "eager", "provenance": prov}
    dtypes = _pick(rng, DTYPES[:2], DTYPES[2:])
    if dtypes is not None:
        line["dtypes"] = dtypes
    return line


@pytest.mark.parametrize("seed", range(60))
def test_a_hostile_report_never_poses_as_a_vendor(shipped, isolated_kb, tmp_path, capsys, seed):
    rng = random.Random(seed)
    lines = [_line(rng) for _ in range(rng.randint(1, 4))]
    report = tmp_path / f"fuzz-{seed}.jsonl"
    report.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    run_kb(capsys, "db", "build", "--db", isolated_kb)
    code, out, err = run_kb(capsys, "ingest", report, "--db", isolated_kb)
    assert code in (0, 2), err
    assert "Traceback" not in err
    errors = [x for x in err.splitlines() if x.startswith("kb: error")]
    assert (code == 2) == bool(errors) and all("\n" not in x for x in errors)
    conn = sqlite3.connect(isolated_kb)
    for table in ("observation", "supportwindow", "limitation", "caveat"):
        rows = conn.execute(f"SELECT source_kind, source_name, source_url FROM {table} WHERE origin = 'report'")
        for kind, name, url in rows:
            assert kind not in ("doc", "manual", "release_notes"), (table, kind)
            assert url is None and name in ("live_probe", "static_probe", "replay") or name.startswith("local:")
    assert not conn.execute("SELECT count(*) FROM observation WHERE source_url IS NOT NULL "
                            "AND source_url NOT LIKE 'http%'").fetchone()[0]
    # the shipped verdict stands; the shipped run gained nothing
    verdict = conn.execute("SELECT status, source_name, report FROM support WHERE op = 'aten::add.Tensor' "
                           "AND release_id = (SELECT id FROM release WHERE version = '2.14.3.0')").fetchone()
    assert verdict == ("native", "vendor-op-table", None)
    assert conn.execute("SELECT count(*) FROM observation WHERE probe_run_id = 'shipped-run'").fetchone()[0] == 1
    release = conn.execute("SELECT date, python_versions FROM release WHERE product = 'torchneuron'").fetchone()
    assert release == (None, None)
