"""Cost questions in chat ("price per million tokens at 7.5 USD an hour and 1800 tokens/s"):
the numbers come from kb.chat.entities, the arithmetic from kb.units.cost — the formula
`kb cost` uses, in Decimal, rounded the same way — and the answer says what the formula
leaves out, so nobody reads it as a quote. A missing number is asked for, never assumed.
"""

from __future__ import annotations

import re
import sqlite3
from decimal import Decimal
from typing import Any

from kb.chat.entities import Entities, currencies_named, period_name
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


def _plain(value: Decimal, es: bool = False) -> str:
    """A figure as the answer's language writes it: 1,800.5 in English, 1.800,5 in Spanish
    (one convention per answer, so "1,800" never reads as a decimal beside "3.600"). A fraction
    keeps 4 decimals, or 4 significant digits below 1 (2 USD a day is 0.08333 USD an hour)."""
    if value != value.to_integral_value():
        if abs(value) >= 1:
            value = value.quantize(Decimal("0.0001"))
        else:
            value = value.quantize(Decimal(1).scaleb(value.adjusted() - 3))
    text = f"{value.normalize():,f}"
    return text.translate(str.maketrans(",.", ".,")) if es else text


def _money(text: str, es: bool) -> str:
    """format_money's "1.16" / "1,234.50" in the answer's convention."""
    return text.translate(str.maketrans(",.", ".,")) if es else text


def _arg(value: Decimal) -> str:
    """A figure for the suggested command line (machine format, at most 6 decimals)."""
    value = value.quantize(Decimal("0.000001")) if value != value.to_integral_value() else value.to_integral_value()
    return f"{value.normalize():f}"


def _conversions(price, rate, es: bool) -> list[str]:
    """One line per figure said per another period than the formula's, with the converted value."""
    out = []
    for amount, unit in ((price, price.unit if price else ""), (rate, "tokens")):
        if amount is None or not amount.period or amount.said is None:
            continue
        name = period_name(amount.period, "es" if es else "en")
        if amount is price:
            out.append(f"{_plain(amount.said, es)} {unit} {'por' if es else 'per'} {name} = "
                       f"{_plain(amount.value, es)} {unit} {'la hora' if es else 'an hour'}")
        else:
            out.append(f"{_plain(amount.said, es)} tokens {'por' if es else 'per'} {name} = "
                       f"{_plain(amount.value, es)} tokens/s")
    return out


_MACHINE = re.compile(r"\b(?:trn[123]n?|inf[12]|trainium[123]?|inferentia[12]?|tpu(?:\s?v\d+[a-z]*)?|v[4-7][a-z]+"
                      r"|[a-z]\d[a-z]?\.\w+|h100|h200|a100|l4|gpu|neuron|(?:option|opci[oó]n|offer|oferta|plan) [a-z0-9])\b",
                      re.I)


# an instance's own price asked: its name ("trn2.48xlarge", "inf2"), or "on-demand price", "price of a …"
_INSTANCE_PRICE = re.compile(r"\b(?:trn[123]n?|inf[12])\b|\bon[- ]demand\b|\bprice (?:of|for) (?:a|an|the)\b"
                             r"|\bprecio de (?:una?|la)\b", re.I)


def _pairs(text: str, ents: Entities) -> list[tuple[str, Any, Any]] | None:
    """(machine, price, rate) for a question that gives two or more hourly prices and as many
    throughputs ("trn2 at 5.2/h doing 2600 tok/s vs v6e at 2.7/h doing 1100 tok/s"), each
    price paired with the next throughput and named by the machine said before it; else None."""
    prices = [p for p in ents.prices if p.per_hour]
    if len(prices) < 2 or len(prices) != len(ents.rates):
        return None
    # by place only: two figures the English reading no longer holds word for word both sit at -1, and an Amount has
    # no order of its own (r26 q24 crashed here)
    if ents.source and any(text.find(a.text) < 0 for a in [*prices, *ents.rates]):
        text = ents.source  # "2,1 millones de tokens por hora", reworded in the English reading: found as asked (r26 q24)
    placed = sorted(((text.find(p.text), p) for p in prices), key=lambda pair: pair[0])
    rates = sorted(((text.find(r.text), r) for r in ents.rates), key=lambda pair: pair[0])
    out, start = [], 0
    for (at, price), (r_at, rate) in zip(placed, rates):
        if at < 0 or r_at < 0:
            return None
        names = _MACHINE.findall(text[start:at])
        out.append((names[-1] if names else f"#{len(out) + 1}", price, rate))
        start = max(at, r_at)
    return out


