"""What the proxy adds in front of a slow platform, and how it shares one call among many.

    .venv/bin/python bench/bench_upstream.py [--calls 200] [--fanout 100] [--profile FILE]

* **Added latency**: the Tweede Kamer replica answers after a fixed 50 ms; `search_members` is
  called through BesluitBron with the cache off (every call goes upstream), one call at a time,
  and the very URL the adapter sends is fetched directly, also one at a time. Added latency is
  the difference of the two p50s. The proxy's own CPU time per call (/proc) is reported too: on a
  busy machine it says more than a wall-clock difference of a few milliseconds. The replicas run on
  the server's core: then a direct call and a proxied one each cross between the two cores twice
  (client ↔ replica, client ↔ proxy), and the difference is the proxy's own work; with the replicas
  on the client's core the proxied call alone would pay two more cross-core wake-ups, which cost
  far more than on bare metal in a virtual machine.
  With wrk installed, the same pair is measured again with wrk (`-c1`, one request at a time, the two
  alternating in rounds): the p50s without the Python client's own time per request, the figure the target
  is judged by. The Python figures stay: one call at a time is what this measures, not throughput.
  In the same rounds wrk measures the floor: `bench/servers.py relay`, a plain aiohttp handler that makes the
  same platform request with aiohttp's client and answers its reply unread, on BesluitBron's core. What it
  adds is what any aiohttp proxy adds here; BesluitBron's figure above it is its own work.
* **Single-flight**: the replica answers after 200 ms; `--fanout` identical searches (not yet
  cached) are sent at once. Reported: how often each distinct platform request reached the replica
  (it counts them; `upstream_calls` is the most any one was sent, the target 1), how many distinct
  requests a search needed, and the wall time from the first send to the last answer.

`--profile FILE` instead runs the uncached calls (replica latency 0) with BesluitBron under
cProfile and prints where its CPU goes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pstats
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import wrk_load  # noqa: E402
from bench._harness import LOOPBACK, Child, median, pin, post, server_cpu_seconds  # noqa: E402
from bench.bench_calls import EXPECT, REJECT, SLUG, TOOL, check_answer, request  # noqa: E402

__all__ = ["run"]

PLATFORM = "tweedekamer"
# The sitting members, first page: one platform request. A name search first reads how the member list spells
# names, a party search the party list (two each), which would make the direct comparison unfair.
ONE_REQUEST = {"limit": 2}


def _registry(tmp: Path, *, cache: bool) -> Path:
    """The shipped registry; the Tweede Kamer's rate limit raised (and its cache off unless `cache`)."""
    data = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))
    platform = data["platforms"][PLATFORM]
    platform["limits"]["requests_per_minute"] = 6000
    if not cache:
        platform["cache_ttl_seconds"] = 0
    path = tmp / f"registry-{'cache' if cache else 'nocache'}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


async def _set_latency(http: aiohttp.ClientSession, replicas: str, ms: int) -> None:
    async with http.post(f"{replicas}/_faults/{PLATFORM}", json={"latency_ms": ms}) as response:
        response.raise_for_status()


async def _requests_seen(http: aiohttp.ClientSession, replicas: str) -> dict[str, int]:
    """How often the replicas received each distinct request (method, path and query) so far."""
    async with http.get(f"{replicas}/_bench/requests") as response:
        return dict((await response.json())["requests"])


async def _call(http: aiohttp.ClientSession, url: str, arguments: dict[str, Any]) -> bytes:
    headers, body = request("modern", "tools/call", {"name": TOOL, "arguments": arguments})
    status, _, payload = await post(http, url, body, headers)
    check_answer(status, payload)
    return payload


async def _upstream_url(http: aiohttp.ClientSession, url: str, arguments: dict[str, Any]) -> str:
    """The URL the adapter sent for these arguments, read back from the call's own record; the call must
    make exactly one platform request, or the comparison with one direct request would be unfair."""
    trace = json.loads(await _call(http, url, arguments))["result"]["_meta"]["nl.besluitbron/trace"]
    headers, body = request("modern", "tools/call", {"name": "list_platform_calls",
                                                     "arguments": {"trace": trace, "limit": 10}})
    _, _, payload = await post(http, url, body, headers)
    calls = json.loads(payload)["result"]["structuredContent"]["calls"]
    if len(calls) != 1:
        raise RuntimeError(f"{TOOL} {arguments} made {len(calls)} platform requests, not one")
    return str(calls[-1]["url"])


