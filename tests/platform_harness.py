"""The harness of the platform adapter tests: one platform's replica on a loopback port, the adapter
pointed at it, and every request that went over the wire.

    async with platform_harness("wetten", NOW) as h:
        result = await h.call("search_regulations", title="wet bestuursrecht")
        h.requests            # what that call sent, in order (each call starts it afresh)
        h.faults.update({"error_rate": 1.0})

or, for a fixture `env` with a new harness for every test of a module, `env = harness_fixture("wetten", NOW)`.

The replica's data is anchored at `now.date()` and the adapter's clock stands at `now`. Each harness
has its own replica, registry, store and cache; calls share `h.ctx` unless given another context
(`h.context(...)`), so a repeated call may be answered from the cache without a request. `reset()`
starts a harness over for the next test.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from proxy.catalog.build import load_plugin
from proxy.core.caller import Caller
from proxy.plugin.toolkit import PlatformContext, ToolCall, ToolImpl
from proxy.plugin.upstream import Upstream
from proxy.registry.model import Platform, Registry, load_registry
from proxy.replica import FAULTS, create_replicas_app, replica_base_urls
from proxy.replica.faults import Faults
from proxy.state.store import MemoryStore
from tests.conftest import REGISTRY, listen

__all__ = ["PlatformHarness", "Seen", "harness_fixture", "platform_harness"]


@dataclass(frozen=True)
class Seen:
    """One request as the replica received it."""

    method: str
    path: str
    raw_path: str  # path and query string as sent, still percent-encoded
    pairs: list[tuple[str, str]]  # the query string decoded, in order, repeated names kept
    headers: dict[str, str]
    body: Any  # a JSON body decoded, any other body as text, None without one

    @property
    def query(self) -> dict[str, str]:
        return dict(self.pairs)


def _recorder(requests: list[Seen]) -> Middleware:
    @web.middleware
    async def record(request: web.Request, handler: Handler) -> web.StreamResponse:
        raw = await request.read()  # aiohttp keeps the body, so the replica can read it again
        requests.append(Seen(method=request.method, path=request.path, raw_path=request.raw_path,
                             pairs=list(request.query.items()), headers=dict(request.headers), body=_decoded(raw)))
        return await handler(request)

    return record


def _decoded(raw: bytes) -> Any:
    if not raw:
        return None
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


class PlatformHarness:
    """One platform's adapter against its replica; see the module docstring."""

    def __init__(self, key: str, now: datetime, app: web.Application, url: str, registry: Registry,
                 requests: list[Seen]) -> None:
        self.key = key
        self.now = now
        self.app = app  # the root app: the replica is mounted under /<key>
        self.url = url
        self.registry = registry
        self.requests = requests  # filled by the replica app's recording middleware
        self.tools: dict[str, ToolImpl] = {t.name: t for t in load_plugin(key).tools}
        self._opened: list[Upstream] = []
        self.ctx = self.context()

    @property
    def platform(self) -> Platform:
        return self.registry.platforms[self.key]

    @property
    def faults(self) -> Faults:
        return self.app[FAULTS][self.key]

    @property
    def replica(self) -> web.Application:
        """The platform's own replica app, for the test hooks it offers."""
        return next(r.get_info()["app"] for r in self.app.router.resources() if "app" in r.get_info())

    def context(self, **changes: Any) -> PlatformContext:
        """A new context (its own upstream, store and cache) on this platform, its settings changed by `changes`."""
        platform = dataclasses.replace(self.platform, **changes)
        registry = dataclasses.replace(self.registry, platforms={**self.registry.platforms, self.key: platform})
        upstream = Upstream(platform, store=MemoryStore())
        self._opened.append(upstream)
        return PlatformContext.of(registry, self.key, upstream, now=lambda: self.now)

    async def call(self, tool: str, /, *, ctx: PlatformContext | None = None, check_input: bool = True,
                   **arguments: Any) -> dict[str, Any]:
        """Call `tool` as the dispatcher would (arguments valid for its input schema unless `check_input` is
        False), check its output against its output schema. `requests` holds what this call sent."""
        impl = self.tools[tool]
        if check_input:
            jsonschema.validate(arguments, impl.input_schema)
        self.requests.clear()
        call = ToolCall(tool=tool, arguments=arguments, caller=Caller.session("test"), ctx=ctx or self.ctx)
        result = await impl.handler(call)
        jsonschema.validate(result, impl.output_schema)
        return result

    def only_request(self) -> Seen:
        assert len(self.requests) == 1, [s.raw_path for s in self.requests]
        return self.requests[0]

    async def reset(self) -> None:
        """Start over: no requests seen, no faults, a new context with an empty cache."""
        await self.close()
        self.requests.clear()
        self.faults.clear()
        self.ctx = self.context()

    async def close(self) -> None:
        for upstream in self._opened:
            await upstream.close()
        self._opened.clear()


@contextlib.asynccontextmanager
async def platform_harness(key: str, now: datetime, registry_path: Path = REGISTRY) -> AsyncIterator[PlatformHarness]:
    """Serve the replica of platform `key` (anchored at `now`) and point a harness at it (the platform as
    `registry_path` describes it: the shipped registry, or a copy naming a platform added as a plug-in)."""
    app = create_replicas_app([key], anchor=now.date(), fixtures=True)
    requests: list[Seen] = []
    app.middlewares.append(_recorder(requests))
    runner, url = await listen(app)
    registry = load_registry(registry_path)
    registry = registry.with_base_urls(replica_base_urls({k: p.base_url for k, p in registry.platforms.items()}, url))
    harness = PlatformHarness(key, now, app, url, registry, requests)
    try:
        yield harness
    finally:
        await harness.close()
        await runner.cleanup()


def harness_fixture(key: str, now: datetime) -> Any:
    """A fixture giving each test its own harness of platform `key`; bind it to the fixture's name in a test module."""

    @pytest.fixture
    async def fixture() -> AsyncIterator[PlatformHarness]:
        async with platform_harness(key, now) as harness:
            yield harness

    return fixture
