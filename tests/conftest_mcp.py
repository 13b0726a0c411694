"""Test helpers for `proxy.web.transport`: a two-tool demo endpoint and a real server on a port,
and typed readers for the tool results an SDK client gets back (`text_of`, `data_of`, `meta_of`, `trace_meta`).

Also runnable, for the conformance suite and manual poking:

    .venv/bin/python -m tests.conftest_mcp --port 8765     # serves /demo/mcp and /other/mcp
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import mcp_types as types
from aiohttp import web

from proxy.core.caller import Caller
from proxy.core.errors import UnknownToolError
from proxy.core.trace import TRACE_META_KEY, TraceSigner
from proxy.state.store import MemoryStore
from proxy.web.transport import (
    Endpoint,
    McpHttp,
    ServerIdentity,
    SessionStore,
    TransportSettings,
    handler_args,
)

__all__ = [
    "ECHO_TOOL",
    "FAIL_TOOL",
    "IDENTITY",
    "SETTINGS",
    "DemoEndpoint",
    "RunningServer",
    "data_of",
    "make_app",
    "meta_of",
    "start_server",
    "text_of",
    "trace_meta",
]

ECHO_TOOL = types.Tool(
    name="echo",
    title="Echo",
    description="Returns the message, and who asked.",
    input_schema={
        "type": "object",
        # x-mcp-header: modern clients mirror `message` into an Mcp-Param-Message header.
        "properties": {"message": {"type": "string", "x-mcp-header": "Message"}},
        "required": ["message"],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {"echo": {"type": "string"}, "caller": {"type": "string"}},
        "required": ["echo", "caller"],
    },
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
)
FAIL_TOOL = types.Tool(
    name="fail",
    title="Always fails",
    description="Always answers with an isError result.",
    input_schema={"type": "object", "additionalProperties": False},
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
)
IDENTITY = ServerIdentity(name="besluitbron-test", version="0.0.1", title="BesluitBron test", instructions="Try echo.")
SETTINGS = TransportSettings(
    allowed_hosts=("127.0.0.1:*", "localhost:*", "[::1]:*"),
    allowed_origins=("http://127.0.0.1:*", "http://localhost:*"),
    max_body_bytes=64 * 1024,
)


@dataclass
class DemoEndpoint:
    """Two tools: `echo` (outputSchema + structuredContent) and `fail` (isError)."""

    slug: str = "demo"
    calls: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    explode: bool = False  # call_tool raises a RuntimeError: the transport must not leak it

    def list_tools(self) -> Sequence[types.Tool]:
        return (ECHO_TOOL, FAIL_TOOL)

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        tool = {"echo": ECHO_TOOL, "fail": FAIL_TOOL}.get(name)
        return tool.input_schema if tool is not None else None

    async def call_tool(self, name: str, arguments: Mapping[str, Any], caller: Caller) -> types.CallToolResult:
        self.calls.append((name, dict(arguments), caller.key))
        if self.explode:
            raise RuntimeError("secret internal detail /etc/passwd")
        if name == "echo":
            message = arguments.get("message")
            if not isinstance(message, str):
                return _error_result('`message` must be a string, e.g. {"message": "hallo"}.')
            data = {"echo": message, "caller": caller.key}
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=json.dumps(data))], structured_content=data
            )
        if name == "fail":
            return _error_result("This tool always fails; that is its job.")
        raise UnknownToolError(name)


def text_of(result: types.CallToolResult) -> str:
    """The text of a tool result's first content block; fails the test unless that block is text."""
    assert result.content and isinstance(result.content[0], types.TextContent), result.content
    return result.content[0].text


def data_of(result: types.CallToolResult) -> dict[str, Any]:
    """A tool result's structuredContent (always a JSON object); fails the test if the result carries none."""
    data = result.structured_content
    assert isinstance(data, dict), result.content
    return data


def meta_of(result: types.CallToolResult) -> dict[str, Any]:
    """A tool result's `_meta`; fails the test if the result carries none."""
    assert result.meta is not None, result
    return result.meta


def trace_meta(handle: str) -> types.RequestParamsMeta:
    """The request `_meta` that hands a trace handle back to the server."""
    # cast: RequestParamsMeta is an open TypedDict (PEP 728 extra_items), which mypy cannot yet express.
    return cast(types.RequestParamsMeta, {TRACE_META_KEY: handle})


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def make_app(
    resolve: Callable[[str], Endpoint | None],
    *,
    sessions: SessionStore | None = None,
    settings: TransportSettings = SETTINGS,
    trace_secret: bytes = b"test-secret",
) -> tuple[web.Application, McpHttp]:
    """An app with only the MCP route, mounted the way the production app mounts it."""
    mcp = McpHttp(
        resolve=resolve,
        identity=IDENTITY,
        settings=settings,
        sessions=sessions if sessions is not None else MemoryStore(),
        signer=TraceSigner(trace_secret),
    )
    app = web.Application(handler_args=handler_args())
    app.router.add_route("*", "/{slug}/mcp", mcp.handle)
    return app, mcp


@dataclass
class RunningServer:
    runner: web.AppRunner
    port: int

    def url(self, slug: str = "demo") -> str:
        return f"http://127.0.0.1:{self.port}/{slug}/mcp"

    async def close(self) -> None:
        await self.runner.cleanup()


async def start_server(app: web.Application, *, host: str = "127.0.0.1", port: int = 0) -> RunningServer:
    """Serve `app` on a real socket (port 0 = any free port) and report the bound port."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    return RunningServer(runner, site.port)


async def _serve_forever(host: str, port: int) -> None:
    endpoints: dict[str, Endpoint] = {"demo": DemoEndpoint("demo"), "other": DemoEndpoint("other")}
    app, _ = make_app(endpoints.get, trace_secret=secrets.token_bytes(32))
    server = await start_server(app, host=host, port=port)
    print(f"serving {server.url('demo')} and {server.url('other')}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve_forever(args.host, args.port))
