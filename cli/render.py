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
    global FOOTNOTES_SHOWN
    rows = [[terminal(cell) for cell in row] for row in rows]
    columns = [terminal(c) for c in columns]
    title = terminal(title) if title else title
    status_index = columns.index(status_column) if status_column in columns else None
    if status_index is not None:
        for row in rows:
            row[status_index] = status_label(row[status_index]) if row[status_index] else row[status_index]
    limit = width_limit()
    footnotes: list[str] = []
    boxed, layout = True, "table"
    if limit:
        # on a terminal rich draws borders (3 columns a cell); a table too wide for them
        # is drawn without (as the plain one), so the borders never cost a cell its text
        boxed = _width(columns, rows) + 3 * len(columns) + 1 <= limit
        layout, rows, footnotes = fit_layout(columns, rows, limit, FOOTNOTES_SHOWN + 1)
        title = "\n".join(_wrap(title, limit)) if title else title
        if layout == "records":
            _records(columns, rows, title, limit)
            rows = []
        else:
            columns = _header_lines(columns, rows, limit)
    if not limit or layout != "records":
        _table_out(columns, rows, title, status_index, boxed)
    if footnotes:
        first = FOOTNOTES_SHOWN + 1
        FOOTNOTES_SHOWN += len(footnotes)
        sys.stdout.write("".join(line + "\n" for n, text in enumerate(footnotes, first)
                                 for line in _wrap(f"[{n}] {text}", limit, "    ")))


def _table_out(columns, rows, title, status_index, boxed) -> None:
    if sys.stdout.isatty():
        _rich_table(columns, rows, title, status_index, boxed)
    else:
        _plain_table(columns, rows, title)


# Footnotes numbered so far this run: a page of two tables numbers on ([18] after [17]),
# so "[1]" never means two things on one page (t26 r2 #11).
FOOTNOTES_SHOWN = 0


def footer(text: str) -> None:
    """A line under a table on stdout, wrapped to the width the table fits (neutral text)."""
    limit = width_limit()
    text = terminal(text)
    sys.stdout.write("".join(line + "\n" for line in (_wrap(text, limit, "    ") if limit else [text])))


_GAP = 2  # the spaces between plain columns


def width_limit() -> int | None:
    """The width a table must fit: COLUMNS when set (also in a pipe: `COLUMNS=120 kb op …`),
    at least MIN_WIDTH; a COLUMNS that is no width (`abc`, `0`, `-5`) is ignored for the
    terminal's width, or DEFAULT_WIDTH in a pipe (never the unfitted table it was asked to
    fit, t26 r2 #12). None in a pipe without COLUMNS (the table is as wide as its cells,
    for scripts that cut columns, and --json has everything)."""
    import os

    text = os.environ.get("COLUMNS", "").strip()
    if text.isdigit() and int(text) > 0:
        return max(MIN_WIDTH, int(text))
    if sys.stdout.isatty():
        import shutil

        return max(MIN_WIDTH, shutil.get_terminal_size().columns)
    return DEFAULT_WIDTH if text else None


MIN_WIDTH = 40
DEFAULT_WIDTH = 120
# A cell shorter than this (a basis, version, mode) stays in its row: only longer cells
# (notes, URLs, long names) become footnotes (t26 r2 #1, #2). A status stays at any length
# (_is_status): it wraps in its row instead (t26b #7).
SHORT_CELL = 20
# The first column (the row's name) is cut with "…" to no less than this; in the first pass
# to no less than FIRST_SHARE of the width, before any other cell moves to a footnote.
FIRST_MIN = 16
FIRST_SHARE = 0.4


class _Ref:
    """A cell moved to the footnotes; numbered in reading order once the table is final."""

    width = 4  # "[nn]"; set per table from the highest number it may use

    def __init__(self, text: str):
        self.text = text

    def __len__(self) -> int:
        return _Ref.width


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _cut_name(text: str, width: int) -> str:
    """A row's name cut to `width`. An op name (`ns::name.overload`) is cut in its middle so
    the rows of one table stay apart: the namespace goes first (`aten…add_.Scalar`, not
    `aten::add_.Scal…` under `aten::add.Scalar`), then the name's middle, the overload kept
    whole (`add…Scalar_out`); any other name is cut at its end."""
    if len(text) <= width:
        return text
    _ns, sep, rest = text.rpartition("::")
    if not sep:
        return _cut(text, width)
    if len(rest) + 1 <= width:
        head = width - 1 - len(rest)
        return (text[:head] if head >= 4 else "") + "…" + rest
    base, dot, overload = rest.rpartition(".")
    tail = dot + overload if dot else ""
    if tail and len(tail) + 4 <= width:
        return base[: width - 1 - len(tail)] + "…" + tail
    return _cut(rest, width)


