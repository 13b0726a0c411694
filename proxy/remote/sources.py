"""Where a generation gets its remote connectors' listings, and how they join the registry.

`bind_remotes` is the step `load_generation` takes for remote connectors: it turns each one's
listing into the connector's tool words and a plug-in, so the catalog serves them like any other
platform. The listings come from a `RemoteSource`: the server's `RemoteHub` (live clients), the
snapshot a server hands to its site build (`SiteInput.remote`), or nothing at all (`OFFLINE`: a
stand-alone site build and `python -m proxy validate` list no remote server; they show the
connectors without their tools). Nothing here opens a connection: the clients arrive made.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from proxy.plugin.toolkit import PlatformPlugin
from proxy.registry.model import Connector, Platform, Registry
from proxy.remote.plugin import Listing, Selection, remote_plugin, select

if TYPE_CHECKING:
    import mcp_types

    from proxy.remote.client import RemoteClient

__all__ = ["OFFLINE", "RemoteSource", "StaticSource", "bind_remotes"]


class RemoteSource(Protocol):
    def listing(self, key: str) -> Listing | None: ...
    def client(self, key: str) -> RemoteClient | None: ...
    def off_reason(self, key: str) -> str | None: ...
    def withdrawn(self, key: str) -> Collection[str]: ...
    def observe(self, key: str, platform: Platform, tools: list[mcp_types.Tool]) -> None: ...


@dataclass(frozen=True)
class StaticSource:
    """Listings without clients: the tools are described (a site build) but not callable."""

    listings: Mapping[str, Listing] = field(default_factory=dict)
    off: Mapping[str, str] = field(default_factory=dict)
    withdrawals: Mapping[str, Collection[str]] = field(default_factory=dict)

    def listing(self, key: str) -> Listing | None:
        return self.listings.get(key)

    def client(self, key: str) -> RemoteClient | None:
        return None

    def off_reason(self, key: str) -> str | None:
        return self.off.get(key)

    def withdrawn(self, key: str) -> Collection[str]:
        return self.withdrawals.get(key, ())

    def observe(self, key: str, platform: Platform, tools: list[mcp_types.Tool]) -> None:
        return None

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> StaticSource:
        return cls(listings={k: Listing.from_json(v) for k, v in data.get("listings", {}).items()},
                   off=dict(data.get("off", {})), withdrawals={k: set(v) for k, v in data.get("withdrawn", {}).items()})


OFFLINE = StaticSource()


def bind_remotes(registry: Registry, source: RemoteSource) -> tuple[Registry, dict[str, PlatformPlugin]]:
    """The registry with each remote connector's tool words from its listing, and their plug-ins.
    A connector whose credential is missing is switched off (absent everywhere, like any switched-off one)."""
    if not any(c.remote for c in registry.connectors):
        return registry, {}
    plugins: dict[str, PlatformPlugin] = {}
    connectors: list[Connector] = []
    for connector in registry.connectors:
        if not connector.remote:
            connectors.append(connector)
            continue
        key = connector.slug
        platform = registry.platforms[key]
        listing = source.listing(key)
        selection = select(platform, listing, source.withdrawn(key)) if listing else Selection(served=(), refused=())
        words, plugin = remote_plugin(platform, selection, source.client(key), functools.partial(source.withdrawn, key),
                                      functools.partial(source.observe, key, platform))
        enabled = connector.enabled and source.off_reason(key) is None
        connectors.append(dataclasses.replace(connector, tools=words, enabled=enabled))
        plugins[key] = plugin
    return dataclasses.replace(registry, connectors=tuple(connectors)), plugins
