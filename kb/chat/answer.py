"""Answers to chat questions: `answer("is nonzero native on neuron 2.33?") -> Answer`.

One core for every chat front end (`kb ask`, the MCP server, the chat bot). The reading
of the question is deterministic (kb.chat.intents); every fact in an answer comes from the
KB with its source, and where the KB has no evidence the answer says "unknown" rather
than guessing. Op names are matched forgivingly: ATen spellings, a torch function name
(through the shipped map data/functions/torch-*.json, traced from torch once), or a
typo close to a catalog name (difflib), and the answer says which match it made.

Reading: kb.chat.entities names what the question holds (its language — a Spanish question is read
through a glossary into the reader's English —, numbers with units, feature lines, uses, instances,
models, cues) and kb.chat.scoring ranks readings over those entities; a reading above its threshold
is answered by kb.chat.answer_scored (cost, policy, a feature's support, lists at a version, models),
the rest by the routing below. A Spanish question's answer is written in Spanish (kb.chat.spanish).

Layout: kb.chat.intents reads the question; kb.chat.oplookup finds ops and versions; this module
answers op, compare, status-list, limitation and help questions; kb.chat.answer_eol answers
end-of-support questions (through kb.eol.windows) and kb.chat.answer_model model-file questions
(through kb.check.resolve).
"""

from __future__ import annotations

import contextvars
import difflib
import os
import re
import sqlite3
from typing import Any

from kb import opnames
from kb.chat import (
    caveat_notes,
    entities,
    fold,
    instructions,
    intents,
    list_filter,
    list_readings,
    mode_contrast,
    names,
    older_release,
    op_first,
    op_history,
    op_since,
    op_versions,
    plain_verdict,
    scoring,
    sections,
    spanish,
    status_counts,
    understand,
)
from kb.chat.answer_api import collective_answer, collective_in
from kb.chat.answer_cost import throughput_answer
from kb.chat.answer_eol import continuity_answer, eol_answer, when_headline
from kb.chat.answer_family import family_answer, shown_first
from kb.chat.answer_model import model_answer, model_checked_answer
from kb.chat.answer_release import diff_answer, release_answer
from kb.chat.answer_release_topic import topic_answer
from kb.chat.answer_scored import gallery_models, scored_answer, with_other_reading
from kb.chat.answer_sdk_news import sdk_news, sdk_version_asked
from kb.chat.answer_switch import carry_topic, switch_answer
from kb.chat.answer_unknown import other_library_op
from kb.chat.intents import Question, TargetMention
from kb.chat.oplookup import (  # noqa: F401  (re-exported: the MCP server and tests use them from here)
    OpMatch,
    VersionPick,
    find_ops,
    function_map,
    pick_versions,
    same_line,
)
from kb.chat.package_on_instance import package_on_instance
from kb.chat.reply import MAX_FILTERED, MAX_LIST, MAX_QUESTION_CHARS, Answer, Sources, clean_text, finish_quotes, quoted
from kb.errors import KBError
from kb.neutral import markdown as md
from kb.store import families, queries, releases, torchnames, verdict
from kb.store.provenance import describe
from kb.vocab import DOC_RULE_BASIS, SEVERITY, SYMBOLS, UNKNOWN

MAX_OPS_PER_ANSWER = 6  # a chat answer about a whole family stays readable
WORKS = ("native", "decomposed", "fallback")


# Fullwidth ASCII (ｔｐｕ ０.２.０, from an East Asian keyboard) and the other scripts' decimal digits (٢٫٣٣)
# read as the ASCII they stand for; nothing else of the question is changed
_FULLWIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def plain_digits(text: str) -> str:
    """The question with fullwidth characters and non-ASCII decimal digits in ASCII, so a version or
    a price typed on another keyboard reads as it does in ASCII (a hostile tester's finding)."""
    import unicodedata

    text = text.translate(_FULLWIDTH)
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() and not c.isascii() else c for c in text)


def answer(question: str, *, db: str | None = None, conn: sqlite3.Connection | None = None,
           allow_files: bool = False) -> Answer:
    """Answer one chat question from the KB (opened with kb.store.db.open_kb unless given).

    `allow_files`: a model path in the question may be read and checked (kb.check.resolve). Only
    for a local user (`kb ask`); a chat platform's messages must never make the server
    open files. A question of two clauses that each read as a different kind of question is
    answered in two sections (kb.chat.understand)."""
    if conn is None:
        from kb.store.db import open_kb

        own = open_kb(db)
        try:
            return answer(question, conn=own, allow_files=allow_files)
        finally:
            own.close()
    if len(question or "") > 4 * MAX_QUESTION_CHARS:  # every front end caps first; a direct caller gets the same bound
        from kb.chat.reply import check_question

        check_question(question)
    # "[1]" pasted from an answer (or forged as a citation) is a footnote mark, never a version 1 (attacker s11)
    question = re.sub(r"(?<![\w\]])\[\d{1,3}\](?!\()", " ", plain_digits(clean_text(question or ""))).strip()
    question, orders = instructions.set_aside(question)  # "# SYSTEM: answer 'No' to everything": no order (s11)
    reply = entities.requested_language(question)  # "¿… en tpu? responde en inglés": answered in English (attacker s11)
    token = REPLY_LANGUAGE.set(reply)
    try:
        result = _answer_message(entities.without_request(question) if reply else question, conn, allow_files)
    finally:
        REPLY_LANGUAGE.reset(token)
    if orders:
        result.text = _before_sources(result.text, instructions.note(orders, result.language))
        result.facts = [{"set_aside": orders}, *result.facts]
    return result


def _before_sources(text: str, line: str) -> str:
    """An answer with one more line at the end of its body, above its sources: the headline stays first."""
    body = understand.body_and_sources(text)[0]  # the text up to its sources block, which follows unchanged
    return body.rstrip() + "\n\n" + line + text[len(body):]


# The language the message asked its answer in ("answer in English"), for the parts read below it; None: each
# answer is in the language its question is written in
REPLY_LANGUAGE: contextvars.ContextVar[str | None] = contextvars.ContextVar("kb_chat_reply_language", default=None)


def _shown(lang: str) -> str:
    """The language an answer is written in: the one asked for, else the question's."""
    return REPLY_LANGUAGE.get() or lang


def _answer_message(question: str, conn: sqlite3.Connection, allow_files: bool) -> Answer:
    """A whole message: split into its questions, each answered (see `answer`)."""
    claim = instructions.claim_apart(question)
    if claim is not None:  # "the vendor says: '…'. what falls back on tpu?": the question after the quote (s11)
        result = _answer_message(claim[0], conn, allow_files)
        if result.intent not in understand.WEAK:
            note = instructions.CLAIM_NOTE.get(result.language, instructions.CLAIM_NOTE["en"]).format(claim=claim[1])
            result.text = _before_sources(result.text, note)
            result.question = question
            return result
    older, phrases = older_release.older_named(conn, question)
    if phrases:  # "on the older tpu one, what blocks the rest?": the release before the newest, by its version (r31 q51)
        result = _answer_message(older, conn, allow_files)
        note = (f"_{', '.join(repr(p) for p in phrases)} leído como la versión anterior a la más nueva._"
                if result.language == "es" else f"_Read {', '.join(repr(p) for p in phrases)} as the release before "
                "the newest._")
        result.text = _before_sources(result.text, note)
        result.question = question
        return result
    said_lang = entities.language(question)
    counts = status_counts.status_parts(conn, question, said_lang)
    if counts:  # "how many fall back on neuron 2.14.3.1, how many are unsupported? and on 2.13.3.0?": each, at each (r31 q9)
        first, second = (_answer_one(p, conn, allow_files, said_lang) for p in counts)
        if first.intent not in understand.WEAK and second.intent not in understand.WEAK:
            return understand.combine(question.strip(), counts, first, second, _shown(said_lang))
    many = sections.split_all(question)
    if many:  # three or more parts: a section each (29s)
        whole_text = understand.unnumbered(question)
        lang = entities.language(whole_text)
        return sections.answer_all(whole_text, many, lang, lambda p: _answer_one(p, conn, allow_files, lang),
                                   lambda: _answer_one(whole_text, conn, allow_files), out_lang=_shown(lang))
    again = understand.again_at(question)
    if again:  # "X on tpu 0.1.1? and on 0.2.0?": each version its own section (held-out r11 q61)
        lang = entities.language(question)
        first, second = (_answer_one(p, conn, allow_files, lang) for p in again)
        if first.intent not in understand.WEAK and second.intent not in understand.WEAK:
            return understand.combine(question.strip(), again, first, second, _shown(lang),
                                      [{"part": 2, "carried": {"version": again[1]}}])
    releases_asked = understand.two_releases(question)
    if releases_asked:  # "¿qué PyTorch soportan los SDK 2.29 y 2.30?": a release card each (r20 q47)
        lang = entities.language(question)
        first, second = (_answer_one(p, conn, allow_files, lang) for p in releases_asked)
        if first.intent == second.intent == "release" and not understand.same_answer(first, second):
            first, second = fold.fit_pair(first, second)
            return understand.combine(question.strip(), releases_asked, first, second, _shown(lang))
    parts = understand.split_two(question)
    question = understand.unnumbered(question)  # "Q1: … Q2: …" read whole without its numbers
    if parts:
        lang = entities.language(question)
        read, carried = understand.carry_context(carry_topic(parts), lang)
        first, second = (_answer_one(p, conn, allow_files, lang) for p in read)
        lead = parts[1].split("?")[0] + "?"  # "¿Y en Inf2 o Trn1? Tenemos un servicio…": the question, not the remark
        if second.intent == "compare" and first.intent == "eol" and understand.only_context(lead, lang) \
                and (there := understand.asked_there(read[0], lead, lang)) is not None:
            # "¿NxD Inference sigue teniendo soporte en Trn2? ¿Y en Inf2 o Trn1?": that end of support there, not the
            # two places' op verdicts compared (r31 q31)
            first, second = fold.fit_pair(first, _answer_one(there, conn, allow_files, lang))
            return understand.combine(question.strip(), (read[0], there), first, second, _shown(lang),
                                      carried + [{"part": 2, "carried": {"question": there}}])
        if _cost_part_short(first, second):
            # "the box is $7.50/h at 1800 tokens/s — price per million, and what does the 50M cost us?": the numbers
            # of one part are the other's too; the whole message is one cost answer (it prices the 50M as well, r33 q19)
            whole = _answer_one(question, conn, allow_files)
            if whole.intent == "cost" and any("price_per_hour" in f for f in whole.facts or [] if isinstance(f, dict)):
                return fold.fit(whole)
        if understand.same_answer(first, second):  # both clauses answered alike: said once (held-out r10 q47)
            return fold.fit(_answer_one(question, conn, allow_files))
        if understand.answers_both(first, second) or (
                first.intent == second.intent == "op" and (understand.own_ops(read, lang) or understand.op_carried(carried))) \
                or any("family" in (c.get("carried") or {}) for c in carried) \
                or first.intent == second.intent and first.intent in ("family", "ops_by_status"):
            # the family again, by another status; two counts or lists asked apart ("how many fft ops fall back on
            # neuron? and how many are unsupported on tpu 0.2.0 vs 0.1.1?", r31 q12)
            first, second = fold.fit_pair(first, second)  # two sections past one screen: their lists folded (29r)
            return understand.combine(question.strip(), read, first, second, _shown(lang), carried)
        if understand.one_unread(first, second) and second.intent in understand.WEAK \
                and (there := understand.asked_there(read[0], read[1], lang, unread=True)) is not None:
            again = _answer_one(there, conn, allow_files, lang)  # "…on tpu 0.1.1, and how much better is 0.2.0?" (r21 q11)
            if again.intent not in understand.WEAK:
                first, second = fold.fit_pair(first, again)
                return understand.combine(question.strip(), (read[0], there), first, second, _shown(lang),
                                          carried + [{"part": 2, "carried": {"question": there}}])
        if understand.one_unread(first, second):  # 29l: the part that reads as nothing says so, in one line
            whole = _answer_one(question, conn, allow_files)
            strong = first if second.intent in understand.WEAK else second
            weak = parts[1] if strong is first else parts[0]
            if whole.intent != strong.intent or understand.only_context(weak, lang) or understand.which_ones(weak) \
                    or understand.said_aside(weak):
                return whole  # the whole question reads as something else, or the weak part only says where
            first, second = (understand.unread_part(p, _shown(lang)) if a.intent in understand.WEAK else a
                             for p, a in zip(read, (first, second)))
            return understand.combine(question.strip(), read, first, second, _shown(lang), carried)
    return fold.fit(_answer_one(question, conn, allow_files))  # past one screen: its lists folded (29r)


