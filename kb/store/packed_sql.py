"""Schema 8's SQL (kb.store.migrations, step 8): packed tables, the views over them, triggers.

Observations and stored verdicts repeated their provenance (a dozen distinct sources in
32,000 rows), their notes, conditions, details and JSON (a few thousand distinct values) on
every row, and a 64-character fingerprint: the KB was 38.5 MB, most of it copies. The SQL is
made here from one description of the columns, so that the views, their triggers, the copy of a
schema-7 file and the writers (kb.store.packed) cannot disagree on where a column lives.
"""

from __future__ import annotations

# Schema 8: the same rows in half the file. Observations and stored verdicts repeated their
# provenance (a dozen distinct sources in 32,000 rows), their notes, conditions, details and
# JSON (a few thousand distinct values) on every row, and a 64-character fingerprint: the KB
# was 38.5 MB, most of it copies. Each table is now stored packed (`observation_packed`,
# `support_packed`): the repeated text is kept once in `kbtext`, provenance once in
# `provenance_source` (who said it) and `provenance_batch` (which ingest of it), the
# fingerprint as its 32 bytes. `observation` and `support_stored` become views writing out
# exactly the columns and values of before, so every reader (queries, Datasette, chat, the
# exports) is unchanged; INSTEAD OF triggers keep plain SQL writes to them working (kb itself
# writes the packed tables: kb.store.packed). `support` and `support_status` read the packed
# table directly, filtered by plain column = constant terms as schema 7 wanted. The stored
# verdicts lose their op index: the (op, target, release_id, mode) key already leads with op.
# Intern ids carry no foreign keys: pruning unused text would otherwise scan every row
# (kb.store.packed.prune).
TEXT_COLUMNS = {  # view column -> packed column holding its kbtext id
    "observation": {"conditions": "conditions_id", "note": "note_id", "detail": "detail_id"},
    "support_stored": {"conditions": "conditions_id", "note": "note_id", "sources": "sources_id",
                       "effective_via": "effective_via_id"},
}
SOURCE_COLUMNS = ("source_kind", "source_name", "source_url", "probe_run_id", "retrieved_at")
BATCH_COLUMNS = ("content_sha256", "tool_version", "ingested_at", "origin")
OBSERVATION_COLUMNS = ("id", "op", "target", "release_id", "mode", "status", "torch_version", "dtypes", "conditions",
                       "note", "detail", "source_kind", "source_name", "source_url", "probe_run_id", "retrieved_at",
                       "content_sha256", "tool_version", "ingested_at", "origin", "report", "fingerprint")
SUPPORT_COLUMNS = ("id", "op", "target", "release_id", "mode", "status", "dtypes", "conditions", "note", "source_kind",
                   "source_name", "source_url", "probe_run_id", "retrieved_at", "observation_id", "sources",
                   "disagreement", "basis", "effective_status", "effective_via", "report")

