"""`kb ask`, `kb mcp`, `kb bot`: the chat front ends. Each parses its options and hands
over to kb.chat.answer / kb.chat.mcp_server / kb.chat.bot; nothing here knows how questions are read."""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Optional

import typer

from cli.options import DbOption, JsonOption
from cli.render import emit_json, note


def ask_command(
    question: Annotated[list[str], typer.Argument(help="The question, e.g. \"is nonzero native on neuron 2.33?\" "
                                                       "(quotes optional); `help` lists what can be asked.")],
    json_out: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Answer a question in plain words, with sources (op status, compare, end of support, limitations)."""
    from kb.chat.api import answer_for

    result = answer_for(" ".join(question), db=db, allow_files=True, on_note=note)
    if json_out:
        emit_json(result.to_dict())
        return
    from kb.neutral import terminal

    # the answer's own lines stay lines; inside each, nothing from a record may act
    text = "\n".join(terminal(line) for line in result.text.split("\n"))
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(text))
    else:  # a pipe: plain text, no markdown escapes left to read back (`&lt;` shown as `<`)
        from cli.render import wrapped
        from kb.chat.reply import plain_text

        # wrapped to COLUMNS as other commands' text is (a table row, `| … |`, stays whole)
        lines = plain_text(text).split("\n")
        sys.stdout.write("\n".join(line if line.startswith("|") else wrapped(line) for line in lines) + "\n")


def mcp_command(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")] = False,
    host: Annotated[str, typer.Option("--host", help="Address to bind with --http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port for --http (path /mcp).")] = 8765,
    json_out: Annotated[bool, typer.Option("--json", help="With --http: print where it listens as JSON first.")] = False,
    db: DbOption = None,
) -> None:
    """Run a Model Context Protocol server exposing the KB's read-only tools (stdio by default)."""
    from kb.chat.mcp_server import check_available, serve
    from kb.errors import KBError
    from kb.store.db import open_kb, resolve_path

    if json_out and not http:
        raise KBError("--json goes with --http: over stdio, stdout speaks MCP")
    open_kb(db).close()  # build or refresh now, not inside the first tool call
    if http:
        note(f"MCP server on http://{host}:{port}/mcp")
    if json_out:
        emit_json({"url": f"http://{host}:{port}/mcp", "db": resolve_path(db), "pid": os.getpid()})
        sys.stdout.flush()
    if not check_available():
        note("check_model tool not offered: this kb has no `kb check` (kb.check.resolve)")
    serve(db, http=http, host=host, port=port)


def bot_command(
    signing_secret: Annotated[Optional[str], typer.Option(
        "--signing-secret", envvar="KB_SLACK_SIGNING_SECRET", show_envvar=True,
        help="Slack app signing secret: every request's signature is checked with it.")] = None,
    bot_token: Annotated[Optional[str], typer.Option(
        "--bot-token", envvar="KB_SLACK_BOT_TOKEN", show_envvar=True,
        help="Bot token (xoxb-...) for replying to mentions and direct messages.")] = None,
    bot_user_id: Annotated[Optional[str], typer.Option("--bot-user-id", envvar="KB_SLACK_BOT_USER_ID",
                                                       help="The bot's own user id (its messages are ignored).")] = None,
    api_url: Annotated[Optional[str], typer.Option("--api-url", envvar="KB_SLACK_API_URL",
                                                   help="Slack Web API base URL (default https://slack.com/api/).")] = None,
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (POST /slack/events).")] = 3000,
    command: Annotated[str, typer.Option("--command", help="Slash command to answer.")] = "/kb",
    rate_limit: Annotated[int, typer.Option("--rate-limit", min=1, help="Questions per user per minute.")] = 10,
    max_chars: Annotated[int, typer.Option("--max-chars", min=10, help="Longest question accepted.")] = 500,
    print_manifest: Annotated[Optional[str], typer.Option(
        "--print-manifest", metavar="PUBLIC_URL",
        help="Print a Slack app manifest for this endpoint at PUBLIC_URL (…/slack/events) and exit.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print where it listens (or the manifest) in kb's JSON envelope.")] = False,
    db: DbOption = None,
) -> None:
    """Serve a Slack endpoint: `/kb <question>` slash command, @mentions and direct messages."""
    from kb.chat.bot import BotConfigError, BotSettings, make_server, manifest
    from kb.store.db import open_kb, resolve_path

    if print_manifest:
        if json_out:
            emit_json({"manifest": manifest(print_manifest, command)})
        else:  # the bare manifest, as Slack takes it
            sys.stdout.write(json.dumps(manifest(print_manifest, command), indent=2, ensure_ascii=False) + "\n")
        return
    if not signing_secret:
        raise BotConfigError("the bot needs a signing secret (KB_SLACK_SIGNING_SECRET or --signing-secret)")
    open_kb(db).close()
    settings = BotSettings(signing_secret=signing_secret, bot_token=bot_token, bot_user_id=bot_user_id,
                           api_base_url=api_url, db=resolve_path(db), command=command, rate_limit=rate_limit,
                           max_question_chars=max_chars)
    if not bot_token:
        note("no bot token: slash commands are answered, mentions and direct messages cannot be replied to")
    note(f"kb bot on http://{host}:{port}/slack/events (pid {os.getpid()})")
    if json_out:
        emit_json({"url": f"http://{host}:{port}/slack/events", "db": resolve_path(db), "pid": os.getpid()})
        sys.stdout.flush()
    make_server(settings, host, port).run()
