"""The KB's SQLite file: find it, check it is ours, read it, migrate it, write to it.

Two ways in. Reads use a plain `sqlite3` connection (`connect`), which plain queries can
afford on every start. Writes (`engine`) go through SQLModel/SQLAlchemy (kb.store.writer).
Building the file on first use is one layer up (`kb.store.db.open_kb`, through
`kb.store.build`), so that the build can use everything here.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sqlite3
import stat
import sys
import urllib.parse

from kb import paths
from kb.errors import CorruptKBError

SQLITE_MAGIC = b"SQLite format 3\x00"
DATA_SUFFIXES = (".jsonl", ".csv")
# kb.store.schema.SCHEMA_VERSION, mirrored because kb.store.schema imports SQLModel, which plain
# queries cannot afford; a test keeps the two equal.
SCHEMA_VERSION = 8
APPLICATION_ID = 0x6B624B42  # kb.store.schema.APPLICATION_ID, mirrored likewise


def resolve_path(db: str | None = None) -> str:
    """The KB file's absolute path (--db, else KB_DB, else the user cache), checked to be a
    regular file or absent; a --db in a folder that does not exist is refused."""
    path = os.path.abspath(os.path.expanduser(db or paths.default_db_path()))
    check_path(path)
    folder = os.path.dirname(path)
    # a typo'd --db must not grow a tree of folders and a fresh KB there (KB_DB may name a cache folder that a
    # CI job has yet to make)
    if db and db != os.environ.get("KB_DB") and not os.path.isdir(folder):  # KB_DB passed on as a db= (kb ci)
        from kb.errors import KBError

        raise KBError(f"{db}: the folder {folder} does not exist; create it first, or pass another --db")
    return path


def data_fingerprint(data_dir: str | None = None) -> str:
    """Names, sizes and mtimes of the shipped data files: cheap to compute on every start."""
    root = data_dir or paths.data_dir()
    entries = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(DATA_SUFFIXES):
                full = os.path.join(folder, name)
                st = os.stat(full)
                entries.append(f"{os.path.relpath(full, root)}:{st.st_size}:{st.st_mtime_ns}")
    return _sha256("\n".join(entries).encode()).hexdigest()


def _sha256(data: bytes):
    """sha256 without importing hashlib, which loads OpenSSL (about 2 ms of every plain
    `kb op`, which checks the fingerprint on each start): CPython's own module where it has
    one (_sha256 up to 3.11, _sha2 since), hashlib otherwise; the digest is the same."""
    try:
        from _sha256 import sha256
    except ImportError:
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256(data)


def data_digest(data_dir: str | None = None) -> str:
    """SHA-256 over the names and contents of every shipped data file: the same for the same data
    on every machine (unlike data_fingerprint, whose mtimes change with each install)."""
    return data_digests(data_dir)[0]


def data_digests(data_dir: str | None = None, per_file: bool = False) -> tuple[str, dict[str, str]]:
    """data_digest, and with `per_file` each file's own sha256 keyed by its path under data/
    with `/` (kb.store.incremental compares them), from one read of every file."""
    import hashlib

    root = data_dir or paths.data_dir()
    digest = hashlib.sha256()
    files: dict[str, str] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(names):
            if name.startswith("."):
                continue
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            one = hashlib.sha256() if per_file else None
            digest.update(rel.encode() + b"\0")
            with open(full, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
                    if one is not None:
                        one.update(block)
            digest.update(b"\0")
            if one is not None:
                files[rel] = one.hexdigest()
    return digest.hexdigest(), files


def check_path(path: str) -> None:
    """The KB path names a regular file or nothing. A character device, FIFO, socket or
    directory is refused before anything opens it (a build would otherwise replace
    /dev/null with a file, and reading a FIFO blocks)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise CorruptKBError(f"{path}: cannot use it as the KB ({exc.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        raise CorruptKBError(f"{path} is a directory, not a KB file")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a character device" if stat.S_ISCHR(st.st_mode) else "a block device" if stat.S_ISBLK(st.st_mode)
                else "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode)
                else "not a regular file")
        raise CorruptKBError(f"{path} is {kind}, not a KB file; pass a regular file with --db or KB_DB")


