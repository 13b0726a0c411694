"""What scaling out costs: the Redis state store against this process's memory, and two workers against one.

    .venv/bin/python bench/bench_scaleout.py [--seconds 3] [--rounds 3] [--part store workers]

The call is bench/bench_calls.py's cached `search_members`, in both eras, driven by `wrk` (bench/wrk_load.py).

* **store**: two BesluitBron processes (bench/servers.py), one on the memory store and one with
  `--redis` on a local `redis-server` (loopback, a port of its own, no persistence, started here),
  8 connections, interleaved rounds. The server is pinned to the first core; wrk and redis-server share
  the second. Reported per store: calls/s, p50/p99, the server's CPU per call and redis-server's; the
  target is Redis ≤ 1.5× memory by server CPU per call. For the Redis store, INFO commandstats
  before and after the timed run gives the Redis commands per call.
* **workers**: `python -m proxy serve --workers N --redis URL --replica-url REPLICAS` (gunicorn's arbiter,
  aiohttp workers, each on a listening socket of its own; README "Running more than one process"), N = 1
  and 2, 64 connections. With three or more
  cores the workers get two of them and wrk plus redis-server a third, and the throughput ratio is the
  figure. With two cores one worker is pinned to the first core (wrk and redis-server on the second),
  while two workers need both and compete with wrk and redis-server: the throughput ratio is then
  bounded by the machine, and the figure is the one CPU per call gives: (1 worker's CPU per call) ÷
  (2 workers' CPU per call × the busier worker's share of their CPU), what two workers would serve on two
  cores of their own (2 × the CPU ratio when the kernel spreads the connections evenly, less when not).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import wrk_load  # noqa: E402
from bench._harness import (  # noqa: E402
    CORES,
    LOOP,
    LOOPBACK,
    Child,
    RedisServer,
    affinity,
    free_port,
    median,
    pin,
    server_cpu_seconds,
    stop_process,
)
from bench.bench_calls import ERAS, SLUG, capture_answer, open_sessions, wrk_spec  # noqa: E402

__all__ = ["Workers", "connections_per_worker", "run"]

TARGET_REDIS_CPU = 1.5
TARGET_WORKERS = 1.8


class Workers:
    """`python -m proxy serve --workers N --redis URL` on a free port, on `cores` (None: wherever); stopped on exit.
    `entry`: a script that runs `python -m proxy` with one change undone (bench/_per_process_flight.py,
    bench/_exact_pages.py), for a "before" in the same run."""

    def __init__(self, count: int, *, redis: str, replicas: str, directory: Path, cores: set[int] | None,
                 entry: Path | None = None) -> None:
        self.count = count
        self.port = free_port()
        self.base = f"http://{LOOPBACK}:{self.port}"
        log = directory / f"workers-{count}-{self.port}.log"
        cmd = [sys.executable, *([str(entry)] if entry else ["-m", "proxy"]), "serve", "--workers", str(count),
               "--redis", redis,
               "--replica-url", replicas, "--host", LOOPBACK, "--port", str(self.port),
               "--registry", str(ROOT / "registry.json"), "--trace-key-file", str(directory / "trace-key"),
               "--grace", "2", "--loop", LOOP]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.log = log
        self._log = log.open("w")
        place = affinity(None) if not cores else lambda: os.sched_setaffinity(0, cores)
        self._proc = subprocess.Popen(cmd, cwd=directory, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                      preexec_fn=place)
        try:
            asyncio.run(self._ready(log))
        except BaseException:
            self.stop()
            raise

    async def _ready(self, log: Path) -> None:
        deadline = time.monotonic() + 90
        async with aiohttp.ClientSession() as http:
            while True:
                if self._proc.poll() is not None:
                    raise RuntimeError(f"{self.count} worker(s) exited: {log.read_text()[-2000:]}")
                try:
                    async with http.get(f"{self.base}/health") as response:
                        if response.status == 200 and len(self.workers()) == self.count:
                            return
                except aiohttp.ClientError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.count} worker(s) did not come up: {log.read_text()[-2000:]}")
                await asyncio.sleep(0.2)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def workers(self) -> list[int]:
        return wrk_load.children_of(self._proc.pid)

    def processes(self) -> list[int]:
        """The arbiter and its workers, whose CPU together is the service's."""
        return [self._proc.pid, *self.workers()]

    def stop(self) -> None:
        stop_process(self._proc, grace=30)  # the arbiter drains its workers first
        self._log.close()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def connections_per_worker(port: int, pids: list[int]) -> list[int]:
    """How many established connections to `port` each process holds (Linux /proc: its socket fds against
    /proc/net/tcp), e.g. how the kernel and the workers' accept loops shared wrk's connections."""
    inodes = set()
    try:
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[1].endswith(f":{port:04X}") and fields[3] == "01":  # local port, ESTABLISHED
                inodes.add(fields[9])
    except OSError:
        return [0 for _ in pids]
    counts = []
    for pid in pids:
        held = 0
        for fd in Path(f"/proc/{pid}/fd").glob("*"):
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                held += 1
        counts.append(held)
    return counts


