"""Both state backends keep the same contract; the Redis one is tested against a real redis-server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from proxy.state import CALLS_PER_CALLER, MemoryStore, StateStore
from proxy.state_redis import RedisStore
from tests.redis_server import redis_server


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[StateStore]:
    if request.param == "memory":
        yield MemoryStore()
        return
    url = request.getfixturevalue("redis_url")
    s = RedisStore(url, prefix=f"test{id(request)}:")
    yield s
    await s.close()


async def test_cache_expires(store: StateStore) -> None:
    await store.cache_set("k", b"v", 0.3)
    assert await store.cache_get("k") == b"v"
    await asyncio.sleep(0.5)
    assert await store.cache_get("k") is None
    await store.cache_set("zero", b"v", 0)
    assert await store.cache_get("zero") is None


async def test_call_logs_are_per_caller_and_capped(store: StateStore) -> None:
    for i in range(3):
        await store.record_call("session:a", {"n": i})
    await store.record_call("session:b", {"n": 99})
    calls, total = await store.calls("session:a", 10)
    assert [c["n"] for c in calls] == [0, 1, 2] and total == 3
    calls, _ = await store.calls("session:b", 10)
    assert calls == [{"n": 99}]
    assert await store.calls("session:nobody", 10) == ([], 0)
    for i in range(CALLS_PER_CALLER + 5):
        await store.record_call("session:c", {"n": i})
    calls, total = await store.calls("session:c", 2)
    assert total == CALLS_PER_CALLER and [c["n"] for c in calls] == [CALLS_PER_CALLER + 3, CALLS_PER_CALLER + 4]


async def test_availability_and_load_status_roundtrip(store: StateStore) -> None:
    assert await store.availability("ori") is None
    await store.set_availability("ori", {"available": False, "last_error": "x"})
    assert (await store.availability("ori")) == {"available": False, "last_error": "x"}
    await store.set_load_status("ori", {"receiving": True, "organs": [{"organ": "ori_delft"}]})
    assert (await store.load_status("ori"))["organs"] == [{"organ": "ori_delft"}]


async def test_token_bucket_limits_the_rate(store: StateStore) -> None:
    waits = [await store.take_token("wetten", 3) for _ in range(4)]
    assert waits[:3] == [0.0, 0.0, 0.0]
    assert 15 < waits[3] <= 20.5  # 3 a minute: the next token is about 20 s away


async def test_sessions_are_bound_to_their_connector(store: StateStore) -> None:
    sid = await store.create_session("wetten", 60)
    assert await store.touch_session(sid, "wetten", 60)
    assert not await store.touch_session(sid, "rechtspraak", 60)
    assert not await store.delete_session(sid, "rechtspraak")
    assert await store.delete_session(sid, "wetten")
    assert not await store.touch_session(sid, "wetten", 60)
    short = await store.create_session("wetten", 0.2)
    await asyncio.sleep(0.4)
    assert not await store.touch_session(short, "wetten", 60)


async def test_redis_store_is_shared_between_processes(redis_url: str, tmp_path: Path) -> None:
    """Two stores on one Redis (as two server processes would be) see each other's state."""
    one, two = RedisStore(redis_url, prefix="shared:"), RedisStore(redis_url, prefix="shared:")
    try:
        await one.record_call("trace:x", {"n": 1})
        await one.cache_set("k", b"v", 30)
        sid = await one.create_session("ori", 60)
        assert (await two.calls("trace:x", 5))[0] == [{"n": 1}]
        assert await two.cache_get("k") == b"v"
        assert await two.touch_session(sid, "ori", 60)
        waits = [await one.take_token("tk", 2), await two.take_token("tk", 2), await one.take_token("tk", 2)]
        assert waits[0] == 0 and waits[1] == 0 and waits[2] > 0
    finally:
        await one.close()
        await two.close()