def _compare(q: Question, ents: Entities, pairs) -> Answer:
    """Cost per million tokens of each machine the question prices, and which is cheaper by how much."""
    es = ents.language == "es"
    src = Sources()
    cite = src.cite(SOURCE)
    rows, facts = [], []
    for name, price, rate in pairs:
        try:
            per = cost_per_million_tokens(price.value, rate.value)
        except CostInputError as exc:
            return Answer(q.text, "cost", f"**{'No puedo calcularlo' if es else 'I cannot compute that'}**: {exc}.",
                          [{"error": str(exc)}], language=ents.language)
        rows.append((per, name, price, rate))
        facts.append({"machine": name, "currency": price.unit, "price_per_hour": str(price.value),
                      "tokens_per_second": str(rate.value), "cost_per_million_tokens": format_money(per)})
    units = {p.unit for _, _, p, _ in rows}
    cur = units.pop() if len(units) == 1 else None
    best = min(rows, key=lambda r: r[0])
    worst = max(rows, key=lambda r: r[0])
    ratio = _plain((worst[0] / best[0]).quantize(Decimal("0.01")), es) if best[0] else "?"

    def money(r):
        return f"{_money(format_money(r[0]), es)}{(' ' + r[2].unit) if r[2].unit else ''}"
    if cur is None:
        head = ("**No se pueden comparar**: los precios están en monedas distintas (kb no convierte monedas)." if es
                else "**These cannot be compared**: the prices are in different currencies (kb converts no currencies).")
    elif es:
        head = f"**{best[1]} es más barato**: {money(best)} por millón de tokens frente a {money(worst)} ({worst[1]}, {ratio}×)."
    else:
        head = f"**{best[1]} is cheaper**: {money(best)} per million tokens vs {money(worst)} ({worst[1]}, {ratio}×)."
    lines = [head, ""]
    for per, name, price, rate in rows:
        p_txt, r_txt = _plain(price.value, es), _plain(rate.value, es)
        lines.append(f"- {name}: {p_txt}{(' ' + price.unit) if price.unit else ''} {'la hora' if es else 'an hour'}, "
                     f"{r_txt} tokens/s → **{money((per, name, price, rate))}** "
                     f"{'por millón' if es else 'per million'} {cite}")
    if cur == "":
        lines.append("- " + ("La pregunta no nombra moneda: las cifras están en la de sus precios." if es
                             else "The question names no currency: the figures are in its prices' currency."))
    lines.append(f"- Fórmula de `kb cost`: precio por hora × 1.000.000 / (tokens por segundo × 3.600) {cite}" if es
                 else f"- The `kb cost` formula: {FORMULA} {cite}")
    lines.append("- " + ("Lo que la fórmula deja fuera: " if es else "What the formula leaves out: ")
                 + "; ".join(LEFT_OUT[ents.language]) + ".")
    lines.append(("- Con un archivo: " if es else "- With a file: ") + "`kb cost --file targets.toml`")
    return Answer(q.text, "cost", "\n".join(lines) + src.markdown(), facts, src.items, language=ents.language)


