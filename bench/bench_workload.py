"""Where users feel speed (issue 44): many assistants asking overlapping questions, against the platforms' budgets.

    .venv/bin/python bench/bench_workload.py [--assistants 200 2000] [--workers 1 4] [--seconds 60]

N simulated assistants each ask, one after another with an exponential pause between calls (mean `think`), the
calls of the question suite (tests/questions.json: every question's first call, on its own address), drawn from a
Zipf-like distribution (rank k asked with weight 1/k^ZIPF_S: a few questions asked by many, a long tail asked once).
They call `python -m proxy serve --workers N --redis URL` (bench/bench_scaleout.py's `Workers`), which keeps the
registry's budget per platform (requests per minute, shared through Redis), in front of the offline replicas: Open
Raadsinformatie's replica keeps the platform's own bucket (60 units a minute), and every replica answers after
`latency_ms`. No recorded latency exists for the platforms in the sample, so one assumed figure serves all; the
report says which.

After an answer with more results, an assistant asks for the next page `NEXT_PAGE` of the time.

Each pair runs as shipped and, in the same run, with each change of issue 44's item 2 undone (`BEFORE`): searches
asking for exactly the caller's window instead of the block holding it (bench/_exact_pages.py), and, with more
than one worker, the single flight per process, as before it spanned the workers (bench/_per_process_flight.py:
each claim granted at once, so every process fetches what it misses itself).

Reported per run: answers a minute, p50/p95 time to answer, platform requests per answer (what the replicas
received, the load measurement at start excluded), and per layer the share of platform calls it answered (the
cache, the single flight, a live request: BesluitBron's own /metrics, summed over workers), and refusals ("try
again": a budget used up) per assistant.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._harness import Child, RedisServer, post  # noqa: E402
from bench.bench_calls import request  # noqa: E402
from bench.bench_scaleout import Workers  # noqa: E402

ZIPF_S = 1.0
# The share of answers with more results after which the assistant asks for the next page (an assumption: no
# client's paging rate is published).
NEXT_PAGE = 0.3
# What each run undoes, with the script that undoes it: the shipped service against each change of item 2.
BEFORE = {"per_process_flight": ROOT / "bench" / "_per_process_flight.py",
          "exact_pages": ROOT / "bench" / "_exact_pages.py"}
QUESTIONS = ROOT / "tests" / "questions.json"
_METRIC = re.compile(r"^(besluitbron_platform_(?:requests|cache_hits|single_flight_joins|rate_limit_refusals))"
                     r"_total\{([^}]*)\} ([0-9.e+]+)$", re.MULTILINE)


def workload() -> list[tuple[str, str, dict[str, Any]]]:
    """The calls people's questions start with: (address, tool, arguments), each once, in a fixed shuffled order
    (the popularity ranks), without calls that quote an earlier result."""
    calls: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for question in json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]:
        first = question["calls"][0]
        if "$" in json.dumps(first["arguments"]) or "refusal" in first:
            continue
        address = first.get("address", question["address"])
        calls.setdefault(json.dumps([address, first["tool"], first["arguments"]], sort_keys=True),
                         (address, first["tool"], first["arguments"]))
    ranked = list(calls.values())
    random.Random(44).shuffle(ranked)
    return ranked


def _metrics(text: str) -> Counter[str]:
    """The platform counters of one /metrics exposition, summed over platforms (and outcomes)."""
    totals: Counter[str] = Counter()
    for name, _labels, value in _METRIC.findall(text):
        totals[name.removeprefix("besluitbron_platform_")] += int(float(value))
    return totals


async def _scrape(http: aiohttp.ClientSession, base: str) -> Counter[str]:
    async with http.get(f"{base}/metrics") as response:
        return _metrics(await response.text())


async def _replica_requests(http: aiohttp.ClientSession, replicas: str) -> int:
    async with http.get(f"{replicas}/_bench/requests") as response:
        return sum((await response.json())["requests"].values())


async def _drive(base: str, replicas: str, *, assistants: int, seconds: float, think: float,
                 seed: int = 7) -> dict[str, Any]:
    calls = workload()
    weights = [1 / (rank + 1) ** ZIPF_S for rank in range(len(calls))]
    latencies: list[float] = []
    outcomes: Counter[str] = Counter()
    refused_by: Counter[int] = Counter()
    paged: Counter[str] = Counter()  # next pages asked, per address and tool
    connector = aiohttp.TCPConnector(limit=min(assistants, 256))
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as http:
        before, sent_before = await _scrape(http, base), await _replica_requests(http, replicas)
        end = time.monotonic() + seconds

        async def assistant(index: int) -> None:
            rng = random.Random(seed * 100_003 + index)
            await asyncio.sleep(rng.uniform(0, min(think, seconds / 2)))  # arrivals spread, not all at second zero
            following: tuple[str, str, dict[str, Any]] | None = None
            while time.monotonic() < end:
                address, tool, arguments = following or rng.choices(calls, weights)[0]
                following = None
                headers, body = request("modern", "tools/call", {"name": tool, "arguments": arguments})
                body["id"] = index
                started = time.perf_counter()
                try:
                    status, _, payload = await post(http, f"{base}/{address}/mcp", body, headers)
                except (aiohttp.ClientError, TimeoutError):
                    outcomes["failed"] += 1
                    continue
                latencies.append(time.perf_counter() - started)
                result = json.loads(payload).get("result", {}) if status == 200 else {}
                if not result:
                    outcomes["failed"] += 1
                elif result.get("isError") and "try again" in json.dumps(result.get("content", [])).lower():
                    outcomes["refused"] += 1
                    refused_by[index] += 1
                else:
                    outcomes["answered"] += 1  # an isError that names the cause is an answer too
                    more = ((result.get("structuredContent") or {}).get("precision") or {}).get("next_offset")
                    if isinstance(more, int) and rng.random() < NEXT_PAGE:
                        following = (address, tool, {**arguments, "offset": more})
                        outcomes["next_pages"] += 1
                        paged[f"{address}/{tool}"] += 1
                # A pause never runs past the end: the run lasts `seconds`, not until the longest pause is over.
                await asyncio.sleep(min(rng.expovariate(1 / think), max(0.0, end - time.monotonic())))

        started = time.monotonic()
        await asyncio.gather(*(assistant(i) for i in range(assistants)))
        elapsed = time.monotonic() - started
        after, sent_after = await _scrape(http, base), await _replica_requests(http, replicas)
    spent = after - before
    layers = {"cache": spent["cache_hits"], "single_flight": spent["single_flight_joins"], "live": spent["requests"]}
    platform_calls = sum(layers.values()) or 1
    latencies.sort()
    answered = outcomes["answered"]
    return {
        "assistants": assistants, "seconds": round(elapsed, 1), "think_s": think,
        "answers_per_minute": round(answered / elapsed * 60, 1),
        "p50_ms": _quantile_ms(latencies, 0.5), "p95_ms": _quantile_ms(latencies, 0.95),
        "calls": sum(outcomes.values()), **outcomes,
        "platform_requests": sent_after - sent_before,
        "platform_requests_per_answer": round((sent_after - sent_before) / answered, 3) if answered else None,
        "layer_share": {k: round(v / platform_calls, 3) for k, v in layers.items()},
        "refusals_per_assistant": {"mean": round(outcomes["refused"] / assistants, 3),
                                   "max": max(refused_by.values(), default=0)},
        "rate_refusals": spent["rate_limit_refusals"],
        "next_pages_by_tool": dict(paged.most_common()),
    }


def _quantile_ms(ordered: list[float], q: float) -> float | None:
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000, 1) if ordered else None


async def _set_latency(replicas: str, latency_ms: int) -> None:
    platforms = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))["platforms"]
    async with aiohttp.ClientSession() as http:
        for key in platforms:
            async with http.post(f"{replicas}/_faults/{key}", json={"latency_ms": latency_ms}) as response:
                if response.status >= 300:
                    raise RuntimeError(f"replica faults for {key}: {response.status}")


def variants(workers: int) -> tuple[str, ...]:
    """The service as shipped and, in the same run, as it was before each change it can show: the shared single
    flight only with more than one worker."""
    return ("per_process_flight", "exact_pages", "shipped") if workers > 1 else ("exact_pages", "shipped")


def run(*, assistants: tuple[int, ...] = (200, 2000), workers: tuple[int, ...] = (1, 4), seconds: float = 60,
        think: float = 20.0, latency_ms: int = 150, progress: Any = print) -> dict[str, Any]:
    """Every (workers, assistants) pair, each on a fresh service and fresh replicas (a cold cache), as shipped and
    with each change undone (`BEFORE`), in the same run."""
    if not RedisServer.installed():
        return {"skipped": "redis-server is not installed (the Debian package `redis-server`; `make system-deps`)"}
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-workload-") as tmp:
        for count in workers:
            for n in assistants:
                for variant in variants(count):
                    with RedisServer(Path(tmp), core=None) as redis, Child("replicas", core=None) as replicas:
                        asyncio.run(_set_latency(replicas.base, latency_ms))
                        with Workers(count, redis=redis.url, replicas=replicas.base, directory=Path(tmp),
                                     cores=None, entry=BEFORE.get(variant)) as service:
                            progress(f"  {count} worker(s), {n} assistants, {variant.replace('_', ' ')}, "
                                     f"{seconds:g} s")
                            figures = asyncio.run(_drive(service.base, replicas.base, assistants=n,
                                                         seconds=seconds, think=think))
                            runs.append({"workers": count, "variant": variant, **figures})
    return {"latency_ms_assumed": latency_ms, "zipf_s": ZIPF_S, "next_page": NEXT_PAGE,
            "distinct_calls": len(workload()), "seconds": seconds, "think_s": think, "runs": runs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assistants", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think", type=float, default=20.0)
    parser.add_argument("--latency-ms", type=int, default=150)
    args = parser.parse_args()
    print(json.dumps(run(assistants=tuple(args.assistants), workers=tuple(args.workers), seconds=args.seconds,
                         think=args.think, latency_ms=args.latency_ms), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
