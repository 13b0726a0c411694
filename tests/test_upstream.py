"""The upstream layer against a real local HTTP server that counts what reaches it."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from proxy.core.caller import Caller
from proxy.core.errors import (
    UpstreamBadReply,
    UpstreamRateLimited,
    UpstreamStatusError,
    UpstreamTimeout,
    UpstreamTooLarge,
    UpstreamUnreachable,
)
from proxy.plugin.toolkit import as_json
from proxy.plugin.upstream import Upstream
from proxy.registry.model import Limits, Platform, Timeouts, load_registry
from proxy.state.redis_store import RedisStore
from proxy.state.store import MemoryStore, StateStore
from tests.conftest import listen

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Counting:
    url: str
    hits: dict[str, int] = field(default_factory=dict)
    mode: str = "ok"
    cookies: list[str | None] = field(default_factory=list)  # the Cookie header of each request (mode "cookie")


@pytest.fixture
async def upstream_server() -> AsyncIterator[Counting]:
    state = Counting(url="")

    async def handler(request: web.Request) -> web.StreamResponse:
        state.hits[request.path_qs] = state.hits.get(request.path_qs, 0) + 1
        await asyncio.sleep(0.05)  # long enough for concurrent callers to pile up
        if state.mode == "500":
            return web.Response(status=500, text="boom")
        if state.mode == "404":
            return web.Response(status=404, text="no such item")
        if state.mode == "slow":
            await asyncio.sleep(2)
        if state.mode == "malformed":
            return web.Response(body=b"{not json", content_type="application/json")
        if state.mode == "oversize":
            return web.Response(body=b"x" * 50_000, content_type="application/json")
        if state.mode == "cookie":
            state.cookies.append(request.headers.get("Cookie"))
            response = web.json_response({"path": request.path})
            response.set_cookie("visitor", request.path_qs, path="/")
            return response
        return web.json_response({"path": request.path, "query": dict(request.query)})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner, state.url = await listen(app)
    yield state
    await runner.cleanup()


def _platform(base_url: str, **changes: Any) -> Platform:
    platform = load_registry(ROOT / "registry.json").platforms["wetten"]
    return dataclasses.replace(platform, base_url=base_url, **changes)


async def _available(store: StateStore) -> object:
    """The `available` field of the wetten platform's availability record; fails the test if none is stored."""
    record = await store.availability("wetten")
    assert record is not None, "no availability record for wetten"
    return record["available"]


async def test_fifty_identical_concurrent_calls_go_upstream_once(upstream_server: Counting) -> None:
    store = MemoryStore()
    up = Upstream(_platform(upstream_server.url), store=store)
    callers = [Caller.session(f"c{i}") for i in range(50)]
    results = await asyncio.gather(*[up.get("/q", as_json, params={"a": "1"}, caller=c) for c in callers])
    await up.close()
    assert upstream_server.hits == {"/q?a=1": 1}
    assert all(r == results[0] for r in results)
    records = [(await store.calls(c.key, 10))[0][0] for c in callers]
    assert sum(not r["cache_hit"] for r in records) == 1
    assert sum(r["cache_hit"] for r in records) == 49


async def test_a_cookie_a_platform_sets_never_travels_with_a_later_call(upstream_server: Counting) -> None:
    """One client sends everyone's calls: what a platform set for one person's call stays out of the next one."""
    upstream_server.mode = "cookie"
    # By name: a cookie jar keeps no cookie of a bare IP address, so 127.0.0.1 would show nothing.
    up = Upstream(_platform(upstream_server.url.replace("127.0.0.1", "localhost")), store=MemoryStore())
    for path, who in (("/first", "alice"), ("/second", "bob")):
        await up.get(path, as_json, caller=Caller.session(who))
    await up.close()
    assert upstream_server.cookies == [None, None]


async def test_cache_hit_is_listed_and_does_not_change_availability(upstream_server: Counting) -> None:
    store = MemoryStore()
    up = Upstream(_platform(upstream_server.url), store=store)
    await up.get("/cached", as_json, caller=Caller.session("me"))
    upstream_server.mode = "500"
    with pytest.raises(UpstreamStatusError):
        await up.get("/other", as_json, caller=Caller.session("me"))
    assert await _available(store) is False
    await up.get("/cached", as_json, caller=Caller.session("me"))  # served from the cache while the platform fails
    assert await _available(store) is False
    calls, _ = await store.calls(Caller.session("me").key, 10)
    assert [c["cache_hit"] for c in calls] == [False, False, True]
    assert calls[1]["status"] == 500 and "failing (HTTP 500" in (calls[1]["error"] or "")
    await up.close()


@pytest.mark.parametrize(("mode", "error", "words"), [
    ("500", UpstreamStatusError, "is failing (HTTP 500"),
    ("slow", UpstreamTimeout, "did not answer within 0.5 s"),
    ("malformed", UpstreamBadReply, "could not be read"),
    ("oversize", UpstreamTooLarge, "more than the 10000-byte cap"),
])
async def test_failures_are_readable_and_flip_availability(upstream_server: Counting, mode: str,
                                                           error: type[Exception], words: str) -> None:
    store = MemoryStore()
    platform = _platform(upstream_server.url, timeouts=Timeouts(connect_seconds=0.5, total_seconds=0.5),
                         max_response_bytes=10_000)
    up = Upstream(platform, store=store)
    upstream_server.mode = mode
    with pytest.raises(error, match=words.replace("(", r"\(")):
        await up.get(f"/fail-{mode}", as_json, caller=Caller.session("me"))
    assert await _available(store) is False
    upstream_server.mode = "ok"
    await up.get("/good", as_json, caller=Caller.session("me"))
    assert await _available(store) is True
    await up.close()


