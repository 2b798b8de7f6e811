"""The phrasing bank through the three front ends, on the shipped KB: `kb ask` as a real
process (a few phrasings: each start builds nothing but costs a second), the MCP server as a
subprocess driven over stdio by the official client, and the Slack bot's HTTP endpoint with
signed slash commands. The default suite asks one phrasing of each kind through MCP and the bot
(both languages among them); the heavy run asks the whole bank through each."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import anyio
import pytest

from tests.chat.conftest import REPO
from tests.chat.phrasings import check, one_per_kind, phrasings, rates

PASS_RATE = 0.95


def _report(front: str, bank: list[dict], failed: dict) -> None:
    print(f"\nphrasing bank ({front}): {len(bank) - len(failed)}/{len(bank)}; {rates(bank, set(failed))}")
    for question, problems in failed.items():
        print(f"  FAIL {question!r}: {'; '.join(problems)}")
    assert 1 - len(failed) / len(bank) >= PASS_RATE, failed


# ---------------------------------------------------------------- kb ask, as a process


@pytest.mark.parametrize("question", [
    "price per million tokens at 7.5 USD an hour and 1800 tokens/s",
    "¿cuándo termina el soporte de Python 3.10 en Neuron?",
    "list what TorchTPU 0.1.1 can't run",
])
def test_kb_ask_cli(question, shipped_kb, tmp_path):
    row = next(r for r in phrasings() if r["question"] == question)
    env = {**os.environ, "KB_DB": shipped_kb, "KB_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "cli.entry", "ask", "--json", question], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert check(json.loads(done.stdout), row) == []


# ---------------------------------------------------------------- MCP over stdio


async def _mcp(env: dict[str, str], bank: list[dict]) -> list:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "cli.entry", "mcp"], env=env, cwd=str(REPO))
    async with Client(params, read_timeout_seconds=120) as client:
        return [await client.call_tool("ask", {"question": r["question"]}) for r in bank]


def _through_mcp(shipped_kb, shipped_cache, bank):
    pytest.importorskip("mcp")
    env = {"KB_DB": shipped_kb, "PYTHONPATH": str(REPO), "KB_CACHE_DIR": shipped_cache}
    results = anyio.run(_mcp, env, bank)
    failed = {}
    for row, result in zip(bank, results, strict=True):
        problems = ["tool error"] if result.is_error else check(result.structured_content, row)
        if problems:
            failed[row["question"]] = problems
    _report("MCP", bank, failed)


def test_bank_sample_through_mcp(shipped_kb, shipped_cache):
    _through_mcp(shipped_kb, shipped_cache, one_per_kind(phrasings()))


@pytest.mark.heavy
def test_bank_through_mcp(shipped_kb, shipped_cache):
    _through_mcp(shipped_kb, shipped_cache, phrasings())


# ---------------------------------------------------------------- the Slack bot over signed HTTP

SECRET = "phrasing-bank-secret"


@pytest.fixture(scope="module")
def bank_bot(shipped_kb, shipped_cache):  # shipped_cache: the bot's warm-up reads the session's tables
    pytest.importorskip("slack_bolt")
    from kb.chat.bot import BotSettings, make_server

    settings = BotSettings(signing_secret=SECRET, bot_token="xoxb-test-token", bot_user_id="UBOT",
                           api_base_url="http://127.0.0.1:9/api/", db=shipped_kb, rate_limit=100_000)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = make_server(settings, "127.0.0.1", sock.getsockname()[1])
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.time() + 10
    while not server.started and time.time() < deadline:
        time.sleep(0.02)
    assert server.started
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(5)
    sock.close()


def _bot_answer(url: str, question: str) -> dict:
    """The slash command's reply, read back into the Answer fields the check needs: the text
    (mrkdwn: *bold*), the sources (the context block) and, from the text, the language."""
    import urllib.parse

    import httpx
    from slack_sdk.signature import SignatureVerifier

    body = urllib.parse.urlencode({"command": "/kb", "text": question, "user_id": "U1", "team_id": "T1",
                                   "channel_id": "C1", "response_url": "https://hooks.example.test/1", "trigger_id": "1"})
    ts = str(int(time.time()))
    headers = {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": SignatureVerifier(SECRET).generate_signature(
        timestamp=ts, body=body), "Content-Type": "application/x-www-form-urlencoded"}
    reply = httpx.post(f"{url}/slack/events", content=body, headers=headers, timeout=30).json()
    sections = [b["text"]["text"] for b in reply["blocks"] if b["type"] == "section"]
    context = [e["text"] for b in reply["blocks"] if b["type"] == "context" for e in b["elements"]]
    return {"text": "\n".join(sections), "context": "\n".join(context)}


def _bot_check(got: dict, row: dict) -> list[str]:
    """The bank's facts in the bot's mrkdwn (**x** is *x* there) and its source in the context block."""
    facts = [f.replace("**", "*") for f in row["facts"]]
    text = got["text"].lower() if row.get("case_insensitive") else got["text"]
    if row.get("case_insensitive"):
        facts = [f.lower() for f in facts]
    problems = [f"missing fact {f!r}" for f in facts if f not in text]
    if row["source"] and row["source"] not in got["context"]:
        problems.append(f"no source citing {row['source']!r}")
    return problems


def _through_bot(url: str, bank: list[dict]) -> None:
    failed = {}
    for row in bank:
        problems = _bot_check(_bot_answer(url, row["question"]), row)
        if problems:
            failed[row["question"]] = problems
    _report("bot", bank, failed)


def test_bank_sample_through_the_bot(bank_bot):
    _through_bot(bank_bot, one_per_kind(phrasings()))


@pytest.mark.heavy
def test_bank_through_the_bot(bank_bot):
    _through_bot(bank_bot, phrasings())
