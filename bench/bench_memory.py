"""Memory of open legacy sessions and their call records, and the cap that bounds them.

    .venv/bin/python bench/bench_memory.py [--sessions 10000]

One BesluitBron process (in-memory state). After a warm-up session (ended again), `--sessions`
legacy sessions are opened on `/tweedekamer/mcp` (initialize + initialized) and left idle; the
growth of the server's resident memory (/proc) divided by the count is the cost of one idle
session. Each loopback address opens at most `PER_ADDRESS` of them, each address in a /24 of its own
(the store caps sessions per client group, `proxy.core.peer.client_group`: a /24), under the store's cap
per client (`state.SESSIONS_PER_CLIENT`), as many clients would. Then every session makes one cached
tool call, which files one call record under the session: the further growth is the cost of a
call record (with its per-caller log). At the session cap one more initialize is still answered
and the least recently used session is evicted (it answers 404 from then on, and its client opens
a new one): reported as the status of that initialize and how many of the sessions used first
answer 404 (one).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import sys
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._harness import ACCEPT, Child, open_session, pin, post, rss_bytes  # noqa: E402
from bench.bench_calls import SLUG, TOOL, check_answer, request  # noqa: E402

__all__ = ["run", "session_cap"]

WORKERS = 16
PER_ADDRESS = 50  # sessions opened from one loopback address: under the store's cap per client


def _address(block: int) -> str:
    """The loopback address of block `block` of sessions, one /24 each (Linux routes all of 127/8 to loopback)."""
    return f"127.{1 + block // 250}.{block % 250}.1"


def session_cap() -> dict[str, Any]:
    """The bounds as the code sets them: sessions per process, callers and records per caller."""
    from proxy.state import store as state

    return {"max_sessions": inspect.signature(state.MemoryStore).parameters["max_sessions"].default,
            "callers_max": state.CALLERS_MAX, "calls_per_caller": state.CALLS_PER_CALLER}


async def _measure(base: str, pid: int, sessions: int, cap: int) -> dict[str, Any]:
    url = f"{base}/{SLUG}/mcp"
    connector = aiohttp.TCPConnector(limit=WORKERS)
    async with aiohttp.ClientSession(connector=connector) as http:
        warm = await open_session(http, url)
        await _tool_call(http, url, warm)
        async with http.delete(url, headers={"Mcp-Session-Id": warm, "MCP-Protocol-Version": "2025-11-25"}):
            pass
        await asyncio.sleep(0.2)
        before = rss_bytes(pid)
        ids: list[str] = []
        blocks = [min(PER_ADDRESS, sessions - start) for start in range(0, sessions, PER_ADDRESS)]

        async def opener(numbers: list[int]) -> None:
            for number in numbers:
                own = aiohttp.TCPConnector(limit=1, local_addr=(_address(number), 0))
                async with aiohttp.ClientSession(connector=own) as client:
                    for _ in range(blocks[number]):
                        ids.append(await open_session(client, url))

        await asyncio.gather(*(opener(list(range(i, len(blocks), WORKERS))) for i in range(WORKERS)))
        await asyncio.sleep(0.2)
        idle = rss_bytes(pid)

        async def caller(chunk: list[str]) -> None:
            for session in chunk:
                await _tool_call(http, url, session)

        await asyncio.gather(*(caller(ids[i::WORKERS]) for i in range(WORKERS)))
        await asyncio.sleep(0.2)
        recorded = rss_bytes(pid)
        beyond = evicted = None
        if sessions >= cap:
            headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
            init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "bench", "version": "0"}}}
            beyond, _, _ = await post(http, url, init, headers)
            # The least recently used session is one of the first each worker called: exactly one must be gone.
            first = [(await _call_status(http, url, session))[0] for session in ids[:WORKERS]]
            evicted = first.count(404)
    return {"sessions": len(ids), "rss_before_mb": before / 2**20, "rss_idle_mb": idle / 2**20,
            "rss_with_records_mb": recorded / 2**20,
            "bytes_per_idle_session": (idle - before) / len(ids),
            "bytes_per_call_record": (recorded - idle) / len(ids),
            "status_beyond_cap": beyond, "status_of_evicted": evicted}


async def _call_status(http: aiohttp.ClientSession, url: str, session: str) -> tuple[int, bytes]:
    headers, body = request("legacy", "tools/call", {"name": TOOL, "arguments": {"party": "VVD", "limit": 2}},
                            session)
    status, _, payload = await post(http, url, body, headers)
    return status, payload


async def _tool_call(http: aiohttp.ClientSession, url: str, session: str) -> None:
    check_answer(*await _call_status(http, url, session))


def run(*, sessions: int = 10_000) -> dict[str, Any]:
    pin(1)
    cap = session_cap()
    with Child("replicas", core=1) as replicas, Child("besluitbron", "--replicas", replicas.base) as ours:
        measured = asyncio.run(_measure(ours.base, ours.pid, sessions, cap["max_sessions"]))
    return {**measured, **cap}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    args = parser.parse_args()
    print(json.dumps(run(sessions=args.sessions), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
