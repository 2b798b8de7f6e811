"""`kb serve` as a user meets it: --get for scripts, one-line errors, builds a missing KB."""

from __future__ import annotations

import json
import os
import socket

from tests.conftest import run_kb


def test_get_prints_a_page(kb_file, capsys):
    code, out, _ = run_kb(capsys, "serve", "--get", "/kb/coverage.json?_shape=array&grep=nonzero")
    assert code == 0
    assert json.loads(out) == [{"op": "aten::nonzero", "neuron": "fallback", "tpu": "unsupported"}]


def test_get_missing_page_exits_1(kb_file, capsys):
    code, out, _ = run_kb(capsys, "serve", "--get", "/kb/no_such_table.json")
    assert code == 1 and '"status": 404' in out


def test_builds_the_kb_when_missing(small_data, isolated_kb, capsys):
    assert not os.path.exists(isolated_kb)
    code, out, _ = run_kb(capsys, "serve", "--get", "/kb/target.json?_shape=array")
    assert code == 0 and os.path.exists(isolated_kb)
    assert "neuron" in {row["name"] for row in json.loads(out)}
    code, out, _ = run_kb(capsys, "serve", "--get", "/kb/coverage.json?_shape=array")
    assert code == 0 and json.loads(out) == []  # no verdicts yet: an empty matrix, not an error


def test_busy_port_is_one_line_error(kb_file, capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        code, _, err = run_kb(capsys, "serve", "--port", str(port))
    assert code == 2
    assert err.strip().splitlines() == [f"kb: error: cannot listen on 127.0.0.1:{port} (Address already in use); pick another --port"]


def test_get_follows_a_redirect(kb_file, capsys):
    """The search box of /-/eol answers with a redirect; --get prints where it leads, exit 0
    (a redirect is neither a finding nor a gate, t26 r2 #7)."""
    code, out, _ = run_kb(capsys, "serve", "--get", "/-/eol?product=torch_tpu")
    assert code == 0 and "TorchTPU (torch_tpu, device tpu): end of support" in out
