"""Open Raadsinformatie via OpenBesluitvorming: every tool against the real replica on a loopback port, no mocks.

The replica serves the platform's own catalog (330 organisations) and entities built from real Notubiz and
Classic-ORI recordings (proxy/replica/data/ori/SOURCES.md). Pins the exact requests that go over the wire,
resolves organisation names as people write them against that catalog, follows what a document hangs off
(a meeting, a motion, a Parlaeus agenda item), pages a browse without repeats, and checks precision, citations,
the rate limit, the platform's 400s, the Classic-id error and the load measurement. The harness is
tests/platform_harness.py; the shared fault cases are in test_platform_failures.py, the tool examples in
test_platform_examples.py and (through the SDK client, both protocol eras, on Alle Bronnen too) test_tools.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from proxy.catalog.generation import load_generation
from proxy.core.caller import SYSTEM_CALLER
from proxy.core.errors import ToolInputError, UpstreamRateLimited
from proxy.platforms import _ori_names as names
from proxy.platforms import ori
from proxy.platforms._organisations import REGISTER
from proxy.plugin.toolkit import as_json
from proxy.replica.ori import RATE, STATUS_FAULTS
from proxy.results.outputs import is_result_list
from tests.conftest import LiveServer, client
from tests.conftest_mcp import text_of
from tests.platform_harness import PlatformHarness, platform_harness

ANCHOR = date(2026, 11, 30)
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
TOOLS = {t.name: t for t in ori.TOOLS}
CATALOGUE = json.loads((Path(__file__).parents[1] / "proxy/replica/data/ori/catalog.json").read_text("utf-8"))
# Real records (proxy/replica/data/ori/): a Classic-ORI document of Amsterdam, an Altena motion and its text.
DOC = "document:notubiz:gemeente:amsterdam:7636790"
MOTION = "motion:notubiz:gemeente:altena:1184235"
MOTION_TEXT = "document:notubiz:gemeente:altena:17194168"
MEETING = "meeting:notubiz:gemeente:alkmaar:zonder-id-20260122"
Sent = tuple[str, str, list[tuple[str, str]]]  # method, path, query pairs
SOURCES: Sent = ("GET", "/ori/api/sources", [])
STATUS: Sent = ("GET", "/ori/api/status", [])


@pytest.fixture(scope="module")
async def replica() -> AsyncIterator[PlatformHarness]:
    """One replica for the module, started over for each test."""
    async with platform_harness("ori", NOW) as harness:
        yield harness


@pytest.fixture
async def env(replica: PlatformHarness) -> AsyncIterator[PlatformHarness]:
    await replica.reset()
    replica.replica[RATE].reset()  # a full bucket for every test
    yield replica
    replica.replica[STATUS_FAULTS].clear()


def sent(env: PlatformHarness) -> list[Sent]:
    return [(r.method, r.path, r.pairs) for r in env.requests]


async def organisations(env: PlatformHarness) -> tuple[names.Organisation, ...]:
    sources = await env.ctx.upstream.get("/api/sources", as_json, caller=SYSTEM_CALLER)
    status = await env.ctx.upstream.get("/api/status", as_json, caller=SYSTEM_CALLER)
    return names.organisations_from(sources, {r["sourceKey"]: r for r in status["sources"]})


def test_schemas_are_admitted() -> None:
    assert set(TOOLS) == {"search_documents", "read_document", "search_meetings", "read_meeting",
                          "upcoming_meetings", "list_organisations"}
    for tool in ori.TOOLS:
        listed, problem = is_result_list(tool.output_schema)
        assert problem is None, (tool.name, problem)
        assert listed or tool.name == "read_document", tool.name


# --------------------------------------------------------------------------- exact requests


async def test_search_documents_sends_exactly_this(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="sociale basis", organisation="gemeente Amsterdam",
                            date_from="2019-01-01", date_to="2019-12-31", limit=5, offset=1)
    assert sent(env) == [SOURCES, STATUS, ("GET", "/ori/api/search", [
        ("query", "sociale basis"), ("organization", "amsterdam"), ("entityType", "Document"),
        ("sort", "relevance"), ("dateFrom", "2019-01-01"), ("dateTo", "2019-12-31"), ("offset", "1"), ("limit", "5")])]
    assert result["organisation"]["key"] == "amsterdam" and result["organisation"]["cbs_code"] == "GM0363"
    ua = env.requests[-1].headers["User-Agent"]
    assert ua.startswith("BesluitBron/") and env.registry.server.contact in ua
    # Organisation catalog and status are cached: a second search sends only the search.
    await env.call("search_documents", query="stikstof", organisation="Krimpen aan den IJssel", kind="motion")
    assert sent(env) == [("GET", "/ori/api/search", [
        ("query", "stikstof"), ("organization", "krimpen_ad_ijssel"), ("entityType", "Motion"),
        ("sort", "relevance"), ("offset", "0"), ("limit", "10")])]


async def test_browsing_and_meetings_send_exactly_this(env: PlatformHarness) -> None:
    await env.call("search_documents", organisation="Alkmaar", sort="oldest", limit=3, offset=2)
    # Browsing reads from the start: the platform's offset counts index rows there, not items.
    assert sent(env)[-1] == ("GET", "/ori/api/search", [("organization", "alkmaar"), ("entityType", "Document"),
                                                         ("sort", "date_asc"), ("offset", "0"), ("limit", "5")])
    result = await env.call("search_meetings", query="stikstof", spoken=True)
    assert sent(env) == [("GET", "/ori/api/search", [("query", "stikstof"), ("entityType", "Recording"),
                                                      ("sort", "relevance"), ("offset", "0"), ("limit", "10")])]
    assert result["organisation"] is None
    result = await env.call("upcoming_meetings", organisation="Utrecht", days=14)
    assert sent(env) == [("GET", "/ori/api/search", [
        ("organization", "utrecht"), ("entityType", "Meeting"), ("sort", "date_asc"), ("dateFrom", "2026-11-30"),
        ("dateTo", "2026-12-14"), ("offset", "0"), ("limit", "10")])]
    assert result["period"] == {"from": "2026-11-30", "to": "2026-12-14"}
    assert result["results"] and all("2026-11-30" <= r["date"] <= "2026-12-14" for r in result["results"])
    assert all(r["title"].startswith("Voorbeeld") for r in result["results"])  # nothing recorded lies ahead


async def test_browsing_pages_without_repeating_or_skipping(env: PlatformHarness) -> None:
    """Issue 20: without words the platform counts `offset` in raw index rows (one per version of an item),
    so passing our offset on repeats items; the replica models that, and the adapter pages by items."""
    direct = [[h["entityId"] for h in (await env.ctx.upstream.get(
        "/api/search", as_json, params=[("organization", "alkmaar"), ("offset", str(o)), ("limit", "1")],
        caller=SYSTEM_CALLER))["results"]] for o in range(4)]
    assert len({i for ids in direct for i in ids}) < 4  # the platform's own offsets repeat an item
    every = await env.call("search_documents", organisation="Alkmaar", kind="motion", limit=50)
    paged, offset = [], 0
    while offset is not None:
        page = await env.call("search_documents", organisation="Alkmaar", kind="motion", limit=1, offset=offset)
        paged += [r["id"] for r in page["results"]]
        offset = page["precision"]["next_offset"]
    assert paged == [r["id"] for r in every["results"]] and len(set(paged)) == len(paged) == 2
    with pytest.raises(ToolInputError, match="pass date_to"):
        await env.call("search_documents", organisation="Alkmaar", offset=100, limit=5)


# --------------------------------------------------------------------------- reading


async def test_read_document_of_a_real_classic_record(env: PlatformHarness) -> None:
    link = "https://openbesluitvorming.nl/?view=" + DOC.replace(":", "%3A")
    result = await env.call("read_document", id=link, length=500)
    assert [r.path for r in env.requests] == [f"/ori/api/entities/{DOC}"]
    assert result["id"] == DOC and result["organisation"] == "Amsterdam" and result["date"] == "2019-05-29"
    assert "Samen Vooruit" in result["title"] and result["meeting"] is None and result["attached_to"] is None
    assert result["download_url"] == "https://api.notubiz.nl/document/7636790/1"
    assert result["length"] == 500 and result["text"].startswith("# 577.19")
    c = result["citation"]
    assert c["uri"] == "https://openbesluitvorming.nl/?view=document%3Anotubiz%3Agemeente%3Aamsterdam%3A7636790"
    if result["next_offset"]:
        follow = await env.call("read_document", id=DOC, offset=result["next_offset"], length=500)
        assert follow["offset"] == 500 and follow["text"] != result["text"]


async def test_a_motions_text_names_the_motion_and_its_meeting(env: PlatformHarness) -> None:
    """Issue 20: a Notubiz motion's main document has the motion as `is_referenced_by` (meetingId); it used to be
    shown as "the meeting"."""
    result = await env.call("read_document", id=MOTION_TEXT)
    assert [r.path for r in env.requests] == [f"/ori/api/entities/{MOTION_TEXT}", f"/ori/api/entities/{MOTION}",
                                              "/ori/api/entities/meeting:notubiz:gemeente:altena:zonder-id-20260707"]
    assert result["attached_to"] == {"id": MOTION, "kind": "motion",
                                     "title": "Vergunningverlening rond geitenhouderijen"}
    assert result["meeting"]["title"] == "Raadsvergadering" and result["meeting"]["date"] == "2026-07-07"
    assert any("text of the motion" in n for n in result["notes"])
    assert "Raadsvergadering, 2026-07-07" in result["citation"]["title"]


async def test_a_parlaeus_document_finds_its_meeting_through_its_agenda_item(env: PlatformHarness) -> None:
    """Issue 20: every Parlaeus document (Apeldoorn, Bodegraven-Reeuwijk, Maastricht) has an agenda-item id as
    `is_referenced_by`, which /api/entities answers with 404; read_document failed for every one of them."""
    upcoming = await env.call("upcoming_meetings", organisation="Apeldoorn", days=30)
    meeting = upcoming["results"][0]
    agenda = await env.call("read_meeting", id=meeting["id"])
    doc_id = agenda["results"][0]["documents"][0]["id"]
    result = await env.call("read_document", id=doc_id)
    assert result["meeting"]["id"] == meeting["id"]
    assert result["attached_to"]["kind"] == "agenda item" and result["attached_to"]["title"]
    assert not any(r.path.startswith("/ori/api/entities/agenda_item") for r in env.requests)


async def test_a_motion_reads_with_its_outcome(env: PlatformHarness) -> None:
    found = await env.call("search_documents", query="geitenhouderijen", organisation="Altena", kind="motion")
    hit = found["results"][0]
    assert hit["type"] == "motion" and hit["id"] == MOTION
    result = await env.call("read_document", id=hit["id"])
    assert result["motion"]["result"] == "aangenomen" and result["motion"]["proposer_parties"] == ["CDA", "SGP"]
    assert result["motion"]["proposers"] == ["Claudia Schipper-Heijmans", "Henri de Raad"]
    assert result["motion"]["vote_summary"].startswith("Stemmen voor: 23")
    assert result["meeting"]["date"] == "2026-07-07"


async def test_a_council_motion_gives_the_votes_per_party_where_the_council_published_them(
        env: PlatformHarness) -> None:
    # Failed before: `parties` (the proposers' parties, per the platform's API.md) read as how parties voted, and
    # the 43 member votes Utrecht published (iBabs) were dropped. Real motion M25 of 29 January 2026, rejected 18-25.
    found = await env.call("search_documents", query="Amerhof", organisation="Utrecht", kind="motion")
    [hit] = [h for h in found["results"] if h["type"] == "motion"]
    motion = (await env.call("read_document", id=hit["id"]))["motion"]
    assert (motion["result"], motion["in_favour"], motion["against"]) == ("verworpen", 18, 25)
    assert motion["proposer_parties"] == ["Volt", "LINK", "Partij voor de Dieren", "EenUtrecht"]
    by_party = {p["party"]: (p["in_favour"], p["against"]) for p in motion["votes_by_party"]}
    assert by_party["GroenLinks"] == (0, 8) and by_party["VVD"] == (4, 0) and by_party["D66"] == (0, 8)
    assert by_party["Student & Starter"] == (0, 1)
    assert sum(f + a for f, a in by_party.values()) == 43
    assert "43 member votes" in motion["votes_note"]
    altena = (await env.call("read_document", id=MOTION))["motion"]  # Notubiz: outcome, no member votes
    assert altena["votes_by_party"] == [] and "published no per-member votes" in altena["votes_note"]


async def test_an_organisation_resolves_on_the_sources_alone_when_the_status_fails(env: PlatformHarness) -> None:
    # Failed before: with /api/status down every search by organisation failed, though /api/sources answered.
    env.faults.update({"error_rate": 1.0, "status": 503, "only_paths": ["/api/status"]})
    found = await env.call("search_documents", query="geitenhouderijen", organisation="Altena", kind="motion")
    assert found["results"] and found["results"][0]["id"] == MOTION
    assert any("/api/status) did not answer" in n for n in found["notes"])
    assert [r.path for r in env.requests].count("/ori/api/status") == 1  # a failing status is asked once
    assert found["organisation"]["state"] == "unknown" and found["organisation"]["current_through"] is None
    # It also said "Altena stands still: its newest material … is from no date": unknown is not standing still.
    assert found["organisation"]["stalled"] is False and not any("stands still" in n for n in found["notes"])
    listed = await env.call("list_organisations", name="Altena")  # failed outright before
    assert [r["key"] for r in listed["results"]] == ["altena"] and listed["results"][0]["state"] == "unknown"
    assert "how current is unknown" in listed["results"][0]["citation"]["text"]
    assert any("/api/status) did not answer" in n for n in listed["notes"])


def test_a_date_stored_as_midnight_utc_is_a_day_without_a_start() -> None:
    # Failed before: the platform's iBabs dates ('2026-01-29T00:00:00Z', src/motions/normalize.ts) showed a
    # start of 01:00 (02:00 in summer).
    assert ori._dutch("2026-01-29T00:00:00Z") == ("2026-01-29", None)
    assert ori._dutch("2026-07-07T00:00:00Z") == ("2026-07-07", None)
    assert ori._dutch("2026-07-07T17:30:00Z") == ("2026-07-07", "2026-07-07T19:30")


async def test_a_motion_search_promises_no_outcome_its_hits_do_not_carry(env: PlatformHarness) -> None:
    # Issue 21: `kind` promised motions "met uitslag", yet a search hit holds no outcome (the platform's search
    # index has none; reading every hit's entity would spend a page's worth of the 60-a-minute rate per search).
    found = await env.call("search_documents", query="geitenhouderijen", organisation="Altena", kind="motion")
    assert [r.path for r in env.requests if "/entities/" in r.path] == []
    assert found["results"] and all("result" not in hit for hit in found["results"])
    catalog = load_generation(Path(__file__).parents[1] / "registry.json").catalog
    tool = catalog.connectors["openraadsinformatie"].tool("search_documents")
    assert tool is not None
    words = (tool.words.params["kind"].nl, tool.words.params["kind"].en,
             ori.SEARCH_DOCUMENTS_INPUT["properties"]["kind"]["description"])
    assert not any(w.endswith(("met uitslag.", "with outcome.", "with their outcome.")) for w in words), words
    assert all("read_document" in w and "read_meeting" in w for w in words)


async def test_read_meeting_gives_the_agenda_and_motions(env: PlatformHarness) -> None:
    result = await env.call("read_meeting", id=MEETING)
    assert [r.path for r in env.requests] == [f"/ori/api/entities/{MEETING}"]
    agenda = result["results"]
    assert [i["title"] for i in agenda] == [
        "Amendement - GL PvdA - Geotechnisch onderzoek mogelijkheden woningbouw op die plek",
        "Amendement - GL PvdA - Een Jongerenraad met stem en mandaat"]
    assert result["precision"]["total"] == 2 and result["precision"]["total_relation"] == "exact"
    assert {m["result"] for m in result["motions"]} == {"aangenomen", "verworpen"}
    assert all(m["citation"]["uri"].startswith("https://openbesluitvorming.nl/?view=motion%3A")
               for m in result["motions"])
    assert "Alkmaar" in result["meeting"]["citation"]["title"] and result["meeting"]["start"] == "2026-01-22T19:30"


# --------------------------------------------------------------------------- ids


@pytest.mark.parametrize("old", ["6074541", " 51225 ", "https://id.openraadsinformatie.nl/38223"])
async def test_a_classic_id_explains_the_switch(env: PlatformHarness, old: str) -> None:
    with pytest.raises(ToolInputError, match="switched off on 1 November 2026") as caught:
        await env.call("read_document", id=old)
    assert "search_documents" in str(caught.value) and "download_url" in str(caught.value)
    assert env.requests == []


async def test_wrong_kinds_of_id_point_to_the_right_tool(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="use read_meeting"):
        await env.call("read_document", id=MEETING)
    with pytest.raises(ToolInputError, match="use read_document"):
        await env.call("read_meeting", id=DOC)
    with pytest.raises(ToolInputError, match="has no item with id"):
        await env.call("read_document", id="document:notubiz:gemeente:amsterdam:1")
    with pytest.raises(ToolInputError, match="give a query, an organisation, or both"):
        await env.call("search_documents")


# --------------------------------------------------------------------------- organisations

# As people write them → the key in the platform's real catalog (labels there: "Den Bosch", "Hofvantwente",
# "Capelle Ad Ijssel", "Bodegravenreeuwijk", "Sudwest Fryslan"; the province of Groningen is labelled "Groningen").
NAMES = [
    ("Utrecht", "utrecht"),
    ("gemeente Utrecht", "utrecht"),
    ("Provincie Utrecht", "provincie-utrecht"),
    ("Provinciale Staten van Utrecht", "provincie-utrecht"),
    ("Den Haag", "den_haag"),
    ("'s-Gravenhage", "den_haag"),
    ("s Gravenhage", "den_haag"),
    ("The Hague", "den_haag"),
    ("'s-Hertogenbosch", "den_bosch"),
    ("s-Hertogenbosch", "den_bosch"),
    ("Den Bosch", "den_bosch"),
    ("gemeente 's-Hertogenbosch", "den_bosch"),
    ("Hof van Twente", "hofvantwente"),
    ("Hofvantwente", "hofvantwente"),
    ("Capelle aan den IJssel", "capelle_ad_ijssel"),
    ("Capelle a/d IJssel", "capelle_ad_ijssel"),
    ("Bodegraven-Reeuwijk", "bodegravenreeuwijk"),
    ("Bodegraven Reeuwijk", "bodegravenreeuwijk"),
    ("Súdwest-Fryslân", "sudwest_fryslan"),
    ("Sudwest Fryslan", "sudwest_fryslan"),
    ("Zuidwest-Friesland", "sudwest_fryslan"),
    ("Bergen (NH)", "bergen_nh"),
    ("Bergen (NH.)", "bergen_nh"),
    ("Bergen Noord-Holland", "bergen_nh"),
    ("Bergen (L)", "bergen"),
    ("Krimpen aan den IJssel", "krimpen_ad_ijssel"),
    ("Nuenen, Gerwen en Nederwetten", "nuenen"),
    ("Midden-Groningen", "midden-groningen"),
    ("Hoogheemraadschap van Delfland", "hoogheemraadschap_van_delfland"),
    ("Delfland", "hoogheemraadschap_van_delfland"),
    ("Waterschap Aa en Maas", "aa-en-maas"),
    ("Wetterskip Fryslân", "wetterskip_fryslan"),
    ("HHNK", "hoogheemraadschap_hollands_noorderkwartier"),
    ("Waterschap Limburg", "waterschap_limburg"),
    ("Provincie Limburg", "provincie_limburg"),
    ("Groningen", "groningen"),
    ("Provincie Groningen", "provincie_groningen"),
    ("Fryslân", "fryslan"),
    ("Provincie Friesland", "fryslan"),
    ("Noord-Holland", "noord-holland"),
    ("Reusel-De Mierden", "reusel-de_mierden"),
    ("reusel-de_mierden", "reusel-de_mierden"),
    ("Beemster", "beemster"),
    ("Dongen", "dongen"),
]


async def test_organisation_names_resolve_as_people_write_them(env: PlatformHarness) -> None:
    orgs = await organisations(env)
    assert len(orgs) == 330 and not any(o.key.startswith("all_") for o in orgs)  # aggregates match nothing
    resolved = {name: names.resolve(name, orgs).organisation.key for name, _ in NAMES}
    assert resolved == dict(NAMES)
    assert {key for _, key in NAMES} <= {row["key"] for row in CATALOGUE}


@pytest.mark.parametrize(("name", "words"), [
    ("Bergen", ["several organisations", "'bergen_nh'", "'bergen'"]),
    ("Limburg", ["several organisations", "'provincie_limburg'", "'waterschap_limburg'"]),
    ("Atlantis", ["no organisation called 'Atlantis'", "list_organisations"]),
    ("Utrech", ["did you mean", "key 'utrecht'"]),
    ("Provincie Amsterdam", ["no organisation called"]),
    ("Alphen aan den Rijn", ["(CBS GM0484) is a municipality that OpenBesluitvorming does not hold"]),
    ("Land van Cuijk", ["(CBS GM1982) is not in OpenBesluitvorming", "key 'boxmeer'", "key 'sint_anthonis'"]),
    # Failed before: "did you mean Noord-Holland" for a province the platform does not hold.
    ("Noord-Brabant", ["Provincie Noord-Brabant is a province that OpenBesluitvorming does not hold"]),
    ("Provincie Zeeland", ["Provincie Zeeland is a province that OpenBesluitvorming does not hold"]),
])
async def test_ambiguous_or_unknown_names_get_the_candidates(env: PlatformHarness, name: str,
                                                            words: list[str]) -> None:
    orgs = await organisations(env)
    with pytest.raises(ToolInputError) as caught:
        names.resolve(name, orgs)
    assert all(w in str(caught.value) for w in words), str(caught.value)


async def test_a_place_name_of_two_kinds_means_the_gemeente_and_says_so(env: PlatformHarness) -> None:
    orgs = await organisations(env)
    found = names.resolve("Groningen", orgs)
    assert found.organisation.key == "groningen" and found.note and "'provincie_groningen'" in found.note
    merged = names.resolve("Weesp", orgs)
    assert merged.note and "merged into Amsterdam (key 'amsterdam') on 2022-03-24" in merged.note
    gone = names.resolve("Boxmeer", orgs)
    # It read "merged into Land van Cuijk, which OpenBesluitvorming does not hold on 2022-01-01: material … is
    # under Land van Cuijk, which …": the date hung on the wrong clause and newer material was "under" a source
    # that is not there.
    assert gone.note == ("Boxmeer merged into Land van Cuijk on 2022-01-01; OpenBesluitvorming does not hold Land "
                         "van Cuijk, so material from after that date is not in this source")
    with pytest.raises(ToolInputError) as ended:  # a merged municipality the catalog never held: when it ended
        names.resolve("Haarlemmerliede en Spaarnwoude", orgs)
    assert "Haarlemmerliede en Spaarnwoude (CBS GM0393) ended on 2018-12-31" in str(ended.value)
    assert "did you mean" not in str(ended.value)


def test_every_table_target_is_in_the_platforms_real_catalog() -> None:
    """The alias table names real keys with their real labels; every CBS code the catalog carries is a gemeente
    of the government's register (TOOI), whose official names resolve without a line per council; the 342
    current municipalities are there, and each merged one names the successor the catalog records."""
    by_key = {row["key"]: row for row in CATALOGUE}
    table = json.loads(names.ALIAS_FILE.read_text("utf-8"))
    for entry in table["entries"]:
        assert entry["key"] in by_key and by_key[entry["key"]]["label"] == entry["label"], entry
    codes = {row["cbsId"] for row in CATALOGUE if str(row.get("cbsId", "")).startswith("GM")}
    missing = [c for c in codes if REGISTER.by_cbs(c) is None]
    assert not missing, missing
    assert sum(o.kind == "gemeente" and not o.ended for o in REGISTER.orgs) == 342
    for row in CATALOGUE:
        if row.get("succeededByCbsId"):
            gov = REGISTER.by_cbs(row["cbsId"])
            assert gov and gov.ended and gov.successor == row["succeededByCbsId"].lower(), row["key"]


def test_the_alias_table_is_checked_when_loaded(tmp_path: Path) -> None:
    assert names.ALIASES["bergennoordholland"] == "bergen_nh"
    bad = tmp_path / "ori_aliases.json"
    for content, words in (({"aliases": {"Den Bosch": "'s-Hertogenbosch"}}, "expected an object with 'what'"),
                           ({"what": "organisation", "source": "s", "entries": [
                               {"key": "den_haag", "label": "Den Haag", "names": ["The Hague"]},
                               {"key": "delfland", "label": "Delfland", "names": ["the hague"]}]},
                            "names both 'den_haag' and 'delfland'")):
        bad.write_text(json.dumps(content), encoding="utf-8")
        with pytest.raises(ValueError, match=words):
            names.load_aliases(bad)


async def test_list_organisations_kinds_and_currency(env: PlatformHarness) -> None:
    result = await env.call("list_organisations", limit=200)
    rows = {r["key"]: r for r in result["results"]}
    while (offset := result["precision"]["next_offset"]) is not None:
        result = await env.call("list_organisations", limit=200, offset=offset)
        rows |= {r["key"]: r for r in result["results"]}
    assert result["precision"]["total"] == len(rows) == 330
    assert {r["kind"] for r in rows.values()} == {"gemeente", "provincie", "waterschap"}
    assert rows["den_bosch"]["name"] == "'s-Hertogenbosch" and rows["den_bosch"]["cbs_code"] == "GM0796"
    assert rows["utrecht"]["current_through"] == ANCHOR.isoformat()  # agendas run ahead; capped at today
    assert rows["dongen"]["implemented"] is False and rows["dongen"]["state"] == "not_implemented"
    assert rows["weesp"]["discontinued_at"] == "2022-03-24" and rows["weesp"]["succeeded_by"] == "amsterdam"
    found = await env.call("list_organisations", name="hertogenbosch")
    assert [r["key"] for r in found["results"]] == ["den_bosch"]


async def test_a_failing_import_does_not_read_as_current(env: PlatformHarness) -> None:
    """Issue 20: `latestContentDate` runs ahead (agendas are published before the meeting), so an organisation
    whose imports fail used to read as current through today."""
    rows = {r["key"]: r for r in (await env.call("list_organisations", name="twente"))["results"]}
    twente = rows["hofvantwente"]
    assert twente["state"] == "failing" and twente["latest_content_date"] > ANCHOR.isoformat()
    assert twente["current_through"] == twente["last_import"] == (ANCHOR - timedelta(days=90)).isoformat()
    assert twente["stalled"] is True
    result = await env.call("search_documents", query="begroting", organisation="Hof van Twente")
    assert any("imports for Hof van Twente are failing since" in n for n in result["notes"])
    assert any("stands still" in n for n in result["notes"])


# --------------------------------------------------------------------------- precision, words and citations


async def test_precision_is_exact_when_the_scan_reached_the_end(env: PlatformHarness) -> None:
    narrow = await env.call("search_documents", query="speelruimtebeleidsplan", limit=50)
    p = narrow["precision"]
    assert p["total_relation"] == "exact" and p["total"] == p["returned"] == len(narrow["results"]) == 1
    assert p["truncated"] is False and p["next_offset"] is None


async def test_widened_governance_words_are_said_in_matched(env: PlatformHarness) -> None:
    """Issue 20: the platform ORs 'raad'/'vergadering' in for 'raadsvergadering' (and searches the kind of
    document too), while `matched` claimed every word must occur."""
    result = await env.call("search_meetings", query="raadsvergadering stikstof", limit=20)
    titles = [r["title"] for r in result["results"]]
    # Found through a stem word alone: no meeting holds 'stikstof'; Altena's agenda names Henri de Raad (SGP).
    assert "Raadsvergadering" in titles
    matched = result["precision"]["matched"]
    assert "OR any item with the word 'raad' or 'vergadering'" in matched and "quotes" in matched
    exact = await env.call("search_meetings", query='"raadsvergadering stikstof"')
    assert exact["results"] == [] and "widens" not in exact["precision"]["matched"]
    kind = await env.call("search_documents", query="amendement", organisation="Alkmaar")
    assert len(kind["results"]) == 2  # the word is the document's kind (classification), not only its title


async def test_citations_open_the_item_at_the_matched_page(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="speelruimtebeleidsplan", organisation="Krimpen a/d IJssel")
    hit = result["results"][0]
    assert hit["matched_page"]
    c = hit["citation"]
    assert c["uri"].startswith("https://openbesluitvorming.nl/?view=document%3Anotubiz%3Agemeente%3Akrimpen_ad")
    assert c["uri"].endswith(f"&page={hit['matched_page']}") and f"p. {hit['matched_page']}" in c["title"]
    assert f"vergadering van {hit['date']}" in c["title"]
    assert c["requires_attribution"] and "OpenBesluitvorming" in c["label"]


async def test_no_deep_paging(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="at most the first 500 results"):
        await env.call("search_documents", query="begroting", offset=480, limit=30)
    assert env.requests == []


# --------------------------------------------------------------------------- platform errors and rate limit


async def test_a_platform_400_names_the_argument(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match=r"refused query \(unsupported_phrase_slop\)"):
        await env.call("search_documents", query='"warmtenet gemeente"~5')
    assert env.requests[-1].path == "/ori/api/search"


async def test_an_empty_budget_makes_the_adapter_wait(env: PlatformHarness) -> None:
    env.replica[RATE].reset(capacity=2, per_second=2)
    started = time.perf_counter()
    for query in ("begroting", "warmtenet", "jeugdzorg", "zonneparken"):
        await env.call("search_documents", query=query, limit=1)
    # The second reply said Remaining 0: the adapter paused (a unit refills in 0.5 s) instead of earning a 429.
    assert time.perf_counter() - started >= 0.4
    assert all(r.path == "/ori/api/search" for r in env.requests)


async def test_a_429_becomes_try_again_and_is_honoured(env: PlatformHarness) -> None:
    env.replica[RATE].drain(to=-30.0)  # another program behind our address spent the budget
    with pytest.raises(UpstreamRateLimited, match=r"try again in \d+ s") as caught:
        await env.call("search_documents", query="begroting")
    assert caught.value.retry_after >= 30 and "429" in str(caught.value)
    # Retry-After is honoured: the next call is refused here, without a request to the platform.
    with pytest.raises(UpstreamRateLimited, match=r"asked us to pause .* try again in \d+ s"):
        await env.call("search_documents", query="warmtenet")
    assert env.requests == []


# --------------------------------------------------------------------------- load status


async def test_load_measurement_from_api_status(env: PlatformHarness) -> None:
    report = await ori.measure_load(env.ctx)
    organs = {o.organ: o for o in report.organs}
    assert "weesp" not in organs and report.note and "Weesp" in report.note
    assert len(organs) == 320 and {o.medium for o in organs.values()} == {"gemeente", "provincie", "waterschap"}
    stalled = {k for k, o in organs.items() if env.ctx.is_stalled(o.current_through)}
    assert stalled == {"hofvantwente", "dongen"}
    assert report.current_through == ANCHOR and report.per_medium == {"gemeente": ANCHOR, "provincie": ANCHOR,
                                                                      "waterschap": ANCHOR}
    assert sent(env) == [SOURCES, STATUS]


async def test_without_index_activity_the_last_import_dates_the_organisations(env: PlatformHarness) -> None:
    env.replica[STATUS_FAULTS]["index_down"] = True
    report = await ori.measure_load(env.ctx)
    organs = {o.organ: o for o in report.organs}
    assert report.note and "last successful import" in report.note
    assert organs["utrecht"].current_through == ANCHOR  # imported today, so not all stalled at once
    assert organs["hofvantwente"].current_through == ANCHOR - timedelta(days=90)


# --------------------------------------------------------------------------- through the SDK client


ERAS = pytest.mark.parametrize(("mode", "slug", "prefix"), [("2026-07-28", "allebronnen", "ori_"),
                                                            ("legacy", "openraadsinformatie", "")])


async def _sdk_call(c: Any, tool: str, arguments: dict[str, Any]) -> Any:
    result = await c.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


@ERAS
async def test_names_and_links_on_real_data_through_the_sdk(server: LiveServer, mode: str, slug: str,
                                                            prefix: str) -> None:
    """Issue 20 through the SDK client in both protocol eras: official names, the motion and Parlaeus links."""
    async with client(server.url(slug), mode) as c:
        found = await _sdk_call(c, prefix + "search_documents", {"query": "speelruimte",
                                                                  "organisation": "Krimpen aan den IJssel"})
        hit = found["results"][0]
        chunk = found["cited_chunks"][hit["cited_chunk"]]  # citations are served as cited chunks
        assert hit["organisation_key"] == "krimpen_ad_ijssel" and chunk["uri"].startswith(ori.SITE + "?view=")
        named = await _sdk_call(c, prefix + "search_documents", {"query": "begroting",
                                                                  "organisation": "'s-Hertogenbosch"})
        assert named["organisation"]["key"] == "den_bosch"
        read = await _sdk_call(c, prefix + "read_document", {"id": MOTION_TEXT})
        assert read["attached_to"]["id"] == MOTION and read["meeting"]["date"] == "2026-07-07"
        meeting = (await _sdk_call(c, prefix + "upcoming_meetings", {"organisation": "Apeldoorn"}))["results"][0]
        agenda = await _sdk_call(c, prefix + "read_meeting", {"id": meeting["id"]})
        doc = await _sdk_call(c, prefix + "read_document", {"id": agenda["results"][0]["documents"][0]["id"]})
        assert doc["meeting"]["id"] == meeting["id"] and doc["attached_to"]["kind"] == "agenda item"


@ERAS
async def test_paging_words_and_currency_on_real_data_through_the_sdk(server: LiveServer, mode: str, slug: str,
                                                                      prefix: str) -> None:
    """Issue 20 through the SDK client in both protocol eras: browsing without repeats, widened words, a
    failing import, and the errors a Classic id and an unsupported query get."""
    async with client(server.url(slug), mode) as c:
        pages = [await _sdk_call(c, prefix + "search_documents", {"organisation": "Alkmaar", "kind": "motion",
                                                                  "limit": 1, "offset": n}) for n in (0, 1)]
        assert len({p["results"][0]["id"] for p in pages}) == 2 and pages[1]["precision"]["next_offset"] is None
        widened = await _sdk_call(c, prefix + "search_meetings", {"query": "raadsvergadering stikstof"})
        assert "OR any item with the word 'raad' or 'vergadering'" in widened["precision"]["matched"]
        failing = await _sdk_call(c, prefix + "search_documents", {"query": "begroting",
                                                                    "organisation": "Hof van Twente"})
        assert failing["organisation"]["stalled"] and any("failing since" in n for n in failing["notes"])
        old = await c.call_tool(prefix + "read_document", {"id": "51225"})
        assert old.is_error and "switched off on 1 November 2026" in text_of(old)
        slop = await c.call_tool(prefix + "search_documents", {"query": '"a b"~3'})
        assert slop.is_error and "refused query" in text_of(slop)


async def test_the_live_check_canaries_pass_and_name_a_drift(env: PlatformHarness) -> None:
    from proxy.maintain.checklive import check_platform

    assert (await check_platform(ori.PLATFORM, env.ctx)).status == "ok"
    env.faults.update({"drift": {'"totalIsApproximate"': '"approximate"'}})
    result = await check_platform(ori.PLATFORM, env.context())
    assert result.status == "drift" and "search: field 'totalIsApproximate' is missing" in result.findings


@pytest.mark.parametrize(("lang", "words"), [("nl", "oudere nummers van Open Raadsinformatie werken niet meer"),
                                             ("en", "older Open Raadsinformatie numbers no longer work")])
def test_the_source_page_tells_earlier_users_about_the_new_ids(lang: str, words: str) -> None:
    from proxy.catalog.build import build_catalog
    from proxy.catalog.generation import Generation
    from proxy.registry.model import load_registry
    from site_hooks.site_data import SiteData
    from site_hooks.site_render import Renderer
    from tests.conftest import REGISTRY

    renderer = Renderer(SiteData(generation=Generation(build_catalog(load_registry(REGISTRY))), status=None), lang)
    renderer.platform_page("ori")
    html = "".join(renderer.take_slots().values())
    assert 'class="platform-notice"' in html and words in html and "openbesluitvorming.nl" in html
