"""kb cost: the arithmetic, the rounding rules, the TOML targets file, the CLI."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from cli.entry import main
from kb.migrate.cost import (
    CostInputError,
    compare,
    cost_per_million_tokens,
    format_money,
    format_ratio,
    make_target,
    targets_from_toml,
)

TARGETS_TOML = """
[trn2]
price_per_hour = 4
tokens_per_second = 2500
currency = "EUR"
note = "bf16, batch 32"

[tpu-v6e]
price_per_hour = 2.7
tokens_per_second = 1_200
currency = "EUR"

[h100]
price_per_hour = 6.98
tokens_per_second = 3100.0
currency = "USD"

[cheap]
price_per_hour = 1.1
tokens_per_second = 2500
currency = "EUR"
"""


# --- arithmetic ---------------------------------------------------------------------


def test_four_euros_an_hour_at_2500_tokens_per_second():
    cost = cost_per_million_tokens(Decimal(4), Decimal(2500))
    assert cost == Decimal(4) / Decimal(9)  # 4 × 1e6 / (2500 × 3600) = 4/9 exactly
    assert format_money(cost) == "0.44"


@pytest.mark.parametrize("price, tps, expected", [
    ("3.6", "1000", "1"),  # 3.6/h = 0.001/s; 1000 tok/s -> 1e-6 per token
    ("0", "100", "0"),  # free capacity costs nothing
    ("7.2", "1", "2000"),
    ("0.1", "0.5", "55.55555555555555555555555556"),  # fractional throughput, exact decimal input
])
def test_formula(price, tps, expected):
    assert cost_per_million_tokens(Decimal(price), Decimal(tps)) == Decimal(expected)


def test_no_binary_float_residue():
    target = make_target("t", 0.1, 0.3)  # floats from TOML go through their shortest repr
    assert target.price_per_hour == Decimal("0.1") and target.tokens_per_second == Decimal("0.3")
    assert str(target.cost_per_million) == "92.59259259259259259259259259"


@pytest.mark.parametrize("value, shown", [
    ("0.625", "0.63"),  # half away from zero, as on an invoice
    ("0.444444", "0.44"),
    ("1234.5", "1,234.50"),
    ("0", "0.00"),
    ("0.0034567", "0.0035"),  # below 0.01: two significant digits, never 0.00
    ("0.0000556", "0.000056"),
])
def test_money_rounding(value, shown):
    assert format_money(Decimal(value)) == shown


def test_ratio_format():
    assert format_ratio(Decimal("1.40625")) == "1.41×"
    assert format_ratio(None) == "—"


@pytest.mark.parametrize("price, tps, message", [
    (4, 0, "must be greater than 0"),
    (4, -10, "must be greater than 0"),
    (-1, 10, "must not be negative"),
    ("abc", 10, "must be a number"),
    (4, "nan", "finite"),
    (4, float("inf"), "finite"),
    (True, 10, "must be a number"),
    (4, None, "must be a number"),
])
def test_bad_values(price, tps, message):
    with pytest.raises(CostInputError, match=message):
        make_target("t", price, tps)


def test_currency_code():
    assert make_target("t", 1, 1, " eur ").currency == "EUR"
    assert make_target("t", 1, 1).currency == "USD"
    with pytest.raises(CostInputError, match="currency"):
        make_target("t", 1, 1, "€")


# --- several targets ---------------------------------------------------------------------


def test_targets_sorted_cheapest_first_with_ratio_per_currency():
    priced = compare(targets_from_toml(TARGETS_TOML))
    rows = [(p.target.name, p.target.currency, format_money(p.cost_per_million), format_ratio(p.ratio_to_cheapest))
            for p in priced]
    assert rows == [
        ("cheap", "EUR", "0.12", "1.00×"),
        ("trn2", "EUR", "0.44", "3.64×"),  # (4/9) / (1.1/9)
        ("tpu-v6e", "EUR", "0.63", "5.11×"),  # 0.625 / 0.12222
        ("h100", "USD", "0.63", "1.00×"),  # alone in its currency
    ]
    assert priced[1].target.note == "bf16, batch 32"


def test_zero_cost_cheapest_makes_ratios_undefined():
    priced = compare([make_target("free", 0, 10), make_target("paid", 1, 10), make_target("free2", 0, 5)])
    assert [(p.target.name, p.ratio_to_cheapest) for p in priced] == [
        ("free", Decimal(1)), ("free2", Decimal(1)), ("paid", None)]


def test_default_currency_for_tables_without_one():
    (target,) = targets_from_toml("[a]\nprice_per_hour = 1\ntokens_per_second = 1\n", default_currency="GBP")
    assert target.currency == "GBP"


@pytest.mark.parametrize("text, message", [
    ("[a\n", "not valid TOML"),
    ("", "defines no targets"),
    ("price_per_hour = 4\n", "must be a table"),
    ("[a]\nprice_per_hour = 4\n", r"\[a\] is missing tokens_per_second"),
    ("[a]\ntokens_per_second = 4\n", r"\[a\] is missing price_per_hour"),
    ("[a]\nprice_per_hour = 4\ntokens_per_second = 0\n", "must be greater than 0"),
    ("[a]\nprice_per_hour = 4\ntokens_per_second = -5\n", "must be greater than 0"),
    ("[a]\nprice_per_hour = '4'\ntokens_per_second = 5\n", "must be a number, not a string"),
    ("[a]\nprice_per_hour = 4\ntokens_per_second = 5\ntokens_per_sec = 6\n", "unknown key"),
    ("[a]\nprice_per_hour = 4\ntokens_per_second = 5\ncurrency = 3\n", "currency must be a string"),
    ("[a]\nprice_per_hour = 4\ntokens_per_second = 5\nnote = 3\n", "note must be a string"),
    ("[a]\nprice_per_hour = 4\ntokens_per_second = nan\n", "finite"),
    ("[a]\nprice_per_hour = true\ntokens_per_second = 5\n", "must be a number"),
])
def test_bad_targets_files(text, message):
    with pytest.raises(CostInputError, match=message):
        targets_from_toml(text)


# --- CLI ------------------------------------------------------------------------------


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["cost", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_single_target(capsys):
    code, out, err = run(capsys, "--price-per-hour", "4", "--tokens-per-second", "2500", "--currency", "EUR")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[1].split() == ["target", "per", "1M", "tokens", "price/hour", "tokens/s", "note"]
    assert lines[3].split() == ["this", "machine", "0.44", "EUR", "4", "EUR", "2,500"]  # not the word "target"


def test_cli_single_target_json(capsys):
    code, out, _ = run(capsys, "--price-per-hour", "4", "--tokens-per-second", "2500", "--currency", "EUR",
                       "--name", "trn2", "--json")
    (target,) = json.loads(out)["targets"]
    assert code == 0
    assert target == {
        "target": "trn2", "currency": "EUR", "cost_per_million_tokens": 0.444444,
        "cost_per_million_tokens_exact": "0.4444444444444444444444444444", "ratio_to_cheapest": 1.0,
        "price_per_hour": 4.0, "tokens_per_second": 2500.0, "note": "",
    }


def test_cli_file(capsys, tmp_path):
    path = tmp_path / "targets.toml"
    path.write_text(TARGETS_TOML)
    code, out, err = run(capsys, "--file", str(path))
    assert code == 0
    assert "kb converts no currencies" in err  # EUR and USD side by side
    names = [line.split()[0] for line in out.splitlines()[3:]]
    assert names == ["cheap", "trn2", "tpu-v6e", "h100"]
    assert "3.64×" in out and "bf16, batch 32" in out
    code, out, _ = run(capsys, "--file", str(path), "--json")
    data = json.loads(out)
    assert [t["target"] for t in data["targets"]] == names
    assert data["targets"][1]["ratio_to_cheapest"] == 3.6364


@pytest.mark.parametrize("args, message", [
    (("--price-per-hour", "4", "--tokens-per-second", "0"), "--tokens-per-second must be greater than 0"),
    (("--price-per-hour", "4", "--tokens-per-second", "-3"), "--tokens-per-second must be greater than 0"),
    (("--price-per-hour", "-4", "--tokens-per-second", "3"), "--price-per-hour must not be negative"),
    (("--price-per-hour", "four", "--tokens-per-second", "3"), "--price-per-hour must be a number"),
    (("--price-per-hour", "4",), "need --price-per-hour and --tokens-per-second"),
    ((), "need --price-per-hour and --tokens-per-second"),
    (("--file", "/nonexistent/targets.toml"), "cannot read targets file"),
    (("--file", "x.toml", "--price-per-hour", "4"), "either --file or"),
])
def test_cli_errors_are_one_line_exit_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("kb: error: ") and message in err


def test_cli_bad_toml_file(capsys, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[a]\nprice_per_hour = 4\n")
    code, _, err = run(capsys, "--file", str(path))
    assert code == 2 and "[a] is missing tokens_per_second" in err and err.count("\n") == 1
