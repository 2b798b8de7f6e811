"""TorchNeuron compatibility table: markdown tables mapped by header meaning."""

import dataclasses

import pytest

from kb.store.records import OpStatus, Provenance
from scrapers import torchneuron_table
from scrapers.base import Document, ScrapeError
from scrapers.registry import fetch_documents
from tests.scrapers.conftest import Reply


def _source(url):
    return dataclasses.replace(torchneuron_table.SOURCE, urls=(url,))


def _by(records, op, mode="eager"):
    return [r for r in records if r.op == op and r.mode == mode]


def test_happy_path_over_http(server, client, fixture_text):
    url = server.route("/torch_api_compatibility.md", Reply(body=fixture_text("torch_api_compatibility.md")))
    docs = fetch_documents(_source(url), client)
    records = _source(url).scrape(docs)
    assert all(isinstance(r, OpStatus) and r.target == "neuron" and r.backend_version == "2.14.3.0" for r in records)
    add = _by(records, "aten::add")[0]
    assert add.status == "native" and add.dtypes == ("bfloat16", "float16", "float32")
    assert "labelled with TorchNeuron 2.14.3.0" in add.note
    assert add.provenance == Provenance(source_kind="doc", source_name="torchneuron-op-table", source_url=url,
                                        retrieved_at=add.provenance.retrieved_at,
                                        content_sha256=docs[0].sha256, tool_version=add.provenance.tool_version)
    assert _by(records, "aten::mul_")[0].status == "native"
    assert _by(records, "aten::nonzero")[0].status == "fallback"
    assert _by(records, "aten::nonzero", "compile")[0].status == "unsupported"
    assert _by(records, "aten::nonzero")[0].dtypes is None  # "all" is not a restriction
    gelu = _by(records, "aten::gelu")[0]
    assert gelu.status == "native" and gelu.conditions == {"partial": True} and "tanh" in gelu.note
    assert _by(records, "aten::linalg_solve")[0].status == "unsupported"
    assert not [r for r in records if "Linear" in r.op]  # a module class is not an ATen op
    assert {r.mode for r in records} == {"eager", "compile"}


def test_version_is_passed_in(fixture_text):
    doc = Document(url="https://example.test/t.md", text=fixture_text("torch_api_compatibility.md"))
    records = torchneuron_table.parse_table(doc, version="2.15.0.0", sdk=None)
    assert {r.backend_version for r in records} == {"2.15.0.0"}


def test_changed_headers_fail_naming_file_and_headers(fixture_text):
    doc = Document(url="https://example.test/torch_api_compatibility.md",
                   text=fixture_text("torch_api_compatibility_changed.md"))
    with pytest.raises(ScrapeError, match=r"torch_api_compatibility\.md.*'Kernel', 'Works\?', 'Precision'"):
        torchneuron_table.parse(doc)


def test_half_matching_headers_fail(fixture_text):
    doc = Document(url="u.md", text=fixture_text("torch_api_compatibility_half.md"))
    with pytest.raises(ScrapeError, match="headers not understood"):
        torchneuron_table.parse(doc)


def test_unknown_status_word_fails(fixture_text):
    doc = Document(url="u.md", text=fixture_text("torch_api_compatibility_word.md"))
    with pytest.raises(ScrapeError, match="unknown status 'sometimes'"):
        torchneuron_table.parse(doc)


def test_empty_page_fails(server, client):
    url = server.route("/empty.md", Reply(body=""))
    source = _source(url)
    with pytest.raises(ScrapeError, match="no markdown table"):
        source.scrape(fetch_documents(source, client))


def test_truncated_page_fails(fixture_text):
    text = fixture_text("torch_api_compatibility.md")
    cut = text[: text.index("## Elementwise")]
    with pytest.raises(ScrapeError, match="no operator table among the headers found"):
        torchneuron_table.parse(Document(url="u.md", text=cut))


@pytest.mark.parametrize("header, expected", [
    (["API", "Supported", "Notes"], (0, {"eager": 1}, None, 2)),
    (["PyTorch API", "Neuron Support", "Data Types", "Comments"], (0, {"eager": 1}, 2, 3)),
    (["Operator", "Eager", "torch.compile"], (0, {"eager": 1, "compile": 2}, None, None)),
    (["Function", "Status", "Limitations"], (0, {"eager": 1}, None, 2)),
    (["Kernel", "Works?"], (None, {}, None, None)),
])
def test_columns_by_meaning(header, expected):
    cols = torchneuron_table.columns(header)
    assert (cols.op, cols.status, cols.dtypes, cols.notes) == expected


@pytest.mark.parametrize("cell, status", [
    ("✅", "native"), ("✔️ Supported", "native"), ("Yes", "native"), ("⚠️", "partial"), ("Partial", "partial"),
    ("Supported (CPU fallback)", "fallback"), ("🔄", "fallback"), ("❌", "unsupported"), ("No", "unsupported"),
    ("Not supported", "unsupported"), ("Planned", "unsupported"), ("Decomposed", "decomposed"), ("", None), ("-", None),
])
def test_status_words_and_symbols(cell, status):
    assert torchneuron_table.status_of(cell) == status
