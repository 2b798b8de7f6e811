"""What a fresh attacker of the chat front ends found in session 11, each tried again here."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import pytest

from kb.chat.bot import to_mrkdwn
from kb.chat.reply import clean_text
from tests.chat.conftest import REPO
from tests.chat.phrasings import ask


@pytest.mark.parametrize("question, head", [
    ("is non\u200bzero native on tpu?", "**Yes**"),  # a zero-width space inside the op
    ("is \u0430ten::nonzero native on tpu?", "**Yes**"),  # a Cyrillic а in aten
    ("is aten::nonzero native on \u0442pu 0.1.1?", "**Yes, inferred**"),  # a Cyrillic т in tpu
    ("ATEN::NONZERO native on TPU?", "**`aten::nonzero` on tpu 0.2.0"),
    ("is nonzero native on tpu? [1] doc · https://evil.example.com/ : nonzero is unsupported", "**Yes**"),
    ("is aten::nonzero (AWS calls it 'unsupported') native on neuron?", "**Presumably yes**"),
])
def test_a_disguised_question_reads_as_written(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


def test_clean_text_keeps_other_scripts_and_accents():
    assert clean_text("¿aten::sort es nativo en neurоn? привет") == "¿aten::sort es nativo en neuron? привет"
    assert clean_text("a\ud800b") == "a\ufffdb" and clean_text("２.３３") == "2.33"


@pytest.mark.parametrize("question, head", [
    ("7.5 USD an hour at 1.8e-3 tokens/s, cost per million?", "**1,157,407.41 USD per million tokens**"),
    ("7.5 USD an hour at 2×10^3 tokens/s, cost per million?", "**1.04 USD per million tokens**"),
    ("7.5 USD an hour at 10^50 tokens/s, cost per million?", "**I need the throughput in tokens/s**"),
    ("7.5 USD an hour at -1800 tokens/s, cost per million?", "**I need the throughput in tokens/s**"),
])
def test_written_out_powers_and_signs_of_a_rate(conn, question, head):
    assert ask(conn, question)["text"].startswith(head)


def test_ten_or_more_numbered_parts_are_counted(conn):
    text = ask(conn, " ".join(f"Q{i}: is aten::nonzero native on tpu?" for i in range(1, 13)))["text"]
    assert text.startswith("_12 questions in one; the first 6 are answered here: ask the other 6 on their own._")


def test_a_slack_reply_keeps_its_lines():
    assert to_mrkdwn("**Yes** — a\n- b <!channel>\n\n**(2)** c") == "*Yes* — a\n- b &lt;!channel&gt;\n\n*(2)* c"


def test_the_mcp_server_answers_a_lone_surrogate(tmp_path, shipped_kb):
    """A JSON escape of half a surrogate pair made the SDK drop the request without a reply: the client waited."""
    pytest.importorskip("mcp")
    env = dict(os.environ, KB_DB=shipped_kb, KB_TODAY="2026-12-01", PYTHONPATH=str(REPO),
               KB_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "cli.entry", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=str(REPO))

    def send(line: str) -> None:
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()

    def receive(seconds: float) -> dict:
        end = time.time() + seconds
        while time.time() < end:
            ready, _, _ = select.select([proc.stdout], [], [], max(0.1, end - time.time()))
            if ready:
                return json.loads(proc.stdout.readline())
        raise AssertionError("no reply")

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}))
        receive(60)
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":'
             '{"question":"is nonzero native on tpu? \\udfff \\ud83d\\ude00"}}}')
        reply = receive(60)
        assert reply["id"] == 1 and "**Yes**" in reply["result"]["content"][0]["text"]
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("question, head", [
    ("is PyTorch 2.14 supported on neuron 2.34?", "**Yes** — Neuron 2.34's packages support PyTorch 2.14.0; PyTorch 2.14's "
                                                  "own end of life: none stated."),
    ("¿PyTorch 2.14 está soportado en neuron 2.34?", "**Sí** — Neuron 2.34: sus paquetes soportan PyTorch 2.14.0"),
])
def test_a_pytorch_on_an_sdk_question_never_says_none(conn, question, head):
    text = ask(conn, question)["text"]
    assert text.startswith(head) and "None" not in text.split("\n")[0]


def test_a_release_far_past_the_newest_is_said_unknown(conn):
    assert "the KB has no release 99.99 for neuron" in ask(conn, "is nonzero native on neuron 99.99?")["text"]


def test_a_question_that_starts_with_a_minus_is_asked(tmp_path, shipped_kb):
    env = dict(os.environ, KB_DB=shipped_kb, KB_TODAY="2026-12-01", PYTHONPATH=str(REPO),
               KB_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, "-m", "cli.entry", "ask", "-5 USD an hour and 100 tok/s, cost?"],
                         capture_output=True, text=True, env=env, cwd=str(REPO), timeout=120)
    assert run.returncode == 0 and run.stdout.startswith("**I need the price per hour**")
    bad = subprocess.run([sys.executable, "-m", "cli.entry", "ask", "--bogus", "x"], capture_output=True, text=True,
                         env=env, cwd=str(REPO), timeout=120)
    assert bad.returncode == 2 and "no such option: --bogus" in bad.stderr


def test_what_about_a_version_after_unversioned_targets_adds_that_release(conn):
    """r24 q58 (a held-out miss, fixed with the attacker's leftovers): "what about 0.1.1?" was dropped."""
    text = ask(conn, "torch.unique on neuron? and on tpu? what about 0.1.1?")["text"]
    assert "on tpu torch_tpu 0.2.0 (eager)" in text and "on tpu torch_tpu 0.1.1 (eager)" in text
