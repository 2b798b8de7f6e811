"""Finding what a chat question names: ATen ops (any spelling, a torch function through
the shipped traced map, or a close typo) and target versions (a Neuron SDK release or a
backend version). Shared by kb.chat.answer and the MCP server; no torch import.
"""

from __future__ import annotations

import difflib
import re
import sqlite3
from dataclasses import dataclass

from kb import opnames
from kb.chat import call_overload, english
from kb.chat.intents import Question, TargetMention
from kb.errors import KBError, UnknownOpError
from kb.store import queries, torchnames


def function_map() -> tuple[dict[str, list[str]], str | None]:
    """torch function → ATen ops it dispatches to, from the newest shipped map (no torch import)."""
    return torchnames.function_map()


def _function_key(word: str) -> str:
    """F.silu / nn.functional.silu / Tensor.view / x.view → the map's spelling."""
    if word.startswith("F."):
        return "torch.nn.functional." + word[2:]
    if word.startswith("nn."):
        return "torch." + word
    if word.startswith("Tensor."):
        return "torch." + word
    if not word.startswith("torch.") and "." in word:  # x.view() → a Tensor method
        return "torch.Tensor." + word.rsplit(".", 1)[1]
    return word


@dataclass
class OpMatch:
    asked: str  # what the user wrote
    ops: list[str]  # canonical overloads it stands for
    how: str  # exact | typo | function-map | function-name | module-map
    note: str = ""
    module: torchnames.TorchName | None = None  # how == module-map: the torch.nn module's entry
    read_as: str = ""  # a misspelt module or function read as this name ("nn.Upsample")
    chosen: str = ""  # the overload the call's written argument reaches ("x.bernoulli_(0.5)")


def _bases(conn: sqlite3.Connection) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in queries.known_op_names(conn):
        try:
            out.setdefault(opnames.base_name(name), []).append(name)
        except opnames.OpNameError:
            continue
    return out


# Plain words tried as misspelt op names, per question: a question is a sentence, and each
# try compares the word with every op name in the catalog.
MAX_FUZZY_WORDS = 24


