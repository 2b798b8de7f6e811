"""`kb serve`: browse the KB in Datasette (read-only, loopback by default)."""

from __future__ import annotations

import socket
import sys
from typing import Annotated, Optional

import typer

from cli.options import DbOption
from cli.render import emit_json, note
from kb.errors import KBError

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def check_port_free(host: str, port: int) -> None:
    """Fail with one line before Datasette starts, rather than a server traceback after."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise KBError(f"cannot listen on {host}: {exc.strerror}") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            raise KBError(f"cannot listen on {host}:{port} ({exc.strerror}); pick another --port") from None


def register_pages() -> None:
    """Hand kb.serve the answers it may not import itself: the end-of-support product pages
    (kb.eol, a room of the same rank), the same listing `kb eol PRODUCT` prints."""
    from kb.eol import windows
    from kb.serve import plugin

    def eol_page(conn, product):
        return {**windows.listing(conn, product=product), "ending_days": windows.ENDING_DAYS}

    plugin.PROVIDERS["eol"] = eol_page
    from kb.gallery import pages

    plugin.PROVIDERS["gallery"] = pages.page  # /-/gallery and /-/gallery/MODEL


def serve_command(
    port: Annotated[int, typer.Option("--port", "-p", min=1, max=65535, help="Port to listen on.")] = 8001,
    host: Annotated[str, typer.Option("--host", help="Address to bind; 0.0.0.0 exposes the KB to your network.")] = "127.0.0.1",
    get: Annotated[Optional[str], typer.Option("--get", help="Print one page (e.g. /kb/coverage.json) and exit, no server.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print where it serves (or, with --get, the page) in kb's JSON envelope.")] = False,
    host_name: Annotated[Optional[list[str]], typer.Option(
        "--host-name", help="Also answer requests for this Host name (repeatable); the bound address and localhost always.")] = None,
    db: DbOption = None,
) -> None:
    """Browse the KB in Datasette: coverage matrix, facets, disagreements, probe runs, end of support.

    The KB is opened read-only; data ingested while it runs shows on the next page load.
    """
    from kb.serve import launch as serve
    from kb.store import db as kbdb

    path = kbdb.resolve_path(db)
    serve.check_path(path)  # before the KB is built there: Datasette would open another file
    kbdb.open_kb(path).close()  # build from data/ (or migrate) first: the server only reads it
    register_pages()
    if get is not None:
        _print_page(serve.make_datasette(path), get, json_out)
        return
    check_port_free(host, port)
    if host not in LOOPBACK:
        note(f"warning: listening on {host}: anyone who can reach this machine can read the KB "
             "(requests must name an allowed Host: add names with --host-name)")
    shown = f"[{host}]" if ":" in host else host
    note(f"serving {path} read-only at http://{shown}:{port}/kb/coverage (Ctrl-C to stop)")
    if json_out:
        import os
        import sys

        emit_json({"url": f"http://{shown}:{port}/", "db": path, "pid": os.getpid()})
        sys.stdout.flush()
    serve.serve(path, host=host, port=port, host_names=host_name or ())


REDIRECTS = 5  # --get follows this many redirects within the KB's pages (t26 r2 #7)


async def _get_following(ds, path: str):
    """The page at `path`, a redirect to another of the KB's pages followed (the search box
    of /-/eol?product=NAME answers with one): a redirect is neither a finding nor a gate."""
    from urllib.parse import urlsplit

    response = await ds.client.get(path)
    for _ in range(REDIRECTS):
        location = response.headers.get("location") or ""
        if response.status_code not in (301, 302, 303, 307, 308) or not location:
            break
        parts = urlsplit(location)
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            break
        response = await ds.client.get(parts.path + (f"?{parts.query}" if parts.query else ""))
    return response


def _print_page(ds, path: str, json_out: bool = False) -> None:
    import asyncio

    if not path.startswith("/") or path.startswith("//"):
        raise KBError(f"--get takes a path starting with / (got {path!r})")
    route = path.split("?", 1)[0].split("#", 1)[0]
    if any(segment in (".", "..") for segment in route.split("/")) or any(ord(c) < 32 for c in path):
        raise KBError(f"--get {path!r}: a page of the KB, e.g. /kb/coverage.json (no . or .. segments)")
    response = asyncio.run(_get_following(ds, path))
    if json_out:
        import json

        try:
            page = json.loads(response.text)
        except ValueError:
            page = response.text
        emit_json({"path": path, "http_status": response.status_code, "page": page})
    else:
        sys.stdout.write(response.text + "\n")  # cli.entry guards it: a reader that stops early gives 141
    if response.status_code != 200:
        from cli.render import error

        error(f"--get {path}: HTTP {response.status_code}")
        raise typer.Exit(1)
