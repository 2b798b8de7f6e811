"""Release and version questions in chat: the latest release of a product, when a release
came out, what it ships (PyTorch, Python, OS, instance families, the Neuron SDK it is part
of) from the release registry, and what changed between two versions of a target
(kb.store.queries.diff, verdicts compared by where each op runs).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat import intents, names
from kb.chat.answer_release_topic import WHEN, aspect_headline
from kb.chat.intents import Question, TargetMention
from kb.chat.oplookup import pick_versions, same_line
from kb.chat.package_on_instance import instances_only
from kb.chat.reply import MAX_LIST, Answer, Sources, quoted
from kb.store import families, queries, releases, verdict
from kb.vocab import SYMBOLS, UNKNOWN

NEWS_ASKED = re.compile(r"\bwhat'?s new\b|\bis it new\b|\bnews\b|\bnew in\b|\bbr(?:ing|ings|ought)\b", re.I)  # s8c-intent3: "what does X bring?"
SHIPS = (("torch_versions", "PyTorch"), ("python_versions", "Python"), ("os", "OS"),
         ("instance_families", "instances"))


def _ships_line(r: dict[str, Any]) -> str:
    parts = [f"{label} {', '.join(r[key])}" for key, label in SHIPS if r.get(key)]
    return "; ".join(parts)


def _release_head(r: dict[str, Any]) -> str:
    bits = []
    if r.get("sdk_version") and r["product"] != "neuron-sdk":
        bits.append(f"Neuron SDK {r['sdk_version']}")
    if r.get("date") or not bits:  # a package of an SDK release is dated by that release, not "no date" (r25 q27)
        bits.append(f"released {r['date']}" if r.get("date") else "no release date in the KB")
    if r.get("channel"):
        bits.append(r["channel"])
    return f"**{r['product']} {r['version']}** ({', '.join(bits)})"


def _release_fact(r: dict[str, Any]) -> dict[str, Any]:
    return {k: r.get(k) for k in ("product", "version", "date", "sdk_version", "torch_versions", "python_versions", "os",
                                  "instance_families", "channel", "note", "source_url")}


def _asked_version_in(q: Question, aspect_words: tuple[str, ...]) -> str | None:
    """A version the question names for Python/PyTorch ("python 3.11"), if any."""
    for product, version in q.products:
        if product in aspect_words and version:
            return version
    return None


def _more_versions(conn: sqlite3.Connection, q: Question, product: str, read: str) -> list[dict[str, Any]]:
    """"When were torchneuron 2.13.3.0 and 2.14.3.0 released?": the registry rows of the other
    versions of the same product the question names, each answered as the first one is (29r)."""
    listed = re.search(rf"(?<![\w.]){re.escape(read)}((?:\s*(?:,|and|or|y|o|&)\s*v?\d+(?:\.\d+)+)+)", q.text, re.I)
    out = []
    for version in dict.fromkeys(re.findall(r"\d+(?:\.\d+)+", listed.group(1) if listed else "")):
        if version != read and version.count(".") == read.count("."):  # a list of the same product's versions
            out += releases.find(conn, product, version)[:1]
    return out[:3]


def _unique(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows in order, each (product, version) once."""
    seen, out = set(), []
    for r in rows:
        key = (r["product"], r["version"])
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


# "when were neuron 2.29 through 2.34 released?", "fechas de la 2.29 a la 2.34": each release of a range, dated
_RANGE = re.compile(r"(?<![\w.])v?(\d+\.\d+)(?:\.\d+)?\s*(?:through|thru|to|until|-|–|—|\.\.|a(?: la)?|al|hasta(?: la)?)\s*v?(\d+\.\d+)(?:\.\d+)?(?![\w.])",
                    re.I)


def _range_answer(conn: sqlite3.Connection, q: Question, product: str) -> Answer | None:
    """Every release of `product` from the range's first line to its last, with its date, oldest first."""
    m = _RANGE.search(q.text)
    if m is None or not WHEN.search(q.text) and not re.search(r"\bdates?\b", q.text, re.I):
        return None
    low, high = sorted((m.group(1), m.group(2)), key=queries.version_key)
    key = queries.version_key
    rows = [r for r in releases.releases(conn, product)
            if key(low) <= key(".".join(r["version"].split(".")[:2])) <= key(high)]
    if len(rows) < 2:
        return None
    rows.sort(key=lambda r: key(r["version"]))
    src = Sources()
    es = getattr(q, "language", "en") == "es"
    lines = [f"**{product} {low} a {high}**: {len(rows)} versiones en el KB, de la más antigua a la más nueva:" if es else
             f"**{product} {low} to {high}**: {len(rows)} releases in the KB, oldest first:"]
    undated = "sin fecha en el KB" if es else "no release date in the KB"
    lines += [f"- **{r['version']}**: {r['date'] or undated} {src.cite(r)}" for r in rows]
    facts = [{"product": product, "version": r["version"], "date": r["date"]} for r in rows]
    return Answer(q.text, "release", "\n".join(lines) + src.markdown(), facts, src.items)


