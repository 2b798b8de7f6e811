"""Fixtures shared by the CLI tests."""

import pytest

from kb.store.ingest import ingest_records
from tests.conftest import op_status


@pytest.fixture
def filled(small_data, isolated_kb):
    """A small KB: add.Tensor and nonzero on neuron 2.14.3.0 and tpu 0.2.0, from two docs."""
    ingest_records(str(isolated_kb), [
        op_status("aten::add.Tensor", "native", target="neuron", version="2.14.3.0"),
        op_status("aten::add.Tensor", "fallback", target="tpu", version="0.2.0", name="tpu-doc",
                  url="https://example.test/tpu"),
        op_status("aten::nonzero", "fallback", target="neuron", version="2.14.3.0"),
        op_status("aten::nonzero", "native", target="tpu", version="0.2.0", name="tpu-doc"),
    ], source_name="doc")
    return isolated_kb
