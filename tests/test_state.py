"""Both state backends keep the same contract; the Redis one is tested against a real redis-server."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import tracemalloc
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from redis import asyncio as aioredis

from proxy.core.shapes import CallRecord, OrganStatus, SourceStatus, call_record
from proxy.state.redis_store import (
    POOL_WAIT_SECONDS,
    REDIS_CONNECTIONS,
    REDIS_TIMEOUT_SECONDS,
    RedisStore,
    ResilientStore,
)
from proxy.state.store import CALLS_PER_CALLER, MemoryStore, StateStore
from tests.redis_server import redis_server


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[StateStore]:
    if request.param == "memory":
        yield MemoryStore()
        return
    url = request.getfixturevalue("redis_url")
    s = RedisStore(url, prefix=f"test{id(request)}:")
    yield s
    await s.close()


def _call(n: int) -> CallRecord:
    """A real call record, told apart from the others by its number: the last part of its url."""
    return call_record(source="wetten", tool=None, method="GET", url=f"https://example.invalid/{n}", status=200,
                       started=time.perf_counter(), size=0, cache_hit=False, error=None, request_id=None)


def _numbers(calls: Sequence[CallRecord]) -> list[int]:
    """The numbers `_call` gave these records, in their order."""
    return [int(c["url"].rsplit("/", 1)[1]) for c in calls]


async def test_cache_expires(store: StateStore) -> None:
    await store.cache_set("k", b"v", 0.3)
    assert await store.cache_get("k") == b"v"
    await asyncio.sleep(0.5)
    assert await store.cache_get("k") is None
    await store.cache_set("zero", b"v", 0)
    assert await store.cache_get("zero") is None


async def test_call_logs_are_per_caller_and_capped(store: StateStore) -> None:
    for i in range(3):
        await store.record_call("session:a", _call(i))
    b_call = _call(99)
    await store.record_call("session:b", b_call)
    calls, total = await store.calls("session:a", 10)
    assert _numbers(calls) == [0, 1, 2] and total == 3
    calls, _ = await store.calls("session:b", 10)
    assert calls == [b_call]
    assert await store.calls("session:nobody", 10) == ([], 0)
    for i in range(CALLS_PER_CALLER + 5):
        await store.record_call("session:c", _call(i))
    calls, total = await store.calls("session:c", 2)
    assert total == CALLS_PER_CALLER and _numbers(calls) == [CALLS_PER_CALLER + 3, CALLS_PER_CALLER + 4]


async def test_a_batch_of_records_lands_as_the_records_one_by_one(store: StateStore) -> None:
    """`record_calls` (a reused result's records at once) and `append_calls` (the Redis store's batch, of any
    callers) keep each caller's order and cap exactly as one `record_call` per record does."""
    await store.record_calls("session:a", [_call(1), _call(2)])
    await store.append_calls([("session:b", "", _call(3)), ("session:a", "", _call(4)), ("session:b", "", _call(5))])
    await store.record_calls("session:c", [_call(n) for n in range(CALLS_PER_CALLER + 2)])
    logs = [await store.calls(caller, 3) for caller in ("session:a", "session:b", "session:c")]
    assert [(_numbers(calls), total) for calls, total in logs] == [
        ([1, 2, 4], 3), ([3, 5], 2), ([CALLS_PER_CALLER - 1, CALLS_PER_CALLER, CALLS_PER_CALLER + 1], CALLS_PER_CALLER)]


async def test_memory_call_records_are_counted_through_batches() -> None:
    """The memory bound counts records: a batch that pushes a full log's oldest out adds only what it kept."""
    store = MemoryStore()
    await store.record_calls("session:c", [_call(n) for n in range(CALLS_PER_CALLER + 7)])
    await store.record_calls("session:c", [_call(0), _call(1)])
    assert store._records == CALLS_PER_CALLER


async def test_availability_and_load_status_roundtrip(store: StateStore) -> None:
    assert await store.availability("ori") is None
    await store.set_availability("ori", {"available": False, "last_error": "x"})
    assert (await store.availability("ori")) == {"available": False, "last_error": "x"}
    organ: OrganStatus = {"organ": "ori_delft", "name": "Gemeente Delft", "medium": None,
                          "current_through": "2026-11-30", "stalled": False}
    status: SourceStatus = {"source": "ori", "title": "Open Raadsinformatie", "receiving": True,
                            "current_through": "2026-11-30", "current_through_per_medium": {},
                            "measured_at": None, "reason": None, "organs_total": 1, "organs_stalled": 0,
                            "organs": [organ]}
    await store.set_load_status("ori", status)
    loaded = await store.load_status("ori")
    assert loaded is not None and loaded.get("organs") == [organ]


