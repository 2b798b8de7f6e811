"""Questions about torch APIs that are no ATen op of the catalog but a class a vendor page
rules on: torch.distributed collectives ("can I use torch.distributed.all_reduce on neuron?").

Collectives reach the device through c10d / _c10d_functional ops, which the ATen catalog
does not hold, so an op lookup finds nothing and would answer "unknown". TorchNeuron's
"Supported PyTorch APIs and operators" page rules on the whole class instead (entries that
need a process group are supported once init_process_group has run); kb.store.rules keeps
that rule as a limitation row per release (source kind `doc_rule`), and this answer reads
it with its URL. A target without such a rule stays unknown.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from kb.chat.intents import Question, TargetMention
from kb.chat.oplookup import pick_versions
from kb.chat.reply import Answer, Sources
from kb.neutral import markdown as md
from kb.store import queries
from kb.vocab import UNKNOWN

# torch.distributed.X / dist.X, c10d and functional-collective op names, and the collectives'
# own names as people write them (all_reduce, allgather, reduce_scatter_tensor, barrier...).
_COLLECTIVE = re.compile(
    r"(?<![\w.])(torch\.distributed(?:\.[A-Za-z_]\w*)*|dist\.[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
    r"|(?:torch\.ops\.)?_?c10d(?:_functional)?(?:::|\.)\w+"
    r"|all_?reduce\w*|all_?gather\w*|reduce_?scatter\w*|all_?to_?all\w*|broadcast(?:_object_list)?|barrier"
    r"|init_process_group|process[ _-]groups?|collectives?)(?![\w])", re.I)
DEFAULT_TARGETS = ("neuron", "tpu")


def collective_in(text: str) -> str | None:
    """The collective (or torch.distributed API) a question names, as written, or None."""
    m = _COLLECTIVE.search(text or "")
    return m.group(1) if m else None


def _rule_rows(conn: sqlite3.Connection, target: str) -> list[dict[str, Any]]:
    """Limitation rows about torch.distributed for a target (the process-group doc rule)."""
    rows = conn.execute(
        "SELECT l.target, r.product, r.version, l.feature, l.status, l.note, l.source_kind, l.source_name, "
        "l.source_url, l.retrieved_at FROM limitation l JOIN release r ON r.id = l.release_id "
        "WHERE l.target = ? AND (l.feature LIKE 'torch.distributed%' OR l.feature LIKE '%process group%')",
        (target,))
    return sorted((dict(r) for r in rows), key=lambda r: queries.version_key(r["version"]))


def collective_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    asked = collective_in(q.text) or "torch.distributed"
    src = Sources()
    lines: list[str] = []
    facts: list[dict[str, Any]] = []
    heads: list[str] = []
    mentions = [next((m for m in q.targets if m.target == t and m.version), None)
                or next(m for m in q.targets if m.target == t) for t in q.target_names()]  # trn2 … neuron 2.34: one
    mentions = mentions or [TargetMention(t) for t in DEFAULT_TARGETS]
    for mention in mentions:
        rows = _rule_rows(conn, mention.target)
        if not rows:
            heads.append(f"unknown on {mention.target}")
            lines.append(f"- ? **unknown** on {mention.target}: the KB has no rule or record for torch.distributed "
                         f"collectives there (collectives run as c10d ops, which the ATen op catalog does not hold).")
            facts.append({"api": asked, "target": mention.target, "status": UNKNOWN})
            continue
        pick = pick_versions(conn, mention)
        chosen = [r for r in rows if r["version"] in pick.versions] or ([] if mention.version else rows[-1:])
        if not chosen:
            known = ", ".join(r["version"] for r in rows)
            heads.append(f"unknown on {mention.target} {pick.label}")
            lines.append(f"- ? **unknown** on {mention.target} {pick.label}: the rule covers {known}.")
            facts.append({"api": asked, "target": mention.target, "backend_version": mention.version, "status": UNKNOWN})
            continue
        for r in chosen:
            note = f" — {md(r['note'])}" if r.get("note") else ""
            lines.append(f"- **{md(r['feature'])}** on {r['target']} {r['product']} {r['version']}: "
                         f"{md(r['status'])}{note} {src.cite(r)}")
            facts.append({"api": asked, "target": r["target"], "product": r["product"], "backend_version": r["version"],
                          "status": r["status"], "basis": "doc rule", "source_kind": r["source_kind"],
                          "source_url": r["source_url"]})
        status = chosen[-1]["status"].lower()
        if status.startswith("supported"):
            after = " once `torch.distributed.init_process_group` has run" if "init_process_group" in status else ""
            heads.append(f"yes on {mention.target}{after}")
        elif status.startswith(("not supported", "unsupported")):
            heads.append(f"no on {mention.target}")
        else:
            heads.append(f"{status} on {mention.target}")
    head = f"**{'; '.join(heads)[0].upper()}{'; '.join(heads)[1:]}**"
    ruled = any(f.get("basis") == "doc rule" for f in facts)
    lead = [f"{head} — `{md(asked)}` is torch.distributed (collectives dispatch to c10d ops, not to ATen ops of "
            "the catalog)" + ("; the answer rests on the vendor's rule for that class of APIs, not on a record naming "
                              "this call — the per-API detail is in the vendor's compatibility table." if ruled else "."),
            ""]
    return Answer(q.text, "collective", "\n".join(lead + lines) + src.markdown(), facts, src.items)
