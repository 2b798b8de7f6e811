"""End-of-support questions in chat, answered through kb.eol.windows: stack checks
("is python 3.10 supported on neuron 2.33?"), product listings ("when does nxd inference
end?"), and for PyTorch versions the release lines that list them. Falls back to the raw
supportwindow rows in a checkout without kb.eol.windows.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from kb.chat import entities, intents
from kb.chat.intents import Question
from kb.chat.oplookup import same_line
from kb.chat.reply import MAX_LIST, Answer, Sources, quoted
from kb.store import queries, releases
from kb.vocab import UNKNOWN


def support_windows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every end-of-support window; kb.eol.windows's evaluated windows when that module exists."""
    try:
        from kb.eol import windows as eol
    except ImportError:  # a checkout without kb.eol.windows: the raw statements, newest last
        eol = None
    if eol is not None:
        return eol.current_windows(conn, eol.today())
    rows = conn.execute("SELECT * FROM supportwindow ORDER BY product, cycle, statement_date")
    return [dict(r) for r in rows]


def _window_text(w: dict[str, Any]) -> str:
    """One line in words: when (announced/projected/with release X), whether already over.
    Reads kb.eol.windows's evaluated windows (eol_from, state, is_eol) or raw supportwindow rows."""
    day = w.get("eol_from") or w.get("eol")
    if day:
        when = f"end of life {day}"
        if w.get("state") or w.get("eol_kind"):
            when += f" ({w.get('state') or w['eol_kind']})"
    elif w.get("eol_release"):
        when = w.get("state") or f"ends with release {w['eol_release']} (no date yet)"
    else:
        when = w.get("state") or "no end date stated"
    if w.get("support_end"):
        when = f"active support until {w['support_end']}, " + when
    if w.get("is_eol") is True:
        when += " — **already ended**"
    return when


def _eol_fact(w: dict[str, Any]) -> dict[str, Any]:
    fact = {k: w.get(k) for k in ("product", "cycle", "eol_kind", "eol_release", "support_end", "is_eol",
                                  "eol_from", "status", "title", "source_url")}
    fact["eol"] = w.get("eol_from") or w.get("eol")
    return fact


def quote_notes(message: str, facts: list[dict[str, Any]]) -> str:
    """kb.eol's message with the platform matrix rows' notes it carries marked as quotes of the
    record (kb.chat.reply.quoted): a Spanish answer keeps them as recorded, in quotation marks."""
    for f in facts:
        if f.get("note") and f"({f['note']})" in message:
            message = message.replace(f"({f['note']})", f"({quoted(f['note'])})")
    return message


def _window_lines(windows: list[dict[str, Any]], src: Sources, *, bold: bool = True, notes: bool = False) -> list[str]:
    """One line per statement: windows sharing a title (one page naming cycles 2.7 and 2.8) are merged."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for w in windows:
        title = w.get("title") or f"{w.get('product_label') or w['product']} {w['cycle']}"
        grouped.setdefault(title, []).append(w)
    lines = []
    for title, group in list(grouped.items())[:MAX_LIST]:
        w = group[0]
        cycles = f" (cycles {', '.join(str(g['cycle']) for g in group)})" if len(group) > 1 else ""
        note = f" — {quoted(w['note'])}" if notes and w.get("note") else ""
        name = f"**{title}**" if bold else title
        lines.append(f"- {name}{cycles}: {_window_text(w)}{note} {src.cite(w)}")
    return lines


def _stack_pairs(q: Question) -> list[tuple[str, str]]:
    """(product, version) pairs named in the question, as kb.eol.windows stack items:
    "PyTorch 2.9 on neuron 2.33" → [("pytorch", "2.9"), ("neuron", "2.33")]."""
    pairs = [(p, v) for p, v in q.products if v]
    for mention in q.targets:
        if mention.version and mention.target in ("neuron", "tpu", "neuron-xla"):
            key = {"neuron": "neuron", "tpu": "torch_tpu", "neuron-xla": "torch-neuronx-xla"}[mention.target]
            if not any(v == mention.version for _, v in pairs):
                pairs.append((key, mention.version))
    if pairs:  # "... and trn1": the instance family is part of the stack (kb eol --stack takes it bare)
        pairs += [("instance", p) for p, v in q.products if not v and p in ("inf1", "inf2", "trn1", "trn2", "trn3")]
    return list(dict.fromkeys(pairs))


def _on_neuron(conn: sqlite3.Connection, q: Question, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """"Until when is Ubuntu 22.04 supported on Neuron?", "is Python 3.12 still supported?": a
    platform version with no Neuron release named is checked against the newest Neuron SDK
    release in the KB, so Neuron's own support (its matrix: 2.34 lists Python 3.12-3.14) comes
    before the platform's upstream date (tester t29 #6/#7)."""
    platforms = [p for p, _ in pairs if p in ("python", "ubuntu", "amazon-linux")]  # PyTorch: its own stack answer
    names = q.target_names()
    if names == ["neuron"] and any(p == "pytorch" for p, _ in pairs):
        platforms.append("pytorch")  # "when does PyTorch 2.9 leave support on Neuron?": Neuron's matrix too (attacker s11)
    if not platforms or any(p in ("neuron", "torch_tpu", "torch-neuronx-xla") for p, _ in pairs):
        return pairs
    if names and names != ["neuron"]:
        return pairs
    newest = releases.latest(conn, "neuron-sdk")
    if not newest:
        return pairs
    return [*pairs, ("neuron", ".".join(newest["version"].split(".")[:2]))]


