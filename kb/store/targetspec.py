"""One version grammar for every command that takes a target: `TARGET=VERSION`.

`neuron=2.14.3.0` is a package version of the target's product; `neuron=2.33` is a vendor
SDK release, which stands for the packages it ships (through `release.sdk_version`);
`tpu=0.2` is the line of 0.2.x packages. `kb op`, `ops`, `check`, `compare`, `diff`, `ask`
and `eol --stack` all resolve through `resolve`, and say what they resolved to in one line
(`Resolution.line`), so one spelling never means two things in two commands.
"""

from __future__ import annotations

import re
import sqlite3
from functools import lru_cache

from kb.errors import KBError


@lru_cache(maxsize=4096)
def version_key(version: str) -> tuple:
    """Order versions numerically (2.14.3.0 > 2.9.1); pre-releases before their release.
    Memoised: a page sorts hundreds of verdicts by a few dozen versions."""
    head = re.split(r"[+]", version)[0]
    parts = re.findall(r"\d+|[a-z]+", head.lower())
    key = []
    for part in parts:
        if part.isdigit():
            key.append((1, int(part)))
        else:  # dev/a/b/rc sort below any number at the same position
            key.append((0, {"dev": 0, "a": 1, "b": 2, "rc": 3}.get(part, 0)))
    return tuple(key)


