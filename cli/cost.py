"""`kb cost`: cost per million tokens for one machine, or several side by side from a
TOML file. Rendering only; the arithmetic and its rounding rules are in `kb.migrate.cost`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cli.options import JsonOption
from cli.render import emit_json, note, table
from kb.errors import KBError
from kb.migrate.cost import Priced, compare, format_money, format_ratio, make_target, targets_from_toml


def _read(path: str) -> str:
    from kb import userfiles

    try:
        return userfiles.read_text(path)
    except userfiles.FileRefused as exc:
        raise KBError(f"cannot read targets file {exc}") from None


def _number(value) -> str:
    """`2500` -> `2,500`, `4.0` -> `4`: how people write prices and rates."""
    return f"{value.normalize():,f}"


def cost_command(
    price_per_hour: Annotated[Optional[str], typer.Option(  # noqa: UP045 (typer needs Optional on 3.11)
        "--price-per-hour", help="What the machine costs per hour.")] = None,
    tokens_per_second: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--tokens-per-second", help="Measured throughput on that machine.")] = None,
    currency: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--currency", help="Currency code of the price (default USD; a default for --file targets).")] = None,
    name: Annotated[str, typer.Option("--name", help="Label for a single target (default: this machine).")] = "this machine",
    file: Annotated[Optional[str], typer.Option(  # noqa: UP045
        "--file", help="TOML file with one [table] per target: price_per_hour, tokens_per_second, "
                       "currency, note.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Cost per million tokens = price per hour × 1e6 / (tokens per second × 3600).
    Several targets (--file) are sorted cheapest first with their ratio to the cheapest."""
    single = price_per_hour is not None or tokens_per_second is not None
    if file and single:
        raise KBError("pass either --file or --price-per-hour/--tokens-per-second, not both")
    if file:
        targets = targets_from_toml(_read(file), default_currency=currency, source=file)
    elif price_per_hour is None or tokens_per_second is None:
        raise KBError("need --price-per-hour and --tokens-per-second (or --file targets.toml)")
    else:
        targets = [make_target(name, price_per_hour, tokens_per_second, currency,
                               labels=("--price-per-hour", "--tokens-per-second", "--currency"))]

    priced = compare(targets)
    currencies = sorted({p.target.currency for p in priced})
    if len(currencies) > 1 and not as_json:
        note(f"targets use {', '.join(currencies)}: kb converts no currencies, so ratios compare targets "
             "of the same currency only")
    if as_json:
        emit_json({"formula": "price_per_hour * 1e6 / (tokens_per_second * 3600)",
                   "targets": [p.as_dict() for p in priced]})
        return
    columns = ["target", "per 1M tokens", "× cheapest", "price/hour", "tokens/s", "note"]
    rows = [_row(p) for p in priced]
    if len(priced) == 1:  # a ratio to itself says nothing
        del columns[2]
        for row in rows:
            del row[2]
    table(columns, rows, title="cost per million tokens", status_column=None)


def _row(p: Priced) -> list[str]:
    t = p.target
    return [t.name, f"{format_money(p.cost_per_million)} {t.currency}", format_ratio(p.ratio_to_cheapest),
            f"{_number(t.price_per_hour)} {t.currency}", _number(t.tokens_per_second), t.note]
