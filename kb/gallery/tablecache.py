"""The gallery table (kb.gallery.views.table) kept between asks, keyed by the KB's state.

Building the models × targets table runs kb check on every gallery model's census (about
100k rebuilt call sites for two targets): seconds on a busy machine, where a chat list
question ("which models run fully on tpu?") has to answer within Slack's 3-second ack. The
table depends only on the KB file, the data and code it was built from, and the arguments,
so it is kept once computed: in this process, and as JSON under the cache folder so that a
fresh process (one `kb ask`, a restarted bot) reads it instead of recomputing.

The key names the KB file's identity and state (path, inode, size, mtime, SQLite's change
counter, a non-empty WAL file's size, mtime and header), its kbmeta build stamp (data digest, kb version,
build time), kb's own version and source files' stamps, and the fix-it file kb.check reads
beside the KB. Any write to the KB changes one of these, so a change shows at once. A
connection with uncommitted writes, or one to an in-memory database, is never cached.
Everything read back is checked against the key; a cache that cannot be read or written is
skipped silently (the table is computed as before).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable

from kb import paths

FOLDER = "gallery-tables"
MAX_BYTES = 16 << 20  # a table is ~60 KB per target and mode; anything bigger is not ours
MAX_FILES = 64  # older tables are removed beyond this many
_MEMO: dict[str, str] = {}  # key digest → the table's JSON text (a fresh copy is parsed per ask)
_MEMO_MAX = 32
_CODE_STAMP: str | None = None
_LOCK = threading.RLock()


def _stat(path: str) -> list | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _code_stamp() -> str:
    """Stamps of the kb source that computes a table (once per process): an editable install's
    edited code is a new key even when kb's version is not bumped."""
    global _CODE_STAMP
    if _CODE_STAMP is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        stamps = []
        for room in ("check", "gallery", "store"):
            folder = os.path.join(root, room)
            try:
                names = sorted(n for n in os.listdir(folder) if n.endswith(".py"))
            except OSError:
                continue
            stamps.extend([room, n, _stat(os.path.join(folder, n))] for n in names)
        _CODE_STAMP = hashlib.sha256(json.dumps(stamps).encode()).hexdigest()
    return _CODE_STAMP


def kb_state(conn: sqlite3.Connection) -> dict | None:
    """What identifies the KB's current content, or None where it cannot be told from outside
    (an in-memory database, uncommitted writes on this connection, an unreadable file)."""
    import kb
    from kb.check import fixits

    if conn.in_transaction:
        return None
    try:
        files = {row[1]: row[2] for row in conn.execute("PRAGMA database_list")}
        meta = dict(conn.execute("SELECT key, value FROM kbmeta WHERE key IN "
                                 "('data_digest', 'kb_version', 'built_at', 'data_fingerprint')").fetchall())
    except sqlite3.Error:
        return None
    path = files.get("main")
    if not path:
        return None
    try:
        with open(path, "rb") as fh:
            header = fh.read(100)
    except OSError:
        return None
    stat = _stat(path)
    if stat is None or len(header) < 100:
        return None
    return {"path": os.path.abspath(path), "file": stat, "change_counter": header[24:28].hex(),
            "wal": _wal_state(path + "-wal"), "meta": meta, "kb": kb.__version__, "code": _code_stamp(),
            "fixits": [fixits.fixits_path(), _stat(fixits.fixits_path())]}


def _wal_state(path: str) -> list | None:
    """A WAL file's size, mtime and header (its salts change each time it restarts): in WAL mode
    SQLite need not bump the main file's change counter, and commits land here first. An empty
    WAL is made anew by each connection and holds nothing: None."""
    stat = _stat(path)
    if not stat or not stat[1]:
        return None
    try:
        with open(path, "rb") as fh:
            head = fh.read(32)
    except OSError:
        return stat
    return [*stat[1:], head.hex()]


def _folder() -> str:
    return os.path.join(paths.cache_dir(), FOLDER)


def _read(digest: str, key: dict) -> str | None:
    path = os.path.join(_folder(), digest + ".json")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError:
        return None
    if len(raw) > MAX_BYTES:
        return None
    try:
        stored = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(stored, dict) or stored.get("key") != key or not isinstance(stored.get("table"), dict):
        return None
    return json.dumps(stored["table"])


def _write(digest: str, key: dict, text: str) -> None:
    folder = _folder()
    try:
        os.makedirs(folder, exist_ok=True)
        tmp = os.path.join(folder, f".{digest}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write('{"key": ' + json.dumps(key) + ', "table": ' + text + "}")
        os.replace(tmp, os.path.join(folder, digest + ".json"))
        kept = sorted((e for e in os.scandir(folder) if e.name.endswith(".json")),
                      key=lambda e: e.stat().st_mtime_ns, reverse=True)
        for old in kept[MAX_FILES:]:
            os.unlink(old.path)
    except OSError:
        return


def cached(conn: sqlite3.Connection, args: dict, compute: Callable[[], dict]) -> dict:
    """`compute()`'s table for these arguments and this KB state, computed once per state.
    Each call gets its own copy (callers add fields to the rows)."""
    state = kb_state(conn)
    if state is None:
        return compute()
    key = {"state": state, "args": args}
    try:
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    except (TypeError, ValueError):  # an argument JSON cannot name: computed, not kept
        return compute()
    text = _MEMO.get(digest)
    if text is None:
        with _LOCK:  # threads asking at once (the bot's pool) wait for one computation, not make their own
            text = _MEMO.get(digest) or _read(digest, key)
            if text is None:
                table = compute()
                text = json.dumps(table)
                if json.loads(text) != table:  # not plain JSON (a tuple, say): never served from a cache
                    return table
                _write(digest, key, text)
            if len(_MEMO) >= _MEMO_MAX:
                _MEMO.clear()
            _MEMO[digest] = text
    return json.loads(text)


# What else keeps per-KB-state memos in this process (kb.gallery.views' verdict maps), forgotten with
# the tables; registered by their owners, so this module imports none of them.
_ALSO_CLEAR: list[Callable[[], None]] = []


def also_clear(forget: Callable[[], None]) -> None:
    """Have `clear_memo` call `forget` too."""
    if forget not in _ALSO_CLEAR:
        _ALSO_CLEAR.append(forget)


def clear_memo() -> None:
    """Forget the tables kept in this process (tests, the bench's cold runs), and the memos
    registered beside them (kb.gallery.views.Lookups' verdict maps)."""
    _MEMO.clear()
    for forget in _ALSO_CLEAR:
        forget()
