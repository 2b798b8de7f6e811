"""Numbered schema migrations: a KB written by an older kb opens with a newer one.

Every KB file, new or old, is brought to `kb.store.schema.SCHEMA_VERSION` by running the steps
above its `PRAGMA user_version` in order, each in one transaction. Step 1 is the schema as
kb 0.1 first shipped it, frozen as SQL; later steps are the changes since. A test checks
that running every step gives exactly the tables `kb.store.schema` declares.
"""

from __future__ import annotations

import sqlite3

from kb.errors import SchemaTooNewError

STEP_1_INITIAL = """
CREATE TABLE kbmeta (
	"key" VARCHAR NOT NULL,
	value VARCHAR NOT NULL,
	PRIMARY KEY ("key")
);
CREATE TABLE op (
	name VARCHAR NOT NULL,
	base VARCHAR NOT NULL,
	overload VARCHAR NOT NULL,
	schema VARCHAR NOT NULL,
	composite_implicit BOOLEAN NOT NULL,
	composite_explicit BOOLEAN NOT NULL,
	backend_kernels JSON,
	tags JSON,
	torch_version VARCHAR NOT NULL,
	PRIMARY KEY (name)
);
CREATE INDEX ix_op_base ON op (base);
CREATE TABLE release (
	id INTEGER NOT NULL,
	product VARCHAR NOT NULL,
	version VARCHAR NOT NULL,
	date VARCHAR,
	sdk_version VARCHAR,
	torch_versions JSON,
	python_versions JSON,
	os JSON,
	instance_families JSON,
	channel VARCHAR,
	components JSON,
	note VARCHAR,
	source_kind VARCHAR NOT NULL,
	source_name VARCHAR NOT NULL,
	source_url VARCHAR,
	retrieved_at VARCHAR NOT NULL,
	conflicts JSON,
	PRIMARY KEY (id),
	UNIQUE (product, version)
);
CREATE INDEX ix_release_product ON release (product);
CREATE TABLE supportwindow (
	id INTEGER NOT NULL,
	product VARCHAR NOT NULL,
	cycle VARCHAR NOT NULL,
	release_date VARCHAR,
	support_end VARCHAR,
	eol VARCHAR,
	eol_kind VARCHAR,
	eol_release VARCHAR,
	statement_date VARCHAR,
	title VARCHAR,
	note VARCHAR,
	source_kind VARCHAR NOT NULL,
	source_name VARCHAR NOT NULL,
	source_url VARCHAR,
	retrieved_at VARCHAR NOT NULL,
	content_sha256 VARCHAR,
	ingested_at VARCHAR NOT NULL,
	origin VARCHAR NOT NULL,
	fingerprint VARCHAR NOT NULL,
	PRIMARY KEY (id),
	UNIQUE (fingerprint)
);
CREATE INDEX ix_supportwindow_product ON supportwindow (product);
CREATE TABLE target (
	name VARCHAR NOT NULL,
	label VARCHAR NOT NULL,
	product VARCHAR NOT NULL,
	device VARCHAR,
	dispatch_key VARCHAR NOT NULL,
	vendor VARCHAR,
	description VARCHAR,
	PRIMARY KEY (name)
);
CREATE TABLE limitation (
	id INTEGER NOT NULL,
	target VARCHAR NOT NULL,
	release_id INTEGER NOT NULL,
	feature VARCHAR NOT NULL,
	status VARCHAR NOT NULL,
	note VARCHAR,
	source_kind VARCHAR NOT NULL,
	source_name VARCHAR NOT NULL,
	source_url VARCHAR,
	retrieved_at VARCHAR NOT NULL,
	content_sha256 VARCHAR,
	ingested_at VARCHAR NOT NULL,
	origin VARCHAR NOT NULL,
	fingerprint VARCHAR NOT NULL,
	PRIMARY KEY (id),
	FOREIGN KEY(target) REFERENCES target (name),
	FOREIGN KEY(release_id) REFERENCES release (id),
	UNIQUE (fingerprint)
);
CREATE TABLE proberun (
	run_id VARCHAR NOT NULL,
	kind VARCHAR NOT NULL,
	target VARCHAR NOT NULL,
	release_id INTEGER NOT NULL,
	backend VARCHAR NOT NULL,
	torch_version VARCHAR NOT NULL,
	python_version VARCHAR NOT NULL,
	host VARCHAR NOT NULL,
	device VARCHAR,
	started_at VARCHAR NOT NULL,
	finished_at VARCHAR,
	fallback_policy JSON,
	params JSON,
	tool_version VARCHAR,
	origin VARCHAR NOT NULL,
	PRIMARY KEY (run_id),
	FOREIGN KEY(target) REFERENCES target (name),
	FOREIGN KEY(release_id) REFERENCES release (id)
);
CREATE TABLE observation (
	id INTEGER NOT NULL,
	op VARCHAR NOT NULL,
	target VARCHAR NOT NULL,
	release_id INTEGER NOT NULL,
	mode VARCHAR NOT NULL,
	status VARCHAR NOT NULL,
	torch_version VARCHAR,
	dtypes JSON,
	conditions JSON,
	note VARCHAR,
	detail JSON,
	source_kind VARCHAR NOT NULL,
	source_name VARCHAR NOT NULL,
	source_url VARCHAR,
	probe_run_id VARCHAR,
	retrieved_at VARCHAR NOT NULL,
	content_sha256 VARCHAR,
	tool_version VARCHAR,
	ingested_at VARCHAR NOT NULL,
	origin VARCHAR NOT NULL,
	fingerprint VARCHAR NOT NULL,
	PRIMARY KEY (id),
	FOREIGN KEY(target) REFERENCES target (name),
	FOREIGN KEY(release_id) REFERENCES release (id),
	FOREIGN KEY(probe_run_id) REFERENCES proberun (run_id),
	UNIQUE (fingerprint)
);
CREATE INDEX ix_observation_release_id ON observation (release_id);
CREATE INDEX ix_observation_op ON observation (op);
CREATE TABLE support (
	id INTEGER NOT NULL,
	op VARCHAR NOT NULL,
	target VARCHAR NOT NULL,
	release_id INTEGER NOT NULL,
	mode VARCHAR NOT NULL,
	status VARCHAR NOT NULL,
	dtypes JSON,
	conditions JSON,
	note VARCHAR,
	source_kind VARCHAR NOT NULL,
	source_name VARCHAR NOT NULL,
	source_url VARCHAR,
	probe_run_id VARCHAR,
	retrieved_at VARCHAR NOT NULL,
	observation_id INTEGER NOT NULL,
	PRIMARY KEY (id),
	UNIQUE (op, target, release_id, mode),
	FOREIGN KEY(target) REFERENCES target (name),
	FOREIGN KEY(release_id) REFERENCES release (id),
	FOREIGN KEY(observation_id) REFERENCES observation (id)
);
CREATE INDEX ix_support_op ON support (op);
"""

