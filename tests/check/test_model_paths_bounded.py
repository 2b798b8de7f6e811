"""Every path `kb check` (and replay) opens is bounded before it is read (issue 24): a
device, a FIFO or a link to one is one line and exit 2 without waiting, and a few
hundred bytes of pickle never cost gigabytes."""

from __future__ import annotations

import os

import pytest

from kb.check import bounded_io as bio
from kb.check import model_formats as mf
from tests import hostile_cases as hc


def _paths(tmp_path) -> dict[str, str]:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    return {"fifo": hc.fifo(tmp_path, "model.pt"), "zero": hc.link_to(tmp_path, "/dev/zero", "zero.pt"),
            "device": "/dev/zero"}


@pytest.mark.parametrize("which", ["fifo", "zero", "device"])
def test_check_refuses_what_is_not_a_regular_file(tmp_path, which):
    path = _paths(tmp_path)[which]
    result = hc.run_kb("check", path, "--target", "tpu", timeout=60)
    assert "not a regular file" in hc.one_line_error(result)
    assert result["rss_mib"] < 200, result


@pytest.mark.parametrize("which", ["fifo", "zero"])
def test_baseline_and_replay_refuse_devices_and_fifos(tmp_path, which):
    path = _paths(tmp_path)[which]
    model = hc.bytearray_checkpoint(tmp_path)  # whichever input is refused first, the answer is one line
    for args in (("check", model, "--target", "tpu", "--baseline", path), ("replay", path, "--no-ingest")):
        result = hc.run_kb(*args, timeout=60)
        hc.one_line_error(result)
        assert result["rss_mib"] < 300, (args, result)
    assert os.path.exists(path)


def test_a_factory_that_is_a_fifo_is_refused(tmp_path):
    fifo = hc.fifo(tmp_path, "model.py")
    result = hc.run_kb("check", f"{fifo}:build", "--input-shape", "1x4", "--target", "tpu", timeout=60)
    assert "a FIFO, not a regular file" in hc.one_line_error(result)


def test_bytearray_pickle_is_refused_before_allocating(tmp_path):
    path = hc.bytearray_checkpoint(tmp_path)
    assert os.path.getsize(path) < 1000
    result = hc.run_kb("check", path, "--target", "tpu", timeout=60)
    line = hc.one_line_error(result)
    assert "bytearray(1,600,000,000)" in line
    assert result["rss_mib"] < 300, result  # it took 1.6 GB before


@pytest.mark.parametrize("pickle_bytes", [
    b"\x80\x02c__builtin__\nbytes\nJ\x00\x00\x00\x60\x85R.",  # bytes(1.6e9)
    b"\x80\x04\x8c\x08builtins\x94\x8c\tbytearray\x94\x93\x94J\x00\x00\x00\x60\x85\x94R\x94.",  # via STACK_GLOBAL
    b"\x80\x02cbuiltins\nbytearray\nJ\x00\x00\x00\x60q\x000h\x00\x85R.",  # the size through the memo (PUT, POP, GET)
    b"\x80\x02cbuiltins\nbytearray\n)\x81.",  # NEWOBJ with no arguments is fine: an empty bytearray
])
def test_the_allocation_guard_sees_every_spelling(pickle_bytes):
    if pickle_bytes.endswith(b")\x81."):
        assert mf.pickle_globals(pickle_bytes, 1) == ["builtins.bytearray"]
        return
    with pytest.raises(bio.BoundExceeded, match="an allocation the file does not hold"):
        mf.pickle_globals(pickle_bytes, 1)


def test_real_bytes_in_a_checkpoint_are_still_data():
    import pickle

    for protocol in (2, 3, 4, 5):
        data = pickle.dumps({"blob": bytearray(b"\x00" * 2000), "raw": b"abc", "empty": bytearray()}, protocol=protocol)
        mf.pickle_globals(data, 1)  # no refusal
