"""Every address's tools/list, as the SDK client receives it in both eras, against the rules each major
client applies (proxy.catalog.assistants: each rule with its source). A failure names the client, the
address, the tool and the rule."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import mcp_types as types
import pytest
from mcp import Client

from proxy.catalog.assistants import RULES, Listing, Rule, breaches
from proxy.catalog.generation import load_generation
from proxy.results.external import unfence
from tests.conftest import MODES, LiveServer, client

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_generation(ROOT / "registry.json").catalog
MODERN = "2026-07-28"
CLIENTS = sorted({rule.client for rule in RULES if rule.check is not None})


def test_every_source_says_the_words_people_find_it_by() -> None:
    """The found-by-words rule reads each plug-in's About.search_words; none may be empty (or the rule says nothing)."""
    assert all(nl and en for nl, en in (p.about.search_words for p in CATALOG.plugins.values()))


def _platforms(slug: str) -> dict[str, str | None]:
    return {t.name: t.platform for t in CATALOG.connectors[slug].tools}


def _wire(result: types.ListToolsResult) -> dict[str, Any]:
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


async def _listings(server: LiveServer) -> AsyncIterator[Listing]:
    for slug in CATALOG.connectors:
        for mode in MODES:
            async with client(server.url(slug), mode) as c:
                listed = await c.list_tools()
            yield Listing(address=slug, era=mode, result=_wire(listed), platforms=_platforms(slug),
                          search_words={key: plugin.about.search_words for key, plugin in CATALOG.plugins.items()})


def _report(rule: Rule, listing: Listing) -> list[str]:
    return [f"{rule.client} | {listing.address} ({listing.era}) | {b.tool or '(the list)'} | {rule.key}: {b.detail}"
            for b in breaches(rule, listing)]


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_every_address_passes_the_clients_rules(server: LiveServer, client_name: str) -> None:
    rules = [rule for rule in RULES if rule.client == client_name and rule.check is not None]
    failures = [line async for listing in _listings(server) for rule in rules for line in _report(rule, listing)]
    assert not failures, f"{len(failures)} breaches:\n" + "\n".join(failures[:40])


async def test_the_list_is_the_same_for_every_client_and_every_listing(server: LiveServer) -> None:
    """MCP 2026-07-28 `deterministic`: the order is stable, and what one client is told, another is too."""
    for slug in CATALOG.connectors:
        names: dict[str, list[str]] = {}
        for mode in MODES:
            seen = []
            for who in ("assistant-a", "assistant-b"):
                info = types.Implementation(name=who, version="1")
                async with Client(server.url(slug), mode=mode, client_info=info) as c:
                    seen.append(_wire(await c.list_tools())["tools"])
            assert seen[0] == seen[1], f"{slug} ({mode}): two clients were listed different tools"
            names[mode] = [tool["name"] for tool in seen[0]]
        assert names["legacy"] == names[MODERN], f"{slug}: the two eras list the tools in another order"


def _results_json(result: types.CallToolResult) -> Any:
    """The JSON a text-only client reads: the one text item, inside its external-data fence."""
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent)
    return json.loads(unfence(result.content[0].text))


@pytest.mark.parametrize("mode", MODES)
async def test_chatgpt_cites_every_search_result_and_fetched_document(server: LiveServer, mode: str) -> None:
    """ChatGPT deep research `non-empty-url`: a citation only where `url` is a non-empty string."""
    async with client(server.url("allebronnen"), mode) as c:
        found = await c.call_tool("search", {"query": "begroting"})
        assert not found.is_error and found.structured_content is not None
        results = found.structured_content["results"]
        assert _results_json(found)["results"] == results
        sources = {hit["id"].split(":", 1)[0]: hit for hit in results}
        assert len(sources) >= 3, f"allebronnen: search found only {sorted(sources)}"
        uncited = [hit["id"] for hit in results if not (isinstance(hit.get("url"), str) and hit["url"])]
        assert not uncited, f"ChatGPT deep research | allebronnen ({mode}) | search | non-empty-url: {uncited}"
        for source, hit in sources.items():
            document = await c.call_tool("fetch", {"id": hit["id"]})
            data = document.structured_content
            assert not document.is_error and data is not None, f"{source}: fetch({hit['id']}) refused"
            assert isinstance(data.get("url"), str) and data["url"], \
                f"ChatGPT deep research | allebronnen ({mode}) | fetch | non-empty-url: {hit['id']}"


async def test_chatgpt_cites_what_every_source_address_finds(server: LiveServer) -> None:
    for slug in CATALOG.connectors:
        async with client(server.url(slug), "legacy") as c:
            found = await c.call_tool("search", {"query": "begroting"})
        if found.is_error:  # a source without free text says so (rechtspraak); nothing to cite
            continue
        assert found.structured_content is not None
        uncited = [hit["id"] for hit in found.structured_content["results"] if not hit.get("url")]
        assert not uncited, f"ChatGPT deep research | {slug} | search | non-empty-url: {uncited}"


async def _post(http: aiohttp.ClientSession, url: str, headers: dict[str, str],
                body: dict[str, Any]) -> tuple[int, Any]:
    async with http.post(url, headers=headers, json=body) as response:
        return response.status, await response.json()


def _modern(method: str, version: str = MODERN, **headers: str) -> tuple[dict[str, str], dict[str, Any]]:
    sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
            "MCP-Protocol-Version": version, "Mcp-Method": method, **headers}
    meta = {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "profile-test", "version": "1"}}
    return sent, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}


async def test_a_version_mismatch_and_a_header_mismatch_have_their_own_codes(server: LiveServer) -> None:
    """MCP 2026-07-28 `error-codes`, on every address."""
    async with aiohttp.ClientSession() as http:
        for slug in CATALOG.connectors:
            url = server.url(slug)
            status, body = await _post(http, url, *_modern("tools/list", version="2099-01-01"))
            assert (status, body["error"]["code"]) == (400, types.UNSUPPORTED_PROTOCOL_VERSION), f"{slug}: {body}"
            assert MODERN in str(body["error"].get("data")), f"{slug}: the refusal names no supported version"
            status, body = await _post(http, url, *_modern("tools/call"))  # the header says another method
            assert (status, body["error"]["code"]) == (400, types.HEADER_MISMATCH), f"{slug}: {body}"


def test_every_rule_names_its_sources() -> None:
    from proxy.catalog import assistants as client_profiles
    for rule in RULES:
        assert rule.sources, rule.key
        for source in rule.sources:
            assert f"[{source}]" in (client_profiles.__doc__ or ""), f"{rule.key}: source {source} is not described"
