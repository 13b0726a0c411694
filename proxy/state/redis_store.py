"""The Redis backend of `proxy.state.store.StateStore`, for several server processes sharing one state.

Keys live under one prefix; everything with a lifetime gets a Redis TTL so nothing needs sweeping.
The token bucket runs as a Lua script, so concurrent processes share one limit atomically.

`ResilientStore` puts this process's memory behind it: when Redis cannot be reached the proxy keeps
serving on local state (said once in the log, and in /health), and returns to Redis when it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import statistics
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeVar

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from proxy.core.jsonwire import encode_json
from proxy.core.peer import budget_group
from proxy.core.shapes import JsonDict
from proxy.state.store import (
    CALL_LOG_TTL_SECONDS,
    CALL_LOGS_PER_GROUP,
    CALL_RECORDS_MAX,
    CALLS_PER_CALLER,
    NEW_CALL_LOG_TTL_SECONDS,
    SESSIONS_MAX,
    SESSIONS_PER_CLIENT,
    LoggedCall,
    MemoryStore,
    StateStore,
)

if TYPE_CHECKING:
    from proxy.core.shapes import CallRecord, SourceStatus

__all__ = ["RedisStore", "ResilientStore"]

log = logging.getLogger(__name__)
T = TypeVar("T")
# A Redis that does not answer within this long counts as gone (a stopped one refuses at once).
REDIS_TIMEOUT_SECONDS = 2.0
# Connections one process keeps to Redis (a worker's calls share them; each Redis call takes well under 1 ms).
REDIS_CONNECTIONS = 64
# How long a call may wait for one of those connections. The queue is this process's own (a burst beyond the pool,
# or its loop running late under CPU load), not Redis failing, so it gets longer than REDIS_TIMEOUT_SECONDS: a
# Redis that stops answering still fails each holder within that timeout on its socket, freeing its connection.
POOL_WAIT_SECONDS = 10.0
RETRY_REDIS_SECONDS = 2.0
# Back only after this many probes in a row answered, each within SLOW_SECONDS: a Redis that has just restarted
# (or drops every other connection) is not switched to and away from again and again.
PROBES_TO_RECOVER = 3
# The latency watch: when the median of the last LATENCY_WINDOW operations takes longer than this, and Redis is
# what is slow (the time is not this process's own event loop running late: a busy process waits as long for any
# answer), /health says so (degraded). State stays in Redis: going local would split handshake sessions between
# processes; only an operation that fails or times out falls back.
SLOW_SECONDS = 0.25
# Call records reach Redis in batches: a tool call's records join this process's next batch, written this long
# after the batch's first record, in one round trip (a round trip per record cost a cached call more CPU than the
# rest of the call: bench/RESULTS.md). A read of a call log first waits ten batches' time, so it sees the records
# every process took before it, a process running somewhat late included.
RECORD_BATCH_SECONDS = 0.01
LOG_READ_WAIT_SECONDS = 10 * RECORD_BATCH_SECONDS
LATENCY_WINDOW = 32
LAG_TICK_SECONDS = 0.1

# KEYS[1] bucket; ARGV: capacity, refill per second, now, max wait. Returns "granted wait": a reservation
# may take the bucket below zero, so concurrent callers queue (see MemoryStore.take_token).
_TAKE_TOKEN = """
local cap = tonumber(ARGV[1]); local rate = tonumber(ARGV[2]); local now = tonumber(ARGV[3])
local max_wait = tonumber(ARGV[4])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'last')
local tokens = tonumber(b[1]) or cap; local last = tonumber(b[2]) or now
tokens = math.min(cap, tokens + (now - last) * rate)
local wait = math.max(0, (1 - tokens) / rate)
local granted = 0
if wait <= max_wait then tokens = tokens - 1; granted = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'last', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(cap / rate) + 60)
return tostring(granted) .. ' ' .. tostring(wait)
"""

# KEYS[1] the new session, KEYS[2] its client's sessions, oldest first; ARGV: slug, idle ms, per-client cap.
# A client at its cap loses its own oldest sessions; the store as a whole is bounded by the keys'
# TTLs (and Redis's own maxmemory policy).
# A session: its key (the slug, expiring when idle) in `sessions` (scored by when it expires) and in its
# client group's list (oldest first), the group in `session-groups` (scored by its list's length). One group
# beyond its cap loses its own oldest; the whole store beyond its cap takes from the largest group, as the
# memory store does: a flood of `initialize` pushes out the flood's own sessions.
# KEYS: 1 the session, 2 its group's list, 3 sessions, 4 session-groups.
# ARGV: 1 slug, 2 idle ms, 3 sessions per group, 4 sessions in all, 5 now (ms).
_CREATE_SESSION = """
local function forget(list, old)
  redis.call('DEL', old)
  redis.call('ZREM', KEYS[3], old)
  local left = redis.call('LLEN', list)
  if left == 0 then redis.call('ZREM', KEYS[4], list) else redis.call('ZADD', KEYS[4], left, list) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[5])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[3], tonumber(ARGV[5]) + tonumber(ARGV[2]), KEYS[1])
