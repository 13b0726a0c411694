"""Rechtspraak adapter against its replica over a real socket: wire format, precision, load status, failures."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import aiohttp
import jsonschema
import pytest
from aiohttp import web

from proxy.errors import ToolInputError, UpstreamBadReply, UpstreamStatusError, UpstreamTimeout, UpstreamTooLarge
from proxy.loadstatus import status_from_report
from proxy.platforms import rechtspraak
from proxy.platforms.rechtspraak import area_uri, court_uri, normal_ecli
from proxy.registry import Platform, Registry, Timeouts, load_registry
from proxy.replica import FAULTS, create_replicas_app, replica_base_urls
from proxy.replica.rechtspraak import XSS_SUMMARY, Ruling, build_rulings
from proxy.state import MemoryStore
from proxy.toolkit import PlatformContext, ToolCall
from proxy.upstream import Upstream

ROOT = Path(__file__).resolve().parent.parent
KEY = "rechtspraak"
ANCHOR = date(2026, 11, 30)
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=UTC)
TOOLS = {t.name: t for t in rechtspraak.TOOLS}
RVS = "http://standaarden.overheid.nl/owms/terms/Raad_van_State"


@dataclass
class Seen:
    path: str
    pairs: list[tuple[str, str]]
    raw_path: str


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
        seen.append(Seen(path=request.path, pairs=list(request.query.items()), raw_path=request.raw_path))
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


def _rulings() -> list[Ruling]:
    return list(build_rulings(ANCHOR).values())


# --------------------------------------------------------------------------- arguments


def test_courts_and_areas_become_the_platform_uris() -> None:
    assert court_uri("Raad van State") == RVS
    assert court_uri("rvs") == RVS
    assert court_uri("GHSHE") == "http://standaarden.overheid.nl/owms/terms/Gerechtshof_'s-Hertogenbosch"
    assert court_uri(RVS) == RVS
    assert area_uri("bestuursrecht_omgevingsrecht") == "http://psi.rechtspraak.nl/rechtsgebied#bestuursrecht_omgevingsrecht"
    assert normal_ecli(" ecli:nl:hr:2014:952 ") == "ECLI:NL:HR:2014:952"
    with pytest.raises(ToolInputError):
        court_uri("<Raad>")
    with pytest.raises(ToolInputError):
        normal_ecli("NL:HR:2014:952")


# --------------------------------------------------------------------------- search_rulings


async def test_search_sends_the_metadata_filter_and_lists_ignored_words(env: Env) -> None:
    result = await env.call("search_rulings", court="Raad van State", area_of_law="bestuursrecht_omgevingsrecht",
                            type="Uitspraak", date_from="2026-01-01", query="windturbine geluid", limit=5)
    request = env.only_request()
    assert request.path == "/rechtspraak/uitspraken/zoeken"
    assert request.pairs == [
        ("type", "Uitspraak"), ("creator", RVS),
        ("subject", "http://psi.rechtspraak.nl/rechtsgebied#bestuursrecht_omgevingsrecht"),
        ("date", "2026-01-01"), ("date", "2026-11-30"),  # an open end closes at today (server clock)
        ("return", "DOC"), ("max", "5"), ("from", "0"), ("sort", "DESC"),
    ]
    assert "%23bestuursrecht_omgevingsrecht" in request.raw_path  # '#' must not end the URL

    expected = [r for r in _rulings() if not r.deleted and r.court == "Raad van State" and r.has_doc
                and r.area == "bestuursrecht_omgevingsrecht" and r.type == "Uitspraak"
                and date(2026, 1, 1) <= r.date <= ANCHOR]
    precision = result["precision"]
    assert precision["total"] == len(expected) and precision["total_relation"] == "exact"
    assert precision["not_applied"][0].startswith("search words 'windturbine geluid'")
    assert "NOT applied" in precision["matched"] and "metadata filter only" in precision["matched"]
    newest = sorted(expected, key=lambda r: (r.modified, r.ecli), reverse=True)[:5]
    assert [r["ecli"] for r in result["results"]] == [r.ecli for r in newest]
    first = result["results"][0]
    assert first["court"] == "Raad van State" and first["date"] == newest[0].date.isoformat()
    assert first["citation"]["uri"] == f"https://uitspraken.rechtspraak.nl/details?id={first['ecli']}"


async def test_search_counts_withdrawn_entries_in_paging(env: Env) -> None:
    listed = sorted((r for r in _rulings() if r.deleted or r.has_doc), key=lambda r: (r.modified, r.ecli),
                    reverse=True)
    at = next(n for n, r in enumerate(listed) if r.deleted)
    result = await env.call("search_rulings", limit=10, offset=at)
    assert env.only_request().pairs == [("return", "DOC"), ("max", "10"), ("from", str(at)), ("sort", "DESC")]
    precision = result["precision"]
    assert precision["total"] == len(listed)  # the feed counts withdrawn ECLIs too
    withdrawn_here = sum(r.deleted for r in listed[at:at + 10])
    assert precision["returned"] == 10 - withdrawn_here < 10
    assert precision["next_offset"] == at + 10  # paging steps over the withdrawn entries as well
    assert "withdrawn entr" in precision["matched"]
    assert listed[at].ecli not in {r["ecli"] for r in result["results"]}


async def test_search_returns_stale_court_and_payload_summaries_verbatim(env: Env) -> None:
    assen = await env.call("search_rulings", court="Rechtbank Assen", limit=50)
    assert assen["precision"]["total"] == 10  # the recorded 2004-2005 feed entries
    assert all(r["date"] < "2006" for r in assen["results"])
    xss = await env.call("search_rulings", court="RVS", area_of_law="bestuursrecht_omgevingsrecht", limit=50)
    assert XSS_SUMMARY in {r["summary"] for r in xss["results"]}


# --------------------------------------------------------------------------- read_ruling


async def test_read_ruling_serves_recorded_text_in_chunks(env: Env) -> None:
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


async def test_read_ruling_handles_metadata_only_and_generated_rulings(env: Env) -> None:
    meta_only = await env.call("read_ruling", ecli="ECLI:NL:CBB:1997:ZG0125")
    assert meta_only["has_text"] is False and meta_only["text"] == "" and meta_only["next_offset"] is None
    assert meta_only["references"] == ["Algemene wet bestuursrecht 1:3", "Warenwet 5"]
    ruling = next(r for r in _rulings() if r.court_code == "CRVB" and not r.deleted)
    generated = await env.call("read_ruling", ecli=ruling.ecli)
    assert generated["date"] == ruling.date.isoformat() and generated["summary"] == ruling.summary
    assert "Beslissing" in generated["text"] and generated["case_numbers"] == [ruling.case_number]


async def test_read_ruling_refuses_unknown_and_malformed_eclis(env: Env) -> None:
    with pytest.raises(ToolInputError, match="no published ruling ECLI:NL:HR:2099:1"):
        await env.call("read_ruling", ecli="ECLI:NL:HR:2099:1")
    with pytest.raises(ToolInputError, match="must look like"):
        await env.call("read_ruling", ecli="uitspraak 2014 952")


# --------------------------------------------------------------------------- load status


async def test_measure_load_reports_the_newest_publication(env: Env) -> None:
    report = await rechtspraak.measure_load(env.ctx())
    assert env.seen[-1].pairs == [("type", "Uitspraak"), ("return", "DOC"), ("max", "20"), ("from", "0"),
                                  ("sort", "DESC")]
    newest = max(r.modified for r in _rulings() if not r.deleted and r.type == "Uitspraak")
    assert report.current_through == newest.date() >= date(2026, 11, 29)
    status = status_from_report(env.platform, report, today=ANCHOR,
                                stalled_after_days=env.registry.load_status.stalled_after_days, measured_at=NOW)
    assert status["receiving"] is True


# --------------------------------------------------------------------------- failures


async def test_failures_raise_readable_upstream_errors_then_recover(env: Env) -> None:
    faults = env.app[FAULTS][KEY]
    faults.update({"error_rate": 1.0, "status": 503})
    with pytest.raises(UpstreamStatusError, match="HTTP 503") as failed:
        await env.call("search_rulings", court="HR")
    assert failed.value.status == 503
    faults.clear()

    faults.update({"latency_ms": 600})
    quick = dataclasses.replace(env.platform, timeouts=Timeouts(connect_seconds=0.2, total_seconds=0.2))
    with pytest.raises(UpstreamTimeout, match="did not answer"):
        await env.call("read_ruling", ctx=env.ctx(quick), ecli="ECLI:NL:RBAMS:2010:BO3979")
    faults.clear()

    faults.update({"malformed": True})
    with pytest.raises(UpstreamBadReply, match="could not be read"):
        await env.call("search_rulings", court="HR")
    faults.clear()

    faults.update({"oversize_bytes": 40_000})
    small = dataclasses.replace(env.platform, max_response_bytes=10_000)
    with pytest.raises(UpstreamTooLarge, match="cap"):
        await env.call("search_rulings", ctx=env.ctx(small), court="HR")
    faults.clear()

    good = await env.call("read_ruling", ecli="ECLI:NL:RBAMS:2010:BO3979")
    assert good["court"] == "Rechtbank Amsterdam" and good["has_text"] is True


# --------------------------------------------------------------------------- replica fidelity


async def _get(env: Env, path: str, params: list[tuple[str, str]]) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(env.url + "/rechtspraak" + path,
                                                                params=params) as resp:
        return resp.status, await resp.text()


async def test_replica_ignores_unknown_parameters_and_checks_known_ones(env: Env) -> None:
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


async def test_every_example_works_against_the_replica(env: Env) -> None:
    for name, impl in TOOLS.items():
        assert impl.example is not None, name
        result = await env.call(name, **impl.example)
        if "precision" in result:
            assert result["precision"]["returned"] == len(result["results"]) > 0, name
