"""One stateless (2026-07-28) tools/call as raw HTTP: what a load test, a flood or a restart test sends many of.

The SDK client lists the tools before it calls; these tests need exactly one request per call, from an
address or a forwarded address of their choosing, and the JSON-RPC result as it came.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp

__all__ = ["call_headers", "state_health", "stateless_call"]

MODERN = "2026-07-28"
_ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
             "io.modelcontextprotocol/clientInfo": {"name": "besluitbron-tests", "version": "1"}}


def call_headers(tool: str, *, forwarded_for: str | None = None) -> dict[str, str]:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool}
    if forwarded_for is not None:  # as a trusted proxy in front passes the client's address on
        headers["X-Forwarded-For"] = forwarded_for
    return headers


async def stateless_call(http: aiohttp.ClientSession, url: str, tool: str, arguments: dict[str, Any], *,
                         forwarded_for: str | None = None) -> dict[str, Any]:
    """The `result` of one tools/call (HTTP 200 asserted): an answer or an isError result."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"_meta": _ENVELOPE, "name": tool, "arguments": arguments}}
    async with http.post(url, data=json.dumps(body), headers=call_headers(tool, forwarded_for=forwarded_for)) as resp:
        assert resp.status == 200, await resp.text()
        return dict((await resp.json())["result"])


async def state_health(http: aiohttp.ClientSession, base: str) -> dict[str, Any]:
    """What `/health` says about the state store (`backend`, `degraded`, and why)."""
    async with http.get(f"{base}/health") as resp:
        return dict((await resp.json())["state"])
