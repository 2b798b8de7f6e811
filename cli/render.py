"""Output: rich tables on a terminal, plain aligned text in pipes, JSON for scripts.

Rich is imported only when stdout is a terminal: piped output is what scripts and the
cold-start benchmark read, and rich's import alone costs several times Python's start.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence

from kb.neutral import json_text, terminal
from kb.vocab import SYMBOLS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: this module is on `kb op`'s start path
if TYPE_CHECKING:
    from typing import Any

STATUS_STYLE = {
    "native": "green",
    "decomposed": "cyan",
    "fallback": "yellow",
    "unsupported": "red",
    "crash": "red",
    "timeout": "red",
    "unknown": "dim",
}


def status_label(status: str) -> str:
    """`✔ native`: symbol and word, so colour is never the only signal."""
    return f"{SYMBOLS.get(status, '?')} {status}"


# The command being run (`db path`), set by the entry point; JSON output names it.
COMMAND = ""
# --verbose: notices in full (one per version) instead of one folded line per target.
VERBOSE = False


def current_command() -> str:
    """The words of the running command: typer's context when typer runs it, else COMMAND."""
    if "typer" in sys.modules:
        from typer._click.globals import get_current_context

        ctx = get_current_context(silent=True)
        if ctx is not None:
            return ctx.command_path.partition(" ")[2]
    return COMMAND


def envelope(data: Any, key: str = "items", command: str | None = None) -> dict[str, Any]:
    """The one JSON shape of every `--json` output (cli.grammar.JSON_ENVELOPE_DOC):
    kb_version and command first, then the command's fields; a list goes under `key`."""
    import kb

    doc: dict[str, Any] = {"kb_version": kb.__version__, "command": command or current_command()}
    if isinstance(data, dict):
        doc.update({k: v for k, v in data.items() if k not in ("kb_version", "command")})
    else:
        doc[key] = data
    return doc


def emit_json(data: Any, key: str = "items", command: str | None = None) -> None:
    """Print `data` in the envelope (see `envelope`)."""
    sys.stdout.write(json_text(json.dumps(envelope(data, key, command), indent=2, ensure_ascii=False, default=str)) + "\n")


def error(message: str) -> None:
    """One line on stderr, prefixed so it is recognisable in CI logs."""
    sys.stderr.write(f"kb: error: {one_line(terminal(message))}\n")


def one_line(message: str, word_limit: int = 80, line_limit: int = 1000) -> str:
    """`message` on one line, a word longer than any path (an echoed 100 KB argument, say)
    cut to `word_limit` characters and the whole to `line_limit`."""
    words = []
    for word in " ".join(str(message).split()).split(" "):
        words.append(word if len(word) <= 256 else word[: word_limit - 1] + "…")
    text = " ".join(words)
    return text if len(text) <= line_limit else text[: line_limit - 1] + "…"


def note(message: str) -> None:
    sys.stderr.write(f"kb: {terminal(message)}\n")


def table(columns: Sequence[str], rows: Iterable[Sequence[Any]], title: str | None = None,
          status_column: str | None = "status") -> None:
    """Print a table; cells in `status_column` get a symbol (and colour on a terminal).
    Every cell and the title are shown neutrally (kb.neutral.terminal): they come from
    model files and records, and must not move the cursor or forge a row."""
    rows = [[terminal(cell) for cell in row] for row in rows]
    columns = [terminal(c) for c in columns]
    title = terminal(title) if title else title
    status_index = columns.index(status_column) if status_column in columns else None
    if status_index is not None:
        for row in rows:
            row[status_index] = status_label(row[status_index]) if row[status_index] else row[status_index]
    limit = width_limit()
    footnotes: list[str] = []
    if limit:
        rows, footnotes = fit(columns, rows, limit)
        title = "\n".join(_wrap(title, limit)) if title else title
    if sys.stdout.isatty():
        _rich_table(columns, rows, title, status_index)
    else:
        _plain_table(columns, rows, title)
    if footnotes:
        sys.stdout.write("".join(line + "\n" for n, text in enumerate(footnotes, 1)
                                 for line in _wrap(f"[{n}] {text}", limit, "    ")))


def footer(text: str) -> None:
    """A line under a table on stdout, wrapped to the width the table fits (neutral text)."""
    limit = width_limit()
    text = terminal(text)
    sys.stdout.write("".join(line + "\n" for line in (_wrap(text, limit, "    ") if limit else [text])))


# A cell this long that repeats in the rows of a table is a footnote, not a column.
FOOTNOTE_REPEATED = 30
_GAP = 2  # the spaces between plain columns


