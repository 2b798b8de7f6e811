"""Neuron SDK release notes → `Release` rows (SDK version, date, instance families,
component versions, component releases), `Limitation` rows (known issues of the
PyTorch component) and `SupportWindow` rows (end-of-life statements inside the notes).

Documents (aws-neuron-sdk `release-notes/`): one page per SDK release
(`2.32.0.rst`, `prev/2.30.0.rst`, `prev/2.27.0/index.rst`), the earlier-releases page
(`prev/rn.rst`, "Neuron 2.24.0 (06/24/2025)" headings), the index (a table of versions
and dates, the latest release, the latest component versions) and component notes
(`components/pytorch.rst`: "PyTorch Framework [2.9.0.2.13.*] (Neuron 2.29.0 Release)").

The files disagree (a page's own date against the index's and the earlier-releases
list's, a meta description against the body). One row per SDK release is kept, taken
from the most direct statement — the release's own page, then the index, then the
earlier-releases list — and every other date seen is named in its note.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import replace

from kb.store.records import Limitation, Record, Release, dumps
from scrapers import rst
from scrapers.base import Document, ScrapeError, Source, provenance
from scrapers.dates import DateError, parse_date
from scrapers.neuron_docs import public_url
from scrapers.support_statements import slug, windows

NAME = "neuron-release-notes"
KIND = "release_notes"
_V = r"(\d+\.\d+\.\d+)"
# Where an SDK release's date was read, as its note says it, best first: the release's
# own page, then the release notes index, then the earlier-releases list.
ORIGINS = {"page": "date from the release's own page", "index": "date from the release notes index",
           "list": "date from the earlier-releases list", "component": "date from a component's release notes"}
AUTHORITY = {text: rank for rank, text in enumerate(reversed(ORIGINS.values()), start=1)}
# Component pages → product names for their release rows.
COMPONENT_PRODUCTS = {
    "pytorch": "torch-neuronx-xla", "compiler": "neuronx-cc", "jax": "jax-neuronx", "nki": "nki",
    "nki-lib": "nki-library", "nxd-inference": "neuronx-distributed-inference", "nxd-core": "neuronx-distributed",
    "nxd-training": "neuronx-distributed-training", "runtime": "neuron-runtime", "dev-tools": "neuron-tools",
    "containers": "neuron-dlc", "dlamis": "neuron-dlami", "vllm-neuron": "vllm-neuron",
    "agentic-development": "neuron-agentic-development",
}
INSTANCE = re.compile(r"``((?:Inf|Trn)\d+n?)``")


def _date(text: str, doc: Document, what: str) -> str:
    try:
        return parse_date(text)
    except DateError:
        raise ScrapeError(NAME, doc.name, f"{what}: unreadable date {text!r}") from None


def _release(doc: Document, version: str, date: str | None, origin: str, **fields) -> Release:
    return Release(product="neuron-sdk", version=version, date=date, sdk_version=version,
                   provenance=provenance(NAME, KIND, doc), note=ORIGINS[origin], **fields)


def release_page(doc: Document) -> list[Record]:
    """One SDK release's own page: its version, date and instance families."""
    title = rst.title(doc.text) or ""
    m = re.search(r"\bv?" + _V + r"\b", title)
    if not m or not re.search(r"Neuron", title):
        return []
    version = m[1]
    date = None
    for pattern in (r"\*\*(?:Date of release|Release Date)\*\*:\s*(.+?)\s*$",
                    r"On\s+(.+?\d{4}),\s+AWS Neuron released"):
        if found := re.search(pattern, doc.text, re.M | re.I):
            date = _date(found[1].strip("* "), doc, f"release {version}")
            break
    if date is None:
        raise ScrapeError(NAME, doc.name, f"release {version}: no release date found")
    notes = []
    described = rst.meta(doc.text).get("description", "")
    if (said := re.search(r"Release date:\s*([\d/]+)", described)) and _date(said[1], doc, "meta") != date:
        notes.append(f"the page's description says {_date(said[1], doc, 'meta')}")
    instances = sorted({i.lower() for i in INSTANCE.findall(doc.text)})
    record = _release(doc, version, date, "page", instance_families=tuple(instances))
    if notes:
        record = replace(record, note=record.note + "; " + "; ".join(notes))
    statements: list[Record] = []
    for section in rst.sections(doc.text):
        if re.search(r"end[- ]of[- ]support|no longer supported", section.title, re.I):
            statements += eol_windows(doc, rst.bullets(section.lines), date, sdk=version)
    return [record, *statements]


def earlier_releases(doc: Document) -> list[Record]:
    """The earlier-releases list: "Neuron 2.24.0 (06/24/2025)" headings and "Neuron
    2.29.1 was released as a patch for 2.29.0 on 5/1/2026" lines."""
    records: list[Record] = []
    for section in rst.sections(doc.text):
        if m := re.fullmatch(r"Neuron\s+" + _V + r"(?:\s+\w+)?\s*\(([^)]+)\)", section.title):
            records.append(_release(doc, m[1], _date(m[2], doc, f"release {m[1]}"), "list"))
        for line in section.lines:
            if p := re.search(r"Neuron\s+" + _V + r"\s+was released as a patch for\s+" + _V + r"\s+on\s+([\d/]+)", line):
                if p[1] != p[2]:  # the page once wrote "2.28.0 … patch for 2.28.0": not a fact about any release
                    records.append(_release(doc, p[1], _date(p[3], doc, f"release {p[1]}"), "list"))
    return records


