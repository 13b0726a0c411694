"""Scale-out: two server processes' worth of state in one real redis-server. A legacy session made
on one instance works on the other, and its call log is the same on both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp

from tests.conftest import Replicas, serve, write_registry
from tests.conftest_mcp import meta_of, trace_meta

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


async def _rpc(http: aiohttp.ClientSession, url: str, method: str, params: dict[str, Any], *,
               session: str | None = None, rid: int = 1) -> tuple[int, dict[str, Any], str | None]:
    headers = dict(HEADERS)
    if session:
        headers |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    async with http.post(url, data=json.dumps(body), headers=headers) as resp:
        return resp.status, await resp.json(), resp.headers.get("Mcp-Session-Id")


async def test_two_instances_share_sessions_and_call_logs(replicas: Replicas, tmp_path: Path, redis_url: str) -> None:
    path = write_registry(tmp_path)
    async with serve(path, replicas, redis_url=redis_url) as one, serve(path, replicas, redis_url=redis_url) as two, \
            aiohttp.ClientSession() as http:
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        status, _, session = await _rpc(http, one.url("wetten"), "initialize", init)
        assert status == 200 and session
        async with http.post(two.url("wetten"), headers={**HEADERS, "Mcp-Session-Id": session,
                                                         "MCP-Protocol-Version": "2025-11-25"},
                             data=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})) as resp:
            assert resp.status == 202
        args = {"name": "search_regulations", "arguments": {"title": "wet", "limit": 2}}
        status, answer, _ = await _rpc(http, two.url("wetten"), "tools/call", args, session=session, rid=2)
        assert status == 200 and not answer["result"].get("isError"), answer
        status, answer, _ = await _rpc(http, one.url("wetten"), "tools/call",
                                       {"name": "list_platform_calls", "arguments": {}}, session=session, rid=3)
        calls = answer["result"]["structuredContent"]["calls"]
        assert calls and all(c["source"] == "wetten" for c in calls)
        # The other instance's session is also ended for both.
        async with http.delete(one.url("wetten"), headers={"Mcp-Session-Id": session,
                                                           "MCP-Protocol-Version": "2025-11-25"}) as resp:
            assert resp.status == 200
        status, _, _ = await _rpc(http, two.url("wetten"), "tools/list", {}, session=session, rid=4)
        assert status == 404


async def test_trace_handles_work_on_every_instance(replicas: Replicas, tmp_path: Path, redis_url: str) -> None:
    from mcp import Client

    from proxy.core.trace import TRACE_META_KEY

    path = write_registry(tmp_path)
    async with serve(path, replicas, redis_url=redis_url) as one, serve(path, replicas, redis_url=redis_url) as two:
        async with Client(one.url("rechtspraak"), mode="2026-07-28") as c:
            result = await c.call_tool("search_rulings", {"court": "Hoge Raad", "limit": 1})
            handle = meta_of(result)[TRACE_META_KEY]
        async with Client(two.url("rechtspraak"), mode="2026-07-28") as c:
            calls = (await c.call_tool("list_platform_calls", {"trace": handle})).structured_content
            again = await c.call_tool("search_rulings", {"court": "Hoge Raad", "limit": 1},
                                      meta=trace_meta(handle))
    assert calls["trace"] == handle and calls["total"] >= 1
    assert meta_of(again)[TRACE_META_KEY] == handle  # the other instance accepted the handle as its own
