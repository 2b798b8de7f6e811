"""`kb ask` / MCP: "is X slow or broken on Y?" answered from field caveats, with the
source, inside the caveat's version range only, and with the verdicts left as they are."""

from __future__ import annotations

from kb.chat import intents
from kb.chat.answer import answer
from tests.chat.conftest import BENCH


def test_slow_questions_are_caveat_questions():
    assert intents.read("is gelu slow on trainium?").intent == "caveat"
    assert intents.read("is torch._scaled_mm broken on trn2?").intent == "caveat"
    assert intents.read("is gelu native on trainium?").intent == "op"


def test_is_gelu_slow_on_neuron_cites_the_measurement(chat_conn):
    a = answer("is gelu slow on trainium?", conn=chat_conn)
    assert a.intent == "caveat"
    assert any(f.get("kind") == "slow" and f.get("source_url") == BENCH for f in a.facts), a.facts
    assert "14 x slower than silu" in a.text and any(s["url"] == BENCH for s in a.sources)
    assert "do not change them" in a.text  # the verdict section follows, unchanged


def test_outside_the_range_or_elsewhere_there_is_no_caveat(chat_conn):
    old = answer("is gelu slow on neuron 2.9.1?", conn=chat_conn)
    assert any(f.get("caveats") == 0 for f in old.facts) and "No known issue" in old.text
    tpu = answer("is gelu slow on tpu?", conn=chat_conn)
    assert "No known issue recorded for `gelu` on tpu" in tpu.text


def test_mcp_op_status_carries_caveats(chat_conn):
    from kb.chat.mcp_server import op_status_data

    data = op_status_data(chat_conn, "aten::gelu", target="neuron")
    (gelu,) = [o for o in data["ops"] if o["op"] == "aten::gelu"]
    assert [c["kind"] for c in gelu["caveats"]] == ["slow"] and gelu["caveats"][0]["source_url"] == BENCH
