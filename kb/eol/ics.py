"""The support windows as an iCalendar feed (RFC 5545), written with `icalendar`.

One all-day event per known date: end of life, end of active support. A pending
"ends with release X" has no date yet and gets no event (it appears once X ships).
UIDs are stable per product × cycle × kind of date, so a calendar that subscribes to
the feed updates an event when a vendor moves a date instead of adding a second one.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from kb.eol.products import slug
from kb.eol.windows import parse_day

PRODID = "-//kb//end of support//EN"


def _event(window: dict[str, Any], day: date, what: str, stamp: datetime):
    from icalendar import Event

    event = Event()
    # a product's own end of life (upstream) beside a vendor's support of the same cycle: its own UID
    scope = "-upstream" if window.get("scope") == "upstream" else ""
    event.add("uid", f"{slug(window['product'])}-{slug(window['cycle'])}-{what}{scope}@kb")
    event.add("dtstamp", stamp)
    event.add("dtstart", day)
    event.add("dtend", day + timedelta(days=1))
    label = "end of life" if what == "eol" else "end of active support"
    whose = " (its own)" if scope else (f" ({window['support_by']}'s support)" if window.get("support_by") else "")
    event.add("summary", f"{window['product_label']} {window['cycle']}: {label}{whose}")
    lines = [window.get("title") or "", f"date: {window['state']}" if what == "eol" else "date: announced"]
    source = window["eol_source"] if what == "eol" else window["support_end_source"]
    if source:
        lines.append(f"source: {source['source_url'] or source['source_name']} (retrieved {source['retrieved_at']})")
        if source.get("statement_date"):
            lines.append(f"stated on {source['statement_date']}")
    if window.get("note"):
        lines.append(window["note"])
    event.add("description", "\n".join(line for line in lines if line))
    event.add("categories", [window["product"]])
    event.add("transp", "TRANSPARENT")
    event.add("status", "TENTATIVE" if window["eol_kind"] == "projected" and what == "eol" else "CONFIRMED")
    url = source and source.get("source_url")
    if url and url.startswith(("http://", "https://")) and " " not in url:
        event.add("url", url)
    return event


def calendar(windows: list[dict[str, Any]], today_: date) -> bytes:
    """The iCalendar file (bytes, CRLF line ends) for the given windows."""
    from icalendar import Calendar

    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("x-wr-calname", "kb: end of support")
    stamp = datetime.combine(today_, time(0, 0), tzinfo=UTC)
    for window in windows:
        for what, value in (("eol", window["eol_from"]), ("support-end", window["support_end"])):
            day, _ = parse_day(value)
            if day is not None:
                cal.add_component(_event(window, day, what, stamp))
    return cal.to_ical()
