"""Rechtspraak adapter against its replica of real rulings over a real socket: wire format, precision, load status,
the name tables checked against the platform's own court list, and what broke on real data."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import aiohttp
import pytest
from defusedxml import ElementTree as SafeET

from proxy.core.errors import ToolInputError
from proxy.platforms import rechtspraak
from proxy.platforms._common import aligned
from proxy.platforms.rechtspraak import AREAS, COURT_TABLE, area_uris, court_uris, normal_ecli
from proxy.replica.rechtspraak import COURT_LIST, DATA, XSS_SUMMARY, Ruling, build_rulings
from proxy.serving.loadstatus import status_from_report
from tests.conftest import LiveServer, client
from tests.conftest_mcp import text_of
from tests.platform_harness import PlatformHarness, harness_fixture

KEY = "rechtspraak"
ANCHOR = date(2026, 11, 30)
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
TERMS = "http://standaarden.overheid.nl/owms/terms/"
RVS = TERMS + "Raad_van_State"
AREA = "http://psi.rechtspraak.nl/rechtsgebied#"


env = harness_fixture(KEY, NOW)


def _rulings() -> list[Ruling]:
    return list(build_rulings(ANCHOR, fixtures=True).values())


# --------------------------------------------------------------------------- arguments


def test_courts_and_areas_become_the_platform_uris() -> None:
    assert court_uris("Raad van State") == ([RVS], "Raad van State")
    assert court_uris("rvs")[0] == [RVS]
    assert court_uris("GHSHE")[0] == ["http://standaarden.overheid.nl/owms/terms/Gerechtshof_'s-Hertogenbosch"]
    assert court_uris(RVS)[0] == [RVS]
    assert area_uris("bestuursrecht_omgevingsrecht")[0] == [AREA + "bestuursrecht_omgevingsrecht"]
    assert normal_ecli(" ecli:nl:hr:2014:952 ") == "ECLI:NL:HR:2014:952"
    with pytest.raises(ToolInputError):
        court_uris("<Raad>")
    with pytest.raises(ToolInputError):
        normal_ecli("NL:HR:2014:952")


def test_courts_and_areas_as_people_write_them() -> None:
    assert area_uris("socialezekerheidsrecht") == (
        [AREA + "bestuursrecht_socialezekerheidsrecht"],
        "Bestuursrecht; Socialezekerheidsrecht ('socialezekerheidsrecht' read as Bestuursrecht; "
        "Socialezekerheidsrecht)")
    assert area_uris("Strafrecht")[0] == [AREA + "strafrecht"]  # the platform's URI is lower case
    assert area_uris("familierecht")[0] == [AREA + "civielRecht_personenEnFamilierecht"]
    both, said = area_uris("mededingingsrecht")  # two areas share the word: both are sent, and said
    assert both == [AREA + "bestuursrecht_mededingingsrecht", AREA + "civielRecht_mededingingsrecht"]
    assert said.startswith("'mededingingsrecht' read as any of: ")
    assert court_uris("Hof Den Bosch")[0] == ["http://standaarden.overheid.nl/owms/terms/Gerechtshof_'s-Hertogenbosch"]
    assert len(court_uris("gerechtshof")[0]) == 7  # the four of today and three that ended in 2012
    with pytest.raises(ToolInputError, match=r"area_of_law 'socialezekerhied' is not a known area of law "
                                             r"\(rechtsgebied\); the closest are: Bestuursrecht; "
                                             r"Socialezekerheidsrecht"):
        area_uris("socialezekerhied")
    with pytest.raises(ToolInputError, match=r"court 'Rechtbank Utreht' is not a known court .*Rechtbank "
                                             r"Midden-Nederland|court 'Rechtbank Utreht'"):
        court_uris("Rechtbank Utreht")


def _court_list() -> dict[str, tuple[str, str]]:
    """The platform's Waardelijst/Instanties as recorded: creator URI → (Naam, Afkorting)."""
    root = SafeET.parse(DATA / COURT_LIST).getroot()
    assert root is not None
    return {i.findtext("Identifier") or "": (i.findtext("Naam") or "", i.findtext("Afkorting") or "") for i in root}


def test_the_court_table_is_the_platforms_whole_court_list() -> None:
    courts = _court_list()
    assert len(courts) == 261  # every Instantie the platform lists: courts of today, ended, Caribbean, tucht
    own = {}
    for entry in COURT_TABLE.entries:
        uri, *continued = entry.values
        assert uri in courts, f"{entry.key} is not a creator URI of data.rechtspraak.nl's Instanties list"
        name, code = courts[uri]
        assert entry.label == name.strip() and (not code or code == entry.key), entry.key
        assert all(c in courts for c in continued), entry.key
        own[uri] = entry
    assert set(own) == set(courts)


