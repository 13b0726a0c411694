"""Tweede Kamer adapter against its replica over a real socket: request helpers, wire format, precision,
load status, replica fidelity."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import aiohttp
import pytest

from proxy.core.clock import dutch_today
from proxy.core.errors import ToolInputError
from proxy.platforms import tweedekamer
from proxy.platforms._odata import day_start, quote, words_filter
from proxy.replica.tweedekamer import DATA, ROLL_CALL, build_store
from proxy.serving.loadstatus import status_from_report
from tests.conftest import MODES, LiveServer, client
from tests.conftest_mcp import text_of
from tests.platform_harness import PlatformHarness, harness_fixture

KEY = "tweedekamer"
ANCHOR = date(2026, 11, 30)
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
ODATA = "/tweedekamer/OData/v4/2.0"


env = harness_fixture(KEY, NOW)


def _store() -> Any:
    return build_store(ANCHOR, fixtures=True)


def _live(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r.get("Verwijderd") is False]


# --------------------------------------------------------------------------- request helpers


def test_day_start_follows_dutch_summer_time() -> None:
    assert day_start(date(2026, 9, 1)) == "2026-09-01T00:00:00+02:00"
    assert day_start(date(2026, 11, 30)) == "2026-11-30T00:00:00+01:00"
    assert day_start(date(2026, 3, 29)) == "2026-03-29T00:00:00+01:00"  # switch to CEST at 02:00 that night
    assert day_start(date(2026, 10, 25)) == "2026-10-25T00:00:00+02:00"  # back to CET at 03:00 that night
    assert dutch_today(datetime(2026, 11, 30, 23, 30, tzinfo=UTC)) == date(2026, 12, 1)
    assert dutch_today(datetime(2026, 7, 1, 21, 59, tzinfo=UTC)) == date(2026, 7, 1)


def test_quoting_and_word_filters() -> None:
    assert quote("O'Neill") == "'O''Neill'"
    assert words_filter(("Titel", "Onderwerp"), ["stikstof"]) == [
        "(contains(tolower(Titel),'stikstof') or contains(tolower(Onderwerp),'stikstof'))"]


# --------------------------------------------------------------------------- search_documents


async def test_search_documents_sends_odata_query_and_reports_exact_count(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="Motie", kind="Motie", date_from="2025-06-01",
                            date_to="2026-11-29", limit=3, offset=1)
    request = env.only_request()
    assert request.path == f"{ODATA}/Document"
    assert request.query == {
        "$filter": "Verwijderd eq false and (contains(tolower(Titel),'motie') or "
                   "contains(tolower(Onderwerp),'motie')) and (Soort eq 'Motie' or Soort eq 'Motie (gewijzigd/nader)') "
                   "and Datum ge 2025-06-01T00:00:00+02:00 and Datum lt 2026-11-30T00:00:00+01:00",
        "$orderby": "Datum desc,Id desc",
        "$select": "Id,DocumentNummer,Soort,Titel,Onderwerp,Datum,Vergaderjaar,GewijzigdOp",
        "$expand": tweedekamer.DOCUMENT_CASES_EXPAND,
        "$top": "20",  # results 2 to 4, asked as the block of the first 20 that holds them ($skip 0 is not sent)
        "$count": "true",
    }
    assert "2026-11-30T00:00:00%2B01:00" in request.raw_path  # the offset's "+" is encoded, not sent as a space
    assert request.headers["Accept"] == "application/json"

    expected = [d for d in _live(_store().rows["Document"]) if d["Soort"] in ("Motie", "Motie (gewijzigd/nader)")
                and "motie" in f"{d['Titel']} {d['Onderwerp']}".lower()
                and "2025-06-01" <= d["Datum"][:10] <= "2026-11-29"]
    precision = result["precision"]
    assert precision["total"] == len(expected) > 4
    assert precision["total_relation"] == "exact"
    assert precision["returned"] == 3 and precision["truncated"] is True and precision["next_offset"] == 4
    newest_first = sorted(expected, key=lambda d: (d["Datum"], d["Id"]), reverse=True)
    assert [r["id"] for r in result["results"]] == [d["Id"] for d in newest_first[1:4]]
    first = result["results"][0]
    assert first["cases"] and first["citation"]["uri"].startswith("https://www.tweedekamer.nl/kamerstukken/detail?id=")
    assert first["citation"]["requires_attribution"] is True
    assert first["citation"]["label"] == env.platform.attribution.label.nl


async def test_search_documents_caps_the_limit_and_says_so(env: PlatformHarness) -> None:
    result = await env.call("search_cases", limit=200)
    assert env.only_request().query["$top"] == "50"
    assert result["precision"]["returned"] == 50
    # the real tombstones (Verwijderd: true, every field null) are not counted
    assert result["precision"]["total"] == len(_live(_store().rows["Zaak"])) < len(_store().rows["Zaak"])
    assert result["precision"]["not_applied"] == ["limit 200 lowered to this installation's results_per_call of 50"]


# --------------------------------------------------------------------------- read_document


async def test_read_document_by_number_and_by_guid(env: PlatformHarness) -> None:
    doc = next(d for d in _live(_store().rows["Document"]) if d["DocumentNummer"] == "2025D42637")  # a real motion
    by_number = await env.call("read_document", id=doc["DocumentNummer"].lower())
    request = env.only_request()
    assert request.query["$filter"] == f"Verwijderd eq false and DocumentNummer eq '{doc['DocumentNummer']}'"
    assert request.query["$top"] == "1" and "$count" not in request.query
    assert request.query["$expand"] == (
        "Zaak($filter=Verwijderd eq false;$select=Id,Nummer,Soort,Titel,Onderwerp,GestartOp,Status,GewijzigdOp),"
        "DocumentActor($filter=Verwijderd eq false;$select=ActorNaam,ActorFractie,Functie,Relatie)")
    assert by_number["document"]["id"] == doc["Id"]
    assert by_number["document"]["text_url"].endswith(f"/Document({doc['Id']})/resource")
    assert by_number["document"]["actors"] == []  # the recordings hold no DocumentActor rows
    zaak_ids = _store().links["document_zaak"][doc["Id"]]
    assert [c["id"] for c in by_number["results"]] == zaak_ids
    assert by_number["precision"]["total"] == len(zaak_ids) and by_number["precision"]["truncated"] is False

    by_guid = await env.call("read_document", id=doc["Id"].upper())
    assert env.only_request().query["$filter"] == f"Verwijderd eq false and Id eq {doc['Id']}"
    assert by_guid["document"] == by_number["document"]


async def test_read_document_refuses_unknown_and_malformed_ids(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="no \\(undeleted\\) document"):
        await env.call("read_document", id="2026D99999")
    with pytest.raises(ToolInputError, match="GUID or a DocumentNummer"):
        await env.call("read_document", id="motie-over-stikstof")
    assert env.requests == []  # refused before any call went out


# --------------------------------------------------------------------------- upcoming_activities


async def test_upcoming_activities_start_today_on_the_dutch_calendar(env: PlatformHarness) -> None:
    result = await env.call("upcoming_activities", days=7, limit=50)
    request = env.only_request()
    assert request.path == f"{ODATA}/Activiteit"
    assert request.query["$filter"] == (
        "Verwijderd eq false and Datum ge 2026-11-30T00:00:00+01:00 and Datum lt 2026-12-07T00:00:00+01:00 "
        "and Status ne 'Geannuleerd' and Besloten eq false")
    assert request.query["$orderby"] == "Aanvangstijd asc,Id asc"
    assert request.query["$expand"] == ("Agendapunt($filter=Verwijderd eq false;$select=Id,Onderwerp,Volgorde;"
                                        "$orderby=Volgorde asc)")
    assert result["period"] == {"from": "2026-11-30", "to": "2026-12-06"}
    expected = [a for a in _live(_store().rows["Activiteit"]) if "2026-11-30" <= a["Datum"][:10] <= "2026-12-06"
                and a["Status"] != "Geannuleerd" and not a["Besloten"]]
    assert result["precision"]["total"] == len(expected) == len(result["results"]) > 3
    starts = [r["start"] for r in result["results"]]
    assert starts == sorted(starts)
    assert all(r["agenda"] for r in result["results"])
    assert all(r["subject"].startswith("Voorbeeld") for r in result["results"])  # nothing real is that recent


async def test_upcoming_activities_reads_a_committee_abbreviation_as_people_write_it(env: PlatformHarness) -> None:
    # The platform writes the committee for Infrastructuur en Waterstaat as "I&W"; people write "IenW".
    result = await env.call("upcoming_activities", days=30, committee="IenW", include_closed=True,
                            include_cancelled=True)
    assert env.only_request().query["$filter"] == (
        "Verwijderd eq false and Datum ge 2026-11-30T00:00:00+01:00 and Datum lt 2026-12-30T00:00:00+01:00 and "
        "(contains(tolower(Voortouwnaam),'ienw') or tolower(Voortouwafkorting) eq 'ienw' or "
        "tolower(Voortouwafkorting) eq 'i&w')")
    assert result["results"] and all(r["committee_abbreviation"] == "I&W" for r in result["results"])


async def test_past_activities_by_kind_words_and_period(env: PlatformHarness) -> None:
    # Failed before: only upcoming_activities existed, so the Kamer's past meetings could not be found at all,
    # and 'plenair debat' found only 'Plenair debat (debat)'.
    plenary = await env.call("search_activities", kind="plenair debat", date_from="2025-09-01",
                             date_to="2025-10-31", limit=50)
    expected = [a for a in _live(_store().rows["Activiteit"]) if a["Soort"].startswith("Plenair debat (")
                and "2025-09-01" <= a["Datum"][:10] <= "2025-10-31" and a["Status"] != "Geannuleerd"
                and not a["Besloten"]]
    assert {r["id"] for r in plenary["results"]} == {a["Id"] for a in expected}
    assert {r["kind"] for r in plenary["results"]} >= {"Plenair debat (debat)", "Plenair debat (tweeminutendebat)"}
    dates = [r["date"] for r in plenary["results"]]
    assert dates == sorted(dates, reverse=True)  # newest first
    nitrogen = await env.call("search_activities", query="stikstof", include_cancelled=True)
    assert [r["subject"] for r in nitrogen["results"]] == ["Stikstof, mestbeleid en natuur - GEANNULEERD"]
    hidden = await env.call("search_activities", query="stikstof")
    assert hidden["results"] == []  # cancelled: left out, and the hint says that is why (not the spelling)
    assert hidden["precision"]["hint"].startswith("every activity that matches was cancelled (1 found")
    with pytest.raises(ToolInputError, match="give words, a kind, a committee or a period"):
        await env.call("search_activities")


# --------------------------------------------------------------------------- search_cases and case_votes


async def test_search_cases_finds_the_recorded_motions(env: PlatformHarness) -> None:
    result = await env.call("search_cases", query="Roma", kind="Motie", date_from="2025-01-01",
                            date_to="2025-12-31", limit=50)
    request = env.only_request()
    assert request.path == f"{ODATA}/Zaak"
    assert request.query["$expand"] == tweedekamer.CASE_EXPAND
    assert "GestartOp ge 2025-01-01T00:00:00+01:00 and GestartOp lt 2026-01-01T00:00:00+01:00" in \
        request.query["$filter"]
    numbers = {r["number"] for r in result["results"]}
    assert numbers == {"2025Z05057"}  # the real motion Tseggai c.s. on recognising Roma and Sinti
    assert result["precision"]["total"] == len(result["results"])
    assert any(r["document_number"] for r in result["results"])


async def test_case_votes_tallies_a_recorded_vote(env: PlatformHarness) -> None:
    result = await env.call("case_votes", case="2025z17647")
    request = env.only_request()
    assert request.path == f"{ODATA}/Stemming"
    assert request.query == {
        "$filter": "Verwijderd eq false and Besluit/Verwijderd eq false and "
                   "Besluit/Zaak/any(z:z/Verwijderd eq false and z/Nummer eq '2025Z17647')",
        "$orderby": "Besluit/GewijzigdOp desc,ActorFractie asc,Id asc",
        "$select": "Id,Besluit_Id,Soort,FractieGrootte,ActorNaam,ActorFractie,Vergissing,Persoon_Id,Fractie_Id,"
                   "GewijzigdOp",
        "$expand": "Besluit($select=Id,BesluitSoort,BesluitTekst,StemmingsSoort,GewijzigdOp;"
                   "$expand=Zaak($filter=Verwijderd eq false;$select=Id,Nummer,Soort,Titel,Onderwerp),"
                   "Agendapunt($select=Id,Nummer,Onderwerp,Aanvangstijd;"
                   "$expand=Activiteit($select=Id,Nummer,Soort,Datum))),Fractie($select=Id,Afkorting,NaamNL)",
        "$top": "250",
        "$count": "true",
    }
    assert result["case"]["number"] == "2025Z17647" and result["case"]["kind"] == "Motie"
    [decision] = result["decisions"]
    assert decision["id"] == "544de0bc-edb2-41db-9c85-a762467c512b"  # the recorded Besluit
    assert decision["outcome"] == "Aangenomen." and decision["complete"] is True
    assert decision["for_seats"] + decision["against_seats"] + decision["other_seats"] == 150
    assert {"GroenLinks-PvdA", "NSC", "SP"} <= set(decision["parties_for"])  # the recorded votes
    votes = {r["party"]: r for r in result["results"]}
    assert votes["NSC"]["seats"] == 19 and votes["NSC"]["vote"] == "Voor"
    assert votes["NSC"]["party_name"] == "Nieuw Sociaal Contract"
    assert result["precision"]["total"] == 15 and result["precision"]["truncated"] is False


async def test_case_votes_pages_a_roll_call_but_counts_it_whole(env: PlatformHarness) -> None:
    store = _store()
    besluit = store.by_id["Besluit"][ROLL_CALL]  # the recorded roll call of 1 October 2025, "Verworpen. (72-74)"
    zaak_id = store.links["besluit_zaak"][besluit["Id"]][0]
    result = await env.call("case_votes", case=zaak_id, limit=20)
    assert env.only_request().query["$filter"].endswith(
        f"Besluit/Zaak/any(z:z/Verwijderd eq false and z/Id eq {zaak_id})")
    [decision] = result["decisions"]
    assert decision["method"] == "Hoofdelijk" and decision["complete"] is True
    assert (decision["for_seats"], decision["against_seats"], decision["other_seats"]) == (72, 74, 4)
    assert result["precision"]["total"] == 150 and result["precision"]["returned"] == 20
    assert result["precision"]["truncated"] is True and result["precision"]["next_offset"] == 20
    assert all(r["member"] for r in result["results"])


async def test_a_roll_call_shows_each_member_as_one_vote_not_the_party_size(env: PlatformHarness) -> None:
    # Real roll-call rows carry the party's size in FractieGrootte (24 for every VVD member).
    recorded = [v for v in _store().rows["Stemming"] if v["Besluit_Id"] == ROLL_CALL]
    assert {v["FractieGrootte"] for v in recorded if v["ActorFractie"] == "VVD"} == {24}
    result = await env.call("case_votes", case="2025Z18247", limit=50)
    assert result["results"] and {r["seats"] for r in result["results"]} == {1}
    cda = next(r for r in result["results"] if r["party"] == "CDA")  # ordered by party: CDA is on this page
    assert "1 stem" in cda["citation"]["text"] and "zetels" not in cda["citation"]["text"]
    party_vote = await env.call("case_votes", case="2025Z05057")  # by show of hands: the party's seats
    assert next(r for r in party_vote["results"] if r["party"] == "VVD")["seats"] == 24


async def test_case_votes_refuses_a_document_number(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="case number such as 2025Z17647"):
        await env.call("case_votes", case="2025D12345")


# --------------------------------------------------------------------------- outcome and submitters (issue 21)

SUBMITTED = "(Relatie eq 'Indiener' or Relatie eq 'Medeindiener')"
OUTCOMES = "Verwijderd eq false and (startswith(BesluitSoort,'Stemmen') or BesluitSoort eq 'Overgenomen')"


def test_the_list_expansions_ask_for_outcome_and_submitters_in_the_same_request() -> None:
    actors = f"ZaakActor($filter=Verwijderd eq false and {SUBMITTED};$select=ActorNaam,ActorFractie,Relatie)"
    decisions = (f"Besluit($filter={OUTCOMES};$select=Id,BesluitSoort,BesluitTekst,StemmingsSoort,GewijzigdOp;"
                 "$orderby=GewijzigdOp desc")
    case = ("Document($filter=Verwijderd eq false;$select=Id,DocumentNummer;$orderby=Datum asc;$top=1),"
            f"{actors},{decisions};$expand=Agendapunt($select=Id;$expand=Activiteit($select=Id,Datum)))")
    document = (f"Zaak($filter=Verwijderd eq false;$select=Id,Nummer;$expand={actors},{decisions};"
                "$expand=Agendapunt($select=Id;$expand=Activiteit($select=Id,Datum))))")
    assert (case, document) == (tweedekamer.CASE_EXPAND, tweedekamer.DOCUMENT_CASES_EXPAND)


async def test_a_document_row_gives_its_outcome_by_decision_date(env: PlatformHarness) -> None:
    # Failed before: document rows expanded no meeting, so the outcome fell to the last-edited decision
    # and no decision date was given. The real motion Thijssen on nitrogen, rejected on 2 October 2025:
    found = await env.call("search_documents", kind="Motie", query="stikstof")
    [motion] = [r for r in found["results"] if "2025Z18621" in r["cases"]]
    assert (motion["outcome"], motion["decided_on"]) == ("Verworpen.", "2025-10-02")


async def test_case_lists_say_whether_a_motion_was_voted_on_its_outcome_and_submitters(env: PlatformHarness) -> None:
    # Issue 21: the assistant picked the only motions never voted on; each row now says so, in one request.
    found = await env.call("search_cases", kind="Motie", query="stikstof")
    assert len(env.requests) == 1
    [motion] = found["results"]  # the real motion Thijssen on nitrogen, rejected on 2 October 2025
    assert (motion["number"], motion["voted"], motion["outcome"]) == ("2025Z18621", True, "Verworpen.")
    assert motion["outcome_kind"] == "Stemmen - verworpen" and motion["decided_on"] == "2025-10-02"
    assert motion["submitters"] == [{"name": "J. Thijssen", "party": "GroenLinks-PvdA", "role": "Indiener"}]
    assert motion["citation"]["text"].endswith("— Verworpen.; ingediend door J. Thijssen (GroenLinks-PvdA)")
    roll_call = (await env.call("search_cases", query="medische evacuatie"))["results"]
    dobbe = next(r for r in roll_call if r["number"] == "2025Z18247")
    assert (dobbe["outcome"], dobbe["decided_on"]) == ("Verworpen. (72-74)", "2025-10-01")
    assert [a["role"] for a in dobbe["submitters"]] == ["Indiener"] + ["Medeindiener"] * 8
    pending = (await env.call("search_cases", query="plasticafdracht"))["results"]
    assert pending and all(r["voted"] is False and r["outcome"] is None for r in pending)
    assert {"name": "I. Kostic", "party": "PvdD", "role": "Indiener"} in pending[0]["submitters"]


async def test_document_lists_carry_their_motion_case_outcome_and_submitters(env: PlatformHarness) -> None:
    found = await env.call("search_documents", kind="Motie", query="dierrechten")
    assert len(env.requests) == 1
    [document] = found["results"]  # the real motion Holman, rejected
    assert (document["number"], document["cases"]) == ("2025D41525", ["2025Z17800"])
    assert (document["voted"], document["outcome"]) == (True, "Verworpen.")
    assert document["submitters"] == [{"name": "H. Holman", "party": "NSC", "role": "Indiener"}]


async def test_search_cases_by_submitting_party_filters_on_the_party_id(env: PlatformHarness) -> None:
    # ZaakActor writes NSC as "NSC", its Fractie row as "Nieuw Sociaal Contract": the filter uses the Fractie id.
    store = _store()
    nsc = next(f for f in _live(store.rows["Fractie"]) if f["Afkorting"] == "Nieuw Sociaal Contract")
    found = await env.call("search_cases", party="NSC", kind="Motie", limit=50)
    fractions, cases = env.requests
    assert fractions.path == f"{ODATA}/Fractie" and cases.path == f"{ODATA}/Zaak"
    assert cases.query["$filter"] == (
        "Verwijderd eq false and Soort eq 'Motie' and ZaakActor/any(a:a/Verwijderd eq false and "
        f"a/Fractie_Id eq {nsc['Id']} and (a/Relatie eq 'Indiener' or a/Relatie eq 'Medeindiener'))")
    submitted = {a["Zaak_Id"] for a in store.rows["ZaakActor"] if a["Fractie_Id"] == nsc["Id"]
                 and a["Relatie"] in ("Indiener", "Medeindiener")}
    assert found["precision"]["total"] == len(submitted) == len(found["results"]) > 20
    assert all(any(a["party"] == "NSC" for a in r["submitters"]) for r in found["results"])
    assert "submitted or co-submitted by a member of Nieuw Sociaal Contract" in found["precision"]["matched"]
    d66 = await env.call("search_cases", party="d66", limit=50)
    assert "2025Z16470" in {r["number"] for r in d66["results"]}  # Rooderkerk c.s., adopted
    with pytest.raises(ToolInputError, match="party 'Partij X'"):
        await env.call("search_cases", party="Partij X")


async def test_a_title_word_written_with_accents_also_matches_without(env: PlatformHarness) -> None:
    await env.call("search_cases", query="Oekraïne")
    assert env.only_request().query["$filter"] == (
        "Verwijderd eq false and (contains(tolower(Titel),'oekraïne') or contains(tolower(Onderwerp),'oekraïne') or "
        "contains(tolower(Titel),'oekraine') or contains(tolower(Onderwerp),'oekraine'))")
    found = await env.call("search_cases", query="één", limit=50)
    assert {"een", "één"} <= {w for r in found["results"] for w in str(r["subject"]).lower().split()}


# --------------------------------------------------------------------------- search_members


async def test_search_members_by_party_with_current_party_expanded(env: PlatformHarness) -> None:
    result = await env.call("search_members", party="sp", limit=10)
    parties, request = env.requests  # the party is checked against the platform's own Fractie list first
    assert parties.path == f"{ODATA}/Fractie"
    assert parties.query == {"$filter": "Verwijderd eq false", "$orderby": "DatumInactief asc,Afkorting asc",
                             "$select": "Id,Afkorting,NaamNL,NaamEN,DatumInactief", "$top": "250"}
    assert request.path == f"{ODATA}/Persoon"
    assert request.query["$filter"] == (
        "Verwijderd eq false and Functie eq 'Tweede Kamerlid' and FractieZetelPersoon/any(f:f/Verwijderd eq false "
        "and f/TotEnMet eq null and tolower(f/FractieZetel/Fractie/Afkorting) eq 'sp')")
    assert request.query["$expand"] == (
        "FractieZetelPersoon($filter=Verwijderd eq false;$select=Functie,Van,TotEnMet;$orderby=Van desc;"
        "$expand=FractieZetel($select=Id;$expand=Fractie($select=Id,Afkorting,NaamNL)))")
    assert result["precision"]["total"] == 5 == len(result["results"])  # SP holds five seats
    assert {r["party"] for r in result["results"]} == {"SP"}
    assert {r["name"] for r in result["results"]} == {"Sarah Dobbe", "Bart van Kent", "Jimmy Dijk",
                                                      "Michiel van Nispen", "Sandra Beckerman"}  # real members
    assert all(r["api_url"].endswith(f"/Persoon({r['id']})") for r in result["results"])
    michiel = next(r for r in result["results"] if r["name"] == "Michiel van Nispen")  # a page for people
    assert michiel["citation"]["uri"] == \
        "https://www.tweedekamer.nl/kamerleden_en_commissies/alle_kamerleden/nispen-van-m"


@pytest.mark.parametrize(("written", "party", "read_as"), [
    ("VVD", "VVD", None),
    ("Partij voor de Vrijheid", "PVV", "party 'Partij voor de Vrijheid' read as PVV"),
    ("GL/PvdA", "GroenLinks-PvdA", "read as GroenLinks-PvdA"),  # a hand-kept name
    ("christen unie", "ChristenUnie", "read as ChristenUnie"),
    ("Groen", "GroenLinks-PvdA", "could also mean GL"),  # the one sitting party of two it could mean
    ("NSC", "Nieuw Sociaal Contract", "party 'NSC' read as Nieuw Sociaal Contract"),  # its votes say NSC
    ("nsc", "Nieuw Sociaal Contract", "read as Nieuw Sociaal Contract"),
    ("Nieuw Sociaal Contract", "Nieuw Sociaal Contract", None),
    ("Party for the Animals", "PvdD", "read as PvdD"),  # NaamEN
])
async def test_search_members_reads_a_party_as_people_write_it(env: PlatformHarness, written: str, party: str,
                                                              read_as: str | None) -> None:
    result = await env.call("search_members", party=written, limit=3)
    assert result["results"] and {r["party"] for r in result["results"]} == {party}
    matched = result["precision"]["matched"]
    assert f"abbreviation is {party!r}" in matched
    assert (read_as in matched) if read_as else ("read as" not in matched)


async def test_search_members_refuses_a_party_it_cannot_read_naming_candidates(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match=r"party 'VVDD' is not a known party .*closest are: "
                                             r"Volkspartij voor Vrijheid en Democratie \(VVD\)"):
        await env.call("search_members", party="VVDD")
    with pytest.raises(ToolInputError, match=r"party 'partij' could mean PVV .*PvdD .*send one of these"):
        await env.call("search_members", party="partij")
    former = await env.call("search_members", party="GroenLinks", limit=3)  # merged into GroenLinks-PvdA
    assert former["results"] == []
    assert "GL no longer sits in the Kamer: send current_only false for its former members, or party " \
           "GroenLinks-PvdA" in former["precision"]["matched"]


@pytest.mark.parametrize(("tool", "written", "sent"), [
    ("search_documents", "moties", "(Soort eq 'Motie' or Soort eq 'Motie (gewijzigd/nader)')"),
    ("search_documents", "Kamervragen", "Soort eq 'Schriftelijke vragen'"),
    ("search_cases", "wetsvoorstel", "Soort eq 'Wetgeving'"),  # a case is Wetgeving, its bill a Voorstel van wet
    ("search_documents", "wetsvoorstel", "Soort eq 'Voorstel van wet'"),
    ("upcoming_activities", "tweeminutendebat", "Soort eq 'Plenair debat (tweeminutendebat)'"),
    ("search_documents", "Position paper", "tolower(Soort) eq 'position paper'"),  # not in the table: as written
])
async def test_a_kind_is_read_as_people_write_it(env: PlatformHarness, tool: str, written: str, sent: str) -> None:
    result = await env.call(tool, kind=written, limit=1)
    assert f" and {sent}" in env.requests[-1].query["$filter"]
    assert "Soort is" in result["precision"]["matched"]


async def test_plenair_debat_is_every_kind_of_plenary_debate(env: PlatformHarness) -> None:
    # Failed before: "plenair debat" was read as 'Plenair debat (debat)' alone, missing the (wetgeving),
    # (tweeminutendebat), (dertigledendebat) … debates the platform files under their own Soort.
    result = await env.call("upcoming_activities", kind="plenair debat", days=30)
    sent = env.only_request().query["$filter"]
    plenary = [s for s in _recorded("soorten.json")["Activiteit"] if s.startswith("Plenair debat (")]
    assert len(plenary) == 7 and all(f"Soort eq '{s}'" in sent for s in plenary)
    assert "Plenair debat (every kind)" in result["precision"]["matched"]


async def test_a_misspelled_kind_is_refused_naming_the_kind_it_resembles(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match=r"kind 'Motei' is not a known Document kind \(Soort\); "
                                             r"the closest are: Motie"):
        await env.call("search_documents", kind="Motei")
    assert env.requests == []
    found = await env.call("search_cases", kind="moties", limit=3)
    assert found["results"] and {r["kind"] for r in found["results"]} == {"Motie"}


async def test_search_members_by_name_includes_former_members_on_request(env: PlatformHarness) -> None:
    people = _live(_store().rows["Persoon"])
    target = next(p for p in people if p["Functie"] == "Oud Kamerlid")
    current = await env.call("search_members", name=target["Achternaam"])
    everyone = await env.call("search_members", name=target["Achternaam"], current_only=False, limit=50)
    assert env.requests[-1].query["$filter"].startswith(
        "Verwijderd eq false and (Functie eq 'Tweede Kamerlid' or Functie eq 'Oud Kamerlid') and ")
    assert target["Id"] not in {r["id"] for r in current["results"]}
    assert target["Id"] in {r["id"] for r in everyone["results"]}
    former = next(r for r in everyone["results"] if r["id"] == target["Id"])
    assert former["role"] == "Oud Kamerlid"


@pytest.mark.parametrize(("written", "current", "name"), [
    ("Yesilgoz", True, "Dilan Yeşilgöz-Zegerius"), ("kostic", True, "Ines Kostić"), ("Kroger", True, "Suzanne Kröger"),
    ("Dogukan Ergin", True, "Doğukan Ergin"), ("Gundogan", False, "Nilüfer Gündoğan"),
    ("Yeşilgöz", True, "Dilan Yeşilgöz-Zegerius")])
async def test_member_names_match_with_accents_folded(env: PlatformHarness, written: str, current: bool,
                                                      name: str) -> None:
    # Issue 21: OData cannot fold accents, so "Yesilgoz" missed "Yeşilgöz"; the member list gives the spelling.
    found = await env.call("search_members", name=written, current_only=current)
    assert name in [r["name"] for r in found["results"]]
    assert found["precision"]["matched"].startswith("all name words, any order, any case, accents folded")
    listing, search = env.requests
    assert listing.query["$select"] == "Achternaam,Roepnaam,Voornamen" and listing.query["$top"] == "250"
    assert "'" + name.split()[-1].lower().split("-")[0] + "'" in search.query["$filter"]


# --------------------------------------------------------------------------- load status


async def test_measure_load_reports_the_newest_document_change(env: PlatformHarness) -> None:
    report = await tweedekamer.measure_load(env.ctx)
    request = env.requests[-1]
    assert request.query == {"$filter": "Verwijderd eq false", "$orderby": "GewijzigdOp desc",
                             "$select": "Id,DocumentNummer,Soort,Datum,GewijzigdOp", "$top": "1"}
    assert report.current_through == date(2025, 10, 3)  # the newest recorded change: the sample is that old
    status = status_from_report(env.platform, report, today=ANCHOR,
                                stalled_after_days=env.registry.load_status.stalled_after_days, measured_at=NOW)
    assert status["receiving"] is False and status["current_through"] == "2025-10-03"


# --------------------------------------------------------------------------- replica fidelity


async def _get(env: PlatformHarness, path: str, **params: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as session, session.get(env.url + ODATA + path, params=params) as resp:
        body = await resp.json(content_type=None)
        return resp.status, body


async def test_replica_answers_errors_like_the_real_service(env: PlatformHarness) -> None:
    status, body = await _get(env, "/Document", **{"$search": "stikstof"})
    assert status == 400 and body == {"error": {"code": "", "message": "The query parameter '$search' is not "
                                                                         "supported."}}
    status, body = await _get(env, "/Document", **{"$filter": "Bestaatniet eq 1"})
    assert status == 400 and "Could not find a property named 'Bestaatniet'" in body["error"]["message"]
    status, body = await _get(env, "/Document", **{"$filter": "Datum ge 2026-01-01"})
    assert status == 400 and "'Edm.DateTimeOffset' and 'Edm.Date'" in body["error"]["message"]
    status, body = await _get(env, "/Stemming", **{"$filter": "Besluit/Zaak/any(z:z/Besluit/any(b:b/Id ne null))"})
    assert status == 400 and "nesting limit" in body["error"]["message"]
    status, body = await _get(env, "/Document(guid'7a9b77f1-d230-4a00-9856-2f0f8e967e62')")
    assert status == 400
    status, body = await _get(env, "/Document", foo="bar", **{"$top": "1"})
    assert status == 200 and len(body["value"]) == 1  # non-$ parameters are ignored


async def test_replica_pages_at_250_with_next_link_only_without_top(env: PlatformHarness) -> None:
    status, body = await _get(env, "/Stemming", **{"$count": "true"})
    assert status == 200 and len(body["value"]) == 250 and body["@odata.count"] > 250
    assert "$skiptoken=Id-" in body["@odata.nextLink"]
    async with aiohttp.ClientSession() as session, session.get(body["@odata.nextLink"]) as resp:
        following = await resp.json(content_type=None)
    assert following["value"][0]["Id"] > body["value"][-1]["Id"]
    status, body = await _get(env, "/Stemming", **{"$top": "1000"})
    assert len(body["value"]) == 250 and "@odata.nextLink" not in body
    async with aiohttp.ClientSession() as session, session.get(env.url + ODATA + "/Fractie/$count") as resp:
        assert int(await resp.text()) == len(_store().rows["Fractie"])


# --------------------------------------------------------------------------- live fidelity (issue 11)


def _sitting_with_prefix(prefix: str | None = None) -> dict[str, Any]:
    return next(p for p in _live(_store().rows["Persoon"]) if p["Functie"] == "Tweede Kamerlid"
                and p["Tussenvoegsel"] and (prefix is None or p["Tussenvoegsel"] == prefix))


async def test_members_found_by_the_name_as_written_tussenvoegsel_included(env: PlatformHarness) -> None:
    member = _sitting_with_prefix("van der")
    full = f"{member['Roepnaam']} {member['Tussenvoegsel']} {member['Achternaam']}"  # as the tool shows a name
    for written in (full, f"Van der {member['Achternaam']}", f"van der {member['Achternaam'].lower()}"):
        result = await env.call("search_members", name=written, limit=50)
        assert member["Id"] in {r["id"] for r in result["results"]}, written
    assert "tussenvoegsel is 'van der'" in result["precision"]["matched"]
    shown = next(r["name"] for r in result["results"] if r["id"] == member["Id"])
    again = await env.call("search_members", name=shown, limit=50)  # the tool's own output finds the member
    assert member["Id"] in {r["id"] for r in again["results"]}
    other = await env.call("search_members", name=f"van den {member['Achternaam']}", limit=50)
    assert member["Id"] not in {r["id"] for r in other["results"]}


async def test_a_member_is_found_by_the_name_as_the_kamer_displays_it_initials_included(env: PlatformHarness) -> None:
    # Failed before: the initials had to occur in a name field, so "AAM van Agt" (his Initialen are "AAM", bare)
    # and "D.A. Ergin" (as ZaakActor shows him) found no member.
    agt = await env.call("search_members", name="AAM van Agt", current_only=False)
    assert [(r["name"], r["initials"]) for r in agt["results"]] == [("AAM van Agt", "AAM")]  # no Roepnaam
    for written in ("D.A. Ergin", "DA Ergin", "d.a. ergin"):
        ergin = await env.call("search_members", name=written)
        assert [r["initials"] for r in ergin["results"]] == ["D.A."], written
    assert "initials begin 'D.A.'" in ergin["precision"]["matched"]
    assert (await env.call("search_members", name="X.Y. Ergin"))["results"] == []


def _submitted_cases(name: str) -> set[str]:
    store = _store()
    zaken = {z["Id"]: z["Nummer"] for z in _live(store.rows["Zaak"])}
    return {zaken[a["Zaak_Id"]] for a in _live(store.rows["ZaakActor"])
            if a["ActorNaam"] == name and a["Relatie"] in ("Indiener", "Medeindiener") and a["Zaak_Id"] in zaken}


async def test_cases_by_submitter_and_words_matched_inside_longer_words(env: PlatformHarness) -> None:
    # Failed before: "Van der Plas" as query found three motions about plastic and nothing said why.
    plastic = await env.call("search_cases", query="Van der Plas", limit=50)
    rows = [r for r in plastic["results"] if "plastic" in (r["subject"] or "").lower()]
    assert rows and all("plas" in r["words_inside_longer_words"] for r in rows)
    assert "only inside a longer word" in plastic["precision"]["matched"]
    hers = await env.call("search_cases", submitter="Van der Plas", limit=50)
    assert hers["results"] == [] and "C.A.M. Caroline van der Plas" in hers["precision"]["matched"]
    ergin = await env.call("search_cases", submitter="D.A. Ergin", limit=50)
    assert {r["number"] for r in ergin["results"]} == _submitted_cases("D.A. Ergin") != set()
    with pytest.raises(ToolInputError, match="names no current or former member"):
        await env.call("search_cases", submitter="Jansen-Zzyzx")


async def test_a_member_search_over_the_node_limit_is_an_input_error_naming_what_to_drop(
        env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match=r"about \d+ nodes .* refuses more than 100; send fewer name words"
                                             r".* or leave out party"):
        await env.call("search_members", name="Anna Maria Johanna Petronella Wilhelmina Jansen", party="SP")
    assert env.requests == []  # refused before anything was sent


async def test_case_votes_names_the_agenda_item_and_meeting_of_a_real_decision(env: PlatformHarness) -> None:
    result = await env.call("case_votes", case="2025Z18247")
    [decision] = result["decisions"]
    item = decision["agenda_item"]  # recorded: Besluit → Agendapunt 2025P16769 → Activiteit (Stemmingen)
    assert item is not None and item["number"] == "2025P16769" and item["meeting_kind"] == "Stemmingen"
    assert item["subject"].startswith("Hoofdelijke stemmingen over") and item["date"] == "2025-10-01"
    assert f"op {item['date']}" in decision["citation"]["text"]


async def test_replica_refuses_a_filter_over_the_node_limit_as_measured(env: PlatformHarness) -> None:
    def numbers(n: int) -> str:
        return "Verwijderd eq false and (" + " or ".join(f"Nummer eq '2026Z{i:05d}'" for i in range(n)) + ")"

    status, _ = await _get(env, "/Zaak", **{"$filter": numbers(19), "$top": "1"})
    assert status == 200  # TK issue #187: nineteen or-clauses pass …
    status, body = await _get(env, "/Zaak", **{"$filter": numbers(20), "$top": "1"})
    assert status == 400  # … twenty do not
    assert body["error"]["message"].startswith("The query specified in the URI is not valid. The node count limit "
                                               "of '100' has been exceeded.")
    # The filter the old adapter sent for an eight-word name search.
    old = "Verwijderd eq false and Functie eq 'Tweede Kamerlid' and " + " and ".join(
        words_filter(("Achternaam", "Roepnaam", "Voornamen"), list("abcdefgh")))
    status, body = await _get(env, "/Persoon", **{"$filter": old, "$top": "10"})
    assert status == 400 and "node count limit" in body["error"]["message"]


async def test_replica_keeps_the_real_soft_deleted_rows(env: PlatformHarness) -> None:
    for name in ("Document", "Zaak", "Besluit", "Stemming", "Agendapunt", "Activiteit", "Persoon"):
        status, body = await _get(env, f"/{name}", **{"$filter": "Verwijderd eq true", "$count": "true",
                                                        "$top": "1"})
        assert status == 200 and body["@odata.count"] > 0, name
    # Real deleted rows are tombstones: a query that forgets Verwijderd eq false gets rows without a number.
    status, body = await _get(env, "/Zaak", **{"$orderby": "GewijzigdOp desc", "$select": "Nummer,Verwijderd",
                                                 "$top": "250"})
    assert status == 200 and any(r["Verwijderd"] is True and r["Nummer"] is None for r in body["value"])


# --------------------------------------------------------------------------- name tables against the real lists


def _recorded(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_every_party_table_target_is_a_real_fractie_afkorting() -> None:
    afkortingen = {row["Afkorting"] for row in _recorded("Fractie.json") if row.get("Afkorting")}
    assert "Nieuw Sociaal Contract" in afkortingen and "NSC" not in afkortingen  # as the platform has it
    targets = {entry.key for entry in tweedekamer.PARTY_NAMES.entries}
    assert targets <= afkortingen, targets - afkortingen


@pytest.mark.parametrize(("table", "entity"), [(tweedekamer.DOCUMENT_KINDS, "Document"),
                                               (tweedekamer.CASE_KINDS, "Zaak"),
                                               (tweedekamer.ACTIVITY_KINDS, "Activiteit")])
def test_every_kind_table_target_is_a_recorded_soort(table: Any, entity: str) -> None:
    recorded = set(_recorded("soorten.json")[entity])
    missing = {value for entry in table.entries for value in entry.values or (entry.key,)} - recorded
    assert not missing, f"{entity} kinds not in the recorded Soort values: {missing}"


# --------------------------------------------------------------------------- through the SDK client (issue 21)


@pytest.mark.parametrize(("mode", "slug", "prefix"), [("2026-07-28", "allebronnen", "tk_"),
                                                      ("legacy", "tweedekamer", "")])
async def test_outcomes_parties_and_folded_names_through_the_sdk(server: LiveServer, mode: str, slug: str,
                                                                 prefix: str) -> None:
    async with client(server.url(slug), mode) as c:
        found = await c.call_tool(prefix + "search_cases", {"query": "stikstof", "kind": "moties"})
        assert not found.is_error, text_of(found)
        [motion] = found.structured_content["results"]
        assert (motion["voted"], motion["outcome"], motion["submitters"][0]["party"]) == (
            True, "Verworpen.", "GroenLinks-PvdA")
        d66 = await c.call_tool(prefix + "search_cases", {"party": "D66", "limit": 50})
        assert not d66.is_error and all(any(a["party"] == "D66" for a in r["submitters"])
                                        for r in d66.structured_content["results"])
        member = await c.call_tool(prefix + "search_members", {"name": "Yesilgoz"})
        assert [r["name"] for r in member.structured_content["results"]] == ["Dilan Yeşilgöz-Zegerius"]


def test_kamervragen_name_their_text_in_officiele_bekendmakingen_as_koop_does() -> None:
    # Real pairs from openkamer's tests: answer document 2016D07289 has Aanhangselnummer 151601580 and is
    # ah-tk-20152016-1580; questions of case 2017Z07318 are kv-tk-2017Z07318.
    assert tweedekamer.official_text({"Soort": "Antwoord schriftelijke vragen", "Aanhangselnummer": "151601580",
                                      "Vergaderjaar": "2015-2016"}) == "ah-tk-20152016-1580"
    assert tweedekamer.official_text({"Soort": "Schriftelijke vragen",
                                      "Zaak": [{"Nummer": "2017Z07318"}]}) == "kv-tk-2017Z07318"
    assert tweedekamer.official_text({"Soort": "Motie", "Zaak": [{"Nummer": "2025Z11198"}]}) is None


async def test_the_kamers_own_kamervragen_lead_to_their_text_in_one_read(server: LiveServer) -> None:
    """The Kamer's read_document gave only a PDF link; it now names the KOOP text, which Alle Bronnen reads."""
    for mode in MODES:
        async with client(server.url("allebronnen"), mode) as c:
            answer = await c.call_tool("tk_read_document", {"id": "2021D23907"})
            koop = answer.structured_content["document"]["official_text"]
            assert koop == "ah-tk-20202021-3235"
            text = await c.call_tool("officieel_read_publication", {"identifier": koop})
            assert not text.is_error and "Antwoord van Minister Koolmees" in text.structured_content["text"]
            asked = await c.call_tool("tk_read_document", {"id": "2020D28811"})
            assert asked.structured_content["document"]["official_text"] == "kv-tk-2020Z13248"
            read = await c.call_tool("officieel_read_publication", {"identifier": "kv-tk-2020Z13248"})
            assert not read.is_error and "loden leidingen" in read.structured_content["title"].lower()


