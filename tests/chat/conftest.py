"""A chat-test KB, built once per session: a 30-op catalog copied from the shipped one,
and facts ingested through kb.store.ingest.ingest_records (two Neuron SDK 2.33 releases, an
older SDK 2.32 one, torch_tpu 0.2.0, a doc/probe disagreement, limitations, windows).

Tests that start a process or open the KB by path point KB_DB / KB_DATA_DIR at it
(`chat_env`); tests of the core pass its connection straight to kb.chat.answer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kb.store import records as rec

REPO = Path(__file__).resolve().parents[2]

CATALOG_BASES = {
    "add", "nonzero", "relu", "silu", "sigmoid", "gelu", "_scaled_dot_product_flash_attention",
    "scaled_dot_product_attention", "native_layer_norm", "layer_norm", "view", "where", "sort", "masked_select",
    "cumsum", "convolution", "mm", "index_put_", "topk", "embedding",
}

NEURON_DOC = "https://docs.example.test/neuron/torchneuron-ops.html"
TPU_DOC = "https://docs.example.test/tpu/torch_tpu-ops.html"
EOL_DOC = "https://docs.example.test/neuron/announcements/eos-pytorch-2-9.html"
BENCH = "https://bench.example.test/trn2/README.md"


def _prov(kind="doc", name="neuron-op-list", url=NEURON_DOC, run=None):
    return rec.Provenance(source_kind=kind, source_name=name, source_url=None if run else url,
                          retrieved_at="2026-11-20T10:00:00+00:00", content_sha256="sha-chat", probe_run_id=run)


def _op(op, status, target="neuron", version="2.14.3.0", **kw):
    prov_kw = {k: kw.pop(k) for k in ("kind", "name", "url", "run") if k in kw}
    return rec.OpStatus(op=op, target=target, backend_version=version, status=status, provenance=_prov(**prov_kw), **kw)


def chat_records() -> list:
    tpu = {"target": "tpu", "version": "0.2.0", "name": "tpu-op-list", "url": TPU_DOC}
    run = {"kind": "static_probe", "name": "probe", "run": "static-tpu-1"}
    return [
        rec.Release(product="torchneuron", version="2.13.3.0", sdk_version="2.33.0", torch_versions=("2.13.0",),
                    date="2026-10-19", provenance=_prov()),
        rec.Release(product="torchneuron", version="2.14.3.0", sdk_version="2.33.0", torch_versions=("2.14.0",),
                    date="2026-10-19", provenance=_prov()),
        rec.Release(product="torchneuron", version="2.9.1.0", sdk_version="2.32.0", torch_versions=("2.9.1",),
                    date="2026-08-01", provenance=_prov()),
        rec.Release(product="torch_tpu", version="0.2.0", torch_versions=("2.13.0",), provenance=_prov(url=TPU_DOC)),
        rec.ProbeRun(run_id="static-tpu-1", kind="static", target="tpu", backend="torch_tpu", backend_version="0.2.0",
                     torch_version="2.13.0", python_version="3.11.7", host="ci", started_at="2026-11-20T09:00:00+00:00"),
        _op("aten::_scaled_dot_product_flash_attention", "native"),
        _op("aten::_scaled_dot_product_flash_attention", "fallback", version="2.13.3.0"),
        _op("aten::nonzero", "fallback", note="data-dependent output shape"),
        _op("aten::nonzero", "fallback", version="2.13.3.0"),
        _op("aten::nonzero", "fallback", version="2.9.1.0"),
        _op("aten::silu", "native"),
        _op("aten::sigmoid", "native"),
        _op("aten::add.Tensor", "native", dtypes=("bfloat16", "float32")),
        _op("aten::sort", "unsupported"),
        _op("aten::relu", "native"),
        _op("aten::relu", "fallback", kind="live_probe", name="probe", run="live-neuron-1"),
        _op("aten::nonzero", "native", **run, target="tpu", version="0.2.0"),
        _op("aten::silu", "native", **tpu),
        _op("aten::add.Tensor", "native", **tpu),
        _op("aten::gelu", "fallback", **tpu),
        _op("aten::sort", "native", **tpu),
        _op("aten::masked_select", "fallback", **tpu),
        rec.ProbeRun(run_id="live-neuron-1", kind="live", target="neuron", backend="neuron",
                     backend_version="2.14.3.0", torch_version="2.14.0", python_version="3.12.1", host="trn2",
                     started_at="2026-11-21T09:00:00+00:00"),
        rec.Limitation(target="neuron", product="neuron-sdk", version="2.33.0", feature="float64",
                       status="runs as float32", note="downcast with a warning", provenance=_prov()),
        rec.Limitation(target="neuron", product="neuron-sdk", version="2.33.0", feature="torch.sparse",
                       status="unsupported", provenance=_prov()),
        rec.Limitation(target="tpu", product="torch_tpu", version="0.2.0", feature="torch.compile dynamic=True",
                       status="unsupported", provenance=_prov(url=TPU_DOC, name="tpu-op-list")),
        rec.SupportWindow(product="pytorch", cycle="2.9", eol="2026-12-15", eol_kind="announced",
                          title="PyTorch 2.9 on Neuron", statement_date="2026-10-16",
                          provenance=_prov(name="neuron-eos", url=EOL_DOC)),
        rec.SupportWindow(product="neuron-sdk", cycle="2.32", eol_kind="with_release", eol_release="2.35",
                          title="Neuron SDK 2.32", provenance=_prov(name="neuron-eos", url=EOL_DOC)),
        rec.Caveat(op="aten::gelu", family=True, target="neuron", kind="slow", mode="eager",
                   statement="gelu is many times slower than silu", min_version="2.12.3.0",
                   figure={"value": 14, "unit": "x slower than silu", "what": "bf16 mem_bw"},
                   provenance=rec.Provenance(source_kind="field", source_name="bench", source_url=BENCH,
                                             retrieved_at="2026-11-20T10:00:00+00:00")),
        rec.SupportWindow(product="python", cycle="3.9", eol="2025-10-31", eol_kind="announced",
                          title="Python 3.9", provenance=_prov(name="python-eol", url="https://python.example.test/eol")),
    ]


def make_data_dir(root: Path) -> Path:
    data = root / "data"
    (data / "ops").mkdir(parents=True)
    shutil.copy(REPO / "data" / "targets.csv", data / "targets.csv")
    with open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl", encoding="utf-8") as src, \
            open(data / "ops" / "aten-torch-2.13.0.jsonl", "w", encoding="utf-8") as dst:
        for line in src:
            if any(f'"base": "{base}"' in line for base in CATALOG_BASES):
                dst.write(line)
    shutil.copytree(REPO / "data" / "functions", data / "functions")
    return data


@pytest.fixture(scope="session")
def chat_kb_paths(tmp_path_factory):
    """(db path, data dir) of the session's chat KB, built and ingested once."""
    from kb.store.ingest import ingest_records

    root = tmp_path_factory.mktemp("chatkb")
    data = make_data_dir(root)
    db_path = root / "kb.sqlite"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KB_DATA_DIR", str(data))
        mp.setenv("KB_CACHE_DIR", str(root / "cache"))
        # the fixture's records stand for vendor documents: shipped, as data/ is (local evidence is marked in answers)
        ingest_records(str(db_path), chat_records(), source_name="chat-fixture", origin="shipped")
    return db_path, data


