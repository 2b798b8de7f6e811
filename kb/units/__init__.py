"""Numbers kb computes with, below every room that computes them: the cost formula and its
rounding (`kb cost` in kb.migrate and cost questions in kb.chat use the same one)."""
