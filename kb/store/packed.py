"""Writing the packed tables of schema 8: repeated text and provenance kept once, by id.

`observation` and `support_stored` are views (kb.store.packed_sql, migration step 8) over
`observation_packed` and `support_packed`; kb writes those tables itself, in bulk, through a
`Packer`, which turns a row's texts into `kbtext` ids and its provenance into
`provenance_source` / `provenance_batch` ids, each looked up or made once per connection's
transaction. A fingerprint is stored as its 32 bytes; the view writes it out as hex again.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from kb.store.packed_sql import BATCH_COLUMNS, SOURCE_COLUMNS, TEXT_COLUMNS


class Packer:
    """Lookup ids for one connection, cached: a build packs 60,000 rows over a few thousand texts."""

    def __init__(self, raw: sqlite3.Connection):
        self.raw = raw
        self.texts: dict[str, int] = {}
        self.sources: dict[tuple, int] | None = None
        self.batches: dict[tuple, int] | None = None

    def text(self, value: str | None) -> int | None:
        if value is None:
            return None
        found = self.texts.get(value)
        if found is None:
            row = self.raw.execute("SELECT id FROM kbtext WHERE value = ?", (value,)).fetchone()
            found = row[0] if row else self.raw.execute("INSERT INTO kbtext (value) VALUES (?)", (value,)).lastrowid
            self.texts[value] = found
        return found

    def _lookup(self, table: str, columns: tuple[str, ...], cache: dict[tuple, int], key: tuple) -> int:
        found = cache.get(key)
        if found is None:
            found = self.raw.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(key))})",
                                     key).lastrowid
            cache[key] = found
        return found

    def _load(self, table: str, columns: tuple[str, ...]) -> dict[tuple, int]:
        cache: dict[tuple, int] = {}
        for row in self.raw.execute(f"SELECT id, {', '.join(columns)} FROM {table} ORDER BY id DESC"):
            cache[tuple(row[1:])] = row[0]  # the lowest id of equal rows, as the views' triggers pick
        return cache

    def source(self, row: dict[str, Any]) -> int:
        if self.sources is None:
            self.sources = self._load("provenance_source", SOURCE_COLUMNS)
        return self._lookup("provenance_source", SOURCE_COLUMNS, self.sources, tuple(row[c] for c in SOURCE_COLUMNS))

    def batch(self, row: dict[str, Any]) -> int:
        if self.batches is None:
            self.batches = self._load("provenance_batch", BATCH_COLUMNS)
        return self._lookup("provenance_batch", BATCH_COLUMNS, self.batches, tuple(row[c] for c in BATCH_COLUMNS))


OBSERVATION_PACKED = ("op", "target", "release_id", "mode", "status", "torch_version", "dtypes", "conditions_id",
                      "note_id", "detail_id", "source_id", "batch_id", "report", "fingerprint")
SUPPORT_PACKED = ("op", "target", "release_id", "mode", "status", "dtypes", "conditions_id", "note_id", "source_id",
                  "observation_id", "sources_id", "disagreement", "basis", "effective_status", "effective_via_id",
                  "report")


def pack(packer: Packer, table: str, row: dict[str, Any]) -> list[Any]:
    """A row with the view's columns (JSON already as text) as the packed table's values,
    in the order of OBSERVATION_PACKED / SUPPORT_PACKED."""
    texts = TEXT_COLUMNS[table]
    packed = dict(row)
    for name, column in texts.items():
        packed[column] = packer.text(row[name])
    packed["source_id"] = packer.source(row)
    if table == "observation":
        packed["batch_id"] = packer.batch(row)
        packed["fingerprint"] = fingerprint_bytes(row["fingerprint"])
        return [packed[c] for c in OBSERVATION_PACKED]
    return [packed[c] for c in SUPPORT_PACKED]


def fingerprint_bytes(value: str) -> bytes | str:
    """A sha256 hex digest as its 32 bytes (half the row and index space); other text as it is."""
    if len(value) == 64:
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    return value


def prune(raw: sqlite3.Connection) -> None:
    """Delete lookup rows no packed row points at any more (after a refresh replaced the
    shipped rows, or a rebuild the verdicts): the file keeps only what its rows use."""
    text_ids = " UNION ALL ".join(
        [f"SELECT {c} FROM observation_packed WHERE {c} IS NOT NULL" for c in TEXT_COLUMNS["observation"].values()]
        + [f"SELECT {c} FROM support_packed WHERE {c} IS NOT NULL" for c in TEXT_COLUMNS["support_stored"].values()])
    raw.execute(f"DELETE FROM kbtext WHERE id NOT IN ({text_ids})")
    raw.execute("DELETE FROM provenance_source WHERE id NOT IN "
                "(SELECT source_id FROM observation_packed UNION ALL SELECT source_id FROM support_packed)")
    raw.execute("DELETE FROM provenance_batch WHERE id NOT IN (SELECT batch_id FROM observation_packed)")