def test_todays_court_names_reach_the_same_court_before_2013() -> None:
    # Failed before: "Hof Den Haag" sent only Gerechtshof_Den_Haag, "Rechtbank Den Bosch" and "Rechtbank"
    # were refused, and the Caribbean courts, the Tariefcommissie and four rechtbanken were not in the table.
    hof, said = court_uris("Hof Den Haag")
    assert hof == [TERMS + "Gerechtshof_Den_Haag", TERMS + "Gerechtshof_'s-Gravenhage"]
    assert "continues: Gerechtshof 's-Gravenhage" in said
    assert court_uris("Rechtbank Den Bosch")[0] == [TERMS + "Rechtbank_Oost-Brabant",
                                                    TERMS + "Rechtbank_'s-Hertogenbosch"]
    assert set(court_uris("Gerechtshof Arnhem-Leeuwarden")[0]) >= {TERMS + "Gerechtshof_Arnhem",
                                                                   TERMS + "Gerechtshof_Leeuwarden"}
    everyone, said = court_uris("Rechtbank")
    assert len(everyone) == 34 and "every Rechtbank" in said and TERMS + "Rechtbank_Breda" in everyone
    assert court_uris("OGEAA")[0] == ["http://psi.rechtspraak.nl/GEA Aruba"]
    assert court_uris("Gemeenschappelijk Hof")[0][0] == "http://psi.rechtspraak.nl/GHACSMBES"
    assert court_uris("Tariefcommissie")[0] == ["http://psi.rechtspraak.nl/TariefCommissie"]
    assert court_uris("Rechtbank Zierikzee")[0] == ["http://psi.rechtspraak.nl/instantie/Kantongerecht/#RechtbankZierikzee"]


def test_every_area_real_rulings_carry_is_in_the_table() -> None:
    # No recorded Waardelijst/Rechtsgebieden exists in public material: the real documents' subject URIs stand in.
    keys = {entry.key for entry in AREAS.entries}
    carried = {area for r in _rulings() if r.source and r.source.startswith("content_") for area in r.areas}
    assert carried and carried <= keys, carried - keys


async def test_a_court_of_today_finds_the_rulings_of_the_court_it_continues(env: PlatformHarness) -> None:
    found = await env.call("search_rulings", court="Hof Den Haag", limit=10)
    assert "ECLI:NL:GHSGR:2008:BC9358" in [r["ecli"] for r in found["results"]]
    assert "Gerechtshof 's-Gravenhage" in found["precision"]["matched"]


async def test_courts_that_ended_in_2012_find_their_own_rulings(env: PlatformHarness) -> None:
    # The platform files a ruling under the court that gave it: "Rechtbank 's-Gravenhage" was read as
    # Rechtbank Den Haag and "Gerechtshof Arnhem" as Arnhem-Leeuwarden (both found nothing of theirs), and
    # "Rechtbank Breda" was refused, though all three are in the platform's list and carry real rulings.
    for court, ecli in (("Rechtbank 's-Gravenhage", "ECLI:NL:RBSGR:2012:BZ0845"),
                        ("Gerechtshof Arnhem", "ECLI:NL:GHARN:2011:BQ0376"),
                        ("RBBRE", "ECLI:NL:RBBRE:2010:BM2172")):
        found = await env.call("search_rulings", court=court, limit=10)
        assert ecli in [r["ecli"] for r in found["results"]], court


# --------------------------------------------------------------------------- search_rulings


