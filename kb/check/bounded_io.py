"""Readers with a bound on everything an untrusted model file can make kb spend.

A 1 MB file can inflate to gigabytes (a zip member with a compression ratio of 1000),
claim a pickle of a billion opcodes, nest lists 20,000 deep, or be a sparse file of
terabytes. Every reader here stops at a stated bound and raises `BoundExceeded`, which
names the bound, so kb answers in one line (exit 2) before memory or time run away.
The bounds are chosen so that any input of 10 MB costs at most a few hundred MB and a
few seconds; real checkpoints' pickles and graphs stay far below them.
"""

from __future__ import annotations

import json
import pickletools
import zipfile
from collections.abc import Callable, Iterator
from typing import IO, Any

from kb.errors import KBError

MAX_MEMBER_BYTES = 64 << 20  # one zip member read into memory
MAX_JSON_BYTES = 32 << 20  # a graph or config JSON
MAX_PICKLE_BYTES = 32 << 20  # all the pickles of one file together
MAX_PICKLE_OPS = 1_000_000  # opcodes scanned, all pickles together
MAX_PICKLE_STACK = 2_000  # values on the unpickler's stack (nesting)
MAX_NESTING = 500  # depth of a JSON document or an unpickled object walked by kb
MAX_RATIO = 200  # uncompressed / compressed size of a member bigger than 1 MiB
MAX_MEMBERS = 100_000  # entries in one archive
ALLOWED_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
ZIP_MAGIC = b"PK\x03\x04"


class BoundExceeded(KBError):
    """Input bigger, deeper or more compressed than kb reads (exit 2, one line)."""


class DamagedInput(KBError):
    """Input that is not what it claims to be (a damaged or odd archive)."""


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


# --- zip archives --------------------------------------------------------------------


def open_zip(path: str) -> zipfile.ZipFile:
    """The archive, checked: no encryption, only stored or deflated members, no duplicate
    names, a sane number of entries. Member sizes are checked when read (`read_member`)."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:
        raise DamagedInput(f"{path}: damaged or unsupported zip archive ({exc})") from None
    try:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise BoundExceeded(f"{path}: {len(infos)} archive entries (bound: {MAX_MEMBERS})")
        seen: set[str] = set()
        for info in infos:
            if info.flag_bits & 0x1:
                raise DamagedInput(f"{path}: {info.filename!r} is encrypted; kb reads no encrypted archives")
            if info.compress_type not in ALLOWED_METHODS:
                raise DamagedInput(f"{path}: {info.filename!r} uses compression method {info.compress_type}; "
                                   "kb reads stored or deflated members only")
            if info.extract_version > zipfile.MAX_EXTRACT_VERSION:
                raise DamagedInput(f"{path}: {info.filename!r} needs zip version {info.extract_version / 10:g}; "
                                   "kb reads zip archives up to version 6.3")
            if info.filename in seen:
                raise DamagedInput(f"{path}: {info.filename!r} appears twice in the archive")
            seen.add(info.filename)
    except BaseException:
        archive.close()
        raise
    return archive


def check_member(archive: zipfile.ZipFile, name: str, limit: int = MAX_MEMBER_BYTES) -> zipfile.ZipInfo:
    """The member's entry, refused when its declared size or compression ratio is over a bound."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise DamagedInput(f"{archive.filename}: no member {name!r}") from None
    if info.file_size > limit:
        raise BoundExceeded(f"{archive.filename}: {name} is {_mib(info.file_size)} uncompressed "
                            f"(bound: {_mib(limit)})")
    if info.file_size > (1 << 20) and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise BoundExceeded(f"{archive.filename}: {name} inflates {info.file_size // max(info.compress_size, 1)}-fold "
                            f"(bound: {MAX_RATIO}-fold)")
    return info


def read_member(archive: zipfile.ZipFile, name: str, limit: int = MAX_MEMBER_BYTES) -> bytes:
    """A member's bytes, never more than `limit` whatever its header claims."""
    check_member(archive, name, limit)
    try:
        with archive.open(name) as member:
            data = member.read(limit + 1)
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError, ValueError) as exc:
        raise DamagedInput(f"{archive.filename}: cannot read {name} ({exc})") from None
    except Exception as exc:  # zlib.error and friends on a damaged stream
        raise DamagedInput(f"{archive.filename}: cannot read {name} ({type(exc).__name__}: {exc})") from None
    if len(data) > limit:
        raise BoundExceeded(f"{archive.filename}: {name} is over {_mib(limit)} uncompressed (bound)")
    return data