async def test_the_last_live_check_roundtrips(store: StateStore) -> None:
    assert await store.live_check() is None
    record = {"checked_at": "2026-12-01T11:00:00+00:00", "ok": False,
              "platforms": {"woo": {"status": "drift", "findings": ["search: totaal is missing"]}}}
    await store.set_live_check(record)
    assert await store.live_check() == record


async def test_token_bucket_limits_the_rate(store: StateStore) -> None:
    answers = [await store.take_token("wetten", 3, 2.0) for _ in range(4)]
    assert answers[:3] == [(True, 0.0)] * 3
    granted, wait = answers[3]
    assert not granted and 15 < wait <= 20.5  # 3 a minute: the next token is about 20 s away


async def test_concurrent_callers_queue_behind_each_other(store: StateStore) -> None:
    """60 a minute: one token a second. Reservations stack up, so the wait grows per caller, and
    callers past the maximum wait are refused instead of all sleeping a little and retrying."""
    started = time.monotonic()
    answers = []
    for _ in range(64):
        ok, wait = await store.take_token("tk", 60, 2.5)
        answers.append((ok, wait, time.monotonic() - started))
    granted = [(w, at) for ok, w, at in answers if ok]
    assert len(granted) == 62 and [w for w, _ in granted[:60]] == [0.0] * 60
    # Tokens flow back at one a second from the first take, however long the calls themselves took.
    first_take = granted[0][1]
    (wait_61, at_61), (wait_62, at_62) = granted[60], granted[61]
    assert 0.9 < wait_61 + (at_61 - first_take) <= 1.1 and 1.9 < wait_62 + (at_62 - first_take) <= 2.1
    assert [ok for ok, _, _ in answers[62:]] == [False, False]


async def test_shared_secret_is_stable(store: StateStore) -> None:
    first = await store.shared_secret()
    assert len(first) == 32 and await store.shared_secret() == first


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
        record = _call(1)
        await one.record_call("trace:x", record)
        await one.cache_set("k", b"v", 30)
        sid = await one.create_session("ori", 60)
        assert (await two.calls("trace:x", 5))[0] == [record]
        assert await two.cache_get("k") == b"v"
        assert await two.touch_session(sid, "ori", 60)
        answers = [await one.take_token("tk", 2, 1.0), await two.take_token("tk", 2, 1.0),
                   await one.take_token("tk", 2, 1.0)]
        assert answers[0] == (True, 0.0) and answers[1] == (True, 0.0) and not answers[2][0]
        assert await one.shared_secret() == await two.shared_secret()
    finally:
        await one.close()
        await two.close()


async def test_a_burst_beyond_the_redis_pool_waits_for_a_connection(redis_url: str) -> None:
    """More calls at once than the pool has connections (200 people's sessions touched at one moment, as in
    tests/test_workers.py): each waits its turn; none sees a pool error, which the resilient store would take for
    Redis being gone and answer from this process's own state, where no session exists."""
    store = RedisStore(redis_url, prefix="burst:")
    try:
        sessions = [await store.create_session("ori", 60) for _ in range(8)]
        touched = await asyncio.gather(*(store.touch_session(sessions[n % 8], "ori", 60)
                                         for n in range(REDIS_CONNECTIONS * 5)))
    finally:
        await store.close()
    assert all(touched)


