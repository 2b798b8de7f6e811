"""Model questions in chat and MCP answered from the gallery, with the gallery entry and the
verdicts' sources cited; and the gallery pages of kb serve."""

from __future__ import annotations

import json
import sys

import pytest

from kb.chat.answer_gallery import find_models, gallery_answer
from kb.store import db
from tests.conftest import REPO, run_kb
from tests.gallery.conftest import NEURON_DOC, TINY_SOURCE

NAMES = {"mixtral-8x7b": "Mixtral 8x7B", "llama-3.1-70b": "Llama 3.1 70B", "llama-3.1-8b": "Llama 3.1 8B",
         "llama-3.2-1b": "Llama 3.2 1B", "gemma-2-2b": "Gemma 2 2B", "gemma-2-9b": "Gemma 2 9B",
         "gemma-3-1b": "Gemma 3 1B", "mistral-7b": "Mistral 7B v0.3", "qwen3-30b-a3b": "Qwen3-30B-A3B (MoE)",
         "qwen3-8b": "Qwen3 8B", "resnet-50": "ResNet-50", "bert-base": "BERT base uncased",
         "distilbert-base": "DistilBERT base uncased", "all-minilm-l6-v2": "all-MiniLM-L6-v2",
         "sd15-unet": "Stable Diffusion 1.5 UNet", "gpt2": "GPT-2 (124M)"}


@pytest.fixture
def named_gallery(tmp_path, monkeypatch):
    data = tmp_path / "names"
    (data / "gallery").mkdir(parents=True)
    (data / "gallery" / "models.jsonl").write_text(
        "".join(json.dumps({"model": slug, "name": name}) + "\n" for slug, name in NAMES.items()))
    monkeypatch.setenv("KB_DATA_DIR", str(data))


@pytest.mark.parametrize("question, expected", [
    ("will Mixtral run on trn2?", ["mixtral-8x7b"]),
    ("does llama 3 70b run on a TPU?", ["llama-3.1-70b"]),
    ("Llama-3.1-8B on neuron", ["llama-3.1-8b"]),
    ("can I run gemma?", ["gemma-2-2b", "gemma-2-9b", "gemma-3-1b"]),
    ("gemma 2 9b", ["gemma-2-9b"]),
    ("is mistral ok on trainium", ["mistral-7b"]),
    ("resnet50 on tpu", ["resnet-50"]),
    ("BERT or DistilBERT?", ["bert-base", "distilbert-base"]),
    ("stable diffusion on trn1", ["sd15-unet"]),
    ("gpt-2 training on tpu", ["gpt2"]),
    ("qwen3 moe", ["qwen3-30b-a3b"]),
    ("which popular models need the CPU on tpu?", []),
    ("is nonzero native on neuron?", []),
])
def test_find_models_names_the_gallery_models_a_question_mentions(named_gallery, question, expected):
    assert find_models(question) == expected


def test_a_model_question_is_answered_with_the_gallery_entry_and_verdict_sources(gallery_kb):
    conn = db.open_kb(gallery_kb[0])
    found = gallery_answer(conn, "will alpha 7b run on trn2?", [])
    assert found is not None and found.intent == "gallery_model"
    assert found.text.startswith("**Partly** — Alpha 7B on neuron 2.14.3.0 (eager): 1 op on the host CPU; 69.2% of op calls on the device [1]")
    urls = [s["url"] for s in found.sources]
    assert urls[0] == "https://example.test/alpha/config.json" and NEURON_DOC in urls
    assert found.sources[0]["kind"] == "gallery" and "transformers 5.23.0" in found.sources[0]["name"]
    assert [f["fallback_ops"] for f in found.facts] == [["aten::layer_norm"]]
    both = gallery_answer(conn, "will the tiny mlp run?", [])
    assert [f["target"] for f in both.facts] == ["neuron", "tpu"]
    assert "**Yes** — Tiny MLP runs fully on the device on tpu 0.2.0" in both.text and TINY_SOURCE in both.text
    spanish = gallery_answer(conn, "¿corre alpha 7b en trn2?", ["neuron"], lang="es")
    assert spanish.text.startswith("**En parte** — Alpha 7B en neuron 2.14.3.0 (eager): 1 op en la CPU del host")
    assert spanish.sources == found.sources[:len(spanish.sources)]
    missing = gallery_answer(conn, "will gamma 2b run on tpu?", [])
    assert "did not export: torch.export: GuardOnDataDependentSymNode" in missing.text
    assert gallery_answer(conn, "is nonzero native on neuron?", []) is None


