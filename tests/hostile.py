"""Hostile HTTP requests for the proxy, as hypothesis strategies, and a server to throw them at.

Used by `tests/test_hardening_fuzz.py` (a short run in `make test`) and by `make fuzz` (the same
test with `BESLUITBRON_FUZZ_EXAMPLES=100000`). The server runs in its own thread with its own event
loop, so the synchronous hypothesis test drives it over a real socket like any client would.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from hypothesis import strategies as st

from proxy.registry.model import load_registry
from proxy.replica import create_replicas_app, replica_base_urls
from proxy.web.app import RUNTIME, Config, create_app

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "registry.json"
MODERN = "2026-07-28"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"}}


# ─── a server in a thread ──────────────────────────────────────────────────────────────────────


class _Errors(logging.Handler):
    """Collects ERROR and worse from every logger: a client must not be able to write those."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class FuzzServer:
    host: str
    port: int
    slugs: tuple[str, ...]
    tools: dict[str, list[tuple[str, dict[str, Any]]]]  # slug → (tool name, input schema)
    errors: _Errors
    sessions: dict[str, str] = field(default_factory=dict)  # slug → an open legacy session
    statuses: Counter[int] = field(default_factory=Counter)


@contextmanager
def fuzz_server(tmp: Path) -> Iterator[FuzzServer]:
    """The production app for the shipped registry, against the replicas, on a loopback port."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    errors = _Errors()
    logging.getLogger().addHandler(errors)

    async def start() -> tuple[list[web.AppRunner], FuzzServer]:
        registry = load_registry(REGISTRY)
        replicas_app = create_replicas_app(list(registry.platforms), anchor=date.today(), fixtures=True)
        replicas = web.AppRunner(replicas_app, access_log=None)
        await replicas.setup()
        replica_site = web.TCPSite(replicas, "127.0.0.1", 0)
        await replica_site.start()
        base_urls = replica_base_urls({k: p.base_url for k, p in registry.platforms.items()},
                                      f"http://127.0.0.1:{replica_site.port}")
        site = tmp / "site"
        site.mkdir(exist_ok=True)
        (site / "index.html").write_text("<h1>BesluitBron</h1>", encoding="utf-8")
        (site / "404.html").write_text("<h1>Niet gevonden</h1>", encoding="utf-8")
        app = create_app(Config(registry_path=REGISTRY, base_urls=base_urls, measure_load=False, site_dir=site,
                                trace_key_file=tmp / "trace-key"))
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        proxy_site = web.TCPSite(runner, "127.0.0.1", 0)
        await proxy_site.start()
        catalog = app[RUNTIME].generation.catalog
        tools = {slug: [(t.name, dict(t.input_schema)) for t in c.tools] for slug, c in catalog.connectors.items()}
        server = FuzzServer("127.0.0.1", proxy_site.port, tuple(catalog.connectors), tools, errors)
        async with aiohttp.ClientSession() as http:
            for slug in server.slugs:
                init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                        "params": {"protocolVersion": LEGACY_VERSIONS[0], "capabilities": {},
                                   "clientInfo": {"name": "fuzz", "version": "1"}}}
                async with http.post(f"http://127.0.0.1:{server.port}/{slug}/mcp", json=init,
                                     headers={"Accept": "application/json, text/event-stream"}) as resp:
                    server.sessions[slug] = resp.headers["Mcp-Session-Id"]
        return [runner, replicas], server

    started: Future[tuple[list[web.AppRunner], FuzzServer]] = asyncio.run_coroutine_threadsafe(start(), loop)
    runners, server = started.result(60)
    try:
        yield server
    finally:
        logging.getLogger().removeHandler(errors)

        async def stop() -> None:
            for runner in runners:
                await runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: tuple[tuple[str, str | bytes], ...]  # bytes: a value http.client would not encode (UTF-8 line ends)
    body: bytes

    def __repr__(self) -> str:  # hypothesis prints failing examples: keep them readable
        return (f"Request({self.method} {self.path[:120]!r}, headers={self.headers!r}, "
                f"body={self.body[:300]!r}{'…' if len(self.body) > 300 else ''} ({len(self.body)} bytes))")


CLOSED = 0  # the server closed the connection without an answer (a refused body still being sent)


def send(server: FuzzServer, request: Request) -> tuple[int, bytes]:
    """One request on its own connection (a hostile request may rightly close it)."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
    try:
        conn.putrequest(request.method, request.path, skip_host=True, skip_accept_encoding=True)
        for name, value in request.headers:
            conn.putheader(name, value)
        if request.body or request.method == "POST":
            conn.putheader("Content-Length", str(len(request.body)))
        # The server may answer (and close) before the whole body is sent: then read that answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.endheaders(request.body or None)
        try:
            response = conn.getresponse()
            if response.getheader("Content-Type", "").startswith("text/event-stream"):
                # A session's notification stream (GET with a live session): it stays open by design, with a
                # keep-alive every 25 s, so reading it to the end would never finish. Its status is the answer.
                return response.status, b""
            return response.status, response.read()
        except (ConnectionResetError, http.client.RemoteDisconnected):
            return CLOSED, b""
    finally:
        conn.close()


