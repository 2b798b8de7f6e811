"""The live probe's parts in-process: numerics with dtype-aware tolerances, the journal's
tolerance of a torn last line, and the fallback detectors on the simulated device (the
backend's own counters and the generic dispatch-table reading must agree)."""

from __future__ import annotations

import json
import math

import pytest

torch = pytest.importorskip("torch")

from kb.probe.live import detect, journal, numerics, report  # noqa: E402


def test_numerics_tolerances_follow_the_dtype():
    x = torch.tensor([1.0, 2.0, 3.0])
    close = x * (1 + 1e-3)
    assert not numerics.compare(x, close)["ok"]  # float32: rtol 1.3e-6
    assert numerics.compare(x.bfloat16(), close.bfloat16())["ok"]  # bfloat16: rtol 1.6e-2
    wrong = numerics.compare(x, x + 0.5)
    assert wrong["mismatched"] == 3 and math.isclose(wrong["max_abs"], 0.5) and math.isclose(wrong["max_rel"], 0.5)
    assert numerics.compare(torch.tensor([1, 2]), torch.tensor([1, 3]))["mismatched"] == 1  # integers: exact


def test_numerics_nan_inf_structure_shape_dtype():
    nan = torch.tensor([float("nan"), float("inf"), 1.0])
    assert numerics.compare(nan, nan.clone())["ok"]
    assert not numerics.compare(nan, torch.tensor([0.0, float("inf"), 1.0]))["ok"]
    assert numerics.compare((torch.ones(2), 3), [torch.ones(2)])["why"] == "different output structure"
    assert "shape" in numerics.compare(torch.ones(2), torch.ones(3))["why"]
    assert "dtype" in numerics.compare(torch.ones(2), torch.ones(2).double())["why"]
    assert numerics.compare(torch.ones(2), torch.empty(2, device="meta"), data=False)["ok"]


def test_journal_drops_and_cuts_a_torn_last_line(tmp_path):
    path = tmp_path / "journal.jsonl"
    j = journal.Journal(str(path))
    j.append({"kind": "header", "run_id": "r"})
    j.append({"kind": "task", "key": "neg", "dtype": "float32"})
    j.close()
    with open(path, "a") as fh:
        fh.write('{"kind": "task", "key": "ab')  # killed mid-write
    header, tasks = journal.Journal(str(path)).read()
    assert header["run_id"] == "r" and [t["key"] for t in tasks] == ["neg"]
    j = journal.Journal(str(path))
    j.append({"kind": "task", "key": "abs", "dtype": "float32"})
    j.close()
    lines = path.read_text().splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["header", "task", "task"]


@pytest.fixture(scope="module")
def sim_loaded():
    from kb.probe import sim

    sim.load()
    return sim


def _run(detector, device_type, fn):
    from collections import defaultdict

    from kb.probe.live.beacon import Beacon
    from kb.probe.live.device import Device
    from kb.probe.live.task import recorder_class

    dev = Device.__new__(Device)
    dev.device, dev.detector = torch.device(device_type), detector
    calls = defaultdict(lambda: defaultdict(int))
    with recorder_class()(dev, Beacon(None), "t", calls, set()):
        try:
            fn()
        except NotImplementedError:
            pass
    return {name: {k: v for k, v in entry.items() if k in ("native", "fallback", "decomposed", "error")}
            for name, entry in calls.items()}


@pytest.mark.parametrize("generic", [False, True])
def test_detectors_agree_on_sim(sim_loaded, generic):
    sim = sim_loaded
    detector = detect.for_device("sim", "PrivateUse1", generic=generic)
    assert detector.name == ("dispatch_table" if generic else "sim_counters")
    x = sim.to_sim(torch.tensor([[3.0, -1.0], [0.0, 2.0]]))
    assert _run(detector, "sim", lambda: torch.neg(x)) == {"aten::neg": {"native": 1}}
    assert _run(detector, "sim", lambda: torch.flip(x, [0])) == {"aten::flip": {"fallback": 1}}
    assert _run(detector, "sim", lambda: torch.nonzero(x)) == {"aten::nonzero": {"error": 1}}
    sin = _run(detector, "sim", lambda: torch.sin(x))
    assert sin == {"aten::sin": {"decomposed": 1}}  # its composite kernel calls aten::sin.out


