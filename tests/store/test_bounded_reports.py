"""`kb ingest` reads reports and docs folders within bounds (issue 24): a FIFO or device is
refused without waiting, a shard count, a line's length and a line's nesting taken from a
file are bounded, and one bad file among several is one line while the rest goes on."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from kb import userfiles
from kb.store import writer
from tests import hostile_cases as hc


def _good_report(folder) -> str:
    record = {"record": "probe_run", "run_id": "good-run", "kind": "live", "target": "sim", "backend": "sim",
              "backend_version": "0", "torch_version": "2.13.0", "python_version": "3.11", "host": "h",
              "started_at": "2026-01-01T00:00:00+00:00"}
    path = os.path.join(str(folder), "good.jsonl")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
    return path


@pytest.mark.parametrize("make, words", [
    (lambda d: hc.fifo(d, "r.jsonl"), "a FIFO, not a regular file"),
    (lambda d: hc.link_to(d, "/dev/zero", "r.jsonl"), "a character device, not a regular file"),
    (hc.billion_shards, "shard count 1000000000 is not a whole number in 1..10,000"),
    (hc.long_record, "a line over 32 MiB (bound)"),
    (hc.deep_record, "nested deeper than 200 levels"),
])
def test_a_hostile_report_is_one_line_and_cheap(tmp_path, make, words):
    path = make(tmp_path)
    result = hc.run_kb("ingest", path, "--dry-run", timeout=60)
    assert words in hc.one_line_error(result)
    assert result["rss_mib"] < 250, result  # the billion shards took 5.7 GB, /dev/zero grew until killed


def test_one_bad_report_among_several_is_skipped_and_the_rest_goes_on(tmp_path):
    good = _good_report(tmp_path)
    bad = hc.fifo(tmp_path, "bad.jsonl")
    result = hc.run_kb("ingest", bad, good, "--dry-run", "--json", timeout=60)
    assert result["code"] == 2
    body = json.loads(result["out"])
    assert [r["source"] for r in body["results"]] == [good]
    assert len(body["errors"]) == 1 and "bad.jsonl: a FIFO" in body["errors"][0]
    assert "Traceback" not in result["err"]


def test_the_reader_bounds_lines_and_line_counts(tmp_path):
    many = hc.many_lines(tmp_path, 50)
    with pytest.raises(userfiles.FileRefused, match="more than 10 lines"):
        list(writer.rec.read_jsonl(userfiles.iter_lines(many, max_lines=10), where=many))
    with pytest.raises(writer.IngestError, match="a FIFO"):
        writer.read_report(hc.fifo(tmp_path, "f.jsonl"))


def test_a_device_in_a_docs_folder_fails_its_source_only(tmp_path, reference):
    """A copy of the reference docs with one release-notes page swapped for a FIFO: that
    source is one line, every other source found there is still read."""
    docs = reference / "neuron-docs"
    if not docs.is_dir():
        pytest.skip("no neuron-docs in shared/reference")
    copy = tmp_path / "docs"
    shutil.copytree(docs, copy, symlinks=True)
    page = copy / "release-notes" / "index.rst"
    if not page.exists():
        pytest.skip("reference docs have no release-notes/index.rst")
    page.unlink()
    os.mkfifo(page)
    result = hc.run_kb("ingest", "--all", "--from-file", copy, "--dry-run", "--json", timeout=300)
    assert result["code"] == 2
    body = json.loads(result["out"])
    assert len(body["errors"]) == 1 and "index.rst: a FIFO" in body["errors"][0]
    assert body["results"], "the other sources were read"
    assert all(r["source"] != "neuron-release-notes" for r in body["results"])