def _sample_later(delay: float, sample: Callable[[], list[int]]) -> Callable[[], list[int]]:
    """Run `sample` once, `delay` seconds from now, in a thread; the returned function waits for its answer."""
    box: list[list[int]] = []
    thread = threading.Timer(delay, lambda: box.append(sample()))
    thread.start()

    def result() -> list[int]:
        thread.join()
        return box[0] if box else []

    return result


def _warnings(service: Workers) -> str:
    """The warnings the service logged (e.g. the Redis store giving up on Redis), for a failed measurement."""
    lines = [ln for ln in service.log.read_text(errors="replace").splitlines() if "WARNING" in ln or "ERROR" in ln]
    return "the service logged:\n" + "\n".join(lines[-10:]) if lines else "the service logged no warning"


def _spec(tmp: Path, url: str, era: str, connections: int) -> Path:
    sessions = asyncio.run(open_sessions(url, connections)) if era == "legacy" else []
    return wrk_spec(tmp, url, era, sessions)


def store_cost(*, seconds: int, warmup: int, rounds: int, connections: int = 8,
               progress: Callable[[str], None] = print) -> dict[str, Any]:
    """BesluitBron on the memory store against the Redis store: the same cached call, interleaved."""
    pin(1)
    raw: dict[tuple[str, str], list[wrk_load.WrkMeasurement]] = {}
    commands: dict[str, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scaleout-") as tmp, RedisServer(Path(tmp), core=1) as redis, \
            Child("replicas", core=1) as replicas, \
            Child("besluitbron", "--replicas", replicas.base) as memory, \
            Child("besluitbron", "--replicas", replicas.base, "--redis", redis.url) as shared:
        servers = {"memory": memory, "redis": shared}
        for child in servers.values():
            asyncio.run(capture_answer(child.base))  # warms each one's cache
        for era in ERAS:
            for _ in range(rounds):
                for store, child in servers.items():
                    url = f"{child.base}/{SLUG}/mcp"
                    spec = _spec(Path(tmp), url, era, connections)
                    if warmup:
                        wrk_load.measure(url, spec, connections=connections, seconds=warmup, pids=[child.pid])
                    before = redis.commandstats()
                    m = wrk_load.measure(url, spec, connections=connections, seconds=seconds, pids=[child.pid],
                                         extra_pids={"redis-server": redis.pid})
                    after = redis.commandstats()
                    raw.setdefault((era, store), []).append(m)
                    if store == "redis":
                        commands.setdefault(era, []).append(
                            {c: (n - before.get(c, 0)) / m.calls for c, n in after.items() if n > before.get(c, 0)})
            progress(f"  scale-out: {era} store: " + ", ".join(
                f"{s} {median([m.calls_per_s for m in raw[(era, s)]]):.0f}/s "
                f"{median([m.cpu_us_per_call for m in raw[(era, s)]]):.0f} µs" for s in servers))
    rows = []
    for (era, store), runs in raw.items():
        rows.append({"era": era, "store": store, **_medians(runs),
                     "redis_cpu_us_per_call": median([m.extra_cpu_us_per_call.get("redis-server", 0.0) for m in runs])
                     if store == "redis" else 0.0})
    by = {(r["era"], r["store"]): r for r in rows}
    verdicts = {}
    for era in ERAS:
        mem, red = by[(era, "memory")], by[(era, "redis")]
        ratio = red["cpu_us_per_call"] / mem["cpu_us_per_call"] if mem["cpu_us_per_call"] else None
        with_redis = (red["cpu_us_per_call"] + red["redis_cpu_us_per_call"]) / mem["cpu_us_per_call"] \
            if mem["cpu_us_per_call"] else None
        names = sorted({c for per in commands.get(era, []) for c in per})
        verdicts[era] = {
            "cpu_ratio": ratio, "cpu_ratio_with_redis_server": with_redis,
            "throughput_ratio": red["calls_per_s"] / mem["calls_per_s"],
            "met": ratio is not None and ratio <= TARGET_REDIS_CPU,
            "commands_per_call": {c: median([per.get(c, 0.0) for per in commands[era]]) for c in names}}
    return {"connections": connections, "seconds": seconds, "rounds": rounds, "target": TARGET_REDIS_CPU,
            "rows": rows, "eras": verdicts}


SERVICES = {"1": "1 worker", "2": "2 workers"}


def workers_scaling(*, seconds: int, warmup: int, rounds: int, connections: int = 64,
                    progress: Callable[[str], None] = print) -> dict[str, Any]:
    """One worker against two (both on Redis, as --workers 2 requires), the same cached call, interleaved."""
    cores = list(CORES)
    third = len(cores) >= 3
    if third:  # the workers get two cores, the generator and redis-server a third
        plan = {"1": {cores[0]}, "2": {cores[0], cores[1]}}
        generator: int | None = 2
    else:  # one worker pinned as everywhere else; two workers need both cores and share them with wrk
        plan = {"1": {cores[0]} if cores else set(), "2": set(cores)}
        generator = 1
    pin(generator if generator is not None else 1)
    raw: dict[tuple[str, str], list[wrk_load.WrkMeasurement]] = {}
    shares: dict[tuple[str, str], list[list[float]]] = {}
    held_by: dict[tuple[str, str], list[list[int]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp, \
            RedisServer(Path(tmp), core=generator) as redis, Child("replicas", core=generator) as replicas:
        services: dict[str, Workers] = {}
        try:
            for label in ("1", "2"):
                services[label] = Workers(int(label), redis=redis.url, replicas=replicas.base, directory=Path(tmp),
                                          cores=plan[label] or None)
            for service in services.values():
                asyncio.run(capture_answer(service.base))
            for era in ERAS:
                for _ in range(rounds):
                    for label, service in services.items():
                        url = f"{service.base}/{SLUG}/mcp"
                        spec = _spec(Path(tmp), url, era, connections)
                        # With two cores and two workers, wrk runs wherever the scheduler puts it (no core is free).
                        core = generator if (third or label == "1") else None
                        if warmup:
                            wrk_load.measure(url, spec, connections=connections, seconds=warmup, core=core)
                        workers = service.workers()
                        before = [server_cpu_seconds(p) for p in workers]
                        held = _sample_later(min(1.0, seconds / 2),
                                             lambda s=service, w=workers: connections_per_worker(s.port, w))
                        try:
                            m = wrk_load.measure(url, spec, connections=connections, seconds=seconds,
                                                 pids=service.processes(), core=core,
                                                 extra_pids={"redis-server": redis.pid})
                        except RuntimeError as exc:
                            raise RuntimeError(f"{SERVICES[label]}, {era}: {exc}\n{_warnings(service)}") from exc
                        held_by.setdefault((era, label), []).append(sorted(held(), reverse=True))
                        spent = [server_cpu_seconds(p) - b for p, b in zip(workers, before, strict=True)]
                        shares.setdefault((era, label), []).append(
                            [x / sum(spent) if sum(spent) else 0 for x in spent])
                        raw.setdefault((era, label), []).append(m)
                progress(f"  scale-out: {era}: " + ", ".join(
                    f"{SERVICES[label]} {median([m.calls_per_s for m in raw[(era, label)]]):.0f}/s "
                    f"{median([m.cpu_us_per_call for m in raw[(era, label)]]):.0f} µs" for label in services))
        finally:
            for service in services.values():
                service.stop()
    rows = [{"era": era, "service": label, "name": SERVICES[label], "workers": 1 if label == "1" else 2,
             **_medians(runs),
             "busiest_worker_share": median([max(x) for x in shares[(era, label)]]),
             "connections_held": held_by[(era, label)],  # per round: wrk's connections each process held
             "redis_cpu_us_per_call": median([m.extra_cpu_us_per_call.get("redis-server", 0.0) for m in runs])}
            for (era, label), runs in raw.items()]
    by = {(r["era"], r["service"]): r for r in rows}
    verdicts = {}
    for era in ERAS:
        one = by[(era, "1")]
        two = by[(era, "2")]
        measured = two["calls_per_s"] / one["calls_per_s"]
        # Two workers on two cores of their own saturate when the busier one fills its core: at a share s of the
        # work (0.5 when balanced) that is 1 / (s × CPU per call), against one worker's 1 / (CPU per call).
        share = max(two["busiest_worker_share"], 0.5)
        projected = one["cpu_us_per_call"] / (two["cpu_us_per_call"] * share) if two["cpu_us_per_call"] else None
        headline = measured if third else projected
        verdicts[era] = {"measured_ratio": measured, "cpu_projected_ratio": projected, "figure": headline,
                         "figure_is": "measured throughput" if third else "CPU per call",
                         "met": headline is not None and headline >= TARGET_WORKERS}
    return {"connections": connections, "seconds": seconds, "rounds": rounds, "cores": len(cores),
            "generator_core_of_its_own": third, "target": TARGET_WORKERS, "rows": rows, "eras": verdicts}


def _medians(runs: list[wrk_load.WrkMeasurement]) -> dict[str, float]:
    return {k: median([getattr(m, k) for m in runs]) for k in ("calls_per_s", "p50_ms", "p99_ms", "cpu_us_per_call",
                                                               "generator_busy")}


def run(*, seconds: int = 3, warmup: int = 1, rounds: int = 3, parts: tuple[str, ...] = ("store", "workers"),
        worker_connections: int = 64, progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Both measurements; a part that cannot run here (no wrk, no redis-server) says why instead."""
    missing = None if wrk_load.available() else wrk_load.MISSING
    if missing is None and not RedisServer.installed():
        missing = "redis-server is not installed (the Debian package `redis-server`; `make system-deps`)"
    if missing:
        progress(f"  scale-out: skipped: {missing}")
        return {"skipped": missing}
    result: dict[str, Any] = {}
    if "store" in parts:
        result["store"] = store_cost(seconds=seconds, warmup=warmup, rounds=rounds, progress=progress)
    if "workers" in parts:
        result["workers"] = workers_scaling(seconds=seconds, warmup=warmup, rounds=rounds,
                                            connections=worker_connections, progress=progress)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--part", nargs="+", default=["store", "workers"], choices=("store", "workers"))
    args = parser.parse_args()
    result = run(seconds=args.seconds, warmup=args.warmup, rounds=args.rounds, parts=tuple(args.part))
    print(json.dumps(result, indent=1))
    return 0 if "skipped" not in result else 1


if __name__ == "__main__":
    sys.exit(main())
