"""`proxy.web.transport` over a real socket: the SDK's own client in both eras, then hostile raw HTTP."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import aiohttp
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from proxy.core.caller import Caller
from proxy.core.jsonwire import encode_json
from proxy.core.trace import TRACE_META_KEY, TraceSigner
from proxy.results.encoding import EncodedResult, json_members
from proxy.state.store import MemoryStore
from proxy.web.transport import LISTING_TTL_MS, Endpoint, TransportSettings
from tests.conftest_mcp import (
    SETTINGS,
    DemoEndpoint,
    RunningServer,
    data_of,
    make_app,
    meta_of,
    start_server,
    text_of,
    trace_meta,
)

MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1"},
}
SECRET = b"test-secret"


def mint_trace_handle(secret: bytes) -> str:
    return TraceSigner(secret).mint()


def verify_trace_handle(handle: object, secret: bytes) -> bool:
    return TraceSigner(secret).verify(handle)


class Registry:
    """A swappable slug → endpoint map, like the app's registry reload."""

    def __init__(self) -> None:
        self.endpoints: dict[str, Endpoint] = {"demo": DemoEndpoint("demo"), "other": DemoEndpoint("other")}

    def resolve(self, slug: str) -> Endpoint | None:
        return self.endpoints.get(slug)


@pytest.fixture
def registry() -> Registry:
    return Registry()


