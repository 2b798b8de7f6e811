"""Cost questions in chat ("price per million tokens at 7.5 USD an hour and 1800 tokens/s"):
the numbers come from kb.chat.entities, the arithmetic from kb.units.cost — the formula
`kb cost` uses, in Decimal, rounded the same way — and the answer says what the formula
leaves out, so nobody reads it as a quote. A missing number is asked for, never assumed.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from typing import Any

from kb.chat.entities import Entities
from kb.chat.intents import Question
from kb.chat.reply import Answer, Sources
from kb.units.cost import MILLION, CostInputError, cost_per_million_tokens, format_money

FORMULA = "price per hour × 1,000,000 / (tokens per second × 3,600)"
SOURCE = {"source_kind": "formula", "source_name": "kb cost (kb/units/cost.py)", "source_url": None}
# What the price per token does not include (said in the answer, in its language).
LEFT_OUT = {
    "en": ["idle time: the machine is billed every hour, busy or not (the formula assumes it is kept full)",
           "input and output tokens at one rate (prefill and decode usually differ)",
           "compilation and warm-up time, storage, network and data transfer",
           "reserved, spot or savings-plan discounts, taxes, and people's time"],
    "es": ["el tiempo ocioso: la máquina se factura cada hora, trabaje o no (la fórmula la supone siempre ocupada)",
           "tokens de entrada y de salida a un mismo ritmo (prefill y decode suelen diferir)",
           "el tiempo de compilación y de calentamiento, el almacenamiento, la red y la transferencia de datos",
           "los descuentos por reserva, spot o planes de ahorro, los impuestos y el tiempo de las personas"],
}


def _plain(value: Decimal) -> str:
    return f"{value.normalize():,f}"


def cost_answer(conn: sqlite3.Connection, q: Question, ents: Entities) -> Answer:
    es = ents.language == "es"
    src = Sources()
    cite = src.cite(SOURCE)
    price = next((p for p in ents.prices if p.per_hour), ents.prices[0] if ents.prices else None)
    rate = ents.rates[0] if ents.rates else None
    if price is None or rate is None:
        missing = [w for w, v in ((("el precio por hora" if es else "the price per hour"), price),
                                  (("el rendimiento en tokens/s" if es else "the throughput in tokens/s"), rate)) if v is None]
        head = (f"**Falta {' y '.join(missing)}** para calcularlo." if es
                else f"**I need {' and '.join(missing)}** to compute it.")
        lines = [head, "",
                 (f"Costo por millón de tokens = precio por hora × 1.000.000 / (tokens por segundo × 3.600) {cite}" if es
                  else f"Cost per million tokens = {FORMULA} {cite}"),
                 ("Con las dos cifras: " if es else "With both figures: ")
                 + "`kb cost --price-per-hour P --tokens-per-second R --currency USD`"]
        facts = [{"formula": "price_per_hour * 1e6 / (tokens_per_second * 3600)", "missing": missing}]
        return Answer(q.text, "cost", "\n".join(lines) + src.markdown(), facts, src.items, language=ents.language)
    try:
        per_million = cost_per_million_tokens(price.value, rate.value)
    except CostInputError as exc:
        return Answer(q.text, "cost", f"**{'No puedo calcularlo' if es else 'I cannot compute that'}**: {exc}.",
                      [{"error": str(exc)}], language=ents.language)
    currency = price.unit
    money = format_money(per_million)
    hourly = "" if price.per_hour else (" (leído como precio por hora)" if es else " (read as a price per hour)")
    if es:
        head = (f"**{money} {currency} por millón de tokens** a {_plain(price.value)} {currency} la hora{hourly} "
                f"y {_plain(rate.value)} tokens/s.")
    else:
        head = (f"**{money} {currency} per million tokens** at {_plain(price.value)} {currency} an hour{hourly} "
                f"and {_plain(rate.value)} tokens/s.")
    lines = [head, "",
             (f"- Fórmula de `kb cost`: precio por hora × 1.000.000 / (tokens por segundo × 3.600) = "
              f"{_plain(price.value)} × 1.000.000 / ({_plain(rate.value)} × 3.600) {cite}" if es else
              f"- The `kb cost` formula: {FORMULA} = {_plain(price.value)} × 1,000,000 / "
              f"({_plain(rate.value)} × 3,600) {cite}")]
    facts: list[dict[str, Any]] = [{"currency": currency, "price_per_hour": str(price.value),
                                    "tokens_per_second": str(rate.value), "cost_per_million_tokens": money,
                                    "cost_per_million_tokens_exact": str(per_million.normalize()),
                                    "formula": "price_per_hour * 1e6 / (tokens_per_second * 3600)"}]
    for amount in ents.tokens:
        if amount.value and amount.value != MILLION:
            total = format_money(per_million * amount.value / MILLION)
            lines.append(f"- {_plain(amount.value)} tokens: **{total} {currency}**")
            facts.append({"tokens": str(amount.value), "cost": total, "currency": currency})
    others = [p for p in ents.prices if p is not price]
    if others:
        lines.append(("- Otros importes de la pregunta, no usados: " if es else "- Other amounts in the question, not used: ")
                     + ", ".join(p.text for p in others))
    lines.append("- " + ("Lo que la fórmula deja fuera: " if es else "What the formula leaves out: ")
                 + "; ".join(LEFT_OUT[ents.language]) + ".")
    lines.append(("- Comparar máquinas: " if es else "- To compare machines: ")
                 + f"`kb cost --price-per-hour {price.value.normalize():f} --tokens-per-second {rate.value.normalize():f} "
                 f"--currency {currency}` {'o' if es else 'or'} `kb cost --file targets.toml`"
                 + (" (kb no convierte monedas)." if es else " (kb converts no currencies)."))
    return Answer(q.text, "cost", "\n".join(lines) + src.markdown(), facts, src.items, language=ents.language)
