"""What a browser or a discovery client gets from the server, besides MCP itself.

* A browser that opens an MCP address (a GET that asks for `text/html` and carries no MCP
  header) is sent to that connector's connection page, in the language it prefers. An MCP client
  never asks for HTML there, so the transport sees every one of its requests as before.
* `GET /<slug>/mcp/server-card` (SEP-2127's reserved location) and `GET /.well-known/mcp/catalog.json`
  answer the discovery documents of `proxy.catalog.discovery`, with the CORS and caching headers the
  proposal asks for; `GET /.well-known/security.txt` says where to report a vulnerability.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from proxy.catalog.build import Catalog
from proxy.catalog.discovery import (
    CATALOG_PATH,
    SERVER_CARD_MEDIA_TYPE,
    connection_page_path,
    mcp_catalog,
    server_card,
)
from proxy.web.securitytxt import SECURITY_TXT_PATH, security_txt

__all__ = ["add_discovery_routes", "browser_redirect", "served_elsewhere", "wants_html"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_DISCOVERY_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET",
    "Access-Control-Allow-Headers": "Content-Type",
    "Cache-Control": "public, max-age=3600",
}
# Headers only an MCP client sends; any of them means "this is not a person with a browser".
_MCP_HEADERS = ("Mcp-Session-Id", "MCP-Protocol-Version", "Mcp-Method", "Last-Event-ID")


def wants_html(request: web.Request) -> bool:
    """A plain browser navigation: GET, HTML acceptable, no event stream asked for, no MCP header."""
    if request.method != "GET" or any(h in request.headers for h in _MCP_HEADERS):
        return False
    accept = request.headers.get("Accept", "").lower()
    return "text/html" in accept and "text/event-stream" not in accept


def browser_redirect(mcp: Handler, catalog: Callable[[], Catalog]) -> Handler:
    """Wrap the MCP handler: a browser opening an enabled address goes to its connection page."""

    async def handle(request: web.Request) -> web.StreamResponse:
        slug = request.match_info.get("slug", "")
        if wants_html(request) and slug in catalog().connectors:
            prefix = "en/" if _prefers_english(request.headers.get("Accept-Language", "")) else ""
            # Relative to this host, so it also works when the server is reached on another address.
            raise web.HTTPSeeOther(f"/{prefix}{connection_page_path(slug)}", headers={"Vary": "Accept"})
        return await mcp(request)

    return handle


def add_discovery_routes(app: web.Application, catalog: Callable[[], Catalog]) -> None:
    """The server cards and the domain's MCP Catalog, generated from the current catalog."""

    async def card(request: web.Request) -> web.Response:
        slug = request.match_info["slug"]
        current = catalog()
        if slug not in current.connectors:
            raise web.HTTPNotFound()
        return _json(server_card(current, slug), SERVER_CARD_MEDIA_TYPE)

    async def catalog_document(request: web.Request) -> web.Response:
        return _json(mcp_catalog(catalog()), "application/json")

    async def security(request: web.Request) -> web.Response:
        return web.Response(text=security_txt(catalog().registry.server), content_type="text/plain",
                            charset="utf-8", headers={"Cache-Control": "public, max-age=86400"})

    app.router.add_get("/{slug}/mcp/server-card", card)
    app.router.add_get(CATALOG_PATH, catalog_document)
    app.router.add_get(SECURITY_TXT_PATH, security)


def _json(doc: dict[str, Any], media_type: str) -> web.Response:
    return web.Response(body=json.dumps(doc, ensure_ascii=False, indent=2).encode(), content_type=media_type,
                        charset="utf-8", headers=_DISCOVERY_HEADERS)


def _prefers_english(accept_language: str) -> bool:
    """True when English comes before Dutch in Accept-Language (order and q-values), Dutch otherwise."""
    best: dict[str, float] = {}
    for i, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        lang = tag.strip().lower().split("-")[0]
        if lang in ("nl", "en") and lang not in best:
            best[lang] = q - i * 1e-6  # equal q: the first named wins
    return best.get("en", -1.0) > best.get("nl", -1.0)


def served_elsewhere(public_url: str, served_host: str) -> str | None:
    """A warning when this server is reached at another host:port than the registry's public_url names.

    Only the host and port are compared: behind a TLS-terminating proxy the scheme differs by design."""
    public_host = (urlsplit(public_url).netloc or "").lower()
    if served_host.lower() == public_host:
        return None
    return (f"this server answers at {served_host}, but server.public_url in the registry is {public_url}: the site, "
            "llms.txt, the sitemap and every server.json name that address. Set public_url to the address people use.")
