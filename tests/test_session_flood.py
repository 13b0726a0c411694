"""Sessions and streams under a flood (issue 27): caps per client group, in use survives, streams end with sessions.

A flood of `initialize` used to log everyone else out (the full store evicted the least recently used
session, whoever's), and with Redis the store kept every session, far past its cap. Open GET streams used to
outlive their sessions. Real stores (a real redis-server), the real server over HTTP.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import aiohttp
import pytest

from proxy.state.redis_store import RedisStore
from proxy.state.store import SESSIONS_PER_CLIENT, MemoryStore, StateStore
from proxy.web.transport import MAX_STREAMS_PER_GROUP, STREAM_SESSION_CHECK_SECONDS
from tests.conftest import LiveServer

CAP = 500  # sessions in all, for these stores
FLOOD_GROUPS = 40  # x 64 sessions each: five times the cap
LEGACY = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
          "MCP-Protocol-Version": "2025-11-25"}
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "session-flood", "version": "1"}}})


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[StateStore]:
    if request.param == "memory":
        yield MemoryStore(max_sessions=CAP)
        return
    s = RedisStore(request.getfixturevalue("redis_url"), prefix=f"flood{id(request)}:", max_sessions=CAP)
    yield s
    await s.close()


async def test_a_flood_from_many_networks_keeps_the_cap_and_a_session_in_use(store: StateStore) -> None:
    mine = await store.create_session("wetten", 1800, "192.0.2.0/24")
    for i in range(FLOOD_GROUPS * SESSIONS_PER_CLIENT):
        await store.create_session("wetten", 1800, f"10.{i % FLOOD_GROUPS}.0.0/24")
    assert await store.touch_session(mine, "wetten", 1800)  # the flood pushed out its own sessions only
    assert sum((await store.open_sessions()).values()) <= CAP


async def test_one_network_at_its_cap_loses_its_own_oldest(store: StateStore) -> None:
    first = [await store.create_session("wetten", 1800, "198.51.100.0/24") for _ in range(SESSIONS_PER_CLIENT)]
    newer = await store.create_session("wetten", 1800, "198.51.100.0/24")
    assert not await store.touch_session(first[0], "wetten", 1800)
    assert await store.touch_session(first[1], "wetten", 1800) and await store.touch_session(newer, "wetten", 1800)


async def _initialize(http: aiohttp.ClientSession, url: str) -> str:
    async with http.post(url, data=INITIALIZE, headers=LEGACY) as resp:
        assert resp.status == 200
        return resp.headers["Mcp-Session-Id"]


async def _open_stream(http: aiohttp.ClientSession, url: str, session: str) -> aiohttp.ClientResponse:
    return await http.get(url, headers={**LEGACY, "Accept": "text/event-stream", "Mcp-Session-Id": session})


async def test_480_streams_from_one_address_none_outlives_its_session(server: LiveServer) -> None:
    url = server.url("wetten")
    async with aiohttp.ClientSession() as http:
        first = [await _initialize(http, url) for _ in range(MAX_STREAMS_PER_GROUP)]
        streams = [await _open_stream(http, url, s) for s in first]
        assert [r.status for r in streams] == [200] * MAX_STREAMS_PER_GROUP
        one_more = await _open_stream(http, url, await _initialize(http, url))
        assert one_more.status == 429 and "streams" in await one_more.text()  # the network's streams are capped
        # The rest of 480 sessions from the same address: its own oldest, those with the streams, are evicted.
        for _ in range(480 - MAX_STREAMS_PER_GROUP - 1):
            await _initialize(http, url)
        async with asyncio.timeout(STREAM_SESSION_CHECK_SECONDS * 3):
            ended = await asyncio.gather(*(r.content.read() for r in streams))  # each returns at its end
        assert len(ended) == MAX_STREAMS_PER_GROUP
        for r in streams:
            r.release()
        # With those gone, the newest sessions open streams again.
        newest = [await _initialize(http, url) for _ in range(2)]
        again = [await _open_stream(http, url, s) for s in newest]
        assert [r.status for r in again] == [200, 200]
        for r in again:
            r.close()
