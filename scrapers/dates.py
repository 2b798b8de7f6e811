"""The one date parser every scraper uses. Vendors write dates many ways ("October 16,
2026", "Oct 16, 2026", "10/16/2026", "10/16/26", "2026-10-16", "Oct 2026", "Jul 26, 2023
10:00"); this turns each into ISO text, keeping month precision (YYYY-MM) when the source
gives only a month, and refuses anything else rather than guessing.
"""

from __future__ import annotations

import re
from datetime import date, datetime

_MONTHS = {
    name: number
    for number, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
         ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
         ("oct", "october"), ("nov", "november"), ("dec", "december")],
        start=1,
    )
    for name in names
}

_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_ISO_MONTH = re.compile(r"(\d{4})-(\d{1,2})")
_US = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})")
_MONTH_DAY_YEAR = re.compile(r"([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})")
_DAY_MONTH_YEAR = re.compile(r"(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})")
_MONTH_YEAR = re.compile(r"([A-Za-z]+)\.?,?\s+(\d{4})")


class DateError(ValueError):
    """Text that is not a date this parser understands."""


def _year(text: str) -> int:
    value = int(text)
    return 2000 + value if len(text) == 2 else value


def _iso(year: int, month: int, day: int, original: str) -> str:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        raise DateError(f"not a valid date: {original!r}") from None


def _month(name: str) -> int | None:
    return _MONTHS.get(name.lower())


def parse_date(text: str) -> str:
    """ISO date (YYYY-MM-DD, or YYYY-MM for month-only dates) of `text`; DateError if the
    whole text is not one date (a trailing time of day is allowed and dropped)."""
    original = text
    text = re.sub(r"\s+\d{1,2}:\d{2}(:\d{2})?\s*(UTC|GMT|[AP]M)?$", "", text.strip().strip("*").strip(), flags=re.I)
    if m := _ISO.fullmatch(text):
        return _iso(int(m[1]), int(m[2]), int(m[3]), original)
    if m := _US.fullmatch(text):
        return _iso(_year(m[3]), int(m[1]), int(m[2]), original)
    if (m := _MONTH_DAY_YEAR.fullmatch(text)) and _month(m[1]):
        return _iso(int(m[3]), _month(m[1]), int(m[2]), original)
    if (m := _DAY_MONTH_YEAR.fullmatch(text)) and _month(m[2]):
        return _iso(int(m[3]), _month(m[2]), int(m[1]), original)
    if (m := _MONTH_YEAR.fullmatch(text)) and _month(m[1]):
        return f"{int(m[2]):04d}-{_month(m[1]):02d}"
    if m := _ISO_MONTH.fullmatch(text):
        if 1 <= int(m[2]) <= 12:
            return f"{int(m[1]):04d}-{int(m[2]):02d}"
    raise DateError(f"not a date: {original!r}")


def find_date(text: str) -> str | None:
    """The first date anywhere in `text` (ISO), or None."""
    for pattern in (_MONTH_DAY_YEAR, _ISO, _US, _DAY_MONTH_YEAR):
        for m in pattern.finditer(text):
            try:
                return parse_date(m[0])
            except DateError:
                continue
    return None


def from_timestamp(text: str) -> str:
    """The date part of an ISO-8601 timestamp ("2026-10-16T12:00:00Z" → "2026-10-16")."""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date().isoformat()
    except ValueError:
        raise DateError(f"not a timestamp: {text!r}") from None