def _is_status(cell: Any) -> bool:
    """Whether a cell is a status (`✔ native`, `◐ decomposed (leaves on the device)ᵖ`): it
    stays in its row, wrapped there when long, never a footnote (README: a status stays)."""
    return isinstance(cell, str) and len(cell) > 2 and cell[1] == " " and cell[0] in _STATUS_SYMBOLS


_STATUS_SYMBOLS = frozenset(SYMBOLS.values())


def _head_words(column: str) -> list[tuple[str, bool]]:
    """A header's pieces, each with whether it joins the piece before without a space: it
    may wrap at spaces and after "/", ".", "+", "_" or ":" inside a word ("unsupported/",
    "unknown"; "torch.", "compile"; a version "0.1.0.", "dev0+", "g98154b8"). Cells wrap so too."""
    import re

    out = []
    for word in column.split():
        out.extend((piece, k > 0) for k, piece in enumerate(p for p in re.split(r"(?<=[/.+_:])(?=\w)", word) if p))
    return out


def _head_width(column: str) -> int:
    """The narrowest a header is without breaking a piece (see _head_words)."""
    return max((len(w) for w, _ in _head_words(column)), default=len(column))


def _wrap_head(column: str, width: int) -> str:
    """`column` in lines of at most `width`: at its spaces when every word fits ("neuron" over
    "2.14.3.1", not "neuron 2.14." over "3.1"), else joined at its pieces (a piece longer is split)."""
    words = column.split()
    if words and all(len(w) <= width for w in words):
        lines = [words[0]]
        for word in words[1:]:
            if len(lines[-1]) + 1 + len(word) <= width:
                lines[-1] += " " + word
            else:
                lines.append(word)
        return "\n".join(lines)
    lines: list[str] = []
    for word, joined in _head_words(column):
        glue = "" if joined else " "
        if lines and len(lines[-1]) + len(glue) + len(word) <= width:
            lines[-1] += glue + word
            continue
        while len(word) > width:
            lines.append(word[:width])
            word = word[width:]
        if word:
            lines.append(word)
    return "\n".join(lines) or column


def fit(columns: Sequence[str], rows: list[list[str]], limit: int,
        first_number: int = 1) -> tuple[list[list[str]], list[str]]:
    """(rows, footnotes) of fit_layout's table (or its records' cells, see there)."""
    _layout, cells, footnotes = fit_layout(columns, rows, limit, first_number)
    return cells, footnotes


