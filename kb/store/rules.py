"""Doc rules: a vendor page's rule for a class of ops or APIs, applied to every member.

A page such as TorchNeuron's "Supported PyTorch APIs and operators" classifies whole
families ("quantized operator variants: not supported") instead of naming each op. A
`DocRule` record (kb.store.records) says which catalog ops the rule selects; ingest expands
it here into ordinary records — one `doc_rule` OpStatus per selected op × release of the
target's product in the rule's version range × mode, and one Limitation per API it names
that is not an ATen op — so the rest of the KB (precedence, views, chat) needs no special
case: the source kind ranks above `inferred` (and so above any presumed carry-forward,
which only fills versions with no word of their own) and below every source that names the
op itself (kb.vocab.SOURCE_RANK).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kb.store import records as rec
from kb.store.targetspec import version_key

MAX_PATTERN = 2000  # a selector is a short regular expression, not a program


def selected_ops(rule: rec.DocRule, catalog: Iterable[str]) -> list[str]:
    """The catalog ops a rule covers: those it names, and those its pattern matches in full."""
    select = rule.select or {}
    named = set(select.get("ops") or ())
    pattern = select.get("name_regex")
    if pattern is not None and (not isinstance(pattern, str) or len(pattern) > MAX_PATTERN):
        raise rec.RecordError(f"rule {rule.rule_id}: name_regex must be a string of at most {MAX_PATTERN} characters")
    try:
        regex = re.compile(pattern) if pattern else None
    except re.error as exc:
        raise rec.RecordError(f"rule {rule.rule_id}: bad name_regex ({exc})") from None
    return sorted(name for name in catalog if name in named or (regex is not None and regex.fullmatch(name)))


def in_range(rule: rec.DocRule, version: str) -> bool:
    """Whether a version of the target's product lies in the rule's inclusive range."""
    key = version_key(version)
    if rule.min_version and key < version_key(rule.min_version):
        return False
    return not (rule.max_version and key > version_key(rule.max_version))


def expand(rule: rec.DocRule, catalog: Iterable[str], versions: Iterable[str], product: str) -> list[rec.Record]:
    """The records a rule stands for, given the op catalog and the known versions of the
    target's product (only those in the rule's range)."""
    versions = sorted((v for v in set(versions) if in_range(rule, v)), key=version_key)
    prov = rule.provenance
    detail = {"rule": rule.rule_id, "vendor_class": rule.vendor_class, "summary": rule.summary,
              "select": rule.select}
    out: list[rec.Record] = []
    for op in selected_ops(rule, catalog):
        for version in versions:
            for mode in rule.modes:
                out.append(rec.OpStatus(op=op, target=rule.target, backend_version=version, status=rule.status,
                                        provenance=prov, mode=mode, note=f"doc rule: {rule.summary}",
                                        detail=detail))
    for api in rule.apis:
        for version in versions:
            out.append(rec.Limitation(target=rule.target, product=product, version=version, feature=api,
                                      status=rule.api_status or rule.status, provenance=prov,
                                      note=f"doc rule {rule.rule_id}: {rule.summary}"))
    return out
