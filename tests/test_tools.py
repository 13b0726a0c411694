"""Every tool of every connector, and every prefixed copy on Alle Bronnen, called through the SDK
client against the replicas: schema-valid structuredContent, precision, citations, titles."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import jsonschema
import pytest

from proxy.catalog.build import build_catalog
from proxy.core.trace import TRACE_META_KEY
from proxy.registry.model import load_registry
from proxy.results.external import EXTERNAL_META_KEY, unfence
from proxy.results.outputs import is_result_list
from tests.conftest import MODES, REGISTRY, LiveServer, client
from tests.conftest_mcp import data_of, meta_of, text_of, trace_meta
from tests.people_pages import not_for_people

CATALOG = build_catalog(load_registry(REGISTRY))
SOURCE_TOOLS = [(c.slug, t) for c in CATALOG.connectors.values() if not c.connector.aggregate
                for t in c.tools if t.impl is not None]
AGGREGATE = CATALOG.connectors["allebronnen"]


# Platforms whose citations do not yet link to pages for people (none since issue 10 merged).
PAGES_PENDING: set[str] = set()


def _check(tool_schema: dict[str, Any] | None, data: dict[str, Any], platform: str | None = None) -> None:
    assert tool_schema is not None, "a source tool lists its outputSchema"
    jsonschema.validate(data, tool_schema)
    listed, _ = is_result_list(tool_schema)
    if listed:
        p = data["precision"]
        assert p["returned"] == len(data["results"])
        assert p["total_relation"] in ("exact", "lower_bound", "estimate", "unknown")
        if p["total"] is not None and p["total_relation"] == "exact":
            assert p["total"] >= p["returned"]
            if p["truncated"]:
                assert p["total"] > p["returned"]
        for hit in data["results"]:
            c = data["cited_chunks"][hit["cited_chunk"]]
            assert c["uri"].startswith("http") and c["title"] and c["label"]
    if "cited_chunks" in tool_schema.get("properties", {}):
        assert '"citation":' not in json.dumps(data)  # moved into cited_chunks, each text once
        keys = [(c["uri"], c["title"], c["text"]) for c in data["cited_chunks"]]
        assert len(keys) == len(set(keys))
        if platform not in PAGES_PENDING:
            assert not [(c["uri"], not_for_people(c["uri"])) for c in data["cited_chunks"] if not_for_people(c["uri"])]


def test_every_tool_has_a_working_example() -> None:
    missing = [f"{slug}.{t.name}" for slug, t in SOURCE_TOOLS if t.impl is None or t.impl.example is None]
    assert not missing, f"tools without an example (proxy/plugin/toolkit.py ToolImpl.example): {missing}"


@pytest.mark.parametrize("mode", MODES)
async def test_every_source_tool_through_the_sdk(server: LiveServer, mode: str) -> None:
    for slug, tool in SOURCE_TOOLS:
        assert tool.impl is not None and tool.impl.example is not None
        async with client(server.url(slug), mode) as c:
            listed = {t.name: t for t in (await c.list_tools()).tools}[tool.name]
            result = await c.call_tool(tool.name, dict(tool.impl.example))
            assert not result.is_error, f"{slug}.{tool.name}: {text_of(result)}"
            data = data_of(result)
            assert json.loads(unfence(text_of(result))) == data  # the same JSON, fenced as external data
            assert meta_of(result)[EXTERNAL_META_KEY]["external"] is True
            _check(listed.output_schema, data, tool.platform)


async def test_every_prefixed_copy_on_alle_bronnen(server: LiveServer) -> None:
    async with client(server.url("allebronnen"), "legacy") as c:
        listed = {t.name: t for t in (await c.list_tools()).tools}
        for tool in AGGREGATE.tools:
            if tool.impl is None:
                continue
            assert tool.impl is not None and tool.impl.example is not None
            platform = CATALOG.registry.platforms[tool.platform or ""]
            assert listed[tool.name].title == f"{platform.title.nl}: {tool.words.title.nl}"
            result = await c.call_tool(tool.name, dict(tool.impl.example))
            assert not result.is_error, f"{tool.name}: {text_of(result)}"
            _check(listed[tool.name].output_schema, data_of(result), tool.platform)


async def test_bad_arguments_give_an_actionable_error_result(server: LiveServer) -> None:
    async with client(server.url("openraadsinformatie"), "legacy") as c:
        result = await c.call_tool("search_documents", {"limit": "many", "bogus": 1})
        assert result.is_error
        text = text_of(result)
        assert "Invalid arguments for search_documents" in text and "limit" in text and "bogus" in text


async def test_a_megabyte_of_argument_names_is_refused_before_any_work(server: LiveServer) -> None:
    """Thousands of keys, or a few very long ones, are refused by count and length before the schema check
    and the "did you mean" suggestions (which cost 100s of ms of CPU on such input)."""
    async with client(server.url("wetten"), "2026-07-28") as c:
        many = await c.call_tool("search_regulations", {f"k{i:06d}": i for i in range(20_000)})
        long = await c.call_tool("search_regulations", {"t" * 500_000: "wet", "title": "wet"})
    for result in (many, long):
        assert result.is_error
        assert "fields (at most 64, names of at most 128 characters); search_regulations takes title" in \
            text_of(result)


async def test_unknown_tool_is_a_protocol_error(server: LiveServer) -> None:
    async with client(server.url("wetten"), "legacy") as c:
        with pytest.raises(Exception, match="Unknown tool"):
            await c.call_tool("ori_search_documents", {})


async def test_platform_calls_are_per_client(server: LiveServer) -> None:
    slug, tool = next((s, t) for s, t in SOURCE_TOOLS if s == "wetten")
    assert tool.impl and tool.impl.example
    async with client(server.url(slug), "legacy") as one, client(server.url(slug), "legacy") as two:
        await one.call_tool(tool.name, dict(tool.impl.example))
        mine = (await one.call_tool("list_platform_calls", {})).structured_content
        theirs = (await two.call_tool("list_platform_calls", {})).structured_content
    assert mine["total"] >= 1 and all(c["source"] == "wetten" for c in mine["calls"])
    assert theirs["calls"] == [] and theirs["total"] == 0


async def test_stateless_clients_trace_their_calls_with_a_handle(server: LiveServer) -> None:
    slug, tool = next((s, t) for s, t in SOURCE_TOOLS if s == "rechtspraak")
    assert tool.impl and tool.impl.example
    async with client(server.url(slug), "2026-07-28") as c:
        result = await c.call_tool(tool.name, dict(tool.impl.example))
        handle = (result.meta or {}).get(TRACE_META_KEY)
        assert handle, result.meta
        again = await c.call_tool(tool.name, dict(tool.impl.example), meta=trace_meta(handle))
        assert meta_of(again)[TRACE_META_KEY] == handle
        mine = (await c.call_tool("list_platform_calls", {"trace": handle})).structured_content
        assert mine["trace"] == handle and mine["total"] == 2
        assert [call["cache_hit"] for call in mine["calls"]][-1] is True
        fresh = (await c.call_tool("list_platform_calls", {})).structured_content
        assert fresh["total"] == 0  # a new handle: nobody else's calls
        forged = await c.call_tool("list_platform_calls", {"trace": handle[:-2] + "xx"})
        assert forged.is_error and "not a handle this server issued" in text_of(forged)


async def test_fifty_concurrent_identical_tool_calls_reach_the_platform_once(server: LiveServer) -> None:
    slug, tool = next((s, t) for s, t in SOURCE_TOOLS if s == "openoverheid")
    assert tool.impl and tool.impl.example
    args = {**tool.impl.example}
    async with client(server.url(slug), "2026-07-28") as c:
        results = await asyncio.gather(*[c.call_tool(tool.name, args) for _ in range(50)])
        handles = {meta_of(r)[TRACE_META_KEY] for r in results}
        records = []
        for h in handles:
            records += (await c.call_tool("list_platform_calls", {"trace": h})).structured_content["calls"]
    assert all(not r.is_error for r in results)
    # The search itself (its hits' publications are read too, to name the body responsible: those once each).
    searches = [r for r in records if "/zoek?" in r["url"]]
    assert len([r for r in searches if not r["cache_hit"]]) == 1 and len(searches) == 50
    reads = [r for r in records if "/zoek?" not in r["url"]]
    assert len({r["url"] for r in reads}) == len([r for r in reads if not r["cache_hit"]])


async def test_status_and_platform_status_show_stalled_organs(server: LiveServer) -> None:
    from proxy.serving.loadstatus import measure_generation

    runtime = server.runtime
    await measure_generation(runtime.generation, runtime.store)
    async with aiohttp.ClientSession() as http, http.get(f"{server.base}/status") as resp:
        status = await resp.json()
    by_source = {s["source"]: s for s in status["sources"]}
    assert set(by_source) == set(CATALOG.registry.platforms)
    s = by_source["ori"]
    assert s["organs_total"] >= 30 and s["organs_stalled"] >= 1
    stalled = [o for o in s["organs"] if o["stalled"]]
    assert stalled and all(o["current_through"] for o in stalled)
    # The lokaal sample is real records of 2014-2025 and one marked sample: organs are the publishers of the last year.
    assert by_source["lokaal"]["organs_total"] >= 1
    assert all(o["current_through"] for o in by_source["lokaal"]["organs"])
    async with client(server.url("openraadsinformatie"), "legacy") as c:
        ps = (await c.call_tool("platform_status", {})).structured_content
        caps = (await c.call_tool("list_capabilities", {})).structured_content
    ori = ps["sources"][0]
    assert ori["organs_stalled"] == by_source["ori"]["organs_stalled"]
    assert {o["organ"] for o in ori["stalled_organs"]} == {o["organ"] for o in by_source["ori"]["organs"]
                                                          if o["stalled"]}
    assert caps["sources"][0]["current_through"] == by_source["ori"]["current_through"]


@pytest.mark.parametrize(("fault", "words"), [
    ({"error_rate": 1.0}, "failing (HTTP 500"),
    ({"latency_ms": 1500}, "did not answer within"),
    ({"malformed": True}, "could not be read"),
    ({"oversize_bytes": 200_000}, "cap"),
])
async def test_upstream_failure_is_an_error_result_and_flips_availability(
        server: LiveServer, replicas: Any, fault: dict[str, Any], words: str) -> None:
    import dataclasses

    from proxy.catalog.build import build_catalog
    from proxy.catalog.generation import Generation
    from proxy.registry.model import Timeouts

    slug, tool = next((s, t) for s, t in SOURCE_TOOLS if s == "tweedekamer")
    assert tool.impl and tool.impl.example
    runtime = server.runtime
    before = runtime.generation
    registry = before.registry
    strict = dataclasses.replace(registry.platforms["tweedekamer"], timeouts=Timeouts(0.5, 1.0),
                                 max_response_bytes=100_000, cache_ttl_seconds=0)
    registry = dataclasses.replace(registry, platforms={**registry.platforms, "tweedekamer": strict})
    runtime.apply(Generation(build_catalog(registry)))
    try:
        await _fail_then_recover(server, replicas, slug, tool, fault, words)
    finally:
        runtime.apply(Generation(before.catalog))
    async with aiohttp.ClientSession() as http, http.get(f"{server.base}/health") as resp:
        assert resp.status == 200


async def _fail_then_recover(server: LiveServer, replicas: Any, slug: str, tool: Any, fault: dict[str, Any],
                             words: str) -> None:
    assert tool.impl and tool.impl.example
    async with client(server.url(slug), "legacy") as c:
        replicas.faults("tweedekamer").update(fault)
        bad = await c.call_tool(tool.name, dict(tool.impl.example))
        assert bad.is_error and words in text_of(bad), text_of(bad)
        caps = (await c.call_tool("list_capabilities", {})).structured_content
        assert caps["sources"][0]["availability"]["available"] is False
        replicas.faults("tweedekamer").clear()
        good = await c.call_tool(tool.name, dict(tool.impl.example))
        assert not good.is_error
        caps = (await c.call_tool("list_capabilities", {})).structured_content
        assert caps["sources"][0]["availability"]["available"] is True


async def test_odd_but_schema_valid_arguments_get_actionable_errors(server: LiveServer) -> None:
    async with client(server.url("tweedekamer"), "legacy") as c:
        far = await c.call_tool("search_documents", {"date_to": "9999-12-31"})
        assert far.is_error and "date_to must lie between" in text_of(far)
    async with aiohttp.ClientSession() as http:
        # A lone surrogate survives JSON but not UTF-8; the SDK client cannot even send it, so use raw HTTP.
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                   "Mcp-Name": "search_regulations"}
        body = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_regulations",'
                '"arguments":{"title":"\\ud800"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
                '"io.modelcontextprotocol/clientCapabilities":{}}}}')
        async with http.post(server.url("wetten"), data=body, headers=headers) as resp:
            answer = await resp.json()
    assert resp.status == 200 and answer["result"]["isError"], answer
    assert "title holds text that is not valid Unicode" in answer["result"]["content"][0]["text"]


async def test_a_result_outside_its_output_schema_is_refused_every_time(server: LiveServer) -> None:
    """The check runs on each newly built result (equal results are remembered only once they conform)."""
    import dataclasses

    from proxy.core.caller import Caller
    from proxy.results.encoding import EncodedResult
    from proxy.serving.endpoint import ConnectorEndpoint

    runtime = server.runtime
    served = runtime.endpoint("wetten")
    assert served is not None
    live = served.connector
    tool = next(t for t in live.tools if t.impl is not None)
    answers = [{"wrong": True}, {"wrong": True}]

    async def handler(call: Any) -> dict[str, Any]:
        return answers.pop(0)

    assert tool.impl is not None
    broken = dataclasses.replace(tool, impl=dataclasses.replace(tool.impl, handler=handler))
    connector = dataclasses.replace(live, tools=(broken,), by_name={tool.name: broken})
    endpoint = ConnectorEndpoint(connector, served.generation, store=runtime.store, signer=runtime.signer)
    for _ in range(2):
        result = await endpoint.call_tool(tool.name, {}, Caller.session("test"))
        assert not isinstance(result, EncodedResult) and result.is_error
        assert "does not match its schema" in text_of(result)
