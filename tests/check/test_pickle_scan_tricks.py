"""The pickle scan must name the globals the real unpickler would import, also when a
pickle plays tricks with the memo or the extension registry (found by an attack run)."""

from __future__ import annotations

from kb.check.model_formats import COMPUTED_GLOBAL, pickle_globals

MEMOIZE = b"\x94"


def _text(value: str) -> bytes:
    raw = value.encode()
    return b"\x8c" + bytes([len(raw)]) + raw  # SHORT_BINUNICODE


def test_a_proto_in_the_middle_does_not_reset_the_memo():
    # the unpickler keeps its memo across a second PROTO, so BINGET 0/1 fetch "os", "system"
    data = (b"\x80\x04" + _text("os") + MEMOIZE + _text("system") + MEMOIZE
            + b"\x80\x04" + _text("collections") + MEMOIZE + _text("OrderedDict") + MEMOIZE
            + b"h\x00h\x01\x93" + _text("true") + b"\x85R.")
    assert pickle_globals(data) == ["os.system"]


def test_an_extension_code_is_a_computed_global():
    assert pickle_globals(b"\x80\x02\x82\x01)R.") == [COMPUTED_GLOBAL]


def test_each_pickle_of_a_legacy_file_starts_with_an_empty_memo():
    first = b"\x80\x02" + _text("collections") + MEMOIZE + _text("OrderedDict") + MEMOIZE + b"h\x00h\x01\x93)R."
    second = b"\x80\x02h\x00h\x01\x93)R."  # gets of an empty memo: names unknown, so computed
    assert pickle_globals(first + second) == ["collections.OrderedDict", COMPUTED_GLOBAL]
