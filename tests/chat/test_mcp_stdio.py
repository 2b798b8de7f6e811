"""`kb mcp` as a real subprocess, driven over stdio by the official mcp SDK client."""

from __future__ import annotations

import sys

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from tests.chat.conftest import REPO  # noqa: E402

EXPECTED_TOOLS = {"op_status", "compare_targets", "end_of_support", "search", "ask", "check_model", "list_targets"}


async def _session(env: dict[str, str], models: dict):
    params = StdioServerParameters(command=sys.executable, args=["-m", "cli.entry", "mcp"], env=env, cwd=str(REPO))
    results: dict = {}
    async with Client(params, read_timeout_seconds=60) as client:
        results["tools"] = (await client.list_tools()).tools
        calls = [
            ("op_status", "op_status", {"op": "aten::nonzero", "target": "neuron", "version": "2.33"}),
            ("op_status_function", "op_status", {"op": "torch.nn.functional.gelu", "target": "tpu"}),
            ("op_status_typo", "op_status", {"op": "nonzeroo"}),
            ("op_status_unknown", "op_status", {"op": "aten::frobnicate"}),
            ("op_status_bad_version", "op_status", {"op": "nonzero", "target": "tpu", "version": "0.1.0"}),
            ("compare_targets", "compare_targets", {"targets": ["neuron", "tpu"], "only_differences": True}),
            ("end_of_support", "end_of_support", {"product": "pytorch", "version": "2.9"}),
            ("list_targets", "list_targets", {}),
            ("search", "search", {"text": "float64"}),
            ("search_ops", "search", {"text": "flash_attention"}),
            ("ask", "ask", {"question": "what's the difference between neuron and tpu for nonzero?"}),
            ("check_model", "check_model", {"path": str(models["exported"]), "targets": ["neuron", "tpu"]}),
            ("check_model_pickle", "check_model", {"path": str(models["pickled"])}),
        ]
        for label, tool, args in calls:
            results[label] = await client.call_tool(tool, args)
    return results


@pytest.fixture(scope="module")
def session_results(chat_kb_paths, model_files):
    db_path, data = chat_kb_paths
    env = {"KB_DB": str(db_path), "KB_DATA_DIR": str(data), "PYTHONPATH": str(REPO), "KB_CACHE_DIR": str(data.parent / "cache")}
    return anyio.run(_session, env, model_files)


def test_lists_read_only_tools_with_schemas(session_results):
    tools = {t.name: t for t in session_results["tools"]}
    assert EXPECTED_TOOLS <= set(tools)
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40
        assert tool.input_schema["type"] == "object"
        for prop in tool.input_schema.get("properties", {}).values():
            assert prop.get("description"), (tool.name, prop)
        assert tool.annotations.read_only_hint is True
        assert tool.output_schema is not None
    assert tools["op_status"].input_schema["required"] == ["op"]


def test_op_status(session_results):
    r = session_results["op_status"]
    assert not r.is_error
    data = r.structured_content
    assert data["backend_versions"] == ["2.13.3.0", "2.14.3.0"]
    (nonzero,) = [o for o in data["ops"] if o["op"] == "aten::nonzero"]
    assert {v["backend_version"] for v in nonzero["verdicts"]} == {"2.13.3.0", "2.14.3.0"}
    assert all(v["status"] == "fallback" and v["source_url"] for v in nonzero["verdicts"])


def test_op_status_function_and_typo(session_results):
    gelu = session_results["op_status_function"].structured_content
    assert gelu["matched_as"][0]["how"] == "function-map"
    assert gelu["ops"][0]["op"] == "aten::gelu" and gelu["ops"][0]["verdicts"][0]["status"] == "fallback"
    typo = session_results["op_status_typo"].structured_content
    assert typo["matched_as"][0]["how"] == "typo" and typo["ops"][0]["op"] == "aten::nonzero"


def test_op_status_errors_are_tool_errors(session_results):
    unknown = session_results["op_status_unknown"]
    assert unknown.is_error and "unknown operator" in unknown.content[0].text
    bad = session_results["op_status_bad_version"]
    assert bad.is_error and "0.2.0" in bad.content[0].text


def test_compare_eol_search_ask(session_results):
    cmp = session_results["compare_targets"].structured_content
    gelu = next(row for row in cmp["rows"] if row["op"] == "aten::gelu")
    assert (gelu["neuron"], gelu["tpu"]) == ("unknown", "fallback")
    assert gelu["effective"] == {"neuron": "unknown", "tpu": "fallback"} and gelu["basis"]["tpu"] == "evidence"
    eol = session_results["end_of_support"].structured_content
    assert [w["cycle"] for w in eol["windows"]] == ["2.9"] and eol["windows"][0]["eol_from"] == "2026-12-15"
    assert eol["windows"][0]["source_url"].startswith("https://")
    targets = {t["name"]: t for t in session_results["list_targets"].structured_content["targets"]}
    assert targets["neuron"]["versions"] == ["2.9.1.0", "2.13.3.0", "2.14.3.0"] and targets["tpu"]["latest"] == "0.2.0"
    found = session_results["search"].structured_content
    assert found["limitations"][0]["feature"] == "float64"
    ops = session_results["search_ops"].structured_content
    assert "aten::_scaled_dot_product_flash_attention" in ops["ops"]
    ask = session_results["ask"].structured_content
    assert ask["intent"] == "compare" and ask["sources"] and "aten::nonzero" in ask["text"]


def test_check_model(session_results):
    data = session_results["check_model"].structured_content
    by_target = {r["target"]: {o["op"]: o["status"] for o in r["ops"]} for r in data["reports"]}
    assert by_target["tpu"] == {"aten::gelu": "fallback", "aten::sigmoid": "unknown", "aten::add.Tensor": "native"}
    assert by_target["neuron"]["aten::sigmoid"] == "native" and by_target["neuron"]["aten::gelu"] == "unknown"
    refused = session_results["check_model_pickle"]
    assert refused.is_error and ("--trust" in refused.content[0].text or "TorchScript" in refused.content[0].text)
