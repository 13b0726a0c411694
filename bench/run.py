"""`make bench`: every measurement of issues 14, 26 and 44 in one run, written to bench/RESULTS.md with plots.

    .venv/bin/python bench/run.py [--quick] [--out DIR]

Throughput comes from `wrk` (bench/wrk_load.py); without it (or without redis-server) the parts that need it
say they were skipped, and everything else still runs. `--quick` is the smoke run `make test` uses
(tests/test_bench.py): every part runs with tiny counts, so the harness keeps working; its figures mean nothing.
Besides RESULTS.md, results.json and the plots, it writes profile.txt: the cached call's profile in full.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import (  # noqa: E402
    bench_calls,
    bench_instructions,
    bench_memory,
    bench_profile,
    bench_scaleout,
    bench_search,
    bench_site,
    bench_toolslist,
    bench_upstream,
    bench_workload,
    wrk_load,
)
from bench._harness import LOOP  # noqa: E402
from bench.report import plot, write_results  # noqa: E402

FULL: dict[str, dict[str, Any]] = {
    "calls": {"seconds": 3, "warmup": 1, "rounds": 3, "clients": (1, 8, 64)},
    "instructions": {"seconds": 5},
    "scaleout": {"seconds": 3, "warmup": 1, "rounds": 3},
    "profile": {"seconds": 8, "calls": 5},
    "upstream": {"calls": 200, "fanout": 100, "wrk_seconds": 5, "wrk_rounds": 2},
    "search": {"rounds": 20},
    "site": {"sizes": (50, 200, 500), "repeats": 2},
    "memory": {"sessions": 10_000},
    "workload": {"assistants": (200, 2000), "workers": (1, 4), "seconds": 45},
}
QUICK: dict[str, dict[str, Any]] = {
    "calls": {"seconds": 1, "warmup": 0, "rounds": 1, "clients": (8,)},
    "scaleout": {"seconds": 1, "warmup": 0, "rounds": 1, "worker_connections": 16},
    "profile": {"seconds": 1, "calls": 2},
    "upstream": {"calls": 5, "fanout": 20, "wrk_seconds": 1, "wrk_rounds": 1},
    "search": {"rounds": 1},
    "site": {"sizes": (3,), "repeats": 1},
    "memory": {"sessions": 64},
    "workload": {"assistants": (8,), "workers": (2,), "seconds": 1.5, "think": 0.5},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run in seconds; figures mean nothing")
    parser.add_argument("--out", type=Path, default=ROOT / "bench")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"environment": {
        "started_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": _commit(), "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0,
        "loadavg_before": _loadavg(), "generator": _wrk_version(), "loop": LOOP,
    }}
    step = time.perf_counter()

    def say(message: str) -> None:
        print(f"[{time.perf_counter() - step:6.1f} s] {message}", flush=True)

    say("cached real tool call with wrk: BesluitBron, bare aiohttp, the SDK's checks alone, SDK server, FastMCP")
    results["calls"] = bench_calls.run(**plan["calls"], progress=say)
    if "instructions" in plan:  # the smoke run leaves it to tests/test_bench.py's own callgrind run
        say("instructions per cached call under callgrind: BesluitBron, bare aiohttp, the SDK's checks alone")
        results["instructions"] = bench_instructions.run(**plan["instructions"])
    say("added latency and single-flight")
    results["upstream"] = bench_upstream.run(**plan["upstream"])
    say("many assistants against the platforms' budgets: 1 and 4 workers, the single flight per process and shared")
    results["workload"] = bench_workload.run(**plan["workload"], progress=say)
    say("scale-out: the Redis store against memory, two workers against one")
    results["scaleout"] = bench_scaleout.run(**plan["scaleout"], progress=say)
    say("profile of the cached call, and its Redis round trips")
    results["profile"] = bench_profile.run(**plan["profile"], progress=say)
    (args.out / "profile.txt").write_text(bench_profile.text_summary(results["profile"]), encoding="utf-8")
    say("search on Alle Bronnen against each source in turn")
    results["search"] = bench_search.run(**plan["search"])
    say("tools/list sizes")
    results["toolslist"] = bench_toolslist.run()
    say("memory of legacy sessions")
    results["memory"] = bench_memory.run(**plan["memory"])
    say("site builds")
    results["site"] = bench_site.run(**plan["site"])
    results["environment"]["loadavg_after"] = _loadavg()
    (args.out / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n",
                                           encoding="utf-8")
    plot(results, args.out)
    path = write_results(results, args.out, quick=args.quick)
    say(f"wrote {path}")
    return 0


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _wrk_version() -> str:
    if not wrk_load.available():
        return "none: " + wrk_load.MISSING
    try:
        out = subprocess.run(["wrk", "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "wrk"
    first = (out.stdout or out.stderr).splitlines()[:1]
    return " ".join(first[0].split()[:2]) if first else "wrk"


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
