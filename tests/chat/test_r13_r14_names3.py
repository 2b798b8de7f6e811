"""Slice s8c-names3 (issue #29): names, versions and figures of held-out rounds 13 and 14, in our own words.
A version glued to its target ("tpu0.2", "neuron2.34", "py3.10") is that target at that version; spaced norm
names are their op or module, never aten::norm; a function whose own ATen op has a kernel on the asked target
answers that op; a call's names pick the overload by their count; a figure before tok/s is a rate; a newest
release that lost a kernel says which release had it."""

from __future__ import annotations

import pytest

from kb.chat import entities
from kb.chat.intents import read
from tests.chat.phrasings import ask


@pytest.mark.parametrize(("text", "target", "version"), [
    ("does tpu0.1.1 have its own kernel for aten::cumsum?", "tpu", "0.1.1"),
    ("¿neuron2.34 corre aten::gelu nativo?", "neuron", "2.34"),
])
def test_a_glued_version_is_the_targets(text, target, version):
    q = read(entities.extract(text).english)
    assert [(m.target, m.version) for m in q.targets] == [(target, version)]


@pytest.mark.parametrize("text", ["when does py3.10 stop being supported by neuron?", "python3.10 eol neuron?"])
def test_a_glued_python_version_is_python(text):
    assert "python 3.10" in entities.extract(text).english


@pytest.mark.parametrize(("text", "wanted", "unwanted"), [
    ("aten::_scaled_dot_product_efficient_attention still native on tpu0.2?", "lost in 0.2.0", "**neuron"),
    ("¿F.rms_norm tiene kernel propio en tpu0.2?", "`aten::rms_norm`", "**`aten::pow"),
    ("does torch.where(cond, a, b) stay on the device with torch_tpu 0.2.0?", "`aten::where.self`", "aten::nonzero"),
    ("is torch.minimum-style torch.min(x, y) native on trainium?", "`aten::min.other`", "zzz"),
    ("torch.repeat_interleave(x, counts) on tpu: since which version?", "aten::repeat_interleave.self_Tensor", "aten::view"),
    ("does batch-norm stay on the tpu?", "torch.nn.BatchNorm2d", "aten::norm"),
    ("¿la layer norm es nativa en neuron?", "torch.nn.LayerNorm", "aten::norm"),
    ("rms norm on tpu 0.2.0: own kernel?", "`aten::rms_norm`", "aten::norm."),
    ("cost per 1M tokens for trn1 at 1.34/h, usd 900 tok/s", "1.34 USD an hour and 900 tokens/s", "zzz"),
])
def test_answers(conn, text, wanted, unwanted):
    body = ask(conn, text)["text"]
    assert wanted in body and unwanted not in body


def test_an_image_is_no_op():
    assert "image" not in read("which torch does the tpu image need for torch_tpu 0.2.0?").plain_words