def fit_layout(columns: Sequence[str], rows: list[list[str]], limit: int,
               first_number: int = 1) -> tuple[str, list[list[str]], list[str]]:
    """("table" or "records", rows, footnotes) so the table fits `limit` columns (a table
    that fits is left as it is). In this order, each step only while the table is still too
    wide: the first column (the row's name) is cut with "…" to FIRST_SHARE of the width
    (--json has the whole name); long cells (SHORT_CELL or more) of the widest column become
    numbered footnotes (one number per distinct text, so a note repeated in every row is
    shown once); the first column is cut to FIRST_MIN; last, the widest columns wrap onto
    more lines, at spaces and after . / + _ : but never inside a word. Short cells (a status,
    a basis, a version) therefore stay readable in their rows. When even whole words cannot
    fit (ten columns at 80), the rows are "records" instead: each row's name on a line and
    its cells as `column: value` pairs wrapped under it (_records), the name whole.
    Footnotes are numbered from `first_number` (numbering goes on across a page's tables)."""
    cells: list[list[Any]] = [list(row) for row in rows]
    if _width(columns, cells) <= limit:
        return "table", cells, []
    names = [row[0] if row else "" for row in cells]
    distinct = {c for row in cells for c in row[1:] if len(c) >= SHORT_CELL and not _is_status(c)}
    _Ref.width = len(str(first_number + len(distinct))) + 2
    heads = [_head_width(c) for c in columns]

    cache: dict[int, tuple[int, int]] = {}  # column -> (its header floor, its widest cell)

    def column_width(i: int) -> int:
        if i not in cache or cache[i][0] != heads[i]:
            cache[i] = (heads[i], max([heads[i]] + [_cell_width(row[i]) for row in cells]))
        return cache[i][1]

    def widths() -> list[int]:
        return [column_width(i) for i in range(len(columns))]

    def changed(i: int) -> None:
        cache.pop(i, None)

    def excess() -> int:
        return sum(widths()) + _GAP * (len(columns) - 1) - limit

    def cut_first(floor: int) -> None:
        over = excess()
        if over > 0:
            goal = max(floor, heads[0], widths()[0] - over)
            for row, name in zip(cells, names):
                row[0] = _cut_name(name, goal)  # from the whole name: a second cut keeps the overload too
            changed(0)

    cut_first(max(FIRST_MIN, int(limit * FIRST_SHARE)))
    done: set[int] = set()
    while excess() > 0:
        now = widths()
        open_ = [i for i in range(1, len(now)) if i not in done and now[i] >= SHORT_CELL]
        if not open_:
            break
        widest = max(open_, key=lambda i: now[i])
        goal = max(heads[widest], SHORT_CELL - 1, now[widest] - excess())
        moved = False
        for row in cells:
            if not isinstance(row[widest], _Ref) and len(row[widest]) > goal and not _is_status(row[widest]):
                row[widest] = _Ref(row[widest])
                moved = True
        changed(widest)
        if not moved:
            done.add(widest)
    original = [list(row) for row in cells]
    # the narrowest each column is without breaking a word of its header or its cells
    words = [max([heads[i]] + [_head_width(row[i]) for row in original if not isinstance(row[i], _Ref)])
             for i in range(len(columns))]

    def wrap(floor: list[int]) -> None:
        """Wrap the widest column (not the first) one step at a time, down to `floor`."""
        while excess() > 0:
            now = widths()
            open_ = [i for i in range(1, len(now)) if now[i] > floor[i]]
            if not open_:
                break
            widest = max(open_, key=lambda i: now[i])
            second = max([now[i] for i in range(1, len(now)) if i != widest] + [0])
            goal = max(floor[widest], now[widest] - excess(), min(second, now[widest] - 1))
            for row, orig in zip(cells, original):
                if not isinstance(orig[widest], _Ref) and len(orig[widest]) > goal:
                    row[widest] = _wrap_head(orig[widest], goal)  # at spaces, else after . / + _ :
            changed(widest)

    wrap([max(words[i], _Ref.width, WRAP_EARLY) for i in range(len(columns))])  # before the name is cut further
    cut_first(FIRST_MIN)
    floor = [max(words[i], _Ref.width, WRAP_MIN) for i in range(len(columns))]
    floor[0] = column_width(0)  # the name is cut, never wrapped
    layout = "table"
    if sum(floor) + _GAP * (len(columns) - 1) > limit:  # too many columns for whole words: records
        layout = "records"
        cells = [[name, *row[1:]] for name, row in zip(names, original)]
    else:
        wrap(floor)
    numbers: dict[str, int] = {}
    out = []
    for row in cells:
        shown = []
        for c in row:
            if isinstance(c, _Ref):
                n = numbers.setdefault(c.text, len(numbers) + first_number)
                shown.append(f"[{n}]")
            else:
                shown.append(c)
        out.append(shown)
    return layout, out, _refer_repeats(numbers)


REPEAT_MIN = 80  # a footnote this long, repeated at the end of another, is shown once


def _refer_repeats(numbers: dict[str, int]) -> list[str]:
    """The footnotes in order, a long one that ends another (`presumed from X (…); NOTE`, the
    note of the row it was carried from) replaced there by `see [N]`: a note is printed once
    (report t26b item 4, a 2,000-character note shown twice)."""
    texts = list(numbers)
    long_ones = [t for t in texts if len(t) >= REPEAT_MIN]
    if len(long_ones) < 2:
        return texts
    out = []
    for text in texts:
        for other in long_ones:
            if other != text and text.endswith(other) and text[: -len(other)].rstrip().endswith((";", ":", "—")):
                text = f"{text[: -len(other)]}see [{numbers[other]}]"
                break
        out.append(text)
    return out


WRAP_MIN = 5  # the narrowest a column wraps to
WRAP_EARLY = 12  # the narrowest one wraps to before the first column is cut to FIRST_MIN


def _cell_width(cell: Any) -> int:
    return len(cell) if isinstance(cell, _Ref) else max(len(line) for line in cell.split("\n"))