# Schema 2: ingest runs (so unchanged content is a no-op) and, on derived verdicts, each
# current source's own status plus a disagreement flag.
STEP_2_INGEST_RUNS_AND_DISAGREEMENT = """
CREATE TABLE ingestrun (
	id INTEGER NOT NULL,
	source_name VARCHAR NOT NULL,
	content_sha256 VARCHAR,
	started_at VARCHAR NOT NULL,
	finished_at VARCHAR,
	added INTEGER NOT NULL,
	origin VARCHAR NOT NULL,
	PRIMARY KEY (id)
);
CREATE INDEX ix_ingestrun_source_name ON ingestrun (source_name);
ALTER TABLE support ADD COLUMN sources JSON;
ALTER TABLE support ADD COLUMN disagreement BOOLEAN NOT NULL DEFAULT 0;
"""

# Schema 3: saved `kb check` reports (browsable in kb serve), and indexes on the
# derived verdicts' facet columns (kb serve's faceted pages at full size).
STEP_3_CHECK_REPORTS_AND_FACET_INDEXES = """
CREATE TABLE checkreport (
\tid INTEGER NOT NULL,
\tcreated_at VARCHAR NOT NULL,
\tmodel VARCHAR NOT NULL,
\tmodel_sha256 VARCHAR,
\ttarget VARCHAR NOT NULL,
\tbackend_version VARCHAR,
\tmode VARCHAR NOT NULL,
\tverdict VARCHAR NOT NULL,
\treport_json JSON NOT NULL,
\ttool_version VARCHAR,
\tPRIMARY KEY (id),
\tFOREIGN KEY(target) REFERENCES target (name)
);
CREATE TABLE checkop (
\tid INTEGER NOT NULL,
\treport_id INTEGER NOT NULL,
\top VARCHAR NOT NULL,
\tcount INTEGER NOT NULL,
\tstatus VARCHAR NOT NULL,
\tvia VARCHAR,
\tsource_kind VARCHAR,
\tsource_url VARCHAR,
\tmodule_paths JSON,
\tPRIMARY KEY (id),
\tFOREIGN KEY(report_id) REFERENCES checkreport (id)
);
CREATE INDEX ix_checkop_report_id ON checkop (report_id);
CREATE INDEX ix_support_target ON support (target);
CREATE INDEX ix_support_release_id ON support (release_id);
CREATE INDEX ix_support_mode ON support (mode);
CREATE INDEX ix_support_status ON support (status);
CREATE INDEX ix_support_source_kind ON support (source_kind);
"""