def renew_session(server: FuzzServer, ended: Request) -> None:
    """A fresh legacy session for the connector whose session `ended` closed (DELETE answered 200)."""
    for slug, session in server.sessions.items():
        if ("Mcp-Session-Id", session) in ended.headers and ended.path == f"/{slug}/mcp":
            init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": LEGACY_VERSIONS[0], "capabilities": {},
                               "clientInfo": {"name": "fuzz", "version": "1"}}}
            conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
            try:
                conn.request("POST", ended.path, json.dumps(init), {
                    "Host": f"{server.host}:{server.port}", "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream"})
                response = conn.getresponse()
                response.read()
                server.sessions[slug] = response.getheader("Mcp-Session-Id") or session
            finally:
                conn.close()


# ─── strategies ────────────────────────────────────────────────────────────────────────────────

# Unicode edge cases: lone surrogates (as JSON escapes), NUL, RTL override, combining marks, astral planes.
_ODD_TEXT = st.sampled_from(["\\ud800", "\\udfff", "\\u0000", "\u202e", "e\u0301", "\U0001f600", "\ufeff", "",
                             "a" * 5000, "Ωmega", "\u2028", "'; DROP TABLE --", "${jndi:x}", "../../etc/passwd"])
_JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                          st.floats(allow_nan=False), st.text(max_size=40))
_JSON = st.recursive(_JSON_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                            st.dictionaries(st.text(max_size=10), inner, max_size=5)),
                     max_leaves=20)