async def test_search_sends_the_metadata_filter(env: PlatformHarness) -> None:
    result = await env.call("search_rulings", court="Raad van State", area_of_law="bestuursrecht_omgevingsrecht",
                            type="Uitspraak", date_from="2005-01-01", limit=5)
    request = env.only_request()
    assert request.path == "/rechtspraak/uitspraken/zoeken"
    assert request.pairs == [
        ("type", "Uitspraak"), ("creator", RVS),
        ("subject", "http://psi.rechtspraak.nl/rechtsgebied#bestuursrecht_omgevingsrecht"),
        ("date", "2005-01-01"), ("date", "2026-11-30"),  # an open end closes at today (server clock)
        ("return", "DOC"), ("max", "20"), ("from", "0"), ("sort", "DESC"),  # the block of 20 holding the 5
    ]
    assert "%23bestuursrecht_omgevingsrecht" in request.raw_path  # '#' must not end the URL

    expected = [r for r in _rulings() if not r.deleted and r.court == "Raad van State" and r.has_doc
                and "bestuursrecht_omgevingsrecht" in r.areas and r.type == "Uitspraak"
                and date(2005, 1, 1) <= r.date <= ANCHOR]
    assert "ECLI:NL:RVS:2005:AU8740" in {r.ecli for r in expected}  # a real one, with the made-up recent one
    precision = result["precision"]
    assert precision["total"] == len(expected) and precision["total_relation"] == "exact"
    assert "metadata filter only" in precision["matched"] and precision["not_applied"] == []
    newest = sorted(expected, key=lambda r: (r.modified, r.ecli), reverse=True)[:5]
    assert [r["ecli"] for r in result["results"]] == [r.ecli for r in newest]
    first = result["results"][0]
    assert first["court"] == "Raad van State" and first["date"] == newest[0].date.isoformat()
    assert first["citation"]["uri"] == f"https://uitspraken.rechtspraak.nl/details?id={first['ecli']}"


# --------------------------------------------------------------------------- full text (the website's search)


def _holding(*words: str) -> list[Ruling]:
    """Rulings whose text (a feed entry's or made-up one's: title and summary) holds any of the words as a whole
    word: what the replica's search matches."""
    found = []
    for r in _rulings():
        if r.deleted:
            continue
        text = " ".join(SafeET.fromstring(r.document.encode()).itertext()) if r.document else f"{r.title} {r.summary}"
        if any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text, re.IGNORECASE) for w in words):
            found.append(r)
    return found


async def test_words_go_to_the_websites_full_text_search(env: PlatformHarness) -> None:
    # The feed drops every word (not_applied, and `search` on /rechtspraak failed on every call); the website's
    # search finds them in the recorded rulings' text.
    result = await env.call("search_rulings", query="terugvordering bijstand", limit=5)
    request = env.only_request()
    assert request.method == "POST" and request.path == "/rechtspraak/api/zoek"
    assert request.body["SearchTerms"] == [{"Term": "terugvordering bijstand", "Field": "AlleVelden"}]
    assert (request.body["StartRow"], request.body["PageSize"], request.body["SortOrder"]) == (0, 5, "Relevance")
    assert request.body["Advanced"] == {"PublicatieStatus": "AlleenGepubliceerd"}
    holding = {r.ecli for r in _holding("terugvordering", "bijstand")}
    assert "ECLI:NL:CRVB:2013:1886" in holding
    precision = result["precision"]
    assert precision["total"] == len(holding) and precision["not_applied"] == []
    assert "best effort" in precision["matched"] and "full text" in precision["matched"]
    eclis = [r["ecli"] for r in result["results"]]
    both = {r.ecli for r in _holding("terugvordering")} & {r.ecli for r in _holding("bijstand")}
    assert set(eclis) <= holding and eclis[0] in both  # a ruling holding both words ranks first
    crvb = next(r for r in result["results"] if r["ecli"] == "ECLI:NL:CRVB:2013:1886")
    assert crvb["court"] == "Centrale Raad van Beroep" and crvb["date"] == "2013-05-21"
    assert "<b>" not in crvb["summary"] and "bijstand" in crvb["summary"].lower()


async def test_a_quoted_phrase_matches_whole(env: PlatformHarness) -> None:
    phrase = await env.call("search_rulings", query='"redelijke termijn"', limit=10)
    loose = await env.call("search_rulings", query="redelijke termijn", limit=10)
    assert 0 < phrase["precision"]["total"] < loose["precision"]["total"]
    assert "ECLI:NL:GHAMS:2020:3025" in [r["ecli"] for r in phrase["results"]]


async def test_court_area_and_period_narrow_the_most_relevant_hits(env: PlatformHarness) -> None:
    result = await env.call("search_rulings", query="belasting", court="Hoge Raad", area_of_law="belastingrecht",
                            date_from="1996-01-01", date_to="1996-12-31", limit=10)
    assert env.only_request().body["PageSize"] == 100  # filters applied here, to the 100 most relevant hits
    expected = {r.ecli for r in _holding("belasting") if r.court_code == "HR" and r.date.year == 1996
                and "bestuursrecht_belastingrecht" in r.areas}
    assert expected and {r["ecli"] for r in result["results"]} == expected
    matched = result["precision"]["matched"]
    assert "court Hoge Raad" in matched and "ruling date 1996-01-01 to 1996-12-31" in matched
    assert result["precision"]["total"] == len(expected) and result["precision"]["total_relation"] == "exact"


