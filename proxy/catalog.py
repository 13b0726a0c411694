"""The one catalogue: registry + tool implementations → connectors, addresses and tools.

Both the server (`proxy.app`) and the site (`site_hooks`) ask this module which connectors exist,
at which address, with which tools, titles, descriptions and schemas. Neither derives it again,
which is what keeps the two faces in agreement.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import jsonschema
import mcp_types

from proxy.errors import CatalogError
from proxy.meta_schemas import META_SCHEMAS
from proxy.registry import AGGREGATE_NAME_MAX, META_TOOL_NAMES, Connector, Registry, Text, ToolWords
from proxy.results import is_result_list
from proxy.toolkit import About, PlatformPlugin, ToolImpl

__all__ = ["Catalog", "CatalogConnector", "CatalogTool", "build_catalog", "load_plugin", "load_plugins"]


@dataclass(frozen=True, slots=True)
class CatalogTool:
    """A tool as served at one address."""

    name: str
    title: Text
    words: ToolWords
    platform: str | None  # None for the meta tools
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    impl: ToolImpl | None  # None for the meta tools, which the server runs itself
    open_world: bool

    @property
    def meta(self) -> bool:
        return self.impl is None

    def to_mcp(self) -> mcp_types.Tool:
        """The MCP tool: Dutch title, read-only, object-rooted schemas."""
        return mcp_types.Tool(
            name=self.name,
            title=self.title.nl,
            description=self.words.description.nl,
            input_schema=dict(self.input_schema),
            output_schema=dict(self.output_schema),
            annotations=mcp_types.ToolAnnotations(
                title=self.title.nl,
                read_only_hint=True,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=self.open_world,
            ),
        )


@dataclass(frozen=True, slots=True)
class CatalogConnector:
    """An enabled connector with the tools its address serves, routed by a lookup table."""

    connector: Connector
    tools: tuple[CatalogTool, ...]
    platforms: tuple[str, ...]  # the sources behind this address
    by_name: Mapping[str, CatalogTool]  # the routing table: never split names to route

    @property
    def slug(self) -> str:
        return self.connector.slug

    @property
    def path(self) -> str:
        return self.connector.path

    def tool(self, name: str) -> CatalogTool | None:
        return self.by_name.get(name)


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every enabled connector of one registry, in registry order."""

    registry: Registry
    connectors: Mapping[str, CatalogConnector]
    plugins: Mapping[str, PlatformPlugin]  # every platform of the registry, served or not
    disabled: tuple[str, ...] = ()  # slugs switched off: absent everywhere, counted only

    def connector(self, slug: str) -> CatalogConnector | None:
        return self.connectors.get(slug)

    def url(self, slug: str, base: str | None = None) -> str:
        """The full address of a connector under `base` (default: the registry's public URL)."""
        return f"{(base or self.registry.server.public_url).rstrip('/')}/{slug}/mcp"

    def paths(self) -> list[str]:
        return [c.path for c in self.connectors.values()]


# --------------------------------------------------------------------------- building


def load_plugins(registry: Registry) -> dict[str, PlatformPlugin]:
    """Import `proxy.platforms.<key>` for every platform once and check its `PLATFORM`, naming what is missing."""
    return {key: load_plugin(key) for key in registry.platforms}


def load_plugin(key: str) -> PlatformPlugin:
    module_file = f"proxy/platforms/{key}.py"
    try:
        module = importlib.import_module(f"proxy.platforms.{key}")
    except ModuleNotFoundError as exc:
        if exc.name != f"proxy.platforms.{key}":
            raise
        raise CatalogError(f"platforms.{key}: no implementation module {module_file}") from exc
    plugin = getattr(module, "PLATFORM", None)
    if not isinstance(plugin, PlatformPlugin):
        raise CatalogError(f"platforms.{key}: {module_file} must define PLATFORM = PlatformPlugin(...)")
    missing = [part for part, ok in (
        ("key", plugin.key == key),
        ("tools (a tuple of ToolImpl)", isinstance(plugin.tools, tuple)
         and all(isinstance(t, ToolImpl) for t in plugin.tools)),
        ("measure_load (an async function)", inspect.iscoroutinefunction(plugin.measure_load)),
        ("about (an About)", isinstance(plugin.about, About)),
    ) if not ok]
    if missing:
        raise CatalogError(f"platforms.{key}: {module_file} PLATFORM is missing or has a wrong "
                           f"{', '.join(missing)}")
    return plugin