def _own_release_rows(conn: sqlite3.Connection, eol: Any, windows: list[dict[str, Any]],
                      pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """`kb eol`'s row for a package release the question names ("torchneuron 2.14.3.1: release date
    not stated; no end of support stated"), with the page where such a date would be stated."""
    from kb.eol import products

    rows = eol.listed_windows(conn, windows, eol.today())
    return [w for w in rows if any(products.matches(p, w["product"]) and str(w["cycle"]) == v for p, v in pairs)]


def _package_pairs(conn: sqlite3.Connection, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """"TorchNeuron 2.14.3.1" names the package, not a Neuron SDK release: a neuron version the
    registry has as a torchneuron version and not as an SDK one is checked as torchneuron, so the
    statements shown beside an unknown end are that package's, not every Neuron notice (29o)."""
    return [("torchneuron", v) if p == "neuron" and releases.find(conn, "torchneuron", v)
            and not releases.find(conn, "neuron-sdk", v) else (p, v) for p, v in pairs]


def _dlami_windows(conn: sqlite3.Connection, eol: Any, pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The Neuron DLAMI's own end for an Ubuntu release the question names (`kb eol` lists it as
    neuron-dlami ubuntu-22.04), beside Neuron's matrix and Ubuntu's own date."""
    cycles = {f"ubuntu-{v}" for p, v in pairs if p == "ubuntu" and v}
    from kb.eol import products

    if not cycles or eol.tpu_only([{"product": products.canonical(p), "version": v} for p, v in pairs]):
        return []  # "tpu 0.1.1 + ubuntu 22.04": Neuron's machine images are no part of a TPU stack (attacker s13)
    return [w for w in eol.current_windows(conn, eol.today()) if w["product"] == "neuron-dlami" and w["cycle"] in cycles]


def _ended_or_state(window: dict[str, Any]) -> str:
    """"already ended" for a date before today, else how the date is known (announced, projected...)."""
    from kb.eol import windows as eol
    return "already ended" if window["eol_from"] < eol.today().isoformat() else window["state"]


def _product_filter(q: Question) -> list[str]:
    """Product words that select windows when no version is given (nxd, python, neuron...)."""
    words = [p for p, v in q.products if not v]
    words += [w.lower() for w in q.plain_words if w.lower() in intents.PRODUCT_WORDS.values()]
    return list(dict.fromkeys(words))


def _within(conn: sqlite3.Connection, q: Question, days: int, eol: Any, src: Sources, product: str | None) -> Answer:
    """What reaches its end of support in the next `days` days (`kb eol --within`; of one product when one is named),
    and the next one after them."""
    from datetime import timedelta

    from kb.eol import products

    try:
        result = eol.listing(conn, product=product, within=timedelta(days=days))
    except eol.EolError:
        product, result = None, eol.listing(conn, within=timedelta(days=days))
    ahead = sorted((w for w in eol.current_windows(conn, eol.today()) if w["eol_from"]
                    and (product is None or products.matches(product, w["product"]))
                    and w["eol_from"] > (eol.today() + timedelta(days=days)).isoformat()), key=lambda w: w["eol_from"])
    windows, n, today = result["windows"], len(result["windows"]), result["today"]
    if getattr(q, "language", "en") == "es":
        head = (f"**{n}** fin{'es' if n != 1 else ''} de soporte en los {days} días desde {today}" if n else
                f"**Nada** llega a su fin de soporte en los {days} días desde {today}")
        after = "Lo siguiente: "
    else:
        head = (f"**{n}** end{'s' if n != 1 else ''} of support within {days} days of {today}" if n else
                f"**Nothing** reaches its end of support within {days} days of {today}")
        after = "Next after that: "
    lines = [head + f" (`kb eol{' ' + product if product else ''} --within {days}d`)" + (":" if windows else ".")]
    lines += _window_lines(windows, src)
    if ahead:
        lines.append(after + _window_lines(ahead[:1], src, bold=False)[0].removeprefix("- "))
    facts = [_eol_fact(w) for w in windows] + [{"within_days": days, "today": result["today"]}]
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), facts, src.items)


def _stack_within(windows: list[dict[str, Any]], days: int, today: Any, es: bool) -> str:
    """The headline of a stack asked over a horizon: what of it ends within `days` days, each with its date and how
    far off, or that nothing does (what has already ended is said apart)."""
    from datetime import date, timedelta

    start, horizon = today.isoformat(), (today + timedelta(days=days)).isoformat()
    inside = sorted((w for w in windows if w.get("eol_from") and start <= w["eol_from"] <= horizon),
                    key=lambda w: w["eol_from"])
    ended = [w for w in windows if w.get("eol_from") and w["eol_from"] < start]

    def said(w: dict[str, Any]) -> str:
        left = (date.fromisoformat(w["eol_from"][:10]) - today).days
        return (f"{w['product']} {w['cycle']} el {w['eol_from']} (en {left} días)" if es else
                f"{w['product']} {w['cycle']} on {w['eol_from']} ({left} days from today)")
    if inside:
        head = ((f"**Sí** — dentro de los {days} días desde {start}: " if es else
                 f"**Yes** — within {days} days of {start}: ") + "; ".join(said(w) for w in inside) + ".")
    else:
        head = (f"**Nada de esta pila termina en los {days} días** desde {start}." if es else
                f"**Nothing in this stack ends within {days} days** of {start}.")
    if ended:
        head += (" Ya terminado: " if es else " Already ended: ") + "; ".join(
            f"{w['product']} {w['cycle']} ({w['eol_from']})" for w in ended) + "."
    return head


def eol_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    try:
        from kb.eol import products
        from kb.eol import windows as eol
    except ImportError:  # a checkout without kb.eol.windows: raw statements only
        return _eol_raw(conn, q)
    src = Sources()
    pairs = _stack_pairs(q)
    days = entities.horizon_days(q.text, eol.today().isoformat())
    if days and not pairs and len(_product_filter(q)) <= 1:  # "qué se nos acaba en los próximos 6 meses?" (r26 q32)
        return _within(conn, q, days, eol, src, next(iter(_product_filter(q)), None))
    sdk_only = [v for p, v in pairs if p == "neuron"]
    if pairs and len(sdk_only) == len(pairs) == 1 and intents.release_ends(q.text.lower()) \
            and not releases.find(conn, "torchneuron", sdk_only[0]):  # an SDK release, not a package version
        return _release_ends(conn, q, sdk_only[0], eol, src)  # "what does Neuron 2.34 end or deprecate?"
    pairs = _package_pairs(conn, pairs)
    asked_pairs = list(pairs)
    pairs = _on_neuron(conn, q, pairs)
    if pairs:
        stack = " ".join(f"{p}={v}" for p, v in pairs)
        try:
            result = eol.check_stack(conn, stack)
        except eol.EolError as exc:
            return Answer(q.text, "eol", f"**Unknown** — {exc}.", [{"stack": stack, "status": UNKNOWN}])
        added = [f"{p}={v}" for p, v in pairs if (p, v) not in asked_pairs]
        lines = [f"Stack `{stack}`" + (f" ({', '.join(added)}: the newest release, as the question names none)"
                                       if added else "") + ":"]
        lines += _window_lines(result["windows"], src)
        dlami = _dlami_windows(conn, eol, pairs)  # "ubuntu-22.04 ended 2026-05-21" in kb eol's neuron-dlami rows
        lines += _window_lines(dlami, src)
        result["windows"] = result["windows"] + dlami
        # the stack's first end is `kb eol --stack`'s; a DLAMI that ended sooner is said beside it, since the
        # stack names an Ubuntu release, not Neuron's machine image of it
        dlami_sooner = [w for w in dlami if w["eol_from"] and result.get("first_eol")
                        and w["eol_from"] < result["first_eol"]["eol_from"]]
        earliest: dict[str, dict[str, Any]] = {}
        for issue in result["issues"]:  # one "⚠ ended" per component: the soonest (the windows above date each)
            if issue["kind"] == "ended":
                have = earliest.get(issue["component"])
                if have is None or (issue.get("eol_from") or "9") < (have.get("eol_from") or "9"):
                    earliest[issue["component"]] = issue
        by_url = {w.get("source_url"): w for w in result["windows"] if w.get("source_url")}
        for issue in result["issues"]:
            if issue["kind"] == "ended" and earliest.get(issue["component"]) is not issue:
                continue
            # the statement the issue rests on, cited as itself (python.org's devguide is no Neuron support matrix)
            row = by_url.get(issue.get("source_url")) or {"source_kind": "doc", "source_name": "support matrix",
                                                           "source_url": issue.get("source_url")}
            cite = " " + src.cite(row) if issue.get("source_url") else ""
            message = quote_notes(issue["message"], eol.load_platform_facts(conn))
            lines.append(f"- ⚠ {issue_text(issue['kind'], message, getattr(q, 'language', 'en') == 'es')}{cite}")
        related: list[dict[str, Any]] = []
        if not result["windows"] and not result["issues"]:
            named = ", ".join(f"{p} {v}" for p, v in pairs)
            lines = [f"**Unknown** — the KB has no end-of-support statement for {named}."]
            lines += _torch_in_releases(conn, q, src)
            if result["matrices_checked"]:
                lines.append(f"No conflict found in the support matrices of {', '.join(result['matrices_checked'])}.")
            related = [w for w in eol.current_windows(conn, eol.today())
                       if any(products.matches(p, w["product"]) for p, _ in pairs)]
            own = _own_release_rows(conn, eol, related, pairs)  # "release date not stated; no end of support stated"
            if own:
                lines += _window_lines(own, src, bold=False)
                lines.append(("- Donde el proveedor lo declararía: " if getattr(q, "language", "en") == "es"
                              else "- Where the vendor would state it: ")
                             + ", ".join(dict.fromkeys(w["source_url"] for w in own if w.get("source_url"))))
                related = own + related
            if related and len(related) > len(own):
                lines.append(f"Statements it has about other cycles of {', '.join(dict.fromkeys(p for p, _ in pairs))}:")
                lines += _window_lines(related, src, bold=False)
        elif result["first_eol"]:
            first = result["first_eol"]
            past = " **Already ended**." if _ended_or_state(first) == "already ended" else ""  # a past date says so
            lines.insert(0, f"First end of support in this stack: **{first['eol_from']}** ({first['product']} "
                            f"{first['cycle']}, {first['state']}).{past}" + "".join(
                                f" Sooner, if you use Neuron's machine images: {w['product']} {w['cycle']} "
                                f"**{w['eol_from']}** ({_ended_or_state(w)})." for w in dlami_sooner[:1]))
        if result["unknown"]:
            lines.append(f"- no source dates the end of support of {', '.join(result['unknown'])} (not verified)")
        head, matrix = _platform_matrix(conn, pairs, result, src)
        if head and _WHICH_PLATFORM.search(q.text):  # "neuron 2.33 q ubuntu soporta? tengo el 24.04": every one listed
            matrix = matrix + _every_platform(conn, pairs, src)
        own_head = upstream_head(q, asked_pairs, result["windows"]) if intents.asks_upstream(q.text) else None
        if own_head and head and neuron_first(q.text):
            # "is Python 3.10 ok on Neuron? what about upstream?": the answers in the order asked (r11 q27)
            head = head + "\n\n" + _upstream_said(own_head, getattr(q, "language", "en") == "es")
        elif own_head:  # "Ubuntu 22.04 itself": its own end of life first, Neuron's support of it after (29r)
            head = own_head + ("\n\n" + _neuron_said(head, getattr(q, "language", "en") == "es") if head else "")
        if len(pairs) > 1 and _ANYTHING.search(q.text):
            # "is anything out of support or ending soon?": the stack as a whole answers first (r12 q31)
            es = getattr(q, "language", "en") == "es"
            head = _anything_head(result, es) + (f"\n{'Cada parte' if es else 'Each part'}: {head}" if head else "")
        conflicts = [i for i in result["issues"] if i["kind"] in ("incompatible", "ended")]
        if not head and not conflicts and result["matrices_checked"] and _FITS_ASKED.search(q.text):
            # "torch_tpu 0.2.0 con python 3.12 y torch 2.13, todo bien?": the check's own verdict first (attacker s13)
            es = getattr(q, "language", "en") == "es"
            checked = ", ".join(result["matrices_checked"])
            head = (f"**Encaja** — sin conflictos con las matrices de soporte de {checked}." if es else
                    f"**Fits** — no conflict with the support matrices of {checked}.")
        needs = [i["requires"] for i in result["issues"] if i.get("requires")]
        if needs:  # "torch_tpu 0.2.0 needs what python/torch? i got py3.10 and torch 2.9": it does not fit, first (r27 q44)
            es = getattr(q, "language", "en") == "es"
            said = "; ".join((f"{n['package']} requiere {n['product']} {n['spec']}, no {n['have']}" if es else
                              f"{n['package']} requires {n['product']} {n['spec']}, not {n['have']}") for n in needs)
            head = ("**No encaja** — " if es else "**Does not fit** — ") + said + "." + (f"\n\n{head}" if head else "")
        if days:  # "anything in this stack hitting EOL in the next 6 months? `neuron=2.34 …`" (r30 q27)
            head = _stack_within(result["windows"], days, eol.today(), getattr(q, "language", "en") == "es") \
                + (f"\n\n{head}" if head else "")
        if result["first_eol"] and result["windows"] and _FIRST_ASKED.search(q.text):
            # "what leaves support first?": the stack's first end of support is the answer, so it leads
            lines = [lines[0], ""] + ([head, ""] if head else []) + lines[1:] + matrix
        else:
            lines = ([head, ""] if head else []) + lines + matrix
        facts = [_eol_fact(w) for w in result["windows"]] + [
            {"issue": i["kind"], "message": i["message"], "source_url": i.get("source_url")} for i in result["issues"]]
        if not facts:  # the other cycles' statements shown are facts too: their titles are quoted records (29l)
            facts = [{"stack": stack, "status": UNKNOWN}] + [_eol_fact(w) for w in related[:MAX_LIST]]
        return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), facts, src.items)
    words = _product_filter(q)
    if any(w in XLA_WORDS for w in words) or re.search(r"pytorch[/ ]xla|torch[-_]xla", q.text.lower()):
        # "PyTorch/XLA inference on Trn2": the XLA package line; the instance and use words narrow its cycles
        words = ["torch-neuronx-xla"]
    windows = eol.current_windows(conn, eol.today())
    hits = [w for w in windows if any(products.matches(word, w["product"]) for word in words)] if words else []
    named = named_windows(q.text, windows)  # "is vLLM V0 still supported?": the statement that names it
    # "Inf1 virtual envs and AMIs, when do they go EOL?": an instance family selects the packages that run
    # on it, but a statement naming the question's other words is what it asks about (29o)
    by_other_words = set(words) <= INSTANCE_WORDS and bool(named_windows(re.sub(INSTANCES, " ", q.text, flags=re.I),
                                                                         windows))
    if words and set(words) <= INSTANCE_WORDS and not by_other_words and not hits:
        return _instance_family_answer(q, words, named_windows(q.text, windows), src)
    if named and (not hits or set(words) <= GENERIC_PRODUCTS or by_other_words
                  or (len(named) < len(hits) and all(any(n is h for h in hits) for n in named))):
        return _named_answer(q, named, src)
    if not hits:
        return _eol_unknown(conn, q, [], windows)
    hits = _narrow(hits, q)
    outside = [w for w in words if w in ("python", "pytorch", "ubuntu")]
    if outside and {"neuron", "neuron-sdk"} & set(words) and _DROPPED.search(q.text) and not intents.asks_upstream(q.text):
        # "which python versions has the neuron sdk dropped and in which release?": Neuron's ends, not Python's own
        mine = [w for w in hits if eol.support_by(w) == "Neuron SDK" and any(products.matches(o, w["product"]) for o in outside)]
        if mine:
            hits, words = sorted(mine, key=lambda w: w.get("eol_from") or "9", reverse=True), outside
    newest_first = bool(hits) and hits[0].get("eol_from") and len(hits) > 1 and \
        (hits[0].get("eol_from") or "") > (hits[-1].get("eol_from") or "")
    head = _yes_no_head(q, hits)
    shown = _window_lines(hits, src, notes=True)  # one line per statement: windows sharing a title are one
    count = f"({len(shown)}, {'newest' if newest_first else 'soonest'} first)" if len(shown) > 1 else "(1)"
    lines = ([head, ""] if head else []) + [f"End-of-support statements for {', '.join(words)} {count}:"] + shown
    if len(hits) > MAX_LIST:
        lines.append(f"_…{len(hits) - MAX_LIST} more: `kb eol --product {words[0]}`._")
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), [_eol_fact(w) for w in hits], src.items)


# "does that stack fit?", "todo bien?", "sirve o no?", "ok?": whether the stack goes together
_FITS_ASKED = re.compile(r"\b(?:fits?|ok|okay|compatible|work together|go together|sane|sanity|todo bien|sirve|encaja|vale)\b",
                         re.I)


# "which python versions has the neuron sdk dropped": what a vendor ended, not the product's own end of life
_DROPPED = re.compile(r"\b(?:drop|dropp?(?:ed|s)?|removed?|ended|stopped supporting|deprecated?|retired?|no longer supports?)\b",
                      re.I)


# ---------------------------------------------------------------- a product or feature by name (29i)

# Product words that name a whole vendor, not one thing it ends: "vLLM V0 on Neuron" asks about vLLM V0.
GENERIC_PRODUCTS = {"neuron", "neuron-sdk", "tpu", "torch_tpu"}
# Words every statement shares (or a question's own grammar): they select nothing.
_COMMON = frozenset("""a an the of on in for to and or with by is are was were be been it its this that these those
still now yet already since when until how long will would does do did can could support supported supports
supporting end ends ended ending eol life no not longer announcing announcement upcoming starting start next release
releases version versions neuron sdk aws future coming deprecated deprecation deprecate deprecating removed remove
reach maintenance mode enters there any what which who i we my our you your me us mean ok okay fine alive""".split())
_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9+]|[a-z0-9]")


def _tokens(text: str) -> set[str]:
    """The words of a name or question, with hyphenated and dotted compounds also split
    ("transformers-neuronx" → itself, transformers, neuronx), so either spelling matches."""
    out: set[str] = set()
    for tok in _TOKEN.findall((text or "").lower().replace("_", "-")):
        out.add(tok)
        out.update(p for p in re.split(r"[-.]", tok) if p)
    return {t for t in out if t not in _COMMON}


def named_windows(question: str, windows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The end-of-support statements whose product, cycle or title name what the question
    names, scored by how rare each shared word is across all statements (an "-j" or "vllm"
    counts more than a "pytorch"); the best-scoring statements, or [] when none shares a
    distinctive word. A whole compound ("vllm-v0", "neuron-ls") shared counts double."""
    asked = _tokens(question)
    # "Inf1 DLAMIs" are Inf1's Deep Learning AMIs: the word also asks for the statements that say "AMIs" (29p)
    asked |= {"ami", "amis"} if asked & {"dlami", "dlamis"} else set()
    joined = re.sub(r"\s+", "-", (question or "").lower())  # "vllm v0" → "vllm-v0", matched as a compound
    if not asked or not windows:
        return []
    names = [_tokens(" ".join(str(w.get(k) or "") for k in ("product", "cycle", "title"))) for w in windows]
    df: dict[str, int] = {}
    for toks in names:
        for t in toks:
            df[t] = df.get(t, 0) + 1
    scored = []
    for w, toks in zip(windows, names):
        shared = asked & toks
        score = sum(len(windows) / df[t] for t in shared if not t.isdigit() or "." in t)
        score += sum(len(windows) / df[t] for t in toks if "-" in t and t in joined and t not in shared)
        rare = [t for t in shared if df[t] <= 3 and (not t.isdigit())]
        if rare:
            scored.append((score, w))
    if not scored:
        return []
    # an instance family named ("the Inf1 AMIs") narrows to the statements naming it, when one of them also
    # shares another distinctive word: the family is what the question is about, not a word among others
    family = asked & INSTANCE_WORDS
    if family:
        narrowed = [(s, w) for (s, w), toks in zip(scored, (_tokens(" ".join(str(w.get(k) or "") for k in (
            "product", "cycle", "title"))) for _, w in scored)) if family & toks and any(
            df[t] <= 3 and not t.isdigit() for t in (asked & toks) - family)]
        scored = narrowed or scored
    best = max(s for s, _ in scored)
    top = [(w, len(toks - asked)) for (s, w), toks in zip(scored, (_tokens(" ".join(str(w.get(k) or "") for k in (
        "product", "cycle", "title"))) for _, w in scored)) if s >= best * 0.999]
    top = [(w, len([t for t in extra_toks if t.isalpha()])) for w, extra_toks in (
        (w, _tokens(" ".join(str(w.get(k) or "") for k in ("product", "cycle", "title"))) - asked) for w, _ in top)]
    fewest = min(extra for _, extra in top)  # a tie: the statement with the fewest words the question lacks
    return [w for w, extra in top if extra == fewest]


def _instance_family_answer(q: Question, families: list[str], naming: list[dict[str, Any]], src: Sources) -> Answer:
    """"is trn1 going end of life? the instance family itself": the KB holds no support window of an instance family,
    so it says it does not know; the statements that name the family end something that runs on it, listed as such
    and never as the family's own end (r22 q27, r20 q32)."""
    es = getattr(q, "language", "en") == "es"
    names = ", ".join(f.capitalize() for f in families)
    head = (f"**Desconocido** — el KB no tiene ninguna fecha de fin de soporte de la familia de instancias {names} en sí; "
            "ningún proveedor la declara en sus fuentes." if es else
            f"**Unknown** — the KB has no end-of-support date for the {names} instance family itself; none of its "
            "sources states one.")
    lines = [head]
    if naming:
        lines += ["", (f"Lo que sí termina en {names} (software que corre en ella, no la familia):" if es else
                       f"What does end on {names} (software that runs on it, not the family):")]
        lines += _window_lines(naming, src, notes=True)
    facts = [{"instance_family": f, "status": UNKNOWN} for f in families] + [_eol_fact(w) for w in naming]
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), facts, src.items)