# --- JSON ----------------------------------------------------------------------------


def load_json(data: bytes | str, what: str, limit: int = MAX_JSON_BYTES) -> Any:
    """Parsed JSON, refused over `limit` bytes or deeper than MAX_NESTING."""
    if len(data) > limit:
        raise BoundExceeded(f"{what}: {_mib(len(data))} of JSON (bound: {_mib(limit)})")
    try:
        document = json.loads(data)
    except RecursionError:
        raise BoundExceeded(f"{what}: JSON nested too deep (bound: {MAX_NESTING} levels)") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise DamagedInput(f"{what}: not valid JSON ({exc})") from None
    check_depth(document, what)
    return document


def check_depth(value: Any, what: str, limit: int = MAX_NESTING) -> None:
    """Refuse a value of dicts/lists/tuples nested deeper than `limit` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise BoundExceeded(f"{what}: nested deeper than {limit} levels (bound)")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend((v, depth + 1) for v in item)


# --- pickles -------------------------------------------------------------------------


class _Budget:
    """Opcodes and bytes scanned so far, across all the pickles of one file."""

    def __init__(self) -> None:
        self.ops = 0


class BoundedStream:
    """A read-only view of a file that refuses to hand out more than `limit` bytes."""

    def __init__(self, fh: IO[bytes], limit: int, what: str):
        self.fh, self.limit, self.what = fh, limit, what
        self.start = fh.tell()

    def _check(self, n: int) -> None:
        if self.fh.tell() - self.start + max(n, 0) > self.limit:
            raise BoundExceeded(f"{self.what}: pickles longer than {_mib(self.limit)} (bound)")

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = self.limit + 1
        self._check(n)
        data = self.fh.read(n)
        self._check(0)
        return data

    def readline(self, n: int = -1) -> bytes:
        line = self.fh.readline(min(n, 65536) if n and n > 0 else 65536)
        self._check(0)
        return line

    def tell(self) -> int:
        return self.fh.tell()

    def seek(self, *args) -> int:
        return self.fh.seek(*args)


def scan_pickles(stream, what: str, count: int, on_op: Callable[[Any, Any], None],
                 *, budget: _Budget | None = None) -> int:
    """Walk the opcodes of up to `count` consecutive pickles in `stream` — exactly what
    pickle.load would execute — calling on_op(opcode, arg) for each, within the opcode
    and stack bounds. Returns how many pickles were complete. The first pickle must be
    readable (DamagedInput otherwise); a later one that is not stops the walk, after
    its opcodes up to the damage were seen (an unpickler would have run those too)."""
    budget = budget or _Budget()
    done = 0
    for number in range(count):
        start = stream.tell()
        if not stream.read(1):
            break
        stream.seek(start)
        try:
            for opcode, arg in _ops(stream, what, budget):
                on_op(opcode, arg)
        except KBError:
            raise
        except Exception as exc:  # pickletools raises ValueError and friends on garbage
            if number == 0:
                raise DamagedInput(f"{what}: not a readable pickle ({type(exc).__name__}: {exc})") from None
            break
        done += 1
    return done


def _ops(stream, what: str, budget: _Budget) -> Iterator[tuple[Any, Any]]:
    """genops with a stack model: refuses more than MAX_PICKLE_OPS opcodes in all and a
    stack deeper than MAX_PICKLE_STACK (a 20,000-deep nested list, say)."""
    from pickletools import markobject

    depth, marks = 0, []
    for opcode, arg, _pos in pickletools.genops(stream):
        budget.ops += 1
        if budget.ops > MAX_PICKLE_OPS:
            raise BoundExceeded(f"{what}: more than {MAX_PICKLE_OPS:,} pickle opcodes (bound)")
        before, after = opcode.stack_before, opcode.stack_after
        if markobject in before:
            below = before.index(markobject)
            depth = (marks.pop() if marks else 0) - below
        else:
            depth -= len(before)
        if markobject in after:
            marks.append(max(depth, 0))
            if len(marks) > MAX_PICKLE_STACK:
                raise BoundExceeded(f"{what}: pickle nested deeper than {MAX_PICKLE_STACK} (bound)")
        else:
            depth += len(after)
        depth = max(depth, 0)
        if depth > MAX_PICKLE_STACK:
            raise BoundExceeded(f"{what}: pickle nested deeper than {MAX_PICKLE_STACK} (bound)")
        yield opcode, arg
        if opcode.name == "STOP":
            return
