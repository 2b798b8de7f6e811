"""The test-expectation scraper over fixtures we wrote in the shapes it reads, served by a
local HTTP server: skip/xfail dicts (parsed with ast, never run), failing-test JSON lists,
host-fallback registrations; each row a field caveat pinned to the snapshot version."""

from __future__ import annotations

import pytest

from scrapers import test_expectations as te
from scrapers.base import Document, ScrapeError
from tests.scrapers.conftest import FIXTURES, Reply

DIR = FIXTURES / "test_expectations"


def fetch(server, client, name: str) -> Document:
    url = server.route(f"/repo/{name}", Reply(body=(DIR / name).read_text(encoding="utf-8")))
    fetched = client.get_text(url)
    return Document(url=url, text=fetched.text, retrieved_at=fetched.retrieved_at)


def test_skip_and_xfail_lists_become_caveats_by_reason(server, client):
    caveats = {c.op: c for c in te.scrape([fetch(server, client, "skip_ops.py")])}
    assert set(caveats) == {"aten::frobnicate", "aten::twiddle", "aten::wiggle", "aten::spin"}  # harness reason dropped
    assert caveats["aten::frobnicate"].kind == "compile_failure"
    assert caveats["aten::twiddle"].kind == "wrong_result" and caveats["aten::twiddle"].dtypes == ("bfloat16",)
    assert caveats["aten::wiggle"].phase == "backward"
    assert caveats["aten::spin"].kind == "error" and "expects to fail" in caveats["aten::spin"].statement
    for c in caveats.values():
        assert c.provenance.source_kind == "field" and c.provenance.source_url.endswith("/repo/skip_ops.py")
        assert c.min_version == c.max_version == te.SNAPSHOT_VERSION and c.family


def test_failing_test_lists_group_per_op_and_condition(server, client):
    caveats = te.scrape([fetch(server, client, "TestScatterGather.json")])
    got = {(c.op, str(c.conditions)): c for c in caveats}
    assert set(got) == {("aten::gather", "None"), ("aten::scatter_reduce", "{'reduce': 'mean'}")}
    assert got[("aten::gather", "None")].dtypes == ("bfloat16", "float32")
    assert got[("aten::scatter_reduce", "{'reduce': 'mean'}")].kind == "test_failure"
    assert "TestScatterGather" in got[("aten::gather", "None")].statement


def test_host_fallback_registrations(server, client):
    caveats = te.scrape([fetch(server, client, "cpu_fallback_registrations.py")])
    assert [(c.op, c.kind) for c in caveats] == [("aten::alpha_qr", "host_execution"),
                                                 ("aten::beta_inv.out", "host_execution")]


def test_bad_documents_fail_with_the_source_named():
    with pytest.raises(ScrapeError, match="not JSON"):
        te.parse(Document(url="https://x.test/TestA.json", text="{nope"))
    with pytest.raises(ScrapeError, match="no records"):
        te.scrape([Document(url="https://x.test/TestA.json", text='{"failed_tests": ["test_unmapped_neuron"]}')])


def test_spec_entries_named_by_test_become_caveats_with_dtype_and_condition(server, client):
    caveats = te.scrape([fetch(server, client, "acme_spec.json")])
    got = {(c.op, c.kind, c.phase): c for c in caveats}
    assert set(got) == {("aten::lerp", "error", None), ("aten::conv2d", "error", "backward"),
                        ("aten::replication_pad2d", "slow", None)}  # harness reason, pattern, unknown test dropped
    assert got[("aten::lerp", "error", None)].dtypes == ("complex64", "float64")
    assert got[("aten::conv2d", "error", "backward")].conditions == {"padding": "same"}
    for c in caveats:
        assert c.mode is None and c.min_version == c.max_version == te.SNAPSHOT_VERSION
        assert c.provenance.source_url.endswith("/repo/acme_spec.json")


def test_dynamo_spec_no_cpu_kernel_errors_become_compile_mode_caveats(server, client):
    caveats = te.scrape([fetch(server, client, "dynamo_spec.json")])
    assert [(c.op, c.kind, c.mode, c.phase) for c in caveats] == [
        ("aten::_frob_attention", "error", "compile", None),
        ("aten::_frob_attention_backward", "error", "compile", "backward")]
    assert "2 upstream test(s)" in caveats[0].statement and "no CPU kernel" in caveats[0].statement


def test_bad_spec_fails_with_the_source_named():
    with pytest.raises(ScrapeError, match="no test_configurations"):
        te.parse(Document(url="https://x.test/aten_spec.json", text="[]"))
