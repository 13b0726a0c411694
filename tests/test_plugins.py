"""Platforms are plug-ins: a new one is a module plus registry entries, nothing else.

The toy platform below lives in a temporary directory (found through BESLUITBRON_PLATFORM_PATH)
with its own tiny replica; a temporary copy of the registry names it. It is then served on its
own address and on Alle Bronnen, measured by Laadstatus, and given pages on the site.
"""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import proxy.platforms
import proxy.replica
from proxy.catalog.build import load_plugin
from proxy.catalog.generation import load_generation
from proxy.core.errors import CatalogError
from proxy.maintain.checklive import check_live
from proxy.platforms import PLATFORM_PATH_ENV
from proxy.registry.model import load_registry
from proxy.replica import FAULTS, create_replicas_app, replica_base_urls
from proxy.results.external import EXTERNAL_META_KEY
from proxy.serving.loadstatus import measure_generation
from tests.conftest import MODES, Replicas, client, listen, serve, write_registry
from tests.conftest_mcp import meta_of
from tests.site_helpers import run_mkdocs_build
from tests.test_platform_examples import check_examples
from tests.test_platform_failures import FAULTS as FAULT_CASES
from tests.test_platform_failures import check_failures

TOY_MODULE = '''
"""Toy platform for the plug-in test: one search over a tiny JSON API."""

from datetime import date

from proxy.core.caller import SYSTEM_CALLER
from proxy.platforms._common import cite
from proxy.results.outputs import precision, result_list_schema
from proxy.core.schema_atoms import STR
from proxy.plugin.canary import Probe, check_load
from proxy.plugin.toolkit import About, LoadReport, PlatformContext, PlatformPlugin, ToolCall, ToolImpl
from proxy.plugin.toolkit import as_json


async def search_notes(call: ToolCall) -> dict:
    data = await call.get("/notes", as_json, params={"q": call.arguments["query"]})
    hits = [{"id": n["id"], "title": n["title"],
             "citation": cite(call.ctx, uri=n["url"], title=n["title"], text=n["title"])} for n in data["items"]]
    return {"results": hits, "precision": precision(total=data["total"], total_relation="exact",
                                                    returned=len(hits), truncated=False, matched="title words")}


async def measure_load(ctx: PlatformContext) -> LoadReport:
    data = await ctx.upstream.get("/newest", as_json, caller=SYSTEM_CALLER)
    return LoadReport(current_through=date.fromisoformat(data["newest"]))


async def canary(probe: Probe, plugin: PlatformPlugin) -> None:
    """One search checked against what search_notes relies on, then the load query."""
    data = await probe.get("search", "/notes", as_json, params={"q": "speelgoed"})
    items = data.get("items") if isinstance(data, dict) else None
    if probe.expect(isinstance(items, list) and bool(items), "search", "no 'items' list"):
        probe.count(data.get("total"), len(items), "search: total")
        for n, item in enumerate(items):
            for name in ("id", "title", "url"):
                probe.field(item, name, f"search: items[{n}]")
    probe.check()
    await check_load(probe, plugin)

PLATFORM = PlatformPlugin(
    key="toy",
    tools=(ToolImpl("search_notes", {"type": "object", "properties": {"query": {**STR, "maxLength": 200}},
                                     "required": ["query"]},
                    result_list_schema({"id": STR, "title": STR}), search_notes, example={"query": "speelgoed"}),),
    measure_load=measure_load,
    canary=canary,
    about=About(documentation="https://example.org/toy-api"),
)
'''

TOY_REPLICA = '''
"""The toy platform's replica: its two endpoints (invented: the toy has no real counterpart)."""

from datetime import date

from aiohttp import web


def create_app(anchor: date) -> web.Application:
    async def notes(request: web.Request) -> web.Response:
        q = request.query["q"]
        items = [{"id": "n1", "title": f"Notitie over {q}", "url": "https://example.org/notes/n1"}]
        return web.json_response({"total": 1, "items": items})

    async def newest(_: web.Request) -> web.Response:
        return web.json_response({"newest": "2026-11-20"})

    app = web.Application()
    app.router.add_get("/notes", notes)
    app.router.add_get("/newest", newest)
    return app
'''

NEWEST = "2026-11-20"


