"""Errors a user can cause and fix. The CLI prints them as one line and exits 2."""


class KBError(Exception):
    """Base of every error kb reports to a user (bad input, missing file, corrupt KB)."""


class UnknownOpError(KBError):
    def __init__(self, name: str, suggestions: list[str]):
        self.name = name
        self.suggestions = suggestions
        hint = f" — did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown operator {name!r}{hint}")


class CorruptKBError(KBError):
    """The KB file exists but is not a readable kb database."""


class SchemaTooNewError(KBError):
    """The KB was written by a newer kb than this one."""