async def test_members_of_a_committee_with_their_role(env: PlatformHarness) -> None:
    """Committees with their members (the Kamer's CommissieZetelVastPersoon, as ORI's extractor and tkapi read it).
    The sample holds the committees its activities name but no seat; one seat is added here, for this test only."""
    from proxy.replica._odata import Store
    from proxy.replica.tweedekamer import STORE, TYPES

    empty = await env.call("search_members", committee="IenW")
    (request,) = [r for r in env.requests if r.path.endswith("/Persoon")]
    assert ("CommissieZetelVastPersoon/any(c:c/Verwijderd eq false and c/TotEnMet eq null and "
            "(contains(tolower(c/CommissieZetel/Commissie/NaamNL),'ienw') or "
            "tolower(c/CommissieZetel/Commissie/Afkorting) eq 'ienw' or "
            "tolower(c/CommissieZetel/Commissie/Afkorting) eq 'i&w'))") in request.query["$filter"]
    assert empty["results"] == []
    store = env.replica[STORE]
    committee = next(c for c in store.rows["Commissie"] if c["Afkorting"] == "I&W")
    member = next(p for p in store.rows["Persoon"] if p.get("Functie") == "Tweede Kamerlid")
    change = {"GewijzigdOp": "2025-01-01T00:00:00+01:00", "ApiGewijzigdOp": None, "Verwijderd": False}
    seat = {"Id": "00000000-0000-4000-8000-00000000c0de", "Gewicht": 1, "Commissie_Id": committee["Id"], **change}
    holding = {"Id": "00000000-0000-4000-8000-00000000c0df", "CommissieZetel_Id": seat["Id"],
               "Persoon_Id": member["Id"], "Functie": "Voorzitter", "Van": "2025-01-01T00:00:00+01:00",
               "TotEnMet": None, **change}
    added = Store(TYPES, {**store.rows, "CommissieZetel": [seat], "CommissieZetelVastPersoon": [holding]},
                  store.links)
    saved = (store.rows, store.by_id, store._back)
    store.rows, store.by_id, store._back = added.rows, added.by_id, {}  # this store only, put back below
    try:
        found = await env.call("search_members", committee="Infrastructuur", ctx=env.context())
    finally:
        store.rows, store.by_id, store._back = saved
    assert [r["id"] for r in found["results"]] == [member["Id"]]
    assert found["results"][0]["committees"] == ["I&W: Voorzitter"]


async def test_committee_members_through_the_sdk_in_both_eras(server: LiveServer) -> None:
    for mode in MODES:
        for slug, tool in (("tweedekamer", "search_members"), ("allebronnen", "tk_search_members")):
            async with client(server.url(slug), mode) as c:
                result = await c.call_tool(tool, {"committee": "Financiën"})
            assert not result.is_error, text_of(result)
            assert "committee whose name contains 'financiën'" in result.structured_content["precision"]["matched"]
