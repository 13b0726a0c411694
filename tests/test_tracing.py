"""OpenTelemetry traces (issue 23): a client's `traceparent` is continued across the platform calls.

The server records into the SDK's in-memory exporter; the client is the MCP SDK's own, which puts
the current span's context into the request's `_meta` (both protocol eras), or a raw request
sending only the HTTP `traceparent` header.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from proxy.observe.tracing import make_tracer
from tests.conftest import MODES, LiveServer, Replicas, client, serve, write_registry

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "tracing", "version": "1"}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "search_regulations"}


@pytest.fixture
async def traced(replicas: Replicas, tmp_path: Path) -> AsyncIterator[tuple[LiveServer, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    async with serve(write_registry(tmp_path), replicas, span_exporter=exporter) as live:
        yield live, exporter


def _tool_span(spans: tuple[ReadableSpan, ...], tool: str) -> ReadableSpan:
    [span] = [s for s in spans if s.name == f"tools/call {tool}"]
    assert span.kind is SpanKind.SERVER
    return span


def _platform_spans(spans: tuple[ReadableSpan, ...], parent: ReadableSpan) -> list[ReadableSpan]:
    assert parent.context is not None
    children = [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]
    assert children, "the tool call recorded no platform call"
    for child in children:
        assert child.kind is SpanKind.CLIENT and child.name == "GET wetten"
        assert child.attributes and child.attributes["besluitbron.platform"] == "wetten"
        assert child.attributes["http.response.status_code"] == 200
        assert str(child.attributes["url.full"]).startswith("http://127.0.0.1:")
    return children


@pytest.mark.parametrize("mode", MODES)
async def test_meta_traceparent_is_the_parent_of_the_platform_calls(
        traced: tuple[LiveServer, InMemorySpanExporter], mode: str) -> None:
    live, exporter = traced
    assistant = TracerProvider().get_tracer("assistant")
    with assistant.start_as_current_span("assistant asks") as asked:
        async with client(live.url("wetten"), mode) as c:
            result = await c.call_tool("search_regulations", {"title": f"omzetbelasting {mode}", "limit": 2})
    assert not result.is_error
    spans = exporter.get_finished_spans()
    tool = _tool_span(spans, "search_regulations")
    sent = asked.get_span_context()
    assert tool.parent is not None and tool.parent.span_id == sent.span_id
    for span in [tool, *_platform_spans(spans, tool)]:
        assert span.context is not None and span.context.trace_id == sent.trace_id


async def test_http_traceparent_header_is_continued(traced: tuple[LiveServer, InMemorySpanExporter]) -> None:
    live, exporter = traced
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"_meta": ENVELOPE, "name": "search_regulations", "arguments": {"title": "kieswet", "limit": 1}}}
    async with aiohttp.ClientSession() as http, http.post(
            live.url("wetten"), data=json.dumps(body),
            headers={**HEADERS, "traceparent": f"00-{trace_id}-{parent_id}-01"}) as resp:
        assert resp.status == 200 and not (await resp.json())["result"].get("isError")
    spans = exporter.get_finished_spans()
    tool = _tool_span(spans, "search_regulations")
    assert tool.parent is not None and format(tool.parent.span_id, "016x") == parent_id
    for span in [tool, *_platform_spans(spans, tool)]:
        assert span.context is not None and format(span.context.trace_id, "032x") == trace_id


def test_tracing_is_off_without_an_otlp_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    assert make_tracer(None) is None
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    traced = make_tracer(None)
    assert traced is not None
    traced[1].shutdown()


async def test_a_huge_tool_name_is_echoed_cut_in_the_answer_and_the_span(
        traced: tuple[LiveServer, InMemorySpanExporter]) -> None:
    """A 900 KB name (the 2025 era carries it in the body alone) would be a 4.5 MB trace export, over the usual 4 MB
    collector limit, and a 900 KB answer."""
    live, exporter = traced
    name = "x" * 900_000
    legacy = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "tracing", "version": "1"}}}
    async with aiohttp.ClientSession() as http:
        async with http.post(live.url("wetten"), json=hello, headers=legacy) as resp:
            session = {**legacy, "Mcp-Session-Id": resp.headers["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-11-25"}
        for body in ({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {}}},
                     {"jsonrpc": "2.0", "id": 2, "method": name, "params": {}}):
            async with http.post(live.url("wetten"), data=json.dumps(body), headers=session) as resp:
                raw = await resp.read()
            assert len(raw) < 2_000 and "900,000 characters" in raw.decode(), raw[:300]
    spans = [s for s in exporter.get_finished_spans() if s.kind == SpanKind.SERVER]
    assert spans and all(len(s.name) < 200 and all(len(str(v)) < 200 for v in (s.attributes or {}).values())
                         for s in spans), [s.name[:80] for s in spans]
