"""One module per public source: fetch, parse, and return `kb.records` (no SQL here)."""