def _header_lines(columns: Sequence[str], rows: list[list[str]], limit: int) -> list[str]:
    """The headers, each wrapped at spaces to its column's width when the table is too wide
    for whole headers ("where it runs" over two lines rather than a row too wide)."""
    full = [max([len(c)] + [_cell_width(r[i]) for r in rows]) for i, c in enumerate(columns)]
    if sum(full) + _GAP * (len(columns) - 1) <= limit:
        return list(columns)
    cells = [max([0] + [_cell_width(r[i]) for r in rows]) for i in range(len(columns))]
    widths = [max(c, _head_width(h)) for c, h in zip(cells, columns)]
    if sum(widths) + _GAP * (len(columns) - 1) > limit:  # as fit narrowed them: below whole header words
        widths = [max(c, min(_head_width(h), WRAP_MIN)) for c, h in zip(cells, columns)]
    return [_wrap_head(column, width) for column, width in zip(columns, widths)]


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
    """`text` in lines of at most `limit` characters (a word longer than a line is split),
    except a URL: one too long for a line gets a line of its own, unbroken, so it can be
    copied and clicked (t26 r2 #10)."""
    lines: list[str] = []
    for part in text.split("\n"):
        out: list[str] = []
        chunk: list[str] = []
        for word in part.split(" "):
            if "://" in word and len(word) > limit - len(indent):
                _flush(out, chunk, limit, indent)
                out.append((indent if out else "") + word)
            else:
                chunk.append(word)
        _flush(out, chunk, limit, indent)
        lines.extend(out or [""])
    return lines


def _flush(out: list[str], chunk: list[str], limit: int, indent: str) -> None:
    """Wrap the words in `chunk` onto `out` (the first line of `out` unindented), emptying it."""
    import textwrap

    if chunk:
        out.extend(textwrap.wrap(" ".join(chunk), limit, initial_indent=indent if out else "",
                                 subsequent_indent=indent, break_on_hyphens=False))
        chunk.clear()


def _records(columns: Sequence[str], rows: list[list[str]], title: str | None, limit: int) -> None:
    """A table too wide for whole words, one row at a time: its name on a line (cut to the
    width), then `column: value` pairs joined by " · " and wrapped under it, a pair broken
    only at its spaces when it is longer than a line (an empty cell is left out)."""
    indent = "  "
    out = [title] if title else []
    for row in rows:
        out.append(_cut(row[0], limit) if row else "")
        line = ""
        for column, cell in zip(columns[1:], row[1:]):
            if not cell:
                continue
            pair = f"{column}: {cell}".replace("\n", " ")
            if line and len(line) + 3 + len(pair) <= limit:
                line += " · " + pair
                continue
            if line:
                out.append(line)
            if len(indent) + len(pair) <= limit:
                line = indent + pair
            else:
                *whole, line = _wrap(indent + pair, limit, indent + "  ")
                out.extend(whole)
        if line:
            out.append(line)
    sys.stdout.write("\n".join(out) + "\n")


def _plain_table(columns: Sequence[str], rows: list[list[str]], title: str | None) -> None:
    """Aligned text; a header or cell that `fit` wrapped spans more lines of its row."""
    heads = [c.split("\n") for c in columns]
    split = [[cell.split("\n") for cell in row] for row in rows]
    widths = [max(len(line) for line in h) for h in heads]
    for row in split:
        widths = [max([w] + [len(line) for line in cell]) for w, cell in zip(widths, row)]
    out = []
    if title:
        out.append(title)

    def lines(parts: list[list[str]]) -> None:
        for k in range(max(len(p) for p in parts)):
            out.append("  ".join((p[k] if k < len(p) else "").ljust(w) for p, w in zip(parts, widths)).rstrip())

    lines(heads)
    out.append("  ".join("-" * w for w in widths))
    for row in split:
        lines(row)
    sys.stdout.write("\n".join(out) + "\n")


def _rich_table(columns: Sequence[str], rows: list[list[str]], title: str | None, status_index: int | None,
                boxed: bool = True) -> None:
    """Cells are rich Text objects, never markup strings: `[bold red]x[/]` or a lone `[/]`
    in an op name is shown as written instead of styling the table or raising."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    if boxed:
        tbl = Table(title=Text(title) if title else None, header_style="bold")
    else:  # as narrow as the plain table: two spaces between columns, no borders
        tbl = Table(title=Text(title) if title else None, header_style="bold", box=None, pad_edge=False,
                    padding=(0, 1), show_edge=False)
    for column in columns:
        tbl.add_column(Text(column), overflow="fold")
    for row in rows:
        cells = [Text(cell) for cell in row]
        if status_index is not None and row[status_index]:
            word = row[status_index].split()[-1]
            cells[status_index].stylize(STATUS_STYLE.get(word, "white"))
        tbl.add_row(*cells)
    Console().print(tbl)