def _named_answer(q: Question, hits: list[dict[str, Any]], src: Sources) -> Answer:
    """One statement (or the few that tie) answered as itself: ended or not, when, with which
    release, and what replaces it where the statement says so (its note). Spanish is written
    here, not translated after: the statement's title stays quoted as recorded."""
    es = getattr(q, "language", "en") == "es"
    w = hits[0]
    what = quoted(w.get("title") or f"{w['product']} {w['cycle']}")
    release = f" (Neuron {w['eol_release']})" if w.get("eol_release") else ""
    yes_no = q.text.lower().lstrip().startswith(YES_NO)
    asks_ended = re.search(r"deprecat|\bended\b|remov|drop|\beol\b|end of (?:support|life)|no longer|retir|discontinu",
                           q.text.lower()) or _BREAKS.search(q.text)  # "is X deprecated?": yes means it has ended
    if w.get("is_eol") is True:
        word = ("Sí, terminó" if es else "Yes, it ended") if yes_no and asks_ended else \
            ("No" if yes_no else ("Ya terminó" if es else "Already ended"))
        head = (f"**{word}** — {what}: terminó el {w.get('eol_from') or '?'}{release}." if es else
                f"**{word}** — {what}: ended {w.get('eol_from') or '?'}{release}.")
    elif w.get("eol_from"):
        head = (f"**Sí, por ahora** — {what}: termina el {w['eol_from']}{release}." if es else
                f"**Yes, for now** — {what}: ends {w['eol_from']}{release}.")
    else:
        head = (f"**Sí, por ahora** — {what}: sin fecha de fin declarada{release}." if es else
                f"**Yes, for now** — {what}: {_window_text(w)}.")
    label = ("Declaraciones de fin de soporte que lo nombran:" if len(hits) > 1 else
             "La declaración de fin de soporte que lo nombra:") if es else \
        f"End-of-support statement{'s' if len(hits) > 1 else ''} naming it:"
    lines = [head, "", label] + _window_lines(hits, src, notes=True)
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), [_eol_fact(x) for x in hits], src.items)