def release_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    reading = names.release_reading(conn, q)
    ranged = _range_answer(conn, q, reading.products[0]) if reading is not None else None
    if ranged is not None:
        return ranged
    if reading is None:
        known = ", ".join(releases.products(conn))
        return Answer(q.text, "release", "I could not tell which product's releases you mean. The release registry "
                      f"knows: {known}.", [{"status": UNKNOWN}])
    src = Sources()
    lines: list[str] = [f"_{reading.note}._"] if reading.note else []
    facts: list[dict[str, Any]] = []
    product = reading.products[0]
    asked = names.aspects(q.text)
    if reading.version:
        rows = releases.find(conn, product, reading.version)
        if not rows and product == "neuron-sdk":
            rows = []
        if not rows:
            others = [p for p in reading.products[1:] if releases.find(conn, p, reading.version)]
            if others:
                product = others[0]
                rows = releases.find(conn, product, reading.version)
                lines.append(f"_no {reading.products[0]} {reading.version} in the registry; read as {product}._")
        if not rows:
            newest = releases.latest(conn, product)
            shown = ", ".join(r["version"] for r in releases.releases(conn, product)[:8])
            dated = f"; the newest is {newest['version']} ({newest['date']})" if newest and newest.get("date") else ""
            lines.append(f"**Unknown** — the release registry has no {product} {reading.version}{dated} (newest first: "
                         f"{shown or 'none'}). `kb ingest --all` refreshes the registry from the release notes and "
                         "support matrices.")
            if newest:
                src.cite(newest)
            return Answer(q.text, "release", "\n".join(lines) + src.markdown(),
                          [{"product": product, "version": reading.version, "status": UNKNOWN}], src.items)
    else:
        latest = releases.latest(conn, product)
        if latest is None:
            return Answer(q.text, "release", f"**Unknown** — the release registry has no {product} release. "
                          "`kb ingest --all` fills it from the vendors' release notes.", [{"status": UNKNOWN}])
        rows = [r for r in releases.releases(conn, product) if r["version"] == latest["version"]]
        if "latest" in asked or not asked or set(asked) <= {"latest", "date"}:
            lines.append(f"The latest {product} release in the KB is **{latest['version']}** {src.cite(latest)}.")
            pre = [r for r in releases.releases(conn, product)[:3] if r.get("channel") == "pre-release"
                   and queries.version_key(r["version"]) > queries.version_key(latest["version"])]
            lines += [f"- a newer pre-release exists: {r['product']} {r['version']} {src.cite(r)}" for r in pre]
        lines += _versions_with_data(conn, q, product, facts)
    if NEWS_ASKED.search(q.text) and product != "neuron-sdk" and not reading.version:
        lines[:0] = _first_release(conn, q, product, src)
    if reading.version and rows:  # "what does torch_tpu 0.2.0 require?", "when was it released?": that first
        first = rows[0]
        if WHEN.search(q.text) and first["version"] != reading.version:
            # "when did SDK 2.31 come out?": the line's first release (2.31.0), not its newest patch (r21 q45)
            line = [r for r in rows if r["version"].startswith(reading.version + ".")]
            first = min(line, key=lambda r: queries.version_key(r["version"]), default=first)
        named = [first] + _more_versions(conn, q, first["product"], reading.version)
        rows = _unique(named + rows[1:])
        lines[:0] = [line for r in named for line in aspect_headline(conn, q, r, src)]
    for r in rows[:4]:
        facts.append(_release_fact(r))
        lines.append(_release_detail(conn, q, r, asked, src))
    if product == "neuron-sdk":
        for r in rows[:1]:
            # the PyTorch packages of the release, TorchAO / TorchTitan Neuron among them (r30 q42)
            parts = [c for c in releases.in_sdk(conn, r["version"]) if c["product"] in (
                "torchneuron", "torch-neuronx-xla", "neuronx-cc", "torch-xla", "torchao-neuron", "torchtitan-neuron")]
            if parts:
                compiler = " and compiler" if any(c["product"] == "neuronx-cc" for c in parts) else ""
                lines.append(f"PyTorch packages{compiler} in Neuron SDK {r['version']}:")
                word_means = names.PRODUCT_WORDS.get(reading.word.lower(), (reading.word.lower(),))[0]
                if word_means == "neuron-sdk" and re.search(r"\btorch[-_]neuronx\b", q.text, re.I):
                    word_means = "torchneuron"  # "¿qué torch-neuronx venía en la 2.31.0?": the package asked at that SDK
                asked_part = [c for c in parts if c["product"] == word_means != "neuron-sdk"]
                if word_means in ("torchneuron", "torch-neuronx-xla") and (not asked_part or re.search(r"\bxla\b", q.text, re.I)):
                    # "¿qué torch-neuronx venía en la 2.31.0? seguimos con la de XLA": that release's XLA package (r31 q46)
                    asked_part = [c for c in parts if c["product"] == "torch-neuronx-xla"] or asked_part
                if asked_part:  # "¿Qué versión de neuronx-cc viene con la 2.32?": that package's version first (r24 q45)
                    lines[:0] = [f"**{asked_part[0]['product']} {asked_part[0]['version']}** ships in Neuron SDK "
                                 f"{r['version']} {src.cite(asked_part[0])}.", ""]
                for c in parts[:6]:
                    facts.append(_release_fact(c))
                    ships = _ships_line(c)
                    if (only := instances_only(c)) is not None:  # "torchao-neuron …: Trainium3 instances only" (r30 q42)
                        ships = f"{ships}; {only}" if ships else only
                    lines.append(f"- {_release_head(c)}{': ' + ships if ships else ''} {src.cite(c)}")
    if product == "neuron-sdk" and rows:
        lines[:0] = _components_asked(conn, q.text, rows[0], src, facts)
    carried = _carried_aspects(conn, product, rows, asked, src, facts)
    if carried:
        head, more, rows_from = carried
        head += _instances_left_out(q.text, facts)
        head = _torch_asked(q, facts) + head
        lines = [head, ""] + lines + more
        rows = rows + rows_from
    family = _os_family_head(conn, q, rows, src, facts)
    if family:  # "¿Qué versiones de Ubuntu soporta…?": that family's rows are the answer (29o)
        lines = [family, ""] + lines
    elif product == "torchneuron" and ("os" in asked or "instances" in asked):
        lines += _platform_limits(conn, rows, src, facts)
    if len(reading.products) > 1 and not reading.version and "latest" in asked:
        other = releases.latest(conn, reading.products[1])
        if other:
            lines.append(f"- latest {other['product']}: {other['version']}"
                         f"{' (Neuron SDK ' + other['sdk_version'] + ')' if other.get('sdk_version') else ''} "
                         f"{src.cite(other)}")
            facts.append({**_release_fact(other), "note": "other reading"})
    maturity = _MATURITY.search(q.text)
    if maturity and rows:  # "is torchneuron still beta?": the release's channel, as a yes/no first (attacker s13)
        asked, channel = maturity.group(1).lower(), (rows[0].get("channel") or "").lower()
        es = getattr(q, "language", "en") == "es"
        if channel:
            word = ("Sí" if es else "Yes") if channel == asked else "No"
            said = f"canal **{channel}**" if es else f"channel **{channel}**"
            lines[:0] = [f"**{word}** — {rows[0]['product']} {rows[0]['version']}: {said} {src.cite(rows[0])}.", ""]
        else:
            lines[:0] = [(f"**Desconocido** — el registro no da canal (beta, GA…) para {rows[0]['product']} "
                          f"{rows[0]['version']}." if es else f"**Unknown** — the registry states no channel (beta, GA…) "
                          f"for {rows[0]['product']} {rows[0]['version']}."), ""]
    return Answer(q.text, "release", "\n".join(lines) + src.markdown(), facts, src.items)


