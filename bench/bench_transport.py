"""Throughput of `proxy.mcp_http` against a bare aiohttp JSON handler, measured in one run.

    .venv/bin/python bench/bench_transport.py [--calls 4000] [--rounds 3] [--concurrency 8]

One server subprocess (pinned to core 0 when there are two or more) serves three routes;
the load generator (an aiohttp client, `--concurrency` workers) runs here, pinned to core 1:

  (a) bare    a plain aiohttp handler: parse the JSON-RPC body, answer a canned tools/call result
  (b) modern  McpHttp, 2026-07-28 stateless tools/call on a trivial echo endpoint
  (c) legacy  McpHttp, 2025-11-25 tools/call inside an initialized session (one per worker)

Rounds interleave a, b, c so drift hits all alike; each figure is the median over rounds.
Besides calls/s (which a Python client can cap) it reports the server's CPU time per call,
read from /proc, which is the fairer ratio when the client core is the bottleneck.
Target (DESIGN.md §3): modern ≥ 0.6x bare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import mcp_types as types
from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from proxy.caller import Caller  # noqa: E402
from proxy.mcp_http import (  # noqa: E402
    McpHttp,
    ServerIdentity,
    TransportSettings,
    UnknownToolError,
    handler_args,
)
from proxy.state import MemoryStore  # noqa: E402
from proxy.trace import TraceSigner  # noqa: E402

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ACCEPT = "application/json, text/event-stream"
ARGUMENTS = {"message": "hallo wereld"}
ECHO = types.Tool(
    name="echo",
    title="Echo",
    description="Echo a message.",
    input_schema={"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
    output_schema={"type": "object", "properties": {"echo": {"type": "string"}}, "required": ["echo"]},
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
)
CANNED_RESULT = {
    "content": [{"type": "text", "text": '{"echo":"hallo wereld"}'}],
    "structuredContent": {"echo": "hallo wereld"},
    "isError": False,
    "resultType": "complete",
}


# ─── server side ───────────────────────────────────────────────────────────────────────────────


class EchoEndpoint:
    """The smallest honest endpoint: builds a real CallToolResult per call."""

    slug = "echo"

    def list_tools(self) -> Sequence[types.Tool]:
        return (ECHO,)

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        return ECHO.input_schema if name == "echo" else None

    async def call_tool(self, name: str, arguments: Mapping[str, Any], caller: Caller) -> types.CallToolResult:
        if name != "echo":
            raise UnknownToolError(name)
        data = {"echo": str(arguments.get("message", ""))}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(data))], structured_content=data
        )


async def bare(request: web.Request) -> web.Response:
    """The ceiling: no MCP checks at all, just JSON in and JSON out."""
    message = json.loads(await request.read())
    body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": CANNED_RESULT}, separators=(",", ":"))
    return web.Response(body=body.encode(), content_type="application/json")


def serve(port: int) -> None:
    pin(0)
    endpoint = EchoEndpoint()
    mcp = McpHttp(
        resolve=lambda slug: endpoint if slug == "echo" else None,
        identity=ServerIdentity(name="bench", version="0"),
        settings=TransportSettings(allowed_hosts=("127.0.0.1:*",), allowed_origins=()),
        sessions=MemoryStore(),
        signer=TraceSigner(b"bench-secret"),
    )
    app = web.Application(handler_args=handler_args())
    app.router.add_post("/bare/mcp", bare)
    app.router.add_route("*", "/{slug}/mcp", mcp.handle)

    async def ready(_: web.Application) -> None:
        print("ready", flush=True)

    app.on_startup.append(ready)
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None)


def pin(core: int) -> None:
    """Pin this process to `core` when the machine has at least two."""
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2:
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[core]})


# ─── load generator ────────────────────────────────────────────────────────────────────────────


@dataclass
class Scenario:
    name: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    legacy_session: bool = False


SCENARIOS = [
    Scenario(
        "(a) bare aiohttp",
        "/bare/mcp",
        {"Accept": ACCEPT, "Content-Type": "application/json"},
        {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "echo", "arguments": ARGUMENTS}},
    ),
    Scenario(
        "(b) McpHttp modern",
        "/echo/mcp",
        {
            "Accept": ACCEPT,
            "Content-Type": "application/json",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": "tools/call",
            "Mcp-Name": "echo",
        },
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "tools/call",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": MODERN,
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
                },
                "name": "echo",
                "arguments": ARGUMENTS,
            },
        },
    ),
    Scenario(
        "(c) McpHttp legacy",
        "/echo/mcp",
        {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": LEGACY},
        {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "echo", "arguments": ARGUMENTS}},
        legacy_session=True,
    ),
]


@dataclass
class Measurement:
    calls_per_s: float
    p50_ms: float
    p99_ms: float
    cpu_us_per_call: float


def server_cpu_seconds(pid: int) -> float:
    """utime + stime of the server process (Linux /proc); 0 elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def open_legacy_session(http: aiohttp.ClientSession, url: str) -> str:
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
    }
    headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
    async with http.post(url, json=init, headers=headers) as response:
        assert response.status == 200, await response.text()
        return response.headers["Mcp-Session-Id"]


