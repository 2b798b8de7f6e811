"""What the CPU fallbacks of one step cost, estimated before a chip is rented.

    host time per step ≈ transitions × latency + bytes copied ÷ host-link bandwidth
                         + host FLOPs ÷ host throughput

No vendor publishes these three numbers for the fallback path, so each parameter is a
range taken from public figures for comparable hardware (PCIe links, accelerator
round trips, server CPUs), with the page it comes from; the low end of the estimate
combines the favourable ends, the high end the unfavourable ones. Every parameter can be
overridden (`kb check --cost-latency-us 20:80` …) once someone has measured their own.
The output always says that this is an estimate, not a measurement.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from kb.errors import KBError

DISCLAIMER = "an estimate before renting a chip, from the stated cost model — not a measurement"


class CostModelError(KBError):
    """A cost-model override that cannot be read (exit 2)."""


@dataclass(frozen=True)
class Parameter:
    name: str
    low: float
    high: float
    unit: str
    what: str
    sources: tuple[str, ...]
    overridden: bool = False

    def to_dict(self) -> dict:
        body = asdict(self)
        body["sources"] = list(self.sources)
        return body


# The published ranges (facts with their URLs; kb's own wording).
DEFAULTS: dict[str, Parameter] = {
    "latency_us": Parameter(
        "latency_us", 10.0, 60.0, "µs per device↔host transition",
        "one synchronising round trip between host and accelerator: about 10 µs of launch overhead is the usual "
        "figure, and a measured host read-back with a sync took about 56 µs",
        ("https://modal.com/gpu-glossary/perf/overhead",
         "https://forums.developer.nvidia.com/t/massive-hiccups-when-transferring-flags-back-to-host-challenging-"
         "the-commonly-quoted-2-10us-latency/20503")),
    "link_gbps": Parameter(
        "link_gbps", 31.5, 63.0, "GB/s host link",
        "a PCIe x16 link per direction: 31.5 GB/s for generation 4.0, 63.0 GB/s for 5.0",
        ("https://hpc-notes.pages.dev/reference/pcie",)),
    "host_gflops": Parameter(
        "host_gflops", 50.0, 750.0, "GFLOP/s on the host",
        "what a host CPU sustains on a fallback op: from one AVX2/FMA core (32 single-precision FLOPs per cycle "
        "at a few GHz, before memory stalls) up to a many-core AVX-512 server part's peak (about 780 GFLOP/s "
        "double precision for 18 cores)",
        ("https://stackoverflow.com/questions/15655835/flops-per-cycle-for-sandy-bridge-and-haswell-sse2-avx-avx2",
         "https://www.realworldtech.com/forum/?threadid=182063&curpostid=")),
}


def parse_range(text: str, name: str) -> tuple[float, float]:
    """`20` (a point) or `20:80` (a range) → (low, high); positive finite numbers only."""
    parts = str(text).split(":")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise CostModelError(f"--cost-{name.replace('_', '-')} {text}: expected a number or LOW:HIGH") from None
    if len(values) not in (1, 2) or any(not (v > 0 and v < float("inf")) for v in values):
        raise CostModelError(f"--cost-{name.replace('_', '-')} {text}: expected a positive number or LOW:HIGH")
    if len(values) == 2 and values[0] > values[1]:
        # a reversed range is most likely a typo; guessing which end was meant hides it
        raise CostModelError(f"--cost-{name.replace('_', '-')} {text}: LOW is above HIGH "
                             f"(write {parts[1]}:{parts[0]})")
    return (values[0], values[0]) if len(values) == 1 else (values[0], values[1])


def cost_model(overrides: dict[str, str | tuple[float, float] | None] | None = None) -> dict[str, Parameter]:
    """The parameters, with any override (text or a (low, high) pair) in place of the published range."""
    model = dict(DEFAULTS)
    for name, value in (overrides or {}).items():
        if value is None:
            continue
        if name not in DEFAULTS:
            raise CostModelError(f"unknown cost-model parameter {name!r} (expected {', '.join(DEFAULTS)})")
        low, high = parse_range(value, name) if isinstance(value, str) else (float(value[0]), float(value[1]))
        base = DEFAULTS[name]
        model[name] = Parameter(name, low, high, base.unit, "set by the user", ("user override",), True)
    return model


def estimate(transitions: int, bytes_copied: int, host_flops: int, model: dict[str, Parameter] | None = None) -> dict:
    """Host milliseconds per step as {"low", "high"}, and the terms that make it up."""
    model = model or DEFAULTS
    lat, link, cpu = model["latency_us"], model["link_gbps"], model["host_gflops"]

    def ms(latency_us: float, gbps: float, gflops: float) -> tuple[float, float, float]:
        return (transitions * latency_us / 1e3, bytes_copied / (gbps * 1e9) * 1e3, host_flops / (gflops * 1e9) * 1e3)

    low_terms = ms(lat.low, link.high, cpu.high)
    high_terms = ms(lat.high, link.low, cpu.low)
    return {
        "low": _round(sum(low_terms)),
        "high": _round(sum(high_terms)),
        "terms_ms": {"transitions": [_round(low_terms[0]), _round(high_terms[0])],
                     "copies": [_round(low_terms[1]), _round(high_terms[1])],
                     "host_compute": [_round(low_terms[2]), _round(high_terms[2])]},
        "inputs": {"transitions": transitions, "bytes_copied": bytes_copied, "host_flops": host_flops},
    }


def describe(model: dict[str, Parameter]) -> dict:
    """The cost model as JSON: formula, parameters with their sources, and the disclaimer."""
    return {
        "formula": "transitions × latency + bytes copied ÷ link bandwidth + host FLOPs ÷ host throughput",
        "parameters": {name: p.to_dict() for name, p in model.items()},
        "note": DISCLAIMER,
    }


def range_text(ms: dict) -> str:
    """`≈0.1–0.4 ms` (or `≈0.1 ms` when both ends round the same)."""
    low, high = _fmt(ms["low"]), _fmt(ms["high"])
    return f"≈{low} ms" if low == high else f"≈{low}–{high} ms"


def _fmt(value: float) -> str:
    if value == 0:
        return "0"
    if value < 0.01:
        return f"{value:.3g}"
    if value < 10:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{value:.0f}"


def _round(value: float) -> float:
    return float(f"{value:.6g}")