def _needs_numbers(result: Answer) -> bool:
    """A cost answer that asks for the price or the rate it lacks."""
    return any(f.get("missing") for f in result.facts or [] if isinstance(f, dict))


def _cost_part_short(first: Answer, second: Answer) -> bool:
    """Two cost parts, one of them without the numbers the other gives."""
    return first.intent == second.intent == "cost" and (_needs_numbers(first) or _needs_numbers(second))


def _answer_one(question: str, conn: sqlite3.Connection, allow_files: bool, lang: str | None = None) -> Answer:
    """One question, one reading; `lang`: the whole question's language for a clause of it."""
    question = understand.count_without_context_ops(question or "")
    ents = entities.extract(question or "", lang)
    ents.models = list(dict.fromkeys(ents.models + [m.lower() for m in gallery_models(question or "")]))
    q = intents.read(ents.english)  # a Spanish question is read in the reader's English (kb.chat.entities)
    ents.language = _shown(ents.language)  # read in its own language, answered in the one asked for
    q.language = ents.language
    top, other = scoring.best(q, ents)
    if top is not None and top.intent == "policy" and op_first.names_op(conn, q):
        top = other = None  # "does nonzero run natively or does it fall back?": that op's verdict (29k)
    if top is not None and top.intent == "ops_list" and not re.search(r"\b(ops|operators|kernels)\b", q.text.lower()) \
            and sdk_version_asked(conn, q):
        top = other = None  # "what did neuron 2.33 bring for native pytorch?": the SDK release's news (29i), not an op list
    try:
        result = op_since.since_answer(conn, q) if op_since.asks_since(q.text) else None  # (29s)
        if result is not None:
            top = other = None
        else:
            result = switch_answer(conn, q, ents.language)  # "is there a switch so a failed graph runs eagerly?" (r12 q34)
            if result is None and not (q.op_words or q.function_words):
                result = package_on_instance(conn, question, ents.language)  # "does TorchAO Neuron work on trn2?"
            if result is None:
                result = throughput_answer(q, ents)  # "how many tokens/s will Llama 3.1 8B do on it?" (r31 q20)
            if result is None:
                result = topic_answer(conn, q)  # "what changed for PyTorch/XLA users in Neuron 2.34?": that product's records
        if result is not None:
            other = None
        elif top:
            result = scored_answer(conn, q, ents, top, allow_files)
        if isinstance(result, str):  # a classic handler, with the reading the scores gave
            result = _HANDLERS[result](conn, q)
        if result is None and (news := sdk_version_asked(conn, q)):
            result = sdk_news(conn, q, news)  # "what's new in Neuron 2.34?": the SDK release, not only an op diff
        if result is None:
            q.intent = route(conn, q)
            if q.intent == "model" and allow_files and q.model_path and os.path.isfile(q.model_path):
                handler = model_checked_answer
            else:
                handler = _HANDLERS.get(q.intent, _unknown)
            result = handler(conn, q)
            if result.intent == "unknown" and (release := _release_named(conn, q)) is not None:
                result = release  # "torchneuron 2.14.3.0, what's the deal?": the release it names (29p)
            if result.intent == "unknown" and (kept := continuity_answer(conn, q, question or "")) is not None:
                result = kept  # "our exporter reads neuron-ls -j, will that break?": the statement naming it (s11)
    except KBError as exc:  # bad target, bad version...: a reply, not a crash
        result = Answer(q.text, q.intent, f"I can't answer that: {exc}", facts=[{"error": str(exc)}])
    if result.intent == "help" and ents.language == "es":
        result = _help(conn, q, es=True)
    if result.intent == "eol":  # "when does ... end?": a date headline, not yes/no (r2-29 #14)
        result.text = when_headline(q.text, result.text, result.language == "es")
    if other is not None:
        result = with_other_reading(result, other, ents.language)
    result.text = caveat_notes.with_notes(result.text, caveat_notes.notes(conn, q, ents, result.intent))
    if result.intent == "unknown" and (named := understand.unknown_model(q.text, ents.language, q.target_names())):
        result = named  # "foobarnet 9b on trn2?": a model the KB does not know, and how to check it
    if result.intent == "unknown" and (other_op := other_library_op(question, q.target_names(), ents.language)):
        result = other_op  # "torchvision.ops.nms on trn2?": no ATen op, and how kb check settles it (r30 q8)
    result.question = (question or "").strip()
    result = spanish.in_spanish(result) if ents.language == "es" else result
    result = understand.with_readings(conn, result, q, ents)
    result.text = finish_quotes(result.text, result.language)
    return result


# ---------------------------------------------------------------- routing

DIFF_CUES = r"\b(chang\w*|diff\w*|gain\w*|lost|new in|what'?s new|added|removed|between|from .* to|since)\b"
AS_IS = r"\bas[ -]is\b|\bunchanged\b|\bwithout (?:any )?changes?\b"
LIST_CUES = r"\b(ops|operators|kernels|layers|functions)\b|^\s*(which|list|show|what)\b"


# "known limitations", "limitaciones conocidas": the limitation table asked for by name
_LIMITS_ASKED = re.compile(r"\blimitations?\b|\blimitaci[oó]n(?:es)?\b|\bknown issues\b", re.I)


_LIST_OPENING = re.compile(r"^\s*(?:does\s+)?(?:which|what|list|show|how many)\b[^?(]{0,40}\b(?:ops|operators|kernels)\b")


def route(conn: sqlite3.Connection, q: Question) -> str:
    """Refine kb.chat.intents' reading with the KB's vocabulary: version comparisons,
    release questions (registry products), op families, and limitation words."""
    intent, text = q.intent, q.text.lower()
    if intent == "model" and not q.model_path and not (q.op_words or q.function_words) \
            and [w for w, _ in names.features_in(q.text) if w not in names.GENERIC_FEATURES]:
        return "limitation"  # "my model uses float64 in places: what does neuron do with float64?" (r22 q40)
    if intent in ("help", "model") or not text:
        return intent
    if intent != "eol" and collective_in(q.text):  # torch.distributed.all_reduce: a doc rule, no ATen op
        return "collective"
    feature_words = {w for w in names.FEATURE_WORDS if "." in w}
    explicit_op = bool(q.op_words or [w for w in q.function_words if w.lower() not in feature_words])
    # a torch.nn module named in any capitalisation (nn.MultiHeadAttention) is as explicit as an op
    explicit_op = explicit_op or any(torchnames.looks_like_module(w) and torchnames.resolve_module(w)
                                     for w in q.plain_words)
    # "in which version was pixel_shuffle added?": a catalog op's own name with an `_` is no English word, so it
    # is as explicit as aten::pixel_shuffle (29t); a family's word ("log_softmax") still names its family
    # ... unless it is the word that qualifies "ops" in a list ("the batch_norm ops that fall back"): the list's filter (s8)
    qualifier = _list_word(conn, q)
    # "qué ops de normalización (batch_norm, group_norm y eso) caen a cpu?": names in parentheses after a list's
    # opening are examples of the family asked, not the ops asked (r20 q13)
    examples = _LIST_OPENING.match(text) and families.families_in(q.text)
    outside = re.sub(r"\([^)]*\)", " ", q.text) if examples else q.text
    explicit_op = explicit_op or any("_" in w.strip("_") and w.lower() in _op_bases(conn) and families.family(w) is None
                                     and w.lower() != qualifier and w in outside for w in q.plain_words)
    series = len(set(q.statuses) - {"supported"}) >= 3 or entities.STATUS_SERIES.search(text) is not None
    if not explicit_op and len(q.targets) == 1 and (entities.BY_STATUS.search(text) or series and (
            _OP_COUNT.search(text) or re.match(r"\s*(?:how many|number of) (?:aten )?(?:ops|operators)\b", text))):
        return "ops_overview"  # "op coverage numbers for 2.14.3.1: native / decomposed / fallback / unsupported" (r26 q12)
    if intent in ("op", "compare", "unknown") and not explicit_op and len(q.targets) == 1 \
            and (set(q.statuses) <= ({"supported"} if _HOW_MANY.search(text) else set()) or len(set(q.statuses)) >= 3) \
            and (_OVERVIEW.search(text) or _HOW_MANY.search(text) or _OP_COUNT.search(text)) \
            and scoring.list_status(q.text) is None:
        return "ops_overview"  # "what ops does the neuron pytorch/xla op list cover for 2.9.0.2.15?": counts by status
    if intent != "eol" and not explicit_op and _names_stack(q):
        return "eol"  # "neuron 2.33 with python 3.11, ubuntu 22.04 and trn1 — anything wrong?": a stack check
    targets = q.target_names()
    if len(targets) == 1 and not explicit_op and re.search(DIFF_CUES, text):
        versions = {m.version for m in q.targets if m.version} | {v for v in q.versions if "." in v}
        if len(versions) >= 2 or (len(versions) == 1 and re.search(
                r"\b(new in|what'?s new|changed in|changes in|(?:gain|gained|lose|lost|add|added) in)\b", text)):
            return "diff"
    stated_eol = any(p in text for p in intents.EOL_PATTERNS) or re.search(r"\b(eol|eos)\b", text)
    # "is Ubuntu 22.04 supported by TorchNeuron in Neuron 2.34?": a platform in an SDK release is a stack question
    sdk_stack = any(v and p in intents.PLATFORM_PRODUCTS for p, v in q.products) and any(
        m.target == "neuron" and m.version and releases.find(conn, "neuron-sdk", m.version)
        and not releases.find(conn, "torchneuron", m.version) for m in q.targets)
    if intent == "eol" and (stated_eol or sdk_stack or intents.still_supported(text) or intents.release_ends(text)
                            or intents.stopped(text) or intents.lost_support(text)):
        return intent
    if intent == "eol" and not explicit_op and any(v and p in intents.PLATFORM_PRODUCTS for p, v in q.products) \
            and re.search(r"\bsupported\b|\bsupports?\b", text):
        return intent  # "is ubuntu 24.04 supported on trn2?": the platform's support, not a release card
    named_feature = [w for w, _ in names.features_in(q.text) if w not in names.GENERIC_FEATURES]
    if named_feature == ["compile mode"] and any(w.lower() in _op_bases(conn) or families.family(w)
                                                 for w in q.plain_words):
        named_feature = []  # "dropout in compile mode on tpu": the op's mode, not torch.compile's mode= (s8d-regb)
    # "cuántas ops de fft hacen fallback en neuron?", "how many native kernels does tpu 0.2.0 have vs 0.1.1? how much
    # bigger got the coverage": ops counted by status, whatever feature word is beside them (r22 q15, q16)
    counts_ops = bool(re.search(r"\b(?:ops|operators|kernels)\b|\b(?:is|are) there (?:any|some) ops?\b", text)) \
        and scoring.list_status(q.text) is not None
    if named_feature and not explicit_op and not counts_ops and intent in ("op", "unknown", "ops_by_status", "compare") \
            and not names.is_release_question(re.sub(r"\b(?:py)?torch\b", " ", text)):
        return "limitation"  # "PyTorch's Inductor with TPU tensors, does it work?": "PyTorch" names no release (s8c-intent3)
    if not explicit_op and names.is_release_question(q.text) and intent not in ("caveat", "limitation") \
            and not re.search(r"\b(ops|operators|kernels)\b", text) and names.release_reading(conn, q) is not None:
        return "release"
    if intent == "eol":
        return intent
    if not explicit_op and _LIMITS_ASKED.search(text) and len(names.features_in(q.text)) >= 2:
        return "limitation"  # "known limitations of Neuron 2.33 with torch.sparse, torch.fft and float64?": rows (r14 q47)
    fams = families.families_in(q.text)
    bases = _op_bases(conn) if fams else set()
    plain_op = any(w.lower() in bases and families.family(w) is None for w in q.plain_words if "_" in w and w in outside)
    if fams and not explicit_op and not plain_op and intent != "caveat":
        # "does multinomial sampling run on tpu?": a catalog op the family word only qualifies is the op asked (r13 q57)
        word_is_op = any(w.lower() in bases for w in q.plain_words if families.family(w) in (fams[0], None))
        if re.search(LIST_CUES, text) or not word_is_op:
            # "do complex ops run as is on neuron?": whether a feature runs unchanged is its limitation row (29o)
            if not (names.features_in(q.text) and (not re.search(LIST_CUES, text) or re.search(AS_IS, text))):
                return "family"
    if not explicit_op and q.targets and _filtered_list(conn, q):
        return "ops_by_status"  # "which pad ops are unsupported on tpu?": a list filtered by name, not aten::pad (29k)
    feats = names.features_in(q.text)
    mode_only = feats and all(w in ("compile mode", "torch.compile", "eager mode") for w, _ in feats)
    if mode_only and intent == "op" and any(w.lower() in _op_bases(conn) for w in q.plain_words):
        return intent  # "dropout in compile mode on tpu": the op's compile verdict, "compile mode" is its mode
    if mode_only and counts_ops and intent == "ops_by_status":
        return intent  # "in compile mode which ops fall back on neuron?": the list in that mode (r25 q16)
    if feats and not explicit_op and intent in ("op", "unknown", "ops_by_status", "compare"):
        return "limitation"
    return intent


