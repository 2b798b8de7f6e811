"""Shared fixtures: every test gets its own KB file and cache folder (real SQLite files
in tmp dirs, never the user's), and can build KBs from small data folders of its own."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kb.store import records as rec

REPO = Path(__file__).resolve().parent.parent


def reference_dir() -> Path | None:
    """shared/reference beside the checkout (KB_REFERENCE_DIR overrides); None when absent."""
    for candidate in (os.environ.get("KB_REFERENCE_DIR"), REPO.parent / "shared" / "reference",
                      Path("/work/shared/reference")):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


@pytest.fixture
def reference():
    found = reference_dir()
    if found is None:
        pytest.skip("shared/reference is not present beside this checkout")
    return found


_SHIPPED_TEMPLATE: dict = {}


@pytest.fixture(autouse=True, scope="session")
def _shipped_build_once(tmp_path_factory):
    """The shipped data is built into a KB once per session; every later build of the same
    data/ (each test's own KB file) is a copy of that file. A build of the shipped data costs
    seconds and dozens of tests make one; a build from any other data folder (small_data,
    KB_DATA_DIR) is the real one. KB_TEST_REAL_BUILD=1 turns the copy off."""
    if os.environ.get("KB_TEST_REAL_BUILD"):
        yield
        return
    from kb import paths
    from kb.store import build, dbfile

    real = build.build
    shipped = os.path.realpath(REPO / "data")

    def build_or_copy(path: str):
        if os.path.realpath(paths.data_dir()) != shipped:
            return real(path)
        if "path" not in _SHIPPED_TEMPLATE:
            template = str(tmp_path_factory.mktemp("shipped-template") / "kb.sqlite")
            _SHIPPED_TEMPLATE.update(result=real(template), path=template)
        dbfile.check_file(path)
        build.remove_stale_builds(path)
        for stale in (path + "-wal", path + "-shm"):
            if os.path.exists(stale):
                os.remove(stale)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        shutil.copyfile(_SHIPPED_TEMPLATE["path"], path)
        return {**_SHIPPED_TEMPLATE["result"], "path": path}

    build.build = build_or_copy
    yield
    build.build = real


TODAY = "2026-12-01"  # the day the suite's expected answers were written for


@pytest.fixture(autouse=True)
def isolated_kb(tmp_path, monkeypatch):
    """KB_DB and KB_CACHE_DIR point into tmp_path for every test, and today is pinned (KB_TODAY):
    the fixtures' documents are dated 2026-11, so on the clock they would age past the 30-day
    freshness notice and past end-of-support dates, and answers would change with the day the
    suite runs. A test of the clock's own day deletes KB_TODAY."""
    monkeypatch.setenv("KB_TODAY", TODAY)
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KB_DB", str(tmp_path / "kb.sqlite"))
    return tmp_path / "kb.sqlite"


def prov(kind: str = "doc", name: str = "test-doc", url: str = "https://example.test/doc",
         at: str = "2026-11-01T00:00:00+00:00", sha: str = "sha-1", run: str | None = None) -> rec.Provenance:
    return rec.Provenance(source_kind=kind, source_name=name, source_url=None if run else url,
                          retrieved_at=at, content_sha256=sha, probe_run_id=run)


def op_status(op: str, status: str, *, target: str = "neuron", version: str = "2.14.3.0", mode: str = "eager",
              dtypes=None, **prov_kw) -> rec.OpStatus:
    return rec.OpStatus(op=op, target=target, backend_version=version, status=status, mode=mode,
                        dtypes=dtypes, provenance=prov(**prov_kw))


@pytest.fixture
def small_data(tmp_path, monkeypatch):
    """A data/ folder with the real targets, a 6-op catalog and no records; returns its path."""
    data = tmp_path / "data"
    (data / "ops").mkdir(parents=True)
    shutil.copy(REPO / "data" / "targets.csv", data / "targets.csv")
    wanted = {"aten::add.Tensor", "aten::add.Scalar", "aten::add.out", "aten::nonzero", "aten::relu", "aten::silu"}
    with open(REPO / "data" / "ops" / "aten-torch-2.13.0.jsonl", encoding="utf-8") as src, \
            open(data / "ops" / "aten-torch-2.13.0.jsonl", "w", encoding="utf-8") as dst:
        for line in src:
            if any(f'"name": "{name}"' in line for name in wanted):
                dst.write(line)
    monkeypatch.setenv("KB_DATA_DIR", str(data))
    return data


def write_records(path: Path, records) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        rec.write_jsonl(records, fh)
    return path


def probe_run(run_id: str, *, kind: str = "live", target: str = "neuron", version: str = "2.14.3.0") -> rec.ProbeRun:
    return rec.ProbeRun(run_id=run_id, kind=kind, target=target, backend=target, backend_version=version,
                        torch_version="2.13.0", python_version="3.11.7", host="test-host",
                        started_at="2026-11-01T00:00:00+00:00")


def run_kb(capsys, *args):
    """`kb ARGS` in-process through the console entry point: (exit code, stdout, stderr)."""
    from cli.entry import main

    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def load_workflow(path: Path) -> dict:
    """A GitHub Actions workflow as data; YAML 1.1 reads the key `on` as true, so it is put back."""
    import yaml

    doc = yaml.safe_load(path.read_text())
    doc["on"] = doc.pop(True, doc.get("on"))
    return doc
