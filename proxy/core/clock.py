"""The one notion of time: UTC instants, Dutch calendar days, and when a source stands still."""

from __future__ import annotations

import time as _time
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

__all__ = ["AMSTERDAM", "dutch_midnight", "dutch_today", "is_stalled", "utc_now", "utc_stamp_ms"]

# The platforms publish on Dutch days: "today" and day bounds are in Europe/Amsterdam (tzdata pinned).
AMSTERDAM = ZoneInfo("Europe/Amsterdam")


def utc_now() -> datetime:
    return datetime.now(UTC)


def utc_stamp_ms() -> str:
    """This moment in UTC as ISO 8601 to the millisecond; calls within one millisecond share the text."""
    global _stamp
    ms = int(_time.time() * 1000)
    if ms != _stamp[0]:
        _stamp = (ms, datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds"))
    return _stamp[1]


_stamp: tuple[int, str] = (-1, "")


def dutch_today(now: datetime | None = None) -> date:
    """The calendar day in the Netherlands at `now` (default: this moment)."""
    global _today
    now = now or utc_now()
    known = _today
    if known is not None and now.tzinfo is not None and known[0] <= now < known[1]:
        return known[2]  # the day asked last (every cached call asks): no time-zone arithmetic
    day = now.astimezone(AMSTERDAM).date()
    # Kept in UTC: `now` is UTC too, and two datetimes with the one UTC tzinfo compare without time-zone lookups.
    _today = (dutch_midnight(day).astimezone(UTC), dutch_midnight(day + timedelta(days=1)).astimezone(UTC), day)
    return day


_today: tuple[datetime, datetime, date] | None = None  # [start, end) of the Dutch day found last, and that day


def dutch_midnight(day: date) -> datetime:
    """The first instant of `day` in Dutch time, with its offset (CET or CEST)."""
    return datetime.combine(day, time.min, AMSTERDAM)


def is_stalled(newest: date | None, today: date, stalled_after_days: int) -> bool:
    """A source (or organ) stands still when its newest material is older than the threshold, or unknown."""
    return newest is None or (today - newest).days > stalled_after_days