async def run_scenario(
    http: aiohttp.ClientSession, base: str, scenario: Scenario, calls: int, concurrency: int, pid: int
) -> Measurement:
    url = base + scenario.path
    headers = [dict(scenario.headers) for _ in range(concurrency)]
    if scenario.legacy_session:
        for worker_headers in headers:
            worker_headers["Mcp-Session-Id"] = await open_legacy_session(http, url)
    latencies: list[float] = []

    async def worker(index: int, count: int, record: bool) -> None:
        body = dict(scenario.body)
        for i in range(count):
            body["id"] = index * 1_000_000 + i
            started = time.perf_counter()
            async with http.post(url, data=json.dumps(body), headers=headers[index]) as response:
                payload = await response.read()
            if record:
                latencies.append(time.perf_counter() - started)
            if response.status != 200 or b'"error"' in payload:
                raise RuntimeError(f"{scenario.name}: {response.status} {payload[:300]!r}")

    per_worker = max(1, calls // concurrency)
    await asyncio.gather(*(worker(i, max(1, per_worker // 10), False) for i in range(concurrency)))  # warm-up
    cpu_before = server_cpu_seconds(pid)
    started = time.perf_counter()
    await asyncio.gather(*(worker(i, per_worker, True) for i in range(concurrency)))
    elapsed = time.perf_counter() - started
    cpu = server_cpu_seconds(pid) - cpu_before
    latencies.sort()
    done = len(latencies)
    return Measurement(
        calls_per_s=done / elapsed,
        p50_ms=latencies[done // 2] * 1000,
        p99_ms=latencies[min(done - 1, int(done * 0.99))] * 1000,
        cpu_us_per_call=cpu / done * 1e6,
    )


async def measure(port: int, pid: int, calls: int, rounds: int, concurrency: int) -> dict[str, list[Measurement]]:
    pin(1)
    results: dict[str, list[Measurement]] = {scenario.name: [] for scenario in SCENARIOS}
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as http:
        for _ in range(rounds):
            for scenario in SCENARIOS:
                result = await run_scenario(http, f"http://127.0.0.1:{port}", scenario, calls, concurrency, pid)
                results[scenario.name].append(result)
    return results


def report(results: dict[str, list[Measurement]], calls: int, rounds: int, concurrency: int) -> float:
    def median(values: list[float]) -> float:
        return statistics.median(values)

    base_rate = median([m.calls_per_s for m in results[SCENARIOS[0].name]])
    base_cpu = median([m.cpu_us_per_call for m in results[SCENARIOS[0].name]])
    print(f"\n{calls} calls x {rounds} rounds, {concurrency} concurrent, medians; server CPU from /proc")
    columns = ("calls/s", "p50 ms", "p99 ms", "ratio", "CPU us/call", "CPU ratio")
    print(f"{'server':22} " + " ".join(f"{c:>{w}}" for c, w in zip(columns, (9, 8, 8, 6, 12, 10), strict=True)))
    modern_ratio = 0.0
    for scenario in SCENARIOS:
        runs = results[scenario.name]
        rate = median([m.calls_per_s for m in runs])
        cpu = median([m.cpu_us_per_call for m in runs])
        ratio = rate / base_rate
        cpu_ratio = base_cpu / cpu if cpu else float("nan")
        if scenario is SCENARIOS[1]:
            modern_ratio = ratio
        print(
            f"{scenario.name:22} {rate:9.0f} {median([m.p50_ms for m in runs]):8.2f} "
            f"{median([m.p99_ms for m in runs]):8.2f} {ratio:6.2f} {cpu:12.1f} {cpu_ratio:10.2f}"
        )
    verdict = "meets" if modern_ratio >= 0.6 else "MISSES"
    print(f"\n(b) modern runs at {modern_ratio:.2f}x the bare handler: {verdict} the 0.6x target")
    return modern_ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=4000, help="measured calls per scenario and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--port", type=int, default=0, help="0: pick a free port")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # the subprocess role
    args = parser.parse_args()
    if args.serve:
        serve(args.port)
        return 0

    port = args.port or free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--port", str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError("benchmark server did not start")
        results = asyncio.run(measure(port, server.pid, args.calls, args.rounds, args.concurrency))
    finally:
        server.terminate()
        server.wait(timeout=10)
    ratio = report(results, args.calls, args.rounds, args.concurrency)
    return 0 if ratio >= 0.6 else 1


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


if __name__ == "__main__":
    sys.exit(main())
