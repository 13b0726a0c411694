"""MCP over Streamable HTTP, served natively by aiohttp, in both protocol eras.

One aiohttp handler (`McpHttp.handle`, mounted at `/{slug}/mcp`) answers:

* the **2026-07-28** era (an `MCP-Protocol-Version` header that is not a handshake version):
  stateless single-exchange POSTs with the per-request `_meta` envelope, `server/discover`,
  `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*` header checks; and
* the **handshake** era (2025-11-25 and older): `initialize` → `Mcp-Session-Id`, session-bound
  POSTs, DELETE to end the session.

Why not the SDK's `StreamableHTTPSessionManager` behind an ASGI bridge: it runs at about a third of
a bare aiohttp handler (research/performance-baseline.md); the target is 0.6x. So this module
keeps the HTTP plumbing to itself and takes every protocol decision from the SDK's own pure
helpers: `mcp_types` models, `mcp_types.methods.validate_client_request` /
`serialize_server_result` (the per-version result sieve), `mcp.shared.inbound` (the modern
validation ladder, header checks, error-code → HTTP status table). Behaviour mirrors
`mcp.server._streamable_http_modern`, `mcp.server.streamable_http` and `mcp.server.runner`
(resultType / ttlMs / cacheScope / serverInfo stamping); deliberate differences are noted inline.

We always answer requests with `application/json` (the spec lets the server choose). The one
server message we push is `notifications/tools/list_changed`, on a legacy session's GET stream
(SSE) when a registry reload changed the tools; the stateless era has no such stream, so there the
capability stays false and clients re-list as its `ttlMs` says (`LISTING_TTL_MS`, scope public).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import mcp_types as types
import orjson
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PARAM_HEADER_PREFIX,
    MCP_PROTOCOL_VERSION_HEADER,
    InboundLadderRejection,
    find_invalid_x_mcp_header,
    unsupported_protocol_version_rejection,
    validate_mcp_param_headers,
    x_mcp_header_map,
)
from mcp_types import methods as _methods
from mcp_types.jsonrpc import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
)
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)
from opentelemetry.trace import Tracer
from pydantic import ValidationError

from proxy.core.caller import Caller
from proxy.core.errors import TOOL_NAME_SHOWN, UnknownToolError, clipped
from proxy.core.hostmatch import matches
from proxy.core.jsonwire import encode_json
from proxy.core.peer import client_group, current_peer
from proxy.core.trace import TRACE_META_KEY, TraceSigner
from proxy.observe.forwarded import CLIENT, client_address
from proxy.observe.jsonlog import REQUEST_ID, request_id_for
from proxy.observe.metrics import Metrics
from proxy.observe.tracing import HTTP_CONTEXT, parent_context, tool_span
from proxy.results.encoding import EncodedResult
from proxy.state.store import SESSION_IDLE_SECONDS
from proxy.web.checks import ROUTING_HEADERS, RequestChecks, params_text
from proxy.web.framing import WRITE_SECONDS

__all__ = [
    "LISTING_CACHE_SCOPE",
    "LISTING_TTL_MS",
    "SESSION_ID_HEADER",
    "Endpoint",
    "McpHttp",
    "ServerIdentity",
    "SessionStore",
    "TransportSettings",
    "handler_args",
]

logger = logging.getLogger(__name__)

SESSION_ID_HEADER: Final = "Mcp-Session-Id"


# ─── contract ──────────────────────────────────────────────────────────────────────────────────


class Endpoint(Protocol):
    """One connector, as the transport sees it."""

    slug: str

    def list_tools(self) -> Sequence[types.Tool]:
        """The tools in a stable order; the transport caches the serialized list per object."""
        ...

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        """The inputSchema of tool `name`, or None if there is no such tool."""
        ...

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], caller: Caller
    ) -> types.CallToolResult | EncodedResult:
        """Run a tool; raise `UnknownToolError` for a name not on this endpoint."""
        ...


@dataclass(frozen=True)
class ServerIdentity:
    """What `initialize` / the serverInfo stamp say about this server."""

    name: str
    version: str
    title: str | None = None
    instructions: str | None = None
    description: str | None = None
    website_url: str | None = None
    icons: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class TransportSettings:
    """HTTP-level limits and DNS-rebinding protection.

    `allowed_hosts` / `allowed_origins` follow the SDK's `TransportSecuritySettings`: an exact
    value, or `base:*` for any port. A missing Host is refused; a missing Origin is allowed.
    `trusted_proxies`: peers whose `X-Forwarded-For` names the client (a reverse proxy in front);
    the client's group (its /24 or /64, `proxy.core.peer.client_group`) keys the per-client caps and shares.
    """

    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]
    max_body_bytes: int = 1_048_576
    session_idle_seconds: float = SESSION_IDLE_SECONDS
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")
    body_timeout_seconds: float = 30
    """A request body must arrive within this long (a slow upload holds a connection and a task)."""


def handler_args(*, idle_timeout_seconds: float = 15) -> dict[str, Any]:
    """What the `web.Application` serving `McpHttp` must be built with (`handler_args=`).

    The transport decodes request bodies itself (identity, or gzip within the body limit), so
    aiohttp must not inflate them first; a refused body is not drained (no lingering), the
    connection just closes; and a connection that has not sent a complete request header within
    `idle_timeout_seconds` of connecting or of its last response is closed (aiohttp's keep-alive
    timer also runs before the first request; its default is an hour).
    """
    return {"auto_decompress": False, "lingering_time": 0, "keepalive_timeout": idle_timeout_seconds,
            "logger": _ServerLog(logging.getLogger("aiohttp.server"), {})}


class _ServerLog(logging.LoggerAdapter[logging.Logger]):
    """aiohttp's server logger, except that a malformed request (the client's fault, answered 400:
    a duplicate Host, a broken header line) is one INFO line, not an ERROR with a traceback that any
    client could write to the log at will."""

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kwargs: Any) -> None:
        if isinstance(exc_info, HttpProcessingError) and 400 <= (exc_info.code or 400) < 500:
            self.logger.info("%s: %s", str(msg) % args if args else msg, str(exc_info).replace("\n", " ")[:300])
            return
        self.logger.exception(msg, *args, exc_info=exc_info, **kwargs)


class SessionStore(Protocol):
    """Legacy-era `Mcp-Session-Id` bookkeeping; a session belongs to one slug.

    `proxy.state.store.MemoryStore` and `proxy.state.redis_store.RedisStore` are the implementations: a full
    store evicts (the evicted session then answers 404 and its client initializes again), it never refuses.
    """

    async def create_session(self, slug: str, idle_seconds: float, client: str = "") -> str:
        """Open a session for `client` (an address) and return its id (visible ASCII)."""
        ...

    async def touch_session(self, session_id: str, slug: str, idle_seconds: float) -> bool:
        """True if the session exists for this slug; refreshes its idle timer."""
        ...

    async def delete_session(self, session_id: str, slug: str) -> bool:
        """End the session; True if it existed for this slug."""
        ...


# ─── wire helpers ──────────────────────────────────────────────────────────────────────────────




_JSON: Final = "application/json"
MAX_STREAMS: Final = 1000
MAX_STREAMS_PER_GROUP: Final = 16  # per client group (a /24 or /64) and process
STREAM_KEEPALIVE_SECONDS: Final = 25.0
# How often an open stream asks whether its session still exists: a session that ended anywhere (deleted on
# another worker, evicted by a flood, idle) ends its stream within this time.
STREAM_SESSION_CHECK_SECONDS: Final = 5.0
_STOPPING: Final = "besluitbron: stopping"
_TOOLS_CHANGED: Final = b'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n'
_PARAM_PREFIX_LOWER: Final = MCP_PARAM_HEADER_PREFIX.lower()
_DEFAULT_LEGACY_VERSION: Final = types.DEFAULT_NEGOTIATED_VERSION  # spec: assume 2025-03-26 without a header
_SHAPE_MESSAGE: Final = "Body must be a single JSON-RPC request or notification object"
_TRACE_MEMBER: Final = b"," + encode_json(TRACE_META_KEY) + b":"  # the trace handle's key in a result's _meta
# tools/list and server/discover say the same to every client (no sign-in, nothing per caller) and change
# only when a maintainer reloads the registry (a file edit or SIGHUP, rare: days apart). So a shared cache may
# keep them (`public`), and five minutes bounds how long a stateless client, which hears no list_changed,
# goes on with the list from before a reload; within a conversation it re-lists at most every five minutes
# instead of on every turn. A connector switched off answers 404 at once, whatever a client cached.
LISTING_TTL_MS: Final = 300_000
LISTING_CACHE_SCOPE: Final = "public"


# A run of 19 digits may be an integer past 64 bits, which orjson reads as a float where the stdlib keeps it exact.
# Found as 19 zeros in the body with every digit written as a zero: a third of a regular expression's cost.
_DIGITS_AS_ZEROS: Final = bytes(ord("0") if chr(i) in "0123456789" else ord(" ") for i in range(256))
_LONG_NUMBER: Final = b"0" * 19


def _loads(body: bytes) -> Any:
    """`json.loads(body)`, value for value, parsed in C where that is the same: orjson first (a fifth of the
    stdlib's cost on a request), the stdlib for whatever orjson refuses (NaN, a lone surrogate, UTF-16, depth) or
    might read otherwise (long numbers). Raises ValueError or RecursionError as `json.loads` does."""
    if body.translate(_DIGITS_AS_ZEROS).find(_LONG_NUMBER) == -1:  # `find`: `in` tries a number first (3.11)
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass  # the stdlib has the last word on what is JSON
    return json.loads(body)


def _error_body(request_id: Any, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:  # absent rather than null, like the SDK's exclude_none dumps
        error["data"] = data
    return encode_json({"jsonrpc": "2.0", "id": request_id, "error": error})


def _result_body(request_id: Any, result: bytes) -> bytes:
    # Splice pre-serialized results (cached tools/list) without re-encoding them.
    return b"".join((b'{"jsonrpc":"2.0","id":', encode_json(request_id), b',"result":', result, b"}"))


def _respond(status: int, body: bytes, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(body=body, status=status, content_type=_JSON, headers=headers)


def _http_error(status: int, message: str, headers: Mapping[str, str] | None = None) -> web.Response:
    """An HTTP-level refusal; the body is an id-less JSON-RPC error, as the SDK's transports send."""
    return _respond(status, _error_body(None, INVALID_REQUEST, message), headers)


@dataclass
class _Rpc:
    """A JSON-RPC error on its way out; each era picks the HTTP status."""

    code: int
    message: str
    data: Any = None


def _is_json_content_type(value: str | None) -> bool:
    return value is not None and value.split(";", 1)[0].strip().lower() == _JSON


def _accepts_json_and_sse(accept: str) -> bool:
    """Mirror of the SDK's `check_accept_headers` (RFC 7231 wildcards), requiring both types."""
    kinds = {part.split(";", 1)[0].strip().lower() for part in accept.split(",")}
    if "*/*" in kinds:
        return True
    return bool(kinds & {_JSON, "application/*"}) and bool(kinds & {"text/event-stream", "text/*"})


class _VerdictCache:
    """Bounded memo for header verdicts (Host, Origin, Accept): few distinct values, hot path."""

    def __init__(self, check: Callable[[str], bool], limit: int = 512) -> None:
        self._check = check
        self._limit = limit
        self._seen: dict[str, bool] = {}

    def __call__(self, value: str) -> bool:
        verdict = self._seen.get(value)
        if verdict is None:
            verdict = self._check(value)
            if len(self._seen) >= self._limit:
                self._seen.clear()  # hostile variety only costs recomputation
            self._seen[value] = verdict
        return verdict


class _BodyRefused(Exception):
    """The request body cannot be read: (HTTP status, message)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


_TOO_LARGE: Final = "Request body too large"


async def _read_body(request: web.Request, limit: int, timeout: float) -> bytes:
    """The request body, decoded, at most `limit` bytes both as sent and as decoded."""
    encoding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("identity", "gzip"):
        raise _BodyRefused(415, "Unsupported Media Type: Content-Encoding must be identity or gzip")
    declared = request.content_length
    if declared is not None and declared > limit:
        raise _BodyRefused(413, _TOO_LARGE)
    content = request.content
    # A small body usually arrives with its headers: take what is buffered without arming a timer,
    # and wait (under the timeout) only for what has not arrived yet.
    first = content.read_nowait()
    size = len(first)
    if size > limit:
        raise _BodyRefused(413, _TOO_LARGE)
    chunks: list[bytes] = [first] if first else []
    if not content.at_eof():
        try:
            async with asyncio.timeout(timeout):
                # Streamed and capped ourselves: chunked bodies carry no Content-Length to check.
                while chunk := await content.readany():
                    size += len(chunk)
                    if size > limit:
                        raise _BodyRefused(413, _TOO_LARGE)
                    chunks.append(chunk)
        except TimeoutError:
            raise _BodyRefused(408, "Request Timeout: the body did not arrive in time") from None
    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    return _gunzip(body, limit) if encoding == "gzip" else body


def _gunzip(body: bytes, limit: int) -> bytes:
    """Inflate at most `limit + 1` bytes: a small bomb costs no more than an honest full-size body."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        decoded = inflater.decompress(body, limit + 1)
    except zlib.error:
        raise _BodyRefused(400, "Bad Request: the body is not valid gzip") from None
    if len(decoded) > limit:
        raise _BodyRefused(413, _TOO_LARGE)
    if not inflater.eof or inflater.unused_data:
        raise _BodyRefused(400, "Bad Request: the body is not one complete gzip stream")
    return decoded


@dataclass
class _EndpointCache:
    """Per-endpoint-object caches: serialized tools/list per version, x-mcp-header presence per tool."""

    endpoint: Endpoint
    tools_list: dict[str, bytes] = field(default_factory=dict)
    header_tools: dict[str, bool] = field(default_factory=dict)


# ─── the transport ─────────────────────────────────────────────────────────────────────────────


class McpHttp:
    """The `/{slug}/mcp` handler.

    Parameters:
        resolve: slug → the enabled endpoint, or None (→ plain 404). Consulted on every request,
            so a registry reload takes effect immediately; caches follow endpoint identity.
        identity: server name/version/title/instructions for `initialize` and the serverInfo stamp.
        settings: Host/Origin allow-lists and the body limit.
        sessions: legacy-era session bookkeeping.
        signer: mints and verifies modern-era trace handles (`proxy.core.trace`).
        metrics: where sessions opened and ended, and streams open, are counted (`proxy.observe.metrics`).
        tracer: when set, each tool call is a span continuing the client's `traceparent` (`proxy.observe.tracing`).
    """

    def __init__(
        self,
        *,
        resolve: Callable[[str], Endpoint | None],
        identity: ServerIdentity,
        settings: TransportSettings,
        sessions: SessionStore,
        signer: TraceSigner,
        metrics: Metrics | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        self._metrics = metrics or Metrics()
        self._tracer = tracer  # None: tracing is off (no OTLP endpoint configured)
        self._resolve = resolve
        self._sessions = sessions
        self._signer = signer
        self.configure(settings)
        self._accept_ok = _VerdictCache(_accepts_json_and_sse)
        self._endpoints: dict[str, _EndpointCache] = {}
        self._encoded_ok: set[str] = set()  # versions whose surface carries an EncodedResult (checked once)
        self._checks = RequestChecks()
        self._streams: dict[str, dict[str, asyncio.Queue[bytes | None]]] = {}  # slug → session → events
        self._streams_by_group: Counter[str] = Counter()
        self._calls: set[asyncio.Task[Any]] = set()  # the tasks running a tools/call now
        self._stopping = False

        self.set_identity(identity)

    def set_identity(self, identity: ServerIdentity) -> None:
        """What `initialize`, `server/discover` and the serverInfo stamp say (a reload may change it)."""
        # A reload can change the tool list: handshake-era sessions hear it on their GET stream.
        capabilities = types.ServerCapabilities(tools=types.ToolsCapability(list_changed=True))
        stateless = types.ServerCapabilities(tools=types.ToolsCapability(list_changed=False))
        server_info = types.Implementation(
            name=identity.name, version=identity.version, title=identity.title, description=identity.description,
            website_url=identity.website_url,
            icons=[types.Icon.model_validate(icon) for icon in identity.icons] or None,
        )
        self._server_info: dict[str, Any] = server_info.model_dump(by_alias=True, mode="json", exclude_none=True)
        self._server_info_stamp = encode_json(types.SERVER_INFO_META_KEY) + b":" + encode_json(self._server_info)
        # Everything that does not depend on the request is serialized once, per version.
        self._initialize: dict[str, bytes] = {
            version: self._wire(
                "initialize",
                version,
                types.InitializeResult(
                    protocol_version=version,
                    capabilities=capabilities,
                    server_info=server_info,
                    instructions=identity.instructions,
                ),
            )
            for version in HANDSHAKE_PROTOCOL_VERSIONS
        }
        self._discover: dict[str, bytes] = {
            version: self._wire(
                "server/discover",
                version,
                types.DiscoverResult(
                    supported_versions=list(MODERN_PROTOCOL_VERSIONS),
                    capabilities=stateless,
                    instructions=identity.instructions,
                    ttl_ms=LISTING_TTL_MS,
                    cache_scope=LISTING_CACHE_SCOPE,
                ),
            )
            for version in MODERN_PROTOCOL_VERSIONS
        }
        self._empty: dict[str, bytes] = {
            version: self._wire("ping", version, types.EmptyResult()) for version in HANDSHAKE_PROTOCOL_VERSIONS
        }

    def configure(self, settings: TransportSettings) -> None:
        """Apply new host/origin allow-lists and body limit (a registry reload); one step, no await."""
        self._max_body = settings.max_body_bytes
        self._idle = settings.session_idle_seconds
        self._body_timeout = settings.body_timeout_seconds
        self._trusted_proxies = frozenset(settings.trusted_proxies)
        self._host_ok = _VerdictCache(lambda host: matches(host, settings.allowed_hosts))
        self._origin_ok = _VerdictCache(lambda origin: matches(origin, settings.allowed_origins))

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Answer one HTTP request; never raises, never answers 500."""
        current_peer.set(client_group(self._client(request)))  # this request's own context: nothing to reset
        REQUEST_ID.set(request_id_for(request.headers.get("X-Request-Id")))
        if self._tracer is not None:
            HTTP_CONTEXT.set(parent_context(request.headers))
        try:
            return await self._handle(request)
        except Exception:
            # Internals stay in the log; the client learns only that it was our fault.
            logger.exception("MCP transport failed on %s %s", request.method, request.path)
            return _respond(200, _error_body(None, INTERNAL_ERROR, "Internal error"))

    # ── routing ──

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        headers = request.headers
        hosts = headers.getall("Host", [])
        if len(hosts) != 1 or not self._host_ok(hosts[0]):
            return _http_error(421, "Invalid Host header")
        # Every Origin is checked: a second header must not hide behind an allowed first one.
        origins = headers.getall("Origin", [])
        if len(origins) > 1 or (origins and origins[0] and not self._origin_ok(origins[0])):
            return _http_error(403, "Invalid Origin header")
        endpoint = self._resolve(request.match_info.get("slug", ""))
        if endpoint is None:
            return web.Response(status=404, text="Not Found")
        version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
        # Era routing as the SDK's session manager does it: only a handshake version (or no
        # header) is legacy; anything else, unknown values included, meets the modern ladder.
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return await self._modern(request, endpoint)
        return await self._legacy(request, endpoint, version or _DEFAULT_LEGACY_VERSION)

    def _client(self, request: web.Request) -> str:
        """The client's address: the peer, or the last `X-Forwarded-For` hop a trusted proxy added (kept on the
        request for its access line)."""
        address = request[CLIENT] = client_address(request, self._trusted_proxies)
        return address

    async def _post_body(self, request: web.Request) -> web.Response | bytes:
        """The HTTP-level POST checks shared by both eras; a Response means refused."""
        headers = request.headers
        if not _is_json_content_type(headers.get("Content-Type")):
            return _http_error(415, "Unsupported Media Type: Content-Type must be application/json")
        if not self._accept_ok(headers.get("Accept", "")):
            return _http_error(406, "Not Acceptable: Client must accept both application/json and text/event-stream")
        try:
            return await _read_body(request, self._max_body, self._body_timeout)
        except _BodyRefused as refused:
            response = _http_error(refused.status, refused.message)
            response.force_close()  # what is left of the body is not read: this connection is done
            return response

    # ── 2026-07-28: stateless ──

    async def _modern(self, request: web.Request, endpoint: Endpoint) -> web.StreamResponse:
        if request.method != "POST":
            return _http_error(405, "Method Not Allowed", {"Allow": "POST"})
        body = await self._post_body(request)
        if isinstance(body, web.Response):
            return body
        try:
            decoded = _loads(body)
        except (ValueError, RecursionError):  # bad UTF-8 and huge int literals are ValueErrors too
            return _respond(400, _error_body(None, PARSE_ERROR, "Parse error"))
        if isinstance(decoded, dict) and "id" not in decoded:
            return self._modern_notification(decoded, request.headers.get(MCP_PROTOCOL_VERSION_HEADER, ""))
        if not self._checks.is_request(decoded):
            # A batch, a posted response, or a malformed envelope.
            return _respond(400, _error_body(None, INVALID_REQUEST, _SHAPE_MESSAGE))

        request_id = decoded["id"]
        outcome = await self._modern_request(request, endpoint, decoded)
        if isinstance(outcome, _Rpc):
            status = ERROR_CODE_HTTP_STATUS.get(outcome.code, 200)
            return _respond(status, _error_body(request_id, outcome.code, outcome.message, outcome.data))
        return _respond(200, _result_body(request_id, outcome))

    def _modern_notification(self, decoded: dict[str, Any], version: str) -> web.Response:
        """Accept-and-drop, as the SDK does; the 2026 wire defines no client notifications."""
        try:
            types.JSONRPCNotification.model_validate(decoded)
        except ValidationError:
            return _respond(400, _error_body(None, INVALID_REQUEST, _SHAPE_MESSAGE))
        rejection = unsupported_protocol_version_rejection(version)
        if rejection is not None:
            return _respond(400, _error_body(None, rejection.code, rejection.message, rejection.data))
        return web.Response(status=202)

    async def _modern_request(self, request: web.Request, endpoint: Endpoint, decoded: dict[str, Any]
                              ) -> _Rpc | bytes:
        """A request whose envelope is valid (`RequestChecks.is_request`)."""
        headers = request.headers
        checks = self._checks
        duplicated = checks.duplicated_routing_header(headers)
        if duplicated is not None:
            return _Rpc(HEADER_MISMATCH, f"{duplicated} header appears more than once")
        routing = {name: value for name in ROUTING_HEADERS if (value := headers.get(name)) is not None}
        method, params = decoded["method"], decoded.get("params")
        text = params_text(params)
        verdict = checks.ladder(decoded, routing, text)
        if isinstance(verdict, InboundLadderRejection):
            return _Rpc(verdict.code, verdict.message, verdict.data)
        version = verdict.protocol_version
        if method == "tools/call":
            rejection = self._param_header_rejection(endpoint, params, headers)
            if rejection is not None:
                return _Rpc(rejection.code, rejection.message, rejection.data)
        invalid = self._validate(method, version, params, text)
        if invalid is not None:
            return invalid
        if method == "tools/call":
            assert params is not None  # validated above
            handle = self._trace_handle(params.get("_meta"))
            return await self._call_tool(endpoint, version, params, Caller.trace(handle), trace=handle)
        if method == "tools/list":
            return self._tools_list(endpoint, version, params)
        if method == "server/discover":
            return self._discover[version]
        return _method_not_found(method)

    def _param_header_rejection(
        self, endpoint: Endpoint, params: Mapping[str, Any] | None, headers: Mapping[str, str]
    ) -> InboundLadderRejection | None:
        """`Mcp-Param-*` ↔ argument agreement, as the SDK's `_mcp_param_rejection` checks it."""
        params = params or {}
        name = params.get("name")
        arguments = params.get("arguments")
        if not isinstance(name, str) or (arguments is not None and not isinstance(arguments, dict)):
            return None  # the params validation that follows rejects these (decoded JSON: an object is a dict)
        cache = self._cache(endpoint)
        annotated = cache.header_tools.get(name)
        if annotated is False:
            return None  # no x-mcp-header in this tool's schema: nothing can disagree
        arguments = arguments or {}
        if not arguments and not any(key.lower().startswith(_PARAM_PREFIX_LOWER) for key in headers):
            return None
        try:
            schema = endpoint.input_schema(name)
        except Exception:
            # Fail open like the SDK: header validation must never break a working call.
            logger.exception("Mcp-Param header validation skipped: input_schema(%r) raised", name)
            return None
        if schema is None:
            return None
        if annotated is None:
            annotated = find_invalid_x_mcp_header(schema) is None and bool(x_mcp_header_map(schema))
            cache.header_tools[name] = annotated
            if not annotated:
                return None
        return validate_mcp_param_headers(schema, arguments, headers)

    def _trace_handle(self, meta: Any) -> str:
        """The client's handle if we signed it, else a fresh one."""
        if isinstance(meta, dict):  # decoded JSON: an object is a dict
            offered = meta.get(TRACE_META_KEY)
            if isinstance(offered, str) and self._signer.verify(offered):
                return offered
        return self._signer.mint()

    # ── handshake era: sessions ──

    async def _legacy(self, request: web.Request, endpoint: Endpoint, version: str) -> web.StreamResponse:
        method = request.method
        if method == "DELETE":
            return await self._end_session(request, endpoint)
        if method == "GET":
            return await self._notification_stream(request, endpoint)
        if method != "POST":
            return _http_error(405, "Method Not Allowed", {"Allow": "GET, POST, DELETE"})
        body = await self._post_body(request)
        if isinstance(body, web.Response):
            return body
        try:
            decoded = _loads(body)
        except (ValueError, RecursionError):
            return _respond(400, _error_body(None, PARSE_ERROR, "Parse error"))
        kind = _legacy_kind(decoded)
        if kind is None:
            return _respond(400, _error_body(None, INVALID_REQUEST, _SHAPE_MESSAGE))
        if kind == "request" and decoded["method"] == "initialize":
            return await self._initialize_session(endpoint, decoded, current_peer.get() or "")

        session_id = request.headers.get(SESSION_ID_HEADER)
        if not session_id:
            return _http_error(400, "Bad Request: Missing session ID")
        if not await self._sessions.touch_session(session_id, endpoint.slug, self._idle):
            return _http_error(404, "Session not found")
        session_header = {SESSION_ID_HEADER: session_id}
        if kind != "request":
            # Notifications and (unsolicited) responses: accepted, nothing to act on.
            return web.Response(status=202, headers=session_header)

        request_id, rpc_method, params = decoded["id"], decoded["method"], decoded.get("params")
        outcome = await self._legacy_request(endpoint, version, rpc_method, params, session_id)
        if isinstance(outcome, _Rpc):
            # The handshake-era transport answers JSON-RPC errors with HTTP 200, as the SDK does.
            return _respond(200, _error_body(request_id, outcome.code, outcome.message, outcome.data), session_header)
        return _respond(200, _result_body(request_id, outcome), session_header)

    async def _legacy_request(
        self, endpoint: Endpoint, version: str, method: str, params: dict[str, Any] | None, session_id: str
    ) -> _Rpc | bytes:
        invalid = self._validate(method, version, params)
        if invalid is not None:
            return invalid
        if method == "tools/call":
            assert params is not None  # validated above
            return await self._call_tool(endpoint, version, params, Caller.session(session_id), trace=None)
        if method == "tools/list":
            return self._tools_list(endpoint, version, params)
        if method == "ping":
            return self._empty[version]
        return _method_not_found(method)

    async def _initialize_session(self, endpoint: Endpoint, decoded: dict[str, Any], client: str) -> web.Response:
        request_id = decoded["id"]
        try:
            init = types.InitializeRequestParams.model_validate(decoded.get("params") or {}, by_name=False)
        except ValidationError:
            return _respond(200, _error_body(request_id, INVALID_PARAMS, "Invalid request parameters", ""))
        requested = init.protocol_version
        negotiated = requested if requested in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
        session_id = await self._sessions.create_session(endpoint.slug, self._idle, client)
        self._metrics.sessions_opened.labels(endpoint.slug).inc()
        return _respond(200, _result_body(request_id, self._initialize[negotiated]), {SESSION_ID_HEADER: session_id})

    async def _notification_stream(self, request: web.Request, endpoint: Endpoint) -> web.StreamResponse:
        """A session's server-to-client stream (SSE): `notifications/tools/list_changed` after a reload."""
        if "text/event-stream" not in request.headers.get("Accept", ""):
            return _http_error(406, "Not Acceptable: Client must accept text/event-stream")
        session_id = request.headers.get(SESSION_ID_HEADER)
        if not session_id:
            return _http_error(400, "Bad Request: Missing session ID")
        if not await self._sessions.touch_session(session_id, endpoint.slug, self._idle):
            return _http_error(404, "Session not found")
        streams = self._streams.setdefault(endpoint.slug, {})
        if session_id in streams:
            return _http_error(409, "Conflict: this session already has a stream open")
        if sum(len(s) for s in self._streams.values()) >= MAX_STREAMS:
            return _http_error(503, "Too many open streams; try again later", {"Retry-After": "30"})
        group = current_peer.get() or ""
        if self._streams_by_group[group] >= MAX_STREAMS_PER_GROUP:
            return _http_error(429, f"Too many open streams from your network ({MAX_STREAMS_PER_GROUP}); end a "
                               "session you no longer use (DELETE) or try again later", {"Retry-After": "30"})
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                               SESSION_ID_HEADER: session_id})
        await response.prepare(request)
        queue: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=8)
        streams[session_id] = queue
        self._streams_by_group[group] += 1
        self._metrics.streams_open.inc()
        try:
            await self._stream_events(response, queue, session_id, endpoint.slug)
        except ConnectionError:
            pass  # the client went away
        finally:
            streams.pop(session_id, None)
            self._streams_by_group[group] -= 1
            if self._streams_by_group[group] <= 0:
                del self._streams_by_group[group]
            self._metrics.streams_open.dec()
        return response

    async def _stream_events(self, response: web.StreamResponse, queue: asyncio.Queue[bytes | None],
                             session_id: str, slug: str) -> None:
        """Write the stream's events until it is ended (None), its session is gone, or its client is."""
        quiet = 0.0
        while True:
            try:
                event = await asyncio.wait_for(queue.get(), STREAM_SESSION_CHECK_SECONDS)
            except TimeoutError:
                if not await self._sessions.touch_session(session_id, slug, self._idle):
                    return  # ended elsewhere (another worker, an eviction, idle): the stream ends with it
                quiet += STREAM_SESSION_CHECK_SECONDS
                if quiet < STREAM_KEEPALIVE_SECONDS:
                    continue
                event = b": keep-alive\n\n"  # also finds out whether the client is still there
            if event is None:
                return
            quiet = 0.0
            try:
                async with asyncio.timeout(WRITE_SECONDS):
                    await response.write(event)
            except TimeoutError:
                return  # a reader this slow is gone for all it can use the stream; its buffers go


    def notify_tools_changed(self) -> None:
        """After a reload: every open stream hears that its tools changed; a slug that is gone ends its streams."""
        for slug, streams in self._streams.items():
            event = _TOOLS_CHANGED if self._resolve(slug) is not None else None
            for queue in streams.values():
                with contextlib.suppress(asyncio.QueueFull):  # a stream that is behind gets the news once
                    queue.put_nowait(event)

    def stop_calls_after(self, seconds: float) -> None:
        """At shutdown: the calls still running in `seconds` are stopped and answered with a retryable error,
        so each gets an answer within the grace instead of a closed connection."""
        def stop() -> None:
            self._stopping = True
            for task in list(self._calls):
                task.cancel(_STOPPING)

        asyncio.get_running_loop().call_later(seconds, stop)

    def close_streams(self) -> None:
        """End every open stream (at shutdown, so calls in flight are all that a graceful stop waits for)."""
        for streams in self._streams.values():
            for queue in streams.values():
                with contextlib.suppress(asyncio.QueueFull):
                    queue.put_nowait(None)

    async def _end_session(self, request: web.Request, endpoint: Endpoint) -> web.Response:
        session_id = request.headers.get(SESSION_ID_HEADER)
        if not session_id:
            return _http_error(400, "Bad Request: Missing session ID")
        if not await self._sessions.delete_session(session_id, endpoint.slug):
            return _http_error(404, "Session not found")
        self._metrics.sessions_ended.labels(endpoint.slug).inc()
        stream = self._streams.get(endpoint.slug, {}).get(session_id)
        if stream is not None:  # the session's GET stream ends with it
            with contextlib.suppress(asyncio.QueueFull):
                stream.put_nowait(None)
        return web.Response(status=200)

    # ── methods ──

    def _tools_list(self, endpoint: Endpoint, version: str, params: Mapping[str, Any] | None) -> _Rpc | bytes:
        if params and params.get("cursor") is not None:
            return _Rpc(INVALID_PARAMS, "Invalid cursor")  # we never hand one out: one page holds all
        cache = self._cache(endpoint)
        cached = cache.tools_list.get(version)
        if cached is None:
            try:
                listing = types.ListToolsResult(tools=list(endpoint.list_tools()), ttl_ms=LISTING_TTL_MS,
                                                cache_scope=LISTING_CACHE_SCOPE)
                cached = self._wire("tools/list", version, listing)
            except Exception:
                # A broken endpoint, or a tool the era's schema cannot carry (an array-root
                # outputSchema on 2025): the SDK fails the whole list the same way.
                logger.exception("tools/list of %s failed for protocol %s", endpoint.slug, version)
                return _Rpc(INTERNAL_ERROR, "Handler returned an invalid result")
            cache.tools_list[version] = cached
        return cached

    async def _call_tool(
        self, endpoint: Endpoint, version: str, params: Mapping[str, Any], caller: Caller, *, trace: str | None
    ) -> _Rpc | bytes:
        name = params["name"]
        task = asyncio.current_task()
        assert task is not None
        self._calls.add(task)
        try:
            result = await self._run_tool(endpoint, name, params, caller)
        except asyncio.CancelledError:
            if not self._stopping:
                raise
            task.uncancel()  # stopped by stop_calls_after: the answer still goes out
            shown = clipped(name, TOOL_NAME_SHOWN)
            result = types.CallToolResult(is_error=True, content=[types.TextContent(type="text", text=(
                f"{shown}: BesluitBron is restarting and stopped this call before it finished; send it again "
                "in a few seconds (nothing was changed: every tool only reads)."))])
        except UnknownToolError as exc:
            return _Rpc(INVALID_PARAMS, str(exc))
        except MCPError as exc:
            return _Rpc(exc.error.code, exc.error.message, exc.error.data)
        except Exception:
            logger.exception("tool %s on %s raised", clipped(name, TOOL_NAME_SHOWN), endpoint.slug)
            return _Rpc(INTERNAL_ERROR, "Internal server error")
        finally:
            self._calls.discard(task)
        try:
            if isinstance(result, EncodedResult):
                return self._wire_encoded(version, result, trace=trace)
            return self._wire("tools/call", version, result, trace=trace)
        except Exception:  # not a CallToolResult, or one this era cannot carry
            logger.exception("tool %s on %s returned a result protocol %s cannot carry", clipped(name, TOOL_NAME_SHOWN),
                             endpoint.slug, version)
            return _Rpc(INTERNAL_ERROR, "Handler returned an invalid result")

    async def _run_tool(self, endpoint: Endpoint, name: str, params: Mapping[str, Any], caller: Caller
                        ) -> types.CallToolResult | EncodedResult:
        tracer = self._tracer
        if tracer is None:
            return await endpoint.call_tool(name, params.get("arguments") or {}, caller)
        # The name as the client sent it, cut: a 900 KB one must not fill the export.
        with tool_span(tracer, endpoint.slug, clipped(name, TOOL_NAME_SHOWN), params.get("_meta")):
            return await endpoint.call_tool(name, params.get("arguments") or {}, caller)

    # ── shared ──

    def _validate(self, method: str, version: str, params: Mapping[str, Any] | None, text: bytes | None = None
                  ) -> _Rpc | None:
        """The runner's surface check: a spec method must exist at `version` and fit its schema (`text`: the
        params' key, when the caller has written it already)."""
        if method not in _methods.SPEC_CLIENT_METHODS:
            return None
        verdict = self._checks.surface(method, version, params, params_text(params) if text is None else text)
        if verdict == "not found":
            return _method_not_found(method)
        if verdict == "invalid":
            return _Rpc(INVALID_PARAMS, "Invalid request parameters", "")
        return None

    def _cache(self, endpoint: Endpoint) -> _EndpointCache:
        cache = self._endpoints.get(endpoint.slug)
        if cache is None or cache.endpoint is not endpoint:  # a registry reload swapped the object
            cache = self._endpoints[endpoint.slug] = _EndpointCache(endpoint)
        return cache

    def _wire_encoded(self, version: str, result: EncodedResult, *, trace: str | None) -> bytes:
        """`_wire` of a successful structured result, spliced from its encoded JSON.

        What the splice writes is what `_wire` writes for `CallToolResult(content=[text], structured_content=
        data, _meta=meta)`: the era's surface is checked once per version on that shape (an object as
        structuredContent, one text block, an object as _meta), and the per-call parts are JSON the encoder
        produced.
        """
        if version not in self._encoded_ok:
            # The protocol check, once per version: raises (→ "invalid result") if the era cannot carry it.
            template = types.CallToolResult(content=[types.TextContent(type="text", text="{}")], structured_content={},
                                            _meta={"k": {}})
            _methods.serialize_server_result("tools/call", version,
                                             template.model_dump(by_alias=True, mode="json", exclude_none=True))
            self._encoded_ok.add(version)
        structured = result.structured
        if not structured.startswith(b"{"):
            raise TypeError("EncodedResult.structured must be a JSON object")
        text = encode_json(structured.decode()) if result.text is None else result.text
        # Joined once: each `+` of the answer's kilobytes would copy them all again.
        parts = [b'{"content":[{"type":"text","text":', text, b'}],"structuredContent":', structured]
        meta = result.meta
        if version not in MODERN_PROTOCOL_VERSIONS:
            parts += (b',"isError":false,"_meta":{', meta, b"}}") if meta else (b',"isError":false}',)
            return b"".join(parts)
        parts.append(b',"isError":false,"resultType":"complete","_meta":{')
        if meta:
            parts += (meta, b",")
        parts.append(self._server_info_stamp)
        if trace is not None:
            parts += (_TRACE_MEMBER, encode_json(trace))
        parts.append(b"}}")
        return b"".join(parts)

    def _wire(self, method: str, version: str, result: types.Result, *, trace: str | None = None) -> bytes:
        """A result in its wire form for `version`: what the SDK runner's `_serialize` produces.

        Dump the typed result (its defaults supply resultType / ttlMs / cacheScope), sieve it through
        the per-version surface (drops what the era lacks, rejects what it cannot carry), and on the
        modern era make sure of `resultType` and stamp serverInfo (and our trace) into `_meta`.
        """
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        wire = _methods.serialize_server_result(method, version, dumped)
        if version in MODERN_PROTOCOL_VERSIONS:
            wire.setdefault("resultType", "complete")
            meta = wire.get("_meta")
            stamped: dict[str, Any] = dict(meta) if isinstance(meta, dict) else {}
            if stamped.get(types.SERVER_INFO_META_KEY) is None:
                stamped[types.SERVER_INFO_META_KEY] = self._server_info
            if trace is not None:
                stamped[TRACE_META_KEY] = trace
            if meta is None or isinstance(meta, dict):  # a non-object _meta is the handler's to own
                wire["_meta"] = stamped
        return encode_json(wire)




def _method_not_found(method: str) -> _Rpc:
    return _Rpc(METHOD_NOT_FOUND, "Method not found", clipped(method, TOOL_NAME_SHOWN))  # echoed, so never whole


def _legacy_kind(decoded: Any) -> str | None:
    """The kind of a valid single JSON-RPC message (request, notification, response), else None."""
    if not isinstance(decoded, dict):
        return None
    try:
        if "method" in decoded:
            if "id" in decoded:
                return "request" if RequestChecks.is_request(decoded) else None
            types.JSONRPCNotification.model_validate(decoded)
            return "notification"
        if "error" in decoded:
            types.JSONRPCError.model_validate(decoded)
        else:
            types.JSONRPCResponse.model_validate(decoded)
        return "response"
    except ValidationError:
        return None
