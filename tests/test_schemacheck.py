"""`SchemaCheck` (compiled checks) agrees with jsonschema, the reference, and never changes a value."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from proxy.catalog import build_catalog
from proxy.registry import load_registry
from proxy.schemacheck import SchemaCheck
from tests.conftest import REGISTRY

SCHEMA = {
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


def _reference(schema: dict[str, Any], value: Any) -> list[str]:
    return sorted(e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(value))


@pytest.mark.parametrize("value", VALUES, ids=[str(i) for i in range(len(VALUES))])
def test_agrees_with_jsonschema_and_uses_its_words(value: Any) -> None:
    before = copy.deepcopy(value)
    assert sorted(e.message for e in SchemaCheck(SCHEMA).problems(value, limit=50)) == _reference(SCHEMA, value)
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


def test_problems_stop_at_the_limit() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    assert len(SchemaCheck(schema).problems(["x"] * 100_000)) == 5