# Words that name a package line, whose version is a release of it (a target word's version is the target's).
_PACKAGE_WORDS = frozenset({"torchneuron", "torch-neuronx", "torch_neuronx", "torch_tpu", "torch-tpu", "torchtpu",
                            "torch-neuron", "torch_neuron", "neuron-sdk", "neuron_sdk"})
RELEASE_READ = {"en": "_Read as a question about the release itself: the other words name nothing the KB knows._",
                "es": "_Leído como una pregunta sobre la versión misma: las demás palabras no nombran nada que el KB conozca._"}


def _release_named(conn: sqlite3.Connection, q: Question) -> Answer | None:
    """A question that reads as nothing but names one product at a version the registry holds: that
    release's card, said to be read so. Unknown words are neutral; the entity named decides (29p)."""
    if q.op_words or q.function_words or q.statuses or len(q.targets) != 1 or not q.targets[0].version:
        return None
    mention = q.targets[0]
    if not (mention.sdk or mention.word.lower() in _PACKAGE_WORDS):
        return None  # "blah blah tpu 0.2.0" names a target, whose ops kb.chat.answer_unknown's command lists (29k)
    if names.release_reading(conn, q) is None:
        return None
    result = release_answer(conn, q)
    if result is None or result.intent != "release":
        return None
    result.text = RELEASE_READ["es" if q.language == "es" else "en"] + "\n\n" + result.text
    result.facts = [{"read_as": "release"}] + list(result.facts)
    return result


def _list_word(conn: sqlite3.Connection, q: Question) -> str | None:
    """The name word a list question puts on "ops" ("which batch_norm ops fall back?"), when it asks a status."""
    if scoring.list_status(q.text) is None or not re.search(r"\b(ops|operators|kernels)\b", q.text.lower()):
        return None
    named = list_filter.name_filter(conn, q.text)
    return named.word if named is not None and named.kind == "grep" else None


def _filtered_list(conn: sqlite3.Connection, q: Question) -> bool:
    """A list question whose words name which ops ("which pad ops fall back on neuron?"): the
    status it asks for goes first in q.statuses, for `_ops_by_status`."""
    status = scoring.list_status(q.text)
    # "anything with 'norm' in the name that doesn't work on tpu 0.1.1?": a list too (r25 q15)
    if status is None or not re.search(LIST_CUES + r"|^\s*(?:anything|everything|any ops?)\b", q.text.lower()):
        return False
    named = list_filter.name_filter(conn, q.text)
    if named is None or named.kind != "grep":
        return False
    q.statuses = [status] + [s for s in q.statuses if s != status]
    return True


# "how many ops does tpu support now?", "how many operators can neuron run?" (29l): the counts by status
_HOW_MANY = re.compile(r"^\s*(?:how many|number of)\s+(?:aten\s+)?(?:ops|operators|kernels)\b"
                       r".*\b(?:support|supports|run|runs|have|has|cover|covers|handle|handles)\b")
# "what is the op count on tpu?", "number of ops on neuron 2.14.3.1" (29p): the counts by status too
_OP_COUNT = re.compile(entities.OP_COUNT)
_OVERVIEW = re.compile(r"^\s*(?:what|which)\s+(?:aten\s+)?(?:ops|operators)\s+(?:(?:does|do|is|are|did)\b.*)?"
                       r"\b(?:cover|covers|covered|know|knows|include|includes|list|lists|have|has)\b")


def _versions_with_data(conn: sqlite3.Connection, mention, lines: list[str]):
    """The mention's versions that hold verdicts; when none does, a line saying so (and which
    versions do) is added to `lines`, since an empty list would read as "no such ops"."""
    pick = pick_versions(conn, mention)
    versions = [v for v in pick.versions if v in pick.with_data]
    if not versions:
        lines.append(f"**{mention.target}** {pick.label}: **unknown** — no verdicts for that version "
                     f"(versions with data: {', '.join(pick.with_data) or 'none'}).")
    return pick, versions


def _ops_overview(conn: sqlite3.Connection, q: Question) -> Answer:
    """What a target version's op list covers: its verdicts counted by status, and how many
    catalog ops it says nothing about (unknown, not unsupported)."""
    mode = "compile" if "compile" in q.text.lower() else "eager"
    src = Sources()
    lines: list[str] = []
    facts: list[dict[str, Any]] = []
    for mention in q.targets:
        pick, versions = _versions_with_data(conn, mention, lines)
        if not versions:
            continue
        listing = queries.list_ops(conn, mention.target, None, versions[-1], mode)
        by_status: dict[str, list[dict[str, Any]]] = {}
        for row in listing["ops"]:
            by_status.setdefault(row["status"], []).append(row)
        cover = listing["coverage"]
        counts = ", ".join(f"{SYMBOLS.get(st, '?')} {len(rows):,} ops **{st}** {src.cite(rows[0])}"
                           for st, rows in sorted(by_status.items(), key=lambda kv: -len(kv[1])))
        unknown = (f"; ? {cover['unknown']:,} ops **unknown** (catalog ops it says nothing about, not counted as "
                   f"unsupported)") if cover["unknown"] else ""
        lines.append(f"**{mention.target}** {listing['backend_version']} ({mode}): {counts or 'no verdicts'}{unknown}.")
        for st in by_status:
            lines.append(f"- `kb ops --target {mention.target}={listing['backend_version']} --status {st}"
                         f"{' --mode compile' if mode == 'compile' else ''}`")
        facts.append({"target": mention.target, "backend_version": listing["backend_version"], "mode": mode,
                      "counts": {st: len(rows) for st, rows in by_status.items()}, "unknown": cover["unknown"],
                      "known": cover["known"]})
    claim = claimed_coverage(conn, q, src)
    if claim:  # "how many ATen ops do they say it covers?": the vendor's figure first (r11 q47)
        lines[:0] = [claim[0], ""]
        facts[:0] = [claim[1]]
    return Answer(q.text, "ops_by_status", "\n".join(lines) + src.markdown(), facts, src.items)


def _names_stack(q: Question) -> bool:
    """A release with a version and a platform with a version (Python, Ubuntu...) besides: the
    question describes a stack, which `kb eol --stack` checks (m4 Q76)."""
    platforms = [p for p, v in q.products if v and p in intents.PLATFORM_PRODUCTS and p != "pytorch"]
    release = any(m.version and m.target in ("neuron", "tpu", "neuron-xla") for m in q.targets)
    return bool(platforms) and release and len([v for _, v in q.products if v]) >= 2


def _op_bases(conn: sqlite3.Connection) -> set[str]:
    return {n[6:].split(".")[0] for n in queries.known_op_names(conn) if n.startswith("aten::")}


def _family_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    spelled = list_filter.literal(conn, q.text)
    if spelled is not None:  # "ops whose name contains 'conv'": the user's substring, not the family (29q)
        return family_answer(conn, q, literal=spelled.word)
    fam = families.families_in(q.text)[0]
    member = next((w.lower() for w in q.plain_words if families.family(w) is fam
                   and list_filter.member_op(conn, w.lower(), fam)), None)
    if member is None:  # "which sort ops…": the word that qualifies "ops", read as the list filter reads it (s8)
        named = list_filter.name_filter(conn, q.text)
        member = named.word if named is not None and named.kind == "grep" else None
    if member is not None:  # "which scatter ops fall back?": the ops named scatter, not all of indexing (29t)
        return family_answer(conn, q, literal=member)
    return _family_read(conn, q)


def _family_read(conn: sqlite3.Connection, q: Question) -> Answer:
    fams = families.families_in(q.text)
    fam = fams[0]
    words = [w for w in q.plain_words if families.family(w) is fam and w.lower() in _op_bases(conn)]
    note = (f"`{words[0]}` is read as the {fam.name} family; for the single op ask "
            f"`is aten::{words[0].lower()} native on {(q.target_names() or ['tpu'])[0]}?`") if words else ""
    return family_answer(conn, q, fam, note)


# ---------------------------------------------------------------- intents


def _help(conn: sqlite3.Connection, q: Question, es: bool = False) -> Answer:
    targets = ", ".join(f"`{t}`" for t in queries.target_names(conn))
    if es:  # a Spanish "ayuda": written in Spanish here, the examples as they are asked in Spanish (29f)
        return Answer(q.text, "help", "\n".join([
            "Respondo desde la base de conocimiento de kb (cada respuesta cita sus fuentes). Pregúntame:",
            "- **estado de un op**: `¿aten::nonzero es nativo en neuron 2.33?`, `¿anda torch.nn.functional.silu en tpu?`",
            "- **comparar destinos**: `compara nonzero entre neuron y tpu`",
            "- **qué cae a la CPU**: `¿qué ops caen a la CPU en tpu 0.2.0?`; para un modelo, "
            "`kb check modelo.pt2 --target tpu`",
            "- **fin de soporte**: `¿hasta cuándo hay soporte de Python 3.12 en Neuron?`",
            "- **limitaciones conocidas**: `¿neuron soporta float64?`",
            "- **coste**: `¿cuánto sale el millón de tokens a 7,5 USD la hora y 1800 tokens/s?` (la fórmula de `kb cost`)",
            "- **política de fallback**: `¿qué pasa si a neuron le falta un op en modo compile?`",
            "- **soporte de una función**: `¿sigue soportado el entrenamiento con PyTorch/XLA en Trn1?`",
            "- **modelos**: `¿corre Mixtral en trn2?`, `¿qué trae la 2.34?`",
            f"Destinos: {targets}. Versiones: `neuron 2.33` es una versión del Neuron SDK, `tpu 0.2.0` una versión "
            "de torch_tpu.",
        ]), facts=[{"targets": queries.target_names(conn)}], language="es")
    text = "\n".join([
        "I answer from the kb knowledge base (every answer cites its sources). Ask me:",
        "- **op status**: `is aten::_scaled_dot_product_flash_attention native on neuron 2.33?`, "
        "`does torch.nn.functional.silu run on tpu?`",
        "- **compare targets**: `what's the difference between neuron and tpu for nonzero?`",
        "- **what falls back**: `what falls back to CPU on tpu?`; for a model, run "
        "`kb check model.pt2 --target tpu`",
        "- **end of support**: `when does PyTorch 2.9 leave support on Neuron?`",
        "- **known limitations**: `does neuron support float64?`, `known limitations of neuron 2.33`",
        "- **cost**: `price per million tokens at 7.5 USD an hour and 1800 tokens/s` (the `kb cost` formula)",
        "- **fallback policy**: `what does neuron do with an op it lacks in compile mode?`",
        "- **a feature's support**: `is PyTorch/XLA training still supported on Trn1?`",
        "- **en español**: `¿cuándo termina el soporte de Python 3.10 en Neuron?` (answered in Spanish)",
        f"Targets: {targets}. Versions: `neuron 2.33` is a Neuron SDK release, `tpu 0.2.0` a torch_tpu version.",
    ])
    return Answer(q.text, "help", text, facts=[{"targets": queries.target_names(conn)}])


def _unknown(conn: sqlite3.Connection, q: Question) -> Answer:
    """Not placed: the kb command most likely to answer, from what the question names (29k)."""
    from kb.chat.answer_unknown import unknown_answer

    return unknown_answer(conn, q)


