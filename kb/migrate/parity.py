"""`kb parity`: the same model, the same weights, the same inputs on two devices — how far
apart are the outputs, and does the gap grow with the input size?

A migration's numerics question is rarely "is it equal" (it never is) but "is it within
what this dtype allows" and "will it stay so at production sizes". So:

* tolerances follow each output's dtype, with torch.testing's defaults (`assert_close`)
  unless the user gives `--atol/--rtol`; an element passes when
  ``|actual - expected| <= atol + rtol * |expected|`` (NaN must meet NaN);
* a sweep over batch / sequence length (`kb.check.runmodel` plans the shapes) runs every size,
  and `trend` fits ``log(max abs error)`` against ``log(input elements)``: a slope that
  is clearly positive with a rank correlation near 1 is flagged as *grows with size*.
  Floating-point sums do drift a little with length on every device (a slope near 0.5
  for a long reduction), so growth is a flag; `--fail-on-growth` makes it a gate.

Both devices run forward only, under `torch.inference_mode`: no autograd queue is
involved, so the simulator (`--device sim`, loaded when the run starts) works in any
process. A point that raises on one side (an op the device refuses) fails with the error.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from kb.check import runmodel
from kb.errors import KBError
from kb.tolerances import tolerance

GROWTH_MIN_SLOPE = 0.25  # error ∝ size^0.25 or faster
GROWTH_MIN_RANK = 0.8  # and (almost) monotonic
GROWTH_MIN_RATIO = 2.0  # and the largest size's error at least twice the smallest's


class ParityError(KBError):
    """A parity run that could not be carried out (exit 2)."""


@dataclass
class OutputDiff:
    name: str
    shape: list[int]
    dtype: str
    numel: int
    max_abs: float
    max_rel: float
    mismatched: int
    atol: float
    rtol: float
    passed: bool
    note: str = ""


@dataclass
class PointResult:
    label: str
    values: dict[str, int]
    shapes: list[list[int]]
    size: int
    outputs: list[OutputDiff] = field(default_factory=list)
    error: str | None = None  # the run failed on one side: message

    @property
    def passed(self) -> bool:
        return self.error is None and all(o.passed for o in self.outputs)

    @property
    def max_abs(self) -> float:
        return max((o.max_abs for o in self.outputs), default=0.0)

    @property
    def max_rel(self) -> float:
        return max((o.max_rel for o in self.outputs), default=0.0)

    def as_dict(self) -> dict:
        return {"label": self.label, "values": self.values, "shapes": self.shapes, "size": self.size,
                "max_abs": self.max_abs, "max_rel": self.max_rel, "passed": self.passed, "error": self.error,
                "outputs": [asdict(o) for o in self.outputs]}


def tolerances_for(dtype_name: str, atol: float | None, rtol: float | None) -> tuple[float, float]:
    """(atol, rtol) for one output: the user's values, else torch.testing's for its dtype;
    integer and bool outputs must match exactly."""
    default_rtol, default_atol = tolerance(dtype_name)
    return (default_atol if atol is None else atol), (default_rtol if rtol is None else rtol)


def _leaves(value: Any, name: str = "output") -> list[tuple[str, Any]]:
    """Named leaves of a nested output (tuples, lists, dicts, dataclass-like objects)."""
    if isinstance(value, (list, tuple)):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, f"{name}[{i}]")]
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{name}[{k!r}]")]
    return [(name, value)]


def compare_outputs(actual: Any, expected: Any, atol: float | None = None, rtol: float | None = None) -> list[OutputDiff]:
    """Element-wise differences of two outputs (actual on the device, expected on the
    reference), computed in float64 on the CPU."""
    import torch

    got, want = _leaves(actual), _leaves(expected)
    if [n for n, _ in got] != [n for n, _ in want]:
        raise ParityError(f"the two devices returned differently structured outputs "
                          f"({len(got)} vs {len(want)} leaves)")
    diffs = []
    for (name, a), (_, e) in zip(got, want):
        if not isinstance(e, torch.Tensor):
            same = a == e
            diffs.append(OutputDiff(name, [], type(e).__name__, 1, 0.0 if same else math.inf, 0.0 if same else math.inf,
                                    0 if same else 1, 0.0, 0.0, bool(same), "" if same else f"{a!r} != {e!r}"))
            continue
        dtype = str(e.dtype).removeprefix("torch.")
        a_cpu = a.detach().to("cpu") if isinstance(a, torch.Tensor) else None
        if a_cpu is None or tuple(a_cpu.shape) != tuple(e.shape):
            shape = None if a_cpu is None else list(a_cpu.shape)
            diffs.append(OutputDiff(name, list(e.shape), dtype, e.numel(), math.inf, math.inf, e.numel(), 0.0, 0.0,
                                    False, f"shape {shape} on the device, {list(e.shape)} on the reference"))
            continue
        a_atol, a_rtol = tolerances_for(dtype, atol, rtol)
        x = a_cpu.to(torch.complex128 if e.is_complex() else torch.float64)
        y = e.detach().to("cpu").to(x.dtype)
        both_nan = torch.isnan(x) & torch.isnan(y) if not e.is_complex() else torch.zeros_like(x, dtype=torch.bool)
        same_inf = torch.isinf(x) & torch.isinf(y) & (x == y)
        diff = (x - y).abs()
        diff = torch.where(both_nan | same_inf, torch.zeros_like(diff), diff)
        diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
        bound = a_atol + a_rtol * y.abs()
        bad = ~(diff <= torch.where(torch.isnan(bound), torch.zeros_like(bound), bound))
        nonzero = y.abs() > 0
        rel = (diff[nonzero] / y.abs()[nonzero]) if bool(nonzero.any()) else diff.new_zeros(0)
        max_abs = float(diff.max()) if diff.numel() else 0.0
        max_rel = float(rel.max()) if rel.numel() else (0.0 if max_abs == 0 else math.inf)
        mismatched = int(bad.sum())
        if a_cpu.dtype != e.dtype:
            note = f"dtype {str(a_cpu.dtype).removeprefix('torch.')} on the device"
        else:
            note = ""
        diffs.append(OutputDiff(name, list(e.shape), dtype, e.numel(), max_abs, max_rel, mismatched, a_atol, a_rtol,
                                mismatched == 0 and not note, note))
    return diffs


# --- trend ---------------------------------------------------------------------------


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def _correlation(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def trend(sizes: list[int], errors: list[float]) -> dict:
    """Does the error grow with the input size? The log-log slope (error ∝ size^slope),
    Spearman's rank correlation, and the largest / smallest error ratio; `grows` when all
    three say so (see the GROWTH_* thresholds)."""
    pairs = sorted((s, e) for s, e in zip(sizes, errors) if math.isfinite(e))
    result = {"sizes": sizes, "max_abs": errors, "slope": None, "rank_correlation": None, "ratio": None,
              "grows": False, "reason": ""}
    if len({s for s, _ in pairs}) < 2:
        result["reason"] = "needs two or more finite points of different sizes (--sweep)"
        return result
    positive = [(s, e) for s, e in pairs if e > 0]
    slope = None
    if len({s for s, _ in positive}) >= 2:  # log-log fit over the sizes with a nonzero error
        xs = [math.log(s) for s, _ in positive]
        ys = [math.log(e) for _, e in positive]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    rank = _correlation(_ranks([s for s, _ in pairs]), _ranks([e for _, e in pairs]))
    smallest, largest = pairs[0][1], pairs[-1][1]
    ratio = (largest / smallest) if smallest > 0 else (math.inf if largest > 0 else 1.0)
    steep = slope >= GROWTH_MIN_SLOPE if slope is not None else (smallest == 0 < largest)
    grows = largest > 0 and steep and rank >= GROWTH_MIN_RANK and ratio >= GROWTH_MIN_RATIO
    result.update(slope=None if slope is None else round(slope, 4), rank_correlation=round(rank, 4),
                  ratio=None if not math.isfinite(ratio) else round(ratio, 4), grows=grows)
    span = f"{smallest:.3g} at {pairs[0][0]} elements → {largest:.3g} at {pairs[-1][0]}"
    if grows:
        rate = f"about as size^{slope:.2f}" if slope is not None else "from zero"
        result["reason"] = f"max abs error grows {rate} ({span})"
    elif max(e for _, e in pairs) == 0:
        result["reason"] = "outputs identical at every size"
    else:
        shown = "n/a" if slope is None else f"{slope:.2f}"
        result["reason"] = f"no steady growth (slope {shown}, rank correlation {rank:.2f}; {span})"
    return result


# --- the run -------------------------------------------------------------------------


@dataclass
class ParityReport:
    model: str
    model_kind: str
    device: str
    ref: str
    dtype: str | None
    seed: int
    tolerance: dict
    points: list[PointResult]
    trend: dict
    fail_on_growth: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(p.passed for p in self.points) and not (self.fail_on_growth and self.trend.get("grows"))

    def to_dict(self) -> dict:
        """Plain JSON: non-finite numbers (a shape mismatch is an infinite error) become null."""
        failing = [p.label for p in self.points if not p.passed]
        return _finite({"model": self.model, "model_kind": self.model_kind, "device": self.device, "ref": self.ref,
                "dtype": self.dtype, "seed": self.seed, "tolerance": self.tolerance,
                "points": [p.as_dict() for p in self.points], "trend": self.trend,
                "fail_on_growth": self.fail_on_growth, "failed_points": failing, "passed": self.passed,
                "notes": self.notes})


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _run(model, inputs):
    import torch

    with torch.inference_mode():
        return model(*inputs)


def run_parity(model_spec: str, device: str, *, ref: str = "cpu", dtype: str | None = None,
               input_shapes: list[str] | None = None, sweep: list[str] | None = None,
               batch: int | None = None, seq: int | None = None, atol: float | None = None,
               rtol: float | None = None, seed: int = 0, trust: bool = False, fail_on_growth: bool = False,
               on_point=None, against: str | None = None) -> ParityReport:
    """Run the model on `ref` and on `device` at every sweep point and compare. With
    `against`, the program under test on `device` is that other model (a `kb fix` rewrite
    of this one, say), with the same inputs."""
    dtype = runmodel.check_dtype(dtype)
    for name, value in (("--atol", atol), ("--rtol", rtol)):
        if value is not None and (not math.isfinite(value) or value < 0):
            raise ParityError(f"{name} must be a finite number ≥ 0 (got {value})")
    axes = runmodel.parse_sweep(sweep or [])
    fixed = {k: v for k, v in (("batch", batch), ("seq", seq)) if v is not None}
    for axis, value in fixed.items():
        if value <= 0:
            raise ParityError(f"--{axis} must be greater than 0")
        if axis in axes:
            raise ParityError(f"--{axis} and --sweep {axis}=... both given")
    ref_device = runmodel.prepare_device(ref)
    dev = runmodel.prepare_device(device)
    loaded = runmodel.load_model(model_spec, input_shapes, seed=seed, trust=trust)
    points = runmodel.plan_points(loaded.templates, axes, fixed)
    high = runmodel.integer_high(loaded)
    tested = runmodel.load_model(against, input_shapes, seed=seed, trust=trust) if against else loaded
    try:
        ref_model = loaded.on(ref_device, dtype)
        dev_model = tested.on(dev, dtype)
    except KBError:
        raise
    except Exception as exc:
        raise ParityError(f"moving the model to {device} failed ({type(exc).__name__}: {_short(exc)})") from None
    results = []
    for point in points:
        result = PointResult(point.label, point.values, [list(s) for s in point.shapes], point.size)
        inputs = runmodel.make_inputs(point, dtype, high, seed)
        try:
            expected = _run(ref_model, runmodel.to_device(inputs, ref_device))
        except Exception as exc:
            result.error = f"on {ref}: {type(exc).__name__}: {_short(exc)}"
        else:
            try:
                actual = _run(dev_model, runmodel.to_device(inputs, dev))
                runmodel.synchronize(dev)
            except Exception as exc:
                result.error = f"on {device}: {type(exc).__name__}: {_short(exc)}"
            else:
                result.outputs = compare_outputs(actual, expected, atol, rtol)
        results.append(result)
        if on_point is not None:
            on_point(result)
    usable = [r for r in results if r.error is None]
    shown_dtype = dtype or (usable[0].outputs[0].dtype if usable and usable[0].outputs else None)
    t_atol, t_rtol = tolerances_for(shown_dtype or "float32", atol, rtol)
    tolerance = {"atol": t_atol, "rtol": t_rtol,
                 "source": "user" if atol is not None or rtol is not None
                 else "torch.testing defaults for each output's dtype"}
    report = ParityReport(model_spec, loaded.kind, device, ref, dtype, seed, tolerance, results,
                          trend([r.size for r in usable], [r.max_abs for r in usable]), fail_on_growth,
                          list(loaded.notes) + ([f"the program under test on {device} is {against}"] if against else []))
    return report


def _short(exc: BaseException) -> str:
    from kb.check.model_formats import _short as short

    return short(exc)
