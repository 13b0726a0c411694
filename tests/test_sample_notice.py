"""Issue 20: answers from the offline replicas say they are a sample, everywhere an assistant or a person looks:
the server instructions, every result (a note before the fenced JSON, and `_meta`), list_capabilities, /health
and a banner on every site page. The same server pointed at platforms it is not told are replicas (UPSTREAM=real
against a stand-in) says none of it, and its citations are the same: they link where the real record lives."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from proxy.registry.model import load_registry
from proxy.results.sample import META_KEY, SampleData, replica_sample
from tests.conftest import REGISTRY, LiveServer, Replicas, client, serve_sample
from tests.conftest_mcp import meta_of, text_of
from tests.site_helpers import run_mkdocs_build

KEYS = sorted(load_registry(REGISTRY).platforms)
CALL = ("wetten", "read_article", {"identifier": "BWBR0003984", "article": "2"})
MODES = ("legacy", "2026-07-28")


@pytest.fixture
async def sampled(replicas: Replicas, tmp_path: Path) -> AsyncIterator[tuple[LiveServer, SampleData]]:
    async with serve_sample(replicas, tmp_path) as pair:
        yield pair


def test_every_replica_names_its_recording_date() -> None:
    sample = replica_sample(KEYS)
    assert set(sample.recorded_on) == set(KEYS) and all(sample.recorded_on.values())
    assert sample.newest in sample.note() and "not from the live platform" in sample.note()


@pytest.mark.parametrize("mode", MODES)
async def test_a_replica_answer_says_it_is_a_sample(sampled: tuple[LiveServer, SampleData], mode: str) -> None:
    live, sample = sampled
    slug, tool, arguments = CALL
    async with client(live.url(slug), mode) as c:
        result = await c.call_tool(tool, arguments)
        text = text_of(result)
        assert not result.is_error, text
        assert text.startswith("SAMPLE DATA:") and sample.recorded_on["wetten"] in text.splitlines()[0]
        note = meta_of(result)[META_KEY]
        assert note["sample"] is True and note["recorded_on"] == sample.recorded_on["wetten"]
        cited = result.structured_content["cited_chunks"]
        assert cited and all(c["uri"].startswith("https://wetten.overheid.nl/") for c in cited)  # the real record
        caps = await c.call_tool("list_capabilities", {})
        assert caps.structured_content["sample_data"]["recorded_on"] == {"wetten": sample.recorded_on["wetten"]}
    if mode == "legacy":
        async with client(live.url("allebronnen"), mode) as c:
            info = c.session.initialize_result
            assert info is not None and info.instructions is not None
            assert info.instructions.startswith("VOORBEELDGEGEVENS")


async def test_health_says_the_installation_serves_a_sample(sampled: tuple[LiveServer, SampleData]) -> None:
    live, sample = sampled
    async with aiohttp.ClientSession() as http, http.get(f"{live.base}/health") as resp:
        body = await resp.json()
    assert body["sample_data"]["sample"] is True and body["sample_data"]["recorded_on"] == dict(sample.recorded_on)


@pytest.mark.parametrize("mode", MODES)
async def test_a_stand_in_for_the_real_platforms_carries_no_sample_note(server: LiveServer, mode: str) -> None:
    """UPSTREAM=real pointed at a stand-in (conftest's `server`): the same answers, not declared a sample."""
    stand_in = server
    slug, tool, arguments = CALL
    async with client(stand_in.url(slug), mode) as c:
        result = await c.call_tool(tool, arguments)
        assert not result.is_error and not text_of(result).startswith("SAMPLE DATA")
        assert META_KEY not in (result.meta or {})
        caps = await c.call_tool("list_capabilities", {})
        assert caps.structured_content["sample_data"] is None
    async with aiohttp.ClientSession() as http, http.get(f"{stand_in.base}/health") as resp:
        assert "sample_data" not in await resp.json()


def test_every_site_page_carries_the_banner_only_in_sample_mode(tmp_path: Path) -> None:
    proc = run_mkdocs_build(REGISTRY, tmp_path / "site", sample_recorded_on="2026-08-21")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pages = sorted((tmp_path / "site").rglob("*.html"))
    assert len(pages) > 20
    missing = [p.relative_to(tmp_path).as_posix() for p in pages
               if 'class="sample-banner"' not in p.read_text("utf-8") or "2026-08-21" not in p.read_text("utf-8")]
    assert not missing, missing[:5]
    english = (tmp_path / "site" / "en" / "index.html").read_text("utf-8")
    assert "Sample data: this installation answers from an offline sample" in english
    assert "Voorbeeldgegevens" in (tmp_path / "site" / "index.html").read_text("utf-8")