async def test_session_checks_asked_together_share_one_round_trip_and_each_gets_its_own_answer(redis_url: str) -> None:
    """Requests that arrive together have their sessions checked in one script (RedisStore.touch_session): each
    answer is that request's own (alive, ended, another connector's, never made), in any mix, and the script is
    sent once per batch, not once per check; a check asked alone still goes at once."""
    store = RedisStore(redis_url, prefix="together:")
    raw = aioredis.from_url(redis_url)
    try:
        alive = [await store.create_session("ori", 60) for _ in range(5)]
        ended = await store.create_session("ori", 60)
        assert await store.delete_session(ended, "ori")
        asks = [(sid, "ori") for sid in alive] + [(ended, "ori"), (alive[0], "wetten"), ("never-made", "ori")]
        asks = asks * 40  # 320 checks: more than one script's worth
        before = await _evalsha_calls(raw)
        answers = await asyncio.gather(*(store.touch_session(sid, slug, 60) for sid, slug in asks))
        scripts = await _evalsha_calls(raw) - before
        assert answers == [sid in alive and slug == "ori" for sid, slug in asks]
        assert 1 <= scripts <= 4, scripts  # ceil(320 / TOUCHES_PER_SCRIPT) = 3, not 320
        assert await raw.pttl(f"together:session:{alive[1]}") > 59_000  # refreshed
        assert await store.touch_session(alive[2], "ori", 60) and not await store.touch_session(ended, "ori", 60)
    finally:
        await raw.aclose()
        await store.close()


async def _evalsha_calls(raw: aioredis.Redis) -> int:
    stats = await raw.info("commandstats")
    return int(stats.get("cmdstat_evalsha", {}).get("calls", 0)) + int(stats.get("cmdstat_eval", {}).get("calls", 0))


async def test_a_batch_of_session_checks_against_a_stopped_redis_falls_back_for_each(tmp_path: Path) -> None:
    """Redis gone while checks wait together: each check fails over to this process's own state, none hangs, none
    raises, and the session (its id signed by the cluster) goes on there; an id the cluster did not sign, or one
    of another connector, does not."""
    with redis_server(tmp_path) as url:
        store = ResilientStore(RedisStore(url, prefix="gone:"), MemoryStore())
        sid = await store.create_session("ori", 60)
    try:
        async with asyncio.timeout(3 * REDIS_TIMEOUT_SECONDS):
            answers = await asyncio.gather(*(store.touch_session(sid, "ori", 60) for _ in range(50)))
        assert answers == [True] * 50 and store.describe()["degraded"] is True
        forged = sid[:-1] + ("0" if sid[-1] != "0" else "1")
        assert not await store.touch_session(forged, "ori", 60)
        assert not await store.touch_session(sid, "wetten", 60)
    finally:
        await store.close()


async def test_a_hung_redis_with_a_burst_waiting_answers_every_call_from_local_state(tmp_path: Path) -> None:
    """Redis stops answering (SIGSTOP: connections are still accepted, nothing is replied) while twice as many
    calls as the pool has connections are under way: each falls back to this process's own state once its
    connection times out, or its wait for one ends; none raises, none hangs."""
    with redis_server(tmp_path) as url:
        raw = aioredis.from_url(url)
        pid = int((await raw.info("server"))["process_id"])
        await raw.aclose()
        store = ResilientStore(RedisStore(url, prefix="hung:"), MemoryStore())
        session = await store.create_session("ori", 60)
        os.kill(pid, signal.SIGSTOP)
        try:
            async with asyncio.timeout(POOL_WAIT_SECONDS + 3 * REDIS_TIMEOUT_SECONDS):
                # Session checks sent together in one script, to the same hung Redis at the same time, fall back too.
                got, checked = await asyncio.gather(
                    asyncio.gather(*(store.cache_get(f"reply:{n}") for n in range(REDIS_CONNECTIONS * 2))),
                    asyncio.gather(*(store.touch_session(session, "ori", 60) for _ in range(50))))
            state = store.describe()
        finally:
            os.kill(pid, signal.SIGCONT)
            await store.close()
    assert got == [None] * (REDIS_CONNECTIONS * 2)
    assert checked == [True] * 50  # the cluster signed the session: it goes on on this process's own state
    assert state["degraded"] is True and "Redis cannot be reached" in state["reason"], state


async def test_memory_store_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import proxy.state.store as state

    monkeypatch.setattr(state, "CALLERS_MAX", 3)
    monkeypatch.setattr(state, "PROBATION_CALLERS", 3)
    monkeypatch.setattr(state, "CACHE_MAX_ENTRIES", 2)
    store = MemoryStore()
    for i in range(5):
        await store.record_call(f"trace:{i}", _call(i))
    assert await store.calls("trace:0", 5) == ([], 0)  # the least recently active caller went first
    assert (await store.calls("trace:4", 5))[1] == 1
    await store.cache_set("a", b"1", 60)
    await store.cache_set("b", b"2", 60)
    assert await store.cache_get("a") == b"1"  # now a is the most recently used
    await store.cache_set("c", b"3", 60)
    assert await store.cache_get("b") is None and await store.cache_get("a") == b"1"


