"""Lokale bekendmakingen against its replica over a real socket: tools, wire shapes, load status, failures."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import jsonschema
import pytest
from aiohttp import web

from proxy.errors import (
    ToolInputError,
    UpstreamBadReply,
    UpstreamStatusError,
    UpstreamTimeout,
    UpstreamTooLarge,
)
from proxy.platforms import lokaal
from proxy.platforms.sru import koop_params, reply_parser
from proxy.registry import Timeouts, load_registry
from proxy.replica import FAULTS, create_replicas_app, replica_base_urls
from proxy.replica.lokaal import NEWEST, STALLED, XSS_ABSTRACT, XSS_TITLE, build_publications
from proxy.state import MemoryStore
from proxy.toolkit import PlatformContext, ToolCall
from proxy.upstream import SYSTEM_CALLER, Upstream

ANCHOR = date(2026, 10, 5)
NOW = datetime(2026, 10, 5, 12, 0, tzinfo=UTC)
KEY = "lokaal"
SCOPE = ('(w.publicatienaam=="Gemeenteblad" OR w.publicatienaam=="Provinciaal blad" OR '
         'w.publicatienaam=="Waterschapsblad" OR w.publicatienaam=="Blad gemeenschappelijke regeling")')
TOOLS = {t.name: t for t in lokaal.TOOLS}


@dataclass
class Seen:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]


@dataclass
class Env:
    app: web.Application
    ctx: PlatformContext
    seen: list[Seen] = field(default_factory=list)
    opened: list[Upstream] = field(default_factory=list)

    async def call(self, tool: str, *, check_input: bool = True, **arguments: Any) -> dict[str, Any]:
        impl = TOOLS[tool]
        if check_input:
            jsonschema.validate(arguments, impl.input_schema)
        result = await impl.handler(ToolCall(tool=tool, arguments=arguments, caller="test", ctx=self.ctx))
        jsonschema.validate(result, impl.output_schema)
        return result

    def with_platform(self, **changes: Any) -> Env:
        platform = dataclasses.replace(self.ctx.platform, **changes)
        upstream = Upstream(platform, store=MemoryStore())
        self.opened.append(upstream)
        return Env(app=self.app, ctx=PlatformContext(platform=platform, upstream=upstream, now=self.ctx.now),
                   seen=self.seen, opened=self.opened)


@pytest.fixture
async def env() -> AsyncIterator[Env]:
    app = create_replicas_app([KEY], anchor=ANCHOR)
    seen: list[Seen] = []

    @web.middleware
    async def record(request: web.Request, handler: Any) -> web.StreamResponse:
        seen.append(Seen(request.method, request.path, list(request.query.items()), dict(request.headers)))
        return await handler(request)  # type: ignore[no-any-return]

    app.middlewares.append(record)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    registry = load_registry("registry.json")
    registry = registry.with_base_urls(replica_base_urls(
        {k: p.base_url for k, p in registry.platforms.items()}, f"http://127.0.0.1:{site.port}"))
    platform = registry.platforms[KEY]
    upstream = Upstream(platform, store=MemoryStore())
    env = Env(app=app, ctx=PlatformContext(platform=platform, upstream=upstream, now=lambda: NOW), seen=seen,
              opened=[upstream])
    yield env
    for opened in env.opened:
        await opened.close()
    await runner.cleanup()


PUBLICATIONS = build_publications(ANCHOR)


def sru_query(**params: str) -> list[tuple[str, str]]:
    return [("operation", "searchRetrieve"), ("version", "2.0"), ("recordSchema", "gzd"), *params.items()]


# --------------------------------------------------------------------------- search_publications


async def test_search_sends_the_documented_cql_and_maps_precision(env: Env) -> None:
    result = await env.call("search_publications", organisation="Bergeijk", query="asbest", date_from="2023-01-01",
                            limit=5)

    assert [(s.method, s.path) for s in env.seen] == [("GET", "/lokaal/sru")]
    assert env.seen[0].query == sru_query(
        startRecord="1", maximumRecords="5",
        query=f'c.product-area=="officielepublicaties" AND {SCOPE} AND dt.creator="Bergeijk" AND '
              'cql.textAndIndexes="asbest" AND dt.available>=2023-01-01 sortBy dt.available/sort.descending')
    assert env.seen[0].headers["Accept"] == "application/xml"

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


async def test_paging_caps_the_limit_and_continues_from_next_offset(env: Env) -> None:
    total = sum(1 for p in PUBLICATIONS if p.publication_name == "Waterschapsblad")
    first = await env.call("search_publications", media=["wsb"], limit=80)
    assert first["precision"]["returned"] == 50
    assert first["precision"]["total"] == total
    assert first["precision"]["truncated"] is True and first["precision"]["next_offset"] == 50
    assert any("results_per_call of 50" in note for note in first["precision"]["not_applied"])
    second = await env.call("search_publications", media=["wsb"], limit=50, offset=50)
    assert dict(env.seen[-1].query)["startRecord"] == "51"
    assert dict(env.seen[-1].query)["query"] == (
        'c.product-area=="officielepublicaties" AND w.publicatienaam=="Waterschapsblad" '
        "sortBy dt.available/sort.descending")
    assert not {r["identifier"] for r in first["results"]} & {r["identifier"] for r in second["results"]}
    assert all(r["medium"] == "wsb" for r in second["results"])


async def test_offset_past_the_paging_window_is_refused_without_a_call(env: Env) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"offset": 9999}, TOOLS["search_publications"].input_schema)
    with pytest.raises(ToolInputError, match="10,000"):
        await env.call("search_publications", check_input=False, query="parkeren", offset=9999)
    assert env.seen == []


async def test_type_and_period_filters(env: Env) -> None:
    result = await env.call("search_publications", publication_type="verkeersbesluit", media=["gmb"],
                            date_from=(ANCHOR - timedelta(days=30)).isoformat(), date_to=ANCHOR.isoformat())
    query = dict(env.seen[0].query)["query"]
    assert 'dt.type=="verkeersbesluit"' in query
    assert f"dt.available>={(ANCHOR - timedelta(days=30)).isoformat()} AND dt.available<={ANCHOR.isoformat()}" in query
    expected = [p for p in PUBLICATIONS if p.type == "verkeersbesluit" and p.publication_name == "Gemeenteblad"
                and (ANCHOR - timedelta(days=30)).isoformat() <= p.available <= ANCHOR.isoformat()]
    assert result["precision"]["total"] == len(expected)
    assert all(r["type"] == "verkeersbesluit" for r in result["results"])


async def test_script_payloads_come_back_as_plain_data(env: Env) -> None:
    result = await env.call("search_publications", organisation="Gouda", query="ontwerpbestemmingsplan")
    hit = next(r for r in result["results"] if "<script>" in r["title"])
    assert hit["title"] == XSS_TITLE
    assert hit["abstract"] == XSS_ABSTRACT


# --------------------------------------------------------------------------- read_publication


async def test_read_fetches_metadata_then_the_xml_text(env: Env) -> None:
    result = await env.call("read_publication", identifier="gmb-2023-174296", length=100)
    assert [(s.path, dict(s.query).get("query")) for s in env.seen] == [
        ("/lokaal/sru", 'c.product-area=="officielepublicaties" AND dt.identifier=="gmb-2023-174296"'),
        ("/lokaal/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/xml/gmb-2023-174296.xml", None),
    ]
    assert env.seen[0].query == sru_query(startRecord="1", maximumRecords="1", query=dict(env.seen[0].query)["query"])
    assert env.seen[1].headers["Accept"] == "application/xml"
    assert result["title"].startswith("Ingekomen melding, Frater Romboutsstraat 42")
    assert result["organisation"] == "Bergeijk" and result["published"] == "2023-04-20"
    assert result["xml_url"] == ("https://repository.overheid.nl/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/"
                                 "xml/gmb-2023-174296.xml")
    assert result["length"] == 100 and result["next_offset"] == 100
    rest = await env.call("read_publication", identifier="gmb-2023-174296", offset=100, length=5000)
    assert "asbest" in (result["text"] + rest["text"]) and rest["next_offset"] is None
    assert rest["citation"]["text"] == "Gemeenteblad 2023, 174296 (gmb-2023-174296), Bergeijk, gepubliceerd 2023-04-20"


async def test_read_refuses_identifiers_of_other_sources_and_unknown_ones(env: Env) -> None:
    with pytest.raises(ToolInputError, match="officielebekendmakingen"):
        await env.call("read_publication", identifier="stcrt-2024-12345")
    assert env.seen == []
    with pytest.raises(ToolInputError, match="has no publication 'gmb-2026-999999999'"):
        await env.call("read_publication", identifier="gmb-2026-999999999")


# --------------------------------------------------------------------------- SRU replies


async def test_query_diagnostics_become_input_errors_and_others_bad_replies(env: Env) -> None:
    parse = reply_parser(KEY, "Local official publications")
    upstream = env.ctx.upstream
    with pytest.raises(ToolInputError, match=r"mismatched input 'dt\.title'"):
        await upstream.get("", parse, params=koop_params('c.product-area=="officielepublicaties" dt.title', start=1,
                                                         maximum=1), caller="test")
    assert (await upstream._store.availability(KEY) or {}).get("available") is True
    with pytest.raises(UpstreamBadReply, match="Unsupported version"):
        await upstream.get("", parse, params=[("operation", "searchRetrieve"), ("version", "1.1"),
                                              ("query", "dt.title=x")], caller="test")
    ignored = await upstream.get("", parse, params=koop_params(
        'c.product-area=="officielepublicaties" AND dt.available<=2026-02-29', start=1, maximum=1), caller="test")
    assert ignored.total == len(PUBLICATIONS) and ignored.ignored and "2026-02-29" in ignored.ignored[0]


# --------------------------------------------------------------------------- load status


async def test_measure_load_finds_the_stalled_organisations(env: Env) -> None:
    report = await lokaal.measure_load(env.ctx)
    assert report.per_medium == {m: ANCHOR - timedelta(days=d) for m, d in NEWEST.items()}
    assert report.current_through == ANCHOR
    by_name = {(o.name, o.medium): o for o in report.organs}
    assert len(by_name) == len({(p.creator, p.publication_name) for p in PUBLICATIONS
                                if p.available >= (ANCHOR - timedelta(days=365)).isoformat()})
    threshold = ANCHOR - timedelta(days=60)
    stalled = {o.name: o.current_through for o in report.organs if o.current_through and o.current_through < threshold}
    assert stalled == {name: ANCHOR - timedelta(days=days) for name, days in STALLED.items()}
    assert by_name[("Vlieland", "gmb")].organ == "gmb:vlieland"
    assert by_name[("Wetterskip Fryslân", "wsb")].organ == "wsb:wetterskip-fryslan"
    sweep = dict(env.seen[0].query)
    assert sweep["facetLimit"] == "1000:dt.creator" and sweep["maximumRecords"] == "500"
    assert sweep["query"] == ('c.product-area=="officielepublicaties" AND w.publicatienaam=="Gemeenteblad" AND '
                              f'dt.available>={(ANCHOR - timedelta(days=365)).isoformat()} '
                              'sortBy dt.available/sort.descending')
    _, count = await env.ctx.upstream._store.calls(SYSTEM_CALLER, 50)
    assert count == len(env.seen) <= 8 + lokaal.ORGAN_CALL_BUDGET


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize(("faults", "error", "words"), [
    ({"error_rate": 1.0}, UpstreamStatusError, "HTTP 500"),
    ({"malformed": True}, UpstreamBadReply, "could not be read"),
    ({"oversize_bytes": 50_000}, UpstreamTooLarge, "cap"),
    ({"latency_ms": 800}, UpstreamTimeout, "did not answer within 0.3 s"),
])
async def test_failures_are_readable_then_recover(env: Env, faults: dict[str, Any], error: type[Exception],
                                                  words: str) -> None:
    tight = env.with_platform(max_response_bytes=20_000, timeouts=Timeouts(connect_seconds=1, total_seconds=0.3))
    env.app[FAULTS][KEY].update(faults)
    with pytest.raises(error, match=words) as caught:
        await tight.call("search_publications", query="parkeren", limit=3)
    assert "Local official publications" in str(caught.value)
    env.app[FAULTS][KEY].clear()
    result = await tight.call("search_publications", query="parkeren", limit=3)
    assert result["precision"]["total"] is not None
