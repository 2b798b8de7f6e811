"""The CI gate of a check (`kb check --fail-on`, `report.fails(fail_on=...)`): which ops trip
it. It lives here, once, so that the CLI, the Python API and every output format count the
same findings.

A finding is an op that is bad enough (`kb.vocab.trips`), not accepted (`allow`, or a
waiver that has not expired), and not already in the baseline with the same status or a
worse one. A waiver that has expired accepts nothing and is itself a finding: a gate that
stayed green only because somebody once waived an op has to say so when the waiver ends.
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


def _today() -> _dt.date:
    """The day waivers are judged on: KB_TODAY (as every command reads it), else the clock."""
    import os

    value = os.environ.get("KB_TODAY")
    try:
        return _dt.date.fromisoformat(value) if value else _dt.date.today()
    except ValueError:
        raise GateError(f"KB_TODAY {value!r} is not a date (YYYY-MM-DD)") from None


def split_waivers(waivers: Iterable[Any] | None, today: _dt.date | None = None) -> tuple[set[str], list[dict]]:
    """(ops accepted by waivers still in force, the expired waivers as dicts).

    A waiver is a mapping or an object with `op`, `reason` and optionally `expires` (a date
    or YYYY-MM-DD; none: no expiry). Project configuration ([tool.kb] waivers) builds these;
    this function only says which are in force on `today`."""
    from kb.opnames import OpNameError, canonical

    today = today or _today()
    in_force: set[str] = set()
    expired: list[dict] = []
    for waiver in waivers or ():
        name, expires = _field(waiver, "op"), _field(waiver, "expires")
        if not isinstance(name, str):
            raise GateError(f"waiver {waiver!r}: needs an op name")
        try:
            op = canonical(name)
        except OpNameError as exc:
            raise GateError(f"waiver: {exc}") from None
        if isinstance(expires, str):
            try:
                expires = _dt.date.fromisoformat(expires)
            except ValueError:
                raise GateError(f"waiver for {name}: expires {expires!r} is not a date (YYYY-MM-DD)") from None
        if isinstance(expires, _dt.datetime):
            expires = expires.date()
        if expires is not None and not isinstance(expires, _dt.date):
            raise GateError(f"waiver for {name}: expires must be a date")
        if expires is not None and expires < today:
            expired.append({"op": op, "reason": _field(waiver, "reason"), "expires": expires.isoformat()})
        else:
            in_force.add(op)
    return in_force, expired


def accepted_ops(allow: Iterable[str] | None) -> set[str]:
    """`allow` names in their canonical spelling (any spelling `kb op` takes)."""
    from kb.opnames import OpNameError, canonical

    try:
        return {canonical(name) for name in allow or ()}
    except OpNameError as exc:
        raise GateError(f"--allow: {exc}") from None


def mark_allowed(reports: Iterable[Any], allowed: set[str]) -> None:
    """Set each op's `allowed` flag (what the formats show as [allowed] and leave ungated)."""
    for report in reports:
        for op in report.ops:
            op.allowed = is_allowed(op, allowed)


def evaluate(reports: Iterable[Any], fail_on: str | None, baseline: dict | None, *,
             fail_on_unknown: bool = False, expired_waivers: list[dict] | None = None) -> dict:
    """Which ops trip the gate: bad enough, not allowed, and not already in the baseline
    with the same status or a worse one. Every output format shows exactly these."""
    failing = []
    for report in reports:
        for op in report.ops:
            if op.allowed or not trips(op.status, fail_on, fail_on_unknown):
                continue
            before = (baseline or {}).get((report.target, op.op))
            if before is not None and (before == op.status or (before != UNKNOWN and op.status != UNKNOWN
                                                              and SEVERITY.get(before, 0) >= SEVERITY[op.status])):
                continue
            failing.append({"target": report.target, "op": op.op, "status": op.status})
    gate = {"fail_on": fail_on, "fail_on_unknown": fail_on_unknown, "baseline": baseline is not None,
            "failing": failing, "failed": bool(failing)}
    if expired_waivers:  # only present when waivers were given and some ended: --json stays as it was otherwise
        gate["expired_waivers"] = expired_waivers
        gate["failed"] = True
    return gate


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
