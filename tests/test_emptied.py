"""Issue 21: an empty answer's hint names the real cause, the first that holds: the source stands still; the
period holds nothing (and where the nearest material lies, never "leave the period out"); one filter emptied it;
the words matched nothing (only there "check the spelling"). Against the real replicas through the SDK client,
in both protocol eras; and list_capabilities says what platform_status says of a source that stands still."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import MODES, LiveServer, client
from tests.conftest_mcp import text_of

ORI = "openraadsinformatie"


async def _hint(server: LiveServer, mode: str, slug: str, tool: str, arguments: dict[str, Any]) -> str:
    async with client(server.url(slug), mode) as c:
        result = await c.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    assert result.structured_content["results"] == []
    return str(result.structured_content["precision"]["hint"])


@pytest.mark.parametrize("mode", MODES)
async def test_an_empty_period_says_where_the_nearest_material_lies(server: LiveServer, mode: str) -> None:
    """The Krimpen aan den IJssel play-space plan is of 2019: asked for 2024, the answer is "nothing in 2024"
    and that the nearest lies before it; it used to say date_from emptied the list and to leave it out."""
    hint = await _hint(server, mode, ORI, "search_documents", {
        "query": "speelruimtebeleidsplan", "date_from": "2024-01-01", "date_to": "2024-12-31"})
    assert hint.startswith("nothing in the period 2024-01-01 to 2024-12-31") and "before it (2019-03-19)" in hint
    assert "leave it out" not in hint and "spelling" not in hint


@pytest.mark.parametrize("mode", MODES)
async def test_an_organisation_that_holds_nothing_is_named_without_spelling_advice(server: LiveServer,
                                                                                    mode: str) -> None:
    hint = await _hint(server, mode, ORI, "search_documents", {"query": "speelruimtebeleidsplan",
                                                              "organisation": "Amsterdam"})
    assert hint.startswith("organisation='Amsterdam' emptied this list: without it the same search finds 1")
    assert "precision.matched" in hint and "spelling" not in hint


@pytest.mark.parametrize("mode", MODES)
async def test_words_that_match_nothing_say_the_matching_rule(server: LiveServer, mode: str) -> None:
    hint = await _hint(server, mode, ORI, "search_documents", {"query": "parkeren", "organisation": "Amsterdam"})
    assert hint.startswith("nothing holds query='parkeren' (how words match here:")
    assert "every word" in hint and "check the spelling" in hint and "organisation=" not in hint


async def test_a_source_that_stands_still_says_so_first(server: LiveServer) -> None:
    """The Open Overheid sample was recorded on 2026-03-21: measured against today it stands still, and an
    empty answer says that, with its newest date, before blaming the period or a word."""
    from proxy.serving.loadstatus import measure_generation

    await measure_generation(server.runtime.generation, server.runtime.store)
    async with client(server.url("openoverheid"), "2026-07-28") as c:
        status = (await c.call_tool("platform_status", {})).structured_content["sources"][0]
        caps = (await c.call_tool("list_capabilities", {})).structured_content["sources"][0]
        result = await c.call_tool("search_publications", {"query": "stikstof", "date_from": "2026-10-01"})
    assert status["receiving"] is False and caps["receiving"] is False  # list_capabilities agrees
    assert caps["current_through"] == status["current_through"]
    hint = result.structured_content["precision"]["hint"]
    assert hint.startswith(f"Open Overheid stands still: its newest material is from {status['current_through']}")
    assert "the period asked for starts on 2026-10-01, after that" in hint


async def test_a_period_before_the_newest_material_is_the_cause_not_the_standing(server: LiveServer) -> None:
    """The Woo sample stands still, but a period that ends before its newest material is not emptied by that:
    the bird-flu decision is of 2023, so 2010 holds nothing because of the period, and the hint says so."""
    from proxy.serving.loadstatus import measure_generation

    await measure_generation(server.runtime.generation, server.runtime.store)
    async with client(server.url("openoverheid"), "2026-07-28") as c:
        status = (await c.call_tool("platform_status", {})).structured_content["sources"][0]
        result = await c.call_tool("search_publications", {"query": "vogelgriep", "date_from": "2010-01-01",
                                                            "date_to": "2010-12-31"})
    assert status["receiving"] is False and status["current_through"] > "2010-12-31"
    hint = result.structured_content["precision"]["hint"]
    assert hint.startswith("nothing in the period 2010-01-01 to 2010-12-31") and "after it" in hint
    assert "stands still" not in hint


@pytest.mark.parametrize("mode", MODES)
async def test_one_filter_that_finds_nothing_never_says_try_fewer_filters(server: LiveServer, mode: str) -> None:
    hint = await _hint(server, mode, "tweedekamer", "upcoming_activities", {"committee": "Defensie", "days": 1})
    assert "fewer filters" not in hint, hint


@pytest.mark.parametrize("mode", MODES)
async def test_a_one_source_search_never_speaks_of_other_sources(server: LiveServer, mode: str) -> None:
    hint = await _hint(server, mode, "openoverheid", "search", {"query": "ruimtevaartuigenbesluit"})
    assert "other sources" not in hint and "any source" not in hint
    assert hint.startswith("nothing holds query='ruimtevaartuigenbesluit' in woo") or "stands still" in hint


@pytest.mark.parametrize("mode", MODES)
async def test_a_combined_search_emptied_by_its_period_names_the_period(server: LiveServer, mode: str) -> None:
    hint = await _hint(server, mode, ORI, "search", {"query": "speelruimtebeleidsplan", "date_from": "2024-01-01",
                                                    "date_to": "2024-12-31"})
    assert hint.startswith("nothing in the period 2024-01-01 to 2024-12-31: without it, ori holds it before it "
                           "(2019-03-19)"), hint
    assert "spelling" not in hint
