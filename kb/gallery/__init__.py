"""The model gallery: popular architectures' op censuses (data/gallery) turned into
per-model answers and usage-weighted coverage.

`census` takes a census from an export with kb.check's own reader (so a census equals what
`kb check` reports for that export) and rebuilds a TracedModel from one; `views` answers
the gallery questions (models × targets, usage per op, the Baseline line) from the KB.
"""
