"""The one way to call a source platform: timeouts, size cap, TTL cache, single-flight, rate
limit, bounded retries, a call record per call and availability from live traffic.

Platform modules build the request and parse the reply; this module sends, times, caches and
records it. It never imports a platform module.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import os
import secrets
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import aiohttp

from proxy.core.caller import Caller
from proxy.core.errors import (
    ToolInputError,
    UpstreamBadReply,
    UpstreamError,
    UpstreamRateLimited,
    UpstreamStatusError,
    UpstreamTimeout,
    UpstreamTooLarge,
    UpstreamUnreachable,
)
from proxy.core.peer import budget_group
from proxy.core.shapes import CallRecord, availability_record, call_record
from proxy.observe.jsonlog import REQUEST_ID
from proxy.observe.metrics import Metrics, PlatformMetrics
from proxy.observe.tracing import ACTIVE_TRACER, platform_span
from proxy.plugin.fairshare import MAX_RATE_WAIT_SECONDS, FairBudget
from proxy.registry.model import Platform
from proxy.results.resultmemo import Fetch, note_fetch
from proxy.state.store import StateStore

__all__ = ["Upstream"]

log = logging.getLogger(__name__)
T = TypeVar("T")
Params = Mapping[str, str | int | float] | list[tuple[str, str]]

RETRIES_ON_CONNECTION_ERROR = 2
# A platform's Retry-After beyond this is treated as this (a garbled header must not lock a platform out for days).
MAX_PLATFORM_PAUSE_SECONDS = 600.0
# Calls in flight per platform. Waiting for a slot is not counted against the call's timeout (a slow
# platform would otherwise fail calls it would have answered, and be marked unavailable for it).
CONCURRENT_CALLS_PER_PLATFORM = 16
# Waiting for a slot is bounded separately: this many times the platform's timeout.
SLOT_WAIT_FACTOR = 3
# An upstream timeout noticed this late (s) says our own event loop was saturated (each of its turns
# slow), not that the platform was: the call is refused as "busy" and the platform is not marked unavailable.
OWN_LAG_SECONDS = 1.0
# A platform's 429 pauses our calls to it for its Retry-After, within these bounds (seconds).
RETRY_AFTER_BOUNDS = (1.0, MAX_PLATFORM_PAUSE_SECONDS)
MAX_REDIRECTS = 5
# Waiting for a reply another process fetches: first look after this long, then less often, up to the second.
SHARED_POLL_SECONDS = (0.01, 0.1)
_SECRET_PARAMS = frozenset({"key", "apikey", "api_key", "token", "access_token", "password"})


_owner: tuple[int, str] | None = None


def process_owner() -> str:
    """This process's name on a shared claim: made anew in a forked worker, so no two processes share it."""
    global _owner
    if _owner is None or _owner[0] != os.getpid():
        _owner = (os.getpid(), f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(6)}")
    return _owner[1]


@dataclass(frozen=True, slots=True)
class _Fetched:
    status: int
    body: bytes


class _Connection:
    """What outlives a registry generation: the HTTP client and the calls in flight (single-flight)."""

    def __init__(self, session: aiohttp.ClientSession | None, budget: FairBudget) -> None:
        self.session = session
        self.budget = budget  # the rate budget's queue and group shares, kept across reloads
        self.inflight: dict[str, asyncio.Future[_Fetched]] = {}
        self.slots = asyncio.Semaphore(CONCURRENT_CALLS_PER_PLATFORM)
        self.paused_until = 0.0  # monotonic time before which the platform asked us not to call (rate headers)


@dataclass(frozen=True, slots=True)
class _Target:
    """Everything derived from one request's shape: built once, then looked up (a cached call repeats it)."""

    url: str
    cache_key: str
    public_url: str


# Distinct request shapes remembered per platform; beyond this the memo starts afresh.
_TARGETS_MAX = 4096


