"""`kb bot`: answer chat questions posted by Slack (slash commands and the Events API).

Built on Slack's own SDK (slack-bolt, slack-sdk) rather than hand-written protocol code:
Bolt answers the Events API URL check and replies go through slack-sdk's WebClient (whose
base URL is configurable, so tests point it at a local fake). Around it, kb adds what a
public endpoint needs, in this order, before any byte of the body is parsed: a body-size
cap (HTTP 413), the signature and a timestamp no more than five minutes old (slack-sdk's
SignatureVerifier; HTTP 401), and a refusal of a signed request seen before within those
five minutes (a replay; HTTP 401). A signed body that does not parse is HTTP 400, never a
500. Then a question-length cap, a per-user rate limit, and Slack retry de-duplication. Served by uvicorn on 127.0.0.1 unless told
otherwise. Chat text is untrusted input: it is only ever parsed by kb.chat.intents.
"""

from __future__ import annotations

import html
import logging
import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from kb.errors import KBError
from kb.neutral import safe_url, slack

logger = logging.getLogger("kb.chat.bot")

DEFAULT_COMMAND = "/kb"
MAX_BODY_BYTES = 16 * 1024  # a slash command or event is a few KiB; anything larger is refused
MAX_QUESTION_CHARS = 500
SECTION_CHARS = 2900  # Slack caps a section's text at 3000 characters
MAX_BLOCKS = 40


class BotConfigError(KBError):
    """The bot cannot start as configured (no signing secret...)."""


@dataclass
class BotSettings:
    signing_secret: str
    bot_token: str | None = None
    bot_user_id: str | None = None
    api_base_url: str | None = None  # Slack Web API base, e.g. https://slack.com/api/ (tests: a local fake)
    db: str | None = None
    command: str = DEFAULT_COMMAND
    rate_limit: int = 10  # questions per user per window
    rate_window_s: float = 60.0
    max_question_chars: int = MAX_QUESTION_CHARS
    max_body_bytes: int = MAX_BODY_BYTES
    warm: bool = True  # compute the gallery tables before serving, not in a request (Slack's 3-second ack)


class RateLimiter:
    """At most `limit` events per key in any `window_s` seconds (sliding window, thread-safe)."""

    def __init__(self, limit: int, window_s: float, clock=time.monotonic):
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._seen: dict[str, deque] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        now = self.clock()
        with self._lock:
            stamps = self._seen.setdefault(key, deque())
            while stamps and now - stamps[0] >= self.window_s:
                stamps.popleft()
            if len(stamps) >= self.limit:
                return False
            stamps.append(now)
            return True


# ---------------------------------------------------------------- Slack formatting

