""""The older tpu one", "la tpu vieja", "the previous torchneuron": the release before a target's newest, said as
a version, so every reader of the question sees which release is asked (r31 q51)."""

from __future__ import annotations

import re
import sqlite3

from kb.store import queries

_TARGET = r"(?:tpu|torch_tpu|torchtpu|torch-tpu|neuron|torchneuron|trainium)"
_OLDER_EN = r"(?:older|previous|prior|old|earlier)"
_OLDER_ES = r"(?:vieja|viejo|anterior|antigua|antiguo)"
# "the older tpu one", "the previous torchneuron release", "la tpu vieja", "la versión anterior de torch_tpu"
_OLDER = re.compile(rf"\b(?:the |la |el )?{_OLDER_EN} {_TARGET}(?: (?:one|release|version|build))?\b"
                    rf"|\b(?:la |el )?{_TARGET} (?:(?:one|release|version|versi[oó]n) )?{_OLDER_ES}\b"
                    rf"|\b(?:la |el )?(?:versi[oó]n|release) {_OLDER_ES} de {_TARGET}\b", re.I)
_NAMES = {"torch_tpu": "tpu", "torchtpu": "tpu", "torch-tpu": "tpu", "torchneuron": "neuron", "trainium": "neuron"}


def older_named(conn: sqlite3.Connection, text: str) -> tuple[str, list[str]]:
    """The text with each "older <target>" said as "<target> <the release before its newest>", and the phrases
    replaced; a target with a single release (or none) is left as said. Pre-releases are not counted."""
    said: list[str] = []

    def one(m: re.Match) -> str:
        word = re.search(_TARGET, m.group(), re.I).group().lower()
        target = _NAMES.get(word, word)
        versions = sorted((v for v in queries.target_versions_with_data(conn, target) if "dev" not in v),
                          key=queries.version_key)
        if len(versions) < 2:
            return m.group()
        said.append(m.group().strip())
        return f"{target} {versions[-2]}"

    return _OLDER.sub(one, text), said
