"""Neuron 2.34 in the shipped data (issue 25): its release, its "ends with 2.34" windows
resolved to the day it shipped, upstream end-of-life dates beside Neuron's, rows for
torch_tpu and libtpu, and the freshness notice against a fixed clock."""

import json
from datetime import date, timedelta

import pytest

from cli.entry import main
from kb.store import db, queries
from kb.store.records import Release, SupportWindow
from scrapers import neuron_announcements, neuron_release_notes, reference_facts
from scrapers.base import Document
from tests.conftest import REPO, run_kb

FACTS = REPO / "scrapers" / "facts" / "manual-facts-2026-11.csv"


def _json(capsys, *args):
    code, out, err = run_kb(capsys, *args, "--json")
    return code, json.loads(out), err


def test_neuron_234_is_a_release_and_its_packages_get_presumed_verdicts(isolated_kb, capsys):
    conn = db.open_kb(str(isolated_kb))
    sdk = dict(conn.execute("SELECT * FROM release WHERE product = 'neuron-sdk' AND version = '2.34.0'").fetchone())
    assert sdk["date"] == "2026-11-30" and sdk["source_url"].endswith("/release-notes/2.34.0.html")
    # the torch-neuronx the 2.34 components require (the only 2.34 package a stored page names)
    native = dict(conn.execute("SELECT * FROM release WHERE product = 'torchneuron' AND version = '2.14.3.1'").fetchone())
    assert native["sdk_version"] == "2.34.0" and native["channel"] == "beta"
    assert json.loads(native["torch_versions"]) == ["2.14.0"]
    assert json.loads(native["python_versions"]) == ["3.12", "3.13", "3.14"]
    # carried forward like 2.33's packages: presumed, from the same older version
    rows = conn.execute("SELECT s.basis, s.effective_via FROM support s JOIN release r ON r.id = s.release_id "
                        "WHERE s.target = 'neuron' AND r.version IN ('2.14.3.0', '2.14.3.1') AND s.op = 'aten::silu' "
                        "AND s.mode = 'eager' ORDER BY r.version").fetchall()
    assert [r["basis"] for r in rows] == ["presumed", "presumed"]
    assert len({json.loads(r["effective_via"])["presumed_from"] for r in rows}) == 1
    code, data, _ = _json(capsys, "targets")
    neuron = next(t for t in data["targets"] if t["name"] == "neuron")
    assert code == 0 and "2.14.3.1" in json.dumps(neuron)


@pytest.mark.parametrize("day, state, is_eol", [("2026-11-29", "ending", False), ("2026-11-30", "ended", True)])
def test_ends_with_234_windows_resolve_to_the_day_it_shipped(isolated_kb, capsys, monkeypatch, day, state, is_eol):
    monkeypatch.setenv("KB_TODAY", day)
    for product, cycle in (("torch-neuronx-xla", "inference on Trn2 and Trn3"), ("nxd-inference", "Trn2 and Trn3"),
                           ("neuron-feature", "neuron-ls JSON output (--json-output / -j)")):
        code, data, _ = _json(capsys, "eol", product)
        (w,) = [w for w in data["windows"] if w["cycle"] == cycle]
        assert (w["eol_from"], w["support_state"], w["is_eol"], w["eol_pending"]) == ("2026-11-30", state, is_eol, False)
        assert "shipped 2.34.0 on 2026-11-30" in w["state"]


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_eol_never_says_unreleased_only_not_known_as_of(isolated_kb, capsys, monkeypatch, tmp_path):
    """A window for a release kb has no row for says "not known as of DATE" (the day of
    the newest release data), in the table and the stack check."""
    from kb.store.ingest import ingest_records
    from tests.conftest import prov

    statement = SupportWindow(product="PyTorch/XLA on Neuron", cycle="inference on Inf2", eol_kind="with_release",
                              eol_release="2.40", provenance=prov(at="2026-12-01T00:00:00+00:00"))
    ingest_records(str(isolated_kb), [statement], source_name="future")
    monkeypatch.setenv("KB_TODAY", "2026-12-01")
    code, out, _ = run_kb(capsys, "eol", "xla")
    assert code == 0 and "with Neuron 2.40 (not known as of 2026-12-01)" in out and "not yet released" not in out
    code, data, _ = _json(capsys, "eol", "--stack", "neuron=2.34 xla=inference")
    messages = [i["message"] for i in data["issues"]]
    assert any("not known as of 2026-12-01" in m for m in messages)
    assert not any("not yet released" in m for m in messages)


def test_stack_with_neuron_234(isolated_kb, capsys, monkeypatch):
    monkeypatch.setenv("KB_TODAY", "2026-12-01")
    code, data, _ = _json(capsys, "eol", "--stack", "neuron=2.34 torch=2.9 python=3.12 ubuntu=24.04")
    assert "Neuron 2.34" in data["matrices_checked"]
    # PyTorch 2.9 (PyTorch/XLA) is not in 2.34's matrix: its torch-neuronx last shipped in 2.31
    assert ("incompatible", "torch=2.9") in {(i["kind"], i["component"]) for i in data["issues"]}
    windows = {(w["product"], w["cycle"], w["scope"]) for w in data["windows"]}
    assert ("python", "3.12", "upstream") in windows and ("ubuntu", "24.04", "upstream") in windows
    assert ("pytorch", "2.9", "upstream") in windows


