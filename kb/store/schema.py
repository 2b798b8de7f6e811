"""The KB's tables (SQLModel on SQLite): evidence first, verdicts derived from it.

Observations are append-only evidence with full provenance; verdicts (`support`) are rebuilt
from them at any time (see kb.store.support). Since schema 8 both are stored packed
(`ObservationPacked`, `SupportPacked`: repeated texts and provenance kept once, by id) and read
through the views `observation`, `support_stored` and `support` (kb.store.packed_sql), which
write out every column. Versions are foreign keys into the `Release` registry: a fact about
"torch_tpu 0.2.0" points at that release row, never at a free string. A missing verdict means
*unknown*.

JSON columns hold structured values (dtypes, conditions, version lists), never prose.
Bump `SCHEMA_VERSION` and add a numbered step to kb.store.migrations with every change here.
"""

from __future__ import annotations

from typing import Any, Optional

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

SCHEMA_VERSION = 8
# PRAGMA application_id of a KB file ("kbKB"): a SQLite file without it and without kb's
# kbmeta table is someone else's database, never migrated (kb.store.dbfile.check_kb).
APPLICATION_ID = 0x6B624B42


def _json(**kw: Any) -> Any:
    return Field(default=None, sa_column=Column(JSON(none_as_null=True), **kw))


class Target(SQLModel, table=True):
    """A place ops run: a device backend (neuron, tpu...) or a reference (cpu, meta)."""

    name: str = Field(primary_key=True)
    label: str
    product: str = Field(description="release-registry product whose versions this target's facts use")
    device: Optional[str] = Field(default=None, description="torch device type")
    dispatch_key: str
    vendor: Optional[str] = None
    description: Optional[str] = None