def test_host_only_calls_are_not_device_evidence(sim_loaded):
    detector = detect.for_device("sim", "PrivateUse1")
    assert _run(detector, "sim", lambda: torch.ones(2).neg()) == {}


def test_report_tally_picks_the_worst_and_keeps_partial_errors():
    header = {"run_id": "r", "primary": {"foo": "aten::foo"}}
    tasks = [
        {"key": "a", "dtype": "float32", "outcome": "ok", "calls": {"aten::x": {"native": 2, "error": 1, "error_class": "E", "error_line": "bad"}}},
        {"key": "b", "dtype": "float32", "outcome": "ok", "calls": {"aten::y": {"error": 2, "error_class": "E", "error_line": "no"}}},
        {"key": "foo", "dtype": "float32", "outcome": "crash", "op": None, "exit": "was killed by SIGSEGV"},
    ]
    tally = report.tally(header, tasks)
    assert tally[("aten::x", "float32")].status() == "native"
    assert tally[("aten::y", "float32")].status() == "unsupported"
    crash = tally[("aten::foo", "float32")]
    assert crash.status() == "crash" and crash.crash["attributed_by"] == "opinfo name"


class FakeNeuron:
    """The shape of torch_neuronx's op trackers: deduplicated name sets, cleared on request."""

    def __init__(self):
        self.fallback, self.executed = set(), set()

    def get_fallback_ops(self):
        return set(self.fallback)

    def get_executed_ops(self):
        return set(self.executed)

    def clear_op_tracking(self):
        self.fallback.clear()
        self.executed.clear()


def test_neuron_detector_reads_the_trackers_per_call():
    fake = FakeNeuron()
    detector = detect.NeuronDetector(module=fake)
    token = detector.before("aten::flip")
    fake.fallback.add("aten::flip")
    assert detector.after("aten::flip", token) == ("fallback", [])
    token = detector.before("aten::flip")  # cleared: a set that records names once still works per call
    fake.fallback.add("flip")  # short names count too
    assert detector.after("aten::flip", token) == ("fallback", [])
    token = detector.before("aten::addmm")
    fake.fallback.add("aten::mm")
    assert detector.after("aten::addmm", token) == ("native", ["aten::mm"])
    token = detector.before("aten::neg")
    import warnings

    warnings.warn("aten::neg: falling back to CPU (fallback)", stacklevel=1)
    assert detector.after("aten::neg", token)[0] == "fallback"


def test_opinfo_database_that_moved_is_a_clear_error(monkeypatch):
    from kb.errors import KBError
    from kb.probe.live import opinfos

    monkeypatch.setattr(opinfos, "OPINFO_MODULE", "kb.vocab")  # importable, but no op_db
    with pytest.raises(KBError, match=r"torch .*OpInfo database \(kb.vocab.op_db\) is not available"):
        opinfos.load_op_db()
    monkeypatch.setattr(opinfos, "OPINFO_MODULE", "kb.no_such_module")
    with pytest.raises(KBError, match="cannot import kb.no_such_module"):
        opinfos.load_op_db()


def test_ops_patterns():
    from kb.probe.live.opinfos import matches, parse_patterns

    patterns = parse_patterns("add, nn.functional.*")
    assert matches("add", patterns) and matches("nn.functional.relu", patterns)
    assert not matches("addmm", patterns) and matches("anything", parse_patterns(""))


def test_one_writer_per_run(tmp_path):
    first = journal.Journal(str(tmp_path / "journal.jsonl"))
    first.append({"kind": "header", "run_id": "r"})
    second = journal.Journal(str(tmp_path / "journal.jsonl"))
    with pytest.raises(journal.JournalError, match="another probe is writing this run"):
        second.append({"kind": "task"})
    first.close()
    second.append({"kind": "task", "key": "neg", "dtype": "float32"})
    second.close()
