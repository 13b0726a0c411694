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


async def test_two_workers_keep_every_session_while_redis_is_gone(replicas: Replicas, tmp_path: Path) -> None:
    """Two processes on one Redis; a 2025-11-25 client opened its session on the first. Redis stops: the second,
    which never saw the session, answered 404 "Session not found" (its client failed); /ready answered 503 on
    every process while /health said degraded: false. Now the session goes on wherever it lands, sessions opened
    during the outage go on once Redis is back, stateless clients are answered throughout, and /ready and
    /health say the same."""
    from tests.test_scaleout import _rpc

    port = _free_port()
    (tmp_path / "redis").mkdir()
    run = contextlib.ExitStack()
    url = run.enter_context(redis_server(tmp_path / "redis", port))
    path = write_registry(tmp_path)
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    call = {"name": "search_regulations", "arguments": {"title": "wet", "limit": 1}}
    try:
        async with serve(path, replicas, redis_url=url) as one, serve(path, replicas, redis_url=url) as two, \
                aiohttp.ClientSession() as http:
            status, _, session = await _rpc(http, one.url("wetten"), "initialize", init)
            assert status == 200 and session
            run.close()  # Redis stops
            failed = 0
            for n, worker in enumerate((two, one, two, one)):
                status, answer, _ = await _rpc(http, worker.url("wetten"), "tools/call", call, session=session,
                                               rid=10 + n)
                failed += status != 200 or bool(answer.get("result", {}).get("isError"))
                stateless = await stateless_call(http, worker.url("wetten"), "search_regulations",
                                                 {"title": "wet", "limit": 1})
                failed += bool(stateless.get("isError"))
            assert failed == 0
            status, _, during = await _rpc(http, two.url("wetten"), "initialize", init)  # opened on local state
            assert status == 200 and during
            for worker in (one, two):
                async with http.get(f"{worker.base}/ready") as resp:
                    ready = await resp.json()
                assert resp.status == 200 and ready["checks"]["redis"]["degraded"] is True
                assert (await state_health(http, worker.base))["degraded"] is True  # the same on both
            with redis_server(tmp_path / "redis", port):  # back, and empty
                for worker in (one, two):
                    deadline = time.monotonic() + 15
                    while (await state_health(http, worker.base))["degraded"]:
                        assert time.monotonic() < deadline, "the proxy did not return to Redis"
                        await asyncio.sleep(0.2)
                for n, (worker, sid) in enumerate(((one, during), (two, during), (one, session))):
                    status, answer, _ = await _rpc(http, worker.url("wetten"), "tools/call", call, session=sid,
                                                   rid=30 + n)
                    assert status == 200 and not answer["result"].get("isError"), (n, status, answer)
            made_up = session[:-4] + ("0000" if not session.endswith("0000") else "1111")
            status, _, _ = await _rpc(http, one.url("wetten"), "tools/list", {}, session=made_up, rid=40)
            assert status == 404  # an id the cluster did not sign is still unknown
    finally:
        run.close()
