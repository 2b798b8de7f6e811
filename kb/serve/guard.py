"""Two guards around every page `kb serve` answers, as one small ASGI wrapper.

- A Host allow-list against DNS rebinding: a page on some other site can point its own
  name at 127.0.0.1 and read the KB through the victim's browser, unless the server
  refuses Host names it was not started for. Allowed by default: the bound address and
  the localhost names; `kb serve --host-name NAME` adds one (as `kb mcp --http` does
  through the MCP SDK's allowed hosts).
- A Content-Security-Policy on every response, Datasette's own pages included: no
  inline or foreign script runs, so a `javascript:` link or injected markup that slipped
  past escaping does nothing. Datasette's own few inline scripts (closing menus, the SQL
  editor, the facet flag) run: they are allowed by their hashes, read from the installed
  Datasette's templates, which allow exactly those scripts and no `javascript:` URL.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
import re
from collections.abc import Iterable

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
MAX_HOST = 255
# Renderings of Datasette's one templated inline script (table.html), by value.
_TEMPLATED_SCRIPTS = {"DATASETTE_ALLOW_FACET = {{ datasette_allow_facet }};":
                      [f"DATASETTE_ALLOW_FACET = {value};" for value in ("true", "false")]}


def _sha256(body: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"


@functools.cache
def datasette_script_hashes() -> tuple[str, ...]:
    """CSP hashes of the inline scripts in the installed Datasette's templates: the static
    ones as written, the templated one in each rendering it has (anything else stays blocked)."""
    try:
        import datasette
    except ImportError:
        return ()
    root = os.path.join(os.path.dirname(datasette.__file__), "templates")
    hashes: set[str] = set()
    for folder, _dirs, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                text = fh.read()
            for body in re.findall(r"<script>(.*?)</script>", text, re.S):
                if "{{" not in body and "{%" not in body:
                    hashes.add(_sha256(body))
                for rendered in _TEMPLATED_SCRIPTS.get(body, ()):
                    hashes.add(_sha256(rendered))
    return tuple(sorted(hashes))


def policy() -> str:
    """The Content-Security-Policy every page gets."""
    scripts = " ".join(("'self'", *datasette_script_hashes()))
    return (f"default-src 'self'; script-src {scripts}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """Host names (no port) the server answers to: the bound address, localhost, `extra`."""
    names = {bind.strip("[]").lower(), *LOCAL_NAMES, *(name.strip().strip("[]").lower() for name in extra)}
    names.discard("")
    names.discard("0.0.0.0")  # an address to bind, never a name a browser sends
    names.discard("::")
    return frozenset(names)


_HOST_HEADER = re.compile(r"(?:\[(?P<ip6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._-]+))(?::[0-9]{1,5})?")


def host_name(header: str) -> str | None:
    """`example.com:8001` → `example.com`, `[::1]:8001` → `::1` (lower case); None for
    anything that is not exactly a host and an optional port (`[::1]evil.com`, `a@b`)."""
    found = _HOST_HEADER.fullmatch(header.strip().lower())
    if found is None:
        return None
    return found["ip6"] or found["name"]


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class Guard:
    """ASGI middleware: refuse a Host not on the list (400), add CSP to every response."""

    def __init__(self, app, hosts: frozenset[str]):
        self.app = app
        self.hosts = hosts
        self.csp = policy().encode()

    def allows(self, scope) -> bool:
        host = _header(scope, b"host")
        return host is not None and len(host) <= MAX_HOST and host_name(host) in self.hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        if not self.allows(scope):
            if scope["type"] == "websocket":
                return await send({"type": "websocket.close", "code": 1008})
            body = b"kb serve: this Host is not allowed (start kb serve with --host-name NAME to allow one)\n"
            await send({"type": "http.response.start", "status": 400, "headers": [
                (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                (b"content-security-policy", self.csp)]})
            return await send({"type": "http.response.body", "body": body})

        async def with_csp(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers") or () if k.lower() != b"content-security-policy"]
                headers.append((b"content-security-policy", self.csp))
                headers.append((b"x-content-type-options", b"nosniff"))
                message = {**message, "headers": headers}
            await send(message)

        return await self.app(scope, receive, with_csp)


def guard(app, bind: str, extra_hosts: Iterable[str] = ()) -> Guard:
    return Guard(app, allowed_hosts(bind, extra_hosts))
