"""TorchTPU op-test expectations over a fixture we wrote in the shape of its op-test module,
served by a local HTTP server: exclusions the comments blame on TPU become dtype caveats,
gradient checks turned off for a missing backward op become backward caveats, all pinned to
TorchTPU 0.1.1; exclusions about the reference device or a wrongly succeeding op do not."""

from __future__ import annotations

import pytest

from scrapers import registry
from scrapers import torch_tpu_test_expectations as tt
from scrapers.base import Document, ScrapeError
from tests.scrapers.conftest import FIXTURES, Reply

DIR = FIXTURES / "torch_tpu_tests"


def fetch(server, client) -> Document:
    url = server.route("/repo/tests/ops_test.py", Reply(body=(DIR / tt.PATH).read_text(encoding="utf-8")))
    fetched = client.get_text(url)
    return Document(url=url, text=fetched.text, retrieved_at=fetched.retrieved_at)


def test_exclusions_and_missing_backward_ops_become_tpu_caveats(server, client):
    caveats = tt.scrape([fetch(server, client)])
    got = {(c.op, c.kind, c.phase, c.dtypes) for c in caveats}
    assert got == {
        ("aten::frob", "error", None, ("complex128", "complex64")),
        ("aten::frob", "wrong_result", None, ("int64",)),
        ("aten::twist", "error", "backward", None),
        ("aten::twist", "error", None, ("float64",)),  # the "cpu" entry; the GPU-only one is dropped
        ("aten::_foreach_wobble", "wrong_result", None, None),  # skipped outright
    }  # spin: "succeeding ... should fail" and a gradient check off without a reason; pad: no single op
    backward = next(c for c in caveats if c.phase == "backward")
    assert "twist_backward" in backward.statement
    for c in caveats:
        assert c.target == "tpu" and c.family and c.min_version == c.max_version == tt.VERSION
        assert c.provenance.source_kind == "field" and c.provenance.source_url.endswith("/repo/tests/ops_test.py")


def test_opinfo_names_map_to_aten_families():
    assert tt.aten_name("nn.functional.gelu") == "aten::gelu"
    assert tt.aten_name("linalg.vector_norm") == "aten::linalg_vector_norm"
    assert tt.aten_name("torch.ops.aten._safe_softmax.default") == "aten::_safe_softmax"
    assert tt.aten_name("nn.functional.pad") is None


def test_not_python_fails_with_the_source_named():
    with pytest.raises(ScrapeError, match="not Python"):
        tt.parse(Document(url="https://x.test/ops_test.py", text="def (:"))


def test_a_local_checkout_is_found_by_the_registry_under_the_public_url():
    docs = registry.local_documents(registry.get_source(tt.NAME), str(DIR))
    assert [d.url for d in docs] == [tt.REPO + tt.PATH]
    assert {c.op for c in registry.get_source(tt.NAME).scrape(docs)} >= {"aten::frob", "aten::twist"}
