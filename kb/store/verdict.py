"""One verdict, said the same way everywhere: `kb op`, `kb ops`, `kb compare`, `kb check`,
`kb ask`, the MCP tools and the Datasette pages all describe a derived verdict with these
functions, so a decomposed op always says where its leaves run and every verdict shows
what it rests on (evidence, inferred, presumed).

Works on a support row as `kb.store.queries` returns it (a dict with status, basis,
effective_status, effective_via), or on an absent one (unknown).
"""

from __future__ import annotations

from kb.vocab import BASIS_MARKS, LOCAL_MARK, SYMBOLS, UNKNOWN

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: this module is on `kb op`'s start path
if TYPE_CHECKING:
    from typing import Any

# What settles an unknown, per target: the static probe needs only the installed package.
SETTLE = {
    "neuron": "kb probe --static --backend torch_neuronx (on a machine with torch-neuronx installed)",
    "tpu": "kb probe --static --backend torch_tpu (pip install torch-tpu; no TPU needed)",
    "neuron-xla": "kb probe --static --backend xla (on a machine with torch-neuronx's torch_xla)",
    "xla": "kb probe --static --backend xla (pip install torch_xla)",
    "cuda": "kb probe --static --backend cuda (on a machine with a CUDA build of torch)",
}
DEFAULT_SETTLE = "kb probe --static --backend NAME on a machine with the backend installed, or kb ingest REPORT"


def effective_status(row: dict[str, Any] | None) -> str:
    """Where the op runs: its own status, or for a decomposed op its worst leaf's
    (`decomposed` when the leaves all run on the device or were not traced)."""
    if row is None:
        return UNKNOWN
    return row.get("effective_status") or row["status"]


def leaves_traced(row: dict[str, Any]) -> bool:
    via = row.get("effective_via") or {}
    return row["status"] != "decomposed" or bool(via.get("leaves"))


def runs(row: dict[str, Any] | None) -> str:
    """A few words on where it runs: "own kernel", "leaves on the device", "fallback at
    aten::x", "leaves not traced"..."""
    if row is None:
        return "no evidence"
    status = row["status"]
    if status != "decomposed":
        return {"native": "own kernel", "fallback": "CPU fallback", "unsupported": "raises",
                "crash": "crashed the runtime", "timeout": "hung"}.get(status, status)
    via = row.get("effective_via") or {}
    if not via.get("leaves"):
        return "leaves not traced"
    effective = effective_status(row)
    if effective == "decomposed":
        return "leaves on the device"
    return f"{effective} at {via.get('leaf')}" if via.get("leaf") else f"a leaf is {effective}"


def label(row: dict[str, Any] | None) -> str:
    """`✔ native`, `◐ decomposed → ⇄ fallback at aten::x ᵖ`, `? unknown`: status, where it
    runs, basis mark."""
    if row is None:
        return f"{SYMBOLS[UNKNOWN]} {UNKNOWN}"
    status = row["status"]
    text = f"{SYMBOLS.get(status, '?')} {status}"
    if status == "decomposed":
        effective = effective_status(row)
        where = runs(row)
        if effective != "decomposed":
            text += f" → {SYMBOLS.get(effective, '?')} {where}"
        else:
            text += f" ({where})"
    return text + mark(row)


def mark(row: dict[str, Any] | None) -> str:
    """The basis mark of a verdict row (ᵖ, ⁱ, ʳ, ˡ; "" for evidence or no row): every table
    that shows a verdict shows it, so a presumed verdict never reads as a stated fact."""
    if row is None:
        return ""
    text = BASIS_MARKS.get(row.get("basis") or "evidence", "")
    if row.get("report") and row.get("basis") != "local":
        text += LOCAL_MARK  # presumed from a local report: still a local report's word
    return text


def settle(target: str) -> str:
    """The command that would turn an unknown on `target` into evidence."""
    return SETTLE.get(target, DEFAULT_SETTLE)


KIND_WORDS = {"live_probe": "live probe", "static_probe": "static probe", "release_notes": "release notes",
              "inferred": "inferred", "doc": "doc", "manual": "manual", "field": "field",
              "local_report": "local report"}


def local_text(row: dict[str, Any]) -> str:
    """`local report x.jsonl (sha256 …, ingested …; claims manual neuron-docs)`, or "" for
    a verdict that does not rest on a local report file."""
    if not row.get("report"):
        return ""  # most rows: no need to import provenance (and the records it needs)
    from kb.store.provenance import describe

    return describe(row.get("report"))


def source_text(row: dict[str, Any]) -> str:
    """kind · name · link, each said once: `doc · neuron-xla-op-list · https://…`,
    `static probe · run static-tpu-0.2.0-…` (a probe's link is its run). A verdict resting
    on a local report file says so first, with the file and its sha256."""
    local = local_text(row)
    if local:
        kind = row.get("source_kind") or ""
        if kind in ("live_probe", "static_probe", "inferred") and row.get("probe_run_id"):
            return f"{local} · {KIND_WORDS[kind]} · run {row['probe_run_id']}"
        return local
    kind = row.get("source_kind") or ""
    parts = [KIND_WORDS.get(kind, kind.replace("_", " "))]
    name = row.get("source_name") or ""
    if name and name not in (kind, parts[0]):
        parts.append(name)
    if row.get("source_url"):
        parts.append(row["source_url"])
    elif row.get("probe_run_id"):
        parts.append(f"run {row['probe_run_id']}")
    return " · ".join(p for p in parts if p)
