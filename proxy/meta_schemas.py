"""Input and output schemas of the three meta tools every connector carries (C4–C7).

Kept apart from their behaviour (`proxy.meta`) so the catalogue and the site can read them
without the server's runtime.
"""

from __future__ import annotations

from typing import Any

from proxy.schema_atoms import NDATE, NSTR
from proxy.shapes import CallRecord, SourceStatus, schema_of
from proxy.trace import TRACE_META_KEY

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
        "sample_data": {"anyOf": [{"type": "null"}, {
            "type": "object",
            "properties": {"sample": {"type": "boolean"}, "note": {"type": "string"},
                           "recorded_on": {"type": "object", "additionalProperties": {"type": "string"}}},
            "required": ["sample", "note", "recorded_on"]}],
            "description": "Set when this installation answers from its offline sample of the platforms, not the "
                           "live platforms: what the sample is and when each source was recorded."},
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
    },
    "required": ["stalled_after_days", "sources"],
}

META_SCHEMAS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
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
