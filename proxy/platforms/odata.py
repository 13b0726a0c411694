"""OData v4 request pieces for the Tweede Kamer Gegevensmagazijn: literals, word filters, Dutch dates.

The Gegevensmagazijn (https://opendata.tweedekamer.nl/documentatie/odata-api) is an ASP.NET OData
v4 service. Facts encoded here (research §2.1):

* string literals are single-quoted with `''` for a quote; GUIDs are bare (`Id eq 7a9b…`; the old
  `guid'…'` form is a 400);
* `contains()` is a literal substring match without ranking; we wrap the field in `tolower()` so
  the match is case-insensitive whatever the database collation;
* date-times are `Edm.DateTimeOffset`, stored in Dutch local time (`2026-10-06T00:00:00+02:00`), so
  a day boundary must be sent as Dutch midnight with its offset, not as UTC midnight;
* a collection answer is `{"@odata.context", "@odata.count"?, "value": [...], "@odata.nextLink"?}`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from proxy.errors import ToolInputError

__all__ = [
    "GUID_RE",
    "MAX_WORDS",
    "ODataPage",
    "amsterdam_today",
    "day_start",
    "local_date",
    "quote",
    "read_page",
    "words",
    "words_filter",
]

GUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
MAX_WORDS = 8


def quote(value: str) -> str:
    """An OData string literal."""
    return "'" + value.replace("'", "''") + "'"


def words(text: str | None) -> list[str]:
    """The search words of a free-text argument, lower-cased (at most MAX_WORDS)."""
    found = [w for w in (text or "").lower().split() if w]
    if len(found) > MAX_WORDS:
        raise ToolInputError(f"use at most {MAX_WORDS} search words, got {len(found)}; drop the least specific ones")
    return found


def words_filter(fields: Sequence[str], terms: Iterable[str]) -> list[str]:
    """One clause per word: the word occurs (case-insensitively) in at least one of `fields`."""
    return ["(" + " or ".join(f"contains(tolower({f}),{quote(w)})" for f in fields) + ")" for w in terms]


# --------------------------------------------------------------------------- Dutch local time

def _last_sunday(year: int, month: int) -> date:
    last = date(year, month, 31)  # March and October both have 31 days
    return last - timedelta(days=(last.weekday() + 1) % 7)


def _amsterdam_offset(moment: datetime) -> timedelta:
    """CET/CEST by the EU rule (switch at 01:00 UTC on the last Sundays of March and October).

    Computed rather than read from a time-zone database so that it works without tzdata.
    """
    utc = moment.astimezone(UTC)
    start = datetime.combine(_last_sunday(utc.year, 3), datetime.min.time(), UTC) + timedelta(hours=1)
    end = datetime.combine(_last_sunday(utc.year, 10), datetime.min.time(), UTC) + timedelta(hours=1)
    return timedelta(hours=2) if start <= utc < end else timedelta(hours=1)


def amsterdam_today(now: datetime) -> date:
    """Today's date in the Netherlands at the moment `now` (tz-aware)."""
    return (now.astimezone(UTC) + _amsterdam_offset(now)).date()


def day_start(day: date) -> str:
    """Dutch midnight at the start of `day` as an OData DateTimeOffset literal."""
    before = datetime.combine(day, datetime.min.time(), UTC) - timedelta(hours=1)
    hours = int(_amsterdam_offset(before).total_seconds() // 3600)
    return f"{day.isoformat()}T00:00:00+{hours:02d}:00"


def local_date(value: Any) -> date | None:
    """The (Dutch) calendar date of a Gegevensmagazijn DateTimeOffset string."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


# --------------------------------------------------------------------------- replies

@dataclass(frozen=True, slots=True)
class ODataPage:
    """One collection answer: its rows and, when `$count=true` was sent, the exact total."""

    rows: list[dict[str, Any]]
    count: int | None


def read_page(body: bytes) -> ODataPage:
    """Parse a collection answer; anything else is a bad reply (ValueError → UpstreamBadReply)."""
    data = json.loads(body)
    if not isinstance(data, dict) or not isinstance(data.get("value"), list):
        raise ValueError("an OData collection answer has a 'value' list")
    rows = [row for row in data["value"] if isinstance(row, dict)]
    count = data.get("@odata.count")
    return ODataPage(rows=rows, count=count if isinstance(count, int) else None)
