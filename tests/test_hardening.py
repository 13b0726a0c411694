"""Cheap attacks on a public address, each reproduced against the real application (issue 16).

Every test here failed on the code before the fix it guards. Where the attack is a stall, the
proof is that `/health` keeps answering within 100 ms while the hostile request is handled.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import struct
import time
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from proxy.catalog.build import REMOTE_MAX_LENGTH
from tests.conftest import MODES, LiveServer, Replicas, client, serve, slowest_health, write_registry
from tests.conftest_mcp import meta_of, text_of

ACCEPT = "application/json, text/event-stream"
LEGACY = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "hardening", "version": "1"}}}


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def _initialize(http: aiohttp.ClientSession, url: str, client: str | None = None) -> tuple[int, str | None]:
    headers = {**LEGACY, **({"X-Forwarded-For": client} if client else {})}
    async with http.post(url, data=json.dumps(INITIALIZE), headers=headers) as resp:
        await resp.read()
        return resp.status, resp.headers.get("Mcp-Session-Id")


async def _session(http: aiohttp.ClientSession, url: str) -> dict[str, str]:
    status, session = await _initialize(http, url)
    assert status == 200 and session
    return {**LEGACY, "Mcp-Session-Id": session}


# ─── 1. argument validation has a cost bound ───────────────────────────────────────────────────


async def test_a_huge_invalid_argument_array_does_not_stall_the_server(server: LiveServer,
                                                                       http: aiohttp.ClientSession) -> None:
    url = server.url("officielebekendmakingen")
    headers = await _session(http, url)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "search_publications", "arguments": {"media": [1] * 240_000}}}
    body = json.dumps(call).encode()
    assert len(body) > 700_000

    async def hostile() -> dict[str, Any]:
        async with http.post(url, data=body, headers=headers) as resp:
            assert resp.status == 200
            answer: dict[str, Any] = await resp.json()
            return answer

    over, answer = await slowest_health(server, hostile())
    result = answer["result"]
    assert result["isError"] and "Invalid arguments for search_publications" in result["content"][0]["text"]
    assert result["content"][0]["text"].count(";") < 5  # a few problems named, not 240,000
    assert over <= 0, f"/health answered {over * 1000:.0f} ms later than its limit during the hostile call"


@pytest.mark.parametrize("mode", MODES)
async def test_every_argument_has_a_size_bound_the_server_enforces(server: LiveServer, mode: str) -> None:
    """The listing leaves limits out (proxy.catalog.build.listed_input_schema), so the SDK client sends the oversized
    value as it is; the server's check refuses it by its size, without quoting it back."""
    async with client(server.url("officielebekendmakingen"), mode) as c:
        listed = {t.name: t for t in (await c.list_tools()).tools}["search_publications"]
        assert "maxItems" not in listed.input_schema["properties"]["media"]
        result = await c.call_tool("search_publications", {"media": ["stb"] * 5000, "query": "x" * 100_000})
        text = text_of(result)
        assert result.is_error and "Invalid arguments for search_publications" in text
        assert "media: 5,000 values, at most" in text and "query: 100,000 characters, at most 500" in text
        assert len(text) < 1000
        wrong = await c.call_tool("search_publications", {"query": [1] * 100_000})
        assert wrong.is_error and "query: is an array, not a string" in text_of(wrong)
        assert len(text_of(wrong)) < 1000


