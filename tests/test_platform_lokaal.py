"""Lokale bekendmakingen against its replica over a real socket: tools, wire shapes, load status.

The replica serves real KOOP records only (and one marked sample); organisation names are checked against the
government's TOOI registers (tests/data/tooi_organisations.json)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from proxy.core.caller import SYSTEM_CALLER, Caller
from proxy.core.errors import ToolInputError, UpstreamBadReply
from proxy.platforms import lokaal
from proxy.platforms._sru import koop_params, reply_parser
from proxy.replica.lokaal import SAMPLE_ORGANISATION, XSS_ABSTRACT, XSS_TITLE, build_publications
from tests.conftest import MODES, LiveServer, client
from tests.conftest_mcp import text_of
from tests.platform_harness import PlatformHarness, harness_fixture

ANCHOR = date(2026, 10, 5)
NOW = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
KEY = "lokaal"
SCOPE = ('(w.publicatienaam=="Gemeenteblad" OR w.publicatienaam=="Provinciaal blad" OR '
         'w.publicatienaam=="Waterschapsblad" OR w.publicatienaam=="Blad gemeenschappelijke regeling")')


env = harness_fixture(KEY, NOW)


PUBLICATIONS = build_publications(ANCHOR, fixtures=True)


def sru_query(**params: str) -> list[tuple[str, str]]:
    return [("operation", "searchRetrieve"), ("version", "2.0"), ("recordSchema", "gzd"), *params.items()]


# --------------------------------------------------------------------------- search_publications


async def test_search_sends_the_documented_cql_and_maps_precision(env: PlatformHarness) -> None:
    result = await env.call("search_publications", organisation="Bergeijk", query="asbest", date_from="2023-01-01",
                            limit=5)

    assert [(s.method, s.path) for s in env.requests] == [("GET", "/lokaal/sru")]
    assert env.requests[0].pairs == sru_query(
        startRecord="1", maximumRecords="20",  # the 5 asked for, as the block of 20 that holds them
        query='c.product-area=="officielepublicaties" AND w.publicatienaam=="Gemeenteblad" AND dt.creator=="Bergeijk" '
              'AND w.organisatietype=="gemeente" AND cql.textAndIndexes="asbest" AND dt.available>=2023-01-01 '
              'sortBy dt.available/sort.descending')
    assert env.requests[0].headers["Accept"] == "application/xml"

    expected = [p for p in PUBLICATIONS if p.creator == "Bergeijk" and p.available >= "2023-01-01"
                and any("asbest" in t.lower() for t in (p.title, p.abstract, *p.paragraphs))]
    precision = result["precision"]
    assert precision["total"] == len(expected) > 0
    assert precision["total_relation"] == "estimate"  # KOOP labels its count an estimate
    assert precision["returned"] == min(5, len(expected))
    assert precision["truncated"] is (len(expected) > 5)
    assert "Bergeijk" in precision["matched"] and "asbest" in precision["matched"]
    ids = [r["identifier"] for r in result["results"]]
    assert ids == [p.identifier for p in sorted(expected, key=lambda p: (p.available, p.identifier),
                                                     reverse=True)][:5]
    first = result["results"][0]
    assert first["organisation"] == "Bergeijk" and first["medium"] == "gmb"
    assert first["citation"]["uri"] == f"https://zoek.officielebekendmakingen.nl/{first['identifier']}.html"
    assert first["citation"]["label"] == "Bron: Lokale bekendmakingen (KOOP)"
    assert first["citation"]["requires_attribution"] is True
    assert first["identifier"] in first["citation"]["text"]


async def test_paging_caps_the_limit_and_continues_from_next_offset(env: PlatformHarness) -> None:
    total = sum(1 for p in PUBLICATIONS if p.publication_name == "Gemeenteblad")
    capped = await env.call("search_publications", media=["gmb"], limit=80)
    assert capped["precision"]["returned"] == min(50, total) and capped["precision"]["total"] == total
    assert any("results_per_call of 50" in note for note in capped["precision"]["not_applied"])
    first = await env.call("search_publications", media=["gmb"], limit=10)
    assert first["precision"]["truncated"] is True and first["precision"]["next_offset"] == 10
    assert [(s.query["startRecord"], s.query["maximumRecords"]) for s in env.requests] == [("1", "20")]
    second = await env.call("search_publications", media=["gmb"], limit=10, offset=10)
    assert env.requests == []  # the next page of 10 was in the block of 20 the first page fetched
    third = await env.call("search_publications", media=["gmb"], limit=10, offset=20)
    assert [(s.query["startRecord"], s.query["maximumRecords"]) for s in env.requests] == [("21", "20")]
    assert env.requests[-1].query["query"] == (
        'c.product-area=="officielepublicaties" AND w.publicatienaam=="Gemeenteblad" '
        "sortBy dt.available/sort.descending")
    pages = [[r["identifier"] for r in result["results"]] for result in (first, second, third)]
    newest_first = sorted((p for p in PUBLICATIONS if p.publication_name == "Gemeenteblad"),
                          key=lambda p: (p.available, p.identifier), reverse=True)
    listed = [identifier for one in pages for identifier in one]
    assert listed == [p.identifier for p in newest_first][:len(listed)]
    assert len(pages[1]) == 10 and second["precision"]["next_offset"] == 20
    assert all(r["medium"] == "gmb" for r in second["results"] + third["results"])


async def test_offset_past_the_paging_window_is_refused_without_a_call(env: PlatformHarness) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"offset": 9999}, env.tools["search_publications"].input_schema)
    with pytest.raises(ToolInputError, match="10,000"):
        await env.call("search_publications", check_input=False, query="parkeren", offset=9999)
    assert env.requests == []


async def test_type_and_period_filters(env: PlatformHarness) -> None:
    kind = "verkeersbesluit of -mededeling"  # as Gouda's real records name the type
    result = await env.call("search_publications", publication_type=kind, media=["gmb"],
                            date_from="2025-12-01", date_to="2025-12-31")
    query = env.requests[0].query["query"]
    assert f'dt.type=="{kind}"' in query
    assert "dt.available>=2025-12-01 AND dt.available<=2025-12-31" in query
    expected = [p for p in PUBLICATIONS if p.type == kind and p.publication_name == "Gemeenteblad"
                and "2025-12-01" <= p.available <= "2025-12-31"]
    assert result["precision"]["total"] == len(expected) > 0
    assert [r["identifier"] for r in result["results"]] == ["gmb-2025-516350"]


async def test_script_payloads_come_back_as_plain_data(env: PlatformHarness) -> None:
    result = await env.call("search_publications", organisation="Gouda", query="ontwerpbestemmingsplan")
    hit = next(r for r in result["results"] if "<script>" in r["title"])
    assert hit["title"] == XSS_TITLE
    assert hit["abstract"] == XSS_ABSTRACT


# --------------------------------------------------------------------------- read_publication


async def test_read_fetches_metadata_then_the_xml_text(env: PlatformHarness) -> None:
    result = await env.call("read_publication", identifier="gmb-2023-174296", length=100)
    assert [(s.path, s.query.get("query")) for s in env.requests] == [
        ("/lokaal/sru", 'c.product-area=="officielepublicaties" AND dt.identifier=="gmb-2023-174296"'),
        ("/lokaal/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/xml/gmb-2023-174296.xml", None),
    ]
    assert env.requests[0].pairs == sru_query(startRecord="1", maximumRecords="1", query=env.requests[0].query["query"])
    assert env.requests[1].headers["Accept"] == "application/xml"
    assert result["title"].startswith("Ingekomen melding, Frater Romboutsstraat 42")
    assert result["organisation"] == "Bergeijk" and result["published"] == "2023-04-20"
    assert result["xml_url"] == ("https://repository.overheid.nl/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/"
                                 "xml/gmb-2023-174296.xml")
    assert result["length"] == 100 and result["next_offset"] == 100
    rest = await env.call("read_publication", identifier="gmb-2023-174296", offset=100, length=5000)
    assert "asbest" in (result["text"] + rest["text"]) and rest["next_offset"] is None
    assert rest["citation"]["text"] == "Gemeenteblad 2023, 174296 (gmb-2023-174296), Bergeijk, gepubliceerd 2023-04-20"


async def test_read_refuses_identifiers_of_other_sources_and_unknown_ones(env: PlatformHarness) -> None:
    with pytest.raises(ToolInputError, match="officielebekendmakingen"):
        await env.call("read_publication", identifier="stcrt-2024-12345")
    assert env.requests == []
    with pytest.raises(ToolInputError, match="has no publication 'gmb-2026-999999999'"):
        await env.call("read_publication", identifier="gmb-2026-999999999")


# --------------------------------------------------------------------------- SRU replies


async def test_query_diagnostics_become_input_errors_and_others_bad_replies(env: PlatformHarness) -> None:
    parse = reply_parser(KEY, "Local official publications")
    upstream = env.ctx.upstream
    with pytest.raises(ToolInputError, match=r"mismatched input 'dt\.title'"):
        await upstream.get("", parse, params=koop_params('c.product-area=="officielepublicaties" dt.title', start=1,
                                                         maximum=1), caller=Caller.session("test"))
    assert (await upstream._store.availability(KEY) or {}).get("available") is True
    with pytest.raises(UpstreamBadReply, match="Unsupported version"):
        await upstream.get("", parse, params=[("operation", "searchRetrieve"), ("version", "1.1"),
                                              ("query", "dt.title=x")], caller=Caller.session("test"))
    ignored = await upstream.get("", parse, params=koop_params(
        'c.product-area=="officielepublicaties" AND dt.available<=2026-02-29', start=1, maximum=1),
        caller=Caller.session("test"))
    assert ignored.total == len(PUBLICATIONS) and ignored.ignored and "2026-02-29" in ignored.ignored[0]


# --------------------------------------------------------------------------- load status


async def test_measure_load_reports_each_organisations_newest_recorded_publication(env: PlatformHarness) -> None:
    report = await lokaal.measure_load(env.ctx)
    year_ago = (ANCHOR - timedelta(days=365)).isoformat()
    newest = {code: max((date.fromisoformat(p.available) for p in PUBLICATIONS if p.publication_name == name
                         and p.available >= year_ago), default=None) for code, name in lokaal.SOURCE.media.items()}
    assert report.per_medium == newest
    assert report.per_medium["gmb"] == ANCHOR - timedelta(days=2)  # the marked sample
    assert report.per_medium["wsb"] is None  # no real Waterschapsblad record was recorded
    by_name = {(o.name, o.medium): o for o in report.organs}
    assert set(by_name) == {(p.creator, p.identifier.split("-")[0]) for p in PUBLICATIONS if p.available >= year_ago}
    assert by_name[(SAMPLE_ORGANISATION, "gmb")].organ == "gmb:gouda"
    sweep = env.requests[0].query
    assert sweep["facetLimit"] == "1000:dt.creator" and sweep["maximumRecords"] == "500"
    assert sweep["query"] == ('c.product-area=="officielepublicaties" AND w.publicatienaam=="Gemeenteblad" AND '
                              f'dt.available>={year_ago} sortBy dt.available/sort.descending')
    _, count = await env.ctx.upstream._store.calls(SYSTEM_CALLER.key, 50)
    assert count == len(env.requests) <= 8 + lokaal.ORGAN_CALL_BUDGET


# --------------------------------------------------------------------------- real records and names (issue 20)

TOOI = json.loads((Path(__file__).parent / "data" / "tooi_organisations.json").read_text(encoding="utf-8"))


def _tooi_names(kind: str) -> set[str]:
    return {row["name"] for row in TOOI[kind]} | {row["full_name"] for row in TOOI[kind]}


def test_every_served_organisation_is_a_real_one_in_the_tooi_registers() -> None:
    kinds = {"Gemeenteblad": "gemeente", "Provinciaal blad": "provincie", "Waterschapsblad": "waterschap"}
    for pub in PUBLICATIONS:
        assert pub.creator in _tooi_names(kinds[pub.publication_name]), (pub.identifier, pub.creator)
    assert "'s-Gravenhage" in _tooi_names("gemeente") and "Den Haag" not in _tooi_names("gemeente")


def test_the_organisation_examples_name_real_publishers() -> None:
    described = lokaal.TOOLS[0].input_schema["properties"]["organisation"]["description"]
    for name in ("Gouda", "'s-Gravenhage"):
        assert name in described and name in _tooi_names("gemeente")
    assert "provincie Utrecht" in described and "Utrecht" in _tooi_names("provincie")
    creators = {(p.creator, p.organisation_type) for p in PUBLICATIONS}
    assert {("Gouda", "gemeente"), ("'s-Gravenhage", "gemeente"), ("Utrecht", "provincie")} <= creators


def test_no_generated_text_is_served_as_a_publication() -> None:
    made_up = [p for p in PUBLICATIONS if not p.origin]
    assert [p.title.startswith("Voorbeeld") for p in made_up] == [True]
    real = [p for p in PUBLICATIONS if p.origin]
    assert len(real) >= 30 and all(p.available < "2026-01-01" for p in real)  # real dates, not shifted


async def test_den_haag_is_found_under_the_name_it_publishes_with(env: PlatformHarness) -> None:
    result = await env.call("search_publications", organisation="'s-Gravenhage", query="Korte Poten")
    assert [r["identifier"] for r in result["results"]] == ["gmb-2024-501922"]
    assert result["results"][0]["organisation"] == "'s-Gravenhage"


# --------------------------------------------------------------------------- organisations and words (issue 21)


def _ids(result: dict[str, Any]) -> set[str]:
    return {r["identifier"] for r in result["results"]}


UTRECHT_GMB = {p.identifier for p in PUBLICATIONS if (p.creator, p.publication_name) == ("Utrecht", "Gemeenteblad")}
UTRECHT_PRB = {p.identifier for p in PUBLICATIONS if (p.creator, p.publication_name) == ("Utrecht", "Provinciaal blad")}


def test_the_replica_matches_creators_as_koop_does() -> None:
    """`=` is a phrase inside the name (the province's records come with "Utrecht"), `==` the whole name."""
    from proxy.replica.sru_common import _koop_evaluation, evaluate, parse_cql

    def hits(cql: str) -> set[str]:
        return {p.identifier for p in PUBLICATIONS if evaluate(parse_cql(cql).root, p, _koop_evaluation())}

    assert hits('dt.creator="Utrecht"') == UTRECHT_GMB | UTRECHT_PRB and UTRECHT_GMB and UTRECHT_PRB
    assert hits('dt.creator=="Den Haag"') == set() and hits('dt.creator="gemeente Utrecht"') == set()
    assert hits('dt.creator=="Utrecht" AND w.organisatietype=="provincie"') == UTRECHT_PRB


async def test_gemeente_utrecht_finds_the_municipality_and_not_the_province(env: PlatformHarness) -> None:
    # Before: dt.creator="gemeente Utrecht" found nothing (KOOP stores "Utrecht").
    result = await env.call("search_publications", organisation="gemeente Utrecht", limit=50)
    assert _ids(result) == UTRECHT_GMB
    assert 'dt.creator=="Utrecht" AND w.organisatietype=="gemeente"' in env.requests[0].query["query"]
    assert "read as the gemeente Utrecht (gm0344)" in result["precision"]["matched"]
    province = await env.call("search_publications", organisation="provincie Utrecht", limit=50)
    assert _ids(province) == UTRECHT_PRB  # Gedeputeerde Staten van Utrecht, in the Provinciaal blad
    assert "in Provinciaal blad" in province["precision"]["matched"]


async def test_utrecht_alone_is_the_municipality_and_says_what_else_it_could_mean(env: PlatformHarness) -> None:
    # Before: dt.creator="Utrecht" mixed the province's Provinciaal blad into the municipality's records unsaid.
    result = await env.call("search_publications", organisation="Utrecht", limit=50)
    assert _ids(result) == UTRECHT_GMB
    assert "it can also mean provincie Utrecht" in result["precision"]["matched"]


async def test_den_haag_is_sent_as_the_name_the_municipality_publishes_under(env: PlatformHarness) -> None:
    # Before: dt.creator="Den Haag" found no 's-Gravenhage record (live: only the Metropoolregio Rotterdam Den Haag).
    expected = {p.identifier for p in PUBLICATIONS if p.creator == "'s-Gravenhage"}
    for written in ("Den Haag", "gemeente Den Haag", "'s-Gravenhage", "s-Gravenhage"):
        result = await env.call("search_publications", organisation=written, limit=50, ctx=env.context())
        assert _ids(result) == expected, written
        assert "creator exactly \"'s-Gravenhage\"" in result["precision"]["matched"], written
        assert 'dt.creator=="\'s-Gravenhage"' in env.requests[-1].query["query"]


async def test_names_outside_the_register_are_sent_whole_and_exact_and_near_misses_refused(
        env: PlatformHarness) -> None:
    result = await env.call("search_publications", organisation="Metropoolregio Rotterdam Den Haag")
    assert 'dt.creator=="Metropoolregio Rotterdam Den Haag"' in env.requests[-1].query["query"]
    assert "as written" in result["precision"]["matched"] and result["results"] == []
    with pytest.raises(ToolInputError, match="did you mean gemeente Gouda"):
        await env.call("search_publications", organisation="Goudaa")
    with pytest.raises(ToolInputError, match=r"gemeente Bergen \(NH\).*gemeente Bergen \(L\)"):
        await env.call("search_publications", organisation="Bergen")


async def test_every_word_in_any_order_and_a_phrase_only_in_quotes(env: PlatformHarness) -> None:
    # Before: the query went as one quoted phrase, so "bomen kappen" missed "het kappen van 15 bomen".
    result = await env.call("search_publications", organisation="Den Haag", query="bomen kappen")
    assert _ids(result) == {"gmb-2024-502209"}
    assert 'cql.textAndIndexes="bomen" AND cql.textAndIndexes="kappen"' in env.requests[-1].query["query"]
    assert "every word must occur, in any order" in result["precision"]["matched"]
    kept = await env.call("search_publications", query='"kappen van 15 bomen" Madestein')
    assert _ids(kept) == {"gmb-2024-502209"}
    assert 'cql.textAndIndexes="kappen van 15 bomen"' in env.requests[-1].query["query"]
    assert (await env.call("search_publications", query='"bomen kappen"'))["results"] == []
    assert _ids(await env.call("search_publications", query="kappen cipres")) == {"gmb-2024-502519"}


async def test_accents_and_case_are_ignored(env: PlatformHarness) -> None:
    result = await env.call("search_publications", organisation="provincie Utrecht", query="BEEINDIGING veehouderij*")
    assert "prb-2025-19903" in _ids(result)  # "beëindiging veehouderijlocaties"


@pytest.mark.parametrize("mode", MODES)
async def test_organisations_and_words_through_the_sdk(server: LiveServer, mode: str) -> None:
    async with client(server.url("lokalebekendmakingen"), mode) as c:
        found = await c.call_tool("search_publications", {"organisation": "gemeente Den Haag", "query": "bomen kappen"})
        assert not found.is_error, text_of(found)
        assert [r["identifier"] for r in found.structured_content["results"]] == ["gmb-2024-502209"]
        province = await c.call_tool("search_publications", {"organisation": "provincie Utrecht", "limit": 50})
        assert {r["identifier"] for r in province.structured_content["results"]} == UTRECHT_PRB
