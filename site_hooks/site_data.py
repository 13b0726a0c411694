"""The site's view of the one catalog. Pure: no mkdocs import.

`load_site_data` calls `load_generation(path)`, exactly as the server does, with what the server
handed over (`SiteInput`: its load measurement and remote listings) as data, and every generated
page reads connectors, addresses, tools, titles and descriptions from the result. This module only
adds where pages live (site_params.py reads a tool's input schema as a parameter table).
"""

from __future__ import annotations

import importlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from proxy.catalog.build import Catalog, CatalogConnector, CatalogTool
from proxy.catalog.generation import Generation, PluginFactory, load_generation
from proxy.catalog.site_input import SiteInput
from proxy.registry.model import Platform, Registry
from proxy.remote.sources import OFFLINE, StaticSource
from proxy.results.outputs import is_result_list
from site_hooks.site_status import StatusSnapshot, parse_status_snapshot

__all__ = [
    "CONNECTOR_DIR",
    "DEFAULT_LANG",
    "LANGS",
    "PLATFORM_DIR",
    "SiteData",
    "connector_src",
    "load_site_data",
    "platform_src",
    "rel_link",
    "resolve_plugins",
    "returns_result_list",
]

LANGS: tuple[str, ...] = ("nl", "en")
DEFAULT_LANG = "nl"
# Connection pages live at connectoren/<slug>.md and platform pages at bronplatforms/<key>.md,
# never at /<slug>/: that path belongs to the MCP endpoint on the same origin.
CONNECTOR_DIR = "connectoren"
PLATFORM_DIR = "bronplatforms"



NOTHING_HANDED_OVER = SiteInput()  # a stand-alone build: the registry alone


def connector_src(slug: str) -> str:
    return f"{CONNECTOR_DIR}/{slug}.md"


def platform_src(key: str) -> str:
    return f"{PLATFORM_DIR}/{key}.md"


def rel_link(from_src: str, to_src: str) -> str:
    """A relative Markdown link from one source page to another, which mkdocs then validates."""
    return posixpath.relpath(to_src, posixpath.dirname(from_src) or ".")


@dataclass(frozen=True, slots=True)
class SiteData:
    """Everything a build renders: the generation (catalog) plus the optional load-status snapshot.

    The connector lists are derived once: every page asks for them (the aggregate, a platform's
    connector), and deriving them per question made the build quadratic in the registry's size."""

    generation: Generation
    status: StatusSnapshot | None
    connectors: tuple[CatalogConnector, ...] = field(init=False, repr=False, compare=False)
    aggregate: CatalogConnector | None = field(init=False, repr=False, compare=False)
    sources: tuple[CatalogConnector, ...] = field(init=False, repr=False, compare=False)
    _by_platform: Mapping[str, CatalogConnector] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        connectors = tuple(self.generation.catalog.connectors.values())
        sources = tuple(c for c in connectors if not c.connector.aggregate)
        object.__setattr__(self, "connectors", connectors)
        object.__setattr__(self, "aggregate", next((c for c in connectors if c.connector.aggregate), None))
        object.__setattr__(self, "sources", sources)
        by_platform: dict[str, CatalogConnector] = {}
        for c in sources:
            if c.connector.platform is not None:  # a source's connector names its platform
                by_platform.setdefault(c.connector.platform, c)
        object.__setattr__(self, "_by_platform", by_platform)

    @property
    def catalog(self) -> Catalog:
        return self.generation.catalog

    @property
    def registry(self) -> Registry:
        return self.catalog.registry

    @property
    def platforms(self) -> tuple[Platform, ...]:
        return tuple(self.registry.platforms.values())

    @property
    def footer(self) -> tuple[CatalogConnector, ...]:
        return tuple(c for c in self.connectors if c.connector.in_footer)

    @property
    def disabled_count(self) -> int:
        return len(self.catalog.disabled)

    def url(self, slug: str) -> str:
        return self.catalog.url(slug)

    def platform_connector(self, key: str) -> CatalogConnector | None:
        """The enabled source connector that serves platform `key`, if any."""
        return self._by_platform.get(key)

    def content_tools(self, connector: CatalogConnector) -> tuple[CatalogTool, ...]:
        """The source's own tools (search and fetch, on every address, are listed with the general ones)."""
        return tuple(t for t in connector.tools if t.impl is not None)

    def meta_tools(self, connector: CatalogConnector) -> tuple[CatalogTool, ...]:
        return tuple(t for t in connector.tools if t.impl is None)

    def aggregate_sources(self, aggregate: CatalogConnector) -> tuple[
            tuple[str, CatalogConnector, tuple[tuple[CatalogTool, CatalogTool], ...]], ...]:
        """Per source behind an aggregate, in its order: the platform key, the source connector, and
        pairs of (the aggregate's tool, the source's own tool). An aggregate tool carries its source
        tool's words, so the pair is found through those, not by taking the name's prefix apart."""
        by_platform = {c.connector.platform: c for c in self.sources}
        pairs: dict[str, list[tuple[CatalogTool, CatalogTool]]] = {key: [] for key in aggregate.platforms}
        for tool in self.content_tools(aggregate):
            assert tool.platform is not None
            own = by_platform[tool.platform].by_name[tool.words.name]
            if own.words is not tool.words:
                raise ValueError(f"aggregate tool '{tool.name}' does not match '{own.name}' of its source")
            pairs[tool.platform].append((tool, own))
        return tuple((key, by_platform[key], tuple(pairs[key])) for key in aggregate.platforms)

    def tool_count(self, connector: CatalogConnector) -> int:
        """The one count of tools per address, wherever the site names one: every tool a model sees there."""
        return len(connector.tools)

    def largest_source(self) -> int:
        """Tools at the address of the biggest single source: the yardstick for the aggregate's cost."""
        return max((self.tool_count(c) for c in self.sources), default=0)


def resolve_plugins(spec: str) -> PluginFactory:
    """Import the benchmark-only plug-in factory named as "module:function"."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"the site input's plugins must look like 'module:function', got {spec!r}")
    factory = getattr(importlib.import_module(module_name), attr, None)
    if not callable(factory):
        raise ValueError(f"the site input's plugins: {spec!r} is not a callable")
    return factory  # type: ignore[no-any-return]  # an attribute found by name: callable, its signature unchecked


def load_site_data(registry_path: Path, given: SiteInput = NOTHING_HANDED_OVER) -> SiteData:
    """Load the registry into a generation the way the server does, with what the server handed over."""
    status = parse_status_snapshot(given.status) if given.status is not None else None
    remote = StaticSource.from_snapshot(given.remote) if given.remote is not None else OFFLINE
    plugins = resolve_plugins(given.plugins) if given.plugins else None
    return SiteData(generation=load_generation(registry_path, plugins=plugins, remote=remote), status=status)


def returns_result_list(tool: CatalogTool) -> bool:
    """A tool whose output is a result list with the Zoekprecisie fields (the meta tools' lists are not)."""
    listed, problem = is_result_list(tool.output_schema)
    return listed and problem is None
