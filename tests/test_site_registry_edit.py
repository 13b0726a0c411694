"""proxy.maintain.registry_edit.set_switch: one value changes, nothing else, and the result is a valid registry."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.errors import RegistryError
from proxy.maintain.registry_edit import SWITCHES, Switch, canonical_json, set_switch
from proxy.registry.model import load_registry, parse_registry
from tests.conftest import connector_entry

REGISTRY = Path(__file__).resolve().parent.parent / "registry.json"
TEXT = REGISTRY.read_text(encoding="utf-8")
SLUGS = [c.slug for c in load_registry(REGISTRY).connectors]


def _literal_changes(before: str, after: str) -> int:
    """How many true/false literals differ; asserts that every other character is identical."""
    split_before, split_after = _LITERAL.split(before), _LITERAL.split(after)
    assert len(split_before) == len(split_after) and split_before[0::2] == split_after[0::2]
    return sum(x != y for x, y in zip(split_before[1::2], split_after[1::2], strict=True))


_LITERAL = re.compile(r"\b(true|false)\b")


@pytest.mark.parametrize("field", SWITCHES)
@pytest.mark.parametrize("slug", SLUGS)
def test_flip_changes_exactly_one_literal(slug: str, field: Switch) -> None:
    current = getattr(load_registry(REGISTRY).connector(slug), field)
    flipped = set_switch(TEXT, slug, field, not current)
    assert _literal_changes(TEXT, flipped) == 1
    assert getattr(parse_registry(json.loads(flipped)).connector(slug), field) is (not current)
    assert set_switch(flipped, slug, field, current) == TEXT


def test_same_value_returns_the_text_unchanged() -> None:
    connector = load_registry(REGISTRY).connectors[0]
    assert set_switch(TEXT, connector.slug, "enabled", connector.enabled) == TEXT


def test_only_the_named_connector_changes() -> None:
    slug = SLUGS[0]
    flipped = parse_registry(json.loads(set_switch(TEXT, slug, "in_footer", True)))
    original = load_registry(REGISTRY)
    for before, after in zip(original.connectors, flipped.connectors, strict=True):
        if before.slug != slug:
            assert before == after


def test_unknown_slug_is_refused_naming_it() -> None:
    with pytest.raises(RegistryError, match="no connector with slug 'nosuch'"):
        set_switch(TEXT, "nosuch", "enabled", False)


def test_unknown_field_is_refused() -> None:
    with pytest.raises(ValueError, match="field must be one of"):
        set_switch(TEXT, SLUGS[0], "title", False)  # type: ignore[arg-type]  # not a Switch, on purpose
    with pytest.raises(ValueError, match="true or false"):
        set_switch(TEXT, SLUGS[0], "enabled", 1)  # type: ignore[arg-type]  # not a bool, on purpose


def test_invalid_json_is_refused_with_position() -> None:
    with pytest.raises(RegistryError, match="not valid JSON at line 2"):
        set_switch('{\n  "connectors": [,]\n}', "x", "enabled", True)


def test_an_invalid_registry_is_refused_after_the_edit() -> None:
    data = json.loads(TEXT)
    data["connectors"][0]["in_fotter"] = True
    with pytest.raises(RegistryError, match="in_fotter"):
        set_switch(json.dumps(data, indent=2), data["connectors"][0]["slug"], "enabled", False)


def test_the_shipped_registry_is_canonical() -> None:
    assert canonical_json(json.loads(TEXT)) == TEXT  # so a switch changes exactly one line


@pytest.mark.parametrize("dump", [
    lambda d: json.dumps(d, separators=(",", ":"), ensure_ascii=False),
    lambda d: json.dumps(d, indent=4).replace("\n", "\r\n"),
    lambda d: json.dumps(d, indent="\t", ensure_ascii=True),
])
def test_other_formattings_come_back_canonical(dump: Callable[[Any], str]) -> None:
    original = dump(json.loads(TEXT))
    slug = SLUGS[-1]
    current = next(c["in_footer"] for c in json.loads(original)["connectors"] if c["slug"] == slug)
    flipped = set_switch(original, slug, "in_footer", not current)
    assert _literal_changes(TEXT, flipped) == 1
    assert set_switch(flipped, slug, "in_footer", current) == TEXT


def test_a_flip_changes_exactly_one_line() -> None:
    slug = SLUGS[0]
    flipped = set_switch(TEXT, slug, "in_footer", not load_registry(REGISTRY).connector(slug).in_footer)
    changed = [(a, b) for a, b in zip(TEXT.splitlines(), flipped.splitlines(), strict=True) if a != b]
    assert len(changed) == 1 and '"in_footer"' in changed[0][0]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(SLUGS), st.sampled_from(SWITCHES), st.booleans()), max_size=8))
def test_any_sequence_of_flips_equals_editing_the_data(ops: list[tuple[str, Switch, bool]]) -> None:
    text, data = TEXT, json.loads(TEXT)
    for slug, field, value in ops:
        text = set_switch(text, slug, field, value)
        connector_entry(data, slug)[field] = value
    assert json.loads(text) == data
    original = json.loads(TEXT)
    changed = sum(a[f] != b[f] for a, b in zip(original["connectors"], data["connectors"], strict=True)
                  for f in SWITCHES)
    assert _literal_changes(TEXT, text) == changed
