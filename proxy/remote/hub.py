"""What a server process keeps of its remote connectors between generations.

Per remote connector: its client (with the credential, read when the registry is applied), the
last good tool listing, the tools withdrawn since, and why a connector is off. `refresh` runs at
start and at every maintainer's reload: it lists each server again (a failed listing keeps the last
good one), so a changed remote tool list takes effect only then. A tool that loses its read-only
mark in between (seen by the Laadstatus probe) is withdrawn at once. A connector removed from the
registry loses its client, and with it the credential, at the next refresh.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable, Collection, Mapping
from typing import Any

import mcp_types

from proxy.core.caller import SYSTEM_CALLER
from proxy.core.clock import utc_now
from proxy.core.errors import UpstreamError
from proxy.registry.model import Platform, Registry
from proxy.remote.client import MissingCredential, RemoteClient, credential_headers
from proxy.remote.plugin import Listing, select
from proxy.remote.transport import Resolver
from proxy.state.store import StateStore

__all__ = ["RemoteHub", "list_once"]

log = logging.getLogger(__name__)


class RemoteHub:
    """Clients, last good listings, withdrawals and off-reasons of one process's remote connectors."""

    def __init__(self, store: StateStore, *, environ: Mapping[str, str] | None = None,
                 resolver: Resolver | None = None) -> None:
        self._store = store
        self._environ = environ
        self._resolver = resolver
        self._clients: dict[str, tuple[tuple[Any, ...], RemoteClient]] = {}
        self._listings: dict[str, Listing] = {}
        self._withdrawn: dict[str, set[str]] = {}
        self._off: dict[str, str] = {}
        self._retiring: dict[asyncio.Task[None], RemoteClient] = {}
        self.on_withdraw: Callable[[], object] | None = None  # the runtime re-applies its generation without them

    # ----------------------------------------------------------------------- RemoteSource

    def listing(self, key: str) -> Listing | None:
        return self._listings.get(key)

    def client(self, key: str) -> RemoteClient | None:
        entry = self._clients.get(key)
        return entry[1] if entry else None

    def off_reason(self, key: str) -> str | None:
        return self._off.get(key)

    def withdrawn(self, key: str) -> Collection[str]:
        return self._withdrawn.get(key, ())

    def observe(self, key: str, platform: Platform, tools: list[mcp_types.Tool]) -> None:
        """A fresh listing seen between reloads: withdraw at once every served tool that lost its read-only mark."""
        listing = self._listings.get(key)
        if listing is None:
            return
        served = {tool.name for _, tool in select(platform, listing, self.withdrawn(key)).served}
        now = {t.name: t for t in tools}
        lost = sorted(name for name in served if name in now and not (
            (notes := now[name].annotations) and notes.read_only_hint is True))
        for name in lost:
            self._withdrawn.setdefault(key, set()).add(name)
            log.warning("remote connector %s: tool %s withdrawn: the server no longer marks it read-only", key, name)
        if lost and self.on_withdraw is not None:
            self.on_withdraw()

    def snapshot(self) -> dict[str, Any]:
        """Listings and off-reasons as JSON, for a site build that must show what this server serves."""
        return {"listings": {k: v.to_json() for k, v in self._listings.items()},
                "withdrawn": {k: sorted(v) for k, v in self._withdrawn.items() if v},
                "off": dict(self._off)}

    # ----------------------------------------------------------------------- lifecycle

    async def refresh(self, registry: Registry) -> bool:
        """(Re)connect and list every enabled remote connector of `registry`; False if it has none."""
        policy = registry.server.address_policy()
        wanted = {c.slug: registry.platforms[c.slug] for c in registry.connectors if c.remote and c.enabled}
        for key in list(self._clients):
            if key not in wanted:
                self._retire(key)
                self._listings.pop(key, None)
                self._withdrawn.pop(key, None)
        self._off = {}
        for key, platform in wanted.items():
            assert platform.remote is not None
            try:
                headers = credential_headers(platform.remote.auth, self._environ)
            except MissingCredential as exc:
                self._off[key] = f"{exc}; set it and reload"
                self._retire(key)
                log.error("remote connector %s is off: %s; set it and reload (the other connectors serve)", key, exc)
                continue
            digest = hashlib.sha256(json.dumps(headers, sort_keys=True).encode()).hexdigest()
            fingerprint = (platform, policy, digest)
            current = self._clients.get(key)
            if current is not None and current[0] == fingerprint:
                continue
            if current is not None and current[0][0].remote != platform.remote:
                self._listings.pop(key, None)  # another server (or allow-list): the old listing says nothing of it
            self._retire(key)
            self._clients[key] = (fingerprint, RemoteClient(platform, policy=policy, store=self._store,
                                                            environ=self._environ, resolver=self._resolver))
        await asyncio.gather(*(self._list(key, platform) for key, platform in wanted.items() if key in self._clients))
        return bool(wanted) or bool(self._off)

    async def _list(self, key: str, platform: Platform) -> None:
        assert platform.remote is not None
        client = self._clients[key][1]
        try:
            listed = await client.list_tools(SYSTEM_CALLER, keep={t.name for t in platform.remote.tools})
        except UpstreamError as exc:
            kept = self._listings.get(key)
            keeps = (f"keeping the listing of {kept.listed_at}" if kept else
                     "it serves no tools until a listing succeeds (reload to retry)")
            log.warning("remote connector %s: listing its tools failed (%s); %s", key, exc, keeps)
            return
        listing = Listing(tools=listed.tools, listed_at=utc_now().isoformat(timespec="seconds"), listed=listed.seen,
                          others=listed.others, complete=listed.complete)
        self._listings[key] = listing
        self._withdrawn[key] = set()  # a maintainer's reload lists afresh
        selection = select(platform, listing)
        own = [f"{name} ({reason})" for name, reason in selection.refused if name in {t.name for t in
                                                                                       platform.remote.tools}]
        # One line per listing, however long the server's list: what is served, and what of the allow-list is not.
        log.log(logging.WARNING if own or not listed.complete else logging.INFO,
                "remote connector %s: %d tools listed on %d pages%s; serving %s%s; %d not on the allow-list%s", key,
                listed.seen, listed.pages, "" if listed.complete else " (cut off there)",
                ", ".join(t.name for _, t in selection.served) or "no tools",
                f"; not serving {'; '.join(own)}" if own else "", listing.not_allowed,
                f" ({', '.join(listed.others)}{', …' if listing.not_allowed > len(listed.others) else ''})"
                if listed.others else "")

    def _retire(self, key: str) -> None:
        """Close a client once calls that started on it had their time: the credential goes with it."""
        entry = self._clients.pop(key, None)
        if entry is None:
            return
        client = entry[1]

        async def later() -> None:
            await asyncio.sleep(client.platform.timeouts.total_seconds + 1)
            await client.close()

        task = asyncio.create_task(later())
        self._retiring[task] = client
        task.add_done_callback(lambda t: self._retiring.pop(t, None))

    async def close(self) -> None:
        retiring = dict(self._retiring)
        for task in retiring:
            task.cancel()
        await asyncio.gather(*retiring, return_exceptions=True)
        for client in [*retiring.values(), *(entry[1] for entry in self._clients.values())]:
            await client.close()
        self._clients.clear()
        self._listings.clear()


async def list_once(registry: Registry) -> dict[str, Any]:
    """Every enabled remote connector's listing, fetched once, as the snapshot a site build is handed
    (`SiteInput.remote`): what a stand-alone build of a registry with remote connectors passes in."""
    from proxy.state.store import MemoryStore  # only this stand-alone listing keeps a store of its own

    store = MemoryStore()
    hub = RemoteHub(store)
    try:
        await hub.refresh(registry)
        return hub.snapshot()
    finally:
        await hub.close()
        await store.close()
