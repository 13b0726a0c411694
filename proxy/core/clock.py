"""The one notion of time: UTC instants, Dutch calendar days, and when a source stands still."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

__all__ = ["AMSTERDAM", "dutch_midnight", "dutch_today", "is_stalled", "utc_now"]

# The platforms publish on Dutch days: "today" and day bounds are in Europe/Amsterdam (tzdata pinned).
AMSTERDAM = ZoneInfo("Europe/Amsterdam")


def utc_now() -> datetime:
    return datetime.now(UTC)


def dutch_today(now: datetime | None = None) -> date:
    """The calendar day in the Netherlands at `now` (default: this moment)."""
    return (now or utc_now()).astimezone(AMSTERDAM).date()


def dutch_midnight(day: date) -> datetime:
    """The first instant of `day` in Dutch time, with its offset (CET or CEST)."""
    return datetime.combine(day, time.min, AMSTERDAM)


def is_stalled(newest: date | None, today: date, stalled_after_days: int) -> bool:
    """A source (or organ) stands still when its newest material is older than the threshold, or unknown."""
    return newest is None or (today - newest).days > stalled_after_days
