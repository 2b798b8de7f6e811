"""`kb.ask(question)`: the Python face of `kb ask`, and what the command calls.

Returns the data `kb ask --json` prints (without the kb_version/command envelope): the
answer's text (markdown), its intent and its sources. Prints nothing; an empty or
over-long question raises a KBError with the CLI's one-line message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def answer_for(question: str, *, db: str | None = None, allow_files: bool = True,
               on_note: Callable[[str], None] | None = None):
    """The Answer object (kb.chat.reply.Answer) for one question; the KB is opened and closed.
    `allow_files`: a model path in the question may be read and checked (a local user; a
    chat platform's messages never make kb open files)."""
    from kb.chat.answer import answer
    from kb.chat.reply import check_question
    from kb.store.build import notices_to
    from kb.store.db import open_kb

    text = check_question(question)
    with notices_to(on_note):  # the first-use build's notice, and any a checked model's KB opening makes
        conn = open_kb(db)
        try:
            return answer(text, conn=conn, allow_files=allow_files)
        finally:
            conn.close()


def ask(question: str, *, db: str | None = None, allow_files: bool = True,
        on_note: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Answer a question in plain words with sources ("is nonzero native on tpu 0.2.0?",
    "when does torch-neuronx 2.9 lose support?"); `ask("help")` lists what can be asked."""
    if not isinstance(question, str):
        from kb.errors import KBError

        raise KBError(f"ask: the question must be a str, got {type(question).__name__}")
    return answer_for(question, db=db, allow_files=allow_files, on_note=on_note).to_dict()
