"""`SchemaCheck` (compiled checks) agrees with jsonschema, the reference, and never changes a value."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from proxy.catalog.build import build_catalog
from proxy.core.schemacheck import SchemaCheck
from proxy.registry.model import load_registry
from tests.conftest import REGISTRY

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": 5},
        "when": {"type": "string", "format": "date"},
        "limit": {"type": "integer", "minimum": 1, "default": 10},
        "kind": {"enum": ["Motie", "Brief"]},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "id": {"type": "string", "pattern": "^[0-9]{4}D[0-9]{3,6}$"},
        "either": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    },
    "required": ["query"],
    "additionalProperties": False,
}
VALUES: list[Any] = [
    {"query": "abc"},
    {"query": "abc", "limit": 3, "kind": "Motie", "tags": ["a", "b"], "id": "2026D12345", "either": None},
    {"query": "abc", "limit": 3.0},  # an integral number is an integer (2020-12)
    {"query": "abc", "when": "not a date"},  # format is an annotation, for both
    {"query": "abcdefgh"},
    {"limit": 0},
    {"query": "a", "limit": True},
    {"query": "a", "kind": "Amendement", "extra": 1},
    {"query": "a", "tags": ["x", "x"]},
    {"query": "a", "id": "D12"},
    {"query": "a", "either": "no"},
    [],
    "text",
]


# A wrong type or a broken size limit is named in our words (by type and size: jsonschema's quote the value).
OWN_WORDS = frozenset({"type", "maxLength", "maxItems", "maxProperties"})


def _found(errors: Any) -> list[tuple[str, str, str]]:
    return sorted((".".join(map(str, e.absolute_path)), str(e.validator),
                   "" if e.validator in OWN_WORDS else e.message) for e in errors)


@pytest.mark.parametrize("value", VALUES, ids=[str(i) for i in range(len(VALUES))])
def test_agrees_with_jsonschema_and_uses_its_words(value: Any) -> None:
    before = copy.deepcopy(value)
    assert _found(SchemaCheck(SCHEMA).problems(value, limit=50)) == \
        _found(jsonschema.Draft202012Validator(SCHEMA).iter_errors(value))
    assert value == before  # no defaults filled in


def test_every_shipped_tool_example_passes_its_input_check() -> None:
    catalog = build_catalog(load_registry(REGISTRY))
    tools = {t.name: t for c in catalog.connectors.values() for t in c.tools if t.impl and t.impl.example}
    assert tools
    for tool in tools.values():
        assert tool.impl is not None and tool.impl.example is not None
        assert SchemaCheck(tool.input_schema).problems(dict(tool.impl.example)) == [], tool.name
        wrong = {**tool.impl.example, "not_a_parameter": 1}
        assert [e.message for e in SchemaCheck(tool.input_schema).problems(wrong)] == \
            [e.message for e in jsonschema.Draft202012Validator(tool.input_schema).iter_errors(wrong)], tool.name


@pytest.mark.parametrize("value", [{"query": "x" * 900_000}, {"query": [1] * 240_000},
                                   {"query": "a", "tags": ["a"] * 240_000},
                                   {"query": "a", "tags": [{"deep": [1] * 1000}] * 200}])
def test_a_huge_wrong_value_is_named_by_its_size_or_type_not_quoted(value: Any) -> None:
    schema = {**SCHEMA, "properties": {**SCHEMA["properties"],
                                       "tags": {**SCHEMA["properties"]["tags"], "maxItems": 10}}}
    problems = SchemaCheck(schema).problems(value)
    assert problems and all(e.validator in OWN_WORDS for e in problems)
    assert all(len(e.message) < 80 for e in problems), [e.message[:100] for e in problems]


def test_problems_stop_at_the_limit() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    assert len(SchemaCheck(schema).problems(["x"] * 100_000)) == 5