@st.composite
def arguments_for(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments using the tool's own property names with values of any (mostly wrong) type."""
    names = list((schema.get("properties") or {}).keys())
    if not names:
        return draw(st.dictionaries(st.text(max_size=8), _JSON, max_size=3))
    chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    return {name: draw(_JSON) for name in chosen}


@st.composite
def rpc_body(draw: st.DrawFn, server: FuzzServer, slug: str, modern: bool) -> tuple[bytes, str | None, str | None]:
    """(body, Mcp-Method, Mcp-Name): valid, nearly valid or garbage JSON-RPC."""
    kind = draw(st.sampled_from(["call", "call", "list", "init", "ping", "discover", "notify", "batch", "garbage",
                                 "deep", "huge", "odd-text", "wrong-id", "not-object", "many-keys", "huge-name"]))
    meta = {"_meta": dict(ENVELOPE)} if modern else {}
    rid: Any = draw(st.one_of(st.integers(min_value=0, max_value=2**40), st.text(max_size=8)))
    if kind == "call":
        name, schema = draw(st.sampled_from(server.tools[slug] + [("no_such_tool", {})]))
        args = draw(arguments_for(schema))
        message = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                   "params": {**meta, "name": name, "arguments": args}}
        if draw(st.booleans()):  # nearly valid: drop or break one part
            part = draw(st.sampled_from(["jsonrpc", "id", "params", "method"]))
            message[part] = draw(_JSON)
        return json.dumps(message).encode(), "tools/call", name
    if kind in ("list", "ping", "discover"):
        method = {"list": "tools/list", "ping": "ping", "discover": "server/discover"}[kind]
        params = {**meta, **draw(st.dictionaries(st.sampled_from(["cursor", "x", "_meta"]), _JSON, max_size=2))}
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode(), method, None
    if kind == "init":
        params = draw(st.one_of(_JSON, st.just({"protocolVersion": draw(st.sampled_from([*LEGACY_VERSIONS, "x"])),
                                                "capabilities": {}, "clientInfo": {"name": "f", "version": "1"}})))
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params}).encode(), \
            "initialize", None
    if kind == "notify":
        return json.dumps({"jsonrpc": "2.0", "method": draw(st.text(max_size=30)), "params": meta}).encode(), None, None
    if kind == "batch":
        return json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}] * draw(st.integers(0, 3))).encode(), \
            "tools/list", None
    if kind == "garbage":
        return draw(st.binary(max_size=400)), None, None
    if kind == "deep":
        depth = draw(st.integers(10, 200_000))
        return (b"[" * depth + b"]" * depth)[: 2_000_000], None, None
    if kind == "huge":
        return b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * draw(
            st.integers(900_000, 1_200_000)) + b'"}}', "ping", None
    if kind == "odd-text":
        text = draw(_ODD_TEXT)
        name, _ = draw(st.sampled_from(server.tools[slug]))
        raw = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"' + name
               + '","arguments":{"query":"' + text + '","title":"' + text + '"}}}')
        return raw.encode("utf-8", "surrogatepass"), "tools/call", name
    if kind == "many-keys":  # a megabyte of argument names (issue 27: no suggestion work on them)
        name, _ = draw(st.sampled_from(server.tools[slug]))
        width = draw(st.sampled_from([8, 100, 5_000]))
        keys = {f"{i:0{width}d}": i for i in range(draw(st.sampled_from([65, 2_000, 150])))}
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                           "params": {**meta, "name": name, "arguments": keys}}).encode(), "tools/call", name
    if kind == "wrong-id":
        return json.dumps({"jsonrpc": "2.0", "id": draw(_JSON), "method": "tools/list"}).encode(), "tools/list", None
    if kind == "huge-name":  # a tool or method name of 900 KB, echoed back (issue 42: capped in answers and spans)
        name = "x" * 900_000
        method = draw(st.sampled_from(["tools/call", name]))
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                           "params": {**meta, "name": name, "arguments": {}}}).encode(), None, None
    return json.dumps(draw(_JSON)).encode(), None, None


# Hypothesis leans to small integers and first elements: the usual case goes first, the odd one is rare.
def _rarely(one_in: int) -> st.SearchStrategy[bool]:
    return st.sampled_from([False] * (one_in - 1) + [True])


_HEADER_VALUE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=60)