# words a component of an SDK release goes by, beside the words of its own name
_COMPONENT_ALIASES = {"nxdi": "nxd inference", "nxd-inference": "nxd inference", "vllm-neuron": "vllm",
                      "dlc": "containers", "dlcs": "containers"}
_NOT_DISTINCT = {"neuron", "neuronx", "library", "beta", "the"}


def _components_asked(conn: sqlite3.Connection, text: str, sdk: dict[str, Any], src: Sources,
                      facts: list[dict[str, Any]]) -> list[str]:
    """"which vLLM Neuron version came with SDK 2.32?": the version the release's notes list for each component the
    question names by every distinctive word of its name (r30 q46, r31 q44), first, with the notes cited."""
    said = " " + re.sub(r"[^a-z0-9.-]+", " ", text.lower()) + " "
    for alias, words in _COMPONENT_ALIASES.items():
        said = said.replace(f" {alias} ", f" {alias} {words} ")
    found = []
    for name, version in releases.components(conn, "neuron-sdk", sdk["version"]).items():
        words = [w for w in re.findall(r"[a-z0-9]+", name.lower()) if w not in _NOT_DISTINCT]
        if words and all(f" {w} " in said for w in words):
            found.append(f"**{name} {version}** ships in Neuron SDK {sdk['version']}"
                         f"{' (released ' + sdk['date'] + ')' if sdk.get('date') else ''} {src.cite(sdk)}.")
            facts.append({"product": name, "version": version, "sdk_version": sdk["version"]})
    return found + [""] if found else []


