"""`kb.check(model, ...)`: the Python face of `kb check`, and what the command itself calls.

A model is a path (every format `kb check` reads, with the same trust rules), an
ExportedProgram in memory, or an nn.Module with example inputs (traced on a meta copy:
no weight memory, the module left as it was). The answer is a `CheckResult`: one
`kb.check.resolve.CheckReport` per target, the gate (`fails`, `gate`), and every format
the command prints (`to_json`, `to_markdown`, `to_sarif`, `to_junit`), plus `to_pandas`
and `_repr_html_` for notebooks. Nothing here prints: what the CLI shows on stderr (how a
version spelling resolved) arrives through `on_note`, and is kept in `result.notes`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from kb import neutral
from kb.check.resolve import CheckReport, Lookup
from kb.errors import KBError
from kb.vocab import MODES

Targets = str | Sequence[str]
LookupFactory = Callable[[str | None, str, str | None, str], tuple[Lookup, str | None]]
Note = Callable[[str], None]


class CheckInputError(KBError):
    """A check asked for in a way that cannot run (a bad mode, target, or model object)."""


class UnknownTargetError(KBError, KeyError):
    """`result[target]` for a target the check did not cover (a KeyError too, as for a dict)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


# --- the answer -----------------------------------------------------------------------------


@dataclass
class CheckResult:
    """What `kb.check` found: per target, every op's verdict, the summary, work accounting,
    warnings; the gate; the formats. `reports` are in the order the targets were given."""

    model: str
    model_kind: str
    train: bool
    reports: list[CheckReport]
    notes: list[str] = field(default_factory=list)  # how version spellings resolved (the CLI's stderr lines)

    # -- reading -------------------------------------------------------------------------

    @property
    def targets(self) -> list[str]:
        return [r.target for r in self.reports]

    def __getitem__(self, target: str) -> CheckReport:
        for report in self.reports:
            if report.target == target:
                return report
        raise UnknownTargetError(f"no report for target {str(target)[:80]!r}: this check has {', '.join(self.targets)}")

    def verdicts(self) -> dict[str, dict[str, str]]:
        """{target: {op: status}}: the one-word answer per op, as `--json` has it."""
        return {r.target: {op.op: op.status for op in r.ops} for r in self.reports}

    def summaries(self) -> dict[str, dict]:
        """{target: the report's summary} (distinct ops, call sites, shares, counts by status)."""
        return {r.target: r.summary() for r in self.reports}

    def work(self) -> dict[str, dict | None]:
        """{target: work accounting} (FLOPs and bytes on the device and on the host)."""
        return {r.target: r.work for r in self.reports}

    def warnings(self) -> dict[str, list[str]]:
        """{target: warnings} (known limitations the model hits, end of support)."""
        return {r.target: list(r.warnings) for r in self.reports}

    # -- the gate ------------------------------------------------------------------------

    def gate(self, fail_on: str | None = None, *, fail_on_unknown: bool = False, allow: Iterable[str] | None = None,
             baseline: Mapping | None = None, waivers: Iterable[Any] | None = None) -> dict:
        """The gate as `--json` reports it: which ops trip `fail_on` (decomposed < fallback <
        unsupported) or, with `fail_on_unknown`, have no evidence. `allow`: accepted ops;
        `baseline`: a previous `to_dict()`/`--format json` document (only new problems
        count); `waivers`: entries with op, reason, optional `expires` date and `target` (as [tool.kb]
        has them) — in force they accept the op, from their expiry day on they fail the gate
        (listed under `expired_waivers`).
        It also marks each op's `allowed` flag, which the formats show."""
        from kb.check import gate as kg

        kg.check_fail_on(fail_on, "fail_on", "fail_on_unknown=True")
        kg.mark_allowed(self.reports, kg.accepted_ops(allow))
        expired = kg.apply_waivers(self.reports, waivers)
        known = kg.baseline_from(baseline) if baseline is not None and not _is_known_map(baseline) else baseline
        verdict = kg.evaluate(self.reports, fail_on, known, fail_on_unknown=fail_on_unknown, expired=expired)
        verdict["unmatched_waivers"] = kg.unmatched_waivers(self.reports, waivers)
        return verdict

    def fails(self, fail_on: str | None = "fallback", **gate: Any) -> bool:
        """Whether the gate trips (`kb check --fail-on LEVEL` would exit 1); see `gate`."""
        return self.gate(fail_on, **gate)["failed"]

    # -- formats -------------------------------------------------------------------------

    def to_dict(self, **gate: Any) -> dict:
        """The document `kb check --format json` prints (without the kb_version/command
        envelope); `gate` takes the keywords of `gate()`."""
        verdict = self.gate(**gate)  # first: it marks each op's allowed flag and waiver, which the reports carry
        return {"model": self.model, "model_kind": self.model_kind, "train": self.train,
                "reports": [r.to_dict() for r in self.reports], "gate": verdict}

    def to_json(self, **gate: Any) -> str:
        """`kb check --format json`'s document, as JSON text (with the envelope)."""
        import kb

        doc = {"kb_version": kb.__version__, "command": "check", **self.to_dict(**gate)}
        from kb.neutral import json_text

        return json_text(json.dumps(doc, indent=2, ensure_ascii=False, default=str))

    def to_markdown(self, *, suggest: bool = False, **gate: Any) -> str:
        """`kb check --format markdown`: a PR comment or a job summary, every value escaped."""
        from kb.check.text import markdown

        g = self.gate(**gate)
        return markdown(self.reports, g, suggest=suggest)

    def to_sarif(self, **gate: Any) -> dict:
        """`kb check --format sarif` (SARIF 2.1.0, for code scanning) as a dict."""
        from kb.check.formats import sarif

        g = self.gate(**gate)
        return sarif(self.reports, g)

    def to_junit(self, **gate: Any) -> str:
        """`kb check --format junit`: a test suite per target, a test case per op."""
        from kb.check.formats import junit

        g = self.gate(**gate)
        return junit(self.reports, g)

    def to_pandas(self):
        """One row per (target, op): a pandas DataFrame (pandas must be installed)."""
        try:
            import pandas
        except ImportError:
            raise KBError("to_pandas needs pandas, which is not installed here: pip install pandas") from None
        from kb.check.text import COLUMNS, row

        rows = []
        for report in self.reports:
            for op in report.ops:
                cells = dict(zip(COLUMNS, row(op)))
                rows.append({"target": report.target, "backend_version": report.backend_version, "mode": report.mode,
                             **cells, "basis": op.basis, "fallback_calls": op.fallback_calls, "flops": op.flops,
                             "bytes": op.bytes})
        return pandas.DataFrame(rows, columns=["target", "backend_version", "mode", *COLUMNS, "basis",
                                               "fallback_calls", "flops", "bytes"])

    def to_html(self, **gate: Any) -> str:
        """An HTML fragment: per target the verdict, the summary and the op table (the columns
        of `kb check` and kb serve's saved checks), statuses coloured as kb serve colours
        them, every string escaped; the gate's line when `gate` sets one."""
        from kb.check.html import result_html

        return result_html(self, self.gate(**gate))

    def _repr_html_(self) -> str:
        """What a notebook shows: `to_html()` without a gate."""
        return self.to_html()

    def __repr__(self) -> str:
        parts = "; ".join(f"{r.target}: {_worst_line(r)}" for r in self.reports)
        from kb import neutral

        return neutral.clean(f"<kb check of {self.model} ({self.model_kind}): {parts}>")


