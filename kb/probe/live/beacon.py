"""The beacon: a 512-byte shared file in which a worker writes the ATen overload it is
about to call, so that when the call kills or hangs the process, the parent (which
reads the file) still knows which overload did it."""

from __future__ import annotations

BEACON_SIZE = 512


class Beacon:
    """The name of the call in progress, in a file the parent can read after a crash."""

    def __init__(self, path: str | None):
        self.mm = None
        if path:
            import mmap

            with open(path, "r+b") as fh:
                self.mm = mmap.mmap(fh.fileno(), BEACON_SIZE)

    def set(self, text: str) -> None:
        if self.mm is not None:
            data = text.encode()[:BEACON_SIZE - 1] + b"\0"
            self.mm[:len(data)] = data


def read_beacon(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(BEACON_SIZE).split(b"\0", 1)[0].decode(errors="replace")
    except OSError:
        return ""


def make_beacon_file(path: str) -> None:
    with open(path, "wb") as fh:
        fh.write(b"\0" * BEACON_SIZE)
