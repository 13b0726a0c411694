"""HTTP framing held strictly, and responses written within a deadline.

aiohttp's parser accepts `Transfer-Encoding: gzip, chunked` and reads the body as chunked, ignoring the
coding it does not implement: a request the client and any proxy in front may frame differently (the root
of request smuggling). It also takes an absolute-form target (`GET http://other.example/ HTTP/1.1`) and
answers as if it were that host. Both are refused here, before any handler. And a client that stops
reading keeps its response, its buffers and its connection forever: every response must be written
within `write_seconds`, or the connection is dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

__all__ = ["WRITE_SECONDS", "held_framing"]

WRITE_SECONDS = 30.0
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def held_framing(write_seconds: float = WRITE_SECONDS) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The middleware that refuses loosely framed requests and gives each finished response `write_seconds` to
    reach its reader (one middleware, not two: every request passes it).

    aiohttp writes a finished response (sendfile for the site's files) in the handler's task once the handler
    returns, so a timer that ends with that task drops the connection of a reader slower than that. A stream the
    handler writes itself (already prepared) is held to the same deadline per event, in the transport."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        refusal = _framing_refusal(request)
        response = await handler(request) if refusal is None else web.Response(status=400, text=refusal)
        task, transport = asyncio.current_task(), request.transport
        if response.prepared or task is None or transport is None or _written_at_once(response, transport):
            return response
        timer = asyncio.get_running_loop().call_later(write_seconds, _too_slow, task, transport)
        task.add_done_callback(partial(_written, timer))  # written (or failed) in time
        return response

    return middleware


def _written_at_once(response: web.StreamResponse, transport: asyncio.Transport) -> bool:
    """Whether aiohttp will write `response` without waiting on its reader: a body of a few KB into a connection
    with nothing left to send. aiohttp waits only once the transport's buffer passes its high-water mark (64 KiB),
    so such a response's task ends at once, and a timer for it would be set and cancelled for nothing (an MCP
    answer is one; its timer was about 2 % of a cached call's instructions)."""
    if not isinstance(response, web.Response):
        return False  # a file (sendfile) or a stream: written while the reader takes it
    body = response.body
    return isinstance(body, bytes) and len(body) <= _AT_ONCE_BYTES and transport.get_write_buffer_size() == 0


_AT_ONCE_BYTES = 16 * 1024  # well under any transport's high-water mark, headers included


def _framing_refusal(request: web.Request) -> str | None:
    codings = request.headers.getall("Transfer-Encoding", ())
    if codings and [c.strip().lower() for c in ",".join(codings).split(",")] != ["chunked"]:
        return "Bad Request: the only transfer coding accepted is chunked, alone"
    if not request.raw_path.startswith("/"):
        target = urlsplit(request.raw_path)
        given = request.headers.get("Host", "")
        if not target.netloc or target.netloc.lower() != given.lower():
            return "Bad Request: an absolute-form target names another host than Host; this server is not a proxy"
    return None


def _too_slow(task: asyncio.Task[Any], transport: asyncio.Transport) -> None:
    # The task first: a sendfile waiting on the socket unwinds (its watch on the socket removed), and only then
    # the connection goes, with its buffers; the other way round the loop kept watching a closed socket's number,
    # which the next connection may get.
    task.cancel()
    asyncio.get_running_loop().call_soon(transport.abort)


def _written(timer: asyncio.TimerHandle, _: object) -> None:
    timer.cancel()