PACKED_TABLES = """
CREATE TABLE kbtext (
\tid INTEGER NOT NULL,
\tvalue VARCHAR NOT NULL,
\tPRIMARY KEY (id),
\tUNIQUE (value)
);
CREATE TABLE provenance_source (
\tid INTEGER NOT NULL,
\tsource_kind VARCHAR NOT NULL,
\tsource_name VARCHAR NOT NULL,
\tsource_url VARCHAR,
\tprobe_run_id VARCHAR,
\tretrieved_at VARCHAR NOT NULL,
\tPRIMARY KEY (id)
);
CREATE TABLE provenance_batch (
\tid INTEGER NOT NULL,
\tcontent_sha256 VARCHAR,
\ttool_version VARCHAR,
\tingested_at VARCHAR NOT NULL,
\torigin VARCHAR NOT NULL,
\tPRIMARY KEY (id)
);
CREATE TABLE observation_packed (
\tid INTEGER NOT NULL,
\top VARCHAR NOT NULL,
\ttarget VARCHAR NOT NULL,
\trelease_id INTEGER NOT NULL,
\tmode VARCHAR NOT NULL,
\tstatus VARCHAR NOT NULL,
\ttorch_version VARCHAR,
\tdtypes JSON,
\tconditions_id INTEGER,
\tnote_id INTEGER,
\tdetail_id INTEGER,
\tsource_id INTEGER NOT NULL,
\tbatch_id INTEGER NOT NULL,
\treport JSON,
\tfingerprint BLOB NOT NULL,
\tPRIMARY KEY (id),
\tFOREIGN KEY(target) REFERENCES target (name),
\tFOREIGN KEY(release_id) REFERENCES release (id),
\tUNIQUE (fingerprint)
);
CREATE TABLE support_packed (
\tid INTEGER NOT NULL,
\top VARCHAR NOT NULL,
\ttarget VARCHAR NOT NULL,
\trelease_id INTEGER NOT NULL,
\tmode VARCHAR NOT NULL,
\tstatus VARCHAR NOT NULL,
\tdtypes JSON,
\tconditions_id INTEGER,
\tnote_id INTEGER,
\tsource_id INTEGER NOT NULL,
\tobservation_id INTEGER NOT NULL,
\tsources_id INTEGER,
\tdisagreement BOOLEAN NOT NULL,
\tbasis VARCHAR NOT NULL,
\teffective_status VARCHAR,
\teffective_via_id INTEGER,
\treport JSON,
\tPRIMARY KEY (id),
\tUNIQUE (op, target, release_id, mode),
\tFOREIGN KEY(target) REFERENCES target (name),
\tFOREIGN KEY(release_id) REFERENCES release (id),
\tFOREIGN KEY(observation_id) REFERENCES observation_packed (id)
);
"""
PACKED_INDEXES = """
CREATE INDEX ix_observation_packed_op ON observation_packed (op);
CREATE INDEX ix_observation_packed_release_id ON observation_packed (release_id);
CREATE INDEX ix_support_packed_target ON support_packed (target);
CREATE INDEX ix_support_packed_release_id ON support_packed (release_id);
"""


def _unpacked(table: str, alias: str) -> dict[str, str]:
    """Each view column of `table` as an expression over its packed row `alias` and the
    lookups joined as `alias`_COLUMN (texts), `alias`_s (source) and `alias`_b (batch)."""
    columns = OBSERVATION_COLUMNS if table == "observation" else SUPPORT_COLUMNS
    texts = TEXT_COLUMNS[table]
    out = {}
    for name in columns:
        if name in texts:
            out[name] = f"{alias}_{name}.value"
        elif name in SOURCE_COLUMNS:
            out[name] = f"{alias}_s.{name}"
        elif name in BATCH_COLUMNS:
            out[name] = f"{alias}_b.{name}"
        elif name == "fingerprint":
            out[name] = (f"CASE WHEN typeof({alias}.fingerprint) = 'blob' THEN lower(hex({alias}.fingerprint)) "
                         f"ELSE {alias}.fingerprint END")
        else:
            out[name] = f"{alias}.{name}"
    return out


def _joins(table: str, alias: str) -> str:
    """LEFT JOINs on primary keys: SQLite leaves out every one whose columns a query does not read."""
    joins = [f"LEFT JOIN provenance_source {alias}_s ON {alias}_s.id = {alias}.source_id"]
    if table == "observation":
        joins.append(f"LEFT JOIN provenance_batch {alias}_b ON {alias}_b.id = {alias}.batch_id")
    joins += [f"LEFT JOIN kbtext {alias}_{name} ON {alias}_{name}.id = {alias}.{column}"
              for name, column in TEXT_COLUMNS[table].items()]
    return "\n  ".join(joins)


def _packed_select(table: str, alias: str) -> str:
    packed = "observation_packed" if table == "observation" else "support_packed"
    columns = ", ".join(f"{expr} AS {name}" for name, expr in _unpacked(table, alias).items())
    return f"SELECT {columns}\n  FROM {packed} {alias}\n  {_joins(table, alias)}"