def cost_answer(conn: sqlite3.Connection, q: Question, ents: Entities) -> Answer:
    es = ents.language == "es"
    pairs = _pairs(q.text, ents)
    if pairs:
        return _compare(q, ents, pairs)
    src = Sources()
    cite = src.cite(SOURCE)
    price = next((p for p in ents.prices if p.per_hour), ents.prices[0] if ents.prices else None)
    rate = ents.rates[0] if ents.rates else None
    if price is None or rate is None:
        missing = [w for w, v in ((("el precio por hora" if es else "the price per hour"), price),
                                  (("el rendimiento en tokens/s" if es else "the throughput in tokens/s"), rate)) if v is None]
        if price is None and _INSTANCE_PRICE.search(ents.source or q.text):
            # "the on-demand price of a trn2.48xlarge in GBP? we get 4,000 tok/s" (r26 q19)
            head = ("**kb no guarda precios de instancias**: con el precio por hora que pagáis, lo calcula." if es
                    else "**kb holds no instance prices**: give the price per hour you pay and it computes the rest.")
        else:
            head = (f"**Falta {' y '.join(missing)}** para calcularlo." if es
                    else f"**I need {' and '.join(missing)}** to compute it.")
        named = sorted(currencies_named(ents.source or q.text))
        currency = price.unit if price and price.unit else (named[0] if len(named) == 1 else "USD")
        said_rate = format(rate.value.normalize(), "f") if rate else "R"  # as the command takes it: "4000", not "4,000"
        said_price = format(price.value.normalize(), "f") if price else "P"
        lines = [head, ("kb no guarda precios de instancias ni rendimientos medidos: dilos en la pregunta (precio por hora y "
                        "tokens/s); `kb bench` mide los tokens/s en un dispositivo." if es
                        else "kb holds no instance prices nor measured throughputs: give them in the question (a price per "
                             "hour and tokens/s); `kb bench` measures tokens/s on a device."), "",
                 (f"Costo por millón de tokens = precio por hora × 1.000.000 / (tokens por segundo × 3.600) {cite}" if es
                  else f"Cost per million tokens = {FORMULA} {cite}"),
                 ("Con las dos cifras: " if es else "With both figures: ")
                 + f"`kb cost --price-per-hour {said_price} --tokens-per-second {said_rate} --currency {currency}`"]
        facts = [{"formula": "price_per_hour * 1e6 / (tokens_per_second * 3600)", "missing": missing}]
        return Answer(q.text, "cost", "\n".join(lines) + src.markdown(), facts, src.items, language=ents.language)
    try:
        per_million = cost_per_million_tokens(price.value, rate.value)
    except CostInputError as exc:
        return Answer(q.text, "cost", f"**{'No puedo calcularlo' if es else 'I cannot compute that'}**: {exc}.",
                      [{"error": str(exc)}], language=ents.language)
    currency = price.unit or ("(moneda del precio)" if es else "(the price's currency)")  # none named (29n)
    money = format_money(per_million)
    shown = _money(money, es)
    hourly = "" if price.per_hour else (" (leído como precio por hora)" if es else " (read as a price per hour)")
    p_txt, r_txt = _plain(price.value, es), _plain(rate.value, es)
    if es:
        head = (f"**{shown} {currency} por millón de tokens** a {p_txt} {currency} la hora{hourly} "
                f"y {r_txt} tokens/s.")
    else:
        head = (f"**{shown} {currency} per million tokens** at {p_txt} {currency} an hour{hourly} "
                f"and {r_txt} tokens/s.")
    lines = [head, ""]
    if re.search(r"\bpesos?\b", price.text, re.I) and price.unit == "MXN" and not re.search(r"\bmxn\b|mexican", ents.source or "", re.I):
        # "5000 pesos la hora": Mexico's peso unless the question says whose; said, not silently assumed (attacker s13)
        lines.append("- Pesos leídos como MXN; di de qué país (pesos argentinos, chilenos, colombianos…) si es otro." if es
                     else "- Pesos read as MXN; say whose (Argentine, Chilean, Colombian pesos…) if another.")
    lines += [("- Convertido: " if es else "- Converted: ") + line for line in _conversions(price, rate, es)]
    lines.append(f"- Fórmula de `kb cost`: precio por hora × 1.000.000 / (tokens por segundo × 3.600) = "
                 f"{p_txt} × 1.000.000 / ({r_txt} × 3.600) {cite}" if es else
                 f"- The `kb cost` formula: {FORMULA} = {p_txt} × 1,000,000 / ({r_txt} × 3,600) {cite}")
    facts: list[dict[str, Any]] = [{"currency": currency, "price_per_hour": str(price.value),
                                    "tokens_per_second": str(rate.value), "cost_per_million_tokens": money,
                                    "cost_per_million_tokens_exact": str(per_million.normalize()),
                                    "formula": "price_per_hour * 1e6 / (tokens_per_second * 3600)"}]
    for amount in ents.tokens:
        if amount.value and amount.value != MILLION:
            total = format_money(per_million * amount.value / MILLION)
            lines.append(f"- {_plain(amount.value, es)} tokens: **{_money(total, es)} {currency}**")
            facts.append({"tokens": str(amount.value), "cost": total, "currency": currency})
    for other in [r for r in ents.rates if r.value != rate.value and r.value > 0][:4]:
        # "… 5,200 tok/s … and if the CPU fallbacks drag us down to 3,900 tok/s?": the same price at that rate (r31 q17)
        try:
            at_other = format_money(cost_per_million_tokens(price.value, other.value))
        except CostInputError:
            continue
        o_txt = _plain(other.value, es)
        lines.append(f"- A {o_txt} tokens/s: **{_money(at_other, es)} {currency} por millón de tokens**" if es else
                     f"- At {o_txt} tokens/s: **{_money(at_other, es)} {currency} per million tokens**")
        facts.append({"currency": currency, "price_per_hour": str(price.value), "tokens_per_second": str(other.value),
                      "cost_per_million_tokens": at_other})
    # "$180.000 COP" read twice, with and without its code, is one amount (r30 q22)
    others = [p for p in ents.prices if p is not price and p.value != price.value]
    if others:
        lines.append(("- Otros importes de la pregunta, no usados: " if es else "- Other amounts in the question, not used: ")
                     + ", ".join(p.text for p in others))
    lines.append("- " + ("Lo que la fórmula deja fuera: " if es else "What the formula leaves out: ")
                 + "; ".join(LEFT_OUT[ents.language]) + ".")
    lines.append(("- Comparar máquinas: " if es else "- To compare machines: ")
                 + f"`kb cost --price-per-hour {_arg(price.value)} --tokens-per-second {_arg(rate.value)}"
                 + (f" --currency {price.unit}" if price.unit else "") + f"` {'o' if es else 'or'} `kb cost --file targets.toml`"
                 + (" (kb no convierte monedas)." if es else " (kb converts no currencies)."))
    return Answer(q.text, "cost", "\n".join(lines) + src.markdown(), facts, src.items, language=ents.language)


