"""The CI gate of a check (`kb check --fail-on`, `report.fails(fail_on=...)`): which ops trip
it. It lives here, once, so that the CLI, the Python API and every output format count the
same findings.

A finding is an op that is bad enough (`kb.vocab.trips`), not accepted (`allow`, or a
waiver in force: [tool.kb] waivers, kb.check.project_config), and not already in the
baseline with the same status or a worse one. A waiver that has expired accepts nothing and,
with a gate, is itself a finding: a gate that stayed green only because somebody once waived
an op has to say so when the waiver ends.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from typing import Any

from kb.errors import KBError
from kb.vocab import SEVERITY, UNKNOWN, trips

# `fail_on` levels in order; crash and timeout count as unsupported. `unknown` is not on the
# scale: it trips only with fail_on_unknown.
FAIL_ON = ("decomposed", "fallback", "unsupported")


class GateError(KBError):
    """A gate asked for in a way that cannot be evaluated (an unknown level, a bad waiver)."""


def check_fail_on(fail_on: str | None, flag: str = "--fail-on", unknown_flag: str = "--fail-on-unknown") -> None:
    """Refuse a level that is not on the scale, in the caller's words (the CLI's flags, or
    the API's keywords)."""
    if fail_on == UNKNOWN:
        raise GateError(f"{flag} unknown: unknown is a switch of its own, {unknown_flag} "
                        f"(alone or with {flag} {'|'.join(FAIL_ON)})")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise GateError(f"{flag} {fail_on}: expected one of {', '.join(FAIL_ON)} (or {unknown_flag})")


def is_allowed(op: Any, allowed: set[str]) -> bool:
    """Accepted: the op itself, or a decomposed op whose every problem leaf is accepted."""
    if op.op in allowed:
        return True
    problems = [leaf.op for leaf in op.via if SEVERITY[leaf.status] >= SEVERITY["fallback"]]
    return bool(problems) and all(name in allowed for name in problems)


def _field(waiver: Any, name: str) -> Any:
    return waiver.get(name) if isinstance(waiver, Mapping) else getattr(waiver, name, None)


def _known_target(target: str, name: str) -> None:
    try:
        from kb.check.project_config import known_targets

        known = known_targets(None)
    except Exception:  # no KB to ask: the target is taken as given
        return
    if known and target not in known:
        raise GateError(f"waiver for {name}: unknown target {target!r} (known: {', '.join(known)})")


def op_spelling(name: str) -> tuple[str, tuple[str, ...]]:
    """kb.check.opspell.op_spelling, its refusal a GateError."""
    from kb.check.opspell import OpSpellingError
    from kb.check.opspell import op_spelling as spell

    try:
        return spell(name)
    except OpSpellingError as exc:
        raise GateError(str(exc)) from None


def to_waivers(waivers: Iterable[Any] | None) -> list:
    """Waivers given to the Python API as [tool.kb]'s own records (kb.check.project_config.Waiver),
    so that the API and `kb check` judge them by one rule: each a mapping or an object with
    `op`, `reason`, optionally `expires` (a date or YYYY-MM-DD; none: no expiry) and `target`
    (none: every target). The op may be spelled as `kb op` takes it."""
    from kb.check.project_config import Waiver

    if waivers is not None and (isinstance(waivers, (str, bytes, Mapping)) or not isinstance(waivers, Iterable)):
        raise GateError(f"waivers: expected a list of waivers (each with op and reason), got {type(waivers).__name__}")
    found = []
    for waiver in waivers or ():
        if isinstance(waiver, Waiver):
            found.append(waiver)
            continue
        name, expires, target = _field(waiver, "op"), _field(waiver, "expires"), _field(waiver, "target")
        if not isinstance(name, str) or not name.strip():
            raise GateError(f"waiver {str(waiver)[:80]!r}: needs an op name")
        try:
            op, alternatives = op_spelling(name)
        except GateError as exc:
            raise GateError(f"waiver: {exc}") from None
        reason = _field(waiver, "reason")
        if not isinstance(reason, str) or not reason.strip():
            raise GateError(f"waiver for {name}: reason missing (a waiver needs op and reason: say why the op is accepted)")
        if isinstance(expires, str):
            try:
                expires = _dt.date.fromisoformat(expires)
            except ValueError:
                raise GateError(f"waiver for {name}: expires {expires!r} is not a date (YYYY-MM-DD)") from None
        if isinstance(expires, _dt.datetime):
            expires = expires.date()
        if expires is not None and not isinstance(expires, _dt.date):
            raise GateError(f"waiver for {name}: expires must be a date")
        if target is not None and not isinstance(target, str):
            raise GateError(f"waiver for {name}: target must be a target name")
        if target is not None:
            _known_target(target, name)
        found.append(Waiver(op=op, reason=reason.strip(), expires=expires, target=target, alternatives=alternatives))
    return found


