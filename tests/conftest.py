"""Shared fixtures: the real replicas and the real proxy on loopback ports, plus an SDK client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from mcp import Client

from proxy.registry.model import load_registry
from proxy.replica import FAULTS, create_replicas_app, replica_base_urls
from proxy.replica.faults import Faults
from proxy.results.sample import SampleData, replica_sample
from proxy.serving.runtime import Runtime
from proxy.web.app import RUNTIME, Config, create_app
from tests.redis_server import redis_server

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "registry.json"
MODES = ("legacy", "2026-07-28")


@dataclass
class Replicas:
    url: str
    app: web.Application
    base_urls: dict[str, str]

    def faults(self, key: str) -> Faults:
        return self.app[FAULTS][key]

    def clear_faults(self) -> None:
        for faults in self.app[FAULTS].values():
            faults.clear()


@dataclass
class LiveServer:
    base: str
    app: web.Application
    registry_path: Path

    @property
    def runtime(self) -> Runtime:
        return self.app[RUNTIME]

    def url(self, slug: str) -> str:
        return f"{self.base}/{slug}/mcp"


async def listen(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site.port}"


@pytest.fixture(scope="session")
async def replicas() -> AsyncIterator[Replicas]:
    registry = load_registry(REGISTRY)
    app = create_replicas_app(list(registry.platforms), anchor=date.today(), fixtures=True)
    runner, url = await listen(app)
    base_urls = replica_base_urls({k: p.base_url for k, p in registry.platforms.items()}, url)
    yield Replicas(url=url, app=app, base_urls=base_urls)
    await runner.cleanup()


@pytest.fixture(scope="session")
async def default_replicas() -> AsyncIterator[Replicas]:
    """The replicas as `make run` starts them: no test fixtures, no anchor on today."""
    registry = load_registry(REGISTRY)
    app = create_replicas_app(list(registry.platforms))
    runner, url = await listen(app)
    yield Replicas(url=url, app=app,
                   base_urls=replica_base_urls({k: p.base_url for k, p in registry.platforms.items()}, url))
    await runner.cleanup()


def connector_entry(data: dict[str, Any], slug: str) -> dict[str, Any]:
    """The registry entry of connector `slug` in decoded registry JSON, for a test that edits one connector."""
    found: dict[str, Any] | None = next((c for c in data["connectors"] if c["slug"] == slug), None)
    if found is None:
        raise KeyError(f"no connector {slug!r} in the registry; it has {[c['slug'] for c in data['connectors']]}")
    return found


def write_registry(tmp_path: Path, edit: Callable[[dict[str, Any]], None] | None = None,
                   name: str = "registry.json") -> Path:
    """A copy of the shipped registry, changed by `edit`, for a server or site variant."""
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    if edit:
        edit(data)
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


@contextlib.asynccontextmanager
async def serve(registry_path: Path, replicas: Replicas, **config: Any) -> AsyncIterator[LiveServer]:
    """Run the real application for `registry_path` against the replicas on a free port."""
    config.setdefault("measure_load", False)
    app = create_app(Config(registry_path=registry_path, base_urls=replicas.base_urls, **config))
    runner, base = await listen(app)
    try:
        yield LiveServer(base=base, app=app, registry_path=registry_path)
    finally:
        await runner.cleanup()


@contextlib.asynccontextmanager
async def serve_sample(replicas: Replicas, tmp_path: Path) -> AsyncIterator[tuple[LiveServer, SampleData]]:
    """The shipped registry served from `replicas` with the sample notice on, as `make run UPSTREAM=replica`."""
    path = tmp_path / "registry.json"
    shutil.copy(REGISTRY, path)
    sample = replica_sample(sorted(load_registry(REGISTRY).platforms))
    async with serve(path, replicas, sample=sample) as live:
        yield live, sample


@pytest.fixture
async def server(replicas: Replicas, tmp_path: Path) -> AsyncIterator[LiveServer]:
    """The shipped registry served live (a private copy, so tests may edit it)."""
    path = tmp_path / "registry.json"
    shutil.copy(REGISTRY, path)
    async with serve(path, replicas) as live:
        yield live
    replicas.clear_faults()


def client(url: str, mode: str) -> Client:
    """The SDK's own client: `legacy` (initialize + session) or `2026-07-28` (stateless)."""
    return Client(url, mode=mode)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server for one test module (each module its own, so no state crosses between them)."""
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


HEALTH_WITHIN = 0.1  # /health answers within this while a hostile request is handled


async def slowest_health(server: LiveServer, hostile: Awaitable[Any]) -> tuple[float, Any]:
    """Run `hostile` while asking /health every 20 ms on its own connection.

    Returns how much slower the slowest answer was than the limit: HEALTH_WITHIN (100 ms), or on a
    machine so busy that /health alone is slow, ten times its median without the hostile request
    (measured just before, in the same run), whichever is more. Positive means too slow."""
    async with aiohttp.ClientSession() as probe:
        quiet = [await health_latency(probe, server) for _ in range(10)]
        limit = max(HEALTH_WITHIN, 10 * statistics.median(quiet))
        task = asyncio.ensure_future(hostile)
        slowest = 0.0
        while True:
            slowest = max(slowest, await health_latency(probe, server))
            if task.done():
                break
            await asyncio.sleep(0.02)
    return slowest - limit, task.result()


async def health_latency(probe: aiohttp.ClientSession, server: LiveServer) -> float:
    started = time.perf_counter()
    async with probe.get(f"{server.base}/health") as resp:
        assert resp.status == 200
        await resp.read()
    return time.perf_counter() - started
