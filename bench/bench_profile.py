"""Where a cached call's time goes, and what it asks Redis: a profile of the hot path in both eras.

    .venv/bin/python bench/bench_profile.py [--seconds 4] [--stores memory redis] [--calls 5]

* **Profile**: BesluitBron (bench/servers.py) serves bench/bench_calls.py's cached `search_members` to wrk
  (8 connections) while py-spy samples it from outside (`py-spy record --nonblocking --format raw`: the
  server is never paused; idle time in the event loop's `epoll` wait is not sampled, so the shares are of the
  server's busy time). Reported per store and era: the functions with the most own time (the innermost
  frame of each sample) and the same grouped by area (BesluitBron's own code, aiohttp, the event loop,
  json, redis-py, ...). Without py-spy (`pip install py-spy`), cProfile inside the server does the same
  job with more overhead; the output says which profiler ran.
* **Redis round trips**: with the Redis store, `redis-cli monitor` records every command while
  `--calls` cached calls are made one after another (in Python: one call at a time, so nothing interleaves).
  A MULTI…EXEC block (a redis-py transaction pipeline) or a script with the commands it runs is one round
  trip; every other command is one. Each is named by its key and what it is for.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pstats
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import wrk_load  # noqa: E402
from bench._harness import Child, RedisServer, affinity, pin, post  # noqa: E402
from bench.bench_calls import ERAS, SLUG, _call, capture_answer, check_answer, open_sessions, wrk_spec  # noqa: E402
from proxy.state.redis_store import RECORD_BATCH_SECONDS  # noqa: E402

__all__ = ["PURPOSES", "round_trips", "run"]

TOP = 15
RATE = 400  # py-spy samples per second
# What each Redis key of the state store is for (proxy/state/redis_store.py), by the part after the prefix.
PURPOSES = {
    "cache": "cache read: the platform's stored reply to one request this tool call needs",
    "calls": "call record: appended to the caller's log for list_platform_calls (kept to 1,000, 24 h)",
    "call-logs": "every call log by when it expires (the bound on the logs in all)",
    "call-log-sizes": "each call log's length",
    "call-records": "the call records in all (the memory bound)",
    "call-logs-of": "the call logs of the caller's budget group (a group's cap on logs)",
    "session": "session check: the 2025-11-25 session exists and belongs to this connector",
    "session PEXPIRE": "session renewal: the session's idle timeout starts again",
    "sessions": "the index of open sessions, by when each expires (the cap on sessions in all)",
    "session-groups": "the session groups and their sizes (the per-client caps)",
    "client-sessions": "the client's list of sessions (cap per client)",
    "bucket": "rate budget: one token from the platform's bucket (a script)",
    "availability": "the platform's availability record",
    "load": "the source's load status",
    "trace-secret": "the key that signs trace handles",
    "lease": "the load-measurement lease",
    "live_check": "the last live check",
}
LOOP_AREA = "event loop (under uvloop its C loop counts as asyncio's Runner.run)"
AREAS = (("proxy/", "BesluitBron (proxy/)"), ("aiohttp/", "aiohttp"), ("multidict/", "aiohttp"),
         ("yarl/", "aiohttp"), ("redis/", "redis-py"), ("json/", "json"), ("asyncio/", LOOP_AREA),
         ("selectors.py", LOOP_AREA), ("uvloop", LOOP_AREA), ("pydantic", "pydantic"),
         ("fastjsonschema", "schema checks"), ("jsonschema", "schema checks"),
         ("opentelemetry", "tracing (opentelemetry)"), ("prometheus_client", "metrics (prometheus-client)"))


def _py_spy() -> str | None:
    found = shutil.which("py-spy")
    beside = Path(sys.executable).parent / "py-spy"
    return found or (str(beside) if beside.exists() else None)


def _area(path: str) -> str:
    for marker, name in AREAS:
        if path.startswith(marker) or f"/{marker}" in path:
            return name
    return "other (stdlib, C)" if path else "native / unknown"


def _summarise(own: Counter[tuple[str, str]], total: int,
               inclusive: tuple[Counter[tuple[str, str]], int] | None = None) -> dict[str, Any]:
    """Own-time shares: the top functions, all of them grouped by area, BesluitBron's grouped by module; and,
    from the complete stacks, the share of samples in which each of BesluitBron's functions is on the stack."""
    areas: Counter[str] = Counter()
    modules: Counter[str] = Counter()
    for (_, path), n in own.items():
        areas[_area(path)] += n
        if _area(path).startswith("BesluitBron"):
            modules[path[path.find("proxy/"):]] += n
    summary: dict[str, Any] = {
        "samples": total,
        "top_own": [{"function": f, "file": p, "share": n / total} for (f, p), n in own.most_common(TOP)],
        "areas": {a: n / total for a, n in areas.most_common()},
        "proxy_modules": {m: n / total for m, n in modules.most_common(10)}}
    if inclusive is not None and inclusive[1]:
        counts, complete = inclusive
        # Leave out the frames every sample has (the process's main, the server's run loop).
        ours = Counter({k: n for k, n in counts.items() if _area(k[1]).startswith("BesluitBron") and n < complete})
        summary["inclusive_samples"] = complete
        summary["top_inclusive"] = [{"function": f, "file": p, "share": n / complete}
                                    for (f, p), n in ours.most_common(TOP)]
    return summary