def apply_waivers(reports: Iterable[Any], waivers: Iterable[Any] | None) -> list[dict]:
    """Mark the ops the waivers in force cover (each op's `waiver`), judged on the day answers
    are computed for (KB_TODAY, else the clock); return the expired waivers that cover an op
    of these reports, which fail the gate (kb.check.project_config.apply_waivers)."""
    from kb.check.project_config import apply_waivers as apply
    from kb.eol.windows import today

    reports = list(reports)
    for report in reports:
        for op in report.ops:
            op.waiver = None
    found = to_waivers(waivers)
    return apply(reports, found, today()) if found else []


def unmatched_waivers(reports: Iterable[Any], waivers: Iterable[Any] | None) -> list[dict]:
    """The waivers that name no op of these reports (kb.check.project_config.unmatched)."""
    from kb.check.project_config import unmatched

    found = to_waivers(waivers)
    return unmatched(reports, found) if found else []


def accepted_ops(allow: Iterable[str] | None) -> set[str]:
    """`allow` names checked (any spelling `kb op` takes; a module is refused); a function
    spelling is kept as given and fitted to the model's ops in mark_allowed."""
    if isinstance(allow, (str, bytes)):
        allow = [allow]
    names = set()
    for name in allow or ():
        try:
            op, alternatives = op_spelling(str(name))
        except GateError as exc:
            raise GateError(f"--allow: {exc}") from None
        names.add(str(name).strip() if alternatives else op)
    return names


def mark_allowed(reports: Iterable[Any], allowed: set[str]) -> None:
    """Set each op's `allowed` flag (what the formats show as [allowed] and leave ungated)."""
    from kb.check.project_config import Waiver, fit_to_model

    reports = list(reports)
    spelled = [Waiver(*op_spelling(name)[:1], reason="allow", alternatives=op_spelling(name)[1]) for name in allowed]
    names = {w.op for w in fit_to_model(reports, spelled)}
    for report in reports:
        for op in report.ops:
            op.allowed = is_allowed(op, names)


def evaluate(reports: Iterable[Any], fail_on: str | None, baseline: dict | None, *,
             fail_on_unknown: bool = False, expired: list[dict] | None = None) -> dict:
    """Which ops trip the gate: bad enough, not allowed or waived, and not already in the
    baseline with the same status or a worse one; with a gate, an expired waiver of an op
    the model uses fails too (`expired`, from apply_waivers). Every output format shows
    exactly these."""
    from kb.check.project_config import merge_expired, waived_ops

    reports = list(reports)
    failing = []
    for report in reports:
        for op in report.ops:
            if op.allowed or getattr(op, "waiver", None) or not trips(op.status, fail_on, fail_on_unknown):
                continue
            before = (baseline or {}).get((report.target, op.op))
            if before is not None and (before == op.status or (before != UNKNOWN and op.status != UNKNOWN
                                                              and SEVERITY.get(before, 0) >= SEVERITY[op.status])):
                continue
            failing.append({"target": report.target, "op": op.op, "status": op.status})
    if fail_on is not None or fail_on_unknown:
        merge_expired(failing, expired or [])
    return {"fail_on": fail_on, "fail_on_unknown": fail_on_unknown, "baseline": baseline is not None,
            "failing": failing, "failed": bool(failing), "waived": waived_ops(reports),
            "expired_waivers": expired or []}


def baseline_from(data: Any, where: str = "baseline") -> dict:
    """{(target, op): status} of a previous `kb check --format json` document."""
    if not isinstance(data, dict) or not isinstance(data.get("reports"), list):
        raise GateError(f"{where}: not a `kb check --format json` output")
    known: dict = {}
    for report in data["reports"]:
        for op in report.get("ops", []) if isinstance(report, dict) else []:
            if isinstance(op, dict):
                known[(report.get("target"), op.get("op"))] = op.get("status")
    return known
