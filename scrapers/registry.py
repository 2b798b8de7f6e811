"""Every source kb can scrape, by name, and how to get its documents: from the web
(through `scrapers.http`, cached) or from a local file or docs folder.

A local folder is laid out like the aws-neuron-sdk repository (`release-notes/…`,
`about-neuron/…`, `src/helperscripts/…`), or like the repository a source's URLs point
into (a test repository at a commit); each document found there is recorded under its
public URL, derived from its path, so facts read offline cite the same page as facts
read online.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from datetime import UTC, datetime

from kb import userfiles
from kb.errors import KBError
from scrapers import (
    neuron_announcements,
    neuron_inf1_ops,
    neuron_manifest,
    neuron_release_notes,
    neuron_xla_ops,
    reference_facts,
    test_expectations,
    torch_tpu_ops,
    torch_tpu_pypi,
    torch_tpu_test_expectations,
    torchneuron_table,
)
from scrapers.base import Document, Source
from scrapers.http import HttpClient
from scrapers.neuron_docs import fetch_url, path_of, public_url

SOURCES: dict[str, Source] = {
    source.name: source
    for source in (
        torchneuron_table.SOURCE,
        neuron_xla_ops.SOURCE,
        neuron_inf1_ops.SOURCE,
        neuron_release_notes.SOURCE,
        neuron_manifest.SOURCE,
        neuron_announcements.SOURCE,
        torch_tpu_ops.SOURCE,
        torch_tpu_pypi.SOURCE,
        test_expectations.SOURCE,
        torch_tpu_test_expectations.SOURCE,
        *reference_facts.SOURCES,
    )
}


def get_source(name: str) -> Source:
    try:
        return SOURCES[name]
    except KeyError:
        raise KBError(f"unknown source {name!r} (known: {', '.join(sorted(SOURCES))})") from None


def fetch_documents(source: Source, client: HttpClient, offline: bool = False) -> list[Document]:
    """Download every document of `source` (from the cache only when `offline`)."""
    if offline and not client.offline:
        raise KBError("offline fetch needs an offline client (HttpClient(offline=True))")
    if not source.urls:
        raise KBError(f"{source.name}: no public copy to fetch; pass the local file with --from-file")
    documents = []
    for url in source.urls:
        fetched = client.get_text(fetch_url(url))
        documents.append(Document(url=url, text=fetched.text, retrieved_at=fetched.retrieved_at,
                                  cache=fetched.cache, path=path_of(url)))
    return documents


def _read(path: str) -> str:
    """A local document's text: a regular file within the text bound (kb.userfiles), so a
    device, FIFO or huge file in a docs folder fails its source in one line."""
    return userfiles.read_text(path)


def _mtime(path: str) -> str:
    when = datetime.fromtimestamp(os.path.getmtime(path), UTC).replace(microsecond=0)
    return when.isoformat()


def local_documents(source: Source, path: str) -> list[Document]:
    """The documents of `source` in a local file or docs folder."""
    if not os.path.exists(path):
        raise KBError(f"{path}: no such file or folder")
    if os.path.isdir(path):
        found: list[str] = []
        for pattern in source.local_paths:
            found += sorted(glob.glob(os.path.join(path, pattern)))
        found = list(dict.fromkeys(found))
        if not found:
            wanted = ", ".join(source.local_paths) or "(this source has no local layout; pass a file)"
            raise KBError(f"{path}: none of the documents of source {source.name!r} found there (looked for {wanted})")
        docs = []
        for file in found:
            relative = os.path.relpath(file, path).replace(os.sep, "/")
            docs.append(Document(url=_public_url(source, relative), text=_read(file), retrieved_at=_mtime(file),
                                 cache="local", path=relative, local=file))
        return docs
    return [Document(url=_url_for_file(source, path), text=_read(path), retrieved_at=_mtime(path), cache="local",
                     path=_relative_for_file(source, path), local=path)]


def _public_url(source: Source, relative: str) -> str:
    """The public address of a document at `relative` in a local copy: the source's own URL
    for that path when it has one (a repository at a commit), else the Neuron docs page."""
    for url in source.urls:
        if url.endswith("/" + relative):
            return url
    return public_url(relative)


def _relative_for_file(source: Source, path: str) -> str | None:
    """The repository path of a single local file, when it is one of the source's
    documents: its own path's tail when that matches a pattern, else its name placed in
    the pattern's folder."""
    parts = os.path.abspath(path).replace(os.sep, "/").split("/")
    for pattern in source.local_paths:
        candidate = "/".join(parts[-(pattern.count("/") + 1):])
        if fnmatch.fnmatch(candidate, pattern):
            return candidate
    for pattern in source.local_paths:
        folder, _, name = pattern.rpartition("/")
        if "*" not in folder and fnmatch.fnmatch(parts[-1], name):
            return f"{folder}/{parts[-1]}" if folder else parts[-1]
    return None


def _url_for_file(source: Source, path: str) -> str:
    """The public URL a single local file stands for: its docs page when its name is one
    of the source's documents, the source's only URL when it has one, else a file URL."""
    relative = _relative_for_file(source, path)
    if relative:
        return _public_url(source, relative)
    if len(source.urls) == 1:
        return source.urls[0]
    name = os.path.basename(path)
    for url in source.urls:
        if url.rsplit("/", 1)[-1] == name:
            return url
    return "file://" + os.path.abspath(path)