async def test_a_remote_tools_unbounded_arguments_get_the_default_cap(replicas: Replicas, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.remote_server import ENV, SECRET, ThirdPartyServer, add_remote

    third_party = ThirdPartyServer(header="Authorization", value=f"Bearer {SECRET}").start()
    try:
        monkeypatch.setenv(ENV, SECRET)
        async with serve(write_registry(tmp_path, lambda d: add_remote(d, third_party.url)), replicas) as live, \
                client(live.url("derde"), "legacy") as c:
            third_party.state.calls.clear()
            result = await c.call_tool("search_notes", {"query": "x" * (REMOTE_MAX_LENGTH + 1)})
            text = text_of(result)
            assert result.is_error and f"at most {REMOTE_MAX_LENGTH:,}" in text
            assert "search_notes" not in third_party.state.calls  # refused before it was passed on
            assert not (await c.call_tool("search_notes", {"query": "begroting"})).is_error
    finally:
        third_party.stop()


# ─── 2. request bodies: identity, or gzip within the limit ─────────────────────────────────────


def _gzip_bomb(mebibytes: int) -> bytes:
    """A gzip stream of `mebibytes` MiB of zeros, about 1 KB per MiB, built without compressing it all:
    after a full flush deflate starts afresh, so every MiB compresses to the same bytes."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    zeros = bytes(1 << 20)
    block = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mebibytes):
        crc = zlib.crc32(zeros, crc)
    trailer = struct.pack("<II", crc, (mebibytes << 20) & 0xFFFFFFFF)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + block * mebibytes + packer.flush() + trailer


async def _raw_exchange(server: LiveServer, head: bytes, body: bytes) -> tuple[bytes, float]:
    """Send one request on a fresh connection; the answer and how long the server kept the connection."""
    host, port = server.base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(head + body)
        await writer.drain()
        started = time.perf_counter()
        answer = await asyncio.wait_for(reader.read(), 30)  # until the server closes
        return answer, time.perf_counter() - started
    finally:
        writer.close()


def _head(server: LiveServer, path: str, length: int, **extra: str) -> bytes:
    host = server.base.removeprefix("http://")
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}", "Content-Type: application/json", f"Accept: {ACCEPT}",
             f"Content-Length: {length}", *(f"{k.replace('_', '-')}: {v}" for k, v in extra.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def test_a_gzip_bomb_is_refused_without_inflating_it(server: LiveServer) -> None:
    bomb = _gzip_bomb(1000)  # about 1 GB of zeros in about 1 MB
    assert len(bomb) < server.runtime.generation.server.max_body_bytes
    head = _head(server, "/wetten/mcp", len(bomb), Content_Encoding="gzip")
    over, (answer, held) = await slowest_health(server, _raw_exchange(server, head, bomb))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert held < 2, f"the server kept the connection {held:.1f} s after refusing the body"
    assert over <= 0, f"/health answered {over * 1000:.0f} ms later than its limit during the bomb"


async def test_gzip_within_the_limit_is_accepted(server: LiveServer, http: aiohttp.ClientSession) -> None:
    packed = gzip.compress(json.dumps(INITIALIZE).encode())
    async with http.post(server.url("wetten"), data=packed,
                         headers={**LEGACY, "Content-Encoding": "gzip"}) as resp:
        assert resp.status == 200 and (await resp.json())["result"]["protocolVersion"] == "2025-11-25"


@pytest.mark.parametrize(("encoding", "body", "status"), [
    ("gzip", b"this is not gzip", 400),
    ("gzip", gzip.compress(b"{}", mtime=0)[:-6], 400),  # cut short
    ("deflate", zlib.compress(b"{}"), 415),
    ("br", b"\x0b\x00\x80{}\x03", 415),
    ("x-made-up", b"{}", 415),
    ("gzip, gzip", gzip.compress(gzip.compress(b"{}", mtime=0), mtime=0), 415),
])
async def test_other_or_broken_encodings_are_a_client_error(server: LiveServer, http: aiohttp.ClientSession,
                                                           caplog: pytest.LogCaptureFixture, encoding: str,
                                                           body: bytes, status: int) -> None:
    async with http.post(server.url("wetten"), data=body,
                         headers={**LEGACY, "Content-Encoding": encoding}) as resp:
        assert resp.status == status
        assert (await resp.json())["error"]["message"]
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


# ─── 3. sessions: evicted, never locked out ────────────────────────────────────────────────────


async def test_a_new_client_still_initializes_after_50000_initialize_calls(server: LiveServer,
                                                                          http: aiohttp.ClientSession) -> None:
    url = server.url("wetten")
    status, kept = await _initialize(http, url, client="192.0.2.10")
    assert status == 200 and kept
    store = server.runtime.store
    flood = [f"198.51.100.{i}" for i in range(4)]
    for i in range(50_000):  # the transport's own call, without the HTTP round trips
        await store.create_session("wetten", 1800, flood[i % 4])
    for i in range(200):  # and some over the wire
        assert (await _initialize(http, url, client=flood[i % 4]))[0] == 200
    status, fresh = await _initialize(http, url, client="203.0.113.5")
    assert status == 200 and fresh
    ping = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"})
    for session in (kept, fresh):  # the flood evicted only its own sessions
        async with http.post(url, data=ping, headers={**LEGACY, "Mcp-Session-Id": session}) as resp:
            assert resp.status == 200


# ─── 4. slow clients: header and body timeouts ─────────────────────────────────────────────────


@pytest.fixture
async def quick_timeouts(replicas: Replicas, tmp_path: Path) -> AsyncIterator[LiveServer]:
    async with serve(write_registry(tmp_path), replicas, idle_timeout_seconds=0.5) as live:
        yield live


async def test_a_connection_that_never_finishes_its_header_is_closed(quick_timeouts: LiveServer) -> None:
    host, port = quick_timeouts.base.removeprefix("http://").split(":")
    slow = [await asyncio.open_connection(host, int(port)) for _ in range(20)]
    for _, writer in slow:
        writer.write(b"POST /wetten/mcp HTTP/1.1\r\nHost: " + host.encode() + b"\r\nX-Slow: ")
    started = time.perf_counter()
    closed = await asyncio.wait_for(asyncio.gather(*(reader.read() for reader, _ in slow)), 10)
    assert closed == [b""] * 20 and time.perf_counter() - started < 3
    for _, writer in slow:
        writer.close()
    async with aiohttp.ClientSession() as http, http.get(f"{quick_timeouts.base}/health") as resp:
        assert resp.status == 200


# ─── 8. long paths, and nothing a client sends writes an error to the log ──────────────────────


@pytest.fixture
async def with_site(replicas: Replicas, tmp_path: Path) -> AsyncIterator[LiveServer]:
    site = tmp_path / "site"
    (site / "en").mkdir(parents=True)
    (site / "index.html").write_text("<h1>BesluitBron</h1>", encoding="utf-8")
    (site / "404.html").write_text("<h1>Niet gevonden</h1>", encoding="utf-8")
    (site / "en" / "404.html").write_text("<h1>Not found</h1>", encoding="utf-8")
    async with serve(write_registry(tmp_path), replicas, site_dir=site) as live:
        yield live


@pytest.mark.parametrize("path", ["/" + "a" * 256, "/en/" + "b" * 300 + "/x", "/" + "c" * 4000, "/%ff%fe/" + "d" * 255])
async def test_a_long_path_segment_is_a_404_not_a_500(with_site: LiveServer, caplog: pytest.LogCaptureFixture,
                                                       path: str) -> None:
    async with aiohttp.ClientSession() as http, http.get(f"{with_site.base}{path}") as resp:
        assert resp.status == 404
        assert ("Not found" if path.startswith("/en/") else "Niet gevonden") in await resp.text()
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


# ─── 10. Host and Origin ───────────────────────────────────────────────────────────────────────


async def test_a_host_with_a_name_where_the_port_belongs_is_refused(server: LiveServer,
                                                                    http: aiohttp.ClientSession) -> None:
    for host in ("localhost:evil.example", "localhost:80.evil.example", "127.0.0.1:", "127.0.0.1:8000"):
        async with http.post(server.url("wetten"), data=json.dumps(INITIALIZE),
                             headers={**LEGACY, "Host": host}) as resp:
            assert resp.status == (200 if host == "127.0.0.1:8000" else 421), host


async def test_every_origin_header_is_checked(server: LiveServer) -> None:
    host, port = server.base.removeprefix("http://").split(":")
    body = json.dumps(INITIALIZE).encode()
    head = _head(server, "/wetten/mcp", len(body), MCP_Protocol_Version="2025-11-25")
    two_origins = head.replace(b"\r\n\r\n", f"\r\nOrigin: http://{host}:{port}\r\nOrigin: https://evil.example"
                                            "\r\nConnection: close\r\n\r\n".encode())
    answer, _ = await _raw_exchange(server, two_origins, body)
    assert answer.startswith(b"HTTP/1.1 403"), answer[:100]


# ─── 9. call logs: one-off callers cannot evict an established history ─────────────────────────


async def test_20000_traceless_calls_do_not_evict_another_clients_history(server: LiveServer) -> None:
    from mcp import Client

    from proxy.core.shapes import call_record
    from proxy.core.trace import TRACE_META_KEY

    url = server.url("wetten")
    async with Client(url, mode="2026-07-28") as client:
        first = await client.call_tool("search_regulations", {"title": "wet", "limit": 1})
        handle = meta_of(first)[TRACE_META_KEY]
        mine = (await client.call_tool("list_platform_calls", {"trace": handle})).structured_content
        assert mine["total"] >= 1
        store = server.runtime.store
        for i in range(20_000):  # what 20,000 calls without a handle record: one fresh log each
            await store.record_call(f"trace:flood-{i}", call_record(
                source="wetten", tool=None, method="GET", url=f"https://example.invalid/{i}", status=200,
                started=time.perf_counter(), size=0, cache_hit=False, error=None, request_id=None))
        again = (await client.call_tool("list_platform_calls", {"trace": handle})).structured_content
    assert again["total"] == mine["total"]


async def test_a_reload_tells_a_legacy_session_that_its_tools_changed(server: LiveServer,
                                                                      http: aiohttp.ClientSession) -> None:
    from proxy.web.app import reload_registry

    url = server.url("wetten")
    status, session = await _initialize(http, url)
    assert status == 200 and session
    async with http.post(url, data=json.dumps(INITIALIZE), headers=LEGACY) as resp:
        assert (await resp.json())["result"]["capabilities"]["tools"] == {"listChanged": True}
    stream_headers = {"Accept": "text/event-stream", "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    async with http.get(url, headers=stream_headers) as stream:
        assert stream.status == 200 and stream.content_type == "text/event-stream"
        assert await reload_registry(server.app)
        event = await asyncio.wait_for(stream.content.readuntil(b"\n\n"), 10)
    assert json.loads(event.split(b"data: ", 1)[1]) == {"jsonrpc": "2.0",
                                                        "method": "notifications/tools/list_changed"}