def test_upstream_dates_beside_neurons_with_whose_support(isolated_kb, capsys, monkeypatch):
    monkeypatch.setenv("KB_TODAY", "2026-12-01")
    code, data, _ = _json(capsys, "eol", "python")
    by = {(w["cycle"], w["support_by"]): w for w in data["windows"]}
    assert by[("3.10", "upstream")]["eol_from"] == "2026-10-01" and by[("3.10", "upstream")]["eol_approximate"]
    assert by[("3.10", "upstream")]["source_url"] == "https://devguide.python.org/versions/"
    assert by[("3.10", "Neuron SDK")]["eol_from"] == "2026-05-21"  # Neuron 2.30 ended it earlier
    assert by[("3.12", "upstream")]["support_state"] == "supported"
    assert by[("3.12", "Neuron SDK")]["listed"]  # still in the newest Neuron matrix: a supported cycle
    code, data, _ = _json(capsys, "eol", "ubuntu")
    ubuntu = {(w["cycle"], w["support_by"]): w for w in data["windows"]}
    assert ubuntu[("22.04", "upstream")]["eol_from"] == "2027-05-01"
    assert ubuntu[("26.04", "upstream")]["eol_kind"] == "projected"
    assert ubuntu[("20.04", "upstream")]["source_url"] == "https://ubuntu.com/about/release-cycle"
    # beside them, what the newest Neuron support matrix says: 22.04 ended (no date), 24.04 supported
    assert ubuntu[("22.04", "Neuron SDK")]["support_state"] == "ended" and ubuntu[("22.04", "Neuron SDK")]["listed"]
    assert ubuntu[("24.04", "Neuron SDK")]["support_state"] == "supported"
    code, data, _ = _json(capsys, "eol", "pytorch")
    torch = {(w["cycle"], w["support_by"]): w for w in data["windows"]}
    assert torch[("2.13", "upstream")]["state"] == "no end stated by its maintainers"
    assert torch[("2.8", "Neuron SDK")]["is_eol"]
    code, out, err = run_kb(capsys, "eol", "python")
    assert "upstream (own end of life)" in out and "Neuron SDK" in out


@pytest.mark.parametrize("product, cycle, url", [
    ("torch_tpu", "0.2.0", "https://pypi.org/project/torch-tpu/0.2.0/"),
    ("libtpu", "0.0.52", "https://pypi.org/project/libtpu/"),
])
def test_torch_tpu_and_libtpu_rows_say_no_end_stated_with_the_source(isolated_kb, capsys, product, cycle, url):
    code, data, _ = _json(capsys, "eol", product)
    rows = [w for w in data["windows"] if w["cycle"] == cycle and w["support_by"] == "upstream"]
    assert code == 0 and len(rows) == 1
    assert rows[0]["source_url"] == url and rows[0]["eol_from"] is None and rows[0]["support_state"] == "unknown"


def test_eol_torch_neuronx_answers_on_stdout(isolated_kb, capsys):
    code, out, _ = run_kb(capsys, "eol", "torch-neuronx")
    assert code == 0 and "torch-neuronx-xla" in out and "torchneuron" in out and "2.14.3.1" in out


def _newest(isolated_kb) -> date:
    return date.fromisoformat(queries.newest_data_day(db.open_kb(str(isolated_kb))))


