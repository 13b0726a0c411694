"""Input and output schemas of the three meta tools every connector carries (C4–C7).

Kept apart from their behaviour (`proxy.serving.meta`) so the catalog and the site can read them
without the server's runtime.
"""

from __future__ import annotations

from typing import Any

from proxy.core.schema_atoms import NBOOL, NDATE, NINT, NSTR
from proxy.core.shapes import CallRecord, SourceStatus, schema_of
from proxy.core.trace import TRACE_META_KEY
from proxy.results.outputs import CITATION_SCHEMA, object_schema, result_list_schema

__all__ = ["META_SCHEMAS"]


_UNKNOWN_REASON = {"type": ["string", "null"],
                   "description": "Why a value is null (not measured yet, no live call yet)."}

_SOURCE_CAPABILITIES = {
    "type": "object",
    "properties": {
        "source": {"type": "string"},
        "title": {"type": "string"},
        "current_through": NDATE,
        "receiving": {"type": ["boolean", "null"],
                      "description": "Whether it still receives new material, as platform_status says; a source can "
                                     "be available (answers) and stand still."},
        "current_through_per_medium": {"type": "object", "additionalProperties": NDATE},
        "current_through_reason": _UNKNOWN_REASON,
        "limits": {
            "type": "object",
            "properties": {
                "results_per_call": {"type": "integer"},
                "requests_per_minute": {"type": "integer"},
                "cache_ttl_seconds": {"type": "integer"},
                "timeout_seconds": {"type": "number"},
            },
            "required": ["results_per_call", "requests_per_minute", "cache_ttl_seconds", "timeout_seconds"],
        },
        "attribution": {
            "type": "object",
            "properties": {
                "required": {"type": "boolean"},
                "label": {"type": "string"},
                "cite": {"type": "string"},
                "license": {"type": "string"},
                "url": {"type": "string"},
            },
            "required": ["required", "label", "cite", "license", "url"],
        },
        "availability": {
            "type": "object",
            "properties": {
                "available": {"type": ["boolean", "null"]},
                "last_live_call_utc": NSTR,
                "last_error": NSTR,
                "reason": _UNKNOWN_REASON,
            },
            "required": ["available", "last_live_call_utc", "last_error", "reason"],
        },
    },
    "required": ["source", "title", "current_through", "receiving", "current_through_reason", "limits",
                 "attribution", "availability"],
}

_SAMPLE_DATA: dict[str, Any] = {"anyOf": [{"type": "null"}, {
    "type": "object",
    "properties": {"sample": {"type": "boolean"}, "note": {"type": "string"},
                   "recorded_on": {"type": "object", "additionalProperties": {"type": "string"},
                                   "description": "The sources answering from the sample, with their recording day."},
                   "live": {"type": "array", "items": {"type": "string"},
                            "description": "The sources answering live beside the sample."}},
    "required": ["sample", "note", "recorded_on"]}],
    "description": "Set when this installation answers from its offline sample of the platforms, not the live "
                   "platforms: what the sample is and when each source was recorded (dates are the recording's)."}

LIST_CAPABILITIES_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server": {"type": "string"},
        "server_version": {"type": "string"},
        "server_time_utc": {"type": "string"},
        "address": {"type": "string"},
        "tool_count": {"type": "integer"},
        "tool_list_bytes": {"type": "integer",
                            "description": "Size of this address's tools/list result in compact JSON (UTF-8 bytes)."},
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "title": {"type": "string"},
                    "question": {"type": "string"},
                    "source": NSTR,
                },
                "required": ["name", "title", "question", "source"],
            },
        },
        "sources": {"type": "array", "items": _SOURCE_CAPABILITIES},
        "context_urls": {"type": "array", "items": {"type": "string"},
                         "description": "Reference pages the maintainers offer as context (domain policy)."},
        "sample_data": _SAMPLE_DATA,
    },
    "required": ["server", "server_version", "server_time_utc", "address", "tool_count", "tool_list_bytes", "tools",
                 "sources", "context_urls", "sample_data"],
}

