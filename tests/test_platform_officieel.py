"""Officiële bekendmakingen against its replica over a real socket: tools, wire shapes, load status, paging window."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from proxy.caller import SYSTEM_CALLER, Caller
from proxy.errors import ToolInputError, UpstreamStatusError
from proxy.platforms import officieel
from proxy.platforms._sru import koop_params, reply_parser
from proxy.replica.officieel import NEWEST, TRACTATENBLAD_STALLED_DAYS, XSS_ABSTRACT, XSS_TITLE, build_publications
from tests.platform_harness import PlatformHarness, harness_fixture

ANCHOR = date(2026, 10, 5)
NOW = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
KEY = "officieel"
SCOPE = ('(w.publicatienaam=="Staatscourant" OR w.publicatienaam=="Staatsblad" OR w.publicatienaam=="Tractatenblad" '
         'OR w.publicatienaam=="Kamerstuk" OR w.publicatienaam=="Handelingen")')


env = harness_fixture(KEY, NOW)


PUBLICATIONS = build_publications(ANCHOR)


def sru_query(**params: str) -> list[tuple[str, str]]:
    return [("operation", "searchRetrieve"), ("version", "2.0"), ("recordSchema", "gzd"), *params.items()]


# --------------------------------------------------------------------------- search_publications


async def test_search_by_dossier_sends_the_documented_cql(env: PlatformHarness) -> None:
    result = await env.call("search_publications", dossier="22112")
    assert [(s.method, s.path) for s in env.requests] == [("GET", "/officieel/sru")]
    assert env.requests[0].pairs == sru_query(
        startRecord="1", maximumRecords="10",
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
                     'dt.creator="Defensie" AND dt.type=="Wet" sortBy dt.available/sort.descending')
    expected = [p for p in PUBLICATIONS if p.publication_name == "Staatsblad" and p.type == "Wet"
                and "defensie" in p.creator.lower()]
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


async def test_measure_load_reports_each_gazette_and_the_stalled_tractatenblad(env: PlatformHarness) -> None:
    report = await officieel.measure_load(env.ctx)
    assert dict(report.per_medium) == {m: ANCHOR - timedelta(days=d) for m, d in NEWEST.items()}
    assert report.per_medium["trb"] == ANCHOR - timedelta(days=TRACTATENBLAD_STALLED_DAYS)
    assert report.current_through == ANCHOR
    assert [s.query["query"] for s in env.requests][:2] == [
        'c.product-area=="officielepublicaties" AND w.publicatienaam=="Staatscourant" '
        "sortBy dt.available/sort.descending",
        'c.product-area=="officielepublicaties" AND w.publicatienaam=="Staatsblad" '
        "sortBy dt.available/sort.descending"]
    assert all(s.query["maximumRecords"] == "1" for s in env.requests) and len(env.requests) == 5
    _, count = await env.ctx.upstream._store.calls(SYSTEM_CALLER.key, 50)
    assert count == 5


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
