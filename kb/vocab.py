"""The words kb uses for verdicts, evidence and modes, and how they rank.

Kept free of heavy imports: the fast query path and the scrapers both read it.
"""

from __future__ import annotations

# Verdicts, best first. `crash` and `timeout` are live-probe outcomes that are as bad
# as `unsupported` for a user; they stay distinct so the evidence says what happened.
STATUSES = ("native", "decomposed", "fallback", "unsupported", "crash", "timeout")
UNKNOWN = "unknown"  # never stored: a missing row means unknown

# How bad a status is for a model that needs the op (higher is worse). `unknown` sits
# between fallback and unsupported: it may work, but nobody has shown it does.
SEVERITY = {
    "native": 0,
    "decomposed": 1,
    "fallback": 2,
    UNKNOWN: 3,
    "unsupported": 4,
    "crash": 4,
    "timeout": 4,
}

def trips(status: str, fail_on: str | None, fail_on_unknown: bool) -> bool:
    """Whether one status trips a `--fail-on` gate: `unknown` only by its own switch; the
    rest by the scale native < decomposed < fallback < unsupported (crash, timeout as unsupported)."""
    if status == UNKNOWN:
        return fail_on_unknown
    return fail_on is not None and SEVERITY[status] >= SEVERITY[fail_on]


# Evidence precedence (higher wins). A restated fact (`manual`) ranks with the
# document it restates.
# A `doc_rule` (a vendor page's rule for a class of ops, kb.store.rules) ranks below every
# source that names the op itself and above the dispatcher replay: the vendor's word on a
# class beats kb's inference, never evidence for that op.
SOURCE_KINDS = ("live_probe", "static_probe", "doc", "manual", "release_notes", "doc_rule", "inferred", "field",
                "local_report")
SOURCE_RANK = {
    "live_probe": 6,
    "static_probe": 5,
    "doc": 4,
    "manual": 4,
    "release_notes": 3,
    "doc_rule": 2,
    "inferred": 1,
    "local_report": 0,
}

# A JSONL file someone handed to `kb ingest FILE` is a local report: whatever source it
# claims to be is kept as its claim, and its facts are stored under this kind (probe
# results whose run the file itself defines keep their probe kind). Such evidence ranks
# below every shipped or self-made source unless it was ingested with --prefer-local
# (kb.store.support.tier).
LOCAL_REPORT_KIND = "local_report"
REPORT_ORIGIN = "report"

# `field` is knowledge measured in public (benchmarks, a backend's own test expectations):
# it becomes caveats beside the verdicts, never a verdict, so it has no precedence rank.
CAVEAT_SOURCE_KIND = "field"

MODES = ("eager", "compile")

# What a verdict rests on. `evidence`: a probe or a document named the op for that
# version. `inferred`: the dispatcher replay of a known kernel list under a documented
# fallback policy (kb.probe.replay). `presumed`: carried forward from an older version of
# the same product line, for a version with no word of its own on the op. `doc rule`: a
# vendor page's rule for a class of ops that includes this one (kb.store.rules).
# `local`: the winning evidence came from a local report file (kb ingest FILE).
DOC_RULE_BASIS = "doc rule"
BASES = ("evidence", DOC_RULE_BASIS, "inferred", "presumed", "local")
BASIS_MARKS = {"evidence": "", DOC_RULE_BASIS: "ʳ", "inferred": "ⁱ", "presumed": "ᵖ", "local": "ˡ"}
LOCAL_MARK = "ˡ"
BASIS_LEGEND = ("ʳ doc rule (a vendor page's rule for a class of ops) · ⁱ inferred (dispatcher replay of a kernel list)"
                " · ᵖ presumed (carried from an older version or snapshot) · ˡ local report (a file ingested here)")

# What a field caveat says happens to an op that runs (kb.store.records.Caveat):
# slow — much slower than a comparable op or argument choice; wrong_result — numerics or
# dtype differ from the CPU; host_execution — runs on the host although the dispatcher
# shows a device kernel; compile_failure — fails under torch.compile / the graph compiler;
# dtype_upcast — computed in a wider dtype than asked for; hang — does not finish;
# error — raises for these dtypes or arguments; test_failure — the backend's own test
# suite expects it to fail without saying how; rewritten — the backend substitutes a kernel
# of its own under stated conditions (informational).
CAVEAT_KINDS = ("slow", "wrong_result", "host_execution", "compile_failure", "dtype_upcast", "hang",
                "error", "test_failure", "rewritten")
# Kinds that only inform (a `kb check` note, not a warning).
INFO_CAVEAT_KINDS = ("rewritten",)

# `OpStatus.detail["granularity"]` of a fact a source states for a whole op family
# ("aten::add", no overload named): the verdict then covers every overload of the family
# that the same source does not name itself (see kb.store.support.expand_families).
FAMILY_GRANULARITY = "op family (no overload named)"

# Date qualities for support windows (endoflife.date style).
DATE_KINDS = ("announced", "projected", "with_release")

SYMBOLS = {
    "native": "✔",
    "decomposed": "◐",
    "fallback": "⇄",
    "unsupported": "✘",
    "crash": "✘",
    "timeout": "✘",
    UNKNOWN: "?",
}


def worst(statuses) -> str:
    """The worst of several statuses (unknown when there are none)."""
    statuses = list(statuses)
    if not statuses:
        return UNKNOWN
    return max(statuses, key=lambda s: SEVERITY[s])


def best(statuses) -> str:
    """The best of several statuses (unknown when there are none)."""
    statuses = list(statuses)
    if not statuses:
        return UNKNOWN
    return min(statuses, key=lambda s: SEVERITY[s])
