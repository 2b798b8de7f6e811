"""Support windows from ingested statements: order, --at, with_release resolution,
newer statements winning with the history kept, stack checks, horizons, kb check warnings."""

from datetime import date, timedelta

import pytest

from kb.eol import windows as eol
from kb.store import db
from tests.eol.eol_fixtures import base_records, ingest, release, window

TODAY = date(2026, 11, 30)


@pytest.fixture
def kb(small_data, isolated_kb):
    ingest(isolated_kb, base_records())
    return isolated_kb


def _windows(path, day=TODAY, **kw):
    return eol.listing(db.open_kb(str(path)), today_=day, **kw)["windows"]


def _names(windows):
    return [(w["product"], w["cycle"]) for w in windows]


def test_soonest_first_then_pending_then_ended(kb):
    assert _names(_windows(kb)) == [
        ("python", "3.9"), ("pytorch", "2.8"),  # dated, soonest first
        ("torch-neuronx-xla", "inference"), ("python", "3.10"),  # pending: Neuron 2.34, then 2.35
        ("ubuntu", "20.04"),  # already ended
    ]


def test_is_eol_and_eol_from_are_separate_fields(kb):
    by = {(w["product"], w["cycle"]): w for w in _windows(kb)}
    assert (by["ubuntu", "20.04"]["is_eol"], by["ubuntu", "20.04"]["eol_from"]) == (True, "2025-06-01")
    assert (by["python", "3.9"]["is_eol"], by["python", "3.9"]["eol_from"]) == (False, "2026-12-15")
    pending = by["torch-neuronx-xla", "inference"]
    assert (pending["is_eol"], pending["eol_from"], pending["eol_pending"]) == (False, None, True)
    assert pending["status"] == "pending" and pending["state"] == "pending: ends with Neuron 2.34 (not known as of 2026-11-01)"
    assert by["pytorch", "2.8"]["eol_kind"] == "projected" and by["python", "3.9"]["days_left"] == 15
    assert by["python", "3.9"]["source_url"] == "https://example.test/eos"
    assert by["python", "3.9"]["retrieved_at"] == "2026-11-01T00:00:00+00:00"


def test_at_lists_what_is_out_of_support_on_that_day(kb):
    later = _windows(kb, at=date(2027, 3, 1))
    assert {(w["product"], w["cycle"]): w["status"] for w in later} == {
        ("python", "3.9"): "ended", ("pytorch", "2.8"): "ended", ("ubuntu", "20.04"): "ended",
        ("torch-neuronx-xla", "inference"): "pending", ("python", "3.10"): "pending"}
    early = _windows(kb, at=date(2026, 12, 1))
    assert ("python", "3.9") not in _names(early) and ("ubuntu", "20.04") in _names(early)


def test_ends_with_release_resolves_when_that_release_ships(kb):
    ingest(kb, [release("neuron-sdk", "2.34.0")], source="rn-undated")  # announced, no date yet
    (xla,) = _windows(kb, product="xla")
    assert xla["eol_pending"] and xla["eol_from"] is None
    ingest(kb, [release("neuron-sdk", "2.34.1", date="2027-02-20"),
                release("neuron-sdk", "2.34.0", date="2027-01-20")], source="rn-dated")
    (xla,) = _windows(kb, product="xla")
    assert (xla["eol_pending"], xla["eol_from"], xla["eol_release_version"]) == (False, "2027-01-20", "2.34.0")
    assert xla["state"] == "ends with Neuron 2.34 (shipped 2.34.0 on 2027-01-20)" and not xla["is_eol"]
    (xla,) = _windows(kb, day=date(2027, 1, 20), product="xla")
    assert xla["is_eol"] and xla["status"] == "ended"


