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
    if "search" in results:
        lines += _search_section(results["search"])
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


def _search_section(bench: Mapping[str, Any]) -> list[str]:
    search, sequential = bench["search"], bench["sequential"]
    sources = bench["per_source"]
    tools = ", ".join(f"`{t}`" for t in bench["sequential_tools"])
    longest = max(sources, key=lambda k: (sources[k]["requests_p50"], sources[k]["p50_ms"]))
    chain = sources[longest]["requests_p50"]
    latency = bench["replica_latency_ms"]
    lines = [
        "## search on Alle Bronnen against each source in turn",
        "",
        f"{bench['questions']} questions ({len(bench['queries'])} fixed queries held in several sources: "
        f"{', '.join(repr(q) for q in bench['queries'])}; rounds: {bench['rounds']}), one at a time, the two ways "
        f"interleaved; every replica answers after {latency} ms; cache {bench['cache']}, so each question pays "
        f"every platform request it needs. **search**: one `search {{\"query\": Q, \"limit\": {bench['limit']}}}` "
        "on `/allebronnen/mcp`. **One after another**: what an assistant without `search` calls on the same "
        f"address, each free-text source's own search tool in turn with the arguments `search` sends it ({tools}); "
        "rechtspraak has no free text, so neither way asks it. Open Raadsinformatie's own rate limit (60 units "
        f"refilled at 1 per second, which its replica applies too) is raised to {bench['ori_bucket_units']:,} units: "
        "at this pace it would run dry within a minute and then pace ORI for both ways alike, which measures ORI's "
        "budget, not the fan-out. On the real platform it holds any installation to about one ORI search a second "
        "either way; `search` spends no more of it (one ORI request per question, as the table shows).",
        "",
        "![search against one source after another](search.png)",
        "",
        "| way of asking | tool calls | p50 ms | p99 ms | platform requests (p50 / p99) | proxy CPU ms per question |",
        "|---|---:|---:|---:|---:|---:|",
        f"| `search` | 1 | {search['p50_ms']:.1f} | {search['p99_ms']:.1f} | {search['requests_p50']:.0f} / "
        f"{search['requests_p99']:.0f} | {search['cpu_ms_per_question']:.1f} |",
        f"| one after another | {len(bench['sequential_tools'])} | {sequential['p50_ms']:.1f} | "
        f"{sequential['p99_ms']:.1f} | {sequential['requests_p50']:.0f} / {sequential['requests_p99']:.0f} | "
        f"{sequential['cpu_ms_per_question']:.1f} |",
        "",
        f"- **one after another ÷ search: {bench['ratio_p50']:.2f}× at p50, {bench['ratio_p99']:.2f}× at p99**; "
        f"sources that answered per search (p50): {bench['sources_answered_p50']:.0f} of "
        f"{len(bench['sequential_tools'])}.",
        "",
        "| source | its own tool alone: platform requests | p50 ms |",
        "|---|---:|---:|",
        *(f"| {key} | {v['requests_p50']:.0f} | {v['p50_ms']:.1f} |" for key, v in sources.items()),
        "",
        f"What bounds it: `search` asks every source at once and waits for the slowest, so it cannot answer "
        f"before its slowest source alone: the one needing the most platform requests one after the other "
        f"({longest}: {chain:.0f}, {chain * latency:.0f} ms of replica latency; the slowest source's own tool per "
        f"question, p50 {bench['slowest_source_alone_p50_ms']:.1f} ms); it spends "
        f"{search['p50_ms'] - bench['slowest_source_alone_p50_ms']:.1f} ms above it at p50 on starting the "
        "sources, merging and encoding. One after another cannot beat the sum of every source's chain "
        f"({sequential['requests_p50']:.0f} requests × {latency} ms = {sequential['requests_p50'] * latency:.0f} ms) "
        f"plus {len(bench['sequential_tools'])} MCP round trips. So at any fixed platform latency the ratio tends to "
        f"(sum of the chains) ÷ (the longest chain) = {sequential['requests_p50'] / chain:.1f}×; a source that "
        "needs more requests in a row, or a slower platform, lowers it, and more sources raise it. Both ways send "
        "the same platform requests: `search` runs each source's own tool, no more. The sequential figure is a "
        "floor for an assistant: it leaves out the model's own turn between tool calls, which costs seconds each.",
        "",
    ]
    return lines


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


def _plot_search(bench: Mapping[str, Any], out: Path, plt: Any) -> Path:
    """search.png: p50 per query of one `search` and of the sources' own tools one after another."""
    queries = list(bench["per_query"])
    fig, ax = plt.subplots(figsize=(8, 4), constrained_layout=True)
    for i, (name, label) in enumerate((("search", "search (1 call)"),
                                       ("sequential", f"one after another ({len(bench['sequential_tools'])} calls)"))):
        ax.bar([x + i * 0.4 for x in range(len(queries))], [bench["per_query"][q][name] for q in queries], 0.4,
               label=label)
    ax.set_xticks([x + 0.2 for x in range(len(queries))], queries)
    ax.set_ylabel("p50 wall time (ms)")
    ax.set_ylim(0, 1.3 * max(v for q in queries for v in bench["per_query"][q].values()))  # room for the legend
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(f"Alle Bronnen, every replica {bench['replica_latency_ms']} ms, cache off")
    path = out / "search.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def plot(results: Mapping[str, Any], out: Path) -> list[Path]:
    """calls.png (calls/s and p50 per server, clients and era), search.png (search against one source after
    another) and site.png (build time, largest page)."""
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

    if "search" in results:
        written.append(_plot_search(results["search"], out, plt))

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
