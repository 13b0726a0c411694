"""The one catalog: registry + tool implementations → connectors, addresses and tools.

Both the server (`proxy.web.app`) and the site (`site_hooks`) ask this module which connectors exist,
at which address, with which tools, titles, descriptions and schemas. Neither derives it again,
which is what keeps the two faces in agreement.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import mcp_types

from proxy.core.errors import CatalogError
from proxy.core.metaschema import meta_schema_problem
from proxy.core.toolnames import CROSS_TOOL_NAMES, META_TOOL_NAMES, aggregate_name, name_problem
from proxy.plugin.toolkit import About, PlatformPlugin, ToolImpl
from proxy.registry.model import Connector, Registry, Text, ToolWords
from proxy.results.citing import cited_output_schema
from proxy.results.meta_schemas import META_SCHEMAS
from proxy.results.outputs import NAMED_SHAPE, is_result_list

__all__ = ["REMOTE_MAX_ITEMS", "REMOTE_MAX_LENGTH", "Catalog", "CatalogConnector", "CatalogTool", "build_catalog",
           "capped_input_schema", "listed_input_schema", "listed_output_schema", "listing_bytes", "load_plugin",
           "load_plugins", "unbounded_arguments"]


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
    # On Alle Bronnen: the source's own tool names → their prefixed names here, so that every tool a
    # description or an error names is one this address has.
    renames: Mapping[str, str] = field(default_factory=dict)

    # search and fetch: run by the server over every source at the address; their answers are external data.
    cross: bool = False

    @property
    def meta(self) -> bool:
        """About this installation (list_capabilities and the like), run by the server, not external data."""
        return self.impl is None and not self.cross

    @property
    def description(self) -> Text:
        return Text(nl=self.localise(self.words.description.nl), en=self.localise(self.words.description.en))

    def localise(self, text: str) -> str:
        """`text` with the tool names of this tool's source as this address calls them."""
        if not self.renames:
            return text
        return _TOOL_NAME.sub(lambda m: self.renames.get(m.group(0), m.group(0)), text)


    def param_words(self, lang: str) -> dict[str, str]:
        """What each input parameter means, in `lang`, as the registry words it."""
        return {name: self.localise(text[lang]) for name, text in self.words.params.items()}

    @property
    def served_output_schema(self) -> Mapping[str, Any]:
        """The output schema of what leaves the server: content tools carry `cited_chunks` (proxy.results.citing)."""
        return self.output_schema if self.meta else cited_output_schema(self.output_schema)

    def to_mcp(self) -> mcp_types.Tool:
        """The MCP tool: Dutch title, read-only, object-rooted schemas."""
        return mcp_types.Tool(
            name=self.name,
            title=self.title.nl,
            description=self.description.nl,
            input_schema=listed_input_schema(self.input_schema),
            output_schema=listed_output_schema(self.served_output_schema, depth=1 if self.meta else _LISTED_DEPTH),
            # readOnlyHint true makes destructive/idempotent moot (the spec reads them only when it is false);
            # openWorldHint defaults to true, so only a closed tool says so.
            # Claude's directory reads the title from the annotations too.
            annotations=mcp_types.ToolAnnotations(title=self.title.nl, read_only_hint=True,
                                                  open_world_hint=None if self.open_world else False),
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


# --------------------------------------------------------------------------- listing

# Prose and validation detail a client does not need to read a result: the server checks every result
# against the full schema before it leaves, and the site documents each field.
_UNLISTED_KEYWORDS = frozenset({"description", "title", "format", "minimum", "maximum", "exclusiveMinimum",
                                "exclusiveMaximum", "minLength", "maxLength", "pattern", "default", "examples"})
# Validation detail of arguments: the server checks every argument against the full schema and its error
# names the limit; the words of each parameter (registry `params`) say what to send.
_UNLISTED_INPUT_KEYWORDS = frozenset({"format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                      "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
                                      "examples"})
# Shared shapes every result list carries, listed by name only: their fields are the same for every tool
# and are explained once, in the server instructions and on the Zoekprecisie and Bronvermelding pages.
_SHARED_SHAPES = frozenset({"precision", "cited_chunks"})
# Objects are listed with their fields down to the items of a list (a hit) or a nested record (a document);
# deeper objects (a hit's meeting) are listed as objects. The meta tools, whose answers describe this
# installation rather than a source, list their top-level fields only (the site documents the rest).
_LISTED_DEPTH = 2


@functools.lru_cache(maxsize=1024)
def _listed(schema_json: str, depth: int) -> dict[str, Any]:
    listed: dict[str, Any] = _strip(json.loads(schema_json), root=True, max_depth=depth)  # an object stays one
    return listed


def listed_output_schema(schema: Mapping[str, Any], *, depth: int = _LISTED_DEPTH) -> dict[str, Any]:
    """The output schema as tools/list publishes it: field names and types to `depth` levels, shared and
    named shapes by name, the root's required fields unless that is all of them (the usual case, which the
    server instructions state once).

    A relaxation of `schema` (everything valid against it is valid against this), so a client that
    checks results against the listing never refuses one; it keeps the list small for a model's attention.
    """
    return _listed(json.dumps(schema, sort_keys=True), depth)


@functools.lru_cache(maxsize=1024)
def _listed_input(schema_json: str) -> dict[str, Any]:
    listed: dict[str, Any] = _strip_input(json.loads(schema_json))  # an object stays one
    return listed


def listed_input_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The input schema as tools/list publishes it: names, types, enums, defaults, required and the words
    of each parameter; length and range limits are left to the server's check, whose error names them."""
    return _listed_input(json.dumps(schema))


def listing_bytes(tools: Sequence[mcp_types.Tool]) -> int:
    """Size of a tools/list result as the transport sends it: compact JSON, UTF-8."""
    dumped = mcp_types.ListToolsResult(tools=list(tools)).model_dump(by_alias=True, mode="json", exclude_none=True)
    return len(json.dumps(dumped, separators=(",", ":"), ensure_ascii=False).encode())


def _strip(node: Any, *, root: bool = False, depth: int = 0, max_depth: int = _LISTED_DEPTH) -> Any:
    if isinstance(node, list):
        return [_strip(item, depth=depth, max_depth=max_depth) for item in node]
    if not isinstance(node, dict):
        return node
    if not root and NAMED_SHAPE in node:
        # A named shape (results.object_schema's shape): its fields are listed where it is the subject.
        return {"type": "object", "title": node[NAMED_SHAPE]}
    nullable = _nullable_object(node)
    if nullable is not None:
        # {"anyOf": [null, {object}]}: the object's fields without a type, which lets null through too.
        listed = _strip(nullable, depth=depth, max_depth=max_depth)
        return {key: value for key, value in listed.items() if key != "type"}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _UNLISTED_KEYWORDS or (key == "additionalProperties" and value is False):
            continue
        if key == "type" and isinstance(value, list):
            # One type per field or none: Copilot Studio truncates a schema at a list of types (documented for
            # inputs, unsettled for outputs: proxy.catalog.assistants), so a field that may also be null is listed
            # without a type. That still accepts everything the full schema accepts; the site shows the type.
            continue
        if key == "required" and (not root or set(value) == set(node.get("properties", {}))):
            continue  # at the root, "every field is always sent" is said once, in the server instructions
        if key == "properties":
            if depth >= max_depth:
                continue
            out[key] = {name: _shared(prop) if root and name in _SHARED_SHAPES
                        else _strip(prop, depth=depth + 1, max_depth=max_depth) for name, prop in value.items()}
        elif key == "additionalProperties" and depth >= max_depth:
            continue
        else:
            out[key] = _strip(value, depth=depth, max_depth=max_depth)
    return out


def _nullable_object(node: Mapping[str, Any]) -> dict[str, Any] | None:
    """The object of `{"anyOf": [{"type": "null"}, {"type": "object", ...}]}` (either order), else None."""
    options = node.get("anyOf")
    if not isinstance(options, list) or len(options) != 2 or {"type": "null"} not in options:
        return None
    other = options[1] if options[0] == {"type": "null"} else options[0]
    if not (isinstance(other, dict) and other.get("type") == "object"):
        return None
    return {**{k: v for k, v in node.items() if k != "anyOf"}, **other}


def _shared(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "array"} if schema.get("type") == "array" else {"type": "object"}


def _strip_input(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip_input(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _UNLISTED_INPUT_KEYWORDS or (key == "required" and value == []):
            continue
        out[key] = {name: _strip_input(prop) for name, prop in value.items()} if key == "properties" \
            else _strip_input(value)
    return out


# --------------------------------------------------------------------------- argument bounds

# Every array and string argument has a size bound, so the argument check refuses an oversized value
# cheaply, before any work (issue 16: a 240,000-item array once stalled the server). A built-in tool
# states its own bound (the most values or characters the platform can use; the site shows it), and the
# catalog refuses one that does not. A third party's schema cannot be edited: its arrays and strings
# without a bound get these.
REMOTE_MAX_ITEMS = 100
REMOTE_MAX_LENGTH = 10_000
# Where a schema nests the schemas of an argument's parts (a list's items, an object's fields) and where it
# adds more conditions on the same value.
_PARTS = ("items", "additionalProperties", "contains", "unevaluatedItems", "unevaluatedProperties")
_PART_LISTS = ("prefixItems",)
_PART_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SAME_VALUE = ("not", "if", "then", "else")
_SAME_VALUE_LISTS = ("anyOf", "oneOf", "allOf")


def _admits(node: Mapping[str, Any], kind: str) -> bool:
    """Whether a schema node lets a value of JSON type `kind` through without an enum or const fixing it."""
    if "enum" in node or "const" in node:
        return False
    declared = node.get("type")
    return declared is None or declared == kind or (isinstance(declared, list) and kind in declared)


def _children(node: Mapping[str, Any], path: str) -> Iterator[tuple[str, Any]]:
    """The schemas nested in `node` with the parameter path each applies to (`media[]`, `filter.name`)."""
    for key in _PARTS:
        if isinstance(node.get(key), Mapping):
            yield (f"{path}[]" if "Items" in key or key in ("items", "contains") else f"{path}.*"), node[key]
    for key in _PART_LISTS:
        for sub in node.get(key) or ():
            yield f"{path}[]", sub
    for key in _PART_MAPS:
        for name, sub in (node.get(key) or {}).items():
            yield (f"{path}.{name}" if path else name), sub
    for key in _SAME_VALUE:
        if isinstance(node.get(key), Mapping):
            yield path, node[key]
    for key in _SAME_VALUE_LISTS:
        for sub in node.get(key) or ():
            yield path, sub


def _walk(node: Any, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    if isinstance(node, Mapping):
        yield path, node
        for child_path, child in _children(node, path):
            yield from _walk(child, child_path)


def unbounded_arguments(schema: Mapping[str, Any]) -> list[str]:
    """The parameters of an input schema that admit an array without `maxItems` or a string without `maxLength`."""
    found = []
    for path, node in _walk(schema, ""):
        if _admits(node, "array") and "maxItems" not in node and (path or node.get("type") == "array"):
            found.append(f"'{path}' (an array without maxItems)")
        if _admits(node, "string") and "maxLength" not in node and (path or node.get("type") == "string"):
            found.append(f"'{path}' (a string without maxLength)")
    return found


def capped_input_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` with REMOTE_MAX_ITEMS / REMOTE_MAX_LENGTH on every array and string argument that has no bound."""
    def cap(node: Any, path: str) -> Any:
        if not isinstance(node, Mapping):
            return node
        nested = {id(child): child_path for child_path, child in _children(node, path)}
        out = {key: _recap(value, nested, cap) for key, value in node.items()}
        if path:  # the root is the arguments object itself
            if _admits(node, "array") and "maxItems" not in node:
                out["maxItems"] = REMOTE_MAX_ITEMS
            if _admits(node, "string") and "maxLength" not in node:
                out["maxLength"] = REMOTE_MAX_LENGTH
        return out
    capped: dict[str, Any] = cap(schema, "")  # a mapping comes back as a dict
    return capped


def _recap(value: Any, nested: Mapping[int, str], cap: Callable[[Any, str], Any]) -> Any:
    """`value` (one keyword's value) with each nested schema in it capped."""
    if id(value) in nested:
        return cap(value, nested[id(value)])
    if isinstance(value, list):
        return [cap(item, nested[id(item)]) if id(item) in nested else item for item in value]
    if isinstance(value, Mapping) and any(id(sub) in nested for sub in value.values()):
        return {name: cap(sub, nested[id(sub)]) if id(sub) in nested else sub for name, sub in value.items()}
    return value


# --------------------------------------------------------------------------- building


def load_plugins(registry: Registry) -> dict[str, PlatformPlugin]:
    """Import `proxy.platforms.<key>` for every built-in platform once and check its `PLATFORM`, naming what is
    missing. Remote connectors' plug-ins come from their server's listing (`proxy.remote`)."""
    return {key: load_plugin(key) for key, platform in registry.platforms.items() if platform.remote is None}


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

    cross = tuple(_meta_tool(registry.meta_tools[name]) for name in CROSS_TOOL_NAMES)
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
        # search and fetch where a source here has a search or read route (a remote server's tools have none).
        routed = any(plugins[p].search_route is not None for p in platforms if p in plugins)
        served = (*tools, *(cross if routed else ()), *meta)
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
        remote = registry.platforms[connector.platform].remote is not None
        _check_schemas(f"{module}: tool '{impl.name}'", impl, bounded=not remote)
        input_schema = capped_input_schema(impl.input_schema) if remote else impl.input_schema
        tools.append(CatalogTool(
            name=words.name, title=words.title, words=words, platform=connector.platform,
            input_schema=_worded(f"connectors[{index}].tools[{j}].params", input_schema, words),
            output_schema=impl.output_schema, impl=impl,
            open_world=impl.open_world,
        ))
    registered = {w.name for w in connector.tools}
    for impl in impls:
        if impl.name not in registered:
            raise CatalogError(f"{module}: tool '{impl.name}' has no registry entry in connectors[{index}] "
                               f"('{connector.slug}')")
    return tuple(tools)


def _check_schemas(where: str, impl: ToolImpl, *, bounded: bool = True) -> None:
    for kind, schema in (("inputSchema", impl.input_schema), ("outputSchema", impl.output_schema)):
        if schema.get("type") != "object":
            raise CatalogError(f"{where}: {kind} must have an object root")
        problem = _schema_problem(json.dumps(schema, sort_keys=True))
        if problem:
            raise CatalogError(f"{where}: {kind} is not valid JSON Schema: {problem}")
    if bounded:
        _check_bounded(where, impl.input_schema)
    listed, problem = is_result_list(impl.output_schema)
    if listed and problem:
        raise CatalogError(f"{where}: not admitted (Zoekprecisie): {problem}")


def _check_bounded(where: str, schema: Mapping[str, Any]) -> None:
    unbounded = unbounded_arguments(schema)
    if unbounded:
        raise CatalogError(f"{where}: inputSchema leaves {', '.join(unbounded)}: give each the most values or "
                           "characters the platform can use (the argument check refuses more before any work)")


@functools.lru_cache(maxsize=4096)
def _schema_problem(schema_json: str) -> str | None:
    """Check a schema against the 2020-12 meta-schema once per distinct schema (catalogs repeat them)."""
    return meta_schema_problem(json.loads(schema_json))


def _aggregate_tools(registry: Registry, sources: Sequence[Connector],
                     source_tools: Mapping[str, tuple[CatalogTool, ...]]) -> tuple[CatalogTool, ...]:
    owners: dict[str, str] = {name: "meta tool" for name in (*CROSS_TOOL_NAMES, *META_TOOL_NAMES)}
    tools = []
    for connector in sources:
        assert connector.platform is not None
        platform = registry.platforms[connector.platform]
        for tool in source_tools[connector.slug]:
            name = aggregate_name(platform.prefix, tool.name)
            owner = f"connector '{connector.slug}' tool '{tool.name}'"
            if name in owners:
                raise CatalogError(f"aggregate tool name '{name}' collides: {owners[name]} and {owner}")
            if problem := name_problem(tool.name, platform.prefix):
                raise CatalogError(f"{owner}: {problem}")
            owners[name] = owner
            title = Text(nl=f"{platform.title.nl}: {tool.title.nl}", en=f"{platform.title.en}: {tool.title.en}")
            tools.append(CatalogTool(
                name=name, title=title, words=tool.words, platform=tool.platform, input_schema=tool.input_schema,
                output_schema=tool.output_schema, impl=tool.impl, open_world=tool.open_world,
            ))
        renames = MappingProxyType({t.name: f"{platform.prefix}_{t.name}" for t in source_tools[connector.slug]})
        for i in range(len(tools) - len(source_tools[connector.slug]), len(tools)):
            tool = dataclasses.replace(tools[i], renames=renames)
            tools[i] = dataclasses.replace(tool, input_schema=_localised(tool.input_schema, tool.localise),
                                           output_schema=_localised(tool.output_schema, tool.localise))
    return tuple(tools)


_TOOL_NAME = re.compile(r"(?<![A-Za-z0-9_])[a-z][a-z0-9_]*(?![A-Za-z0-9_])")


def _localised(schema: Any, localise: Callable[[str], str]) -> Any:
    """A schema whose descriptions name tools as the address calls them."""
    if isinstance(schema, Mapping):
        return {key: localise(value) if key == "description" and isinstance(value, str) else _localised(value, localise)
                for key, value in schema.items()}
    if isinstance(schema, list):
        return [_localised(item, localise) for item in schema]
    return schema


def _meta_tool(words: ToolWords) -> CatalogTool:
    input_schema, output_schema = META_SCHEMAS[words.name]
    _check_bounded(f"proxy/results/meta_schemas.py: tool '{words.name}'", input_schema)
    cross = words.name in CROSS_TOOL_NAMES
    return CatalogTool(name=words.name, title=words.title, words=words, platform=None,
                       input_schema=_worded(f"meta_tools.{words.name}.params", input_schema, words),
                       output_schema=output_schema, impl=None, open_world=cross, cross=cross)


def _worded(where: str, schema: Mapping[str, Any], words: ToolWords) -> Mapping[str, Any]:
    """The input schema as listed: each parameter described in the registry's Dutch words (one language per
    listing); a word for a parameter the schema does not have is refused, naming it."""
    if not words.params:
        return schema
    properties = dict(schema.get("properties", {}))
    for name, text in words.params.items():
        if name not in properties:
            known = ", ".join(properties) or "none"
            raise CatalogError(f"{where}.{name}: the tool has no parameter '{name}' (its parameters: {known})")
        properties[name] = {**properties[name], "description": text.nl}
    return {**schema, "properties": properties}
