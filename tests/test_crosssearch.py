"""Issue 22: `search` and `fetch` on every address, over the real replicas, through the SDK client in both eras.

search asks every free-text source at once under one deadline and merges by reciprocal rank; a source past the
deadline is reported while the others answer; one record reached twice is kept once; every url is a page for
people. fetch reads an id of each source (with or without its source prefix) and refuses an unknown one naming
the id forms each source takes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from proxy.catalog.build import load_plugin
from proxy.serving import crosssearch
from tests.conftest import MODES, LiveServer, Replicas, client
from tests.conftest_mcp import text_of
from tests.people_pages import not_for_people

IDS = {  # one real record per source, by the id search returns
    "ori": "ori:document:notubiz:gemeente:amsterdam:7636790",
    "lokaal": "lokaal:gmb-2025-526769",
    "officieel": "officieel:stb-2025-252",
    "tweedekamer": "tweedekamer:2025D42637",
    "wetten": "wetten:BWBR0002629",
    "rechtspraak": "rechtspraak:ECLI:NL:RBAMS:2010:BO3979",
    "woo": "woo:ronl-da6e58c6e8ea4fea47cedfaaec0368567464976b",
}


async def _call(server: LiveServer, mode: str, slug: str, tool: str, arguments: dict[str, Any]) -> Any:
    async with client(server.url(slug), mode) as c:
        return await c.call_tool(tool, arguments)


@pytest.mark.parametrize("mode", MODES)
async def test_search_on_alle_bronnen_merges_several_sources(server: LiveServer, mode: str) -> None:
    result = await _call(server, mode, "allebronnen", "search", {"query": "begroting", "limit": 20})
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    sources = {r["source"] for r in data["results"]}
    assert {"ori", "officieel", "tweedekamer"} <= sources, sources
    report = data["sources"]
    assert all(report[k]["answered"] for k in sources) and report["rechtspraak"]["asked"] is True
    for item in data["results"]:
        assert item["id"].split(":", 1)[0] == item["source"] and item["url"] and not not_for_people(item["url"])
        assert data["cited_chunks"][item["cited_chunk"]]["uri"]
    assert len({r["id"] for r in data["results"]}) == len(data["results"])


@pytest.mark.parametrize("mode", MODES)
async def test_a_slow_source_is_reported_while_the_others_answer(server: LiveServer, replicas: Replicas,
                                                                  mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(crosssearch, "DEADLINE_SECONDS", 0.8)
    replicas.faults("tweedekamer").update({"latency_ms": 2500})
    try:
        result = await _call(server, mode, "allebronnen", "search", {"query": "begroting"})
    finally:
        replicas.clear_faults()
    data = result.structured_content
    report = data["sources"]
    assert report["tweedekamer"]["cut_off"] is True and report["tweedekamer"]["answered"] is False
    assert "no answer within 0.8 s" in report["tweedekamer"]["note"] and data["precision"]["truncated"] is True
    assert {"ori", "officieel"} <= {r["source"] for r in data["results"]}


@pytest.mark.parametrize("mode", MODES)
async def test_search_on_the_rechtspraak_address_answers_words(server: LiveServer, mode: str) -> None:
    # It was listed there and failed on every call (the open-data feed has no free text).
    result = await _call(server, mode, "rechtspraak", "search", {"query": "vechtpartij"})
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert list(data["sources"]) == ["rechtspraak"] and data["sources"]["rechtspraak"]["answered"] is True
    assert "rechtspraak:ECLI:NL:GHSGR:2008:BC9358" in [r["id"] for r in data["results"]]
    fetched = await _call(server, mode, "rechtspraak", "fetch", {"id": data["results"][0]["id"]})
    assert not fetched.is_error and fetched.structured_content["text"]


async def test_a_source_address_searches_that_source_alone(server: LiveServer) -> None:
    result = await _call(server, "2026-07-28", "openraadsinformatie", "search", {"query": "speelruimte"})
    data = result.structured_content
    assert list(data["sources"]) == ["ori"]
    assert data["results"][0]["id"] == "ori:document:notubiz:gemeente:krimpen_ad_ijssel:7425406"


async def test_one_record_reached_twice_is_kept_once_and_ranked_by_both() -> None:
    """Rank fusion on two sources' real hit shapes: the same ECLI from two sources is one result, first."""
    hit = {"title": "Uitspraak", "url": "https://uitspraken.rechtspraak.nl/details?id=ECLI:NL:HR:2024:1273",
           "date": "2024-09-20", "citation": {"uri": "https://uitspraken.rechtspraak.nl/details?id=ECLI:NL:HR:2024:1273",
                                               "title": "t", "text": "x", "requires_attribution": False,
                                               "label": "l"}}
    other = {**hit, "url": "https://zoek.officielebekendmakingen.nl/stb-2025-252.html", "date": "2025-01-29"}
    replies: Mapping[str, dict[str, Any]] = {
        "officieel": {"results": [{**other, "identifier": "stb-2025-252"},
                                  {**hit, "identifier": "ECLI:NL:HR:2024:1273"}], "precision": {"total": 2}},
        "tweedekamer": {"results": [{**hit, "number": "ECLI:NL:HR:2024:1273"}], "precision": {"total": 1}},
    }

    async def run(platform: str, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return replies[platform]

    async def standing(platform: str) -> bool | None:
        return None

    routes = {key: route for key in ("officieel", "tweedekamer") if (route := load_plugin(key).search_route)}
    data = await crosssearch.search(routes, {}, {"query": "x"}, run, standing)
    ids = [r["id"] for r in data["results"]]
    assert len(ids) == 2 and ids[0] in ("officieel:ECLI:NL:HR:2024:1273", "tweedekamer:ECLI:NL:HR:2024:1273")


@pytest.mark.parametrize("mode", MODES)
async def test_fetch_reads_an_id_of_every_source(server: LiveServer, mode: str) -> None:
    async with client(server.url("allebronnen"), mode) as c:
        for source, record in IDS.items():
            for written in (record, record.split(":", 1)[1]):  # the search id, or the source's own id
                result = await c.call_tool("fetch", {"id": written, "length": 500})
                assert not result.is_error, (written, text_of(result))
                data = result.structured_content
                assert data["id"] == record and data["source"] == source and data["text"].strip(), written
                assert data["url"] and not not_for_people(data["url"]) and isinstance(data["metadata"], dict)


@pytest.mark.parametrize("written", ["nonsense", "wetten:", "rechtspraak:ECLI:NL:XX", "BWBR12"])
async def test_fetch_refuses_an_unknown_id_naming_the_forms(server: LiveServer, written: str) -> None:
    result = await _call(server, "2026-07-28", "allebronnen", "fetch", {"id": written})
    assert result.is_error
    text = result.content[0].text
    assert "wetten:BWBR0002629" in text and "rechtspraak:ECLI:NL:HR:2024:1273" in text, text


@pytest.mark.parametrize("mode", MODES)
async def test_an_empty_search_says_why_without_asking_every_source_again(server: LiveServer, mode: str) -> None:
    """An empty search carries its own hint (each source already said why): no probe repeats the fan-out."""
    async with client(server.url("allebronnen"), mode) as c:
        result = await c.call_tool("search", {"query": "xyzzyqwv", "date_from": "2024-01-01"})
        data = result.structured_content
        assert data["results"] == [] and data["precision"]["hint"].startswith("nothing holds query='xyzzyqwv'")
        calls = (await c.call_tool("list_platform_calls", {"limit": 500})).structured_content
        asked = sum(e["asked"] for e in data["sources"].values())
        live = [r for r in calls["calls"] if not r["cache_hit"]]
        assert len({r["source"] for r in live}) <= asked and len(live) <= 2 * asked  # one search per source
