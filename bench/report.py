"""Turn one run's figures into `RESULTS.md` and PNG plots, each figure next to its target."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["TARGETS", "plot", "write_results"]

TARGETS = {
    "x_bare": 0.5,  # a cached real call at 8 clients: at least half the bare handler's calls/s
    "x_sdk": 2.0,  # ... and at least twice the SDK's own server
    "added_p50_ms": 1.0,
    "upstream_calls": 1,
    "site_seconds": 20.0,  # the 500-connector site
    "page_bytes": 1_000_000,
    "session_bytes": 2048,
}
SERVER_NAMES = {"besluitbron": "BesluitBron", "bare": "bare aiohttp (same bytes)", "sdk": "mcp SDK server",
                "fastmcp": "FastMCP"}
ERA_NAMES = {"modern": "2026-07-28 stateless", "legacy": "2025-11-25 session"}


def _verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def write_results(results: Mapping[str, Any], out: Path, *, quick: bool) -> Path:
    """Write RESULTS.md into `out` (the plots are referenced by file name) and return its path."""
    lines: list[str] = ["# Benchmark results", ""]
    env = results["environment"]
    lines += [
        f"Run {env['started_utc']} on commit `{env['commit']}`, {env['cores']} cores, load average "
        f"{env['loadavg_before']} before and {env['loadavg_after']} after; "
        f"{'**quick mode** (a smoke run: figures are not meaningful)' if quick else 'full run'}.",
        "",
        "Absolute figures depend on what else the machine is doing (it is shared): compare the ratios, "
        "which are measured in the same run with the same load generator. The server runs pinned to one "
        "core, the load generator (Python, aiohttp) to the other; \"CPU µs\" is the server's own CPU time "
        "per call, read from /proc, the fairer comparison when the load generator is the bottleneck.",
        "Reproduce with `make bench` (about 10 minutes), or one part with `.venv/bin/python bench/<file>.py`.",
        "",
    ]
    lines += _calls_section(results["calls"])
    lines += _upstream_section(results["upstream"])
    lines += _site_section(results["site"])
    lines += _memory_section(results["memory"])
    lines += _toolslist_section(results["toolslist"])
    path = out / "RESULTS.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _calls_section(calls: Mapping[str, Any]) -> list[str]:
    rows = calls["rows"]
    lines = [
        "## A cached real tool call",
        "",
        f"`{calls['tool']} {_compact(calls['arguments'])}` on `/{calls['slug']}/mcp`, answered from the cache "
        f"({calls['answer_bytes']['modern']:,} bytes of result on 2026-07-28, "
        f"{calls['answer_bytes']['legacy']:,} on 2025-11-25); {calls['calls']:,} calls per measurement, "
        f"median of {calls['rounds']} interleaved rounds. The bare handler answers the very bytes BesluitBron "
        "answered; the SDK's server and FastMCP serve a tool with the same schemas and the same answer.",
        "",
        "![calls per second](calls.png)",
        "",
        "| era | clients | server | calls/s | p50 ms | p99 ms | CPU µs/call | × bare | × SDK | CPU: × bare |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    order = list(SERVER_NAMES)
    for r in sorted(rows, key=lambda r: (r["era"] != "modern", r["clients"], order.index(r["server"]))):
        lines.append(f"| {ERA_NAMES[r['era']]} | {r['clients']} | {SERVER_NAMES[r['server']]} | "
                     f"{r['calls_per_s']:,.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['cpu_us_per_call']:,.0f} | "
                     f"{_num(r['x_bare'])} | {_num(r['x_sdk'])} | {_num(r['cpu_x_bare'])} |")
    lines += ["", "Targets at 8 clients:", ""]
    for era in ("modern", "legacy"):
        ours = next((r for r in rows if r["era"] == era and r["clients"] == 8 and r["server"] == "besluitbron"), None)
        if ours is None:
            continue
        if ours["x_bare"] is not None:
            lines.append(f"- {ERA_NAMES[era]}: {ours['x_bare']:.2f}× the bare handler (target ≥ "
                         f"{TARGETS['x_bare']}×): {_verdict(ours['x_bare'] >= TARGETS['x_bare'])}; by server CPU "
                         f"per call {_num(ours['cpu_x_bare'])}×")
        if ours["x_sdk"] is not None:
            lines.append(f"- {ERA_NAMES[era]}: {ours['x_sdk']:.2f}× the SDK's own server (target ≥ "
                         f"{TARGETS['x_sdk']}×): {_verdict(ours['x_sdk'] >= TARGETS['x_sdk'])}; by server CPU "
                         f"per call {_num(ours['cpu_x_sdk'])}×")
    return [*lines, ""]


def _upstream_section(upstream: Mapping[str, Any]) -> list[str]:
    added, flight = upstream["added_latency"], upstream["single_flight"]
    return [
        "## In front of a slow platform",
        "",
        f"Added latency: the replica answers after {added['replica_latency_ms']} ms, the cache is off, "
        f"{added['calls']} calls one at a time. Calling the adapter's URL directly: p50 "
        f"{added['direct_p50_ms']:.2f} ms; through BesluitBron: p50 {added['proxied_p50_ms']:.2f} ms; "
        f"**added p50 {added['added_p50_ms']:.2f} ms** (target ≤ {TARGETS['added_p50_ms']} ms): "
        f"{_verdict(added['added_p50_ms'] <= TARGETS['added_p50_ms'])}. The proxy's own CPU time per call "
        f"(its process, /proc; includes its HTTP client and server work): {added['proxy_cpu_ms_per_call']:.2f} ms.",
        "",
        "What bounds it: with one call at a time, all of the proxy's work for a call lies on that call's path, so "
        f"the added latency cannot drop below its CPU time per uncached call ({added['proxy_cpu_ms_per_call']:.2f} "
        "ms here): reading and checking the MCP request, sending the platform request and reading its reply "
        "(aiohttp's client), parsing and shaping the answer, encoding it and writing the response, plus one more "
        "loopback hop. The platform exchange alone costs what a direct GET of the same reply costs the load "
        f"generator (the same aiohttp client, same run): {added.get('client_get_cpu_ms', float('nan')):.2f} ms of "
        "CPU. `bench/bench_upstream.py --profile FILE` shows where the proxy's CPU goes.",
        "",
        f"Single-flight: {flight['concurrent_calls']} identical searches at once against a replica that answers "
        f"after {flight['replica_latency_ms']} ms: each platform request sent **{flight['upstream_calls']} "
        f"time(s)** at most (target {TARGETS['upstream_calls']}): "
        f"{_verdict(flight['upstream_calls'] == TARGETS['upstream_calls'])}; "
        f"{flight.get('distinct_requests', 1)} distinct platform request(s) per search; "
        f"wall time {flight['wall_ms']:.0f} ms.",
        "",
    ]


def _site_section(site: Mapping[str, Any]) -> list[str]:
    rows = site["rows"]
    lines = [
        "## Site build",
        "",
        f"`mkdocs build --strict`, nl + en, best of {site['repeats']}; synthetic registries clone the real "
        "platforms (see `bench/bench_site.py`).",
        "",
        "![site build](site.png)",
        "",
        "| registry | connectors | pages | seconds | CPU s | × shipped | catalogue s | largest page |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(f"| {r['registry']} | {r['connectors']} | {r['pages']} | {r['seconds']:.2f} | "
                     f"{r['cpu_seconds']:.2f} | {r['x_shipped']:.2f} | {r['catalog_seconds']:.2f} | "
                     f"{r['largest_page_bytes'] / 1e6:.2f} MB (`{r['largest_page']}`) |")
    largest = rows[-1]
    biggest_page = max(r["largest_page_bytes"] for r in rows)
    lines += [""]
    if site["seconds_per_connector"] is not None:
        lines.append(f"- {site['seconds_per_connector'] * 1000:.1f} ms per added connector between the first and "
                     "last synthetic size (linear growth keeps this constant).")
    lines += [
        f"- the {largest['connectors']}-connector site in {largest['seconds']:.1f} s (target < "
        f"{TARGETS['site_seconds']:.0f} s at 500 connectors): "
        f"{_verdict(largest['seconds'] < TARGETS['site_seconds']) if largest['connectors'] >= 500 else 'not measured'}",
        f"- largest page {biggest_page / 1e6:.2f} MB (target ≤ 1 MB): "
        f"{_verdict(biggest_page <= TARGETS['page_bytes'])}",
        f"- {largest['cpu_seconds'] / largest['pages'] * 1000:.1f} ms of CPU per page at {largest['connectors']} "
        f"connectors ({largest['pages']:,} pages: a connection page and a source page per connector, in two "
        "languages). What bounds the build: every page pays mkdocs' Markdown conversion, Material's theme "
        "template, the search index's HTML parse and the hooks' own page; the build is that cost times the "
        "number of pages (`bench/bench_site.py --profile FILE` shows where it goes).",
        "",
    ]
    return lines


def _beyond_cap(initialize: int | None, evicted: int | None) -> str:
    if initialize is None:
        return "the cap was not reached here"
    return (f"at the cap one more initialize was answered HTTP {initialize}; it evicted the least recently used "
            f"session: {evicted} of the sessions used first answered 404")


def _memory_section(memory: Mapping[str, Any]) -> list[str]:
    per = memory["bytes_per_idle_session"]
    beyond = memory["status_beyond_cap"]
    return [
        "## Memory of legacy sessions",
        "",
        f"{memory['sessions']:,} legacy sessions opened and left idle; server RSS {memory['rss_before_mb']:.1f} → "
        f"{memory['rss_idle_mb']:.1f} MB; then one cached call each (one call record per session): "
        f"{memory['rss_with_records_mb']:.1f} MB.",
        "",
        f"- **{per:,.0f} bytes per idle session** (target ≤ {TARGETS['session_bytes']:,}): "
        f"{_verdict(per <= TARGETS['session_bytes'])}",
        f"- {memory['bytes_per_call_record']:,.0f} bytes for a session's first call record (its call log included)",
        f"- cap: {memory['max_sessions']:,} open sessions per process (`MemoryStore(max_sessions=...)`); call logs: "
        f"{memory['callers_max']:,} callers × {memory['calls_per_caller']:,} records "
        f"({_beyond_cap(beyond, memory.get('status_of_evicted'))})",
        "",
    ]


def _toolslist_section(toolslist: Mapping[str, Any]) -> list[str]:
    lines = ["## tools/list per address", "", "Bytes of the `tools/list` result as served (compact JSON).", "",
             "| address | tools | 2026-07-28 | 2025-11-25 |", "|---|---:|---:|---:|"]
    for r in toolslist["addresses"]:
        lines.append(f"| `/{r['slug']}/mcp` | {r['tools']} | {r['modern_bytes']:,} | {r['legacy_bytes']:,} |")
    return [*lines, ""]


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _compact(value: Any) -> str:
    import json

    return json.dumps(value, separators=(", ", ": "))


# ─── plots ─────────────────────────────────────────────────────────────────────────────────────


def plot(results: Mapping[str, Any], out: Path) -> list[Path]:
    """calls.png (calls/s and p50 per server, clients and era) and site.png (build time, largest page)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    rows = results["calls"]["rows"]
    clients = sorted({r["clients"] for r in rows})
    servers = [s for s in SERVER_NAMES if any(r["server"] == s for r in rows)]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), constrained_layout=True)
    width = 0.8 / len(servers)
    for col, era in enumerate(("modern", "legacy")):
        for row_index, (key, label) in enumerate((("calls_per_s", "calls/s"), ("p50_ms", "p50 latency (ms)"))):
            ax = axes[row_index][col]
            for i, server in enumerate(servers):
                values = [next((r[key] for r in rows if r["era"] == era and r["clients"] == n
                                and r["server"] == server), 0) for n in clients]
                ax.bar([x + i * width for x in range(len(clients))], values, width, label=SERVER_NAMES[server])
            ax.set_xticks([x + width * (len(servers) - 1) / 2 for x in range(len(clients))],
                          [f"{n} clients" for n in clients])
            ax.set_ylabel(label)
            ax.set_title(f"{ERA_NAMES[era]}: {label}")
            if key == "p50_ms":
                ax.set_yscale("log")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Cached search_members call (same load generator, same run)")
    path = out / "calls.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    written.append(path)

    site = results["site"]["rows"]
    fig, ax = plt.subplots(figsize=(7, 4), constrained_layout=True)
    ax.plot([r["connectors"] for r in site], [r["seconds"] for r in site], "o-", label="build seconds")
    ax.axhline(TARGETS["site_seconds"], color="grey", linestyle="--", label="target at 500 connectors")
    ax.set_xlabel("connectors")
    ax.set_ylabel("seconds")
    twin = ax.twinx()
    twin.plot([r["connectors"] for r in site], [r["largest_page_bytes"] / 1e6 for r in site], "s:", color="tab:red",
              label="largest page (MB)")
    twin.set_ylabel("largest page (MB)")
    ax.legend(loc="upper left", fontsize=8)
    twin.legend(loc="lower right", fontsize=8)
    ax.set_title("Site build (mkdocs --strict, nl + en)")
    path = out / "site.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    written.append(path)
    return written
