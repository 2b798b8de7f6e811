"""A real `kb serve` process and a real headless Chromium, for the end-to-end test and the
README screenshot (`python -m tests.serve.browser docs/coverage-matrix.png` draws it from
the shipped KB).

Chromium is Debian's (`apt-get install -y chromium`), driven through its command line:
`--dump-dom` prints the page as the browser built it, `--screenshot` draws it.
KB_CHROMIUM names another binary.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import httpx

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Flags that make Chromium run headless as root in a container, offline and quiet.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars")


def find_chromium() -> str | None:
    override = os.environ.get("KB_CHROMIUM")
    if override:
        return override if os.path.exists(override) else shutil.which(override)
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def kb_serve(db: str, port: int | None = None, timeout: float = 30.0, extra: tuple[str, ...] = ()) -> Iterator[str]:
    """`kb serve` (with `extra` arguments) as a real subprocess on a free loopback port; yields its base URL."""
    port = port or free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (REPO, os.environ.get("PYTHONPATH")))))
    proc = subprocess.Popen([sys.executable, "-m", "cli.entry", "serve", "--db", db, "--port", str(port), *extra],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"kb serve exited with {proc.returncode}: {proc.stdout.read()}")
            try:
                if httpx.get(f"{base}/-/versions.json", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"kb serve did not answer on {base} within {timeout} s")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def chromium(url: str, *extra: str, timeout: float = 60.0) -> str:
    """Run headless Chromium on url with a fresh profile; returns its stdout."""
    binary = find_chromium()
    if binary is None:
        raise RuntimeError("no Chromium found (apt-get install -y chromium, or set KB_CHROMIUM)")
    with tempfile.TemporaryDirectory(prefix="kb-chromium-") as profile:
        result = subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url],
                                capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"chromium exited with {result.returncode}: {result.stderr[-2000:]}")
    return result.stdout


def dump_dom(url: str) -> str:
    return chromium(url, "--dump-dom")


def screenshot(url: str, out: str, width: int = 1200, height: int = 1000) -> str:
    out = os.path.abspath(out)
    chromium(url, f"--screenshot={out}", f"--window-size={width},{height}")
    return out


class Page:
    """One headless Chromium tab driven over the DevTools protocol on a pipe
    (`--remote-debugging-pipe`: JSON messages ended by NUL on fds 3 and 4; stdlib only),
    at a fixed viewport. `goto(url)` loads a page, `value(js)` evaluates an expression in
    it (DevTools evaluation, not a page script: the page's CSP stays as it is)."""

    def __init__(self, width: int = 1400, height: int = 900, timeout: float = 60.0):
        self.width, self.height, self.timeout = width, height, timeout
        self._buf, self._next_id, self._session = b"", 0, None

    def __enter__(self) -> Page:
        import fcntl

        binary = find_chromium()
        if binary is None:
            raise RuntimeError("no Chromium found (apt-get install -y chromium, or set KB_CHROMIUM)")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds_3_and_4():  # in the child, before exec: the protocol's fixed descriptors
            high_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self._profile = tempfile.TemporaryDirectory(prefix="kb-chromium-")
        self._proc = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={self._profile.name}", "--remote-debugging-pipe",
             f"--window-size={self.width},{self.height}", "about:blank"],
            preexec_fn=fds_3_and_4, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        try:
            target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self._call("Emulation.setDeviceMetricsOverride",
                       {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False})
            self._call("Page.enable")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._session = None
            self._call("Browser.close")
        except Exception:  # already gone
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self._profile.cleanup()

    def _message(self, wanted) -> dict:
        import json
        import select

        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                message = json.loads(raw)
                if wanted(message):
                    return message
            ready, _, _ = select.select([self._from_child], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError(f"Chromium did not answer within {self.timeout} s")
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self._buf += chunk

    def _call(self, method: str, params: dict | None = None) -> dict:
        import json

        self._next_id += 1
        number = self._next_id
        message = {"id": number, "method": method, "params": params or {}}
        if self._session:
            message["sessionId"] = self._session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        answer = self._message(lambda m: m.get("id") == number)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def goto(self, url: str) -> None:
        self._call("Page.navigate", {"url": url})
        self._message(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == self._session)

    def value(self, expression: str):
        result = self._call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")


def main(argv: list[str]) -> int:
    """Screenshot the coverage matrix of the KB built from the shipped data/ into argv[0]."""
    out = argv[0] if argv else os.path.join(REPO, "docs", "coverage-matrix.png")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kb-shot-") as tmp:
        os.environ["KB_CACHE_DIR"] = tmp  # the shipped KB, not the user's
        db = os.path.join(tmp, "kb.sqlite")
        with kb_serve(db) as base:
            print(screenshot(f"{base}/kb/coverage", out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
