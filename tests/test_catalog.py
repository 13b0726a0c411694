"""The catalog joins registry words and code behaviour, and refuses every mismatch by name."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from proxy.catalog.build import build_catalog, load_plugins
from proxy.core.errors import CatalogError, RegistryError
from proxy.core.metaschema import meta_schema_problem
from proxy.core.toolnames import META_TOOL_NAMES
from proxy.plugin.toolkit import About, LoadReport, PlatformContext, PlatformPlugin, ToolCall, ToolImpl
from proxy.registry.model import parse_registry
from proxy.results.outputs import PRECISION_SCHEMA, is_result_list, object_schema, result_list_schema
from tests.conftest import connector_entry

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))


async def _noop(call: ToolCall) -> dict[str, Any]:
    return {}


async def _no_load(ctx: PlatformContext) -> LoadReport:
    return LoadReport(current_through=None)


def _plugins(impls: dict[str, tuple[ToolImpl, ...]]) -> dict[str, PlatformPlugin]:
    return {key: PlatformPlugin(key=key, tools=tools, measure_load=_no_load, about=About("https://example.org"))
            for key, tools in impls.items()}


def _params_of(tool: dict[str, Any]) -> dict[str, Any]:
    """An input schema with the parameters the registry words (params), so those words find their parameter."""
    return {"type": "object",
            "properties": {name: {"type": "string", "maxLength": 100} for name in tool.get("params", {})}}


def _impls(registry_data: dict[str, Any]) -> dict[str, tuple[ToolImpl, ...]]:
    """Behaviour for every registry tool: a result list, so the Zoekprecisie rule passes."""
    out: dict[str, tuple[ToolImpl, ...]] = {}
    schema = result_list_schema({"id": {"type": "string"}})
    for c in registry_data["connectors"]:
        if "platform" in c:
            out[c["platform"]] = tuple(ToolImpl(t["name"], _params_of(t), schema, _noop) for t in c["tools"])
    return out


def test_real_implementations_match_the_registry_and_admit_every_search_tool() -> None:
    registry = parse_registry(SHIPPED)
    catalog = build_catalog(registry, load_plugins(registry))
    for connector in catalog.connectors.values():
        for tool in connector.tools:
            if tool.meta:
                continue  # the meta tools report on the installation, not search results
            listed, problem = is_result_list(tool.output_schema)
            assert problem is None, (connector.slug, tool.name, problem)
            if not tool.meta and "results" in tool.output_schema.get("properties", {}):
                assert listed, tool.name


def test_registry_tool_without_implementation_is_named() -> None:
    impls = _impls(SHIPPED)
    impls["wetten"] = impls["wetten"][1:]
    with pytest.raises(CatalogError, match=r"connectors\[4\]\.tools\[0\]: tool 'search_regulations' has no "
                                           r"implementation in proxy/platforms/wetten\.py"):
        build_catalog(parse_registry(SHIPPED), _plugins(impls))


def test_implementation_without_registry_entry_is_named() -> None:
    impls = _impls(SHIPPED)
    extra = ToolImpl("secret_tool", {"type": "object"}, object_schema({}), _noop)
    impls["woo"] = (*impls["woo"], extra)
    with pytest.raises(CatalogError, match=r"proxy/platforms/woo\.py: tool 'secret_tool' has no registry entry in "
                                           r"connectors\[6\] \('openoverheid'\)"):
        build_catalog(parse_registry(SHIPPED), _plugins(impls))


def test_search_tool_without_precision_is_not_admitted() -> None:
    impls = _impls(SHIPPED)
    bare_list = object_schema({"results": {"type": "array", "items": {"type": "object"}}})
    first = impls["rechtspraak"][0]
    impls["rechtspraak"] = (ToolImpl(first.name, first.input_schema, bare_list, _noop), *impls["rechtspraak"][1:])
    with pytest.raises(CatalogError, match=r"not admitted \(Zoekprecisie\).*without a required 'precision'"):
        build_catalog(parse_registry(SHIPPED), _plugins(impls))


def test_precision_missing_a_field_is_not_admitted() -> None:
    impls = _impls(SHIPPED)
    schema = result_list_schema({"id": {"type": "string"}})
    schema["properties"]["precision"] = {**PRECISION_SCHEMA, "required": ["total", "returned"]}
    first = impls["ori"][0]
    impls["ori"] = (ToolImpl(first.name, first.input_schema, schema, _noop), *impls["ori"][1:])
    with pytest.raises(CatalogError, match="lacks required fields"):
        build_catalog(parse_registry(SHIPPED), _plugins(impls))


@pytest.mark.parametrize(("param", "named"), [
    ({"type": "array", "items": {"type": "string", "maxLength": 9}}, "'ids' (an array without maxItems)"),
    ({"type": "array", "maxItems": 3, "items": {"type": "string"}}, "'ids[]' (a string without maxLength)"),
    ({"type": "object", "properties": {"name": {"type": ["string", "null"]}}},
     "'ids.name' (a string without maxLength)"),
])
def test_an_argument_without_a_size_bound_is_refused_naming_tool_and_parameter(param: dict[str, Any],
                                                                              named: str) -> None:
    impls = _impls(SHIPPED)
    first = impls["wetten"][0]
    schema = {**first.input_schema, "properties": {**first.input_schema["properties"], "ids": param}}
    impls["wetten"] = (ToolImpl(first.name, schema, first.output_schema, _noop), *impls["wetten"][1:])
    with pytest.raises(CatalogError, match=rf"proxy/platforms/wetten\.py: tool '{first.name}': inputSchema leaves "
                                           rf"{re.escape(named)}: give each the most values"):
        build_catalog(parse_registry(SHIPPED), _plugins(impls))


def test_shipped_tools_bound_every_array_and_string_argument() -> None:
    catalog = build_catalog(parse_registry(SHIPPED))  # the shipped plug-ins: refused at load otherwise
    tool = catalog.connectors["officielebekendmakingen"].tool("search_publications")
    assert tool is not None
    media = tool.input_schema["properties"]["media"]
    assert media["maxItems"] == len(media["items"]["enum"])


def test_an_aggregate_name_equal_to_a_meta_tool_is_refused_naming_the_entry() -> None:
    """Prefixes are unique, but `<prefix>_<name>` can still hit a meta-tool name: the registry refuses it, naming
    the tool's entry (the catalog's own collision check is the backstop for plug-ins built in code)."""
    data = copy.deepcopy(SHIPPED)
    data["platforms"]["woo"]["prefix"] = "list"
    connector_entry(data, "openoverheid")["tools"][0]["name"] = "capabilities"
    index = data["connectors"].index(connector_entry(data, "openoverheid"))
    with pytest.raises(RegistryError, match=rf"connectors\[{index}\]\.tools\[0\]\.name: 'list_capabilities' \(the "
                                            r"name on the aggregate connector\) is a meta tool's name"):
        parse_registry(data)


def test_meta_tools_appear_once_on_every_connector() -> None:
    catalog = build_catalog(parse_registry(SHIPPED), _plugins(_impls(SHIPPED)))
    for connector in catalog.connectors.values():
        names = [t.name for t in connector.tools]
        assert [n for n in names if n in META_TOOL_NAMES] == list(META_TOOL_NAMES)
        assert len(names) == len(set(names))


def test_invalid_json_schema_is_refused_by_name() -> None:
    impls = _impls(SHIPPED)
    first = impls["wetten"][0]
    broken = {"type": "object", "properties": {"title": {"type": "text"}}}
    impls["wetten"] = (ToolImpl(first.name, broken, first.output_schema, _noop), *impls["wetten"][1:])
    with pytest.raises(CatalogError, match=r"proxy/platforms/wetten\.py: tool 'search_regulations': inputSchema is "
                                           r"not valid JSON Schema"):
        build_catalog(parse_registry(SHIPPED), _plugins(impls))


@pytest.mark.parametrize(("schema", "problem"), [
    ({"type": "object", "properties": {"q": {"type": "string", "maxLength": 200}}}, None),
    ({"type": "object", "properties": {"title": {"type": "text"}}},
     "'text' is not valid under any of the given schemas"),
    ({"type": "object", "required": "q"}, "'q' is not of type 'array'"),
    # jsonschema-rs would judge this one by draft-07 (where `items` may be a list); the check is 2020-12's.
    ({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
      "properties": {"ids": {"type": "array", "items": [{"type": "string"}]}}}, "is not of type 'object', 'boolean'"),
    ({"$schema": "https://example.org/no-such-meta-schema", "type": "object"}, None),  # 2020-12 allows any URI
])
def test_the_meta_schema_check_names_what_jsonschema_names(schema: dict[str, Any], problem: str | None) -> None:
    found = meta_schema_problem(schema)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found
