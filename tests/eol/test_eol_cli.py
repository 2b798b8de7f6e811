"""`kb eol` as a user meets it: tables, JSON, exit codes of the gates, the iCalendar feed
(parsed back with icalendar), one-line errors, and the answers from the shipped data."""

import json
from datetime import date

import pytest

from tests.conftest import REPO, run_kb
from tests.eol.eol_fixtures import base_records, ingest


@pytest.fixture
def kb(small_data, isolated_kb, monkeypatch):
    ingest(isolated_kb, base_records())
    monkeypatch.setenv("KB_TODAY", "2026-11-30")
    return isolated_kb


def test_table_soonest_first(kb, capsys):
    code, out, _ = run_kb(capsys, "eol")
    assert code == 0
    body = out.splitlines()[2:]
    body = body[:next((i for i, line in enumerate(body) if line.startswith(("dates of ", "whose support", "state:"))),
                      len(body))]  # the legend lines under the table
    lines = [line.split()[0:2] for line in body]
    assert lines == [["python", "3.9"], ["pytorch", "2.8"], ["torch-neuronx-xla", "inference"], ["python", "3.10"],
                     ["ubuntu", "20.04"]]
    assert "pending: ends with Neuron 2.34" in out


def test_json_and_today_option(kb, capsys):
    code, out, _ = run_kb(capsys, "eol", "python", "--json", "--today", "2026-12-20")
    data = json.loads(out)
    assert code == 0 and data["today"] == "2026-12-20"
    stated = [w for w in data["windows"] if not w["listed"]]
    assert [w["cycle"] for w in stated] == ["3.10", "3.9"]  # pending first, then ended
    # then the cycles the newest release matrix lists and no statement ends: supported, no end stated
    listed = [w for w in data["windows"] if w["listed"]]
    assert [(w["cycle"], w["support_state"]) for w in listed] == [("3.12", "supported"), ("3.13", "supported")]
    assert all("no end stated" in w["state"] for w in listed)
    first = stated[1]
    assert (first["cycle"], first["is_eol"], first["eol_from"]) == ("3.9", True, "2026-12-15")
    assert isinstance(first["history"], list) and first["history"][0]["source_url"] == "https://example.test/eos"


def test_at(kb, capsys):
    code, out, _ = run_kb(capsys, "eol", "--at", "2027-03-01", "--json")
    assert code == 0
    assert {w["cycle"] for w in json.loads(out)["windows"] if w["status"] == "ended"} == {"3.9", "2.8", "20.04"}


def test_history_flag_shows_every_statement(small_data, isolated_kb, capsys, monkeypatch):
    from tests.eol.eol_fixtures import window

    monkeypatch.setenv("KB_TODAY", "2026-11-30")
    ingest(isolated_kb, [
        window("pytorch", "2.7", eol="2026-10-01", eol_kind="announced", statement_date="2026-01-10", sha="a"),
        window("pytorch", "2.7", eol="2027-04-01", eol_kind="announced", statement_date="2026-05-01", sha="b"),
    ])
    code, out, _ = run_kb(capsys, "eol", "pytorch", "--history")
    assert code == 0 and "2 statement(s)" in out and "2026-10-01" in out and "2027-04-01" in out


def test_stack_gate_exit_codes(kb, capsys):
    code, out, err = run_kb(capsys, "eol", "--stack", "neuron=2.33 torch=2.14 python=3.12 ubuntu=24.04 trn2")
    # the stack's answer is a result, on stdout; stderr keeps to notices (#26: it printed 3-4 lines there)
    assert code == 0 and "no conflicts" in out and out.startswith("stack neuron=2.33") and err == ""
    code, out, _ = run_kb(capsys, "eol", "--stack", "neuron=2.33 torch=2.12 ubuntu=22.04")
    assert code == 1 and "incompatible" in out and "Ubuntu 22.04" in out
    code, out, _ = run_kb(capsys, "eol", "--stack", "torch=2.8 python=3.12", "--within", "30d")
    assert code == 0
    code, out, _ = run_kb(capsys, "eol", "--stack", "torch=2.8 python=3.12", "--within", "90d", "--json")
    assert code == 1 and json.loads(out)["issues"][0]["kind"] == "within"


def test_within_without_a_stack_gates_on_the_listing(kb, capsys):
    code, out, _ = run_kb(capsys, "eol", "--within", "20d", "--json")
    assert code == 1 and [w["cycle"] for w in json.loads(out)["windows"]] == ["3.9"]
    code, _, err = run_kb(capsys, "eol", "ubuntu", "--within", "20d")
    assert code == 0 and "no support windows match within 20 days" in err