async def test_rate_limit_comes_from_the_live_settings(upstream_server: Counting) -> None:
    store = MemoryStore()
    up = Upstream(_platform(upstream_server.url, limits=Limits(results_per_call=10, requests_per_minute=2)),
                  store=store)
    await up.get("/1", as_json, caller=Caller.session("me"))
    await up.get("/2", as_json, caller=Caller.session("me"))
    with pytest.raises(UpstreamRateLimited, match="limit of 2 calls per minute"):
        await up.get("/3", as_json, caller=Caller.session("me"))
    assert "/3" not in upstream_server.hits
    # A reload swaps the settings object: the new limit applies at once.
    up.platform = dataclasses.replace(up.platform, limits=Limits(results_per_call=10, requests_per_minute=600))
    await asyncio.sleep(0.2)
    await up.get("/3", as_json, caller=Caller.session("me"))
    await up.close()


async def test_connection_errors_are_retried_then_reported() -> None:
    store = MemoryStore()
    up = Upstream(_platform("http://127.0.0.1:9"), store=store)  # discard port: nothing listens
    with pytest.raises(UpstreamUnreachable, match="cannot be reached"):
        await up.get("/x", as_json, caller=Caller.session("me"))
    calls, _ = await store.calls(Caller.session("me").key, 10)
    assert len(calls) == 1 and calls[0]["status"] is None
    await up.close()


async def test_secrets_never_reach_the_call_log(upstream_server: Counting) -> None:
    store = MemoryStore()
    up = Upstream(_platform(upstream_server.url), store=store)
    await up.get("/s", as_json, params={"q": "wet", "api_key": "hunter2"}, caller=Caller.session("me"))
    calls, _ = await store.calls(Caller.session("me").key, 1)
    assert "hunter2" not in calls[0]["url"] and "q=wet" in calls[0]["url"]
    await up.close()


async def test_a_refused_question_does_not_mark_the_platform_unavailable(upstream_server: Counting) -> None:
    store = MemoryStore()
    up = Upstream(_platform(upstream_server.url), store=store)
    down = Upstream(_platform("http://127.0.0.1:9"), store=store)
    with pytest.raises(UpstreamUnreachable):
        await down.get("/x", as_json, caller=Caller.session("me"))
    await down.close()
    assert await _available(store) is False
    upstream_server.mode = "404"
    with pytest.raises(UpstreamStatusError, match="does not know this item"):
        await up.get("/missing", as_json, caller=Caller.session("me"))
    assert await _available(store) is True
    await up.close()


@pytest.mark.parametrize(("status", "headers", "pause"), [
    (200, {"RateLimit-Limit": "60", "RateLimit-Remaining": "12", "RateLimit-Reset": "48"}, None),
    (200, {"RateLimit-Limit": "60", "RateLimit-Remaining": "0", "RateLimit-Reset": "60"}, 1.0),  # one unit refills
    (200, {"RateLimit-Remaining": "0"}, 1.0),
    (200, {"RateLimit-Remaining": "nan", "RateLimit-Reset": "60"}, None),
    (429, {"Retry-After": "7", "RateLimit-Remaining": "0"}, 7.0),
    (503, {"Retry-After": "86400"}, 600.0),  # a garbled or huge Retry-After must not lock a platform out for days
    (200, {}, None),
])
def test_pause_from_the_platforms_rate_headers(status: int, headers: dict[str, str], pause: float | None) -> None:
    from proxy.plugin.upstream import _pause_from_headers

    assert _pause_from_headers(status, headers) == pause


async def _two_processes(url: str, redis_url: str, prefix: str) -> tuple[list[Upstream], list[RedisStore]]:
    """Two processes' views of one platform: each its own connection and single flight, one Redis between them."""
    stores = [RedisStore(redis_url, prefix=prefix), RedisStore(redis_url, prefix=prefix)]
    return [Upstream(_platform(url), store=store) for store in stores], stores


async def test_processes_sharing_redis_send_the_same_request_once(upstream_server: Counting, redis_url: str) -> None:
    """Issue 44: the single flight spans the workers; the process that waited logs a cache hit."""
    ups, stores = await _two_processes(upstream_server.url, redis_url, "flight-ok:")
    callers = [Caller.session(f"p{i}") for i in range(20)]
    results = await asyncio.gather(*(ups[i % 2].get("/q", as_json, params={"b": "2"}, caller=c)
                                     for i, c in enumerate(callers)))
    assert upstream_server.hits == {"/q?b=2": 1}
    assert all(r == results[0] for r in results)
    records = [(await stores[i % 2].calls(c.key, 10))[0][0] for i, c in enumerate(callers)]
    assert [r["cache_hit"] for r in records].count(False) == 1
    for up, store in zip(ups, stores, strict=True):
        await up.close()
        await store.close()


async def test_a_process_whose_claimant_failed_asks_itself_at_once(upstream_server: Counting, redis_url: str) -> None:
    """The claimant's failure ends its claim: the other process sends its own request, not after the whole claim."""
    upstream_server.mode = "500"
    ups, stores = await _two_processes(upstream_server.url, redis_url, "flight-failed:")
    started = asyncio.get_running_loop().time()
    outcomes = await asyncio.gather(*(up.get("/q", as_json, params={"c": "3"}, caller=Caller.session(f"f{i}"))
                                      for i, up in enumerate(ups)), return_exceptions=True)
    assert all(isinstance(o, UpstreamStatusError) for o in outcomes)
    assert upstream_server.hits == {"/q?c=3": 2}
    assert asyncio.get_running_loop().time() - started < ups[0].platform.timeouts.total_seconds
    for up, store in zip(ups, stores, strict=True):
        await up.close()
        await store.close()