def build_catalog(registry: Registry, plugins: Mapping[str, PlatformPlugin] | None = None) -> Catalog:
    """Join registry words and code behaviour; fail naming the entry on any mismatch."""
    plugins = load_plugins(registry) if plugins is None else plugins
    impls = {key: plugin.tools for key, plugin in plugins.items()}
    source_tools: dict[str, tuple[CatalogTool, ...]] = {}
    for i, connector in enumerate(registry.connectors):
        if connector.platform is not None:
            source_tools[connector.slug] = _source_tools(registry, i, connector, impls.get(connector.platform, ()))

    meta = tuple(_meta_tool(registry.meta_tools[name]) for name in META_TOOL_NAMES)
    built: dict[str, CatalogConnector] = {}
    enabled_sources = [c for c in registry.enabled_connectors() if not c.aggregate]
    for connector in registry.enabled_connectors():
        if connector.aggregate:
            tools = _aggregate_tools(registry, enabled_sources, source_tools)
            platforms = tuple(c.platform for c in enabled_sources if c.platform)
        else:
            tools = source_tools[connector.slug]
            platforms = (connector.platform,) if connector.platform else ()
        served = (*tools, *meta)
        built[connector.slug] = CatalogConnector(connector=connector, tools=served, platforms=platforms,
                                                 by_name=MappingProxyType({t.name: t for t in served}))
    return Catalog(registry=registry, connectors=MappingProxyType(built), plugins=MappingProxyType(dict(plugins)),
                   disabled=tuple(c.slug for c in registry.connectors if not c.enabled))


def _source_tools(registry: Registry, index: int, connector: Connector,
                  impls: Sequence[ToolImpl]) -> tuple[CatalogTool, ...]:
    assert connector.platform is not None
    by_name = {impl.name: impl for impl in impls}
    module = f"proxy/platforms/{connector.platform}.py"
    tools = []
    for j, words in enumerate(connector.tools):
        impl = by_name.get(words.name)
        if impl is None:
            raise CatalogError(f"connectors[{index}].tools[{j}]: tool '{words.name}' has no implementation in {module}")
        _check_schemas(f"{module}: tool '{impl.name}'", impl)
        tools.append(CatalogTool(
            name=words.name, title=words.title, words=words, platform=connector.platform,
            input_schema=impl.input_schema, output_schema=impl.output_schema, impl=impl,
            open_world=impl.open_world,
        ))
    registered = {w.name for w in connector.tools}
    for impl in impls:
        if impl.name not in registered:
            raise CatalogError(f"{module}: tool '{impl.name}' has no registry entry in connectors[{index}] "
                               f"('{connector.slug}')")
    return tuple(tools)


def _check_schemas(where: str, impl: ToolImpl) -> None:
    for kind, schema in (("inputSchema", impl.input_schema), ("outputSchema", impl.output_schema)):
        if schema.get("type") != "object":
            raise CatalogError(f"{where}: {kind} must have an object root")
        problem = _schema_problem(json.dumps(schema, sort_keys=True))
        if problem:
            raise CatalogError(f"{where}: {kind} is not valid JSON Schema: {problem}")
    listed, problem = is_result_list(impl.output_schema)
    if listed and problem:
        raise CatalogError(f"{where}: not admitted (Zoekprecisie): {problem}")


_META_VALIDATOR = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)


@functools.lru_cache(maxsize=4096)
def _schema_problem(schema_json: str) -> str | None:
    """Check a schema against the 2020-12 meta-schema once per distinct schema (catalogues repeat them)."""
    error = jsonschema.exceptions.best_match(_META_VALIDATOR.iter_errors(json.loads(schema_json)))
    return error.message if error else None


def _aggregate_tools(registry: Registry, sources: Sequence[Connector],
                     source_tools: Mapping[str, tuple[CatalogTool, ...]]) -> tuple[CatalogTool, ...]:
    owners: dict[str, str] = {name: "meta tool" for name in META_TOOL_NAMES}
    tools = []
    for connector in sources:
        assert connector.platform is not None
        platform = registry.platforms[connector.platform]
        for tool in source_tools[connector.slug]:
            name = f"{platform.prefix}_{tool.name}"
            owner = f"connector '{connector.slug}' tool '{tool.name}'"
            if name in owners:
                raise CatalogError(f"aggregate tool name '{name}' collides: {owners[name]} and {owner}")
            if len(name) > AGGREGATE_NAME_MAX:
                raise CatalogError(f"aggregate tool name '{name}' ({owner}) exceeds {AGGREGATE_NAME_MAX} characters")
            owners[name] = owner
            title = Text(nl=f"{platform.title.nl}: {tool.title.nl}", en=f"{platform.title.en}: {tool.title.en}")
            tools.append(CatalogTool(
                name=name, title=title, words=tool.words, platform=tool.platform, input_schema=tool.input_schema,
                output_schema=tool.output_schema, impl=tool.impl, open_world=tool.open_world,
            ))
    return tuple(tools)


def _meta_tool(words: ToolWords) -> CatalogTool:
    input_schema, output_schema = META_SCHEMAS[words.name]
    return CatalogTool(name=words.name, title=words.title, words=words, platform=None,
                       input_schema=input_schema, output_schema=output_schema, impl=None, open_world=False)