def width_limit() -> int | None:
    """The width a table must fit: COLUMNS when set (also in a pipe: `COLUMNS=120 kb op …`),
    else the terminal's; None in a pipe without COLUMNS (the table is as wide as its cells,
    for scripts that cut columns, and --json has everything)."""
    import os

    text = os.environ.get("COLUMNS", "")
    if text.isdigit() and int(text) >= 40:
        return int(text)
    if sys.stdout.isatty():
        import shutil

        return max(40, shutil.get_terminal_size().columns)
    return None


class _Ref:
    """A cell moved to the footnotes; numbered in reading order once the table is final."""

    def __init__(self, text: str):
        self.text = text

    def __len__(self) -> int:
        return 4  # "[nn]"


def fit(columns: Sequence[str], rows: list[list[str]], limit: int) -> tuple[list[list[str]], list[str]]:
    """(rows, footnotes) so the table fits `limit` columns (a table that fits is left as it
    is): long cells that repeat in the rows become numbered footnotes first (a note or source shown once, not in every row),
    then the widest column's longest cells, until the table fits or no column can narrow
    further (the first column, the row's name, always stays)."""
    from collections import Counter

    cells: list[list[Any]] = [list(row) for row in rows]
    if _width(columns, cells) <= limit:
        return cells, []
    repeated = Counter(c for row in cells for c in row[1:] if len(c) > FOOTNOTE_REPEATED)
    for row in cells:
        for i in range(1, len(row)):
            if repeated.get(row[i], 0) >= 2:
                row[i] = _Ref(row[i])
    done: set[int] = set()
    while True:
        widths = [max([len(c) for c in columns[i:i + 1]] + [len(row[i]) for row in cells]) for i in range(len(columns))]
        excess = sum(widths) + _GAP * (len(widths) - 1) - limit
        open_ = [i for i in range(1, len(widths)) if i not in done]
        if excess <= 0 or not open_:
            break
        widest = max(open_, key=lambda i: widths[i])
        goal = max(len(columns[widest]), 4, widths[widest] - excess)
        moved = False
        for row in cells:
            if not isinstance(row[widest], _Ref) and len(row[widest]) > goal:
                row[widest] = _Ref(row[widest])
                moved = True
        if not moved:
            done.add(widest)
    numbers: dict[str, int] = {}
    out = []
    for row in cells:
        shown = []
        for c in row:
            if isinstance(c, _Ref):
                n = numbers.setdefault(c.text, len(numbers) + 1)
                shown.append(f"[{n}]")
            else:
                shown.append(c)
        out.append(shown)
    return out, list(numbers)


def shorten(line: str) -> str:
    """One line cut to the width a table fits (width_limit), ending in "…"; whole under
    --verbose or without a width. Sets SHORTENED so the command can say so once."""
    global SHORTENED
    limit = width_limit()
    if VERBOSE or not limit or len(line) <= limit:
        return line
    SHORTENED = True
    return line[: limit - 1] + "…"


def wrapped(line: str) -> str:
    """A line wrapped to the width a table fits (continuation lines indented)."""
    limit = width_limit()
    return "\n".join(_wrap(line, limit, "    ")) if limit and len(line) > limit else line


# Whether shorten() cut a line this run.
SHORTENED = False


def _width(columns: Sequence[str], cells: list[list[Any]]) -> int:
    widths = [max([len(columns[i])] + [len(row[i]) for row in cells]) for i in range(len(columns))]
    return sum(widths) + _GAP * (len(widths) - 1)


def _wrap(text: str, limit: int, indent: str = "") -> list[str]:
    """`text` in lines of at most `limit` characters (a word longer than a line is split)."""
    import textwrap

    lines = []
    for part in text.split("\n"):
        lines.extend(textwrap.wrap(part, limit, subsequent_indent=indent, break_on_hyphens=False) or [""])
    return lines


def _plain_table(columns: Sequence[str], rows: list[list[str]], title: str | None) -> None:
    widths = [len(c) for c in columns]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]
    out = []
    if title:
        out.append(title)
    out.append("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    out.append("  ".join("-" * w for w in widths))
    out.extend("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)
    sys.stdout.write("\n".join(out) + "\n")


def _rich_table(columns: Sequence[str], rows: list[list[str]], title: str | None, status_index: int | None) -> None:
    """Cells are rich Text objects, never markup strings: `[bold red]x[/]` or a lone `[/]`
    in an op name is shown as written instead of styling the table or raising."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    tbl = Table(title=Text(title) if title else None, header_style="bold")
    for column in columns:
        tbl.add_column(Text(column), overflow="fold")
    for row in rows:
        cells = [Text(cell) for cell in row]
        if status_index is not None and row[status_index]:
            word = row[status_index].split()[-1]
            cells[status_index].stylize(STATUS_STYLE.get(word, "white"))
        tbl.add_row(*cells)
    Console().print(tbl)
