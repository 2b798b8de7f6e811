"""Typed records: the contract between the producers of facts and the KB.

Scrapers and probes produce these records and nothing else; `kb.store.ingest` is the only
code that turns them into rows. The same records are the portable JSONL format
(`kb probe --out report.jsonl`, `kb ingest report.jsonl`, the files in `data/`), one
JSON object a line with a `record` field naming its type.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

from kb.userfiles import FileRefused, parse_json
from kb.vocab import CAVEAT_KINDS, CAVEAT_SOURCE_KIND, DATE_KINDS, LOCAL_REPORT_KIND, MODES, SOURCE_KINDS, STATUSES

# A dtype is a word like float32, bfloat16, complex64, bool: never a sentence, never markup.
DTYPE_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


class RecordError(ValueError):
    """A record that does not satisfy the contract (bad status, missing field...)."""


def utc_now() -> str:
    """Current time as an ISO-8601 UTC string, second precision (used for retrieved_at)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def sha256_text(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


SAFE_URL_SCHEMES = ("http", "https")


def http_url(url: Any) -> bool:
    """An http(s) URL with a host: the only links kb stores (no javascript:, data:, file:)."""
    from urllib.parse import urlsplit

    if not isinstance(url, str):
        return False
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    return parts.scheme.lower() in SAFE_URL_SCHEMES and bool(parts.netloc)


def citable_url(url: Any) -> bool:
    """A URL a record may cite: http(s), or a `file://` URL kb's own scrapers write for a
    document with no public copy (a local folder the user named). Never javascript:, data:
    or anything else; a report someone hands us keeps http(s) only (from_dict's `warn`)."""
    if http_url(url):
        return True
    return isinstance(url, str) and url.startswith("file://") and not any(ord(c) < 32 for c in url)


@dataclass(frozen=True)
class Provenance:
    """Where a fact came from. Every record carries one."""

    source_kind: str  # one of vocab.SOURCE_KINDS
    source_name: str  # stable id of the source, e.g. "neuron-xla-op-list", "static_probe"
    source_url: str | None = None  # document URL, or None for probes (see probe_run_id)
    retrieved_at: str = field(default_factory=utc_now)
    content_sha256: str | None = None  # of the document / report the fact was read from
    tool_version: str | None = None  # scraper or probe version
    probe_run_id: str | None = None
    # what a report's line said its kind was, when reading it had to store it as a local
    # report (its only link was no http(s) one): kept as the line's claim (t26b #10)
    claimed_kind: str | None = None

    def __post_init__(self) -> None:
        if self.source_kind not in SOURCE_KINDS:
            raise RecordError(f"unknown source kind {self.source_kind!r} (expected one of {', '.join(SOURCE_KINDS)})")
        if not self.source_url and not self.probe_run_id and self.source_kind != LOCAL_REPORT_KIND:
            raise RecordError(f"source {self.source_name!r}: a source URL or a probe run id is required")


@dataclass(frozen=True)
class OpStatus:
    """One piece of evidence: op × target × backend version × mode → status."""

    op: str  # canonical ATen overload name, "aten::add.Tensor" (see kb.opnames.canonical)
    target: str  # kb target name: neuron, neuron-xla, tpu, cpu, meta, cuda, sim
    backend_version: str  # version of the target's product (torch-neuronx, torch_tpu, torch...)
    status: str  # one of vocab.STATUSES
    provenance: Provenance
    mode: str = "eager"
    torch_version: str | None = None
    dtypes: tuple[str, ...] | None = None  # the status holds for these dtypes only; None = not dtype specific
    conditions: dict[str, Any] | None = None  # structured argument conditions, e.g. {"p": [1, 2, "inf"]}
    note: str | None = None
    detail: dict[str, Any] | None = None  # evidence detail: error class/line, numerics, dispatch entry

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise RecordError(f"{self.op}: unknown status {self.status!r} (expected one of {', '.join(STATUSES)})")
        if self.mode not in MODES:
            raise RecordError(f"{self.op}: unknown mode {self.mode!r}")
        if not self.op.startswith("aten::"):
            raise RecordError(f"{self.op!r}: op names must be canonical ATen names (aten::name.overload)")
        if not self.backend_version:
            raise RecordError(f"{self.op}: a backend version is required (a missing version is not a fact)")
        if self.provenance.source_kind == CAVEAT_SOURCE_KIND:
            raise RecordError(f"{self.op}: field knowledge is recorded as caveats, never as a verdict")
        if self.dtypes is not None:
            object.__setattr__(self, "dtypes", tuple(sorted(self.dtypes)))


@dataclass(frozen=True)
class Release:
    """One version of a product (SDK, backend package, PyTorch...) in the release registry."""

    product: str  # e.g. "neuron-sdk", "torchneuron", "torch-neuronx-xla", "torch_tpu", "torch"
    version: str
    provenance: Provenance
    date: str | None = None  # ISO date (YYYY-MM-DD, or YYYY-MM when the source says only that)
    sdk_version: str | None = None  # Neuron SDK release that ships this version
    torch_versions: tuple[str, ...] = ()
    python_versions: tuple[str, ...] = ()
    os: tuple[str, ...] = ()
    instance_families: tuple[str, ...] = ()
    channel: str | None = None  # "beta", "ga", "maintenance"...
    components: dict[str, str] | None = None  # for SDK releases: package -> version
    note: str | None = None


@dataclass(frozen=True)
class Limitation:
    """A feature-level limitation, e.g. torch.sparse unsupported on neuron with SDK 2.33."""

    target: str
    product: str
    version: str  # release of `product` the limitation is stated for
    feature: str  # "torch.sparse", "float64", "torch.compile dynamic=True"
    status: str  # free word from the source: unsupported, partial, "runs as float32"
    provenance: Provenance
    note: str | None = None


@dataclass(frozen=True)
class SupportWindow:
    """An end-of-support statement for one product cycle (endoflife.date style)."""

    product: str  # "neuron-sdk", "torch-neuronx-xla", "pytorch", "python", "ubuntu", "inf1"...
    cycle: str  # "2.7", "3.8", "22.04"
    provenance: Provenance
    release_date: str | None = None
    support_end: str | None = None  # end of active support (ISO date)
    eol: str | None = None  # end of life (ISO date), when known as a date
    eol_kind: str | None = None  # announced | projected | with_release
    eol_release: str | None = None  # "ends with release X": the release that ends it
    statement_date: str | None = None  # when the vendor made the statement (newer wins)
    title: str | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        if self.eol_kind is not None and self.eol_kind not in DATE_KINDS:
            raise RecordError(f"{self.product} {self.cycle}: unknown eol kind {self.eol_kind!r}")


@dataclass(frozen=True)
class ProbeRun:
    """A probe run's header: what was probed, where, under which versions and policy."""

    run_id: str
    kind: str  # "static" | "live"
    target: str
    backend: str  # backend package or device name
    backend_version: str
    torch_version: str
    python_version: str
    host: str
    started_at: str
    finished_at: str | None = None
    device: str | None = None
    fallback_policy: dict[str, Any] | None = None
    params: dict[str, Any] | None = None
    tool_version: str | None = None


@dataclass(frozen=True)
class Caveat:
    """A known issue measured in public: op × target × version range (× dtype / argument).

    It sits beside the verdicts and never changes them: an op can be `native` and still
    be 700x slower with an int64 index. `statement` is kb's own wording of the source's
    finding; `figure` carries the measured number where there is one. The version range is
    inclusive on both ends in the target's product versions (kb.store.queries.version_key);
    `max_version` None means no source says it was fixed.
    """

    op: str  # canonical ATen name, "aten::gather" (with family=True: every overload of gather)
    target: str
    kind: str  # one of vocab.CAVEAT_KINDS
    statement: str
    provenance: Provenance  # source_kind "field"
    family: bool = False  # the caveat covers every overload of the op's base name
    min_version: str | None = None  # first version of the target's product known affected
    max_version: str | None = None  # last version known affected; None = not known fixed
    measured_on: str | None = None  # the stack the source measured on (instance, versions)
    mode: str | None = None  # eager | compile; None = either
    phase: str | None = None  # "backward" when the caveat is about the op's gradient
    dtypes: tuple[str, ...] | None = None  # applies when a tensor argument has one of these dtypes
    arg_dtypes: dict[str, list[str]] | None = None  # {"index": ["int64"]}: by schema argument name
    conditions: dict[str, Any] | None = None  # other argument values that trigger it {"reduce": "mean"}
    figure: dict[str, Any] | None = None  # {"value": 731, "unit": "x slower", "what": "..."}
    workaround: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in CAVEAT_KINDS:
            raise RecordError(f"{self.op}: unknown caveat kind {self.kind!r} (expected one of {', '.join(CAVEAT_KINDS)})")
        if not self.op.startswith("aten::"):
            raise RecordError(f"{self.op!r}: op names must be canonical ATen names (aten::name.overload)")
        if self.provenance.source_kind != CAVEAT_SOURCE_KIND:
            raise RecordError(f"{self.op}: a caveat's source kind is {CAVEAT_SOURCE_KIND!r}, "
                              f"not {self.provenance.source_kind!r}")
        if self.mode is not None and self.mode not in MODES:
            raise RecordError(f"{self.op}: unknown mode {self.mode!r}")
        if self.phase not in (None, "backward"):
            raise RecordError(f"{self.op}: phase is 'backward' or absent, not {self.phase!r}")
        if not self.statement.strip():
            raise RecordError(f"{self.op}: a caveat needs a statement")
        if self.dtypes is not None:
            object.__setattr__(self, "dtypes", tuple(sorted(self.dtypes)))


@dataclass(frozen=True)
class DocRule:
    """A vendor page's rule for a whole class of ops or APIs ("quantized operator variants:
    not supported"). Ingest expands it (kb.store.rules) into one `doc_rule` observation per
    catalog op it selects × release of the target's product in [min_version, max_version]
    × mode, and one limitation per API it names. Such a verdict outranks inferred and
    presumed ones but never evidence that names the op (kb.vocab.SOURCE_RANK).
    `summary` is kb's own wording of the rule, never the page's sentence."""

    rule_id: str
    target: str
    status: str  # one of vocab.STATUSES: what the rule says the selected ops do
    summary: str
    provenance: Provenance  # source_kind "doc_rule"
    vendor_class: str | None = None  # the page's own class: "N", "CPU_FALLBACK", "Y"
    select: dict[str, Any] | None = None  # {"name_regex": "...", "ops": [...]}: catalog ops it covers
    apis: tuple[str, ...] = ()  # public APIs it names that are not ATen ops ("torch.backends.mps")
    api_status: str | None = None  # the word a limitation row states for those APIs
    min_version: str | None = None  # first version of the target's product it applies to
    max_version: str | None = None  # last one; None = every later version until a page says otherwise
    modes: tuple[str, ...] = MODES

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise RecordError(f"rule {self.rule_id}: unknown status {self.status!r}")
        if self.provenance.source_kind != "doc_rule":
            raise RecordError(f"rule {self.rule_id}: a doc rule's source kind is 'doc_rule'")
        if not self.select and not self.apis:
            raise RecordError(f"rule {self.rule_id}: selects no op and names no API")
        if not self.summary.strip():
            raise RecordError(f"rule {self.rule_id}: a rule needs a summary")
        if any(m not in MODES for m in self.modes):
            raise RecordError(f"rule {self.rule_id}: unknown mode in {self.modes}")


RECORD_TYPES: dict[str, type] = {
    "caveat": Caveat,
    "doc_rule": DocRule,
    "op_status": OpStatus,
    "release": Release,
    "limitation": Limitation,
    "support_window": SupportWindow,
    "probe_run": ProbeRun,
}
_TYPE_NAMES = {cls: name for name, cls in RECORD_TYPES.items()}
Record = OpStatus | Release | Limitation | SupportWindow | ProbeRun | Caveat | DocRule


def to_dict(record: Record) -> dict[str, Any]:
    """A record as a JSON-ready dict with its `record` type name first."""
    body = dataclasses.asdict(record)
    prov = body.get("provenance")
    if isinstance(prov, dict) and prov.get("claimed_kind") is None:
        del prov["claimed_kind"]  # only a local report's line claims a kind; shipped records stay as written
    return {"record": _TYPE_NAMES[type(record)], **{k: v for k, v in body.items() if v not in (None, (), [])}}


@functools.cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def _kind_of(annotation: str) -> str:
    """The shape a field's annotation asks for: str, bool, strs (tuple of str), dict, any."""
    text = annotation.replace(" | None", "").replace("Optional[", "").strip()
    if text == "str":
        return "str"
    if text == "bool":
        return "bool"
    if text.startswith("tuple[str"):
        return "strs"
    if text.startswith("dict"):
        return "dict"
    return "any"


@functools.cache
def _field_kinds(cls: type) -> dict[str, str]:
    return {f.name: _kind_of(str(f.type)) for f in dataclasses.fields(cls)}


_CHECKS = {"str": lambda v: isinstance(v, str), "bool": lambda v: isinstance(v, bool),
           "strs": lambda v: isinstance(v, list | tuple) and all(isinstance(x, str) for x in v),
           "dict": lambda v: isinstance(v, dict)}
_SHAPES = {"str": "a string", "bool": "true or false", "strs": "a list of strings", "dict": "an object"}


@functools.cache
def _field_checks(cls: type) -> dict[str, tuple[str, Callable[[Any], bool]]]:
    """field -> (kind, check) for every field whose kind can be checked (not `any`)."""
    return {name: (want, _CHECKS[want]) for name, want in _field_kinds(cls).items() if want in _CHECKS}


def check_types(kind: str, cls: type, data: dict[str, Any]) -> None:
    """Every field has the type its record declares: a dtype list is a list of words, a
    note is a string, a condition is an object. A string where a list belongs would
    otherwise be split into letters. (Runs for each of the shipped data's tens of thousands
    of records on a first use: the checks are made once per record type.)"""
    checks = _field_checks(cls)
    for name, value in data.items():  # the fields a line states (a record's JSON leaves out the empty ones)
        found = checks.get(name)
        if found is not None and value is not None and not found[1](value):
            raise RecordError(f"{kind}: {name} must be {_SHAPES[found[0]]}, not {type(value).__name__}")
    for name in ("dtypes",):
        for dtype in data.get(name) or ():
            if not DTYPE_RE.match(dtype):
                raise RecordError(f"{kind}: {dtype[:40]!r} is not a dtype name")
    arg_dtypes = data.get("arg_dtypes")
    if isinstance(arg_dtypes, dict):
        for arg, dtypes in arg_dtypes.items():
            if not isinstance(dtypes, list) or not all(isinstance(d, str) and DTYPE_RE.match(d) for d in dtypes):
                raise RecordError(f"{kind}: arg_dtypes[{str(arg)[:40]!r}] must be a list of dtype names")


# A record's prose (a vendor's note, a caveat's statement) longer than this is cut where it is
# read (from_dict: `kb ingest` and every data/ build), so no answer, page or --json carries a
# 300,000-character note (report t26b item 4). The longest shipped one is about 600.
PROSE_MAX = 2000
PROSE_FIELDS = ("note", "statement", "workaround", "summary", "title")


def cut_prose(text: str, limit: int = PROSE_MAX) -> str:
    """`text` cut at a word near `limit`, saying how long the whole was (the source file has it)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = head.rfind(" ", limit - 200)
    return f"{head[:space] if space > 0 else head}… (cut at {limit:,} of {len(text):,} characters)"


def _bound_prose(kind: str, data: dict[str, Any], warn: Callable[[str], None] | None) -> None:
    for name in PROSE_FIELDS:
        value = data.get(name)
        if isinstance(value, str) and len(value) > PROSE_MAX:
            data[name] = cut_prose(value)
            if warn is not None:
                warn(f"{kind}: {name} cut to {PROSE_MAX:,} of its {len(value):,} characters")


def from_dict(data: dict[str, Any], warn: Callable[[str], None] | None = None) -> Record:
    """Rebuild a record from `to_dict` output; raises RecordError on anything malformed.

    With `warn` (a report someone handed us), a source URL that is not http(s) is dropped
    with a warning instead of failing the record; without it (shipped data), it fails."""
    data = dict(data)
    kind = data.pop("record", None)
    cls = RECORD_TYPES.get(kind)
    if cls is None:
        raise RecordError(f"unknown record type {kind!r}")
    unknown = set(data) - _field_names(cls)
    if unknown:
        raise RecordError(f"{kind}: unknown fields {sorted(unknown)}")
    if "provenance" in data:
        if not isinstance(data["provenance"], dict):
            raise RecordError(f"{kind}: provenance must be an object")
        prov = dict(data["provenance"])
        unknown_prov = set(prov) - _field_names(Provenance)
        if unknown_prov:
            raise RecordError(f"{kind}: unknown provenance fields {sorted(unknown_prov)}")
        check_types(f"{kind} provenance", Provenance, prov)
        if warn is not None and prov.get("source_url") is not None and not http_url(prov["source_url"]):
            warn(f"{kind}: dropped source URL {str(prov['source_url'])[:40]!r} (only http(s) links are kept)")
            prov["source_url"] = None
            if not prov.get("probe_run_id"):
                prov["claimed_kind"], prov["source_kind"] = prov.get("source_kind"), LOCAL_REPORT_KIND
        try:
            data["provenance"] = Provenance(**prov)
        except TypeError as exc:
            raise RecordError(f"{kind}: provenance: {exc}") from None
    check_types(kind, cls, data)
    _bound_prose(kind, data, warn)
    for name, value in data.items():
        if isinstance(value, list):
            data[name] = tuple(value)
    try:
        return cls(**data)
    except TypeError as exc:
        raise RecordError(f"{kind}: {exc}") from None


def dumps(record: Record) -> str:
    return json.dumps(to_dict(record), sort_keys=False, ensure_ascii=False)


def write_jsonl(records: Iterable[Record], out: IO[str]) -> int:
    """Write records one a line; returns how many."""
    n = 0
    for record in records:
        out.write(dumps(record) + "\n")
        n += 1
    return n


def read_jsonl(lines: Iterable[str], where: str = "<input>", warn: Callable[[str], None] | None = None
               ) -> Iterator[Record]:
    """Parse JSONL records, naming the file and line of the first bad one (`warn`: see from_dict)."""
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            data = parse_json(line, f"{where}:{number}")
        except FileRefused as exc:
            raise RecordError(str(exc)) from None
        if not isinstance(data, dict):
            raise RecordError(f"{where}:{number}: expected a JSON object")
        try:
            yield from_dict(data, None if warn is None else (lambda text, n=number: warn(f"{where}:{n}: {text}")))
        except RecordError as exc:
            raise RecordError(f"{where}:{number}: {exc}") from None