def _p50(values: list[float]) -> float:
    return sorted(values)[len(values) // 2] * 1000


async def _added_latency(ours: str, pid: int, replicas: str, calls: int) -> dict[str, float]:
    url = f"{ours}/{SLUG}/mcp"
    arguments = ONE_REQUEST
    async with aiohttp.ClientSession() as http:
        upstream = await _upstream_url(http, url, arguments)
        if not upstream.startswith(f"http://{LOOPBACK}:"):
            raise RuntimeError(f"the adapter called {upstream}, not the replica")
        await _set_latency(http, replicas, 50)
        direct: list[float] = []
        proxied: list[float] = []
        cpu = client_cpu = 0.0
        for _ in range(calls):  # interleaved, so drift hits both alike
            client_before = _own_cpu_seconds()
            started = time.perf_counter()
            async with http.get(upstream, headers={"Accept": "application/json"}) as response:
                await response.read()
                response.raise_for_status()
            direct.append(time.perf_counter() - started)
            client_cpu += _own_cpu_seconds() - client_before
            cpu_before = server_cpu_seconds(pid)
            started = time.perf_counter()
            await _call(http, url, arguments)
            proxied.append(time.perf_counter() - started)
            cpu += server_cpu_seconds(pid) - cpu_before
        await _set_latency(http, replicas, 0)
    return {"replica_latency_ms": 50, "calls": calls, "direct_p50_ms": _p50(direct),
            "proxied_p50_ms": _p50(proxied), "added_p50_ms": _p50(proxied) - _p50(direct),
            "proxy_cpu_ms_per_call": cpu / calls * 1000,
            # The yardstick for the proxy's own upstream exchange: this process's CPU for one direct GET
            # of the same reply with the same client library (aiohttp), measured in the same run.
            "client_get_cpu_ms": client_cpu / calls * 1000}


def _own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _single_flight(ours: str, replicas: str, fanout: int) -> dict[str, float]:
    url = f"{ours}/{SLUG}/mcp"
    arguments = {"party": "SP", "limit": 3}  # not asked before in this server: the cache is cold
    connector = aiohttp.TCPConnector(limit=fanout)
    async with aiohttp.ClientSession(connector=connector) as http:
        await _set_latency(http, replicas, 200)
        before = await _requests_seen(http, replicas)
        started = time.perf_counter()
        await asyncio.gather(*(_call(http, url, arguments) for _ in range(fanout)))
        wall = time.perf_counter() - started
        after = await _requests_seen(http, replicas)
        await _set_latency(http, replicas, 0)
    # A search may need more than one platform request (the Tweede Kamer's resolves the party first);
    # single-flight means each distinct one is sent once, however many identical searches wait for it.
    sent = {r: n - before.get(r, 0) for r, n in after.items() if n > before.get(r, 0)}
    return {"replica_latency_ms": 200, "concurrent_calls": fanout, "upstream_calls": max(sent.values(), default=0),
            "distinct_requests": len(sent), "total_requests": sum(sent.values()), "wall_ms": wall * 1000}


def _added_latency_wrk(tmp: Path, ours: str, pid: int, replicas: str, *, seconds: int, rounds: int
                       ) -> dict[str, float]:
    """The same direct GET and proxied call, each by wrk with one connection, alternating; medians of the p50s."""
    url = f"{ours}/{SLUG}/mcp"

    async def upstream() -> str:
        async with aiohttp.ClientSession() as http:
            found = await _upstream_url(http, url, ONE_REQUEST)
            await _set_latency(http, replicas, 50)
            return found

    direct_url = asyncio.run(upstream())
    headers, body = request("modern", "tools/call", {"name": TOOL, "arguments": ONE_REQUEST})
    proxied = wrk_load.write_spec(tmp, url, headers, body, expect=EXPECT[:2], reject=REJECT)
    direct = wrk_load.write_spec(tmp, direct_url, {"Accept": "application/json"}, None)
    p50: dict[str, list[float]] = {"direct": [], "proxied": [], "relay": []}
    cpu: dict[str, list[float]] = {"proxied": [], "relay": []}
    try:
        # The floor beside them, on BesluitBron's core: the least any aiohttp proxy does (servers.py relay).
        with Child("relay", "--upstream", direct_url) as relay:
            relay_url = f"{relay.base}/{SLUG}/mcp"
            relayed = wrk_load.write_spec(tmp, relay_url, headers, body, expect=EXPECT[:2], reject=REJECT)
            for _ in range(rounds):
                p50["direct"].append(wrk_load.measure(direct_url, direct, connections=1, seconds=seconds).p50_ms)
                for name, target, spec, server in (("proxied", url, proxied, pid),
                                                   ("relay", relay_url, relayed, relay.pid)):
                    m = wrk_load.measure(target, spec, connections=1, seconds=seconds, pids=[server])
                    p50[name].append(m.p50_ms)
                    cpu[name].append(m.cpu_us_per_call)
    finally:
        async def reset() -> None:
            async with aiohttp.ClientSession() as http:
                await _set_latency(http, replicas, 0)

        asyncio.run(reset())
    d, p, r = median(p50["direct"]), median(p50["proxied"]), median(p50["relay"])
    return {"direct_p50_ms": d, "proxied_p50_ms": p, "added_p50_ms": p - d, "seconds": seconds, "rounds": rounds,
            "proxy_cpu_ms_per_call": median(cpu["proxied"]) / 1000,
            "relay_p50_ms": r, "relay_added_p50_ms": r - d, "relay_cpu_ms_per_call": median(cpu["relay"]) / 1000}


def run(*, calls: int = 200, fanout: int = 100, wrk_seconds: int = 5, wrk_rounds: int = 2) -> dict[str, Any]:
    pin(1)
    with tempfile.TemporaryDirectory(prefix="bench-upstream-") as tmp, Child("replicas", core=0) as replicas:
        with Child("besluitbron", "--replicas", replicas.base, "--registry",
                   str(_registry(Path(tmp), cache=False))) as ours:
            added = asyncio.run(_added_latency(ours.base, ours.pid, replicas.base, calls))
            if wrk_load.available() and wrk_seconds > 0:
                added["wrk"] = _added_latency_wrk(Path(tmp), ours.base, ours.pid, replicas.base,
                                                  seconds=wrk_seconds, rounds=wrk_rounds)
        with Child("besluitbron", "--replicas", replicas.base, "--registry",
                   str(_registry(Path(tmp), cache=True))) as ours:
            flight = asyncio.run(_single_flight(ours.base, replicas.base, fanout))
    return {"added_latency": added, "single_flight": flight}


def profile(out: Path, *, calls: int) -> None:
    """BesluitBron alone under cProfile: `calls` uncached calls one at a time, then the top of the profile."""
    pin(1)
    with tempfile.TemporaryDirectory(prefix="bench-upstream-") as tmp, Child("replicas", core=0) as replicas, \
            Child("besluitbron", "--replicas", replicas.base, "--registry", str(_registry(Path(tmp), cache=False)),
                  "--profile", str(out)) as ours:

        async def calls_one_at_a_time() -> float:
            url = f"{ours.base}/{SLUG}/mcp"
            async with aiohttp.ClientSession() as http:
                cpu_before = server_cpu_seconds(ours.pid)
                for _ in range(calls):
                    await _call(http, url, ONE_REQUEST)
                return (server_cpu_seconds(ours.pid) - cpu_before) / calls * 1e6

        print(f"under the profiler: {asyncio.run(calls_one_at_a_time()):.0f} µs CPU per uncached call")
    stats = pstats.Stats(str(out))
    stats.sort_stats("cumulative").print_stats(50)
    stats.sort_stats("tottime").print_stats(30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--fanout", type=int, default=100)
    parser.add_argument("--profile", type=Path, help="profile uncached calls in BesluitBron and print the top")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, calls=args.calls)
        return 0
    print(json.dumps(run(calls=args.calls, fanout=args.fanout), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
