"""CORS for a separately hosted site: only origins on the registry's `cors_origins` allow-list.

Served from the proxy itself the site is same-origin and needs none of this.
"""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

__all__ = ["cors_middleware"]

_ALLOW_HEADERS = ", ".join([
    "Content-Type", "Accept", "MCP-Protocol-Version", "Mcp-Session-Id", "Mcp-Method", "Mcp-Name", "Last-Event-ID",
])
_EXPOSE_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version"


def cors_middleware(allowed: Callable[[], tuple[str, ...]]) -> Middleware:
    """Answer preflights and label responses for allowed origins; `allowed` is read per request (reloads)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if origin is None or origin not in allowed() or not _is_api(request.path):
            return await handler(request)
        headers = {"Access-Control-Allow-Origin": origin, "Vary": "Origin",
                   "Access-Control-Expose-Headers": _EXPOSE_HEADERS}
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            return web.Response(status=204, headers={
                **headers,
                "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
                "Access-Control-Allow-Headers": _ALLOW_HEADERS,
                "Access-Control-Max-Age": "600",
            })
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            exc.headers.update(headers)
            raise
        response.headers.update(headers)
        return response

    return middleware


def _is_api(path: str) -> bool:
    return path.endswith("/mcp") or path in ("/status", "/health")
