"""`kb bench`: the first call timed apart from the steady state, tokens = batch × seq,
and the result feeding `kb cost` (printed, or written to a targets TOML it reads)."""

from __future__ import annotations

import json
import tomllib

import pytest

pytest.importorskip("torch")

from kb.migrate import throughput  # noqa: E402
from tests.migrate.models import factory  # noqa: E402


def test_first_call_is_timed_apart_from_warmup_and_steady_state():
    """A fake clock and a call that is slow once (like a compile): the first call holds the
    slowness, the warm-up calls are not timed, the steady state is the rest."""
    now = [0.0]
    costs = iter([5.0] + [0.5] * 2 + [0.1] * 4)
    calls = []

    def call():
        calls.append(1)
        now[0] += next(costs)

    first, times = throughput.time_calls(call, lambda: None, iters=4, warmup=2, clock=lambda: now[0])
    assert first == pytest.approx(5.0)
    assert times == pytest.approx([0.1] * 4)
    assert len(calls) == 7


@pytest.mark.parametrize("device", ["cpu", "sim"])
def test_bench_reports_tokens_per_second_from_the_median(run_cli, device):
    code, out, err = run_cli("bench", factory("mlp"), "--device", device, "--input-shape", "BxSx8", "--batch", "2",
                             "--seq", "16", "--iters", "5", "--warmup", "1", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["device"] == device and doc["tokens_per_call"] == 32 and doc["iterations"] == 5
    assert doc["warmup_calls"] == 1 and doc["first_call_s"] > 0
    steady = doc["steady_state"]
    assert steady["min_s"] <= steady["median_s"] <= steady["max_s"]
    assert doc["tokens_per_second"] == pytest.approx(32 / steady["median_s"])
    assert doc["first_call_overhead_s"] == pytest.approx(max(0.0, doc["first_call_s"] - steady["median_s"]))


def test_token_ids_count_batch_times_seq_and_override(run_cli):
    code, out, _ = run_cli("bench", factory("tokens"), "--device", "cpu", "--input-shape", "4x7:int64",
                           "--iters", "2", "--json")
    assert code == 0 and json.loads(out)["tokens_per_call"] == 28
    code, out, _ = run_cli("bench", factory("tokens"), "--device", "cpu", "--input-shape", "4x7:int64",
                           "--iters", "2", "--tokens-per-call", "4", "--json")
    assert code == 0 and json.loads(out)["tokens_per_call"] == 4


def test_price_gives_cost_per_million_tokens_through_kb_cost(run_cli):
    from decimal import Decimal

    from kb.migrate.cost import cost_per_million_tokens

    code, out, err = run_cli("bench", factory("mlp"), "--device", "cpu", "--input-shape", "2x16x8", "--iters", "3",
                             "--price-per-hour", "4", "--currency", "eur", "--json")
    assert code == 0, err
    doc = json.loads(out)
    want = cost_per_million_tokens(Decimal(4), Decimal(f"{doc['tokens_per_second']:.6g}"))
    assert doc["cost"]["currency"] == "EUR"
    assert doc["cost"]["cost_per_million_tokens"] == pytest.approx(float(want))
    code, out, _ = run_cli("bench", factory("mlp"), "--device", "cpu", "--input-shape", "2x16x8", "--iters", "3",
                           "--price-per-hour", "4")
    assert code == 0 and "cost per 1M tokens" in out and "first call" in out and "steady state" in out


def test_cost_file_entries_are_what_kb_cost_reads(run_cli, tmp_path):
    costs = tmp_path / "costs.toml"
    costs.write_text('[trn2]\nprice_per_hour = 40.0\ntokens_per_second = 90000\nnote = "from the vendor"\n')
    for name in ("laptop cpu", "laptop cpu"):  # twice: the entry is replaced, not duplicated
        code, _, err = run_cli("bench", factory("mlp"), "--device", "cpu", "--input-shape", "2x16x8",
                               "--iters", "3", "--price-per-hour", "0.5", "--cost-file", costs, "--name", name)
        assert code == 0, err
        assert f"wrote [{name}]" in err
    data = tomllib.loads(costs.read_text())
    assert set(data) == {"trn2", "laptop cpu"}
    assert data["trn2"]["note"] == "from the vendor"
    assert data["laptop cpu"]["price_per_hour"] == 0.5 and data["laptop cpu"]["tokens_per_second"] > 0
    code, out, err = run_cli("cost", "--file", costs, "--json")
    assert code == 0, err
    assert {t["target"] for t in json.loads(out)["targets"]} == {"trn2", "laptop cpu"}


@pytest.mark.parametrize("args, message", [
    (("--iters", "0"), "--iters"),
    (("--cost-file", "x.toml"), "needs --price-per-hour"),
    (("--price-per-hour", "four"), "--price-per-hour"),
    (("--device", "cuda"), None),
])
def test_bad_bench_inputs_exit_2(run_cli, args, message):
    import torch

    if "cuda" in args and torch.cuda.is_available():
        pytest.skip("CUDA is present")
    base = ["bench", factory("mlp"), "--input-shape", "2x4x8"]
    if "--device" not in args:
        base += ["--device", "cpu"]
    code, _, err = run_cli(*base, *args)
    assert code == 2 and "Traceback" not in err
    assert message is None or message in err
