"""Throughput of `proxy.web.transport` against a bare aiohttp JSON handler, measured in one run.

    .venv/bin/python bench/bench_transport.py [--calls 4000] [--rounds 3] [--concurrency 8]

One server subprocess (`bench/servers.py echo`, through `bench._harness.Child`, pinned to the
first core) serves both routes; the harness's load generator runs here, pinned to the second:

  (a) bare    a plain aiohttp handler: parse the JSON-RPC body, answer a canned tools/call result
  (b) modern  McpHttp, 2026-07-28 stateless tools/call on a trivial echo endpoint
  (c) legacy  McpHttp, 2025-11-25 tools/call inside an initialized session (one per worker)

Rounds interleave a, b, c so drift hits all alike; each figure is the median over rounds.
Besides calls/s (which a Python client can cap) it reports the server's CPU time per call,
read from /proc, which is the fairer ratio when the client core is the bottleneck.
Target (DESIGN.md §3): modern ≥ 0.6x bare. The real tool call is bench/bench_calls.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import mcp_types as types
from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from bench._harness import ACCEPT, LEGACY, MODERN, Child, Measurement, median, open_session, pin, run_load  # noqa: E402
from proxy.core.caller import Caller  # noqa: E402
from proxy.core.errors import UnknownToolError  # noqa: E402
from proxy.core.trace import TraceSigner  # noqa: E402
from proxy.state.store import MemoryStore  # noqa: E402
from proxy.web.transport import McpHttp, ServerIdentity, TransportSettings, handler_args  # noqa: E402

__all__ = ["echo_app", "run"]

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
_META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
         "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}}
SCENARIOS = ("(a) bare aiohttp", "(b) McpHttp modern", "(c) McpHttp legacy")


# ─── server side (the `echo` role of bench/servers.py) ─────────────────────────────────────────


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


async def _bare(request: web.Request) -> web.Response:
    """The ceiling: no MCP checks at all, just JSON in and JSON out."""
    message = json.loads(await request.read())
    body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": CANNED_RESULT}, separators=(",", ":"))
    return web.Response(body=body.encode(), content_type="application/json")


def echo_app() -> web.Application:
    endpoint = EchoEndpoint()
    mcp = McpHttp(
        resolve=lambda slug: endpoint if slug == "echo" else None,
        identity=ServerIdentity(name="bench", version="0"),
        settings=TransportSettings(allowed_hosts=("127.0.0.1:*",), allowed_origins=()),
        sessions=MemoryStore(),
        signer=TraceSigner(b"bench-secret"),
    )
    app = web.Application(handler_args=handler_args())
    app.router.add_post("/bare/mcp", _bare)
    app.router.add_route("*", "/{slug}/mcp", mcp.handle)
    return app


# ─── load generator ────────────────────────────────────────────────────────────────────────────


def _check(status: int, payload: bytes) -> None:
    if status != 200 or b'"error"' in payload:
        raise RuntimeError(f"not a tool result: {status} {payload[:300]!r}")


async def _prepared(scenario: str, url: str, clients: int) -> list[tuple[dict[str, str], dict[str, Any]]]:
    params: dict[str, Any] = {"name": "echo", "arguments": ARGUMENTS}
    headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
    if scenario == SCENARIOS[1]:
        headers.update({"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "echo"})
        params = {**params, "_meta": _META}
    body = {"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": params}
    if scenario != SCENARIOS[2]:
        return [(headers, body)] * clients
    async with aiohttp.ClientSession() as http:  # one session per worker
        sessions = [await open_session(http, url) for _ in range(clients)]
    return [({**headers, "MCP-Protocol-Version": LEGACY, "Mcp-Session-Id": s}, body) for s in sessions]


def run(*, calls: int = 4000, rounds: int = 3, concurrency: int = 8) -> dict[str, dict[str, float]]:
    """Medians per scenario, with the ratio to the bare handler by calls/s and by server CPU per call."""
    pin(1)
    raw: dict[str, list[Measurement]] = {name: [] for name in SCENARIOS}
    with Child("echo") as server:
        for _ in range(rounds):
            for name in SCENARIOS:
                url = f"{server.base}/{'bare' if name == SCENARIOS[0] else 'echo'}/mcp"
                prepared = asyncio.run(_prepared(name, url, concurrency))
                raw[name].append(asyncio.run(run_load(url, prepared, calls=calls, pid=server.pid, check=_check)))
    rows = {name: {k: median([getattr(m, k) for m in runs]) for k in ("calls_per_s", "p50_ms", "p99_ms",
                                                                      "cpu_us_per_call")}
            for name, runs in raw.items()}
    bare = rows[SCENARIOS[0]]
    for row in rows.values():
        row["ratio"] = row["calls_per_s"] / bare["calls_per_s"]
        row["cpu_ratio"] = bare["cpu_us_per_call"] / row["cpu_us_per_call"] if row["cpu_us_per_call"] else 0.0
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=4000, help="measured calls per scenario and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    rows = run(calls=args.calls, rounds=args.rounds, concurrency=args.concurrency)
    print(f"\n{args.calls} calls x {args.rounds} rounds, {args.concurrency} concurrent, medians; server CPU from /proc")
    print(f"{'server':22} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'ratio':>6} {'CPU us/call':>12} "
          f"{'CPU ratio':>10}")
    for name, r in rows.items():
        print(f"{name:22} {r['calls_per_s']:9.0f} {r['p50_ms']:8.2f} {r['p99_ms']:8.2f} {r['ratio']:6.2f} "
              f"{r['cpu_us_per_call']:12.1f} {r['cpu_ratio']:10.2f}")
    modern = rows[SCENARIOS[1]]["ratio"]
    verdict = "meets" if modern >= 0.6 else "MISSES"
    print(f"\n(b) modern runs at {modern:.2f}x the bare handler: {verdict} the 0.6x target")
    return 0 if modern >= 0.6 else 1


if __name__ == "__main__":
    sys.exit(main())
