"""Discovery over the real server: a browser opening an MCP address, server cards, the MCP Catalog and
serverInfo. The site's server.json files are compared with these in tests/test_agreement.py."""

from __future__ import annotations

import aiohttp
import pytest

from proxy import __version__
from proxy.catalog.discovery import SERVER_CARD_MEDIA_TYPE, short_description
from proxy.web.discovery_routes import _prefers_english
from tests.conftest import LiveServer, client

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
MCP_POST = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}}


async def test_a_browser_opening_an_address_is_sent_to_its_connection_page(server: LiveServer) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.get(server.url("wetten"), headers=BROWSER, allow_redirects=False) as resp:
            assert resp.status == 303
            assert resp.headers["Location"] == "/connectoren/wetten.html"
        english = {**BROWSER, "Accept-Language": "en-GB,en;q=0.9,nl;q=0.5"}
        async with http.get(server.url("wetten"), headers=english, allow_redirects=False) as resp:
            assert resp.headers["Location"] == "/en/connectoren/wetten.html"
        # Not an enabled address: no redirect to a page that does not exist.
        async with http.get(f"{server.base}/nietbestaand/mcp", headers=BROWSER, allow_redirects=False) as resp:
            assert resp.status == 404


async def test_mcp_requests_on_the_same_address_behave_as_before(server: LiveServer) -> None:
    async with aiohttp.ClientSession() as http:
        # A GET with the MCP headers (the legacy event stream) goes to the transport, never to a page.
        sse = {"Accept": "text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
        async with http.get(server.url("wetten"), headers=sse, allow_redirects=False) as resp:
            assert resp.status != 303 and "Location" not in resp.headers
        # A GET asking for HTML but carrying an MCP header is an MCP client, not a person.
        async with http.get(server.url("wetten"), headers={**BROWSER, "MCP-Protocol-Version": "2025-11-25"},
                            allow_redirects=False) as resp:
            assert resp.status != 303 and "Location" not in resp.headers
        async with http.post(server.url("wetten"), headers=MCP_POST, json=INITIALIZE) as resp:
            assert resp.status == 200 and "Mcp-Session-Id" in resp.headers
    async with client(server.url("wetten"), "legacy") as c:
        assert (await c.list_tools()).tools


async def test_server_info_names_the_site_a_description_and_an_icon(server: LiveServer) -> None:
    async with aiohttp.ClientSession() as http, http.post(server.url("wetten"), headers=MCP_POST,
                                                          json=INITIALIZE) as resp:
        info = (await resp.json())["result"]["serverInfo"]
    public = server.runtime.generation.catalog.registry.server
    assert info["websiteUrl"] == public.public_url + "/"
    assert info["description"] == public.tagline.nl
    assert info["icons"] == [{"src": public.public_url + "/assets/favicon.svg", "mimeType": "image/svg+xml",
                              "sizes": ["any"]}]


async def test_server_cards_and_the_catalog_name_exactly_the_enabled_addresses(server: LiveServer) -> None:
    catalog = server.runtime.generation.catalog
    public = catalog.registry.server.public_url
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{server.base}/.well-known/mcp/catalog.json") as resp:
            assert resp.status == 200 and resp.headers["Access-Control-Allow-Origin"] == "*"
            entries = (await resp.json())["entries"]
        assert [e["url"] for e in entries] == [f"{public}/{slug}/mcp/server-card" for slug in catalog.connectors]
        for slug, c in catalog.connectors.items():
            async with http.get(f"{server.base}/{slug}/mcp/server-card") as resp:
                assert resp.status == 200
                assert resp.headers["Content-Type"] == f"{SERVER_CARD_MEDIA_TYPE}; charset=utf-8"
                assert "max-age" in resp.headers["Cache-Control"]
                card = await resp.json()
            assert card["name"] == f"{catalog.registry.server.namespace}/{slug}"
            # One identifier scheme: the catalog entry is `urn:mcp:server:` + the card's name (and server.json's).
            assert next(e for e in entries if e["url"].endswith(f"/{slug}/mcp/server-card"))["identifier"] == \
                f"urn:mcp:server:{card['name']}"
            assert card["version"] == __version__
            assert card["remotes"] == [{"type": "streamable-http", "url": f"{public}/{slug}/mcp"}]
            assert card["websiteUrl"] == f"{public}/connectoren/{slug}.html"
            assert len(card["description"]) <= 100 and card["title"] == c.connector.title.nl
        async with http.get(f"{server.base}/nietbestaand/mcp/server-card") as resp:
            assert resp.status == 404


@pytest.mark.parametrize(("header", "english"), [
    ("", False), ("en", True), ("nl-NL,nl;q=0.9,en;q=0.8", False), ("en-US,en;q=0.9", True),
    ("de,en;q=0.5,nl;q=0.4", True), ("nl;q=0.2,en;q=0.8", True), ("en;q=0.5,nl;q=0.5", True), ("fr", False),
])
def test_language_of_the_redirect(header: str, english: bool) -> None:
    assert _prefers_english(header) is english


def test_short_descriptions_fit_the_official_registry() -> None:
    long = "woord " * 40
    cut = short_description(long)
    assert len(cut) <= 100 and cut.endswith("…") and not cut.endswith(" …")
    assert short_description("kort en goed") == "kort en goed"


async def test_security_txt_names_the_fault_contact_and_expires_within_a_year(server: LiveServer) -> None:
    from datetime import UTC, datetime, timedelta

    from proxy.registry.model import load_registry

    settings = load_registry(server.registry_path).server
    async with aiohttp.ClientSession() as http, http.get(f"{server.base}/.well-known/security.txt") as resp:
        assert resp.status == 200 and resp.content_type == "text/plain"
        text = await resp.text()
    fields = [line.split(": ", 1) for line in text.strip().splitlines()]
    assert ["Contact", f"mailto:{settings.fault_contact.email}"] in fields
    expires = datetime.fromisoformat(dict(fields)["Expires"].replace("Z", "+00:00"))
    assert datetime.now(UTC) < expires < datetime.now(UTC) + timedelta(days=365)  # RFC 9116: under a year
    assert dict(fields)["Canonical"] == settings.public_url.rstrip("/") + "/.well-known/security.txt"
