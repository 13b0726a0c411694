"""Open Overheid (Woo) adapter against its replica over a real socket: ids, wire format, precision, load status.

The replica serves real publications only (the platform's own normaliser output of real rijksoverheid.nl records,
and one live answer quoted in client code) plus one marked sample; the organisation table is checked against the
TOOI registers and the DiWoo ministerielijst (tests/data/woo_organisation_names.json)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import aiohttp
import pytest

from proxy.core.errors import ToolInputError
from proxy.platforms import woo
from proxy.platforms.woo import publication_id
from proxy.replica.woo import KNOWN_ID, XSS_TITLE, Publication, build_publications
from proxy.serving.loadstatus import status_from_report
from tests.conftest import MODES, LiveServer, client
from tests.conftest_mcp import text_of
from tests.platform_harness import PlatformHarness, Seen, harness_fixture

KEY = "woo"
ANCHOR = date(2026, 11, 30)
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
API = "/woo/overheid/openbaarmakingen/api/v0"
WOB_DECISION = "ronl-da6e58c6e8ea4fea47cedfaaec0368567464976b"
FRAUD_REPORT = "ronl-archief-509289b52e350c0053c812f3f723ba52c9d11472"


env = harness_fixture(KEY, NOW)


def _publications() -> list[Publication]:
    return list(build_publications(ANCHOR, fixtures=True).values())


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
    result = await env.call("search_publications", query="Wob-verzoek", organisation="ministerie van Financiën",
                            date_from="2022-01-01", date_to="2022-12-31", sort="newest", limit=8)
    listing, request = env.requests  # the platform's list of bodies, to check the name against; then the search
    assert listing.raw_path == f"{API}/zoek?zoektekst=&start=0&aantalResultaten=10"
    assert request.raw_path == (
        f"{API}/zoek?zoektekst=Wob-verzoek&start=0&aantalResultaten=10&sort=publicatiedatum"
        "&publicatiedatumVan=01-01-2022&publicatiedatumTot=31-12-2022"
        "&organisatie=ministerie%2520van%2520Financi%25C3%25ABn")
    assert request.headers["Accept"] == "application/json"
    assert [r["id"] for r in result["results"]] == [WOB_DECISION]
    hit = result["results"][0]
    assert hit["title"] == "Besluit op Wob-verzoek over toepassing artikel 11.5 van de Algemene douaneregeling (Adr)"
    assert hit["published"] == "2022-02-02" and hit["version"] == 1
    assert hit["citation"]["uri"] == f"https://open.overheid.nl/documenten/{WOB_DECISION}"
    precision = result["precision"]
    assert precision["total"] == 1 and precision["total_relation"] == "estimate"
    assert "not documented as exact" in precision["matched"]


async def test_search_encodes_a_category_label_twice_and_finds_the_quoted_record(env: PlatformHarness) -> None:
    label = "ontwerpen van wet- en regelgeving met adviesaanvraag"
    result = await env.call("search_publications", information_category=label, limit=10)
    assert _search_request(env).raw_path == (
        f"{API}/zoek?zoektekst=&start=0&aantalResultaten=10&sort=publicatiedatum"
        "&informatiecategorie=ontwerpen%2520van%2520wet-%2520en%2520regelgeving%2520met%2520adviesaanvraag")
    assert [r["id"] for r in result["results"]] == [KNOWN_ID]
    hit = result["results"][0]  # the hit exactly as the live service answered it (quoted in tkconv)
    assert (hit["title"], hit["published"], hit["file_size"], hit["pages"]) == (
        "Kaart Oudemolen 10km", "2026-03-21", "0.94 MB", 1)
    assert hit["modified"] == "2026-03-21T09:23:36.587Z"


async def test_search_ranks_by_relevance_and_returns_payloads_as_text(env: PlatformHarness) -> None:
    result = await env.call("search_publications", query="zaaksystemen")
    assert "sort=" not in _search_request(env).raw_path  # relevance is the platform's default order
    assert result["results"][0]["title"] == XSS_TITLE
    assert "<img src=x onerror=alert(1)>" in (result["results"][0]["description"] or "")
    assert "<b>" not in (result["results"][0]["snippet"] or "")  # highlight markup removed, the text kept


def _search_request(env: PlatformHarness) -> Seen:
    """The search a search_publications call sent; the other requests read its hits' publications."""
    search, *reads = env.requests
    assert all(r.path.startswith(f"{API}/zoek/") for r in reads) and len(reads) <= 10, [r.raw_path for r in reads]
    return search