# "will our exporter that reads neuron-ls -j keep working?", "¿va a seguir funcionando?", "is that going away?":
# whether a thing goes on working asks for its end of support, when the KB holds a statement naming the thing
_KEEPS = re.compile(r"\b(?:keep|keeps|still|continue|continues) (?:to )?work(?:ing)?\b|\bseguir[aá]? funcionando\b"
                    r"|\bsigue funcionando\b|\bva a funcionar\b", re.I)
# ...and whether it stops: a yes then means it has ended (or will)
_BREAKS = re.compile(r"\b(?:break|breaks|broken|stop(?:s)? working|go(?:es|ing)? away|be(?:ing)? removed|get(?:s)? removed"
                     r"|disappear\w*)\b|\bdej(?:a|ar[aá]?|ará|a de) (?:de )?funcionar\b|\bse romp\w*|\b(?:van a |lo )?quit(?:an|ar[aá]n?)\b"
                     r"|\bdesaparec\w*", re.I)


def asks_continuity(text: str) -> bool:
    """Whether a question asks if something keeps working or stops (breaks, goes away, is removed)."""
    return bool(_KEEPS.search(text) or _BREAKS.search(text))


def continuity_answer(conn: sqlite3.Connection, q: Question, original: str) -> Answer | None:
    """"our health check parses neuron-ls -j, will that break?": a question read as nothing else that asks
    whether a thing goes on working, about a thing one end-of-support statement names, is that statement's
    question; None when no statement names a distinctive word of it."""
    if q.op_words or q.function_words or not (asks_continuity(original) or asks_continuity(q.text)):
        return None
    try:
        from kb.eol import windows as eol
    except ImportError:
        return None
    named = named_windows(q.text, eol.current_windows(conn, eol.today()))
    return _named_answer(q, named, Sources()) if named else None