# "is torchneuron still beta?", "¿torch_tpu sigue en preview?": the channel a release is published in
_MATURITY = re.compile(r"\b(?:still|yet|sigue|todav[ií]a|a[uú]n)\b[^?]{0,20}\b(beta|alpha|preview|experimental)\b", re.I)


# "which TorchTPU versions do we have data for?", "¿qué versiones de torch_tpu hay en el KB?" (r11 q42)
VERSIONS_ASKED = re.compile(r"\b(?:which|what|list|all|the)\b[^?]{0,25}\b(?:versions|releases)\b(?![^?]{0,12}\bof (?:python|pytorch|torch|"
                            r"ubuntu)\b)|\b(?:versions|releases)\b[^?]{0,40}\b(?:do we have|does the kb have|in the kb|data)\b", re.I)
_PRODUCT_TARGET = {"torch_tpu": "tpu", "torchneuron": "neuron", "torch-neuronx-xla": "neuron-xla", "torch-neuron": "inf1"}


def _versions_with_data(conn: sqlite3.Connection, q: Question, product: str, facts: list[dict[str, Any]]) -> list[str]:
    """Which versions of a backend the KB holds op verdicts for, when the question asks its versions
    (the column `kb targets` prints), beside the latest release."""
    target = _PRODUCT_TARGET.get(product)
    if target is None or not VERSIONS_ASKED.search(q.text):
        return []
    with_data = sorted(queries.target_versions_with_data(conn, target), key=queries.version_key)
    if not with_data:
        return []
    facts.append({"target": target, "versions_with_data": with_data})
    return [f"Versions of {target} with op verdicts in the KB: **{', '.join(with_data)}** (`kb targets`)."]


def _first_release(conn: sqlite3.Connection, q: Question, product: str, src: Sources) -> list[str]:
    """"What's new in torchao-neuron? is it new?": whether the product's newest release is also
    its first one the KB knows (every release of it ships in one Neuron SDK), said first."""
    known = [r for r in releases.releases(conn, product) if "dev" not in r["version"]]
    if not known:
        return []
    first = min(known, key=lambda r: queries.version_key(r["version"]))
    if len({r.get("sdk_version") or r["version"] for r in known}) > 1:
        return []
    es = getattr(q, "language", "en") == "es"
    sdk = f" (Neuron SDK {first['sdk_version']}, {first.get('date') or '?'})" if first.get("sdk_version") else ""
    return [(f"**Sí, es nuevo** — {product} {first['version']}{sdk} es la primera versión que el KB conoce "
             if es else f"**Yes, it is new** — {product} {first['version']}{sdk} is the first release the KB knows ")
            + src.cite(first) + ".", ""]


