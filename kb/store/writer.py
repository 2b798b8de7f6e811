"""Records into tables, on a connection inside the caller's transaction.

The lowest layer of writing: `build` (the shipped KB) and `ingest` (one source at a time,
with a change report) both go through `write_records`. Provenance is kept on every row,
and the same fact from the same document is stored once (its fingerprint).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from collections import deque
from collections.abc import Iterable
from typing import Any

from kb import userfiles
from kb.errors import KBError
from kb.store import records as rec
from kb.store.records import RecordError
from kb.vocab import REPORT_ORIGIN


class IngestError(KBError):
    """An ingest that failed; the KB was left untouched."""


_FIELDS: dict[type, tuple[str, ...]] = {}


def fingerprint(record: rec.Record) -> str:
    """Identity of a fact: everything it says plus the document it came from, not when."""
    names = _FIELDS.get(type(record))
    if names is None:
        names = _FIELDS[type(record)] = tuple(f.name for f in dataclasses.fields(record) if f.name != "provenance")
    prov = getattr(record, "provenance", None)
    key = [type(record).__name__, {name: getattr(record, name) for name in names}]
    if prov is not None:
        key.append([prov.source_kind, prov.source_name, prov.source_url, prov.content_sha256, prov.probe_run_id])
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()


def _provenance_columns(prov: rec.Provenance, warnings: list[str] | None = None) -> dict[str, Any]:
    """A record's provenance as columns; a URL kb may not cite (javascript:, data:...) is
    dropped here, for every source, with a warning (kb.store.records.citable_url)."""
    url = prov.source_url
    if url is not None and not rec.citable_url(url):
        if warnings is not None:
            message = f"{prov.source_name}: dropped source URL {str(url)[:40]!r} (only http(s) links are kept)"
            if message not in warnings:
                warnings.append(message)
        url = None
    return {
        "source_kind": prov.source_kind,
        "source_name": prov.source_name,
        "source_url": url,
        "retrieved_at": prov.retrieved_at,
    }


def raw_connection(conn) -> sqlite3.Connection:
    """The sqlite3 connection under a SQLAlchemy one (kb.store.ingest), or `conn` itself
    (kb.store.build, which writes with plain sqlite3: no ORM work, no SQLAlchemy import)."""
    outer = getattr(conn, "connection", None)
    return getattr(outer, "driver_connection", None) or conn


def json_columns(raw: sqlite3.Connection, table: str) -> frozenset[str]:
    """The columns of `table` declared JSON (the schema's SQLModel JSON fields)."""
    return frozenset(row[1] for row in raw.execute(f"PRAGMA table_info({table})") if row[2].upper() == "JSON")


def _bind(value: Any, is_json: bool) -> Any:
    """A value as SQLAlchemy's JSON type stored it: json.dumps text, None as NULL."""
    if not is_json or value is None:
        return value
    return json.dumps(list(value) if isinstance(value, tuple) else value)


def upsert(raw: sqlite3.Connection, table: str, row: dict[str, Any], conflict: str, update: Iterable[str],
           json_cols: frozenset[str]) -> None:
    """INSERT ... ON CONFLICT(conflict) DO UPDATE SET each `update` column to the new row's."""
    names = list(row)
    sets = ", ".join(f"{name} = excluded.{name}" for name in update)
    raw.execute(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))}) "
                f"ON CONFLICT({conflict}) DO UPDATE SET {sets}",
                [_bind(row[name], name in json_cols) for name in names])


def load_targets(conn, csv_path: str) -> None:
    """Upsert the target list from data/targets.csv."""
    import csv

    raw = raw_connection(conn)
    with open(csv_path, newline="", encoding="utf-8") as fh:
        rows = [{k: (v or None) for k, v in row.items()} for row in csv.DictReader(fh)]
    for row in rows:
        upsert(raw, "target", row, "name", list(row), frozenset())


