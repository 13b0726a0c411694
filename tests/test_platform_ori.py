"""Open Raadsinformatie: every tool against the real ORI replica on a loopback port, no mocks.

Checks the tools' output against their schemas and the replica data, the exact requests that go over the
wire (compared with the shapes in research §1) and the load measurement. The harness is tests/platform_harness.py;
the fault cases every platform shares are in test_platform_failures.py, the tool examples in
test_platform_examples.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import aiohttp
import jsonschema
import pytest

from proxy.caller import SYSTEM_CALLER
from proxy.errors import ToolInputError
from proxy.platforms import ori
from proxy.replica.ori import SHARD_FAILURES
from proxy.results import is_result_list
from tests.platform_harness import PlatformHarness, Seen, platform_harness

ANCHOR = date(2026, 3, 15)
NOW = datetime(2026, 3, 15, 9, 30, tzinfo=UTC)
SEARCH = "/ori/v1/elastic/ori_*,osi_*,owi_*/_search"
SEARCH_PARAMS = [("ignore_unavailable", "true"), ("allow_no_indices", "true")]
OLD_HEEMSKERK = "ori_heemskerk_20190612093015"
FIXTURE_IDS = {"51225", "51222", "38223", "32330", "51223"}
STALLED = {"ori_hofvantwente": ANCHOR - timedelta(days=400),
           "ori_hardinxveld-giessendam": ANCHOR - timedelta(days=130),
           "owi_aa-en-maas": ANCHOR - timedelta(days=75)}
TOOLS = {t.name: t for t in ori.TOOLS}


@pytest.fixture(scope="module")
async def replica() -> AsyncIterator[PlatformHarness]:
    """One ORI replica for the module (its data takes a while to build), started over for each test."""
    async with platform_harness("ori", NOW) as harness:
        yield harness


@pytest.fixture
async def env(replica: PlatformHarness) -> AsyncIterator[PlatformHarness]:
    await replica.reset()
    yield replica
    replica.replica[SHARD_FAILURES].clear()


def posted(env: PlatformHarness, path: str = SEARCH) -> list[Seen]:
    """The searches (POSTs to `path`) among the requests."""
    return [r for r in env.requests if r.method == "POST" and r.path == path]


def test_schemas_are_admitted() -> None:
    assert set(TOOLS) == {"search_documents", "read_document", "upcoming_meetings", "search_meetings",
                          "list_organisations"}
    for tool in ori.TOOLS:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert tool.input_schema["additionalProperties"] is False
        assert all("description" in p for p in tool.input_schema["properties"].values()), tool.name
        assert is_result_list(tool.output_schema)[1] is None, tool.name
        assert tool.example is not None
        jsonschema.validate(dict(tool.example), tool.input_schema)


# --------------------------------------------------------------------------- search_documents


async def test_search_documents_finds_the_recorded_hits(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="begrippenlijst")
    ids = [r["id"] for r in result["results"]]
    assert set(ids) == FIXTURE_IDS
    assert result["precision"] == {"total": 5, "total_relation": "exact", "returned": 5, "truncated": False,
                                   "matched": result["precision"]["matched"], "not_applied": [], "partial": False,
                                   "next_offset": None}
    assert "begrippenlijst" in result["precision"]["matched"]
    first = next(r for r in result["results"] if r["id"] == "51225")
    assert first["organisation"] == "Gemeente Amsterdam" and first["index"] == "ori_amsterdam"
    assert first["date"] == "2019-05-29" and first["size_in_bytes"] == 537095
    assert "begrippenlijst" in first["snippet"].lower()
    citation = first["citation"]
    assert citation["uri"] == "https://api.openraadsinformatie.nl/v1/resolve/api.notubiz.nl/document/7636788"
    assert citation["title"] == "577C.19.Bijlage 3 Nota van beantwoording.pdf (Gemeente Amsterdam, 2019-05-29)"
    assert citation["requires_attribution"] is True and citation["source"] == "ori"
    assert result["searched"] == {"all_organisations": True, "organisations": []}


async def test_search_documents_wire(env: PlatformHarness) -> None:
    await env.call("search_documents", query="begrippenlijst")
    aliases = [r for r in env.requests if r.method == "GET"]
    assert [(r.path, r.pairs) for r in aliases] == [("/ori/v1/elastic/_aliases", [])]
    posts = posted(env)
    assert all(r.pairs == SEARCH_PARAMS and r.headers["Content-Type"] == "application/json" for r in posts)
    bodies = [r.body for r in posts]
    # research §1.2: the top-level Organization record of every index
    assert {"size": 1000, "_source": ["name", "classification", "collection", "homepage"],
            "query": {"bool": {"filter": [
                {"term": {"@type": "Organization"}},
                {"terms": {"classification.keyword": ["Municipality", "Province", "Water board"]}}]}}} in bodies
    # research §1.5: full text with a _source include list, sort with an _id tiebreaker, plain highlights
    assert {
        "size": 10, "from": 0, "timeout": "15s",
        "_source": ["@id", "@type", "name", "file_name", "url", "original_url", "content_type", "size_in_bytes",
                    "last_discussed_at", "date_modified", "has_organization_name"],
        "query": {"bool": {
            "must": [{"simple_query_string": {"query": "begrippenlijst", "fields": ["text", "title", "description",
                                                                                     "name"],
                                              "default_operator": "and"}}],
            "filter": [{"term": {"@type": "MediaObject"}}],
            "must_not": [{"terms": {"_index": [OLD_HEEMSKERK]}}]}},
        "sort": [{"_score": {"order": "desc"}}, {"_id": {"order": "asc"}}],
        "highlight": {"pre_tags": [""], "post_tags": [""],
                      "fields": {"text": {"fragment_size": 220, "number_of_fragments": 2, "no_match_size": 220}}},
    } in bodies
    assert len(posts) == 2


async def test_search_documents_filters(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="begroting", organisations=["ori_utrecht"],
                            date_from="2025-06-01", date_to="2026-03-15", document_type="motie", sort="newest", limit=5)
    assert result["results"], "the replica has Utrecht motions on the begroting"
    dates = [r["date"] for r in result["results"]]
    assert dates == sorted(dates, reverse=True)
    assert all("2025-06-01" <= d <= "2026-03-15" for d in dates)
    assert all(r["index"] == "ori_utrecht" and "motie" in r["title"].lower() for r in result["results"])
    assert result["searched"]["organisations"] == [{"name": "Gemeente Utrecht", "index": "ori_utrecht",
                                                    "medium": "gemeente", "current_through": "2026-03-12",
                                                    "stalled": False}]
    search = next(r for r in posted(env, "/ori/v1/elastic/ori_utrecht/_search") if "sort" in r.body)
    assert search.pairs == SEARCH_PARAMS
    assert search.body["query"]["bool"]["filter"] == [
        {"term": {"@type": "MediaObject"}},
        {"range": {"last_discussed_at": {"gte": "2025-06-01||/d", "lte": "2026-03-15||/d",
                                         "format": "strict_date_optional_time", "time_zone": "Europe/Amsterdam"}}},
        {"match": {"name": {"query": "motie", "operator": "or"}}},
    ]
    assert "must_not" not in search.body["query"]["bool"]
    assert search.body["sort"] == [{"last_discussed_at": {"order": "desc", "unmapped_type": "date"}},
                                   {"_id": {"order": "asc"}}]
    # research §1.3: the newest meeting per index, here only for the organisation searched
    newest = next(r for r in posted(env, "/ori/v1/elastic/ori_utrecht/_search") if "aggs" in r.body)
    assert newest.body == {
        "size": 0, "timeout": "15s",
        "query": {"bool": {"filter": [
            {"terms": {"@type": ["Meeting", "AgendaItem"]}},
            {"range": {"last_discussed_at": {"lte": "2026-03-15||/d", "format": "strict_date_optional_time",
                                             "time_zone": "Europe/Amsterdam"}}}]}},
        "aggs": {"per_index": {"terms": {"field": "_index", "size": 1000},
                               "aggs": {"newest": {"max": {"field": "last_discussed_at"}}}}},
    }


async def test_citations_skip_the_resolver_where_it_fails(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="begroting", organisations=["Hardinxveld-Giessendam"])
    assert result["results"]
    for hit in result["results"]:
        assert hit["url"].startswith("https://api.openraadsinformatie.nl/v1/resolve/raad.hardinxveld-giessendam.nl/")
        assert hit["citation"]["uri"] == hit["original_url"]
        assert hit["original_url"].startswith("https://raad.hardinxveld-giessendam.nl/Documenten/")


async def test_the_older_unaliased_index_is_searched_only_when_named(env: PlatformHarness) -> None:
    everywhere = await env.call("search_documents", query="Heemskerk", sort="oldest", limit=5)
    assert everywhere["results"] and {r["index"] for r in everywhere["results"]} == {"ori_heemskerk"}
    named = await env.call("search_documents", query="Heemskerk", organisations=[OLD_HEEMSKERK], limit=5)
    assert named["results"] and {r["index"] for r in named["results"]} == {OLD_HEEMSKERK}
    assert all(r["date"] < "2019-06-06" for r in named["results"])
    assert named["searched"]["organisations"][0]["stalled"] is True and named["notes"]


async def test_organisation_names(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match=r"Gemeente Utrecht \(ori_utrecht\), Provincie Utrecht"):
        await env.call("search_documents", query="warmtenet", organisations=["Utrecht"])
    with pytest.raises(ToolInputError, match=r"did you mean Gemeente Zeist \(ori_zeist\)"):
        await env.call("search_documents", query="x", organisations=["Zeistt"])
    result = await env.call("search_documents", query="begroting",
                            organisations=["Den Bosch", "Provincie Utrecht", "delfland", "Hof van Twente"])
    assert [o["index"] for o in result["searched"]["organisations"]] == [
        "ori_den_bosch", "osi_provincie-utrecht", "owi_hoogheemraadschap_van_delfland", "ori_hofvantwente"]
    assert {r["index"] for r in result["results"]} <= {o["index"] for o in result["searched"]["organisations"]}
    assert len(result["notes"]) == 1 and "Gemeente Hof van Twente (ori_hofvantwente) stands still" in result["notes"][0]
    assert "2025-02-08" in result["notes"][0]


async def test_paging_and_limits(env: PlatformHarness) -> None:
    result = await env.call("search_documents", query="begroting", limit=200)
    assert result["precision"]["returned"] == 50
    assert result["precision"]["not_applied"] == ["limit 200 lowered to this installation's results_per_call of 50"]
    assert result["precision"]["truncated"] is True and result["precision"]["next_offset"] == 50
    with pytest.raises(ToolInputError, match="first 10,000 hits"):
        await env.call("search_documents", query="begroting", offset=9995, limit=10)
    with pytest.raises(ToolInputError, match="cursor is not one"):
        await env.call("search_documents", query="begroting", cursor="bm90IGpzb24")


async def test_lower_bound_and_search_after(env: PlatformHarness) -> None:
    first = await env.call("search_meetings", limit=5)
    assert first["precision"]["total"] == 10000 and first["precision"]["total_relation"] == "lower_bound"
    assert first["precision"]["truncated"] is True and first["next_cursor"]
    by_offset = await env.call("search_meetings", limit=5, offset=5)
    by_cursor = await env.call("search_meetings", limit=5, cursor=first["next_cursor"])
    assert [r["id"] for r in by_cursor["results"]] == [r["id"] for r in by_offset["results"]]
    assert by_cursor["precision"]["next_offset"] is None and by_cursor["next_cursor"]
    body = next(r.body for r in posted(env) if "search_after" in r.body)
    assert "from" not in body and body["search_after"] == replica_sort_of(first)
    relevance = await env.call("search_documents", query="begroting", limit=5)
    relevance_next = await env.call("search_documents", query="begroting", limit=5, cursor=relevance["next_cursor"])
    relevance_offset = await env.call("search_documents", query="begroting", limit=5, offset=5)
    assert [r["id"] for r in relevance_next["results"]] == [r["id"] for r in relevance_offset["results"]]
    with pytest.raises(ToolInputError, match="either offset or cursor"):
        await env.call("search_meetings", limit=5, offset=5, cursor=first["next_cursor"])


def replica_sort_of(result: dict[str, Any]) -> list[Any]:
    """The sort values of the last hit, as the cursor carries them."""
    import base64
    import json

    cursor = result["next_cursor"]
    return list(json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))))


async def test_partial_when_a_shard_fails(env: PlatformHarness) -> None:
    env.replica[SHARD_FAILURES].add("ori_zeist_20190809125053")
    result = await env.call("search_documents", query="begrippenlijst")
    assert {r["id"] for r in result["results"]} == FIXTURE_IDS - {"32330"}
    assert result["precision"]["partial"] is True
    assert any("index shards failed" in n for n in result["precision"]["not_applied"])


async def test_script_payloads_come_back_as_data(env: PlatformHarness) -> None:
    docs = await env.call("search_documents", query="beeldmerk", organisations=["Gemeente Utrecht"])
    hit = docs["results"][0]
    assert "<script>alert(1)</script>" in hit["title"] and "<img src=x onerror=alert(1)>" in hit["title"]
    assert "<script>alert(1)</script>" in hit["snippet"]
    meetings = await env.call("search_meetings", query="beeldmerk", kind="agenda_items")
    item = meetings["results"][0]
    assert item["type"] == "agenda_item" and "<img src=x onerror=alert(1)>" in item["title"]
    assert item["meeting"]["title"] == "Gemeenteraad" and item["attachments"] == [hit["id"]]


# --------------------------------------------------------------------------- read_document


async def test_read_document_in_chunks(env: PlatformHarness) -> None:
    first = await env.call("read_document", id="51225")
    assert first["title"] == "577C.19.Bijlage 3 Nota van beantwoording.pdf"
    assert first["organisation"] == "Gemeente Amsterdam" and first["page_count"] == 20
    assert first["offset"] == 0 and first["length"] == 3000 and first["next_offset"] == 3000
    assert first["text"].startswith("Nota van beantwoording")
    assert first["page_from"] == 1 and first["page_to"] == 3  # pages of 102, 2484 and 2454 characters
    assert first["citation"]["uri"] == "https://api.openraadsinformatie.nl/v1/resolve/api.notubiz.nl/document/7636788"
    body = posted(env)[-1].body if "ids" in posted(env)[-1].body["query"] else next(
        r.body for r in posted(env) if "ids" in r.body["query"])
    assert body == {"size": 1, "_source": [
        "@id", "@type", "name", "file_name", "url", "original_url", "content_type", "size_in_bytes",
        "last_discussed_at", "date_modified", "has_organization_name", "text"],
        "query": {"ids": {"values": ["51225"]}}}
    # the second chunk comes from the cached record: nothing goes out
    last = await env.call("read_document", id="https://id.openraadsinformatie.nl/51225",
                          offset=first["total_length"] - 100, length=500)
    assert last["length"] == 100 and last["next_offset"] is None and last["page_to"] == 20
    assert env.requests == []


async def test_read_document_refuses_what_it_cannot_read(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="no record with id 999"):
        await env.call("read_document", id="999")
    with pytest.raises(ToolInputError, match="is a AgendaItem, not a document"):
        await env.call("read_document", id="51032")
    with pytest.raises(ToolInputError, match="must be an ORI id"):
        await env.call("read_document", check_input=False, id="abc")  # the input schema would refuse it first
    with pytest.raises(ToolInputError, match="past the end"):
        await env.call("read_document", id="51222", offset=1_000_000)


# --------------------------------------------------------------------------- meetings


async def test_upcoming_meetings(env: PlatformHarness) -> None:
    result = await env.call("upcoming_meetings", organisation="Gemeente Utrecht", days=21)
    starts = [r["start"] for r in result["results"]]
    assert starts and starts == sorted(starts)
    assert all("2026-03-15" <= s[:10] <= "2026-04-05" for s in starts)
    assert result["period"] == {"from": "2026-03-15", "to": "2026-04-05"}
    meeting = result["results"][0]
    assert meeting["agenda"][0]["title"] == "1. Opening en mededelingen"
    assert meeting["committee"] in {"Gemeenteraad", "Commissie Ruimte", "Commissie Bestuur en Middelen",
                                    "Commissie Samenleving"}
    assert meeting["citation"]["uri"].startswith("https://openbesluitvorming.nl/?organisaties=%5B%22ori_utrecht%22%5D"
                                                 "&showResource=https%253A%252F%252Fid.openraadsinformatie.nl%252F")
    assert result["precision"]["total_relation"] == "exact"
    assert result["precision"]["total"] == len(result["results"]) and result["notes"] == []
    search = next(r for r in posted(env, "/ori/v1/elastic/ori_utrecht/_search") if "sort" in r.body)
    assert search.pairs == SEARCH_PARAMS
    assert search.body == {
        "size": 10, "from": 0, "timeout": "15s",
        "_source": ["@id", "@type", "name", "start_date", "end_date", "last_discussed_at", "location", "status",
                    "committee", "parent", "position", "attachment", "has_organization_name", "agenda"],
        "query": {"bool": {"filter": [
            {"term": {"@type": "Meeting"}},
            {"range": {"start_date": {"gte": "2026-03-15||/d", "lte": "2026-04-05||/d",
                                      "format": "strict_date_optional_time", "time_zone": "Europe/Amsterdam"}}}]}},
        "sort": [{"start_date": {"order": "asc", "unmapped_type": "date"}}, {"_id": {"order": "asc"}}],
    }
    lookup = next(r.body for r in posted(env, "/ori/v1/elastic/ori_utrecht/_search")
                  if "ids" in r.body["query"])
    assert set(lookup["query"]["ids"]["values"]) >= {a["id"] for a in meeting["agenda"]}


async def test_upcoming_meetings_of_a_stalled_organisation(env: PlatformHarness) -> None:
    result = await env.call("upcoming_meetings", organisation="Hof van Twente")
    assert result["results"] == [] and result["precision"]["total"] == 0
    assert result["organisation"] == {"name": "Gemeente Hof van Twente", "index": "ori_hofvantwente",
                                      "medium": "gemeente", "current_through": "2025-02-08", "stalled": True}
    assert "no proof" in result["notes"][0]


async def test_search_meetings(env: PlatformHarness) -> None:
    result = await env.call("search_meetings", query="jaarrekening", organisations=["owi_rijnland"],
                            date_from="2025-09-01", date_to="2026-03-15", sort="oldest")
    assert result["results"] and all(r["index"] == "owi_rijnland" for r in result["results"])
    dates = [r["date"] for r in result["results"]]
    assert dates == sorted(dates) and all("2025-09-01" <= d <= "2026-03-15" for d in dates)
    assert all("jaarrekening" in r["title"].lower() for r in result["results"])
    assert all(r["meeting"] and r["meeting"]["title"] for r in result["results"] if r["type"] == "agenda_item")
    body = next(r.body for r in posted(env, "/ori/v1/elastic/owi_rijnland/_search") if "sort" in r.body)
    assert body["query"] == {"bool": {
        "filter": [{"terms": {"@type": ["Meeting", "AgendaItem"]}},
                   {"range": {"last_discussed_at": {"gte": "2025-09-01||/d", "lte": "2026-03-15||/d",
                                                    "format": "strict_date_optional_time",
                                                    "time_zone": "Europe/Amsterdam"}}}],
        "must": [{"simple_query_string": {"query": "jaarrekening", "fields": ["name", "description"],
                                          "default_operator": "and"}}]}}


# --------------------------------------------------------------------------- organisations and load


async def test_list_organisations(env: PlatformHarness) -> None:
    result = await env.call("list_organisations", limit=50)
    rows = {r["index"]: r for r in result["results"]}
    assert len(rows) == 38 and result["precision"]["total"] == 38
    assert result["precision"]["total_relation"] == "exact" and result["precision"]["truncated"] is False
    assert {i for i, r in rows.items() if r["stalled"]} == set(STALLED)
    for index, through in STALLED.items():
        assert rows[index]["current_through"] == through.isoformat()
    assert rows["ori_noordoostpolder"]["days_since"] == 50 and rows["ori_noordoostpolder"]["stalled"] is False
    assert rows["ori_amsterdam_centrum"]["name"] == "Amsterdam Centrum"  # no Organization record: from the slug
    assert rows["ori_heemskerk"]["indices"] != [OLD_HEEMSKERK] and OLD_HEEMSKERK not in rows
    assert any(OLD_HEEMSKERK in n for n in result["notes"])
    assert result["as_of"] == "2026-03-15" and result["stalled_after_days"] == 60
    assert {r["medium"] for r in rows.values()} == {"gemeente", "provincie", "waterschap"}
    water = await env.call("list_organisations", medium="waterschap", only_stalled=True)
    assert [r["index"] for r in water["results"]] == ["owi_aa-en-maas"]
    named = await env.call("list_organisations", name="utrecht", limit=2)
    assert named["precision"]["total"] == 3 and named["precision"]["next_offset"] == 2


async def test_measure_load(env: PlatformHarness) -> None:
    report = await ori.measure_load(env.ctx)
    organs = {o.organ: o for o in report.organs}
    assert len(organs) == 38 and OLD_HEEMSKERK not in organs
    stalled = {o.organ: o.current_through for o in report.organs
               if o.current_through is None or (ANCHOR - o.current_through).days > 60}
    assert stalled == STALLED
    assert organs["owi_aa-en-maas"].medium == "waterschap" and organs["osi_gelderland"].medium == "provincie"
    assert organs["ori_hofvantwente"].name == "Gemeente Hof van Twente"
    assert report.current_through == ANCHOR
    assert set(report.per_medium) == {"gemeente", "provincie", "waterschap"}
    assert all(d is not None and (ANCHOR - d).days < 14 for d in report.per_medium.values())
    assert report.note and OLD_HEEMSKERK in report.note
    calls, _ = await env.ctx.upstream._store.calls(SYSTEM_CALLER.key, 10)  # the measurement is recorded as the system's
    assert {c["method"] for c in calls} == {"GET", "POST"}
    assert len(posted(env)) == 2  # Organization records + the aggregation, nothing per organisation


# --------------------------------------------------------------------------- the replica answers like ES


async def test_replica_speaks_elasticsearch(env: PlatformHarness) -> None:
    base = f"{env.url}/ori/v1/elastic"
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{base}/ori_*/_search", json={"from": 9995, "size": 10}) as resp:
            assert resp.status == 400
            error = (await resp.json())["error"]
            assert "Result window is too large" in error["root_cause"][0]["reason"]
        async with http.post(f"{base}/ori_*/_search", json={"query": {"range": {"start_date": {"gte": "2026-01-01"}}}}
                             ) as resp:
            assert resp.status == 400 and "strict_date_time" in await resp.text()
        async with http.post(f"{base}/ori_nergens/_search", json={}) as resp:
            assert resp.status == 404 and (await resp.json())["error"]["type"] == "index_not_found_exception"
        async with http.post(f"{base}/ori_nergens/_search?ignore_unavailable=true", json={}) as resp:
            assert (await resp.json())["_shards"]["total"] == 0
        async with http.post(f"{base}/ori_*/_search", json={"size": 0, "track_total_hits": True}) as resp:
            total = (await resp.json())["hits"]["total"]
            assert total["relation"] == "eq" and total["value"] > 10_000
        async with http.post(f"{base}/ori_*/_search", json={"size": 0}) as resp:
            assert (await resp.json())["hits"]["total"] == {"value": 10_000, "relation": "gte"}
        async with http.post(f"{base}/ori_*/_search", json={"size": 1, "_source": ["name"], "bogus": 1}) as resp:
            assert resp.status == 400 and (await resp.json())["error"]["type"] == "parsing_exception"
        async with http.get(f"{base}/ori_zeist/_search?q=_id:32330&_source=name") as resp:
            hits = (await resp.json())["hits"]["hits"]
            assert [(h["_id"], h["_source"]) for h in hits] == [("32330", {"name": "02-Bijdrage Ver Lyceumkwartier "
                                                                                    "Zeist"})]
        async with http.get(f"{base}/ori_zeist/_doc/32330") as resp:
            assert (await resp.json())["_index"] == "ori_zeist_20190809125053"
        async with http.get(f"{base}/_aliases") as resp:
            aliases = await resp.json()
            assert aliases[OLD_HEEMSKERK] == {"aliases": {}}
            assert aliases["ori_zeist_20190809125053"] == {"aliases": {"ori_zeist": {}}}
        for method, path in (("POST", "/ori_zeist/_doc/1"), ("DELETE", "/ori_zeist"), ("GET", "/_cluster/health")):
            async with http.request(method, base + path, json={}) as resp:
                assert resp.status == 403 and "nginx" in await resp.text()
