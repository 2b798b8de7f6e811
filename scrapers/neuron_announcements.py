"""Neuron end-of-support announcements (`about-neuron/announcements/neuron2.x/`:
`announce-eos-*`, `announce-intent-eos-*`, `end-of-support-*`, "no longer supports"
and maintenance-mode pages) → `SupportWindow` rows, one per product cycle a page ends.

Each page is an ABlog post: `.. post:: <date>` (the statement date), a title that
usually says what ends and when, and a first paragraph that says it again. Vendors
re-announce the same end (intent, then notice, then an edited notice); every page
becomes its own row with its statement date, and the newest statement wins in the KB.
"""

from __future__ import annotations

import re

from kb.store.records import Record
from scrapers import rst
from scrapers.base import Document, ScrapeError, Source, provenance
from scrapers.dates import DateError, parse_date
from scrapers.neuron_docs import public_url
from scrapers.support_statements import windows

NAME = "neuron-eos-announcements"
FOLDER = "about-neuron/announcements/neuron2.x/"
PATTERNS = (
    "announce-eos-*.rst", "announce-intent-eos-*.rst", "announce-intent-eol-*.rst", "end-of-support-*.rst",
    "announcement-end-of-support-*.rst", "announce-eol-*.rst", "announce-no-longer-support-*.rst",
    "announce-no-support-*.rst", "announcement-python-*-eol.rst", "announce-python*-no-longer-support.rst",
    "announce-maintenance-*.rst", "announce-intent-maintenance-*.rst", "announce-deprecation-*.rst",
)
# The pages these patterns matched in the aws-neuron-sdk repository (2026-08), for live
# fetching; a local docs folder is globbed with PATTERNS instead.
KNOWN_PAGES = """
announce-deprecation-containers-rtd announce-deprecation-nxd-path-trace-api announce-deprecation-transformer-flag
announce-eol-megatron-lm announce-eol-python-3-7 announce-eol-ubuntu-18 announce-eos-al2
announce-eos-beta-pytorch-neuroncore-placement-apis announce-eos-bf16-vars announce-eos-block-dimension-nki
announce-eos-dlami-ubuntu-22-04 announce-eos-dlami announce-eos-implicit-async-mode announce-eos-inf1-virtual-environments
announce-eos-jax-neuronx-nki-call announce-eos-megatronlm-2-13 announce-eos-mllama-checkpoint
announce-eos-multiframework-dlamis-inf1 announce-eos-nemo announce-eos-neuron-det announce-eos-neuron-driver-support-inf1
announce-eos-neuron-profiler-2 announce-eos-neuron-profiler-v230 announce-eos-neuron-profiler
announce-eos-neurondevice-version announce-eos-neurondevice announce-eos-nxd-examples announce-eos-nxdt-nxd-core-training
announce-eos-probuf announce-eos-pt-versions announce-eos-pt2 announce-eos-python38 announce-eos-pytorch-1-1-3
announce-eos-pytorch-1-9 announce-eos-pytorch-2-1 announce-eos-pytorch-2-7-2-8-v229 announce-eos-pytorch-2-7-2-8
announce-eos-pytorch-profiling-api announce-eos-tensorboard-tools announce-eos-tensorflow-2-8-9 announce-eos-tensorflow-inf2
announce-eos-tensorflow1-x announce-eos-torch-neuron announce-eos-torch-neuronx-nki-jit announce-eos-u20-dlamis
announce-eos-ubuntu-22-04-dlami-dlc announce-eos-xla-bf16 announce-intent-eol-nemo-arg announce-intent-eos-nki-spmd-launch-grid
announce-intent-eos-opt announce-intent-eos-pt-version announce-intent-eos-pt2-6 announce-intent-eos-tensorflow-tutorial-inf
announce-intent-eos-tnx announce-intent-maintenance-tnx announce-maintenance-gpsimd-customop-lib announce-maintenance-mxnet
announce-maintenance-nxdi-nxd-core-inference announce-maintenance-nxdt-nxd-core-training
announce-maintenance-pytorch-xla-inference announce-maintenance-tf announce-no-longer-support-neuron-det
announce-no-longer-support-neuron-profiler announce-no-longer-support-nxd-examples announce-no-longer-support-pytorch-113
announce-no-longer-support-pytorch-2-1 announce-no-longer-support-pytorch-2-7-2-8 announce-no-longer-support-tensorflow-inf2
announce-no-longer-support-u20-dlc-dlami announce-no-support-al2 announce-no-support-device-version
announce-no-support-implicit-async-mode announce-no-support-jax-0-7 announce-no-support-jax-neuronx-nki-call
announce-no-support-llama3-2-checkpoint announce-no-support-nemo-megatron announce-no-support-neurondevice
announce-no-support-nki-jit-torch announce-no-support-pytorch-xla-training announce-no-support-tensorboard-plugin
announce-no-support-tensorflow1-x announce-no-support-tensorflow2-10 announce-no-support-tf-versions
announce-no-support-torch-neuron-versions announce-no-support-ubuntu-20-base announce-no-support-vllm-v0
announce-python38-no-longer-support announcement-end-of-support-neuronxcc-nki announcement-end-of-support-nxdt-nxd-core
announce-no-longer-support-neuron-profiler announcement-end-of-support-parallel-model-trace
announcement-end-of-support-pytorch-2-6 announcement-end-of-support-vllm-v0 announcement-python-3-10-eol
announcement-python-3-9-eol end-of-support-pt2
""".split()

_PREFIX = re.compile(r"^(?:announce(?:ment)?-)?(?:intent-)?(?:eos-|eol-|end-of-support-|no-longer-support-|no-support-|"
                     r"maintenance-|deprecation-|no-longer-include-)?")


def _slug_from(doc: Document) -> str:
    name = (doc.path or doc.url).rsplit("/", 1)[-1]
    name = re.sub(r"\.(rst|html|rst\.txt|txt)$", "", name)
    return _PREFIX.sub("", name) or name


def first_paragraph(lines: list[str]) -> str:
    """The first prose paragraph after the title (skipping directives and labels)."""
    paragraph: list[str] = []
    for line in lines:
        if not line.strip():
            if paragraph:
                break
            continue
        if line.startswith("..") or (line.startswith(" ") and not paragraph):
            continue
        paragraph.append(line.strip())
    return rst.plain(" ".join(paragraph))


def parse(doc: Document) -> list[Record]:
    found = rst.sections(doc.text)
    if not found:
        raise ScrapeError(NAME, doc.name, "no title found (not an announcement page?)")
    title = rst.plain(found[0].title)
    raw_date = rst.post_date(doc.text)
    statement_date = None
    if raw_date:
        try:
            statement_date = parse_date(raw_date)
        except DateError:
            raise ScrapeError(NAME, doc.name, f"unreadable post date {raw_date!r}") from None
    body = first_paragraph(found[0].lines)
    if not body and len(doc.text.strip()) < 200:
        raise ScrapeError(NAME, doc.name, "the page has a title but no text (truncated?)")
    return list(windows(title, body, statement_date=statement_date, provenance=provenance(NAME, "doc", doc),
                        fallback_slug=_slug_from(doc)))


SOURCE = Source(
    name=NAME,
    description="Neuron end-of-support, intent and maintenance-mode announcements",
    kind="doc",
    urls=tuple(public_url(FOLDER + page + ".rst") for page in dict.fromkeys(KNOWN_PAGES)),
    parse=parse,
    local_paths=tuple(FOLDER + pattern for pattern in PATTERNS),
)