async def test_search_rows_name_the_body_responsible_not_onbekend(env: PlatformHarness) -> None:
    # Real hits name only a publisher: "Onbekend" (TOOI organisatie_onbekend) for six of the rijksoverheid.nl
    # records, and the ministry of Algemene Zaken, which runs rijksoverheid.nl, for its archive; the citation
    # said "Onbekend". The body responsible is the publication's verantwoordelijke.
    result = await env.call("search_publications", limit=20)
    rows = {r["id"]: r for r in result["results"]}
    fraud = rows["ronl-da6e58c6e8ea4fea47cedfaaec0368567464976b"]
    assert fraud["publisher"] is None and fraud["responsible"] == "ministerie van Financiën"
    assert "Onbekend" not in fraud["citation"]["text"] and "ministerie van Financiën" in fraud["citation"]["text"]
    archive = rows["ronl-archief-0eefeed1eed89be33ada6d355491da6345fec636"]
    assert archive["publisher"] == "ministerie van Algemene Zaken"
    assert archive["responsible"] == "ministerie van Economische Zaken en Klimaat"
    assert all(r["responsible"] for r in result["results"][:10])
    assert sum(1 for r in env.requests if r.path.startswith(f"{API}/zoek/")) == 10  # at most the first ten read


async def test_an_organisation_asked_for_is_the_body_responsible_without_reading(env: PlatformHarness) -> None:
    result = await env.call("search_publications", organisation="ministerie van Defensie", limit=10)
    assert {r["responsible"] for r in result["results"]} == {"ministerie van Defensie"}
    assert not [r for r in env.requests if r.path.startswith(f"{API}/zoek/")]


# --------------------------------------------------------------------------- read_publication


async def test_read_publication_lists_files_and_attachments_with_citations(env: PlatformHarness) -> None:
    result = await env.call("read_publication", id=f"{FRAUD_REPORT}_1")
    assert env.only_request().raw_path == f"{API}/zoek/{FRAUD_REPORT}"
    publication = result["publication"]
    assert publication["title"] == "Frauderapport OV-chipkaart"
    assert publication["responsible"] == "ministerie van Infrastructuur en Waterstaat"
    assert publication["document_kinds"] == ["Kamerstuk"]
    related = [d for d in result["results"] if d["kind"] == "related"]
    assert [d["id"] for d in related] == ["ronl-archief-86a23c3bb4bf9e90e5b35a309906d6c4f7478854",
                                          "ronl-archief-787f40d430d1b01df3c39ef0c0f441f75bbf0acc"]
    assert {d["role"] for d in related} == {"bijlage"}  # PLOOI's own relation vocabulary
    assert all(d["citation"]["uri"] == d["url"] for d in result["results"])
    attachment = await env.call("read_publication", id=related[0]["url"])
    assert attachment["publication"]["title"] == "201125843 bijlage 1.pdf"
    assert [d["id"] for d in attachment["results"] if d["kind"] == "related"] == [FRAUD_REPORT]


async def test_read_publication_shows_only_published_files(env: PlatformHarness) -> None:
    result = await env.call("read_publication", id="ronl-16bac8e0eb30525cc2655d53d4fb50b5acabfb30")
    files = [d for d in result["results"] if d["kind"] == "file"]
    assert [(f["file_name"], f["mime_type"]) for f in files] == [("02 advies nieuwe media.pdf", "application/pdf")]


