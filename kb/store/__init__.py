"""The KB itself: typed records, the SQLite schema and its migrations, building the file
from the shipped `data/`, ingesting evidence, deriving verdicts, and the read queries.

Every other room reads and writes the KB through here; this room imports only the
basics (`kb.vocab`, `kb.opnames`, `kb.paths`, `kb.errors`). Plain queries (`queries`,
`db`) use sqlite3 alone so that `kb op` starts fast; SQLModel is imported only to write.
"""
