"""Warnings `kb check` adds from the KB: known limitations the model hits, end of support.

A limitation is feature-level ("torch.fft: partial", "float64: runs as float32"); it
becomes a warning only when the traced model uses that feature, judged from the ATen ops
and dtypes it runs. End-of-support warnings come from kb.eol.windows for the target's backend
version (its own windows, its SDK's, its PyTorch's). Every warning names its source.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from datetime import date

# How a limitation's feature shows in a traced graph: a test over (op names, dtypes, mode).
_FEATURE_TESTS: dict[str, Callable[[set[str], set[str], str], bool]] = {
    "float64": lambda ops, dtypes, mode: "float64" in dtypes,
    "torch.fft": lambda ops, dtypes, mode: any(op.startswith("aten::fft_") or op.startswith("aten::_fft") for op in ops),
    "torch.sparse": lambda ops, dtypes, mode: any("sparse" in op for op in ops),
    "torch.nested": lambda ops, dtypes, mode: any("nested" in op for op in ops),
    "complex": lambda ops, dtypes, mode: any(d.startswith("complex") for d in dtypes),
    "torch.compile dynamic=True": lambda ops, dtypes, mode: mode == "compile",
}


def _release_ids_for(conn: sqlite3.Connection, target: str, backend_version: str | None) -> list[int]:
    """The releases whose limitations apply: the backend version itself and its SDK
    release; without an SDK link, the newest release the target has limitations for."""
    ids = []
    product = conn.execute("SELECT product FROM target WHERE name = ?", (target,)).fetchone()
    if product and backend_version:
        row = conn.execute("SELECT id, sdk_version FROM release WHERE product = ? AND version = ?",
                           (product[0], backend_version)).fetchone()
        if row:
            ids.append(row[0])
            if row[1]:
                sdk = conn.execute("SELECT id FROM release WHERE product = 'neuron-sdk' AND version = ?",
                                   (row[1],)).fetchone()
                if sdk:
                    ids.append(sdk[0])
    if len(ids) < 2:
        from kb.store.queries import version_key

        stated = conn.execute("SELECT DISTINCT r.id, r.version FROM limitation l JOIN release r ON r.id = l.release_id "
                              "WHERE l.target = ?", (target,)).fetchall()
        if stated:
            ids.append(max(stated, key=lambda r: version_key(r[1]))[0])
    return list(dict.fromkeys(ids))


def limitation_warnings(conn: sqlite3.Connection, target: str, backend_version: str | None, ops: set[str],
                        dtypes: set[str], mode: str) -> list[str]:
    ids = _release_ids_for(conn, target, backend_version)
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT l.feature, l.status, l.note, l.source_url, r.product, r.version FROM limitation l "
        f"JOIN release r ON r.id = l.release_id WHERE l.target = ? AND l.release_id IN ({marks}) ORDER BY l.feature",
        (target, *ids)).fetchall()
    out = []
    for feature, status, note, url, product, version in rows:
        test = _FEATURE_TESTS.get(feature)
        if test is None or not test(ops, dtypes, mode):
            continue
        detail = f" ({note})" if note else ""
        out.append(f"limitation on {target} ({product} {version}): {feature} — {status}{detail} [source: {url}]")
    return out


def eol_warnings(conn: sqlite3.Connection, target: str, backend_version: str | None,
                 today: date | None = None) -> list[str]:
    from kb.eol import windows as eol

    out = []
    for warning in eol.warnings_for(conn, target, backend_version, today):
        if warning.get("severity") == "info":
            continue
        source = f" [source: {warning['source_url']}]" if warning.get("source_url") else ""
        out.append(f"end of support ({warning['severity']}): {warning['message']}{source}")
    return out


def hooks_for(db: str | None, today: date | None = None) -> list[Callable]:
    """Warning hooks for kb.check.resolve.check, reading the KB at `db`."""

    def kb_warnings(report, traced) -> Iterable[str]:
        from kb.store.db import open_kb

        ops = {site.op for site in traced.sites}
        dtypes = {spec.dtype for site in traced.sites for spec in site.tensor_args() if spec.dtype}
        from kb.store.queries import basis_note

        conn = open_kb(db)
        try:
            basis = basis_note(conn, report.target, report.backend_version)
            return ([f"basis: {basis}"] if basis else []) + (
                limitation_warnings(conn, report.target, report.backend_version, ops, dtypes, report.mode)
                + eol_warnings(conn, report.target, report.backend_version, today))
        finally:
            conn.close()

    return [kb_warnings]
