"""A cached real tool call, side by side with the ceiling and the other Python MCP servers.

    .venv/bin/python bench/bench_calls.py [--seconds 3] [--rounds 3] [--clients 1 8 64] [--profile FILE]

The call: `search_members {"party": "VVD", "limit": 2}` on `/tweedekamer/mcp`, answered from the
cache (the replica is asked once, in the warm-up), in both protocol eras: 2026-07-28 stateless and
2025-11-25 inside a session (one per connection, used round-robin). The same load generator, `wrk`
(C, one thread, pinned to the core the server does not have; `bench/wrk_load.py`), in the same run, asks:

  besluitbron  the real application
  bare         a plain aiohttp handler answering the very same result bytes (the ceiling)
  checked      the bare handler plus the SDK's own checks of each request (the floor any server keeping them
               stands on: how near the ceiling those checks alone let a server come)
  sdk          the `mcp` SDK's own Streamable HTTP server (stateless, JSON) with the same tool
  fastmcp      FastMCP (stateless, JSON) with the same tool

Python does only the protocol work a client must do: it opens the 2025-11-25 sessions (initialize +
notifications/initialized) and hands their ids to wrk, reads BesluitBron's answer once for the other
servers, and checks one sample reply per measurement before wrk runs; wrk checks every reply too.
Rounds interleave the servers so drift hits all alike; each figure is the median over rounds.
`--profile FILE` instead runs BesluitBron alone under cProfile (8 connections, modern) and prints
where its CPU goes (`bench/bench_profile.py` does it with py-spy, in both eras).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pstats
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import wrk_load  # noqa: E402
from bench._harness import (  # noqa: E402
    ACCEPT,
    LEGACY,
    MODERN,
    Child,
    median,
    open_session,
    pin,
    post,
    run_load,
)

__all__ = ["ARGUMENTS", "EXPECT", "REJECT", "SERVERS", "TOOL", "open_sessions", "run", "wrk_spec"]

SLUG = "tweedekamer"
TOOL = "search_members"
ARGUMENTS = {"party": "VVD", "limit": 2}
SERVERS = ("besluitbron", "bare", "checked", "sdk", "fastmcp")
ERAS = ("modern", "legacy")
_META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
         "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}}


def request(era: str, method: str, params: dict[str, Any], session: str = "") -> tuple[dict[str, str], dict[str, Any]]:
    """Headers and body of one JSON-RPC request in `era` (the id is filled in per call)."""
    headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
    if era == "modern":
        headers.update({"MCP-Protocol-Version": MODERN, "Mcp-Method": method})
        if method == "tools/call":
            headers["Mcp-Name"] = params["name"]
        params = {**params, "_meta": _META}
    else:
        headers["MCP-Protocol-Version"] = LEGACY
        if session:
            headers["Mcp-Session-Id"] = session
    return headers, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def _call(era: str, session: str = "") -> tuple[dict[str, str], dict[str, Any]]:
    return request(era, "tools/call", {"name": TOOL, "arguments": ARGUMENTS}, session)


# What every reply must (and must not) contain: the checks of `check_answer`, done by wrk on every reply.
EXPECT = ('"result":', '"structuredContent"', "VVD")
REJECT = ('"isError":true', '"error":')


def check_answer(status: int, payload: bytes) -> None:
    if status != 200 or b'"result":' not in payload or b'"isError":true' in payload \
            or b'"structuredContent"' not in payload:
        raise RuntimeError(f"not a successful tool result: {status} {payload[:300]!r}")


async def capture_answer(base: str) -> dict[str, Any]:
    """BesluitBron's tools/list entry for the tool and its result bytes in each era (also warms the cache)."""
    url = f"{base}/{SLUG}/mcp"
    async with aiohttp.ClientSession() as http:
        _, _, listing = await post(http, url, *reversed(request("modern", "tools/list", {})))
        tool = next(t for t in json.loads(listing)["result"]["tools"] if t["name"] == TOOL)
        results: dict[str, str] = {}
        structured: Any = None
        for era in ERAS:
            session = await open_session(http, url) if era == "legacy" else ""
            headers, body = _call(era, session)
            status, _, payload = await post(http, url, body, headers)
            check_answer(status, payload)
            start = payload.index(b',"result":') + len(b',"result":')
            results[era] = payload[start:-1].decode()
            structured = json.loads(payload)["result"]["structuredContent"]
    return {"tool": tool, "structured": structured, "results": results}


async def open_sessions(url: str, count: int) -> list[str]:
    """`count` 2025-11-25 sessions at `url` (protocol work, so Python's), for wrk to use round-robin."""
    async with aiohttp.ClientSession() as http:
        return [await open_session(http, url) for _ in range(count)]


def wrk_spec(directory: Path, url: str, era: str, sessions: list[str]) -> Path:
    """Check one sample reply of the cached call (per session) in Python, then write wrk's spec for it."""
    headers, body = _call(era)
    asyncio.run(wrk_load.verify_sample(url, headers, body, sessions=sessions, check=check_answer))
    return wrk_load.write_spec(directory, url, headers, body, sessions=sessions, expect=EXPECT, reject=REJECT)


