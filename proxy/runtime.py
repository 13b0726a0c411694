"""What changes together on a reload: registry, catalogue, endpoints, upstream settings and site.

`Runtime.apply` swaps all of them in one synchronous step, so a request sees either the old set or
the new one, never a mix; requests already running finish on the objects they started with.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proxy.catalog import Catalog, build_catalog
from proxy.endpoint import ConnectorEndpoint
from proxy.errors import BesluitBronError, ToolInputError
from proxy.loadstatus import failed_status
from proxy.mcp_http import verify_trace_handle
from proxy.meta_schemas import TRACE_META_KEY
from proxy.registry import Registry, load_registry
from proxy.state import StateStore
from proxy.toolkit import PlatformContext
from proxy.upstream import Upstream

__all__ = ["Runtime", "Snapshot"]

log = logging.getLogger(__name__)
JsonDict = dict[str, Any]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One consistent generation: a catalogue, its endpoints and (optionally) its built site."""

    catalog: Catalog
    endpoints: Mapping[str, ConnectorEndpoint]
    site_dir: Path | None


class Runtime:
    """The live state of one server process."""

    def __init__(self, *, store: StateStore, base_urls: Mapping[str, str] | None = None,
                 trace_secret: bytes = b"") -> None:
        self.store = store
        self.base_urls = dict(base_urls or {})
        self.trace_secret = trace_secret
        self.upstreams: dict[str, Upstream] = {}
        self._snapshot: Snapshot | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # ----------------------------------------------------------------------- generations

    @property
    def snapshot(self) -> Snapshot:
        assert self._snapshot is not None, "Runtime.apply was never called"
        return self._snapshot

    @property
    def catalog(self) -> Catalog:
        return self.snapshot.catalog

    def prepare(self, registry_path: Path) -> Catalog:
        """Load and check a registry without touching what is served; raises on any problem."""
        registry = load_registry(registry_path)
        if self.base_urls:
            registry = registry.with_base_urls(self.base_urls)
        return build_catalog(registry)

    def apply(self, catalog: Catalog, site_dir: Path | None = None) -> None:
        """Serve `catalog` (and `site_dir`) from now on. Synchronous: nothing interleaves with the swap."""
        for key, platform in catalog.registry.platforms.items():
            upstream = self.upstreams.get(key)
            if upstream is None:
                self.upstreams[key] = Upstream(platform, store=self.store)
            else:
                upstream.platform = platform  # limits, timeouts and TTL follow the new registry
        endpoints = {slug: ConnectorEndpoint(c, self) for slug, c in catalog.connectors.items()}
        keep_site = site_dir if site_dir is not None else (self._snapshot.site_dir if self._snapshot else None)
        self._snapshot = Snapshot(catalog=catalog, endpoints=endpoints, site_dir=keep_site)

    def try_reload(self, registry_path: Path) -> Catalog | None:
        """Prepare a new registry; on failure log it and keep serving the last good one."""
        try:
            return self.prepare(registry_path)
        except BesluitBronError as exc:
            log.error("registry reload refused, still serving the previous one:\n%s", exc)
            return None

    # ----------------------------------------------------------------------- lookups

    def endpoint(self, slug: str) -> ConnectorEndpoint | None:
        return self.snapshot.endpoints.get(slug)

    def context(self, platform_key: str) -> PlatformContext:
        upstream = self.upstreams[platform_key]
        return PlatformContext(platform=upstream.platform, upstream=upstream, now=utc_now,
                               stalled_after_days=self.catalog.registry.load_status.stalled_after_days)

    def served_platforms(self) -> dict[str, PlatformContext]:
        """Platforms behind enabled source connectors: only those are measured and reported."""
        registry: Registry = self.catalog.registry
        keys = [c.platform for c in registry.enabled_connectors() if c.platform]
        return {k: self.context(k) for k in keys}

    def caller_for(self, caller: str, arguments: Mapping[str, Any]) -> str:
        """The call log to read: an explicit, validly signed `trace` argument wins over the transport's."""
        trace = arguments.get("trace")
        if trace is None:
            return caller
        if not verify_trace_handle(str(trace), self.trace_secret):
            raise ToolInputError("trace is not a handle this server issued; pass the value of "
                                 f"_meta['{TRACE_META_KEY}'] from one of your own tool results")
        return f"trace:{trace}"

    async def source_status(self, key: str, *, organs: str = "all") -> JsonDict:
        """The stored load status of one source; `organs` = all | stalled | none."""
        platform = self.upstreams[key].platform  # upstreams outlive reloads, so a concurrent swap cannot lose it
        status = await self.store.load_status(key)
        if status is None:
            status = failed_status(platform, "", measured_at=utc_now())
            status.update(measured_at=None, reason="not measured yet: the first measurement is still running")
        all_organs = status.pop("organs", [])
        if organs == "all":
            status["organs"] = all_organs
        elif organs == "stalled":
            status["stalled_organs"] = [o for o in all_organs if o["stalled"]]
        return status

    def start_task(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run background work owned by this runtime; cancelled on close."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for upstream in self.upstreams.values():
            await upstream.close()
        await self.store.close()