def _is_kb_sqlite(path: str, head: bytes) -> bool:
    """An SQLite file is a KB when it carries kb's application_id, or (made by an older kb,
    before the id) has the kbmeta table, or is still empty of tables."""
    app_id = int.from_bytes(head[68:72], "big") if len(head) >= 72 else 0
    if app_id == APPLICATION_ID:
        return True
    if app_id != 0:
        return False
    try:
        conn = sqlite3.connect(f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return True  # unreadable: the caller's own open reports it as corrupt
    return not tables or "kbmeta" in tables


def check_file(path: str) -> None:
    """Refuse anything that is not a KB's SQLite file before SQLite gets to misread (or
    migrate) it: a device or FIFO, a non-SQLite file, another application's database."""
    check_path(path)
    if not os.path.exists(path):
        return
    with open(path, "rb") as fh:
        head = fh.read(100)
    if head and not head.startswith(SQLITE_MAGIC):
        raise CorruptKBError(f"{path} is not a kb database (not an SQLite file); remove it or pass another --db")
    if len(head) >= len(SQLITE_MAGIC) and not _is_kb_sqlite(path, head):
        raise CorruptKBError(f"{path} is not a kb database (an SQLite file of another application); "
                             "kb will not migrate it: pass another --db")


def connect(path: str) -> sqlite3.Connection:
    """A read connection to an existing KB (no build, no migration)."""
    check_file(path)
    try:
        conn = sqlite3.connect(path)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("SELECT 1 FROM kbmeta LIMIT 1")
    except sqlite3.DatabaseError as exc:
        raise CorruptKBError(f"{path} is not a readable kb database ({exc})") from None
    return conn


def meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM kbmeta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def is_current(path: str) -> bool:
    """True when the KB exists, has this kb's schema and was built from the current data/."""
    check_file(path)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return False
    try:
        conn = sqlite3.connect(path)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            meta = dict(conn.execute("SELECT key, value FROM kbmeta WHERE key IN "
                                     "('data_fingerprint', 'data_digest', 'data_fingerprints_seen')"))
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise CorruptKBError(f"{path} is not a readable kb database ({exc})") from None
    if version != SCHEMA_VERSION:
        return False
    current = data_fingerprint()
    seen = _fingerprints(meta.get("data_fingerprints_seen"))
    if current == meta.get("data_fingerprint") or current in seen:
        return True
    # Another install of the same data (the pre-commit hook's kb and a checkout's, sharing the
    # cache) has other mtimes, hence another fingerprint: the contents decide, and the
    # fingerprint is remembered so that the next start is cheap again.
    if meta.get("data_digest") is None or meta["data_digest"] != data_digest():
        return False
    _remember_fingerprint(path, [*seen, current][-MAX_FINGERPRINTS:])
    return True


# Installs of the same data a shared KB remembers (each another set of mtimes).
MAX_FINGERPRINTS = 16


def _fingerprints(value: str | None) -> list[str]:
    import json

    try:
        found = json.loads(value) if value else []
    except ValueError:
        return []
    return [f for f in found if isinstance(f, str)][:MAX_FINGERPRINTS] if isinstance(found, list) else []


def _remember_fingerprint(path: str, fingerprints: list[str]) -> None:
    """Best effort: a read-only or busy KB is simply checked by digest again next time."""
    import json

    try:
        conn = sqlite3.connect(path, timeout=2)
        try:
            conn.execute("INSERT OR REPLACE INTO kbmeta (key, value) VALUES ('data_fingerprints_seen', ?)",
                         (json.dumps(fingerprints),))
            conn.commit()
        finally:
            conn.close()
    except sqlite3.Error:
        pass


def open_for_write(path: str) -> sqlite3.Connection:
    """An sqlite3 connection after migrating the file to this kb's schema (WAL mode)."""
    from kb.store.migrations import migrate

    if os.path.exists(path):
        check_file(path)
    else:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    try:
        conn = sqlite3.connect(path, timeout=30)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)
    except sqlite3.DatabaseError as exc:
        raise CorruptKBError(f"{path} is not a readable kb database ({exc})") from None
    return conn


def engine(path: str, scratch: bool = False):
    """A SQLAlchemy engine on a migrated KB file, foreign keys on (for kb.store.ingest).
    `scratch`: a file being built that is renamed into place only when complete
    (kb.store.build), so no write needs to reach the disk before the end: synchronous
    off and a large page cache save seconds of a first use."""
    from sqlalchemy import create_engine, event

    open_for_write(path).close()
    # the file is opened by name, never through a URL: a `?` or `#` in a path would
    # otherwise be read as URL parameters, and SQLAlchemy would open another file
    eng = create_engine("sqlite://", creator=lambda: sqlite3.connect(path, timeout=30))

    @event.listens_for(eng, "connect")
    def _pragmas(dbapi_conn, _record):  # pragma: no cover - exercised by every write
        dbapi_conn.execute("PRAGMA foreign_keys = ON")
        if scratch:
            dbapi_conn.execute("PRAGMA synchronous = OFF")
            dbapi_conn.execute("PRAGMA cache_size = -262144")  # 256 MiB, KiB units
            dbapi_conn.execute("PRAGMA temp_store = MEMORY")

    return eng


def check_output(out: str | None, db: str | None = None, what: str = "--out") -> None:
    """Refuse an output path that names the open KB (or its -wal/-shm/-journal files):
    `kb eol --ics --out KB` must not overwrite the knowledge base it reads."""
    from kb.errors import KBError

    if not out:
        return
    kb_path = os.path.realpath(os.path.abspath(os.path.expanduser(db or paths.default_db_path())))
    target = os.path.realpath(os.path.abspath(os.path.expanduser(out)))
    same = target in {kb_path + suffix for suffix in ("", "-wal", "-shm", "-journal")}
    if not same and os.path.exists(target) and os.path.exists(kb_path):
        try:
            same = os.path.samefile(target, kb_path)
        except OSError:
            same = False
    if same:
        raise KBError(f"{what} {out} names the KB file itself ({kb_path}); write somewhere else")


# Where the build's one-line notices go: stderr (the CLI), or a function the Python API
# passes for the length of one call (notices_to), so the API never prints.
_NOTICES = contextvars.ContextVar("kb_build_notices", default=None)


@contextlib.contextmanager
def notices_to(say):
    """Send the build's notices to `say(text)` (None: drop them) within the block."""
    token = _NOTICES.set(say or (lambda _text: None))
    try:
        yield
    finally:
        _NOTICES.reset(token)


def notice(text: str) -> None:
    say = _NOTICES.get()
    if say is None:
        sys.stderr.write(f"kb: {text}\n")
    else:
        say(text)