@pytest.fixture
def chat_env(chat_kb_paths, monkeypatch):
    """Environment pointing kb at the chat KB (for subprocesses and open_kb by path)."""
    db_path, data = chat_kb_paths
    monkeypatch.setenv("KB_DB", str(db_path))
    monkeypatch.setenv("KB_DATA_DIR", str(data))
    return {"KB_DB": str(db_path), "KB_DATA_DIR": str(data), "PYTHONPATH": str(REPO)}


@pytest.fixture
def chat_conn(chat_kb_paths):
    from kb.store.db import connect

    conn = connect(str(chat_kb_paths[0]))
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def model_files(tmp_path_factory):
    """A tiny ExportedProgram (gelu → sigmoid → add) and a pickled module, written once."""
    torch = pytest.importorskip("torch")

    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.sigmoid(torch.nn.functional.gelu(x)) + x

    root = tmp_path_factory.mktemp("models")
    exported = root / "net.pt2"
    torch.export.save(torch.export.export(Net(), (torch.rand(2, 8),)), str(exported))
    pickled = root / "net_module.pt"
    torch.save(torch.nn.Sequential(torch.nn.GELU()), str(pickled))  # a whole pickled module
    return {"exported": exported, "pickled": pickled}


@pytest.fixture(scope="session")
def shipped_kb(tmp_path_factory) -> str:
    """The KB built once per session from the shipped data/ (releases, limitations, replays,
    probes): the question bank and its MCP run ask it."""
    from kb.store import db

    path = tmp_path_factory.mktemp("shipped-bank") / "kb.sqlite"
    db.open_kb(str(path)).close()
    return str(path)


@pytest.fixture(scope="session")
def shipped_cache(shipped_kb, tmp_path_factory) -> str:
    """A cache folder holding the shipped KB's gallery tables, computed once per session (the
    bot's warm-up): the front-end tests' subprocesses (MCP) read them from it and in-process ones
    from kb.gallery.tablecache's memo, instead of each computing the same tables (seconds each)."""
    from kb.chat.answer_gallery import warm

    folder = tmp_path_factory.mktemp("shipped-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KB_CACHE_DIR", str(folder))
        warm(shipped_kb)
    return str(folder)


@pytest.fixture(scope="module")
def conn(shipped_kb):
    """A connection to the shipped KB (not the chat-test KB above), for the tests that ask
    the real data; one per module."""
    from kb.store import db

    c = db.connect(shipped_kb)
    yield c
    c.close()
