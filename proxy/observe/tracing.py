"""OpenTelemetry traces: a span per tool call, a child span per HTTP exchange with a platform.

Off unless an OTLP endpoint is configured (`Config.otlp_endpoint` or `OTEL_EXPORTER_OTLP_ENDPOINT`):
then `tracer` is None and the hot path pays one `None` check. A client's W3C trace context is
continued: the `traceparent` (and `tracestate`) of the 2026-07-28 request's `_meta`, as the MCP SDK
injects it, else the HTTP `traceparent` header. Each app has its own `TracerProvider` (not the
global one), so servers in one process keep their spans apart.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter
from opentelemetry.trace import SpanKind, Tracer, get_current_span
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from proxy import __version__

__all__ = ["ACTIVE_TRACER", "HTTP_CONTEXT", "make_tracer", "parent_context", "platform_span", "tool_span"]

# The tracer of the tool call being served (None: not traced); `proxy.plugin.upstream` opens its spans under it.
ACTIVE_TRACER: ContextVar[Tracer | None] = ContextVar("active_tracer", default=None)
# The trace context of this HTTP request's `traceparent` header, if it sent a valid one.
HTTP_CONTEXT: ContextVar[Context | None] = ContextVar("http_trace_context", default=None)
_PROPAGATOR = TraceContextTextMapPropagator()
_FIELDS = ("traceparent", "tracestate")


def make_tracer(otlp_endpoint: str | None, exporter: SpanExporter | None = None
                ) -> tuple[Tracer, TracerProvider] | None:
    """A tracer exporting to `exporter` (tests: the SDK's in-memory one, sent span by span) or over OTLP/HTTP
    to `otlp_endpoint` (else `OTEL_EXPORTER_OTLP_ENDPOINT`); None when neither is configured."""
    if exporter is None:
        base = otlp_endpoint or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        if not base:
            return None
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter(endpoint=base.rstrip("/") + "/v1/traces")
        processor: SimpleSpanProcessor | BatchSpanProcessor = BatchSpanProcessor(exporter)
    else:
        processor = SimpleSpanProcessor(exporter)
    provider = TracerProvider(resource=Resource.create({"service.name": "besluitbron",
                                                        "service.version": __version__}))
    provider.add_span_processor(processor)
    return provider.get_tracer("besluitbron", __version__), provider


def parent_context(carrier: Mapping[str, Any] | None) -> Context | None:
    """The context of a valid `traceparent` in `carrier` (headers or `_meta`), else None."""
    if not carrier or ("traceparent" not in carrier and "Traceparent" not in carrier):
        return None
    try:
        ctx = _PROPAGATOR.extract({k.lower(): v for k, v in carrier.items()
                                   if isinstance(k, str) and k.lower() in _FIELDS and isinstance(v, str)})
    except (ValueError, TypeError):
        return None
    return ctx if get_current_span(ctx).get_span_context().is_valid else None


@contextmanager
def tool_span(tracer: Tracer, connector: str, tool: str, meta: Mapping[str, Any] | None) -> Iterator[None]:
    """The server span of one tool call, child of the client's context (`_meta` first, then the header)."""
    parent = parent_context(meta) or HTTP_CONTEXT.get()
    attributes = {"mcp.method.name": "tools/call", "gen_ai.tool.name": tool, "besluitbron.connector": connector}
    with tracer.start_as_current_span(f"tools/call {tool}", context=parent, kind=SpanKind.SERVER,
                                      attributes=attributes):
        token = ACTIVE_TRACER.set(tracer)
        try:
            yield
        finally:
            ACTIVE_TRACER.reset(token)


@contextmanager
def platform_span(tracer: Tracer, platform: str, method: str, url: str) -> Iterator[Any]:
    """A client span for one HTTP exchange with a platform, under the current tool call's span."""
    attributes = {"http.request.method": method, "url.full": url, "besluitbron.platform": platform}
    with tracer.start_as_current_span(f"{method} {platform}", kind=SpanKind.CLIENT, attributes=attributes) as span:
        yield span
