"""The live server through the SDK's own client: connectors, meta tools, switches, reloads."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import aiohttp
import mcp_types as types
import pytest

from proxy.core.toolnames import AGGREGATE_NAME_MAX, CROSS_TOOL_NAMES, META_TOOL_NAMES
from proxy.registry.model import load_registry
from proxy.results.external import unfence
from tests.conftest import MODES, REGISTRY, LiveServer, Replicas, client, connector_entry, serve, write_registry
from tests.conftest_mcp import data_of, text_of

SHIPPED = load_registry(REGISTRY)
SERVER_TOOLS = (*CROSS_TOOL_NAMES, *META_TOOL_NAMES)  # on every address, run by the server itself
SOURCE_SLUGS = [c.slug for c in SHIPPED.connectors if not c.aggregate]


def structured(result: types.CallToolResult) -> dict[str, Any]:
    text = text_of(result)
    assert not result.is_error, text
    assert json.loads(unfence(text) if text.startswith("<<<") else text) == result.structured_content
    return data_of(result)


@pytest.mark.parametrize("mode", MODES)
async def test_every_connector_lists_titled_read_only_tools_and_answers_meta_tools(
        server: LiveServer, mode: str) -> None:
    for connector in SHIPPED.enabled_connectors():
        async with client(server.url(connector.slug), mode) as c:
            tools = (await c.list_tools()).tools
            names = [t.name for t in tools]
            assert [n for n in names if n in SERVER_TOOLS] == list(SERVER_TOOLS)
            for tool in tools:
                assert tool.title, tool.name
                assert tool.annotations and tool.annotations.read_only_hint is True, tool.name
                assert tool.output_schema is not None, tool.name
                assert tool.input_schema["type"] == "object" and tool.output_schema["type"] == "object"
            caps = structured(await c.call_tool("list_capabilities", {}))
            assert caps["server"] == "BesluitBron" and caps["server_version"]
            assert caps["address"] == f"/{connector.slug}/mcp" and caps["tool_count"] == len(tools)
            assert [t["name"] for t in caps["tools"]] == names
            calls = structured(await c.call_tool("list_platform_calls", {}))
            assert calls["calls"] == [] and calls["total"] == 0
            status = structured(await c.call_tool("platform_status", {}))
            expected = [connector.platform] if connector.platform else [p.platform for p in SOURCE_CONNECTORS]
            assert [s["source"] for s in status["sources"]] == expected


SOURCE_CONNECTORS = [c for c in SHIPPED.connectors if not c.aggregate]


async def test_alle_bronnen_serves_every_source_tool_prefixed_once(server: LiveServer) -> None:
    async with client(server.url("allebronnen"), "2026-07-28") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    expected = {f"{SHIPPED.platforms[conn.platform].prefix}_{t.name}" for conn in SOURCE_CONNECTORS
                for t in conn.tools if conn.platform}
    assert set(tools) == expected | set(SERVER_TOOLS)
    assert len(tools) <= 40  # some clients send only the first 40 tools
    for name, tool in tools.items():
        assert re.fullmatch(r"[a-z0-9_]+", name) and len(name) <= AGGREGATE_NAME_MAX
        if name not in SERVER_TOOLS:
            platform = next(p for p in SHIPPED.platforms.values() if name.startswith(p.prefix + "_"))
            assert tool.title is not None and tool.title.startswith(f"{platform.title.nl}: ")


def _disable(*slugs: str) -> Any:
    def edit(data: dict[str, Any]) -> None:
        for c in data["connectors"]:
            if c["slug"] in slugs:
                c["enabled"] = False
    return edit


VARIANTS = {
    "one off": ("tweedekamer",),
    "two off": ("wetten", "openraadsinformatie"),
    "all sources off": tuple(SOURCE_SLUGS),
    "alle bronnen off": ("allebronnen",),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_disabled_connectors_are_absent(replicas: Replicas, tmp_path: Path, variant: str) -> None:
    off = VARIANTS[variant]
    path = write_registry(tmp_path, _disable(*off))
    enabled = [c for c in SHIPPED.connectors if c.slug not in off]
    async with serve(path, replicas) as live, aiohttp.ClientSession() as http:
        for slug in off:
            for method in ("POST", "GET", "DELETE"):
                async with http.request(method, live.url(slug), json={}) as resp:
                    assert resp.status == 404, (slug, method)
        async with http.get(f"{live.base}/health") as resp:
            health = await resp.json()
        assert health["status"] == "ok"
        assert [c["url"] for c in health["connectors"]] == [f"/{c.slug}/mcp" for c in enabled]
        if "allebronnen" in off:
            return
        async with client(live.url("allebronnen"), "legacy") as c:
            names = {t.name for t in (await c.list_tools()).tools}
            caps = structured(await c.call_tool("list_capabilities", {}))
    served = {SHIPPED.platforms[c.platform].prefix for c in enabled if c.platform}
    assert {n.split("_", 1)[0] for n in names if n not in SERVER_TOOLS} == served
    assert {s["source"] for s in caps["sources"]} == {c.platform for c in enabled if c.platform}


async def test_health_names_nothing_secret(server: LiveServer) -> None:
    async with aiohttp.ClientSession() as http, http.get(f"{server.base}/health") as resp:
        text = await resp.text()
    health = json.loads(text)
    # The test server runs on a free port, not on the registry's public_url: /health says so.
    assert set(health) == {"status", "server", "version", "state", "last_reload", "connectors", "warning"}
    text = text.replace(health["warning"], "")
    assert "redis" not in text and "replica" not in text and "127.0.0.1" not in text


async def test_health_warns_when_served_elsewhere_than_public_url(server: LiveServer) -> None:
    public = server.runtime.generation.catalog.registry.server.public_url
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{server.base}/health") as resp:
            warning = (await resp.json())["warning"]
        async with http.get(f"{server.base}/health", headers={"Host": public.split("://", 1)[1]}) as resp:
            at_public = await resp.json()
    assert public in warning and server.base.split("://", 1)[1] in warning and "public_url" in warning
    assert "warning" not in at_public


async def _reload(live: LiveServer) -> None:
    from proxy.web.app import reload_registry

    assert await reload_registry(live.app)


async def test_limit_change_on_reload_changes_report_and_enforcement(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    async with serve(path, replicas) as live, client(live.url("wetten"), "legacy") as c:
        caps = structured(await c.call_tool("list_capabilities", {}))
        assert caps["sources"][0]["limits"]["results_per_call"] == 50
        data = json.loads(path.read_text())
        data["platforms"]["wetten"]["limits"]["results_per_call"] = 2
        data["platforms"]["wetten"]["limits"]["requests_per_minute"] = 7
        path.write_text(json.dumps(data))
        await _reload(live)
        caps = structured(await c.call_tool("list_capabilities", {}))
        assert caps["sources"][0]["limits"]["results_per_call"] == 2
        assert caps["sources"][0]["limits"]["requests_per_minute"] == 7
        result = structured(await c.call_tool("search_regulations", {"title": "wet", "limit": 20}))
        assert result["precision"]["returned"] <= 2 and len(result["results"]) <= 2
        assert any("lowered" in note for note in result["precision"]["not_applied"])


async def test_broken_reload_keeps_serving_the_last_good_registry(replicas: Replicas, tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    path = write_registry(tmp_path)
    async with serve(path, replicas) as live:
        data = json.loads(path.read_text())
        connector_entry(data, "tweedekamer")["slug"] = "Tweede Kamer"
        connector_entry(data, "openraadsinformatie")["enabled"] = False
        path.write_text(json.dumps(data))
        from proxy.web.app import reload_registry

        assert not await reload_registry(live.app)
        assert "connectors[3].slug: 'Tweede Kamer' does not match" in caplog.text
        async with client(live.url("openraadsinformatie"), "2026-07-28") as c:
            assert (await c.list_tools()).tools


async def test_sighup_applies_a_new_registry(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    async with serve(path, replicas) as live, aiohttp.ClientSession() as http:
        data = json.loads(path.read_text())
        connector_entry(data, "openraadsinformatie")["enabled"] = False
        path.write_text(json.dumps(data))
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(50):
            async with http.post(live.url("openraadsinformatie"), json={}) as resp:
                if resp.status == 404:
                    break
            await asyncio.sleep(0.05)
        assert resp.status == 404
        async with http.get(f"{live.base}/health") as resp:
            assert "openraadsinformatie" not in await resp.text()


async def _until_absent(http: aiohttp.ClientSession, live: LiveServer, slug: str) -> None:
    """Wait (at most 5 s) until /health no longer names `slug`; then its address must answer 404."""
    for _ in range(100):
        await asyncio.sleep(0.05)
        async with http.get(f"{live.base}/health") as resp:
            if slug not in await resp.text():
                break
    async with http.post(live.url(slug), json={}) as resp:
        assert resp.status == 404


async def test_watch_applies_a_changed_file(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    async with serve(path, replicas, watch=True, watch_interval=0.05) as live, aiohttp.ClientSession() as http:
        data = json.loads(path.read_text())
        connector_entry(data, "rechtspraak")["enabled"] = False
        path.write_text(json.dumps(data))
        await _until_absent(http, live, "rechtspraak")


@pytest.mark.parametrize(("headers", "body", "status"), [
    ({"Host": "evil.example"}, b"{}", 421),
    ({"Origin": "https://evil.example"}, b"{}", 403),
    ({}, b"{not json", 400),
    ({}, b"[]", 400),
    ({}, b"x" * 2_000_000, 413),
])
async def test_hostile_requests_get_the_spec_status(server: LiveServer, headers: dict[str, str], body: bytes,
                                                    status: int) -> None:
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    async with aiohttp.ClientSession() as http, http.post(server.url("wetten"), data=body,
                                                           headers={**base, **headers}) as resp:
        assert resp.status == status


async def test_cors_only_for_allow_listed_origins(replicas: Replicas, tmp_path: Path) -> None:
    def allow(data: dict[str, Any]) -> None:
        data["server"]["cors_origins"] = ["https://docs.example.org"]

    path = write_registry(tmp_path, allow)
    preflight = {"Origin": "https://docs.example.org", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type, mcp-protocol-version"}
    async with serve(path, replicas) as live, aiohttp.ClientSession() as http:
        async with http.options(live.url("wetten"), headers=preflight) as resp:
            assert resp.status == 204
            assert resp.headers["Access-Control-Allow-Origin"] == "https://docs.example.org"
            assert "Mcp-Session-Id" in resp.headers["Access-Control-Allow-Headers"]
        async with http.get(f"{live.base}/status", headers={"Origin": "https://docs.example.org"}) as resp:
            assert resp.headers["Access-Control-Allow-Origin"] == "https://docs.example.org"
        async with http.get(f"{live.base}/status", headers={"Origin": "https://evil.example"}) as resp:
            assert "Access-Control-Allow-Origin" not in resp.headers
        async with http.options(live.url("wetten"), headers={**preflight, "Origin": "https://evil.example"}) as resp:
            assert "Access-Control-Allow-Origin" not in resp.headers


async def test_reload_does_not_drop_in_flight_requests(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    async with serve(path, replicas) as live:
        replicas.faults("wetten").update({"latency_ms": 800})
        try:
            # Stateless, so the client's goodbye (a DELETE) does not meet the now-absent address.
            async with client(live.url("wetten"), "2026-07-28") as c:
                await c.list_tools()  # the client validates results against the listing it holds
                call = asyncio.create_task(c.call_tool("search_regulations", {"title": "belasting", "limit": 1}))
                await asyncio.sleep(0.3)
                data = json.loads(path.read_text())
                connector_entry(data, "wetten")["enabled"] = False
                path.write_text(json.dumps(data))
                await _reload(live)
                result = await call
                assert not result.is_error, text_of(result)
        finally:
            replicas.clear_faults()
        async with aiohttp.ClientSession() as http, http.post(live.url("wetten"), json={}) as resp:
            assert resp.status == 404


async def test_reload_applies_new_host_and_origin_allow_lists(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Host": "besluitbron.example", "Origin": "https://besluitbron.example"}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    async with serve(path, replicas) as live, aiohttp.ClientSession() as http:
        async with http.post(live.url("wetten"), data=body, headers=headers) as resp:
            assert resp.status == 421
        data = json.loads(path.read_text())
        data["server"]["allowed_hosts"].append("besluitbron.example")
        data["server"]["allowed_origins"].append("https://besluitbron.example")
        path.write_text(json.dumps(data))
        await _reload(live)
        async with http.post(live.url("wetten"), data=body, headers=headers) as resp:
            assert resp.status == 200


async def test_initialize_carries_the_registry_instructions(server: LiveServer) -> None:
    async with client(server.url("allebronnen"), "legacy") as c:
        info = c.session.initialize_result
    assert info is not None and info.instructions is not None
    assert info.instructions == SHIPPED.server.instructions.nl
    assert "list_capabilities" in info.instructions


async def test_watcher_survives_a_file_it_cannot_read(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    async with serve(path, replicas, watch=True, watch_interval=0.05) as live, aiohttp.ClientSession() as http:
        text = path.read_text(encoding="utf-8")
        path.write_bytes(text.encode("latin-1", errors="replace"))  # "Officiële" is not UTF-8 any more
        await asyncio.sleep(0.3)
        data = json.loads(text)
        connector_entry(data, "tweedekamer")["enabled"] = False
        path.write_text(json.dumps(data), encoding="utf-8")
        await _until_absent(http, live, "tweedekamer")


async def test_a_source_switched_on_is_measured_at_once(replicas: Replicas, tmp_path: Path) -> None:
    def woo_off(data: dict[str, Any]) -> None:
        connector_entry(data, "openoverheid")["enabled"] = False

    path = write_registry(tmp_path, woo_off)
    async with serve(path, replicas, measure_load=True) as live, aiohttp.ClientSession() as http:
        data = json.loads(path.read_text())
        connector_entry(data, "openoverheid")["enabled"] = True
        path.write_text(json.dumps(data))
        await _reload(live)
        for _ in range(100):
            async with http.get(f"{live.base}/status") as resp:
                woo = next(s for s in (await resp.json())["sources"] if s["source"] == "woo")
            if woo["measured_at"]:
                break
            await asyncio.sleep(0.05)
        assert woo["measured_at"] and woo["current_through"], woo


async def test_reload_changes_what_initialize_says(replicas: Replicas, tmp_path: Path) -> None:
    path = write_registry(tmp_path)
    async with serve(path, replicas) as live:
        data = json.loads(path.read_text())
        data["server"]["instructions"]["nl"] = "Nieuwe aanwijzingen voor het model."
        path.write_text(json.dumps(data))
        await _reload(live)
        async with client(live.url("wetten"), "legacy") as c:
            info = c.session.initialize_result
            assert info is not None and info.instructions == "Nieuwe aanwijzingen voor het model."
