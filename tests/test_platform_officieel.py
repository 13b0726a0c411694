"""Officiële bekendmakingen against its replica over a real socket: tools, wire shapes, load status, paging window.

The replica serves real KOOP records only (and one marked sample); the identifier grammar is checked against one
real id of every shape among KOOP's 5.5 million (tests/data/koop_identifier_shapes.txt)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from proxy.core.caller import SYSTEM_CALLER, Caller
from proxy.core.errors import ToolInputError, UpstreamStatusError
from proxy.platforms import lokaal, officieel
from proxy.platforms._sru import check_identifier, koop_params, reply_parser
from proxy.replica.officieel import XSS_ABSTRACT, XSS_TITLE, build_publications
from tests.conftest import MODES, LiveServer, client
from tests.conftest_mcp import text_of
from tests.platform_harness import PlatformHarness, harness_fixture

ANCHOR = date(2026, 10, 5)
NOW = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
KEY = "officieel"
SCOPE = ('(w.publicatienaam=="Staatscourant" OR w.publicatienaam=="Staatsblad" OR w.publicatienaam=="Tractatenblad" '
         'OR w.publicatienaam=="Kamerstuk" OR w.publicatienaam=="Handelingen" OR '
         'w.publicatienaam=="Kamervragen (Aanhangsel)" OR w.publicatienaam=="Kamervragen zonder antwoord")')


env = harness_fixture(KEY, NOW)


PUBLICATIONS = build_publications(ANCHOR, fixtures=True)


def sru_query(**params: str) -> list[tuple[str, str]]:
    return [("operation", "searchRetrieve"), ("version", "2.0"), ("recordSchema", "gzd"), *params.items()]


# --------------------------------------------------------------------------- search_publications


async def test_search_by_dossier_sends_the_documented_cql(env: PlatformHarness) -> None:
    result = await env.call("search_publications", dossier="22112")
    assert [(s.method, s.path) for s in env.requests] == [("GET", "/officieel/sru")]
    assert env.requests[0].pairs == sru_query(
        startRecord="1", maximumRecords="20",  # the default 10 asked as the block of 20 that holds it
        query=f'c.product-area=="officielepublicaties" AND {SCOPE} AND w.dossiernummer=="22112" '
              "sortBy dt.available/sort.descending")
    assert env.requests[0].headers["Accept"] == "application/xml"
    assert [r["identifier"] for r in result["results"]] == ["kst-22112-3185"]  # a recorded KOOP record
    hit = result["results"][0]
    assert hit["medium"] == "kst" and hit["publication_name"] == "Kamerstuk"
    assert hit["citation"]["text"] == ("Kamerstukken 22112, nr. 3185 (kst-22112-3185), Tweede Kamer der "
                                       "Staten-Generaal, gepubliceerd 2021-09-27")
    assert result["precision"] == {"total": 1, "total_relation": "estimate", "returned": 1, "truncated": False,
                                   "matched": result["precision"]["matched"], "not_applied": [], "partial": False,
                                   "next_offset": None}
    assert "dossier number is exactly '22112'" in result["precision"]["matched"]


async def test_search_staatsblad_by_type_and_organisation(env: PlatformHarness) -> None:
    result = await env.call("search_publications", media=["stb"], publication_type="Wet", organisation="Defensie",
                            limit=50)
    query = env.requests[0].query["query"]
    assert query == ('c.product-area=="officielepublicaties" AND w.publicatienaam=="Staatsblad" AND '
                     'dt.creator=="Ministerie van Defensie" AND w.organisatietype=="ministerie" AND dt.type=="Wet" '
                     'sortBy dt.available/sort.descending')
    expected = [p for p in PUBLICATIONS if p.publication_name == "Staatsblad" and p.type == "Wet"
                and p.creator == "Ministerie van Defensie"]
    assert result["precision"]["total"] == len(expected)
    ids = {r["identifier"] for r in result["results"]}
    assert {"stb-2025-252", "stb-2025-250"} <= ids  # the recorded Staatsblad records
    assert all(r["organisation"] == "Ministerie van Defensie" for r in result["results"])


async def test_script_payloads_come_back_as_plain_data(env: PlatformHarness) -> None:
    result = await env.call("search_publications", query="luchtvaart", media=["stcrt"])
    hit = next(r for r in result["results"] if "<script>" in r["title"])
    assert (hit["title"], hit["abstract"]) == (XSS_TITLE, XSS_ABSTRACT)


# --------------------------------------------------------------------------- read_publication


async def test_read_a_recorded_handeling_with_its_xml_text(env: PlatformHarness) -> None:
    result = await env.call("read_publication", identifier="h-tk-20202021-101-5")
    assert [s.path for s in env.requests] == [
        "/officieel/sru",
        "/officieel/frbr/officielepublicaties/h-tk/20202021/h-tk-20202021-101-5/1/xml/h-tk-20202021-101-5.xml"]
    assert env.requests[0].query["query"] == ('c.product-area=="officielepublicaties" AND '
                                              'dt.identifier=="h-tk-20202021-101-5"')
    assert result["title"] == "Stemming motie Meest recente situatie in Afghanistan"
    assert result["medium"] == "h" and result["date"] == "2021-08-18"
    assert "Afghanistan" in result["text"] and result["text_note"] is None


async def test_read_a_pdf_only_appendix_says_so(env: PlatformHarness) -> None:
    result = await env.call("read_publication", identifier="https://zoek.officielebekendmakingen.nl/blg-998035.html")
    assert len(env.requests) == 1  # no text to fetch
    assert result["identifier"] == "blg-998035" and result["text"] == ""
    assert result["text_note"].startswith("KOOP offers this publication only as PDF")
    assert result["pdf_url"].endswith("/blg/onopgemaakt/blg-998035/1/pdf/blg-998035.pdf")


async def test_read_refuses_local_identifiers(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="lokalebekendmakingen"):
        await env.call("read_publication", identifier="gmb-2024-123456")
    assert env.requests == []


# --------------------------------------------------------------------------- load status


async def test_measure_load_reports_each_gazette_newest_recorded_publication(env: PlatformHarness) -> None:
    report = await officieel.measure_load(env.ctx)
    newest = {code: max(date.fromisoformat(p.available) for p in PUBLICATIONS if p.publication_name == name)
              for code, name in officieel.SOURCE.media.items()}
    assert dict(report.per_medium) == newest
    assert report.per_medium["trb"] == date(2017, 3, 30)  # the one recorded Tractatenblad: trb-2017-47
    assert report.current_through == max(newest.values())
    assert [s.query["query"] for s in env.requests][:2] == [
        'c.product-area=="officielepublicaties" AND w.publicatienaam=="Staatscourant" '
        "sortBy dt.available/sort.descending",
        'c.product-area=="officielepublicaties" AND w.publicatienaam=="Staatsblad" '
        "sortBy dt.available/sort.descending"]
    gazettes = len(officieel.SOURCE.media)  # one probe each: 5 gazettes and the 2 kinds of Kamervragen
    assert all(s.query["maximumRecords"] == "1" for s in env.requests) and len(env.requests) == gazettes == 7
    _, count = await env.ctx.upstream._store.calls(SYSTEM_CALLER.key, 50)
    assert count == gazettes


# --------------------------------------------------------------------------- failures


async def test_startrecord_past_the_window_is_the_platform_504(env: PlatformHarness) -> None:
    parse = reply_parser(KEY, "Official publications")
    with pytest.raises(UpstreamStatusError, match="HTTP 504"):
        await env.ctx.upstream.get("", parse, params=koop_params("dt.title=wet", start=10_000, maximum=1),
                                   caller=Caller.session("test"))


# --------------------------------------------------------------------------- live fidelity (issue 11)


async def test_handelingen_are_cited_with_session_year_and_item(env: PlatformHarness) -> None:
    result = await env.call("read_publication", identifier="h-tk-20202021-101-5")
    assert result["session_year"] == "2020-2021" and result["item"] == "5"
    assert result["citation"]["text"].startswith(
        "Handelingen II 2020/21, nr. 101, item 5, vergadering van 2021-08-18 (h-tk-20202021-101-5)")
    senate = await env.call("read_publication", identifier="h-ek-20212022-2-7")
    assert senate["citation"]["text"].startswith("Handelingen I 2021/22, nr. 2, item 7")


async def test_appendices_are_cited_as_appendices(env: PlatformHarness) -> None:
    result = await env.call("read_publication", identifier="blg-998035")
    assert result["main_document"] == "kst-27926-347"
    assert result["citation"]["text"].startswith(
        "Bijlage bij Kamerstukken 27926, nr. 347 (kst-27926-347) (blg-998035)")
    loose = await env.call("read_publication", identifier="blg-1000226")  # no main document recorded
    assert loose["citation"]["text"].startswith("Bijlage bij Kamerstukken 32813, nr. 864 (blg-1000226)")


# --------------------------------------------------------------------------- real identifier grammar (issue 20)

SHAPES = Path(__file__).parent / "data" / "koop_identifier_shapes.txt"
LOCAL_FAMILIES = ("gmb-", "prb-", "wsb-", "bgr-")
REAL_IDS = [line.strip() for line in SHAPES.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def test_every_real_identifier_shape_is_accepted_by_its_own_source_only() -> None:
    """One real id per shape (2,300 shapes of KOOP's 5,533,825 ids); the old grammar refused 138,464 real ids."""
    assert len(REAL_IDS) == 2300
    for identifier in REAL_IDS:
        own, other = (lokaal.SOURCE, officieel.SOURCE) if identifier.startswith(LOCAL_FAMILIES) else (
            officieel.SOURCE, lokaal.SOURCE)
        assert check_identifier(own, identifier) == identifier
        with pytest.raises(ToolInputError):
            check_identifier(other, identifier)


@pytest.mark.parametrize("identifier", [
    "kv-tk-2020Z13248", "kv-ek-215160000", "nds-tk-2015D00006", "nds-wwi0800141-b1", "ag-tk-2021-05-21",
    "ah-ek-20192020-10", "ah-tk-20202021-3235", "h-tk-20202021-87-3", "kst-35300-X-63", "stb-2021-419-n1",
    "stcrt-2019-13588-p1-SC1", "h-tk-20092010-19-1508_1", "kst-32302--B", "blg-936562", "trb-2017-47"])
def test_real_identifier_families_are_read_as_identifiers(identifier: str) -> None:
    assert identifier in REAL_IDS or officieel.ID_PATTERN.fullmatch(identifier)
    assert check_identifier(officieel.SOURCE, identifier) == identifier


@pytest.mark.parametrize("identifier,title", [
    ("kv-tk-2020Z13248", "Huisbazen die weigeren loden leidingen te vervangen"),
    ("nds-tk-2015D00006", "Reactie inzake Brandbrief over de massale uitsluiting van ZZP'ers in de zorg per 1 "
                          "januari 2015"),
    ("ag-tk-2021-05-21", "Langetermijnagenda incl. stemmingslijst week 21;2021-05-21")])
async def test_read_a_real_record_of_a_family_the_old_grammar_refused(env: PlatformHarness, identifier: str,
                                                                      title: str) -> None:
    result = await env.call("read_publication", identifier=identifier)
    assert env.requests[0].query["query"] == f'c.product-area=="officielepublicaties" AND dt.identifier=="{identifier}"'
    assert result["identifier"] == identifier and result["title"] == title
    assert result["citation"]["uri"] == f"https://zoek.officielebekendmakingen.nl/{identifier}.html"


async def test_kv_ek_record_reads_with_its_senate_creator(env: PlatformHarness) -> None:
    result = await env.call("read_publication", identifier="kv-ek-215160000")
    assert result["organisation"] == "Eerste Kamer der Staten-Generaal" and result["published"] == "2015-10-01"


async def test_a_recorded_text_is_served_as_recorded(env: PlatformHarness) -> None:
    result = await env.call("read_publication", identifier="kst-32545-143", length=5000)
    assert env.requests[1].path.endswith("/kst/32545/kst-32545-143/1/xml/kst-32545-143.xml")
    assert "grensspaarsaldo" in result["text"] and "Vergaderjaar 2020-2021" in result["text"]


def test_no_generated_text_is_served_as_a_publication() -> None:
    made_up = [p for p in PUBLICATIONS if not p.origin]
    assert [p.title.startswith("Voorbeeld") for p in made_up] == [True]
    assert not any("gegenereerd" in " ".join(p.paragraphs) for p in PUBLICATIONS)


@pytest.mark.parametrize("mode", MODES)
async def test_real_families_through_the_sdk(server: LiveServer, mode: str) -> None:
    async with client(server.url("officielebekendmakingen"), mode) as c:
        for identifier in ("kv-tk-2020Z13248", "kv-ek-215160000", "nds-tk-2015D00006"):
            result = await c.call_tool("read_publication", {"identifier": identifier})
            assert not result.is_error, text_of(result)
            assert result.structured_content["identifier"] == identifier


# --------------------------------------------------------------------------- organisations and words (issue 21)


def _ids(result: dict[str, Any]) -> set[str]:
    return {r["identifier"] for r in result["results"]}


async def test_a_ministry_by_its_abbreviation_is_sent_as_its_creator_name(env: PlatformHarness) -> None:
    # Before: dt.creator="BZK" found nothing (KOOP publishes under the ministry's full name).
    name = "Ministerie van Binnenlandse Zaken en Koninkrijksrelaties"
    bzk = {p.identifier for p in PUBLICATIONS if p.creator == name}
    result = await env.call("search_publications", organisation="BZK", limit=50)
    assert _ids(result) == bzk and len(bzk) == 3
    assert ('dt.creator=="Ministerie van Binnenlandse Zaken en Koninkrijksrelaties" AND '
            'w.organisatietype=="ministerie"') in env.requests[-1].query["query"]
    assert "read as the ministerie van Binnenlandse Zaken en Koninkrijksrelaties (mnre1034)" in \
        result["precision"]["matched"]


async def test_a_ministry_is_found_under_each_official_name_it_had(env: PlatformHarness) -> None:
    result = await env.call("search_publications", organisation="Economische Zaken en Klimaat", limit=50)
    assert _ids(result) == {"stb-2025-247"}
    assert ('(dt.creator=="Ministerie van Economische Zaken" OR '
            'dt.creator=="Ministerie van Economische Zaken en Klimaat")') in env.requests[-1].query["query"]


async def test_a_municipality_in_the_staatscourant_and_the_chambers(env: PlatformHarness) -> None:
    # Before: dt.creator="gemeente Haarlem" found nothing (KOOP stores "Haarlem").
    assert _ids(await env.call("search_publications", organisation="gemeente Haarlem")) == {"stcrt-2021-100"}
    # The real record's creator is "Haarlem"; the Staatscourant also holds gemeenten as "gemeente <name>", which
    # the platform's own search site sends: both go, OR'ed, with the organisation type.
    assert ('(dt.creator=="Haarlem" OR dt.creator=="gemeente Haarlem") AND w.organisatietype=="gemeente"'
            in env.requests[-1].query["query"])
    senate = await env.call("search_publications", organisation="Eerste Kamer", limit=50)
    searched = set(officieel.SOURCE.media.values())
    assert _ids(senate) == {p.identifier for p in PUBLICATIONS if p.creator == "Eerste Kamer der Staten-Generaal"
                            and p.publication_name in searched}
    assert 'dt.creator=="Eerste Kamer der Staten-Generaal"' in env.requests[-1].query["query"]


async def test_kamervragen_and_their_answers_are_found(env: PlatformHarness) -> None:
    # Failed before: only five w.publicatienaam values were searched, so the real Kamervragen (Aanhangsel)
    # ah-tk-20202021-3235 (answered questions on the Tozo) and kv-tk records could be read but never found.
    tozo = await env.call("search_publications", query="Tozo", limit=50)
    assert "ah-tk-20202021-3235" in _ids(tozo)
    answered = await env.call("search_publications", media=["ah"], limit=50)
    assert 'w.publicatienaam=="Kamervragen (Aanhangsel)"' in env.requests[-1].query["query"]
    assert _ids(answered) == {p.identifier for p in PUBLICATIONS if p.publication_name == "Kamervragen (Aanhangsel)"}
    assert all(r["medium"] == "ah" for r in answered["results"])
    open_questions = await env.call("search_publications", media=["kv"], limit=50)
    assert _ids(open_questions) == {p.identifier for p in PUBLICATIONS
                                    if p.publication_name == "Kamervragen zonder antwoord"} != set()


async def test_every_word_in_any_order(env: PlatformHarness) -> None:
    # Before: "begrotingsstaat wijziging" went as one phrase and missed "tot wijziging van de begrotingsstaat".
    result = await env.call("search_publications", media=["stb"], query="begrotingsstaat wijziging Defensie", limit=50)
    assert _ids(result) == {"stb-2025-252"}
    assert "every word must occur, in any order" in result["precision"]["matched"]


@pytest.mark.parametrize("mode", MODES)
async def test_organisations_and_words_through_the_sdk(server: LiveServer, mode: str) -> None:
    async with client(server.url("officielebekendmakingen"), mode) as c:
        found = await c.call_tool("search_publications", {"organisation": "BZK", "query": "begrotingsstaat wijziging"})
        assert not found.is_error, text_of(found)
        assert {r["identifier"] for r in found.structured_content["results"]} == {"stb-2025-240", "stb-2025-241"}
