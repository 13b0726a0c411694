"""The explorer shows results in the page's language: every field a built-in tool returns has words in Dutch and
English (`FIELD_LABELS` in bb-i18n.js), and so has every fixed value a tool returns or echoes (`VALUE_LABELS`); a
Dutch results page showed `asked`, `cut_off` and `motion` as they are."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from proxy.catalog.build import build_catalog
from proxy.registry.model import load_registry
from tests.conftest import REGISTRY, ROOT

I18N = (ROOT / "docs" / "assets" / "javascripts" / "bb-i18n.js").read_text(encoding="utf-8")


def _block(name: str, lang: str) -> set[str]:
    """The keys of `lang`'s part of a `const NAME = {nl: {…}, en: {…}}` table."""
    table = I18N[I18N.index(f"const {name} = {{"):]
    part = table[table.index(f"  {lang}: {{"):]
    part = part[:part.index("\n  },")]
    return set(re.findall(r"^    ([a-z_0-9]+): ", part, re.M))


def _walk(node: Any) -> Iterator[tuple[str, Any]]:
    """(kind, item) for every property name ("key") and every string enum value ("value") in a schema."""
    if isinstance(node, Mapping):
        for key, sub in (node.get("properties") or {}).items():
            yield "key", key
            yield from _walk(sub)
        for value in node.get("enum") or ():
            if isinstance(value, str):
                yield "value", value
        for name, sub in node.items():
            if name != "properties" and isinstance(sub, Mapping | list):
                yield from _walk(sub)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


@pytest.fixture(scope="module")
def returned() -> dict[str, set[str]]:
    catalog = build_catalog(load_registry(REGISTRY))
    found: dict[str, set[str]] = {"key": set(), "value": set()}
    for connector in catalog.connectors.values():
        for tool in connector.tools:
            for kind, item in _walk(tool.output_schema or {}):
                found[kind].add(item)
            # Sort orders are echoed in `precision.matched` and chosen in the form: words for them too.
            for kind, item in _walk(tool.input_schema.get("properties", {}).get("sort", {})):
                found[kind].add(item)
    return found


@pytest.mark.parametrize("lang", ["nl", "en"])
def test_every_field_a_built_in_tool_returns_has_words(returned: dict[str, set[str]], lang: str) -> None:
    assert returned["key"] and not sorted(returned["key"] - _block("FIELD_LABELS", lang))


def test_every_fixed_value_a_tool_returns_has_words_in_both_languages(returned: dict[str, set[str]]) -> None:
    table = I18N[I18N.index("const VALUE_LABELS = {"):]
    table = table[:table.index("\n};")]
    said = {m.group(1): (m.group(2), m.group(3))
            for m in re.finditer(r'^  "([^"]+)": \{nl: "([^"]*)", en: "([^"]*)"\},$', table, re.M)}
    assert returned["value"] and not sorted(returned["value"] - said.keys())
    assert all(nl and en for nl, en in said.values())