def _frame(frame: str) -> tuple[str, str]:
    name, _, where = frame.partition(" (")
    return name, where.rsplit(":", 1)[0].rstrip(")")


def _parse_raw(text: str) -> tuple[Counter[tuple[str, str]], int, tuple[Counter[tuple[str, str]], int]]:
    """py-spy's raw (collapsed) stacks → samples by innermost function (name, file) and their total; and, over
    the complete stacks only (those that start at the process's usual outermost frame: sampling without pausing
    the server sometimes catches a stack half-walked), how many samples have each function anywhere on it."""
    stacks: list[tuple[list[str], int]] = []
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if count.isdigit() and stack:
            stacks.append((stack.split(";"), int(count)))
    roots: Counter[str] = Counter()
    for frames, n in stacks:
        roots[frames[0]] += n
    root = roots.most_common(1)[0][0] if roots else ""
    own: Counter[tuple[str, str]] = Counter()
    inclusive: Counter[tuple[str, str]] = Counter()
    total = complete = 0
    for frames, n in stacks:
        own[_frame(frames[-1])] += n
        total += n
        if frames[0] == root:
            complete += n
            for key in {_frame(f) for f in frames}:
                inclusive[key] += n
    return own, total, (inclusive, complete)


def _under_load(url: str, spec: Path, pid: int, seconds: int, during: Callable[[], None]
                ) -> wrk_load.WrkMeasurement:
    """wrk for `seconds` + 1 in a thread while `during()` runs (from 0.5 s in); returns wrk's measurement."""
    box: dict[str, Any] = {}

    def load() -> None:
        try:
            box["m"] = wrk_load.measure(url, spec, connections=8, seconds=seconds + 1, pids=[pid])
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=load)
    thread.start()
    time.sleep(0.5)
    try:
        during()
    finally:
        thread.join()
    if "error" in box:
        raise box["error"]
    return box["m"]  # type: ignore[no-any-return]


def _profile_py_spy(spy: str, child: Child, url: str, spec: Path, seconds: int, out: Path) -> dict[str, Any]:
    def record() -> None:
        subprocess.run([spy, "record", "--pid", str(child.pid), "--duration", str(seconds), "--rate", str(RATE),
                        "--nonblocking", "--format", "raw", "--output", str(out)], check=True,
                       capture_output=True, timeout=seconds + 60, preexec_fn=affinity(1))

    m = _under_load(url, spec, child.pid, seconds, record)
    own, total, inclusive = _parse_raw(out.read_text())
    return {**_summarise(own, total, inclusive), "calls_per_s": m.calls_per_s, "cpu_us_per_call": m.cpu_us_per_call,
            "busy": total / (RATE * seconds)}


