"""The dispatcher replay on the simulated backend: a kernel list and a fallback policy in,
every overload's verdict out — decided by PyTorch's real dispatcher, and equal to what
the live probe records on a sim configured the same way."""

from __future__ import annotations

import json
import os
import tempfile

import pytest

from kb import paths
from kb.probe import replay
from kb.probe.live import report
from kb.store.catalog import read_catalog, shipped_catalogs

KERNELS = ("aten::add.Tensor", "aten::add.out", "aten::mul.Tensor", "aten::mm", "aten::sum",
           "aten::view", "aten::as_strided", "aten::empty.memory_format", "aten::empty_strided", "aten::copy_",
           "aten::_copy_from", "aten::_copy_from_and_resize", "aten::_local_scalar_dense")
OPINFOS = ["nn.functional.layer_norm", "transpose", "add", "sub", "nn.functional.linear"]
SOURCE = "https://example.test/kernels.cc"


def _spec(tmp_path, policy=("cpu", "raise")) -> replay.ReplaySpec:
    (tmp_path / "kernels.txt").write_text("# a test backend\n" + "\n".join(KERNELS) + "\n", encoding="utf-8")
    (tmp_path / "spec.json").write_text(json.dumps({
        "target": "sim", "backend_version": "9.9.9",
        "kernels": {"file": "kernels.txt", "source": SOURCE},
        "policy": {"eager": {"action": policy[0]}, "compile": {"action": policy[1], "note": "no graph compiler"}},
        "policy_source": "https://example.test/policy",
    }), encoding="utf-8")
    return replay.load_spec(str(tmp_path / "spec.json"))


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replay")
    spec = _spec(folder)
    run, statuses = replay.replay(spec, read_catalog(shipped_catalogs()[-1]), patterns=OPINFOS, workers=1)
    return spec, run, {(s.op, s.mode): s for s in statuses}


def test_every_overload_gets_a_verdict_with_its_inputs_named(replayed):
    spec, run, by_key = replayed
    catalog = {row["name"] for row in read_catalog(shipped_catalogs()[-1])}
    assert {op for op, _mode in by_key} >= catalog - {"aten::ctc_loss"}
    add = by_key[("aten::add.Tensor", "eager")]
    assert add.status == "native" and add.provenance.source_kind == "inferred"
    assert add.provenance.source_url == SOURCE and add.provenance.probe_run_id == run.run_id
    assert run.kind == "replay" and run.fallback_policy["source"] == "https://example.test/policy"
    assert run.torch_version and by_key[("aten::nonzero", "eager")].status == "fallback"
    assert by_key[("aten::nonzero", "compile")].status == "unsupported"  # no fallback when compiling
    assert by_key[("aten::nonzero", "eager")].detail["rule"] == "fallback"


def test_replayed_verdicts_equal_the_live_probe_on_the_same_sim(replayed, tmp_path):
    spec, _run, by_key = replayed
    with tempfile.TemporaryDirectory() as folder:
        header, tasks = replay.run_samples(replay._config_file(spec, folder), patterns=OPINFOS)
    _probe_run, live = report.build_records(header, tasks)
    compared = 0
    for status in live:
        mine = by_key[(status.op, "eager")]
        seen = status.status
        if seen == "native":
            assert mine.status == "native", status.op
        elif seen == "fallback" and mine.status != "decomposed":
            assert mine.status == "fallback", status.op
        elif seen == "fallback":
            assert mine.detail.get("effective") == "fallback", status.op
        compared += 1
    assert compared >= 5


def test_a_composite_with_one_fallback_leaf_falls_back_at_that_leaf(replayed):
    _spec_, _run, by_key = replayed
    linear = by_key[("aten::linear", "eager")]  # CompositeImplicitAutograd: t (a view) and addmm
    assert linear.status == "decomposed" and linear.detail["rule"] == "math"
    # addmm is not in the kernel list: its default kernel runs and calls addmm.out, which falls back
    assert linear.detail["leaves"]["aten::addmm"] == "decomposed"
    assert linear.detail["effective"] == "fallback" and linear.detail["effective_at"] == "aten::addmm.out"
    assert by_key[("aten::linear", "compile")].detail["effective"] == "unsupported"
    layer_norm = by_key[("aten::layer_norm", "eager")]  # its leaf native_layer_norm decomposes further
    assert layer_norm.detail["effective"] == "fallback"
    assert layer_norm.detail["leaves"]["aten::native_layer_norm"] == "decomposed"


def test_a_view_op_resolves_through_as_strided(replayed):
    _spec_, _run, by_key = replayed
    transpose = by_key[("aten::transpose.int", "eager")]
    assert transpose.status == "decomposed" and transpose.detail["rule"] == "default"
    assert transpose.detail["leaves"].get("aten::as_strided") == "native"
    assert transpose.detail["effective"] == "decomposed"  # runs on the device


def test_ops_without_samples_keep_the_static_answer_marked_untraced(replayed):
    _spec_, _run, by_key = replayed
    untraced = [s for (op, mode), s in by_key.items() if s.status == "decomposed" and s.detail.get("leaves") is None]
    assert untraced and all("effective" not in s.detail for s in untraced)


