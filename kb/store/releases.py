"""The release registry as questions: which products it knows, a product's releases newest
first, the latest one, and what a release ships (torch, Python, OS, instance families,
Neuron SDK version) with the source of each row. Plain sqlite3, like kb.store.queries.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from kb.store.queries import _row, version_key

RELEASE_KEYS = ("product", "version", "date", "sdk_version", "torch_versions", "python_versions", "os",
                "instance_families", "channel", "note", "conflicts", "source_kind", "source_name", "source_url",
                "retrieved_at")


def products(conn: sqlite3.Connection) -> list[str]:
    """Every product the registry holds a release of."""
    return [r[0] for r in conn.execute("SELECT DISTINCT product FROM release ORDER BY product")]


def releases(conn: sqlite3.Connection, product: str) -> list[dict[str, Any]]:
    """One product's releases, newest first (by version number; a pre-release sorts below
    its release)."""
    rows = [_row(r) for r in conn.execute("SELECT * FROM release WHERE product = ?", (product,))]
    rows.sort(key=lambda r: version_key(r["version"]), reverse=True)
    return [{k: r.get(k) for k in RELEASE_KEYS} for r in rows]


def latest(conn: sqlite3.Connection, product: str, *, stable: bool = True) -> dict[str, Any] | None:
    """The newest release of a product; with `stable`, pre-releases only when nothing else."""
    rows = releases(conn, product)
    kept = [r for r in rows if r.get("channel") != "pre-release"] if stable else rows
    return (kept or rows or [None])[0]


def find(conn: sqlite3.Connection, product: str, version: str) -> list[dict[str, Any]]:
    """Releases of a product whose version is `version` or lies on its line (2.14.3 finds
    2.14.3.0; 2.33 finds 2.33.0), newest first."""
    asked = version.split(".")
    return [r for r in releases(conn, product) if r["version"].split(".")[:len(asked)] == asked]


def in_sdk(conn: sqlite3.Connection, sdk_version: str) -> list[dict[str, Any]]:
    """Component releases that ship in a Neuron SDK release (release.sdk_version on its line)."""
    asked = sdk_version.split(".")
    rows = [_row(r) for r in conn.execute("SELECT * FROM release WHERE sdk_version IS NOT NULL AND product != 'neuron-sdk'")]
    hits = [r for r in rows if r["sdk_version"].split(".")[:len(asked)] == asked]
    hits.sort(key=lambda r: (r["product"], version_key(r["version"])))
    return [{k: r.get(k) for k in RELEASE_KEYS} for r in hits]


def components(conn: sqlite3.Connection, product: str, version: str) -> dict[str, str]:
    """The component versions a release's notes list ("vLLM Neuron (Beta)": "0.24.0.1.1.0"), {} when none."""
    import json

    row = conn.execute("SELECT components FROM release WHERE product = ? AND version = ? AND components IS NOT NULL",
                       (product, version)).fetchone()
    try:
        found = json.loads(row[0]) if row else {}
    except (TypeError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