def find_ops(conn: sqlite3.Connection, q: Question) -> tuple[list[OpMatch], list[str], list[str]]:
    """(matches, words that look like op names but match nothing, suggestions for them)."""
    matches: list[OpMatch] = []
    missing: list[str] = []
    suggestions: list[str] = []
    bases = None
    taken = _modules(conn, q, matches, missing, suggestions)
    for word in (w for w in q.op_words if w not in taken):
        try:
            matches.append(OpMatch(word, queries.resolve_op(conn, word), "exact"))
        except UnknownOpError as exc:
            bases = bases or _bases(conn)
            fixed = _fuzzy(opnames.base_name(word) if _op_like(word) else word, bases, 0.6)
            if fixed:
                matches.append(OpMatch(word, _family(conn, fixed, word), "typo", f"`{word}` is not in the op catalog; read as `{fixed}`"))
            else:
                missing.append(word)
                suggestions += exc.suggestions
        except KBError:
            missing.append(word)
    if q.function_words:
        fmap, where = function_map()
        bases = bases or _bases(conn)
        for word in (w for w in q.function_words if w not in taken):
            key = _function_key(word)
            own = _own_op(conn, q, word, key, fmap.get(key) or [])
            if own is not None:
                matches.append(own)
                continue
            if key in fmap and fmap[key]:
                known = [op for op in fmap[key] if op in queries.known_op_names(conn)] or fmap[key]
                matches.append(_function_match(conn, q, word, key, known, where))
                continue
            base = key.rsplit(".", 1)[-1]
            if base not in bases and (near_key := _function_typo(key, fmap)) is not None:  # torch.cumsun (29n)
                known = [op for op in fmap[near_key] if op in queries.known_op_names(conn)] or fmap[near_key]
                matches.append(OpMatch(word, known, "function-map",
                                       f"`{key}` is not a torch function; read as `{near_key}`, which dispatches "
                                       f"to these ATen ops (traced, {where})", read_as=near_key))
                continue
            spaced = "_".join(key.split(".")[-2:])  # torch.fft.rfft → aten::fft_rfft, torch.linalg.svd → linalg_svd (r23 q07)
            if re.match(r"torch\.(?:fft|linalg|special)\.", key) and spaced in bases:
                base = spaced  # torch.linalg.qr is aten::linalg_qr, though an aten::qr exists too (s12 leftover)
            if base in bases:
                matches.append(OpMatch(word, _family(conn, base, base), "function-name",
                                       f"`{key}` is not in the traced function map; matched by name to `aten::{base}`"))
            elif (near := _near_function(base, bases)) is not None:  # F.grid_sample → aten::grid_sampler
                matches.append(OpMatch(word, _family(conn, near, near), "function-name",
                                       f"`{key}` is not in the traced function map; read as the nearest op by name, "
                                       f"`aten::{near}`"))
            else:
                missing.append(word)
                suggestions += difflib.get_close_matches(base, list(bases), n=3, cutoff=0.6)
    if not matches and q.plain_words:
        bases = bases or _bases(conn)
        fuzzed = 0
        # "backward" alone names no op: it is the gradient of an op named beside it (_backwards), never aten::_backward
        for word in (w for w in q.plain_words if w not in taken and w.lower() != "backward"):
            if "." in word and _op_like(word):  # add.Tensor, relu.default
                try:
                    matches.append(OpMatch(word, queries.resolve_op(conn, word), "exact"))
                    continue
                except KBError:
                    pass
            base = word.lower() if word.lower() in bases else word
            if base in bases:
                matches.append(OpMatch(word, _family(conn, base, base), "exact"))
                continue
            fixed = None
            if len(word) >= 4 and fuzzed < MAX_FUZZY_WORDS:  # each costs a pass over the catalog
                fuzzed += 1
                fixed = _typo(word, bases)
            if fixed:
                matches.append(OpMatch(word, _family(conn, fixed, fixed), "typo", f"no op `{word}`; read as `{fixed}`"))
            elif "_" in word:
                missing.append(word)
                suggestions += difflib.get_close_matches(word, list(bases), n=3, cutoff=0.5)
    if matches and "backward" in (w.lower() for w in q.plain_words):
        matches = _backwards(conn, matches)
    return _dedupe(matches), missing, list(dict.fromkeys(suggestions))


def _backwards(conn: sqlite3.Connection, matches: list[OpMatch]) -> list[OpMatch]:
    """"torch.cdist backward", "¿y el backward (de cdist)?": the ops that compute each named op's gradient
    (aten::_cdist_forward → aten::_cdist_backward), where the catalog has one; an op without one is kept as asked."""
    known = queries.known_op_names(conn)
    out = []
    for m in matches:
        bases = [opnames.base_name(op) for op in m.ops]
        stems = dict.fromkeys(re.sub(r"_forward$", "", b.strip("_")) for b in bases if not b.endswith("_backward"))
        found = list(dict.fromkeys(name for stem in stems for pre in ("_", "")
                                   if (name := f"aten::{pre}{stem}_backward") in known))
        if not found:
            out.append(m)
            continue
        ops = [op for name in found for op in queries.resolve_op(conn, name)]
        out.append(OpMatch(f"{m.asked} backward", ops, "backward",
                           f"the backward of `{m.asked}`: {', '.join(f'`{n}`' for n in found)}"))
    return out