def _words(nl: str, en: str) -> dict[str, str]:
    return {"nl": nl, "en": en}


def _add_toy(data: dict[str, Any], base_url: str, tools: tuple[str, ...] = ("search_notes",)) -> None:
    platform = json.loads(json.dumps(data["platforms"]["woo"]))
    platform.update(title=_words("Speelgoedbron", "Toy source"), prefix="toy", base_url=base_url,
                    description=_words("Een bron om mee te testen.", "A source to test with."))
    data["platforms"]["toy"] = platform
    data["connectors"].insert(len(data["connectors"]) - 1, {
        "slug": "speelgoed", "platform": "toy", "enabled": True, "in_footer": False,
        "title": _words("Speelgoed", "Toys"), "description": _words("Speelgoednotities.", "Toy notes."),
        "tools": [{"name": name, "title": _words("Notities zoeken", "Search notes"),
                   "description": _words("Zoek notities op titel.", "Search notes by title."),
                   "question": _words("Welke notities gaan hierover?", "Which notes are about this?")}
                  for name in tools],
    })


@pytest.fixture
def toy_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory with proxy.platforms.toy in it, searched after the package's own directory."""
    folder = tmp_path / "platforms"
    (folder / "replica").mkdir(parents=True)
    (folder / "toy.py").write_text(TOY_MODULE, encoding="utf-8")
    (folder / "replica" / "toy.py").write_text(TOY_REPLICA, encoding="utf-8")
    # What BESLUITBRON_PLATFORM_PATH does when the packages are imported (they already are, in this process).
    monkeypatch.setattr(proxy.platforms, "__path__", [*proxy.platforms.__path__, str(folder)])
    monkeypatch.setattr(proxy.replica, "__path__", [*proxy.replica.__path__, str(folder / "replica")])
    monkeypatch.setenv(PLATFORM_PATH_ENV, str(folder))
    for module in ("proxy.platforms.toy", "proxy.replica.toy"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    yield folder
    for module in ("proxy.platforms.toy", "proxy.replica.toy"):
        sys.modules.pop(module, None)


@pytest.fixture
async def toy_replica(toy_path: Path) -> AsyncIterator[str]:
    """The toy's own replica module (found through the same path as the platform), on a port of its own."""
    runner, url = await listen(importlib.import_module("proxy.replica.toy").create_app(date.today()))
    yield url
    await runner.cleanup()


async def test_a_toy_platform_with_a_canary_passes_check_live_the_examples_and_the_failures(
        toy_path: Path, tmp_path: Path) -> None:
    """A platform is its two modules and registry entries: the toy, brought in from outside the package with its
    replica beside it, passes the same live contract check, examples test and failure test as the shipped ones,
    with no other file changed (those tests take their platforms from the registry)."""
    registry_path = write_registry(tmp_path, lambda d: _add_toy(d, "https://toy.example.org"))
    app = create_replicas_app(["toy"])
    runner, url = await listen(app)
    try:
        registry = load_registry(registry_path)
        registry = registry.with_base_urls(replica_base_urls({"toy": registry.platforms["toy"].base_url}, url))
        result = await check_live(registry, "toy")  # what `python -m proxy check-live toy` runs, on the replica
        assert (result.status, result.findings) == ("ok", ()) and result.requests >= 2
        app[FAULTS]["toy"].update({"drift": {'"title"': '"titel"'}})
        drifted = await check_live(registry, "toy")
        assert drifted.status == "drift" and "search: items[0]: field 'title' is missing" in drifted.findings
    finally:
        await runner.cleanup()
    await check_examples("toy", registry_path)
    for faults, error, words in FAULT_CASES.values():
        await check_failures("toy", faults, error, words, registry_path=registry_path)


async def test_a_toy_platform_is_served_listed_measured_and_documented(
        toy_path: Path, toy_replica: str, replicas: Replicas, tmp_path: Path) -> None:
    registry_path = write_registry(tmp_path, lambda d: _add_toy(d, toy_replica))
    async with serve(registry_path, replicas) as live:
        for mode in MODES:
            async with client(live.url("speelgoed"), mode) as c:
                result = await c.call_tool("search_notes", {"query": "speelgoed"})
                assert not result.is_error, result.content
                assert result.structured_content["results"][0]["title"] == "Notitie over speelgoed"
            async with client(live.url("allebronnen"), mode) as c:
                names = {t.name for t in (await c.list_tools()).tools}
                assert "toy_search_notes" in names
                result = await c.call_tool("toy_search_notes", {"query": "blokken"})
                data = result.structured_content
                assert meta_of(result)[EXTERNAL_META_KEY]["sources"] == ["toy"]
                assert data["cited_chunks"][data["results"][0]["cited_chunk"]]["title"] == "Notitie over blokken"
        await measure_generation(live.runtime.generation, live.runtime.store)
        async with aiohttp.ClientSession() as http, http.get(f"{live.base}/status") as resp:
            status = {s["source"]: s for s in (await resp.json())["sources"]}
        assert status["toy"]["current_through"] == NEWEST and status["toy"]["title"] == "Speelgoedbron"

    proc = run_mkdocs_build(registry_path, tmp_path / "site", extra_env={PLATFORM_PATH_ENV: str(toy_path)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = (tmp_path / "site" / "connectoren" / "speelgoed.html").read_text(encoding="utf-8")
    assert "/speelgoed/mcp" in page and "search_notes" in page
    assert (tmp_path / "site" / "bronplatforms" / "toy.html").is_file()
    aggregate = (tmp_path / "site" / "connectoren" / "allebronnen.html").read_text(encoding="utf-8")
    assert "toy_search_notes" in aggregate


def test_a_module_without_measure_load_is_refused_naming_both(toy_path: Path) -> None:
    source = (toy_path / "toy.py").read_text(encoding="utf-8")
    (toy_path / "toy.py").write_text(source.replace("measure_load=measure_load,", "measure_load=None,"),
                                     encoding="utf-8")
    with pytest.raises(CatalogError, match=r"platforms\.toy: proxy/platforms/toy\.py PLATFORM .*measure_load"):
        load_plugin("toy")


def test_a_module_without_a_plugin_is_refused(toy_path: Path) -> None:
    (toy_path / "toy.py").write_text("TOOLS = ()\n", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"platforms\.toy: proxy/platforms/toy\.py must define PLATFORM"):
        load_plugin("toy")


def test_a_tool_missing_from_the_registry_is_refused_naming_module_and_tool(
        toy_path: Path, tmp_path: Path) -> None:
    source = (toy_path / "toy.py").read_text(encoding="utf-8")
    extra = textwrap.dedent('''
        PLATFORM = PlatformPlugin(key="toy", tools=(*PLATFORM.tools,
                                  ToolImpl("count_notes", {"type": "object"}, {"type": "object"}, search_notes)),
                                  measure_load=measure_load, about=PLATFORM.about)
    ''')
    (toy_path / "toy.py").write_text(source + extra, encoding="utf-8")
    path = write_registry(tmp_path, lambda d: _add_toy(d, "https://example.org"))
    with pytest.raises(CatalogError, match=r"proxy/platforms/toy\.py: tool 'count_notes' has no registry entry"):
        load_generation(path)


def test_a_registry_tool_missing_from_the_module_is_refused(toy_path: Path, tmp_path: Path) -> None:
    path = write_registry(tmp_path, lambda d: _add_toy(d, "https://example.org", ("search_notes", "read_note")))
    with pytest.raises(CatalogError, match=r"tool 'read_note' has no implementation in proxy/platforms/toy\.py"):
        load_generation(path)


def test_every_built_in_plug_in_says_what_it_cannot_do_and_its_quirks_in_dutch_too() -> None:
    """The Dutch Bronplatforms pages showed the plug-ins' English notes (up to 46 English words per 1,000)."""
    from proxy.catalog.build import load_plugins
    from proxy.registry.model import load_registry
    from tests.conftest import REGISTRY

    for key, plugin in load_plugins(load_registry(REGISTRY)).items():
        about = plugin.about
        assert len(about.cannot_nl) == len(about.cannot) and len(about.quirks_nl) == len(about.quirks), key
        assert all(lang == "nl" for kind in ("cannot", "quirks") for _, lang in about.lines(kind, "nl")), key
        assert [line for line, _ in about.lines("cannot", "en")] == list(about.cannot), key
