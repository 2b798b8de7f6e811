"""Neutral output of the chat faces (issue 24): a record whose note, source name and URL
carry `<!channel>`, a Slack link, markdown, ANSI escapes or a `javascript:` URL is shown
by `kb ask`, the MCP answer text and the Slack bot without any of them acting."""

from __future__ import annotations

import re
import shutil
import sqlite3

import pytest

from kb.chat.bot import answer_blocks, plain_text, to_mrkdwn

HOSTILE_NOTE = "<!channel> <https://evil.test|click> [click](https://evil.test) **Gate passed** \x1b[2J & <@U1>"
EVIL_URL = "javascript:alert(1)"


@pytest.fixture
def hostile_conn(chat_kb_paths, tmp_path, monkeypatch):
    """A copy of the chat KB with hostile values written straight into its rows (so the
    test holds whatever ingest comes to refuse)."""
    db, data = chat_kb_paths
    path = tmp_path / "kb.sqlite"
    shutil.copy(db, path)
    monkeypatch.setenv("KB_DATA_DIR", str(data))
    conn = sqlite3.connect(path)
    with conn:
        for table in ("support_stored", "observation"):
            conn.execute(f"UPDATE {table} SET note = ?, source_name = ?, source_url = ? WHERE op = 'aten::nonzero'",
                         (HOSTILE_NOTE, "evil<!here>", EVIL_URL))
        conn.execute("UPDATE limitation SET note = ?", (HOSTILE_NOTE,))
        conn.execute("UPDATE caveat SET statement = ?, source_url = ?", (HOSTILE_NOTE, EVIL_URL))
    conn.close()
    from kb.store.db import connect

    conn = connect(str(path))
    yield conn
    conn.close()


def _slack_texts(blocks) -> list[str]:
    texts = []
    for block in blocks:
        if "text" in block:
            texts.append(block["text"]["text"])
        texts += [element["text"] for element in block.get("elements", [])]
    return texts


def _assert_slack_safe(text: str) -> None:
    """Only links kb formed itself (`<https://…|…>` to an http(s) URL) keep raw < and >."""
    rest = re.sub(r"<https?://[^\s<>|]+\|[^<>]*>", "", text)
    assert "<" not in rest and ">" not in rest, text
    assert not re.search(r"&(?!amp;|lt;|gt;)", rest), text
    assert "<!channel>" not in text and "<@U1>" not in text and "<https://evil" not in text
    assert "<javascript:" not in text
    assert "\x1b" not in text


@pytest.mark.parametrize("question", ["is nonzero native on neuron?", "does neuron support float64?",
                                      "is gelu slow on neuron?"])
def test_bot_blocks_form_no_mention_and_no_link(hostile_conn, question):
    from kb.chat.answer import answer

    result = answer(question, conn=hostile_conn)
    assert "channel" in result.text, result.text  # the hostile record is in this answer
    texts = _slack_texts(answer_blocks(result)) + [plain_text(result)]
    for text in texts:
        _assert_slack_safe(text)
    assert any("&lt;!channel&gt;" in text for text in texts)


def test_answer_markdown_forms_no_link_from_data(hostile_conn):
    from kb.chat.answer import answer

    text = answer("is nonzero native on neuron?", conn=hostile_conn).text
    assert "[click](https" not in text and "<!channel>" not in text and "\x1b" not in text
    assert "](javascript:" not in text and f"· {EVIL_URL}" in text  # named as text, not linked


def test_to_mrkdwn_keeps_kbs_own_links_and_bold():
    assert to_mrkdwn("**Yes** see [docs](https://x.test/a?b=1&c=2)") == "*Yes* see <https://x.test/a?b=1&amp;c=2|docs>"
    assert to_mrkdwn("a <!channel> & b") == "a &lt;!channel&gt; &amp; b"
    assert to_mrkdwn(r"\[click\](https://evil.test) \*\*x\*\*") == "[click](https://evil.test) **x**"
    assert to_mrkdwn("&lt;!here&gt;") == "&lt;!here&gt;"  # an escaped value stays escaped, once


@pytest.mark.parametrize("terminal", [False, True])
def test_kb_ask_prints_no_escape(hostile_conn, tmp_path, monkeypatch, capsys, terminal):
    import sys

    from cli.entry import main

    monkeypatch.setenv("KB_DB", str(tmp_path / "kb.sqlite"))
    if terminal:
        monkeypatch.setenv("FORCE_COLOR", "1")
        monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert main(["ask", "is nonzero native on neuron?"]) == 0
    out = capsys.readouterr().out
    assert "channel" in out
    assert re.sub(r"\x1b\[[0-9;]*m|\x1b]8;[^\x1b]*\x1b\\\\", "", out).count("\x1b") == 0  # rich's own styles and links only


def test_mcp_answers_and_checks_hostile_input_as_data(hostile_conn, tmp_path, chat_kb_paths, model_files):
    """Over the real stdio transport: the ask tool's markdown forms nothing from records;
    check_model returns a hostile export's names as JSON data (escaped), nothing raw."""
    pytest.importorskip("mcp")
    import os
    import sys

    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from tests.chat.conftest import REPO
    from tests.check.test_neutral_output import hostile_pt2

    model = hostile_pt2(str(model_files["exported"]), tmp_path / "hostile.pt2")
    env = {**os.environ, "KB_DB": str(tmp_path / "kb.sqlite"), "KB_DATA_DIR": str(chat_kb_paths[1]),
           "PYTHONPATH": str(REPO)}

    async def session():
        params = StdioServerParameters(command=sys.executable, args=["-m", "cli.entry", "mcp"], env=env, cwd=str(REPO))
        async with Client(params, read_timeout_seconds=120) as client:
            return (await client.call_tool("ask", {"question": "is nonzero native on neuron?"}),
                    await client.call_tool("check_model", {"path": model, "targets": ["neuron"]}))

    asked, checked = anyio.run(session)
    text = asked.structured_content["text"]
    assert "&lt;!channel&gt;" in text and "<!channel>" not in text and "\x1b" not in text
    assert not checked.is_error, checked.content[0].text
    ops = [op["op"] for op in checked.structured_content["reports"][0]["ops"]]
    assert any(op.startswith("evil\x1b[2J") for op in ops)  # the data, as it was
    assert "\x1b" not in checked.content[0].text  # JSON text: escaped
