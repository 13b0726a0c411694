"""Shared shapes of tool output: Zoekprecisie (`precision`) and citations.

Every tool whose output is a result list returns `results` (a list of hits, each with a
`citation`) next to a `precision` object. `result_list_schema` builds that output schema, and the
catalog refuses any tool that returns a list without it (see `is_result_list`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, get_args

from proxy.core.shapes import Citation, Precision, TotalRelation, schema_of

__all__ = [
    "CITATION_SCHEMA",
    "NAMED_SHAPE",
    "PRECISION_SCHEMA",
    "TOTAL_RELATIONS",
    "Citation",
    "TotalRelation",
    "citation",
    "is_result_list",
    "localised",
    "object_schema",
    "precision",
    "result_list_schema",
]

TOTAL_RELATIONS: tuple[str, ...] = get_args(TotalRelation)
PRECISION_SCHEMA: dict[str, Any] = schema_of(Precision)
CITATION_SCHEMA: dict[str, Any] = schema_of(Citation)


def precision(
    *,
    total: int | None,
    total_relation: TotalRelation,
    returned: int,
    truncated: bool,
    matched: str,
    not_applied: list[str] | None = None,
    partial: bool = False,
    next_offset: int | None = None,
    hint: str | None = None,
) -> Precision:
    """Build a `precision` object; `total_relation` is what the platform itself says of its count.

    `hint` says, for an empty list, why it is empty and what to send instead (see `proxy.results.emptied`).
    """
    if total_relation not in TOTAL_RELATIONS:
        raise ValueError(f"total_relation must be one of {TOTAL_RELATIONS}, got {total_relation!r}")
    out: Precision = {
        "total": total,
        "total_relation": total_relation,
        "returned": returned,
        "truncated": truncated,
        "matched": matched,
        "not_applied": list(not_applied or []),
        "partial": partial,
        "next_offset": next_offset,
    }
    if hint:
        out["hint"] = hint
    return out


def citation(
    *, uri: str, title: str, text: str, source: str, label: str, requires_attribution: bool
) -> Citation:
    """One citation: what to link, what to show, and whether the attribution must be shown."""
    return {
        "uri": uri,
        "title": title,
        "text": text,
        "source": source,
        "label": label,
        "requires_attribution": requires_attribution,
    }


# The keyword that names a shared shape (`object_schema(shape=...)`). Not JSON Schema's own `title`: tools of
# other servers carry titles on every object (pydantic does), and those must be listed with their fields.
NAMED_SHAPE = "x-besluitbron-shape"


def object_schema(
    properties: Mapping[str, Any], *, required: list[str] | None = None, description: str | None = None,
    shape: str | None = None,
) -> dict[str, Any]:
    """A closed object schema (object root, as 2025-era clients require). A `shape` names a shape that
    several tools return: tools/list shows its fields once, where it is the subject, and elsewhere its name."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": dict(properties),
        "required": list(required if required is not None else properties),
        "additionalProperties": False,
    }
    if description:
        schema["description"] = description
    if shape:
        schema[NAMED_SHAPE] = shape
    return schema


def result_list_schema(item_properties: Mapping[str, Any], *, item_required: list[str] | None = None,
                       extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Output schema of a search tool: `results` (each with a citation), `precision`, plus `extra`."""
    item = {
        "type": "object",
        "properties": {**item_properties, "citation": CITATION_SCHEMA},
        "required": [*(item_required if item_required is not None else item_properties), "citation"],
        "additionalProperties": False,
    }
    properties: dict[str, Any] = {
        "results": {"type": "array", "items": item},
        "precision": PRECISION_SCHEMA,
        **(extra or {}),
    }
    return {
        "type": "object",
        "properties": properties,
        "required": ["results", "precision", *(extra or {})],
        "additionalProperties": False,
    }


def is_result_list(output_schema: Mapping[str, Any]) -> tuple[bool, str | None]:
    """Whether a schema returns a list, and if so what is missing for Zoekprecisie (None when complete)."""
    props = output_schema.get("properties", {})
    lists = [k for k, v in props.items() if isinstance(v, Mapping) and v.get("type") == "array"
             and isinstance(v.get("items"), Mapping) and v["items"].get("type") == "object"]
    if not lists:
        return False, None
    if "precision" not in props or "precision" not in output_schema.get("required", []):
        return True, f"returns a list ({', '.join(lists)}) without a required 'precision' object"
    missing = [f for f in PRECISION_SCHEMA["required"] if f not in props["precision"].get("required", [])]
    if missing:
        return True, f"its 'precision' lacks required fields {missing}"
    for key in lists:
        item = props[key]["items"]
        if "citation" not in item.get("properties", {}) or "citation" not in item.get("required", []):
            return True, f"the items of '{key}' carry no required 'citation'"
    return True, None


# Result fields that BesluitBron writes itself (never source text): tool names in them are renamed for the
# address (Alle Bronnen's prefixes), as descriptions and errors are.
_OWN_TEXT = frozenset({"notes", "precision"})


def localised(data: dict[str, Any], localise: Callable[[str], str]) -> dict[str, Any]:
    """`data` with the tool names in its own texts (`notes`, `precision`) as the address calls them."""
    def each(value: Any) -> Any:
        if isinstance(value, str):
            return localise(value)
        if isinstance(value, list):
            return [each(v) for v in value]
        if isinstance(value, dict):
            return {k: each(v) for k, v in value.items()}
        return value

    if not any(key in data for key in _OWN_TEXT):
        return data
    return {key: each(value) if key in _OWN_TEXT else value for key, value in data.items()}

