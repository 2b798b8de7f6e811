"""End of support: support windows per product cycle, and the questions asked of them.

Pure logic over KB rows (plain sqlite3, no SQLModel): `kb eol`, `kb check`'s warnings and
the iCalendar feed all start from `current_windows`.

- Statements are append-only (`supportwindow` rows); per product × cycle the newest
  statement wins (statement_date, then retrieved_at), field by field: an end-of-life
  statement does not erase an earlier end-of-active-support date, and vice versa. Every
  statement stays visible in `history`.
- "Ends with release X" (`eol_kind = with_release`) becomes a date when a `Release` row
  for X with a date exists (the first dated X.y), and is *pending* until then.
- `is_eol` (a bool, at a given day) and `eol_from` (a date or None) are separate fields:
  a pending window is `is_eol = False, eol_from = None, eol_pending = True`.
- Today is injectable (`today=`; the CLI reads `--today` / `KB_TODAY`) so answers are
  testable.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from datetime import date, timedelta
from typing import Any

from kb import products
from kb.errors import KBError
from kb.store.queries import version_key

# Source name of a product's own end-of-life statements (scrapers.reference_facts writes it).
UPSTREAM_SOURCE = "upstream-eol"


class EolError(KBError):
    """Bad input to an end-of-support question (a date, a horizon, a stack)."""


# ---------------------------------------------------------------- dates and horizons

def parse_day(text: str | None) -> tuple[date | None, bool]:
    """ISO day → (date, approximate). `YYYY-MM` (a month, as some sources give) is read as
    its first day and flagged approximate; anything else is no date."""
    if not text:
        return None, False
    text = text.strip()[:10]
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return date.fromisoformat(text), False
        if re.fullmatch(r"\d{4}-\d{2}", text):
            return date.fromisoformat(text + "-01"), True
    except ValueError:
        return None, False
    return None, False


def user_day(text: str, what: str = "date") -> date:
    """A date the user typed (YYYY-MM-DD), or a one-line error."""
    try:
        return date.fromisoformat(text.strip())
    except (ValueError, AttributeError):
        raise EolError(f"{what}: {text!r} is not a date (expected YYYY-MM-DD)") from None


def today(value: str | None = None) -> date:
    """The day answers are computed for: the argument, else KB_TODAY, else the clock."""
    value = value or os.environ.get("KB_TODAY")
    return user_day(value, "today") if value else date.today()


_UNITS = {"d": 1, "w": 7, "m": 30, "y": 365}
MAX_HORIZON_DAYS = 36500


def parse_horizon(text: str) -> timedelta:
    """`90d`, `12w`, `6m` (30-day months), `1y` (365 days), or a bare number of days."""
    m = re.fullmatch(r"\s*(\d+)\s*([dwmy]?)\s*", text.lower())
    if not m:
        raise EolError(f"horizon {text!r}: expected a number of days like 90d (or 12w, 6m, 1y)")
    days = int(m[1]) * _UNITS[m[2] or "d"] if len(m[1]) <= 7 else MAX_HORIZON_DAYS + 1
    if days > MAX_HORIZON_DAYS:
        raise EolError(f"horizon {text.strip()!r}: more than {MAX_HORIZON_DAYS} days (100 years) is not a horizon")
    return timedelta(days=days)


def same_line(a: str, b: str) -> bool:
    """True when two versions agree on every component both have: 2.14 ~ 2.14.0, 3.1 ≁ 3.12."""
    pa, pb = str(a).strip().lower().split("."), str(b).strip().lower().split(".")
    n = min(len(pa), len(pb))
    return n > 0 and pa[:n] == pb[:n]


# ---------------------------------------------------------------- loading rows

def _json_list(value: Any) -> list:
    if isinstance(value, str):
        value = json.loads(value)
    return list(value or [])


def load_statements(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every support-window statement, with its product name made canonical."""
    rows = [dict(r) for r in conn.execute("SELECT * FROM supportwindow ORDER BY id")]
    for row in rows:
        row["source_product"] = row["product"]
        product, cycle = row["product"], (row["cycle"] or "").strip()
        family = products.slug(product)
        if family in products.INSTANCE_FAMILIES:  # a window stated for "Inf1" is instance Inf1
            cycle = family if cycle.lower() in ("", family) else f"{family} {cycle}"
        row["product"], row["cycle"] = products.window_product(product, cycle), cycle
        # a product's own end of life (Python's, Ubuntu's) is a window of its own beside
        # what a vendor says about supporting that cycle: never one superseding the other
        row["scope"] = "upstream" if row["source_name"] == UPSTREAM_SOURCE else "vendor"
    return rows


