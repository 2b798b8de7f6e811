"""The web op page's search takes a torch.nn module: `/-/op?q=nn.SiLU` shows the module (how
it was traced, one line per target, its ops × targets) above each op's verdict table."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from kb.serve import launch as serve
from tests.serve.test_serve_app import fetch


@pytest.mark.parametrize("spelling", ["nn.SiLU", "torch.nn.SiLU", "SiLU"])
def test_module_page(kb_file, spelling):
    (page,) = fetch(serve.make_datasette(kb_file), "/-/op?" + urlencode({"q": spelling}))
    assert page.status_code == 200, page.text
    text = page.text
    assert "torch.nn.SiLU <small>(a torch.nn module)</small>" in text
    assert "<code>SiLU()</code> on float32[2, 4, 16] (meta tensors" in text and "modules/torch-2.13.0.json" in text
    assert "<td>neuron</td><td>1 of 1 op native</td>" in text  # one line per target
    assert "0 of 1 op run on the device, 1 fallback (aten::silu)" in text  # tpu: silu falls back in the fixture
    assert '<a href="#aten%3A%3Asilu">aten::silu</a>' in text and "kb-fallback" in text
    assert "<h2>aten::silu</h2>" in text  # the op's own verdict table follows


def test_module_with_ops_outside_the_catalog_and_unknown_module(kb_file):
    ds = serve.make_datasette(kb_file)
    (page,) = fetch(ds, "/-/op?" + urlencode({"q": "nn.MultiheadAttention"}))
    assert page.status_code == 200 and "torch.nn.MultiheadAttention" in page.text
    assert "<h2>aten::bmm</h2>" in page.text and "no evidence" in page.text
    (missing,) = fetch(ds, "/-/op?" + urlencode({"q": "nn.MultiHeadAtention"}))
    assert missing.status_code == 404 and "torch.nn.MultiheadAttention" in missing.text


def test_module_strings_from_a_foreign_map_are_escaped(kb_file, tmp_path, monkeypatch):
    import json
    import os
    import shutil

    data = tmp_path / "foreign"
    shutil.copytree(os.environ["KB_DATA_DIR"], data)
    (data / "modules").mkdir(exist_ok=True)
    (data / "modules" / "torch-9.0.0.json").write_text(json.dumps({"torch_version": "9.0.0", "modules": {
        "torch.nn.Evil": {"forward": ["aten::silu"], "constructor": "<script>alert(1)</script>", "inputs": ["<b>x</b>"],
                          "device": "meta"}}}), encoding="utf-8")
    monkeypatch.setenv("KB_DATA_DIR", str(data))
    (page,) = fetch(serve.make_datasette(kb_file), "/-/op?q=nn.Evil")
    assert page.status_code == 200
    assert "<script>alert" not in page.text and "&lt;script&gt;" in page.text and "<b>x</b>" not in page.text
