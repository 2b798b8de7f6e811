"""`kb cost`: what a million tokens cost on a machine, from its hourly price and its
measured throughput — the migration guides' formula, done once and done right.

    cost per million tokens = price_per_hour × 1,000,000 / (tokens_per_second × 3,600)

Arithmetic is in `decimal.Decimal` (28 significant digits), from the text the user
typed (`4`, `2500`, `0.1`), so no binary-float residue reaches a result. Rounding is
applied only for display, half away from zero (0.625 → 0.63, as on an invoice):

* money (`format_money`): 2 decimal places; values below 0.01 keep 2 significant digits
  (0.0034) so that a cheap target never shows as 0.00;
* ratios to the cheapest target: 2 decimal places in tables, 4 in JSON (same rounding);
* JSON carries the cost rounded to 6 decimal places (a number) and the exact figure as
  a string.

Ratios compare targets priced in the same currency only: kb converts no currencies, so
each currency has its own cheapest target and its own ratios.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from kb import userfiles
from kb.units.cost import (  # noqa: F401  (the formula and its rounding live below every room that computes)
    MILLION,
    SECONDS_PER_HOUR,
    CostInputError,
    cost_per_million_tokens,
    format_money,
    format_ratio,
    quantize,
)

REQUIRED_KEYS = ("price_per_hour", "tokens_per_second")
OPTIONAL_KEYS = ("currency", "note")
DEFAULT_CURRENCY = "USD"
# Prices and throughputs outside 1e-9 … 1e12 are typos, and their quotients would
# exceed the 28 digits Decimal computes with.
MIN_EXPONENT, MAX_EXPONENT = -9, 11


@dataclass(frozen=True)
class Target:
    name: str
    price_per_hour: Decimal
    tokens_per_second: Decimal
    currency: str = DEFAULT_CURRENCY
    note: str = ""

    @property
    def cost_per_million(self) -> Decimal:
        return cost_per_million_tokens(self.price_per_hour, self.tokens_per_second)


@dataclass(frozen=True)
class Priced:
    """A target with its cost and its ratio to the cheapest target of its currency."""

    target: Target
    cost_per_million: Decimal
    ratio_to_cheapest: Decimal | None  # None when the cheapest costs 0 (ratio undefined)

    def as_dict(self) -> dict:
        t = self.target
        return {
            "target": t.name,
            "currency": t.currency,
            "cost_per_million_tokens": float(quantize(self.cost_per_million, 6)),
            "cost_per_million_tokens_exact": str(self.cost_per_million.normalize()),
            "ratio_to_cheapest": None if self.ratio_to_cheapest is None
            else float(quantize(self.ratio_to_cheapest, 4)),
            "price_per_hour": float(t.price_per_hour),
            "tokens_per_second": float(t.tokens_per_second),
            "note": t.note,
        }


def parse_number(text: object, what: str) -> Decimal:
    """A finite number from CLI text or a TOML value (int, float or numeric string from
    the command line); booleans and anything else are refused with a one-line error."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise CostInputError(f"{what} must be a number (got {text!r})")
    if isinstance(text, float) and not math.isfinite(text):
        raise CostInputError(f"{what} must be a finite number (got {text})")
    try:
        value = Decimal(str(text).strip().replace("_", ""))
    except InvalidOperation:
        raise CostInputError(f"{what} must be a number (got {text!r})") from None
    if not value.is_finite():
        raise CostInputError(f"{what} must be a finite number (got {text})")
    if value != 0 and not (MIN_EXPONENT <= value.adjusted() <= MAX_EXPONENT):
        raise CostInputError(f"{what} must lie between 1e{MIN_EXPONENT} and 1e{MAX_EXPONENT + 1} (got {text})")
    return value


def make_target(name: str, price_per_hour: object, tokens_per_second: object, currency: str | None = None,
                note: str = "", labels: tuple[str, str, str] | None = None) -> Target:
    """A validated target. Errors name the values as `labels` (the CLI passes its option
    names), else as `[name] price_per_hour` and so on (the TOML keys)."""
    price_label, tps_label, currency_label = labels or (
        f"[{name}] price_per_hour", f"[{name}] tokens_per_second", f"[{name}] currency")
    price = parse_number(price_per_hour, price_label)
    tps = parse_number(tokens_per_second, tps_label)
    if tps <= 0:
        raise CostInputError(f"{tps_label} must be greater than 0 (got {tokens_per_second})")
    if price < 0:
        raise CostInputError(f"{price_label} must not be negative (got {price_per_hour})")
    code = (currency or DEFAULT_CURRENCY).strip().upper()
    if not code or not code.isalpha():
        raise CostInputError(f"{currency_label} must be a code such as EUR or USD (got {currency!r})")
    return Target(name=name, price_per_hour=price, tokens_per_second=tps, currency=code, note=note or "")


def targets_from_toml(text: str, default_currency: str | None = None, source: str = "targets file") -> list[Target]:
    """One target per top-level table:

        [trn2-48xlarge]
        price_per_hour = 4.0
        tokens_per_second = 2500
        currency = "EUR"        # optional: --currency, else USD
        note = "bf16, batch 32"  # optional

    Unknown keys are errors (a typo must not silently drop a value)."""
    try:
        data = userfiles.parse_toml(text, source)
    except userfiles.FileRefused as exc:
        raise CostInputError(f"{source} is not valid TOML: {str(exc).removeprefix(f'{source}: ')}") from None
    if not data:
        raise CostInputError(f"{source} defines no targets (expected one [table] per target)")
    targets = []
    for name, body in data.items():
        if not isinstance(body, dict):
            raise CostInputError(f"{source}: {name!r} must be a table ([{name}]) with price_per_hour and "
                                 "tokens_per_second")
        missing = [key for key in REQUIRED_KEYS if key not in body]
        if missing:
            raise CostInputError(f"{source}: [{name}] is missing {', '.join(missing)}")
        unknown = sorted(set(body) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS))
        if unknown:
            raise CostInputError(f"{source}: [{name}] has unknown key(s) {', '.join(unknown)} "
                                 f"(expected {', '.join(REQUIRED_KEYS + OPTIONAL_KEYS)})")
        for key in REQUIRED_KEYS:
            if isinstance(body[key], str):
                raise CostInputError(f"{source}: [{name}] {key} must be a number, not a string ({body[key]!r})")
        currency = body.get("currency", default_currency)
        if currency is not None and not isinstance(currency, str):
            raise CostInputError(f"{source}: [{name}] currency must be a string such as \"EUR\"")
        note = body.get("note", "")
        if not isinstance(note, str):
            raise CostInputError(f"{source}: [{name}] note must be a string")
        labels = (f"{source}: [{name}] price_per_hour", f"{source}: [{name}] tokens_per_second",
                  f"{source}: [{name}] currency")
        targets.append(make_target(name, body["price_per_hour"], body["tokens_per_second"], currency, note, labels))
    return targets


def compare(targets: list[Target]) -> list[Priced]:
    """Targets cheapest first (currency by currency), each with its ratio to the cheapest
    target of the same currency."""
    cheapest: dict[str, Decimal] = {}
    for target in targets:
        cost = target.cost_per_million
        cheapest[target.currency] = min(cost, cheapest.get(target.currency, cost))
    priced = []
    for target in targets:
        cost = target.cost_per_million
        floor = cheapest[target.currency]
        ratio = (cost / floor) if floor > 0 else (Decimal(1) if cost == 0 else None)
        priced.append(Priced(target, cost, ratio))
    priced.sort(key=lambda p: (p.target.currency, p.cost_per_million, p.target.name))
    return priced