def test_which_popular_models_need_the_cpu(gallery_kb):
    conn = db.open_kb(gallery_kb[0])
    found = gallery_answer(conn, "which popular models need the CPU on trn2?", [])
    assert found.intent == "gallery_list"
    assert found.facts[0]["models"] == ["alpha-7b", "tiny"] and found.facts[0]["of"] == 3
    assert "Alpha 7B (aten::layer\\_norm)" in found.text
    assert "neuron 2.14.3.0 · eager: 1 of 3 gallery models run fully on the device" in found.text
    tpu = gallery_answer(conn, "which popular models need the CPU on tpu?", [])
    assert "need the CPU (or do not run) on tpu 0.2.0 (eager): none" in tpu.text
    full = gallery_answer(conn, "which models run fully on tpu?", [])
    assert full.facts[0]["models"] == ["alpha-7b", "beta-moe", "tiny"]
    es = gallery_answer(conn, "¿qué modelos populares necesitan la CPU en neuron?", [], lang="es")
    assert es.text.startswith("Modelos de la galería que necesitan la CPU")


def test_the_gallery_pages_in_kb_serve(gallery_kb, capsys):
    code, out, err = run_kb(capsys, "serve", "--get", "/-/gallery")
    assert code == 0, err
    assert "Alpha 7B" in out and "neuron 2.14.3.0 · eager: 1 of 3 gallery models run fully on the device" in out
    assert 'href="/-/gallery/alpha-7b?mode=eager"' in out and "GuardOnDataDependentSymNode" in out
    code, out, err = run_kb(capsys, "serve", "--get", "/-/gallery/tiny?mode=compile")
    assert code == 0, err
    assert "Tiny MLP" in out and TINY_SOURCE in out and "tpu 0.2.0 · compile" in out
    assert 'href="/-/op?q=aten%3A%3Alayer_norm"' in out
    code, out, _ = run_kb(capsys, "serve", "--get", "/-/op?q=aten::layer_norm")
    assert code == 0 and "used by 2 of 4" in out and 'href="/-/gallery/alpha-7b"' in out
    code, _, err = run_kb(capsys, "serve", "--get", "/-/gallery/nosuch")
    assert code == 1 and "HTTP 404" in err


@pytest.mark.heavy
def test_the_mcp_gallery_tool_answers_with_sources(gallery_kb):
    anyio = pytest.importorskip("anyio")
    pytest.importorskip("mcp")
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    path, data, _ = gallery_kb

    async def session():
        env = {"KB_DB": path, "KB_DATA_DIR": str(data), "PYTHONPATH": str(REPO), "KB_CACHE_DIR": str(data.parent / "c")}
        params = StdioServerParameters(command=sys.executable, args=["-m", "cli.entry", "mcp"], env=env, cwd=str(REPO))
        async with Client(params, read_timeout_seconds=60) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            one = await client.call_tool("gallery", {"model": "alpha-7b", "target": "neuron"})
            asked = await client.call_tool("gallery", {"question": "which popular models need the CPU on tpu?"})
            table = await client.call_tool("gallery", {})
            bad = await client.call_tool("gallery", {"model": "nosuch"})
            return tools, one, asked, table, bad

    tools, one, asked, table, bad = anyio.run(session)
    assert tools["gallery"].annotations.read_only_hint is True
    body = one.structured_content
    assert body["intent"] == "gallery_model" and body["sources"][0]["url"] == "https://example.test/alpha/config.json"
    assert NEURON_DOC in [s["url"] for s in body["sources"]]
    assert asked.structured_content["intent"] == "gallery_list"
    assert [b["runs_fully"] for b in table.structured_content["baseline"]] == [1, 3]
    assert bad.is_error and "no gallery model 'nosuch'" in bad.content[0].text