def test_freshness_notice_with_a_fixed_clock(isolated_kb, capsys, monkeypatch):
    newest = _newest(isolated_kb)
    monkeypatch.setenv("KB_TODAY", (newest + timedelta(days=30)).isoformat())
    assert main(["targets"]) == 0
    assert "kb ingest --all" not in capsys.readouterr().err  # fresh: no notice
    monkeypatch.setenv("KB_TODAY", (newest + timedelta(days=31)).isoformat())
    assert main(["targets"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "kb ingest --all" in line]
    assert lines == [f"kb: the KB's newest data is from {newest} (31 days old): `kb ingest --all` refreshes it "
                     "(`kb data export` writes the result to data/ to share)"]
    assert main(["version"]) == 0
    out = capsys.readouterr().out
    assert f"as of {newest}" in out


def test_version_json_states_as_of_per_source(isolated_kb, capsys):
    code, data, _ = _json(capsys, "version")
    assert data["data_as_of_by_source"]["manual-facts-2026-11"] == "2026-12-01"
    assert data["data_as_of"] == max(data["data_as_of_by_source"].values())


def test_basis_notes_say_as_of(isolated_kb, capsys):
    code, data, _ = _json(capsys, "op", "aten::silu", "-t", "neuron=2.14.3.1")
    assert any("as of " in n for n in data["basis_notes"])


# ---------------------------------------------------------------- the facts file and the scrapers

def test_project_facts_file_reproduces_the_shipped_records():
    text = FACTS.read_text(encoding="utf-8")
    records = reference_facts.parse_manual_facts(text, source_file_url="file://x", retrieved_at="x", sha256="s",
                                                 source_name=reference_facts.PROJECT_FACTS)
    kept = (REPO / "data" / "manual" / "manual-facts-2026-11.jsonl").read_text(encoding="utf-8").splitlines()
    strip = lambda line: {k: v for k, v in json.loads(line).items() if k != "provenance"}  # noqa: E731
    from kb.store.records import dumps

    assert sorted(map(json.dumps, map(strip, map(dumps, records)))) == sorted(map(json.dumps, map(strip, kept)))
    for r in records:  # every fact names its vendor page and when it was read
        assert r.provenance.source_url.startswith("https://") and r.provenance.retrieved_at.startswith("2026-12-01")


def test_upstream_rows_parse_dates_projections_and_no_end():
    header = "kind,product,subject,value,note,source_url,retrieved_at,statement_date\n"
    rows = ("upstream-eol,Python,3.12,2028-10,,https://devguide.python.org/versions/,2026-12-01T00:00:00+00:00,\n"
            "upstream-eol,Ubuntu,26.04,projected 2031-04,,https://ubuntu.com/about/release-cycle,,\n"
            "upstream-eol,libtpu,0.0.52,no end stated,,https://pypi.org/project/libtpu/,,\n")
    out = reference_facts.parse_manual_facts(header + rows, source_file_url="f", retrieved_at="r", sha256="s")
    assert [(w.eol, w.eol_kind, w.provenance.source_name) for w in out] == [
        ("2028-10", "announced", "upstream-eol"), ("2031-04", "projected", "upstream-eol"), (None, None, "upstream-eol")]
    assert out[0].provenance.retrieved_at == "2026-12-01T00:00:00+00:00" and out[1].provenance.retrieved_at == "r"
    with pytest.raises(reference_facts.FactsError, match="not a date"):
        reference_facts.parse_manual_facts(header + "upstream-eol,Python,3.12,soon,,u,,\n", source_file_url="f",
                                           retrieved_at="r", sha256="s")


RELEASE_234 = """.. _neuron-2-34-0-whatsnew:

.. meta::
   :description: Release notes of a test SDK, version 2.34.0. Release date: 11/30/2026.
   :date-modified: 2026-11-30

Neuron SDK 2.34.0 notes (a test page)
=====================================

**Date of release**: November 30, 2026

Component release notes
-----------------------

* A card for a component.
"""

ANNOUNCE_234 = """.. post:: November 17, 2026
    :language: en
    :tags: announce-no-support-test-library-trn

.. _announce-no-support-test-library-trn:

Neuron no longer supports the test library on Trn2 and Trn3 starting with Neuron 2.34
-------------------------------------------------------------------------------------

Starting with Neuron Release 2.34.0, Neuron no longer supports the test library on Trn2 and
Trn3 instances.
"""


def test_release_notes_scraper_reads_a_234_shaped_page():
    """The 2.34 page shape (meta date-modified, a plain date line) is one the scraper reads."""
    doc = Document(url="https://example.test/release-notes/2.34.0.html", text=RELEASE_234,
                   path="release-notes/2.34.0.rst")
    (release,) = [r for r in neuron_release_notes.SOURCE.scrape([doc])
                  if isinstance(r, Release) and r.product == "neuron-sdk"]
    assert (release.version, release.date) == ("2.34.0", "2026-11-30")


def test_announcement_scraper_reads_a_234_no_longer_supported_post():
    doc = Document(url="https://example.test/announce-no-support-test-library-trn.html", text=ANNOUNCE_234,
                   path="about-neuron/announcements/neuron2.x/announce-no-support-test-library-trn.rst")
    (w,) = [r for r in neuron_announcements.SOURCE.scrape([doc]) if isinstance(r, SupportWindow)]
    assert (w.eol_kind, w.eol_release, w.statement_date) == ("with_release", "2.34", "2026-11-17")


def test_calendar_keeps_own_end_of_life_apart(isolated_kb, capsys, monkeypatch):
    from icalendar import Calendar

    monkeypatch.setenv("KB_TODAY", "2026-12-01")
    code = main(["eol", "python", "--ics"])
    cal = Calendar.from_ical(capsys.readouterr().out)
    uids = [str(e["uid"]) for e in cal.walk("VEVENT")]
    assert code == 0 and len(uids) == len(set(uids))
    summaries = {str(e["uid"]): str(e["summary"]) for e in cal.walk("VEVENT")}
    assert "(its own)" in summaries["python-3.10-eol-upstream@kb"]
    assert "Neuron SDK's support" in summaries["python-3.10-eol@kb"]