async def test_read_publication_refuses_unknown_ids(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="no publication 'oep-doesnotexist'"):
        await env.call("read_publication", id="oep-doesnotexist")


# --------------------------------------------------------------------------- load status


async def test_measure_load_reports_the_newest_recorded_disclosure(env: PlatformHarness) -> None:
    report = await woo.measure_load(env.ctx)
    assert env.requests[-1].raw_path == f"{API}/zoek?zoektekst=&start=0&aantalResultaten=10&sort=publicatiedatum"
    assert report.current_through == date(2026, 3, 21) == max(p.published for p in _publications())
    status = status_from_report(env.platform, report, today=ANCHOR,
                                stalled_after_days=env.registry.load_status.stalled_after_days, measured_at=NOW)
    assert status["receiving"] is False and status["current_through"] == "2026-03-21"


# --------------------------------------------------------------------------- replica fidelity


async def test_replica_enforces_page_sizes_and_bare_ids(env: PlatformHarness) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{env.url}{API}/zoek?zoektekst=&start=0&aantalResultaten=15") as resp:
            assert resp.status == 400 and "aantalResultaten" in (await resp.json())["detail"]
        async with session.get(f"{env.url}{API}/zoek?zoekterm=stikstof&aantalResultaten=10") as resp:
            assert (await resp.json())["totaal"] == len(_publications())  # an unknown parameter is ignored
        async with session.get(f"{env.url}{API}/zoek/{KNOWN_ID}_1") as resp:
            assert resp.status == 404
        async with session.get(f"{env.url}{API}/zoek/{KNOWN_ID}") as resp:
            body = await resp.json()
        recorded = json.loads((Path(woo.__file__).parents[1] / "replica" / "data" / "woo" /
                               "tkconv_quoted_answer.json").read_text(encoding="utf-8"))["detail"]
        assert resp.status == 200 and body == recorded  # the live answer, served as quoted


def test_no_invented_publication_but_the_marked_sample() -> None:
    made_up = [p for p in _publications() if not p.origin]
    assert [p.title.startswith("Voorbeeld") for p in made_up] == [True]
    assert len(_publications()) - len(made_up) == 13


# --------------------------------------------------------------------------- organisations (issue 20)


def _count(body: str) -> int:
    return sum(1 for p in _publications() if p.party("verantwoordelijke") == body)


async def test_organisations_by_abbreviation_or_part_of_the_name(env: PlatformHarness) -> None:
    fin = "ministerie van Financiën"
    for written in ("Fin", "ministerie van Fin", "Financien", "Financiën"):
        result = await env.call("search_publications", organisation=written, limit=10, ctx=env.context())
        assert env.requests[-1].raw_path.endswith("&organisatie=ministerie%2520van%2520Financi%25C3%25ABn"), written
        assert result["precision"]["total"] == _count(fin) > 0, written
        said = f"{written!r} read as the {fin} (mnre1090), on open.overheid.nl {fin!r}"
        assert said in result["precision"]["matched"]
    lvvn = await env.call("search_publications", organisation="LVVN")
    assert lvvn["precision"]["total"] == _count("ministerie van Landbouw, Visserij, Voedselzekerheid en Natuur") == 1


async def test_an_unknown_organisation_is_refused_with_the_closest_names(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match=r"organisation 'ministerie van Defensei' is not a known organisation; "
                                             r"the closest are: ministerie van Defensie"):
        await env.call("search_publications", organisation="ministerie van Defensei")
    assert len(env.requests) == 1  # only the list of bodies was asked for


async def test_read_by_any_id_form_the_platform_issues(env: PlatformHarness) -> None:
    for written in (KNOWN_ID.upper(), f"{KNOWN_ID}_1", f"https://open.overheid.nl/details/{KNOWN_ID}",
                    f"https://open.overheid.nl/documenten/{KNOWN_ID.upper()}/file"):
        result = await env.call("read_publication", id=written)
        assert result["publication"]["id"] == KNOWN_ID, written
    with pytest.raises(ToolInputError, match=r"no publication 'oep-0000000000000000000000000000000000000000' "
                                             r"\(for oep-… ids the detail service may not resolve them"):
        await env.call("read_publication", id="oep-0000000000000000000000000000000000000000")


