"""Status labels said in running sentences, per language.

A table cell or a code span keeps kb's label (`native`, `fallback`, with its symbol), which is
vocabulary in both languages; a sentence says what the label means in the reader's words:
"1 de 1 op nativo", "0 de 1 op se ejecuta en el dispositivo", "recurre a la CPU" (29s). English
sentences keep the label itself, which is an English word.
"""

from __future__ import annotations

# The label as a Spanish sentence says it (masculine, agreeing with "op"/"kernel").
SPANISH = {"native": "nativo", "fallback": "recurre a la CPU", "decomposed": "descompuesto",
           "unsupported": "no soportado", "unknown": "desconocido", "crash": "hizo caer el runtime",
           "timeout": "se colgó", "supported": "soportado"}


def status_word(status: str, lang: str) -> str:
    """`status` as a sentence in `lang` says it."""
    return SPANISH.get(status, status) if lang == "es" else status