class Upstream:
    """Calls to one platform under one generation's settings (`platform`), which never change.

    A reload makes a new `Upstream` with `with_platform`: it shares the connection, cache and
    single-flight table, while calls already running finish under the settings they started with.
    """

    def __init__(self, platform: Platform, *, store: StateStore,
                 session: aiohttp.ClientSession | None = None, _connection: _Connection | None = None,
                 metrics: PlatformMetrics | None = None) -> None:
        self._metrics = metrics or Metrics().platform(platform.key)  # bound children: a call only increments
        self._targets: dict[tuple[Any, ...], _Target] = {}
        self.platform = platform
        self._store = store
        self._conn = _connection or _Connection(session, FairBudget(store.take_token,
                                                                   waited=self._metrics.rate_waits.inc))
        # Built once per generation's settings, not per call.
        self._base_host = urlsplit(platform.base_url).hostname
        self._client_timeout = aiohttp.ClientTimeout(sock_connect=platform.timeouts.connect_seconds)

    def with_platform(self, platform: Platform) -> Upstream:
        """The same connection under new settings (a reload)."""
        return Upstream(platform, store=self._store, _connection=self._conn, metrics=self._metrics)

    @property
    def key(self) -> str:
        return self.platform.key

    def url(self, path: str = "") -> str:
        """An absolute URL under the platform's base URL."""
        return self.platform.base_url + path

    async def close(self) -> None:
        if self._conn.session is not None:
            await self._conn.session.close()
            self._conn.session = None

    # ----------------------------------------------------------------------- public calls

    async def get(self, path: str, parse: Callable[[bytes], T], *, params: Params | None = None,
                  headers: Mapping[str, str] | None = None, caller: Caller, tool: str | None = None) -> T:
        """GET `base_url + path` and parse the body; cached, single-flight, retried on connection errors."""
        return await self._call("GET", path, parse, params=params, body=None, headers=headers,
                                caller=caller, tool=tool, idempotent=True)

    async def get_url(self, url: str, parse: Callable[[bytes], T], *, headers: Mapping[str, str] | None = None,
                      caller: Caller, tool: str | None = None) -> T:
        """GET an absolute URL the platform linked to (a text on another host), under this platform's
        cache, single-flight, rate limit, call log and availability."""
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"get_url needs an absolute http(s) URL, got {url!r}")
        return await self._call("GET", url, parse, params=None, body=None, headers=headers, caller=caller,
                                tool=tool, idempotent=True)

    async def post_json(self, path: str, payload: Any, parse: Callable[[bytes], T], *, caller: Caller,
                        tool: str | None = None, idempotent: bool = False) -> T:
        """POST a JSON body (a search, for ORI); retried only when the caller says it is idempotent."""
        body = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
        return await self._call("POST", path, parse, params=None, body=body,
                                headers={"Content-Type": "application/json"}, caller=caller, tool=tool,
                                idempotent=idempotent)

    # ----------------------------------------------------------------------- machinery

    async def _call(self, method: str, path: str, parse: Callable[[bytes], T], *, params: Params | None,
                    body: bytes | None, headers: Mapping[str, str] | None, caller: Caller, tool: str | None,
                    idempotent: bool) -> T:
        started = time.perf_counter()
        target = self._target(method, path, params, body)
        key = target.cache_key

        cached = await self._store.cache_get(key)
        if cached is not None:
            self._metrics.cache_hits.inc()
            return await self._reused(cached, 200, parse, caller, tool, method, target, started)

        shared = self._conn.inflight.get(key)
        if shared is not None:
            self._metrics.joins.inc()
            try:
                fetched = await asyncio.shield(shared)
            except UpstreamError as exc:  # the one live call failed: each waiting caller's log says so
                await self._record(caller, tool, method, target, getattr(exc, "status", None), started, 0,
                                   cache_hit=True, error=str(exc))
                raise
            return await self._reused(fetched.body, fetched.status, parse, caller, tool, method, target, started)

        future: asyncio.Future[_Fetched] = asyncio.get_running_loop().create_future()
        self._conn.inflight[key] = future
        claimed = False
        try:
            # Another process may be fetching the very same request (a shared store): wait for its reply instead.
            lease = self.platform.timeouts.total_seconds + MAX_RATE_WAIT_SECONDS + 1
            claimed = await self._store.claim_fetch(key, process_owner(), lease)
            shared_body = None if claimed else await self._fetched_elsewhere(key, lease)
            if shared_body is not None:
                self._metrics.joins.inc()
                future.set_result(_Fetched(status=200, body=shared_body))
                return await self._reused(shared_body, 200, parse, caller, tool, method, target, started)
            fetched, value = await self._live(method, target, body, headers, caller, tool, idempotent, started, parse)
            future.set_result(fetched)  # this process's joiners go on now, not after the store's round trip
            await self._store.cache_set(key, fetched.body, self.platform.cache_ttl_seconds)
        except BaseException as exc:
            if not future.done():
                future.set_exception(exc)
                future.exception()  # mark retrieved: joiners re-raise it, nobody else must
            raise
        finally:
            self._conn.inflight.pop(key, None)
            if claimed:  # after the reply is cached: a process waiting for it finds it there
                await self._store.release_fetch(key, process_owner())
        note_fetch(self, method, target, fetched.body)
        return value  # parsed once, in _live

    async def _reused(self, body: bytes, status: int, parse: Callable[[bytes], T], caller: Caller, tool: str | None,
                      method: str, target: _Target, started: float) -> T:
        """A reply this call did not send for (the cache's, or a fetch under way here or in another process):
        parsed for this caller and logged as a cache hit."""
        value = parse(body)
        await self._record(caller, tool, method, target, status, started, len(body), cache_hit=True)
        note_fetch(self, method, target, body)
        return value

    async def _fetched_elsewhere(self, key: str, lease: float) -> bytes | None:
        """The reply another process is fetching for `key`, once it is cached; None when that process gave up (its
        claim ended without a reply) or took longer than its claim, and this one should fetch it itself."""
        deadline = time.monotonic() + lease
        pause = SHARED_POLL_SECONDS[0]
        while time.monotonic() < deadline:
            await asyncio.sleep(pause)
            body, claimed = await self._store.fetch_progress(key)
            if body is not None or not claimed:
                return body
            pause = min(pause * 1.5, SHARED_POLL_SECONDS[1])
        return None

    def holds(self, target: _Target, body: bytes) -> bool:
        """Whether this process holds exactly `body` for `target` in the cache (no round trip); when not, only
        `still_cached` can say."""
        cached = self._store.cached_nearby(target.cache_key)
        return cached is not None and (cached is body or cached == body)

    async def still_cached(self, target: _Target, body: bytes) -> bool:
        """Whether a call to `target` would now be a cache hit on exactly `body` (`proxy.results.resultmemo`)."""
        cached = await self._store.cache_get(target.cache_key)
        return cached is not None and (cached is body or cached == body)

    def cache_hit_record(self, tool: str | None, fetch: Fetch) -> CallRecord:
        """The record a cache hit on `fetch` writes, for a result reused from `proxy.results.resultmemo` (which
        stamps its moment and request id): what `_call` records for a hit, taking no time."""
        return call_record(source=self.platform.key, tool=tool, method=fetch.method, url=fetch.target.public_url,
                           status=200, started=None, size=len(fetch.body), cache_hit=True, error=None,
                           request_id=None)

    def count_cache_hits(self, hits: int) -> None:
        self._metrics.cache_hits.inc(hits)

    async def _live(self, method: str, target: _Target, body: bytes | None, headers: Mapping[str, str] | None,
                    caller: Caller, tool: str | None, idempotent: bool, started: float,
                    parse: Callable[[bytes], T]) -> tuple[_Fetched, T]:
        """One live exchange: wait for the rate limit, send (with retries), parse, record.

        Returns the reply and its parsed value (joiners of this single flight parse their own copy)."""
        platform = self.platform
        url = target.url
        status: int | None = None
        size = 0
        try:
            await self._wait_for_token()
            await self._wait_for_platform()
            status, data = await self._send(method, url, body, headers, idempotent)
            size = len(data)
            try:
                value = parse(data)
            except ToolInputError:
                raise  # the platform answered: the question was at fault, not the platform
            except UpstreamError:
                raise
            except Exception as exc:
                raise UpstreamBadReply(platform.key, f"{platform.title.en} sent a reply that could not be read "
                                       f"({type(exc).__name__}); try again later") from exc
        except ToolInputError:
            await self._record(caller, tool, method, target, status, started, size, cache_hit=False)
            await self._set_available(True, None)
            raise
        except UpstreamRateLimited as exc:
            # Our own limit (nothing went out) or the platform's 429: the platform is there either way.
            await self._record(caller, tool, method, target, exc.status, started, size, cache_hit=False,
                               error=str(exc))
            raise
        except UpstreamError as exc:
            status = getattr(exc, "status", status)
            await self._record(caller, tool, method, target, status, started, size, cache_hit=False,
                               error=str(exc))
            # A 4xx (a bad id, a query the platform refuses) is the platform answering: still available.
            answered = isinstance(exc, UpstreamStatusError) and 400 <= exc.status < 500
            await self._set_available(answered, None if answered else _shared_summary(platform, exc))
            raise
        await self._record(caller, tool, method, target, status, started, size, cache_hit=False)
        await self._set_available(True, None)
        return _Fetched(status=status, body=data), value

    async def _wait_for_token(self) -> None:
        """This call's token of the live rate limit, fairly queued between client groups (`FairBudget`)."""
        platform = self.platform
        try:
            await self._conn.budget.spend(platform.key, platform.limits.requests_per_minute, budget_group(),
                                          platform.title.en)
        except UpstreamRateLimited:
            self._metrics.rate_refusals.inc()
            raise

    async def _wait_for_platform(self) -> None:
        """Honour the platform's own pacing (see `_pause_from_headers`): wait briefly, or refuse with when to return."""
        wait = self._conn.paused_until - time.monotonic()
        if wait > MAX_RATE_WAIT_SECONDS:
            self._metrics.rate_refusals.inc()
            raise UpstreamRateLimited(self.platform.key, f"{self.platform.title.en} asked us to pause (its rate "
                                      f"limit); try again in {max(1, round(wait))} s", retry_after=wait)
        if wait > 0:
            self._metrics.rate_waits.inc()
            await asyncio.sleep(wait)

    def _note_pacing(self, status: int, headers: Mapping[str, str]) -> None:
        pause = _pause_from_headers(status, headers)
        if pause is not None:
            self._conn.paused_until = max(self._conn.paused_until, time.monotonic() + pause)

    async def _send(self, method: str, url: str, body: bytes | None, headers: Mapping[str, str] | None,
                    idempotent: bool) -> tuple[int, bytes]:
        attempts = 1 + (RETRIES_ON_CONNECTION_ERROR if idempotent else 0)
        for attempt in range(attempts):
            try:
                return await self._exchange(method, url, body, headers)
            except UpstreamUnreachable:
                if attempt + 1 == attempts:
                    raise
                await asyncio.sleep(0.2 * (attempt + 1))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _exchange(self, method: str, url: str, body: bytes | None,
                        headers: Mapping[str, str] | None) -> tuple[int, bytes]:
        platform = self.platform
        name = platform.title.en
        slots = self._conn.slots
        try:
            if slots.locked():  # only a wait for a slot needs its own timer
                async with asyncio.timeout(platform.timeouts.total_seconds * SLOT_WAIT_FACTOR):
                    await slots.acquire()
            else:
                await slots.acquire()
        except TimeoutError as exc:
            self._metrics.rate_refusals.inc()
            raise UpstreamRateLimited(platform.key, f"{name} is busy: {CONCURRENT_CALLS_PER_PLATFORM} calls to it "
                                      "are under way; try again in a few seconds", retry_after=5.0) from exc
        loop = asyncio.get_running_loop()
        sent = loop.time()
        deadline = sent + platform.timeouts.total_seconds
        metrics = self._metrics
        outcome = metrics.error
        try:
            async with asyncio.timeout_at(deadline):
                tracer = ACTIVE_TRACER.get()
                if tracer is None:
                    answer = await self._follow(method, url, body, headers)
                else:
                    with platform_span(tracer, platform.key, method, _public_url(url)) as span:
                        answer = await self._follow(method, url, body, headers)
                        span.set_attribute("http.response.status_code", answer[0])
            outcome = metrics.ok
            return answer
        except TimeoutError as exc:
            behind = loop.time() - deadline
            if behind > OWN_LAG_SECONDS:
                # Our own event loop noticed the deadline this late: it was too busy to read the platform's
                # reply, which may have been waiting in the socket. Not the platform's fault, nor its outage.
                raise UpstreamRateLimited(platform.key, f"BesluitBron is busy: it fell {behind:.0f} s behind on its "
                                          f"own work while waiting for {name}; try again in a few seconds",
                                          retry_after=5.0) from exc
            raise UpstreamTimeout(platform.key, f"{name} did not answer within {platform.timeouts.total_seconds:g} s; "
                                  "try again later or narrow the request") from exc
        except aiohttp.ClientPayloadError as exc:
            raise UpstreamBadReply(platform.key, f"{name} broke off its reply; try again later") from exc
        except aiohttp.ClientError as exc:
            raise UpstreamUnreachable(platform.key, f"{name} cannot be reached ({type(exc).__name__}); "
                                      "try again later") from exc
        finally:
            self._conn.slots.release()
            outcome.inc()
            metrics.latency.observe(loop.time() - sent)

    async def _follow(self, method: str, url: str, body: bytes | None,
                      headers: Mapping[str, str] | None) -> tuple[int, bytes]:
        """One exchange, following redirects by hand: each hop must stay on a host of this call
        (the platform's, or the document host the platform module already allowed)."""
        platform = self.platform
        hosts = {self._base_host, urlsplit(url).hostname}
        headers = {"User-Agent": platform.user_agent, **(headers or {})}
        for _ in range(MAX_REDIRECTS + 1):
            async with self._client().request(method, url, data=body, headers=headers, timeout=self._client_timeout,
                                              allow_redirects=False) as resp:
                self._note_pacing(resp.status, resp.headers)
                if resp.status in (301, 302, 303, 307, 308) and "Location" in resp.headers:
                    target = urljoin(url, resp.headers["Location"])
                    parts = urlsplit(target)
                    if parts.scheme not in ("http", "https") or parts.hostname not in hosts:
                        raise UpstreamBadReply(platform.key, f"{platform.title.en} redirected to another host "
                                               f"({parts.hostname or 'none'}); it was not followed")
                    url = target
                    if resp.status == 303:
                        method, body = "GET", None
                    continue
                data = await self._read_capped(resp)
                _raise_for_status(platform, resp.status, resp.reason, resp.headers, data)
                return resp.status, data
        raise UpstreamBadReply(platform.key, f"{platform.title.en} redirected more than {MAX_REDIRECTS} times; "
                               "try again later")

    async def _read_capped(self, resp: aiohttp.ClientResponse) -> bytes:
        platform = self.platform
        name, cap = platform.title.en, platform.max_response_bytes
        if resp.content_length is not None and resp.content_length > cap:
            raise UpstreamTooLarge(platform.key, f"{name} sent {resp.content_length} bytes, more than the "
                                   f"{cap}-byte cap; narrow the request (fewer results, a shorter chunk)")
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.content.iter_chunked(65536):
            size += len(chunk)
            if size > cap:
                raise UpstreamTooLarge(platform.key, f"{name} sent more than the {cap}-byte cap; narrow "
                                       "the request (fewer results, a shorter chunk)")
            chunks.append(chunk)
        return b"".join(chunks)

    def _client(self) -> aiohttp.ClientSession:
        if self._conn.session is None or self._conn.session.closed:
            self._conn.session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0, limit_per_host=0),  # our own slots bound it
                # One client serves everyone's calls: a cookie a platform set in answer to one person's call
                # must not travel with the next person's (the APIs need none; keeping none is also cheaper).
                cookie_jar=aiohttp.DummyCookieJar(),
            )
        return self._conn.session

    def _target(self, method: str, path: str, params: Params | None, body: bytes | None) -> _Target:
        """URL, cache key and shown URL of a request; built once per distinct request shape."""
        frozen = tuple(params.items()) if isinstance(params, Mapping) else tuple(params or ())
        memo = (method, path, frozen, body)
        try:
            hit = self._targets.get(memo)
        except TypeError:  # an unhashable parameter value: build it every time
            return self._build_target(method, path, params, body)
        if hit is None:
            if len(self._targets) >= _TARGETS_MAX:
                self._targets.clear()
            hit = self._targets[memo] = self._build_target(method, path, params, body)
        return hit

    def _build_target(self, method: str, path: str, params: Params | None, body: bytes | None) -> _Target:
        absolute = path.startswith(("http://", "https://"))
        url = _with_params(path if absolute else self.url(path), params)
        return _Target(url=url, cache_key=_cache_key(self.platform.key, method, url, body), public_url=_public_url(url))

    async def _record(self, caller: Caller, tool: str | None, method: str, target: _Target, status: int | None,
                      started: float, size: int, *, cache_hit: bool, error: str | None = None) -> None:
        await self._store.record_call(caller.key, self._call_record(tool, method, target, status, started, size,
                                                                    cache_hit=cache_hit, error=error))

    def _call_record(self, tool: str | None, method: str, target: _Target, status: int | None, started: float,
                     size: int, *, cache_hit: bool, error: str | None = None) -> CallRecord:
        return call_record(source=self.platform.key, tool=tool, method=method, url=target.public_url, status=status,
                           started=started, size=size, cache_hit=cache_hit, error=error, request_id=REQUEST_ID.get())

    async def _set_available(self, available: bool, error: str | None) -> None:
        await self._store.set_availability(self.platform.key, availability_record(available, error))


