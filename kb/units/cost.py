"""The migration guides' cost formula, and how its results are rounded for people:

    cost per million tokens = price_per_hour × 1,000,000 / (tokens_per_second × 3,600)

Its own room below store so that `kb cost` (kb.migrate.cost: targets files, comparisons)
and chat (kb.chat.answer_cost: the numbers in a question) compute with the one formula;
kb.migrate.cost's docstring gives the rounding rules.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from kb.errors import KBError


class CostInputError(KBError):
    """A price, a throughput or a targets file kb cannot use."""


SECONDS_PER_HOUR = Decimal(3600)
MILLION = Decimal(1_000_000)


def cost_per_million_tokens(price_per_hour: Decimal, tokens_per_second: Decimal) -> Decimal:
    """Price of 1,000,000 tokens at `tokens_per_second` on a machine billed `price_per_hour`."""
    if tokens_per_second <= 0:
        raise CostInputError(f"tokens per second must be greater than 0 (got {tokens_per_second})")
    if price_per_hour < 0:
        raise CostInputError(f"price per hour must not be negative (got {price_per_hour})")
    return price_per_hour * MILLION / (tokens_per_second * SECONDS_PER_HOUR)


def quantize(value: Decimal, places: int) -> Decimal:
    try:
        return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    except InvalidOperation:  # more digits than the context holds: keep its 28 significant
        return +value


def format_money(value: Decimal) -> str:
    """2 decimals; 2 significant digits below 0.01 (see the module docstring)."""
    if value == 0 or abs(value) >= Decimal("0.01"):
        return f"{quantize(value, 2):,}"
    places = -value.adjusted() + 1  # 0.0034 -> adjusted -3 -> 4 places
    return str(quantize(value, places))


def format_ratio(value: Decimal | None) -> str:
    return "—" if value is None else f"{quantize(value, 2)}×"