# Schema 4: every verdict says what it rests on (evidence, inferred, presumed) and where a
# decomposed op really runs (its worst leaf, and which leaf that is).
STEP_4_BASIS_AND_EFFECTIVE_STATUS = """
ALTER TABLE support ADD COLUMN basis VARCHAR NOT NULL DEFAULT 'evidence';
ALTER TABLE support ADD COLUMN effective_status VARCHAR;
ALTER TABLE support ADD COLUMN effective_via JSON;
CREATE INDEX ix_support_basis ON support (basis);
CREATE INDEX ix_support_effective_status ON support (effective_status);
"""

# Schema 5: field caveats (known issues measured in public), beside the verdicts.
STEP_5_FIELD_CAVEATS = """
CREATE TABLE caveat (
\tid INTEGER NOT NULL,
\top VARCHAR NOT NULL,
\tfamily BOOLEAN NOT NULL,
\ttarget VARCHAR NOT NULL,
\tkind VARCHAR NOT NULL,
\tstatement VARCHAR NOT NULL,
\tmin_version VARCHAR,
\tmax_version VARCHAR,
\tmeasured_on VARCHAR,
\tmode VARCHAR,
\tphase VARCHAR,
\tdtypes JSON,
\targ_dtypes JSON,
\tconditions JSON,
\tfigure JSON,
\tworkaround VARCHAR,
\tsource_kind VARCHAR NOT NULL,
\tsource_name VARCHAR NOT NULL,
\tsource_url VARCHAR,
\tretrieved_at VARCHAR NOT NULL,
\tcontent_sha256 VARCHAR,
\tingested_at VARCHAR NOT NULL,
\torigin VARCHAR NOT NULL,
\tfingerprint VARCHAR NOT NULL,
\tPRIMARY KEY (id),
\tFOREIGN KEY(target) REFERENCES target (name),
\tUNIQUE (fingerprint)
);
CREATE INDEX ix_caveat_op ON caveat (op);
CREATE INDEX ix_caveat_target ON caveat (target);
CREATE INDEX ix_caveat_kind ON caveat (kind);
"""

# Schema 6: provenance that cannot be forged. Rows from a local report file (`kb ingest
# FILE`, origin 'report') carry the file, its sha256, when it was ingested, whether the user
# let it win (--prefer-local) and what it claimed to be; the derived verdict carries its
# winner's. Rows an older kb took from a report file are found by their ingest run (a
# `file:NAME` run started when they were ingested) and become local reports too, their old
# source kept as their claim; the rest keep NULL (shipped, or made on this machine).
def _step_6_table(table: str, probe_kinds: bool) -> str:
    report = (f"(SELECT json_object('file', substr(i.source_name, 6), 'path', NULL, 'sha256', i.content_sha256, "
              f"'ingested_at', i.started_at, 'prefer_local', json('false'), 'migrated', json('true'), "
              f"'claimed', json_object('source_kind', {table}.source_kind, 'source_name', {table}.source_name, "
              f"'source_url', {table}.source_url)) "
              f"FROM ingestrun i WHERE i.source_name LIKE 'file:%' AND i.started_at = {table}.ingested_at "
              "ORDER BY i.id DESC LIMIT 1)")
    keep_probe = ("AND NOT (source_kind IN ('live_probe', 'static_probe', 'inferred') AND probe_run_id IS NOT NULL)"
                  if probe_kinds else "")
    kind = "source_kind" if table == "caveat" else "'local_report'"
    return f"""
UPDATE {table} SET origin = 'report', report = {report}
 WHERE origin = 'local' AND {report} IS NOT NULL;
UPDATE {table} SET source_kind = {kind}, source_name = 'local:' || json_extract(report, '$.file'), source_url = NULL
 WHERE origin = 'report' AND json_extract(report, '$.migrated') {keep_probe};
"""