def run(*, seconds: int = 3, warmup: int = 1, rounds: int = 3, clients: tuple[int, ...] = (1, 8, 64),
        servers: tuple[str, ...] = SERVERS, progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Measure every (era, clients, server) with wrk; returns medians, ratios and the answer's size.

    Without wrk, returns only {"skipped": why} (the Python generator would measure itself, not the servers).
    """
    if not wrk_load.available():
        progress(f"  calls: skipped: {wrk_load.MISSING}")
        return {"skipped": wrk_load.MISSING}
    pin(1)
    with tempfile.TemporaryDirectory(prefix="bench-calls-") as tmp, \
            Child("replicas", core=1) as replicas, \
            Child("besluitbron", "--replicas", replicas.base) as ours:
        answer = asyncio.run(capture_answer(ours.base))
        answer_file = Path(tmp) / "answer.json"
        answer_file.write_text(json.dumps(answer, ensure_ascii=False))
        children = {"besluitbron": ours}
        try:
            for name in servers:
                if name != "besluitbron":
                    children[name] = Child(name, "--answer", str(answer_file))
            raw: dict[tuple[str, int, str], list[wrk_load.WrkMeasurement]] = {}
            for n in clients:
                for era in ERAS:
                    for _ in range(rounds):
                        for name in servers:
                            child = children[name]
                            url = f"{child.base}/{SLUG}/mcp"
                            # Our 2025-11-25 era is session-bound: one session per connection, fresh each time.
                            stateful = era == "legacy" and name == "besluitbron"
                            sessions = asyncio.run(open_sessions(url, n)) if stateful else []
                            spec = wrk_spec(Path(tmp), url, era, sessions)
                            m = wrk_load.measure(url, spec, connections=n, seconds=seconds, warmup_seconds=warmup,
                                                 pids=[child.pid])
                            raw.setdefault((era, n, name), []).append(m)
                    progress(f"  calls: {era} {n} connections: " + ", ".join(
                        f"{s} {median([m.calls_per_s for m in raw[(era, n, s)]]):.0f}/s" for s in servers))
        finally:
            for name, child in children.items():
                if name != "besluitbron":
                    child.stop()
    rows = []
    for (era, n, name), runs in raw.items():
        row: dict[str, Any] = {
            "era": era, "clients": n, "server": name,
            **{k: median([getattr(m, k) for m in runs]) for k in ("calls_per_s", "p50_ms", "p90_ms", "p99_ms",
                                                                   "cpu_us_per_call", "generator_busy")},
            "calls": sum(m.calls for m in runs),
            "errors": sum(sum(m.errors.values()) for m in runs)}
        rows.append(row)
    for row in rows:
        ref = {r["server"]: r for r in rows if r["era"] == row["era"] and r["clients"] == row["clients"]}
        row["x_bare"] = row["calls_per_s"] / ref["bare"]["calls_per_s"] if "bare" in ref else None
        row["x_sdk"] = row["calls_per_s"] / ref["sdk"]["calls_per_s"] if "sdk" in ref else None
        cpu = row["cpu_us_per_call"]
        row["cpu_x_bare"] = ref["bare"]["cpu_us_per_call"] / cpu if "bare" in ref and cpu else None
        row["cpu_x_sdk"] = ref["sdk"]["cpu_us_per_call"] / cpu if "sdk" in ref and cpu else None
    return {"generator": "wrk", "tool": TOOL, "slug": SLUG, "arguments": ARGUMENTS, "seconds": seconds,
            "warmup_seconds": warmup, "rounds": rounds,
            "answer_bytes": {era: len(text.encode()) for era, text in answer["results"].items()}, "rows": rows}


def profile(out: Path, *, seconds: int = 10, clients: int = 8) -> None:
    """BesluitBron alone under cProfile: the cached modern call (wrk's load; without wrk, the Python
    generator's, which only paces the calls), then the top of the profile."""
    pin(1)
    with tempfile.TemporaryDirectory(prefix="bench-calls-") as tmp, Child("replicas", core=1) as replicas, \
            Child("besluitbron", "--replicas", replicas.base, "--profile", str(out)) as ours:
        asyncio.run(capture_answer(ours.base))
        url = f"{ours.base}/{SLUG}/mcp"
        if wrk_load.available():
            m = wrk_load.measure(url, wrk_spec(Path(tmp), url, "modern", []), connections=clients, seconds=seconds,
                                 pids=[ours.pid])
        else:
            m = asyncio.run(run_load(url, [_call("modern")] * clients, calls=seconds * 500, pid=ours.pid,
                                     check=check_answer))
        print(f"under the profiler: {m.calls_per_s:.0f} calls/s, {m.cpu_us_per_call:.0f} µs CPU per call")
    stats = pstats.Stats(str(out))
    stats.sort_stats("cumulative").print_stats(45)
    stats.sort_stats("tottime").print_stats(30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=3, help="wrk's timed run per measurement")
    parser.add_argument("--warmup", type=int, default=1, help="wrk's untimed run before each measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 64], help="wrk connections")
    parser.add_argument("--servers", nargs="+", default=list(SERVERS), choices=SERVERS)
    parser.add_argument("--profile", type=Path, help="profile BesluitBron alone and print the top of it")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, seconds=max(args.seconds, 5))
        return 0
    result = run(seconds=args.seconds, warmup=args.warmup, rounds=args.rounds, clients=tuple(args.clients),
                 servers=tuple(args.servers))
    if "skipped" in result:
        print(result["skipped"])
        return 1
    print(f"{'era':7} {'conns':>5} {'server':12} {'calls/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'CPU µs':>7} "
          f"{'× bare':>7} {'× sdk':>6} {'CPU × bare':>10} {'wrk busy':>8}")
    for r in sorted(result["rows"], key=lambda r: (r["era"], r["clients"], SERVERS.index(r["server"]))):
        print(f"{r['era']:7} {r['clients']:>5} {r['server']:12} {r['calls_per_s']:>8.0f} {r['p50_ms']:>7.2f} "
              f"{r['p99_ms']:>7.2f} {r['cpu_us_per_call']:>7.0f} {r['x_bare'] or 0:>7.2f} {r['x_sdk'] or 0:>6.2f} "
              f"{r['cpu_x_bare'] or 0:>10.2f} {r['generator_busy']:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