LIST_PLATFORM_CALLS_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "trace": {"type": ["string", "null"], "description": "The handle these calls are filed under, if stateless."},
        "calls": {"type": "array", "items": schema_of(CallRecord)},
        "total": {"type": "integer"},
        "truncated": {"type": "boolean"},
    },
    "required": ["trace", "calls", "total", "truncated"],
}

PLATFORM_STATUS_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "stalled_after_days": {"type": "integer"},
        "sources": {"type": "array", "items": schema_of(SourceStatus)},
        "sample_data": _SAMPLE_DATA,
    },
    "required": ["stalled_after_days", "sources", "sample_data"],
}

_SOURCE_KEYS = {"type": "array", "maxItems": 12, "items": {"type": "string", "maxLength": 24}}
_DAY = {"type": "string", "format": "date", "maxLength": 10}

SEARCH_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 300},
        "organisation": {"type": "string", "minLength": 2, "maxLength": 120},
        "date_from": _DAY,
        "date_to": _DAY,
        "sources": _SOURCE_KEYS,
        "exclude": _SOURCE_KEYS,
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
    },
    "required": ["query"],
    "additionalProperties": False,
}
SEARCH_OUTPUT: dict[str, Any] = result_list_schema({
    "id": {"type": "string", "description": "Pass to fetch: '<source>:<the source's own id>'."},
    "title": {"type": "string"},
    "url": {"type": "string", "description": "The page a person opens."},
    "source": {"type": "string"},
    "source_title": {"type": "string"},
    "date": NSTR,
    "text": {"type": "string", "description": "A short passage: why it matched."},
}, extra={"sources": {"type": "object", "additionalProperties": object_schema({
    "title": {"type": "string"}, "asked": {"type": "boolean"}, "answered": {"type": "boolean"}, "found": NINT,
    "returned": {"type": "integer"}, "cut_off": {"type": "boolean"}, "stands_still": NBOOL, "note": NSTR,
}), "description": "Per source key: asked (or why not), answered, found, cut off by the deadline, stands still."}})
FETCH_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 3, "maxLength": 400},
        "offset": {"type": "integer", "minimum": 0, "maximum": 10_000_000, "default": 0},
        "length": {"type": "integer", "minimum": 100, "maximum": 20_000, "default": 8000},
    },
    "required": ["id"],
    "additionalProperties": False,
}
FETCH_OUTPUT: dict[str, Any] = object_schema({
    "id": {"type": "string"}, "title": {"type": "string"}, "text": {"type": "string"},
    "url": {"type": "string", "description": "The page a person opens."}, "source": {"type": "string"},
    "metadata": {"type": "object", "description": "The source's own fields of this record."},
    "citation": CITATION_SCHEMA,
    "offset": {"type": "integer"}, "length": {"type": "integer"}, "total_length": {"type": "integer"},
    "next_offset": NINT,
}, required=["id", "title", "text", "url", "source", "metadata"])

META_SCHEMAS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "search": (SEARCH_INPUT, SEARCH_OUTPUT),
    "fetch": (FETCH_INPUT, FETCH_OUTPUT),
    "list_capabilities": (
        {"type": "object", "properties": {}, "additionalProperties": False},
        LIST_CAPABILITIES_OUTPUT,
    ),
    "list_platform_calls": (
        {
            "type": "object",
            "properties": {
                "trace": {"type": "string", "maxLength": 200,
                          "description": "Stateless clients: the handle from a tool result's "
                                         f"_meta['{TRACE_META_KEY}']."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 100},
            },
            "additionalProperties": False,
        },
        LIST_PLATFORM_CALLS_OUTPUT,
    ),
    "platform_status": (
        {
            "type": "object",
            "properties": {"source": {"type": "string", "maxLength": 40,
                                      "description": "Only this source (platform key)."}},
            "additionalProperties": False,
        },
        PLATFORM_STATUS_OUTPUT,
    ),
}