def index_page(doc: Document) -> list[Record]:
    """The release notes index: versions and dates table, latest release, component versions."""
    records: list[Record] = []
    components: dict[str, str] = {}
    latest = None
    if m := re.search(r"On\s+\*\*([\d/]+)\*\*,\s+AWS released version\s+\*\*" + _V + r"\*\*", doc.text):
        latest = (m[2], _date(m[1], doc, "latest release"))
    for table in rst.list_tables(doc.text):
        if not table:
            continue
        header = [rst.plain(cell).lower() for cell in table[0]]
        if header[:2] == ["neuron version", "date released"]:
            for row in table[1:]:
                if len(row) >= 2 and (v := re.search(_V, rst.plain(row[0]))):
                    records.append(_release(doc, v[1], _date(rst.plain(row[1]), doc, f"release {v[1]}"), "index"))
        elif len(header) >= 3 and header[0] == "component" and "latest" in header[2]:
            for row in table[1:]:
                if len(row) >= 3:
                    components[rst.plain(row[0])] = rst.plain(row[2])
    if latest:
        records.append(_release(doc, latest[0], latest[1], "index", components=components or None))
    return records


def component_page(doc: Document) -> list[Record]:
    """Component notes: a release row per "<Component> [version] (Neuron X Release)"
    section, and for PyTorch its known issues (Limitation) and end-of-life bullets."""
    page = (doc.path or doc.url).rsplit("/", 1)[-1].split(".")[0]
    product = COMPONENT_PRODUCTS.get(page)
    records: list[Record] = []
    found = rst.sections(doc.text)
    for number, section in enumerate(found):
        m = re.search(r"(?:\[([^\]]+)\]\s*)?\(Neuron\s+" + _V + r"\s+Release\)", section.title)
        if not m:
            continue
        sdk = m[2]
        # The release's body runs to the next release heading (sub-sections included).
        body: list[str] = list(section.lines)
        for later in found[number + 1:]:
            if re.search(r"\(Neuron\s+" + _V + r"\s+Release\)", later.title):
                break
            body += [later.title, "-" * len(later.title), *later.lines]
        date = None
        for line in body:
            if d := re.match(r"^\s*\**Date of Release\**:?\**\s*(.+)$", line, re.I):
                date = _date(d[1].strip("* "), doc, f"{page} in {sdk}")
                break
        if page == "pytorch" and m[1] and (torch := re.match(r"(\d+\.\d+\.\d+)\.", m[1].strip())):
            # "PyTorch Framework [2.9.0.2.13.*]": this SDK release ships torch-neuronx for PyTorch 2.9.0.
            records.append(_release(doc, sdk, date, "component", torch_versions=(torch[1],)))
        if product and m[1] and "*" not in m[1]:
            records.append(Release(product=product, version=m[1].strip(), sdk_version=sdk, date=date,
                                   provenance=provenance(NAME, KIND, doc)))
        records += _component_statements(doc, page, sdk, date, body)
    return records


_EOL_WORDS = re.compile(r"end[- ]of[- ](?:life|support)|no longer support|reached end of", re.I)


def _split_head(item: str) -> tuple[str, str]:
    """("head", "rest") of a bullet written "**Head**: rest" or "Short head: rest"; the
    head is "" when the bullet is plain prose."""
    text = rst.plain(item)
    head, colon, rest = text.partition(":")
    if colon and (item.lstrip().startswith("**") or (len(head) < 90 and not re.search(r"\.\s", head))):
        return head.strip(), rest.strip()
    return "", text


# Component pages about machine images: what ends there is the image, not the product.
IMAGE_PAGES = {"dlamis": "neuron-dlami", "containers": "neuron-dlc"}


def _owner(page: str) -> str | None:
    """Whose support a component page's end-of-support bullet is about: "Python 3.9 no
    longer supported" in the compiler's notes ends neuronx-cc's Python 3.9 support, not
    Neuron's (the announcements say that); the PyTorch page speaks for PyTorch itself."""
    if page == "pytorch":
        return None
    return IMAGE_PAGES.get(page) or COMPONENT_PRODUCTS.get(page)


def eol_windows(doc: Document, items: list[str], date: str | None, owner: str | None = None,
                sdk: str | None = None) -> list[Record]:
    """SupportWindow rows for end-of-support bullets. A bullet with a head names its
    subject; a prose bullet counts only when it names a product kb knows (Python,
    Ubuntu, PyTorch...), so that sentences never become made-up product names."""
    records: list[Record] = []
    prov = provenance(NAME, KIND, doc)
    for item in items:
        head, rest = _split_head(item)
        if not _EOL_WORDS.search(rst.plain(item)):
            continue
        title = head or rest
        found = windows(title, rest if head else "", statement_date=date, provenance=prov, fallback_slug=slug(title))
        if not head:
            found = [w for w in found if w.product != "neuron-feature"]
            found = [dataclasses.replace(w, title=None) for w in found]
        if owner:
            found = [w if w.product in (owner, "neuron-feature") else
                     dataclasses.replace(w, product=owner, cycle=f"{w.product}-{w.cycle}") for w in found]
        if sdk:
            # Said as already ended in the notes of release X: it ends with X.
            found = [dataclasses.replace(w, eol_release=sdk) if w.eol_kind == "announced" and not w.eol_release else w
                     for w in found]
        records += found
    return records


