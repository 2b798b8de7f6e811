"""The assessment lines of `kb check` (work, host cost, hazards, suggestions): they live in
kb.check.assess_text (the Python API's report renders them too); kept here so that existing
imports keep working."""

from kb.check.assess_text import MAX_LISTED, clean, compile_line, fields, lines  # noqa: F401
