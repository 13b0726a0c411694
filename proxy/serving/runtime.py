"""The live state of one server process: what outlives reloads, and a pointer to the current generation.

`Runtime.apply` builds a generation's endpoints aside and swaps one pointer, in one synchronous
step: a request sees either the old generation or the new one, never a mix, and a request already
running finishes on the generation (tools, settings, upstream limits) it started on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from proxy.catalog.generation import Generation, PluginFactory, load_generation, rebind_remotes
from proxy.core.errors import BesluitBronError
from proxy.core.trace import TraceSigner
from proxy.observe.metrics import Metrics
from proxy.plugin.upstream import Upstream
from proxy.registry.model import load_registry
from proxy.remote.hub import RemoteHub
from proxy.results.sample import SampleData
from proxy.serving.endpoint import ConnectorEndpoint
from proxy.state.store import StateStore

__all__ = ["Runtime"]

log = logging.getLogger(__name__)


class Runtime:
    """Shared services (state store, trace signer, upstream connections) and the current generation."""

    def __init__(self, *, store: StateStore, base_urls: Mapping[str, str] | None = None,
                 signer: TraceSigner | None = None, plugins: PluginFactory | None = None,
                 sample: SampleData | None = None, metrics: Metrics | None = None) -> None:
        self.store = store
        self.metrics = metrics or Metrics()  # the app's own registry; a fresh one for tools and tests
        self.sample = sample  # answering from the offline replicas: every result says so
        self.base_urls = dict(base_urls or {})
        self.signer = signer or TraceSigner()
        self._plugins = plugins
        self.remote = RemoteHub(store)  # remote connectors: clients, last good listings (outlive generations)
        self.remote.on_withdraw = lambda: self.apply(rebind_remotes(self.generation, self.remote))
        self._upstreams: dict[str, Upstream] = {}
        self._current: tuple[Generation, Mapping[str, ConnectorEndpoint]] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.last_refusal = ""  # why the last registry load was refused (for /health)

    @property
    def generation(self) -> Generation:
        assert self._current is not None, "Runtime.apply was never called"
        return self._current[0]

    def load(self, registry_path: Path) -> Generation:
        """Load and check a registry without touching what is served; raises on any problem."""
        return load_generation(registry_path, base_urls=self.base_urls, plugins=self._plugins, remote=self.remote)

    async def refresh_remote(self, registry_path: Path) -> bool:
        """List the remote connectors' servers again (start, maintainer's reload); False when there are none."""
        try:
            return await self.remote.refresh(load_registry(registry_path))
        except BesluitBronError:
            return False  # the registry itself is broken: try_load reports it

    def try_load(self, registry_path: Path) -> Generation | None:
        """Load a new registry; on failure log it and keep serving the last good one."""
        try:
            return self.load(registry_path)
        except BesluitBronError as exc:
            log.error("registry reload refused, still serving the previous one:\n%s", exc)
            self.last_refusal = str(exc)
            return None

    def apply(self, generation: Generation, site_dir: Path | None = None) -> Generation:
        """Serve `generation` (and `site_dir`) from now on. Synchronous: nothing interleaves with the swap."""
        upstreams = {}
        for key, platform in generation.registry.platforms.items():
            previous = self._upstreams.get(key)
            upstreams[key] = (previous.with_platform(platform) if previous else
                              Upstream(platform, store=self.store, metrics=self.metrics.platform(key)))
        keep_site = site_dir if site_dir is not None else (self.generation.site_dir if self._current else None)
        bound = generation.bind(upstreams, keep_site, self.sample.recording_days() if self.sample else None)
        endpoints = MappingProxyType({slug: ConnectorEndpoint(c, bound, store=self.store, signer=self.signer,
                                                        sample=self.sample, metrics=self.metrics)
                                      for slug, c in bound.catalog.connectors.items()})
        self._upstreams = upstreams
        self._current = (bound, endpoints)
        return bound

    def endpoint(self, slug: str) -> ConnectorEndpoint | None:
        assert self._current is not None, "Runtime.apply was never called"
        return self._current[1].get(slug)

    def start_task(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run background work owned by this runtime; cancelled on close."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.remote.close()
        for upstream in self._upstreams.values():
            await upstream.close()  # generations share one connection per platform
        await self.store.close()
