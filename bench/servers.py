"""The servers the benchmarks compare, one role per subprocess (started by `bench._harness.Child`).

    python bench/servers.py ROLE --port N [--core C] [role options]

  replicas     the offline platform replicas (`proxy/replica/`), latency switchable over HTTP; `--ori-bucket N`
               gives Open Raadsinformatie's rate-limit bucket N units instead of the platform's 60
  besluitbron  the real application (`proxy.web.app.create_app`) pointed at `--replicas URL`; `--redis URL`
               keeps its state in that Redis instead of this process's memory. Served as `python -m proxy serve`
               serves it (`app_runner`), its log at INFO with an access line per request, into a file
  bare         the ceiling: a plain aiohttp handler that answers the very same result bytes
               BesluitBron answered (read from `--answer FILE`), with the request's id spliced in
  checked      the bare handler plus the `mcp` SDK's own checks of every request (the JSON-RPC envelope, the
               2026-07-28 envelope and header ladder, the method's params at the era's schema): what any
               server that keeps those checks spends at least, on aiohttp (the floor under the ceiling)
  relay        the floor of added latency: a plain aiohttp handler that fetches `--upstream URL` with aiohttp's
               client for each request it gets and answers that reply as the structured content of a result; the
               least any aiohttp proxy does per call
  sdk          the `mcp` SDK's own Streamable HTTP server (low-level `Server`, stateless, JSON
               responses) on uvicorn, one tool with the same schemas and the same answer
  fastmcp      FastMCP (the `fastmcp` package) on uvicorn, the same tool and answer
  echo         only the transport (bench/bench_transport.py): `proxy.web.transport` on a trivial echo
               endpoint at /echo/mcp, and a plain aiohttp handler with a canned answer at /bare/mcp

Every role prints `ready` once it listens. Every role runs on the event loop `--loop` names (uvloop, the
product's default, or asyncio; `proxy.web.eventloop`), the sdk and fastmcp roles' uvicorn too. The answer
file is JSON: `tool` (the tools/list entry BesluitBron serves), `structured` (its structuredContent) and
`results` (era → result bytes as text).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import signal
import sys
from collections.abc import AsyncIterator, Callable
from datetime import date
from pathlib import Path
from typing import Any

from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script
    sys.path.insert(0, str(ROOT))

from bench._harness import LOOPBACK, MODERN, pin  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("role", choices=("replicas", "besluitbron", "bare", "checked", "relay", "sdk", "fastmcp",
                                         "echo"))
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--core", type=int)
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    parser.add_argument("--replicas", help="besluitbron: the replicas' root URL")
    parser.add_argument("--registry", default=str(ROOT / "registry.json"))
    parser.add_argument("--answer", help="bare/checked/sdk/fastmcp: the answer file")
    parser.add_argument("--upstream", help="relay: the platform URL fetched for every request")
    parser.add_argument("--redis", help="besluitbron: the state store's Redis URL (default: this process's memory)")
    parser.add_argument("--profile", help="besluitbron: write a cProfile of the whole run here")
    parser.add_argument("--ori-bucket", type=float, help="replicas: units in ORI's rate-limit bucket (refill 1/s)")
    args = parser.parse_args()
    if args.core is not None:
        pin(args.core)
    if args.role in ("sdk", "fastmcp"):
        return _uvicorn(args.role, args.port, json.loads(Path(args.answer).read_text()), args.loop)
    from proxy.web.eventloop import run_loop

    app = {"replicas": _replicas, "besluitbron": _besluitbron, "bare": _bare, "checked": _checked,
           "relay": _relay, "echo": _echo}[args.role](args)
    runner = _as_served(app) if args.role == "besluitbron" else web.AppRunner(app, access_log=None)
    run_loop(_serve(runner, args.port, args.profile), args.loop)
    return 0


def _as_served(app: web.Application) -> web.AppRunner:
    """BesluitBron as `python -m proxy serve` serves it: its runner, and its log at INFO with one access line per
    request, written to a file (an unlinked temporary one), as a service's log goes to a file or a journal."""
    import tempfile

    from proxy.observe.accesslog import use_text_logs
    from proxy.web.app import app_runner

    use_text_logs(tempfile.TemporaryFile("w"))  # noqa: SIM115 (open as long as the process: its log)
    return app_runner(app, grace=1.0)


