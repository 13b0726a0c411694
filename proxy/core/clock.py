"""The one notion of time: UTC instants, Dutch calendar days, and when a source stands still."""

from __future__ import annotations

import time as _time
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

__all__ = ["AMSTERDAM", "dutch_midnight", "dutch_today", "is_stalled", "stamp_ms", "utc_now", "utc_stamp_ms"]

# The platforms publish on Dutch days: "today" and day bounds are in Europe/Amsterdam (tzdata pinned).
AMSTERDAM = ZoneInfo("Europe/Amsterdam")


def utc_now() -> datetime:
    return datetime.now(UTC)


def utc_stamp_ms() -> str:
    """This moment in UTC as ISO 8601 to the millisecond (`2026-12-06T05:53:18.123+00:00`)."""
    return stamp_ms(int(_time.time() * 1000))


def stamp_ms(ms: int) -> str:
    """What `datetime.isoformat(timespec="milliseconds")` writes for `ms` milliseconds since the epoch in UTC.

    The text up to the second is made once a second and the milliseconds put after it: every call record takes a
    stamp, and datetime's own way (a datetime, its offset, two formattings) cost about 2 % of a cached call."""
    global _second
    second, milli = divmod(ms, 1000)
    known = _second
    if known[0] != second:
        known = _second = (second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    return f"{known[1]}.{milli:03d}+00:00"


_second: tuple[int, str] = (-1, "")


def dutch_today(now: datetime | None = None) -> date:
    """The calendar day in the Netherlands at `now` (default: this moment)."""
    global _today
    known = _today
    if now is None:
        instant = _time.time()
        if known is not None and known[3] <= instant < known[4]:
            return known[2]  # this moment, in the day asked last (every cached call asks): not even a datetime
        now = datetime.fromtimestamp(instant, UTC)
    elif known is not None and now.tzinfo is not None and known[0] <= now < known[1]:
        return known[2]  # the day asked last: no time-zone arithmetic
    day = now.astimezone(AMSTERDAM).date()
    # Kept in UTC: `now` is UTC too, and two datetimes with the one UTC tzinfo compare without time-zone lookups.
    start, end = dutch_midnight(day).astimezone(UTC), dutch_midnight(day + timedelta(days=1)).astimezone(UTC)
    _today = (start, end, day, start.timestamp(), end.timestamp())
    return day


# [start, end) of the Dutch day found last, that day, and [start, end) again in seconds since the epoch.
_today: tuple[datetime, datetime, date, float, float] | None = None


def dutch_midnight(day: date) -> datetime:
    """The first instant of `day` in Dutch time, with its offset (CET or CEST)."""
    return datetime.combine(day, time.min, AMSTERDAM)


def is_stalled(newest: date | None, today: date, stalled_after_days: int) -> bool:
    """A source (or organ) stands still when its newest material is older than the threshold, or unknown."""
    return newest is None or (today - newest).days > stalled_after_days
