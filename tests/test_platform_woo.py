"""Open Overheid (Woo) adapter against its replica over a real socket: ids, wire format, precision, load status."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import aiohttp
import pytest

from proxy.errors import ToolInputError
from proxy.loadstatus import status_from_report
from proxy.platforms import woo
from proxy.platforms.woo import publication_id
from proxy.replica.woo import CATEGORIES, STALLED_DAYS, XSS_TITLE, Publication, build_publications
from tests.platform_harness import PlatformHarness, harness_fixture

KEY = "woo"
ANCHOR = date(2026, 11, 30)
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
API = "/woo/overheid/openbaarmakingen/api/v0"


env = harness_fixture(KEY, NOW)


def _publications() -> list[Publication]:
    return list(build_publications(ANCHOR).values())


# --------------------------------------------------------------------------- ids


def test_publication_ids_lose_their_version_suffix_and_link_wrapping() -> None:
    assert publication_id("oep-0b03c64e8b44a7b0466a809054860a2c77fb628b_1") == \
        "oep-0b03c64e8b44a7b0466a809054860a2c77fb628b"
    assert publication_id("https://open.overheid.nl/documenten/eef2edec-019e-4085-8e2e-4d3f42686431") == \
        "eef2edec-019e-4085-8e2e-4d3f42686431"
    assert publication_id("https://open.overheid.nl/documenten/eef2edec-019e-4085-8e2e-4d3f42686431/file") == \
        "eef2edec-019e-4085-8e2e-4d3f42686431"
    with pytest.raises(ToolInputError):
        publication_id("../../etc/passwd")


# --------------------------------------------------------------------------- search_publications


async def test_search_sends_the_site_query_with_double_encoded_filters(env: PlatformHarness) -> None:
    result = await env.call("search_publications", query="Woo-verzoek  gemeente", organisation="gemeente Utrecht",
                            information_category="Woo-verzoeken en -besluiten", date_from="2024-01-01",
                            date_to="2026-10-31", sort="newest", limit=8)
    listing, request = env.requests  # the platform's list of bodies, to check the name against; then the search
    assert listing.raw_path == f"{API}/zoek?zoektekst=&start=0&aantalResultaten=10"
    assert request.raw_path == (
        f"{API}/zoek?zoektekst=Woo-verzoek%20gemeente&start=0&aantalResultaten=10&sort=publicatiedatum"
        "&publicatiedatumVan=01-01-2024&publicatiedatumTot=31-10-2026"
        "&informatiecategorie=Woo-verzoeken%2520en%2520-besluiten&organisatie=gemeente%2520Utrecht")
    assert request.headers["Accept"] == "application/json"

    expected = [p for p in _publications() if p.body[0] == "gemeente Utrecht" and p.category == "woo"
                and date(2024, 1, 1) <= p.published <= date(2026, 10, 31)
                and all(w in p.search_text for w in ("woo-verzoek", "gemeente"))]
    precision = result["precision"]
    assert precision["total"] == len(expected) > 8
    assert precision["total_relation"] == "estimate" and "not documented as exact" in precision["matched"]
    assert precision["returned"] == 8 and precision["next_offset"] == 8  # a page of 10 cut to the 8 asked for
    dates = [r["published"] for r in result["results"]]
    assert dates == sorted(dates, reverse=True)
    hit = result["results"][0]
    assert "_" not in hit["id"] and hit["version"] in (1, 2)
    assert hit["citation"]["uri"] == f"https://open.overheid.nl/documenten/{hit['id']}"
    assert hit["publisher"] == "gemeente Utrecht"


async def test_search_encodes_a_curly_apostrophe_twice_too(env: PlatformHarness) -> None:
    label = CATEGORIES["agenda"][0]
    result = await env.call("search_publications", information_category=label, limit=10, offset=5)
    assert env.only_request().raw_path == (
        f"{API}/zoek?zoektekst=&start=5&aantalResultaten=10&sort=publicatiedatum"
        "&informatiecategorie=agenda%25E2%2580%2599s%2520en%2520besluitenlijsten%2520bestuurscolleges")
    expected = [p for p in _publications() if p.category == "agenda"]
    assert result["precision"]["total"] == len(expected)
    assert len(result["results"]) == len(expected) - 5 > 0
    assert result["precision"]["truncated"] is False and result["precision"]["next_offset"] is None


async def test_search_ranks_by_relevance_and_returns_payloads_as_text(env: PlatformHarness) -> None:
    result = await env.call("search_publications", query="zaaksystemen")
    assert "sort=" not in env.only_request().raw_path  # relevance is the platform's default order
    assert result["results"][0]["title"] == XSS_TITLE
    assert "<img src=x onerror=alert(1)>" in (result["results"][0]["description"] or "")
    assert "<b>" not in (result["results"][0]["snippet"] or "")  # highlight markup removed, the text kept


# --------------------------------------------------------------------------- read_publication


async def test_read_publication_lists_files_and_attachments_with_citations(env: PlatformHarness) -> None:
    main = next(p for p in _publications() if p.kind == "besluit" and len(p.relations) >= 2)
    result = await env.call("read_publication", id=f"{main.id}_{main.version}")
    request = env.only_request()
    assert request.raw_path == f"{API}/zoek/{main.id}"
    publication = result["publication"]
    assert publication["id"] == main.id and publication["title"] == main.title
    assert publication["responsible"] == main.body[0]
    assert publication["information_categories"] == ["Woo-verzoeken en -besluiten"]
    assert publication["version"] == main.version and publication["status"] == "gepubliceerd"
    kinds = [d["kind"] for d in result["results"]]
    assert kinds == ["file"] + ["related"] * len(main.relations)
    related = [d for d in result["results"] if d["kind"] == "related"]
    assert [d["id"] for d in related] == [other for _, other in main.relations]
    assert {d["role"] for d in related} == {"heeft bijlage"}
    assert all(d["citation"]["uri"] == d["url"] for d in result["results"])
    precision = result["precision"]
    assert precision["total"] == 1 + len(main.relations) and precision["truncated"] is False

    attachment = await env.call("read_publication", id=related[0]["url"], limit=1, offset=1)
    assert attachment["results"][0]["role"] == "is bijlage van" and attachment["results"][0]["id"] == main.id
    assert attachment["precision"]["total"] == 2 and attachment["precision"]["next_offset"] is None


async def test_read_publication_refuses_unknown_ids(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="no publication 'oep-doesnotexist'"):
        await env.call("read_publication", id="oep-doesnotexist")


# --------------------------------------------------------------------------- load status


async def test_measure_load_finds_the_stalled_source(env: PlatformHarness) -> None:
    report = await woo.measure_load(env.ctx)
    assert env.requests[-1].raw_path == f"{API}/zoek?zoektekst=&start=0&aantalResultaten=10&sort=publicatiedatum"
    assert report.current_through == ANCHOR - timedelta(days=STALLED_DAYS)
    assert report.current_through == max(p.published for p in _publications())
    status = status_from_report(env.platform, report, today=ANCHOR,
                                stalled_after_days=env.registry.load_status.stalled_after_days, measured_at=NOW)
    assert status["receiving"] is False
    assert status["current_through"] == (ANCHOR - timedelta(days=STALLED_DAYS)).isoformat()


# --------------------------------------------------------------------------- replica fidelity


async def test_replica_enforces_page_sizes_and_bare_ids(env: PlatformHarness) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{env.url}{API}/zoek?zoektekst=&start=0&aantalResultaten=15") as resp:
            assert resp.status == 400 and "aantalResultaten" in (await resp.json())["detail"]
        async with session.get(f"{env.url}{API}/zoek?zoekterm=stikstof&aantalResultaten=10") as resp:
            assert (await resp.json())["totaal"] == len(_publications())  # an unknown parameter is ignored
        some = _publications()[0]
        async with session.get(f"{env.url}{API}/zoek/{some.id}_{some.version}") as resp:
            assert resp.status == 404
        async with session.get(f"{env.url}{API}/zoek/{some.id}") as resp:
            assert resp.status == 200 and (await resp.json())["document"]["pid"] == some.pid


# --------------------------------------------------------------------------- live fidelity (issue 11)


def _count(body: str) -> int:
    return sum(1 for p in _publications() if p.body[0] == body)


async def test_organisations_by_abbreviation_or_part_of_the_name(env: PlatformHarness) -> None:
    bzk = "ministerie van Binnenlandse Zaken en Koninkrijksrelaties"
    for written in ("BZK", "ministerie van BZK", "min. BZK", "Binnenlandse Zaken"):
        result = await env.call("search_publications", organisation=written, limit=10, ctx=env.context())
        assert env.requests[-1].raw_path.endswith("&organisatie=" + bzk.replace(" ", "%2520")), written
        assert result["precision"]["total"] == _count(bzk) > 0, written
        assert f"{written!r} read as {bzk!r}" in result["precision"]["matched"]
    vws = await env.call("search_publications", organisation="VWS")
    assert vws["precision"]["total"] == _count("ministerie van Volksgezondheid, Welzijn en Sport") > 0
    # Two bodies are called Utrecht: the one with more publications is chosen, and the other is named.
    utrecht = await env.call("search_publications", organisation="Utrecht")
    chosen = max(("gemeente Utrecht", "provincie Utrecht"), key=_count)
    other = ({"gemeente Utrecht", "provincie Utrecht"} - {chosen}).pop()
    assert utrecht["precision"]["total"] == _count(chosen)
    assert f"read as {chosen!r}" in utrecht["precision"]["matched"] and other in utrecht["precision"]["matched"]


async def test_an_unknown_organisation_is_refused_with_the_closest_names(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match=r"organisation 'gemeente Utrehct' is not a known organisation; the "
                                             r"closest are: gemeente Utrecht"):
        await env.call("search_publications", organisation="gemeente Utrehct")
    assert len(env.requests) == 1  # only the list of bodies was asked for


async def test_read_by_any_id_form_the_platform_issues(env: PlatformHarness) -> None:
    known = "eef2edec-019e-4085-8e2e-4d3f42686431"
    for written in (known.upper(), f"{known}_1", f"https://open.overheid.nl/details/{known}",
                    f"https://open.overheid.nl/documenten/{known.upper()}/file"):
        result = await env.call("read_publication", id=written)
        assert result["publication"]["id"] == known, written
    with pytest.raises(ToolInputError, match=r"no publication 'oep-0000000000000000000000000000000000000000' "
                                             r"\(for oep-… ids the detail service may not resolve them"):
        await env.call("read_publication", id="oep-0000000000000000000000000000000000000000")