async def test_a_court_of_today_narrows_words_to_the_courts_it_continues(env: PlatformHarness) -> None:
    result = await env.call("search_rulings", query="vechtpartij", court="Hof Den Haag", limit=10)
    assert "ECLI:NL:GHSGR:2008:BC9358" in [r["ecli"] for r in result["results"]]


async def test_when_the_full_text_search_fails_the_feed_answers_and_says_so(env: PlatformHarness) -> None:
    env.faults.update({"error_rate": 1.0, "status": 503, "only_paths": ["/api/zoek"]})
    try:
        result = await env.call("search_rulings", query="windturbine geluid", court="Raad van State", limit=5)
    finally:
        env.faults.clear()
    assert [s.path for s in env.requests][-1] == "/rechtspraak/uitspraken/zoeken"
    precision = result["precision"]
    assert precision["not_applied"][0].startswith("search words 'windturbine geluid': the full-text search")
    assert "NOT applied" in precision["matched"] and result["results"]


async def test_search_counts_withdrawn_entries_in_paging(env: PlatformHarness) -> None:
    listed = sorted((r for r in _rulings() if r.deleted or r.has_doc), key=lambda r: (r.modified, r.ecli),
                    reverse=True)
    at = next(n for n, r in enumerate(listed) if r.deleted)
    result = await env.call("search_rulings", limit=10, offset=at)
    window = aligned(at, 10, most=1000)  # the block holding positions at..at+9, or exactly those
    assert env.only_request().pairs == [("return", "DOC"), ("max", str(window.size)), ("from", str(window.start)),
                                        ("sort", "DESC")]
    precision = result["precision"]
    assert precision["total"] == len(listed)  # the feed counts withdrawn ECLIs too
    withdrawn_here = sum(r.deleted for r in listed[at:at + 10])
    assert precision["returned"] == 10 - withdrawn_here < 10
    assert precision["next_offset"] == at + 10  # paging steps over the withdrawn entries as well
    assert "withdrawn entr" in precision["matched"]
    assert listed[at].ecli not in {r["ecli"] for r in result["results"]}


async def test_search_returns_stale_court_and_payload_summaries_verbatim(env: PlatformHarness) -> None:
    assen = await env.call("search_rulings", court="Rechtbank Assen", limit=50)
    assert assen["precision"]["total"] == 10  # the recorded 2004-2005 feed entries
    assert all(r["date"] < "2006" for r in assen["results"])
    assert "ECLI:NL:RBASS:2004:2180" in {r["ecli"] for r in assen["results"]}  # title wrapped by an editor, folded
    xss = await env.call("search_rulings", court="RVS", area_of_law="bestuursrecht_omgevingsrecht", limit=50)
    assert XSS_SUMMARY in {r["summary"] for r in xss["results"]}


# --------------------------------------------------------------------------- read_ruling


async def test_read_ruling_serves_recorded_text_in_chunks(env: PlatformHarness) -> None:
    first = await env.call("read_ruling", ecli="ecli:nl:phr:2011:bp5608", length=1000)
    request = env.only_request()
    assert request.path == "/rechtspraak/uitspraken/content"
    assert request.pairs == [("id", "ECLI:NL:PHR:2011:BP5608")]
    assert first["type"] == "Conclusie" and first["court"] == "Parket bij de Hoge Raad"
    assert first["date"] == "2011-05-27" and first["published"] == "2013-04-05"
    assert first["summary"].startswith("(Art. 81 RO). Procesrecht.")
    assert first["found_in"] == ["Rechtspraak.nl", "RvdW 2011/687", "JWB 2011/282"]
    assert first["text"].startswith("09/04566\nmr. M.H. Wissink") and first["next_offset"] == 1000
    assert first["has_text"] is True and first["total_length"] > 30000
    second = await env.call("read_ruling", ecli="ECLI:NL:PHR:2011:BP5608", offset=1000, length=1000)
    assert second["offset"] == 1000 and second["text"] != first["text"]
    assert first["citation"]["uri"] == "https://uitspraken.rechtspraak.nl/details?id=ECLI:NL:PHR:2011:BP5608"


