"""Addresses of the Neuron documentation: the public page of a source file of the
aws-neuron-sdk repository, and where its raw text is fetched from.

Public pages are what provenance records; the site also serves each page's source at
`/_sources/<path>.rst.txt`, and non-page files come from the GitHub repository.
"""

from __future__ import annotations

DOCS_SITE = "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/"
GITHUB_BLOB = "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/"
GITHUB_RAW = "https://raw.githubusercontent.com/aws-neuron/aws-neuron-sdk/master/"


def public_url(path: str) -> str:
    """The public address of a repository file: its docs page for `.rst`, else GitHub."""
    path = path.lstrip("/")
    if path.endswith(".rst"):
        return DOCS_SITE + path[: -len(".rst")] + ".html"
    return GITHUB_BLOB + path


def fetch_url(url: str) -> str:
    """Where to download the raw text of a public address (the page's source)."""
    if url.startswith(DOCS_SITE) and url.endswith(".html"):
        return DOCS_SITE + "_sources/" + url[len(DOCS_SITE): -len(".html")] + ".rst.txt"
    if url.startswith(GITHUB_BLOB):
        return GITHUB_RAW + url[len(GITHUB_BLOB):]
    if url.startswith("https://github.com/") and "/blob/" in url:
        owner_repo, _, rest = url[len("https://github.com/"):].partition("/blob/")
        return f"https://raw.githubusercontent.com/{owner_repo}/{rest}"
    return url


def path_of(url: str) -> str | None:
    """The repository path behind a public Neuron docs address, or None."""
    if url.startswith(DOCS_SITE) and url.endswith(".html"):
        return url[len(DOCS_SITE): -len(".html")] + ".rst"
    if url.startswith(GITHUB_BLOB):
        return url[len(GITHUB_BLOB):]
    return None