def _parts(body: list[str]) -> dict[str, list[str]]:
    """Sub-section title (lower case) → its lines, within one release's body."""
    part = None
    blocks: dict[str, list[str]] = {}
    for number, line in enumerate(body):
        following = body[number + 1] if number + 1 < len(body) else ""
        if line.strip() and re.fullmatch(r"[\^~\-=]{3,}", following.strip()):
            part = line.strip().lower()
            continue
        if part:
            blocks.setdefault(part, []).append(line)
    return blocks


def _component_statements(doc: Document, page: str, sdk: str, date: str | None, body: list[str]) -> list[Record]:
    records: list[Record] = []
    prov = provenance(NAME, KIND, doc)
    for part, lines in _parts(body).items():
        items = rst.bullets(lines)
        if "known issue" in part:
            if page == "pytorch":
                for item in items:
                    head, _ = _split_head(item)
                    if head and item.lstrip().startswith("**"):
                        records.append(Limitation(target="neuron-xla", product="neuron-sdk", version=sdk,
                                                  feature=head, status="known issue", provenance=prov))
            continue
        records += eol_windows(doc, items, date, _owner(page), sdk)
    return records


def parse(doc: Document) -> list[Record]:
    path = doc.path or ""
    if "/components/" in f"/{path}" or "components/" in doc.url.split("release-notes/")[-1]:
        return component_page(doc)
    name = (path or doc.url).rsplit("/", 1)[-1]
    if name.startswith("rn."):
        return earlier_releases(doc)
    if re.search(r"(^|/)release-notes/index\.(rst|html)$", path or doc.url):
        return index_page(doc)
    records = release_page(doc)
    if not records and doc.text.strip():
        if not rst.title(doc.text):
            raise ScrapeError(NAME, doc.name, "no title found (empty or truncated page?)")
    return records


def reconcile(records: list[Record]) -> list[Record]:
    """One SDK release row per version: the most direct statement's, naming the other
    dates seen; the other records pass through."""
    sdk: dict[str, list[Release]] = {}
    out: list[Record] = []
    for record in records:
        if isinstance(record, Release) and record.product == "neuron-sdk":
            sdk.setdefault(record.version, []).append(record)
        else:
            out.append(record)
    for _version, rows in sdk.items():
        rows.sort(key=lambda r: -AUTHORITY.get((r.note or "").split(";")[0], 0))
        best = rows[0]
        others = sorted({(r.date, r.provenance.source_url) for r in rows[1:] if r.date and r.date != best.date})
        instances = tuple(sorted({i for r in rows for i in r.instance_families}))
        torch_versions = tuple(sorted({t for r in rows for t in r.torch_versions}))
        components = next((r.components for r in rows if r.components), None)
        note = best.note or ""
        if others:
            note += "; other dates: " + ", ".join(f"{d} ({url.rsplit('/', 1)[-1]})" for d, url in others)
        out.append(replace(best, instance_families=instances, torch_versions=torch_versions, components=components,
                           note=note.strip() or None))
    return out


def parse_many(documents: Sequence[Document]) -> list[Record]:
    records = [record for doc in documents for record in parse(doc)]
    unique = {dumps(record): record for record in records}  # a bullet repeated under two headings is one fact
    return reconcile(list(unique.values()))


PAGES = ("release-notes/index.rst", "release-notes/2.32.0.rst", "release-notes/2.31.1.rst",
         "release-notes/prev/rn.rst", "release-notes/prev/2.31.0.rst", "release-notes/prev/2.30.0.rst",
         "release-notes/prev/2.29.1.rst", "release-notes/prev/2.29.0.rst", "release-notes/prev/2.28.1.rst",
         "release-notes/prev/2.28.0.rst", "release-notes/prev/2.27.1.rst", "release-notes/prev/2.27.0/index.rst",
         "release-notes/prev/2.26.1.rst", "release-notes/prev/2.26.0/index.rst", "release-notes/prev/2.25.0/index.rst",
         *(f"release-notes/components/{page}.rst" for page in COMPONENT_PRODUCTS))

SOURCE = Source(
    name=NAME,
    description="Neuron SDK release notes: releases and dates, component versions, known issues, end-of-life notes",
    kind=KIND,
    urls=tuple(public_url(path) for path in PAGES),
    parse=parse,
    local_paths=("release-notes/index.rst", "release-notes/2.*.rst", "release-notes/prev/2.*.rst",
                 "release-notes/prev/2.*/index.rst", "release-notes/prev/rn.rst", "release-notes/components/*.rst"),
    parse_many=parse_many,
)