async def _serve(runner: web.AppRunner, port: int, profile: str | None) -> None:
    """Listen, say `ready` (only once the port accepts connections), run until SIGTERM."""
    await runner.setup()
    await web.TCPSite(runner, LOOPBACK, port).start()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    profiler = cProfile.Profile() if profile else None
    if profiler is not None:
        profiler.enable()
    print("ready", flush=True)
    await stop.wait()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    await runner.cleanup()


# ─── aiohttp roles ─────────────────────────────────────────────────────────────────────────────


def _replicas(args: argparse.Namespace) -> web.Application:
    """The replicas, plus `GET /_bench/requests`: how many requests each platform's replica got
    (`platforms`), and how often each distinct request (method, path and query) arrived (`requests`)."""
    from proxy.registry.model import load_registry
    from proxy.replica import create_replicas_app

    counts: dict[str, int] = {}
    requests: dict[str, int] = {}

    @web.middleware
    async def count(request: web.Request, handler: Any) -> web.StreamResponse:
        key = request.path.strip("/").split("/", 1)[0]
        counts[key] = counts.get(key, 0) + 1
        if not request.path.startswith("/_"):
            exact = f"{request.method} {request.path_qs}"
            requests[exact] = requests.get(exact, 0) + 1
        return await handler(request)

    async def report(_: web.Request) -> web.Response:
        return web.json_response({"platforms": counts, "requests": requests})

    app = create_replicas_app(list(load_registry(Path(args.registry)).platforms), anchor=date.today())
    if args.ori_bucket is not None:
        _ori_rate(app).reset(capacity=args.ori_bucket)
    app.middlewares.append(count)
    app.router.add_get("/_bench/requests", report)
    return app


def _ori_rate(app: web.Application) -> Any:
    """The Open Raadsinformatie replica's token bucket, found through the sub-application mounted at /ori."""
    from proxy.replica.ori import RATE

    for resource in app.router.resources():
        info = resource.get_info()
        if info.get("prefix") == "/ori":
            return info["app"][RATE]
    raise RuntimeError("the replicas serve no Open Raadsinformatie at /ori")


def _besluitbron(args: argparse.Namespace) -> web.Application:
    from proxy.registry.model import load_registry
    from proxy.replica import replica_base_urls
    from proxy.web.app import Config, create_app

    registry = load_registry(Path(args.registry))
    base_urls = replica_base_urls({k: p.base_url for k, p in registry.platforms.items()}, args.replicas)
    return create_app(Config(registry_path=Path(args.registry), base_urls=base_urls, measure_load=False,
                             redis_url=args.redis))


def _bare(args: argparse.Namespace) -> web.Application:
    """The ceiling: read the body, find the id, answer the stored bytes. No MCP checks at all."""
    return _answering(args, lambda message, headers, version: None)


def _checked(args: argparse.Namespace) -> web.Application:
    """The bare handler plus the SDK's own checks of every request, as `proxy.web.transport` runs them: the
    envelope (`JSONRPCRequest`), on 2026-07-28 the routing headers and the `_meta` ladder
    (`mcp.shared.inbound`), and the method's params against the era's schema (`validate_client_request`).
    No host check, session, cache, call record or result work: only what the protocol asks of everyone."""
    import mcp_types as types
    from mcp.shared.inbound import (
        MCP_METHOD_HEADER,
        MCP_NAME_HEADER,
        MCP_PROTOCOL_VERSION_HEADER,
        InboundLadderRejection,
        classify_inbound_request,
        find_duplicated_routing_header,
    )
    from mcp_types import methods

    routing_headers = (MCP_PROTOCOL_VERSION_HEADER, MCP_METHOD_HEADER, MCP_NAME_HEADER)

    def check(message: Any, headers: Any, version: str) -> None:
        rpc = types.JSONRPCRequest.model_validate(message)
        if version == MODERN:
            if find_duplicated_routing_header(headers.items()) is not None:
                raise web.HTTPBadRequest(text="routing header twice")
            routing = {name: value for name in routing_headers if (value := headers.get(name)) is not None}
            verdict = classify_inbound_request(message, headers=routing)
            if isinstance(verdict, InboundLadderRejection):
                raise web.HTTPBadRequest(text=verdict.message)
        methods.validate_client_request(rpc.method, version, rpc.params)

    return _answering(args, check)


