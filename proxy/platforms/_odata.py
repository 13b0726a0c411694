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
from datetime import date
from typing import Any

from proxy.clock import dutch_midnight
from proxy.errors import ToolInputError

__all__ = [
    "GUID_RE",
    "MAX_WORDS",
    "ODataPage",
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

def day_start(day: date) -> str:
    """Dutch midnight at the start of `day` as an OData DateTimeOffset literal."""
    return dutch_midnight(day).isoformat()


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
