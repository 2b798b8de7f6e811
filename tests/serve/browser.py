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