async def test_read_ruling_handles_metadata_only_feed_only_and_real_rulings(env: PlatformHarness) -> None:
    meta_only = await env.call("read_ruling", ecli="ECLI:NL:CBB:1997:ZG0125")
    assert meta_only["has_text"] is False and meta_only["text"] == "" and meta_only["next_offset"] is None
    assert meta_only["references"] == ["Algemene wet bestuursrecht 1:3", "Warenwet 5"]
    feed_only = await env.call("read_ruling", ecli="ECLI:NL:HR:2024:1244")  # a recorded feed entry, no document
    assert feed_only["court"] == "Hoge Raad" and feed_only["date"] == "2024-09-20"
    assert feed_only["summary"] == "HR: 81.1 RO." and feed_only["has_text"] is False
    real = await env.call("read_ruling", ecli="ECLI:NL:CRVB:2014:355")
    assert real["date"] == "2014-02-06" and real["court"] == "Centrale Raad van Beroep"
    assert real["areas_of_law"] == ["Bestuursrecht; Socialezekerheidsrecht"] and real["has_text"] is True


async def test_read_ruling_refuses_unknown_and_malformed_eclis(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="no published ruling ECLI:NL:HR:2099:1"):
        await env.call("read_ruling", ecli="ECLI:NL:HR:2099:1")
    with pytest.raises(ToolInputError, match="must look like"):
        await env.call("read_ruling", ecli="uitspraak 2014 952")


# --------------------------------------------------------------------------- load status


async def test_measure_load_reports_the_newest_publication(env: PlatformHarness) -> None:
    report = await rechtspraak.measure_load(env.ctx)
    assert env.requests[-1].pairs == [("type", "Uitspraak"), ("return", "DOC"), ("max", "20"), ("from", "0"),
                                  ("sort", "DESC")]
    newest = max(r.modified for r in _rulings() if not r.deleted and r.type == "Uitspraak")
    assert report.current_through == newest.date() >= date(2026, 11, 29)
    status = status_from_report(env.platform, report, today=ANCHOR,
                                stalled_after_days=env.registry.load_status.stalled_after_days, measured_at=NOW)
    assert status["receiving"] is True


# --------------------------------------------------------------------------- replica fidelity


async def _get(env: PlatformHarness, path: str, params: list[tuple[str, str]]) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(env.url + "/rechtspraak" + path,
                                                                params=params) as resp:
        return resp.status, await resp.text()


async def test_replica_ignores_unknown_parameters_and_checks_known_ones(env: PlatformHarness) -> None:
    _, plain = await _get(env, "/uitspraken/zoeken", [("max", "3")])
    _, with_q = await _get(env, "/uitspraken/zoeken", [("max", "3"), ("q", "stikstof")])
    assert "Aantal gevonden ECLI's: " in plain
    # q= is silently ignored: the same count and entries come back (only the self link differs).
    assert re.findall(r"<(?:subtitle|id)>[^<]*<", plain) == re.findall(r"<(?:subtitle|id)>[^<]*<", with_q)
    status, text = await _get(env, "/uitspraken/zoeken", [("max", "5000")])
    assert status == 400 and "max" in text
    status, _ = await _get(env, "/uitspraken/zoeken", [("date", "1-1-2026")])
    assert status == 400
    status, meta = await _get(env, "/uitspraken/content", [("id", "ECLI:NL:RBAMS:2010:BO3979"), ("return", "META")])
    assert status == 200 and "<uitspraak" not in meta and "dcterms:identifier" in meta


# --------------------------------------------------------------------------- live fidelity (issue 11)


def _placeholder_ruling() -> Ruling:
    ruling = build_rulings(ANCHOR)["ECLI:NL:HR:1992:AA1835"]  # a real Hoge Raad ruling whose summary is "-"
    assert ruling.summary == "-" and ruling.source
    return ruling


async def test_a_placeholder_summary_means_no_summary_when_read(env: PlatformHarness) -> None:
    ruling = _placeholder_ruling()
    read = await env.call("read_ruling", ecli=ruling.ecli)
    assert read["summary"] == ""
    assert not read["citation"]["text"].endswith(": -") and ": -" not in read["citation"]["text"]
    found = await env.call("search_rulings", court=ruling.court, date_from=ruling.date.isoformat(),
                           date_to=ruling.date.isoformat(), limit=50)
    hit = next(r for r in found["results"] if r["ecli"] == ruling.ecli)
    assert hit["summary"] == "" and ": -" not in hit["citation"]["text"]


