"""The stand-in KB for the `kb check` tests: what a target would say, deliberately partial."""

from __future__ import annotations

from kb.check.resolve import Verdict
from tests.check import model_zoo

ZOO = model_zoo.__file__

TABLE = {
    "aten::t": Verdict("native", source_kind="static_probe"),
    "aten::addmm": Verdict("native", dtypes=("bfloat16", "float32"), source_kind="doc", source_url="https://example.test/ops"),
    "aten::mm": Verdict("native", source_kind="static_probe"),
    "aten::bmm": Verdict("native", source_kind="static_probe"),
    "aten::view": Verdict("native", source_kind="static_probe"),
    "aten::_unsafe_view": Verdict("native", source_kind="static_probe"),
    "aten::mul.Tensor": Verdict("native", source_kind="static_probe"),
    "aten::mean.dim": Verdict("native", source_kind="static_probe"),
    "aten::rsqrt": Verdict("native", source_kind="static_probe"),
    "aten::pow.Tensor_Scalar": Verdict("native", source_kind="static_probe"),
    "aten::add_.Scalar": Verdict("native", source_kind="static_probe"),
    "aten::add.Tensor": Verdict("native", source_kind="static_probe"),
    "aten::gelu": Verdict("fallback", source_kind="live_probe"),
    "aten::silu": Verdict("native", source_kind="live_probe"),
    "aten::relu": Verdict("native", source_kind="live_probe"),
    "aten::embedding": Verdict("native", source_kind="static_probe"),
    "aten::abs": Verdict("native", dtypes=("float32",), source_kind="doc", source_url="https://example.test/ops"),
    "aten::_fft_r2c": Verdict("unsupported", source_kind="doc", source_url="https://example.test/fft"),
}
TPU_TABLE = {**TABLE, "aten::gelu": Verdict("native", source_kind="doc"), "aten::_fft_r2c": Verdict("fallback", source_kind="doc")}


def lookup_for(target: str):
    return (TPU_TABLE if target == "tpu" else TABLE).get
