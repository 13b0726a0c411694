"""State shared between server processes, behind one small interface with two backends.

`MemoryStore` (default) keeps everything in this process; `RedisStore` (`proxy.state.redis_store`) keeps
it in Redis so several processes behind a load balancer share cache, call logs, availability,
load status, rate limits and legacy sessions.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from proxy.core.peer import budget_group

if TYPE_CHECKING:
    from proxy.core.shapes import CallRecord, JsonDict, SourceStatus

__all__ = [
    "CALLS_PER_CALLER",
    "CALL_LOGS_PER_GROUP",
    "CALL_LOG_TTL_SECONDS",
    "NEW_CALL_LOG_TTL_SECONDS",
    "SESSIONS_MAX",
    "SESSIONS_PER_CLIENT",
    "SESSION_IDLE_SECONDS",
    "LoggedCall",
    "MemoryStore",
    "StateStore",
]

# A caller's call log keeps its newest entries; older ones fall off (and expire with the caller).
CALLS_PER_CALLER = 1000
CALL_LOG_TTL_SECONDS = 24 * 3600
# A log written once and never again (a stateless client that does not send its trace handle back gets a new one per
# call) is kept this long, unless it is written to again or read: nobody can ask for it afterwards in practice.
NEW_CALL_LOG_TTL_SECONDS = 600
# One budget group (an IPv4 /24, an IPv6 /48: `proxy.core.peer.budget_group`) keeps at most this many call logs;
# its least recently written go first. A flood from one network pushes out its own logs, never another's.
CALL_LOGS_PER_GROUP = 1000
SESSION_IDLE_SECONDS = 1800  # a session no request has touched for this long is forgotten (the transport's default)
# This process's memory is bounded: least recently used entries go first.
CALLERS_MAX = 20_000
PROBATION_CALLERS = 2_000
PROMOTE_AFTER_SECONDS = 60.0
# All call logs together keep at most this many records (a few hundred bytes each): about 100 MB.
CALL_RECORDS_MAX = 250_000
CACHE_MAX_ENTRIES = 10_000
# Rate buckets (a platform's, and each client group's share of it): beyond this many, the least recently used go
# (it then starts full again). Full buckets are forgotten long before: this bounds a flood from more networks in one
# minute than this.
BUCKETS_MAX = 100_000
CACHE_MAX_BYTES = 256 * 1024 * 1024
# Legacy sessions: one client group's new sessions evict its own oldest first, and a full store takes
# the oldest session of the group that holds the most (its client gets 404 and initializes again): a
# flood of `initialize`, from one network or from many, pushes out the flood's own sessions, never a
# client's one session in use.
SESSIONS_MAX = 10_000
SESSIONS_PER_CLIENT = 64


class StateStore(Protocol):
    """What the server shares between processes. Every method is safe to call concurrently."""

    async def cache_get(self, key: str) -> bytes | None: ...
    def cached_nearby(self, key: str) -> bytes | None:
        """The reply this process holds for `key`, without a round trip (None: `cache_get` may still find one)."""
        ...

    async def cache_set(self, key: str, value: bytes, ttl: float) -> None: ...
    async def record_call(self, caller: str, record: CallRecord) -> None: ...
    async def record_calls(self, caller: str, records: Sequence[CallRecord]) -> None: ...
    async def append_calls(self, entries: Sequence[LoggedCall]) -> None: ...
    async def calls(self, caller: str, limit: int) -> tuple[list[CallRecord], int]: ...
    async def set_availability(self, platform: str, record: JsonDict) -> None: ...
    async def availability(self, platform: str) -> JsonDict | None: ...
    async def set_load_status(self, platform: str, status: SourceStatus) -> None: ...
    async def load_status(self, platform: str) -> SourceStatus | None: ...
    async def set_live_check(self, record: JsonDict) -> None: ...
    async def live_check(self) -> JsonDict | None: ...
    async def take_token(self, platform: str, per_minute: int, max_wait: float) -> tuple[bool, float]: ...
    async def shared_secret(self) -> bytes: ...
    async def create_session(self, slug: str, idle_seconds: float, client: str = "",
                             session_id: str | None = None) -> str: ...
    async def touch_session(self, session_id: str, slug: str, idle_seconds: float) -> bool: ...
    async def delete_session(self, session_id: str, slug: str) -> bool: ...
    async def open_sessions(self) -> dict[str, int]: ...
    async def take_lease(self, name: str, owner: str, seconds: float) -> bool: ...
    # One fetch of a platform reply across processes: the claimant fetches and caches it, the others wait for it.
    async def claim_fetch(self, key: str, owner: str, seconds: float) -> bool: ...
    async def fetch_progress(self, key: str) -> tuple[bytes | None, bool]: ...
    async def release_fetch(self, key: str, owner: str) -> None: ...
    def describe(self) -> JsonDict: ...
    async def close(self) -> None: ...


# One call record to log: (the caller's log key, the caller's budget group, the record).
LoggedCall = tuple[str, str, "CallRecord"]


@dataclass(slots=True)
class _CallLog:
    first: float
    expires: float
    group: str
    lines: deque[CallRecord]


class MemoryStore:
    """In-process state; the default when no Redis URL is configured."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, max_sessions: int = SESSIONS_MAX,
                 sessions_per_client: int = SESSIONS_PER_CLIENT, secret_file: Path | None = None) -> None:
        """`secret_file`: keep the trace-signing key there, so trace handles outlive a restart."""
        self._clock = clock
        self._cache: dict[str, tuple[float, bytes]] = {}
        self._calls: OrderedDict[str, _CallLog] = OrderedDict()  # callers that came back
        self._probation: OrderedDict[str, _CallLog] = OrderedDict()  # callers seen once so far
        self._records = 0
        # budget group → its callers seen once so far and those that came back, each least recently written first
        self._group_logs: dict[str, tuple[OrderedDict[str, None], OrderedDict[str, None]]] = {}
        self._availability: dict[str, JsonDict] = {}
        self._load: dict[str, JsonDict] = {}
        self._live_check: JsonDict | None = None
        # key → (tokens, when counted, when full again), least recently used first
        self._buckets: dict[str, tuple[float, float, float]] = {}
        # session id → (slug, client, expires at), least recently used first.
        self._sessions: OrderedDict[str, tuple[str, str, float]] = OrderedDict()
        self._by_client: dict[str, OrderedDict[str, None]] = {}
        self._max_sessions = max_sessions
        self._per_client = sessions_per_client
        self._secret: bytes | None = None
        self._secret_file = secret_file
        self._cache_bytes = 0

    async def cache_get(self, key: str) -> bytes | None:
        return self.cached(key)

    def cached_nearby(self, key: str) -> bytes | None:
        return self.cached(key)

    def cached(self, key: str) -> bytes | None:
        """`cache_get` without a coroutine: the Redis store's near copy is read on every cached call."""
        hit = self._cache.get(key)
        if hit is None:
            return None
        if hit[0] <= self._clock():
            self._drop(key)
            return None
        self._cache[key] = self._cache.pop(key)  # most recently used last
        return hit[1]

    async def cache_set(self, key: str, value: bytes, ttl: float) -> None:
        if ttl <= 0 or len(value) > CACHE_MAX_BYTES // 4:
            return
        self._drop(key)
        self._cache[key] = (self._clock() + ttl, value)
        self._cache_bytes += len(value)
        while len(self._cache) > CACHE_MAX_ENTRIES or self._cache_bytes > CACHE_MAX_BYTES:
            self._drop(next(iter(self._cache)))  # least recently used first

    def _drop(self, key: str) -> None:
        hit = self._cache.pop(key, None)
        if hit is not None:
            self._cache_bytes -= len(hit[1])

    async def record_call(self, caller: str, record: CallRecord) -> None:
        self._append(caller, budget_group() or "", (record,))

    async def record_calls(self, caller: str, records: Sequence[CallRecord]) -> None:
        """One tool call's records (one per platform request) at once, for the current request's client."""
        self._append(caller, budget_group() or "", records)

    async def append_calls(self, entries: Sequence[LoggedCall]) -> None:
        """Records of any callers and groups (the Redis store's batch, kept here while Redis is gone): usually one
        caller, so one log update."""
        if len({caller for caller, _, _ in entries}) == 1:
            self._append(entries[0][0], entries[0][1], [record for _, _, record in entries])
        else:
            for caller, group, record in entries:
                self._append(caller, group, (record,))

    def _append(self, caller: str, group: str, records: Sequence[CallRecord]) -> None:
        now = self._clock()
        log = self._calls.pop(caller, None) or self._probation.pop(caller, None)
        if log is None or log.expires <= now:
            if log is not None:
                self._forget(caller, log)
            log = _CallLog(first=now, expires=0.0, group=group, lines=deque(maxlen=CALLS_PER_CALLER))
        before = len(log.lines)
        log.lines.extend(records)  # kept as given: the caller hands over fresh dicts and never touches them again
        self._records += len(log.lines) - before  # the oldest fall off a full log
        log.expires = now + CALL_LOG_TTL_SECONDS
        # Most recently active last. A caller is protected once it came back after a while: one-off
        # callers (a stateless client that never returns its trace handle gets a new one per call)
        # then only ever push out each other, never an established history.
        returning = now - log.first >= PROMOTE_AFTER_SECONDS
        (self._calls if returning else self._probation)[caller] = log
        logs = self._group_logs.get(log.group)
        if logs is None:
            logs = self._group_logs[log.group] = (OrderedDict(), OrderedDict())
        new, back = logs
        if before:  # a log written to before: out of its place in its group
            new.pop(caller, None)
            back.pop(caller, None)
        (back if returning else new)[caller] = None
        while len(new) + len(back) > CALL_LOGS_PER_GROUP:  # the group's own one-off callers first, then its oldest
            self._drop_caller(next(iter(new or back)))
        while len(self._probation) > PROBATION_CALLERS:
            self._drop_log(self._probation)
        while len(self._calls) > CALLERS_MAX:
            self._drop_log(self._calls)
        while self._records > CALL_RECORDS_MAX:  # the memory bound: least recently active first
            self._drop_log(self._probation if self._probation else self._calls)

    def _drop_log(self, segment: OrderedDict[str, _CallLog]) -> None:
        caller, log = segment.popitem(last=False)
        self._forget(caller, log)

    def _drop_caller(self, caller: str) -> None:
        log = self._calls.pop(caller, None) or self._probation.pop(caller, None)
        if log is not None:
            self._forget(caller, log)

    def _forget(self, caller: str, log: _CallLog) -> None:
        """A log is gone (dropped or expired): its records and its place in its group no longer count."""
        self._records -= len(log.lines)
        own = self._group_logs.get(log.group)
        if own is not None:
            own[0].pop(caller, None)
            own[1].pop(caller, None)
            if not own[0] and not own[1]:
                del self._group_logs[log.group]

    async def calls(self, caller: str, limit: int) -> tuple[list[CallRecord], int]:
        log = self._calls.get(caller)
        if log is None:
            log = self._probation.pop(caller, None)
            if log is not None:  # a caller that reads its own log is using it: keep it
                self._calls[caller] = log
                new, back = self._group_logs[log.group]
                new.pop(caller, None)
                back[caller] = None
        if log is None or log.expires <= self._clock():
            return [], 0
        newest = list(log.lines)[-limit:]
        return [r.copy() for r in newest], len(log.lines)

    async def set_availability(self, platform: str, record: JsonDict) -> None:
        self._availability[platform] = dict(record)

    async def availability(self, platform: str) -> JsonDict | None:
        rec = self._availability.get(platform)
        return dict(rec) if rec else None

    async def set_load_status(self, platform: str, status: SourceStatus) -> None:
        self._load[platform] = json.loads(json.dumps(status))

    async def load_status(self, platform: str) -> SourceStatus | None:
        status = self._load.get(platform)
        return json.loads(json.dumps(status)) if status else None

    async def set_live_check(self, record: JsonDict) -> None:
        """The last live contract check (`python -m proxy check-live`): when it ran and what it found."""
        self._live_check = json.loads(json.dumps(record))

    async def live_check(self) -> JsonDict | None:
        return json.loads(json.dumps(self._live_check)) if self._live_check else None

    async def take_token(self, platform: str, per_minute: int, max_wait: float) -> tuple[bool, float]:
        """Reserve a call in a token bucket of `per_minute`: (True, seconds to wait before sending), or
        (False, seconds until one would be free) when that is longer than `max_wait`.

        A reservation may take the bucket below zero, so concurrent callers queue behind each other
        instead of all seeing the same short wait."""
        now = self._clock()
        rate = per_minute / 60.0
        tokens, last, _ = self._buckets.pop(platform, (float(per_minute), now, now))
        tokens = min(float(per_minute), tokens + (now - last) * rate)
        wait = max(0.0, (1 - tokens) / rate)
        granted = wait <= max_wait
        if granted:
            tokens -= 1
        self._buckets[platform] = (tokens, now, now + (per_minute - tokens) / rate)  # most recently used last
        self._forget_full_buckets(now)
        return granted, wait

    def _forget_full_buckets(self, now: float) -> None:
        """A bucket that has filled up again is the same as none: forgotten, so a client group costs memory only
        while it has spent tokens in the last minute (a flood from 300,000 networks held about 1 GB). The least
        recently used come first, and every bucket is full a minute after its last use at the latest, so the sweep
        stops at the first that is not: each bucket is removed once, at no more than a dict deletion's cost."""
        buckets = self._buckets
        while buckets:
            key, (_, _, full_at) = next(iter(buckets.items()))
            if full_at > now and len(buckets) <= BUCKETS_MAX:
                return
            del buckets[key]

    async def shared_secret(self) -> bytes:
        if self._secret is None:
            self._secret = _load_or_create_secret(self._secret_file) if self._secret_file else secrets.token_bytes(32)
        return self._secret

    async def create_session(self, slug: str, idle_seconds: float, client: str = "",
                             session_id: str | None = None) -> str:
        """Open a session (under `session_id` when given); never refuses: a full store or a client at its cap
        evicts instead."""
        now = self._clock()
        while self._sessions:  # expired sessions sit at the front (a touch moves a session to the end)
            oldest, (_, _, expires) = next(iter(self._sessions.items()))
            if expires > now:
                break
            self._end_session(oldest)
        own = self._by_client.get(client)
        if own is not None and len(own) >= self._per_client:
            self._end_session(next(iter(own)))
        if len(self._sessions) >= self._max_sessions:  # the oldest session of a largest group: the flood's
            most = max(len(own) for own in self._by_client.values())
            self._end_session(next(sid for sid, (_, group, _) in self._sessions.items()
                                   if len(self._by_client[group]) == most))
        session_id = session_id or secrets.token_hex(16)
        self._sessions[session_id] = (slug, client, now + idle_seconds)
        self._by_client.setdefault(client, OrderedDict())[session_id] = None
        return session_id

    def live_sessions(self) -> list[tuple[str, str, str, float]]:
        """(id, slug, client, seconds left) of every open session: what a process hands to Redis when it is back."""
        now = self._clock()
        return [(sid, slug, client, expires - now) for sid, (slug, client, expires) in self._sessions.items()
                if expires > now]

    async def touch_session(self, session_id: str, slug: str, idle_seconds: float) -> bool:
        entry = self._sessions.get(session_id)
        now = self._clock()
        if entry is None or entry[0] != slug:
            return False
        if entry[2] <= now:
            self._end_session(session_id)
            return False
        self._sessions[session_id] = (slug, entry[1], now + idle_seconds)
        self._sessions.move_to_end(session_id)
        self._by_client[entry[1]].move_to_end(session_id)
        return True

    async def delete_session(self, session_id: str, slug: str) -> bool:
        entry = self._sessions.get(session_id)
        if entry is None or entry[0] != slug:
            return False
        self._end_session(session_id)
        return True

    async def open_sessions(self) -> dict[str, int]:
        """Live handshake-era sessions per connector slug (for /metrics)."""
        now = self._clock()
        return dict(Counter(slug for slug, _, expires in self._sessions.values() if expires > now))

    def _end_session(self, session_id: str) -> None:
        _, client, _ = self._sessions.pop(session_id)
        own = self._by_client[client]
        del own[session_id]
        if not own:
            del self._by_client[client]

    async def take_lease(self, name: str, owner: str, seconds: float) -> bool:
        """Hold `name` for `seconds` (one process: always yours). Redis shares it across a cluster."""
        return True

    async def claim_fetch(self, key: str, owner: str, seconds: float) -> bool:
        """Whether this process fetches `key` now (one process: always; its own single flight joins the rest)."""
        return True

    async def fetch_progress(self, key: str) -> tuple[bytes | None, bool]:
        """The cached reply for `key`, and whether a claim to fetch it is still held (never, in one process)."""
        return self.cached(key), False

    async def release_fetch(self, key: str, owner: str) -> None:
        return None

    def describe(self) -> JsonDict:
        """What /health says about where the state lives."""
        return {"backend": "memory"}

    async def close(self) -> None:
        return None


def _load_or_create_secret(path: Path) -> bytes:
    """The 32-byte key in `path`, created (readable by this user only) if it is missing or unusable."""
    try:
        secret = path.read_bytes()
        if len(secret) == 32:
            return secret
    except FileNotFoundError:
        pass
    secret = secrets.token_bytes(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(secret)
    os.replace(tmp, path)  # atomic: two processes starting together end up agreeing on one file
    return path.read_bytes()
