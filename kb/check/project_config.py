"""`[tool.kb]` in a project's pyproject.toml: the gate a team agreed on, kept with the code.

A platform team puts its targets, mode, `fail-on` level and waivers in the repository so
that `kb check`, `kb audit`, the pre-commit hooks and the GitHub Action all gate the same
way without each repeating flags. Flags still win: the file gives defaults, a flag given
on the command line replaces the file's value (and `--json` says which came from where).

    [tool.kb]
    targets = ["neuron", "tpu=0.2.0"]   # as --target takes them
    mode = "eager"                      # or "compile"
    fail-on = "fallback"                # decomposed < fallback < unsupported
    fail-on-unknown = false
    [tool.kb.audit]
    fail-on = "high"                    # kb audit's severities: high, medium, low
    exclude = ["vendor/**"]
    [[tool.kb.waivers]]
    op = "aten::nonzero"
    reason = "data-dependent size; the fix lands with the tokenizer rewrite"
    expires = 2027-03-01                # a TOML date or "YYYY-MM-DD"; optional
    target = "tpu"                      # optional: every target otherwise

A waiver keeps its op from failing the gate, and the op is shown as waived with the
reason. From its `expires` day on it no longer waives anything, and a model that uses the
op fails the gate for the expired waiver itself (one line: op, date, reason), so a waiver
cannot quietly outlive the reason it was granted for.

Finding the file: the nearest pyproject.toml with a `[tool.kb]` table, walking up from the
checked path, else from the working directory; at most MAX_LEVELS folders, each file read
through kb.userfiles (regular files only, size and nesting bounded). A bad file (unknown
key, wrong type, bad date, unknown target) is a KBError naming the file and the key: one
line, exit 2. No file is fine: every value then has its built-in default.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from dataclasses import dataclass, field
from typing import Any

from kb import userfiles
from kb.errors import KBError
from kb.vocab import MODES, SEVERITY

FILE_NAME = "pyproject.toml"
MAX_LEVELS = 64  # folders walked up from the start: far above any real project's depth
MAX_WAIVERS = 10_000
CHECK_LEVELS = ("decomposed", "fallback", "unsupported")  # kb check --fail-on
AUDIT_LEVELS = ("high", "medium", "low")  # kb audit --fail-on
KEYS = ("targets", "mode", "fail-on", "fail-on-unknown", "waivers", "audit")
AUDIT_KEYS = ("fail-on", "exclude")
WAIVER_KEYS = ("op", "reason", "expires", "target")


class ConfigError(KBError):
    """A `[tool.kb]` table kb cannot use: the message names the file and the key."""


@dataclass(frozen=True)
class Waiver:
    """One accepted op: why, until when (None: no end), and on which target (None: all)."""

    op: str
    reason: str
    expires: _dt.date | None = None
    target: str | None = None
    # For a function spelling (F.gelu): the ATen ops the shipped function map says it runs,
    # used where the model has no `op` itself (kb op's order: the ATen name, then the map).
    alternatives: tuple[str, ...] = ()

    def covers(self, op: str, target: str) -> bool:
        return self.op == op and self.target in (None, target)

    def expired(self, today: _dt.date) -> bool:
        """Expired from its `expires` day on (a waiver "until 2027-03-01" ends that day)."""
        return self.expires is not None and today >= self.expires

    def as_dict(self) -> dict:
        return {"op": self.op, "reason": self.reason,
                "expires": self.expires.isoformat() if self.expires else None, "target": self.target}


@dataclass
class ProjectConfig:
    """What `[tool.kb]` said; `path` is None when no file was found (or --no-config)."""

    path: str | None = None
    targets: list[str] | None = None
    mode: str | None = None
    fail_on: str | None = None
    fail_on_unknown: bool | None = None
    waivers: list[Waiver] = field(default_factory=list)
    audit_fail_on: str | None = None
    audit_exclude: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"path": self.path, "targets": self.targets, "mode": self.mode, "fail_on": self.fail_on,
                "fail_on_unknown": self.fail_on_unknown, "waivers": [w.as_dict() for w in self.waivers],
                "audit": {"fail_on": self.audit_fail_on, "exclude": self.audit_exclude}}


# --- finding and reading --------------------------------------------------------------


def _start_folder(path: str | None) -> str | None:
    """The folder a walk starts in for a checked path: the path itself when it is a folder,
    else the folder holding it (a factory's `model.py:build` is its file)."""
    if not path:
        return None
    if not os.path.exists(path) and ":" in path:
        path = path.rpartition(":")[0]
    if os.path.isdir(path):
        return os.path.abspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    return folder if os.path.isdir(folder) else None


_MENTIONS_KB = re.compile(r"^\s*\[+\s*tool\s*\.\s*kb\b|^\s*tool\s*\.\s*kb\s*[.=]", re.MULTILINE)


def _read_table(candidate: str, strict: bool = True) -> dict | None:
    """The `[tool.kb]` table of one pyproject.toml, or None when it has none. Found on a
    walk (`strict` False), a file kb cannot read or parse is someone else's concern unless
    its text is about kb: a tree being audited may hold any pyproject.toml (a FIFO, one
    nested 10,000 deep), and kb audit reports that file as a finding instead."""
    if not strict:
        try:
            text = userfiles.read_text(candidate)
        except userfiles.FileRefused:
            return None
        if not _MENTIONS_KB.search(text):
            try:
                data = userfiles.parse_toml(text, candidate)
            except userfiles.FileRefused:
                return None
            tool = data.get("tool")
            if not isinstance(tool, dict) or "kb" not in tool:
                return None
    text = userfiles.read_text(candidate)
    data = userfiles.parse_toml(text, candidate)
    tool = data.get("tool")
    if not isinstance(tool, dict) or "kb" not in tool:
        return None
    if not isinstance(tool["kb"], dict):
        raise ConfigError(f"{candidate}: [tool.kb] must be a table, not {_kind(tool['kb'])}")
    return tool["kb"]


def _walk(folder: str, max_levels: int) -> tuple[str, dict] | None:
    for _ in range(max_levels):
        candidate = os.path.join(folder, FILE_NAME)
        if os.path.lexists(candidate):
            table = _read_table(candidate, strict=False)
            if table is not None:
                return candidate, table
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def find(start: str | None = None, *, cwd: str | None = None, max_levels: int = MAX_LEVELS) -> tuple[str, dict] | None:
    """(path, table) of the nearest pyproject.toml with `[tool.kb]`: walking up from
    `start` (a checked file or folder), then from `cwd` (default: the working directory)."""
    folders = [_start_folder(start), os.path.abspath(cwd or os.getcwd())]
    seen: set[str] = set()
    for folder in folders:
        if folder is None or folder in seen:
            continue
        seen.add(folder)
        found = _walk(folder, max_levels)
        if found is not None:
            return found
    return None


def load(start: str | None = None, *, explicit: str | None = None, disabled: bool = False,
         cwd: str | None = None) -> ProjectConfig:
    """The project's configuration: from `explicit` (a --config file, which must have
    `[tool.kb]`), else found by `find`; an empty one when `disabled` or none is found."""
    if disabled:
        return ProjectConfig()
    if explicit is not None:
        table = _read_table(explicit)
        if table is None:
            raise ConfigError(f"{explicit}: no [tool.kb] table")
        return parse(table, explicit)
    found = find(start, cwd=cwd)
    return parse(found[1], found[0]) if found else ProjectConfig()


# --- validation -------------------------------------------------------------------------


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
             dict: "a table", _dt.date: "a date", _dt.datetime: "a date-time", _dt.time: "a time"}
    return names.get(type(value), type(value).__name__)