# --------------------------------------------------------------------------- helpers


def _raise_for_status(platform: Platform, status: int, reason: str | None, headers: Mapping[str, str],
                      body: bytes = b"") -> None:
    if status < 400:
        return
    name = platform.title.en
    said = _excerpt(body)
    if status == 429:
        wait = _retry_after(headers.get("Retry-After", ""))
        raise UpstreamRateLimited(platform.key, f"{name} asks us to slow down (HTTP 429); try again in {wait:.0f} s",
                                  retry_after=wait, status=429)
    if status >= 500:
        raise UpstreamStatusError(platform.key, f"{name} is failing (HTTP {status} {reason or ''}); this is on the "
                                  "platform's side, try again later", status=status)
    if status == 404:
        raise UpstreamStatusError(platform.key, f"{name} does not know this item (HTTP 404); check the id{said}",
                                  status=status, body=body)
    raise UpstreamStatusError(platform.key, f"{name} refused the request (HTTP {status} {reason or ''}){said}",
                              status=status, body=body)


def _pause_from_headers(status: int, headers: Mapping[str, str]) -> float | None:
    """Seconds the platform asks us to hold off, from `Retry-After` on a 429/503 or the IETF `RateLimit-*`
    headers (OpenBesluitvorming sends them on every reply), or None when it asks nothing.

    An empty budget (`RateLimit-Remaining` 0) pauses for one unit's refill, `RateLimit-Reset / RateLimit-Limit`:
    right for a token bucket; for a fixed window the platform's next 429 then says how long."""
    if status in (429, 503):
        retry = headers.get("Retry-After", "").strip()
        if retry.isdigit():
            return min(float(retry), MAX_PLATFORM_PAUSE_SECONDS)
    remaining, reset, limit = (_number(headers.get(h)) for h in
                               ("RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Limit"))
    if remaining is None or remaining >= 1:
        return None
    if reset is None:
        return 1.0
    return reset / limit if limit else reset


