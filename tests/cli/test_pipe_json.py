"""A reader that stops early (`kb ... --json | (sleep 1; head -1)`) ends kb with the quiet
exit 141 for every large output, as it does for text (report t26b item 3): one big write to
a pipe used to lose its rest without an error and exit 0 (cli.entry._GuardedStdout._direct)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

BIG = [["ops", "-t", "neuron", "--json"], ["ops", "-t", "tpu", "--json"], ["serve", "--get", "/kb/coverage"],
       ["serve", "--get", "/kb/coverage.json", "--json"]]


@pytest.fixture
def shipped_kb():
    """The shipped KB built (copied) in-process once, so each subprocess only reads it."""
    from kb.store.db import open_kb

    open_kb().close()


def _cut(args: list[str], reader: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    kb = " ".join([sys.executable, "-m", "cli.entry", *args])
    return subprocess.run(["bash", "-c", f"{kb} | ({reader}) >/dev/null; exit ${{PIPESTATUS[0]}}"],
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env, timeout=120)


@pytest.mark.heavy
@pytest.mark.parametrize("args", BIG, ids=" ".join)
def test_a_late_reader_that_stops_gets_141_for_big_outputs(shipped_kb, args):
    proc = _cut(args, "sleep 1; head -1")
    assert proc.returncode == 141, proc.stderr
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


@pytest.mark.heavy
def test_head_c_on_json_is_141_and_a_full_read_is_0(shipped_kb):
    assert _cut(BIG[0], "head -c 10").returncode == 141
    assert _cut(BIG[0], "cat").returncode == 0


def test_large_writes_reach_a_stream_without_fd_whole(capsys):
    """In-process (no fd 1 of its own): a large text still goes through the stream, whole."""
    from cli import entry

    guarded = entry._GuardedStdout(sys.stdout)
    text = "x" * (entry.DIRECT_WRITE * 3) + "\n"
    assert guarded.write(text) == len(text)
    assert capsys.readouterr().out == text