def _fail(path: str, key: str, message: str) -> ConfigError:
    from kb import neutral

    return ConfigError(f"{path}: [tool.kb] {neutral.terminal(key)}: {neutral.terminal(message)}")


def _string(path: str, key: str, value: Any, choices: tuple[str, ...] | None = None) -> str:
    if not isinstance(value, str):
        raise _fail(path, key, f"expected a string, got {_kind(value)}")
    if choices is not None and value not in choices:
        raise _fail(path, key, f"{value!r}: expected one of {', '.join(choices)}")
    return value


def _strings(path: str, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(path, key, f"expected an array of strings, got {_kind(value)}"
                    + (" of mixed values" if isinstance(value, list) else ""))
    return list(value)


def _target_spec(path: str, key: str, spec: str) -> str:
    name, eq, version = spec.partition("=")
    if not name.strip() or (eq and not version.strip()):
        raise _fail(path, key, f"{spec!r}: expected TARGET or TARGET=VERSION, e.g. tpu=0.2.0")
    return f"{name.strip()}={version.strip()}" if eq else name.strip()


def _date(path: str, key: str, value: Any) -> _dt.date:
    if isinstance(value, _dt.datetime) or not isinstance(value, (_dt.date, str)):
        raise _fail(path, key, f"expected a date (YYYY-MM-DD), got {_kind(value)}")
    if isinstance(value, _dt.date):
        return value
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
            raise ValueError
        return _dt.date.fromisoformat(value.strip())
    except ValueError:
        raise _fail(path, key, f"{value!r} is not a date (expected YYYY-MM-DD)") from None


def _unknown_keys(path: str, where: str, table: dict, known: tuple[str, ...]) -> None:
    for key in table:
        if key not in known:
            raise _fail(path, f"{where}{key}" if where else key, f"unknown key (known: {', '.join(known)})")


def _waiver(path: str, index: int, entry: Any) -> Waiver:

    where = f"waivers[{index}]"
    if not isinstance(entry, dict):
        raise _fail(path, where, f"expected a table ([[tool.kb.waivers]]), got {_kind(entry)}")
    _unknown_keys(path, f"{where}.", entry, WAIVER_KEYS)
    for required in ("op", "reason"):
        if required not in entry:
            raise _fail(path, f"{where}.{required}", "missing (a waiver needs op and reason)")
    op = _string(path, f"{where}.op", entry["op"])
    from kb.check.opspell import OpSpellingError, op_spelling

    try:
        op, alternatives = op_spelling(op)
    except OpSpellingError as exc:
        raise _fail(path, f"{where}.op", str(exc)) from None
    reason = _string(path, f"{where}.reason", entry["reason"]).strip()
    if not reason:
        raise _fail(path, f"{where}.reason", "empty: say why the op is accepted")
    expires = _date(path, f"{where}.expires", entry["expires"]) if "expires" in entry else None
    target = _string(path, f"{where}.target", entry["target"]).strip() if "target" in entry else None
    if target == "":
        raise _fail(path, f"{where}.target", "empty (leave it out to waive on every target)")
    return Waiver(op=op, reason=reason, expires=expires, target=target, alternatives=alternatives)


def parse(table: dict, path: str) -> ProjectConfig:
    """Check every key and type of a `[tool.kb]` table; the first problem is a ConfigError."""
    _unknown_keys(path, "", table, KEYS)
    config = ProjectConfig(path=path)
    if "targets" in table:
        specs = _strings(path, "targets", table["targets"])
        if not specs:
            raise _fail(path, "targets", "empty (leave it out for the default, neuron)")
        config.targets = [_target_spec(path, "targets", s) for s in specs]
    if "mode" in table:
        config.mode = _string(path, "mode", table["mode"], MODES)
    if "fail-on" in table:
        config.fail_on = _string(path, "fail-on", table["fail-on"], CHECK_LEVELS)
    if "fail-on-unknown" in table:
        if not isinstance(table["fail-on-unknown"], bool):
            raise _fail(path, "fail-on-unknown", f"expected true or false, got {_kind(table['fail-on-unknown'])}")
        config.fail_on_unknown = table["fail-on-unknown"]
    if "waivers" in table:
        waivers = table["waivers"]
        if not isinstance(waivers, list):
            raise _fail(path, "waivers", f"expected an array of tables ([[tool.kb.waivers]]), got {_kind(waivers)}")
        if len(waivers) > MAX_WAIVERS:
            raise _fail(path, "waivers", f"{len(waivers):,} waivers (bound: {MAX_WAIVERS:,})")
        config.waivers = [_waiver(path, i, entry) for i, entry in enumerate(waivers)]
    if "audit" in table:
        audit = table["audit"]
        if not isinstance(audit, dict):
            raise _fail(path, "audit", f"expected a table ([tool.kb.audit]), got {_kind(audit)}")
        _unknown_keys(path, "audit.", audit, AUDIT_KEYS)
        if "fail-on" in audit:
            config.audit_fail_on = _string(path, "audit.fail-on", audit["fail-on"], AUDIT_LEVELS)
        if "exclude" in audit:
            config.audit_exclude = _strings(path, "audit.exclude", audit["exclude"])
    return config


def check_targets(config: ProjectConfig, known: list[str] | set[str]) -> None:
    """Every target the file names (targets, waivers' target) is one the KB knows."""
    if config.path is None:
        return
    names = sorted(known)
    for index, spec in enumerate(config.targets or ()):
        name = spec.partition("=")[0]
        if name not in known:
            raise _fail(config.path, f"targets[{index}]", f"unknown target {name!r} (known: {', '.join(names)})")
    for index, waiver in enumerate(config.waivers):
        if waiver.target is not None and waiver.target not in known:
            raise _fail(config.path, f"waivers[{index}].target",
                        f"unknown target {waiver.target!r} (known: {', '.join(names)})")


# --- flags over the file ------------------------------------------------------------------


def settle(config: ProjectConfig, *, targets: list[str] | None = None, mode: str | None = None,
           fail_on: str | None = None, fail_on_unknown: bool | None = None) -> dict:
    """The values `kb check` runs with: each flag given (not None) beats the file, the file
    beats the default. `from` says, per key, which of flag / config / default it was."""
    chosen: dict[str, Any] = {}
    origin: dict[str, str] = {}
    defaults = {"targets": ["neuron"], "mode": "eager", "fail_on": None, "fail_on_unknown": False}
    for key, flag, filed in (("targets", targets or None, config.targets), ("mode", mode, config.mode),
                             ("fail_on", fail_on, config.fail_on),
                             ("fail_on_unknown", fail_on_unknown, config.fail_on_unknown)):
        if flag is not None:
            chosen[key], origin[key] = flag, "flag"
        elif filed is not None:
            chosen[key], origin[key] = filed, "config"
        else:
            chosen[key], origin[key] = defaults[key], "default"
    chosen["from"] = origin
    return chosen


def rebase_excludes(patterns: list[str], config_dir: str, base: str) -> list[str]:
    """The file's exclude globs (relative to its folder, the project root) made relative to
    `base`, the folder the audited paths are relative to: `src/gen/*` is `gen/*` for an
    audit of src/. Globs without a folder part (`*_pb2.py`, `vendor`) match by name at any
    depth and stay; a glob anchored elsewhere than under `base` cannot match and is dropped."""
    rel = os.path.relpath(os.path.abspath(base), os.path.abspath(config_dir)).replace(os.sep, "/")
    if rel == ".":
        return list(patterns)
    out = []
    for pattern in patterns:
        anchored = "/" in pattern.strip().rstrip("/") and not pattern.strip().startswith("*")
        if not anchored:
            out.append(pattern)
        elif rel.startswith("../") or rel == "..":  # base above the project root: anchor the glob there
            up = os.path.relpath(os.path.abspath(config_dir), os.path.abspath(base)).replace(os.sep, "/")
            out.append(f"{up}/{pattern.strip()}")
        elif pattern.strip().startswith(rel + "/"):
            out.append(pattern.strip()[len(rel) + 1:])
    return out


def settle_audit(config: ProjectConfig, *, fail_on: str | None = None,
                 exclude: list[str] | None = None, base: str | None = None) -> dict:
    """`kb audit`'s values: --fail-on beats the file's; --exclude globs (relative to the
    audited folder) add to the file's (relative to the project root, rebased on `base`)."""
    filed = config.audit_exclude
    if filed and config.path and base is not None:
        filed = rebase_excludes(filed, os.path.dirname(os.path.abspath(config.path)), base)
    return {"fail_on": fail_on if fail_on is not None else config.audit_fail_on,
            "exclude": [*filed, *(exclude or [])],
            "from": {"fail_on": "flag" if fail_on is not None else ("config" if config.audit_fail_on else "default"),
                     "exclude": "config+flag" if config.audit_exclude and exclude else
                     ("config" if config.audit_exclude else ("flag" if exclude else "default"))}}


def describe(config: ProjectConfig, settled: dict | None = None) -> dict:
    """What `--json` reports about the configuration: the file, what it said, what ran."""
    body = {"path": config.path, "file": config.as_dict() if config.path else None}
    if settled is not None:
        body["used"] = settled
    return body


def known_targets(db: str | None) -> list[str]:
    """The targets the KB knows: a file naming another is refused."""
    from kb.store import db as kbdb
    from kb.store.targetspec import target_names

    conn = kbdb.open_kb(db)
    try:
        return target_names(conn)
    finally:
        conn.close()


def check_versions(config: ProjectConfig, db: str | None) -> None:
    """Every `TARGET=VERSION` of the file names a release the KB has (by the one version
    grammar, kb.store.targetspec); a bad one is refused naming the file and the key."""
    specs = [(i, spec.partition("=")) for i, spec in enumerate(config.targets or ()) if "=" in spec]
    if config.path is None or not specs:
        return
    from kb.store import db as kbdb
    from kb.store.targetspec import resolve_versions

    conn = kbdb.open_kb(db)
    try:
        for index, (name, _eq, version) in specs:
            try:
                resolve_versions(conn, {name: version}, single=True, on_note=lambda _line: None)
            except KBError as exc:
                raise _fail(config.path, f"targets[{index}]", str(exc)) from None
    finally:
        conn.close()


def for_check(start: str | None, *, explicit: str | None = None, disabled: bool = False, db: str | None = None,
              targets: list[str] | None = None, mode: str | None = None, fail_on: str | None = None,
              fail_on_unknown: bool | None = None) -> tuple[ProjectConfig, dict]:
    """(the project's config, the values a check of `start` runs with): the one entry for
    `kb check`, `kb ci check` and the Python API. The file's targets are checked against
    the KB's (opened only when the file names a target)."""
    config = load(start, explicit=explicit, disabled=disabled)
    if config.path is not None and (config.targets or any(w.target for w in config.waivers)):
        check_targets(config, known_targets(db))
        check_versions(config, db)
    return config, settle(config, targets=targets, mode=mode, fail_on=fail_on, fail_on_unknown=fail_on_unknown)


# --- waivers on a check -----------------------------------------------------------------------


def _problem_leaves(op) -> list[str]:
    return [leaf.op for leaf in getattr(op, "via", []) if SEVERITY[leaf.status] >= SEVERITY["fallback"]]


def _matching(waivers: list[Waiver], op, target: str) -> list[Waiver] | None:
    """The waivers that cover the op on the target: the op itself, or a decomposed op whose
    every problem leaf is covered (as --allow does). None when it is not covered."""
    own = [w for w in waivers if w.covers(op.op, target)]
    if own:
        return own
    leaves = _problem_leaves(op)
    if not leaves:
        return None
    found: list[Waiver] = []
    for leaf in leaves:
        cover = [w for w in waivers if w.covers(leaf, target)]
        if not cover:
            return None
        found.extend(cover)
    return found


def apply_waivers(reports, waivers: list[Waiver], today: _dt.date) -> list[dict]:
    """Mark each op a live waiver covers (`op.waiver` = the waiver as a dict), and return
    the expired waivers that cover an op of these reports: each one fails the gate. An op
    covered by both a live and an expired waiver is waived (someone renewed it)."""
    expired: list[dict] = []
    reports = list(reports)
    waivers = fit_to_model(reports, waivers)
    for report in reports:
        for op in report.ops:
            found = _matching(waivers, op, report.target)
            if not found:
                continue
            live = [w for w in found if not w.expired(today)]
            if live:
                if op.status != "native":  # a native op has nothing to waive: not shown as waived
                    op.waiver = live[0].as_dict()
                continue
            for waiver in dict.fromkeys(found):
                expired.append({"target": report.target, "op": op.op, "status": op.status,
                                "waived_op": waiver.op, "expired": waiver.expires.isoformat(),
                                "reason": waiver.reason})
    return expired


def _model_ops(reports) -> set[str]:
    return {name for report in reports for op in report.ops for name in (op.op, *(leaf.op for leaf in op.via))}


def fit_to_model(reports, waivers: list[Waiver]) -> list[Waiver]:
    """A function-spelled waiver (F.gelu) as the ops it stands for in this model: its ATen
    name where the model has that op, else the ops the function map says it runs."""
    present = _model_ops(reports)
    fitted: list[Waiver] = []
    for waiver in waivers:
        hits = [alt for alt in waiver.alternatives if alt in present]
        if waiver.op in present or not hits:
            fitted.append(waiver)
            continue
        fitted.extend(Waiver(op=alt, reason=waiver.reason, expires=waiver.expires, target=waiver.target)
                      for alt in hits)
    return fitted


def unmatched(reports, waivers: list[Waiver]) -> list[dict]:
    """The waivers that name no op (nor decomposition leaf) of the model on their targets:
    a typo, or an op the model stopped using; the gate lists them and the CLI warns."""
    reports = list(reports)
    left = []
    for waiver in waivers:
        fitted = fit_to_model(reports, [waiver])
        if not any(w.covers(name, report.target) for report in reports for op in report.ops
                   for name in (op.op, *(leaf.op for leaf in op.via)) for w in fitted):
            left.append(waiver.as_dict())
    return left


def merge_expired(failing: list[dict], expired: list[dict]) -> list[dict]:
    """Add the expired waivers to a gate's findings, in place: an op that trips the gate on
    its own keeps its one finding (marked with the waiver that no longer covers it); an op
    that would pass gets a finding of its own for the expired waiver."""
    by_key = {(f["target"], f["op"]): f for f in failing}
    for entry in expired:
        finding = by_key.get((entry["target"], entry["op"]))
        if finding is None:
            finding = {"target": entry["target"], "op": entry["op"], "status": entry["status"]}
            failing.append(finding)
            by_key[(entry["target"], entry["op"])] = finding
        finding.setdefault("waiver_expired", entry["expired"])
        finding.setdefault("waiver_reason", entry["reason"])
    return failing


def waived_ops(reports) -> list[dict]:
    """Every op a live waiver accepted, with the waiver's reason: shown, never counted."""
    return [{"target": report.target, "op": op.op, "status": op.status, **{
        k: v for k, v in op.waiver.items() if k in ("reason", "expires")}}
        for report in reports for op in report.ops if getattr(op, "waiver", None)]


def waive(reports, config: ProjectConfig, today: _dt.date | None = None) -> list[dict]:
    """apply_waivers with the project's waivers on the day answers are computed for
    (KB_TODAY, else the clock: kb.eol.windows.today)."""
    if not config.waivers:
        return []
    if today is None:
        from kb.eol.windows import today as kb_today

        today = kb_today()
    return apply_waivers(reports, config.waivers, today)


def _places(entries: list[dict]) -> str:
    return ", ".join(f"{e['target']} ({e['status']})" for e in entries)


def _grouped(entries: list[dict], keys: tuple[str, ...]) -> list[list[dict]]:
    """Entries that differ only by target, together (one line for a waiver on two targets)."""
    groups: dict[tuple, list[dict]] = {}
    for entry in entries:
        groups.setdefault(tuple(entry.get(k) for k in keys), []).append(entry)
    return list(groups.values())


def expired_line(entries: dict | list[dict]) -> str:
    """The one line that says an expired waiver fails the gate: op, where, date, reason."""
    entries = [entries] if isinstance(entries, dict) else entries
    first = entries[0]
    covered = first["op"] if first["waived_op"] == first["op"] else f"{first['op']} (via {first['waived_op']})"
    return (f"waiver expired: {covered} on {_places(entries)} was waived until {first['expired']} — "
            f"{first['reason']}; renew the waiver or fix the op")


def waiver_lines(gate: dict) -> list[str]:
    """One line per waiver that accepted ops (with its reason, the targets together) and per
    expired waiver, for a terminal or a PR comment; the gate's own line follows them."""
    lines = []
    for group in _grouped(gate.get("waived", []), ("op", "reason", "expires")):
        first = group[0]
        until = f" until {first['expires']}" if first.get("expires") else ""
        lines.append(f"waived: {first['op']} on {_places(group)}{until} — {first['reason']}")
    lines.extend(expired_line(group) for group in
                 _grouped(gate.get("expired_waivers", []), ("op", "waived_op", "expired", "reason")))
    return lines


def gate_active(fail_on: str | None, fail_on_unknown: bool) -> bool:
    return fail_on is not None or fail_on_unknown


__all__ = ["ConfigError", "ProjectConfig", "Waiver", "apply_waivers", "check_targets", "describe", "expired_line",
           "find", "for_check", "known_targets", "load", "merge_expired", "parse", "settle", "settle_audit", "waive",
           "waived_ops", "waiver_lines"]