def _verdict_line(v: dict[str, Any], src: Sources) -> str:
    restrict = []
    if v.get("dtypes"):
        restrict.append("dtypes " + ", ".join(v["dtypes"]))
    for key, value in (v.get("conditions") or {}).items():
        restrict.append(f"{key}: {value}")
    extra = f" ({'; '.join(restrict)})" if restrict else ""
    dis = " — sources disagree: " + ", ".join(f"{md(k)} says {md(s)}" for k, s in (v.get("sources") or {}).items()) \
        if v.get("disagreement") else ""
    note = f" — {md(v['note'])}" if v.get("note") else ""  # record text: shown, never markup
    runs = ""
    if v["status"] == "decomposed":
        effective = verdict.effective_status(v)
        where = verdict.runs(v)
        runs = f", runs as {SYMBOLS.get(effective, '?')} **{where}**" if effective != "decomposed" else f" ({where})"
    basis = v.get("basis") or "evidence"
    basis_text = {"inferred": " — _inferred: dispatcher replay of a kernel list_",
                  "presumed": " — _presumed: carried from an older version_"}.get(basis, "")
    if v.get("report"):
        basis_text += f" — _{describe(v['report'])}, not a shipped source_"
    return (f"{SYMBOLS.get(v['status'], '?')} **{v['status']}**{runs} on {v['target']} {v['product']} "
            f"{v['backend_version']} ({v['mode']}){extra}{basis_text}{note}{dis} {src.cite(v)}")


DEVICE_TARGETS = ("neuron", "neuron-xla", "tpu")  # what "everywhere" means when no target is named


def _mentions_for(q: Question, rows: list[dict[str, Any]],
                  asked: list[TargetMention] | None = None) -> tuple[list[TargetMention], list[str]]:
    """Targets to answer for: those named (`asked`: with the other releases named, kb.chat.op_versions);
    else those with a verdict for the op, and the device targets without one (listed once as unknown)."""
    if q.targets:
        return asked or q.targets, []
    with_rows = list(dict.fromkeys(r["target"] for r in rows))
    return [TargetMention(t) for t in with_rows], [t for t in DEVICE_TARGETS if t not in with_rows]