def test_a_later_statement_wins_and_the_history_stays(small_data, isolated_kb):
    newer = window("pytorch", "2.7", eol="2027-04-01", eol_kind="announced", statement_date="2026-05-01",
                   url="https://example.test/extended", sha="b")
    older = window("pytorch", "2.7", eol="2026-10-01", eol_kind="announced", statement_date="2026-01-10", sha="a")
    ingest(isolated_kb, [newer], source="one")
    ingest(isolated_kb, [older], source="two")  # ingested last, stated first: still loses
    (w,) = _windows(isolated_kb)
    assert (w["eol_from"], w["source_url"], w["is_eol"], w["superseded"]) == (
        "2027-04-01", "https://example.test/extended", False, 1)
    assert [(h["eol"], h["current"]) for h in w["history"]] == [("2027-04-01", True), ("2026-10-01", False)]


def test_same_statement_date_the_later_retrieval_wins(small_data, isolated_kb):
    ingest(isolated_kb, [
        window("python", "3.11", eol="2027-06-01", statement_date="2026-05-01", at="2026-11-20T00:00:00+00:00", sha="x"),
        window("python", "3.11", eol="2027-09-01", statement_date="2026-05-01", at="2026-11-25T00:00:00+00:00", sha="y"),
    ])
    (w,) = _windows(isolated_kb)
    assert w["eol_from"] == "2027-09-01" and w["eol_kind"] == "announced"


def test_a_maintenance_statement_does_not_erase_the_end_of_life(small_data, isolated_kb):
    ingest(isolated_kb, [
        window("pytorch", "2.9", eol="2027-08-01", eol_kind="announced", statement_date="2026-03-01", sha="1"),
        window("pytorch", "2.9", support_end="2026-11-01", statement_date="2026-10-01", sha="2"),
    ])
    (w,) = _windows(isolated_kb)
    assert (w["eol_from"], w["support_end"], w["status"], w["in_maintenance"]) == (
        "2027-08-01", "2026-11-01", "maintenance", True)


def test_source_product_names_meet_in_one_window(small_data, isolated_kb):
    ingest(isolated_kb, [
        window("torch-neuronx-xla", "Inference", eol_kind="projected", statement_date="2026-02-01", sha="p"),
        window("PyTorch/XLA on Neuron", "inference", eol_kind="with_release", eol_release="2.34",
               statement_date="2026-10-01", sha="q"),
    ])
    (w,) = _windows(isolated_kb)
    assert w["product"] == "torch-neuronx-xla" and len(w["history"]) == 2 and w["eol_pending"]
    assert {h["source_product"] for h in w["history"]} == {"torch-neuronx-xla", "PyTorch/XLA on Neuron"}


def test_loose_product_filter(kb):
    # torch-neuronx is the package of both families: its windows are those of PyTorch/XLA on
    # Neuron and of the native TorchNeuron, each under its own product name (the README's
    # `kb eol torch-neuronx` answers)
    both = _windows(kb, product="torch-neuronx")
    assert _names(w for w in both if not w["listed"]) == [("torch-neuronx-xla", "inference")]
    assert _names(w for w in both if w["listed"]) == [("torchneuron", "2.13.3.0"), ("torchneuron", "2.14.3.0")]
    assert _names(_windows(kb, product="torch-neuronx-xla")) == [("torch-neuronx-xla", "inference")]
    assert _names(_windows(kb, product="PyTorch/XLA")) == [("torch-neuronx-xla", "inference")]
    assert _names(w for w in _windows(kb, product="Python") if not w["listed"]) == [
        ("python", "3.9"), ("python", "3.10")]
    with pytest.raises(eol.EolError, match="no support windows for 'cobol'"):
        _windows(kb, product="cobol")


def test_stack_reports_incompatible_combinations_and_the_first_end(kb):
    result = eol.check_stack(db.open_kb(str(kb)), "neuron=2.33 torch=2.12 python=3.9 ubuntu=22.04 trn1",
                             today_=TODAY)
    found = {(i["kind"], i["component"]) for i in result["issues"]}
    assert {("incompatible", "torch=2.12"), ("incompatible", "python=3.9"), ("incompatible", "ubuntu=22.04"),
            ("incompatible", "instance=trn1")} <= found
    assert result["first_eol"]["eol_from"] == "2026-12-15" and result["failed"]
    torch_issue = next(i for i in result["issues"] if i["component"] == "torch=2.12")
    assert "PyTorch 2.13.0, 2.14.0" in torch_issue["message"]


