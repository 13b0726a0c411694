"""Issue 39: what the offline default says is said of its sample, never of the platforms.

The server runs as `make run UPSTREAM=replica` runs it: the replicas without test fixtures, and the sample notice
on. Asked for real records the sample lacks, every answer names the sample and none says the platform lacks them;
the Woo asked for today is a known version whose text the sample lacks, never "not in force"; platform_status
reports the recording's dates whatever the clock says; and no record made for tests reaches an answer.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from proxy.catalog.generation import load_generation
from proxy.plugin.upstream import Upstream
from proxy.registry.model import load_registry
from proxy.replica.rechtspraak import build_rulings
from proxy.replica.tweedekamer import build_store
from proxy.replica.wetten import build_versions
from proxy.results.sample import META_KEY, SAMPLE_FIELD, SampleData, replica_sample
from proxy.serving.loadstatus import measure_generation
from proxy.state.store import MemoryStore
from tests.conftest import REGISTRY, LiveServer, Replicas, client, serve_sample
from tests.conftest_mcp import meta_of, text_of

KEYS = sorted(load_registry(REGISTRY).platforms)
TODAY = date.today()

# Real records (laws, articles, rulings, publications, members, councils) that the sample does not hold.
LACKING: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("wetten", "read_article", {"identifier": "BWBR0011353", "article": "3.1"}),  # Wet inkomstenbelasting 2001
    ("wetten", "read_regulation", {"identifier": "BWBR0004627"}),  # Kieswet
    ("wetten", "read_article", {"identifier": "BWBR0003984", "article": "7"}),  # the recorded 1986 regeling
    ("rechtspraak", "read_ruling", {"ecli": "ECLI:NL:RBDHA:2021:5337"}),  # Milieudefensie v Shell
    ("rechtspraak", "read_ruling", {"ecli": "ECLI:NL:GHDHA:2024:2099"}),  # the Shell appeal
    ("rechtspraak", "search_rulings", {"court": "Hoge Raad", "date_from": "2025-01-01"}),
    ("officielebekendmakingen", "read_publication", {"identifier": "stb-2021-499"}),  # the Woo in the Staatsblad
    ("officielebekendmakingen", "read_publication", {"identifier": "stcrt-2024-1"}),
    ("lokalebekendmakingen", "read_publication", {"identifier": "gmb-2024-100"}),
    ("tweedekamer", "search_members", {"name": "Rutte"}),
    ("tweedekamer", "search_cases", {"query": "stikstofwet"}),
    ("openraadsinformatie", "search_documents", {"query": "begroting 2025", "organisation": "Amsterdam"}),
    ("openraadsinformatie", "upcoming_meetings", {"organisation": "Rotterdam"}),
    ("openraadsinformatie", "list_organisations", {"name": "Groningen"}),
    ("openoverheid", "search_publications", {"query": "Schiphol geluidsnormen"}),
)
# Sentences that state a gap as a fact about a platform.
PLATFORM_FACTS = re.compile(
    r"(Basiswettenbestand|Rechtspraak|Tweede Kamer|OpenBesluitvorming|bekendmakingen|Open Overheid) has no\b|"
    r"not yet in force or already repealed|stands still|try fewer filters")
FIXTURE_MARKS = re.compile(r"VOORBEELD|Voorbeeld|voorbeeld-|<script|onerror=")


@pytest.fixture
async def sampled(default_replicas: Replicas, tmp_path: Path) -> AsyncIterator[tuple[LiveServer, SampleData]]:
    async with serve_sample(default_replicas, tmp_path) as pair:
        yield pair


def test_the_chosen_records_are_really_absent_from_the_sample() -> None:
    """The list above stays a list of gaps: a record added to the sample must leave it."""
    held = {v.bwb for v in build_versions() if v.xml}
    assert {"BWBR0011353", "BWBR0004627"}.isdisjoint(held)
    assert {"ECLI:NL:RBDHA:2021:5337", "ECLI:NL:GHDHA:2024:2099"}.isdisjoint(build_rulings(TODAY))
    assert not [p for p in build_store(TODAY).rows["Persoon"] if p.get("Achternaam") == "Rutte"]


async def test_every_answer_about_a_missing_record_names_the_sample(sampled: tuple[LiveServer, SampleData]) -> None:
    live, sample = sampled
    said = []
    for slug, tool, arguments in LACKING:
        async with client(live.url(slug), "2026-07-28") as c:
            result = await c.call_tool(tool, arguments)
        text = text_of(result)
        assert text.startswith("SAMPLE DATA:"), (tool, text[:200])
        assert meta_of(result)[META_KEY]["sample"] is True, tool
        if result.is_error:
            statement = text.split("\n\n", 1)[1]
            assert "offline sample" in statement and "not a fact about" in statement, statement
        else:
            data = result.structured_content or {}
            assert data.get(SAMPLE_FIELD) == sample.note(_platform(slug)), tool
            statement = _said_of_empty(data)
            assert "offline sample" in statement, (tool, statement)
        assert not PLATFORM_FACTS.search(text), (tool, PLATFORM_FACTS.search(text), text[:400])
        said.append(f"{slug}.{tool} {json.dumps(arguments, ensure_ascii=False)}: {statement[:150]}")
    print("\n" + "\n".join(said))
    assert len(said) >= 12


def _platform(slug: str) -> str:
    return next(c.platform for c in load_registry(REGISTRY).connectors if c.slug == slug) or ""


def _said_of_empty(data: dict[str, Any]) -> str:
    """What an answer without the record says: the hint of an empty list, or an organisation's sample note."""
    hint = (data.get("precision") or {}).get("hint")
    if hint:
        return str(hint)
    rows = data.get("results") or []
    assert rows, data
    return str(data["cited_chunks"][rows[0]["cited_chunk"]]["text"])