def _own_op(conn: sqlite3.Connection, q: Question, word: str, key: str, traced: list[str]) -> OpMatch | None:
    """The function's own ATen op, where the traced map only shows how the CPU decomposes it.
    A call whose names pick one overload by their count answers that overload (`torch.where(m, x, y)`:
    `aten::where.self`, not the one-argument form traced); a function whose same-named op has a verdict on
    the asked target answers that op (`F.rms_norm` on tpu: `aten::rms_norm`, native there, not pow/mean/rsqrt),
    as `kb op` does (r13 q4, r14 q2 q55 q60). None: the traced map answers."""
    base = key.rsplit(".", 1)[-1]
    try:
        ops = queries.resolve_op(conn, base)
    except KBError:
        return None
    es = q.language == "es"
    args = q.call_args.get(word)
    method = key.startswith("torch.Tensor.") and not word.startswith(("Tensor.", "torch."))
    chosen = call_overload.by_arity(conn, base, args, method) if args else None
    if chosen is not None:
        op, others = chosen
        n = len(args.split(","))
        note = (f"`{key}` con {n} argumento{'s' if n > 1 else ''} (nombres, leídos como tensores) despacha a `{op}` "
                "(las otras sobrecargas, abajo, para otros argumentos)" if es else
                f"`{key}` called with {n} argument{'s' if n > 1 else ''} (names, read as tensors) dispatches to `{op}` "
                "(other overloads below, for other arguments)")
        return OpMatch(word, [op, *others], "function-map", note, chosen=op)
    if not traced or any(opnames.base_name(t) == base for t in traced):
        return None
    targets = set(q.target_names()) - {"cpu", "meta"}
    if not targets:
        return None
    rows = [r for r in queries.op_verdicts(conn, ops, mode="eager", newest=True) if r["target"] in targets]
    if {r["target"] for r in rows} != targets or not any(r["status"] == "native" and r["op"] == f"aten::{base}" for r in rows):
        return None  # the backend registers no kernel of its own: the traced ops are what runs (Tensor.argsort)
    note = (f"`{key}` nombra el op ATen `aten::{base}`, que tiene veredicto propio en {', '.join(sorted(targets))} "
            f"(el trazado en la CPU lo descompone en {', '.join(f'`{t}`' for t in traced[:4])})" if es else
            f"`{key}` names the ATen op `aten::{base}`, which has its own verdict on {', '.join(sorted(targets))} "
            f"(traced on the CPU it decomposes into {', '.join(f'`{t}`' for t in traced[:4])})")
    return OpMatch(word, ops, "function-name", note)


def _function_match(conn: sqlite3.Connection, q: Question, word: str, key: str, known: list[str],
                    where: str | None) -> OpMatch:
    """A torch function from the traced map; a call whose written argument picks one overload of a
    one-op function ("x.bernoulli_(0.5)": `aten::bernoulli_.float`) names that overload first, its
    other overloads after it, and says which argument picked it (r10 q2)."""
    es = q.language == "es"
    method = key.startswith("torch.Tensor.") and not word.startswith(("Tensor.", "torch."))
    if method:
        said = (f"`{word}` es una llamada a un método de Tensor, `{key}`:" if es
                else f"`{word}` is a Tensor method call, `{key}`: it")
    else:
        said = f"`{key}`"
    args = q.call_args.get(word)
    chosen = call_overload.picked(conn, known, args) if args and len(known) == 1 else None
    if chosen is None:
        if method and es:
            return OpMatch(word, known, "function-map", f"{said} despacha a estos ops ATen (trazado, {where})")
        return OpMatch(word, known, "function-map", f"{said} dispatches to these ATen ops (traced, {where})")
    op, others, kind = chosen
    first = args.split(",")[0].strip()
    if es:
        note = (f"{said} despacha a `{op}`: el argumento `{first}` va a su parámetro `{kind}` (las otras sobrecargas, "
                f"abajo, para otros argumentos; trazado, {where})")
    else:
        note = (f"{said} dispatches to `{op}`: the argument `{first}` binds its `{kind}` parameter (other overloads "
                f"below, for other arguments; traced, {where})")
    return OpMatch(word, [op, *others], "function-map", note, chosen=op)


def module_match(conn: sqlite3.Connection, word: str) -> OpMatch | None:
    """A torch.nn module (`nn.MultiheadAttention`, `torch.nn.LSTM`, `Linear`) read the way a
    torch function is: the ATen ops its forward dispatches, from the shipped module map
    (kb.store.torchnames). A bare name is a module only when no op has that name."""
    from kb.store.oppage import module_named

    try:
        found = module_named(conn, word)
    except KBError:
        return None
    if found is None:
        return None
    ops = list(dict.fromkeys(found.ops))
    note = (f"`{found.canonical}` is a module: its forward dispatches {len(ops)} ATen ops "
            f"(traced once: {found.entry.get('constructor', '?')} on {', '.join(found.entry.get('inputs', []))}, "
            f"eval mode, torch {found.torch_version}; {found.map_file})") if ops else \
        f"`{found.canonical}` is a module whose forward dispatches no ATen ops in eval mode ({found.map_file})"
    return OpMatch(word, ops, "module-map", note, found)


