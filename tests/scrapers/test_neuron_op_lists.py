"""Legacy Neuron operator lists: torch-neuronx (XLA) and Inf1 torch-neuron history."""

import dataclasses

import pytest

from scrapers import neuron_inf1_ops, neuron_xla_ops
from scrapers.base import Document, ScrapeError
from scrapers.registry import fetch_documents, local_documents
from tests.scrapers.conftest import Reply

XLA_PAGE = "frameworks/torch/torch-neuronx/pytorch-neuron-supported-operators.rst"
MANIFEST = "src/helperscripts/n2-manifest.json"
INF1 = "release-notes/archive/neuron-cc/neuron-cc-ops/neuron-cc-ops-pytorch.rst"


def test_xla_list_over_http_takes_version_from_manifest(server, client, neuron_docs_fixture):
    page = server.route("/ops.rst", Reply(body=(neuron_docs_fixture / XLA_PAGE).read_text()))
    manifest = server.route("/n2-manifest.json", Reply(body=(neuron_docs_fixture / MANIFEST).read_text()))
    source = dataclasses.replace(neuron_xla_ops.SOURCE, urls=(page, manifest))
    records = source.scrape(fetch_documents(source, client))
    assert [r.op for r in records] == ["aten::add", "aten::addcmul_", "aten::mm", "aten::native_layer_norm", "aten::relu"]
    first = records[0]
    assert (first.target, first.status, first.backend_version) == ("neuron-xla", "native", "2.10.0.2.20.111")
    assert first.torch_version == "2.10.0" and "SDK 2.39.0" in first.note
    assert first.provenance.source_url == page


def test_xla_list_needs_the_manifest(neuron_docs_fixture):
    source = neuron_xla_ops.SOURCE
    docs = local_documents(source, str(neuron_docs_fixture / XLA_PAGE))
    with pytest.raises(ScrapeError, match="needs both the operator page"):
        source.scrape(docs)


def test_xla_list_empty_and_truncated(neuron_docs_fixture):
    text = (neuron_docs_fixture / XLA_PAGE).read_text()
    with pytest.raises(ScrapeError, match="no ATen operator list"):
        neuron_xla_ops.op_names(Document(url="u", text=""))
    truncated = text[: text.index("+---")]  # the page stops before its table
    with pytest.raises(ScrapeError):
        neuron_xla_ops.op_names(Document(url="u", text=truncated))


def test_inf1_history(neuron_docs_fixture):
    docs = local_documents(neuron_inf1_ops.SOURCE, str(neuron_docs_fixture))
    assert docs[0].url.endswith("/neuron-cc-ops/neuron-cc-ops-pytorch.html")
    records = neuron_inf1_ops.SOURCE.scrape(docs)
    by_op = {r.op: r for r in records}
    assert set(by_op) == {"aten::cumsum", "aten::norm", "aten::gelu", "aten::matmul", "aten::erf"}  # prim:: skipped
    assert by_op["aten::cumsum"].backend_version == "3.1.0.0"
    assert by_op["aten::cumsum"].detail["sdk_version"] == "2.40.0"
    assert by_op["aten::norm"].conditions == {"p": ["1", "2", "inf"]}
    assert by_op["aten::erf"].status == "unsupported" and "removed in torch-neuron 3.0.0.0" in by_op["aten::erf"].note
    assert by_op["aten::gelu"].detail["release_date"] == "2026-06-01"
    assert {r.target for r in records} == {"inf1"}


def test_inf1_empty_page_fails():
    with pytest.raises(ScrapeError, match="no records"):
        neuron_inf1_ops.SOURCE.scrape([Document(url="u", text="Title\n=====\n\nnothing\n")])


# --- acceptance against the real documents -------------------------------------------

def test_real_xla_list(neuron_docs):
    records = neuron_xla_ops.SOURCE.scrape(local_documents(neuron_xla_ops.SOURCE, str(neuron_docs)))
    assert len(records) == 41
    assert {r.backend_version for r in records} == {"2.9.0.2.15.32035"}
    assert "aten::zero_" in {r.op for r in records}
    assert records[0].provenance.source_url.endswith("/pytorch-neuron-supported-operators.html")


def test_real_inf1_history(neuron_docs):
    records = neuron_inf1_ops.SOURCE.scrape(local_documents(neuron_inf1_ops.SOURCE, str(neuron_docs)))
    by = {(r.op, r.backend_version): r for r in records}
    assert by[("aten::clamp_min", "2.9.1.0")].status == "native"
    assert by[("aten::embedding", "1.0.1001.0")].status == "unsupported"
    assert by[("aten::norm", "2.5.0.0")].conditions["p"][:2] == ["1", "2"]
    assert len(records) > 150
