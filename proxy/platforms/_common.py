"""Pieces every platform module shares: paging arguments, chunked text, citations, dates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar
from xml.etree.ElementTree import Element

from defusedxml import ElementTree as SafeET

from proxy.core.errors import ToolInputError
from proxy.plugin.toolkit import PlatformContext, ToolCall
from proxy.results.outputs import Citation, citation

__all__ = [
    "CHUNK_DEFAULT",
    "CHUNK_PROPS",
    "DATE_RANGE_PROPS",
    "PAGE_BLOCK",
    "PAGE_PROPS",
    "Window",
    "aligned",
    "chunk",
    "chunk_output_props",
    "cite",
    "date_range",
    "date_range_props",
    "object_at",
    "page",
    "parse_date",
    "parse_xml",
]

T = TypeVar("T")

CHUNK_DEFAULT = 3000
EARLIEST_DATE = date(1800, 1, 1)
LATEST_DATE = date(2199, 12, 31)
CHUNK_MAX = 20000

PAGE_PROPS: dict[str, Any] = {
    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 10,
              "description": "Results to return; capped by this installation's results_per_call "
                             "(see list_capabilities)."},
    "offset": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 0, "description": "Results to skip."},
}

DATE_RANGE_PROPS: dict[str, Any] = {
    "date_from": {"type": "string", "format": "date", "maxLength": 10,
                  "description": "Earliest date, YYYY-MM-DD (inclusive)."},
    "date_to": {"type": "string", "format": "date", "maxLength": 10,
                "description": "Latest date, YYYY-MM-DD (inclusive)."},
}



def date_range_props(applies_to: str) -> dict[str, Any]:
    """DATE_RANGE_PROPS with a sentence saying which date of a record the range applies to."""
    return {k: {**v, "description": f"{v['description']} {applies_to}"} for k, v in DATE_RANGE_PROPS.items()}


CHUNK_PROPS: dict[str, Any] = {
    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "First character to return."},
    "length": {"type": "integer", "minimum": 100, "maximum": CHUNK_MAX, "default": CHUNK_DEFAULT,
               "description": "Characters to return (about 3,000 by default)."},
}


def object_at(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The JSON object at `key`; an empty one when the key is missing or holds something else."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def page(call: ToolCall) -> tuple[int, int, list[str]]:
    """(limit, offset, notes): the requested limit capped by the live `results_per_call` setting."""
    requested = int(call.arguments.get("limit", 10))
    offset = int(call.arguments.get("offset", 0))
    cap = call.ctx.platform.limits.results_per_call
    if requested > cap:
        return cap, offset, [f"limit {requested} lowered to this installation's results_per_call of {cap}"]
    return requested, offset, []


# Searches ask the platform for whole blocks of this many results, starting at a multiple of it, and cut the
# caller's window out locally: limits of 5, 10 and 20 and the next page of 10 are then one platform request (one
# cache entry), not four. Results are small, while each platform's request budget is shared by all users.
PAGE_BLOCK = 20


@dataclass(frozen=True, slots=True)
class Window:
    """The results a caller asked for (`offset`, `limit`) and the block fetched to hold them (`start`, `size`)."""

    offset: int
    limit: int
    start: int
    size: int

    def cut(self, held: Sequence[T]) -> list[T]:
        """The caller's results out of the block's."""
        first = self.offset - self.start
        return list(held[first:first + self.limit])

    def more_held(self, held: Sequence[Any]) -> bool:
        """Whether the block holds results after the caller's window (so there is a next page)."""
        return len(held) > self.offset - self.start + self.limit


def aligned(offset: int, limit: int, *, most: int, block: int = PAGE_BLOCK) -> Window:
    """The fetch holding results `offset` to `offset + limit`: the block of `block` results (starting at a
    multiple of it) that holds them all; a window no block holds, or a block larger than `most` (the platform's
    largest page), is fetched as asked."""
    start = offset - offset % block
    if offset + limit > start + block or block > most:
        return Window(offset, limit, offset, limit)
    return Window(offset, limit, start, block)


def parse_date(value: Any, field: str) -> date | None:
    """A YYYY-MM-DD argument, or None; a clear ToolInputError otherwise."""
    if value in (None, ""):
        return None
    try:
        parsed = date.fromisoformat(str(value))
    except ValueError as exc:
        raise ToolInputError(f"{field} must be a date as YYYY-MM-DD, got {value!r}") from exc
    if not EARLIEST_DATE <= parsed <= LATEST_DATE:
        # Outside this no source has material, and day arithmetic near year 1 or 9999 overflows.
        raise ToolInputError(f"{field} must lie between {EARLIEST_DATE} and {LATEST_DATE}, got {parsed}")
    return parsed


def date_range(call: ToolCall) -> tuple[date | None, date | None]:
    start = parse_date(call.arguments.get("date_from"), "date_from")
    end = parse_date(call.arguments.get("date_to"), "date_to")
    if start and end and start > end:
        raise ToolInputError(f"date_from ({start}) is after date_to ({end}); swap them")
    return start, end


def chunk(text: str, call: ToolCall) -> dict[str, Any]:
    """The requested slice of a long text, with where the next slice starts."""
    offset = int(call.arguments.get("offset", 0))
    length = int(call.arguments.get("length", CHUNK_DEFAULT))
    if offset > len(text):
        raise ToolInputError(f"offset {offset} is past the end of the text ({len(text)} characters)")
    part = text[offset:offset + length]
    end = offset + len(part)
    return {"text": part, "offset": offset, "length": len(part), "total_length": len(text),
            "next_offset": end if end < len(text) else None}


def chunk_output_props() -> dict[str, Any]:
    return {
        "text": {"type": "string"},
        "offset": {"type": "integer"},
        "length": {"type": "integer"},
        "total_length": {"type": "integer"},
        "next_offset": {"type": ["integer", "null"], "description": "Pass as offset to read on; null at the end."},
    }


def cite(ctx: PlatformContext, *, uri: str, title: str, text: str) -> Citation:
    """A citation carrying the platform's attribution settings."""
    attribution = ctx.platform.attribution
    return citation(uri=uri, title=title, text=text, source=ctx.platform.key, label=attribution.label.nl,
                    requires_attribution=attribution.required)


# No platform document nests this deep; deeper is hostile or broken, and walking it would recurse.
MAX_XML_DEPTH = 200


def parse_xml(body: bytes) -> Element:
    """Parse platform XML with defusedxml (no entities, no external references) and a depth bound.

    A document nested deeper than MAX_XML_DEPTH raises ValueError, which the upstream layer reports as
    a reply that could not be read, instead of a recursion failure later in the adapter.
    """
    root = SafeET.fromstring(body)
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        if depth > MAX_XML_DEPTH:
            raise ValueError(f"XML nested deeper than {MAX_XML_DEPTH} levels")
        stack.extend((child, depth + 1) for child in element)
    return root
