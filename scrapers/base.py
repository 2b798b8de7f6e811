"""What every scraper shares: the fetched `Document`, the `Source` description, the
`ScrapeError` that names source and file, and the guard that fails an empty scrape.

A scraper module is a parse function from documents to `kb.store.records`; fetching lives in
`scrapers.http` and `scrapers.registry`, storing in `kb.store.ingest`. Keeping parse pure makes
every scraper testable from a string.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import kb
from kb import userfiles
from kb.errors import KBError
from kb.store.records import Provenance, Record, sha256_text, utc_now

TOOL_VERSION = f"kb-scrapers/{kb.__version__}"


class ScrapeError(KBError):
    """A document that does not look like what its scraper knows. Always names the source
    and the file, so that a changed vendor page is one clear line, not a traceback."""

    def __init__(self, source: str, where: str, message: str):
        self.source = source
        self.where = where
        super().__init__(f"{source}: {where}: {message}")


@dataclass(frozen=True)
class Document:
    """One fetched (or locally read) document. `url` is its public address, the one
    recorded as provenance; `cache` says how the HTTP layer answered (fresh/revalidated/
    cached/local)."""

    url: str
    text: str
    retrieved_at: str = field(default_factory=utc_now)
    sha256: str = ""
    cache: str | None = None
    path: str | None = None  # path relative to a docs folder (neuron-docs layout), when known
    local: str | None = None  # the local file it was read from, when read from disk

    def __post_init__(self) -> None:
        if not self.sha256:
            object.__setattr__(self, "sha256", sha256_text(self.text))

    @property
    def name(self) -> str:
        """A name for error messages: the local file, else the docs path, else the URL."""
        return self.local or self.path or self.url


Parse = Callable[[Document], list[Record]]
ParseMany = Callable[[Sequence[Document]], list[Record]]


@dataclass(frozen=True)
class Source:
    """A public source: what it is, where it lives and how to read it.

    `urls` are the public addresses of its documents (what provenance records);
    `local_paths` are the same documents' paths (glob patterns allowed) in a folder laid
    out like the aws-neuron-sdk repository, for `kb ingest --from-file FOLDER`.
    `parse` reads one document; `parse_many`, when set, reads the whole set at once
    (for sources whose facts need two documents, or that reconcile between files).
    """

    name: str
    description: str
    kind: str  # provenance source kind: "doc" or "release_notes"
    urls: tuple[str, ...]
    parse: Parse
    local_paths: tuple[str, ...] = ()
    parse_many: ParseMany | None = None

    def scrape(self, documents: Sequence[Document]) -> list[Record]:
        """Parse every document and fail when nothing came out."""
        if self.parse_many is not None:
            records = self.parse_many(documents)
        else:
            records = [record for doc in documents for record in self.parse(doc)]
        where = documents[0].name if len(documents) == 1 else f"{len(documents)} documents"
        return require_records(self.name, where, records)


def provenance(source: str, kind: str, doc: Document) -> Provenance:
    """The provenance of a fact read from `doc`."""
    return Provenance(
        source_kind=kind,
        source_name=source,
        source_url=doc.url,
        retrieved_at=doc.retrieved_at,
        content_sha256=doc.sha256,
        tool_version=TOOL_VERSION,
    )


def load_json(source: str, doc: Document, limit: int, too_large: str) -> Any:
    """`doc` as JSON, refused before parsing when over `limit` characters (`too_large` says why)."""
    if len(doc.text) > limit:
        raise ScrapeError(source, doc.name, too_large)
    try:
        return userfiles.parse_json(doc.text, doc.name)
    except userfiles.FileRefused as exc:
        raise ScrapeError(source, doc.name, str(exc).removeprefix(f"{doc.name}: ")) from None


def parse_python(source: str, doc: Document, limit: int, too_large: str) -> ast.Module:
    """`doc` as a Python syntax tree (never imported or run), refused first when over `limit`."""
    if len(doc.text) > limit:
        raise ScrapeError(source, doc.name, too_large)
    try:
        return ast.parse(doc.text)
    except SyntaxError as exc:
        raise ScrapeError(source, doc.name, f"not Python ({exc.msg})") from None
    except (RecursionError, MemoryError):  # the parser recurses per nesting level
        raise ScrapeError(source, doc.name, "Python nested too deep to parse (bound)") from None


def require_records(source: str, where: str, records: Iterable[Record]) -> list[Record]:
    """Fail a scrape that produced nothing: an empty page or a changed layout must not
    look like "the vendor removed every fact"."""
    records = list(records)
    if not records:
        raise ScrapeError(source, where, "no records found (empty or changed page?)")
    return records


def combined_sha256(documents: Iterable[Document]) -> str:
    """One hash over a source's documents (order-independent), to tell ingest whether
    anything changed since the last run."""
    parts = sorted(f"{doc.url}\n{doc.sha256}" for doc in documents)
    return sha256_text("\n".join(parts))