def _is_known_map(value: Mapping) -> bool:
    """A baseline already read into {(target, op): status} (what the CLI's --baseline gives)."""
    return all(isinstance(k, tuple) for k in value)


def _worst_line(report: CheckReport) -> str:
    counts = report.summary()["ops_by_status"]
    return ", ".join(f"{n} {status}" for status, n in counts.items()) or "no ops"


# --- the check ------------------------------------------------------------------------------


def split_targets(targets: Targets | None) -> tuple[list[str], dict[str, str]]:
    """`"neuron"`, `("neuron", "tpu=0.2.0")`: names in order and the versions asked."""
    from kb.store.targetspec import split_specs

    if isinstance(targets, str):
        targets = [targets]
    if targets is not None and not list(targets):
        raise CheckInputError("targets: empty; name at least one target (e.g. targets=('neuron', 'tpu'))")
    return split_specs(list(targets or ["neuron"]))


def kb_lookup(db: str | None, target: str, backend_version: str | None, mode: str,
              on_note: Note | None = None) -> tuple[Lookup, str | None]:
    """(lookup, version shown) for one target from the KB: the version spelling resolved
    by the one grammar (kb.store.targetspec), said through `on_note`."""
    from kb.check.resolve import lookup_from_rows
    from kb.store import db as kbdb
    from kb.store import queries
    from kb.store.targetspec import resolve_versions

    conn = kbdb.open_kb(db)
    try:
        if backend_version is not None:
            backend_version = resolve_versions(conn, {target: backend_version}, single=True, on_note=on_note)[target]
        version = queries.pick_version(conn, target, backend_version)
        # verdicts read per op asked (the connection stays open for it), not the target's whole map
        rows = queries.support_lookup(conn, target, backend_version, mode)
    except BaseException:
        conn.close()
        raise
    return lookup_from_rows(rows), version


