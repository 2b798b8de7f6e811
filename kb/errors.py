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


# The extra that brings PyTorch (pyproject.toml); the core install answers without it.
INSTALL_TORCH = "pip install 'torch-accel-kb[torch]'"


class TorchMissingError(KBError):
    """A command that runs PyTorch (probes, factories, TorchScript, pickles, parity, bench) on an
    install without it: one line that says what to install, instead of an import error."""

    def __init__(self, what: str):
        self.what = what
        super().__init__(f"{what} needs PyTorch, which is not installed here: {INSTALL_TORCH}")


def require_torch(what: str, search_path: list[str] | tuple[str, ...] = ()) -> None:
    """Raise TorchMissingError unless `torch` can be imported (from `search_path`, then sys.path).
    Found, not imported: importing torch costs seconds, and a child process may do it."""
    import importlib.machinery
    import sys

    if importlib.machinery.PathFinder.find_spec("torch", [*search_path, *sys.path]) is None:
        raise TorchMissingError(what)


def is_torch_missing(exc: BaseException) -> bool:
    """Whether `exc` is the import of torch (or one of its modules) failing for lack of torch."""
    return isinstance(exc, ModuleNotFoundError) and exc.name == "torch"
