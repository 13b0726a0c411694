"""Shapes that cross module boundaries, each defined once as a TypedDict.

From one definition come the JSON Schema a tool list publishes (`schema_of`) and the check that
runs on data (`checker`): the call record, the stored load status, Zoekprecisie and the citation.
Builders elsewhere return these types, so a type checker holds them to the same shape.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from proxy.core.clock import utc_stamp_ms

# A decoded JSON object (a tool's answer, a stored record) where no TypedDict names its fields.
JsonDict = dict[str, Any]

__all__ = [
    "CallRecord",
    "Citation",
    "CitedChunk",
    "JsonDict",
    "LiveCheck",
    "OrganStatus",
    "Precision",
    "ShapeError",
    "SourceStatus",
    "StatusReport",
    "TotalRelation",
    "availability_record",
    "call_record",
    "checker",
    "schema_of",
]

_CLOSED = ConfigDict(extra="forbid")
_OPEN = ConfigDict(extra="allow")

DateText = Annotated[str | None, Field(json_schema_extra={"format": "date"})]
TotalRelation = Literal["exact", "lower_bound", "estimate", "unknown"]


@with_config(_CLOSED)
class Citation(TypedDict):
    """What to link and show when citing; show the label when requires_attribution is true."""

    uri: Annotated[str, Field(description="The human-facing link to cite.")]
    title: str
    text: Annotated[str, Field(description="Snippet supporting the answer.")]
    source: Annotated[str, Field(description="Source platform key.")]
    label: Annotated[str, Field(description="How to name the source when citing.")]
    requires_attribution: bool


@with_config(_CLOSED)
class CitedChunk(TypedDict):
    """One quoted piece of a result (G2): link it, show it, and show `label` when attribution is required."""

    uri: Annotated[str, Field(description="Page for people.")]
    title: str
    text: str
    requires_attribution: bool
    label: Annotated[str, Field(description="How to name the source.")]


@with_config(_CLOSED)
class Precision(TypedDict):
    """How precise this result list is. An empty list from a stalled source is no proof of absence."""

    total: Annotated[int | None, Field(ge=0, description="Number of matches upstream.")]
    total_relation: TotalRelation
    returned: Annotated[int, Field(ge=0)]
    truncated: Annotated[bool, Field(description="True when more matches exist than were returned.")]
    matched: Annotated[str, Field(description="How the query was matched upstream.")]
    not_applied: Annotated[list[str], Field(description="Parts of the request the platform could not apply.")]
    partial: NotRequired[Annotated[bool, Field(description="The platform reported an incomplete search.")]]
    next_offset: NotRequired[int | None]
    hint: NotRequired[Annotated[str, Field(description="Why the list is empty and what to try instead.")]]


@with_config(_CLOSED)
class CallRecord(TypedDict):
    """One call to a source platform."""

    at_utc: str
    source: str
    tool: str | None
    method: str
    url: str
    status: int | None
    duration_ms: float
    bytes: int
    cache_hit: bool
    error: str | None
    # Records written before request ids existed (a Redis kept across an upgrade) have none.
    request_id: NotRequired[Annotated[str | None, Field(description="The id of the request that made this call; "
                                                              "the server's log lines for it carry the same id.")]]


def call_record(*, source: str, tool: str | None, method: str, url: str, status: int | None, started: float | None,
                size: int, cache_hit: bool, error: str | None, request_id: str | None,
                at_utc: str | None = None) -> CallRecord:
    """The record of one platform call (HTTP or a remote server's MCP), as list_platform_calls shows it; `started` is
    the call's `time.perf_counter()` at its start (None: it took no time, a reply reused from the cache), `at_utc`
    its stamp when the records of one moment share it (default: now)."""
    return {
        "at_utc": at_utc or utc_stamp_ms(),
        "source": source, "tool": tool, "method": method, "url": url, "status": status,
        "duration_ms": 0.0 if started is None else round((time.perf_counter() - started) * 1000, 2),
        "bytes": size, "cache_hit": cache_hit, "error": error, "request_id": request_id,
    }


def availability_record(available: bool, error: str | None) -> JsonDict:
    """Whether a platform answered its last live call, when, and what went wrong (platform_status shows it)."""
    return {"available": available, "last_live_call_utc": datetime.now(UTC).isoformat(timespec="seconds"),
            "last_error": error}


@with_config(_CLOSED)
class OrganStatus(TypedDict):
    """An organ of a local source and the date of its newest material."""

    organ: str
    name: str
    medium: str | None
    current_through: DateText
    stalled: bool


@with_config(_CLOSED)
class SourceStatus(TypedDict):
    """Whether a source still receives new material (the Laadstatus measurement)."""

    source: str
    title: str
    receiving: bool | None
    current_through: DateText
    current_through_per_medium: dict[str, DateText]
    measured_at: str | None
    reason: Annotated[str | None, Field(description="Why a value is null (not measured yet, failed).")]
    organs_total: int | None
    organs_stalled: int | None
    organs: NotRequired[list[OrganStatus]]
    stalled_organs: NotRequired[list[OrganStatus]]


@with_config(_CLOSED)
class LiveCheckPlatform(TypedDict):
    status: Literal["ok", "drift", "unreachable", "skipped"]
    findings: list[str]


@with_config(_CLOSED)
class LiveCheck(TypedDict):
    """The last live contract check (`python -m proxy check-live`): when it ran and what it found."""

    checked_at: str
    ok: bool
    platforms: dict[str, LiveCheckPlatform]


@with_config(_OPEN)
class StatusReport(TypedDict):
    """The Laadstatus of every served source (GET /status, and the snapshot a site build reads)."""

    stalled_after_days: NotRequired[int]
    interval_minutes: NotRequired[int]
    sources: list[SourceStatus]
    live_check: NotRequired[LiveCheck | None]
    sample_data: NotRequired[dict[str, Any]]  # SampleData.describe(): the sources answering from the offline sample


class ShapeError(ValueError):
    """Data that does not have its shape; the message names the place and the problem."""


@functools.cache
def _adapter(shape: type) -> TypeAdapter[Any]:
    return TypeAdapter(shape)


@functools.cache
def schema_of(shape: type) -> dict[str, Any]:
    """The compact JSON Schema of a shape: references inlined, no titles, nullable types as type lists."""
    schema = _adapter(shape).json_schema()
    compact = _compact(schema, schema.get("$defs", {}))
    assert isinstance(compact, dict)  # a dict stays a dict
    return compact


def checker(shape: type) -> Callable[[Any], Any]:
    """A strict check of data against `shape`: returns the data, or raises ShapeError naming the place."""
    adapter = _adapter(shape)

    def check(data: Any) -> Any:
        try:
            adapter.validate_python(data, strict=True)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in first["loc"]).replace(".[", "[")
            raise ShapeError(f"{where or 'value'}: {first['msg']}") from None
        return data

    return check


def _compact(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_compact(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _compact(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    out = {key: _compact(value, defs) for key, value in node.items()
           if key not in ("title", "$defs", "properties")}  # "title" the keyword, not a property so named
    if isinstance(node.get("properties"), dict):
        out["properties"] = {name: _compact(prop, defs) for name, prop in node["properties"].items()}
    options = out.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options and len(options) == 2:
        other = next(o for o in options if o != {"type": "null"})
        if isinstance(other.get("type"), str):
            del out["anyOf"]
            out = {**other, **out, "type": [other["type"], "null"]}
    return out
