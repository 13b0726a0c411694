"""Redis outage (issue 16): Redis stopped mid-run with calls in flight, then started again.

No request fails while it is gone, /health says the state is degraded, and once it is back the
processes share state through it again. Real redis-server, real app, real replicas.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from proxy.state.redis_store import RedisStore
from tests.conftest import Replicas, serve, write_registry
from tests.redis_server import _free_port, redis_server
from tests.wire import state_health, stateless_call


async def _call(http: aiohttp.ClientSession, url: str, title: str, client: str) -> dict[str, Any]:
    return await stateless_call(http, url, "search_regulations", {"title": title, "limit": 1}, forwarded_for=client)


async def test_redis_stopped_mid_run_fails_no_request_and_resumes(replicas: Replicas, tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    port = _free_port()
    (tmp_path / "redis").mkdir()
    first_run = contextlib.ExitStack()
    url = first_run.enter_context(redis_server(tmp_path / "redis", port))
    replicas.faults("wetten").update({"latency_ms": 800})
    try:
        async with serve(write_registry(tmp_path), replicas, redis_url=url) as live, aiohttp.ClientSession() as http:
            mcp = live.url("wetten")
            assert await state_health(http, live.base) == {"backend": "redis", "degraded": False}
            in_flight = [asyncio.ensure_future(_call(http, mcp, f"wet {i}", f"198.18.{i}.1")) for i in range(10)]
            await asyncio.sleep(0.3)
            first_run.close()  # Redis stops while the ten calls wait on the platform
            results = await asyncio.gather(*in_flight)
            assert [r.get("isError", False) for r in results] == [False] * 10
            during = [await _call(http, mcp, f"regeling {i}", "198.18.99.1") for i in range(3)]
            assert [r.get("isError", False) for r in during] == [False] * 3
            state = await state_health(http, live.base)
            assert state["degraded"] is True and "Redis" in state["reason"]

            with redis_server(tmp_path / "redis", port):  # the same address comes back (empty)
                deadline = time.monotonic() + 15
                while (await state_health(http, live.base))["degraded"]:
                    assert time.monotonic() < deadline, "the proxy did not return to Redis"
                    await asyncio.sleep(0.2)
                after = await _call(http, mcp, "wet na herstel", "198.18.100.1")
                assert not after.get("isError")
                handle = after["_meta"]["nl.besluitbron/trace"]
                # The call's records are batched: reading its log through the server waits for them.
                read = await stateless_call(http, mcp, "list_platform_calls", {"trace": handle})
                assert read["structuredContent"]["total"] >= 1, read
                shared = RedisStore(url)  # as another process on the same Redis sees it
                try:
                    calls, total = await shared.calls(f"trace:{handle}", 5)
                finally:
                    await shared.close()
                assert total >= 1 and calls[-1]["source"] == "wetten"
        said = [r.getMessage() for r in caplog.records if r.name == "proxy.state.redis_store"]
        # The log says it once each way, however many calls met the outage.
        assert [m.split(" ", 3)[:3] for m in said] == [["Redis", "cannot", "be"], ["Redis", "is", "back"]], said
    finally:
        first_run.close()
        replicas.clear_faults()