def _modules(conn: sqlite3.Connection, q: Question, matches: list[OpMatch], missing: list[str],
             suggestions: list[str]) -> set[str]:
    """Words of the question that name torch.nn modules, matched first (an `nn.X` spelling
    that names none is missing, with the close module names as suggestions)."""
    taken: set[str] = set()
    for word in (*q.op_words, *q.function_words, *q.plain_words):
        if word in taken or word.startswith(("aten::", "aten.", "torch.ops.")):
            continue
        found = module_match(conn, word)
        if found is not None:
            matches.append(found)
            taken.add(word)
        elif torchnames.looks_like_module(word) and (fixed := _module_typo(conn, word)) is not None:
            matches.append(fixed)  # nn.Upsampel → nn.Upsample, as a target typo is read (29n)
            taken.add(word)
        elif torchnames.looks_like_module(word):
            missing.append(word)
            if len(missing) <= MAX_FUZZY_MODULES:  # each is a pass over the module names
                suggestions += [f"nn.{m.rsplit('.', 1)[1]}" for m in torchnames.close_modules(word)]
            taken.add(word)
    return taken


MAX_FUZZY_MODULES = 8
# How close a misspelt module or function name must be to be read as a known one (difflib's ratio):
# one or two letters swapped, missing or doubled in a name of five or more ("Upsampel", "LayerNrom",
# "cumsun"), never a different word.
TYPO_RATIO = 0.8


def _close_enough(asked: str, known: str) -> bool:
    return len(asked) >= 5 and abs(len(asked) - len(known)) <= 2 and \
        difflib.SequenceMatcher(None, asked.lower(), known.lower()).ratio() >= TYPO_RATIO


def _module_typo(conn: sqlite3.Connection, word: str) -> OpMatch | None:
    """A misspelt module name read as the one close module (`nn.Upsampel` → `nn.Upsample`), with a
    note saying so; None when none, or two, are that close."""
    rest = word.rsplit(".", 1)[-1]
    close = [m for m in torchnames.close_modules(word, limit=2) if _close_enough(rest, m.rsplit(".", 1)[-1])]
    if not close or not _clear_winner(rest, [m.rsplit(".", 1)[-1] for m in close]):
        return None
    found = module_match(conn, close[0])
    if found is None:
        return None
    short = "nn." + close[0].rsplit(".", 1)[-1]
    return OpMatch(word, found.ops, "module-map", found.note, found.module, read_as=short)


def _function_typo(key: str, fmap: dict[str, list[str]]) -> str | None:
    """A misspelt torch function read as the one close name in the traced map with the same prefix
    (`torch.cumsun` → `torch.cumsum`); None when none or several are that close."""
    prefix, _, name = key.rpartition(".")
    if len(name) < 5:
        return None
    same = [k.rpartition(".")[2] for k in fmap if k.rpartition(".")[0] == prefix and fmap[k]]
    close = [c for c in difflib.get_close_matches(name, same, n=2, cutoff=TYPO_RATIO) if _close_enough(name, c)]
    return f"{prefix}.{close[0]}" if close and _clear_winner(name, close) else None


def _clear_winner(asked: str, close: list[str]) -> bool:
    """The closest name is clearly closer than the next ("sortt": sort, not msort)."""
    if len(close) == 1:
        return True
    first, second = (difflib.SequenceMatcher(None, asked.lower(), c.lower()).ratio() for c in close[:2])
    return first - second >= 0.05


def _op_like(word: str) -> bool:
    try:
        opnames.split(word)
        return True
    except opnames.OpNameError:
        return False


