"""`kb ask` / `kb bot` / `kb mcp` as a user meets them: output, --json, one-line errors."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import anyio
import pytest

from cli.entry import main
from tests.chat.conftest import REPO


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ask_prints_markdown_with_sources(chat_env, capsys):
    code, out, _ = run(capsys, "ask", "is", "nonzero", "native", "on", "neuron", "2.33?")
    assert code == 0
    assert out.startswith("**No**") and "fallback" in out and "**Sources**" in out and "docs.example.test" in out


def test_ask_json(chat_env, capsys):
    code, out, _ = run(capsys, "ask", "--json", "does neuron support float64?")
    data = json.loads(out)
    assert code == 0 and data["intent"] == "limitation"
    assert data["facts"][0]["feature"] == "float64" and data["sources"][0]["url"].startswith("https://")


@pytest.mark.parametrize("question", ["\x00\x1b[31m", "aten::", "?" * 900, "💥 on neuron 99.99.99",
                                      "is aten::add.Tensor.x native", "neuron tpu cpu meta sim cuda compare"])
def test_ask_never_crashes_on_odd_input(chat_env, capsys, question):
    code, out, err = run(capsys, "ask", "--json", question)
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["text"]


@pytest.mark.parametrize("question", ["", "   "])
def test_empty_question_is_a_usage_error(chat_env, capsys, question):
    code, out, err = run(capsys, "ask", question)
    assert code == 2 and out == "" and err.count("\n") == 1 and "empty question" in err


def test_bot_without_secret_is_a_one_line_error(chat_env, capsys, monkeypatch):
    monkeypatch.delenv("KB_SLACK_SIGNING_SECRET", raising=False)
    code, _, err = run(capsys, "bot")
    assert code == 2 and err.strip().count("\n") == 0 and "signing secret" in err


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_mcp_over_streamable_http(chat_env):
    Client = pytest.importorskip("mcp").Client  # noqa: N806

    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "cli.entry", "mcp", "--http", "--port", str(port)], cwd=str(REPO),
                            env={**chat_env, "PATH": "/usr/bin:/bin"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)

        async def session():
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                names = {t.name for t in (await client.list_tools()).tools}
                result = await client.call_tool("ask", {"question": "is silu native on tpu?"})
                return names, result

        names, result = anyio.run(session)
        assert "ask" in names and not result.is_error
        assert result.structured_content["text"].startswith("**Yes**")
    finally:
        proc.terminate()
        proc.wait(10)


def test_bot_prints_a_slack_manifest(chat_env, capsys):
    code, out, _ = run(capsys, "bot", "--print-manifest", "https://kb.example.test/slack/events")
    data = json.loads(out)
    assert code == 0 and data["features"]["slash_commands"][0]["command"] == "/kb"
    assert data["settings"]["event_subscriptions"]["request_url"] == "https://kb.example.test/slack/events"
    assert {"app_mention", "message.im"} <= set(data["settings"]["event_subscriptions"]["bot_events"])