def test_a_good_stack_passes(kb):
    result = eol.check_stack(db.open_kb(str(kb)), "neuron=2.33 torch=2.14 python=3.12 ubuntu=24.04 trn2",
                             today_=TODAY)
    assert result["issues"] == [] and not result["failed"] and result["matrices_checked"] == ["Neuron 2.33"]


def test_a_stack_past_an_ends_with_release_is_incompatible_before_any_date(kb):
    result = eol.check_stack(db.open_kb(str(kb)), "neuron=2.35 python=3.10", today_=TODAY)
    assert [(i["kind"], i["component"]) for i in result["issues"]] == [("incompatible", "python=3.10")]
    result = eol.check_stack(db.open_kb(str(kb)), "neuron=2.33 python=3.10", today_=TODAY)
    assert [i["kind"] for i in result["issues"]] == ["pending", "incompatible"]  # 3.10 is off the 2.33 matrix too


def test_horizon(kb):
    conn = db.open_kb(str(kb))
    stack = "torch=2.8 python=3.12"
    assert not eol.check_stack(conn, stack, within=timedelta(days=30), today_=TODAY)["failed"]
    result = eol.check_stack(conn, stack, within=eol.parse_horizon("90d"), today_=TODAY)
    assert result["failed"] and [i["kind"] for i in result["issues"]] == ["within"]
    assert eol.parse_horizon("12w") == timedelta(days=84) and eol.parse_horizon("1y") == timedelta(days=365)
    with pytest.raises(eol.EolError):
        eol.parse_horizon("soon")


@pytest.mark.parametrize("text", ["", "=2", "torch=", "???"])
def test_bad_stacks_are_one_line_errors(text):
    with pytest.raises(eol.EolError):
        eol.parse_stack(text)


def test_stack_parsing_accepts_aliases():
    parsed = eol.parse_stack("neuron=2.33, torch=2.14 py=3.12 os=22.04 Trn2 torch-neuronx=2.14.3.0")
    assert [(c["product"], c["version"]) for c in parsed] == [
        ("neuron-sdk", "2.33"), ("pytorch", "2.14"), ("python", "3.12"), ("ubuntu", "22.04"),
        ("instance", "Trn2"), ("torch-neuronx", "2.14.3.0")]


def test_a_package_release_is_checked_against_its_own_matrix(kb):
    result = eol.check_stack(db.open_kb(str(kb)), "neuron=2.32 torch-neuronx=2.14.3.0 torch=2.13", today_=TODAY)
    messages = [i["message"] for i in result["issues"]]
    assert "torchneuron 2.14.3.0 supports PyTorch 2.14.0, not 2.13" in messages
    assert "torchneuron 2.14.3.0 ships with Neuron 2.33.0, not 2.32" in messages


def test_warnings_for_kb_check(kb):
    conn = db.open_kb(str(kb))
    ingest(kb, [window("pytorch", "2.14", eol="2027-03-01", eol_kind="projected", statement_date="2026-10-20")],
           source="more")
    native = eol.warnings_for(conn, "neuron", "2.14.3.0", TODAY)
    assert [(w["severity"], w["product"], w["cycle"]) for w in native] == [("warning", "pytorch", "2.14")]
    xla = eol.warnings_for(conn, "neuron-xla", None, TODAY)
    assert [(w["severity"], w["kind"], w["eol_pending"]) for w in xla] == [("warning", "pending", True)]
    old_python = eol.warnings_for(conn, "neuron", "2.14.3.0", date(2027, 1, 1), extra={"python": "3.9"})
    assert old_python[0]["severity"] == "error" and old_python[0]["is_eol"]
    assert any(w["kind"] == "incompatible" for w in old_python)
    assert eol.warnings_for(conn, "tpu", "0.2.0", TODAY) == []