INSTANCE_WORDS = {"inf1", "inf2", "trn1", "trn2", "trn3"}
XLA_WORDS = ("xla", "torch-xla", "torch_xla", "neuron-xla", "torch-neuronx-xla")
USES = ("inference", "training")
INSTANCES = r"\b(trn[123]n?|inf[12])\b"
YES_NO = ("is ", "are ", "does ", "do ", "can ", "will ", "could ", "has ", "have ")


KIND_ES = {"unlisted": "no listado"}  # "ended" and the rest: kb.chat.spanish's glossary
_UNLISTED = re.compile(r"\bNeuron (\S+) lists (.+?) as supported; (\S+) is not listed\b")


def issue_text(kind: str, message: str, es: bool) -> str:
    """One stack finding as "kind: message"; in a Spanish answer the clause kb.eol.windows
    writes for a version its matrix does not list is written in Spanish here, where the line is
    made (m4 Q43), the rest left to kb.chat.spanish's glossary."""
    if not es:
        return f"{kind}: {message}"
    message = _UNLISTED.sub(r"la matriz de Neuron \1 lista como soportadas \2; \3 no figura en ella", message)
    return f"{KIND_ES.get(kind, kind)}: {message}"


def _narrow(hits: list[dict[str, Any]], q: Question) -> list[dict[str, Any]]:
    """Windows of the use (inference / training) and instance family (Trn2...) the question
    names, when any window names them; otherwise all of them."""
    text = q.text.lower()

    def said(w: dict[str, Any]) -> str:
        return f"{w['cycle']} {w.get('title') or ''}".lower()

    uses = [u for u in USES if u in text]
    # each use asked keeps its own windows ("training on trn1, and what about inference?": the training window
    # names no instance, and still answers the training half, r22 q26)
    groups = [g for g in ([w for w in hits if u in said(w)] for u in uses) if g] or [hits]
    instances = re.findall(INSTANCES, text)
    out: list[dict[str, Any]] = []
    for group in groups:
        if instances:
            group = [w for w in group if any(x in said(w) for x in instances)] or group
        out += [w for w in group if not any(w is o for o in out)]
    return out


def _yes_no_head(q: Question, hits: list[dict[str, Any]]) -> str | None:
    """"Is PyTorch/XLA inference still supported on Trn2?": No when every window asked about
    has ended, Yes-for-now when none has, and the date either way."""
    if not hits or not q.text.lower().lstrip().startswith(YES_NO):
        return None
    ended = [w for w in hits if w.get("is_eol") is True]
    first = hits[0]
    what = first.get("title") or f"{first['product']} {first['cycle']}"
    if len(ended) == len(hits):
        w = ended[0]
        return f"**No** — {w.get('title') or what}: ended {w.get('eol_from') or ''} ({w.get('state')})."
    if not ended:
        dated = [w for w in hits if w.get("eol_from")]
        w = dated[0] if dated else first
        return f"**Yes, for now** — none of these has ended; {w.get('title') or what}: {_window_text(w)}."
    return f"**Partly** — {len(ended)} of {len(hits)} statements have ended (listed below)."


def ends_with(conn: sqlite3.Connection, version: str, eol: Any) -> list[dict[str, Any]]:
    """Every support window that ends with Neuron `version`, or whose title names it."""
    windows = eol.current_windows(conn, eol.today())
    # s8c-intent3: the SDK release's own number "2.34.0" ends what a statement says "ends with 2.34" (r14 q41)
    line = re.sub(r"(?:\.0)+$", "", version) if re.fullmatch(r"\d+\.\d+(?:\.0)+", version) else version
    named = re.compile(rf"\bneuron {re.escape(line)}(?:\.0)?\b", re.I)
    return [w for w in windows if (w.get("eol_release") and same_line(line, str(w["eol_release"]))
                                   and (w.get("eol_release_product") or "neuron-sdk") == "neuron-sdk")
            or named.search(w.get("title") or "")]


