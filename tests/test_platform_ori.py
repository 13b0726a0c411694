"""Open Raadsinformatie via OpenBesluitvorming: every tool against the real replica on a loopback port, no mocks.

Pins the exact requests that go over the wire, resolves organisation names as people write them, checks
precision and citations, the rate limit (the adapter waits or says when to come back, never passes on a raw
429), the platform's 400s as argument errors, the Classic-id error and the load measurement. The harness is
tests/platform_harness.py; the shared fault cases are in test_platform_failures.py, the tool examples in
test_platform_examples.py and (through the SDK client, both protocol eras, on Alle Bronnen too) test_tools.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from proxy.caller import SYSTEM_CALLER
from proxy.errors import ToolInputError, UpstreamRateLimited
from proxy.platforms import ori
from proxy.replica.ori import RATE, STATUS_FAULTS
from proxy.results import is_result_list
from proxy.upstream import as_json
from tests.conftest import LiveServer, client
from tests.platform_harness import PlatformHarness, platform_harness

ANCHOR = date(2026, 3, 15)
NOW = datetime(2026, 3, 15, 9, 30, tzinfo=UTC)
TOOLS = {t.name: t for t in ori.TOOLS}
DOC = "document:notubiz:gemeente:amsterdam:480005"
MEETING = "meeting:notubiz:gemeente:amsterdam:480001"
SOURCES = ("GET", "/ori/api/sources", [])
STATUS = ("GET", "/ori/api/status", [])


@pytest.fixture(scope="module")
async def replica() -> AsyncIterator[PlatformHarness]:
    """One replica for the module (its data takes a while to build), started over for each test."""
    async with platform_harness("ori", NOW) as harness:
        yield harness


@pytest.fixture
async def env(replica: PlatformHarness) -> AsyncIterator[PlatformHarness]:
    await replica.reset()
    replica.replica[RATE].reset()  # a full bucket for every test
    yield replica
    replica.replica[STATUS_FAULTS].clear()


def sent(env: PlatformHarness) -> list[tuple[str, str, list[tuple[str, str]]]]:
    return [(r.method, r.path, r.pairs) for r in env.requests]


async def organisations(env: PlatformHarness) -> tuple[ori.Organisation, ...]:
    reply = await env.ctx.upstream.get("/api/sources", as_json, caller=SYSTEM_CALLER)
    return ori._organisations(reply)


def test_schemas_are_admitted() -> None:
    assert set(TOOLS) == {"search_documents", "read_document", "search_meetings", "read_meeting",
                          "upcoming_meetings", "list_organisations"}
    for tool in ori.TOOLS:
        listed, problem = is_result_list(tool.output_schema)
        assert problem is None, (tool.name, problem)
        assert listed or tool.name == "read_document", tool.name


# --------------------------------------------------------------------------- exact requests


async def test_search_documents_sends_exactly_this(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="begroting", organisation="Provincie Utrecht",
                            date_from="2025-06-01", date_to="2026-03-01", limit=5, offset=5)
    assert sent(env) == [SOURCES, STATUS, ("GET", "/ori/api/search", [
        ("query", "begroting"), ("organization", "provincie-utrecht"), ("entityType", "Document"),
        ("sort", "relevance"), ("dateFrom", "2025-06-01"), ("dateTo", "2026-03-01"), ("offset", "5"), ("limit", "5")])]
    assert result["organisation"]["key"] == "provincie-utrecht" and result["organisation"]["kind"] == "provincie"
    ua = env.requests[-1].headers["User-Agent"]
    assert ua.startswith("BesluitBron/") and env.registry.server.contact in ua
    # Organisation catalogue and status are cached: a second search sends only the search.
    await env.call("search_documents", query="begroting", organisation="provincie utrecht", kind="motion")
    assert sent(env) == [("GET", "/ori/api/search", [
        ("query", "begroting"), ("organization", "provincie-utrecht"), ("entityType", "Motion"),
        ("sort", "relevance"), ("offset", "0"), ("limit", "10")])]


async def test_browsing_and_meetings_send_exactly_this(env: PlatformHarness) -> None:
    await env.call("search_documents", organisation="Den Haag", sort="oldest", limit=3)
    assert sent(env)[-1] == ("GET", "/ori/api/search", [("organization", "den-haag"), ("entityType", "Document"),
                                                         ("sort", "date_asc"), ("offset", "0"), ("limit", "3")])
    result = await env.call("search_meetings", query="stikstof", spoken=True)
    assert sent(env) == [("GET", "/ori/api/search", [("query", "stikstof"), ("entityType", "Recording"),
                                                      ("sort", "relevance"), ("offset", "0"), ("limit", "10")])]
    assert result["organisation"] is None
    result = await env.call("upcoming_meetings", organisation="Soest", days=14)
    assert sent(env) == [("GET", "/ori/api/search", [
        ("organization", "soest"), ("entityType", "Meeting"), ("sort", "date_asc"), ("dateFrom", "2026-03-15"),
        ("dateTo", "2026-03-29"), ("offset", "0"), ("limit", "10")])]
    assert result["period"] == {"from": "2026-03-15", "to": "2026-03-29"}
    assert result["results"] and all("2026-03-15" <= r["date"] <= "2026-03-29" for r in result["results"])
    assert [r["start"] for r in result["results"]] == sorted(r["start"] for r in result["results"])


async def test_read_document_names_organisation_and_meeting(env: PlatformHarness) -> None:
    link = "https://openbesluitvorming.nl/?view=" + DOC.replace(":", "%3A")
    result = await env.call("read_document", id=link, length=500)
    assert [r.path for r in env.requests] == [f"/ori/api/entities/{DOC}", f"/ori/api/entities/{MEETING}"]
    assert result["id"] == DOC and result["organisation"] == "Amsterdam"
    assert result["meeting"]["id"] == MEETING and result["meeting"]["title"].startswith("Gemeenteraad")
    assert result["length"] == 500 and result["next_offset"] == 500 and result["text"].startswith("# ")
    c = result["citation"]
    assert c["uri"] == "https://openbesluitvorming.nl/?view=document%3Anotubiz%3Agemeente%3Aamsterdam%3A480005"
    assert "Amsterdam" in c["title"] and result["meeting"]["title"] in c["title"]
    follow = await env.call("read_document", id=DOC, offset=result["next_offset"], length=500)
    assert follow["offset"] == 500 and follow["text"] != result["text"]


async def test_a_motion_reads_with_its_outcome(env: PlatformHarness) -> None:
    found = await env.call("search_documents", query="motie", organisation="Amsterdam", kind="motion", limit=1)
    hit = found["results"][0]
    assert hit["type"] == "motion" and hit["id"].startswith("motion:notubiz:gemeente:amsterdam:")
    result = await env.call("read_document", id=hit["id"])
    assert result["motion"]["result"] in ("aangenomen", "verworpen", "ingetrokken")
    assert result["motion"]["parties"] and result["text"]


async def test_read_meeting_gives_the_agenda_tree_and_motions(env: PlatformHarness) -> None:
    result = await env.call("read_meeting", id=MEETING)
    assert [r.path for r in env.requests] == [f"/ori/api/entities/{MEETING}"]
    agenda = result["results"]
    assert [i["number"] for i in agenda if i["level"] == 0][:2] == ["1", "2"]
    assert result["precision"]["total"] == len(agenda) and result["precision"]["total_relation"] == "exact"
    docs = [d for i in agenda for d in i["documents"]]
    assert docs and all(d["id"].startswith("document:") for d in docs)
    assert all(i["citation"]["uri"] == result["meeting"]["url"] for i in agenda)
    assert "Amsterdam" in result["meeting"]["citation"]["title"]
    for motion in result["motions"]:
        assert motion["citation"]["uri"].startswith("https://openbesluitvorming.nl/?view=motion%3A")
    flat = await env.call("read_meeting", id=(await env.call("upcoming_meetings", organisation="Utrecht"))
                          ["results"][0]["id"])
    assert flat["results"] and {i["level"] for i in flat["results"]} == {0}  # iBabs agendas are flat


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

# As people write them → the source key. "Utrecht" alone is the gemeente; a kind word picks the kind.
NAMES = [
    ("Utrecht", "utrecht"),
    ("gemeente Utrecht", "utrecht"),
    ("Provincie Utrecht", "provincie-utrecht"),
    ("Provinciale Staten van Utrecht", "provincie-utrecht"),
    ("Den Haag", "den-haag"),
    ("'s-Gravenhage", "den-haag"),
    ("The Hague", "den-haag"),
    ("'s-Hertogenbosch", "s-hertogenbosch"),
    ("Den Bosch", "s-hertogenbosch"),
    ("Súdwest-Fryslân", "sudwest-fryslan"),
    ("Sudwest Fryslan", "sudwest-fryslan"),
    ("Bergen (NH)", "bergen_nh"),
    ("Bergen Noord-Holland", "bergen_nh"),
    ("Bergen (L)", "bergen_l"),
    ("Hoogheemraadschap van Delfland", "delfland"),
    ("Waterschap Aa en Maas", "aa-en-maas"),
    ("Wetterskip Fryslân", "wetterskip-fryslan"),
    ("HHNK", "hollands-noorderkwartier"),
    ("Groningen", "groningen"),
    ("Provincie Groningen", "provincie-groningen"),
    ("Noord-Holland", "noord-holland"),
    ("Reusel-De Mierden", "reusel-de_mierden"),
    ("reusel-de_mierden", "reusel-de_mierden"),
    ("Dongen", "dongen"),
]


async def test_organisation_names_resolve_as_people_write_them(env: PlatformHarness) -> None:
    orgs = await organisations(env)
    assert not any(o.key.startswith("all_") for o in orgs)  # the supplier aggregates match nothing
    resolved = {name: ori.resolve(name, orgs).organisation.key for name, _ in NAMES}
    assert resolved == dict(NAMES)


@pytest.mark.parametrize(("name", "words"), [
    ("Bergen", ["several organisations", "bergen_nh", "bergen_l"]),
    ("Atlantis", ["no organisation called 'Atlantis'", "list_organisations"]),
    ("Utrech", ["did you mean", "key 'utrecht'"]),
    ("Provincie Amsterdam", ["no organisation called"]),
])
async def test_ambiguous_or_unknown_names_get_the_candidates(env: PlatformHarness, name: str,
                                                            words: list[str]) -> None:
    orgs = await organisations(env)
    with pytest.raises(ToolInputError) as caught:
        ori.resolve(name, orgs)
    assert all(w in str(caught.value) for w in words), str(caught.value)


async def test_a_place_name_of_two_kinds_means_the_gemeente_and_says_so() -> None:
    both = (ori.Organisation("groningen", "Groningen", "gemeente", "notubiz", True),
            ori.Organisation("groningen-prov", "Groningen", "provincie", "parlaeus", True))
    found = ori.resolve("Groningen", both)
    assert found.organisation.kind == "gemeente" and found.note and "groningen-prov" in found.note
    assert ori.resolve("Provincie Groningen", both).organisation.key == "groningen-prov"


def test_the_alias_table_is_checked_when_loaded(tmp_path: Path) -> None:
    assert ori.ALIASES["s gravenhage"] == "den haag" and ori.ALIASES["hhnk"] == "hollands noorderkwartier"
    bad = tmp_path / "ori_aliases.json"
    for content, words in (({"aliases": {"Den Bosch": "'s-Hertogenbosch"}}, "expected an object with 'what'"),
                           ({"what": "organisation", "source": "s", "entries": [
                               {"key": "Den Haag", "label": "Den Haag", "names": ["The Hague"]},
                               {"key": "Delfland", "label": "Delfland", "names": ["the hague"]}]},
                            "names both 'Den Haag' and 'Delfland'")):
        bad.write_text(json.dumps(content), encoding="utf-8")
        with pytest.raises(ValueError, match=words):
            ori.load_aliases(bad)


async def test_list_organisations_kinds_and_currency(env: PlatformHarness) -> None:
    result = await env.call("list_organisations", limit=50)
    rows = {r["key"]: r for r in result["results"]}
    assert result["precision"]["total"] == len(rows) == 36
    assert {r["kind"] for r in rows.values()} == {"gemeente", "provincie", "waterschap"}
    assert rows["hof-van-twente"]["stalled"] and rows["hof-van-twente"]["current_through"] == \
        (ANCHOR - timedelta(days=400)).isoformat()
    assert rows["noordoostpolder"]["stalled"] is False
    assert rows["utrecht"]["current_through"] == ANCHOR.isoformat()  # agendas run ahead; capped at today
    assert rows["utrecht"]["latest_content_date"] > ANCHOR.isoformat()
    assert rows["dongen"]["implemented"] is False and rows["dongen"]["state"] == "not_implemented"
    assert rows["weesp"]["discontinued_at"] == "2022-03-24" and rows["weesp"]["succeeded_by"] == "amsterdam"
    stalled = await env.call("list_organisations", only_stalled=True, kind="waterschap")
    assert [r["key"] for r in stalled["results"]] == ["aa-en-maas"]


async def test_a_stalled_or_merged_organisation_is_named_in_the_notes(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="begroting", organisation="Hof van Twente")
    assert result["organisation"]["stalled"] and any("stands still" in n for n in result["notes"])
    merged = await env.call("search_documents", query="begroting", organisation="Weesp")
    assert any("merged away on 2022-03-24" in n and "amsterdam" in n for n in merged["notes"])


# --------------------------------------------------------------------------- precision and citations


async def test_precision_follows_total_is_approximate(env: PlatformHarness) -> None:
    broad = await env.call("search_documents", query="de", limit=5)
    p = broad["precision"]
    assert p["total_relation"] == "estimate" and p["truncated"] and p["next_offset"] == 5
    narrow = await env.call("search_documents", query="parkeerbeleid", organisation="Amsterdam", limit=50)
    p = narrow["precision"]
    assert p["total_relation"] == "exact" and p["total"] == p["returned"] == len(narrow["results"]) > 0
    assert p["truncated"] is False and p["next_offset"] is None


async def test_citations_open_the_item_at_the_matched_page(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="zomerreces", organisation="Utrecht", limit=20)
    paged = [r for r in result["results"] if r["matched_page"]]
    assert paged
    for hit in paged:
        c = hit["citation"]
        assert c["uri"].startswith("https://openbesluitvorming.nl/?view=document%3Aibabs%3Agemeente%3Autrecht%3A")
        assert c["uri"].endswith(f"&page={hit['matched_page']}") and f"p. {hit['matched_page']}" in c["title"]
        assert "Utrecht" in c["title"] and f"vergadering van {hit['date']}" in c["title"]
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
    assert len(organs) == 35 and {o.medium for o in organs.values()} == {"gemeente", "provincie", "waterschap"}
    stalled = {k for k, o in organs.items() if env.ctx.is_stalled(o.current_through)}
    assert stalled == {"hof-van-twente", "hardinxveld-giessendam", "aa-en-maas", "dongen"}
    assert organs["aa-en-maas"].current_through == ANCHOR - timedelta(days=75)
    assert report.current_through == ANCHOR and report.per_medium == {"gemeente": ANCHOR, "provincie": ANCHOR,
                                                                      "waterschap": ANCHOR}
    assert sent(env) == [SOURCES, STATUS]


async def test_without_index_activity_the_last_import_dates_the_organisations(env: PlatformHarness) -> None:
    env.replica[STATUS_FAULTS]["index_down"] = True
    report = await ori.measure_load(env.ctx)
    organs = {o.organ: o for o in report.organs}
    assert report.note and "last successful import" in report.note
    assert organs["utrecht"].current_through == ANCHOR  # imported today, so not all stalled at once
    assert organs["hof-van-twente"].current_through == ANCHOR - timedelta(days=400)


# --------------------------------------------------------------------------- through the SDK client


async def test_alle_bronnen_in_the_stateless_era(server: LiveServer) -> None:
    async with client(server.url("allebronnen"), "2026-07-28") as c:
        found = await c.call_tool("ori_search_documents", {"query": "begroting", "organisation": "'s-Gravenhage",
                                                           "limit": 2})
        assert not found.is_error, found.content[0].text
        hit = found.structured_content["results"][0]
        chunk = found.structured_content["cited_chunks"][hit["cited_chunk"]]  # citations are served as cited chunks
        assert hit["organisation_key"] == "den-haag" and chunk["uri"].startswith(ori.SITE + "?view=")
        read = await c.call_tool("ori_read_document", {"id": "51225"})
        assert read.is_error and "switched off on 1 November 2026" in read.content[0].text
    async with client(server.url("openraadsinformatie"), "legacy") as c:
        result = await c.call_tool("search_documents", {"query": '"a b"~3'})
        assert result.is_error and "refused query" in result.content[0].text


async def test_the_live_check_canaries_pass_and_name_a_drift(env: PlatformHarness) -> None:
    from proxy.checklive import check_platform

    assert (await check_platform(ori.PLATFORM, env.ctx)).status == "ok"
    env.faults.update({"drift": {'"totalIsApproximate"': '"approximate"'}})
    result = await check_platform(ori.PLATFORM, env.context())
    assert result.status == "drift" and "search: field 'totalIsApproximate' is missing" in result.findings


@pytest.mark.parametrize(("lang", "words"), [("nl", "de oude nummers werken niet meer"),
                                             ("en", "the old numbers no longer work")])
def test_the_source_page_tells_earlier_users_about_the_new_ids(lang: str, words: str) -> None:
    from proxy.catalog import build_catalog
    from proxy.generation import Generation
    from proxy.registry import load_registry
    from site_hooks.site_data import SiteData
    from site_hooks.site_render import Renderer
    from tests.conftest import REGISTRY

    renderer = Renderer(SiteData(generation=Generation(build_catalog(load_registry(REGISTRY))), status=None), lang)
    renderer.platform_page("ori")
    html = "".join(renderer.take_slots().values())
    assert 'class="platform-notice"' in html and words in html and "openbesluitvorming.nl" in html
