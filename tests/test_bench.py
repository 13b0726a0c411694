"""The benchmark harness keeps working: `bench/run.py --quick` runs every part for real (servers,
wrk and the Python load generator, Redis, gunicorn workers, the profiler, site builds, plots) with tiny
counts and writes RESULTS.md. Its figures are not judged here (speed targets live in bench/RESULTS.md,
never in timed asserts); what it reports about behaviour is: identical concurrent searches share one
upstream call, every server answered every wrk request correctly, the Redis round trips of a cached call
are counted and named, and `search` on Alle Bronnen reached every free-text source with the same platform
requests as asking each in turn. Without wrk (make test installs it) the wrk parts say they were skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.site  # it runs real mkdocs builds too


def test_quick_bench_writes_every_figure(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    text = (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
    if shutil.which("wrk") is None:  # make test installs it; a bare checkout says what it skipped
        assert "wrk is not installed" in results["calls"]["skipped"] and "**Skipped**" in text
    else:
        assert results["environment"]["generator"].startswith("wrk")
        rows = results["calls"]["rows"]
        assert {(r["server"], r["era"]) for r in rows} == {
            (s, e) for s in ("besluitbron", "bare", "checked", "sdk", "fastmcp") for e in ("modern", "legacy")}
        assert all(r["calls_per_s"] > 0 and r["x_bare"] > 0 and r["errors"] == 0 for r in rows)
        # The floor: wrk checked every reply of the checked handler too, and the report names what it bounds.
        assert "floor under the three rows above" in text and "above that floor" in text
        relay = results["upstream"]["added_latency"]["wrk"]  # the latency floor: a plain aiohttp relay, by wrk
        assert relay["relay_p50_ms"] > 0 and relay["relay_cpu_ms_per_call"] > 0 and "adds **" in text
        store, workers = results["scaleout"]["store"], results["scaleout"]["workers"]
        assert {(r["era"], r["store"]) for r in store["rows"]} == {
            (e, s) for e in ("modern", "legacy") for s in ("memory", "redis")}
        assert store["eras"]["modern"]["commands_per_call"]["rpush"] > 0  # the call records reach Redis
        assert {(r["era"], r["service"]) for r in workers["rows"]} == {
            (e, n) for e in ("modern", "legacy") for n in ("1", "2")}
        assert all(sum(held) == workers["connections"] for r in workers["rows"] for held in r["connections_held"])
        assert all(min(held) > 0 for r in workers["rows"] if r["workers"] == 2 for held in r["connections_held"])
        profile = results["profile"]
        assert {(p["store"], p["era"]) for p in profile["profiles"]} == {
            (s, e) for s in ("memory", "redis") for e in ("modern", "legacy")}
        assert all(p["samples"] > 0 and p["top_own"] for p in profile["profiles"])
        for era in ("modern", "legacy"):
            trips = profile["redis"][era]
            assert trips["round_trips_per_call"] >= 1
            assert any("call record" in t["for"] for t in trips["per_call"])
            assert not any("cache read" in t["for"] for t in trips["per_call"])  # the near copy answers those
        assert "session check" in " ".join(t["for"] for t in profile["redis"]["legacy"]["per_call"])
        assert "top functions by own time" in (tmp_path / "profile.txt").read_text(encoding="utf-8")
        for heading in ("## The targets of issues 26 and 44", "## Scale-out: the Redis store and two workers",
                        "## Profile of the cached call"):
            assert heading in text
        assert (tmp_path / "scaleout.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert results["upstream"]["single_flight"]["upstream_calls"] == 1
    workload = results["workload"]  # many assistants: as shipped and each change undone on two workers, all answered
    assert {(r["workers"], r["variant"]) for r in workload["runs"]} == {
        (2, "per_process_flight"), (2, "exact_pages"), (2, "shipped")}
    assert all(r["answered"] > 0 and not r.get("failed") and r["platform_requests"] > 0 for r in workload["runs"])
    assert all(abs(sum(r["layer_share"].values()) - 1) < 0.01 for r in workload["runs"])
    assert results["memory"]["sessions"] == 64
    search = results["search"]
    assert search["sources_answered_p50"] == len(search["sequential_tools"]) == 7
    assert search["search"]["requests_p50"] == search["sequential"]["requests_p50"] > 0
    slugs = {r["slug"] for r in results["toolslist"]["addresses"]}
    assert {"tweedekamer", "allebronnen"} <= slugs
    assert [r["connectors"] for r in results["site"]["rows"]][1:] == [4]

    for heading in ("## A cached real tool call", "## In front of a slow platform",
                    "## Many assistants against the platforms' budgets",
                    "## search on Alle Bronnen against each source in turn", "## Site build",
                    "## Memory of legacy sessions", "## tools/list per address"):
        assert heading in text
    assert "quick mode" in text and "added p50" in text
    assert "one after another ÷ search" in text
    for plot in ("calls.png", "search.png", "site.png") if shutil.which("wrk") else ("search.png", "site.png"):
        assert (tmp_path / plot).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_transport_bench_runs_on_the_shared_harness() -> None:
    """bench/bench_transport.py: the echo server role and the harness's load generator, all three routes."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_transport.py"), "--calls", "80", "--rounds",
                           "1", "--concurrency", "2"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "(b) modern runs at" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    for name in ("(a) bare aiohttp", "(b) McpHttp modern", "(c) McpHttp legacy"):
        assert name in proc.stdout


def test_wrk_parts_say_they_are_skipped_without_wrk() -> None:
    """No wrk on the machine: each part measured with it says so (and why) instead of failing."""
    env = {**os.environ, "BESLUITBRON_BENCH_NO_WRK": "1"}
    for script, args in (("bench_calls.py", ["--seconds", "1", "--rounds", "1", "--clients", "1"]),
                         ("bench_scaleout.py", ["--seconds", "1", "--rounds", "1"]),
                         ("bench_profile.py", ["--seconds", "1"])):
        proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=120, env=env)
        assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
        assert "wrk is not installed" in proc.stdout and "skipped" in proc.stdout


def test_instruction_counts_run_under_callgrind() -> None:
    """bench/bench_instructions.py: BesluitBron and the bare handler under valgrind's callgrind (make test installs
    valgrind), counting switched on for wrk's load only; the count per call is read from callgrind's dump."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_instructions.py"), "--eras", "modern",
                           "--seconds", "1"], cwd=ROOT, capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    rows = [line.split() for line in proc.stdout.splitlines() if line.startswith("modern ")]
    assert [row[1] for row in rows] == ["besluitbron", "bare", "checked"], proc.stdout
    assert all(float(row[2].replace(",", "")) > 10 for row in rows), proc.stdout  # thousands of instructions a call