def _release_ends(conn: sqlite3.Connection, q: Question, version: str, eol: Any, src: Sources) -> Answer:
    """What a Neuron SDK release ends: every window that ends with that release, and every
    statement whose title names it ("... starting with Neuron 2.34")."""
    hits = ends_with(conn, version, eol)
    if not hits:
        lines = [f"**Nothing the KB knows of** — no end-of-support statement names Neuron {version}."]
        lines += _window_lines(eol.current_windows(conn, eol.today())[:5], src, bold=False)
        return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), [{"release": version, "status": UNKNOWN}],
                      src.items)
    shipped = next((w.get("eol_from") for w in hits if w.get("eol_from")), None)
    head = (f"**Neuron {version} ends {len(hits)} thing{'s' if len(hits) != 1 else ''}**"
            + (f" (it shipped on {shipped}, so they have ended):" if shipped else ":"))
    lines = [head] + _window_lines(hits, src, notes=True)
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), [_eol_fact(w) for w in hits], src.items)


def upstream_head(q: Question, pairs: list[tuple[str, str]], windows: list[dict[str, Any]]) -> str | None:
    """The headline for "when does Ubuntu 22.04 itself reach end of life?": the upstream window of
    the platform the question names (its maintainers' date), whether it has passed, and where it
    is stated; None when the KB holds no upstream window for it."""
    es = getattr(q, "language", "en") == "es"
    asked = {(p, v) for p, v in pairs if p in PLATFORMS}
    own = [w for w in windows if w.get("scope") == "upstream"
           and any(w["product"] == p and same_line(v, str(w["cycle"])) for p, v in asked)]
    if not own:
        return None
    w = own[0]
    name = f"{w.get('product_label') or PLATFORMS.get(w['product'], w['product'])} {w['cycle']}"
    day = w.get("eol_stated") or w.get("eol_from")
    if w.get("is_eol") is True:
        return (f"**Ya terminó ({day})** — el fin de vida propio (upstream) de {name}: {day}, según sus "
                "mantenedores; ya pasó." if es else
                f"**Already ended ({day})** — {name}'s own (upstream) end of life: {day}, as its maintainers state it.")
    return (f"**Hasta {day}** — el fin de vida propio (upstream) de {name}: {day}, según sus mantenedores; "
            "todavía no ha llegado." if es else
            f"**Until {day}** — {name}'s own (upstream) end of life: {day}, as its maintainers state it; not reached yet.")


def neuron_first(text: str) -> bool:
    """Whether a question asks about Neuron's support first and the upstream end after, in a
    later sentence ("is Python 3.10 still ok on the Neuron SDK? what about upstream?")."""
    m = intents._UPSTREAM.search(text)
    before = text[:m.start()] if m else ""
    return "?" in before and re.search(r"\bneuron\b|\bsdk\b|\btrn[123]\b|\binf[12]\b", before, re.I) is not None


def _upstream_said(head: str, es: bool) -> str:
    """The upstream headline, kept under Neuron's as the second answer."""
    return ("Aguas arriba (upstream), aparte: " if es else "Upstream, a separate matter: ") + head


def _neuron_said(head: str, es: bool) -> str:
    """The Neuron-support headline, kept under the upstream one as what it is."""
    return ("Soporte de Neuron, aparte: " if es else "Neuron's support of it, a separate matter: ") + head


PLATFORMS = {"ubuntu": "Ubuntu", "amazon-linux": "Amazon Linux", "python": "Python", "pytorch": "PyTorch"}


def _sdk_pythons(conn: sqlite3.Connection, sdk: str, key: str = "python_versions") -> list[str]:
    """The Python (or, with key="torch_versions", PyTorch) versions the packages of a Neuron SDK release list."""
    found = {v for r in releases.in_sdk(conn, sdk) for v in (r.get(key) or [])}
    return sorted(found, key=queries.version_key)


def _platform_matrix(conn: sqlite3.Connection, pairs: list[tuple[str, str]], result: dict[str, Any],
                     src: Sources) -> tuple[str | None, list[str]]:
    """For "is Ubuntu 22.04 supported by TorchNeuron in Neuron 2.34?": what the Neuron platform
    matrix says of that platform for that SDK, or, when the KB has no row for that SDK, what
    the newest matrix that names it says (said as such); plus a headline."""
    from kb.eol import windows as eol

    sdk = next((v for p, v in pairs if p == "neuron"), None)
    asked = [(p, v) for p, v in pairs if p in PLATFORMS]
    if not sdk or not asked:
        return None, []
    facts = [f for f in eol.load_platform_facts(conn) if f["canonical"] == "neuron-sdk"]
    lines, heads = [], []
    upstream_urls = {w.get("source_url") for w in result["windows"] if w.get("scope") == "upstream"}
    by_url = {w.get("source_url"): w for w in result["windows"] if w.get("scope") != "upstream"}
    for product, version in asked:
        name = f"{PLATFORMS[product]} {version}"
        rows = [f for f in facts if f["platform"].lower() == name.lower()]
        own = [f for f in rows if same_line(sdk, f["version"])]
        gate = [i for i in result["issues"] if i.get("gate") and i.get("component") == f"{product}={version}"]
        # Neuron's own statement decides Neuron's headline; the upstream date is the platform's (r11 q27)
        gate.sort(key=lambda i: i.get("source_url") in upstream_urls)
        vendor = by_url.get(gate[0].get("source_url")) if gate else None
        if gate:  # a finding against a presumed matrix (the release states none of its own) says so
            release = (f" (Neuron {vendor['eol_release']})" if vendor and vendor.get("eol_release")
                       and vendor.get("scope") != "upstream" else "")
            heads.append(f"**{'Presumably no' if gate[0].get('presumed') else 'No'}** — "
                         f"{quote_notes(gate[0]['message'], rows)}{release}")
        if own:
            f = own[0]
            lines.append(f"- Neuron {f['version']} platform matrix: {name} — {f['status']} {src.cite(_fact_source(f))}")
            if not gate:
                ok = f["status"].lower().startswith("supported")
                heads.append(f"**{'Yes' if ok else 'No'}** — Neuron {f['version']}'s platform matrix lists {name} as "
                             f"{f['status']}")
            continue
        older = sorted(rows, key=lambda f: queries.version_key(f["version"]))
        if older:
            f = older[-1]
            lines.append(f"- the KB has no platform matrix row for {name} in Neuron {sdk}; the newest one that names it, "
                         f"Neuron {f['version']}'s, says: {quoted(f['status'])}"
                         f"{' (' + quoted(f['note']) + ')' if f.get('note') else ''} {src.cite(_fact_source(f))}")
            if not gate:  # a yes/no all the same, said to be presumed from the older matrix (tester t29 #8)
                word = "Presumably yes" if f["status"].lower().startswith("supported") else "Presumably no"
                heads.append(f"**{word}** — not stated for Neuron {sdk}: the newest Neuron platform matrix in the KB "
                             f"that names {name} is Neuron {f['version']}'s, and it says {quoted(f['status'])}")
        elif not gate and product in ("python", "pytorch") and (
                listed := _sdk_pythons(conn, sdk, "python_versions" if product == "python" else "torch_versions")):
            # "neuron=2.33 torch=2.13": the SDK's own packages name the PyTorch they are built for (r23 q58)
            ok = any(same_line(version, v) for v in listed)
            heads.append(f"**{'Yes' if ok else 'No'}** — Neuron {sdk}'s packages support {PLATFORMS[product]} "
                         f"{', '.join(listed)}")
        elif not gate:
            heads.append(f"**Unknown** — no Neuron platform matrix in the KB names {name}")
    # "… ubuntu 22.04 en trn1, ¿está bien ese stack?": an instance family the release does not support is a "No" of its
    # own, said first (r33 q30)
    blocked = {i["component"]: i for i in reversed(result["issues"])
               if i.get("gate") and str(i.get("component", "")).startswith("instance=")}
    heads[:0] = [f"**{'Presumably no' if i.get('presumed') else 'No'}** — {i['message']}" for i in blocked.values()]
    upstream = [w for w in result["windows"] if w.get("scope") == "upstream"]
    if heads and upstream:
        w = upstream[0]
        own = w.get("eol_stated") or w.get("eol_from") or "none stated"  # never "None" (attacker s11)
        heads[-1] += f"; {w['product_label']} {w['cycle']}'s own end of life: {own}"
    return (". ".join(heads) + ".") if heads else None, lines


