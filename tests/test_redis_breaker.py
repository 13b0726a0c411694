"""Redis that comes back, and Redis that is slow (issue 27): no flapping, and a latency watch /health reports.

A freshly restarted Redis used to make the proxy switch to it and away again four times in eight seconds (the
pool's old connections failed one by one), and a Redis ten times slower than usual was not reported at all.
Real redis-server; slowness by its own CLIENT PAUSE, from another connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from redis import asyncio as aioredis

from tests.conftest import Replicas, serve, write_registry
from tests.redis_server import _free_port, redis_server
from tests.wire import state_health, stateless_call


async def _call(http: aiohttp.ClientSession, url: str, title: str, client: str) -> dict[str, Any]:
    return await stateless_call(http, url, "search_regulations", {"title": title, "limit": 1}, forwarded_for=client)


def _switches(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage().split(";")[0] for r in caplog.records if r.name == "proxy.state.redis_store"]


async def test_a_restarted_redis_is_switched_back_to_once(replicas: Replicas, tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    port = _free_port()
    (tmp_path / "redis").mkdir()
    first = contextlib.ExitStack()
    url = first.enter_context(redis_server(tmp_path / "redis", port))
    async with serve(write_registry(tmp_path), replicas, redis_url=url) as live, aiohttp.ClientSession() as http:
        mcp = live.url("wetten")
        # Many calls at once: the pool holds many connections to this Redis.
        await asyncio.gather(*(_call(http, mcp, "wet", f"198.18.{i}.1") for i in range(24)))
        first.close()
        assert not (await _call(http, mcp, "tijdens", "198.18.50.1")).get("isError")
        with redis_server(tmp_path / "redis", port):
            ends = time.monotonic() + 8
            while time.monotonic() < ends:  # eight seconds of (cached) calls across old connections and new ones
                results = await asyncio.gather(*(_call(http, mcp, "wet", f"198.19.{i}.1") for i in range(8)))
                assert not any(r.get("isError") for r in results), results
                await asyncio.sleep(0.1)
            state = await state_health(http, live.base)
    switches = _switches(caplog)
    assert switches[0].startswith("Redis cannot be reached")
    assert sum(s.startswith("Redis is back") for s in switches) == 1, switches
    assert sum(s.startswith("Redis cannot be reached") for s in switches) == 1, switches
    assert state == {"backend": "redis", "degraded": False}


async def test_a_slow_redis_is_reported_by_health_and_kept(replicas: Replicas, tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "redis").mkdir()
    with redis_server(tmp_path / "redis") as url:
        async with serve(write_registry(tmp_path), replicas, redis_url=url) as live, \
                aiohttp.ClientSession() as http:
            mcp = live.url("wetten")
            assert (await state_health(http, live.base))["degraded"] is False
            pauser = aioredis.from_url(url)
            slow = asyncio.Event()

            async def keep_pausing() -> None:  # Redis answers each command about 300 ms late
                while not slow.is_set():
                    await pauser.client_pause(300, all=True)
                    await asyncio.sleep(0.3)

            pausing = asyncio.create_task(keep_pausing())
            try:
                async with asyncio.timeout(60):
                    while not (state := await state_health(http, live.base))["degraded"]:
                        assert not (await _call(http, mcp, "traag", "198.18.1.1")).get("isError")
            finally:
                slow.set()
                await pausing
                await pauser.aclose()
            assert "slowly" in state["reason"] and "still serving from it" in state["reason"], state
            async with asyncio.timeout(30):  # fast again: the next operations clear it
                while (await state_health(http, live.base))["degraded"]:
                    assert not (await _call(http, mcp, "snel", "198.18.2.1")).get("isError")
    said = _switches(caplog)
    assert sum(s.startswith("Redis answers slowly") for s in said) == 1, said  # once, not per operation
    assert "Redis answers at its usual speed again" in said
