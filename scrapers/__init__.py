"""One module per public source: fetch, parse, and return `kb.store.records` (no SQL here)."""