STEP_6_LOCAL_REPORTS = """
ALTER TABLE observation ADD COLUMN report JSON;
ALTER TABLE supportwindow ADD COLUMN report JSON;
ALTER TABLE limitation ADD COLUMN report JSON;
ALTER TABLE caveat ADD COLUMN report JSON;
ALTER TABLE proberun ADD COLUMN report JSON;
ALTER TABLE release ADD COLUMN report JSON;
ALTER TABLE support ADD COLUMN report JSON;
""" + _step_6_table("observation", True) + _step_6_table("supportwindow", False) + \
    _step_6_table("limitation", False) + _step_6_table("caveat", False) + """
UPDATE proberun SET origin = 'report',
       report = (SELECT o.report FROM observation o WHERE o.probe_run_id = proberun.run_id AND o.origin = 'report' LIMIT 1)
 WHERE origin = 'local'
   AND EXISTS (SELECT 1 FROM observation o WHERE o.probe_run_id = proberun.run_id AND o.origin = 'report');
UPDATE ingestrun SET origin = 'report' WHERE source_name LIKE 'file:%' AND origin = 'local';
"""

# Schema 7: presumed verdicts are no longer stored whole. Two thirds of the verdicts are a
# newer version's copy of an older version's (kb.store.support.carry_forward); stored as rows
# they tripled the KB file and its build. The table of verdicts becomes `support_stored`, a
# presumed verdict is one small `support_presumed` row naming the verdict it carries, and
# `support` is a view giving every reader (queries, Datasette, chat) the same rows as before:
# the carried verdict under the newer release, basis 'presumed', its note and `presumed_from`
# written here (appended to the carried verdict's effective_via as text, as json.dumps writes
# it: json_set would parse every row's JSON on every scan). Rows an older kb stored as presumed
# are converted, not lost. The stored verdicts keep the indexes readers use through the view
# (op, target, release); the facet indexes of schema 3 served the table, which no page reads
# any more, and misled the planner (the mode index matches half the rows).
SUPPORT_VIEW = """
CREATE VIEW support AS
SELECT id, op, target, release_id, mode, status, dtypes, conditions, note, source_kind, source_name, source_url, probe_run_id, retrieved_at, observation_id, sources, disagreement, basis, effective_status, effective_via, report FROM support_stored
UNION ALL
SELECT -p.id, s.op, s.target, p.release_id, s.mode, s.status, s.dtypes, s.conditions,
       'presumed from ' || fr.version || ' (no word on this op for ' || tr.version || ')'
         || CASE WHEN s.note <> '' THEN '; ' || s.note ELSE '' END,
       s.source_kind, s.source_name, s.source_url, s.probe_run_id, s.retrieved_at, s.observation_id,
       COALESCE(p.sources, s.sources), COALESCE(p.disagreement, s.disagreement), 'presumed', s.effective_status,
       CASE WHEN s.effective_via IS NULL OR s.effective_via = '{}' THEN '{"presumed_from": ' || json_quote(fr.version) || '}'
            ELSE substr(s.effective_via, 1, length(s.effective_via) - 1) || ', "presumed_from": ' || json_quote(fr.version)
                 || '}' END, s.report
  FROM support_presumed p JOIN support_stored s ON s.id = p.from_id
  JOIN release fr ON fr.id = s.release_id JOIN release tr ON tr.id = p.release_id;
"""

# The same verdicts, only the columns that counting needs: SQLite copies every column of a
# UNION ALL view into a scratch table when a query joins it, and a target's whole set of
# verdicts (tens of thousands) copied with their notes and JSON costs tens of milliseconds a
# query (kb targets, an ingest's change report, the coverage matrix of kb serve).
SUPPORT_STATUS_VIEW = """
CREATE VIEW support_status AS
SELECT id, op, target, release_id, mode, status, effective_status, basis, disagreement, report FROM support_stored
UNION ALL
SELECT -p.id, s.op, s.target, p.release_id, s.mode, s.status, s.effective_status, 'presumed',
       COALESCE(p.disagreement, s.disagreement), s.report
  FROM support_presumed p JOIN support_stored s ON s.id = p.from_id;
"""

