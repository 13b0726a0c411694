"""The heart of the site: for many registry variants the built site and the live server agree
exactly on which MCP addresses exist. Off = absent everywhere; hidden only leaves the footer."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest
from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from proxy.registry.model import load_registry
from proxy.remote.hub import list_once
from proxy.web.app import Config, create_app
from tests.conftest import REGISTRY
from tests.remote_server import ENV, SECRET, ThirdPartyServer, add_remote
from tests.site_helpers import attr, build_site, collect_site_addresses, site_files

SHIPPED = load_registry(REGISTRY)
SLUGS = [c.slug for c in SHIPPED.connectors]
# Surfaces that must name every enabled connector (C11): hidden ≠ off.
FULL_SURFACES = ("connectoren.html", "en/connectoren.html", "keuzehulp.html", "en/keuzehulp.html",
                 "explorer.html", "en/explorer.html", "llms.txt", "en/llms.txt", "sitemap.xml", "robots.txt",
                 "connectoren.md", "en/connectoren.md", "keuzehulp.md", "en/keuzehulp.md")


def _variant(tmp: Path, enabled: dict[str, bool], footer: dict[str, bool],
             edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    if edit:
        edit(data)
    for c in data["connectors"]:
        c["enabled"], c["in_footer"] = enabled[c["slug"]], footer[c["slug"]]
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "registry.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


async def _server_surfaces(registry_path: Path) -> dict[str, set[str]]:
    """Every way the live server says which addresses exist."""
    variant = load_registry(registry_path)
    slugs = [c.slug for c in variant.connectors]
    prefix_to_slug = {variant.platforms[c.platform].prefix: c.slug for c in variant.connectors if c.platform}
    app = create_app(Config(registry_path=registry_path, measure_load=False))
    runner = aiohttp.web.AppRunner(app)
    await runner.setup()
    site = aiohttp.web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    base = f"http://127.0.0.1:{site.port}"
    out: dict[str, set[str]] = {}
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{base}/health") as resp:
                out["/health"] = {c["url"] for c in (await resp.json())["connectors"]}
            answering = set()
            for slug in [*slugs, "nietbestaand"]:
                async with http.post(f"{base}/{slug}/mcp", json={}) as resp:
                    if resp.status != 404:
                        answering.add(f"/{slug}/mcp")
            out["HTTP status"] = answering
            # Discovery: the MCP Catalog, each address's server card, and where a browser opening it is sent.
            async with http.get(f"{base}/.well-known/mcp/catalog.json") as resp:
                out["MCP Catalog"] = {urlsplit(e["url"]).path.removesuffix("/server-card")
                                      for e in (await resp.json())["entries"]}
            cards, pages = set(), set()
            for slug in [*slugs, "nietbestaand"]:  # this variant's slugs: a remote connector's too
                async with http.get(f"{base}/{slug}/mcp/server-card") as resp:
                    if resp.status == 200:
                        cards |= {urlsplit(r["url"]).path for r in (await resp.json())["remotes"]}
                async with http.get(f"{base}/{slug}/mcp", headers={"Accept": "text/html"},
                                    allow_redirects=False) as resp:
                    if resp.status == 303:
                        pages.add(f"/{resp.headers['Location'].removeprefix('/connectoren/').removesuffix('.html')}/mcp")
            out["server cards"] = cards
            out["browser redirects"] = pages
        for address in sorted(answering):
            async with Client(base + address, mode="legacy") as c:  # every address answers initialize
                tools = (await c.list_tools()).tools
                if address == "/allebronnen/mcp":
                    prefixes = {t.name.split("_", 1)[0] for t in tools if t.name.split("_", 1)[0] in prefix_to_slug}
                    caps = (await c.call_tool("list_capabilities", {})).structured_content
                    sources = {s["source"] for s in caps["sources"]}
                    out["Alle Bronnen prefixes"] = {f"/{prefix_to_slug[p]}/mcp" for p in prefixes}
                    slug_of = {c.platform: c.slug for c in variant.connectors if c.platform}
                    out["Alle Bronnen list_capabilities"] = {f"/{slug_of[s]}/mcp" for s in sources}
    finally:
        await runner.cleanup()
    return out


def _footer_addresses(site_dir: Path) -> dict[str, set[str]]:
    found = {}
    for page in site_dir.rglob("*.html"):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        footer = soup.find("footer")
        # "" joins the parts of an address split by <wbr>; the copy buttons' text counts too.
        copied = [attr(b, "data-clipboard-text") for b in footer.select("[data-clipboard-text]")] if footer else []
        text = " ".join([footer.get_text(""), *copied]) if footer else ""
        found[page.relative_to(site_dir).as_posix()] = set(re.findall(r"/[a-z0-9]+/mcp\b", text))
    return found


def check_agreement(tmp: Path, enabled: dict[str, bool], footer: dict[str, bool],
                    edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """Build the site for a variant, serve it, and compare every surface; returns the site directory."""
    registry_path = _variant(tmp, enabled, footer, edit)
    registry = load_registry(registry_path)
    # A remote connector's tools are listed by the server; a stand-alone build is handed that listing as data.
    remote = asyncio.run(list_once(registry)) if any(c.remote for c in registry.connectors) else None
    site_dir = build_site(registry_path, tmp / "site", remote=remote)
    slugs = list(enabled)
    expected = {f"/{s}/mcp" for s in slugs if enabled[s]}
    expected_footer = {f"/{s}/mcp" for s in slugs if enabled[s] and footer[s]}

    site = collect_site_addresses(site_dir)
    shown = set().union(*site.values())
    assert shown == expected, f"site shows {sorted(shown - expected)} and misses {sorted(expected - shown)}"
    for surface in FULL_SURFACES:
        assert site[surface] == expected, (surface, sorted(site[surface] ^ expected))
    # One server.json per enabled connector, in both language folders, each naming exactly its own address.
    for prefix in ("", "en/"):
        server_json = {name: found for name, found in site.items()
                       if name.startswith(f"{prefix}connectoren/") and name.endswith(".server.json")}
        assert {f"/{n.rsplit('/', 1)[1].removesuffix('.server.json')}/mcp" for n in server_json} == expected
        assert all(found == {f"/{n.rsplit('/', 1)[1].removesuffix('.server.json')}/mcp"}
                   for n, found in server_json.items())

    server = asyncio.run(_server_surfaces(registry_path))
    sources = expected - {"/allebronnen/mcp"}
    for surface, addresses in server.items():
        want = sources if surface.startswith("Alle Bronnen") else expected
        assert addresses == want, (surface, sorted(addresses ^ want))
    assert ("Alle Bronnen prefixes" in server) == enabled["allebronnen"]

    for page, addresses in _footer_addresses(site_dir).items():
        if page.endswith("404.html") or addresses:
            assert addresses == expected_footer, (page, addresses)

    for off in (s for s in slugs if not enabled[s]):
        pattern = re.compile(rf'/{off}/mcp|connectoren/{off}\.html|"slug":\s*"{off}"')
        for path in site_dir.rglob("*"):
            if path.is_file() and path.suffix in (".html", ".txt", ".xml", ".json", ".js"):
                assert not pattern.search(path.read_text(encoding="utf-8", errors="replace")), (off, path.name)
    return site_dir


ALL_ON = {s: True for s in SLUGS}
SHIPPED_FOOTER = {c.slug: c.in_footer for c in SHIPPED.connectors}


def test_all_on(tmp_path: Path) -> None:
    check_agreement(tmp_path, ALL_ON, SHIPPED_FOOTER)


# Every connector off in one variant and its footer switch flipped (while it is on) in the other: two builds prove
# what one build per connector and switch proved before (16), since site and server read the one catalog and a
# connector's surfaces do not depend on its neighbours' switches (the random combinations below mix them too).
EVENS, ODDS = SLUGS[0::2], SLUGS[1::2]
HALVES = {
    "evens off, the odds' footer flipped": ({s: s not in EVENS for s in SLUGS},
                                            {s: SHIPPED_FOOTER[s] != (s in ODDS) for s in SLUGS}),
    "odds off, the evens' footer flipped": ({s: s not in ODDS for s in SLUGS},
                                            {s: SHIPPED_FOOTER[s] != (s in EVENS) for s in SLUGS}),
}


def test_the_halves_switch_every_connector_off_and_flip_every_footer_switch() -> None:
    assert {s for enabled, _ in HALVES.values() for s in SLUGS if not enabled[s]} == set(SLUGS)
    assert {s for enabled, footer in HALVES.values() for s in SLUGS
            if enabled[s] and footer[s] != SHIPPED_FOOTER[s]} == set(SLUGS)


@pytest.mark.parametrize("half", list(HALVES))
def test_each_connector_off_and_each_footer_switch_flipped(tmp_path: Path, half: str) -> None:
    enabled, footer = HALVES[half]
    check_agreement(tmp_path, enabled, footer)


switches = st.fixed_dictionaries({s: st.booleans() for s in SLUGS})


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(enabled=switches, footer=switches)
def test_random_combinations(tmp_path_factory: Any, enabled: dict[str, bool], footer: dict[str, bool]) -> None:
    check_agreement(tmp_path_factory.mktemp("variant"), enabled, footer)


def test_remote_connector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A third-party MCP server as a connector: on the site and the server alike, on its own address and on
    Alle Bronnen, with the tools the server serves; the credential planted for it shows on no page."""
    monkeypatch.setenv(ENV, SECRET)
    third_party = ThirdPartyServer(header="Authorization", value=f"Bearer {SECRET}").start()
    try:
        site_dir = check_agreement(tmp_path, {**ALL_ON, "derde": True}, {**SHIPPED_FOOTER, "derde": False},
                                   lambda data: add_remote(data, third_party.url))
    finally:
        third_party.stop()
    files = site_files(site_dir)
    page = files["connectoren/derde.html"].decode()
    assert "search_notes" in page and "Notitie lezen" in page
    assert "delete_note: the server marks it destructive" in page  # what the server says of the tools it refused
    assert 'id="tool-delete_note"' not in page
    assert "/derde/mcp" in files["llms.txt"].decode() and "/derde/mcp" in files["en/llms.txt"].decode()
    leaks = [name for name, data in files.items() if SECRET.encode() in data]
    assert not leaks


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_serve_site_agrees_with_the_tools_it_serves_from_start_up(tmp_path: Path) -> None:
    """`serve --site` with a third-party connector: once /ready says ready, every connection page names exactly the
    tools its address lists. The first site used to be built before the remote server was listed and never again
    (the third party's page showed only the three meta tools until a reload)."""
    import os
    import subprocess
    import sys

    third_party = ThirdPartyServer(header="Authorization", value=f"Bearer {SECRET}").start()
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    add_remote(data, third_party.url)
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    port, replica_port = _free_port(), _free_port()
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "proxy", "serve", "--site", "--upstream", "replica", "--registry", str(path),
         "--port", str(port), "--replica-port", str(replica_port), "--trace-key-file", str(tmp_path / "key")],
        cwd=tmp_path, env={**os.environ, ENV: SECRET, "PYTHONPATH": str(REGISTRY.parent)}, stdout=log,
        stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(600):  # two site builds on two cores: up to a few minutes under load
                try:
                    async with http.get(f"{base}/ready") as resp:
                        if resp.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                assert proc.poll() is None, (tmp_path / "serve.log").read_text(errors="replace")
                await asyncio.sleep(0.5)
            else:
                raise AssertionError("serve --site never became ready")
            for slug in ("derde", "allebronnen", "wetten"):
                async with Client(f"{base}/{slug}/mcp", mode="2026-07-28") as c:
                    served = {t.name for t in (await c.list_tools()).tools}
                async with http.get(f"{base}/connectoren/{slug}.html") as resp:
                    assert resp.status == 200
                    page = BeautifulSoup(await resp.text(), "html.parser")
                shown = {str(el["data-tool"]) for el in page.select("[data-tool]")}
                assert shown == served, (slug, sorted(shown ^ served))
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()
        third_party.stop()