def _typo(word: str, bases: dict[str, list[str]]) -> str | None:
    """A plain chat word read as a misspelt op only when it is very close (nonzeroo →
    nonzero), so English words (inference) are not turned into ops (is_inference), and never
    from or into an everyday English word (many → any: kb.chat.english)."""
    if "_" in word:
        fixed = _fuzzy(word, bases, 0.75)
    else:
        fixed = _fuzzy(word, bases, 0.85)
        fixed = fixed if fixed and abs(len(fixed) - len(word)) <= 2 else None
    return fixed if fixed and english.fuzzy_allowed(word, fixed) else None


def _near_function(base: str, bases: dict[str, list[str]]) -> str | None:
    """The op a torch function not in the traced map most likely dispatches to: a base name at most
    two letters longer or shorter and very close (grid_sample → grid_sampler), never an English word."""
    fixed = _fuzzy(base, bases, 0.9)
    return fixed if fixed and abs(len(fixed) - len(base)) <= 2 and english.fuzzy_allowed(base, fixed) else None


def _fuzzy(word: str, bases: dict[str, list[str]], cutoff: float) -> str | None:
    """The one close op base name; a short word (under five letters) only one edit away from it,
    since any short word is "close" to some op ("aten::foo" is not floor, "evil" not ceil)."""
    close = difflib.get_close_matches(word.lower(), list(bases), n=1, cutoff=cutoff)
    if close and len(word) < 5 and not _one_edit(word.lower(), close[0]):
        return None
    return close[0] if close else None


def _one_edit(a: str, b: str) -> bool:
    """One letter changed, added, dropped, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _family(conn: sqlite3.Connection, base: str, asked: str) -> list[str]:
    """Overloads for a corrected base name, keeping the overload the user typed if it exists."""
    if opnames.names_one_overload(asked) and _op_like(asked):
        _, overload = opnames.split(asked)
        exact = f"aten::{base}.{overload}" if overload else f"aten::{base}"
        if exact in queries.known_op_names(conn):
            return [exact]
    return queries.resolve_op(conn, base)


def _dedupe(matches: list[OpMatch]) -> list[OpMatch]:
    seen: set[tuple[str, ...]] = set()
    out = []
    for m in matches:
        key = tuple(m.ops)
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


# ---------------------------------------------------------------- versions


def _product_of(conn: sqlite3.Connection, target: str) -> str:
    row = conn.execute("SELECT product FROM target WHERE name = ?", (target,)).fetchone()
    if row is None:
        queries.check_target(conn, target)
    return row[0]


def same_line(short: str, full: str) -> bool:
    """2.33 ~ 2.33.0 and 2.14 ~ 2.14.3.0: every component the shorter has agrees."""
    a, b = short.split("."), full.split(".")
    return len(a) <= len(b) and a == b[:len(a)]


@dataclass
class VersionPick:
    target: str
    asked: str | None
    versions: list[str]  # backend versions to read (empty: the asked one has no release)
    label: str  # how to say it: "Neuron SDK 2.33 (torchneuron 2.13.3.0, 2.14.3.0)"
    with_data: list[str]  # backend versions that have any verdict for this target


def pick_versions(conn: sqlite3.Connection, mention: TargetMention) -> VersionPick:
    """A target mention's version phrase → backend versions, through the one grammar every
    command uses (kb.store.targetspec): "neuron 2.33" is Neuron SDK 2.33 (release.sdk_version);
    "tpu 0.2.0" is the backend version itself; "SDK 2.33" is only ever the SDK."""
    from kb.store.targetspec import resolve

    found = resolve(conn, mention.target, mention.version, sdk_only=bool(mention.sdk and mention.version))
    label = found.label
    if found.how == "sdk" and mention.target.startswith("neuron"):
        label = f"Neuron SDK {mention.version} ({found.product} {', '.join(found.versions)})"
    elif found.how == "none":
        label = f"{'SDK ' if mention.sdk else found.product + ' '}{mention.version}"
    return VersionPick(mention.target, mention.version, found.versions, label, found.with_data)