def kb_warning_hooks(db: str | None) -> list:
    """Warnings from the KB (known limitations the model hits, end of support)."""
    from kb.check.warnings import hooks_for

    return hooks_for(db)


def trace_model(model: Any, example_inputs: Any = None, *, train: bool = False, trust: bool = False,
                trust_modules: Sequence[str] = (), timeout: float = 300, name: str | None = None,
                progress: Callable[[str], AbstractContextManager] | None = None):
    """The TracedModel of any model `kb.check` takes (see the module's docstring)."""
    from kb.check import model_formats, tracing

    progress = progress or (lambda _text: nullcontext())
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    if isinstance(model, str):
        shapes = _shape_specs(example_inputs)
        source = model_formats.detect(model, trust=trust, trust_modules=tuple(trust_modules))
        trust = trust or bool(trust_modules)
        with progress(f"tracing {model}"):
            if source.kind == model_formats.FACTORY:
                return tracing.trace_in_child(source, shapes, train=train, timeout=timeout)
            return tracing.trace(source, shapes, train=train, trust=trust)
    kind = _object_kind(model)
    label = name or type(model).__name__
    with progress(f"tracing {label}"):
        if kind == "exported_program":
            return tracing.trace_program(model, label, train=train, input_shapes=_shape_specs(example_inputs))
        return tracing.trace_module(model, _as_tuple(example_inputs), label, train=train)


def _object_kind(model: Any) -> str:
    """exported_program or nn_module, without importing torch for anything else."""
    torch = sys.modules.get("torch")
    if torch is not None:
        from torch.export import ExportedProgram

        if isinstance(model, ExportedProgram):
            return "exported_program"
        if isinstance(model, torch.nn.Module):
            return "nn_module"
    raise CheckInputError(f"kb.check: model must be a path, a torch.export ExportedProgram or an nn.Module "
                          f"(got {type(model).__name__})")


def _as_tuple(example_inputs: Any) -> tuple:
    if example_inputs is None:
        return ()
    if isinstance(example_inputs, (tuple, list)):  # the positional inputs, as torch.export takes them
        return tuple(example_inputs)
    return (example_inputs,)  # one tensor (or shape) for a one-input model


