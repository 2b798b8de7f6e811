"""`kb bot` over real HTTP on loopback: Slack-signed slash commands and events in, replies
out to a local fake of Slack's Web API (slack-sdk's WebClient pointed at it)."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

pytest.importorskip("slack_bolt")

from slack_sdk.signature import SignatureVerifier  # noqa: E402

from kb.chat.bot import BotSettings, RateLimiter, make_server, to_mrkdwn  # noqa: E402

SECRET = "test-signing-secret"


class FakeSlackAPI(BaseHTTPRequestHandler):
    """Records Web API calls (chat.postMessage...) and answers like Slack does."""

    calls: list[dict] = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = self.rfile.read(int(self.headers.get("content-length") or 0)).decode()
        if "json" in (self.headers.get("content-type") or ""):
            payload = json.loads(body or "{}")
        else:
            payload = {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}
        FakeSlackAPI.calls.append({"path": self.path, "auth": self.headers.get("authorization"), "payload": payload})
        out = json.dumps({"ok": True, "channel": payload.get("channel"), "ts": "1700000000.000200"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json; charset=utf-8")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def fake_slack():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeSlackAPI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def bot_url(chat_kb_paths, fake_slack):
    db_path, data = chat_kb_paths
    mp = pytest.MonkeyPatch()
    mp.setenv("KB_DATA_DIR", str(data))
    settings = BotSettings(signing_secret=SECRET, bot_token="xoxb-test-token", bot_user_id="UBOT",
                           api_base_url=fake_slack, db=str(db_path), rate_limit=3)
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
    mp.undo()


def signed(body: str, *, secret: str = SECRET, age_s: int = 0, content_type: str) -> dict[str, str]:
    ts = str(int(time.time()) - age_s)
    sig = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sig, "Content-Type": content_type}


def command_body(text: str, user: str = "U1") -> str:
    return urllib.parse.urlencode({
        "command": "/kb", "text": text, "user_id": user, "team_id": "T1", "channel_id": "C1",
        "response_url": "https://hooks.example.test/commands/1", "trigger_id": "1.2.3", "token": "legacy",
    })


def post_command(url: str, text: str, user: str = "U1", **kw) -> httpx.Response:
    body = command_body(text, user)
    headers = signed(body, content_type="application/x-www-form-urlencoded", **kw)
    return httpx.post(f"{url}/slack/events", content=body, headers=headers, timeout=10)


def post_event(url: str, event: dict, extra_headers: dict | None = None) -> httpx.Response:
    body = json.dumps({"type": "event_callback", "team_id": "T1", "api_app_id": "A1", "event_id": f"Ev{time.time_ns()}",
                       "event_time": int(time.time()), "event": event})
    headers = {**signed(body, content_type="application/json"), **(extra_headers or {})}
    return httpx.post(f"{url}/slack/events", content=body, headers=headers, timeout=10)


def wait_for_call(count: int, timeout: float = 10) -> list[dict]:
    deadline = time.time() + timeout
    while len(FakeSlackAPI.calls) < count and time.time() < deadline:
        time.sleep(0.02)
    return FakeSlackAPI.calls


def test_signed_slash_command_gets_an_answer_in_blocks(bot_url):
    r = post_command(bot_url, "is nonzero native on neuron 2.33?")
    assert r.status_code == 200
    reply = r.json()
    assert reply["response_type"] == "ephemeral" and reply["text"].startswith("*No*")
    blocks = reply["blocks"]
    assert blocks[0]["type"] == "section" and blocks[0]["text"]["type"] == "mrkdwn"
    assert "*fallback*" in blocks[0]["text"]["text"] and "aten::nonzero" in blocks[0]["text"]["text"]
    assert blocks[-1]["type"] == "context" and "docs.example.test" in blocks[-1]["elements"][0]["text"]


def test_bad_signature_is_rejected(bot_url):
    body = command_body("help")
    r = httpx.post(f"{bot_url}/slack/events", content=body, timeout=10,
                   headers=signed(body, secret="wrong-secret", content_type="application/x-www-form-urlencoded"))
    assert r.status_code == 401
    unsigned = httpx.post(f"{bot_url}/slack/events", content=body, timeout=10,
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert unsigned.status_code == 401


def test_replayed_old_timestamp_is_rejected(bot_url):
    assert post_command(bot_url, "help", age_s=6 * 60).status_code == 401
    assert post_command(bot_url, "help", age_s=30).status_code == 200


def test_oversized_request_is_rejected_before_parsing(bot_url):
    r = post_command(bot_url, "x" * 20_000)
    assert r.status_code == 413


def test_long_question_gets_a_polite_refusal(bot_url):
    r = post_command(bot_url, "is nonzero native " * 40, user="ULONG")
    assert r.status_code == 200 and "the limit is 500" in r.json()["text"]


def test_per_user_rate_limit(bot_url):
    # four different questions (the same signed request twice would be a replay)
    texts = [post_command(bot_url, f"help {n}", user="URATE").json()["text"] for n in range(4)]
    assert all("faster than" not in t for t in texts[:3]) and "faster than 3 questions" in texts[3]
    assert "faster than" not in post_command(bot_url, "help", user="UOTHER").json()["text"]


def test_events_url_verification(bot_url):
    body = json.dumps({"type": "url_verification", "challenge": "chal-123", "token": "legacy"})
    r = httpx.post(f"{bot_url}/slack/events", content=body, headers=signed(body, content_type="application/json"))
    assert r.status_code == 200 and "chal-123" in r.text


def test_mention_is_answered_with_chat_post_message(bot_url):
    start = len(FakeSlackAPI.calls)
    r = post_event(bot_url, {"type": "app_mention", "user": "UM", "text": "<@UBOT> does neuron support float64?",
                             "channel": "C9", "ts": "1700000000.000100"})
    assert r.status_code == 200
    call = wait_for_call(start + 1)[start]
    assert call["path"] == "/api/chat.postMessage" and call["auth"] == "Bearer xoxb-test-token"
    payload = call["payload"]
    assert payload["channel"] == "C9" and payload["thread_ts"] == "1700000000.000100"
    blocks = payload["blocks"] if isinstance(payload["blocks"], list) else json.loads(payload["blocks"])
    assert "float64" in blocks[0]["text"]["text"] and "runs as float32" in blocks[0]["text"]["text"]


def test_direct_message_answered_retries_and_bot_messages_ignored(bot_url):
    start = len(FakeSlackAPI.calls)
    retry = post_event(bot_url, {"type": "app_mention", "user": "UR", "text": "<@UBOT> help", "channel": "C9",
                                 "ts": "1.1"}, {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    assert retry.status_code == 200
    own = post_event(bot_url, {"type": "message", "channel_type": "im", "bot_id": "B1", "text": "echo", "channel": "D1",
                               "ts": "1.2"})
    assert own.status_code == 200
    dm = post_event(bot_url, {"type": "message", "channel_type": "im", "user": "UD", "text": "python 3.9 eol",
                              "channel": "D1", "ts": "1.3"})
    assert dm.status_code == 200
    calls = wait_for_call(start + 1)
    time.sleep(0.3)  # a wrongly answered retry or bot message would arrive by now
    new = calls[start:]
    assert len(new) == 1 and new[0]["payload"]["channel"] == "D1"
    assert "2025-10-31" in json.dumps(new[0]["payload"]["blocks"])


def test_health_endpoint(bot_url):
    assert httpx.get(f"{bot_url}/healthz").text == "ok"


def test_rate_limiter_window_slides():
    now = [0.0]
    limiter = RateLimiter(2, 60, clock=lambda: now[0])
    assert limiter.allow("u") and limiter.allow("u") and not limiter.allow("u")
    now[0] = 61
    assert limiter.allow("u")


def test_mrkdwn_conversion():
    assert to_mrkdwn("**Yes** see [docs](https://x.test/a)") == "*Yes* see <https://x.test/a|docs>"


def test_a_broken_kb_is_a_chat_reply_not_a_crash(tmp_path):
    from kb.chat.bot import _reply

    settings = BotSettings(signing_secret=SECRET, db=str(tmp_path))  # a folder, not a KB file
    text, blocks = _reply(settings, RateLimiter(5, 60), "U1", "is nonzero native on neuron?")
    assert text.startswith("Sorry") and blocks[0]["type"] == "section"


def test_slash_commands_need_no_bot_token(chat_env):
    from slack_bolt import BoltRequest

    from kb.chat.bot import build_bolt_app

    app = build_bolt_app(BotSettings(signing_secret=SECRET, db=chat_env["KB_DB"]))
    body = command_body("python 3.9 eol")
    r = app.dispatch(BoltRequest(body=body, headers=signed(body, content_type="application/x-www-form-urlencoded")))
    assert r.status == 200 and "2025-10-31" in r.body


def test_slack_markup_is_undone_before_reading():
    from kb.chat.bot import slack_text

    assert slack_text("<@UBOT> what falls back in <http://net.pt|net.pt> on tpu &amp; neuron?") == \
        "what falls back in net.pt on tpu & neuron?"
    assert slack_text("<!here> is x &lt; y <#C1|general>") == "is x < y"


@pytest.mark.parametrize("body, content_type", [
    ('{"type": ', "application/json"), ("[1,2]", "application/json"), ("payload=%7B", "application/x-www-form-urlencoded"),
])
def test_unsigned_malformed_bodies_are_refused_before_parsing(bot_url, body, content_type, caplog):
    r = httpx.post(f"{bot_url}/slack/events", content=body, timeout=10, headers={"Content-Type": content_type})
    assert r.status_code == 401
    bad_ts = {"Content-Type": content_type, "X-Slack-Request-Timestamp": "soon", "X-Slack-Signature": "v0=00"}
    assert httpx.post(f"{bot_url}/slack/events", content=body, timeout=10, headers=bad_ts).status_code == 401
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize("body, content_type", [
    ('{"type": ', "application/json"), ("[1,2]", "application/json"), ("payload=%7B", "application/x-www-form-urlencoded"),
])
def test_signed_malformed_bodies_are_400_not_500(bot_url, body, content_type):
    r = httpx.post(f"{bot_url}/slack/events", content=body, timeout=10, headers=signed(body, content_type=content_type))
    assert r.status_code == 400


def test_a_signed_request_replayed_within_the_window_is_answered_once(bot_url):
    body = command_body("help", user="U-replay")
    headers = signed(body, content_type="application/x-www-form-urlencoded")
    first = httpx.post(f"{bot_url}/slack/events", content=body, headers=headers, timeout=10)
    again = httpx.post(f"{bot_url}/slack/events", content=body, headers=headers, timeout=10)
    assert (first.status_code, again.status_code) == (200, 401)


def test_a_signed_event_whose_text_or_user_is_no_string_is_answered_not_crashed(bot_url):
    """A crafted event carries "text": 123 and "user": [1]: the bot answers its help, it never raises (attacker s8)."""
    start = len(FakeSlackAPI.calls)
    r = post_event(bot_url, {"type": "app_mention", "user": ["U", 1], "text": 123, "channel": "C7", "ts": "2.1"})
    assert r.status_code == 200
    call = wait_for_call(start + 1)[start]
    assert call["payload"]["channel"] == "C7" and "Sorry" not in json.dumps(call["payload"])
