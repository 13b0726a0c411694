"""A third-party server's tool schemas are data, never instructions to fetch or compute without bound.

JSON Schema lets a schema point anywhere (`$ref` to a URL, which jsonschema and fastjsonschema would fetch with
urllib, outside every address guard), nest without end (a recursion limit hit while listing stops the process),
and carry regular expressions whose backtracking freezes the event loop (`^(a+)+$` on 27 characters: seconds).
`schema_problem` names the first of these in a remote tool's schema, so the tool is refused with that reason
before anything compiles it; `without_patterns` is the schema BesluitBron checks and lists instead: the same,
without the regular expressions (the remote server still checks its own arguments).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["SCHEMA_DEPTH_MAX", "SCHEMA_NODES_MAX", "schema_problem", "without_patterns"]

SCHEMA_DEPTH_MAX = 24  # deeper than any real tool's arguments or answer; far below Python's recursion limit
SCHEMA_NODES_MAX = 5000  # subschemas in one tool's schema
_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")
# Keywords whose value is a map of names to subschemas, one subschema, or a list of subschemas.
_MAPS = ("properties", "$defs", "definitions", "dependentSchemas", "patternProperties")
_ONE = ("items", "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains",
        "propertyNames", "unevaluatedProperties", "unevaluatedItems", "contentSchema")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_REGEX = ("pattern", "patternProperties")


def _children(schema: Mapping[str, Any]) -> Iterator[Any]:
    for key, value in schema.items():
        if key in _MAPS and isinstance(value, Mapping):
            yield from value.values()
        elif key in _ONE and isinstance(value, Mapping):
            yield value
        elif key in _LISTS and isinstance(value, list):
            yield from value


def schema_problem(schema: Any) -> str | None:
    """Why BesluitBron will not compile `schema`, or None. Iterative: a hostile depth cannot exhaust the stack."""
    stack: list[tuple[Any, int]] = [(schema, 0)]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, Mapping):
            continue
        nodes += 1
        if depth > SCHEMA_DEPTH_MAX:
            return f"it nests deeper than {SCHEMA_DEPTH_MAX} levels"
        if nodes > SCHEMA_NODES_MAX:
            return f"it has more than {SCHEMA_NODES_MAX} subschemas"
        for key in _REFERENCES:
            target = node.get(key)
            if target is not None and not (isinstance(target, str) and target.startswith("#")):
                return (f"it refers outside itself ({key}: {str(target)[:80]!r}); BesluitBron fetches nothing a "
                        "schema points to")
        stack.extend((child, depth + 1) for child in _children(node))
    return None


def without_patterns(schema: Any) -> Any:
    """`schema` without `pattern` and `patternProperties` (regular expressions a third party wrote). Call it on a
    schema `schema_problem` passed: its depth is bounded."""
    if isinstance(schema, list):
        return [without_patterns(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _REGEX:
            continue
        if key in _MAPS and isinstance(value, Mapping):
            out[key] = {name: without_patterns(sub) for name, sub in value.items()}
        elif key in _ONE or key in _LISTS:
            out[key] = without_patterns(value)
        else:
            out[key] = value
    return out