STEP_7_PRESUMED_BY_REFERENCE = """
ALTER TABLE support RENAME TO support_stored;
DROP INDEX ix_support_op;
DROP INDEX ix_support_target;
DROP INDEX ix_support_release_id;
DROP INDEX ix_support_mode;
DROP INDEX ix_support_status;
DROP INDEX ix_support_source_kind;
DROP INDEX ix_support_basis;
DROP INDEX ix_support_effective_status;
CREATE INDEX ix_support_stored_op ON support_stored (op);
CREATE INDEX ix_support_stored_target ON support_stored (target);
CREATE INDEX ix_support_stored_release_id ON support_stored (release_id);
CREATE TABLE support_presumed (
\tid INTEGER NOT NULL,
\trelease_id INTEGER NOT NULL,
\tfrom_id INTEGER NOT NULL,
\tsources JSON,
\tdisagreement BOOLEAN,
\tPRIMARY KEY (id),
\tFOREIGN KEY(release_id) REFERENCES release (id),
\tFOREIGN KEY(from_id) REFERENCES support_stored (id)
);
CREATE INDEX ix_support_presumed_from_id ON support_presumed (from_id);
CREATE INDEX ix_support_presumed_release_id ON support_presumed (release_id);
INSERT INTO support_presumed (release_id, from_id, sources, disagreement)
SELECT p.release_id, s.id, CASE WHEN p.sources IS s.sources THEN NULL ELSE p.sources END,
       CASE WHEN p.disagreement = s.disagreement THEN NULL ELSE p.disagreement END
  FROM support_stored p JOIN release pr ON pr.id = p.release_id
  JOIN release fr ON fr.product = pr.product AND fr.version = json_extract(p.effective_via, '$.presumed_from')
  JOIN support_stored s ON s.op = p.op AND s.target = p.target AND s.mode = p.mode AND s.release_id = fr.id
   AND s.basis <> 'presumed'
 WHERE p.basis = 'presumed' AND json_valid(p.effective_via);
DELETE FROM support_stored WHERE basis = 'presumed';
""" + SUPPORT_VIEW + SUPPORT_STATUS_VIEW



# Schema 8: observations and stored verdicts packed (texts, JSON and provenance kept once, the
# fingerprint as bytes) behind views with the same columns; the SQL is in kb.store.packed_sql.
from kb.store.packed_sql import STEP_8_PACKED_ROWS, unhex_fingerprint  # noqa: E402

STEPS = {1: STEP_1_INITIAL, 2: STEP_2_INGEST_RUNS_AND_DISAGREEMENT, 3: STEP_3_CHECK_REPORTS_AND_FACET_INDEXES,
         4: STEP_4_BASIS_AND_EFFECTIVE_STATUS, 5: STEP_5_FIELD_CAVEATS, 6: STEP_6_LOCAL_REPORTS,
         7: STEP_7_PRESUMED_BY_REFERENCE, 8: STEP_8_PACKED_ROWS}
# kb.store.schema's SCHEMA_VERSION and APPLICATION_ID, mirrored (like kb.store.dbfile's) so that a
# build imports no SQLModel; a test keeps them equal.
SCHEMA_VERSION = max(STEPS)
APPLICATION_ID = 0x6B624B42
assert sorted(STEPS) == list(range(1, SCHEMA_VERSION + 1)), "one migration step per schema version"


def schema_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection, upto: int = SCHEMA_VERSION) -> list[int]:
    """Apply the missing steps up to `upto`; returns the steps applied."""
    current = schema_version(conn)
    if current > SCHEMA_VERSION:
        raise SchemaTooNewError(
            f"this KB has schema {current}, newer than this kb understands ({SCHEMA_VERSION}): upgrade kb"
        )
    applied = []
    if upto >= 8 > current:
        conn.create_function("kb_unhex", 1, unhex_fingerprint, deterministic=True)
    for step in range(current + 1, upto + 1):
        # executescript commits first; run the step and its version bump as one transaction
        try:
            conn.executescript(f"BEGIN;\n{STEPS[step]}\nPRAGMA user_version = {step};\nCOMMIT;")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        applied.append(step)
    if 8 in applied and current > 0:
        conn.execute("VACUUM")  # the unpacked rows' pages go back: the file shrinks to what it holds
    if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # marks the file as a KB (older KBs too)
        conn.commit()
    return applied
