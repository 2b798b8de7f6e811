"""`kb bench`: tokens per second of a model on a device, with the first call apart.

The first call on a device pays for compilation (torch.compile, a graph compiler on
Trainium/TPU), lazy initialisation and allocator warm-up; folding it into an average
makes small runs look slow and hides compile time from the cost model. So the first
call is timed on its own, `warmup` further calls are run untimed, and the steady state
is the median of `iters` timed calls (each ended by a device synchronize).

tokens per call = batch × seq of the first input (see `kb.check.runmodel.tokens_of`), or
`tokens_per_call` when given. The result feeds `kb.migrate.cost` (cost per million tokens) and
can be written as a `[target]` table of a `kb cost --file` TOML file.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from dataclasses import dataclass, field

from kb.check import runmodel
from kb.errors import KBError


class BenchError(KBError):
    """A benchmark that cannot run as asked (exit 2)."""


@dataclass
class BenchResult:
    model: str
    device: str
    dtype: str | None
    shapes: list[list[int]]
    tokens_per_call: int
    first_call_s: float
    iteration_s: list[float]
    warmup: int
    compiled: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def median_s(self) -> float:
        return statistics.median(self.iteration_s)

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_per_call / self.median_s if self.median_s > 0 else math.inf

    @property
    def first_call_overhead_s(self) -> float:
        """What the first call cost beyond a steady-state call (compile, lazy init)."""
        return max(0.0, self.first_call_s - self.median_s)

    def to_dict(self) -> dict:
        times = sorted(self.iteration_s)
        return {
            "model": self.model, "device": self.device, "dtype": self.dtype, "shapes": self.shapes,
            "tokens_per_call": self.tokens_per_call, "compiled": self.compiled,
            "first_call_s": self.first_call_s, "first_call_overhead_s": self.first_call_overhead_s,
            "warmup_calls": self.warmup, "iterations": len(times),
            "steady_state": {"median_s": self.median_s, "min_s": times[0], "max_s": times[-1],
                             "p90_s": times[min(len(times) - 1, math.ceil(0.9 * len(times)) - 1)]},
            "tokens_per_second": self.tokens_per_second, "notes": self.notes,
        }


def time_calls(call, synchronize, iters: int, warmup: int, clock=time.perf_counter) -> tuple[float, list[float]]:
    """(first call seconds, steady-state seconds per call): one timed first call, `warmup`
    untimed calls, then `iters` timed calls."""
    start = clock()
    call()
    synchronize()
    first = clock() - start
    for _ in range(warmup):
        call()
    synchronize()
    times = []
    for _ in range(iters):
        start = clock()
        call()
        synchronize()
        times.append(clock() - start)
    return first, times


def run_bench(model_spec: str, device: str, *, dtype: str | None = None, input_shapes: list[str] | None = None,
              batch: int | None = None, seq: int | None = None, iters: int = 20, warmup: int = 3,
              tokens_per_call: int | None = None, compile_model: bool = False, seed: int = 0,
              trust: bool = False) -> BenchResult:
    """Measure MODEL on `device` at one input size."""
    import torch

    if iters < 1:
        raise BenchError("--iters must be at least 1")
    if warmup < 0:
        raise BenchError("--warmup must not be negative")
    if tokens_per_call is not None and tokens_per_call <= 0:
        raise BenchError("--tokens-per-call must be greater than 0")
    dtype = runmodel.check_dtype(dtype)
    fixed = {k: v for k, v in (("batch", batch), ("seq", seq)) if v is not None}
    if any(v <= 0 for v in fixed.values()):
        raise BenchError("--batch and --seq must be greater than 0")
    dev = runmodel.prepare_device(device)
    loaded = runmodel.load_model(model_spec, input_shapes, seed=seed, trust=trust)
    (point,) = runmodel.plan_points(loaded.templates, {}, fixed)
    model = loaded.on(dev, dtype)
    notes = list(loaded.notes)
    if compile_model:
        model = torch.compile(model)
        notes.append("torch.compile: the first call includes compilation")
    inputs = runmodel.to_device(runmodel.make_inputs(point, dtype, runmodel.integer_high(loaded), seed), dev)

    def call():
        with torch.inference_mode():
            model(*inputs)

    try:
        first, times = time_calls(call, lambda: runmodel.synchronize(dev), iters, warmup)
    except KBError:
        raise
    except Exception as exc:
        raise BenchError(f"running the model on {device} failed ({type(exc).__name__}: "
                         f"{runmodel.mf._short(exc)})") from None
    tokens = tokens_per_call or runmodel.tokens_of(point)
    return BenchResult(model_spec, device, dtype, [list(s) for s in point.shapes], tokens, first, times, warmup,
                       compile_model, notes)


# --- feeding kb cost ---------------------------------------------------------------------


def _toml_key(name: str) -> str:
    return name if name and all(c.isalnum() or c in "-_" for c in name) else _toml_string(name)


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return _toml_string(str(value))


def render_cost_toml(targets: dict[str, dict]) -> str:
    """`kb cost --file` TOML: one [table] per target with flat values."""
    out = []
    for name, body in targets.items():
        out.append(f"[{_toml_key(name)}]")
        out.extend(f"{key} = {_toml_value(value)}" for key, value in body.items())
        out.append("")
    return "\n".join(out)


def write_cost_entry(path: str, name: str, price_per_hour: str, tokens_per_second: float,
                     currency: str | None = None, note: str = "") -> None:
    """Add or replace target `name` in the TOML file `path` (created when missing); the
    other targets are kept as they were."""
    from kb.migrate.cost import make_target

    make_target(name, price_per_hour, f"{tokens_per_second:.6g}", currency, note)  # validates
    from kb import userfiles

    try:
        targets = userfiles.parse_toml(userfiles.read_text(path), path) if os.path.lexists(path) else {}
    except userfiles.FileRefused as exc:
        raise BenchError(f"--cost-file {path}: cannot update it ({str(exc).removeprefix(f'{path}: ')})") from None
    if any(not isinstance(body, dict) for body in targets.values()):
        raise BenchError(f"--cost-file {path}: not a kb cost targets file (top-level values must be tables)")
    body = {"price_per_hour": float(price_per_hour), "tokens_per_second": float(f"{tokens_per_second:.6g}")}
    if currency:
        body["currency"] = currency.upper()
    if note:
        body["note"] = note
    targets[name] = body
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render_cost_toml(targets))
    except OSError as exc:
        raise BenchError(f"--cost-file {path}: cannot write ({exc.strerror or exc})") from None