# "which ubuntu does neuron 2.33 support? we have 24.04": the matrix's every Ubuntu release, not only the one the stack has
_WHICH_PLATFORM = re.compile(r"\b(?:which|what)\b(?: \w+){0,2} (?:ubuntu|os|operating systems?)\b", re.I)


def _every_platform(conn: sqlite3.Connection, pairs: list[tuple[str, str]], src: Sources) -> list[str]:
    """Each Ubuntu release the SDK's platform matrix names, with its status, in one line."""
    from kb.eol import windows as eol

    sdk = next((v for p, v in pairs if p == "neuron"), None)
    rows = [f for f in eol.load_platform_facts(conn) if f["canonical"] == "neuron-sdk" and sdk
            and same_line(sdk, f["version"]) and f["platform"].lower().startswith("ubuntu")]
    if not rows:
        return []
    rows.sort(key=lambda f: f["platform"])
    said = "; ".join(f"**{f['platform']}**: {f['status']}" for f in rows)
    return [f"- Ubuntu in Neuron {rows[0]['version']}'s platform matrix: {said} {src.cite(_fact_source(rows[0]))}"]


def _fact_source(f: dict[str, Any]) -> dict[str, Any]:
    return {"source_kind": "manual", "source_name": "platform matrix", "source_url": f.get("source_url"),
            "retrieved_at": f.get("retrieved_at")}


def _window_score(w: dict[str, Any], q: Question) -> int:
    haystack = " ".join(str(w.get(k) or "") for k in ("product", "cycle", "title")).lower()
    score = 0
    for product, version in q.products:
        if product in haystack:
            score += 2
            if version and same_line(version, str(w.get("cycle") or "")):
                score += 3
    return score


def _eol_raw(conn: sqlite3.Connection, q: Question) -> Answer:
    """End of support from the supportwindow rows alone (no kb.eol.windows in this checkout)."""
    windows = support_windows(conn)
    hits = [w for w, s in sorted(((w, _window_score(w, q)) for w in windows), key=lambda p: -p[1]) if s >= 2]
    asked_versions = [v for _, v in q.products if v]
    if asked_versions:
        hits = [w for w in hits if any(same_line(v, str(w.get("cycle") or "")) for v in asked_versions)]
    if not hits:
        return _eol_unknown(conn, q, [], windows)
    src = Sources()
    lines = [f"- **{w.get('title') or w['product'] + ' ' + w['cycle']}**: {_window_text(w)} {src.cite(w)}"
             for w in hits[:MAX_LIST]]
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), [_eol_fact(w) for w in hits], src.items)


def _eol_unknown(conn: sqlite3.Connection, q: Question, near: list[dict[str, Any]], windows: list[dict[str, Any]]) -> Answer:
    asked = ", ".join(f"{p} {v}" if v else p for p, v in q.products) or "that"
    lines = [f"**Unknown** — the KB has no end-of-support statement for {asked}."]
    src = Sources()
    lines += _torch_in_releases(conn, q, src)
    shown = near or windows[:5]
    if shown:
        lines.append("Related statements:" if near else "Soonest statements it does have:")
        lines += _window_lines(shown, src, bold=False)
    facts = [{"asked": asked, "status": UNKNOWN}]
    return Answer(q.text, "eol", "\n".join(lines) + src.markdown(), facts, src.items)


def _torch_in_releases(conn: sqlite3.Connection, q: Question, src: Sources) -> list[str]:
    """For "PyTorch X on Neuron": which registry releases list that torch version, per
    product as a range, and whether the newest release of that product still does."""
    versions = [v for p, v in q.products if p == "pytorch" and v]
    if not versions:
        return []
    rows = [dict(r) for r in conn.execute("SELECT * FROM release WHERE torch_versions IS NOT NULL")]
    for r in rows:
        r["torch"] = json.loads(r["torch_versions"])
    lines = []
    for version in versions:
        hits = [r for r in rows if any(same_line(version, t) for t in r["torch"])]
        if not hits:
            listed = sorted({t for r in rows for t in r["torch"]}, key=queries.version_key)
            lines.append(f"No release in the KB lists PyTorch {version} (PyTorch versions listed: {', '.join(listed)}).")
            continue
        parts = []
        for product in sorted({r["product"] for r in hits}):
            mine = sorted((r for r in hits if r["product"] == product), key=lambda r: queries.version_key(r["version"]))
            span = mine[0]["version"] if len(mine) == 1 else f"{mine[0]['version']} … {mine[-1]['version']}"
            cite = src.cite(mine[-1])
            newest = max((r for r in rows if r["product"] == product), key=lambda r: queries.version_key(r["version"]))
            still = "" if newest in mine else f"; not by the newest, {newest['version']} {src.cite(newest)}"
            parts.append(f"{product} {span} ({len(mine)} releases) {cite}{still}")
        lines.append(f"PyTorch {version} is listed by " + "; ".join(parts) + ".")
    return lines


# ---------------------------------------------------------------- "when" questions (r2-29 #14)

# "how long": a window too; "Python 3.12 when reaches end of support?" (Spanish word order, 29l) and
# "has X reached end of support?" ("¿ya caducó?", "¿se acaba?") ask for the date as well
_WHEN = re.compile(r"^\s*(?:until\s+)?when\b|\buntil when\b|\b(?:for\s+)?how long\b|\bwhen\b(?=[^?]*\bend of (?:support|life)\b)"
                   r"|\breach(?:es|ed)? (?:its )?end of (?:support|life)\b|\bhow much time\b|\b(?:time|support) left\b"
                   r"|\bexpir\w*|\bwhen (?:does|do|did|will|is|are)\b[^?]{0,60}\b(?:end|ends|ended|stop\w*|go away|run out"
                   r"|finish\w*|over|eol|lose|drop\w*)\b|\bsince when\b[^?]{0,12}$|\bover since when\b", re.I)