def _profile_cprofile(tmp: Path, store_args: list[str], era: str, seconds: int) -> dict[str, Any]:
    out = tmp / f"cprofile-{era}-{len(store_args)}.prof"
    with Child("replicas", core=1) as replicas, \
            Child("besluitbron", "--replicas", replicas.base, *store_args, "--profile", str(out)) as child:
        asyncio.run(capture_answer(child.base))
        url = f"{child.base}/{SLUG}/mcp"
        spec = wrk_spec(tmp, url, era, asyncio.run(open_sessions(url, 8)) if era == "legacy" else [])
        m = wrk_load.measure(url, spec, connections=8, seconds=seconds, pids=[child.pid])
    stats = pstats.Stats(str(out))
    own: Counter[tuple[str, str]] = Counter()
    for (path, _, name), row in stats.stats.items():  # type: ignore[attr-defined]
        own[(name, path)] += round(row[2] * 1e6)  # tottime, µs
    total = sum(own.values()) or 1
    if "epoll" in " ".join(n for n, _ in own):  # the wait for events is idle time, not work
        total -= sum(n for (name, _), n in own.items() if "poll" in name)
        own = Counter({k: n for k, n in own.items() if "poll" not in k[0]})
    return {**_summarise(own, total), "calls_per_s": m.calls_per_s, "cpu_us_per_call": m.cpu_us_per_call,
            "unit": "µs of own time (cProfile)"}


def round_trips(redis: RedisServer, url: str, era: str, calls: int) -> dict[str, Any]:
    """The Redis commands `calls` cached calls send one after another, grouped into round trips and named."""
    async def call_one_at_a_time(session: str) -> None:
        headers, body = _call(era, session)
        async with aiohttp.ClientSession() as http:
            for _ in range(calls):
                status, _, payload = await post(http, url, body, headers)
                check_answer(status, payload)
                # Call records are written in batches (RECORD_BATCH_SECONDS): waiting for each call's own batch
                # counts its records as one round trip of its own, the most they cost; under load calls share one.
                await asyncio.sleep(RECORD_BATCH_SECONDS * 3)

    session = asyncio.run(open_sessions(url, 1))[0] if era == "legacy" else ""
    asyncio.run(call_one_at_a_time(session))  # nothing in this call may still be on its way to the cache
    time.sleep(RECORD_BATCH_SECONDS * 3)  # nor a batch of records from the load before
    with redis.monitor() as monitor:
        asyncio.run(call_one_at_a_time(session))
    trips: list[list[list[str]]] = []
    open_block = False
    for client, words in monitor.commands:
        name = words[0].upper() if words else ""
        if client == "lua" and trips:  # a script's own commands travel with the EVALSHA that ran it
            trips[-1].append(words)
            continue
        if open_block:
            trips[-1].append(words)
            open_block = name != "EXEC"
            continue
        trips.append([words])
        open_block = name == "MULTI"
    commands = sum(len(t) for t in trips)
    per_call = len(trips) // calls if calls else 0
    named = []
    for trip in trips[:per_call]:
        sent = [w for w in trip if w and w[0].upper() not in ("MULTI", "EXEC")] or trip
        keys = sorted({w[1] for w in sent if len(w) > 1 and w[0].upper() not in ("EVALSHA", "EVAL")}
                      | {k for w in sent if len(w) > 2 and w[0].upper() in ("EVALSHA", "EVAL") and w[2].isdigit()
                         for k in w[3:3 + int(w[2])]})
        kinds = sorted({k.split(":", 2)[1] if k.count(":") >= 1 else k for k in keys})
        verbs = {w[0].upper() for w in sent}
        purposes = [PURPOSES.get(f"{k} {next(iter(verbs))}" if len(verbs) == 1 else k) or PURPOSES.get(k)
                    or f"{k}: unknown" for k in kinds]
        named.append({"commands": " ".join(w[0].upper() for w in trip),
                      "keys": [_short_key(k) for k in keys], "for": "; ".join(purposes)})
    return {"calls": calls, "commands_per_call": commands / calls if calls else 0.0,
            "round_trips_per_call": len(trips) / calls if calls else 0.0, "per_call": named}


def _short_key(key: str) -> str:
    return key if len(key) <= 60 else key[:40] + "…" + key[-12:]