def _release_detail(conn: sqlite3.Connection, q: Question, r: dict[str, Any], asked: list[str], src: Sources) -> str:
    cite = src.cite(r)
    ships = _ships_line(r)
    lines = [f"{_release_head(r)}{': ' + ships if ships else ''} {cite}"]
    if r.get("note") and (not ships or NEWS_ASKED.search(q.text)):  # "what's new in torchao-neuron?": its note says
        lines.append(f"  - {quoted(r['note'])}")
    if not r.get("date") and r["product"] == "neuron-sdk":
        parts = releases.in_sdk(conn, r["version"])
        dated = sorted({c["date"] for c in parts if c.get("date")})
        if dated:
            lines.append(f"  - no date on the SDK row; the packages it ships are dated {', '.join(dated)} "
                         f"{src.cite(next(c for c in parts if c.get('date')))}")
    for key, label, words in (("python_versions", "Python", ("python",)), ("torch_versions", "PyTorch", ("pytorch",))):
        want = _asked_version_in(q, words)
        if want and r.get(key):
            ok = any(v == want or v.startswith(want + ".") or want.startswith(v + ".") for v in r[key])
            lines.insert(0, f"**{'Yes' if ok else 'No'}** — {r['product']} {r['version']} lists {label} "
                            f"{', '.join(r[key])} {cite}.")
        elif want and (spec := _spec_in_note(r.get("note"), label)) and _in_spec(want, spec) is not None:
            ok = _in_spec(want, spec)  # s8c-intent3: "Requires-Python >=3.11" decides Python 3.10 (r14 q31)
            lines.insert(0, f"**{'Yes' if ok else 'No'}** — {r['product']} {r['version']} requires {label} {spec}"
                            f" ({label} {want} is {'inside' if ok else 'outside'} that range) {cite}.")
        elif want and not r.get(key):
            lines.append(f"  - the registry lists no {label} versions for this release: unknown whether {label} "
                         f"{want} is supported (`kb ingest --all` reads the support matrices).")
    for key, label in SHIPS:
        wanted = {"torch_versions": "torch", "python_versions": "python", "os": "os", "instance_families": "instances"}[key]
        if wanted in asked and not r.get(key) and not r.get("note"):
            lines.append(f"  - the registry has no {label} list for this release")
    lines += [_conflict_line(c, q.text) for c in r.get("conflicts") or []]
    return "\n".join(lines)


_FIELD_LABELS = {"instance_families": "instances", "components": "package versions", "torch_versions": "PyTorch versions",
                 "python_versions": "Python versions", "date": "date", "os": "OS"}
MAX_COMPONENTS_SHOWN = 4


