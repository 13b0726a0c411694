"""`search` on Alle Bronnen against the same question asked of each source in turn, as an assistant without it would.

    .venv/bin/python bench/bench_search.py [--rounds 20] [--latency-ms 50]

Every replica answers after a fixed `--latency-ms` (50 ms, as in bench_upstream.py) and the cache is off for
every source (`cache_ttl_seconds` 0: each question pays every platform request it needs, in both paths); Open
Raadsinformatie's rate-limit bucket is made big enough for the whole run (see ORI_BUCKET). Per
question from a fixed set the replicas hold in several sources, one at a time and interleaved (the order of the
two paths alternates per round, so drift hits both alike):

  search      one `search {"query": Q, "limit": 10}` on /allebronnen/mcp
  sequential  each free-text source's own search tool on /allebronnen/mcp, one after another, with the arguments
              `search` itself sends it (`ori_search_documents {"query": Q, "limit": 10}`, ...; `wetten` takes
              `title`; rechtspraak has no free text and is asked by neither)

Reported: wall time p50/p99 of each, their ratio (sequential ÷ search), platform requests per question (counted
by the replicas, `GET /_bench/requests`), the proxy's CPU per question (/proc), and per question the slowest
source alone (its own tool's wall time in the sequential path): the floor under `search`, which waits for its
slowest source. The sequential figure is a floor for an assistant: it leaves out the model's own turn between
calls, which costs seconds per tool.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._harness import Child, pin, post, server_cpu_seconds  # noqa: E402
from bench.bench_calls import check_answer, request  # noqa: E402
from proxy.catalog.build import load_plugin  # noqa: E402

__all__ = ["QUERIES", "run"]

SLUG = "allebronnen"
QUERIES = ("begroting", "Defensie", "gemeente", "motie", "besluit")
LIMIT = 10
# Open Raadsinformatie allows 60 units refilled at 1 per second (its replica too); at this bench's pace (several
# questions a second) the bucket empties after a minute and the proxy then waits for ORI's refill, whichever way
# the question is asked. That would measure ORI's budget, not the fan-out, so its replica's bucket is made big.
ORI_BUCKET = 100_000


def _registry(tmp: Path) -> tuple[Path, dict[str, str]]:
    """The shipped registry with every cache off and every rate limit out of the way; and each source's prefix."""
    data = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))
    prefixes = {}
    for key, platform in data["platforms"].items():
        platform["cache_ttl_seconds"] = 0
        platform["limits"]["requests_per_minute"] = 6000  # the most the registry allows
        prefixes[key] = platform["prefix"]
    path = tmp / "registry-nocache.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path, prefixes


