"""Discovery documents, generated from the one catalog. Pure: no aiohttp, no mkdocs.

* `server_json`: one connector in the official MCP registry's `server.json` format (schema
  2025-12-11: reverse-DNS `name`, `description` of at most 100 characters, `remotes` of type
  `streamable-http`). The site publishes one per connector next to its connection page.
* `server_card`: the same connector as an MCP Server Card (SEP-2127, draft; the
  experimental-ext-server-card repository): the server.json fields without `packages`, served at
  the reserved `<streamable-http-url>/server-card` with media type `application/mcp-server-card+json`.
* `mcp_catalog`: the domain's MCP Catalog (`/.well-known/mcp/catalog.json`), one entry per
  enabled connector pointing at its server card.

All of them name addresses, so the site/server agreement test reads them too.
"""

from __future__ import annotations

from typing import Any

from proxy import __version__
from proxy.catalog.build import Catalog, CatalogConnector

__all__ = [
    "CATALOG_PATH",
    "SERVER_CARD_MEDIA_TYPE",
    "SERVER_CARD_SCHEMA",
    "SERVER_JSON_SCHEMA",
    "connection_page_path",
    "icons",
    "mcp_catalog",
    "server_card",
    "server_card_path",
    "server_json",
    "server_json_path",
    "short_description",
]

SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json"
SERVER_CARD_MEDIA_TYPE = "application/mcp-server-card+json"
CATALOG_PATH = "/.well-known/mcp/catalog.json"
FAVICON_PATH = "assets/favicon.svg"
DESCRIPTION_MAX = 100  # the official registry refuses longer descriptions
# serverInfo, server.json and the server card speak Dutch, like the tool titles and descriptions.
LANG = "nl"


def connection_page_path(slug: str) -> str:
    """Where the site puts a connector's connection page (site_hooks.site_data.CONNECTOR_DIR)."""
    return f"connectoren/{slug}.html"


def server_json_path(slug: str) -> str:
    return f"connectoren/{slug}.server.json"


def server_card_path(slug: str) -> str:
    return f"/{slug}/mcp/server-card"


def short_description(text: str, limit: int = DESCRIPTION_MAX) -> str:
    """`text` on one line, cut at a word boundary with an ellipsis when longer than `limit`."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def icons(base: str) -> list[dict[str, Any]]:
    """The site's favicon, as serverInfo, server.json and the server card list icons."""
    return [{"src": f"{base.rstrip('/')}/{FAVICON_PATH}", "mimeType": "image/svg+xml", "sizes": ["any"]}]


def server_json(catalog: Catalog, slug: str, *, base: str | None = None) -> dict[str, Any]:
    """One enabled connector as the official MCP registry's server.json."""
    c = catalog.connectors[slug]
    return {"$schema": SERVER_JSON_SCHEMA, **_identity(catalog, c, base)}


def server_card(catalog: Catalog, slug: str, *, base: str | None = None) -> dict[str, Any]:
    """One enabled connector as an MCP Server Card (SEP-2127 draft)."""
    c = catalog.connectors[slug]
    return {"$schema": SERVER_CARD_SCHEMA, **_identity(catalog, c, base)}


def mcp_catalog(catalog: Catalog, *, base: str | None = None) -> dict[str, Any]:
    """The MCP Catalog: one entry per enabled connector, each pointing at its server card."""
    origin = _base(catalog, base)
    return {
        "specVersion": "draft",
        "entries": [
            {
                # The MCP Catalog draft (experimental-ext-server-card docs/discovery.md): `urn:mcp:server:` and then
                # exactly the server card's name, so catalog, card and server.json share one identifier.
                "identifier": f"urn:mcp:server:{catalog.registry.server.namespace}/{c.slug}",
                "displayName": c.connector.title[LANG],
                "type": SERVER_CARD_MEDIA_TYPE,
                "url": origin + server_card_path(c.slug),
            }
            for c in catalog.connectors.values()
        ],
    }


def _base(catalog: Catalog, base: str | None) -> str:
    return (base or catalog.registry.server.public_url).rstrip("/")


def _identity(catalog: Catalog, c: CatalogConnector, base: str | None) -> dict[str, Any]:
    server = catalog.registry.server
    origin = _base(catalog, base)
    return {
        "name": f"{server.namespace}/{c.slug}",
        "title": c.connector.title[LANG],
        "description": short_description(c.connector.description[LANG]),
        "version": __version__,
        "websiteUrl": f"{origin}/{connection_page_path(c.slug)}",
        "icons": icons(origin),
        "remotes": [{"type": "streamable-http", "url": catalog.url(c.slug, origin)}],
        "_meta": {
            "io.modelcontextprotocol.registry/publisher-provided": {
                "contact": {"name": server.fault_contact.name[LANG], "email": server.fault_contact.email,
                            **({"url": server.fault_contact.url} if server.fault_contact.url else {})},
                "readOnly": True,
                "tools": len(c.tools),
            },
        },
    }