def target_names(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM target ORDER BY name")]


def check_target(conn: sqlite3.Connection, target: str) -> None:
    names = target_names(conn)
    if target not in names:
        raise KBError(f"unknown target {target!r} (known: {', '.join(names)})")


def _release_versions(conn: sqlite3.Connection, target: str) -> list[str]:
    """The target's versions that have verdicts: a release has some when a stored verdict or a
    presumed one (kept as a reference to a stored verdict of the same target, schema 7) names it.
    Asked of the two tables release by release (a target's verdicts are about releases of its
    product: kb.store.writer), so that no query copies the support view."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT r.version FROM release r WHERE r.product = (SELECT product FROM target WHERE name = ?1) "
        "AND (EXISTS (SELECT 1 FROM support_stored s WHERE s.release_id = r.id AND +s.target = ?1) OR "
        "EXISTS (SELECT 1 FROM support_presumed p JOIN support_stored s ON s.id = p.from_id "
        "WHERE p.release_id = r.id AND +s.target = ?1))", (target,))]


class Resolution:
    """A target's version as typed, resolved. A plain class, not a dataclass: importing
    dataclasses (inspect, ast, tokenize…) costs a plain `kb op` a tenth of its start."""

    __slots__ = ("target", "asked", "versions", "how", "product", "sdk", "with_data")

    def __init__(self, target: str, asked: str | None, versions: list[str], how: str, product: str,
                 sdk: str | None = None, with_data: list[str] | None = None) -> None:
        self.target = target
        self.asked = asked  # the version as typed (None: the newest with data)
        self.versions = versions  # the package versions it stands for, oldest first (empty: none known)
        self.how = how  # "newest" | "package" | "sdk" | "line" | "none"
        self.product = product
        self.sdk = sdk  # the SDK release the versions belong to, when asked by SDK
        self.with_data = [] if with_data is None else with_data  # versions of the target that have verdicts

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Resolution) and self._fields() == other._fields()

    def __repr__(self) -> str:
        return "Resolution(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"

    @property
    def chosen(self) -> str | None:
        """The one version a single-version command reads: the newest of `versions` with
        data (else the newest of them)."""
        have = [v for v in self.versions if v in self.with_data]
        return (have or self.versions or [None])[-1]

    @property
    def label(self) -> str:
        if self.how == "sdk":
            return f"SDK {self.sdk} ({self.product} {', '.join(self.versions)})"
        if self.how == "none":
            return f"{self.product} {self.asked}"
        return f"{self.product} {', '.join(self.versions)}" if self.versions else self.product

    def line(self, single: bool = False) -> str:
        """What the spelling resolved to, in one line (empty when it is the version itself)."""
        if self.how in ("package", "newest") or not self.versions:
            return ""
        spell = f"{self.target}={self.asked}"
        if self.how == "sdk":
            text = f"{spell} is SDK release {self.sdk}: {self.product} {', '.join(self.versions)}"
        else:
            text = f"{spell} is the {self.asked} line: {self.product} {', '.join(self.versions)}"
        if single and len(self.versions) > 1:
            text += f"; showing {self.chosen} (give {self.target}=VERSION for another)"
        return text


def _same_line(short: str, full: str) -> bool:
    """2.33 ~ 2.33.0 and 2.14 ~ 2.14.3.0: every component the shorter has agrees."""
    a, b = short.split("."), full.split(".")
    return len(a) <= len(b) and a == b[:len(a)]


def resolve(conn: sqlite3.Connection, target: str, asked: str | None, *, sdk_only: bool = False,
            strict: bool = False) -> Resolution:
    """A target's version as typed → the package versions it stands for. A version that is
    a package version is itself; else an SDK release ships the packages whose sdk_version
    is on its line; else the packages on its line. `strict`: no match is an input error."""
    check_target(conn, target)
    product = conn.execute("SELECT product FROM target WHERE name = ?", (target,)).fetchone()[0]
    with_data = sorted(_release_versions(conn, target), key=version_key)
    if asked is None:
        return Resolution(target, None, with_data[-1:], "newest", product, with_data=with_data)
    asked = asked.strip()
    releases = conn.execute("SELECT version, sdk_version FROM release WHERE product = ?", (product,)).fetchall()
    direct = [v for v, _ in releases if v == asked]
    by_sdk = sorted({v for v, sdk in releases if sdk and _same_line(asked, sdk)}, key=version_key)
    by_line = sorted({v for v, _ in releases if _same_line(asked, v)}, key=version_key)
    if direct and not sdk_only:
        return Resolution(target, asked, direct, "package", product, with_data=with_data)
    if by_sdk:
        sdks = sorted({sdk for v, sdk in releases if v in by_sdk and sdk}, key=version_key)
        return Resolution(target, asked, by_sdk, "sdk", product, sdk=", ".join(sdks), with_data=with_data)
    if by_line and not sdk_only:
        return Resolution(target, asked, by_line, "line", product, with_data=with_data)
    found = Resolution(target, asked, [], "none", product, with_data=with_data)
    if strict:
        known = ", ".join(sorted({v for v, _ in releases}, key=version_key)) or "none"
        sdks = sorted({sdk for _, sdk in releases if sdk}, key=version_key)
        also = f"; SDK releases: {', '.join(sdks)}" if sdks else ""
        raise KBError(f"{target}={asked}: no {product} release or SDK release {asked} in the KB "
                      f"(known {product} versions: {known}{also})")
    return found


def resolve_all(conn: sqlite3.Connection, versions: dict[str, str]) -> tuple[dict[str, list[str]], list[str]]:
    """{target: typed version} → ({target: package versions}, the one-line notes), strict."""
    out: dict[str, list[str]] = {}
    lines: list[str] = []
    for target, asked in versions.items():
        found = resolve(conn, target, asked, strict=True)
        out[target] = found.versions
        if found.line():
            lines.append(found.line())
    return out, lines


def resolve_versions(conn: sqlite3.Connection, versions: dict[str, str], *, single: bool,
                     on_note=None) -> dict:
    """Every `TARGET=VERSION` through `resolve` (strict), each resolution that is not the
    version itself said through `on_note` (the CLI prints it on stderr; the Python API keeps
    it). `single`: one version per target (the newest the spelling stands for); else every
    package version the spelling stands for."""
    out: dict = {}
    for target, asked in versions.items():
        found = resolve(conn, target, asked, strict=True)
        if found.line(single) and on_note is not None:
            on_note(found.line(single))
        out[target] = found.chosen if single else found.versions
    return out


def split_specs(specs: list[str] | None, versions: list[str] | None = None,
                flag: str = "--backend-version") -> tuple[list[str], dict[str, str]]:
    """(targets in the order given, without repeats; {target: version}) from
    `neuron`, `tpu=0.2.0` plus versions `V` (every target) or `TARGET=V` (one): the grammar
    of `--target` / `--backend-version`, and of the Python API's `targets=`."""
    targets: list[str] = []
    chosen: dict[str, str] = {}
    bare: set[str] = set()  # named without a version: every version of it
    for spec in specs or ():
        if not isinstance(spec, str):
            raise KBError(f"target {spec!r}: expected TARGET or TARGET=VERSION, e.g. tpu=0.2.0")
        name, eq, version = spec.partition("=")
        name = name.strip()
        if not name or (eq and not version.strip()):
            raise KBError(f"--target {spec!r}: expected TARGET or TARGET=VERSION, e.g. tpu=0.2.0")
        if name not in targets:
            targets.append(name)
        if not eq:
            bare.add(name)
        if name in bare and (eq or name in chosen):
            # "-t tpu -t tpu=0.1.1": every version and one version of the same target; one of them is meant (s12)
            raise KBError(f"--target {name} given both without a version (every version) and as "
                          f"{name}={version.strip() or chosen[name]}; give one of them")
        if eq:
            if chosen.get(name, version.strip()) != version.strip():
                raise KBError(f"--target {name} given two versions ({chosen[name]}, {version.strip()})")
            chosen[name] = version.strip()
    for value in versions or ():
        name, eq, version = value.partition("=")
        if not eq:
            if not value.strip():
                raise KBError(f"{flag}: empty version")
            for t in targets:
                chosen.setdefault(t, value.strip())
            continue
        if name not in targets:
            raise KBError(f"{flag} {value}: {name} is not a --target of this command")
        chosen[name] = version.strip()
    return targets, chosen


def sdk_of(conn: sqlite3.Connection, target: str, version: str) -> str | None:
    """The SDK release that ships a package version of the target (`neuron=2.14.3.0` →
    2.33.0), for commands whose `neuron=` means the SDK (`kb eol --stack`); None when the
    version is no package version or no SDK is recorded for it."""
    found = resolve(conn, target, version)
    if found.how != "package":
        return None
    row = conn.execute("SELECT sdk_version FROM release WHERE product = ? AND version = ?",
                       (found.product, version)).fetchone()
    return row[0] if row and row[0] else None