async def test_a_client_groups_rate_bucket_is_forgotten_once_it_is_full_again() -> None:
    """A flood from 50,000 networks, each spending one token of its share: its buckets (3 KB each, about 1 GB per
    300,000 networks) are gone once they have filled up again, a minute later, while a bucket in use keeps its
    count."""
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(50_000):
            await store.take_token(f"tweedekamer|client|2001:db8:{i:x}::/48", 15, 2.0)
        flooded = tracemalloc.get_traced_memory()[0] - before
        now[0] = 60.5
        for _ in range(15):  # one group spends its whole share
            await store.take_token("tweedekamer|client|192.0.2.0/24", 15, 0.0)
        now[0] = 61.0
        assert (await store.take_token("tweedekamer|client|192.0.2.0/24", 15, 0.0))[0] is False  # still spent
        left = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # What stays is the dict's emptied table (Python shrinks it at its next resize), not the buckets.
    assert flooded > 5_000_000 and left < flooded / 4, (flooded, left)


async def test_one_client_at_its_cap_evicts_only_its_own_sessions(store: StateStore) -> None:
    from proxy.state.store import SESSIONS_PER_CLIENT

    other = await store.create_session("wetten", 60, "192.0.2.1")
    flood = [await store.create_session("wetten", 60, "198.51.100.7") for _ in range(SESSIONS_PER_CLIENT + 3)]
    assert await store.touch_session(other, "wetten", 60)  # another client's session is untouched
    assert [await store.touch_session(s, "wetten", 60) for s in flood[:3]] == [False] * 3  # its own oldest went
    assert all([await store.touch_session(s, "wetten", 60) for s in flood[3:]])


async def test_memory_call_logs_have_a_total_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    import proxy.state.store as state

    monkeypatch.setattr(state, "CALL_RECORDS_MAX", 100)
    store = MemoryStore()
    for caller in ("trace:a", "trace:b", "trace:c"):
        for i in range(40):
            await store.record_call(caller, _call(i))
    assert await store.calls("trace:a", 5) == ([], 0)  # 120 records > 100: the least recently active went
    assert (await store.calls("trace:c", 50))[1] == 40


async def test_one_off_callers_never_push_out_a_returning_caller() -> None:
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    await store.record_call("trace:regular", _call(1))
    now[0] = 120
    await store.record_call("trace:regular", _call(2))  # it came back: an established history
    for i in range(25_000):  # a stateless client that never returns its handle: a new one per call
        await store.record_call(f"trace:once-{i}", _call(i))
    assert (await store.calls("trace:regular", 5))[1] == 2


async def test_the_load_measurement_lease_is_held_by_one_process(redis_url: str) -> None:
    one, two = RedisStore(redis_url, prefix="lease:"), RedisStore(redis_url, prefix="lease:")
    try:
        assert await one.take_lease("loadstatus", "proc-1", 0.5)
        assert not await two.take_lease("loadstatus", "proc-2", 0.5)  # one measurement per cluster
        assert await one.take_lease("loadstatus", "proc-1", 0.5)  # the holder renews it
        await asyncio.sleep(0.7)
        assert await two.take_lease("loadstatus", "proc-2", 0.5)  # a holder that stopped renewing lost it
    finally:
        await one.close()
        await two.close()
    assert await MemoryStore().take_lease("loadstatus", "anyone", 1)


async def _commands(raw: Any, *names: str) -> int:
    """How many of these commands the Redis server has run so far (INFO commandstats)."""
    stats = await raw.info("commandstats")
    return sum(int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in names)