# ---- s30b (#30, tester report t30): routing of gallery questions in kb ask

@pytest.mark.parametrize("question, expected", [
    ("will mixtrl run on trainium?", ["mixtral-8x7b"]),
    ("does gema 2 9b run on tpu?", ["gemma-2-9b"]),
    ("does Llama 4 run on tpu?", []),
    ("which models run fully on neuron?", []),
])
def test_find_models_reads_misspellings_and_refuses_a_version_the_gallery_lacks(named_gallery, question, expected):
    assert find_models(question) == expected


def test_a_model_the_gallery_lacks_is_named_as_missing(named_gallery):
    from kb.chat.answer_gallery import gallery_score, missing_model

    assert missing_model("does Llama 4 run on tpu?") == "Llama 4"
    assert missing_model("will Grok-1 run on trn2?") == "Grok-1"
    assert missing_model("will Mixtral run on trn2?") is None
    assert gallery_score("which popular models need the CPU on tpu?") == 10
    assert gallery_score("what blocks the most models on neuron?") == 10
    assert gallery_score("is nonzero native on neuron?") == 0
    assert gallery_score("does aten::sort fall back on neuron?") == 0


def test_gallery_list_blockers_missing_and_misspelt_answers(gallery_kb):
    conn = db.open_kb(gallery_kb[0])
    cpu = gallery_answer(conn, "which popular models need the CPU on tpu?", ["cpu", "tpu"])
    assert [f["target"] for f in cpu.facts] == ["tpu"]  # the CPU is where ops fall back to, not a target
    full = gallery_answer(conn, "which models run fully on neuron?", [])
    assert full.intent == "gallery_list" and "Beta MoE" in full.text and "Alpha 7B" not in full.text
    spanish = gallery_answer(conn, "¿qué modelos corren enteros en neuron?", [], lang="es")
    assert spanish.text.startswith("Modelos de la galería que corren enteros")
    blocks = gallery_answer(conn, "what blocks the most models on neuron?", [])
    assert blocks.intent == "gallery_blockers" and "**aten::layer\\_norm** fallback (2: alpha-7b, tiny)" in blocks.text
    missing = gallery_answer(conn, "does alpha 9 run on tpu?", [])
    assert missing is None or "Yes" not in missing.text
    typo = gallery_answer(conn, "will alpah 7b run on trn2?", [])
    assert typo is None or typo.intent == "gallery_model"


def test_kb_ask_routes_gallery_questions(gallery_kb):
    from kb.chat.answer import answer

    conn = db.open_kb(gallery_kb[0])
    assert answer("which popular models need the CPU on trn2?", conn=conn).intent == "gallery_list"
    assert answer("what blocks the most models on neuron?", conn=conn).intent == "gallery_blockers"
    compiled = answer("does Alpha 7B run on tpu with torch.compile?", conn=conn)
    assert compiled.intent == "gallery_model" and "(compile)" in compiled.text
    assert "op question" not in compiled.text
    llama = answer("does Llama 4 run on tpu?", conn=conn)
    assert llama.intent == "gallery_missing" and "not in the gallery" in llama.text and "**Yes**" not in llama.text
    assert "kb check model.pt2 -t tpu" in llama.text


def test_spanish_fallback_line_and_verdict_are_spanish(gallery_kb):
    from kb.chat.spanish import to_spanish

    line = to_spanish("I could not tell which op, target or product you are asking about. "
                      "Try `help`, or name an op like `aten::nonzero` and a target like `neuron` or `tpu`.")
    assert "Try" not in line and " or " not in line and "`neuron` o `tpu`" in line
    conn = db.open_kb(gallery_kb[0])
    found = gallery_answer(conn, "¿corre alpha 7b en trn2?", ["neuron"], lang="es")
    assert "se ejecuta en el dispositivo salvo" in found.text and "runs on the device" not in found.text
