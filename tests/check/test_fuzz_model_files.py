"""Fuzz: mutated model files (TorchScript archives among them; 150 in the default suite, 1,100 under heavy) through `kb check`
in-process, and mutated probe reports through `kb ingest`. Whatever the bytes, kb answers
with exit 0, 1 or 2, never a traceback, and its memory stays bounded."""

from __future__ import annotations

import io
import json
import random
import resource
import time
import zipfile

import pytest

MUTANTS = 1100
TIME_BUDGET_S = 180  # a guard against a hang, not a speed target


def _mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        at = rng.randrange(max(len(out), 1))
        if choice < 0.35 and out:
            out[at] = rng.randrange(256)
        elif choice < 0.5:
            del out[at:]
        elif choice < 0.7:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif choice < 0.85 and out:
            chunk = out[at:at + rng.randint(1, 64)]
            out[at:at] = chunk * rng.randint(2, 50)
        elif out:
            del out[at:at + rng.randint(1, 32)]
    return bytes(out)


def _rezip(archive: bytes, member_suffix: str, rng: random.Random) -> bytes:
    """The archive again with one member's content mutated (a well-formed zip, odd insides)."""
    src = zipfile.ZipFile(io.BytesIO(archive))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith(member_suffix):
                data = _mutate(data, rng)
            dst.writestr(info, data)
    return buf.getvalue()


def _seeds(saved) -> dict[str, bytes]:
    import pickle

    mlp = saved["mlp"]
    read = lambda p: open(p, "rb").read()  # noqa: E731
    return {
        "state_zip": read(mlp["state_dict"]),
        "pickled_zip": read(mlp["pickled"]),
        "checkpoint_zip": read(mlp["checkpoint"]),
        "raw_pickle": pickle.dumps({"w": [1, 2.5, "x", (3, 4)], "n": None}, protocol=2),
        "exported": read(mlp["exported_program"]),
        "torchscript": read(mlp["torchscript"]),
    }


# The default suite runs a prefix of each fuzz run (the same seeded sequence); the whole run
# is heavy (`pytest -m heavy`, which .ci/run runs), so the default suite stays in budget.
@pytest.mark.parametrize("mutants", [30, pytest.param(MUTANTS, marks=pytest.mark.heavy)])
def test_mutated_model_files_never_crash(saved, workdir, run_cli, mutants):
    rng = random.Random(16)
    seeds = _seeds(saved)
    started = time.monotonic()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    codes: dict[int, int] = {}
    marker = workdir / "MARKER"
    for number in range(mutants):
        kind = rng.choice(["state_zip", "pickled_zip", "checkpoint_zip", "raw_pickle", "raw_pickle", "exported_json",
                           "zip_pickle", "torchscript", "ts_code", "ts_constants"])
        if kind == "ts_code":
            data = _rezip(seeds["torchscript"], ".py", rng)
        elif kind == "ts_constants":
            data = _rezip(seeds["torchscript"], "constants.pkl", rng)
        elif kind == "exported_json":
            data = _rezip(seeds["exported"], "models/model.json", rng)
        elif kind == "zip_pickle":
            data = _rezip(seeds[rng.choice(["state_zip", "pickled_zip"])], "data.pkl", rng)
        else:
            data = _mutate(seeds[kind], rng)
        path = workdir / f"m{number % 8}.bin"
        path.write_bytes(data)
        # a trusted TorchScript archive loads in a child (seconds each): test_trusted_torchscript_mutants
        trust = ["--trust"] if rng.random() < 0.3 and not kind.startswith(("torchscript", "ts_")) else []
        code, _out, err = run_cli("check", path, "--input-shape", "2x8", *trust)
        assert code in (0, 1, 2), (kind, err)
        assert "Traceback" not in err and len([line for line in err.splitlines() if line.strip()]) <= 1, (kind, err)
        assert "kb: error: unexpected" not in err, (kind, err)  # the entry point's safety net is not the answer
        codes[code] = codes.get(code, 0) + 1
        assert time.monotonic() - started < TIME_BUDGET_S, f"{number} mutants in {TIME_BUDGET_S} s"
    assert not marker.exists()
    assert sum(codes.values()) == mutants
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - rss_before
    assert grown < 300, f"peak memory grew {grown:.0f} MiB"


@pytest.mark.heavy
def test_trusted_torchscript_mutants_fail_in_one_line(saved, workdir, run_cli):
    """A few mutated TorchScript archives with --trust: the child's failure is one line."""
    rng = random.Random(24)
    seed = open(saved["mlp"]["torchscript"], "rb").read()
    for number in range(4):
        data = _rezip(seed, ".py" if number % 2 else "constants.pkl", rng)
        path = workdir / f"ts{number}.pt"
        path.write_bytes(data)
        code, out, err = run_cli("check", path, "--input-shape", "2x8", "--trust", "--format", "json")
        assert code in (0, 1, 2), err
        assert "Traceback" not in err and len([line for line in err.splitlines() if line.strip()]) <= 1, err
        if code in (0, 1):
            json.loads(out)


REPORT_MUTANTS = 400


def _report_seed() -> bytes:
    from kb.store.records import dumps
    from tests.conftest import op_status, probe_run

    lines = [dumps(probe_run("fuzz-run")), dumps(op_status("aten::add.Tensor", "native")),
             dumps(op_status("aten::nonzero", "fallback"))]
    return ("\n".join(lines) + "\n").encode()


_HOSTILE_LINES = [
    b"[" * 50_000 + b"]" * 50_000,
    b'{"record": "probe_run", "params": {"shard": {"index": 1, "count": 999999999999}}}',
    b'"just a string"',
    b"\xff\xfe not utf-8",
    b'{"record": "op_status", "dtypes": "float32"}',
    b'{"record": "probe_run", "run_id": ' + b'"x' + b"y" * 200_000 + b'"}',
]


@pytest.mark.parametrize("mutants", [25, pytest.param(REPORT_MUTANTS, marks=pytest.mark.heavy)])
def test_mutated_reports_never_crash(workdir, run_cli, mutants):
    rng = random.Random(2024)
    seed = _report_seed()
    started = time.monotonic()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for number in range(mutants):
        data = _mutate(seed, rng)
        if rng.random() < 0.25:
            lines = data.split(b"\n")
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(_HOSTILE_LINES))
            data = b"\n".join(lines)
        path = workdir / f"r{number % 8}.jsonl"
        path.write_bytes(data)
        code, out, err = run_cli("ingest", path, "--dry-run", "--json")
        assert code in (0, 2), err
        assert "Traceback" not in err and "kb: error: unexpected" not in err, err
        assert len([line for line in err.splitlines() if line.strip()]) <= 1, err
        json.loads(out)
        assert time.monotonic() - started < TIME_BUDGET_S, f"{number} reports in {TIME_BUDGET_S} s"
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - rss_before
    assert grown < 300, f"peak memory grew {grown:.0f} MiB"
