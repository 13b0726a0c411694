"""One applied registry, frozen: what a request, a measurement and a site build work from.

`load_generation` is the one way from a registry file to a catalog; the CLI, the server and the
site all call it. It is pure: it reads the registry and the plug-in modules, and nothing else (no
connection, no environment variable, no HTTP client imported). What only a running server knows
(its remote listings) is handed to it as `remote`. The server then binds the generation to its
upstream connections (`bind`), and a reload swaps one pointer: a request finishes on the
generation it started on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from proxy.catalog.build import Catalog, build_catalog, load_plugins
from proxy.core.clock import utc_now
from proxy.plugin.toolkit import PlatformContext, PlatformPlugin
from proxy.registry.model import DomainPolicy, Registry, ServerSettings, load_registry
from proxy.remote.sources import OFFLINE, RemoteSource, bind_remotes

if TYPE_CHECKING:
    from proxy.plugin.upstream import Upstream  # the server binds its connections; a catalog needs none

__all__ = ["Generation", "PluginFactory", "load_generation", "rebind_remotes"]

# Benchmarks and tests of synthetic registries: plug-ins for platforms that have no module of their own.
PluginFactory = Callable[[Registry], Mapping[str, PlatformPlugin]]


@dataclass(frozen=True, slots=True)
class Generation:
    """A catalog (registry + plug-ins) and, once bound by the server, a context per served platform."""

    catalog: Catalog
    contexts: Mapping[str, PlatformContext] = field(default_factory=lambda: MappingProxyType({}))
    site_dir: Path | None = None
    clock: Callable[[], datetime] = utc_now

    @property
    def registry(self) -> Registry:
        return self.catalog.registry

    @property
    def server(self) -> ServerSettings:
        return self.catalog.registry.server

    @property
    def domain_policy(self) -> DomainPolicy:
        return self.catalog.registry.domain_policy

    @property
    def plugins(self) -> Mapping[str, PlatformPlugin]:
        return self.catalog.plugins

    @property
    def served_platforms(self) -> tuple[str, ...]:
        """Platforms behind enabled source connectors: only those are measured, reported and called."""
        return tuple(key for c in self.catalog.connectors.values() if not c.connector.aggregate
                     for key in c.platforms)

    def context(self, key: str) -> PlatformContext:
        return self.contexts[key]

    def bind(self, upstreams: Mapping[str, Upstream], site_dir: Path | None,
             sample_on: Mapping[str, date] | None = None) -> Generation:
        """This generation with a context per served platform, each upstream under this generation's settings;
        `sample_on`: the recording day of each platform that answers from the offline sample."""
        sampled = sample_on or {}
        contexts = {key: dataclasses.replace(PlatformContext.of(self.registry, key, upstreams[key], self.clock),
                                             sample_on=sampled.get(key))
                    for key in self.served_platforms}
        return dataclasses.replace(self, contexts=MappingProxyType(contexts), site_dir=site_dir)


def load_generation(path: Path, *, base_urls: Mapping[str, str] | None = None,
                    plugins: PluginFactory | None = None, remote: RemoteSource = OFFLINE) -> Generation:
    """Read, validate and catalog one registry file; raises RegistryError/CatalogError naming the entry.

    Remote connectors take their tools from `remote`: the server's hub, or the listings a server handed
    its site build; by default none (`OFFLINE`), and they are shown without tools.
    """
    registry = load_registry(path)
    if base_urls:
        registry = registry.with_base_urls(base_urls)
    registry, remote_plugins = bind_remotes(registry, remote)
    builtin = plugins(registry) if plugins else load_plugins(registry)
    return Generation(catalog=build_catalog(registry, {**builtin, **remote_plugins}))


def rebind_remotes(generation: Generation, remote: RemoteSource) -> Generation:
    """`generation`'s registry with its remote connectors' tools taken from `remote` again: a tool withdrawn
    between reloads leaves the tool lists at once. Built-in plug-ins are kept as they are."""
    registry, remote_plugins = bind_remotes(generation.registry, remote)
    builtin = {key: plugin for key, plugin in generation.plugins.items() if key not in remote_plugins}
    return Generation(catalog=build_catalog(registry, {**builtin, **remote_plugins}), clock=generation.clock)