@st.composite
def hostile_request(draw: st.DrawFn, server: FuzzServer) -> Request:
    slug = draw(st.sampled_from(server.slugs))
    target = draw(st.sampled_from(["mcp"] * 16 + ["health", "status", "site", "long", "metrics", "off-site"]))
    if target == "health":
        path = "/health" + draw(st.sampled_from(["", "?x=1", "/"]))
    elif target == "status":
        path = "/status"
    elif target == "metrics":
        path = "/metrics"
    elif target == "off-site":  # a directory's redirect, written to read as another host (issue 42)
        path = "/" + draw(st.sampled_from(["%09/evil.example/../..", "%0a/evil.example:8080/../..",
                                           "%09/user@evil.example/../../en", ".%0d/evil.example/../.."]))
    elif target == "site":
        path = "/" + draw(st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="?#%"),
                                  max_size=300))
    elif target == "long":
        path = "/" + "/".join("x" * draw(st.integers(1, 400)) for _ in range(draw(st.integers(1, 5))))
    else:
        path = f"/{slug}/mcp"
    if draw(_rarely(25)):  # the absolute form, naming this server or another one (issue 27)
        path = draw(st.sampled_from([f"http://127.0.0.1:{server.port}", "http://intranet.example",
                                     "https://127.0.0.1:1"])) + path
    modern = draw(st.booleans())
    body, method_header, name_header = draw(rpc_body(server, slug, modern)) if target == "mcp" else (b"", None, None)
    headers: list[tuple[str, str | bytes]] = [("Host", draw(st.sampled_from([f"127.0.0.1:{server.port}"] * 40 + [
        "localhost:evil.example", "evil.example", "", f"localhost:{server.port}", "[::1]:1"])))]
    if draw(_rarely(40)):
        headers.append(("Host", "evil.example"))  # a second Host
    headers.append(("Content-Type", draw(st.sampled_from(["application/json"] * 30 + [
        "application/json; charset=utf-8", "text/plain", "application/jsonx", ""]))))
    headers.append(("Accept", draw(st.sampled_from(["application/json, text/event-stream"] * 30 + [
        "*/*", "text/html", "", "application/json"]))))
    if modern:
        headers.append(("MCP-Protocol-Version", draw(st.sampled_from([MODERN] * 20 + ["2099-01-01", "x"]))))
        if method_header is not None and not draw(_rarely(20)):
            headers.append(("Mcp-Method", method_header))
        if name_header is not None and not draw(_rarely(20)):
            headers.append(("Mcp-Name", name_header))
    elif draw(st.booleans()):
        headers.append(("MCP-Protocol-Version", draw(st.sampled_from(LEGACY_VERSIONS))))
    if not modern and server.sessions and not draw(_rarely(10)):
        headers.append(("Mcp-Session-Id", server.sessions[slug]))
    elif draw(_rarely(5)):
        headers.append(("Mcp-Session-Id", draw(_HEADER_VALUE)))
    if draw(_rarely(6)):
        headers.append(("Origin", draw(st.sampled_from(["http://127.0.0.1:1", "https://evil.example", "null", ""]))))
        if draw(st.booleans()):
            headers.append(("Origin", "https://evil.example"))
    if draw(_rarely(6)):
        encoding = draw(st.sampled_from(["gzip", "deflate", "br", "identity", "x-bomb", "gzip, gzip"]))
        headers.append(("Content-Encoding", encoding))
        if encoding == "gzip" and draw(st.booleans()):
            import gzip

            body = gzip.compress(body)
    if draw(_rarely(15)):  # framing a proxy in front might read otherwise (issue 27)
        headers.append(("Transfer-Encoding", draw(st.sampled_from(["gzip, chunked", "chunked, chunked", "identity",
                                                                   "chunked", "x-custom", "gzip"]))))
    if draw(_rarely(10)):  # client addresses as a proxy in front would pass them, well-formed or not
        headers.append(("X-Forwarded-For", draw(st.sampled_from([
            "203.0.113.7", "2001:db8::1", "::ffff:198.51.100.4", "fe80::1%eth0", "203.0.113.7, 10.0.0.1",
            ", , ,", "999.1.1.1", "x" * 500, "127.0.0.1, " * 100]))))
    if draw(_rarely(10)):  # a flood rotating through the /64s of one /48 (issue 42)
        headers.append(("X-Forwarded-For", f"2001:db8:1:{draw(st.integers(0, 0xFFFF)):x}::1"))
    if draw(_rarely(10)):  # Unicode line ends in what the log writes (issue 42)
        end = draw(st.sampled_from(["\u2028", "\u2029", "\x85", "\u000b"]))
        headers.append((draw(st.sampled_from(["User-Agent", "Referer"])), f"x{end}FORGED".encode()))
    for _ in range(draw(st.integers(0, 2))):
        headers.append((draw(st.sampled_from(["X-Forwarded-For", "Mcp-Param-Query", "X-Odd", "Cookie"])),
                        draw(_HEADER_VALUE)))
    method = "POST" if target == "mcp" and not draw(_rarely(30)) else draw(
        st.sampled_from(["GET", "DELETE", "PUT", "OPTIONS", "HEAD", "PATCH"]))
    return Request(method, path, tuple(headers), body)