# A link kb's own answer text writes; one from data was escaped (`\[t\](u)`) and is not matched.
_LINK = re.compile(r"(?<!\\)\[([^\]\\]+)\]\((https?://[^)\s<>|]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_MD_ESCAPE = re.compile(r"\\([\\`*_\[\]#~|])")


def _mrkdwn_text(markdown: str) -> str:
    """Text between links: entities decoded, then `&`, `<`, `>` escaped the way Slack asks
    (kb.neutral.slack: no `<!channel>`, no `<url|text>` from data), **bold** → *bold*,
    and markdown's backslash escapes dropped (mrkdwn has none)."""
    # line by line: kb.neutral.slack makes one line of what it is given, and an answer's lines are its layout
    # (attacker s11: every bullet and section ran into one paragraph)
    escaped = "\n".join(slack(line) for line in html.unescape(markdown).split("\n"))
    text = _BOLD.sub(lambda m: f"*{m.group(1)}*", escaped)
    return _MD_ESCAPE.sub(r"\1", text)


def to_mrkdwn(markdown: str) -> str:
    """kb's markdown → Slack mrkdwn: **bold** → *bold*, [t](u) → <u|t>; every other `&`,
    `<` and `>` escaped, so the text forms no mention and no link of its own."""
    out, pos = [], 0
    for m in _LINK.finditer(markdown):
        out.append(_mrkdwn_text(markdown[pos:m.start()]))
        out.append(f"<{m.group(2).replace('&', '&amp;')}|{_mrkdwn_text(m.group(1))}>")
        pos = m.end()
    out.append(_mrkdwn_text(markdown[pos:]))
    return "".join(out)


def _chunks(text: str, size: int) -> list[str]:
    """Split at line ends into pieces of at most `size` characters (long lines are cut)."""
    pieces: list[str] = []
    for line in text.split("\n"):
        pieces += [line[i:i + size] for i in range(0, len(line), size)] or [""]
    out, current = [], ""
    for piece in pieces:
        if current and len(current) + 1 + len(piece) > size:
            out.append(current)
            current = piece
        else:
            current = f"{current}\n{piece}" if current else piece
    if current.strip():
        out.append(current)
    return out


def answer_blocks(result: Any) -> list[dict[str, Any]]:
    """An Answer as Block Kit blocks: sections of mrkdwn, sources in a context block."""
    body = re.split(r"\n\n\*\*(?:Sources|Fuentes)\*\*", result.text, maxsplit=1)[0]  # an answer in English or Spanish
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": chunk}}
                                    for chunk in _chunks(to_mrkdwn(body), SECTION_CHARS)]
    if result.sources:
        elements = []
        for number, src in enumerate(result.sources[:10], 1):
            url = safe_url(src.get("url"))
            if url:
                where = f"<{url.replace('&', '&amp;')}|{slack(src.get('name'))}>"
                if src.get("probe_run_id"):  # a replay or probe of that file: the run too, as kb ask lists it
                    where += f" · probe run `{slack(src['probe_run_id'])}`"
            elif src.get("url"):  # not http(s): named as text, never a link
                where = f"{slack(src.get('name'))} · {slack(src['url'])}"
            elif src.get("probe_run_id"):
                where = f"probe run `{slack(src.get('probe_run_id'))}`"
            else:  # kb's own formula (a cost answer): its name
                where = slack(src.get("name"))
            elements.append({"type": "mrkdwn", "text": f"[{number}] {slack(src['kind'])} · {where}"[:2000]})
        blocks.append({"type": "context", "elements": elements})
    return blocks[:MAX_BLOCKS]


def plain_text(result: Any) -> str:
    """The notification / fallback text Slack shows where blocks are not rendered."""
    first = result.text.strip().split("\n", 1)[0]
    return to_mrkdwn(first)[:300]


def notice_blocks(text: str) -> list[dict[str, Any]]:
    return [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]


# ---------------------------------------------------------------- the Bolt app

_MENTION = re.compile(r"<[@#!][^>]*>")  # <@U123>, <#C123|general>, <!here>
_SLACK_LINK = re.compile(r"<([^<>|]+)(?:\|([^<>]+))?>")


def slack_text(text: str) -> str:
    """A message as the user typed it: Slack wraps mentions and auto-links (`model.pt` becomes
    `<http://model.pt|model.pt>`: .pt is a country domain) and escapes &, < and >."""
    from kb.chat.reply import clean_text

    text = _MENTION.sub(" ", text or "")
    text = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(1), text)
    return clean_text(html.unescape(text)).strip()  # zero-width padding counts for no length (attacker s11)


def _reply(settings: BotSettings, limiter: RateLimiter, user: str, question: str) -> tuple[str, list[dict[str, Any]]]:
    """(fallback text, blocks) for one question from one user, after the caps."""
    from kb.chat.answer import answer

    question = slack_text(question if isinstance(question, str) else "")  # a crafted event's "text": 123 is no question
    user = user if isinstance(user, str) else ""
    if not limiter.allow(user or "anonymous"):
        text = f"You're asking faster than {settings.rate_limit} questions a minute; try again shortly."
        return text, notice_blocks(text)
    if len(question) > settings.max_question_chars:
        text = f"That question is {len(question)} characters long; the limit is {settings.max_question_chars}."
        return text, notice_blocks(text)
    try:
        result = answer(question, db=settings.db)
    except Exception:  # the KB file is busy or broken: say so in chat, keep the details in the log
        logger.exception("answering %r failed", question[:80])
        text = "Sorry, the knowledge base could not answer just now; the error is in the bot's log."
        return text, notice_blocks(text)
    return plain_text(result), answer_blocks(result)


def build_bolt_app(settings: BotSettings):
    """The slack-bolt App: `/kb <question>` slash command, app mentions, direct messages."""
    try:
        from slack_bolt import App, BoltResponse
        from slack_bolt.authorization import AuthorizeResult
        from slack_sdk import WebClient
    except ImportError:
        raise BotConfigError("kb bot needs Slack's SDK: pip install 'torch-accel-kb[chat]' (slack-bolt, slack-sdk)") from None

    if not settings.signing_secret:
        raise BotConfigError("the bot needs a signing secret (KB_SLACK_SIGNING_SECRET or --signing-secret)")
    limiter = RateLimiter(settings.rate_limit, settings.rate_window_s)
    client = WebClient(token=settings.bot_token, base_url=settings.api_base_url or WebClient.BASE_URL)

    def authorize(enterprise_id, team_id, logger):
        # one workspace, one bot token: no OAuth install flow, no auth.test call at start-up
        return AuthorizeResult(enterprise_id=enterprise_id, team_id=team_id, bot_token=settings.bot_token,
                               bot_user_id=settings.bot_user_id)

    app = App(signing_secret=settings.signing_secret, client=client, authorize=authorize,
              token_verification_enabled=False, request_verification_enabled=True)

    @app.middleware
    def skip_slack_retries(req, resp, next):
        """Slack re-sends an event it thinks was not acknowledged; the first delivery already answered."""
        if req.headers.get("x-slack-retry-num"):
            return BoltResponse(status=200, body="")
        return next()

    @app.command(settings.command)
    def on_command(ack, command):
        text, blocks = _reply(settings, limiter, command.get("user_id", ""), command.get("text", ""))
        ack(response_type="ephemeral", text=text, blocks=blocks)

    @app.event("app_mention")
    def on_mention(event, say):
        if event.get("bot_id"):
            return
        text, blocks = _reply(settings, limiter, event.get("user", ""), event.get("text", ""))
        say(text=text, blocks=blocks, thread_ts=event.get("thread_ts") or event.get("ts"))

    @app.event("message")
    def on_message(event, say):
        if event.get("channel_type") != "im" or event.get("bot_id") or event.get("subtype"):
            return  # only plain direct messages from people
        text, blocks = _reply(settings, limiter, event.get("user", ""), event.get("text", ""))
        say(text=text, blocks=blocks)

    return app


class ReplayGuard:
    """Signatures seen within the timestamp window: a signed request is answered once."""

    def __init__(self, window_s: float = 5 * 60, max_entries: int = 100_000, clock=time.monotonic):
        self.window_s, self.max_entries, self.clock = window_s, max_entries, clock
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def first_time(self, signature: str) -> bool:
        now = self.clock()
        with self._lock:
            if len(self._seen) >= self.max_entries:
                self._seen = {s: t for s, t in self._seen.items() if t > now}
            expiry = self._seen.get(signature)
            if expiry is not None and expiry > now:
                return False
            self._seen[signature] = now + self.window_s
            return True


def verified(verifier, body: bytes, headers) -> str | None:
    """The request's signature when it is valid and fresh, else None (never raises)."""
    timestamp = headers.get("x-slack-request-timestamp") or ""
    signature = headers.get("x-slack-signature") or ""
    if not timestamp.isdigit() or not signature.startswith("v0="):
        return None
    try:
        return signature if verifier.is_valid(body=body, timestamp=timestamp, signature=signature) else None
    except (ValueError, TypeError):
        return None


def build_asgi_app(settings: BotSettings):
    """Starlette app: POST /slack/events (commands and events), GET /healthz."""
    from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
    from slack_sdk.signature import SignatureVerifier
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    bolt = build_bolt_app(settings)
    verifier = SignatureVerifier(settings.signing_secret)
    replays = ReplayGuard()

    async def events(request: Request):
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > settings.max_body_bytes:
            return PlainTextResponse("request too large", status_code=413)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > settings.max_body_bytes:
                return PlainTextResponse("request too large", status_code=413)
        signature = verified(verifier, body, request.headers)
        if signature is None:
            return PlainTextResponse("invalid request", status_code=401)
        if request.headers.get("x-slack-retry-num"):
            return PlainTextResponse("", status_code=200)  # Slack re-sending: the first delivery answered
        if not replays.first_time(signature):
            return PlainTextResponse("request already seen", status_code=401)
        try:
            bolt_request = to_bolt_request(request, body)
            # Bolt's dispatch is synchronous (it may call Slack): keep it off the event loop
            response = await run_in_threadpool(bolt.dispatch, bolt_request)
        except Exception as exc:  # a signed body Bolt cannot parse: the client's fault, said in one log line
            logger.warning("kb bot: unparsable request (%s)", type(exc).__name__)
            return PlainTextResponse("bad request", status_code=400)
        if response.status >= 500:
            return PlainTextResponse("bad request", status_code=400)
        return to_starlette_response(response)

    async def health(_request: Request):
        return PlainTextResponse("ok")

    return Starlette(routes=[Route("/slack/events", events, methods=["POST"]),
                             Route("/healthz", health, methods=["GET"])])


def manifest(request_url: str, command: str = DEFAULT_COMMAND, name: str = "kb") -> dict[str, Any]:
    """A Slack app manifest for this endpoint: the slash command, the events it answers and
    the bot scopes those need (paste it at api.slack.com/apps → Create New App → From a manifest)."""
    return {
        "display_information": {"name": name, "description": "PyTorch op support on Trainium and TPU, with sources"},
        "features": {
            "bot_user": {"display_name": name, "always_online": False},
            "slash_commands": [{"command": command, "url": request_url, "usage_hint": "is nonzero native on neuron 2.33?",
                                "description": "Ask the kb compatibility knowledge base", "should_escape": False}],
        },
        "oauth_config": {"scopes": {"bot": ["commands", "chat:write", "app_mentions:read", "im:history"]}},
        "settings": {
            "event_subscriptions": {"request_url": request_url, "bot_events": ["app_mention", "message.im"]},
            "org_deploy_enabled": False, "socket_mode_enabled": False, "token_rotation_enabled": False,
        },
    }


def make_server(settings: BotSettings, host: str = "127.0.0.1", port: int = 3000):
    """A uvicorn Server for the bot (call .run(), or .run(sockets=[...]) with a bound socket)."""
    import uvicorn

    config = uvicorn.Config(build_asgi_app(settings), host=host, port=port, log_level="warning",
                            access_log=False, lifespan="off")
    if settings.warm:  # before serving: a question arriving mid-warm-up would compute the same tables again
        _warm(settings.db)
    return uvicorn.Server(config)


def _warm(db: str | None) -> None:
    """The gallery's list tables computed once at start (kb.chat.answer_gallery.warm); a
    failure is one log line, and the first question computes them instead."""
    try:
        from kb.chat.answer_gallery import warm

        warm(db)
    except Exception as exc:  # the bot answers without it
        logger.warning("kb bot: warm-up skipped (%s)", type(exc).__name__)
