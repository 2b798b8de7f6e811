"""The question bank and the new knowledge tools through `kb mcp`, started as a real
subprocess and driven over stdio by the official MCP client, on the shipped KB: the
`ask` tool gives the same answers as kb.chat.answer (same facts, same sources), and the
releases / limitations / families / diff tools return the facts those answers rest on."""

from __future__ import annotations

import sys

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from tests.chat.conftest import REPO  # noqa: E402
from tests.chat.question_bank import questions  # noqa: E402
from tests.chat.test_question_bank import PASS_RATE, check  # noqa: E402

TOOL_CALLS = [
    ("releases", {"product": "torch-neuronx"}),
    ("releases", {"product": "TorchTPU", "version": "0.2.0"}),
    ("releases", {"product": "neuron-sdk", "version": "2.33"}),
    ("limitations", {"target": "neuron", "feature": "fp64"}),
    ("limitations", {"target": "tpu", "feature": "float64"}),
    ("limitations", {"target": "neuron", "feature": "dynamic shapes"}),
    ("families", {}),
    ("families", {"family": "conv", "target": "tpu", "status": "unsupported"}),
    ("families", {"family": "cov"}),
    ("diff", {"target": "tpu", "old": "0.1.1", "new": "0.2.0"}),
    ("diff", {"target": "tpu", "old": "0.1.1", "new": "0.2.0", "family": "attention"}),
]


def _sample() -> list[tuple]:
    """The default suite asks every 24th question of the bank over MCP (the default suite's time); the
    heavy run asks the whole bank (test_whole_bank_through_mcp_ask)."""
    return questions()[::24]


async def _session(env: dict[str, str], bank: list[tuple]) -> dict:
    params = StdioServerParameters(command=sys.executable, args=["-m", "cli.entry", "mcp"], env=env, cwd=str(REPO))
    out: dict = {"asked": [], "tools": []}
    async with Client(params, read_timeout_seconds=120) as client:
        out["listed"] = {t.name: t for t in (await client.list_tools()).tools}
        for question, *_ in bank:
            out["asked"].append(await client.call_tool("ask", {"question": question}))
        for name, args in TOOL_CALLS:
            out["tools"].append(await client.call_tool(name, args))
    return out


def _env(shipped_kb: str, shipped_cache: str) -> dict[str, str]:
    return {"KB_DB": shipped_kb, "PYTHONPATH": str(REPO), "KB_CACHE_DIR": shipped_cache}


@pytest.fixture(scope="module")
def mcp_results(shipped_kb, shipped_cache):
    return anyio.run(_session, _env(shipped_kb, shipped_cache), _sample())


@pytest.mark.heavy  # a real MCP server over stdio, ~16 s; test_mcp_stdio and the bank sample over MCP stay in the default suite
def test_new_tools_are_listed_and_documented(mcp_results):
    tools = mcp_results["listed"]
    for name in ("releases", "limitations", "families", "diff"):
        tool = tools[name]
        assert tool.description and len(tool.description) > 120, name
        assert tool.annotations.read_only_hint is True and tool.output_schema is not None
        for prop in tool.input_schema.get("properties", {}).values():
            assert prop.get("description"), (name, prop)


def _assert_bank_passes(bank: list[tuple], asked: list) -> None:
    failures = []
    for (question, facts, source, intent), result in zip(bank, asked, strict=True):
        problems = ["tool error"] if result.is_error else check(result.structured_content, facts, source, intent)
        if problems:
            failures.append((question, problems))
    rate = 1 - len(failures) / len(bank)
    print(f"\nquestion bank over MCP: {len(bank) - len(failures)}/{len(bank)} pass ({rate:.1%})")
    for question, problems in failures:
        print(f"  FAIL {question!r}: {'; '.join(problems)}")
    assert rate >= PASS_RATE, failures


@pytest.mark.heavy  # a real MCP server over stdio, ~16 s; test_mcp_stdio and the bank sample over MCP stay in the default suite
def test_bank_sample_through_mcp_ask(mcp_results):
    _assert_bank_passes(_sample(), mcp_results["asked"])


@pytest.mark.heavy
def test_whole_bank_through_mcp_ask(shipped_kb, shipped_cache):
    _assert_bank_passes(questions(), anyio.run(_session, _env(shipped_kb, shipped_cache), questions())["asked"])


def test_knowledge_tools_return_the_facts(mcp_results):
    r = [t.structured_content if not t.is_error else t for t in mcp_results["tools"]]
    neuronx, tpu, sdk = r[0], r[1], r[2]
    assert neuronx["product"] == "torchneuron" and neuronx["latest"] == "2.14.3.1"
    assert neuronx["other_readings"] == ["torch-neuronx-xla"]
    assert neuronx["releases"][0]["python_versions"] == ["3.12", "3.13", "3.14"]
    assert neuronx["releases"][0]["source_url"].endswith("release-notes/components/torchao-neuron.html")  # 2.14.3.1, Neuron 2.34
    assert tpu["releases"][0]["version"] == "0.2.0" and "pypi.org" in tpu["releases"][0]["source_url"]
    assert {c["version"] for c in sdk["in_sdk"] if c["product"] == "torchneuron"} == {"2.13.3.0", "2.14.3.0"}
    fp64, tpu64, dynamic = r[3], r[4], r[5]
    assert [(x["feature"], x["status"]) for x in fp64["limitations"]] == [("float64", "runs as float32")]
    assert tpu64["limitations"] == [] and "unknown" in tpu64["note"]
    assert dynamic["limitations"][0]["feature"] == "torch.compile dynamic=True"
    listing, conv, cov = r[6], r[7], mcp_results["tools"][8]
    assert {"convolution", "attention", "normalization", "fft"} <= {f["family"] for f in listing["families"]}
    assert conv["family"] == "convolution" and conv["backend_version"] == "0.2.0"
    assert conv["counts_by_effective_status"]["unsupported"] == len(conv["ops"]) > 0
    assert all(op["effective_status"] == "unsupported" and op["probe_run_id"] for op in conv["ops"])
    assert not any("cov" == op["op"][6:].split(".")[0] for op in conv["ops"])
    assert cov.is_error and "no op family 'cov'" in cov.content[0].text  # no letter-by-letter matching
    diff, attention = r[9], r[10]
    assert diff["totals"] == {"gained": 166, "lost": 2, "changed": 92}
    assert {row["op"] for row in diff["lost"]} == {"aten::_scaled_dot_product_flash_attention",
                                                    "aten::_scaled_dot_product_efficient_attention"}
    assert attention["totals"]["lost"] == 2 and attention["family"] == "attention"
