"""Shared fixtures for scraper tests: a local HTTP server in a thread (127.0.0.1, port
0) that serves scripted responses, an HTTP client on a temporary cache, and the path
to the real reference documents (tests using it skip when it is absent)."""

from __future__ import annotations

import http.server
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from scrapers.http import HttpClient

FIXTURES = Path(__file__).parent / "fixtures"
# Fixtures are documents to parse, never tests to run (one is named like a test module).
collect_ignore_glob = ["fixtures/*"]
REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Reply:
    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    truncate: bool = False  # announce the full length, send half, close the connection


class Server:
    """Routes map a path to a list of replies, served in order (the last one repeats).
    A reply with an ETag answers 304 to a request that presents it."""

    def __init__(self) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                server.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                replies = server.routes.get(self.path)
                if not replies:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                reply = replies.pop(0) if len(replies) > 1 else replies[0]
                if reply.delay:
                    time.sleep(reply.delay)
                etag = reply.headers.get("ETag")
                if etag and self.headers.get("If-None-Match") == etag:
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.end_headers()
                    return
                body = reply.body.encode() if isinstance(reply.body, str) else reply.body
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if reply.truncate:
                    body = body[: len(body) // 2]
                    self.close_connection = True
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def route(self, path: str, *replies: Reply) -> str:
        self.routes[path] = list(replies)
        return self.url + path

    def hits(self, path: str) -> list[dict[str, str]]:
        return [headers for p, headers in self.requests if p == path]


@pytest.fixture
def server():
    srv = Server()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def client(tmp_path, sleeps):
    with HttpClient(cache_path=str(tmp_path / "http.sqlite"), timeout=0.5, retries=3, backoff=0.01,
                    sleep=sleeps.append) as c:
        yield c


@pytest.fixture
def fixture_text():
    def read(name: str) -> str:
        return (FIXTURES / name).read_text(encoding="utf-8")
    return read


@pytest.fixture
def neuron_docs_fixture() -> Path:
    return FIXTURES / "neuron-docs"


def reference_dir() -> Path | None:
    """KB_REFERENCE_DIR, else <repo root>/../shared/reference, else /work/shared/reference."""
    candidates = [os.environ.get("KB_REFERENCE_DIR"), REPO_ROOT.parent / "shared" / "reference",
                  REPO_ROOT.parent.parent / "shared" / "reference", Path("/work/shared/reference")]
    for candidate in candidates:
        if candidate and (Path(candidate) / "neuron-docs").is_dir():
            return Path(candidate)
    return None


@pytest.fixture
def neuron_docs() -> Path:
    found = reference_dir()
    if found is None:
        pytest.skip("reference documents not available (set KB_REFERENCE_DIR)")
    return found / "neuron-docs"