def _shape_specs(example_inputs: Any) -> list[str] | None:
    """Input shapes as `kb check --input-shape` takes them, from strings or tensors."""
    if example_inputs is None:
        return None
    values = [example_inputs] if not isinstance(example_inputs, (list, tuple)) else list(example_inputs)
    specs = []
    for value in values:
        if isinstance(value, str):
            specs.append(value)
        elif hasattr(value, "shape") and hasattr(value, "dtype"):
            dims = "x".join(str(int(d)) for d in value.shape) or "1"
            specs.append(f"{dims}:{str(value.dtype).removeprefix('torch.')}")
        else:
            raise CheckInputError(f"example input {type(value).__name__}: expected a tensor or a shape such as "
                                  "'1x128:int64'")
    return specs


def check(model: Any, example_inputs: Any = None, *, targets: Targets = ("neuron",), mode: str = "eager",
          train: bool = False, trust: bool = False, trust_modules: Sequence[str] = (),
          backend_versions: Mapping[str, str] | None = None, db: str | None = None, timeout: float = 300,
          cost_overrides: Mapping[str, str | None] | None = None, name: str | None = None,
          lookup: LookupFactory | None = None, warning_hooks: Callable[[str | None], list] | None = None,
          on_note: Note | None = None, progress: Callable[[str], AbstractContextManager] | None = None,
          ) -> CheckResult:
    """Every ATen op `model` runs, resolved on each target: native, decomposed, CPU fallback,
    unsupported or unknown, with sources, places, costs and warnings.

    - `model`: a path (ExportedProgram `.pt2`, TorchScript and pickles with `trust=True`,
      a factory `model.py:build`), an ExportedProgram, or an nn.Module;
    - `example_inputs`: tensors (any device: only their shapes and dtypes are used) or
      shapes as `"1x128:int64"`; needed for modules, factories and pickles;
    - `targets`: names or `TARGET=VERSION` (`"tpu=0.2.0"`, `"neuron=2.33"`);
    - `mode`: eager or compile; `train`: the backward pass too;
    - `db`: the KB file (default: KB_DB or the user cache, built on first use).

    Raises a KBError (one line, the CLI's message) on bad input; prints nothing."""
    from kb.check import hostcost
    from kb.check import resolve as kc

    if mode not in MODES:
        raise CheckInputError(f"--mode {mode}: expected one of {', '.join(MODES)}")
    names, versions = split_targets(targets)
    versions = {**versions, **dict(backend_versions or {})}
    costs = dict(cost_overrides or {})
    hostcost.cost_model(costs)  # a bad value is an input error before any tracing
    notes: list[str] = []

    def note(line: str) -> None:
        notes.append(line)
        if on_note is not None:
            on_note(line)

    from kb.store.build import notices_to

    try:
        traced = trace_model(model, example_inputs, train=train, trust=trust, trust_modules=trust_modules,
                             timeout=timeout, name=name, progress=progress)
    except KBError as exc:  # the message echoes the user's path: one visible line, as the CLI prints it
        exc.args = (neutral.terminal(str(exc)),) + exc.args[1:]
        raise
    make_lookup = lookup or (lambda d, t, v, m: kb_lookup(d, t, v, m, note))
    reports = []
    with notices_to(note):  # the KB's first-use build says so here, not on stderr
        hooks = [*kc.WARNING_HOOKS, *(warning_hooks or kb_warning_hooks)(db)]
        for target in names:
            target_lookup, version = make_lookup(db, target, versions.get(target), mode)
            with (progress or (lambda _text: nullcontext()))(f"resolving {len(traced.sites)} calls on {target}"):
                reports.append(kc.check(traced, target_lookup, target=target, backend_version=version, mode=mode,
                                        warning_hooks=hooks, cost_overrides=costs))
    shown = os.fspath(model) if isinstance(model, (str, os.PathLike)) else traced.path  # as given: `model.py:build`
    for report in reports:
        report.in_memory = not isinstance(model, (str, os.PathLike))
    return CheckResult(model=shown, model_kind=traced.kind, train=traced.train, reports=reports, notes=notes)