# "how many tokens/s will Llama 3.1 8B do on it?", "¿cuántos tokens por segundo saca?": a throughput asked, which kb
# does not hold (r31 q20)
_THROUGHPUT_ASKED = re.compile(r"\bhow many (?:tokens?(?:/s| per second| a second)|tok/s)\b|\bwhat (?:throughput|tokens?/s)\b"
                               r"|\bhow fast\b[^?]{0,40}\b(?:tokens?|tok/s)\b|\bcu[aá]nt[oa]s tokens?(?:/s| por seg\w*)\b"
                               r"|\bqu[eé] (?:throughput|rendimiento)\b", re.I)


def throughput_answer(q: Question, ents: Entities) -> Answer | None:
    """The answer to a throughput asked with no figure given: kb holds none, and how to measure it."""
    if ents.rates or ents.prices or not _THROUGHPUT_ASKED.search(ents.source or q.text):
        return None
    es = ents.language == "es"
    text = ("**kb no guarda rendimientos medidos (tokens/s)** de ningún modelo ni instancia: `kb bench MODELO --device "
            "neuron` (o `tpu`) los mide en un dispositivo; con esa cifra y el precio por hora, `kb cost --price-per-hour P "
            "--tokens-per-second R` da el costo por millón de tokens." if es else
            "**kb holds no measured throughputs (tokens/s)** for any model or instance: `kb bench MODEL --device neuron` "
            "(or `tpu`) measures it on a device; with that figure and your price per hour, `kb cost --price-per-hour P "
            "--tokens-per-second R` gives the cost per million tokens.")
    return Answer(q.text, "cost", text, [{"throughput": "unknown", "how": "kb bench"}], language=ents.language)
