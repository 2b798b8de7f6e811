"""Reading a path a user handed kb: checked before a byte is read, bounded while reading.

Every command that opens a user's path (a model, a report, a docs folder, a repository)
goes through here, because the path may be anything: `/dev/zero` (endless), a FIFO (a
read that never returns), a symlink to either, a sparse file of terabytes, a single line
of 40 MB, or a tree 1,100 folders deep. The rule is the same everywhere: the path must
name a regular file (after following links), its size is compared with a cap before it
is opened, the open itself cannot block (O_NONBLOCK, then fstat of what was opened, so a
file swapped for a FIFO between the check and the open is caught), and no read hands out
more than the cap. Breaking a bound raises `FileRefused`, a `KBError`: one line, exit 2.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from typing import IO

from kb.errors import KBError

MAX_TEXT_BYTES = 64 << 20  # a report, a docs page, a config: far above any real one
MAX_MODEL_BYTES = 1 << 40  # model files are read in pieces by bounded readers; size alone is fine
MAX_LINE_BYTES = 32 << 20  # one JSONL record (a shard report carries its whole journal on one line)
MAX_REPORT_BYTES = 256 << 20  # a JSONL report, read line by line (the shipped replays are ~5 MB)
MAX_LINES = 2_000_000  # lines of one JSONL file
MAX_WALK_DEPTH = 256  # folders below the root of a walk
MAX_WALK_ENTRIES = 200_000  # files and folders seen by one walk


class FileRefused(KBError):
    """A user's path that kb will not read: not a regular file, or over a bound."""


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def check_file(path: str, limit: int = MAX_TEXT_BYTES, what: str | None = None) -> os.stat_result:
    """The file's stat, after refusing anything but a regular file of at most `limit` bytes.
    Links are followed (a symlink to a regular file is fine, one to /dev/zero is not)."""
    name = what or path
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise FileRefused(f"{name}: no such file") from None
    except OSError as exc:
        raise FileRefused(f"{name}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(f"{name}: {_kind(info.st_mode)}, not a regular file — kb reads regular files only")
    if info.st_size > limit:
        raise FileRefused(f"{name}: {_mib(info.st_size)} (bound: {_mib(limit)})")
    return info


def is_regular(path: str) -> bool:
    """Whether `path` is a regular file (links followed), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def open_file(path: str, limit: int = MAX_TEXT_BYTES, what: str | None = None) -> IO[bytes]:
    """A binary handle on a checked regular file. The open cannot block on a FIFO, and what
    was opened is checked again (a path swapped after `check_file` is refused too)."""
    name = what or path
    check_file(path, limit, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FileRefused(f"{name}: cannot read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{name}: {_kind(info.st_mode)}, not a regular file — kb reads regular files only")
        if info.st_size > limit:
            raise FileRefused(f"{name}: {_mib(info.st_size)} (bound: {_mib(limit)})")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str, limit: int = MAX_TEXT_BYTES, what: str | None = None) -> bytes:
    """The file's bytes, never more than `limit` (a file that grows while read is refused)."""
    name = what or path
    with open_file(path, limit, name) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise FileRefused(f"{name}: over {_mib(limit)} (bound)")
    return data


def file_sha256(path: str, limit: int = MAX_REPORT_BYTES) -> str:
    """The sha256 of a regular file within `limit`, read in blocks."""
    digest = hashlib.sha256()
    with open_file(path, limit) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_text(path: str, limit: int = MAX_TEXT_BYTES, what: str | None = None) -> str:
    """The file as UTF-8 text, bounded like `read_bytes`."""
    name = what or path
    try:
        return read_bytes(path, limit, name).decode("utf-8")
    except UnicodeDecodeError:
        raise FileRefused(f"{name}: not a UTF-8 text file") from None


def iter_lines(path: str, *, limit: int = MAX_REPORT_BYTES, max_line: int = MAX_LINE_BYTES,
               max_lines: int = MAX_LINES, what: str | None = None) -> Iterator[str]:
    """The file's lines as text (newline kept), each refused over `max_line` bytes, the file
    over `max_lines` lines or `limit` bytes. A line is never read whole before its length
    is known: readline is asked for at most max_line + 1 bytes."""
    name = what or path
    with open_file(path, limit, name) as fh:
        total = 0
        for number in range(1, max_lines + 2):
            line = fh.readline(max_line + 1)
            if not line:
                return
            if number > max_lines:
                raise FileRefused(f"{name}: more than {max_lines:,} lines (bound)")
            if len(line) > max_line:
                raise FileRefused(f"{name}:{number}: a line over {_mib(max_line)} (bound)")
            total += len(line)
            if total > limit:
                raise FileRefused(f"{name}: over {_mib(limit)} (bound)")
            try:
                yield line.decode("utf-8")
            except UnicodeDecodeError:
                raise FileRefused(f"{name}:{number}: not UTF-8 text") from None


def walk(root: str, *, max_depth: int = MAX_WALK_DEPTH, max_entries: int = MAX_WALK_ENTRIES,
         on_skip=None) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk, top-down, links never followed, without recursion: folders deeper than
    `max_depth` are not entered (on_skip(path, reason) is told, once per folder), and the
    walk stops with FileRefused after `max_entries` entries. `dirnames` may be pruned in
    place by the caller, as with os.walk. Unreadable folders go to on_skip too."""
    stack = [(root, 0)]
    seen = 0
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as entries:
                items = list(_bounded(entries, max_entries - seen, root, max_entries))
        except OSError as exc:
            if on_skip:
                on_skip(folder, exc.strerror or str(exc))
            continue
        seen += len(items)
        dirnames = sorted(e.name for e in items if e.is_dir(follow_symlinks=False))
        filenames = sorted(e.name for e in items if not e.is_dir(follow_symlinks=False))
        yield folder, dirnames, filenames
        for name in reversed(dirnames):
            child = os.path.join(folder, name)
            if depth + 1 > max_depth:
                if on_skip:
                    on_skip(child, f"nested deeper than {max_depth} folders (bound)")
                continue
            stack.append((child, depth + 1))


def _bounded(entries, room: int, root: str, bound: int):
    for count, entry in enumerate(entries, 1):
        if count > room:
            raise FileRefused(f"{root}: more than {bound:,} files and folders (bound)")
        yield entry


# --- parsers with a nesting bound ------------------------------------------------------

MAX_NESTING = 200  # JSON arrays/objects or TOML arrays/tables inside one another


def parse_json(text: str | bytes, what: str, max_nesting: int = MAX_NESTING):
    """json.loads, with a nesting bound checked on the raw text first (the C parser would
    recurse once per level and end in RecursionError): one line, never a traceback."""
    import json

    _check_nesting(text, what, max_nesting, "[{")
    try:
        return json.loads(text)
    except RecursionError:
        raise FileRefused(f"{what}: JSON nested too deep (bound: {max_nesting} levels)") from None
    except UnicodeDecodeError:
        raise FileRefused(f"{what}: not UTF-8 text") from None
    except ValueError as exc:
        raise FileRefused(f"{what}: not JSON ({getattr(exc, 'msg', exc)})") from None


def parse_toml(text: str, what: str, max_nesting: int = MAX_NESTING) -> dict:
    """tomllib.loads with the same nesting bound (inline arrays and tables recurse too)."""
    import tomllib

    _check_nesting(text, what, max_nesting, "[{")
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise FileRefused(f"{what}: TOML nested too deep (bound: {max_nesting} levels)") from None
    except tomllib.TOMLDecodeError as exc:
        raise FileRefused(f"{what}: not valid TOML ({exc})") from None


def _check_nesting(text: str | bytes, what: str, limit: int, openers: str) -> None:
    """Refuse text whose brackets open deeper than `limit` outside strings. A cheap upper
    bound on what a parser will recurse into: brackets in strings are skipped for JSON
    ("..." with escapes) and TOML's basic strings; a TOML literal or multi-line string
    with brackets could only make this stricter on absurd input, never let depth through."""
    import re

    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= limit:
        return
    depth = 0
    for token in re.finditer(r'"(?:\\.|[^"\\])*"|[\[\]{}]', text):
        char = token.group(0)
        if char in openers:
            depth += 1
            if depth > limit:
                raise FileRefused(f"{what}: nested deeper than {limit} levels (bound)")
        elif char in "]}":
            depth = max(depth - 1, 0)