async def test_the_woo_today_is_a_known_version_whose_text_the_sample_lacks(
        sampled: tuple[LiveServer, SampleData]) -> None:
    live, _ = sampled
    async with client(live.url("wetten"), "2026-07-28") as c:
        found = await c.call_tool("search_regulations", {"title": "Woo"})
        rows = (found.structured_content or {})["results"]
        assert [(r["identifier"], r["valid_to"]) for r in rows] == [("BWBR0045754", None)]  # in force today
        read = await c.call_tool("read_article", {"identifier": "Woo", "article": "5.1"})
    text = text_of(read)
    if read.is_error:  # the newest version's text is not recorded: said so, with where to read it
        assert "text of BWBR0045754" in text and "only its text was not recorded" in text, text
        assert "https://wetten.overheid.nl/BWBR0045754/" in text
    else:  # a recording of the version in force today answers
        assert (read.structured_content or {})["valid_from"] == rows[0]["valid_from"]
    assert "not in force" not in text and "repealed" not in text


async def test_platform_status_reports_the_recordings_dates_whatever_the_clock(default_replicas: Replicas) -> None:
    """The same measurement with the clock a year apart: every freshness field is equal (only measured_at moves)."""
    sample = replica_sample(KEYS)
    measured = []
    for shift in (timedelta(0), timedelta(days=365)):
        moment = datetime.now(UTC) + shift

        def clock(moment: datetime = moment) -> datetime:
            return moment

        generation = dataclasses.replace(load_generation(REGISTRY, base_urls=default_replicas.base_urls),
                                         clock=clock)
        store = MemoryStore()
        upstreams = {k: Upstream(p, store=store) for k, p in generation.registry.platforms.items()}
        bound = generation.bind(upstreams, None, sample.recording_days())
        try:
            await measure_generation(bound, store)
        finally:
            for upstream in upstreams.values():
                await upstream.close()
        statuses = {}
        for key in KEYS:
            status = await store.load_status(key)
            assert status is not None, key
            statuses[key] = {k: v for k, v in status.items() if k != "measured_at"}
        measured.append(statuses)
    now, a_year_on = measured
    for key in KEYS:
        assert now[key] == a_year_on[key], key
        through = now[key]["current_through"]
        assert through is None or str(through) <= sample.recorded_on[key], (key, through, sample.recorded_on[key])
    print("\n" + "\n".join(f"{k}: current_through {now[k]['current_through']}, receiving {now[k]['receiving']} "
                           f"(recorded {sample.recorded_on[k]})" for k in KEYS))


async def test_platform_status_carries_the_sample_notice(sampled: tuple[LiveServer, SampleData]) -> None:
    live, sample = sampled
    async with client(live.url("allebronnen"), "2026-07-28") as c:
        status = await c.call_tool("platform_status", {})
    data = status.structured_content or {}
    assert data["sample_data"]["recorded_on"] == dict(sample.recorded_on)
    assert "recording day" in data["sample_data"]["note"] and meta_of(status)[META_KEY]["sample"] is True


COMMON = ("", "besluit", "gemeente", "motie", "wet", "uitspraak", "2025", "woo")


async def test_no_fixture_record_in_any_default_answer(sampled: tuple[LiveServer, SampleData]) -> None:
    """Every search tool of Alle Bronnen, without words and with common ones: no record made for tests."""
    live, _ = sampled
    calls = 0
    async with client(live.url("allebronnen"), "2026-07-28") as c:
        tools = [t for t in (await c.list_tools()).tools if "search" in t.name or "upcoming" in t.name
                 or "list_organisations" in t.name]
        for tool in tools:
            properties = tool.input_schema.get("properties", {})
            required = set(tool.input_schema.get("required") or [])
            for words in COMMON:
                arguments: dict[str, Any] = {}
                if words and "query" in properties:
                    arguments["query"] = words
                elif words and "title" in properties:
                    arguments["title"] = words
                elif words:
                    continue
                if "organisation" in required:
                    arguments["organisation"] = "Utrecht"
                if "query" in required and "query" not in arguments:
                    continue
                if "limit" in properties:
                    arguments["limit"] = min(50, properties["limit"].get("maximum", 50))
                result = await c.call_tool(tool.name, arguments)
                calls += 1
                body = json.dumps(result.structured_content or {}, ensure_ascii=False) + text_of(result)
                marked = FIXTURE_MARKS.search(body)
                assert marked is None, (tool.name, arguments, body[max(0, marked.start() - 200):marked.end() + 100])
    print(f"\n{len(tools)} search tools, {calls} calls: no fixture record")
    assert len(tools) >= 10 and calls >= 30