async def test_an_unknown_ecli_answered_by_a_redirect_is_unknown_not_a_bad_reply(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="no published ruling ECLI:NL:RVS:2099:12345"):
        await env.call("read_ruling", ecli="ECLI:NL:RVS:2099:12345")
    assert [r.path for r in env.requests] == ["/rechtspraak/uitspraken/content", "/rechtspraak/mededeling/404"]


async def test_search_accepts_plain_words_and_refuses_unknown_areas_with_the_list(env: PlatformHarness) -> None:
    result = await env.call("search_rulings", area_of_law="socialezekerheidsrecht", limit=20)
    assert ("subject", AREA + "bestuursrecht_socialezekerheidsrecht") in env.only_request().pairs
    real = {r.ecli for r in _rulings() if r.source and "bestuursrecht_socialezekerheidsrecht" in r.areas}
    assert len(real) == 4 and real <= {r["ecli"] for r in result["results"]}  # the real CRvB rulings
    assert "read as Bestuursrecht; Socialezekerheidsrecht" in result["precision"]["matched"]
    crime = await env.call("search_rulings", area_of_law="strafrecht", limit=5)
    assert crime["precision"]["total"] > 0  # the real URI ends in #strafrecht, not #strafRecht
    with pytest.raises(ToolInputError, match=r"closest are: .*Socialezekerheidsrecht"):
        await env.call("search_rulings", area_of_law="sociale zekerheidsrech")
    assert env.requests == []


async def test_replica_marks_placeholders_and_redirects_unknown_eclis(env: PlatformHarness) -> None:
    ruling = _placeholder_ruling()
    async with aiohttp.ClientSession() as session:
        # The requests the old adapter sent.
        params = {"creator": ruling.court_uri,
                  "date": ruling.date.isoformat(), "return": "DOC", "max": "100"}
        async with session.get(env.url + "/rechtspraak/uitspraken/zoeken", params=params) as resp:
            feed = await resp.text()
        assert f"<id>{ruling.ecli}</id>" in feed
        assert re.search(re.escape(ruling.ecli) + r".*?<summary type=\"text\">-</summary>", feed, re.DOTALL)
        url = env.url + "/rechtspraak/uitspraken/content"
        async with session.get(url, params={"id": ruling.ecli}) as resp:
            assert re.search(r"<inhoudsindicatie[^>]*>\s*<para>-</para>\s*</inhoudsindicatie>", await resp.text())
        async with session.get(url, params={"id": "ECLI:NL:HR:2099:1"}, allow_redirects=False) as resp:
            assert resp.status == 302 and resp.headers["Location"].endswith("/rechtspraak/mededeling/404")
        async with session.get(url, params={"id": "ECLI:NL:HR:2099:1"}) as resp:
            assert resp.status == 200 and resp.content_type == "text/html"
            assert (await resp.text()).startswith("<!DOCTYPE html>")


# --------------------------------------------------------------------------- through the SDK client


async def test_real_data_findings_through_the_sdk_in_both_eras(server: LiveServer) -> None:
    async with client(server.url("allebronnen"), "2026-07-28") as c:
        found = await c.call_tool("rechtspraak_search_rulings", {"court": "Rechtbank 's-Gravenhage"})
        assert not found.is_error, text_of(found)
        assert "ECLI:NL:RBSGR:2012:BZ0845" in [r["ecli"] for r in found.structured_content["results"]]
        words = await c.call_tool("rechtspraak_search_rulings", {"query": "vechtpartij", "court": "Hof Den Haag"})
        assert "ECLI:NL:GHSGR:2008:BC9358" in [r["ecli"] for r in words.structured_content["results"]]
        read = await c.call_tool("rechtspraak_read_ruling", {"ecli": "ECLI:NL:HR:1992:AA1835"})
        assert not read.is_error and read.structured_content["summary"] == ""
    async with client(server.url("rechtspraak"), "legacy") as c:
        words = await c.call_tool("search_rulings", {"query": '"redelijke termijn"'})
        assert "best effort" in words.structured_content["precision"]["matched"]
        areas = await c.call_tool("search_rulings", {"area_of_law": "socialezekerheidsrecht"})
        assert "ECLI:NL:CRVB:2014:355" in [r["ecli"] for r in areas.structured_content["results"]]
        unknown = await c.call_tool("read_ruling", {"ecli": "ECLI:NL:RVS:2099:12345"})
        assert unknown.is_error and "no published ruling ECLI:NL:RVS:2099:12345" in text_of(unknown)