def _presumed_select() -> str:
    """The presumed arm of `support`: the carried verdict `s` under the newer release."""
    s = _unpacked("support_stored", "s")
    s.update({
        "id": "-p.id", "release_id": "p.release_id",
        "note": "'presumed from ' || fr.version || ' (no word on this op for ' || tr.version || ')' "
                "|| CASE WHEN s_note.value <> '' THEN '; ' || s_note.value ELSE '' END",
        "sources": "COALESCE(p.sources, s_sources.value)",
        "disagreement": "COALESCE(p.disagreement, s.disagreement)", "basis": "'presumed'",
        "effective_via": "CASE WHEN s_effective_via.value IS NULL OR s_effective_via.value = '{}' "
                         "THEN '{\"presumed_from\": ' || json_quote(fr.version) || '}' "
                         "ELSE substr(s_effective_via.value, 1, length(s_effective_via.value) - 1) "
                         "|| ', \"presumed_from\": ' || json_quote(fr.version) || '}' END",
    })
    columns = ", ".join(f"{expr} AS {name}" for name, expr in s.items())
    return (f"SELECT {columns}\n  FROM support_presumed p JOIN support_packed s ON s.id = p.from_id\n"
            f"  JOIN release fr ON fr.id = s.release_id JOIN release tr ON tr.id = p.release_id\n"
            f"  {_joins('support_stored', 's')}")


def _intern_sql(table: str) -> str:
    """Trigger statements that give NEW's texts and provenance their lookup rows."""
    lines = [f"INSERT OR IGNORE INTO kbtext (value) SELECT CAST(NEW.{name} AS TEXT) WHERE NEW.{name} IS NOT NULL;"
             for name in TEXT_COLUMNS[table]]
    groups = [("provenance_source", SOURCE_COLUMNS)]
    if table == "observation":
        groups.append(("provenance_batch", BATCH_COLUMNS))
    for lookup, columns in groups:
        match = " AND ".join(f"{c} IS NEW.{c}" for c in columns)
        lines.append(f"INSERT INTO {lookup} ({', '.join(columns)}) SELECT {', '.join(f'NEW.{c}' for c in columns)} "
                     f"WHERE NOT EXISTS (SELECT 1 FROM {lookup} WHERE {match});")
    return "\n  ".join(lines)


def _packed_values(table: str) -> dict[str, str]:
    """The packed columns as expressions over NEW (inside a trigger, after _intern_sql)."""
    columns = OBSERVATION_COLUMNS if table == "observation" else SUPPORT_COLUMNS
    texts = TEXT_COLUMNS[table]
    out = {}
    for name in columns:
        if name in texts:
            out[texts[name]] = f"(SELECT id FROM kbtext WHERE value = CAST(NEW.{name} AS TEXT))"
        elif name in SOURCE_COLUMNS:
            match = " AND ".join(f"{c} IS NEW.{c}" for c in SOURCE_COLUMNS)
            out["source_id"] = f"(SELECT min(id) FROM provenance_source WHERE {match})"
        elif name in BATCH_COLUMNS:
            match = " AND ".join(f"{c} IS NEW.{c}" for c in BATCH_COLUMNS)
            out["batch_id"] = f"(SELECT min(id) FROM provenance_batch WHERE {match})"
        else:
            out[name] = f"NEW.{name}"
    return out


def _triggers(table: str) -> str:
    """INSTEAD OF INSERT/UPDATE/DELETE on a view, for plain SQL (tests, a user's sqlite3):
    row by row, slower than kb's own bulk writes, the same rows."""
    packed = "observation_packed" if table == "observation" else "support_packed"
    values = _packed_values(table)
    insert = {k: v for k, v in values.items() if k != "id"}
    if table == "support_stored":
        insert["disagreement"] = "COALESCE(NEW.disagreement, 0)"
        insert["basis"] = "COALESCE(NEW.basis, 'evidence')"
    update = {k: v for k, v in values.items() if k != "id"}
    return f"""
CREATE TRIGGER {table}_insert INSTEAD OF INSERT ON {table} BEGIN
  {_intern_sql(table)}
  INSERT INTO {packed} (id, {', '.join(insert)}) VALUES (NEW.id, {', '.join(insert.values())});
END;
CREATE TRIGGER {table}_update INSTEAD OF UPDATE ON {table} BEGIN
  {_intern_sql(table)}
  UPDATE {packed} SET id = NEW.id, {', '.join(f'{k} = {v}' for k, v in update.items())} WHERE id = OLD.id;
END;
CREATE TRIGGER {table}_delete INSTEAD OF DELETE ON {table} BEGIN
  DELETE FROM {packed} WHERE id = OLD.id;
END;
"""


