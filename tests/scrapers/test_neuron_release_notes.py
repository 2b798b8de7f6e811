"""Neuron release notes, manifest and end-of-support announcements."""

import dataclasses

import pytest

from kb.store.records import Limitation, Release, SupportWindow
from scrapers import neuron_announcements, neuron_manifest, neuron_release_notes
from scrapers.base import Document, ScrapeError
from scrapers.registry import fetch_documents, local_documents
from tests.scrapers.conftest import Reply


def _sdk(records):
    return {r.version: r for r in records if isinstance(r, Release) and r.product == "neuron-sdk"}


def test_release_notes_reconcile_dates(neuron_docs_fixture):
    docs = local_documents(neuron_release_notes.SOURCE, str(neuron_docs_fixture))
    records = neuron_release_notes.SOURCE.scrape(docs)
    sdk = _sdk(records)
    assert set(sdk) == {"2.40.0", "2.39.1", "2.39.0", "2.38.0", "2.37.0"}
    # The release's own page wins over the earlier-releases list, which is named in the note.
    assert sdk["2.39.0"].date == "2026-09-15" and "2026-09-14 (rn.html)" in sdk["2.39.0"].note
    assert sdk["2.39.0"].provenance.source_url.endswith("/release-notes/prev/2.39.0.html")
    # The index beats the list; a body date beats the page's own description.
    assert sdk["2.38.0"].date == "2026-07-20" and "2026-07-21" in sdk["2.38.0"].note
    assert sdk["2.40.0"].date == "2026-11-02" and "description says 2026-10-30" in sdk["2.40.0"].note
    assert sdk["2.40.0"].instance_families == ("trn2", "trn3")
    assert sdk["2.40.0"].components == {"Neuron Compiler": "2.35.100.0", "Neuron Tools": "2.40.1.0"}
    assert sdk["2.39.1"].date == "2026-09-30"  # a patch named only in the list
    component = [r for r in records if isinstance(r, Release) and r.product == "torch-neuronx-xla"]
    assert [(r.version, r.sdk_version, r.date) for r in component] == [("2.10.0.2.20.111", "2.39.0", "2026-09-15")]
    limits = [r for r in records if isinstance(r, Limitation)]
    assert {r.feature for r in limits} == {"Hangs when tracing huge embeddings", "float64 silently downcast"}
    assert all(r.version == "2.39.0" and r.target == "neuron-xla" for r in limits)
    [window] = [r for r in records if isinstance(r, SupportWindow)]
    assert (window.product, window.cycle, window.eol_kind, window.eol_release) == ("pytorch", "2.8", "with_release", "2.39")


def test_release_page_over_http(server, client, neuron_docs_fixture):
    url = server.route("/release-notes/2.40.0.html",
                       Reply(body=(neuron_docs_fixture / "release-notes/2.40.0.rst").read_text(), headers={"ETag": '"a"'}))
    source = dataclasses.replace(neuron_release_notes.SOURCE, urls=(url,))
    first = fetch_documents(source, client)
    again = fetch_documents(source, client)
    assert again[0].cache == "revalidated" and again[0].sha256 == first[0].sha256  # unchanged: same content hash
    [release] = source.scrape(first)
    assert (release.version, release.date) == ("2.40.0", "2026-11-02")


def test_release_page_without_date_fails():
    text = "Fixture Neuron SDK 2.50.0 release notes\n========================================\n\nNo date.\n"
    with pytest.raises(ScrapeError, match="2.50.0: no release date found"):
        neuron_release_notes.parse(Document(url="u/2.50.0.html", text=text, path="release-notes/2.50.0.rst"))


def test_release_notes_empty_fail():
    with pytest.raises(ScrapeError, match="no records"):
        neuron_release_notes.SOURCE.scrape([Document(url="u", text="", path="release-notes/2.50.0.rst")])


def test_manifest(neuron_docs_fixture):
    records = neuron_manifest.SOURCE.scrape(local_documents(neuron_manifest.SOURCE, str(neuron_docs_fixture)))
    sdk = _sdk(records)
    assert sdk["2.40.0"].date == "2026-11-02" and sdk["2.39.0"].date is None  # the manifest dates its newest only
    assert sdk["2.39.0"].torch_versions == ("2.9.0", "2.10.0")
    assert sdk["2.39.0"].components["torch-neuronx"] == "2.9.0.2.20.111;2.10.0.2.20.111"
    tnx = {r.version: r for r in records if r.product == "torch-neuronx-xla"}
    assert tnx["2.9.0.2.20.111"].sdk_version == "2.38.0"  # the first SDK that shipped it


def test_manifest_changed_shape_fails():
    with pytest.raises(ScrapeError, match="no 'neuron_releases'"):
        neuron_manifest.parse(Document(url="m.json", text='{"releases": []}'))
    with pytest.raises(ScrapeError, match="not JSON"):
        neuron_manifest.parse(Document(url="m.json", text='{"neuron_releases": [ {"neuron_ver'))  # truncated


def _windows(records):
    return {(w.product, w.cycle, w.statement_date): w for w in records}


