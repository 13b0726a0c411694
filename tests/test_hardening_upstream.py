"""A hostile or overloaded platform, against the real upstream layer over a local socket (issue 16, items 5, 6)."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from aiohttp import web

from proxy.core.caller import Caller
from proxy.core.errors import UpstreamBadReply, UpstreamRateLimited
from proxy.core.peer import current_peer
from proxy.plugin.toolkit import as_json
from proxy.plugin.upstream import Upstream
from proxy.registry.model import Limits, Platform, Timeouts, load_registry
from proxy.state.store import MemoryStore
from tests.conftest import listen

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


@dataclass
class Hostile:
    url: str = ""
    hits: list[str] = field(default_factory=list)
    latency: float = 0.0
    answers: dict[str, Callable[[web.Request], web.StreamResponse]] = field(default_factory=dict)


@pytest.fixture
async def hostile() -> AsyncIterator[Hostile]:
    state = Hostile()

    async def handler(request: web.Request) -> web.StreamResponse:
        state.hits.append(request.path_qs)
        await asyncio.sleep(state.latency)
        answer = state.answers.get(request.path)
        return answer(request) if answer else web.json_response({"path": request.path})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner, state.url = await listen(app)
    yield state
    await runner.cleanup()


def _upstream(base_url: str, store: MemoryStore, **changes: Any) -> Upstream:
    platform: Platform = load_registry(ROOT / "registry.json").platforms["wetten"]
    return Upstream(dataclasses.replace(platform, base_url=base_url, **changes), store=store)


def as_client(client: str, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """Run `work` as a request of `client` would (the transport sets the same context variable)."""
    context = contextvars.copy_context()
    context.run(current_peer.set, client)
    return asyncio.get_running_loop().create_task(work, context=context)


async def test_waiting_for_a_connection_does_not_count_against_the_timeout(hostile: Hostile) -> None:
    """40 calls at once to a platform that answers in 0.3 s, with a 0.5 s timeout: more calls than
    connections, so some wait; none may time out, and the platform stays available."""
    store = MemoryStore()
    hostile.latency = 0.3
    up = _upstream(hostile.url, store, timeouts=Timeouts(connect_seconds=0.5, total_seconds=0.5),
                   limits=Limits(results_per_call=10, requests_per_minute=6000))
    results = await asyncio.gather(*(up.get(f"/q{i}", as_json, caller=Caller.session(f"c{i}")) for i in range(40)),
                                   return_exceptions=True)
    await up.close()
    assert [r for r in results if isinstance(r, BaseException)] == []
    availability = await store.availability("wetten")
    assert availability is not None and availability["available"] is True


async def test_one_client_cannot_use_up_the_platform_budget(hostile: Hostile) -> None:
    store = MemoryStore()
    up = _upstream(hostile.url, store, limits=Limits(results_per_call=10, requests_per_minute=8))
    greedy = [await asyncio.gather(as_client("198.51.100.7", up.get(f"/busting{i}", as_json,
                                                                    caller=Caller.session(f"t{i}"))),
                                   return_exceptions=True) for i in range(8)]
    refused = [r[0] for r in greedy if isinstance(r[0], UpstreamRateLimited)]
    assert refused and "your share" in str(refused[0])
    honest = await as_client("192.0.2.1", up.get("/honest", as_json, caller=Caller.session("other")))
    assert honest == {"path": "/honest"}
    await up.close()


@pytest.mark.parametrize(("header", "said", "paused"), [
    ("3", "in 3 s", True), ("99999999999", "in 600 s", True),
    ("Wed, 21 Oct 2099 07:28:00 GMT", "in 600 s", False), ("soon", "in 60 s", False)])
async def test_a_429_retry_after_is_honoured_within_bounds(hostile: Hostile, header: str, said: str,
                                                           paused: bool) -> None:
    store = MemoryStore()
    hostile.answers["/limited"] = lambda _: web.Response(status=429, headers={"Retry-After": header})
    up = _upstream(hostile.url, store)
    with pytest.raises(UpstreamRateLimited, match=said):  # an absurd value is not echoed back
        await up.get("/limited", as_json, caller=Caller.session("me"))
    if paused:  # a number of seconds pauses the platform for everyone: nothing more is sent
        with pytest.raises(UpstreamRateLimited, match="asked us to pause"):
            await up.get("/something-else", as_json, caller=Caller.session("you"))
        assert hostile.hits == ["/limited"]
    if header != "3":
        assert header not in str(await store.calls(Caller.session("me").key, 5))
    await up.close()


async def test_redirects_are_followed_only_on_the_platform_hosts(hostile: Hostile) -> None:
    store = MemoryStore()
    port = hostile.url.rsplit(":", 1)[1]
    hostile.answers["/moved"] = lambda _: web.Response(status=302, headers={"Location": "/here"})
    hostile.answers["/away"] = lambda _: web.Response(status=302, headers={"Location": f"http://localhost:{port}/elsewhere"})
    up = _upstream(hostile.url, store)
    assert await up.get("/moved", as_json, caller=Caller.session("me")) == {"path": "/here"}
    with pytest.raises(UpstreamBadReply, match="redirected to another host"):
        await up.get("/away", as_json, caller=Caller.session("me"))
    assert "/elsewhere" not in hostile.hits
    await up.close()


async def test_credentials_in_the_base_url_never_reach_the_call_log(hostile: Hostile) -> None:
    store = MemoryStore()
    up = _upstream(hostile.url.replace("http://", "http://reader:hunter2@"), store)
    await up.get("/doc", as_json, caller=Caller.session("me"))
    calls, _ = await store.calls(Caller.session("me").key, 5)
    assert "hunter2" not in str(calls) and calls[0]["url"].startswith(hostile.url + "/doc")
    await up.close()


async def test_a_platform_error_echoing_a_question_is_not_shown_to_others(hostile: Hostile) -> None:
    """An SRU diagnostic quoted the query back; availability is shared by every client."""
    store = MemoryStore()
    up = _upstream(hostile.url, store)

    def diagnostic(body: bytes) -> Any:
        raise UpstreamBadReply("wetten", "Legislation answered with an error (info:srw/diagnostic/1/1): "
                                         "cannot process query 'medical file of J. Jansen'")

    with pytest.raises(UpstreamBadReply, match=r"J\. Jansen"):  # the asking client still learns it all
        await up.get("/sru", diagnostic, caller=Caller.session("me"))
    availability = await store.availability("wetten")
    assert availability is not None
    assert availability["available"] is False and "Jansen" not in str(availability)
    assert availability["last_error"]
    await up.close()


async def test_a_saturated_event_loop_is_not_blamed_on_the_platform(hostile: Hostile) -> None:
    """The soak's replica "timeouts" (issue 16): a platform that answers in 50 ms, a proxy whose own event loop
    is stuck for 2 s (as when it is starved of CPU) while the call is in flight. The deadline passes while
    nothing on this side could read the reply: that is our overload, not the platform's, and must neither read
    as a platform timeout nor mark the platform unavailable for everyone."""
    store = MemoryStore()
    hostile.latency = 0.05
    up = _upstream(hostile.url, store, timeouts=Timeouts(connect_seconds=0.5, total_seconds=0.5))
    call = asyncio.ensure_future(up.get("/slow-to-read", as_json, caller=Caller.session("c")))
    await asyncio.sleep(0.01)  # the request is on its way
    time.sleep(2.0)  # a saturated loop: nothing runs, the reply is not read
    with pytest.raises(UpstreamRateLimited, match=r"BesluitBron is busy: it fell \d+ s behind .* Legislation"):
        await call
    assert (await store.availability("wetten") or {}).get("available") is not False
    assert await up.get("/next", as_json, caller=Caller.session("c")) == {"path": "/next"}  # a normal turn answers
    await up.close()
