"""Open Overheid (Woo) adapter against its replica over a real socket: wire format, precision, load status,
failures."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import jsonschema
import pytest
from aiohttp import web

from proxy.errors import ToolInputError, UpstreamBadReply, UpstreamStatusError, UpstreamTimeout, UpstreamTooLarge
from proxy.loadstatus import status_from_report
from proxy.platforms import woo
from proxy.platforms.woo import publication_id
from proxy.registry import Platform, Registry, Timeouts, load_registry
from proxy.replica import FAULTS, create_replicas_app, replica_base_urls
from proxy.replica.woo import CATEGORIES, STALLED_DAYS, XSS_TITLE, Publication, build_publications
from proxy.state import MemoryStore
from proxy.toolkit import PlatformContext, ToolCall
from proxy.upstream import Upstream

ROOT = Path(__file__).resolve().parent.parent
KEY = "woo"
ANCHOR = date(2026, 11, 30)
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
TOOLS = {t.name: t for t in woo.TOOLS}
API = "/woo/overheid/openbaarmakingen/api/v0"


@dataclass
class Seen:
    path: str
    raw_path: str
    headers: dict[str, str]


@dataclass
class Env:
    url: str
    app: web.Application
    registry: Registry
    seen: list[Seen] = field(default_factory=list)
    upstreams: list[Upstream] = field(default_factory=list)

    @property
    def platform(self) -> Platform:
        return self.registry.platforms[KEY]

    def ctx(self, platform: Platform | None = None) -> PlatformContext:
        upstream = Upstream(platform or self.platform, store=MemoryStore())
        self.upstreams.append(upstream)
        return PlatformContext(platform=platform or self.platform, upstream=upstream, now=lambda: NOW)

    async def call(self, tool: str, ctx: PlatformContext | None = None, **arguments: Any) -> dict[str, Any]:
        impl = TOOLS[tool]
        jsonschema.validate(arguments, impl.input_schema)
        self.seen.clear()
        result = await impl.handler(ToolCall(tool=tool, arguments=arguments, caller="test", ctx=ctx or self.ctx()))
        jsonschema.validate(result, impl.output_schema)
        return result

    def only_request(self) -> Seen:
        assert len(self.seen) == 1, [s.raw_path for s in self.seen]
        return self.seen[0]


@pytest.fixture
async def env() -> AsyncIterator[Env]:
    app = create_replicas_app([KEY], anchor=ANCHOR)
    seen: list[Seen] = []

    @web.middleware
    async def record(request: web.Request, handler: Any) -> web.StreamResponse:
        seen.append(Seen(path=request.path, raw_path=request.raw_path, headers=dict(request.headers)))
        return await handler(request)

    app.middlewares.append(record)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{site.port}"
    registry = load_registry(ROOT / "registry.json")
    registry = registry.with_base_urls(replica_base_urls({k: p.base_url for k, p in registry.platforms.items()}, url))
    state = Env(url=url, app=app, registry=registry)
    state.seen = seen
    yield state
    for upstream in state.upstreams:
        await upstream.close()
    await runner.cleanup()


def _publications() -> list[Publication]:
    return list(build_publications(ANCHOR).values())


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


async def test_search_sends_the_site_query_with_double_encoded_filters(env: Env) -> None:
    result = await env.call("search_publications", query="Woo-verzoek  gemeente", organisation="gemeente Utrecht",
                            information_category="Woo-verzoeken en -besluiten", date_from="2024-01-01",
                            date_to="2026-10-31", sort="newest", limit=8)
    request = env.only_request()
    assert request.raw_path == (
        f"{API}/zoek?zoektekst=Woo-verzoek%20gemeente&start=0&aantalResultaten=10&sort=publicatiedatum"
        "&publicatiedatumVan=01-01-2024&publicatiedatumTot=31-10-2026"
        "&informatiecategorie=Woo-verzoeken%2520en%2520-besluiten&organisatie=gemeente%2520Utrecht")
    assert request.headers["Accept"] == "application/json"

    expected = [p for p in _publications() if p.body[0] == "gemeente Utrecht" and p.category == "woo"
                and date(2024, 1, 1) <= p.published <= date(2026, 10, 31)
                and all(w in p.search_text for w in ("woo-verzoek", "gemeente"))]
    precision = result["precision"]
    assert precision["total"] == len(expected) > 8
    assert precision["total_relation"] == "estimate" and "not documented as exact" in precision["matched"]
    assert precision["returned"] == 8 and precision["next_offset"] == 8  # a page of 10 cut to the 8 asked for
    dates = [r["published"] for r in result["results"]]
    assert dates == sorted(dates, reverse=True)
    hit = result["results"][0]
    assert "_" not in hit["id"] and hit["version"] in (1, 2)
    assert hit["citation"]["uri"] == f"https://open.overheid.nl/documenten/{hit['id']}"
    assert hit["publisher"] == "gemeente Utrecht"


async def test_search_encodes_a_curly_apostrophe_twice_too(env: Env) -> None:
    label = CATEGORIES["agenda"][0]
    result = await env.call("search_publications", information_category=label, limit=10, offset=5)
    assert env.only_request().raw_path == (
        f"{API}/zoek?zoektekst=&start=5&aantalResultaten=10&sort=publicatiedatum"
        "&informatiecategorie=agenda%25E2%2580%2599s%2520en%2520besluitenlijsten%2520bestuurscolleges")
    expected = [p for p in _publications() if p.category == "agenda"]
    assert result["precision"]["total"] == len(expected)
    assert len(result["results"]) == len(expected) - 5 > 0
    assert result["precision"]["truncated"] is False and result["precision"]["next_offset"] is None


async def test_search_ranks_by_relevance_and_returns_payloads_as_text(env: Env) -> None:
    result = await env.call("search_publications", query="zaaksystemen")
    assert "sort=" not in env.only_request().raw_path  # relevance is the platform's default order
    assert result["results"][0]["title"] == XSS_TITLE
    assert "<img src=x onerror=alert(1)>" in (result["results"][0]["description"] or "")
    assert "<b>" not in (result["results"][0]["snippet"] or "")  # highlight markup removed, the text kept


# --------------------------------------------------------------------------- read_publication


async def test_read_publication_lists_files_and_attachments_with_citations(env: Env) -> None:
    main = next(p for p in _publications() if p.kind == "besluit" and len(p.relations) >= 2)
    result = await env.call("read_publication", id=f"{main.id}_{main.version}")
    request = env.only_request()
    assert request.raw_path == f"{API}/zoek/{main.id}"
    publication = result["publication"]
    assert publication["id"] == main.id and publication["title"] == main.title
    assert publication["responsible"] == main.body[0]
    assert publication["information_categories"] == ["Woo-verzoeken en -besluiten"]
    assert publication["version"] == main.version and publication["status"] == "gepubliceerd"
    kinds = [d["kind"] for d in result["results"]]
    assert kinds == ["file"] + ["related"] * len(main.relations)
    related = [d for d in result["results"] if d["kind"] == "related"]
    assert [d["id"] for d in related] == [other for _, other in main.relations]
    assert {d["role"] for d in related} == {"heeft bijlage"}
    assert all(d["citation"]["uri"] == d["url"] for d in result["results"])
    precision = result["precision"]
    assert precision["total"] == 1 + len(main.relations) and precision["truncated"] is False

    attachment = await env.call("read_publication", id=related[0]["url"], limit=1, offset=1)
    assert attachment["results"][0]["role"] == "is bijlage van" and attachment["results"][0]["id"] == main.id
    assert attachment["precision"]["total"] == 2 and attachment["precision"]["next_offset"] is None


async def test_read_publication_refuses_unknown_ids(env: Env) -> None:
    with pytest.raises(ToolInputError, match="no publication 'oep-doesnotexist'"):
        await env.call("read_publication", id="oep-doesnotexist")


# --------------------------------------------------------------------------- load status


async def test_measure_load_finds_the_stalled_source(env: Env) -> None:
    report = await woo.measure_load(env.ctx())
    assert env.seen[-1].raw_path == f"{API}/zoek?zoektekst=&start=0&aantalResultaten=10&sort=publicatiedatum"
    assert report.current_through == ANCHOR - timedelta(days=STALLED_DAYS)
    assert report.current_through == max(p.published for p in _publications())
    status = status_from_report(env.platform, report, today=ANCHOR,
                                stalled_after_days=env.registry.load_status.stalled_after_days, measured_at=NOW)
    assert status["receiving"] is False
    assert status["current_through"] == (ANCHOR - timedelta(days=STALLED_DAYS)).isoformat()


# --------------------------------------------------------------------------- failures


async def test_failures_raise_readable_upstream_errors_then_recover(env: Env) -> None:
    faults = env.app[FAULTS][KEY]
    faults.update({"error_rate": 1.0})
    with pytest.raises(UpstreamStatusError, match="HTTP 500"):
        await env.call("search_publications", query="stikstof")
    faults.clear()

    faults.update({"latency_ms": 600})
    quick = dataclasses.replace(env.platform, timeouts=Timeouts(connect_seconds=0.2, total_seconds=0.2))
    with pytest.raises(UpstreamTimeout, match="did not answer"):
        await env.call("search_publications", ctx=env.ctx(quick), query="stikstof")
    faults.clear()

    faults.update({"malformed": True})
    with pytest.raises(UpstreamBadReply, match="could not be read"):
        await env.call("search_publications", query="stikstof")
    faults.clear()

    faults.update({"oversize_bytes": 40_000})
    with pytest.raises(UpstreamTooLarge, match="cap"):
        await env.call("search_publications", ctx=env.ctx(dataclasses.replace(env.platform,
                                                                              max_response_bytes=10_000)))
    faults.clear()

    result = await env.call("search_publications", query="stikstof")
    assert result["precision"]["total"] > 0


# --------------------------------------------------------------------------- replica fidelity


async def test_replica_enforces_page_sizes_and_bare_ids(env: Env) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{env.url}{API}/zoek?zoektekst=&start=0&aantalResultaten=15") as resp:
            assert resp.status == 400 and "aantalResultaten" in (await resp.json())["detail"]
        async with session.get(f"{env.url}{API}/zoek?zoekterm=stikstof&aantalResultaten=10") as resp:
            assert (await resp.json())["totaal"] == len(_publications())  # an unknown parameter is ignored
        some = _publications()[0]
        async with session.get(f"{env.url}{API}/zoek/{some.id}_{some.version}") as resp:
            assert resp.status == 404
        async with session.get(f"{env.url}{API}/zoek/{some.id}") as resp:
            assert resp.status == 200 and (await resp.json())["document"]["pid"] == some.pid


async def test_every_example_works_against_the_replica(env: Env) -> None:
    for name, impl in TOOLS.items():
        assert impl.example is not None, name
        result = await env.call(name, **impl.example)
        if "precision" in result:
            assert result["precision"]["returned"] == len(result["results"]) > 0, name
