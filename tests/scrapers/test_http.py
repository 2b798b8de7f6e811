"""The shared HTTP module against a real local server: retries, Retry-After, timeouts,
ETag revalidation and the offline cache."""

import socket

import httpx
import pytest

from scrapers.http import FetchError, HttpClient, retry_after_seconds
from tests.scrapers.conftest import Reply


def test_fresh_then_revalidated_with_etag(server, client):
    url = server.route("/page.md", Reply(body="| a |\n", headers={"ETag": '"v1"'}))
    first = client.get_text(url)
    second = client.get_text(url)
    assert (first.text, first.cache) == ("| a |\n", "fresh")
    assert (second.text, second.cache) == ("| a |\n", "revalidated")
    hits = server.hits("/page.md")
    assert len(hits) == 2 and hits[1].get("if-none-match") == '"v1"'
    assert hits[0]["user-agent"].startswith("kb/")


def test_last_modified_revalidation(server, client):
    stamp = "Mon, 02 Nov 2026 10:00:00 GMT"
    url = server.route("/lm", Reply(body="x", headers={"Last-Modified": stamp}))
    client.get_text(url)
    client.get_text(url)
    assert server.hits("/lm")[1].get("if-modified-since") == stamp


def test_500_then_success_is_retried(server, client, sleeps):
    url = server.route("/flaky", Reply(status=500, body="oops"), Reply(status=503), Reply(body="ok"))
    assert client.get_text(url).text == "ok"
    assert len(server.hits("/flaky")) == 3
    assert sleeps == [0.01, 0.02]  # exponential backoff


def test_persistent_500_fails_clearly(server, client):
    url = server.route("/down", Reply(status=500))
    with pytest.raises(FetchError, match=r"HTTP 500 after 4 tries"):
        client.get_text(url)


def test_429_waits_for_retry_after(server, client, sleeps):
    url = server.route("/busy", Reply(status=429, headers={"Retry-After": "7"}), Reply(body="ok"))
    assert client.get_text(url).text == "ok"
    assert sleeps == [7.0]


def test_timeout_then_success(server, client, sleeps):
    url = server.route("/slow", Reply(body="late", delay=1.0), Reply(body="quick"))
    assert client.get_text(url).text == "quick"
    assert len(sleeps) == 1


def test_404_is_not_retried(server, client, sleeps):
    with pytest.raises(FetchError, match="HTTP 404"):
        client.get_text(server.url + "/missing")
    assert sleeps == []


def test_offline_uses_cache_only(server, tmp_path):
    url = server.route("/doc", Reply(body="cached body", headers={"ETag": '"e"'}))
    cache = str(tmp_path / "c.sqlite")
    with HttpClient(cache_path=cache) as online:
        online.get_text(url)
    seen = len(server.requests)
    with HttpClient(cache_path=cache, offline=True) as offline:
        fetched = offline.get_text(url)
        assert (fetched.text, fetched.cache) == ("cached body", "cached")
        with pytest.raises(FetchError, match="not in the HTTP cache"):
            offline.get_text(server.url + "/never-fetched")
    assert len(server.requests) == seen  # offline never touched the network


def test_retry_after_http_date_and_garbage():
    assert retry_after_seconds("garbage", 2.0) == 2.0
    assert retry_after_seconds(None, 3.0) == 3.0
    assert retry_after_seconds("Mon, 02 Nov 2020 10:00:00 GMT", 1.0) == 0.0
    assert retry_after_seconds("100000", 1.0) == 120.0


def test_truncated_transfer_is_retried(server, client, sleeps):
    full = "| Operator | Status |\n|---|---|\n| add | ✅ |\n" * 20
    url = server.route("/cut.md", Reply(body=full, truncate=True), Reply(body=full))
    assert client.get_text(url).text == full
    assert len(server.hits("/cut.md")) == 2 and len(sleeps) == 1


def test_truncated_transfer_that_persists_fails(server, client):
    url = server.route("/always-cut.md", Reply(body="x" * 1000, truncate=True))
    with pytest.raises(FetchError, match="always-cut.md"):
        client.get_text(url)


class _NoDns(httpx.BaseTransport):
    """A network whose resolver knows no names, raising as httpx does (gaierror underneath)."""

    def __init__(self):
        self.calls = 0

    def handle_request(self, request):
        self.calls += 1
        try:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        except socket.gaierror as exc:
            raise httpx.ConnectError("[Errno -2] Name or service not known", request=request) from exc


def test_unresolvable_host_fails_at_once_without_retries(tmp_path, sleeps):
    transport = _NoDns()
    with HttpClient(cache_path=str(tmp_path / "c.sqlite"), transport=transport, sleep=sleeps.append) as client:
        with pytest.raises(FetchError, match="cannot resolve host docs.example.invalid.*not retried"):
            client.get_text("https://docs.example.invalid/a")
        with pytest.raises(FetchError, match="failed before in this run"):
            client.get_text("https://docs.example.invalid/b")
    assert sleeps == [] and transport.calls == 1


def test_refused_connection_is_still_retried(tmp_path, sleeps):
    class Refused(httpx.BaseTransport):
        def handle_request(self, request):
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    with HttpClient(cache_path=str(tmp_path / "c.sqlite"), transport=Refused(), sleep=sleeps.append,
                    retries=2, backoff=0.01) as client:
        with pytest.raises(FetchError, match="Connection refused"):
            client.get_text("https://docs.example.test/a")
    assert sleeps == [0.01, 0.02]


def test_name_resolution_errors_are_recognised_by_cause_or_text():
    from scrapers.http import is_name_resolution_error

    assert is_name_resolution_error(OSError("getaddrinfo failed"))
    assert not is_name_resolution_error(OSError("Connection refused"))