class _Writer:
    """Turns records into rows on one open SQLAlchemy connection (inside a transaction)."""

    def __init__(self, conn, *, ingested_at: str, origin: str, report: dict[str, Any] | None = None):
        self.raw = raw_connection(conn)
        self.ingested_at = ingested_at
        self.origin = REPORT_ORIGIN if report is not None else origin
        self.report = report
        self.claims: dict[int, dict[str, Any]] = {}  # id(record) -> what its line claimed
        self.warnings: list[str] = []  # one line each: links dropped
        self.products = dict(self.raw.execute("SELECT name, product FROM target"))
        self.new_releases: list[str] = []
        self.new_windows: list[dict[str, Any]] = []
        self.release_ids: dict[tuple[str, str], int] = {}
        self.added = 0
        self._json: dict[str, frozenset[str]] = {}

    def json_cols(self, table: str) -> frozenset[str]:
        if table not in self._json:
            self._json[table] = json_columns(self.raw, table)
        return self._json[table]

    def release_id(self, product: str, version: str, prov: rec.Provenance) -> int:
        """The registry row for product/version, created (minimal) when first mentioned."""
        key = (product, version)
        if key not in self.release_ids:
            found = self.raw.execute("SELECT id FROM release WHERE product = ? AND version = ?",
                                     (product, version)).fetchone()
            if found is None:
                row = {"product": product, "version": version, "report": self.report,
                       **_provenance_columns(prov, self.warnings)}
                cursor = self.raw.execute(
                    f"INSERT INTO release ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                    [_bind(v, k == "report") for k, v in row.items()])
                found = (cursor.lastrowid,)
                self.new_releases.append(f"{product} {version}")
            self.release_ids[key] = found[0]
        return self.release_ids[key]

    def target_product(self, target: str) -> str:
        try:
            return self.products[target]
        except KeyError:
            raise RecordError(f"unknown target {target!r} (known: {', '.join(sorted(self.products))})") from None

    def _localize(self, items: list[rec.Record]) -> list[rec.Record]:
        """A report's records under their local provenance, their claims kept aside."""
        from kb.store import provenance

        runs = provenance.defined_runs(items)
        out = []
        for record in items:
            prov = getattr(record, "provenance", None)
            if prov is not None:
                local = provenance.localize(prov, self.report, runs)
                record = dataclasses.replace(record, provenance=local)
                self.claims[id(record)] = provenance.claimed(prov)
            out.append(record)
        return out

    def report_of(self, record) -> dict[str, Any] | None:
        if self.report is None:
            return None
        claim = self.claims.get(id(record))
        return {**self.report, "claimed": claim} if claim else dict(self.report)

    def write(self, records: Iterable[rec.Record]) -> None:
        items = list(records)
        if self.report is not None:
            items = self._localize(items)
        # probe runs and releases first: other records point at them; doc rules last, so
        # that they expand over every release the same batch names
        order = {rec.ProbeRun: 0, rec.Release: 1, rec.DocRule: 3}
        items.sort(key=lambda r: order.get(type(r), 2))
        observations = []
        pending = deque(items)
        while pending:
            record = pending.popleft()
            if isinstance(record, rec.DocRule):
                pending.extendleft(reversed(self._rule(record)))
            elif isinstance(record, rec.OpStatus):
                observations.append(self._observation(record))
            elif isinstance(record, rec.Release):
                self._release(record)
            elif isinstance(record, rec.ProbeRun):
                self._probe_run(record)
            elif isinstance(record, rec.Limitation):
                self._upsert_fact("limitation", self._limitation(record))
            elif isinstance(record, rec.Caveat):
                self._upsert_fact("caveat", self._caveat(record))
            elif isinstance(record, rec.SupportWindow):
                row = self._window(record)
                if self._upsert_fact("supportwindow", row):
                    self.new_windows.append({k: row[k] for k in ("product", "cycle", "eol", "eol_kind", "eol_release")})
        self._upsert_many(observations)

    def _rule(self, r: rec.DocRule) -> list[rec.Record]:
        """A doc rule as the op verdicts and API limitations it stands for (kb.store.rules),
        over the op catalog and the releases of the target's product known by now."""
        from kb.store import rules

        product = self.target_product(r.target)
        raw = self.raw
        catalog = [name for (name,) in raw.execute("SELECT name FROM op")]
        versions = [v for (v,) in raw.execute("SELECT version FROM release WHERE product = ?", (product,))]
        return rules.expand(r, catalog, versions, product)

    def _upsert_fact(self, table: str, row: dict[str, Any]) -> bool:
        """Insert a limitation or window once; seen again, only its ingested_at moves. True when new."""
        exists = self.raw.execute(f"SELECT count(*) FROM {table} WHERE fingerprint = ?", (row["fingerprint"],)).fetchone()[0]
        # seen again, only when it was said (and, for a report, the file's latest ingest) moves
        upsert(self.raw, table, row, "fingerprint", ("ingested_at", "report"), self.json_cols(table))
        if not exists:
            self.added += 1
        return not exists

    def _upsert_many(self, rows: list[dict[str, Any]]) -> None:
        """Observations in bulk (probe reports carry thousands): one executemany on the
        DB-API connection of this transaction; the ORM's per-row cost would dominate a build.
        Written packed (schema 8, kb.store.packed): the `observation` view shows them whole."""
        if not rows:
            return
        from kb.store import packed

        raw = self.raw
        packer = packed.Packer(raw)
        before = raw.execute("SELECT count(*) FROM observation_packed").fetchone()[0]
        raw.executemany(
            f"INSERT INTO observation_packed ({', '.join(packed.OBSERVATION_PACKED)}) "
            f"VALUES ({', '.join('?' * len(packed.OBSERVATION_PACKED))}) "
            "ON CONFLICT(fingerprint) DO UPDATE SET batch_id = excluded.batch_id, report = excluded.report",
            (packed.pack(packer, "observation", {
                c: json.dumps(v) if c in ("dtypes", "conditions", "detail", "report") and v is not None else v
                for c, v in row.items()}) for row in rows),
        )
        self.added += raw.execute("SELECT count(*) FROM observation_packed").fetchone()[0] - before

    def _common(self, record, prov: rec.Provenance) -> dict[str, Any]:
        return {
            **_provenance_columns(prov, self.warnings),
            "content_sha256": prov.content_sha256,
            "ingested_at": self.ingested_at,
            "origin": self.origin,
            "report": self.report_of(record),
            "fingerprint": fingerprint(record),
        }

    def _observation(self, r: rec.OpStatus) -> dict[str, Any]:
        prov = r.provenance
        return {
            "op": r.op,
            "target": r.target,
            "release_id": self.release_id(self.target_product(r.target), r.backend_version, prov),
            "mode": r.mode,
            "status": r.status,
            "torch_version": r.torch_version,
            "dtypes": list(r.dtypes) if r.dtypes is not None else None,
            "conditions": r.conditions,
            "note": r.note,
            "detail": r.detail,
            "probe_run_id": prov.probe_run_id,
            "tool_version": prov.tool_version,
            **self._common(r, prov),
        }

    def _limitation(self, r: rec.Limitation) -> dict[str, Any]:
        self.target_product(r.target)
        return {
            "target": r.target,
            "release_id": self.release_id(r.product, r.version, r.provenance),
            "feature": r.feature,
            "status": r.status,
            "note": r.note,
            **self._common(r, r.provenance),
        }

    def _caveat(self, r: rec.Caveat) -> dict[str, Any]:
        """A caveat row: the record's own fields (no release row: a range is not a release)."""
        self.target_product(r.target)
        fields = {f.name: getattr(r, f.name) for f in dataclasses.fields(r) if f.name != "provenance"}
        fields["dtypes"] = list(r.dtypes) if r.dtypes is not None else None
        return {**fields, **self._common(r, r.provenance)}

    def _window(self, r: rec.SupportWindow) -> dict[str, Any]:
        fields = {f.name: getattr(r, f.name) for f in dataclasses.fields(r) if f.name != "provenance"}
        return {**fields, **self._common(r, r.provenance)}

    def _release(self, r: rec.Release) -> None:
        """Upsert into the registry: fill what is missing; a differing value is kept as a conflict."""
        rid = self.release_id(r.product, r.version, r.provenance)
        json_cols = self.json_cols("release")
        cursor = self.raw.execute("SELECT * FROM release WHERE id = ?", (rid,))
        names = [d[0] for d in cursor.description]
        current = {name: (json.loads(value) if name in json_cols and value is not None else value)
                   for name, value in zip(names, cursor.fetchone())}
        if self.report is not None and not current.get("report"):
            return  # a local report never rewrites a release row that shipped data or kb itself made
        fields = {
            "date": r.date, "sdk_version": r.sdk_version, "channel": r.channel, "note": r.note,
            "torch_versions": list(r.torch_versions) or None, "python_versions": list(r.python_versions) or None,
            "os": list(r.os) or None, "instance_families": list(r.instance_families) or None,
            "components": r.components,
        }
        updates: dict[str, Any] = {}
        conflicts = list(current["conflicts"] or [])
        for name, value in fields.items():
            if value is None:
                continue
            if current[name] is None:
                updates[name] = value
            elif current[name] != value:
                conflict = {"field": name, "value": value,
                            "source_url": _provenance_columns(r.provenance)["source_url"]}
                if conflict not in conflicts:
                    conflicts.append(conflict)
        if conflicts != (current["conflicts"] or []):
            updates["conflicts"] = conflicts
        if self.report is None and current.get("report"):
            updates["report"] = None  # stated by shipped data or kb's own scrapers now, not only by a report
        if current["source_url"] is None and _provenance_columns(r.provenance)["source_url"]:
            # the row was made by a mere mention (a probe run, a verdict): the record that
            # states the release's facts becomes its source
            updates.update(_provenance_columns(r.provenance, self.warnings))
        if updates:
            self.raw.execute(f"UPDATE release SET {', '.join(f'{k} = ?' for k in updates)} WHERE id = ?",
                             [*(_bind(v, k in json_cols) for k, v in updates.items()), rid])

    def _probe_run(self, r: rec.ProbeRun) -> None:
        # dated by the run itself, not by the build: a KB built on another day answers the same
        prov = rec.Provenance(source_kind="static_probe" if r.kind == "static" else "live_probe",
                              source_name="probe", probe_run_id=r.run_id,
                              retrieved_at=r.finished_at or r.started_at or rec.utc_now())
        row = {f.name: getattr(r, f.name) for f in dataclasses.fields(r) if f.name != "backend_version"}
        row["release_id"] = self.release_id(self.target_product(r.target), r.backend_version, prov)
        row["origin"] = self.origin
        row["report"] = self.report
        if self.report is not None:
            existing = self.raw.execute("SELECT origin FROM proberun WHERE run_id = ?", (r.run_id,)).fetchone()
            if existing is not None and existing[0] != REPORT_ORIGIN:
                raise RecordError(f"probe run {r.run_id!r} is already in the KB ({existing[0]}); "
                                  "a report cannot add to another source's run")
        upsert(self.raw, "proberun", row, "run_id", ("finished_at", "report"), self.json_cols("proberun"))


def write_records(conn, records: Iterable[rec.Record], *, ingested_at: str, origin: str,
                  report: dict[str, Any] | None = None) -> _Writer:
    """Write records on an open connection inside the caller's transaction (used by build).
    With `report` (kb.store.provenance.report_info), they come from a local report file."""
    writer = _Writer(conn, ingested_at=ingested_at, origin=origin, report=report)
    writer.write(records)
    return writer


def read_report(path: str, warn=None) -> list[rec.Record]:
    """Records from a JSONL file, with file:line in any error (`warn`: a report handed to
    us, whose non-http(s) links are dropped with a warning; see records.from_dict)."""
    try:
        return list(rec.read_jsonl(userfiles.iter_lines(path), where=path, warn=warn))
    except userfiles.FileRefused as exc:
        raise IngestError(str(exc)) from None
    except RecordError as exc:
        raise IngestError(str(exc)) from None


file_sha256 = userfiles.file_sha256  # a report's digest: regular file, within the report bound, streamed
