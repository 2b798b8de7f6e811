"""`kb check --format sarif|junit`: the formats live in kb.check.formats (the Python API's
report renders them too); kept here so that existing imports keep working."""

from kb.check.formats import failing_keys, junit, merge_sarif, sarif  # noqa: F401