def _conflict_line(conflict: dict[str, Any], question: str) -> str:
    """What another source gives for a field of a release, in words: a list as its items, a package table as the
    packages the question names (else its first few and how many), never a raw dict (r24 q45)."""
    value = conflict["value"]
    label = _FIELD_LABELS.get(conflict["field"], conflict["field"])
    if isinstance(value, dict):
        named = [k for k in value if re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", question, re.I)]
        shown = named or list(value)[:MAX_COMPONENTS_SHOWN]
        said = ", ".join(f"{k} {value[k]}" for k in shown)
        if len(shown) < len(value):
            said += f" (and {len(value) - len(shown)} more)"
    elif isinstance(value, list):
        said = ", ".join(str(v) for v in value)
    else:
        said = str(value)
    return f"  - ⚠ another source gives {label}: {said} ({conflict.get('source_url') or 'no URL'})"


_NOTE_SPECS = {"Python": re.compile(r"\bRequires-Python\s*([<>=!~][^;\s]+)", re.I),
               "PyTorch": re.compile(r"\brequires torch\s*([<>=!~][\d.]+(?:,[<>=!~]+[\d.]+)*)", re.I)}


def _spec_in_note(note: str | None, label: str) -> str | None:
    """The version range a release's own note states ("Requires-Python >=3.11", "requires torch >=2.11.0,<=2.15.0"),
    which answers "does Python 3.10 work?" where the registry lists no versions."""
    m = _NOTE_SPECS[label].search(note or "")
    return m.group(1) if m else None


def _in_spec(version: str, spec: str) -> bool | None:
    """Whether a version is inside a stated range; None when either cannot be read."""
    try:
        from packaging.specifiers import SpecifierSet
        return SpecifierSet(spec).contains(version, prereleases=True)
    except Exception:  # noqa: BLE001 - an unreadable range or version says nothing
        return None


ASPECT_KEYS = {"instances": ("instance_families", "instances"), "os": ("os", "OS"), "python": ("python_versions", "Python"),
               "torch": ("torch_versions", "PyTorch")}


# OS families people name; a platform row's feature names the release ("platform: Ubuntu 24.04").
OS_FAMILIES = {"ubuntu": "Ubuntu", "amazon linux": "Amazon Linux", "al2023": "Amazon Linux", "al2": "Amazon Linux",
               "rocky": "Rocky", "rhel": "RHEL", "debian": "Debian"}
_STATUS_ES = {"supported": "soportada", "end of support": "fin de soporte", "not supported": "no soportada",
              "deprecated": "obsoleta", "ending": "terminando"}


def _os_family_head(conn: sqlite3.Connection, q: Question, rows: list[dict[str, Any]], src: Sources,
                    facts: list[dict[str, Any]]) -> str | None:
    """The platform rows of an OS family the question names ("Ubuntu"), for the Neuron SDK release
    asked (or the one the asked package ships in), as the headline: each version with its status
    and the record's note, statuses in the question's language. None when no row names the family."""
    text = q.text.lower()
    family = next((label for word, label in OS_FAMILIES.items() if re.search(rf"\b{word}\b", text)), None)
    if family is None:
        return None
    sdks = {r["version"] if r.get("product") == "neuron-sdk" else r.get("sdk_version") for r in rows} - {None}
    stated = [dict(r) for r in conn.execute(
        "SELECT l.feature, l.status, l.note, l.source_kind, l.source_name, l.source_url, l.retrieved_at, r.version "
        "FROM limitation l JOIN release r ON r.id = l.release_id WHERE l.feature LIKE ? AND r.product = 'neuron-sdk'",
        (f"platform: {family}%",))]
    found = [r for r in stated if r["version"] in sdks]
    es = getattr(q, "language", "en") == "es"
    presumed = ""
    if not found and len(sdks) == 1 and stated:
        # "which ubuntu does neuron support?" of 2.34, which states no matrix: the last one stated, said to be presumed
        asked = next(iter(sdks))
        older = [r["version"] for r in stated if queries.version_key(r["version"]) < queries.version_key(asked)]
        if older:
            last = max(older, key=queries.version_key)
            found, sdks = [r for r in stated if r["version"] == last], {last}
            presumed = (f"_Neuron {asked} no declara matriz propia; se presume la de {last}._ " if es else
                        f"_Neuron {asked} states no matrix of its own; {last}'s is presumed._ ")
    if not found:
        return None
    parts = []
    for r in sorted(found, key=lambda r: queries.version_key(r["feature"].split()[-1])):
        status = _STATUS_ES.get(r["status"].lower(), quoted(r["status"])) if es else r["status"]
        note = f" ({quoted(r['note'])})" if r.get("note") else ""
        parts.append(f"**{r['feature'].split(':', 1)[1].strip()}**: {status}{note} {src.cite(r)}")
        facts.append({"feature": r["feature"], "status": r["status"], "sdk": r["version"], "source_url": r["source_url"]})
    where = ", ".join(sorted(sdks, key=queries.version_key))
    intro = f"{family} en el Neuron SDK {where}" if es else f"{family} in Neuron SDK {where}"
    return f"{presumed}{intro}: " + "; ".join(parts) + "."


def _torch_asked(q: Question, facts: list[dict[str, Any]]) -> str:
    """"Does Neuron 2.34 ship a TorchNeuron build for torch 2.13?": a direct word first. Yes when a
    package the answer lists is for that PyTorch line; otherwise unknown, not no: the registry
    holds what the stored pages state, and a page may be missing (29o)."""
    if not intents.asks_yes_no(q.text):
        return ""
    asked = [v for p, v in q.products if p == "pytorch" and v]
    listed = [v for f in facts for v in (f.get("torch_versions") or [])]
    if not asked or not listed:
        return ""
    es = getattr(q, "language", "en") == "es"
    out = []
    for v in asked:
        if any(same_line(v, x) for x in listed):
            out.append(f"**{'Sí' if es else 'Yes'}** — PyTorch {v}. ")
        else:
            out.append((f"**Desconocido** — ningún paquete registrado de esta versión es para PyTorch {v}; solo para "
                        f"{', '.join(dict.fromkeys(listed))}. ") if es else
                       (f"**Unknown** — no package the KB records for this release is for PyTorch {v}; only "
                        f"{', '.join(dict.fromkeys(listed))}. "))
    return "".join(out)


def _instances_left_out(text: str, facts: list[dict[str, Any]]) -> str:
    """" Trn1: not listed, so not supported by this release." for an instance family the question
    names ("¿Trn1 también?") that the instances the answer lists leave out (29o)."""
    listed = {v.lower() for f in facts for v in (f.get("instance_families") or [])}
    if not listed:
        return ""
    asked = dict.fromkeys(m.lower() for m in re.findall(r"\b(trn[123]|inf[12])\b", text, re.I))
    out = [a for a in asked if a not in listed]
    return "".join(f" **{a.capitalize()}: no** — not among them, so not supported by this release." for a in out)


def _carried_aspects(conn: sqlite3.Connection, product: str, rows: list[dict[str, Any]], asked: list[str], src: Sources,
                     facts: list[dict[str, Any]]) -> tuple[str, list[str], list[dict[str, Any]]] | None:
    """"Which instances does TorchNeuron support?" when the newest release lists none: the
    newest release of the product that does, named as such, as the headline."""
    if not rows:
        return None
    heads, more, used = [], [], []
    for aspect in asked:
        if aspect not in ASPECT_KEYS:
            continue
        key, label = ASPECT_KEYS[aspect]
        if any(r.get(key) for r in rows):
            continue
        parts = [c for c in releases.in_sdk(conn, rows[0]["version"]) if c.get(key)] if product == "neuron-sdk" else []
        if parts:  # the SDK row lists none, its own packages do: theirs, never an older SDK's (tester t29 #7)
            values = sorted({v for c in parts for v in c[key]}, key=queries.version_key)
            cites = " ".join(dict.fromkeys(src.cite(c) for c in parts))
            names_ = ", ".join(f"{c['product']} {c['version']}" for c in parts)
            heads.append(f"{label[0].upper()}{label[1:]}: **{', '.join(values)}** — as listed by the packages of Neuron SDK "
                         f"{rows[0]['version']} ({names_}) {cites}")
            facts.append({"product": "neuron-sdk", "version": rows[0]["version"], key: values,
                          "note": f"{label} of the packages it ships"})
            continue
        older = next((r for r in releases.releases(conn, product) if r.get(key) and r.get("channel") != "pre-release"),
                     None)
        if older is None:
            continue
        cite = src.cite(older)
        sdk = f" (Neuron SDK {older['sdk_version']})" if older.get("sdk_version") else ""
        heads.append(f"{label[0].upper()}{label[1:]}: **{', '.join(older[key])}** — as listed for {product} {older['version']}{sdk}, the newest "
                     f"release that lists them; {rows[0]['product']} {rows[0]['version']} lists none {cite}")
        more.append(f"- {_release_head(older)}: {_ships_line(older)} {cite}")
        facts.append({**_release_fact(older), "note": f"newest release listing {label}"})
        used.append(older)
    if not heads:
        return None
    return ". ".join(heads) + ".", more, used


def _platform_limits(conn: sqlite3.Connection, rows: list[dict[str, Any]], src: Sources,
                     facts: list[dict[str, Any]]) -> list[str]:
    """Platform rows of the limitation table (Trn1 not supported, Ubuntu 22.04 ending...)
    for the Neuron SDK the asked TorchNeuron release ships in."""
    sdks = {r["sdk_version"] for r in rows if r.get("sdk_version")}
    out = []
    for row in conn.execute("SELECT l.feature, l.status, l.note, l.source_kind, l.source_name, l.source_url, l.retrieved_at, "
                            "r.version FROM limitation l JOIN release r ON r.id = l.release_id "
                            "WHERE l.feature LIKE 'platform:%' AND r.product = 'neuron-sdk'"):
        row = dict(row)
        if row["version"] in sdks:
            out.append(f"- {row['feature']}: {row['status']}" + (f" — {quoted(row['note'])}" if row["note"] else "")
                       + f" {src.cite(row)}")
            facts.append({"feature": row["feature"], "status": row["status"], "source_url": row["source_url"]})
    return out


# ---------------------------------------------------------------- version comparisons


def _versions_for(conn: sqlite3.Connection, q: Question) -> tuple[str, list[str]] | None:
    """(target, versions asked in order) for a diff question."""
    target = q.target_names()[0] if q.target_names() else None
    if target is None:
        return None
    versions = [m.version for m in q.targets if m.target == target and m.version]
    for v in q.versions:
        if v not in versions and re.match(r"^\d+\.\d+", v):
            versions.append(v)
    return target, versions


def _pick(conn: sqlite3.Connection, target: str, version: str) -> tuple[str | None, str]:
    pick = pick_versions(conn, TargetMention(target, version))
    with_data = [v for v in pick.versions if v in pick.with_data]
    return (with_data[-1] if with_data else None), pick.label


def diff_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    found = _versions_for(conn, q)
    if found is None:
        return Answer(q.text, "diff", "Which target? Ask e.g. `what changed between tpu 0.1.1 and 0.2.0`.",
                      [{"status": UNKNOWN}])
    target, asked = found
    with_data = sorted(queries._release_versions(conn, target), key=queries.version_key)
    picked: list[str] = []
    for version in asked[:2]:
        chosen, label = _pick(conn, target, version)
        if chosen is None:
            src = Sources()
            for r in conn.execute("SELECT DISTINCT s.source_kind, s.source_name, s.source_url, s.probe_run_id, "
                                  "s.retrieved_at FROM support s JOIN release r ON r.id = s.release_id WHERE s.target = ? "
                                  "AND r.version = ? LIMIT 2", (target, with_data[-1] if with_data else None)):
                src.cite(dict(r))
            return Answer(q.text, "diff", f"**Unknown** — the KB has no verdicts for {target} {label} (versions with "
                          f"data: {', '.join(with_data) or 'none'}, newest cited below). `{verdict.settle(target)}` on "
                          "that version would record them." + src.markdown(),
                          [{"target": target, "backend_version": version, "status": UNKNOWN}], src.items)
        picked.append(chosen)
    if len(picked) == 1:  # "what's new in tpu 0.2.0": against the version before it
        older = [v for v in with_data if queries.version_key(v) < queries.version_key(picked[0])]
        if not older:
            return Answer(q.text, "diff", f"**Unknown** — {target} {picked[0]} is the oldest version with verdicts "
                          f"(versions with data: {', '.join(with_data)}); nothing to compare it with.",
                          [{"target": target, "status": UNKNOWN}])
        picked.insert(0, older[-1])
    old, new = sorted(picked[:2], key=queries.version_key)
    mode = "compile" if "compile" in q.text.lower() else "eager"
    result = queries.diff(conn, target, old, new, mode)
    fams = families.families_in(q.text)
    scope = ""
    if fams:
        ops = set(families.family_ops(conn, fams[0].name))
        for key in ("gained", "lost", "changed"):
            result[key] = [r for r in result[key] if r["op"] in ops]
        scope = f" in the {fams[0].name} family"
    g, lo, ch = result["gained"], result["lost"], result["changed"]
    lines = [f"**{target} {old} → {new}** ({mode}){scope}: **{len(g)}** kernels gained, **{len(lo)}** lost, "
             f"**{len(ch)}** other changes of where an op runs."]
    lines += [f"_{n}._" for n in result["basis_notes"]]
    for title, rows in (("Gained a kernel", g), ("Lost a kernel", lo), ("Runs elsewhere now", ch)):
        if not rows:
            continue
        lines.append(f"{title}:")
        for r in rows[:MAX_LIST if title != "Runs elsewhere now" else 8]:
            lines.append(f"- `{r['op']}`: {SYMBOLS.get(r['old_runs'], '?')} {r['old_runs']} → "
                         f"{SYMBOLS.get(r['new_runs'], '?')} {r['new_runs']} ({r['old_basis'] or 'no verdict'} → "
                         f"{r['new_basis'] or 'no verdict'})")
        shown = MAX_LIST if title != "Runs elsewhere now" else 8
        if len(rows) > shown:
            lines.append(f"_…{len(rows) - shown} more: `kb diff {target} {old} {new}`._")
    src = Sources()
    for version in (old, new):
        for r in conn.execute("SELECT DISTINCT s.source_kind, s.source_name, s.source_url, s.probe_run_id, s.retrieved_at "
                              "FROM support s JOIN release r ON r.id = s.release_id WHERE s.target = ? AND r.version = ? "
                              "AND s.mode = ? ORDER BY s.source_kind LIMIT 4", (target, version, mode)):
            src.cite(dict(r))
    facts = [{"target": target, "old": old, "new": new, "mode": mode, "gained": len(g), "lost": len(lo),
              "changed": len(ch), "family": fams[0].name if fams else None}]
    facts += [{"op": r["op"], "change": kind, "old": r["old_runs"], "new": r["new_runs"]}
              for kind, rows in (("gained", g), ("lost", lo), ("changed", ch)) for r in rows]
    return Answer(q.text, "diff", "\n".join(lines) + src.markdown(), facts, src.items)
