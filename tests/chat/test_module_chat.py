"""Chat about torch.nn modules: a module resolves the way a torch function does (the shipped
module map), and the answer says which ATen ops its forward dispatches and how each runs per
target, with sources — through the answering core, `kb ask`, and the MCP server over stdio."""

from __future__ import annotations

import json
import sys

import anyio
import pytest

from cli.entry import main
from kb.chat import intents
from kb.chat.answer import answer, find_ops
from tests.chat.conftest import REPO


@pytest.mark.parametrize("question, canonical", [
    ("does nn.MultiheadAttention work on tpu?", "torch.nn.MultiheadAttention"),
    ("can I use torch.nn.LSTM on neuron?", "torch.nn.LSTM"),
    ("is Linear native on tpu?", "torch.nn.Linear"),
    ("is `nn.SiLU` ok on trainium", "torch.nn.SiLU"),
    ("nn.GELU(approximate='tanh') on tpu", "torch.nn.GELU"),
])
def test_module_names_resolve(chat_conn, question, canonical):
    matches, missing, _ = find_ops(chat_conn, intents.read(question))
    (match,) = [m for m in matches if m.how == "module-map"]
    assert match.module.canonical == canonical and match.ops == list(dict.fromkeys(match.module.ops))
    assert not missing


def test_plain_op_words_stay_ops(chat_conn):
    matches, _, _ = find_ops(chat_conn, intents.read("is silu native on tpu?"))
    assert [m.how for m in matches] == ["exact"] and "aten::silu" in matches[0].ops


def test_gelu_module_on_tpu_falls_back(chat_conn):
    a = answer("does nn.GELU work on tpu?", conn=chat_conn)
    assert a.intent == "op"
    assert a.text.startswith("**It runs, but on the CPU** on tpu 0.2.0 — its one op, `aten::gelu`, falls back")
    assert "`torch.nn.GELU` is a module: its forward dispatches one ATen op" in a.text
    assert "tpu 0.2.0: 0 of 1 op run on the device, 1 fallback (aten::gelu)" in a.text
    assert any(f.get("module") == "torch.nn.GELU" and f.get("forward") == ["aten::gelu"] for f in a.facts)
    assert any(f.get("op") == "aten::gelu" and f.get("target") == "tpu" and f.get("status") == "fallback"
               for f in a.facts)
    assert any("tpu/" in (s.get("url") or "") for s in a.sources)


def test_silu_module_on_both_targets(chat_conn):
    a = answer("is nn.SiLU supported on neuron?", conn=chat_conn)
    assert a.text.startswith("**Yes** on neuron 2.14.3.0 — its one op, `aten::silu`, runs on the device")
    assert "✔ native: `aten::silu` [1]" in a.text and "**Sources**" in a.text


def test_module_without_evidence_names_its_ops_and_how_to_settle(chat_conn):
    a = answer("does nn.MultiheadAttention work on tpu?", conn=chat_conn)
    assert "its forward dispatches 14 ATen ops" in a.text and "`aten::bmm`" in a.text
    assert a.text.startswith("**Unknown** on tpu 0.2.0 for 13 of 14 ops")  # the fixture knows add.Tensor only
    assert "✔ native: `aten::add.Tensor` [1]" in a.text and "? unknown (no evidence): `aten::transpose.int`" in a.text


def test_a_misspelt_module_is_read_as_the_one_close_name(chat_conn):
    a = answer("does nn.MultiHeadAtention work on tpu?", conn=chat_conn)  # one letter off: read as it (29n)
    assert "_Read `nn.MultiHeadAtention` as `nn.MultiheadAttention`._" in a.text and "**unknown**" not in a.text


def test_a_module_name_far_from_any_is_missing_with_close_names(chat_conn):
    a = answer("does nn.MultiHeadAttn work on tpu?", conn=chat_conn)
    assert "Did you mean `nn.MultiheadAttention`?" in a.text and "**unknown**" in a.text


def test_kb_ask_json(chat_env, capsys):
    code = main(["ask", "--json", "does nn.GELU work on tpu?"])
    out = capsys.readouterr().out
    data = json.loads(out)
    assert code == 0 and data["intent"] == "op"
    assert any(f.get("module") == "torch.nn.GELU" for f in data["facts"])
    assert "1 fallback (aten::gelu)" in json.dumps(data) and data["sources"]


async def _session(env: dict[str, str]) -> dict:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "cli.entry", "mcp"], env=env, cwd=str(REPO))
    results = {}
    async with Client(params, read_timeout_seconds=60) as client:
        for label, tool, args in (
            ("status", "op_status", {"op": "nn.GELU", "target": "tpu"}),
            ("status_all", "op_status", {"op": "torch.nn.Linear"}),
            ("misspelt", "op_status", {"op": "nn.Lniear"}),
            ("search", "search", {"text": "multihead"}),
            ("ask", "ask", {"question": "can I use torch.nn.GELU on tpu?"}),
        ):
            results[label] = await client.call_tool(tool, args)
    return results


@pytest.mark.heavy  # starts `kb mcp` as a process (~4 s)
def test_mcp_over_stdio(chat_env):
    pytest.importorskip("mcp")
    results = anyio.run(_session, {**chat_env, "PATH": "/usr/bin:/bin"})
    status = results["status"].structured_content
    assert status["matched_as"][0]["how"] == "module-map" and status["ops"][0]["op"] == "aten::gelu"
    (module,) = status["modules"]
    assert module["name"] == "torch.nn.GELU" and module["forward"] == ["aten::gelu"]
    assert module["summary"][0]["line"] == "tpu 0.2.0: 0 of 1 op run on the device, 1 fallback (aten::gelu)"
    linear = results["status_all"].structured_content
    assert [o["op"] for o in linear["ops"]] == ["aten::view", "aten::t", "aten::addmm"]
    assert {s["target"] for s in linear["modules"][0]["summary"]} >= {"neuron", "tpu"}
    misspelt = results["misspelt"]  # one letter off: read as the close module (29n), the asked spelling kept
    assert not misspelt.is_error and misspelt.structured_content["matched_as"][0]["asked"] == "nn.Lniear"
    assert "torch.nn.Linear" in misspelt.structured_content["matched_as"][0]["note"]
    # and it says how it was read, as chat's "read as" line does
    assert misspelt.structured_content["matched_as"][0]["read_as"] == "nn.Linear"
    assert misspelt.structured_content["matched_as"][0]["note"].startswith("read 'nn.Lniear' as nn.Linear")
    assert results["search"].structured_content["modules"][0]["module"] == "torch.nn.MultiheadAttention"
    asked = results["ask"].structured_content
    assert "falls back" in json.dumps(asked) and "torch.nn.GELU" in json.dumps(asked)


@pytest.mark.parametrize("question, head", [
    ("does nn.GELU fall back on tpu?", "**Yes** on tpu 0.2.0 — `aten::gelu` (1 of its 1 op) falls back"),
    ("does nn.SiLU fall back on neuron?", "**No fallback: native** on neuron 2.14.3.0 — its one op, `aten::silu`, does not fall back"),
    ("is nn.SiLU native on tpu?", "**Yes** on tpu 0.2.0 — its one op has its own kernel"),
    ("is nn.GELU native on tpu?", "**No** on tpu 0.2.0 — `aten::gelu` falls back to the CPU"),
    ("does nn.GELU work on tpu?", "**It runs, but on the CPU** on tpu 0.2.0"),
])
def test_the_headline_answers_the_status_asked(chat_conn, question, head):
    assert answer(question, conn=chat_conn).text.startswith(head)