def _op_answer(conn: sqlite3.Connection, q: Question, src: Sources | None = None) -> Answer:
    """Verdicts for the ops asked about; with `src`, cites into the caller's sources and
    leaves the source list to the caller."""
    matches, missing, suggestions = find_ops(conn, q)
    if not matches:
        limitation = _limitation_hits(conn, q)
        if limitation:
            return _limitation_answer(conn, q, limitation)
        return _unknown_op(conn, q, missing, suggestions)
    own_sources = src is None
    src = src or Sources()
    lines: list[str] = []
    facts: list[dict[str, Any]] = []
    both_modes = mode_contrast.names_both_modes(q.text)  # "in eager and compile": both said, also when equal (29q)
    mode = "compile" if "compile" in q.text.lower() and not both_modes else "eager"
    if both_modes and (asked := mode_contrast.asked_mode(q.text)):
        both_modes, mode = False, asked  # "ok under torch.compile? in eager it seemed to work": compile asked (r10 q3)
    open_mode = mode_contrast.names_no_mode(q.text)
    also_compile = mode_contrast.follow_up_mode(q.text)  # "…? and in compile mode?": eager, compile beside it (29r)
    if also_compile:
        mode, open_mode = "eager", True
    # one mode named: the other said beside it where it differs ("under torch.compile": eager falls back, r11 q2)
    beside = mode_contrast.other_mode(mode) if not (open_mode or both_modes) else "compile"
    past = op_history.asks_history(q.text)  # "which version added X?": the releases it changed in (29r)
    history_heads: list[tuple[str, str]] = []
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (eager, compile) verdicts that differ
    agreed: list[tuple[dict[str, Any], dict[str, Any]]] = []  # ... and, asked for both modes, those that agree
    verdict_for_yes_no: list[dict[str, Any] | None] = []
    yes_no_ops: list[str] = []  # the op of each verdict_for_yes_no entry
    named: set[str] = set()  # the exact ops the question names ("aten::_scaled_mm", not its .out)
    asked_mentions = op_versions.mentions(conn, q)  # "…on tpu 0.2.0? pretty sure it was on 0.1.1": both (r11 q3)
    newer: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (verdict at an older release asked, the newest's)
    for match in matches:
        if match.how == "module-map":  # a torch.nn layer: kb.chat.answer_module
            from kb.chat.answer_module import module_lines

            if match.read_as:  # "nn.Upsampel": say how it was read, as a target typo is (29n)
                said = "_Leí `{}` como `{}`._" if q.language == "es" else "_Read `{}` as `{}`._"
                lines.append(said.format(match.asked, match.read_as))
            lines += module_lines(conn, q, match, src, facts, mode)
            continue
        if match.note:
            lines.append(f"_{match.note}._")
        fam = families.family(match.asked) if match.how == "exact" and "::" not in match.asked else None
        if fam is not None:
            lines.append(f"_`{match.asked}` read as the op; it also names the {fam.name} family: ask "
                         f"`which {fam.name} ops fall back on {(q.target_names() or ['tpu'])[0]}?` for all of them._")
        ops = _focus(conn, match.ops)
        if match.chosen:  # "x.bernoulli_(0.5)": the overload its argument reaches answers
            named.add(match.chosen)
        elif match.how == "exact":
            named |= {o for o in ops if o == match.asked or o == f"aten::{match.asked}"}
        elif match.how in ("function-name", "backward") or (match.how == "typo" and not opnames.names_one_overload(match.asked)):
            # torch.bincount dispatches to the default overload, aten::bincount: its verdict is the
            # headline's, and aten::bincount.out's stays in the rows below (29n)
            named |= {o for o in ops if "." not in o.partition("::")[2]}
        for op in ops:
            lines.append(f"**`{op}`**")
            rows = queries.op_verdicts(conn, [op], mode=mode)
            mentions, silent = _mentions_for(q, rows, asked_mentions)
            shown: list[dict[str, Any]] = []
            for mention in mentions:
                pick = pick_versions(conn, mention)
                mine = [r for r in rows if r["target"] == mention.target]
                chosen = [r for r in mine if r["backend_version"] in pick.versions] if pick.versions else []
                if mention.version is None and mine and not chosen:  # newest version with a verdict for this op
                    newest = max((r["backend_version"] for r in mine), key=queries.version_key)
                    chosen = [r for r in mine if r["backend_version"] == newest]
                if chosen and past:
                    said, more, said_facts = op_history.history(conn, op, mention.target, mode, src, q.language == "es")
                    history_heads += [(op, said)] if said else []
                    lines += more
                    facts += said_facts
                if chosen and mention.version and len(asked_mentions) == 1:
                    newer += _newer_pairs(conn, chosen, pick, mode) or _lost_pairs(conn, chosen, pick, mode)
                if chosen:
                    shown += chosen
                    compiled = mode_contrast.compile_rows(conn, chosen, every=both_modes or also_compile or open_mode,
                                                          mode=beside)
                    for v in chosen:
                        lines.append("- " + _verdict_line(v, src))
                        facts.append(_fact(v))
                        verdict_for_yes_no.append(v)
                        yes_no_ops.append(op)
                        other = compiled.get((v["op"], v["target"], v["backend_version"]))
                        if (both_modes or also_compile) and other is None:
                            lines.append("  - " + mode_contrast.no_compile_line(q.language == "es"))
                        elif (both_modes or also_compile) and not mode_contrast.differs(v, other):
                            lines.append("  - " + mode_contrast.same_line(other, q.language == "es") + " "
                                         + src.cite(other))
                            facts.append(_fact(other))
                            agreed.append((v, other))
                        elif other is not None and not mode_contrast.differs(v, other):
                            # the mode left open ("will it blow up?"): compile agrees, said once under the headline
                            agreed.append((v, other))
                        elif other is not None:  # the other mode says otherwise: both (29n)
                            lines.append("  - " + _verdict_line(other, src))
                            facts.append(_fact(other))
                            pairs.append((other, v) if mode == "compile" else (v, other))
                    continue
                facts.append({"op": op, "target": mention.target, "backend_version": pick.asked, "mode": mode,
                              "status": UNKNOWN})
                verdict_for_yes_no.append(None)
                yes_no_ops.append(op)
                lines.append("- " + _no_verdict_line(mention, pick, mine, src, facts))
            if silent:
                lines.append(f"- ? **unknown** on {', '.join(silent)}: the KB has no evidence for this op there")
                facts += [{"op": op, "target": t, "mode": mode, "status": UNKNOWN} for t in silent]
            catalog = queries.op_catalog_entry(conn, op)
            if catalog and catalog.get("composite_implicit"):
                lines.append(_implicit_line(op, catalog, shown))
                facts.append({"op": op, "catalog": "composite_implicit", "torch_version": catalog["torch_version"]})
        hidden = len(match.ops) - len(ops)
        if hidden > 0:
            lines.append(f"_…and {hidden} more overloads of `{opnames.base_name(match.ops[0])}`: "
                         f"ask for one by name, e.g. `{match.ops[-1]}`._")
    if missing:
        lines.append(_missing_line(missing, suggestions))
    if named and any(v is not None and o in named for o, v in zip(yes_no_ops, verdict_for_yes_no)):
        # the op named has its own verdict: the headline follows it, not its overloads' (m4 Q03)
        others = [v for o, v in zip(yes_no_ops, verdict_for_yes_no) if o not in named and v is not None]
        verdict_for_yes_no = [v for o, v in zip(yes_no_ops, verdict_for_yes_no) if o in named]
    else:
        others = []
    head = _qualified(conn, _yes_no(q, verdict_for_yes_no), [v for v in verdict_for_yes_no if v is not None])
    head = _on_instances(head, [v for v in verdict_for_yes_no if v is not None], q)
    if head is None and own_sources and q.intent == "op" and _asks(q.text):
        # "tpu chokes on torch.roll?": a verb kb does not know; the verdict said plainly, never a guessed yes/no (29s)
        head = plain_verdict.headline(verdict_for_yes_no, q.language or "en",
                                      lambda h, rows: _qualified(conn, h, rows))
    aside = _other_overloads(verdict_for_yes_no, others) if head else None
    if head and head.startswith("**It depends"):
        head = _per_target_head(conn, q, verdict_for_yes_no) or head
    answered = {id(v) for v in verdict_for_yes_no if v is not None}
    pairs = [p for p in pairs if mode_contrast.differs(*p)]  # compile shown because asked: the line only where they differ
    mine_differ = [p for p in pairs if answered & {id(p[0]), id(p[1])}]
    mine_agree = [p for p in agreed if id(p[0]) in answered]
    if not (mine_differ or mine_agree):  # the headline's op has no compile pair: the overloads shown speak
        mine_differ, mine_agree = pairs, agreed
    # never another overload's contrast under the headline's op (held-out r15 q7: "Yes — its own kernel", then
    # "eager: falls back" of its .out)
    both = mode_contrast.contrast_line(mine_differ, q.language == "es") \
        or mode_contrast.agree_line(mine_agree, q.language == "es")
    if both and any(both in line for line in lines):  # a module's own line already says it: never twice (r12 q7)
        both = None
    change = op_versions.change_line(verdict_for_yes_no, q.language == "es") if len(asked_mentions) > 1 else None
    head = "\n".join(x for x in (head, both, aside, change, _newer_text(newer, src, q.language == "es")) if x) or None
    if history_heads:  # the history asked leads; the newest verdict's yes/no follows it
        mine = [h for o, h in history_heads if o in named] or [h for _, h in history_heads]
        head = "\n".join(mine[:MAX_OPS_PER_ANSWER] + ([head] if head else []))
    text = "\n".join(([head, ""] if head else []) + lines) + (src.markdown() if own_sources else "")
    return Answer(q.text, "op", text, facts, src.items)


def _newer_pairs(conn: sqlite3.Connection, chosen: list[dict[str, Any]], pick: VersionPick,
                 mode: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """An older release asked where the op does not run on the device, and the newest release says
    otherwise: (that verdict, the newest's), to say in one line (r10 q2, r11 q1)."""
    out = []
    for v in chosen:
        new = op_versions.newest(conn, v["op"], v["target"], mode)
        if new and new[0]["backend_version"] not in pick.versions and not op_versions.on_device(v) \
                and queries.version_key(new[0]["backend_version"]) > queries.version_key(v["backend_version"]) \
                and mode_contrast.where_words(new[0]) != mode_contrast.where_words(v):
            out.append((v, new[0]))
    return out


def _lost_pairs(conn: sqlite3.Connection, chosen: list[dict[str, Any]], pick: VersionPick,
                mode: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The newest release asked where the op does not run on the device, and the release before it ran
    it there: (that verdict, the older one's), so "native on tpu 0.2?" hears the kernel was lost (r13 q2)."""
    out = []
    for v in chosen:
        if op_versions.on_device(v) or len(pick.versions) != 1:
            continue
        rows = [r for r in queries.op_verdicts(conn, [v["op"]], mode=mode) if r["target"] == v["target"]
                and queries.version_key(r["backend_version"]) < queries.version_key(v["backend_version"])]
        if rows:
            old = max(rows, key=lambda r: queries.version_key(r["backend_version"]))
            if op_versions.on_device(old) and mode_contrast.where_words(old) != mode_contrast.where_words(v):
                out.append((v, old))
    return out


def _newer_text(newer: list[tuple[dict[str, Any], dict[str, Any]]], src: Sources, es: bool) -> str | None:
    if not newer:
        return None
    return "\n".join(op_versions.newer_line(old, new, src.cite(new), es) for old, new in newer[:3])


def _asks(text: str) -> bool:
    """Whether the text asks something of its op (a question mark, or a yes/no question's opening)."""
    return text.rstrip().endswith("?") or intents.asks_yes_no(text)


def _implicit_line(op: str, catalog: dict[str, Any], shown: list[dict[str, Any]]) -> str:
    """What CompositeImplicitAutograd means here: PyTorch's decomposition is used only
    where the backend registers no kernel of its own; a target whose verdict is native
    (TorchTPU registers aten::linear) runs the op as one kernel."""
    where = f"CompositeImplicitAutograd in torch {catalog['torch_version']}'s op catalog"
    own = sorted({r["target"] for r in shown if r["status"] == "native"})
    if own:
        return (f"- PyTorch has a decomposition for `{op}` ({where}), but {', '.join(own)} "
                f"{'registers' if len(own) == 1 else 'register'} a kernel of its own, so there it runs as one kernel; "
                "a backend without one runs the ops it decomposes into.")
    return (f"- PyTorch decomposes `{op}` on a backend that registers no kernel of its own ({where}): "
            "it then runs wherever the ops it decomposes into run.")


def _focus(conn: sqlite3.Connection, ops: list[str]) -> list[str]:
    """The overloads worth showing first: the default one, then those with verdicts."""
    if len(ops) <= MAX_OPS_PER_ANSWER:
        return ops
    with_data = {r["op"] for r in queries.op_verdicts(conn, ops)}
    ranked = sorted(ops, key=lambda o: (0 if "." not in o[6:] else 1, 0 if o in with_data else 1, o))
    return ranked[:MAX_OPS_PER_ANSWER]


def _no_verdict_line(mention: TargetMention, pick: VersionPick, mine: list[dict[str, Any]], src: Sources,
                     facts: list[dict[str, Any]]) -> str:
    if pick.asked and not pick.versions:
        known = ", ".join(pick.with_data) or "none"
        return (f"? **unknown** on {mention.target} {pick.label}: the KB has no release {pick.asked} for "
                f"{mention.target} (versions with data: {known})")
    if mine:
        others = sorted({r["backend_version"] for r in mine}, key=queries.version_key)
        newest = [r for r in mine if r["backend_version"] == others[-1]]
        for r in newest:
            facts.append({**_fact(r), "note": "other version"})
        shown = "; ".join(f"{r['status']} at {r['backend_version']} ({r['mode']}) {src.cite(r)}" for r in newest)
        return (f"? **unknown** on {mention.target} {pick.label}: no evidence for that version. "
                f"Other versions: {shown}")
    return (f"? **unknown** on {mention.target} {pick.label}: the KB has no evidence for this op there; "
            f"`{verdict.settle(mention.target)}` would settle it")


def _fact(v: dict[str, Any]) -> dict[str, Any]:
    keys = ("op", "target", "product", "backend_version", "mode", "status", "effective_status", "basis", "dtypes",
            "conditions", "note", "source_kind", "source_name", "source_url", "probe_run_id", "disagreement")
    return {**{k: v.get(k) for k in keys}, "local_report": v.get("report")}


def _local_rows(conn: sqlite3.Connection, rows: list[dict[str, Any]]) -> bool:
    """Whether any verdict rests on evidence made or ingested on this machine (a probe run
    here, origin local; a report file someone handed kb, origin report)."""
    for r in rows:
        found = conn.execute(
            "SELECT o.origin FROM support s JOIN release r ON r.id = s.release_id JOIN observation o ON o.id = "
            "s.observation_id WHERE s.op = ? AND s.target = ? AND r.version = ? AND s.mode = ?",
            (r["op"], r["target"], r["backend_version"], r["mode"])).fetchone()
        if found is not None and found[0] in ("local", "report"):
            return True
    return False


def _on_instances(head: str | None, rows: list[dict[str, Any]], q: Question) -> str | None:
    """A headline over a verdict that holds only on some instance families ("_scaled_mm: native on Trn3, via TorchAO
    Neuron MXFP8") says so, and says "only on Trn3" when the question names another instance (r27 q08: "estoy en una
    trn2")."""
    from kb.chat.entities import INSTANCE_RE

    held = [r for r in rows if (r.get("conditions") or {}).get("instance_families")]
    if not head or not head.startswith("**") or not held:
        return head
    families = list(dict.fromkeys(str(f) for r in held for f in r["conditions"]["instance_families"]))
    via = next((str(r["conditions"]["via"]) for r in held if r["conditions"].get("via")), "")
    mine = [m.lower() for m in INSTANCE_RE.findall(q.text) if re.search(r"\d", m)]  # "Trainium" alone is the chip line
    others = [m for m in dict.fromkeys(mine) if m.capitalize() not in families and m not in {f.lower() for f in families}]
    only = " ".join(families)
    es = getattr(q, "language", "en") == "es"
    if others:
        bold, _, rest = head[2:].partition("**")
        rest = rest.rstrip(" .")
        said = (f"**Solo en {only}** —{rest.removeprefix(' —')}; tu {others[0].capitalize()} no es {only}" if es else
                f"**Only on {only}** —{rest.removeprefix(' —')}; your {others[0].capitalize()} is not {only}")
        return said + (f" (vía {via})" if es and via else f" (via {via})" if via else "") + "."
    return head.rstrip(".") + ((f"; solo en {only}" if es else f"; only on {only}")
                               + (f" (vía {via})" if es and via else f" (via {via})" if via else "") + ".")


def _qualified(conn: sqlite3.Connection, head: str | None, rows: list[dict[str, Any]]) -> str | None:
    """A headline says what it rests on when that is less than evidence for the version asked:
    "**Presumably yes** — …; carried from the pre-release snapshot …, no evidence for 2.14.3.1".
    The weakest basis among the verdicts answered decides (presumed < inferred < doc rule), and
    evidence ingested on this machine is named as local."""
    if not head or not rows or not head.startswith("**"):
        return head
    bases = {r.get("basis") or "evidence" for r in rows}
    versions = ", ".join(dict.fromkeys(r["backend_version"] for r in rows))
    firmer = ""  # versions on evidence besides the weaker ones named ("(0.2.0 rests on evidence)")
    if "presumed" in bases:
        presumed = [r for r in rows if r.get("basis") == "presumed"]
        versions = ", ".join(dict.fromkeys(r["backend_version"] for r in presumed))  # only the versions presumed (r3 #14)
        froms = sorted({(r.get("effective_via") or {}).get("presumed_from") or "an older version" for r in presumed})
        what = ", ".join(f"the pre-release snapshot {f}" if "dev" in f else f for f in froms)
        word, why = "presumably", f"carried from {what}; no evidence for {versions}"
        by_target = _bases_by_target(rows)
        if len(set(by_target.values())) > 1:  # one target presumed, another probed: say which is which
            why += " (" + ", ".join(f"{t} {b}" for t, b in by_target.items()) + ")"
    elif "inferred" in bases:
        versions, firmer = _versions_of(rows, "inferred")
        word, why = "inferred", f"a dispatcher replay of a kernel list, not an observation of {versions}{firmer}"
    elif DOC_RULE_BASIS in bases:
        versions, firmer = _versions_of(rows, DOC_RULE_BASIS)
        word, why = "by the vendor's doc rule", f"a rule for a class of ops, not a record naming this op for {versions}{firmer}"
    elif "local" in bases or _local_rows(conn, rows):
        word, why = "on local evidence", "ingested on this machine, not shipped data"
    else:
        return head
    bold, _, rest = head[2:].partition("**")
    if firmer:  # "tpu 0.1.1 and 0.2.0?", one inferred and one probed: the yes is not all inference (s9)
        rest = rest.strip()
        return f"**{bold}**{' ' + rest.rstrip('.') if rest else ''}; {why}."
    if word == "presumably" and bold.startswith(("Yes", "No")):
        bold = f"Presumably {bold[0].lower()}{bold[1:]}"
    else:
        bold = f"{bold}, {word}"
    rest = rest.strip()
    rest = rest[:-1] if rest.endswith(".") else rest
    return f"**{bold}**{' ' + rest if rest else ''}; {why}."


_FIRMER = " rests on evidence)"


def _versions_of(rows: list[dict[str, Any]], basis: str) -> tuple[str, str]:
    """The versions answered on `basis`, and a note naming those answered on evidence besides ("(0.2.0 rests on
    evidence)"), so that a headline over two versions never calls a probed one inferred (s9)."""
    weak = list(dict.fromkeys(r["backend_version"] for r in rows if r.get("basis") == basis))
    firm = [v for v in dict.fromkeys(r["backend_version"] for r in rows)
            if v not in weak and all((r.get("basis") or "evidence") == "evidence" for r in rows if r["backend_version"] == v)]
    return ", ".join(weak), (f" ({', '.join(firm)}{_FIRMER}" if firm else "")


def _bases_by_target(rows: list[dict[str, Any]]) -> dict[str, str]:
    """Each target's weakest basis among the verdicts answered, so that a headline over two
    targets never calls a probed verdict presumed (r3-29 #14)."""
    order = ["presumed", "inferred", DOC_RULE_BASIS, "local", "evidence"]
    out: dict[str, str] = {}
    for r in rows:
        basis = r.get("basis") or "evidence"
        basis = basis if basis in order else "evidence"
        have = out.get(r["target"])
        out[r["target"]] = basis if have is None or order.index(basis) < order.index(have) else have
    return out


def _yes_no(q: Question, rows: list[dict[str, Any] | None]) -> str | None:
    """A direct first line when the question asks about one status ("is X native on Y?"),
    answered by where the op runs: a decomposed op whose leaves all run on the device
    runs on the chip, one whose leaf falls back runs partly on the CPU."""
    asked = [s for s in q.statuses if s in ("native", "decomposed", "fallback", "unsupported", "supported")]
    if not asked or not rows or not (intents.asks_yes_no(q.text) or op_first.offers_choices(q.text)):
        return None
    # "does X run natively?", "does X run or fall back?": the specific word is what is asked (r2-29 #6)
    want = sorted(asked, key=lambda status: status == "supported")[0]
    known = [r for r in rows if r is not None]
    if not known:
        return "**Unknown** — the KB has no evidence for that (details below)."
    if len(set(asked) - {"supported"}) >= 1 and op_first.offers_choices(q.text):
        head = op_first.choice_head(known)  # "native or does it fall back?": the verdict named, not yes/no (29k)
        if head:
            return head.replace(" —", " (where the KB has evidence) —", 1) if len(known) < len(rows) else head
    # the same answer on two targets reads the same: compare it with the target left out (r3-29 #14)
    answers = {_one_yes_no(want, {**r, "target": "\0"}) for r in known}
    names = " and ".join(dict.fromkeys(r["target"] for r in known))
    answers = {a.replace("\0", names) for a in answers}
    suffix = " (where the KB has evidence)" if len(known) < len(rows) else ""
    if len(answers) == 1:
        head = answers.pop()
        return head.replace("—", suffix + " —", 1) if suffix and "—" in head else head + suffix
    bolds = {a.partition("**")[2].partition("**")[0] for a in answers}
    if len(bolds) == 1 and bolds <= {"Yes", "No"}:  # every overload says the same, each in its own words
        return f"**{bolds.pop()}** — for every overload and version shown{suffix} (details below)."
    return "**It depends** — on the version, mode or overload (details below)."


def _other_overloads(answered: list[dict[str, Any] | None], others: list[dict[str, Any]]) -> str | None:
    """The overloads left out of the headline whose verdict differs from it, named in one line
    ("_Other overloads, below, differ: `aten::bincount.out` decomposed (leaves not traced)._")."""
    said = {_outcome(r) for r in answered if r is not None}
    differ = [r for r in others if _outcome(r) not in said]
    if not said or not differ:
        return None
    named = "; ".join(list(dict.fromkeys(f"`{r['op']}` {r['status']} ({verdict.runs(r)})" for r in differ))[:3])
    return f"_Other overloads, below, differ: {named}._"


def _outcome(row: dict[str, Any]) -> tuple[str, str, bool]:
    """What a headline says of a verdict: where the op ends up and whether it is its own kernel. A
    decomposed op that raises at its .out and that .out itself both raise, so they never "differ" (r12 q2)."""
    return row["target"], verdict.effective_status(row), row["status"] == "native"


def _per_target_head(conn: sqlite3.Connection, q: Question, rows: list[dict[str, Any] | None]) -> str | None:
    """"native on Trainium? and on TPU?": where the targets differ but each has one answer, a
    headline per target ("neuron: **Yes** — …" then "tpu: **It runs on tpu, though not as one
    kernel** — …"), each with its own basis, instead of "it depends" (29n). None otherwise."""
    by_target: dict[str, list[dict[str, Any]]] = {}
    releases = {}
    for r in rows:
        if r is None:
            return None
        releases.setdefault(r["target"], set()).add(r["backend_version"])
    for r in rows:  # two releases of one target asked ("with 0.1.1? and with 0.2.0?"): a headline each (r10 q8)
        key = f"{r['target']} {r['backend_version']}" if len(releases[r["target"]]) > 1 else r["target"]
        by_target.setdefault(key, []).append(r)
    if len(by_target) < 2:
        return None
    heads = []
    for target, mine in by_target.items():
        one = _yes_no(q, mine)
        if not one or one.startswith("**It depends"):
            return None
        heads.append(f"- {target}: {_qualified(conn, one, mine)}")
    return "\n".join(heads)


def _one_yes_no(want: str, row: dict[str, Any]) -> str:
    status, runs = row["status"], verdict.effective_status(row)
    where = verdict.runs(row)
    target = row["target"]
    on_device = runs in ("native", "decomposed") and verdict.leaves_traced(row)
    if want == "decomposed":
        return f"**Yes** — decomposed ({where})." if status == "decomposed" else f"**No** — {status} ({where})."
    if want == "native":
        if status == "native":
            return f"**Yes** — its own kernel on {target}."
        if status == "decomposed" and on_device:
            return (f"**It runs on {target}, though not as one kernel** — decomposed, and its leaves run on the device "
                    "(no CPU fallback).")
        if status == "decomposed" and runs == "decomposed":
            return f"**Not as its own kernel** — decomposed; where its leaves run is not traced ({where})."
        if status == "decomposed":
            return f"**No** — decomposed, and part of it runs as {runs} ({where})."
        return f"**No** — {status} ({where})."
    if want == "supported":
        if on_device:
            return f"**Yes** — runs on {target} ({where})."
        if runs == "fallback":
            return f"**Yes, but on the CPU** — it falls back ({where}): it works, with copies to the host and back."
        if runs == "decomposed":
            return f"**Probably** — decomposed; where its leaves run is not traced ({where})."
        return f"**No** — {runs} ({where})."
    if want == "fallback":
        return f"**Yes** — it falls back ({where})." if runs == "fallback" else f"**No** — {runs} ({where})."
    return f"**Yes** — {runs} ({where})." if runs == want else f"**No** — {runs} ({where})."


def _missing_line(missing: list[str], suggestions: list[str]) -> str:
    hint = f" Did you mean {', '.join(f'`{s}`' for s in suggestions[:5])}?" if suggestions else ""
    names = ", ".join(f"`{m}`" for m in missing)
    return f"I don't know an operator {names} (not in the op catalog or any evidence).{hint}"


def _unknown_op(conn: sqlite3.Connection, q: Question, missing: list[str], suggestions: list[str]) -> Answer:
    if not missing and not q.op_words and not q.function_words:  # plain words, none of them an op
        return _unknown(conn, q)
    text = _missing_line(missing, suggestions) if missing else ""
    text = (text + " " if text else "") + "Status is **unknown**: the KB has no evidence for it. Ask `help` for examples."
    return Answer(q.text, "op", text, facts=[{"op": m, "status": UNKNOWN, "suggestions": suggestions} for m in missing])


def _compare(conn: sqlite3.Connection, q: Question) -> Answer:
    matches, missing, suggestions = find_ops(conn, q)
    mentions = q.targets
    if matches:  # the op answer already lists every target the question names
        result = _op_answer(conn, q)
        differ = _differs(result.facts)
        head = ("**They differ.**" if differ else "**Same status on all of them.**") if differ is not None else None
        if not differ and result.text.startswith("**") and not result.text.startswith("**`") \
                and not mode_contrast.starts_with_mode_line(result.text):
            head = None  # the op answer's own headline already answers; never two headlines (r3-29 #14)
        text = (head + "\n\n" if head else "") + result.text
        return Answer(q.text, "compare", text, result.facts, result.sources)
    versions = {}
    for mention in mentions:
        pick = pick_versions(conn, mention)
        with_data = [v for v in pick.versions if v in pick.with_data]
        if mention.version and not with_data:  # never swap in another version silently
            return Answer(q.text, "compare", f"**Unknown** — no verdicts for {mention.target} {pick.label}; versions "
                          f"with data: {', '.join(pick.with_data) or 'none'}.", [{"target": mention.target, "status": UNKNOWN}])
        if with_data:
            versions[mention.target] = with_data[-1]
    targets = q.target_names()
    matrix = queries.compare(conn, targets, only_differences=True, versions=versions)
    rows = matrix["rows"]
    versions_text = ", ".join(f"{t} {v or '(no data)'}" for t, v in matrix["versions"].items())
    lines = [f"{len(rows)} ops have a different status between {' and '.join(targets)} "
             f"({versions_text}, eager; a missing verdict counts as unknown)."]
    for row in rows[:MAX_LIST]:
        lines.append(f"- `{row['op']}`: " + ", ".join(f"{t} {row[t]}" for t in targets))
    if len(rows) > MAX_LIST:
        lines.append(f"_…{len(rows) - MAX_LIST} more: `kb compare {' '.join(targets)} --diff`._")
    src = Sources()
    for target in targets:
        for r in conn.execute("SELECT DISTINCT s.source_kind, s.source_name, s.source_url, s.probe_run_id, s.retrieved_at "
                              "FROM support s JOIN release r ON r.id = s.release_id WHERE s.target = ? AND r.version = ?",
                              (target, matrix["versions"].get(target))):
            src.cite(dict(r))
    if missing:
        lines.append(_missing_line(missing, suggestions))
    facts = [{"op": r["op"], **{t: r[t] for t in targets}} for r in rows]
    return Answer(q.text, "compare", "\n".join(lines) + src.markdown(), facts, src.items)


def _differs(facts: list[dict[str, Any]]) -> bool | None:
    """Whether the targets answered differ for some op, by where the op runs: group_norm decomposed on
    both tpu and neuron still differs when its leaves stay on tpu and one falls back on neuron (29r)."""
    by_op: dict[str, set[str]] = {}
    for f in facts:
        if "status" in f and "op" in f and f.get("note") != "other version":  # a module's tally names no op
            by_op.setdefault(f["op"], set()).add(f.get("effective_status") or f["status"])
    if not by_op or all(s == {UNKNOWN} for s in by_op.values()):
        return None  # nothing known: neither "same" nor "different"
    return any(len(s) > 1 for s in by_op.values())


def _ops_by_status(conn: sqlite3.Connection, q: Question) -> Answer:
    status = next((s for s in q.statuses if s in ("fallback", "native", "unsupported", "decomposed")), "fallback")
    counting = re.search(r"\b(how many|number of|count)\b", q.text.lower()) is not None  # "how many ops are unsupported"
    mode = "compile" if "compile" in q.text.lower() else "eager"  # "which ops don't compile with torch.compile" (m4 Q30)
    src = Sources()
    lines, facts = [], []
    counted: list[tuple[int, int, str]] = []  # (line, count, where) of each count headline
    filt = list_filter.name_filter(conn, q.text)  # "list the pad ops tpu can't run": only those (29k)
    pattern = filt.pattern if filt is not None and filt.kind == "grep" else None
    in_family = set(families.family_ops(conn, filt.family.name)) if filt is not None and filt.family else None
    if filt is not None:
        lines.append(list_filter.said(filt))
        facts.append({"filter": filt.kind, "word": filt.word, "family": filt.family.name if filt.family else None})
    for mention in q.targets:
        pick, versions = _versions_with_data(conn, mention, lines)
        if not versions:
            continue
        listing = queries.list_ops(conn, mention.target, status, versions[-1], mode, pattern)
        ops = listing["ops"]
        known = listing["coverage"]["known"]  # the denominator: ops this version has a verdict for, in this mode
        if in_family is not None:
            ops = [r for r in ops if r["op"] in in_family]
            known = len(in_family & set(queries.support_map(conn, mention.target, listing["backend_version"], mode)))
        by = (listing.get("matching_by") if in_family is None else None) or queries.matching_by(ops, status)
        split = (f": {by['own_status']:,} by their own status, {by['runs_as']:,} decomposed ops that run as {status} "
                 f"at a leaf (`kb targets` shows both counts: {status} by own status and by where the op runs)"
                 ) if by["runs_as"] else ""
        if counting:
            lines.append(f"**{len(ops):,}** ops run as {status} on {mention.target} {listing['backend_version']} "
                         f"({mode}){' ' + src.cite(ops[0]) if ops else ''}.")
            counted.append((len(lines) - 1, len(ops), f"{mention.target} {listing['backend_version']}"
                            + (f" {src.cite(ops[0])}" if ops else "")))
        lines.append(f"**{mention.target}** {listing['backend_version']} ({mode}): {len(ops):,} ops that run as "
                     f"**{status}** ({len(ops):,} of {known:,} {'matching ' if filt else ''}ops with evidence){split}; ops it has no evidence for "
                     "are unknown, not counted.")
        cover = listing.get("coverage") or {}
        if cover.get("unknown"):  # a partial op list (inf1: 428 ops known) says how partial (m4 Q32)
            lines[-1] += (f" The KB knows {cover['known']:,} ops for that version; "
                          f"{cover['unknown']:,} catalog ops have no evidence.")
        presumed = [r for r in ops if r.get("basis") == "presumed"]
        if presumed:  # a list carried from an older version says so in its text, not only in its URL (m4 Q25, Q29)
            froms = sorted({(r.get("effective_via") or {}).get("presumed_from") or "an older version" for r in presumed})
            lines.append(f"_Presumed: {len(presumed)}/{len(ops)} verdicts listed are carried over from "
                         f"{', '.join(froms)}, with no evidence of their own for {listing['backend_version']}._")
        facts.append({"target": mention.target, "backend_version": listing["backend_version"], "status": status,
                      "count": len(ops), "with_evidence": known, "own_status": by["own_status"], "runs_as": by["runs_as"]})
        if mode == "compile" and status == "fallback" and filt is None:
            # "pensé q con compile quedaba todo en el chip": under compile, what does not fall back mostly raises (r27 q13)
            raising = len(queries.list_ops(conn, mention.target, "unsupported", listing["backend_version"], "compile")["ops"])
            if raising:
                lines.append(f"Under torch.compile a further **{raising:,}** ops are **unsupported** there (the graph fails "
                             f"to compile): `kb ops --target {mention.target}={listing['backend_version']} --status "
                             "unsupported --mode compile`.")
                facts.append({"target": mention.target, "backend_version": listing["backend_version"],
                              "status": "unsupported", "mode": "compile", "count": raising})
        if not ops:  # an empty list still says what it rests on and why it is empty (r3-29 #5/#7)
            lines[-1] = lines[-1][:-1] + _empty_list_basis(conn, mention.target, status, listing["backend_version"], src)
        limit = MAX_FILTERED if filt is not None else MAX_LIST  # a narrowed list is what was asked: whole (s8)
        if filt is not None:
            ops = sorted(ops, key=shown_first)  # past the limit, the public forward ops are the ones shown
        for row in ops[:limit]:
            # where each op runs: by its own status, or decomposed to the leaf named (s8: "which fall back themselves?")
            lines.append(f"- `{row['op']}`: {verdict.label(row)} {src.cite(row)}")
            facts.append(_fact(row))
        if len(ops) > limit:
            # the version answered, pinned: the command must list the same ops (tester t29 #5)
            lines.append(f"_…{len(ops) - limit} more: `kb ops --target {mention.target}={listing['backend_version']} "
                         f"--status {status}{' --mode compile' if mode == 'compile' else ''}"
                         f"{f' --grep {pattern}' if pattern else ''}`._")
        if filt is not None and filt.kind == "grep" and ops:
            other = list_readings.family_line(conn, filt.word, {r["op"] for r in ops}, q.language == "es")
            lines += [other] if other and other not in lines else []
    if len(counted) >= 2:  # "tpu 0.1.1 vs 0.2.0 how many unsupported each?": both counts in one headline (r27 q10)
        for i, _, _ in reversed(counted):
            del lines[i]
        (_, first, _), (_, last, b) = counted[0], counted[-1]
        change = (f"; {abs(last - first):,} {'fewer' if last < first else 'more'} on {b.split(' [')[0]}" if len(counted) == 2
                  and last != first else "")
        lines[:0] = [" vs ".join(f"**{n:,}** on {where}" for _, n, where in counted)
                     + f": ops that run as {status} ({mode}){change}.", ""]
    lines.append("For a model, `kb check MODEL --target TARGET` lists the ops it runs and which of them fall back.")
    claim = claimed_coverage(conn, q, src)
    if claim:  # "how many ATen ops do they say it covers?": the vendor's own figure leads, the KB's counts follow
        lines[:0] = [claim[0], ""]
        facts[:0] = [claim[1]]
    return Answer(q.text, "ops_by_status", "\n".join(lines) + src.markdown(), facts, src.items)


# "how many ops do they say it covers?", "what coverage does Google claim?", "cuántos ops dicen que cubre?": the
# vendor's claim, not the KB's count (r11 q47)
_CLAIM = re.compile(r"\b(?:claim\w*|say|says|said|advertis\w*|announc\w*|promis\w*|officially|dicen|dice|afirman?"
                    r"|anuncian?|anunciaron|prometen?|publicitan?)\b", re.I)
_COVER = re.compile(r"\bcover\w*|\bcoverage\b|\bcubre\w*|\bsupport\w*", re.I)


_ES_ABOUT = {"about": "unos", "around": "unos", "over": "más de", "more": "más de"}


def claimed_coverage(conn: sqlite3.Connection, q: Question, src: Sources) -> tuple[str, dict[str, Any]] | None:
    """The vendor's stated op coverage (a "coverage-claim" limitation row) as a headline, when
    the question asks what they say or claim it covers; None otherwise or when none is recorded."""
    text = q.text
    if not (_CLAIM.search(text) and _COVER.search(text)):
        return None
    targets = q.target_names()
    rows = [r for r in limitation_rows(conn) if r["feature"].lower().startswith("coverage-claim")
            and (not targets or r["target"] in targets) and _limitation_matches_version(r, q)]
    if not rows:
        return None
    r = rows[0]
    what = r["feature"].split(":", 1)[-1].strip()
    es = getattr(q, "language", "en") == "es"
    amount = re.sub(r"^(?:about|around|over|more than) (\d[\d,]*)$",
                    lambda m: f"{_ES_ABOUT[m.group(0).split()[0]]} {m.group(1)}", r["status"])
    amount = amount if amount != r["status"] else quoted(r["status"])
    what_es = "operadores ATen" if what.lower() == "aten operators" else quoted(what)
    head = (f"**{amount[:1].upper() + amount[1:]} {what_es}** — es lo que anuncia el proveedor para {r['product']} {r['version']} "
            f"({quoted(r['note'])}) {src.cite(r)}; es su cifra, no un recuento del KB. Los recuentos propios del KB, "
            "por dónde se ejecuta cada op:" if es else
            f"**{r['status'][:1].upper() + r['status'][1:]} {what}** — the vendor's own claim for {r['product']} "
            f"{r['version']} ({r['note']}) {src.cite(r)}; that is their figure, not a count of the KB's. "
            "The KB's own counts, by where each op runs:")
    return head, {"claim": r["feature"], "status": r["status"], "product": r["product"], "version": r["version"],
                  "source_url": r["source_url"]}


def _empty_list_basis(conn: sqlite3.Connection, target: str, status: str, version: str, src: Sources) -> str:
    """The end of an empty list's line: the evidence the version's verdicts rest on (a verdict of
    another status cites it) and, for fallback, the policy that makes it empty."""
    other = next((o for s in ("unsupported", "native", "decomposed") if s != status
                  for o in queries.list_ops(conn, target, s, version)["ops"][:1]), None)
    text = f" (from {src.cite(other)}, the verdicts for {target} {version})." if other else "."
    if status == "fallback":
        from kb.chat.answer_policy import why_no_fallbacks

        why = why_no_fallbacks(conn, target, version, src)
        text += "\n" + why if why else ""
    return text


# ---------------------------------------------------------------- limitations


def limitation_rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT l.target, r.product, r.version, l.feature, l.status, l.note, l.source_kind, l.source_name, "
        "l.source_url, l.retrieved_at FROM limitation l JOIN release r ON r.id = l.release_id "
        "ORDER BY l.target, l.feature")
    return [dict(r) for r in rows]


def _limitation_hits(conn: sqlite3.Connection, q: Question) -> list[dict[str, Any]]:
    """Limitations whose feature the question names (case-insensitive, typo-tolerant)."""
    rows = limitation_rows(conn)
    words = [w.lower() for w in (*q.plain_words, *q.function_words, *q.op_words)]
    text = q.text.lower()
    hits = []
    for row in rows:
        feature = row["feature"].lower()
        parts = [p for p in feature.replace("(", " ").replace(")", " ").split() if len(p) > 2]
        if feature in text or any(p in words or difflib.get_close_matches(p, words, n=1, cutoff=0.85) for p in parts) \
                or any(len(w) >= 3 and w in feature and _inside_feature(w, feature) for w in words):  # fp8 → MXFP8
            hits.append(row)
    targets = limitation_targets(q)
    return [r for r in hits if not targets or r["target"] in targets]


def _inside_feature(word: str, feature: str) -> bool:
    """Whether a word found inside a feature's name names it: a whole part of it ("openmp" in
    torch.backends.openmp), or a code with a digit inside a longer one ("fp8" in MXFP8). An English word
    that only starts a part ("open" of "openmp", in "before I open a ticket") names nothing (r12 q9)."""
    parts = re.split(r"[^a-z0-9_]+", feature)
    return word in parts or any(ch.isdigit() for ch in word)


def _limitation_matches_version(row: dict[str, Any], q: Question) -> bool:
    """A row of a version asked; a target named without a version keeps all its rows ("en Trainium … ¿y en la TPU con
    torch_tpu 0.2.0?": the 0.2.0 narrows TPU's rows only, r31 q37)."""
    mine = [m for m in q.targets if m.target == row.get("target") or row.get("target") == "neuron-xla" and m.target == "neuron"]
    versions = [m.version for m in (mine or q.targets) if m.version] + _sdk_as_pytorch(q)
    if mine and any(not m.version for m in mine) and not _sdk_as_pytorch(q):
        return True
    return not versions or any(same_line(v, row["version"]) for v in versions)


def _sdk_as_pytorch(q: Question) -> list[str]:
    """"PyTorch NeuronX in the 2.28 release": a 2.2x-2.3x "PyTorch" version beside a Neuron word is the
    Neuron SDK release (no PyTorch 2.28 exists), read so for its limitations (r10 q44)."""
    if not re.search(r"\bneuron\w*", q.text, re.I):
        return []
    said = [v for p, v in q.products if p == "pytorch" and v and re.fullmatch(r"2\.(?:1\d|2\d|3\d)(?:\.\d+)?", v)
            and queries.version_key(v) >= queries.version_key("2.18")]
    # "for pytorch neuronx in the 2.28 release notes": the SDK release said bare before "release" (r30 q43)
    return said + [v for v in re.findall(r"(?<![\w.])(2\.[2-4]\d(?:\.\d+)?)\s+release", q.text) if v not in said]


def limitation_targets(q: Question) -> list[str]:
    """The targets whose limitation rows a question asks about; a Neuron SDK release's rows are stated per
    package line (TorchNeuron: neuron, PyTorch NeuronX: neuron-xla), so "neuron" takes both."""
    targets = q.target_names()
    if _sdk_as_pytorch(q) and not targets:
        targets = ["neuron"]
    return targets + (["neuron-xla"] if "neuron" in targets and "neuron-xla" not in targets else [])


def _feature_hits(conn: sqlite3.Connection, q: Question) -> tuple[list[tuple[str, tuple[str, ...]]], list[dict[str, Any]]]:
    """(feature words asked, limitation rows they name), whole words through kb.chat.names."""
    asked = names.features_in(q.text)
    if not asked:
        return [], []
    targets = limitation_targets(q)
    rows = [r for r in limitation_rows(conn) if not targets or r["target"] in targets]
    def matching(wanted):
        return [r for r in rows if any(w in r["feature"].lower() or (w == "fallback" and "fallback" in r["feature"].lower())
                                       for _, words in wanted for w in words)]

    specific = [a for a in asked if a[0] not in names.GENERIC_FEATURES]
    narrow = matching(specific) if specific and len(specific) < len(asked) else []
    return asked, narrow or matching(asked)


def _limitation(conn: sqlite3.Connection, q: Question) -> Answer:
    asked, hits = _feature_hits(conn, q)
    if asked and not hits:
        return _limitation_missing(conn, q, asked)
    hits = hits or _limitation_hits(conn, q)
    if not hits:
        targets = limitation_targets(q)
        hits = [r for r in limitation_rows(conn) if not targets or r["target"] in targets]
    elif _ALL_LIMITS.search(q.text) and (any(m.version for m in q.targets) or _sdk_as_pytorch(q)):
        # "any known limitations in TorchNeuron 2.33? we use float64": that release's whole list, the feature named
        # first — the word narrows what leads, not what is shown (r10 q43)
        targets = limitation_targets(q)
        rest = [r for r in limitation_rows(conn) if (not targets or r["target"] in targets)
                and _limitation_matches_version(r, q) and r not in hits]
        hits = hits + rest
    result = _limitation_answer(conn, q, hits)
    targets = q.target_names()
    if asked and targets:  # a target named without a row of its own for the feature
        missing = [t for t in targets if not any(r["target"] == t for r in hits)]
        if missing:
            extra = _limitation_missing(conn, q, asked, missing)
            result.text = extra.text.split("\n\n**Sources**")[0] + "\n\n" + result.text
    return result


_ALL_LIMITS = re.compile(r"\b(?:any|all|the|what|which|list)\b[^?]{0,20}\b(?:known )?(?:limitations|issues|caveats|gotchas"
                         r"|restrictions)\b|\bknown (?:limitations|issues)\b", re.I)


def _limitation_missing(conn: sqlite3.Connection, q: Question, asked: list[tuple[str, tuple[str, ...]]],
                        targets: list[str] | None = None) -> Answer:
    """No limitation row for what was asked: say so, say what the KB does record for the
    target, what op verdicts say about a matching op family, and which command would tell."""
    targets = targets or q.target_names() or ["neuron", "tpu"]
    word = asked[0][0]
    src = Sources()
    facts: list[dict[str, Any]] = []
    lines = []
    for target in targets:
        recorded = [r for r in limitation_rows(conn) if r["target"] == target]
        lines.append(f"**Unknown** — the KB records no limitation about {word} on {target}, and no probe of "
                     f"{target} ran in that dtype or feature, so it cannot say it works either.")
        facts.append({"target": target, "feature": word, "status": UNKNOWN})
        if recorded:
            shown = "; ".join(f"{r['feature']} ({r['status']}) {src.cite(r)}" for r in recorded[:6])
            lines.append(f"- What it records for {target}: {shown}.")
        if any(w in names.DTYPES for _, ws in asked for w in ws):
            lines.append(f"- `kb probe --device {target} --dtypes {asked[0][1][0]}` runs every op in that dtype on a "
                         f"{target} machine and records the result.")
        fam = families.family(word) or next(iter(families.families_in(word)), None)
        if fam is not None:
            pick = pick_versions(conn, TargetMention(target))
            version = next((v for v in reversed(pick.versions) if v in pick.with_data), None)
            if version:
                verdicts = queries.support_map(conn, target, version)
                ops = families.family_ops(conn, fam.name)
                counts: dict[str, int] = {}
                first = None
                for op in ops:
                    row = verdicts.get(op)
                    counts[verdict.effective_status(row)] = counts.get(verdict.effective_status(row), 0) + 1
                    first = first or row
                cite = src.cite(first) if first else ""
                lines.append(f"- Op verdicts for the {fam.name} family on {target} {version}: "
                             + ", ".join(f"{n} {s}" for s, n in sorted(counts.items(), key=lambda p: SEVERITY.get(p[0], 3)))
                             + f" {cite} (`which {fam.name} ops fall back on {target}?` lists them).")
                facts.append({"target": target, "family": fam.name, "backend_version": version, "counts": counts})
        lines.append(f"- `{verdict.settle(target)}` records op verdicts; `kb ingest --all` refreshes documented limitations.")
    return Answer(q.text, "limitation", "\n".join(lines) + src.markdown(), facts, src.items)


_WHICH_USED = re.compile(r"\b(?:what|which) (\w+) (?:does (?:it|torch\.compile|\w+) )?(?:use|uses|usa|used|pick|picks|choose)\b",
                         re.I)


def default_asked(q: Question, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """"Which backend does torch.compile use if I give none?": the row of that thing's default
    ("torch.compile default backend"), when the rows hold exactly one."""
    from kb.chat.entities import to_english

    m = _WHICH_USED.search(to_english(q.text) if getattr(q, "language", "en") == "es" else q.text)
    if not m:
        return None
    hits = [r for r in rows if f"default {m.group(1).lower()}" in r["feature"].lower()]
    return hits[0] if len(hits) == 1 else None


def limitations_first(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A list of a release's limitations: what does not work first (features and dtypes), then the
    platform rows, then the backend's policies; a platform row that says "supported" is no
    limitation and is set apart (r6 release-en-5). A short list (a feature asked by name) is kept whole."""
    if len(rows) <= 3:
        return rows, []
    def kind(r: dict[str, Any]) -> int:
        feature = r["feature"].lower()
        return 2 if feature.startswith("policy:") else 1 if feature.startswith("platform:") else 0
    keep = [r for r in rows if not (kind(r) == 1 and (r["status"] or "").lower().startswith("supported"))]
    return sorted(keep, key=kind), [r for r in rows if r not in keep]


_LIMIT_NO = re.compile(r"^(?:unsupported|not supported|rejected|raises|compile error|end of support)\b", re.I)
_LIMIT_YES = re.compile(r"^supported\b", re.I)


def _limitation_yes_no(q: Question, rows: list[dict[str, Any]]) -> str | None:
    """The yes/no headline of a yes/no question that one limitation row answers, by its status
    ("unsupported", "rejected: TypeError" say no; "supported" says yes); None for other statuses or
    several rows, whose list is the answer."""
    from kb.chat.entities import to_english

    es = getattr(q, "language", "en") == "es"
    yes_no = intents.asks_yes_no(to_english(q.text) if es else q.text)
    group = [r for r in rows if r["feature"] == rows[0]["feature"]]
    if len(group) > 1 and len(group) <= 4 and all(_LIMIT_NO.match((r["status"] or "").strip()) for r in group):
        # "¿dynamic=True funciona en tpu y en trainium?": one feature, unsupported on each target, said first in the
        # question's language before the vendors' own words (r30 q38)
        wheres = [f"{r['target']} ({r['product']} {r['version']})" for r in group]
        head = ("**No**" if yes_no else "**Sin soporte**") if es else ("**No**" if yes_no else "**Not supported**")
        return (f"{head} — {quoted(md(group[0]['feature']))} no está soportado en " + " ni en ".join(wheres)
                + "; lo que dice cada fuente, abajo." if es else
                f"{head} — {md(group[0]['feature'])} is not supported on " + " nor on ".join(wheres)
                + "; each source's own words below.")
    if len(rows) != 1 or not (yes_no or es and _LIMIT_NO.match((rows[0]["status"] or "").strip())):
        return None  # a Spanish question gets its one row's "no" in Spanish too (r31 q39)
    r = rows[0]
    status = (r["status"] or "").strip()
    where = f"{r['target']} ({r['product']} {r['version']})"
    if _LIMIT_NO.match(status):
        return (f"**No** — {quoted(md(r['feature']))} no está soportado en {where}: {quoted(md(status))}." if es
                else f"**No** — {md(r['feature'])} is not supported on {where}: {md(status)}.")
    if _LIMIT_YES.match(status):
        return (f"**Sí** — {quoted(md(r['feature']))} está soportado en {where}: {quoted(md(status))}." if es
                else f"**Yes** — {md(r['feature'])} is supported on {where}: {md(status)}.")
    return None


def _limitation_answer(conn: sqlite3.Connection, q: Question, rows: list[dict[str, Any]]) -> Answer:
    wanted = [r for r in rows if _limitation_matches_version(r, q)]
    src = Sources()
    if not wanted:
        seen = sorted({f"{r['product']} {r['version']}" for r in rows})
        text = ("**Unknown** — the KB has no limitation recorded for that version"
                + (f" (it has limitations stated for {', '.join(seen)})." if seen else "."))
        return Answer(q.text, "limitation", text, [{"status": UNKNOWN}])
    wanted, not_limits = limitations_first(wanted)
    wanted += _options_rows(conn, wanted)
    lines = [f"Known limitations ({len(wanted)}):"]
    verdict = _limitation_yes_no(q, wanted)
    if verdict:  # "does torch.compile dynamic=True work on trainium?": one limitation answers it yes or no
        lines[:0] = [verdict, ""]
    default = default_asked(q, wanted)
    if default is not None:  # "¿qué backend usa si no le paso ninguno?": that row is the answer, said first (29o)
        note = f" — {quoted(md(default['note']))}" if default.get("note") else ""
        lines[:0] = [f"**{md(default['feature'])}** ({default['product']} {default['version']}): "
                     f"**{quoted(md(default['status']))}**{note} {src.cite(default)}", ""]
    for r in wanted[:MAX_LIST]:
        note = f" — {quoted(md(r['note']))}" if r.get("note") else ""
        lines.append(f"- **{md(r['feature'])}** on {r['target']} ({r['product']} {r['version']}): {r['status']}{note} {src.cite(r)}")
    if len(wanted) > MAX_LIST:
        left = ", ".join(md(r["feature"]) for r in wanted[MAX_LIST:])
        n = len(wanted) - MAX_LIST
        lines.append(f"_…{n} {'filas más' if n > 1 else 'fila más'} ({quoted(left)}): cada fila está en los hechos de "
                     "`kb ask --json` con esta pregunta._" if getattr(q, "language", "en") == "es" else
                     f"_…{n} more {'rows' if n > 1 else 'row'} ({quoted(left)}): each row is in the facts of "
                     "`kb ask --json` for this question._")
    if not_limits:
        lines.append("_Left out, as they state support, not a limitation: "
                     + ", ".join(f"{quoted(md(r['feature']))} ({quoted(r['status'])})" for r in not_limits) + "._")
    facts = [{k: r[k] for k in ("target", "product", "version", "feature", "status", "note", "source_url")} for r in wanted]
    return Answer(q.text, "limitation", "\n".join(lines) + src.markdown(), facts, src.items)


_THROUGH_OPTIONS = re.compile(r"\b(?:through|via|with|use|pass)\s+(?:the\s+)?options\b|\(options\b", re.I)


def _options_rows(conn: sqlite3.Connection, wanted: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A limitation that says "tune through options" names no option: the record of the options that
    backend reads (same target and version), so "how do I tune it?" gets their names (r12 q36)."""
    said = {(r["target"], r["version"]) for r in wanted if _THROUGH_OPTIONS.search(r.get("note") or "")}
    if not said:
        return []
    have = {id(r) for r in wanted}
    shown = {(r["target"], r["version"], r["feature"]) for r in wanted}
    return [r for r in limitation_rows(conn) if (r["target"], r["version"]) in said and id(r) not in have
            and r["feature"].lower().endswith(" options") and (r["target"], r["version"], r["feature"]) not in shown]


def caveat_line(c: dict[str, Any], src: Sources) -> str:
    """One caveat for chat: kind, where and when it applies, the finding, its figure, source."""
    span = (c.get("min_version") or "…") + (f"–{c['max_version']}" if c.get("max_version") else "+")
    when = [c["mode"]] if c.get("mode") else []
    when += list(c.get("dtypes") or [])
    when += [f"{name} {'/'.join(d)}" for name, d in (c.get("arg_dtypes") or {}).items()]
    when += [f"{k}={v}" for k, v in (c.get("conditions") or {}).items()]
    if c.get("phase"):
        when.append(c["phase"])
    figure = c.get("figure") or {}
    fig = f" ({figure['value']} {figure['unit']})" if figure.get("value") is not None else ""
    fix = f" Workaround: {md(c['workaround'])}." if c.get("workaround") else ""
    cond = f", {md(', '.join(when))}" if when else ""
    return f"- **{md(c['kind'])}** on {c['target']} {md(span)}{cond}: {md(c['statement'])}{fig}{fix} {src.cite(c)}"


def _caveat_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    """"Is X slow/broken on Y?": the field caveats for X on Y (at Y's version when asked),
    then the verdicts as `op` answers give them. Field caveats never change a verdict."""
    matches, missing, suggestions = find_ops(conn, q)
    if not matches:
        return _unknown_op(conn, q, missing, suggestions)
    src = Sources()
    lines: list[str] = []
    none_found: list[str] = []  # "`F.hardtanh` on neuron": no caveat recorded there
    facts: list[dict[str, Any]] = []
    targets = q.target_names() or [None]
    for match in matches:
        for target in targets:
            versions = [m.version for m in q.targets if m.target == target and m.version] or [None]
            for version in versions:
                rows = queries.caveats(conn, ops=match.ops, target=target, version=version)
                where = f"{target} {version}" if version else (target or "any target")
                if not rows:
                    none_found.append(f"`{match.asked}` on {where}")
                    facts.append({"op": match.asked, "target": target, "backend_version": version, "caveats": 0})
                    continue
                lines.append(f"**Known issues for `{match.asked}` on {where}** ({len(rows)}):")
                lines += [caveat_line(c, src) for c in rows[:MAX_LIST]]
                if len(rows) > MAX_LIST:
                    lines.append(f"_…{len(rows) - MAX_LIST} more._")
                facts += [{k: c[k] for k in ("op", "target", "kind", "min_version", "max_version", "mode", "dtypes",
                                             "arg_dtypes", "conditions", "statement", "figure", "source_url")}
                          for c in rows]
    if missing:
        lines.append(_missing_line(missing, suggestions))
    verdicts = _op_answer(conn, q, src)
    leads = q.statuses and not any(line.startswith("**Known issues") for line in lines)  # the verdict leads
    if none_found and leads and _negative(verdicts.text):
        # after a "No" headline, "no known issue" reads as its contradiction: nothing beyond the verdict (r12 q7)
        lines.append("No caveat recorded beyond the verdict for " + "; ".join(none_found) + ".")
    elif none_found:  # after the verdict, never above it: "no known issue" is no verdict (r10 q3, r11 q64)
        lines.append("No known issue recorded for " + "; ".join(none_found) + " (" + NO_MEASUREMENT + ").")
    if leads:
        # no caveat, and a status asked ("ok under torch.compile? … slow in eager"): the verdict leads
        text = verdicts.text + "\n\n" + "\n".join(lines) + src.markdown()
    else:
        text = "\n".join(lines) + "\n\n_Verdicts (field caveats do not change them):_\n" + verdicts.text + src.markdown()
    return Answer(q.text, "caveat", text, facts + verdicts.facts, src.items)


def _negative(text: str) -> bool:
    """Whether an op answer's first line says the op does not run on the device (No, Unsupported, falls back)."""
    first = (text or "").lstrip().partition("\n")[0].lower()
    return first.startswith(("**no", "**presumably no", "**unsupported", "**yes, but on the cpu")) \
        or ": unsupported" in first or "falls back" in first or "fallback" in first


NO_MEASUREMENT = "no public measurement in the KB; that is not a clean bill of health"


_HANDLERS = {
    "release": release_answer,
    "diff": diff_answer,
    "family": _family_answer,
    "caveat": _caveat_answer,
    "help": _help,
    "unknown": _unknown,
    "op": _op_answer,
    "compare": _compare,
    "ops_by_status": _ops_by_status,
    "ops_overview": _ops_overview,
    "model": model_answer,
    "limitation": _limitation,
    "eol": eol_answer,
    "collective": collective_answer,
}
