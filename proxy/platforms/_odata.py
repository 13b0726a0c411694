"""OData v4 request pieces for the Tweede Kamer Gegevensmagazijn: literals, word filters, Dutch dates.

The Gegevensmagazijn (https://opendata.tweedekamer.nl/documentatie/odata-api) is an ASP.NET OData
v4 service. Facts encoded here (research §2.1):

* string literals are single-quoted with `''` for a quote; GUIDs are bare (`Id eq 7a9b…`; the old
  `guid'…'` form is a 400);
* `contains()` is a literal substring match without ranking; we wrap the field in `tolower()` so
  the match is case-insensitive whatever the database collation;
* date-times are `Edm.DateTimeOffset`, stored in Dutch local time (`2026-10-06T00:00:00+02:00`), so
  a day boundary must be sent as Dutch midnight with its offset, not as UTC midnight;
* a `$filter` whose expression tree exceeds 100 nodes is refused with HTTP 400 ("The node count limit
  of '100' has been exceeded", TweedeKamerDerStaten-Generaal/OpenDataPortaal issue #187: 19 or-clauses
  after `Verwijderd eq false` pass, 20 fail); `filter_nodes` estimates the count before sending;
* a collection answer is `{"@odata.context", "@odata.count"?, "value": [...], "@odata.nextLink"?}`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from proxy.core.clock import dutch_midnight
from proxy.core.errors import ToolInputError

__all__ = [
    "GUID_RE",
    "MAX_FILTER_NODES",
    "MAX_WORDS",
    "ODataPage",
    "day_start",
    "filter_nodes",
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


# --------------------------------------------------------------------------- filter size

MAX_FILTER_NODES = 100
_FILTER_TOKEN = re.compile(r"'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*|"
                           r"[0-9][0-9A-Za-z:.+-]*|[(),:]")
_COMPARISONS = frozenset({"eq", "ne", "gt", "ge", "lt", "le"})
_LOGICAL = frozenset({"and", "or", "not"})
_LITERAL_WORDS = frozenset({"true", "false", "null"})


def filter_nodes(text: str) -> int:
    """The node count the service's validator gives `text`, as measured in TK issue #187: a comparison
    costs two plus its operands, `and`/`or`/`not` and a function call one plus operands, a literal one,
    a member path one per segment, a lambda (`X/any(v:…)`) two plus its collection path and body."""
    tokens = _FILTER_TOKEN.findall(text)
    total = 0
    for i, tok in enumerate(tokens):
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if tok in _COMPARISONS:
            total += 2
        elif tok in _LOGICAL:
            total += 1
        elif tok in "(),:" or following == ":":
            continue  # punctuation and a lambda's variable name
        elif tok[0] == "'" or tok[0].isdigit() or tok in _LITERAL_WORDS:
            total += 1
        elif following == "(":
            head, _, last = tok.rpartition("/")
            total += 2 + len(head.split("/")) if head and last in ("any", "all") else 1
        else:
            total += len(tok.split("/"))
    return total


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
