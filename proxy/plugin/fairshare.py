"""A platform's rate budget, shared fairly between client groups: the least-served group goes first.

A group here is a budget group (`proxy.core.peer.budget_group`: an IPv4 /24, an IPv6 /48), so rotating through the
/64s of one allocation makes no new clients.

Every call to a platform spends one token of its per-minute budget: the state store's bucket, which
every process of the installation shares. A call first spends one of its client group's own tokens
(at most `CLIENT_SHARE_OF_RATE` of the budget a minute, so even a lone client leaves room), then
one of the platform's. A call that finds the platform's bucket empty queues here, per process and
platform, and each token as it frees goes to the waiting call whose group was served least in the
last minute. A group that wants more than its share therefore waits behind the others; it cannot
take theirs, however many addresses it calls from. A call not served within `MAX_RATE_WAIT_SECONDS`
is refused with when to come back (`UpstreamRateLimited`, `isError` to the assistant).

Fairness is per process: with several workers each queues its own callers, and the shared bucket
paces them all.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from proxy.core.errors import UpstreamRateLimited

__all__ = ["CLIENT_SHARE_OF_RATE", "MAX_RATE_WAIT_SECONDS", "FairBudget", "TakeToken"]

# Wait this long at most for a token before telling the caller to come back later.
MAX_RATE_WAIT_SECONDS = 2.0
# One client group may spend at most this share of a platform's per-minute budget.
CLIENT_SHARE_OF_RATE = 0.25
# Calls queued per platform and process; beyond this a call is refused at once (the queue could not drain in time).
MAX_WAITING = 256
# How long a group's use is remembered (its count halves every HALF_LIFE seconds), and for how many groups.
HALF_LIFE_SECONDS = 60.0
GROUPS_REMEMBERED = 10_000

# The store's token bucket: (key, per_minute, max_wait) → (granted, seconds to wait or until one is free).
TakeToken = Callable[[str, int, float], Awaitable[tuple[bool, float]]]


@dataclass(slots=True)
class _Waiter:
    group: str
    seq: int
    future: asyncio.Future[None] = field(repr=False)


class FairBudget:
    """One platform's budget in this process: its group shares, and the queue for the platform's tokens."""

    def __init__(self, take: TakeToken, *, clock: Callable[[], float] = time.monotonic,
                 waited: Callable[[], None] = lambda: None) -> None:
        """`waited` is told of every call that had to wait its turn (a metric)."""
        self._take = take
        self._waited = waited
        self._clock = clock
        self._waiting: list[_Waiter] = []
        self._served: OrderedDict[str, tuple[float, float]] = OrderedDict()  # group → (decayed count, when)
        self._seq = 0
        self._pump: asyncio.Task[None] | None = None

    async def spend(self, key: str, per_minute: int, group: str | None, name: str) -> None:
        """One token of platform `key`'s budget for a call of `group` (None: the installation's own, e.g. the
        load measurement); waits its turn, or raises UpstreamRateLimited saying whose limit and when to return."""
        if group is not None:
            share = max(1, int(per_minute * CLIENT_SHARE_OF_RATE))
            await self._spend_alone(f"{key}|client|{group}", share,
                                    f"{name}: your share of this installation's limit ({share} of its {per_minute} "
                                    "calls per minute) is used up")
        used_up = f"{name}: this installation's limit of {per_minute} calls per minute is reached"
        if not self._waiting:
            granted, _ = await self._take(key, per_minute, 0.0)
            if granted:
                self._note(group)
                return
        if len(self._waiting) >= MAX_WAITING:
            raise UpstreamRateLimited(key, f"{used_up}; try again in {self._estimate(per_minute)} s",
                                      retry_after=float(self._estimate(per_minute)))
        await self._queue(key, per_minute, group or "", used_up)

    async def _spend_alone(self, key: str, per_minute: int, used_up: str) -> None:
        """A group's own bucket: nobody else draws on it, so it needs no queue."""
        granted, wait = await self._take(key, per_minute, MAX_RATE_WAIT_SECONDS)
        if not granted:
            raise UpstreamRateLimited(key.split("|", 1)[0], f"{used_up}; try again in {max(1, round(wait))} s",
                                      retry_after=wait)
        if wait > 0:
            self._waited()
            await asyncio.sleep(wait)

    async def _queue(self, key: str, per_minute: int, group: str, used_up: str) -> None:
        self._seq += 1
        waiter = _Waiter(group, self._seq, asyncio.get_running_loop().create_future())
        self._waiting.append(waiter)
        self._waited()
        if self._pump is None or self._pump.done():
            self._pump = asyncio.create_task(self._hand_out(key, per_minute, used_up), name=f"fairshare-{key}")
        try:
            async with asyncio.timeout(MAX_RATE_WAIT_SECONDS):
                await asyncio.shield(waiter.future)
        except TimeoutError:
            if waiter.future.done() and waiter.future.exception() is None:
                return  # the turn came as the time ran out: take it
            ahead = sum(1 for w in self._waiting if w.seq < waiter.seq)
            raise UpstreamRateLimited(key, f"{used_up}; other clients' calls are ahead of yours; try again in "
                                      f"{self._estimate(per_minute, ahead)} s",
                                      retry_after=float(self._estimate(per_minute, ahead))) from None
        finally:
            if waiter in self._waiting:
                self._waiting.remove(waiter)
            if not waiter.future.done():
                waiter.future.cancel()

    async def _hand_out(self, key: str, per_minute: int, used_up: str) -> None:
        """Take the platform's tokens one at a time while calls wait, each to the least-served group's call."""
        while self._waiting:
            granted, wait = await self._take(key, per_minute, MAX_RATE_WAIT_SECONDS)
            if not granted:  # no token within reach (other processes spend the budget): nobody here can wait
                for waiter in self._waiting:
                    if not waiter.future.done():
                        waiter.future.set_exception(UpstreamRateLimited(
                            key, f"{used_up}; try again in {max(1, round(wait))} s", retry_after=wait))
                self._waiting.clear()
                return
            if wait > 0:
                await asyncio.sleep(wait)
            chosen = self._least_served()
            if chosen is None:
                return  # they all gave up meanwhile; the token reserved is spent on nobody
            self._waiting.remove(chosen)
            self._note(chosen.group)
            chosen.future.set_result(None)

    def _least_served(self) -> _Waiter | None:
        live = [w for w in self._waiting if not w.future.done()]
        return min(live, key=lambda w: (self._count(w.group), w.seq), default=None)

    def _count(self, group: str) -> float:
        entry = self._served.get(group)
        if entry is None:
            return 0.0
        count, when = entry
        return count * math.pow(0.5, (self._clock() - when) / HALF_LIFE_SECONDS)

    def _note(self, group: str | None) -> None:
        if group is None:
            return
        self._served[group] = (self._count(group) + 1.0, self._clock())
        self._served.move_to_end(group)
        while len(self._served) > GROUPS_REMEMBERED:
            self._served.popitem(last=False)

    def _estimate(self, per_minute: int, ahead: int | None = None) -> int:
        """Seconds until the calls ahead would have been served, at the budget's pace."""
        queued = len(self._waiting) if ahead is None else ahead
        return max(1, math.ceil((queued + 1) * 60.0 / per_minute))
