"""The one HTTP module every scraper uses: an httpx client with timeouts, retries with
exponential backoff on 5xx and timeouts (but none for a host name that does not
resolve: that does not heal in a minute, and a scheduled refresh should say so at
once), `Retry-After` on 429, a descriptive
User-Agent, and an on-disk cache (hishel, RFC 9111) that revalidates with
ETag/Last-Modified on every fetch so an unchanged page costs a 304. `offline=True`
answers from the cache only.

hishel 2.x API used here: `hishel.httpx.CacheTransport(next_transport, storage, rfc)`,
`hishel.SqliteStorage(database_path=...)`, per-request `extensions={"caching": {...}}`
overrides (we pin the cache key so that the online, RFC-following mode and the offline,
serve-what-is-stored mode share entries) and `response.extensions["caching"]`
(a CacheStatus: from_cache / revalidated / stored).
"""

from __future__ import annotations

import email.utils
import hashlib
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import hishel
import httpx
from hishel.httpx import CacheTransport

import kb
from kb.errors import KBError
from kb.paths import cache_dir
from kb.store.records import utc_now

USER_AGENT = f"kb/{kb.__version__} (compatibility knowledge base scraper; +https://github.com/aws-neuron)"
RETRY_STATUSES = frozenset({500, 502, 503, 504})
MAX_RETRY_AFTER_S = 120.0


class FetchError(KBError):
    """A document could not be fetched (after retries), or is not in the offline cache."""


@dataclass(frozen=True)
class Fetched:
    url: str
    text: str
    retrieved_at: str
    cache: str  # "fresh" (downloaded), "revalidated" (304, served from cache), "cached" (offline)


# What resolvers say when a name does not resolve (glibc, macOS, musl, Windows), for
# errors that reach us as text only.
_NO_SUCH_HOST = ("name or service not known", "nodename nor servname", "no address associated with hostname",
                 "temporary failure in name resolution", "getaddrinfo failed", "name does not resolve")


def is_name_resolution_error(exc: BaseException) -> bool:
    """True when `exc` (or what caused it) is a failed DNS lookup: `socket.gaierror`
    under httpx's ConnectError, or its message."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, socket.gaierror):
            return True
        if any(words in str(current).lower() for words in _NO_SUCH_HOST):
            return True
        current = current.__cause__ or current.__context__
    return False


class _OfflineTransport(httpx.BaseTransport):
    """The network as seen offline: every request that reaches it is a cache miss."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        raise FetchError(f"{request.url}: not in the HTTP cache (run once online, or pass --from-file)")


def _cache_key(url: str) -> str:
    return hashlib.sha256(f"kb {url}".encode()).hexdigest()


def retry_after_seconds(value: str | None, default: float) -> float:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return default
    value = value.strip()
    if value.isdigit():
        return min(float(value), MAX_RETRY_AFTER_S)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return default
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, min((when - datetime.now(UTC)).total_seconds(), MAX_RETRY_AFTER_S))


class HttpClient:
    """Fetch text documents politely. Use as a context manager."""

    def __init__(
        self,
        *,
        cache_path: str | None = None,
        offline: bool = False,
        timeout: float = 20.0,
        retries: int = 3,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ):
        self.offline = offline
        self._unresolvable: set[str] = set()
        self.retries = retries
        self.backoff = backoff
        self.sleep = sleep
        path = cache_path or os.path.join(cache_dir(), "http-cache.sqlite")
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.storage = hishel.SqliteStorage(database_path=path)
        if offline:
            inner: httpx.BaseTransport = _OfflineTransport()
        else:
            inner = transport or httpx.HTTPTransport()
        # Online: RFC 9111 with revalidation. Offline: serve whatever is stored.
        rfc: bool | hishel.CacheOptions = False if offline else hishel.CacheOptions(shared=False)
        self._client = httpx.Client(
            transport=CacheTransport(next_transport=inner, storage=self.storage, rfc=rfc),
            timeout=httpx.Timeout(timeout),
            headers={"User-Agent": USER_AGENT},
            follow_redirects=True,
        )

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def _send(self, url: str) -> httpx.Response:
        extensions = {"caching": {"key": _cache_key(url)}}
        # `no-cache` makes the cache check with the origin (If-None-Match /
        # If-Modified-Since) every time: vendors edit pages without notice.
        headers = {} if self.offline else {"Cache-Control": "no-cache"}
        return self._client.get(url, headers=headers, extensions=extensions)

    def get_text(self, url: str) -> Fetched:
        """The body of `url` as text, retrying transient failures."""
        attempt = 0
        host = httpx.URL(url).host
        if host in self._unresolvable:
            raise FetchError(f"{url}: cannot resolve host {host} (failed before in this run; not retried)")
        while True:
            try:
                response = self._send(url)
            except FetchError:
                raise
            except httpx.ConnectError as exc:
                if is_name_resolution_error(exc):  # will not heal by waiting: fail now, and for this host from now on
                    self._unresolvable.add(host)
                    raise FetchError(f"{url}: cannot resolve host {host} (no network or DNS?); not retried") from None
                if attempt >= self.retries:
                    raise FetchError(f"{url}: {type(exc).__name__}: {exc}") from None
                self.sleep(self.backoff * 2**attempt)
                attempt += 1
                continue
            except httpx.TimeoutException as exc:
                if attempt >= self.retries:
                    raise FetchError(f"{url}: timed out after {attempt + 1} tries ({type(exc).__name__})") from None
                self.sleep(self.backoff * 2**attempt)
                attempt += 1
                continue
            except httpx.HTTPError as exc:
                if attempt >= self.retries:
                    raise FetchError(f"{url}: {type(exc).__name__}: {exc}") from None
                self.sleep(self.backoff * 2**attempt)
                attempt += 1
                continue
            status = response.status_code
            if status == 429 and attempt < self.retries:
                self.sleep(retry_after_seconds(response.headers.get("Retry-After"), self.backoff * 2**attempt))
                attempt += 1
                continue
            if status in RETRY_STATUSES and attempt < self.retries:
                self.sleep(self.backoff * 2**attempt)
                attempt += 1
                continue
            if status >= 400:
                raise FetchError(f"{url}: HTTP {status}" + (f" after {attempt + 1} tries" if attempt else ""))
            caching = response.extensions.get("caching") or {}
            if self.offline:
                how = "cached"
            elif caching.get("revalidated"):
                how = "revalidated"
            elif caching.get("from_cache"):
                how = "cached"
            else:
                how = "fresh"
            return Fetched(url=url, text=response.text, retrieved_at=utc_now(), cache=how)