PACKED_VIEWS = f"""
CREATE VIEW observation AS
{_packed_select("observation", "o")};
CREATE VIEW support_stored AS
{_packed_select("support_stored", "s")};
CREATE VIEW support AS
{_packed_select("support_stored", "s")}
UNION ALL
{_presumed_select()};
CREATE VIEW support_status AS
SELECT id, op, target, release_id, mode, status, effective_status, basis, disagreement, report FROM support_packed
UNION ALL
SELECT -p.id, s.op, s.target, p.release_id, s.mode, s.status, s.effective_status, 'presumed',
       COALESCE(p.disagreement, s.disagreement), s.report
  FROM support_presumed p JOIN support_packed s ON s.id = p.from_id;
""" + _triggers("observation") + _triggers("support_stored")


def _copy_sql(table: str, old: str) -> str:
    """Rows of the schema-7 table `old` into its packed table (lookups filled first)."""
    packed = "observation_packed" if table == "observation" else "support_packed"
    texts = TEXT_COLUMNS[table]
    values = {}
    for name in (OBSERVATION_COLUMNS if table == "observation" else SUPPORT_COLUMNS):
        if name in texts:
            # CAST: a JSON column has NUMERIC affinity, which would keep kbtext's index out of the look-up
            values[texts[name]] = f"(SELECT id FROM kbtext WHERE value = CAST(x.{name} AS TEXT))"
        elif name in SOURCE_COLUMNS:
            match = " AND ".join(f"{c} IS x.{c}" for c in SOURCE_COLUMNS)
            values["source_id"] = f"(SELECT min(id) FROM provenance_source WHERE {match})"
        elif name in BATCH_COLUMNS:
            match = " AND ".join(f"{c} IS x.{c}" for c in BATCH_COLUMNS)
            values["batch_id"] = f"(SELECT min(id) FROM provenance_batch WHERE {match})"
        elif name == "fingerprint":
            values[name] = "kb_unhex(x.fingerprint)"
        else:
            values[name] = f"x.{name}"
    texts_sql = "\n".join(f"INSERT OR IGNORE INTO kbtext (value) SELECT CAST({name} AS TEXT) FROM {old} "
                          f"WHERE {name} IS NOT NULL;"
                          for name in texts)
    return f"""{texts_sql}
INSERT INTO provenance_source ({', '.join(SOURCE_COLUMNS)})
SELECT DISTINCT {', '.join(SOURCE_COLUMNS)} FROM {old} x
 WHERE NOT EXISTS (SELECT 1 FROM provenance_source WHERE {' AND '.join(f'{c} IS x.{c}' for c in SOURCE_COLUMNS)});
{f"INSERT INTO provenance_batch ({', '.join(BATCH_COLUMNS)}) SELECT DISTINCT {', '.join(BATCH_COLUMNS)} FROM {old};"
 if table == "observation" else ""}
INSERT INTO {packed} ({', '.join(values)}) SELECT {', '.join(values.values())} FROM {old} x ORDER BY x.id;
"""


STEP_8_PACKED_ROWS = PACKED_TABLES + """
DROP VIEW support;
DROP VIEW support_status;
ALTER TABLE observation RENAME TO observation_v7;
ALTER TABLE support_stored RENAME TO support_v7;
""" + _copy_sql("observation", "observation_v7") + _copy_sql("support_stored", "support_v7") + """
CREATE TABLE support_presumed_v8 (
\tid INTEGER NOT NULL,
\trelease_id INTEGER NOT NULL,
\tfrom_id INTEGER NOT NULL,
\tsources JSON,
\tdisagreement BOOLEAN,
\tPRIMARY KEY (id),
\tFOREIGN KEY(release_id) REFERENCES release (id),
\tFOREIGN KEY(from_id) REFERENCES support_packed (id)
);
INSERT INTO support_presumed_v8 SELECT id, release_id, from_id, sources, disagreement FROM support_presumed;
DROP TABLE support_presumed;
ALTER TABLE support_presumed_v8 RENAME TO support_presumed;
CREATE INDEX ix_support_presumed_from_id ON support_presumed (from_id);
CREATE INDEX ix_support_presumed_release_id ON support_presumed (release_id);
DROP TABLE support_v7;
DROP TABLE observation_v7;
""" + PACKED_INDEXES + PACKED_VIEWS


def unhex_fingerprint(value):
    """A 64-hex fingerprint as its 32 bytes (SQLite 3.40 has no unhex); any other text as it is."""
    if isinstance(value, str) and len(value) == 64:
        try:
            return bytes.fromhex(value)
        except ValueError:
            return value
    return value