def run(*, seconds: int = 4, stores: tuple[str, ...] = ("memory", "redis"), calls: int = 5,
        progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Profiles of the cached call per store and era, and (with Redis) its round trips; skipped parts say why."""
    if not wrk_load.available():
        progress(f"  profile: skipped: {wrk_load.MISSING}")
        return {"skipped": wrk_load.MISSING}
    if "redis" in stores and not RedisServer.installed():
        stores = tuple(s for s in stores if s != "redis")
    pin(1)
    spy = _py_spy()
    result: dict[str, Any] = {"profiler": "py-spy" if spy else "cProfile (py-spy is not installed)",
                              "seconds": seconds, "connections": 8, "profiles": [], "redis": {}}
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp_name:
        tmp = Path(tmp_name)
        redis = RedisServer(tmp, core=1) if "redis" in stores else None
        try:
            for store in stores:
                store_args = ["--redis", redis.url] if store == "redis" and redis else []
                with Child("replicas", core=1) as replicas, \
                        Child("besluitbron", "--replicas", replicas.base, *store_args) as child:
                    asyncio.run(capture_answer(child.base))
                    url = f"{child.base}/{SLUG}/mcp"
                    for era in ERAS:
                        profile = None
                        if spy is not None:
                            spec = wrk_spec(tmp, url, era,
                                            asyncio.run(open_sessions(url, 8)) if era == "legacy" else [])
                            try:
                                profile = _profile_py_spy(spy, child, url, spec, seconds, tmp / f"{store}-{era}.txt")
                            except subprocess.CalledProcessError as exc:  # e.g. no ptrace here: cProfile instead
                                progress(f"  profile: py-spy failed ({exc.stderr[-300:]!r}); cProfile instead")
                                spy = None
                                result["profiler"] = "cProfile (py-spy could not attach)"
                        if profile is None:
                            profile = _profile_cprofile(tmp, store_args, era, seconds)
                        result["profiles"].append({"store": store, "era": era, **profile})
                        progress(f"  profile: {store} {era}: {profile['samples']} samples, "
                                 f"{profile['cpu_us_per_call']:.0f} µs CPU per call")
                        if store == "redis" and redis is not None:
                            result["redis"][era] = round_trips(redis, url, era, calls)
                            progress(f"  profile: redis {era}: {result['redis'][era]['round_trips_per_call']:.1f} "
                                     "round trips per call")
        finally:
            if redis is not None:
                redis.stop()
    return result


def text_summary(result: dict[str, Any]) -> str:
    """The profile as plain text (what bench/run.py writes to bench/profile.txt)."""
    if "skipped" in result:
        return f"skipped: {result['skipped']}\n"
    lines = [f"Profiler: {result['profiler']}; wrk, {result['connections']} connections, "
             f"{result['seconds']} s per profile; shares are of the server's busy time (own time).", ""]
    for p in result["profiles"]:
        lines += [f"== {p['store']} store, {p['era']}: {p['calls_per_s']:.0f} calls/s under the profiler, "
                  f"{p['cpu_us_per_call']:.0f} µs CPU per call, {p['samples']} {p.get('unit', 'samples')}", "",
                  "by area:"]
        lines += [f"  {share * 100:5.1f}%  {area}" for area, share in p["areas"].items()]
        lines += ["", "top functions by own time:"]
        lines += [f"  {f['share'] * 100:5.1f}%  {f['function']}  ({f['file']})" for f in p["top_own"]]
        lines += ["", "BesluitBron's own time by module:"]
        lines += [f"  {share * 100:5.1f}%  {module}" for module, share in p["proxy_modules"].items()]
        if p.get("top_inclusive"):
            lines += ["", f"BesluitBron's functions by inclusive time (on the stack; {p['inclusive_samples']} "
                          "complete stacks):"]
            lines += [f"  {f['share'] * 100:5.1f}%  {f['function']}  ({f['file']})" for f in p["top_inclusive"]]
        lines.append("")
    for era, trips in result.get("redis", {}).items():
        lines += [f"== Redis per cached call, {era}: {trips['round_trips_per_call']:.1f} round trips, "
                  f"{trips['commands_per_call']:.1f} commands (over {trips['calls']} calls one at a time)"]
        lines += [f"  {i}. {t['commands']}  {', '.join(t['keys'])}\n     for: {t['for']}"
                  for i, t in enumerate(trips["per_call"], 1)]
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--stores", nargs="+", default=["memory", "redis"], choices=("memory", "redis"))
    parser.add_argument("--calls", type=int, default=5, help="calls recorded by MONITOR")
    parser.add_argument("--json", type=Path, help="also write the result as JSON here")
    args = parser.parse_args()
    result = run(seconds=args.seconds, stores=tuple(args.stores), calls=args.calls)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(text_summary(result))
    return 0 if "skipped" not in result else 1


if __name__ == "__main__":
    sys.exit(main())
