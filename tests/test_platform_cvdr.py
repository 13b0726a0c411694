"""Issue 40: local regulations in force (CVDR) on the Lokale bekendmakingen address, against the replica serving
three real CVDR documents (Kampen 2016, Someren 2019, Spijkenisse 2011, which ended in 2012)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from proxy.core.errors import NotHeld, ToolInputError
from proxy.platforms.cvdr import cvdr_id
from tests.conftest import MODES, LiveServer, client
from tests.platform_harness import PlatformHarness, harness_fixture

env = harness_fixture("lokaal", datetime(2026, 11, 30, 9, 30, tzinfo=UTC))


def test_ids_as_people_paste_them() -> None:
    assert cvdr_id("CVDR100394_2") == ("CVDR100394", 2)
    assert cvdr_id("cvdr100394") == ("CVDR100394", None)
    assert cvdr_id("112779_1") == ("CVDR112779", 1)  # older exports write the number alone
    assert cvdr_id("https://lokaleregelgeving.overheid.nl/CVDR100394/2") == ("CVDR100394", 2)
    with pytest.raises(ToolInputError, match="CVDR100394_2"):
        cvdr_id("gmb-2016-146361")


async def test_search_sends_cvdrs_own_sru_query(env: PlatformHarness) -> None:
    result = await env.call("search_regulations", organisation="gemeente Kampen", query="parkeren", limit=5)
    request = env.only_request()
    assert request.path == "/lokaal/zoekservice/sru/Search"  # https://zoekservice.overheid.nl/sru/Search for real
    assert request.pairs == [
        ("operation", "searchRetrieve"), ("version", "1.2"), ("x-connection", "cvdr"),
        ("query", 'keyword all "parkeren" and dcterms.creator="Kampen" and overheidrg.inwerkingtredingDatum<='
                  "2026-11-30 sortby overheidrg.inwerkingtredingDatum/descending"),
        ("maximumRecords", "5"), ("startRecord", "1")]
    (only,) = result["results"]
    assert only["id"] == "CVDR100394_2" and only["title"] == "Beleidsregels verkeersveiligheid en parkeren"
    assert only["published_in"] == ["gmb-2016-146361"] and only["in_force_until"] is None
    assert only["url"] == "https://lokaleregelgeving.overheid.nl/CVDR100394/2"


async def test_a_regulation_that_ended_is_in_force_only_on_its_dates(env: PlatformHarness) -> None:
    then = await env.call("search_regulations", organisation="Spijkenisse", in_force_on="2012-01-01")
    assert [r["id"] for r in then["results"]] == ["CVDR112779_1"]
    assert then["results"][0]["in_force_until"] == "2012-04-25"
    now = await env.call("search_regulations", organisation="Spijkenisse")
    assert now["results"] == [] and "ended before it left out here, 1 on this page" in now["precision"]["matched"]


async def test_read_gives_the_text_and_the_version_in_force(env: PlatformHarness) -> None:
    read = await env.call("read_regulation", id="CVDR680781", length=20000)
    assert [r.path for r in env.requests] == ["/lokaal/zoekservice/sru/Search",
                                              "/lokaal/cvdr/CVDR680781/1/xml/CVDR680781_1.xml"]
    assert dict(env.requests[0].pairs)["query"].startswith("dcterms.identifier=CVDR680781_* sortby")
    assert read["id"] == "CVDR680781_1" and read["organisation"] == "Someren"
    assert read["versions"] == ["CVDR680781_1: in force 2019-08-30 to now"]
    assert "1. Inleiding" in read["text"] and "Wet bevordering integriteitsbeoordelingen" in read["based_on"][0]
    older = await env.call("read_regulation", id="112779_1")  # a version asked for is read as it is
    assert older["id"] == "CVDR112779_1" and older["in_force_until"] == "2012-04-25" and older["versions"] == []


async def test_an_unknown_regulation_is_not_held(env: PlatformHarness) -> None:
    with pytest.raises(NotHeld):
        await env.call("read_regulation", id="CVDR999999")


async def test_local_regulations_through_the_sdk_in_both_eras(server: LiveServer) -> None:
    for mode in MODES:
        async with client(server.url("lokalebekendmakingen"), mode) as c:
            found = await c.call_tool("search_regulations", {"query": "Bibob"})
            assert not found.is_error and found.structured_content["results"][0]["id"] == "CVDR680781_1"
        async with client(server.url("allebronnen"), mode) as c:
            read = await c.call_tool("lokaal_read_regulation", {"id": "CVDR100394_2"})
            assert not read.is_error and read.structured_content["organisation"] == "Kampen"
            assert read.structured_content["published_in"] == ["gmb-2016-146361"]