_DATE_IN = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b")
# yes/no headline → (kind, what it says, in words): "no" ended, "until" a stated end, "open" no end stated
_BOLDS = {
    "Yes": ("open", "supported now"), "Presumably yes": ("open", "presumably supported now"),
    "Probably": ("open", "probably supported now"), "Yes, in maintenance mode": ("open", "in maintenance mode now"),
    "Yes, for now": ("until", "supported for now"), "No": ("no", "not supported now"),
    "Presumably no": ("no", "presumably not supported now"), "Partly": ("open", "partly ended"),
    "Sí": ("open", "soportado hoy"), "Presumiblemente sí": ("open", "presumiblemente soportado hoy"),
    "Probablemente": ("open", "probablemente soportado hoy"),
    "Sí, en modo de mantenimiento": ("open", "en modo de mantenimiento hoy"),
    "Sí, por ahora": ("until", "soportado por ahora"), "Presumiblemente no": ("no", "presumiblemente no soportado hoy"),
    "En parte": ("open", "terminado en parte"),
}


# "what leaves support first?", "which part of my stack ends soonest?", "¿qué deja de tener soporte primero?" (read in
# English): the question asks for the stack's first end of support
_FIRST_ASKED = re.compile(r"\b(?:what|which)\b[^?]{0,80}\b(?:first|soonest|earliest|sooner)\b"
                          r"|\b(?:first|soonest|earliest) to (?:leave|lose|end|drop|go)\b|\bprimer[oa]?\b|\bantes\b", re.I)


# "is anything out of support or ending soon?", "¿hay algo fuera de soporte?" (read "algo fuera of support"), "any
# problem with this stack?": a question about the stack as a whole, whatever each part's own yes/no
_ANYTHING = re.compile(r"\b(?:any|anything|something|algo|alguno|alguna|nada)\b[^?]{0,60}"
                       r"\b(?:out of support|unsupported|fuera|sin soporte|end\w*|termin\w*|expir\w*|problem\w*|issues?"
                       r"|wrong|incompatible|deprecat\w*|support\w*)", re.I)
_BAD = ("ended", "incompatible")
_LABELS = {"neuron": "Neuron", "python": "Python", "ubuntu": "Ubuntu", "pytorch": "PyTorch", "instance": "instance",
           "amazon-linux": "Amazon Linux"}
_SOON = ("within", "maintenance", "pending")
_KINDS_ES = {"ended": "terminado", "within": "termina pronto", "maintenance": "en mantenimiento", "pending": "pendiente"}


def _component(name: str | None) -> str:
    product, _, version = (name or "").partition("=")
    return f"{_LABELS.get(product, product.capitalize())} {version}".strip() if product else ""


def _anything_head(result: dict[str, Any], es: bool = False) -> str:
    """Yes, naming what is out of support (ended, or incompatible with the rest of the stack) or ends soon; or
    "nothing out of support", with the stack's first end of support either way."""
    bad = [i for i in result["issues"] if i["kind"] in _BAD]
    soon = [i for i in result["issues"] if i["kind"] in _SOON]
    first = result.get("first_eol")
    when = (f"; {'primer fin de soporte de la pila' if es else 'first end of support in this stack'}: "
            f"{first['eol_from']} ({first['product']} {first['cycle']})") if first else ""
    if bad or soon:
        kinds = _KINDS_ES if es else {}
        one: dict[Any, dict[str, Any]] = {}
        for i in sorted(bad, key=lambda i: (i["kind"] != "ended", i.get("eol_from") or "9")) + soon:  # the worst first
            one.setdefault(i.get("component") or i["message"], i)
        parts = []
        for i in one.values():
            name = _component(i.get("component"))
            lead = f"{name}: " if name and not i["message"].lower().startswith(name.lower()) else ""
            parts.append(f"{lead}{kinds.get(i['kind'], i['kind'])}: {i['message']}")
        said = "; ".join(parts)
        return f"**{'Sí' if es else 'Yes'}** — {said}{when}."
    if es:
        return f"**Nada fuera de soporte** — ninguna parte de esta pila terminó ni choca con otra{when}."
    return f"**Nothing out of support** — no part of this stack has ended or clashes with another{when}."


# "does torch_tpu 0.2.0 have an end-of-support date?" (read from "¿… tiene fecha de fin de soporte?", r25 q30)
_DATE_OF_END = re.compile(r"\b(?:date|fecha)\b[^?]{0,20}\bend of (?:support|life)\b|\beol date\b", re.I)
_NO_END = re.compile(r"^- \*\*(?P<name>[^*]+?): (?:no end stated|sin fin declarado)\*\*", re.M)


def _open_stack_head(text: str, es: bool) -> str:
    """A stack answer whose items all state no end and warn of nothing: "no end date stated" said first."""
    named = _NO_END.findall(text)
    items = re.findall(r"^- \*\*", text, re.M)
    if not named or len(named) != len(items) or "⚠" in text:
        return text
    said = ", ".join(named)
    head = (f"**Sin fecha de fin declarada** — {said}: sus mantenedores no declaran fin." if es
            else f"**No end date stated** — {said}: no end stated by its maintainers.")
    return head + "\n\n" + text


def when_headline(question: str, text: str, es: bool) -> str:
    """"When does Ubuntu 24.04 support end on trn2?" asks for a date, not yes or no: the
    yes/no headline becomes the date (a stated end, "already ended", or "no end date stated"
    with the earliest date the answer gives), and the yes/no it had follows in words. "Has Python 3.9
    lost support?" turns a yes/no around (its "yes" is the answer's "no"): it gets the same date
    headline, which needs no polarity (29s)."""
    if (_WHEN.search(question) or _DATE_OF_END.search(question)) and text.startswith(("Stack `", "Pila `")):
        return _open_stack_head(text, es)
    if not (_WHEN.search(question) or intents.lost_support(question.lower())) or not text.startswith("**"):
        return text
    first, nl, body = text.partition("\n")
    bold, _, rest = first[2:].partition("**")
    if bold not in _BOLDS:
        return text
    kind, said = _BOLDS[bold]
    dates = _DATE_IN.findall(first)
    stack = re.search(r"(?:First end of support in this stack|Primer fin de soporte en esta pila): \*\*([\d-]+)\*\*", body)
    date = stack.group(1) if stack else (dates[-1] if dates else None)
    if kind == "no":
        # "ended 2026-05-21", "ended with Neuron 2.34 (2026-11-30)": the day, and the release when one is said
        ended = re.search(r"\b(?:ended|terminó)\s+(?:(?:with|con) (Neuron [\d.]+) \()?(\d{4}-\d{2}(?:-\d{2})?)", first)
        head = ("Ya terminó" if es else "Already ended") + (
            f" ({ended.group(2)}{', ' + ('con ' if es else 'with ') + ended.group(1) if ended.group(1) else ''})"
            if ended else "")
        if bold.startswith(("Presumably", "Presumiblemente")):
            head = f"Presumiblemente y{head[1:]}" if es else f"Presumably a{head[1:]}"
    elif kind == "until" and dates:
        head = f"{'Hasta' if es else 'Until'} {dates[-1]}"
    elif date:
        head = (f"Sin fecha de fin declarada; la primera fecha de la respuesta: {date}" if es
                else f"No end date stated; the earliest date in this answer: {date}")
    else:
        head = "Sin fecha de fin declarada" if es else "No end date stated"
    rest = rest.lstrip(" —").strip()
    return f"**{head}** — {said}{': ' + rest if rest else '.'}{nl}{body}"
