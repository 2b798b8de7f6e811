"""kb serve answers only the Host names it was started for (DNS rebinding) and sends a
Content-Security-Policy on every page, Datasette's own included: tested on a really
started `kb serve` over HTTP, and on its ASGI app for every kind of page."""

from __future__ import annotations

import asyncio
import subprocess

import httpx
import pytest

from kb.serve import guard, launch
from tests.serve.browser import kb_serve


def _get(app, path: str, host: str = "localhost") -> httpx.Response:
    async def fetch():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            return await client.get(path, headers={"host": host})

    return asyncio.run(fetch())


@pytest.fixture
def served(kb_file):
    """A real `kb serve` process on a free loopback port, also allowing the name kb.internal."""
    with kb_serve(kb_file, timeout=60, extra=("--host-name", "kb.internal")) as base:
        yield base


def test_a_started_kb_serve_refuses_a_foreign_host_and_sends_csp(served):
    good = httpx.get(f"{served}/kb/coverage", timeout=30)
    assert good.status_code == 200 and good.headers["content-security-policy"] == guard.policy()
    rebound = httpx.get(f"{served}/kb/coverage", headers={"Host": "attacker.example:8001"}, timeout=30)
    assert rebound.status_code == 400 and "Host is not allowed" in rebound.text
    assert "content-security-policy" in rebound.headers and "aten::" not in rebound.text
    named = httpx.get(f"{served}/kb/support.json", headers={"Host": "kb.internal"}, timeout=30)
    assert named.status_code == 200 and named.headers["content-security-policy"] == guard.policy()


@pytest.mark.parametrize("path", ["/", "/kb", "/kb/support", "/kb/support.json", "/kb/coverage",
                                  "/-/op?q=aten::relu", "/-/op?q=nosuchop", "/kb/observation?_facet=source_kind",
                                  "/-/versions.json", "/no/such/page", "/kb/-/query?sql=select+1"])
def test_every_page_carries_the_csp(kb_file, path):
    response = _get(launch.app(kb_file), path)
    assert response.headers.get("content-security-policy") == guard.policy(), path
    assert response.headers.get("x-content-type-options") == "nosniff"


@pytest.mark.parametrize("host", ["attacker.example", "127.0.0.1.attacker.example", "localhost.evil:8001",
                                  "", "x" * 300, "[localhost]evil.com", "[::1]evil.com", "localhost:8001@evil.com",
                                  "localhost:80:80", "local host"])
def test_the_asgi_app_refuses_hosts_not_on_the_list(kb_file, host):
    response = _get(launch.app(kb_file), "/kb/support.json", host=host)
    assert response.status_code == 400


@pytest.mark.parametrize("host", ["localhost", "localhost:8001", "127.0.0.1:8001", "[::1]:8001", "LOCALHOST"])
def test_the_local_names_are_allowed(kb_file, host):
    assert _get(launch.app(kb_file), "/-/versions.json", host=host).status_code == 200


def test_the_bound_address_and_added_names_are_allowed(kb_file):
    app = launch.app(kb_file, host="10.1.2.3", host_names=["kb.team.example"])
    assert _get(app, "/-/versions.json", host="10.1.2.3:8001").status_code == 200
    assert _get(app, "/-/versions.json", host="kb.team.example").status_code == 200
    assert _get(app, "/-/versions.json", host="other.team.example").status_code == 400


def test_binding_every_address_does_not_allow_every_host():
    assert "0.0.0.0" not in guard.allowed_hosts("0.0.0.0") and "::" not in guard.allowed_hosts("::")
    assert guard.host_name("[::1]:8001") == "::1" and guard.host_name("Example.COM:80") == "example.com"


def test_the_csp_forbids_inline_and_foreign_script():
    directives = dict(part.strip().split(" ", 1) for part in guard.policy().split(";"))
    scripts = directives["script-src"].split()
    assert scripts[0] == "'self'" and all(s.startswith("'sha256-") for s in scripts[1:])
    assert not {"'unsafe-inline'", "'unsafe-hashes'", "'unsafe-eval'", "*"} & set(scripts)
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"


@pytest.mark.heavy
def test_datasette_pages_run_under_the_csp_without_violations(served):
    """In a real browser, no page logs a CSP violation: Datasette's own inline scripts are
    allowed by hash (skips without Chromium)."""
    import tempfile

    from tests.serve.browser import CHROMIUM_FLAGS, find_chromium

    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium to drive: apt-get install -y chromium (or set KB_CHROMIUM)")
    for path in ("/kb/coverage", "/kb/support?op=aten::relu", "/-/op?q=aten::relu", "/kb/-/query?sql=select+1"):
        with tempfile.TemporaryDirectory(prefix="kb-chromium-") as profile:
            result = subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr",
                                     "--v=0", "--dump-dom", served + path], capture_output=True, text=True, timeout=90)
        assert "Content Security Policy" not in result.stderr, (path, result.stderr[-600:])
        assert "<html" in result.stdout.lower()
