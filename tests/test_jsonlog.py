"""Logs as JSON lines with a request id that also appears in the call record (issue 23).

Real app, real replicas, a real redis-server stopped under a request: the warning that request
writes and the call record it leaves carry the same id (the front proxy's `X-Request-Id`).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import sys
from pathlib import Path
from typing import Any

import aiohttp

from proxy.observe.jsonlog import JsonLines
from tests.conftest import Replicas, serve, write_registry
from tests.redis_server import redis_server

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "jsonlog", "version": "1"}}


async def _call(http: aiohttp.ClientSession, url: str, name: str, arguments: dict[str, Any],
                meta: dict[str, Any] | None = None, request_id: str | None = None) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"_meta": {**ENVELOPE, **(meta or {})}, "name": name, "arguments": arguments}}
    headers = {**HEADERS, "Mcp-Name": name, **({"X-Request-Id": request_id} if request_id else {})}
    async with http.post(url, data=json.dumps(body), headers=headers) as resp:
        assert resp.status == 200
        return dict((await resp.json())["result"])


async def _records(http: aiohttp.ClientSession, url: str, trace: str) -> list[dict[str, Any]]:
    listed = await _call(http, url, "list_platform_calls", {}, {"nl.besluitbron/trace": trace})
    return list(listed["structuredContent"]["calls"])


@contextlib.contextmanager
def _json_lines(logger: str) -> Any:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLines())
    target = logging.getLogger(logger)
    target.addHandler(handler)
    try:
        yield stream
    finally:
        target.removeHandler(handler)


async def test_the_log_line_and_the_call_record_of_one_request_share_its_id(replicas: Replicas,
                                                                             tmp_path: Path) -> None:
    (tmp_path / "redis").mkdir()
    with contextlib.ExitStack() as running:
        url = running.enter_context(redis_server(tmp_path / "redis"))
        async with serve(write_registry(tmp_path), replicas, redis_url=url) as live, aiohttp.ClientSession() as http:
            mcp = live.url("wetten")
            first = await _call(http, mcp, "search_regulations", {"title": "kieswet", "limit": 1})
            trace = first["_meta"]["nl.besluitbron/trace"]
            ours = {r["request_id"] for r in await _records(http, mcp, trace)}
            assert len(ours) == 1 and len(ours.pop()) == 16  # no X-Request-Id sent: one id of our own per request

            running.close()  # Redis stops: the next request notices it and says so in the log
            with _json_lines("proxy.state.redis_store") as log:
                outage = await _call(http, mcp, "search_regulations", {"title": "omzetbelasting", "limit": 1},
                                     {"nl.besluitbron/trace": trace}, request_id="caddy-7f3a9c21e0b4")
            assert not outage.get("isError")
            [line] = [json.loads(text) for text in log.getvalue().splitlines()]
            assert line["level"] == "WARNING" and line["logger"] == "proxy.state.redis_store"
            assert line["message"].startswith("Redis cannot be reached")
            assert line["request_id"] == "caddy-7f3a9c21e0b4"
            records = await _records(http, mcp, trace)  # the local log, from the outage on
            assert records and {(r["request_id"], r["source"]) for r in records} == {("caddy-7f3a9c21e0b4", "wetten")}


def test_a_front_proxy_id_that_is_not_a_plain_token_is_replaced() -> None:
    from proxy.observe.jsonlog import request_id_for

    assert request_id_for("0f8c2b9e-1d4a-4c55-9c1e-2b7d6a4f9e10") == "0f8c2b9e-1d4a-4c55-9c1e-2b7d6a4f9e10"
    for offered in (None, "", "short", "x" * 65, "id with spaces", "id\r\nSet-Cookie: a=b"):
        replaced = request_id_for(offered)
        assert replaced != offered and len(replaced) == 16


def test_an_exception_goes_into_its_line() -> None:
    try:
        raise ValueError("broken reply")
    except ValueError:
        record = logging.getLogger("proxy").makeRecord("proxy", logging.ERROR, __file__, 1, "tool %s failed",
                                                       ("read_regulation",), exc_info=sys.exc_info())
    line = json.loads(JsonLines().format(record))
    assert line["message"] == "tool read_regulation failed" and "request_id" not in line
    assert "ValueError: broken reply" in line["exception"]


def test_a_json_line_holds_unicode_line_ends_escaped_and_reads_back_whole() -> None:
    message = "agent x\u2028forged\x85line\u2029end"
    record = logging.LogRecord("aiohttp.access", logging.INFO, __file__, 1, message, None, None)
    line = JsonLines().format(record)
    assert len(line.splitlines()) == 1 and json.loads(line)["message"] == message