async def test_a_cached_reply_is_read_from_redis_once_per_process_until_its_ttl(redis_url: str) -> None:
    """The near copy: the process that stored or first read a reply answers it without a round trip, for as long
    as Redis keeps it (its PTTL, so a reply read late expires as early as in Redis); a process that never read it
    asks Redis."""
    one, two = RedisStore(redis_url, prefix="near:"), RedisStore(redis_url, prefix="near:")
    raw = aioredis.from_url(redis_url)
    try:
        await one.cache_set("k", b"reply", 0.6)
        reads = await _commands(raw, "get")
        assert [await one.cache_get("k") for _ in range(5)] == [b"reply"] * 5
        assert await _commands(raw, "get") == reads  # the writer never asked
        await asyncio.sleep(0.3)
        assert [await two.cache_get("k") for _ in range(5)] == [b"reply"] * 5
        assert await _commands(raw, "get") == reads + 1  # the other process asked once
        await asyncio.sleep(0.4)  # past the TTL the first process set: gone for both, near copies included
        assert await one.cache_get("k") is None and await two.cache_get("k") is None
    finally:
        await raw.aclose()
        await one.close()
        await two.close()


async def test_call_records_travel_in_batches_and_a_log_read_waits_for_them(redis_url: str) -> None:
    """The resilient store (what the server runs on Redis) writes a burst of call records in one round trip
    within RECORD_BATCH_SECONDS; a read of the log, in another process too, sees every record taken before it."""
    writer = ResilientStore(RedisStore(redis_url, prefix="batch:"), MemoryStore())
    reader = ResilientStore(RedisStore(redis_url, prefix="batch:"), MemoryStore())
    raw = aioredis.from_url(redis_url)
    try:
        pushes = await _commands(raw, "rpush")
        for n in range(40):
            await writer.record_call(f"trace:{n % 4}", _call(n))
        assert await raw.llen("batch:calls:trace:0") == 0  # on its way, not yet written
        logs = [await reader.calls(f"trace:{n}", 100) for n in range(4)]
        assert [total for _, total in logs] == [10] * 4
        assert _numbers(logs[1][0]) == list(range(1, 40, 4))  # each caller's in the order taken
        assert await _commands(raw, "rpush") == pushes + 4  # one RPUSH per caller, all in one batch
    finally:
        await raw.aclose()
        await writer.close()
        await reader.close()


async def test_the_last_batch_of_call_records_is_written_at_close(redis_url: str) -> None:
    store = ResilientStore(RedisStore(redis_url, prefix="closing:"), MemoryStore())
    await store.record_call("trace:last", _call(7))
    await store.close()
    other = RedisStore(redis_url, prefix="closing:")
    try:
        assert _numbers((await other.calls("trace:last", 5))[0]) == [7]
    finally:
        await other.close()


def test_redis_replies_are_parsed_by_hiredis() -> None:
    """The pinned hiredis is what redis-py parses replies with (a round trip costs less CPU: bench/RESULTS.md)."""
    from redis.utils import HIREDIS_AVAILABLE

    assert HIREDIS_AVAILABLE


async def test_a_slow_redis_gets_one_batch_of_call_records_at_a_time(redis_url: str) -> None:
    """While Redis is paused, records keep arriving: they wait for the batch on its way instead of each interval
    sending one more (which would take one of the pool's connections each); none is lost, and a read of the log
    under a steady stream of records still returns (it waits for the records taken before it, not for a quiet)."""
    store = ResilientStore(RedisStore(redis_url, prefix="slowbatch:"), MemoryStore())
    raw = aioredis.from_url(redis_url)
    try:
        batches = await _commands(raw, "exec")
        await raw.client_pause(400, all=False)  # writes wait; reads (and this client's INFO) go on
        for n in range(60):
            await store.record_call("trace:slow", _call(n))
            await asyncio.sleep(0.005)
        _, total = await store.calls("trace:slow", 100)
        assert total == 60
        assert await _commands(raw, "exec") - batches <= 3

        async def steady() -> None:
            for n in range(1000):
                await store.record_call("trace:steady", _call(n))
                await asyncio.sleep(0.002)

        stream = asyncio.create_task(steady())
        await asyncio.sleep(0.1)
        async with asyncio.timeout(10):
            _, seen = await store.calls("trace:steady", 5)
        stream.cancel()
        assert seen > 0
    finally:
        await raw.aclose()
        await store.close()


