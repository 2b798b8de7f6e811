"""Just enough reStructuredText for the Neuron documentation sources: section titles,
`.. meta::` fields, `.. post::` dates, bullet lists, list-tables and one-column grid
tables, and inline markup stripped to plain words. Neuron's pages are Sphinx sources
full of custom directives that docutils cannot parse on their own, so a tolerant
line-based reader is the robust choice here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+_:.])\1{2,}\s*$")


@dataclass
class Section:
    title: str
    char: str  # the underline character (its level depends on the page)
    line: int  # 0-based line of the title
    lines: list[str] = field(default_factory=list)  # body, up to the next title of any level


def sections(text: str) -> list[Section]:
    """Every titled section, in order; each body runs to the next title of any level."""
    lines = text.splitlines()
    found: list[Section] = []
    for i in range(1, len(lines)):
        title = lines[i - 1]
        if _UNDERLINE.match(lines[i]) and title.strip() and not title.startswith((" ", "..")) \
                and not _UNDERLINE.match(title) and len(lines[i].rstrip()) >= len(title.rstrip()) * 0.5:
            found.append(Section(title=title.strip(), char=lines[i][0], line=i - 1))
    for number, section in enumerate(found):
        end = found[number + 1].line if number + 1 < len(found) else len(lines)
        section.lines = lines[section.line + 2:end]
    return found


def title(text: str) -> str | None:
    """The page's first section title, inline markup removed."""
    found = sections(text)
    return plain(found[0].title) if found else None


def meta(text: str) -> dict[str, str]:
    """Fields of the `.. meta::` block (`:description:`, `:date-modified:`...)."""
    fields: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        if line.startswith(".. meta::"):
            inside = True
            continue
        if inside:
            m = re.match(r"^\s+:([\w-]+):\s*(.*)$", line)
            if m:
                fields[m[1]] = m[2].strip()
            elif line.strip():
                break
    return fields


def post_date(text: str) -> str | None:
    """The raw date text of an ABlog `.. post::` directive, if any."""
    m = re.search(r"^\.\. post::\s*(.+)$", text, re.M)
    return m[1].strip() if m else None


def plain(text: str) -> str:
    """Inline markup to plain words: roles, links, literals, emphasis, escapes."""
    text = re.sub(r":\w+(?::\w+)?:`([^`<]*?)\s*<[^>]*>`", r"\1", text)  # :ref:`Label <target>`
    text = re.sub(r":\w+(?::\w+)?:`([^`]*)`", r"\1", text)  # :ref:`target`
    text = re.sub(r"`([^`<]+?)\s*<[^>]+>`_{1,2}", r"\1", text)  # `text <url>`_
    text = re.sub(r"``([^`]*)``", r"\1", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\1", text)
    text = re.sub(r"\*([^*]+)\*", r"\1", text)
    text = text.replace("\\_", "_").replace("\\", "")
    return re.sub(r"\s+", " ", text).strip()


def bullets(lines: list[str]) -> list[str]:
    """Top-level bullet items of a block (`-`, `*` or `+`), continuation lines joined;
    nested bullets are folded into their parent item's text. Prose between lists ends
    the current item and is skipped."""
    items: list[str] = []
    base: int | None = None
    open_item = False
    for line in lines:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        m = re.match(r"^(\s*)[-*+]\s+(.*)$", line)
        if m and (base is None or indent <= base or not open_item):
            base = indent
            items.append(m[2].strip())
            open_item = True
        elif open_item and base is not None and indent > base:
            items[-1] += " " + line.strip()
        else:
            open_item = False
    return items


def list_tables(text: str) -> list[list[list[str]]]:
    """Each `.. list-table::` as rows of cell texts (header row included)."""
    tables: list[list[list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith(".. list-table::"):
            rows: list[list[str]] = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                stripped = lines[i].strip()
                if stripped.startswith("* - "):
                    rows.append([stripped[4:].strip()])
                elif stripped.startswith("- ") and rows:
                    rows[-1].append(stripped[2:].strip())
                elif stripped == "* -":
                    rows.append([""])
                elif stripped and rows and not stripped.startswith(":"):
                    rows[-1][-1] = (rows[-1][-1] + " " + stripped).strip()
                i += 1
            tables.append(rows)
        else:
            i += 1
    return tables


def grid_cells(lines: list[str]) -> list[str]:
    """Cell texts of grid tables (`+---+` / `| cell |`), one entry per row and column."""
    cells: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|"):
            cells.extend(part.strip() for part in stripped[1:-1].split("|") if part.strip())
    return cells