def _answering(args: argparse.Namespace, check: Callable[[Any, Any, str], None]) -> web.Application:
    """A handler that reads the body, runs `check` (message, headers, protocol version) and answers the stored
    bytes of the era with the request's id spliced in."""
    results = {era: text.encode() for era, text in json.loads(Path(args.answer).read_text())["results"].items()}

    async def handle(request: web.Request) -> web.Response:
        message = json.loads(await request.read())
        version = request.headers.get("MCP-Protocol-Version", "")
        check(message, request.headers, version)
        era = "modern" if version == MODERN else "legacy"
        body = b'{"jsonrpc":"2.0","id":' + json.dumps(message["id"]).encode() + b',"result":' + results[era] + b"}"
        return web.Response(body=body, content_type="application/json")

    app = web.Application()
    app.router.add_post("/{slug}/mcp", handle)
    return app


def _relay(args: argparse.Namespace) -> web.Application:
    """The floor of added latency: one aiohttp client exchange per request (a kept-alive connection, as
    BesluitBron's), its reply spliced into a result unread. No MCP checks, no parsing of the reply."""
    import aiohttp

    upstream = args.upstream
    client = web.AppKey("client", aiohttp.ClientSession)

    async def session(app: web.Application) -> AsyncIterator[None]:
        async with aiohttp.ClientSession() as http:
            app[client] = http
            yield

    async def handle(request: web.Request) -> web.Response:
        message = json.loads(await request.read())
        async with request.app[client].get(upstream, headers={"Accept": "application/json"}) as reply:
            data = await reply.read()
        body = (b'{"jsonrpc":"2.0","id":' + json.dumps(message["id"]).encode()
                + b',"result":{"content":[],"structuredContent":' + data + b"}}")
        return web.Response(body=body, content_type="application/json")

    app = web.Application()
    app.cleanup_ctx.append(session)
    app.router.add_post("/{slug}/mcp", handle)
    return app


def _echo(args: argparse.Namespace) -> web.Application:
    """The transport alone: McpHttp on the echo endpoint, and the bare handler beside it (one process)."""
    from bench.bench_transport import echo_app

    return echo_app()


# ─── the other Python MCP servers ──────────────────────────────────────────────────────────────


def _uvicorn(role: str, port: int, answer: dict[str, Any], loop: str) -> int:
    import uvicorn

    from proxy.web.eventloop import run_loop

    app = _sdk_app(answer) if role == "sdk" else _fastmcp_app(answer)
    config = uvicorn.Config(app, host=LOOPBACK, port=port, log_level="warning", access_log=False, loop="none",
                            lifespan="on")
    server = uvicorn.Server(config)

    async def run() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                task.result()
                return
            await asyncio.sleep(0.05)
        print("ready", flush=True)
        await task

    signal.signal(signal.SIGTERM, lambda *_: setattr(server, "should_exit", True))
    run_loop(run(), loop)  # type: ignore[arg-type]  # one of the two names argparse allows
    return 0


def _sdk_app(answer: dict[str, Any]) -> Any:
    """The SDK's low-level server: list the same tool, answer the same structured content."""
    import mcp_types as types
    from mcp.server import Server, ServerRequestContext
    from mcp.server.transport_security import TransportSecuritySettings

    tool = types.Tool.model_validate(answer["tool"])
    data = answer["structured"]
    text = json.dumps(data, ensure_ascii=False)

    async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=data)

    server = Server("bench-sdk", version="0", on_list_tools=list_tools, on_call_tool=call_tool,
                    get_tool_input_schema=lambda name: tool.input_schema if name == tool.name else None)
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=[f"{LOOPBACK}:*"],
                                         allowed_origins=[f"http://{LOOPBACK}:*"])
    return server.streamable_http_app(streamable_http_path="/tweedekamer/mcp", json_response=True,
                                      stateless_http=True, transport_security=security)


def _fastmcp_app(answer: dict[str, Any]) -> Any:
    """FastMCP as one would write it: a typed function; its listing carries our exact schemas."""
    from fastmcp import FastMCP

    mcp = FastMCP("bench-fastmcp")
    tool = answer["tool"]
    data = answer["structured"]

    def search_members(name: str | None = None, party: str | None = None, current_only: bool = True,
                       limit: int = 10, offset: int = 0) -> dict[str, Any]:
        return data

    registered = mcp.tool(search_members, name=tool["name"], description=tool.get("description"),
                          output_schema=tool["outputSchema"], annotations=tool.get("annotations"))
    registered.parameters = tool["inputSchema"]
    return mcp.http_app(path="/tweedekamer/mcp", stateless_http=True, json_response=True)


if __name__ == "__main__":
    sys.exit(main())