def test_ics_is_a_valid_calendar(kb, capsys, tmp_path):
    from icalendar import Calendar

    path = tmp_path / "eol.ics"
    code, _, _ = run_kb(capsys, "eol", "--ics", "--out", str(path))
    assert code == 0
    cal = Calendar.from_ical(path.read_bytes())
    events = {str(e["uid"]): e for e in cal.walk("VEVENT")}
    assert set(events) == {"python-3.9-eol@kb", "pytorch-2.8-eol@kb", "ubuntu-20.04-eol@kb"}  # pending: no event
    python = events["python-3.9-eol@kb"]
    assert python.decoded("dtstart") == date(2026, 12, 15) and "Python 3.9" in str(python["summary"])
    assert str(events["pytorch-2.8-eol@kb"]["status"]) == "TENTATIVE"  # a projected date
    assert str(python["url"]) == "https://example.test/eos"
    code, out, _ = run_kb(capsys, "eol", "--ics")
    assert code == 0 and out.startswith("BEGIN:VCALENDAR") and Calendar.from_ical(out)


@pytest.mark.parametrize("args, message", [
    (["--at", "tomorrow"], "--at: 'tomorrow' is not a date"),
    (["--today", "2026-13-01"], "today: '2026-13-01' is not a date"),
    (["--within", "soon"], "horizon 'soon'"),
    (["--stack", "cobol=1"], "unknown product 'cobol'"),
    (["--stack", "???"], "stack item '???'"),
    (["nothing-like-this"], "no support windows for 'nothing-like-this'"),
    (["--out", "x.ics"], "--out goes with --ics"),
])
def test_bad_input_is_one_line_and_exit_2(kb, capsys, args, message):
    code, out, err = run_kb(capsys, "eol", *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_shipped_data_answers(isolated_kb, capsys, monkeypatch):
    """The real data/: the two "ends in Neuron 2.34" windows resolve to the day 2.34.0
    shipped (2026-11-30): ending the day before, ended from that day; with the scraped
    Neuron documents (data/scraped), real dates come out."""
    keys = (("torch-neuronx-xla", "inference on Trn2 and Trn3"), ("nxd-inference", "Trn2 and Trn3"))
    for day, state in (("2026-11-29", "ending"), ("2026-11-30", "ended"), ("2026-12-01", "ended")):
        monkeypatch.setenv("KB_TODAY", day)
        code, out, _ = run_kb(capsys, "eol", "--json")
        assert code == 0
        got = {(w["product"], w["cycle"]): w for w in json.loads(out)["windows"] if w["scope"] == "vendor"}
        for key in keys:
            w = got[key]
            assert (w["eol_pending"], w["eol_release"], w["eol_from"], w["support_state"]) == (
                False, "2.34", "2026-11-30", state), (day, key)
            assert w["state"] == "ends with Neuron 2.34 (shipped 2.34.0 on 2026-11-30)"
    monkeypatch.setenv("KB_TODAY", "2026-11-30")
    code, out, _ = run_kb(capsys, "eol", "--json")
    by = {(w["product"], w["cycle"]): w for w in json.loads(out)["windows"] if w["scope"] == "vendor"}
    code, out, _ = run_kb(capsys, "eol", "--stack", "neuron=2.33 torch=2.14 python=3.11 ubuntu=22.04", "--json")
    issues = {(i["kind"], i["component"]) for i in json.loads(out)["issues"]}
    assert code == 1 and {("incompatible", "python=3.11"), ("incompatible", "ubuntu=22.04")} <= issues
    if not (REPO / "data" / "scraped" / "neuron-eos-announcements.jsonl").exists():
        return
    expected = {("python", "3.10"): ("2026-05-21", "2.30"), ("python", "3.9"): ("2025-12-19", "2.27"),
                ("pytorch", "2.8"): ("2026-04-09", "2.29"), ("torch-neuronx-xla", "training"): ("2026-05-21", "2.30")}
    for key, (day, release) in expected.items():
        assert (by[key]["eol_from"], by[key]["eol_release"], by[key]["is_eol"]) == (day, release, True)
    code, out, _ = run_kb(capsys, "eol", "--stack", "neuron=2.26 torch=2.8 python=3.9", "--json")
    messages = [i["message"] for i in json.loads(out)["issues"]]
    assert code == 1 and "Neuron 2.26: torch-neuronx-xla for PyTorch 2.8 supports Python 3.10, 3.11, not 3.9" in messages