NAMES = json.loads((Path(__file__).parent / "data" / "woo_organisation_names.json").read_text(encoding="utf-8"))


def test_every_organisation_table_target_is_a_real_tooi_name() -> None:
    real = {row["label"] for row in NAMES["organisations"]}
    table = json.loads((Path(woo.__file__).with_name("woo_organisations.json")).read_text(encoding="utf-8"))
    assert [e["key"] for e in table["entries"] if e["key"] not in real] == []
    assert [e["label"] for e in table["entries"] if e["label"] not in real] == []


def test_served_bodies_carry_their_real_tooi_names() -> None:
    real = {row["label"] for row in NAMES["organisations"]}
    served = {p.party("verantwoordelijke") for p in _publications() if p.origin}
    # 'ministerie van Economische Zaken en Klimaat' is in the 2022 register the platform's code carries.
    assert served <= real, served - real


@pytest.mark.parametrize("mode", MODES)
async def test_real_publications_through_the_sdk(server: LiveServer, mode: str) -> None:
    async with client(server.url("openoverheid"), mode) as c:
        result = await c.call_tool("read_publication", {"id": WOB_DECISION})
        assert not result.is_error, text_of(result)
        assert result.structured_content["publication"]["responsible"] == "ministerie van Financiën"


# --------------------------------------------------------------------------- organisations and words (issue 21)


async def test_a_ministry_is_found_under_the_label_the_platform_has_for_it(env: PlatformHarness) -> None:
    # Before: 'EZ' became 'ministerie van Economische Zaken', which no publication carries: nothing was found. The
    # platform labels mnre1045's publications with its earlier name.
    ezk = "ministerie van Economische Zaken en Klimaat"
    for written in ("EZ", "Economische Zaken", "ministerie van Economische Zaken"):
        result = await env.call("search_publications", organisation=written, ctx=env.context())
        assert result["precision"]["total"] == _count(ezk) == 1, written
        assert env.requests[-1].raw_path.endswith("&organisatie=ministerie%2520van%2520Economische%2520Zaken%2520en"
                                                  "%2520Klimaat"), written
        assert f"(mnre1045), on open.overheid.nl {ezk!r}" in result["precision"]["matched"]


async def test_a_municipality_as_people_write_it(env: PlatformHarness) -> None:
    result = await env.call("search_publications", organisation="Gouda")
    assert [r["title"] for r in result["results"]] == [XSS_TITLE]  # the marked sample is Gouda's
    assert "read as the gemeente Gouda (gm0513)" in result["precision"]["matched"]
    with pytest.raises(ToolInputError, match=r"gemeente Bergen \(NH\)"):
        await env.call("search_publications", organisation="Bergen")


async def test_words_ignore_accents_and_the_rule_is_said(env: PlatformHarness) -> None:
    folded = await env.call("search_publications", query="financien wob-verzoek")
    accented = await env.call("search_publications", query="Financiën Wob-verzoek")
    assert [r["id"] for r in folded["results"]] == [r["id"] for r in accented["results"]] != []
    assert "case and accents ignored" in folded["precision"]["matched"]
    assert woo.WORDS_RULE in woo.TOOLS[0].input_schema["properties"]["query"]["description"]


@pytest.mark.parametrize("mode", MODES)
async def test_organisations_through_the_sdk(server: LiveServer, mode: str) -> None:
    async with client(server.url("openoverheid"), mode) as c:
        found = await c.call_tool("search_publications", {"organisation": "EZ"})
        assert not found.is_error, text_of(found)
        assert [r["title"] for r in found.structured_content["results"]] == ["Kamerbrief gebruiksnorm brouwgerst"]