def sequential_calls(prefixes: dict[str, str], query: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(source, tool on Alle Bronnen, arguments) for each free-text source, as `search` asks it."""
    calls = []
    for key in prefixes:
        route = load_plugin(key).search_route
        if route is not None and route.search is not None:
            calls.append((key, f"{prefixes[key]}_{route.search}", {route.words: query, "limit": LIMIT}))
    return calls


async def _call(http: aiohttp.ClientSession, url: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    headers, body = request("modern", "tools/call", {"name": tool, "arguments": arguments})
    status, _, payload = await post(http, url, body, headers)
    check_answer(status, payload)
    result = json.loads(payload)["result"]
    if result.get("isError"):
        raise RuntimeError(f"{tool} {arguments}: {result['content'][0]['text'][:300]}")
    return dict(result["structuredContent"])


async def _requests_seen(http: aiohttp.ClientSession, replicas: str) -> dict[str, int]:
    """Platform requests each replica received so far (the bench's own /_faults and /_bench requests left out)."""
    async with http.get(f"{replicas}/_bench/requests") as response:
        counts = (await response.json())["platforms"]
    return {key: n for key, n in counts.items() if not key.startswith("_")}


async def _set_latency(http: aiohttp.ClientSession, replicas: str, platforms: list[str], ms: int) -> None:
    for key in platforms:
        async with http.post(f"{replicas}/_faults/{key}", json={"latency_ms": ms}) as response:
            response.raise_for_status()


class _Path:
    """One way of asking: its wall times, platform requests and proxy CPU per question."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.requests: list[int] = []
        self.cpu: list[float] = []

    def summary(self) -> dict[str, float]:
        return {"p50_ms": _quantile(self.wall, 0.5) * 1000, "p99_ms": _quantile(self.wall, 0.99) * 1000,
                "requests_p50": _quantile(self.requests, 0.5), "requests_p99": _quantile(self.requests, 0.99),
                "cpu_ms_per_question": sum(self.cpu) / len(self.cpu) * 1000}


def _quantile(values: list[float] | list[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(len(ordered) * q))])


async def _measure(ours: str, pid: int, replicas: str, prefixes: dict[str, str], *, rounds: int,
                   latency_ms: int) -> dict[str, Any]:
    url = f"{ours}/{SLUG}/mcp"
    paths = {"search": _Path(), "sequential": _Path()}
    slowest_alone: list[float] = []
    sources_answered: list[int] = []
    alone: dict[str, list[float]] = {}  # per source: its own tool's wall time in the sequential path
    alone_requests: dict[str, list[int]] = {}  # per source: platform requests its tool needed
    per_query: dict[str, dict[str, list[float]]] = {q: {"search": [], "sequential": []} for q in QUERIES}

    async def ask_search(http: aiohttp.ClientSession, query: str) -> None:
        data = await _call(http, url, "search", {"query": query, "limit": LIMIT})
        sources_answered.append(sum(1 for entry in data["sources"].values() if entry["answered"]))

    async def ask_each(http: aiohttp.ClientSession, query: str) -> None:
        times = []
        for key, tool, arguments in sequential_calls(prefixes, query):
            started = time.perf_counter()
            await _call(http, url, tool, arguments)
            times.append(time.perf_counter() - started)
            alone.setdefault(key, []).append(times[-1])
        slowest_alone.append(max(times))

    async def timed(http: aiohttp.ClientSession, name: str, query: str) -> None:
        ask = ask_search if name == "search" else ask_each
        before = await _requests_seen(http, replicas)
        cpu_before = server_cpu_seconds(pid)
        started = time.perf_counter()
        await ask(http, query)
        wall = time.perf_counter() - started
        cpu = server_cpu_seconds(pid) - cpu_before
        after = await _requests_seen(http, replicas)
        sent = {key: n - before.get(key, 0) for key, n in after.items()}
        if name == "sequential":
            for key, n in sent.items():
                alone_requests.setdefault(key, []).append(n)
        path = paths[name]
        path.wall.append(wall)
        path.requests.append(sum(sent.values()))
        path.cpu.append(cpu)
        per_query[query][name].append(wall)

    async with aiohttp.ClientSession() as http:
        platforms = sorted(prefixes)
        for query in QUERIES:  # warm-up: connections, name tables, the first encoder passes; not recorded
            await ask_search(http, query)
            await ask_each(http, query)
        slowest_alone.clear()
        sources_answered.clear()
        alone.clear()
        await _set_latency(http, replicas, platforms, latency_ms)
        try:
            for round_ in range(rounds):
                order = ("search", "sequential") if round_ % 2 == 0 else ("sequential", "search")
                for query in QUERIES:
                    for name in order:
                        await timed(http, name, query)
        finally:
            await _set_latency(http, replicas, platforms, 0)
    search, sequential = paths["search"].summary(), paths["sequential"].summary()
    return {
        "replica_latency_ms": latency_ms, "ori_bucket_units": ORI_BUCKET, "rounds": rounds, "queries": list(QUERIES),
        "questions": len(paths["search"].wall), "limit": LIMIT, "cache": "off (cache_ttl_seconds 0 for every source)",
        "sequential_tools": [tool for _, tool, _ in sequential_calls(prefixes, "Q")],
        "search": search, "sequential": sequential,
        "ratio_p50": sequential["p50_ms"] / search["p50_ms"], "ratio_p99": sequential["p99_ms"] / search["p99_ms"],
        "slowest_source_alone_p50_ms": _quantile(slowest_alone, 0.5) * 1000,
        "sources_answered_p50": _quantile(sources_answered, 0.5),
        "per_source": {key: {"p50_ms": _quantile(times, 0.5) * 1000,
                             "requests_p50": _quantile(alone_requests.get(key, [0]), 0.5)}
                       for key, times in alone.items()},
        "per_query": {q: {name: _quantile(times, 0.5) * 1000 for name, times in v.items()}
                      for q, v in per_query.items()},
    }


def run(*, rounds: int = 20, latency_ms: int = 50) -> dict[str, Any]:
    pin(1)
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp, \
            Child("replicas", "--ori-bucket", str(ORI_BUCKET), core=0) as replicas:
        registry, prefixes = _registry(Path(tmp))
        with Child("besluitbron", "--replicas", replicas.base, "--registry", str(registry)) as ours:
            return asyncio.run(_measure(ours.base, ours.pid, replicas.base, prefixes, rounds=rounds,
                                        latency_ms=latency_ms))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="rounds over the fixed questions")
    parser.add_argument("--latency-ms", type=int, default=50, help="every replica's fixed added latency")
    args = parser.parse_args()
    print(json.dumps(run(rounds=args.rounds, latency_ms=args.latency_ms), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