def test_a_bad_spec_is_one_line(tmp_path, capsys):
    from tests.conftest import run_kb

    (tmp_path / "spec.json").write_text('{"target": "tpu"}', encoding="utf-8")
    code, _out, err = run_kb(capsys, "replay", str(tmp_path / "spec.json"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "lacks" in err
    (tmp_path / "k.txt").write_text("not an op name\n", encoding="utf-8")
    with pytest.raises(replay.ReplayError, match="k.txt:1"):
        replay.read_kernel_list(str(tmp_path / "k.txt"))


@pytest.mark.heavy
def test_sdpa_takes_the_fused_kernel_when_the_backend_registers_its_choice(tmp_path):
    """A backend that registers SDPA's _fused_sdp_choice stub (a DispatchStub: no Python backend
    can) and the overrideable fused kernel runs SDPA as that kernel; the spec says so, with its source."""
    (tmp_path / "kernels.txt").write_text("\n".join((*KERNELS, replay.SDPA_FUSED)) + "\n", encoding="utf-8")
    (tmp_path / "spec.json").write_text(json.dumps({
        "target": "sim", "backend_version": "9.9.9", "kernels": {"file": "kernels.txt", "source": SOURCE},
        "policy": {"eager": {"action": "cpu"}, "compile": {"action": "raise"}},
        "policy_source": "https://example.test/policy",
        "sdpa_choice": {"choice": "overrideable", "source": "https://example.test/sdp_choice.cc"},
    }), encoding="utf-8")
    spec = replay.load_spec(str(tmp_path / "spec.json"))
    _run, statuses = replay.replay(spec, read_catalog(shipped_catalogs()[-1]), trace=False)
    sdpa = {s.mode: s for s in statuses if s.op == replay.SDPA}
    assert sdpa["eager"].detail["rule"] == "sdpa_fused" and sdpa["eager"].detail["effective"] == "decomposed"
    assert sdpa["eager"].detail["leaves"] == {replay.SDPA_FUSED: "native"}
    assert sdpa["eager"].detail["source"] == "https://example.test/sdp_choice.cc"
    fused = next(s for s in statuses if s.op == replay.SDPA_FUSED and s.mode == "eager")
    assert fused.status == "native"


def _hostile_spec(tmp_path, **fields):
    (tmp_path / "kernels.txt").write_text("\n".join(KERNELS) + "\n", encoding="utf-8")
    spec = {"target": "tpu", "backend_version": "0.1.1", "kernels": {"file": "kernels.txt", "source": SOURCE},
            "policy": {"eager": {"action": "cpu"}}, "policy_source": "https://example.test/policy", **fields}
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    return tmp_path / "spec.json"


def _tree(root) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("fields", [
    {"backend_version": "0.1.1/../../../../pwn2"},
    {"backend_version": "../pwn"},
    {"backend_version": "0.1.1\\..\\pwn"},
    {"backend_version": ".."},
    {"backend_version": 1.5},
    {"target": "../../pwn"},
    {"target": "tpu/x"},
    {"target": ""},
])
def test_a_spec_naming_a_path_is_refused_and_nothing_is_written(tmp_path, capsys, fields):
    """Issue 24: the target and backend_version name the --out-dir file; a spec that makes them
    a path is refused in one line when it is loaded, before anything runs or is written."""
    from tests.conftest import run_kb

    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    spec = _hostile_spec(work, **fields)
    out = work / "out"
    (out / "replay-tpu-0.1.1").mkdir(parents=True)  # so `replay-tpu-0.1.1/../..` resolves, as it did for the attacker
    before = _tree(tmp_path)
    code, stdout, err = run_kb(capsys, "replay", str(spec), "--no-ingest", "--ops", "add", "--out-dir", str(out))
    assert code == 2 and stdout == ""
    assert len(err.strip().splitlines()) == 1 and "plain name or version" in err
    assert _tree(tmp_path) == before  # no report in out, nothing beside or above it
    assert not [p for p in tmp_path.rglob("*pwn*")]


def test_out_file_slugs_record_parts_and_stays_under_out_dir(tmp_path):
    """A spec built in code (never loaded) still cannot name a file outside --out-dir."""
    spec = replay.ReplaySpec(target="../../t", backend_version="0.1.1/../../../../pwn2", kernels=frozenset(),
                             kernels_source=SOURCE, policy={"eager": "cpu"}, policy_source=SOURCE)
    path = replay.out_file(spec, str(tmp_path / "out"))
    assert os.path.dirname(path) == os.path.realpath(tmp_path / "out")
    assert os.path.basename(path) == "replay-t-0.1.1-..-..-..-..-pwn2.jsonl"


def test_the_shipped_specs_are_plain():
    for path in replay.shipped_specs():
        spec = replay.load_spec(path)
        assert replay.out_file(spec, "/tmp/out").startswith("/tmp/out/replay-")


@pytest.mark.heavy  # a real replay run (2 s); test_replay_progress_helpers_follow_kb_progress is the quick twin
@pytest.mark.parametrize("progress", ["", "lines"])
def test_replay_progress_lines_only_where_progress_is_wanted(tmp_path, capsys, monkeypatch, progress):
    """Issue 26: off a terminal, stderr is kept for the one-line error and notices; kb replay's
    progress lines come only with KB_PROGRESS=lines, as every long command's do (cli.progress)."""
    from tests.conftest import run_kb

    monkeypatch.setenv("KB_PROGRESS", progress)
    spec = os.path.join(paths.data_dir(), "replay", "tpu-0.1.1.json")
    code, _out, err = run_kb(capsys, "replay", spec, "--no-ingest", "--ops", "add", "--out-dir", str(tmp_path))
    assert code == 0
    assert ("kb: replaying" in err) == (progress == "lines"), err


@pytest.mark.parametrize("progress", ["", "lines"])
def test_replay_progress_helpers_follow_kb_progress(capsys, monkeypatch, progress):
    """The same rule as above, on kb replay's own progress writers (off a terminal, as under pytest)."""
    from cli import replay as replay_cli

    monkeypatch.setenv("KB_PROGRESS", progress)
    replay_cli._progress("tpu 0.1.1", 0, 10)
    tick = replay_cli._ticker("tpu 0.1.1")
    for _ in range(100):
        tick(None)
    err = capsys.readouterr().err
    assert ("kb: replaying" in err) == (progress == "lines"), err