def test_announcements(neuron_docs_fixture):
    docs = local_documents(neuron_announcements.SOURCE, str(neuron_docs_fixture))
    assert len(docs) == 5
    windows = _windows(neuron_announcements.SOURCE.scrape(docs))
    # The same end announced twice: first "after release 2.39", then "with 2.40"; both kept, dated.
    early = windows[("pytorch", "2.9", "2026-09-15")]
    later = windows[("pytorch", "2.9", "2026-10-30")]
    assert (early.eol_kind, early.eol_release) == ("with_release", "2.40") and "inferred" in early.note
    assert (later.eol_kind, later.eol_release, later.eol) == ("with_release", "2.40", None)
    python = windows[("python", "3.11", "2026-11-02")]
    assert (python.eol_kind, python.eol) == ("announced", "2026-11-02")
    ubuntu = windows[("ubuntu", "22.04", "2026-10-01")]
    assert (ubuntu.eol_kind, ubuntu.eol, ubuntu.eol_release) == ("projected", None, None)
    xla = windows[("torch-neuronx-xla", "inference", "2026-11-02")]
    assert xla.eol_release == "2.41"


def test_announcement_truncated_and_bad_date():
    with pytest.raises(ScrapeError, match="no title"):
        neuron_announcements.parse(Document(url="u", text=".. post:: May 1, 2026\n"))
    bad = ".. post:: someday\n\nNeuron no longer supports Python 3.12\n-------------------------------------\n\nText.\n"
    with pytest.raises(ScrapeError, match="unreadable post date 'someday'"):
        neuron_announcements.parse(Document(url="u", text=bad))


# --- acceptance against the real documents -------------------------------------------

def test_real_release_notes(neuron_docs):
    records = neuron_release_notes.SOURCE.scrape(local_documents(neuron_release_notes.SOURCE, str(neuron_docs)))
    sdk = _sdk(records)
    assert {"2.32.0", "2.31.1", "2.31.0", "2.30.0", "2.29.0", "2.24.0", "2.10.0"} <= set(sdk)
    assert sdk["2.32.0"].date == "2026-08-17" and sdk["2.32.0"].components
    assert sdk["2.29.0"].date == "2026-04-09" and "2026-04-06" in sdk["2.29.0"].note
    assert sdk["2.31.0"].date == "2026-07-07" and "2026-05-21" in sdk["2.31.0"].note  # the list disagrees
    assert all(r.date for r in sdk.values())
    assert any(isinstance(r, Limitation) for r in records)


def test_real_announcements(neuron_docs):
    records = neuron_announcements.SOURCE.scrape(local_documents(neuron_announcements.SOURCE, str(neuron_docs)))
    keys = {(w.product, w.cycle) for w in records}
    assert {("torch-neuronx-xla", "training"), ("torch-neuronx-xla", "inference"), ("python", "3.10"),
            ("python", "3.9"), ("ubuntu", "20.04"), ("pytorch", "2.7"), ("pytorch", "2.8")} <= keys
    py310 = [w for w in records if (w.product, w.cycle) == ("python", "3.10")]
    assert py310[0].eol_release == "2.30" and py310[0].statement_date == "2026-05-20"
    assert len(records) > 90


def test_real_manifest(neuron_docs):
    records = neuron_manifest.SOURCE.scrape(local_documents(neuron_manifest.SOURCE, str(neuron_docs)))
    sdk = _sdk(records)
    assert len(sdk) == 51 and sdk["2.32.0"].date == "2026-08-17"
    assert "3.13" in sdk["2.32.0"].python_versions


def test_reissued_notice_keeps_one_subject():
    """The same end re-announced with another release keeps the same product cycle, so
    the newer statement wins in the KB instead of standing beside the old one."""
    def page(date, release):
        title = f"Fixture Explorer replaces Fixture Profiler, starting with Neuron {release}"
        return Document(url="u", text=f".. post:: {date}\n\n{title}\n{'-' * len(title)}\n\nSome words.\n")
    first = neuron_announcements.parse(page("March 1, 2026", "2.29"))[0]
    second = neuron_announcements.parse(page("April 1, 2026", "2.30.0"))[0]
    assert (first.product, first.cycle) == (second.product, second.cycle) == \
        ("neuron-feature", "fixture-explorer-replaces-fixture-profiler")
    assert (first.eol_release, second.eol_release) == ("2.29", "2.30.0")


def test_real_reissued_profiler_notice(neuron_docs):
    records = neuron_announcements.SOURCE.scrape(local_documents(neuron_announcements.SOURCE, str(neuron_docs)))
    profiler = sorted((w.statement_date, w.eol_release) for w in records
                      if w.cycle == "neuron-explorer-replaces-neuron-profiler")
    assert profiler == [("2026-02-26", "2.29"), ("2026-03-31", "2.30.0"), ("2026-05-20", "2.30")]


def test_component_eol_bullets_on_an_image_page():
    title = "Fixture DLAMI notes (Neuron 2.40.0 Release)"
    text = f"""Fixture images
==============

{title}
{'-' * len(title)}

Date of Release: 11/02/2026

Announcements
^^^^^^^^^^^^^

* PyTorch 2.9 End of Support: the fixture images dropped their PyTorch 2.9 environments, which have been removed.
* The fixture team no longer supports its old logo, which nobody asked about.
* Neuron no longer supports the Python 3.11 environment starting with this release.
"""
    doc = Document(url="https://awsdocs-neuron.readthedocs-hosted.com/en/latest/release-notes/components/dlamis.html",
                   text=text, path="release-notes/components/dlamis.rst")
    windows = [(w.product, w.cycle, w.eol_kind, w.eol, w.eol_release, w.title) for w in neuron_release_notes.parse(doc)]
    assert windows == [
        ("neuron-dlami", "pytorch-2.9", "announced", "2026-11-02", "2.40.0", "PyTorch 2.9 End of Support"),
        # the prose bullet about a logo names no known product: skipped, not invented
        ("neuron-dlami", "python-3.11", "announced", "2026-11-02", "2.40.0", None),
    ]