async def test_redis_call_logs_are_bounded_per_client_group_and_in_all(redis_url: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stateless call without a trace handle made a call log kept a day, with no cap: 620-740 bytes a call,
    7,000 calls a second from one client. Now a one-off log lives ten minutes, one written again or read a day; a
    group keeps its newest logs (one-off ones go first), and all logs together a bounded number of records."""
    import proxy.state.redis_store as redis_store
    from proxy.core.peer import current_peer

    monkeypatch.setattr(redis_store, "CALL_LOGS_PER_GROUP", 40)
    monkeypatch.setattr(redis_store, "CALL_RECORDS_MAX", 300)
    prefix = f"bounds{time.monotonic_ns()}:"
    store = RedisStore(redis_url, prefix=prefix)
    raw = aioredis.from_url(redis_url)
    try:
        current_peer.set("192.0.2.0/24")
        await store.record_call("trace:regular", _call(0))
        await store.record_call("trace:regular", _call(1))  # written again: a returning caller
        current_peer.set("2001:db8:1:2::/64")  # a flood from one /48, rotating its /64s
        for i in range(200):
            current_peer.set(f"2001:db8:1:{i:x}::/64")
            await store.record_calls(f"trace:once-{i}", [_call(i)])
        flood_logs = await raw.zcard(f"{prefix}call-logs-of:2001:db8:1::/48")
        assert flood_logs <= 40  # one group, however many /64s
        assert (await store.calls("trace:regular", 5))[1] == 2  # another group's log is untouched
        assert 0 < await raw.ttl(f"{prefix}calls:trace:once-199") <= 600
        assert await raw.ttl(f"{prefix}calls:trace:regular") > 600
        for n in range(60):  # many groups, many records: the total bound
            current_peer.set(f"198.51.{n}.0/24")
            await store.record_calls(f"trace:busy-{n}", [_call(i) for i in range(20)])
        assert int(await raw.get(f"{prefix}call-records") or 0) <= 300
        kept = [k async for k in raw.scan_iter(f"{prefix}calls:*")]
        assert len(kept) <= 300 // 20 + 41, len(kept)
        assert (await store.calls("trace:regular", 5))[1] == 2  # a returning log outlives the one-off ones
    finally:
        await raw.aclose()
        await store.close()


async def test_at_the_shipped_memory_bound_redis_evicts_and_no_write_fails(tmp_path: Path) -> None:
    """deploy/compose.yaml bounds Redis's memory; with its policy (and a bound small enough to reach here), a flood
    of call logs and cached answers is evicted least recently used first: no write fails (which sent both workers
    onto local state), the session in use and the trace-signing key stay."""
    import re

    compose = (Path(__file__).resolve().parents[1] / "deploy" / "compose.yaml").read_text(encoding="utf-8")
    command = re.search(r'command: \["redis-server", (.*?)\]', compose, re.S)
    assert command, "compose runs redis-server"
    options = re.findall(r'"([^"]*)"', command.group(1))
    assert "--maxmemory" in options and "--maxmemory-policy" in options, options
    options[options.index("--maxmemory") + 1] = "6mb"
    with redis_server(tmp_path, options=options) as url:
        store = ResilientStore(RedisStore(url), MemoryStore())
        try:
            secret = await store.shared_secret()
            session = await store.create_session("wetten", 1800, "192.0.2.0/24")
            for i in range(1_000):  # 2 MB of older answers and call logs: below the bound
                await store.record_call(f"trace:old-{i}", _call(i))
                await store.cache_set(f"old-{i}", os.urandom(2048), 3600)
            await asyncio.sleep(1.1)  # Redis tells keys' idle times apart by the second
            assert await store.touch_session(session, "wetten", 1800)  # in use: more recent than all of that
            for i in range(1_500):  # 3 MB more: the bound is reached, and the older keys go
                await store.record_call(f"trace:new-{i}", _call(i))
                await store.cache_set(f"new-{i}", os.urandom(2048), 3600)
                if i % 50 == 0:  # in use meanwhile, as a client's session is (a loaded machine takes seconds here)
                    await store.touch_session(session, "wetten", 1800)
            await store.calls("trace:new-0", 1)  # waits for the last batch of records
            assert store.describe() == {"backend": "redis", "degraded": False}, store.describe()
            assert await store.touch_session(session, "wetten", 1800)
            assert await store.shared_secret() == secret
            raw = aioredis.from_url(url)
            try:
                info = await raw.info("memory")
                stats = await raw.info("stats")
            finally:
                await raw.aclose()
            assert stats["evicted_keys"] > 0 and info["used_memory"] <= 7 * 1024 * 1024, (stats, info["used_memory"])
        finally:
            await store.close()