def test_python_must_fit_the_packages_built_for_the_stacks_pytorch(small_data, isolated_kb):
    ingest(isolated_kb, [
        release("neuron-sdk", "2.26.0", date="2025-09-18", sdk_version="2.26.0"),
        release("torch-neuronx-xla", "2.7.0.2.10.1", sdk_version="2.26.0", torch_versions=("2.7.0",),
                python_versions=("3.9", "3.10", "3.11")),
        release("torch-neuronx-xla", "2.8.0.2.10.1", sdk_version="2.26.0", torch_versions=("2.8.0",),
                python_versions=("3.10", "3.11")),
    ])
    conn = db.open_kb(str(isolated_kb))
    assert eol.check_stack(conn, "neuron=2.26 torch=2.7 python=3.9", today_=TODAY)["issues"] == []
    (issue,) = eol.check_stack(conn, "neuron=2.26 torch=2.8 python=3.9", today_=TODAY)["issues"]
    assert issue["message"] == ("Neuron 2.26: torch-neuronx-xla for PyTorch 2.8 supports Python 3.10, 3.11, not 3.9")


def test_unattributed_announcements_find_their_product(small_data, isolated_kb):
    ingest(isolated_kb, [
        window("neuron-feature", "nxdi-nxd-core-inference", statement_date="2026-05-20",
               note="maintenance mode: ends with Neuron 2.30"),
        window("neuron-feature", "some-flag", eol="2025-01-01", eol_kind="announced"),
        window("Inf1", "", eol="2026-02-01", eol_kind="announced"),
    ])
    by = {(w["product"], w["cycle"]): w for w in _windows(isolated_kb)}
    assert set(by) == {("nxd-inference", "nxdi-nxd-core-inference"), ("neuron-feature", "some-flag"),
                       ("instance", "inf1")}
    assert by["nxd-inference", "nxdi-nxd-core-inference"]["state"] == "maintenance mode stated, no date"
    assert _names(_windows(isolated_kb, product="nxd")) == [("nxd-inference", "nxdi-nxd-core-inference")]


def test_a_release_train_other_than_neurons(small_data, isolated_kb):
    ingest(isolated_kb, [
        window("torch-tpu", "0.2", eol_kind="with_release", eol_release="0.4", statement_date="2026-10-01", sha="t"),
        window("python", "3.11", eol_kind="with_release", eol_release="torch_tpu 0.4", sha="u"),
        release("torch_tpu", "0.4.0", date="2027-03-03"),
        release("neuron-sdk", "0.4.0", date="2020-01-01"),  # same number, other train: ignored
    ])
    by = {(w["product"], w["cycle"]): w for w in _windows(isolated_kb)}
    assert by["torch_tpu", "0.2"]["eol_from"] == "2027-03-03" and by["torch_tpu", "0.2"]["eol_release_product"] == "torch_tpu"
    assert by["python", "3.11"]["eol_from"] == "2027-03-03" and by["python", "3.11"]["state"].startswith("ends with torch_tpu 0.4")


def test_every_cycle_says_supported_ending_or_ended_and_how_long(kb):
    windows = {(w["product"], w["cycle"]): w for w in _windows(kb)}
    for w in windows.values():
        assert w["support_state"] in ("supported", "ending", "ended", "unknown")
        if w["is_eol"]:
            assert w["support_state"] == "ended" and w["relative"] == f"ended {-w['days_left']} days ago"
    assert eol.relative(-194) == "ended 194 days ago" and eol.relative(30) == "ends in 30 days"
    assert eol.relative(1) == "ends in 1 day" and eol.relative(None) == ""


def test_someone_elses_product_says_whose_support_it_is(kb):
    (w, *_) = _windows(kb, product="python")
    assert w["support_by"]  # whose support: the source (test-doc here, the Neuron SDK in the shipped data)
    assert _windows(kb, product="torch-neuronx-xla")[0]["support_by"] is None


def test_stack_names_the_parts_nobody_dates(kb):
    conn = db.open_kb(str(kb))
    result = eol.check_stack(conn, "python=3.12 ubuntu=24.04", today_=TODAY)
    assert result["unknown"] == ["python=3.12", "ubuntu=24.04"] and not result["failed"]
    assert eol.check_stack(conn, "python=3.12", today_=TODAY, fail_on_unknown=True)["failed"]
