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


# --- calls in a pickle that allocate what the file does not contain -------------------

# Callables a data-only pickle may name whose arguments size an allocation: bytearray(n)
# and bytes(n) make n zero bytes (a 919-byte file asks for 1.6 GB), and torch's own
# weights-only unpickler allows bytearray. Real checkpoints only ever call them on the
# bytes or text the pickle itself carries.
SIZED_CALLS = frozenset({"builtins.bytearray", "__builtin__.bytearray", "builtins.bytes", "__builtin__.bytes"})
MAX_SIZED_CALL = 1 << 20  # an int argument this big to one of SIZED_CALLS is refused

_INTS = ("INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4")
_TEXTS = ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING", "BINSTRING", "STRING",
          "SHORT_BINBYTES", "BINBYTES", "BINBYTES8", "BYTEARRAY8")


def _literal(args: tuple) -> bool:
    """Whether a call's argument tuple is bytes or text the pickle itself carries (protocol 2
    spells bytes as _codecs.encode(text, "latin1"), which AllocationGuard reads as text)."""
    return args[0] == "tuple" and args[1] is not None and all(item[0] in ("text", "name") for item in args[1])


class AllocationGuard:
    """A symbolic model of the unpickler's stack, just precise enough to see which callable
    each REDUCE / NEWOBJ / OBJ / INST calls and with what literal arguments; refuses a call
    of SIZED_CALLS whose arguments are not the literal bytes or text it was given."""

    _UNKNOWN = ("?",)

    def __init__(self, what: str) -> None:
        self.what = what
        self.stack: list[tuple] = []
        self.marks: list[int] = []
        self.memo: dict[int, tuple] = {}

    def _pop(self, n: int = 1) -> list[tuple]:
        items = self.stack[-n:] if n else []
        del self.stack[len(self.stack) - len(items):]
        return [self._UNKNOWN] * (n - len(items)) + items

    def _to_mark(self) -> list[tuple]:
        start = self.marks.pop() if self.marks else 0
        items = self.stack[start:]
        del self.stack[start:]
        return items

    def _call(self, fn: tuple, args: tuple) -> None:
        if fn[0] != "global" or fn[1] not in SIZED_CALLS:
            return
        if _literal(args):
            return  # bytearray(b"..."), bytearray("...", "latin-1"): what the file holds
        items = args[1] if args[0] == "tuple" else None
        ints = [item[1] for item in items or () if item[0] == "int"]
        if items is not None and len(items) == 1 and ints and 0 <= ints[0] <= MAX_SIZED_CALL:
            return
        shown = f"{fn[1]}({ints[0]:,})" if ints else f"{fn[1]} on values it computes"
        raise BoundExceeded(f"{self.what}: the pickle calls {shown}, an allocation the file does not hold "
                            "— refusing it")

    def on_op(self, opcode, arg) -> None:
        from pickletools import markobject

        name, push = opcode.name, self.stack.append
        if name == "PROTO":
            self.memo.clear()
        elif name == "GLOBAL":
            module, _, attr = str(arg).partition(" ")
            push(("global", f"{module}.{attr}"))
        elif name == "INST":
            module, _, attr = str(arg).partition(" ")
            self._call(("global", f"{module}.{attr}"), ("tuple", self._to_mark()))
            push(self._UNKNOWN)
        elif name == "STACK_GLOBAL":
            module, attr = self._pop(2)
            ok = module[0] == "name" and attr[0] == "name"
            push(("global", f"{module[1]}.{attr[1]}") if ok else self._UNKNOWN)
        elif name in _INTS:
            push(("int", int(arg)) if isinstance(arg, int) else self._UNKNOWN)
        elif name in _TEXTS:
            push(("name", arg) if isinstance(arg, str) and len(arg) < 256 else ("text", None))
        elif name == "MARK":
            self.marks.append(len(self.stack))
        elif name in ("MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"):
            key = len(self.memo) if name == "MEMOIZE" else int(arg)
            self.memo[key] = self.stack[-1] if self.stack else self._UNKNOWN
        elif name in ("GET", "BINGET", "LONG_BINGET"):
            push(self.memo.get(int(arg), self._UNKNOWN))
        elif name == "EMPTY_TUPLE":
            push(("tuple", ()))
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            push(("tuple", tuple(self._pop(int(name[-1])))))
        elif name == "TUPLE":
            push(("tuple", tuple(self._to_mark())))
        elif name == "REDUCE":
            fn, args = self._pop(2)
            self._call(fn, args)
            push(("text", None) if fn == ("global", "_codecs.encode") and _literal(args) else self._UNKNOWN)
        elif name == "NEWOBJ":
            cls, args = self._pop(2)
            self._call(cls, args)
            push(self._UNKNOWN)
        elif name == "NEWOBJ_EX":
            cls, args, _kwargs = self._pop(3)
            self._call(cls, ("tuple", None) if args[0] != "tuple" else args)
            push(self._UNKNOWN)
        elif name == "OBJ":
            items = self._to_mark()
            if items:
                self._call(items[0], ("tuple", tuple(items[1:])))
            push(self._UNKNOWN)
        elif name == "STOP":
            self.stack.clear()
            self.marks.clear()
        else:  # anything else: its stack effect, with unknown results
            before, after = opcode.stack_before, opcode.stack_after
            if markobject in before:
                self._to_mark()
                self._pop(before.index(markobject))
            else:
                self._pop(len(before))
            self.stack.extend([self._UNKNOWN] * len(after))