@pytest.fixture
async def server(registry: Registry) -> AsyncIterator[RunningServer]:
    app, _ = make_app(registry.resolve, trace_secret=SECRET)
    running = await start_server(app)
    yield running
    await running.close()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def modern_headers(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    headers = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": MODERN}
    headers["Mcp-Method"] = method
    if name is not None:
        headers["Mcp-Name"] = name
    headers.update(extra)
    return headers


def modern_body(method: str, rid: int = 1, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {"_meta": dict(ENVELOPE), **params}}


LEGACY_HEADERS = {"Accept": ACCEPT, "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


async def post(
    http: aiohttp.ClientSession, url: str, headers: dict[str, str], body: Any = None, *, raw: bytes | None = None
) -> tuple[int, dict[str, Any] | None, Mapping[str, str]]:
    data = raw if raw is not None else json.dumps(body).encode()
    async with http.post(url, headers=headers, data=data) as response:
        text = await response.text()
        answer = json.loads(text) if response.content_type == "application/json" else None
        return response.status, answer, response.headers


async def open_session(http: aiohttp.ClientSession, url: str) -> str:
    status, _, headers = await post(http, url, LEGACY_HEADERS, INITIALIZE)
    assert status == 200
    return str(headers["Mcp-Session-Id"])


# ─── the SDK's own client ──────────────────────────────────────────────────────────────────────


async def test_legacy_client_lists_and_calls_tools(server: RunningServer, registry: Registry) -> None:
    async with Client(server.url(), mode="legacy") as client:
        assert client.protocol_version == "2025-11-25"
        assert client.server_info is not None and client.server_info.name == "besluitbron-test"
        assert client.instructions == "Try echo."
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True  # told on the session's GET stream
        with pytest.warns(MCPDeprecationWarning):  # removed in 2026-07-28, still legal here
            await client.send_ping()

        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["echo", "fail"]
        assert listed.tools[0].output_schema is not None
        assert listed.tools[0].annotations is not None and listed.tools[0].annotations.read_only_hint is True

        # The SDK client validates structuredContent against the listed outputSchema.
        echoed = await client.call_tool("echo", {"message": "hallo"})
        assert echoed.is_error is False
        assert data_of(echoed)["echo"] == "hallo"
        assert re.fullmatch(r"session:[\x21-\x7e]+", data_of(echoed)["caller"])

        failed = await client.call_tool("fail", {})
        assert failed.is_error is True
        assert "always fails" in text_of(failed)

        with pytest.raises(MCPError) as raised:
            await client.call_tool("nope", {})
        assert raised.value.error.code == types.INVALID_PARAMS
        assert raised.value.error.message == "Unknown tool: nope"


@pytest.mark.parametrize("mode", [MODERN, "auto"])
async def test_modern_client_lists_and_calls_tools(server: RunningServer, mode: str) -> None:
    async with Client(server.url(), mode=mode) as client:
        assert client.protocol_version == MODERN
        listed = await client.list_tools()
        assert [tool.name for tool in listed.tools] == ["echo", "fail"]

        # The modern client mirrors `message` into Mcp-Param-Message (x-mcp-header): it must agree.
        echoed = await client.call_tool("echo", {"message": "hallo ë"})
        assert echoed.is_error is False
        assert data_of(echoed)["echo"] == "hallo ë"
        handle = meta_of(echoed)[TRACE_META_KEY]
        assert verify_trace_handle(handle, SECRET)
        assert data_of(echoed)["caller"] == f"trace:{handle}"
        assert meta_of(echoed)[types.SERVER_INFO_META_KEY]["name"] == "besluitbron-test"

        failed = await client.call_tool("fail", {})
        assert failed.is_error is True

        with pytest.raises(MCPError) as raised:
            await client.call_tool("nope", {})
        assert raised.value.error.message == "Unknown tool: nope"

        # Sending the handle back keeps the trace; the endpoint sees the same caller.
        again = await client.call_tool("echo", {"message": "x"}, meta=trace_meta(handle))
        assert meta_of(again)[TRACE_META_KEY] == handle
        assert data_of(again)["caller"] == f"trace:{handle}"


async def test_modern_results_carry_the_2026_envelope(server: RunningServer, http: aiohttp.ClientSession) -> None:
    status, body, _ = await post(http, server.url(), modern_headers("server/discover"), modern_body("server/discover"))
    assert status == 200 and body is not None
    result = body["result"]
    assert result["supportedVersions"] == [MODERN]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["resultType"] == "complete"
    assert result["_meta"][types.SERVER_INFO_META_KEY] == {
        "name": "besluitbron-test",
        "title": "BesluitBron test",
        "version": "0.0.1",
    }

    status, body, _ = await post(http, server.url(), modern_headers("tools/list"), modern_body("tools/list", rid=2))
    assert status == 200 and body is not None and body["id"] == 2
    result = body["result"]
    # The same list for every client until a reload: a shared cache may keep it for LISTING_TTL_MS.
    assert (result["resultType"], result["ttlMs"], result["cacheScope"]) == ("complete", LISTING_TTL_MS, "public")
    assert types.SERVER_INFO_META_KEY in result["_meta"]
    types.ListToolsResult.model_validate(result)


async def test_legacy_results_have_no_2026_fields(server: RunningServer, http: aiohttp.ClientSession) -> None:
    session_id = await open_session(http, server.url())
    headers = dict(LEGACY_HEADERS, **{"Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-11-25"})
    status, body, _ = await post(http, server.url(), headers, {"jsonrpc": "2.0", "id": "a", "method": "tools/list"})
    assert status == 200 and body is not None and body["id"] == "a"
    assert set(body["result"]) == {"tools"}  # sieved: no resultType / ttlMs / cacheScope / _meta


async def test_tools_list_is_cached_per_endpoint_object(server: RunningServer, registry: Registry) -> None:
    class Counting(DemoEndpoint):
        listings = 0

        def list_tools(self) -> Any:
            Counting.listings += 1
            return super().list_tools()

    registry.endpoints["demo"] = Counting("demo")
    async with Client(server.url(), mode=MODERN) as client:
        for _ in range(3):
            await client.list_tools(cache_mode="bypass")
    assert Counting.listings == 1

    registry.endpoints["demo"] = Counting("demo")  # a reload swaps the object: list again
    async with Client(server.url(), mode=MODERN) as client:
        await client.list_tools(cache_mode="bypass")
    assert Counting.listings == 2


async def test_results_are_sieved_per_era(
    server: RunningServer, registry: Registry, http: aiohttp.ClientSession
) -> None:
    """An array-rooted outputSchema is fine on 2026-07-28 but cannot be carried on 2025 (SDK pitfall P8)."""
    listing = types.Tool(name="rows", input_schema={"type": "object"}, output_schema={"type": "array"})

    class ArrayTool(DemoEndpoint):
        def list_tools(self) -> Any:
            return (listing,)

    registry.endpoints["demo"] = ArrayTool("demo")
    status, body, _ = await post(http, server.url(), modern_headers("tools/list"), LIST_MODERN)
    assert status == 200 and body is not None
    assert body["result"]["tools"][0]["outputSchema"] == {"type": "array"}

    headers = dict(LEGACY_HEADERS, **{"Mcp-Session-Id": await open_session(http, server.url())})
    status, body, _ = await post(http, server.url(), headers, {"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    assert status == 200 and body is not None
    assert body["id"] == 7 and body["error"]["code"] == types.INTERNAL_ERROR


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25", MODERN])
@pytest.mark.parametrize("fenced", [False, True])
def test_encoded_result_is_spliced_as_the_sdk_shape_would_be_sent(version: str, fenced: bool) -> None:
    """`EncodedResult` skips dump + sieve + encode per call; its wire must equal the generic path's."""
    _, mcp = make_app(Registry().resolve, trace_secret=SECRET)
    data = {"results": [{"naam": "Zoë \u2028 \"quoted\"", "n": 1, "x": None}], "ok": True}
    encoded = encode_json(data)
    text = f"<<<quoted>>>\n{encoded.decode()}\n<<<end>>>" if fenced else encoded.decode()
    meta = {"nl.besluitbron/external": {"external": True, "sources": ["wetten"]}} if fenced else None
    generic = types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=data,
                                   _meta=meta)
    trace = mint_trace_handle(SECRET) if version == MODERN else None
    spliced = mcp._wire_encoded(version, EncodedResult(encoded, encode_json(text) if fenced else None,
                                                         json_members(meta)), trace=trace)
    assert json.loads(spliced) == json.loads(mcp._wire("tools/call", version, generic, trace=trace))
    assert json.loads(spliced)["content"][0]["text"] == text


async def test_encoded_results_reach_the_sdk_client(server: RunningServer, registry: Registry) -> None:
    class Encoded:
        """The demo's tools, answered with bytes already encoded (an EncodedResult), as the proxy's pipeline answers."""

        def __init__(self, slug: str) -> None:
            self.slug = slug
            self.demo = DemoEndpoint(slug)

        def list_tools(self) -> Sequence[types.Tool]:
            return self.demo.list_tools()

        def input_schema(self, name: str) -> Mapping[str, Any] | None:
            return self.demo.input_schema(name)

        async def call_tool(self, name: str, arguments: Mapping[str, Any], caller: Caller) -> EncodedResult:
            return EncodedResult(encode_json({"echo": arguments["message"], "caller": caller.key}))

    registry.endpoints["demo"] = Encoded("demo")
    for mode in ("legacy", MODERN):
        async with Client(server.url(), mode=mode) as client:
            result = await client.call_tool("echo", {"message": "hallo"})  # the SDK checks the outputSchema
        assert not result.is_error
        assert data_of(result)["echo"] == "hallo"


# ─── sessions ──────────────────────────────────────────────────────────────────────────────────


async def test_session_lifecycle(server: RunningServer, http: aiohttp.ClientSession) -> None:
    url = server.url()
    status, body, headers = await post(http, url, LEGACY_HEADERS, INITIALIZE)
    assert status == 200 and body is not None
    assert body["result"]["protocolVersion"] == "2025-11-25"
    session_id = headers["Mcp-Session-Id"]
    assert re.fullmatch(r"[\x21-\x7e]{16,}", session_id)

    with_session = dict(LEGACY_HEADERS, **{"Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-11-25"})
    status, _, _ = await post(http, url, with_session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert status == 202
    status, body, _ = await post(http, url, with_session, {"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert (status, body) == (200, {"jsonrpc": "2.0", "id": 2, "result": {}})

    async with http.delete(url, headers=with_session) as response:
        assert response.status == 200
    status, body, _ = await post(http, url, with_session, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    assert status == 404 and body is not None and body["id"] is None
    async with http.delete(url, headers=with_session) as response:
        assert response.status == 404


async def test_initialize_negotiates_like_the_sdk(server: RunningServer, http: aiohttp.ClientSession) -> None:
    for offered, expected in [("2025-03-26", "2025-03-26"), ("1999-01-01", "2025-11-25"), (MODERN, "2025-11-25")]:
        body = json.loads(json.dumps(INITIALIZE))
        body["params"]["protocolVersion"] = offered
        status, answer, _ = await post(http, server.url(), LEGACY_HEADERS, body)
        assert status == 200 and answer is not None
        assert answer["result"]["protocolVersion"] == expected


async def test_session_belongs_to_its_slug(server: RunningServer, http: aiohttp.ClientSession) -> None:
    session_id = await open_session(http, server.url("demo"))
    headers = dict(LEGACY_HEADERS, **{"Mcp-Session-Id": session_id})
    status, _, _ = await post(http, server.url("other"), headers, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert status == 404


async def test_memory_store_expires_idle_sessions_and_evicts_the_least_recently_used() -> None:
    now = [0.0]
    store = MemoryStore(max_sessions=2, clock=lambda: now[0])
    first = await store.create_session("demo", 10, "a")
    now[0] = 8
    second = await store.create_session("demo", 10, "b")
    assert await store.touch_session(first, "demo", 10)  # refreshed at 8: now the most recently used
    third = await store.create_session("demo", 10, "c")  # full: `second` goes, not `first`
    assert await store.touch_session(second, "demo", 10) is False
    now[0] = 17
    assert await store.touch_session(third, "demo", 10) is True  # 9 s idle: alive
    now[0] = 26
    assert await store.touch_session(first, "demo", 10) is False  # 18 s idle: gone
    assert await store.delete_session(third, "other") is False
    assert await store.delete_session(third, "demo") is True


async def test_a_full_session_store_evicts_and_the_evicted_session_answers_404(
    registry: Registry, http: aiohttp.ClientSession
) -> None:
    app, _ = make_app(registry.resolve, sessions=MemoryStore(max_sessions=1))
    running = await start_server(app)
    try:
        old = await open_session(http, running.url())
        status, body, headers = await post(http, running.url(), LEGACY_HEADERS, INITIALIZE)
        assert status == 200 and body is not None and headers.get("Mcp-Session-Id")
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        status, _, _ = await post(http, running.url(), dict(LEGACY_HEADERS, **{"Mcp-Session-Id": old}), ping)
        assert status == 404  # the client re-initializes, as the spec tells it to
    finally:
        await running.close()


# ─── hostile requests ──────────────────────────────────────────────────────────────────────────

LIST_MODERN = modern_body("tools/list")


def _j(obj: Any) -> bytes:
    return json.dumps(obj).encode()


_M = modern_headers
_L = LEGACY_HEADERS
_CALL_ECHO = _j(modern_body("tools/call", name="echo", arguments={"message": "x"}))
_FUTURE = {**LIST_MODERN, "params": {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}}
_NO_META = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'

# fmt: off
HOSTILE: list[tuple[str, dict[str, str], bytes, int, int]] = [
    # label, request headers, body, expected HTTP status, expected JSON-RPC error code
    ("legacy malformed JSON", _L, b"{not json", 400, types.PARSE_ERROR),
    ("modern malformed JSON", _M("tools/list"), b'{"jsonrpc":', 400, types.PARSE_ERROR),
    ("bad UTF-8", _M("tools/list"), b'{"a":"\xff"}', 400, types.PARSE_ERROR),
    ("deep nesting", _M("tools/list"), b"[" * 50_000, 400, types.PARSE_ERROR),
    ("legacy batch", _L, _j([INITIALIZE]), 400, types.INVALID_REQUEST),
    ("modern batch", _M("tools/list"), _j([LIST_MODERN]), 400, types.INVALID_REQUEST),
    ("scalar body", _M("tools/list"), b"42", 400, types.INVALID_REQUEST),
    ("jsonrpc 1.0", _L, b'{"jsonrpc":"1.0","id":1,"method":"x"}', 400, types.INVALID_REQUEST),
    ("boolean id", _M("tools/list"), b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', 400, types.INVALID_REQUEST),
    ("posted response", _M("tools/list"), b'{"jsonrpc":"2.0","id":1,"result":{}}', 400, types.INVALID_REQUEST),
    ("params not an object", _M("tools/list"), b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}',
     400, types.INVALID_REQUEST),
    ("unknown method", _M("foo/bar"), _j(modern_body("foo/bar")), 404, types.METHOD_NOT_FOUND),
    ("ping is gone in 2026", _M("ping"), _j(modern_body("ping")), 404, types.METHOD_NOT_FOUND),
    ("initialize is gone in 2026", _M("initialize"), _j(modern_body("initialize")), 404, types.METHOD_NOT_FOUND),
    ("Mcp-Method mismatch", _M("tools/call"), _j(LIST_MODERN), 400, types.HEADER_MISMATCH),
    ("Mcp-Method missing", {k: v for k, v in _M("x").items() if k != "Mcp-Method"}, _j(LIST_MODERN),
     400, types.HEADER_MISMATCH),
    ("Mcp-Name mismatch", _M("tools/call", "fail"), _CALL_ECHO, 400, types.HEADER_MISMATCH),
    ("Mcp-Param mismatch", _M("tools/call", "echo", **{"Mcp-Param-Message": "y"}), _CALL_ECHO,
     400, types.HEADER_MISMATCH),
    ("Mcp-Param missing", _M("tools/call", "echo"), _CALL_ECHO, 400, types.HEADER_MISMATCH),
    ("no _meta envelope", _M("tools/list"), _NO_META, 400, types.INVALID_PARAMS),
    ("unsupported version", _M("tools/list", **{"MCP-Protocol-Version": "2099-01-01"}), _j(_FUTURE),
     400, types.UNSUPPORTED_PROTOCOL_VERSION),
    ("version header neither era", dict(_L, **{"MCP-Protocol-Version": "1.0"}), _NO_META, 400, types.INVALID_PARAMS),
    ("unknown tool", _M("tools/call", "nope"), _j(modern_body("tools/call", name="nope", arguments={})),
     400, types.INVALID_PARAMS),
    ("arguments not an object", _M("tools/call", "echo"),
     _j(modern_body("tools/call", name="echo", arguments=[1])), 400, types.INVALID_PARAMS),
    ("cursor we never issued", _M("tools/list"), _j(modern_body("tools/list", cursor="abc")),
     400, types.INVALID_PARAMS),
    ("missing session", _L, _NO_META, 400, types.INVALID_REQUEST),
    ("unknown session", dict(_L, **{"Mcp-Session-Id": "nope"}), _NO_META, 404, types.INVALID_REQUEST),
    ("modern bad Origin", _M("tools/list", Origin="http://evil.example"), _j(LIST_MODERN), 403, types.INVALID_REQUEST),
    ("legacy bad Origin", dict(_L, Origin="https://127.0.0.1.evil.example"), _j(INITIALIZE),
     403, types.INVALID_REQUEST),
    ("bad Host", dict(_L, Host="evil.example:80"), _j(INITIALIZE), 421, types.INVALID_REQUEST),
    ("Host without port", dict(_L, Host="127.0.0.1"), _j(INITIALIZE), 421, types.INVALID_REQUEST),
    ("Content-Type text/plain", dict(_L, **{"Content-Type": "text/plain"}), _j(INITIALIZE), 415, types.INVALID_REQUEST),
    ("Accept json only", _M("tools/list", Accept="application/json"), _j(LIST_MODERN), 406, types.INVALID_REQUEST),
    ("Accept html", dict(_L, Accept="text/html"), _j(INITIALIZE), 406, types.INVALID_REQUEST),
    ("oversize body", _L, b" " * (SETTINGS.max_body_bytes + 1), 413, types.INVALID_REQUEST),
    ("oversize nesting", _M("tools/list"), b"[" * 100_000, 413, types.INVALID_REQUEST),
]
# fmt: on


@pytest.mark.parametrize(("label", "headers", "body", "status", "code"), HOSTILE, ids=[h[0] for h in HOSTILE])
async def test_hostile_posts_get_the_spec_answer(
    server: RunningServer,
    http: aiohttp.ClientSession,
    label: str,
    headers: dict[str, str],
    body: bytes,
    status: int,
    code: int,
) -> None:
    got_status, answer, _ = await post(http, server.url(), headers, raw=body)
    assert got_status == status, answer
    assert answer is not None and answer["jsonrpc"] == "2.0"
    assert answer["error"]["code"] == code


async def test_lone_surrogates_echoed_back_stay_valid_json(server: RunningServer, http: aiohttp.ClientSession) -> None:
    headers = dict(LEGACY_HEADERS, **{"Mcp-Session-Id": await open_session(http, server.url())})
    weird = b'{"jsonrpc":"2.0","id":1,"method":"\\ud800"}'
    status, answer, _ = await post(http, server.url(), headers, raw=weird)
    assert status == 200 and answer is not None
    assert answer["error"] == {"code": types.METHOD_NOT_FOUND, "message": "Method not found", "data": "\ud800"}
    call = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"\\udfff","arguments":{}}}'
    status, answer, _ = await post(http, server.url(), headers, raw=call)
    assert status == 200 and answer is not None
    assert answer["error"]["message"] == "Unknown tool: \udfff"


async def test_oversize_streamed_body_without_content_length(
    server: RunningServer, http: aiohttp.ClientSession
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(20):
            yield b" " * 8192  # 160 KiB, chunked: no Content-Length to check up front

    async with http.post(server.url(), headers=LEGACY_HEADERS, data=chunks()) as response:
        assert response.status == 413


@pytest.mark.parametrize(
    ("method", "headers", "status", "allow"),
    [
        ("PUT", LEGACY_HEADERS, 405, "GET, POST, DELETE"),
        ("PATCH", LEGACY_HEADERS, 405, "GET, POST, DELETE"),
        ("GET", modern_headers("tools/list"), 405, "POST"),
        ("DELETE", modern_headers("tools/list"), 405, "POST"),
        ("PUT", modern_headers("tools/list"), 405, "POST"),
    ],
)
async def test_other_http_methods(
    server: RunningServer, http: aiohttp.ClientSession, method: str, headers: dict[str, str], status: int, allow: str
) -> None:
    async with http.request(method, server.url(), headers=headers) as response:
        assert response.status == status
        assert response.headers["Allow"] == allow


@pytest.mark.parametrize(("headers", "status"), [({"Accept": "text/event-stream"}, 400),
                                                ({"Accept": "text/event-stream", "Mcp-Session-Id": "nope"}, 404),
                                                ({"Accept": "application/json"}, 406)])
async def test_a_legacy_get_stream_needs_a_session(server: RunningServer, http: aiohttp.ClientSession,
                                                   headers: dict[str, str], status: int) -> None:
    async with http.get(server.url(), headers=headers) as response:
        assert response.status == status


async def test_delete_without_session_is_400(server: RunningServer, http: aiohttp.ClientSession) -> None:
    async with http.delete(server.url()) as response:
        assert response.status == 400


async def test_notifications_are_accepted(server: RunningServer, http: aiohttp.ClientSession) -> None:
    cancelled = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    status, body, _ = await post(http, server.url(), modern_headers("notifications/cancelled"), cancelled)
    assert (status, body) == (202, None)
    headers = modern_headers("notifications/cancelled", **{"MCP-Protocol-Version": "2099-01-01"})
    status, body, _ = await post(http, server.url(), headers, cancelled)
    assert status == 400 and body is not None and body["error"]["code"] == types.UNSUPPORTED_PROTOCOL_VERSION


async def test_duplicated_routing_header_is_rejected(server: RunningServer) -> None:
    # aiohttp's client folds dict headers, so send the duplicate through a multidict.
    from multidict import CIMultiDict

    headers = CIMultiDict(modern_headers("tools/list"))
    headers.add("Mcp-Method", "tools/list")
    async with aiohttp.ClientSession() as http, http.post(server.url(), headers=headers, json=LIST_MODERN) as response:
        assert response.status == 400
        assert (await response.json())["error"]["code"] == types.HEADER_MISMATCH


async def test_tool_crash_does_not_leak(
    server: RunningServer, registry: Registry, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    registry.endpoints["demo"] = DemoEndpoint("demo", explode=True)
    body = modern_body("tools/call", name="echo", arguments={"message": "x"})
    status, answer, _ = await post(
        http, server.url(), modern_headers("tools/call", "echo", **{"Mcp-Param-Message": "x"}), body
    )
    assert status == 200 and answer is not None
    assert answer["error"] == {"code": types.INTERNAL_ERROR, "message": "Internal server error"}
    assert "secret" not in json.dumps(answer)
    assert "secret internal detail" in caplog.text  # ...but the operator sees it


async def test_broken_endpoint_never_answers_500(
    server: RunningServer, registry: Registry, http: aiohttp.ClientSession
) -> None:
    class Broken(DemoEndpoint):
        def list_tools(self) -> Any:
            raise RuntimeError("registry on fire")

    registry.endpoints["demo"] = Broken("demo")
    status, answer, _ = await post(http, server.url(), modern_headers("tools/list"), LIST_MODERN)
    assert status == 200 and answer is not None
    assert answer["id"] == 1 and answer["error"]["code"] == types.INTERNAL_ERROR
    assert "fire" not in json.dumps(answer)


# ─── disabled connectors ───────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("method", ["POST", "GET", "DELETE", "PUT"])
async def test_disabled_slug_is_plain_404(
    server: RunningServer, registry: Registry, http: aiohttp.ClientSession, method: str
) -> None:
    for headers in (LEGACY_HEADERS, modern_headers("tools/list")):
        async with http.request(method, server.url("gone"), headers=headers, json=LIST_MODERN) as response:
            assert response.status == 404
            assert response.content_type == "text/plain"


async def test_switching_a_connector_off_takes_effect_at_once(
    server: RunningServer, registry: Registry, http: aiohttp.ClientSession
) -> None:
    session_id = await open_session(http, server.url("other"))
    del registry.endpoints["other"]
    headers = dict(LEGACY_HEADERS, **{"Mcp-Session-Id": session_id})
    status, _, _ = await post(http, server.url("other"), headers, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert status == 404


# ─── trace handles ─────────────────────────────────────────────────────────────────────────────


async def trace_call(http: aiohttp.ClientSession, url: str, meta_trace: str | None) -> dict[str, Any]:
    body = modern_body("tools/call", name="echo", arguments={"message": "m"})
    if meta_trace is not None:
        body["params"]["_meta"][TRACE_META_KEY] = meta_trace
    headers = modern_headers("tools/call", "echo", **{"Mcp-Param-Message": "m"})
    status, answer, _ = await post(http, url, headers, body)
    assert status == 200 and answer is not None
    result: dict[str, Any] = answer["result"]
    return result


async def test_trace_handle_minted_returned_reaccepted_and_forgeries_replaced(
    server: RunningServer, registry: Registry, http: aiohttp.ClientSession
) -> None:
    first = await trace_call(http, server.url(), None)
    handle = first["_meta"][TRACE_META_KEY]
    assert verify_trace_handle(handle, SECRET)
    assert first["structuredContent"]["caller"] == f"trace:{handle}"

    again = await trace_call(http, server.url(), handle)
    assert again["_meta"][TRACE_META_KEY] == handle

    token, _, _ = handle.partition(".")
    forgeries = [
        f"{token}.AAAAAAAAAAAAAAAAAAAAAA",  # right token, wrong MAC
        mint_trace_handle(b"someone else's secret"),
        "no-dot",
        "é." * 200,
        "\ud800.x",  # a lone surrogate: valid JSON, not encodable
    ]
    for forged in forgeries:
        result = await trace_call(http, server.url(), forged)
        fresh = result["_meta"][TRACE_META_KEY]
        assert fresh not in (forged, handle)
        assert verify_trace_handle(fresh, SECRET)

    demo = registry.endpoints["demo"]
    assert isinstance(demo, DemoEndpoint)
    callers = [caller for _, _, caller in demo.calls]
    assert callers[0] == callers[1] == f"trace:{handle}"
    assert len(set(callers[2:])) == len(forgeries)


def test_verify_trace_handle_rejects_garbage() -> None:
    good = mint_trace_handle(SECRET)
    assert verify_trace_handle(good, SECRET)
    assert not verify_trace_handle(good, b"other")
    assert not verify_trace_handle(good + "x", SECRET)
    assert not verify_trace_handle("", SECRET)
    assert not verify_trace_handle(".", SECRET)
    assert not verify_trace_handle(123, SECRET)


def test_a_trace_handle_is_its_token_and_the_tokens_keyed_blake2b() -> None:
    """The handle's form is a contract between every process (and version) sharing one state store: the MAC is
    BLAKE2b of the token, keyed with the secret (hashed down to 64 bytes when longer), personalised `trace`."""
    for secret in (SECRET, bytes(range(100))):
        token, _, mac = mint_trace_handle(secret).rpartition(".")
        key = secret if len(secret) <= 64 else hashlib.blake2b(secret).digest()
        assert mac == hashlib.blake2b(token.encode(), key=key, digest_size=16, person=b"trace").hexdigest()


async def test_settings_are_honoured(registry: Registry, http: aiohttp.ClientSession) -> None:
    settings = TransportSettings(allowed_hosts=("example.test",), allowed_origins=("https://app.example",))
    app, _ = make_app(registry.resolve, settings=settings)
    running = await start_server(app)
    try:
        status, _, _ = await post(http, running.url(), LEGACY_HEADERS, INITIALIZE)
        assert status == 421
        headers = dict(LEGACY_HEADERS, Host="example.test", Origin="https://app.example")
        status, _, _ = await post(http, running.url(), headers, INITIALIZE)
        assert status == 200
    finally:
        await running.close()


async def test_a_body_in_pieces_is_read_whole_and_a_stalled_one_times_out(registry: Registry) -> None:
    """The part of a body that came with the headers is taken at once; the rest is awaited under the body
    timeout (408 when it does not come)."""
    import asyncio
    import dataclasses

    app, _ = make_app(registry.resolve, settings=dataclasses.replace(SETTINGS, body_timeout_seconds=0.5))
    running = await start_server(app)
    body = json.dumps(INITIALIZE).encode()
    head = (f"POST /demo/mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\nAccept: {ACCEPT}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    try:
        for rest, status in ((body[10:], b"HTTP/1.1 200 "), (b"", b"HTTP/1.1 408 ")):
            reader, writer = await asyncio.open_connection("127.0.0.1", running.port)
            writer.write(head + body[:10])
            await writer.drain()
            await asyncio.sleep(0.1)  # the server has read the headers and the first piece by now
            if rest:
                writer.write(rest)
            answer = await asyncio.wait_for(reader.read(), 5)
            writer.close()
            assert answer.startswith(status), answer[:200]
            if rest:
                assert b'"protocolVersion"' in answer
    finally:
        await running.close()
