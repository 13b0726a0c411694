"""A platform's budget is shared fairly (issue 27): twenty flooding networks cannot starve one other client.

Each flooder connects from a loopback network of its own (127.N.0.1, its own /16, so its own client group).
It spends its share's burst, then keeps distinct, uncached Tweede Kamer searches going at its share's pace
(a quarter of the budget a minute, four at a time): together five times the platform's budget.
Meanwhile one more client makes ten calls, one after another. Each token goes to the least-served group
first, so the newcomer waits behind nobody until it has had about as much as a flooder.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from pathlib import Path
from typing import Any

import aiohttp

from proxy.core.peer import client_group
from tests.conftest import LiveServer, Replicas, serve, write_registry
from tests.wire import stateless_call

FLOODERS = 20
AT_ONCE = 4
INNOCENT_CALLS = 10
BUDGET = 240
PACE = AT_ONCE * 60 / (BUDGET / 4)  # seconds between one task's calls: a network's four tasks spend its quarter


async def _search(http: aiohttp.ClientSession, url: str, query: str) -> dict[str, Any]:
    return await stateless_call(http, url, "search_documents", {"query": query, "limit": 1})


def _from(network: int) -> aiohttp.ClientSession:
    """A client whose connections leave from 127.<network>.0.1: its own /16 on loopback."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(f"127.{network}.0.1", 0)))


def _budget(data: dict[str, Any]) -> None:
    """Twice the shipped budget (240 a minute): the same contest, at twice the pace (the test takes half as long)."""
    data["platforms"]["tweedekamer"]["limits"]["requests_per_minute"] = BUDGET


async def test_twenty_flooding_networks_leave_an_innocent_client_at_least_half_its_calls(
        replicas: Replicas, tmp_path: Path) -> None:
    async with serve(write_registry(tmp_path, _budget), replicas) as server:
        await _contest(server)


async def _contest(server: LiveServer) -> None:
    url = server.url("tweedekamer")
    assert len({client_group(f"127.{n}.0.1") for n in range(1, FLOODERS + 2)}) == FLOODERS + 1
    stop = asyncio.Event()
    counter = itertools.count()
    flooded = {"served": 0, "refused": 0}

    async def flood(http: aiohttp.ClientSession) -> None:
        while not stop.is_set():
            result = await _search(http, url, f"motie {next(counter)}")
            flooded["refused" if result.get("isError") else "served"] += 1
            if flooded["refused"]:  # the burst is spent: on at each network's share's pace, which no cap holds back
                await asyncio.sleep(random.uniform(0, 2 * PACE))  # spread out, as independent clients are

    flooders = [_from(n) for n in range(1, FLOODERS + 1)]
    innocent = _from(FLOODERS + 1)
    try:
        tasks = [asyncio.create_task(flood(http)) for http in flooders for _ in range(AT_ONCE)]
        async with asyncio.timeout(30):
            while not flooded["refused"]:  # the flood has spent the budget's burst; from here it keeps it empty
                await asyncio.sleep(0.1)
        results = [await _search(innocent, url, f"begroting {i}") for i in range(INNOCENT_CALLS)]
        stop.set()
        await asyncio.gather(*tasks)
    finally:
        for http in (*flooders, innocent):
            await http.close()
    served = [r for r in results if not r.get("isError")]
    refusals = [r["content"][0]["text"] for r in results if r.get("isError")]
    assert len(served) >= INNOCENT_CALLS // 2, (len(served), refusals[:2], flooded)
    assert all("limit" in text for text in refusals)  # a refusal names the limit and when to come back


async def test_a_flood_rotating_through_the_64s_of_one_48_is_one_client(replicas: Replicas, tmp_path: Path) -> None:
    """Behind the trusted proxy (loopback), each flooding call names a new /64 of 2001:db8:1::/48: counted per /64,
    each was a new, least-served client, and an innocent client got 5 of 8 calls. Counted per /48, the flood spends
    one client's share and the innocent client is served every time."""
    async with serve(write_registry(tmp_path, _budget), replicas) as server, aiohttp.ClientSession() as http:
        url = server.url("tweedekamer")
        stop = asyncio.Event()
        counter = itertools.count(1)
        flooded = {"served": 0, "refused": 0}

        async def flood() -> None:
            while not stop.is_set():
                n = next(counter)
                result = await stateless_call(http, url, "search_documents", {"query": f"motie {n}", "limit": 1},
                                              forwarded_for=f"2001:db8:1:{n:x}::1")
                flooded["refused" if result.get("isError") else "served"] += 1
                if result.get("isError"):
                    await asyncio.sleep(0.05)

        tasks = [asyncio.create_task(flood()) for _ in range(FLOODERS * AT_ONCE)]
        try:
            async with asyncio.timeout(30):
                while not flooded["refused"]:
                    await asyncio.sleep(0.1)
            results = [await stateless_call(http, url, "search_documents", {"query": f"begroting {i}", "limit": 1},
                                            forwarded_for="2001:db8:2::7") for i in range(INNOCENT_CALLS)]
        finally:
            stop.set()
            await asyncio.gather(*tasks)
    refusals = [r["content"][0]["text"] for r in results if r.get("isError")]
    assert not refusals, (refusals[:2], flooded)
    assert flooded["served"] <= BUDGET // 4 + 5, flooded  # the flood had one client's share: a quarter of the budget