class Release(SQLModel, table=True):
    """One version of a product: Neuron SDK, torchneuron, torch-neuronx-xla, torch_tpu, torch..."""

    __table_args__ = (UniqueConstraint("product", "version"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    product: str = Field(index=True)
    version: str
    date: Optional[str] = None
    sdk_version: Optional[str] = None
    torch_versions: Optional[list] = _json()
    python_versions: Optional[list] = _json()
    os: Optional[list] = _json()
    instance_families: Optional[list] = _json()
    channel: Optional[str] = None
    components: Optional[dict] = _json()
    note: Optional[str] = None
    source_kind: str
    source_name: str
    source_url: Optional[str] = None
    retrieved_at: str
    conflicts: Optional[list] = _json()  # later sources that disagreed on a field, kept visible
    report: Optional[dict] = _json()  # schema 6: the local report file this row came from (kb.store.provenance)


class Op(SQLModel, table=True):
    """An ATen overload as the local torch's dispatcher knows it (the op catalog)."""

    name: str = Field(primary_key=True)  # aten::add.Tensor
    base: str = Field(index=True)  # add
    overload: str  # Tensor ("" for the default overload)
    schema_: str = Field(sa_column_kwargs={"name": "schema"})
    composite_implicit: bool  # CompositeImplicitAutograd: decomposes where the backend has no kernel
    composite_explicit: bool  # CompositeExplicitAutograd(NonFunctional): a default kernel calling other ops
    # dispatch keys with a kernel of their own (CPU, CUDA, Meta..., and which composite key
    # a default kernel is registered under: kb.store.catalog.EXPLICIT_KEYS)
    backend_kernels: Optional[list] = _json()
    tags: Optional[list] = _json()  # core, inplace, out, view, pointwise...
    torch_version: str


class ProbeRun(SQLModel, table=True):
    """One run of the static or live probe: what, where, under which versions and policy."""

    run_id: str = Field(primary_key=True)
    kind: str  # static | live
    target: str = Field(foreign_key="target.name")
    release_id: int = Field(foreign_key="release.id")
    backend: str
    torch_version: str
    python_version: str
    host: str
    device: Optional[str] = None
    started_at: str
    finished_at: Optional[str] = None
    fallback_policy: Optional[dict] = _json()
    params: Optional[dict] = _json()
    tool_version: Optional[str] = None
    origin: str = "local"  # shipped (from data/) | local (ingested on this machine)
    report: Optional[dict] = _json()  # schema 6: the local report file this row came from (kb.store.provenance)


class KbText(SQLModel, table=True):
    """Schema 8: a text or JSON value that rows repeat (notes, conditions, details, sources,
    effective_via), kept once; packed rows point at it by id."""

    id: Optional[int] = Field(default=None, primary_key=True)
    value: str = Field(unique=True)


class ProvenanceSource(SQLModel, table=True):
    """Schema 8: who stated a fact (source, document, probe run, when read), kept once."""

    __tablename__ = "provenance_source"

    id: Optional[int] = Field(default=None, primary_key=True)
    source_kind: str
    source_name: str
    source_url: Optional[str] = None
    probe_run_id: Optional[str] = None  # no foreign key: a probe run's removal must not scan these
    retrieved_at: str


class ProvenanceBatch(SQLModel, table=True):
    """Schema 8: which ingest of a source an observation belongs to, kept once."""

    __tablename__ = "provenance_batch"

    id: Optional[int] = Field(default=None, primary_key=True)
    content_sha256: Optional[str] = None
    tool_version: Optional[str] = None
    ingested_at: str  # one value per ingest call: the newest batch of a source is its current word
    origin: str  # shipped | local (made here: probes, scrapes) | report (kb ingest FILE)


class ObservationPacked(SQLModel, table=True):
    """Append-only evidence: one source's statement of op × target × version × mode → status,
    as stored since schema 8 (kb.store.packed). Readers use the `observation` view, which writes
    out every column as before: texts from `kbtext`, provenance from `provenance_source` and
    `provenance_batch`, the fingerprint (the fact + its document's hash: re-ingesting adds
    nothing) as hex. Intern ids carry no foreign keys (kb.store.packed.prune)."""

    __tablename__ = "observation_packed"

    id: Optional[int] = Field(default=None, primary_key=True)
    op: str = Field(index=True)  # not a foreign key: sources name ops this torch may not have
    target: str = Field(foreign_key="target.name")
    release_id: int = Field(foreign_key="release.id", index=True)
    mode: str
    status: str
    torch_version: Optional[str] = None
    dtypes: Optional[list] = _json()
    conditions_id: Optional[int] = None
    note_id: Optional[int] = None
    detail_id: Optional[int] = None
    source_id: int
    batch_id: int
    report: Optional[dict] = _json()  # schema 6: the local report file this row came from (kb.store.provenance)
    fingerprint: bytes = Field(unique=True)  # sha256 bytes (text where a writer gave another value)


class SupportPacked(SQLModel, table=True):
    """Derived verdict per op × target × version × mode (rebuilt by kb.store.support.rebuild),
    as stored: every verdict but the presumed ones, packed like observations (schema 8).
    Readers use the `support` view (kb.store.migrations, step 8), which writes out every column
    and adds the presumed verdicts of `support_presumed`; `support_stored` is the view of these
    rows alone. Indexed by its key (which leads with op), target and release."""

    __tablename__ = "support_packed"
    __table_args__ = (UniqueConstraint("op", "target", "release_id", "mode"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    op: str
    target: str = Field(foreign_key="target.name", index=True)
    release_id: int = Field(foreign_key="release.id", index=True)
    mode: str
    status: str
    dtypes: Optional[list] = _json()
    conditions_id: Optional[int] = None
    note_id: Optional[int] = None
    source_id: int
    observation_id: int = Field(foreign_key="observation_packed.id")
    sources_id: Optional[int] = None  # every current source's own status: {source: status}
    disagreement: bool
    basis: str  # evidence | inferred | presumed | local (kb.vocab.BASES)
    effective_status: Optional[str] = None  # where it runs: a decomposed op's worst leaf
    effective_via_id: Optional[int] = None  # {"leaf": worst leaf, "leaves": {leaf: status}, "from": ...}
    report: Optional[dict] = _json()  # schema 6: the local report file this row came from (kb.store.provenance)


class SupportPresumed(SQLModel, table=True):
    """A presumed verdict (schema 7): the stored verdict `from_id` of an older version of the
    same product line, carried to `release_id` where that version has no word of its own on
    the op. Two thirds of all verdicts are presumed; stored whole, they made the KB file and its
    build three times as big. The `support` view writes their note and `presumed_from`.
    `sources`/`disagreement` are set only where a local report's word stands beside the
    presumed verdict (kb.store.support.carry_forward); NULL means the carried verdict's own."""

    __tablename__ = "support_presumed"

    id: Optional[int] = Field(default=None, primary_key=True)
    release_id: int = Field(foreign_key="release.id", index=True)
    from_id: int = Field(foreign_key="support_packed.id", index=True)
    sources: Optional[dict] = _json()
    disagreement: Optional[bool] = None


class SupportWindow(SQLModel, table=True):
    """An end-of-support statement for a product cycle; newer statements win, history stays."""

    id: Optional[int] = Field(default=None, primary_key=True)
    product: str = Field(index=True)
    cycle: str
    release_date: Optional[str] = None
    support_end: Optional[str] = None
    eol: Optional[str] = None
    eol_kind: Optional[str] = None  # announced | projected | with_release
    eol_release: Optional[str] = None
    statement_date: Optional[str] = None
    title: Optional[str] = None
    note: Optional[str] = None
    source_kind: str
    source_name: str
    source_url: Optional[str] = None
    retrieved_at: str
    content_sha256: Optional[str] = None
    ingested_at: str
    origin: str = "local"
    report: Optional[dict] = _json()  # schema 6: the local report file this row came from (kb.store.provenance)
    fingerprint: str = Field(unique=True)


class Limitation(SQLModel, table=True):
    """A feature-level limitation of a target at a release (torch.sparse, float64...)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    target: str = Field(foreign_key="target.name")
    release_id: int = Field(foreign_key="release.id")
    feature: str
    status: str
    note: Optional[str] = None
    source_kind: str
    source_name: str
    source_url: Optional[str] = None
    retrieved_at: str
    content_sha256: Optional[str] = None
    ingested_at: str
    origin: str = "local"
    report: Optional[dict] = _json()  # schema 6: the local report file this row came from (kb.store.provenance)
    fingerprint: str = Field(unique=True)


class Caveat(SQLModel, table=True):
    """A known issue measured in public (added in schema 5): op × target × version range.

    Beside the verdicts, never part of their precedence. Versions are a range in the
    target's product (inclusive; an open end means no source bounds it), not a release row.
    """

    id: Optional[int] = Field(default=None, primary_key=True)
    op: str = Field(index=True)
    family: bool = False
    target: str = Field(foreign_key="target.name", index=True)
    kind: str = Field(index=True)
    statement: str
    min_version: Optional[str] = None
    max_version: Optional[str] = None
    measured_on: Optional[str] = None
    mode: Optional[str] = None
    phase: Optional[str] = None
    dtypes: Optional[list] = _json()
    arg_dtypes: Optional[dict] = _json()
    conditions: Optional[dict] = _json()
    figure: Optional[dict] = _json()
    workaround: Optional[str] = None
    source_kind: str
    source_name: str
    source_url: Optional[str] = None
    retrieved_at: str
    content_sha256: Optional[str] = None
    ingested_at: str
    origin: str = "local"
    report: Optional[dict] = _json()  # schema 6: the local report file this row came from (kb.store.provenance)
    fingerprint: str = Field(unique=True)


class IngestRun(SQLModel, table=True):
    """One ingest of one source (added in schema 2): makes unchanged content a no-op."""

    id: Optional[int] = Field(default=None, primary_key=True)
    source_name: str = Field(index=True)
    content_sha256: Optional[str] = None
    started_at: str
    finished_at: Optional[str] = None
    added: int = 0
    origin: str = "local"


class CheckReport(SQLModel, table=True):
    """A `kb check --save` result (added in schema 3): one model against one target."""

    id: Optional[int] = Field(default=None, primary_key=True)
    created_at: str
    model: str
    model_sha256: Optional[str] = None
    target: str = Field(foreign_key="target.name")
    backend_version: Optional[str] = None
    mode: str
    verdict: str  # the worst status over the model's ops
    report_json: dict = Field(sa_column=Column(JSON, nullable=False))
    tool_version: Optional[str] = None


class CheckOp(SQLModel, table=True):
    """One op of a saved check report, for browsing and querying (schema 3)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    report_id: int = Field(foreign_key="checkreport.id", index=True)
    op: str
    count: int
    status: str
    via: Optional[str] = None
    source_kind: Optional[str] = None
    source_url: Optional[str] = None
    module_paths: Optional[list] = _json()


class KbMeta(SQLModel, table=True):
    """Key/value facts about the KB file itself (data fingerprint, catalog torch version...)."""

    key: str = Field(primary_key=True)
    value: str