def _number(value: str | None) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) and number >= 0 else None


def _retry_after(value: str) -> float:
    """Seconds from a Retry-After (delta-seconds or an HTTP date), kept within RETRY_AFTER_BOUNDS;
    absent or unreadable means a minute."""
    value = value.strip()
    seconds = 60.0
    if value.isascii() and value.isdigit():
        seconds = float(value[:9])
    elif value:
        try:
            seconds = (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
        except (TypeError, ValueError, OverflowError):
            seconds = 60.0
    low, high = RETRY_AFTER_BOUNDS
    return min(high, max(low, seconds))


def _shared_summary(platform: Platform, exc: UpstreamError) -> str:
    """What every client may see of a failure (availability.last_error): its kind, never the platform's
    own words, which can echo the question of the client whose call failed."""
    name = platform.title.en
    if isinstance(exc, UpstreamStatusError):
        return f"{name} answered HTTP {exc.status}"
    kinds = {UpstreamTimeout: "did not answer in time", UpstreamUnreachable: "could not be reached",
             UpstreamTooLarge: "sent a reply larger than the cap", UpstreamBadReply: "sent a reply that could not "
             "be used (an error or an unreadable body)"}
    return f"{name} {next((v for k, v in kinds.items() if isinstance(exc, k)), 'failed')}"


def _excerpt(body: bytes, limit: int = 200) -> str:
    """What a platform said about a refused request, as one short line (its own words help the user)."""
    text = " ".join(body.decode("utf-8", errors="replace").split())
    if not text or text.startswith("<"):
        return ""  # an HTML error page says nothing useful in one line
    return f": {text[:limit]}{'…' if len(text) > limit else ''}"


def _with_params(url: str, params: Params | None) -> str:
    if not params:
        return url
    items = list(params.items()) if isinstance(params, Mapping) else list(params)
    sep = "&" if urlsplit(url).query else "?"
    return url + sep + urlencode([(k, str(v)) for k, v in items])


def _cache_key(platform: str, method: str, url: str, body: bytes | None) -> str:
    digest = hashlib.sha256(b"%s %s\n" % (method.encode(), url.encode()) + (body or b"")).hexdigest()
    return f"{platform}:{digest}"


def _public_url(url: str) -> str:
    """The URL as it may be shown to a client: credentials in the address and query parameters that
    look like secrets removed."""
    parts = urlsplit(url)
    if "@" in parts.netloc:
        parts = parts._replace(netloc=parts.netloc.rpartition("@")[2])
    if not parts.query:
        return urlunsplit(parts)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    query = [(k, "***" if k.lower() in _SECRET_PARAMS else v) for k, v in pairs]
    return urlunsplit(parts._replace(query=urlencode(query)))