def load_releases(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = []
    for r in conn.execute("SELECT product, version, date, sdk_version, torch_versions, python_versions, os, "
                          "instance_families, source_url, retrieved_at, source_kind, source_name, channel, report "
                          "FROM release"):
        row = dict(r)
        if report_tier(row) == 0:
            continue  # a release only a local report file states does not ship anything for kb eol
        for key in ("torch_versions", "python_versions", "os", "instance_families"):
            row[key] = _json_list(row[key])
        row["canonical"] = products.canonical(row["product"])
        rows.append(row)
    return rows


def load_platform_facts(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """`Limitation` rows about platforms ("platform: Ubuntu 22.04" → "end of support")."""
    sql = ("SELECT l.target, l.feature, l.status, l.note, l.source_url, l.retrieved_at, l.report, r.product, r.version "
           "FROM limitation l JOIN release r ON r.id = l.release_id WHERE l.feature LIKE 'platform:%'")
    out = []
    for r in conn.execute(sql):
        row = dict(r)
        if report_tier(row) == 0:
            continue
        row["platform"] = row["feature"].split(":", 1)[1].strip()
        row["canonical"] = products.canonical(row["product"])
        out.append(row)
    return out


# ---------------------------------------------------------------- windows

def local_report(row: dict[str, Any]) -> dict[str, Any] | None:
    """The local report file a row came from (kb ingest FILE), None for shipped or own rows."""
    value = row.get("report")
    if isinstance(value, str):
        value = json.loads(value)
    return value or None


def report_tier(row: dict[str, Any]) -> int:
    """0: a local report file; 1: shipped or made here; 2: a report let win with --prefer-local."""
    report = local_report(row)
    return 1 if report is None else 2 if report.get("prefer_local") else 0


def trusted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A local report's statements about a product cycle count only where no shipped or
    self-made statement exists, unless it was ingested with --prefer-local: a file someone
    hands over cannot move a shipped end-of-support date."""
    if any(report_tier(r) >= 1 for r in rows):
        return [r for r in rows if report_tier(r) >= 1]
    return rows


def _statement_order(row: dict[str, Any]) -> tuple:
    return (report_tier(row), row.get("statement_date") or "", row.get("retrieved_at") or "", row.get("id") or 0)


def _source(row: dict[str, Any]) -> dict[str, Any]:
    return {"source_kind": row["source_kind"], "source_name": row["source_name"], "source_url": row["source_url"],
            "retrieved_at": row["retrieved_at"], "statement_date": row.get("statement_date"),
            "local_report": local_report(row)}


def release_date_of(releases: list[dict[str, Any]], product: str, version: str) -> tuple[str | None, str | None]:
    """(date, version) of the first dated release of `product` in line `version` (2.34 → 2.34.0)."""
    dated = [r for r in releases if r["canonical"] == product and r["date"]
             and (r["version"] == version or r["version"].startswith(version + "."))]
    if not dated:
        return None, None
    first = min(dated, key=lambda r: version_key(r["version"]))
    return first["date"], first["version"]


def releases_known_as_of(releases: list[dict[str, Any]], product: str) -> str | None:
    """The day of the newest release data kb has for `product` (its latest retrieval):
    a release not in the registry is "not known as of" that day, never "not released"."""
    days = [(r.get("retrieved_at") or "")[:10] for r in releases if r["canonical"] == product]
    return max((d for d in days if d), default=None)


def _release_product(window_product: str, eol_release: str) -> tuple[str, str]:
    """"torch_tpu 0.3" names its product; a bare "2.34" is a release of the product's
    usual release train (Neuron SDK for everything Neuron)."""
    parts = eol_release.strip().rsplit(" ", 1)
    if len(parts) == 2 and re.match(r"^v?\d", parts[1]):
        return products.canonical(parts[0]), parts[1].lstrip("v")
    return products.info(window_product).releases_with, eol_release.strip().lstrip("v")


def build_window(statements: list[dict[str, Any]], releases: list[dict[str, Any]], as_of: date) -> dict[str, Any]:
    """One product cycle's current answer from its statements (any order)."""
    ordered = sorted(statements, key=_statement_order)
    newest = ordered[-1]

    def latest(*fields: str) -> dict[str, Any] | None:
        stating = [s for s in ordered if any(s.get(f) is not None for f in fields)]
        return stating[-1] if stating else None

    eol_stmt = latest("eol", "eol_kind", "eol_release")
    end_stmt = latest("support_end")
    rel_stmt = latest("release_date")
    product = newest["product"]
    window: dict[str, Any] = {
        "product": product,
        "product_label": products.info(product).label,
        "cycle": newest["cycle"],
        "scope": newest.get("scope", "vendor"),
        "listed": False,  # True: a cycle a release matrix lists, with no statement of its own
        "title": (eol_stmt or newest).get("title") or newest.get("title"),
        "release_date": rel_stmt["release_date"] if rel_stmt else None,
        "support_end": end_stmt["support_end"] if end_stmt else None,
        "support_end_source": _source(end_stmt) if end_stmt else None,
        "eol_kind": None, "eol_release": None, "eol_release_product": None, "eol_release_version": None,
        "eol_pending": False, "release_known_as_of": None, "eol_approximate": False, "eol_from": None, "eol_stated": None,
        "eol_source": _source(eol_stmt) if eol_stmt else None,
        "note": (eol_stmt or newest).get("note"),
        "statement_date": (eol_stmt or newest).get("statement_date"),
        **{k: (eol_stmt or newest)[k] for k in ("source_kind", "source_name", "source_url", "retrieved_at")},
        "local_report": local_report(eol_stmt or newest),
    }
    if eol_stmt:
        kind = eol_stmt.get("eol_kind") or ("announced" if eol_stmt.get("eol") else None)
        window["eol_kind"] = kind
        window["eol_stated"] = eol_stmt.get("eol")
        eol_day, approx = parse_day(eol_stmt.get("eol"))
        if eol_stmt.get("eol_release"):
            rel_product, rel_version = _release_product(product, eol_stmt["eol_release"])
            window.update(eol_release=rel_version, eol_release_product=rel_product)
            if eol_day is None and kind == "with_release":
                shipped, shipped_version = release_date_of(releases, rel_product, rel_version)
                eol_day, approx = parse_day(shipped)
                window["eol_release_version"] = shipped_version
                window["eol_pending"] = eol_day is None
                window["release_known_as_of"] = releases_known_as_of(releases, rel_product)
        window["eol_from"] = eol_day.isoformat() if eol_day else None
        window["eol_approximate"] = approx
    current = {id(s) for s in (eol_stmt, end_stmt, rel_stmt) if s is not None} or {id(newest)}
    window["history"] = [{**{k: s.get(k) for k in ("statement_date", "release_date", "support_end", "eol",
                                                  "eol_kind", "eol_release", "title", "note")},
                          "source_product": s["source_product"], **_source(s), "current": id(s) in current}
                         for s in reversed(ordered)]
    window["superseded"] = len(ordered) - len(current)
    return evaluate(window, as_of)


def evaluate(window: dict[str, Any], as_of: date) -> dict[str, Any]:
    """Set the day-dependent fields: is_eol, in_maintenance, days_left, status."""
    eol_day, _ = parse_day(window["eol_from"])
    end_day, _ = parse_day(window["support_end"])
    is_eol = eol_day is not None and eol_day <= as_of
    in_maintenance = not is_eol and end_day is not None and end_day <= as_of
    if is_eol:
        status = "ended"
    elif in_maintenance:
        status = "maintenance"
    elif window["eol_pending"]:
        status = "pending"
    elif eol_day or end_day:
        status = "supported"
    else:
        status = "no date"
    days_left = (eol_day - as_of).days if eol_day else None
    window.update(as_of=as_of.isoformat(), is_eol=is_eol, in_maintenance=in_maintenance, status=status,
                  days_left=days_left, state=describe_date(window))
    window.update(support_state=support_state(window), relative=relative(days_left),
                  support_by=support_by(window))
    return window


# Within this many days of its end a cycle is "ending" (endoflife.date's amber).
ENDING_DAYS = 90


def support_state(window: dict[str, Any]) -> str:
    """supported / ending / ended, as endoflife.date colours a cycle (unknown: no end is
    stated). Ending: the end is within ENDING_DAYS, announced for a release not yet out,
    or active support is over."""
    if window["is_eol"]:
        return "ended"
    days = window.get("days_left")
    if (days is not None and days <= ENDING_DAYS) or window["eol_pending"] or window["in_maintenance"]:
        return "ending"
    return "supported" if days is not None else "unknown"  # no end stated: not "supported forever"


def relative(days_left: int | None) -> str:
    """"ended 194 days ago", "ends today", "ends in 30 days" ("" without a date)."""
    if days_left is None:
        return ""
    if days_left < 0:
        return f"ended {-days_left} day{'s' if days_left != -1 else ''} ago"
    if days_left == 0:
        return "ends today"
    return f"ends in {days_left} day{'s' if days_left != 1 else ''}"


def support_by(window: dict[str, Any]) -> str | None:
    """For someone else's product (Python, Ubuntu, PyTorch): whose support the window is,
    from its source ("Neuron SDK"); None for a vendor's own product."""
    if window.get("scope") == "upstream":
        return "upstream"
    if not products.info(window["product"]).outside:
        return None
    name = (window.get("source_name") or "") + " " + (window.get("source_url") or "")
    return "Neuron SDK" if "neuron" in name.lower() else (window.get("source_name") or "its source")


def describe_date(window: dict[str, Any]) -> str:
    """How the end-of-life date is known, in words: announced / projected / release X."""
    kind = window["eol_kind"]
    release = window["eol_release"]
    train = "Neuron" if window["eol_release_product"] == "neuron-sdk" else (window["eol_release_product"] or "")
    if kind == "with_release" and release:
        if window["eol_pending"]:
            known = window.get("release_known_as_of")
            return f"pending: ends with {train} {release}" + (f" (not known as of {known})" if known else "")
        shipped = window["eol_release_version"] or release
        return f"ends with {train} {release} (shipped {shipped} on {window['eol_from']})"
    if kind and window["eol_from"]:
        return kind + (" (month only)" if window["eol_approximate"] else "")
    if kind == "projected":
        return "projected, no date"
    if window.get("scope") == "upstream" and not window["eol_from"]:
        return "no end stated by its maintainers"
    if window["support_end"] and not window["eol_from"]:
        return "end of active support only"
    if (window["note"] or "").lower().startswith("maintenance"):
        return "maintenance mode stated, no date"
    return kind or "no statement of a date"


def current_windows(conn: sqlite3.Connection, as_of: date) -> list[dict[str, Any]]:
    """Every product cycle's current window, evaluated at `as_of`, soonest first."""
    releases = load_releases(conn)
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in load_statements(conn):
        groups.setdefault((row["product"], row["cycle"].lower(), row["scope"]), []).append(row)
    windows = [build_window(trusted(stmts), releases, as_of) for stmts in groups.values()]
    return sort_windows(windows)


def sort_windows(windows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Soonest first: coming ends by date, then pending "ends with release X", then
    undated, then ended ones (most recent first)."""

    def key(w: dict[str, Any]) -> tuple:
        eol_day, _ = parse_day(w["eol_from"])
        end_day, _ = parse_day(w["support_end"])
        as_of = date.fromisoformat(w["as_of"])
        name = (w["product"], w["cycle"])
        if w["is_eol"]:
            return (3, -eol_day.toordinal(), *name)
        if eol_day:
            return (0, eol_day.toordinal(), *name)
        if w["eol_pending"]:
            return (1, version_key(w["eol_release"] or ""), *name)
        if end_day and end_day > as_of:
            return (0, end_day.toordinal(), *name)
        return (2, 0, *name)

    return sorted(windows, key=key)


# ---------------------------------------------------------------- the listing

def check_product(product: str | None) -> None:
    """`kb eol neuron=2.34`: TARGET=VERSION names a stack part, not a product; refused
    with the spelling that answers it (before any KB is opened)."""
    if product and "=" in product:
        name = product.split("=", 1)[0].strip() or "PRODUCT"
        raise EolError(f"kb eol {product}: a product takes no version here; for that cycle use "
                       f"kb eol --stack \"{product}\" (or kb eol {name} for every cycle)")


def listing(conn: sqlite3.Connection, *, product: str | None = None, at: date | None = None,
            within: timedelta | None = None, today_: date | None = None) -> dict[str, Any]:
    """`kb eol`: windows (optionally one product, loosely matched), soonest first.
    `at`: only what is out of (active) support on that day, or may be (pending).
    `within`: only what reaches end of life between today and today + within."""
    check_product(product)
    now = today_ or today()
    as_of = at or now
    windows = current_windows(conn, as_of)
    related: list[str] = []
    if product:
        everything = windows
        windows = [w for w in windows if products.matches(product, w["product"])]
        known = sorted({w["product"] for w in everything})
        if not windows and products.canonical(product) not in products.known_names():
            raise EolError(f"no support windows for {product!r} (products with windows: {', '.join(known) or 'none'})")
        # a known product without windows of its own: name its neighbours, never show them as it
        key = products.slug(product)
        related = [name for name in known if not windows and key in name and name != products.canonical(product)]
    if product and not at and within is None:
        listed = listed_windows(conn, windows, as_of)
        windows = windows + [w for w in listed if products.matches(product, w["product"])]
    if at:
        windows = [w for w in windows if w["status"] in ("ended", "maintenance", "pending")]
    if within is not None:
        end = now + within
        windows = [w for w in windows if w["eol_from"] and now <= parse_day(w["eol_from"])[0] <= end]
    return {"today": now.isoformat(), "at": at.isoformat() if at else None,
            "within_days": within.days if within is not None else None, "product": product,
            "product_name": products.canonical(product) if product else None,
            "product_label": products.info(product).label if product else None,
            "windows": windows, "related": related}


# ---------------------------------------------------------------- supported cycles

_MATRIX_FIELDS = {"python": "python_versions", "pytorch": "torch_versions", "ubuntu": "os"}
_OWN_RELEASES = ("torchneuron", "torch_tpu", "libtpu")


def _cycle_of(product: str, value: str) -> str | None:
    if product == "ubuntu":
        found = _ubuntu_versions([value])
        return found[0] if found else None
    parts = value.split(".")
    return ".".join(parts[:2]) if product == "pytorch" and len(parts) > 2 else value


def _listed(product: str, cycle: str, state: str, release: dict[str, Any], as_of: date) -> dict[str, Any]:
    """A cycle that a release matrix lists as supported and no statement ends: a row of
    its own ("supported, no end stated"), so `kb eol python` shows what still works."""
    window = {"product": product, "product_label": products.info(product).label, "cycle": cycle, "scope": "vendor",
              "title": None, "release_date": None, "support_end": None, "support_end_source": None,
              "eol_kind": None, "eol_release": None, "eol_release_product": None, "eol_release_version": None,
              "eol_pending": False, "release_known_as_of": None, "eol_approximate": False, "eol_from": None,
              "eol_stated": None, "eol_source": None, "note": None, "statement_date": None,
              "source_kind": release.get("source_kind"), "source_name": release.get("source_name"),
              "source_url": release["source_url"], "retrieved_at": release["retrieved_at"], "history": [],
              "superseded": 0, "listed": True}
    window = evaluate(window, as_of)
    window.update(status="listed", support_state="supported", state=state)
    return window


def _platform_listed(conn: sqlite3.Connection, covered: set[tuple[str, str]], as_of: date) -> list[dict[str, Any]]:
    """Ubuntu versions the newest Neuron SDK support matrix names (platform facts):
    supported ones as supported, "end of support" ones as ended with no date stated."""
    facts = [f for f in load_platform_facts(conn) if f["canonical"] == "neuron-sdk"
             and re.match(r"ubuntu\s*\d{2}\.\d{2}", f["platform"], re.I)]
    if not facts:
        return []
    newest = max((f["version"] for f in facts), key=version_key)
    out = []
    for f in facts:
        cycle = _ubuntu_versions([f["platform"]])[0]
        if f["version"] != newest or ("ubuntu", cycle) in covered:
            continue
        status = f["status"].strip().lower()
        release = {"source_url": f["source_url"], "retrieved_at": f["retrieved_at"], "source_kind": None,
                   "source_name": None}
        if status in ("supported", "yes", "ga"):
            window = _listed("ubuntu", cycle, f"listed as supported by Neuron {newest}; no end stated", release, as_of)
        elif "end of support" in status:
            window = _listed("ubuntu", cycle, f"end of support stated by Neuron {newest}'s support matrix, no date",
                             release, as_of)
            window.update(support_state="ended", status="ended (no date)")
        else:
            continue
        window["support_by"] = "Neuron SDK"
        covered.add(("ubuntu", cycle))
        out.append(window)
    return out


def listed_windows(conn: sqlite3.Connection, windows: list[dict[str, Any]], as_of: date) -> list[dict[str, Any]]:
    """Supported cycles that no end-of-support statement covers: for Python, PyTorch and
    Ubuntu, what the newest Neuron SDK release stating a matrix lists (the Neuron SDK's
    support); for TorchNeuron, TorchTPU and libtpu, each known release."""
    releases = load_releases(conn)
    vendor = {(w["product"], w["cycle"].lower()) for w in windows if w.get("scope") != "upstream"}
    out: list[dict[str, Any]] = []
    for product, field in _MATRIX_FIELDS.items():
        stating = [r for r in releases if r["sdk_version"] and r[field]]
        if not stating:
            continue
        newest = max((r["sdk_version"] for r in stating), key=version_key)
        seen: set[str] = set()
        for r in stating:
            if r["sdk_version"] != newest:
                continue
            for value in r[field]:
                cycle = _cycle_of(product, value)
                if not cycle or cycle in seen or any(p == product and same_line(c, cycle) for p, c in vendor):
                    continue
                seen.add(cycle)
                out.append(_listed(product, cycle, f"listed as supported by Neuron {newest} (newest release "
                                   "stating it); no end stated", r, as_of))
    out += _platform_listed(conn, vendor | {(w["product"], w["cycle"].lower()) for w in out}, as_of)
    stated = {(w["product"], w["cycle"].lower()) for w in windows}
    for product in _OWN_RELEASES:
        for r in sorted((r for r in releases if r["canonical"] == product), key=lambda r: version_key(r["version"])):
            if (product, r["version"].lower()) in stated or r.get("channel") == "pre-release":
                continue  # a development snapshot is no vendor release: it has no support to list
            shipped = f"released {r['date']}" if r["date"] else "release date not stated"
            out.append(_listed(product, r["version"], f"{shipped}; no end of support stated", r, as_of))
    return out


# ---------------------------------------------------------------- stacks

def parse_stack(text: str) -> list[dict[str, str]]:
    """"neuron=2.33 torch=2.14 python=3.12 ubuntu=22.04 trn2" → components.
    A bare instance family (trn2) means instance=trn2."""
    components = []
    for token in re.split(r"[\s,;]+", text.strip()):
        if not token:
            continue
        if "=" in token:
            key, _, value = token.partition("=")
        elif products.slug(token) in products.INSTANCE_FAMILIES:
            key, value = "instance", token
        else:
            m = re.fullmatch(r"([A-Za-z_\-]+?)[-@]?(\d[\w.]*)", token)
            if not m:
                raise EolError(f"stack item {token!r}: expected NAME=VERSION (e.g. neuron=2.33 torch=2.14)")
            key, value = m[1], m[2]
        if not key or not value:
            raise EolError(f"stack item {token!r}: expected NAME=VERSION (e.g. neuron=2.33 torch=2.14)")
        product = products.canonical(key)
        if products.slug(key) in products.INSTANCE_FAMILIES:
            key, value, product = "instance", key, "instance"
        if key != "instance" and not _plausible_version(product, value.strip()):
            raise EolError(f"stack item {token!r}: {value!r} is not a version (expected e.g. {key}=2.14)")
        components.append({"key": key, "product": product, "version": value.strip()})
    if not components:
        raise EolError("empty stack: give NAME=VERSION pairs, e.g. \"neuron=2.33 torch=2.14 python=3.12\"")
    return components


def _plausible_version(product: str, value: str) -> bool:
    """A version starts with a digit (v2.14 too); `*`/any/all match every cycle; products
    whose cycles name uses (XLA "inference") also take a plain word."""
    if value.lower() in ("*", "any", "all") or re.fullmatch(r"v?\d[\w.+\-]*", value):
        return True
    try:
        feature = products.info(product).cycles == "feature"
    except Exception:  # an unknown product: only versions
        feature = False
    return feature and re.fullmatch(r"[A-Za-z][\w\-]*", value) is not None


def cycle_matches(window: dict[str, Any], version: str) -> bool:
    """Does a window's cycle cover the version the stack names? Versions match by line
    (torch 2.14.0 is cycle 2.14); cycles that name a use (XLA "inference") match any
    version, or the words given (xla=inference)."""
    cycle = window["cycle"]
    if version in ("*", "any", "all"):
        return True
    if same_line(cycle, version) and re.match(r"^v?\d", cycle):
        return True
    if products.info(window["product"]).cycles == "feature":
        if re.match(r"^v?\d", version):
            return True
        return version.lower() in cycle.lower()
    return cycle.lower() == version.lower()


def _sdk_version(components: list[dict[str, str]]) -> str | None:
    for c in components:
        if c["product"] == "neuron-sdk":
            return c["version"]
    return None


def _ubuntu_versions(entries: list[str]) -> list[str]:
    found = []
    for entry in entries:
        m = re.search(r"ubuntu\s*(\d{2}\.\d{2})", entry, re.I)
        if m:
            found.append(m[1])
    return found


def _inferred_torch(release: dict[str, Any]) -> list[str]:
    """torch versions a release supports; legacy torch-neuronx versions start with the
    torch version they build on (2.8.0.2.10.x → 2.8.0)."""
    if release["torch_versions"]:
        return release["torch_versions"]
    parts = release["version"].split(".")
    if release["canonical"] in ("torch-neuronx", "torch-neuronx-xla") and len(parts) >= 5:
        return [".".join(parts[:3])]
    return []


_FAMILY_PRODUCTS = {"torch-neuronx": ("torch-neuronx", "torchneuron", "torch-neuronx-xla")}


def _matrix_sets(components: list[dict[str, str]], releases: list[dict[str, Any]]) -> list[tuple[str, list[dict]]]:
    """Support matrices the stack is checked against: the Neuron SDK release's packages
    (union), and each named package release on its own."""
    sets = []
    sdk = _sdk_version(components)
    if sdk:
        members = _sdk_members(releases, sdk)
        if members:
            sets.append((f"Neuron {sdk}", members))
    for c in components:
        if c["product"] in ("neuron-sdk", "pytorch", "python", "ubuntu", "instance"):
            continue
        wanted = _FAMILY_PRODUCTS.get(c["product"], (c["product"],))
        found = [r for r in releases if r["canonical"] in wanted and same_line(r["version"], c["version"])]
        if found:
            best = max(found, key=lambda r: len(r["version"]))  # the most specific match
            sets.append((f"{best['product']} {best['version']}", [best]))
    return sets


def _issue(kind: str, component: dict | None, message: str, source_url: str | None = None,
           eol_from: str | None = None, gate: bool = True, presumed: bool = False) -> dict[str, Any]:
    return {"kind": kind, "component": f"{component['key']}={component['version']}" if component else None,
            "message": message, "source_url": source_url, "eol_from": eol_from, "gate": gate,
            "presumed": presumed}


def _sdk_members(releases: list[dict[str, Any]], sdk: str) -> list[dict[str, Any]]:
    return [r for r in releases if (r["canonical"] == "neuron-sdk" and same_line(r["version"], sdk))
            or (r["sdk_version"] and same_line(r["sdk_version"], sdk))]


def _sdk_lines(releases: list[dict[str, Any]]) -> list[str]:
    """Neuron SDK releases kb knows (2.33, 2.34 ...), oldest first."""
    found = {".".join(v.split(".")[:2]) for r in releases
             for v in ((r["version"],) if r["canonical"] == "neuron-sdk" else ()) + ((r["sdk_version"],) if r["sdk_version"] else ())}
    return sorted(found, key=version_key)


def _previous_stating(releases: list[dict[str, Any]], sdk: str, states) -> str | None:
    """The newest Neuron SDK release older than `sdk` for which `states(line)` is true: the
    matrix a release that states none of its own is presumed to keep."""
    older = [line for line in _sdk_lines(releases) if version_key(line) < version_key(sdk) and not same_line(line, sdk)]
    return next((line for line in reversed(older) if states(line)), None)


def _pair_issues(label: str, members: list[dict[str, Any]], by_product: dict[str, dict],
                 found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Python × PyTorch within one SDK: the packages built for the stack's PyTorch must
    support its Python (torch-neuronx for 2.8 may drop a Python its siblings keep)."""
    torch, python = by_product.get("pytorch"), by_product.get("python")
    if not torch or not python or any(i["component"] in (f"{c['key']}={c['version']}" for c in (torch, python))
                                      for i in found if i["kind"] == "incompatible"):
        return []
    builds = [r for r in members if r["canonical"] != "neuron-sdk" and r["python_versions"]
              and any(same_line(v, torch["version"]) for v in _inferred_torch(r))]
    if not builds or any(same_line(v, python["version"]) for r in builds for v in r["python_versions"]):
        return []
    names = ", ".join(sorted({r["product"] for r in builds}))
    pythons = ", ".join(sorted({v for r in builds for v in r["python_versions"]}, key=version_key))
    return [_issue("incompatible", python, f"{label}: {names} for PyTorch {torch['version']} supports Python "
                   f"{pythons}, not {python['version']}", builds[0]["source_url"])]


def platform_matrix_of(releases: list[dict[str, Any]], platform_facts: list[dict[str, Any]], sdk: str) -> str | None:
    """The Neuron release whose platform matrix (Ubuntu, instances) a stack on `sdk` is
    checked against: its own, else the newest older one stating one (presumed)."""
    def stated(line: str) -> bool:
        return any(f["canonical"] == "neuron-sdk" and same_line(f["version"], line) for f in platform_facts)
    return sdk if stated(sdk) else _previous_stating(releases, sdk, stated)


def matrix_issues(components: list[dict[str, str]], releases: list[dict[str, Any]],
                  platform_facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Incompatible combinations per the release support matrices and platform facts."""
    issues = []
    by_product = {c["product"]: c for c in components}
    sdk = _sdk_version(components)
    checks = (("pytorch", "PyTorch", lambda rs: [v for r in rs for v in _inferred_torch(r)]),
              ("python", "Python", lambda rs: [v for r in rs for v in r["python_versions"]]),
              ("instance", "instance family", lambda rs: [v for r in rs for v in r["instance_families"]]),
              ("ubuntu", "Ubuntu", lambda rs: _ubuntu_versions([v for r in rs for v in r["os"]])))
    as_of = releases_known_as_of(releases, "neuron-sdk") or "the KB's data"

    def covers(values: list[str], comp: dict[str, str]) -> bool:
        return any(same_line(v, comp["version"]) or v.lower() == comp["version"].lower() for v in values)

    for label, members in _matrix_sets(components, releases):
        own_sdk = sdk if label == f"Neuron {sdk}" else None
        for product, name, collect in checks:
            comp = by_product.get(product)
            supported = sorted(set(collect(members)), key=version_key)
            # what an older release shipped: the newest one stating this matrix at all when this
            # release states none; else the newest one whose same packages state it
            stating = {r["canonical"] for r in members if collect([r])} or None
            previous = (_previous_stating(releases, own_sdk, lambda line, c=collect, p=stating: bool(c(
                [r for r in _sdk_members(releases, line) if p is None or r["canonical"] in p]))) if own_sdk else None)
            before = sorted(set(collect([r for r in _sdk_members(releases, previous) if stating is None
                                         or r["canonical"] in stating])), key=version_key) if previous else []
            if not comp or not (supported or before):
                continue
            if not supported:  # this release states no such matrix: the previous one's is presumed
                if not covers(before, comp):
                    source = next((r["source_url"] for r in _sdk_members(releases, previous) if r["source_url"]), None)
                    issues.append(_issue("incompatible", comp, f"Neuron {own_sdk} states no {name} matrix of its own "
                                         f"as of {as_of}; {previous}'s is presumed: Neuron {previous} supports {name} "
                                         f"{', '.join(before)}, not {comp['version']}", source, presumed=True))
                continue
            if covers(supported, comp):
                continue
            source = next((r["source_url"] for r in members if r["source_url"]), None)
            if covers(before, comp):  # shipped before, not mentioned now: not stated, never "dropped"
                issues.append(_issue("not stated", comp, f"{name} {comp['version']}: not stated for Neuron {own_sdk} "
                                     f"as of {as_of} (Neuron {previous} shipped it; {label} names {name} "
                                     f"{', '.join(supported)})", source, gate=False))
            else:
                issues.append(_issue("incompatible", comp, f"{label} supports {name} {', '.join(supported)}, "
                                                         f"not {comp['version']}", source))
        issues += _pair_issues(label, members, by_product, issues)
        if sdk and label != f"Neuron {sdk}":
            for r in members:
                if r["sdk_version"] and not same_line(r["sdk_version"], sdk):
                    issues.append(_issue("incompatible", by_product.get("neuron-sdk"),
                                         f"{label} ships with Neuron {r['sdk_version']}, not {sdk}", r["source_url"]))
    if sdk:
        listed: dict[str, list[str]] = {}
        matrix_of = platform_matrix_of(releases, platform_facts, sdk)
        presumed = matrix_of is not None and matrix_of != sdk
        lead = (f"Neuron {sdk} states no matrix of its own as of {as_of}; {matrix_of}'s is presumed: "
                if presumed else "")
        for fact in platform_facts:
            if fact["canonical"] != "neuron-sdk" or not matrix_of or not same_line(fact["version"], matrix_of):
                continue
            platform = fact["platform"]
            m = re.match(r"ubuntu\s*(\d{2}\.\d{2})", platform, re.I)
            product, version = ("ubuntu", m[1]) if m else ("instance", platform.lower())
            comp = by_product.get(product)
            ok = fact["status"].strip().lower() in ("supported", "yes", "ga")
            if ok:
                listed.setdefault(product, []).append(version)
            if comp and (comp["version"].lower() == version.lower() or same_line(comp["version"], version)) and not ok:
                issues.append(_issue("incompatible", comp, f"{lead}Neuron {matrix_of}: {platform} — {fact['status']}"
                                     + (f" ({fact['note']})" if fact["note"] else ""), fact["source_url"],
                                     presumed=presumed))
        for product, versions in listed.items():
            comp = by_product.get(product)
            named = [i for i in issues if i["component"] == (f"{comp['key']}={comp['version']}" if comp else None)]
            if comp and not named and not any(v.lower() == comp["version"].lower() for v in versions):
                issues.append(_issue("unlisted", comp, f"{lead}Neuron {matrix_of} lists {', '.join(sorted(versions))} "
                                     f"as supported; {comp['version']} is not listed", gate=False, presumed=presumed))
    return issues


def _packages_as_sdk(conn: sqlite3.Connection, components: list[dict[str, str]]) -> list[dict[str, str]]:
    """`neuron=` in a stack is the Neuron SDK; a TorchNeuron package version there
    (`neuron=2.14.3.0`) stands for the SDK release that ships it, by the same grammar as
    every other command (kb.store.targetspec), and says so in `resolved`."""
    from kb.store.targetspec import sdk_of

    out = []
    for c in components:
        sdk = sdk_of(conn, "neuron", c["version"]) if c.get("product") == "neuron-sdk" else None
        if sdk:
            c = {**c, "version": sdk, "as_typed": c["version"],
                 "resolved": f"{c['key']}={c['version']} is torchneuron {c['version']}, shipped by Neuron SDK {sdk}"}
        out.append(c)
    return out


# What a package's release page says it needs ("Requires-Python >=3.11; requires torch >=2.11.0,<=2.15.0"), as kept in
# the release's note: a PEP 440 specifier each
_REQUIRES = {"python": re.compile(r"\bRequires-Python\s+([<>=!~][^;\s]*)", re.I),
             "pytorch": re.compile(r"\brequires torch\s+([<>=!~][^;\s]*)", re.I)}


def requirement_issues(conn: sqlite3.Connection, components: list[dict[str, str]]) -> list[dict[str, Any]]:
    """A Python or PyTorch in the stack outside what a package's release says it requires ("torch_tpu=0.2.0
    python=3.10": Requires-Python >=3.11): incompatible, with the release's page as the source (r27 q44)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    by_product = {c["product"]: c for c in components}
    issues = []
    for c in components:
        if products.info(c["product"]).outside:
            continue
        found = conn.execute("SELECT note, source_url, report FROM release WHERE product = ? AND version = ?",
                             (c["product"], c["version"])).fetchone()
        row = dict(zip(("note", "source_url", "report"), found)) if found else None
        if row is None or not row["note"] or report_tier(row) == 0:
            continue  # a requirement only a local report file states moves no verdict (as load_releases)
        for product, pattern in _REQUIRES.items():
            m, comp = pattern.search(row["note"]), by_product.get(product)
            if not m or not comp or not re.fullmatch(r"\d+(?:\.\d+){0,3}", comp["version"]):
                continue
            said = m.group(1).rstrip(".,")
            try:
                spec = SpecifierSet(said)
            except InvalidSpecifier:
                continue
            # a bare line ("torch 2.9", "python 3.10") fits when its first release does
            if not spec.contains(comp["version"] if comp["version"].count(".") >= 2 else comp["version"] + ".0"):
                label = products.info(product).label
                issues.append({**_issue("incompatible", comp, f"{c['product']} {c['version']} requires {label} {said}, "
                                        f"not {comp['version']}", row["source_url"]),
                               "requires": {"package": f"{c['product']} {c['version']}", "product": label,
                                            "spec": said, "have": comp["version"]}})
    return issues


def tpu_only(components: list[dict[str, str]]) -> bool:
    """Whether a stack names TorchTPU (or libtpu) and nothing of Neuron's: Neuron's support of Python or PyTorch does
    not bear on it."""
    lines = {products.info(c["product"]).releases_with for c in components
             if not products.info(c["product"]).outside and c["product"] != "instance"}
    neuron_instance = any(c["product"] == "instance" and re.match(r"(?:trn|inf)", c["version"], re.I) for c in components)
    return bool(lines & {"torch_tpu", "libtpu"}) and "neuron-sdk" not in lines and not neuron_instance


def check_stack(conn: sqlite3.Connection, stack: str | list[dict[str, str]], *, within: timedelta | None = None,
                today_: date | None = None, fail_on_unknown: bool = False) -> dict[str, Any]:
    """`kb eol --stack`: every window that covers a part of the stack, the first day any
    part leaves support, and incompatible combinations. `failed` is the CI gate: something
    is already out of support, incompatible, or (with `within`) ends within the horizon;
    with `fail_on_unknown`, also a part whose end of support no source dates (`unknown`
    lists them always: no date is not "supported forever")."""
    now = today_ or today()
    components = _packages_as_sdk(conn, parse_stack(stack) if isinstance(stack, str) else stack)
    windows = current_windows(conn, now)
    releases = load_releases(conn)
    known = {w["product"] for w in windows} | {r["canonical"] for r in releases} | set(products.known_names())
    for c in components:
        if c["product"] not in known:
            raise EolError(f"stack item {c['key']}={c['version']}: unknown product {c['key']!r} "
                           f"(known: {', '.join(sorted(known))})")
    sdk = _sdk_version(components)
    matched, issues = [], []
    only_tpu = tpu_only(components)
    for c in components:
        for w in windows:
            if w["product"] != c["product"] or not cycle_matches(w, c["version"]):
                continue
            if only_tpu and w.get("support_by") == "Neuron SDK":
                continue  # "torch_tpu=0.2.0 python=3.10": Neuron's end of Python 3.10 is no part of a TPU stack (r27 q44)
            matched.append({**w, "component": f"{c['key']}={c['version']}"})
            if w["is_eol"]:
                issues.append(_issue("ended", c, f"{w['product_label']} {w['cycle']}: out of support since "
                                     f"{w['eol_from']}", w["source_url"], w["eol_from"]))
            elif (w["eol_release_product"] == "neuron-sdk" and sdk and w["eol_release"]
                  and version_key(sdk) >= version_key(w["eol_release"])):
                issues.append(_issue("incompatible", c, f"{w['product_label']} {w['cycle']}: ends with Neuron "
                                     f"{w['eol_release']}, and the stack has Neuron {sdk}", w["source_url"], w["eol_from"]))
            elif w["eol_pending"]:
                issues.append(_issue("pending", c, f"{w['product_label']} {w['cycle']}: {w['state']}",
                                     w["source_url"], gate=False))
            elif w["in_maintenance"]:
                issues.append(_issue("maintenance", c, f"{w['product_label']} {w['cycle']}: active support ended "
                                     f"{w['support_end']}", w["source_url"], gate=False))
    platform_facts = load_platform_facts(conn)
    issues += matrix_issues(components, releases, platform_facts)
    issues += requirement_issues(conn, components)
    matrices = [label for label, _ in _matrix_sets(components, releases)]
    matrix_of = platform_matrix_of(releases, platform_facts, sdk) if sdk else None
    presumed_matrix = None
    if matrix_of and matrix_of != sdk:  # said even when nothing conflicts: the pass rests on it
        as_of = releases_known_as_of(releases, "neuron-sdk") or "the KB's data"
        presumed_matrix = {"release": sdk, "from": matrix_of, "as_of": as_of,
                           "line": f"Neuron {sdk} states no matrix of its own as of {as_of}; {matrix_of}'s is presumed"}
    dated = [w for w in matched if w["eol_from"]]
    first = min(dated, key=lambda w: w["eol_from"]) if dated else None
    horizon_end = now + within if within is not None else None
    if horizon_end is not None:
        for w in dated:
            day, _ = parse_day(w["eol_from"])
            if now <= day <= horizon_end:
                issues.append(_issue("within", None, f"{w['product_label']} {w['cycle']}: ends {w['eol_from']} "
                                     f"({w['days_left']} days), within {within.days} days", w["source_url"], w["eol_from"]))
    dated_parts = {w["component"] for w in matched if w["eol_from"] or w["eol_pending"]}
    unknown = [f"{c['key']}={c['version']}" for c in components
               if f"{c['key']}={c['version']}" not in dated_parts and c["version"] != "*"]
    return {
        "today": now.isoformat(), "stack": components, "within_days": within.days if within is not None else None,
        "first_eol": {k: first[k] for k in ("product", "cycle", "eol_from", "state", "source_url")} if first else None,
        "windows": sort_windows(matched), "issues": issues, "matrices_checked": matrices, "unknown": unknown,
        "presumed_matrix": presumed_matrix,
        "failed": any(i["gate"] for i in issues) or (fail_on_unknown and bool(unknown)),
    }


# ---------------------------------------------------------------- kb check

_TARGET_PRODUCTS = {"neuron": ("torchneuron",), "neuron-xla": ("torch-neuronx-xla", "torch-neuronx"),
                    "tpu": ("torch_tpu",)}


def warnings_for(conn: sqlite3.Connection, target: str, backend_version: str | None, today_: date | None = None,
                 *, horizon_days: int = 180, extra: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """End-of-support warnings for `kb check --target T` at a backend version: the
    backend's own windows, its Neuron SDK's, its PyTorch's (from the release registry),
    and incompatible combinations. Each: severity (error = already out of support or
    incompatible, warning = ends within `horizon_days` or pending, info = later),
    kind, message, product, cycle, eol_from, is_eol, source_url."""
    now = today_ or today()
    row = conn.execute("SELECT product FROM target WHERE name = ?", (target,)).fetchone()
    product = row[0] if row else products.canonical(target)
    components = []
    release = None
    if backend_version:
        release = conn.execute("SELECT sdk_version, torch_versions FROM release WHERE product = ? AND version = ?",
                               (product, backend_version)).fetchone()
        components.append({"key": product, "product": products.canonical(product), "version": backend_version})
    for extra_product in _TARGET_PRODUCTS.get(target, ()):
        if not any(c["product"] == extra_product for c in components):
            components.append({"key": extra_product, "product": extra_product, "version": "*"})
    if release is not None:
        if release["sdk_version"]:
            components.append({"key": "neuron", "product": "neuron-sdk", "version": release["sdk_version"]})
        torch_versions = _json_list(release["torch_versions"])
        if len(torch_versions) == 1:
            components.append({"key": "torch", "product": "pytorch", "version": torch_versions[0]})
    for key, value in (extra or {}).items():
        components.append({"key": key, "product": products.canonical(key), "version": value})
    if not components:
        return []
    result = check_stack(conn, components, within=timedelta(days=horizon_days), today_=now)
    out = []
    for w in result["windows"]:
        if w["is_eol"]:
            severity, kind, message = "error", "ended", f"{w['product_label']} {w['cycle']}: out of support since {w['eol_from']}"
        elif w["eol_pending"]:
            severity, kind, message = "warning", "pending", f"{w['product_label']} {w['cycle']}: {w['state']}"
        elif w["days_left"] is not None and w["days_left"] <= horizon_days:
            severity, kind, message = "warning", "ends soon", (f"{w['product_label']} {w['cycle']}: ends {w['eol_from']} "
                                                               f"({w['days_left']} days)")
        elif w["in_maintenance"]:
            severity, kind, message = "warning", "maintenance", (f"{w['product_label']} {w['cycle']}: active support "
                                                                 f"ended {w['support_end']}")
        else:
            severity, kind, message = "info", "dated", f"{w['product_label']} {w['cycle']}: {w['state']}"
        out.append({"severity": severity, "kind": kind, "message": message, "product": w["product"],
                    "cycle": w["cycle"], "eol_from": w["eol_from"], "is_eol": w["is_eol"],
                    "eol_pending": w["eol_pending"], "source_url": w["source_url"],
                    "retrieved_at": w["retrieved_at"]})
    for issue in result["issues"]:
        if issue["kind"] in ("incompatible", "unlisted", "not stated"):
            severity = "error" if issue["gate"] else "warning" if issue["kind"] == "not stated" else "info"
            out.append({"severity": severity, "kind": issue["kind"],
                        "message": issue["message"], "product": None, "cycle": None, "eol_from": None,
                        "is_eol": False, "eol_pending": False, "source_url": issue["source_url"], "retrieved_at": None})
    rank = {"error": 0, "warning": 1, "info": 2}
    return sorted(out, key=lambda w: (rank[w["severity"]], w["eol_from"] or "9999"))