redis.call('RPUSH', KEYS[2], KEYS[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
while redis.call('LLEN', KEYS[2]) > tonumber(ARGV[3]) do forget(KEYS[2], redis.call('LPOP', KEYS[2])) end
redis.call('ZADD', KEYS[4], redis.call('LLEN', KEYS[2]), KEYS[2])
local turns = 0
while redis.call('ZCARD', KEYS[3]) > tonumber(ARGV[4]) and turns < 64 do
  turns = turns + 1
  local largest = redis.call('ZREVRANGE', KEYS[4], 0, 0)[1]
  if not largest then break end
  local old = redis.call('LPOP', largest)
  if not old then
    redis.call('ZREM', KEYS[4], largest)
  elseif old == KEYS[1] then
    redis.call('RPUSH', largest, old)
    break
  else
    forget(largest, old)
  end
end
return 1
"""

# One round trip for the session checks asked for together: each session is its slug's, and it is used now (its
# idle time and its place in `sessions`). Returns 1 or 0 per session, in order.
# KEYS: 1 sessions, then the sessions. ARGV: 1 now (ms), then per session its slug and its idle time (ms).
_TOUCH_SESSIONS = """
local now = tonumber(ARGV[1])
local found = {}
for i = 2, #KEYS do
  local slug, idle = ARGV[2 * i - 2], ARGV[2 * i - 1]
  if redis.call('GET', KEYS[i]) == slug then
    redis.call('PEXPIRE', KEYS[i], idle)
    redis.call('ZADD', KEYS[1], 'XX', now + tonumber(idle), KEYS[i])
    found[i - 1] = 1
  else
    found[i - 1] = 0
  end
end
return found
"""
# A batch of call records in one command, with the bounds of all call logs together kept in the same step:
# - a log is trimmed to its newest records; one written for the first time is kept `new ttl` seconds, one written
#   again a day (`CALL_LOG_TTL_SECONDS`, `NEW_CALL_LOG_TTL_SECONDS`);
# - `call-logs` scores every log by when it expires, `call-log-sizes` holds its length and `call-records` the sum;
#   the logs of one budget group are scored alike in `call-logs-of:<group>`;
# - a group beyond its cap loses its least recently written logs, and all logs beyond the total of records lose
#   the one expiring first (a one-off caller's before any returning one's), so a flood pushes out its own.
# KEYS: 1 call-logs, 2 call-log-sizes, 3 call-records, then per log its key and its group's set.
# ARGV: 1 records kept per log, 2 ttl (s), 3 new ttl (s), 4 now (ms), 5 logs per group, 6 records in all,
# then per log its count of records and the records.
# A claim is given up only by its owner: a claim that ran out and was taken by another stays theirs.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_APPEND_LOGS = """
local logs, sizes, total = KEYS[1], KEYS[2], KEYS[3]
local keep, ttl, new_ttl, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local per_group, records_max = tonumber(ARGV[5]), tonumber(ARGV[6])
local function drop(log)
  redis.call('DEL', log)
  redis.call('ZREM', logs, log)
  local n = tonumber(redis.call('HGET', sizes, log) or '0')
  redis.call('HDEL', sizes, log)
  if n > 0 then redis.call('DECRBY', total, n) end
end
local at = 7
for i = 4, #KEYS, 2 do
  local log, group = KEYS[i], KEYS[i + 1]
  local kept = redis.call('EXPIRE', log, ttl) == 1  -- written before, and still there: a returning caller
  local n = tonumber(ARGV[at])
  redis.call('RPUSH', log, unpack(ARGV, at + 1, at + n))
  redis.call('LTRIM', log, -keep, -1)
  at = at + 1 + n
  local life = kept and ttl or new_ttl
  if not kept then redis.call('EXPIRE', log, life) end
  local length = redis.call('LLEN', log)
  local was = tonumber(redis.call('HGET', sizes, log) or '0')  -- of an expired log too: those records are gone
  redis.call('HSET', sizes, log, length)
  redis.call('INCRBY', total, length - was)
  local expires = now + life * 1000
  redis.call('ZADD', logs, expires, log)
  redis.call('ZADD', group, expires, log)
  redis.call('EXPIRE', group, ttl)
  while redis.call('ZCARD', group) > per_group do
    local oldest = redis.call('ZPOPMIN', group)[1]
    if oldest ~= log then drop(oldest) end
  end
end
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', logs, '-inf', now, 'LIMIT', 0, 64)) do drop(gone) end
local turns = 0
while tonumber(redis.call('GET', total) or '0') > records_max and turns < 64 do
  local first = redis.call('ZRANGE', logs, 0, 0)[1]
  if not first then break end
  drop(first)
  turns = turns + 1
end
return #KEYS
"""
# Session checks that travel together (`RedisStore.touch_session`) go in scripts of at most this many, sent at once
# (a script holds Redis for its length: a few hundred microseconds at this size).
TOUCHES_PER_SCRIPT = 128


def _bytes(value: bytes | str | None) -> bytes | None:
    """A value as the client answers it: bytes, since it does not decode responses (a str only if it did)."""
    return value.encode() if isinstance(value, str) else value


def _now_ms() -> int:
    """Wall-clock milliseconds: every process scores `sessions` on the same clock."""
    return int(time.time() * 1000)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisStore:
    """State in Redis at `url` (e.g. `redis://127.0.0.1:6379/0`), keys under `prefix`."""

    def __init__(self, url: str, *, prefix: str = "besluitbron:", max_sessions: int = SESSIONS_MAX) -> None:
        # A blocking pool: at a burst beyond REDIS_CONNECTIONS a call waits its turn for a connection (up to
        # POOL_WAIT_SECONDS) instead of failing at once, which would read as "Redis is gone" and send this
        # process onto its own state, losing every handshake-era session to 404s.
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=REDIS_CONNECTIONS, timeout=POOL_WAIT_SECONDS,
            socket_timeout=REDIS_TIMEOUT_SECONDS, socket_connect_timeout=REDIS_TIMEOUT_SECONDS)
        self._redis = aioredis.Redis.from_pool(pool)
        self._prefix = prefix
        self._max_sessions = max_sessions
        self._take = self._redis.register_script(_TAKE_TOKEN)
        self._create_session = self._redis.register_script(_CREATE_SESSION)
        self._touch_sessions = self._redis.register_script(_TOUCH_SESSIONS)
        self._append_logs = self._redis.register_script(_APPEND_LOGS)
        self._release = self._redis.register_script(_RELEASE)
        # Session checks waiting for their script (the session key, slug, idle ms and the answer's future), and the
        # one task sending them while there are any.
        self._touches: list[tuple[str, str, int, asyncio.Future[bool]]] = []
        self._toucher: asyncio.Task[None] | None = None
        # The cache's replies, as this process last read or wrote them, until their Redis TTL runs out: a cached
        # call costs no round trip for them (two per call here; the bench's profile). A reply is only ever written
        # after a miss, so until it expires Redis holds these bytes or bytes fetched as freshly (another process
        # missing at the same moment); either is within the TTL the platform's entry promises.
        self._near = MemoryStore()

    def _k(self, *parts: str) -> str:
        return self._prefix + ":".join(parts)

    async def cache_get(self, key: str) -> bytes | None:
        near = self._near.cached(key)
        if near is not None:
            return near
        async with self._redis.pipeline(transaction=True) as pipe:  # the reply and how long it has left
            pipe.get(self._k("cache", key))
            pipe.pttl(self._k("cache", key))
            stored, left_ms = await pipe.execute()
        value = _bytes(stored)
        if value is not None and int(left_ms) > 0:
            await self._near.cache_set(key, value, int(left_ms) / 1000)
        return value

    async def cache_set(self, key: str, value: bytes, ttl: float) -> None:
        if ttl > 0:
            await self._redis.set(self._k("cache", key), value, px=int(ttl * 1000))
            await self._near.cache_set(key, value, ttl)

    def cached_nearby(self, key: str) -> bytes | None:
        """The reply this process holds for `key` while its TTL runs, without asking Redis."""
        return self._near.cached(key)

    async def record_call(self, caller: str, record: CallRecord) -> None:
        await self.append_calls([(caller, budget_group() or "", record)])

    async def record_calls(self, caller: str, records: Sequence[CallRecord]) -> None:
        group = budget_group() or ""
        await self.append_calls([(caller, group, record) for record in records])

    async def append_calls(self, entries: Sequence[LoggedCall]) -> None:
        """Every record in one command (`_APPEND_LOGS`): each caller's log appended to, trimmed to its newest and
        kept while someone may ask for it, within its group's and the store's bounds."""
        lines: dict[str, tuple[str, list[bytes]]] = {}
        for caller, group, record in entries:
            lines.setdefault(caller, (group, []))[1].append(encode_json(record))
        keys = [self._k("call-logs"), self._k("call-log-sizes"), self._k("call-records")]
        args: list[bytes | int] = [CALLS_PER_CALLER, CALL_LOG_TTL_SECONDS, NEW_CALL_LOG_TTL_SECONDS, _now_ms(),
                                   CALL_LOGS_PER_GROUP, CALL_RECORDS_MAX]
        for caller, (group, records) in lines.items():
            kept = records[-CALLS_PER_CALLER:]  # the log keeps no more (and Lua unpacks a few thousand at most)
            keys += [self._k("calls", caller), self._k("call-logs-of", group)]
            args += [len(kept), *kept]
        await self._append_logs(keys=keys, args=args)

    async def calls(self, caller: str, limit: int) -> tuple[list[CallRecord], int]:
        """The newest `limit` records of a log; one that is read is kept a day from now, like a returning caller's
        (someone asks for it)."""
        key = self._k("calls", caller)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.lrange(key, -limit, -1)
            pipe.llen(key)
            pipe.expire(key, CALL_LOG_TTL_SECONDS)
            pipe.zadd(self._k("call-logs"), {key: _now_ms() + CALL_LOG_TTL_SECONDS * 1000}, xx=True)
            raw, kept, _, _ = await pipe.execute()
        return [json.loads(r) for r in raw], int(kept)

    async def set_availability(self, platform: str, record: JsonDict) -> None:
        await self._redis.set(self._k("availability", platform), json.dumps(record))

    async def availability(self, platform: str) -> JsonDict | None:
        raw = await self._redis.get(self._k("availability", platform))
        return json.loads(raw) if raw else None

    async def set_load_status(self, platform: str, status: SourceStatus) -> None:
        await self._redis.set(self._k("load", platform), json.dumps(status))

    async def load_status(self, platform: str) -> SourceStatus | None:
        raw = await self._redis.get(self._k("load", platform))
        return json.loads(raw) if raw else None

    async def set_live_check(self, record: JsonDict) -> None:
        await self._redis.set(self._k("live_check", "last"), json.dumps(record))

    async def live_check(self) -> JsonDict | None:
        raw = await self._redis.get(self._k("live_check", "last"))
        return json.loads(raw) if raw else None

    async def take_token(self, platform: str, per_minute: int, max_wait: float) -> tuple[bool, float]:
        answer = await self._take(keys=[self._k("bucket", platform)],
                                  args=[per_minute, per_minute / 60.0, time.time(), max_wait])
        granted, wait = (answer.decode() if isinstance(answer, bytes) else str(answer)).split()
        return granted == "1", float(wait)

    async def shared_secret(self) -> bytes:
        key = self._k("trace-secret")
        await self._redis.set(key, secrets.token_bytes(32), nx=True)
        secret = _bytes(await self._redis.get(key))
        if secret is None:  # set just above (nx: the first process's key stays), so only a flushed Redis
            raise RedisError("the trace secret vanished between SET and GET")
        return secret

    async def create_session(self, slug: str, idle_seconds: float, client: str = "",
                             session_id: str | None = None) -> str:
        session_id = session_id or secrets.token_hex(16)
        await self._create_session(
            keys=[self._k("session", session_id), self._k("client-sessions", client), self._k("sessions"),
                  self._k("session-groups")],
            args=[slug, int(idle_seconds * 1000), SESSIONS_PER_CLIENT, self._max_sessions, _now_ms()])
        return session_id

    async def touch_session(self, session_id: str, slug: str, idle_seconds: float) -> bool:
        """Checked in Redis, as every request of a session is, and the checks asked for meanwhile travel together:
        the first goes once the requests that arrived with it have asked too (the sender starts in the loop's
        next turn), and those asked while a script is on its way go in one script as soon as it returns. So a
        check waits for no timer, at most for one round trip under load, and each reads Redis after its request
        arrived."""
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._touches.append((self._k("session", session_id), slug, int(idle_seconds * 1000), answer))
        if self._toucher is None:
            self._toucher = asyncio.get_running_loop().create_task(self._send_touches())
        return await answer

    async def _send_touches(self) -> None:
        try:
            while self._touches:
                touches, self._touches = self._touches, []
                await asyncio.gather(*(self._touch(touches[start:start + TOUCHES_PER_SCRIPT])
                                       for start in range(0, len(touches), TOUCHES_PER_SCRIPT)))
        finally:
            self._toucher = None
            for *_, answer in self._touches:  # stopped (the loop ending): none waits for an answer that never comes
                answer.cancel()
            self._touches = []

    async def _touch(self, touches: list[tuple[str, str, int, asyncio.Future[bool]]]) -> None:
        args: list[str | int] = [_now_ms()]
        for _, slug, idle_ms, _ in touches:
            args += (slug, idle_ms)
        try:
            found = await self._touch_sessions(keys=[self._k("sessions"), *(t[0] for t in touches)], args=args)
        except BaseException as exc:  # each waiting request meets the failure, as if it had asked alone
            for *_, answer in touches:
                if not answer.done():
                    answer.set_exception(exc if isinstance(exc, Exception) else RedisError("the check was stopped"))
            if not isinstance(exc, Exception):
                raise
            return
        for (*_, answer), one in zip(touches, found, strict=True):
            if not answer.done():  # a request cancelled meanwhile no longer waits
                answer.set_result(bool(one))

    async def delete_session(self, session_id: str, slug: str) -> bool:
        key = self._k("session", session_id)
        owner = await self._redis.get(key)
        if owner is None or _text(owner) != slug:
            return False
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            pipe.zrem(self._k("sessions"), key)
            deleted, _ = await pipe.execute()
        return bool(deleted)

    async def open_sessions(self) -> dict[str, int]:
        """Live sessions per connector slug: every process's, since they all share these keys (a SCAN, so a
        scrape costs one round trip per thousand sessions, not a blocking KEYS)."""
        keys = [key async for key in self._redis.scan_iter(match=self._k("session", "*"), count=1000)]
        counts: Counter[str] = Counter()
        for start in range(0, len(keys), 1000):
            counts.update(_text(slug) for slug in await self._redis.mget(keys[start:start + 1000]) if slug)
        return dict(counts)

    async def take_lease(self, name: str, owner: str, seconds: float) -> bool:
        key = self._k("lease", name)
        if await self._redis.set(key, owner, px=int(seconds * 1000), nx=True):
            return True
        held = await self._redis.get(key)
        if held is not None and _text(held) == owner:  # ours: extend it
            await self._redis.pexpire(key, int(seconds * 1000))
            return True
        return False

    async def claim_fetch(self, key: str, owner: str, seconds: float) -> bool:
        return bool(await self._redis.set(self._k("fetching", key), owner, px=max(1, int(seconds * 1000)), nx=True))

    async def fetch_progress(self, key: str) -> tuple[bytes | None, bool]:
        async with self._redis.pipeline(transaction=False) as pipe:  # one round trip for both
            pipe.get(self._k("cache", key))
            pipe.exists(self._k("fetching", key))
            stored, claimed = await pipe.execute()
        return _bytes(stored), bool(claimed)

    async def release_fetch(self, key: str, owner: str) -> None:
        await self._release(keys=[self._k("fetching", key)], args=[owner])

    async def ping(self) -> None:
        await self._redis.ping()
        await self._redis.exists(self._k("probe"))  # a data command too: a Redis still loading refuses those

    async def reset_connections(self) -> None:
        """Drop every pooled connection: after an outage, connections to the old server would fail one by one."""
        await self._redis.connection_pool.disconnect()

    def describe(self) -> JsonDict:
        return {"backend": "redis", "degraded": False}

    async def close(self) -> None:
        await self._redis.aclose()


SIGNATURE_HEX = 16  # 64 bits of HMAC-SHA256 after a 96-bit random token: a session id cannot be made up


class ResilientStore:
    """`primary` (Redis) while it answers; this process's `fallback` while it does not.

    No request fails because Redis is gone: every operation that cannot reach Redis is done on the
    local store instead, and a background probe switches back once Redis answers again. What was
    written locally in between stays local (a legacy session made then answers 404 elsewhere, and its
    client initializes again).
    """

    def __init__(self, primary: RedisStore, fallback: StateStore, *,
                 retry_seconds: float = RETRY_REDIS_SECONDS, slow_seconds: float = SLOW_SECONDS) -> None:
        self._primary = primary
        self._fallback = fallback
        self._retry = retry_seconds
        self._slow = slow_seconds
        self._down_since: datetime | None = None
        self._why = ""
        self._latency: deque[float] = deque(maxlen=LATENCY_WINDOW)
        self._lag: deque[float] = deque(maxlen=LATENCY_WINDOW)  # how late this process's loop runs
        self._lag_watch: asyncio.Task[None] | None = None
        self._slow_median: float | None = None  # set while Redis is what is slow
        self._probe: asyncio.Task[None] | None = None
        self._records: list[LoggedCall] = []  # call records waiting for the next batch
        self._writing: asyncio.Task[None] | None = None  # the one task writing batches, while there are any
        self._taken = self._written = 0  # records handed over, and of those written (to Redis, or locally)
        self._batch_written = asyncio.Event()  # set (and replaced) as each batch is written
        self._secret: bytes | None = None  # the cluster's shared secret, which signs session ids

    async def _use(self, call: Callable[[StateStore], Awaitable[T]]) -> T:
        if self._down_since is None:
            started = time.perf_counter()
            try:
                result = await call(self._primary)
            except (RedisError, OSError, TimeoutError) as exc:
                self._went_down(f"Redis cannot be reached ({type(exc).__name__})")
            else:
                self._latency.append(time.perf_counter() - started)
                if len(self._latency) == LATENCY_WINDOW:
                    self._note_speed()
                return result
        return await call(self._fallback)

    def _note_speed(self) -> None:
        was = self._slow_median
        self._slow_median = self._redis_is_slow()
        if (was is None) != (self._slow_median is None):  # said once each way, not per operation
            if self._slow_median is not None:
                log.warning("Redis answers slowly (median %.0f ms over its last %d operations); still serving from "
                            "it", self._slow_median * 1000, LATENCY_WINDOW)
            else:
                log.warning("Redis answers at its usual speed again")

    def _redis_is_slow(self) -> float | None:
        """The median operation time when Redis itself is slow, else None (fast, or this process is the slow one)."""
        median = statistics.median(self._latency)
        # Hysteresis: slow above the threshold, fast again only below half of it, so a median that hovers near
        # the threshold (a window half filled with late answers) is not reported slow and fast by turns.
        if median <= (self._slow / 2 if self._slow_median is not None else self._slow):
            return None
        if self._lag_watch is None:
            self._lag_watch = asyncio.get_running_loop().create_task(self._watch_lag())
            return None  # judged once the loop's own lateness is known
        lag = statistics.median(self._lag) if self._lag else median
        return median if median > 4 * lag else None

    async def _watch_lag(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(LAG_TICK_SECONDS)
            self._lag.append(time.perf_counter() - started - LAG_TICK_SECONDS)

    def _went_down(self, why: str) -> None:
        if self._down_since is not None:
            return
        self._down_since = down = datetime.now(UTC)
        self._why = why
        self._latency.clear()
        log.warning("%s; serving on this process's own state until it is back", why)
        self._probe = asyncio.get_running_loop().create_task(self._wait_for_redis(down))

    async def _wait_for_redis(self, down: datetime) -> None:
        answered = 0
        while answered < PROBES_TO_RECOVER:
            await asyncio.sleep(self._retry if answered == 0 else self._retry / 2)
            started = time.perf_counter()
            try:
                async with asyncio.timeout(max(self._slow * 4, 1.0)):
                    await self._primary.ping()
            except (RedisError, OSError, TimeoutError):
                answered = 0
                continue
            answered = answered + 1 if time.perf_counter() - started <= self._slow else 0
        await self._primary.reset_connections()
        handed = await self._hand_over_sessions()
        log.warning("Redis is back after %s; shared state resumes (%d sessions opened meanwhile handed over)",
                    datetime.now(UTC) - down, handed)
        self._down_since = None

    async def _hand_over_sessions(self) -> int:
        """The sessions this process kept on its own state while Redis was gone, written to Redis, so every
        process knows them again."""
        live = getattr(self._fallback, "live_sessions", None)
        handed = 0
        for session_id, slug, client, left in live() if live else []:
            try:
                await self._primary.create_session(slug, left, client, session_id)
            except (RedisError, OSError, TimeoutError):
                break  # gone again: the next recovery hands them over
            handed += 1
        return handed

    async def unreachable(self, timeout: float = 1.0) -> str | None:
        """Why Redis does not answer a PING now (for /ready), or None when it does. A failed PING also switches this
        process to its own state, so /health says degraded at the same moment /ready does."""
        try:
            async with asyncio.timeout(timeout):
                await self._primary.ping()
        except (RedisError, OSError, TimeoutError) as exc:
            why = f"Redis cannot be reached ({type(exc).__name__})"
            self._went_down(why)
            return f"{why}; serving on this process's own state"
        return None

    @property
    def on_local_state(self) -> bool:
        """Whether this process serves on its own state now (Redis was unreachable, and recovery has not passed)."""
        return self._down_since is not None

    def describe(self) -> JsonDict:
        if self._down_since is None and self._slow_median is not None:
            return {"backend": "redis", "degraded": True, "reason": f"Redis answers slowly (median "
                    f"{self._slow_median * 1000:.0f} ms over its last {LATENCY_WINDOW} operations); still serving "
                    "from it"}
        if self._down_since is None:
            return {"backend": "redis", "degraded": False}
        return {"backend": "redis", "degraded": True, "reason": f"{self._why}; serving on local state",
                "since_utc": self._down_since.isoformat(timespec="seconds")}

    async def cache_get(self, key: str) -> bytes | None:
        if self._down_since is None:
            near = self._primary.cached_nearby(key)
            if near is not None:
                return near  # no round trip: nothing for the latency watch to count
        return await self._use(lambda s: s.cache_get(key))

    def cached_nearby(self, key: str) -> bytes | None:
        return (self._primary if self._down_since is None else self._fallback).cached_nearby(key)

    async def cache_set(self, key: str, value: bytes, ttl: float) -> None:
        await self._use(lambda s: s.cache_set(key, value, ttl))

    async def record_call(self, caller: str, record: CallRecord) -> None:
        await self.append_calls([(caller, budget_group() or "", record)])

    async def record_calls(self, caller: str, records: Sequence[CallRecord]) -> None:
        group = budget_group() or ""  # read here, in the request's context: the batch is written from another task
        await self.append_calls([(caller, group, record) for record in records])

    async def append_calls(self, entries: Sequence[LoggedCall]) -> None:
        self._records.extend(entries)
        self._taken += len(entries)
        if self._writing is None:
            self._writing = asyncio.get_running_loop().create_task(self._write_records())

    async def _write_records(self) -> None:
        """One batch at a time: records that arrive while a batch is on its way wait for the next one, so a slow
        Redis holds one of the pool's connections for them, not one per batch interval."""
        try:
            while self._records:
                await asyncio.sleep(RECORD_BATCH_SECONDS)
                batch, self._records = self._records, []
                await self._write_batch(batch)
                self._written += len(batch)
                self._wake_readers()
        finally:
            self._writing = None
            self._wake_readers()

    async def _write_batch(self, batch: list[LoggedCall]) -> None:
        await self._use(lambda s: s.append_calls(batch))  # Redis gone: kept on this process's own state

    def _wake_readers(self) -> None:
        self._batch_written.set()
        self._batch_written = asyncio.Event()

    async def calls(self, caller: str, limit: int) -> tuple[list[CallRecord], int]:
        # Every record taken anywhere before this read (a tool call answered on another worker included) is in
        # Redis by the time this wait ends; this process's own are awaited until written.
        taken = self._taken
        await asyncio.sleep(LOG_READ_WAIT_SECONDS)
        while self._written < taken and self._writing is not None:
            await self._batch_written.wait()
        return await self._use(lambda s: s.calls(caller, limit))

    async def set_availability(self, platform: str, record: JsonDict) -> None:
        await self._use(lambda s: s.set_availability(platform, record))

    async def availability(self, platform: str) -> JsonDict | None:
        return await self._use(lambda s: s.availability(platform))

    async def set_load_status(self, platform: str, status: SourceStatus) -> None:
        await self._use(lambda s: s.set_load_status(platform, status))

    async def load_status(self, platform: str) -> SourceStatus | None:
        return await self._use(lambda s: s.load_status(platform))

    async def set_live_check(self, record: JsonDict) -> None:
        await self._use(lambda s: s.set_live_check(record))

    async def live_check(self) -> JsonDict | None:
        return await self._use(lambda s: s.live_check())

    async def take_token(self, platform: str, per_minute: int, max_wait: float) -> tuple[bool, float]:
        return await self._use(lambda s: s.take_token(platform, per_minute, max_wait))

    async def shared_secret(self) -> bytes:
        secret = await self._use(lambda s: s.shared_secret())
        if self._down_since is None:  # the cluster's own (Redis answered): it signs session ids from now on
            self._secret = secret
        return secret

    async def create_session(self, slug: str, idle_seconds: float, client: str = "",
                             session_id: str | None = None) -> str:
        minted = session_id or await self._mint(slug)
        return await self._use(lambda s: s.create_session(slug, idle_seconds, client, minted))

    async def touch_session(self, session_id: str, slug: str, idle_seconds: float) -> bool:
        """A session any process of the cluster opened stays open while Redis is gone: its id carries a signature
        (made with the cluster's shared secret), so a process that never saw it takes it up on its own state,
        and one opened on a process's own state during the outage is taken up into Redis once it is back."""
        if await self._use(lambda s: s.touch_session(session_id, slug, idle_seconds)):
            return True
        if self._secret is None and self._down_since is None:
            await self.shared_secret()
        if not self._signed(session_id, slug):
            return False
        if self._down_since is not None:  # Redis gone: keep the cluster's session going here
            await self._fallback.create_session(slug, idle_seconds, "adopted", session_id)
            return True
        if await self._fallback.touch_session(session_id, slug, idle_seconds):  # opened here while Redis was gone
            await self._use(lambda s: s.create_session(slug, idle_seconds, "adopted", session_id))
            return True
        return False

    async def _mint(self, slug: str) -> str:
        if self._secret is None:
            await self.shared_secret()
        token = secrets.token_hex(12)
        if self._secret is None:  # Redis was gone from the start: this process's id, unsigned, stays its own
            return token + secrets.token_hex(SIGNATURE_HEX // 2)
        return token + hmac.new(self._secret, f"{slug}:{token}".encode(), hashlib.sha256).hexdigest()[:SIGNATURE_HEX]

    def _signed(self, session_id: str, slug: str) -> bool:
        token, mark = session_id[:-SIGNATURE_HEX], session_id[-SIGNATURE_HEX:]
        if self._secret is None or len(session_id) != 24 + SIGNATURE_HEX:
            return False
        expected = hmac.new(self._secret, f"{slug}:{token}".encode(), hashlib.sha256).hexdigest()[:SIGNATURE_HEX]
        return hmac.compare_digest(mark, expected)

    async def delete_session(self, session_id: str, slug: str) -> bool:
        return await self._use(lambda s: s.delete_session(session_id, slug))

    async def open_sessions(self) -> dict[str, int]:
        return await self._use(lambda s: s.open_sessions())

    async def take_lease(self, name: str, owner: str, seconds: float) -> bool:
        return await self._use(lambda s: s.take_lease(name, owner, seconds))

    async def claim_fetch(self, key: str, owner: str, seconds: float) -> bool:
        return await self._use(lambda s: s.claim_fetch(key, owner, seconds))

    async def fetch_progress(self, key: str) -> tuple[bytes | None, bool]:
        return await self._use(lambda s: s.fetch_progress(key))

    async def release_fetch(self, key: str, owner: str) -> None:
        await self._use(lambda s: s.release_fetch(key, owner))

    async def close(self) -> None:
        while self._writing is not None:  # the last batches are written, not dropped
            await self._batch_written.wait()
        for task in (self._probe, self._lag_watch):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self._primary.close()
        await self._fallback.close()
