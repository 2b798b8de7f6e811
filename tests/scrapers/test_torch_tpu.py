"""TorchTPU: op_names.cc switch and PyPI releases."""

import dataclasses

import pytest

from scrapers import torch_tpu_ops, torch_tpu_pypi
from scrapers.base import Document, ScrapeError
from scrapers.registry import fetch_documents
from tests.scrapers.conftest import Reply


def test_op_names_versioned_by_pypi(server, client, fixture_text):
    cc = server.route("/op_names.cc", Reply(body=fixture_text("op_names.cc")))
    pypi = server.route("/pypi/torch_tpu/json", Reply(body=fixture_text("torch_tpu_pypi.json")))
    source = dataclasses.replace(torch_tpu_ops.SOURCE, urls=(cc, pypi))
    records = source.scrape(fetch_documents(source, client))
    assert [r.op for r in records] == ["aten::add.out", "aten::add.Tensor", "aten::mm", "aten::relu_",
                                       "aten::native_layer_norm"]  # duplicate add.out dropped, default skipped
    assert {(r.target, r.status, r.backend_version) for r in records} == {("tpu", "native", "0.3.1")}
    assert records[0].detail == {"enum": "kAddOut", "listed_as": "add.out"}
    assert records[0].provenance.source_url == cc


def test_op_names_alone_uses_labelled_default(fixture_text):
    records = torch_tpu_ops.parse(Document(url="u", text=fixture_text("op_names.cc")))
    assert {r.backend_version for r in records} == {"0.2.0"} and "newest release known" in records[0].note


def test_op_names_changed_shape_fails():
    with pytest.raises(ScrapeError, match="no switch"):
        torch_tpu_ops.parse(Document(url="u", text="const char* names[] = {\"add.out\"};"))
    with pytest.raises(ScrapeError, match="no `case"):
        torch_tpu_ops.parse(Document(url="u", text="switch (x) { case 1: return \"add.out\"; }"))


def test_pypi_releases(fixture_text):
    records = torch_tpu_pypi.parse(Document(url="https://pypi.org/pypi/torch_tpu/json", text=fixture_text("torch_tpu_pypi.json")))
    by = {r.version: r for r in records}
    assert set(by) == {"0.1.0", "0.3.1"}  # yanked-only and empty versions are not releases
    assert by["0.3.1"].date == "2026-11-10" and by["0.3.1"].python_versions == ("3.11", "3.12")
    assert "torch<=2.16.0,>=2.12.0" in by["0.3.1"].note and by["0.1.0"].product == "torch_tpu"


def test_pypi_not_a_project():
    with pytest.raises(ScrapeError, match="not a PyPI project"):
        torch_tpu_pypi.parse(Document(url="u", text='{"message": "Not Found"}'))
