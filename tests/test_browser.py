"""The live explorer and the live Laadstatus in real headless Chromium (Debian's, via Playwright).

One real proxy (replicas behind it) serves the site it built for itself, the way `make run` does;
two plain static servers serve the same files without a proxy: one whose origin is on the
registry's `cors_origins` allow-list (a separately hosted site), one that is not (no server
reachable). Screenshots go to test-artifacts/screenshots/ for a person to look at; the axe-core
report of every page template goes to test-artifacts/axe-report.json.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, BrowserContext, Locator, Page, Route, async_playwright, expect

from proxy.catalog.build import Catalog, build_catalog
from proxy.registry.model import load_registry
from proxy.replica.lokaal import XSS_ABSTRACT, XSS_TITLE
from proxy.results.sample import replica_sample
from proxy.serving.loadstatus import stored_status
from proxy.web.app import reload_registry
from tests.browser_helpers import (
    ADDRESS_BREAKS_JS,
    AXE_JS,
    CHROMIUM,
    SCREENSHOTS,
    PageWatch,
    StaticSite,
    block_outside_world,
    launch,
    new_page,
    run_axe,
)
from tests.conftest import REGISTRY, LiveServer, Replicas, serve, write_registry

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
STORAGE_KEY = "besluitbron.approvals.v1"
PREFIX = {"nl": "", "en": "en/"}
WORDS = {
    "nl": {"external": "Externe gegevens", "precision": "ongeveer 1 resultaat (schatting); 1 getoond",
           "expired": "Deze vraag is verlopen", "denied": "Geweigerd", "offline": "antwoordt niet",
           "snapshot": "momentopname"},
    "en": {"external": "External data", "precision": "about 1 result (estimate); 1 shown",
           "expired": "This request has expired", "denied": "Denied", "offline": "does not answer",
           "snapshot": "snapshot"},
}


@dataclass
class Env:
    proxy: LiveServer
    catalog: Catalog
    site: Path
    cors_host: StaticSite  # on the cors_origins allow-list: a separately hosted site
    bare_host: StaticSite  # not on it: a site with no reachable server
    browser: Browser

    def slug_of(self, platform: str) -> str:
        return next(c.slug for c in self.catalog.connectors.values() if c.connector.platform == platform)

    def title_of(self, slug: str, lang: str) -> str:
        return self.catalog.connectors[slug].connector.title[lang]


async def _wait_measured(live: LiveServer, timeout: float = 30) -> None:
    """The load-status loop measures every served source once at start; wait for that round."""
    keys = list(live.runtime.generation.served_platforms)
    async with asyncio.timeout(timeout):
        while not all([await live.runtime.store.load_status(k) for k in keys]):
            await asyncio.sleep(0.1)


@pytest.fixture(scope="module")
async def env(replicas: Replicas, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Env]:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make system-deps` installs Debian's chromium")
    tmp = tmp_path_factory.mktemp("browser")
    cors_host, bare_host = await StaticSite().start(), await StaticSite().start()
    registry_path = write_registry(tmp)
    try:
        async with serve(registry_path, replicas, site_build_root=tmp / "sites", measure_load=True) as live:
            await _wait_measured(live)

            def publish(data: dict[str, Any]) -> None:
                data["server"]["public_url"] = live.base
                data["server"]["cors_origins"] = [cors_host.url]

            write_registry(tmp, publish)
            # The real reload path: registry re-read, site rebuilt (with the measured snapshot), swapped in.
            assert await reload_registry(live.app)
            site = live.runtime.generation.site_dir
            assert site is not None
            cors_host.directory = bare_host.directory = site
            async with async_playwright() as playwright:
                browser = await launch(playwright)
                try:
                    yield Env(proxy=live, catalog=build_catalog(load_registry(registry_path)), site=site,
                              cors_host=cors_host, bare_host=bare_host, browser=browser)
                finally:
                    await browser.close()
    finally:
        await cors_host.close()
        await bare_host.close()
        replicas.clear_faults()


@pytest.fixture
async def context(env: Env) -> AsyncIterator[BrowserContext]:
    """A fresh browser profile (empty localStorage) that can reach nothing but loopback."""
    ctx = await env.browser.new_context(viewport={"width": 1280, "height": 900})
    await block_outside_world(ctx)
    yield ctx
    await ctx.close()


# --------------------------------------------------------------------------- helpers


async def shot(target: Page | Locator, name: str) -> None:
    """A screenshot for people to look at; Material's sticky header hidden so it cannot cover the element."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await target.screenshot(path=str(SCREENSHOTS / name), style=".md-header { visibility: hidden !important; }")


async def open_explorer(page: Page, base: str, lang: str = "nl", *, state: str = "live") -> None:
    await page.goto(f"{base}/{PREFIX[lang]}explorer.html")
    await expect(page.locator("[data-bb-live-status]")).to_have_attribute("data-state", state, timeout=15000)


async def choose(page: Page, slug: str, tool: str) -> None:
    await page.select_option("#bb-connector", slug)
    await expect(page.locator("#bb-tool")).to_have_attribute("data-connector", slug, timeout=15000)
    await page.select_option("#bb-tool", tool)


async def call_and_wait(page: Page) -> Locator:
    await page.click("[data-bb-call]")
    results = page.locator("[data-bb-results]")
    await expect(results).to_have_attribute("data-complete", "true", timeout=15000)
    return results


async def stored_approvals(page: Page) -> dict[str, Any]:
    raw = await page.evaluate(f"() => localStorage.getItem({STORAGE_KEY!r})")
    return json.loads(raw) if raw else {}


def assert_clean(watch: PageWatch) -> None:
    assert watch.dialogs == [], f"a dialog opened: {watch.dialogs}"
    assert watch.errors == [], f"script errors: {watch.errors}"


# --------------------------------------------------------------------------- approval flow


@pytest.mark.parametrize("lang", ["nl", "en"])
async def test_allow_once_runs_the_exact_arguments_and_shows_source_data_as_text(
    env: Env, context: BrowserContext, lang: str
) -> None:
    page, watch = await new_page(context)
    slug = env.slug_of("lokaal")
    await open_explorer(page, env.proxy.base, lang)
    await choose(page, slug, "search_publications")
    await page.fill("#bb-arg-query", "Binnenstad-Oost")
    await page.click("[data-bb-call]")

    card = page.locator("[data-bb-card]")
    await expect(card).to_have_attribute("data-state", "pending")
    await expect(card.locator("[data-bb-card-connector]")).to_contain_text(env.title_of(slug, lang))
    await expect(card.locator("[data-bb-card-connector]")).to_contain_text(env.proxy.url(slug))
    await expect(card.locator("[data-bb-card-tool]")).to_contain_text("search_publications")
    assert json.loads(await card.locator("[data-bb-card-args]").text_content() or "") == {"query": "Binnenstad-Oost"}
    assert watch.mcp_methods("tools/call:search_publications") == [], "nothing may run before approval"
    await shot(card, f"explorer-card-{lang}.png")

    await card.locator("[data-bb-action=allow-once]").click()
    await expect(card).to_have_count(0)
    results = page.locator("[data-bb-results]")
    await expect(results).to_have_attribute("data-complete", "true", timeout=15000)
    await expect(results).to_have_attribute("data-state", "done")
    sent = [body for method, _, body in watch.requests
            if method == "POST" and body and body.get("method") == "tools/call"
            and body["params"]["name"] == "search_publications"]
    assert [b["params"]["arguments"] for b in sent] == [{"query": "Binnenstad-Oost"}]

    # Marked as external data; precision in words; numbered citation linked to its source; attribution.
    await expect(results.locator(".bb-external__label")).to_have_text(WORDS[lang]["external"])
    await expect(results.locator("[data-bb-precision] .bb-precision__summary")).to_have_text(WORDS[lang]["precision"])
    link = results.locator("a[data-bb-citation='1']")
    await expect(link).to_have_text(XSS_TITLE)
    href = await link.get_attribute("href") or ""
    assert re.fullmatch(r"https://zoek\.officielebekendmakingen\.nl/gmb-\d{4}-\d+\.html", href), href
    await expect(results.locator("[data-bb-hit='1'] .bb-hit__number")).to_have_text("[1]")
    await expect(results.locator("[data-bb-attribution]")).to_contain_text("Lokale bekendmakingen")
    # The platform calls behind the answer, from list_platform_calls with the trace handle.
    calls = results.locator("[data-bb-call]")
    await expect(calls).to_have_count(1)
    await expect(calls.first).to_contain_text("lokaal")
    assert watch.mcp_methods("tools/call:list_platform_calls") == ["tools/call:list_platform_calls"]

    # The <script> and <img onerror> payloads of the replica record are text, and nothing ran.
    text = await results.text_content() or ""
    assert XSS_TITLE in text and XSS_ABSTRACT in text
    assert await page.locator("[data-bb-results] script, [data-bb-results] img").count() == 0
    await page.wait_for_timeout(200)
    assert [url for _, url, _ in watch.requests if url.rstrip("/").endswith("/x")] == []
    assert_clean(watch)
    await results.locator("details.bb-hit__fields > summary").first.click()
    await shot(page.locator("#besluitbron-explorer"), f"explorer-results-{lang}.png")

    # "Once" is not remembered: the next call asks again.
    assert await stored_approvals(page) == {}
    await page.click("[data-bb-call]")
    await expect(card).to_have_attribute("data-state", "pending")


async def test_always_allow_skips_the_card_persists_and_can_be_revoked(env: Env, context: BrowserContext) -> None:
    page, watch = await new_page(context)
    slug = env.slug_of("lokaal")
    await open_explorer(page, env.proxy.base)
    await choose(page, slug, "search_publications")
    await page.fill("#bb-arg-query", "bestemmingsplan")
    await page.click("[data-bb-call]")
    await page.click("[data-bb-card] [data-bb-action=allow-always]")
    await expect(page.locator("[data-bb-results]")).to_have_attribute("data-complete", "true", timeout=15000)
    stored = await stored_approvals(page)
    assert list(stored) == [slug] and list(stored[slug]["tools"]) == ["search_publications"]
    permission = page.locator(f"[data-bb-permission='{slug}:search_publications']")
    await expect(permission).to_be_visible()

    # Second time: no card, the call runs and says why.
    results = await call_and_wait(page)
    await expect(page.locator("[data-bb-card]")).to_have_count(0)
    await expect(results.locator("[data-bb-auto-allowed]")).to_be_visible()
    assert len(watch.mcp_methods("tools/call:search_publications")) == 2

    # The choice lives in the browser's storage: it survives a reload.
    await page.reload()
    await expect(page.locator("[data-bb-live-status]")).to_have_attribute("data-state", "live", timeout=15000)
    await choose(page, slug, "search_publications")
    await page.fill("#bb-arg-query", "bestemmingsplan")
    await call_and_wait(page)
    await expect(page.locator("[data-bb-card]")).to_have_count(0)
    await shot(page.locator("[data-bb-permissions]"), "explorer-permissions-nl.png")

    # Revoked: gone from storage and from the list, and the card is back.
    await permission.locator("[data-bb-revoke]").click()
    await expect(permission).to_have_count(0)
    await expect(page.locator("[data-bb-permissions-empty]")).to_be_visible()
    assert await stored_approvals(page) == {}
    await page.click("[data-bb-call]")
    await expect(page.locator("[data-bb-card]")).to_have_attribute("data-state", "pending")
    assert_clean(watch)


async def test_connector_switch_allows_all_its_tools_and_only_its_tools(env: Env, context: BrowserContext) -> None:
    page, watch = await new_page(context)
    slug, other = env.slug_of("lokaal"), env.slug_of("wetten")
    await open_explorer(page, env.proxy.base)
    await choose(page, slug, "list_capabilities")
    await page.check("#bb-always-all")
    assert "all" in (await stored_approvals(page))[slug]
    await expect(page.locator(f"[data-bb-permission='{slug}:*']")).to_be_visible()
    for tool in ("list_capabilities", "platform_status"):
        await choose(page, slug, tool)
        results = await call_and_wait(page)
        await expect(page.locator("[data-bb-card]")).to_have_count(0)
        await expect(results).to_have_attribute("data-state", "done")
    # Another connector still asks.
    await choose(page, other, "list_capabilities")
    assert not await page.is_checked("#bb-always-all")
    await page.click("[data-bb-call]")
    await expect(page.locator("[data-bb-card]")).to_have_attribute("data-state", "pending")
    await page.click("[data-bb-card] [data-bb-action=deny]")
    # Switched off again: asks again.
    await choose(page, slug, "list_capabilities")
    assert await page.is_checked("#bb-always-all")
    await page.uncheck("#bb-always-all")
    assert await stored_approvals(page) == {}
    await page.click("[data-bb-call]")
    await expect(page.locator("[data-bb-card]")).to_have_attribute("data-state", "pending")
    assert watch.mcp_methods("tools/call:list_capabilities") == ["tools/call:list_capabilities"]
    assert_clean(watch)


async def test_a_tool_not_declared_read_only_is_asked_for_every_time(env: Env, context: BrowserContext) -> None:
    """Standing approvals cover read-only tools only: were a server to drop the hint, the card comes back."""
    page, watch = await new_page(context)
    slug = env.slug_of("lokaal")

    async def drop_read_only_hint(route: Route) -> None:
        response = await route.fetch()
        body = await response.json()
        if isinstance(body.get("result"), dict) and "tools" in body["result"]:
            for tool in body["result"]["tools"]:
                if tool["name"] == "platform_status":
                    tool["annotations"]["readOnlyHint"] = False
        await route.fulfill(response=response, json=body)

    await page.route(f"**/{slug}/mcp", drop_read_only_hint)
    await open_explorer(page, env.proxy.base)
    await choose(page, slug, "platform_status")
    await page.check("#bb-always-all")
    await page.click("[data-bb-call]")
    card = page.locator("[data-bb-card]")
    await expect(card).to_have_attribute("data-state", "pending")
    await expect(card.locator(".bb-card__warning")).to_be_visible()
    await expect(card.locator("[data-bb-action=allow-always]")).to_have_count(0)
    await card.locator("[data-bb-action=allow-once]").click()
    await expect(page.locator("[data-bb-results]")).to_have_attribute("data-complete", "true", timeout=15000)
    await page.click("[data-bb-call]")
    await expect(card).to_have_attribute("data-state", "pending")
    assert watch.mcp_methods("tools/call:platform_status") == ["tools/call:platform_status"]
    assert_clean(watch)


async def test_deny_calls_nothing_and_the_page_stays_usable(env: Env, context: BrowserContext) -> None:
    page, watch = await new_page(context)
    slug = env.slug_of("lokaal")
    await open_explorer(page, env.proxy.base)
    # A required parameter left empty: no card, the field says so and has the focus.
    await choose(page, slug, "read_publication")
    await page.click("[data-bb-call]")
    await expect(page.locator(".bb-form-errors")).to_contain_text("identifier")
    await expect(page.locator("#bb-arg-identifier")).to_be_focused()
    await expect(page.locator("#bb-arg-identifier")).to_have_attribute("aria-invalid", "true")
    await expect(page.locator("[data-bb-card]")).to_have_count(0)
    await choose(page, slug, "search_publications")
    await page.fill("#bb-arg-query", "Gouda")
    await page.click("[data-bb-call]")
    await page.click("[data-bb-card] [data-bb-action=deny]")
    await expect(page.locator("[data-bb-card]")).to_have_count(0)
    results = page.locator("[data-bb-results]")
    await expect(results).to_have_attribute("data-state", "denied")
    await expect(results.locator("[data-bb-denied]")).to_contain_text(WORDS["nl"]["denied"])
    await page.wait_for_timeout(300)
    assert watch.mcp_methods("tools/call:search_publications") == []
    assert await stored_approvals(page) == {}
    await shot(page.locator("#besluitbron-explorer"), "explorer-denied-nl.png")

    # Still usable: ask again, allow, get results.
    await page.click("[data-bb-call]")
    await page.click("[data-bb-card] [data-bb-action=allow-once]")
    await expect(results).to_have_attribute("data-complete", "true", timeout=15000)
    await expect(results).to_have_attribute("data-state", "done")
    assert len(watch.mcp_methods("tools/call:search_publications")) == 1
    assert_clean(watch)


async def test_an_unanswered_card_expires_and_must_be_asked_again(env: Env, context: BrowserContext) -> None:
    page, watch = await new_page(context)
    slug = env.slug_of("lokaal")
    await open_explorer(page, env.proxy.base)
    root = page.locator("#besluitbron-explorer")
    assert await root.get_attribute("data-card-ttl-ms") == "60000"
    await root.evaluate("node => { node.dataset.cardTtlMs = '700'; }")
    await choose(page, slug, "list_capabilities")
    await page.click("[data-bb-call]")
    card = page.locator("[data-bb-card]")
    await expect(card).to_have_attribute("data-state", "pending")
    await expect(card).to_have_attribute("data-state", "expired", timeout=5000)
    for action in ("allow-once", "allow-always", "deny"):
        await expect(card.locator(f"[data-bb-action={action}]")).to_be_disabled()
    await expect(card.locator("[data-bb-card-expiry]")).to_contain_text(WORDS["nl"]["expired"])
    await card.locator("[data-bb-action=allow-once]").click(force=True)  # a disabled button does nothing
    await page.wait_for_timeout(300)
    assert watch.mcp_methods("tools/call:list_capabilities") == []
    await shot(card, "explorer-card-expired-nl.png")

    await root.evaluate("node => { node.dataset.cardTtlMs = '60000'; }")
    await page.click("[data-bb-call]")
    await expect(card).to_have_attribute("data-state", "pending")
    await expect(card.locator("[data-bb-action=allow-once]")).to_be_enabled()
    await card.locator("[data-bb-action=allow-once]").click()
    await expect(page.locator("[data-bb-results]")).to_have_attribute("data-complete", "true", timeout=15000)
    assert watch.mcp_methods("tools/call:list_capabilities") == ["tools/call:list_capabilities"]
    assert_clean(watch)


async def test_rendering_never_turns_data_into_markup(env: Env, context: BrowserContext) -> None:
    """The renderer on hostile shapes no replica sends: javascript: links, markup in every field."""
    page, watch = await new_page(context)
    await open_explorer(page, env.proxy.base)
    outcome = await page.evaluate("""async () => {
        const base = document.baseURI;
        const dom = await import(new URL('assets/javascripts/bb-dom.js', base));
        const res = await import(new URL('assets/javascripts/bb-results.js', base));
        const {translator} = await import(new URL('assets/javascripts/bb-i18n.js', base));
        const hostile = {structuredContent: {
          results: [{note: '<iframe src=javascript:alert(3)>', citation: {uri: 'javascript:alert(1)',
            title: '<b onmouseover=alert(2)>x</b>', text: '<img src=x onerror=alert(4)>', source: 's',
            label: '<a href=//evil>L</a>', requires_attribution: true}},
            {citation: {uri: 'data:text/html,<script>alert(5)</script>', title: 't', text: '', source: 's',
             label: 'L', requires_attribution: false}}],
          precision: {total: 1234, total_relation: 'exact', returned: 20, truncated: true, matched: '<i>m</i>',
                      not_applied: ['<u>u</u>'], next_offset: 20}}};
        const node = res.renderResult(translator('en'), 'en', hostile);
        document.body.append(node);
        await new Promise(r => setTimeout(r, 200));
        return {
          elements: [...node.querySelectorAll('a, img, iframe, b, i, u, script')].map(e => e.tagName),
          text: node.textContent,
          link: dom.safeLink('javascript:alert(1)', 'x').tagName,
          httpLink: dom.safeLink('https://example.org/a?b=<c>', 'x').href,
          nl: res.precisionSentence(translator('nl'), 'nl', {total: 1234, total_relation: 'exact', returned: 20}),
          en: res.precisionSentence(translator('en'), 'en', {total: 1234, total_relation: 'exact', returned: 20}),
        };
    }""")
    assert outcome["elements"] == []
    for raw in ("<b onmouseover=alert(2)>x</b>", "<img src=x onerror=alert(4)>", "<iframe src=javascript:alert(3)>",
                "<a href=//evil>L</a>", "<i>m</i>"):
        assert raw in outcome["text"]
    assert outcome["link"] == "SPAN"
    assert outcome["httpLink"] == "https://example.org/a?b=%3Cc%3E"
    assert outcome["nl"] == "1.234 resultaten, exact; 20 getoond"
    assert outcome["en"] == "1,234 results, exact; 20 shown"
    assert_clean(watch)


def test_scripts_build_dom_without_parsing_html() -> None:
    sources = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs/assets/javascripts").glob("*.js")}
    assert {"explorer.js", "laadstatus.js", "bb-explorer.js", "bb-laadstatus.js", "bb-dom.js", "bb-mcp.js",
            "bb-results.js"} <= set(sources)
    sink = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|srcdoc|"
                      r"createContextualFragment|DOMParser")
    assert {name: sink.findall(text) for name, text in sources.items() if sink.search(text)} == {}


# --------------------------------------------------------------------------- Laadstatus


@pytest.mark.parametrize("lang", ["nl", "en"])
async def test_laadstatus_live_sources_chart_and_sortable_organs(env: Env, context: BrowserContext, lang: str) -> None:
    page, watch = await new_page(context)
    runtime = env.proxy.runtime
    served = list(runtime.generation.served_platforms)
    statuses = {key: await stored_status(runtime.generation, runtime.store, key) for key in served}
    local = [key for key in served if statuses[key]["organs_total"] is not None]
    assert len(local) == 2
    await runtime.store.set_live_check({"checked_at": "2026-12-01T10:00:00+00:00", "ok": False, "platforms": {
        "tweedekamer": {"status": "ok", "findings": []},
        "woo": {"status": "drift", "findings": ["search: totaal: the total is None, expected an integer"]}}})
    await page.goto(f"{env.proxy.base}/{PREFIX[lang]}laadstatus.html")
    await expect(page.locator("#besluitbron-load-status [role=status]")).to_have_attribute(
        "data-bb-status-state", "live", timeout=15000)
    check = page.locator("[data-bb-live-check]")  # the last `check-live` run, from /status
    await expect(check).to_have_attribute("data-bb-live-check", "drift")
    await expect(check).to_contain_text("2026-12-01 10:00 UTC")
    await expect(check).to_contain_text("search: totaal: the total is None, expected an integer")
    await expect(page.locator("#besluitbron-load-status-snapshot")).to_be_hidden()
    rows = page.locator("[data-bb-source]")
    assert await rows.evaluate_all("rows => rows.map(r => r.dataset.bbSource)") == served
    for key in served:
        receiving = statuses[key]["receiving"]
        await expect(page.locator(f"[data-bb-source='{key}']")).to_have_attribute(
            "data-receiving", "null" if receiving is None else str(receiving).lower())
        through = statuses[key]["current_through"]
        if through:
            await expect(page.locator(f"[data-bb-source='{key}']")).to_contain_text(through)
    await expect(page.locator("[data-bb-chart-row]")).to_have_count(len(served))
    for key in local:
        table = page.locator(f"[data-bb-organs='{key}']")
        total, stalled = statuses[key]["organs_total"], statuses[key]["organs_stalled"]
        assert total is not None and stalled is not None, key
        await expect(table.locator("tbody tr")).to_have_count(total)
        await expect(table.locator("tbody tr[data-stalled='true']")).to_have_count(stalled)
        await expect(table.locator("tbody tr.bb-organ--stalled")).to_have_count(stalled)

    # Sorting: by days (oldest first by default), then ascending by a click, then by name.
    table = page.locator(f"[data-bb-organs='{local[0]}']")
    ages = "rows => rows.map(r => Number(r.children[3].textContent.replace(/\\D/g, '')))"
    days = table.locator("th[data-column='age']")
    await expect(days).to_have_attribute("aria-sort", "descending")
    first = await table.locator("tbody tr").evaluate_all(ages)
    assert first == sorted(first, reverse=True)
    await days.locator("button").click()
    await expect(days).to_have_attribute("aria-sort", "ascending")
    assert await table.locator("tbody tr").evaluate_all(ages) == sorted(first)
    name = table.locator("th[data-column='name']")
    await name.locator("button").click()
    await expect(name).to_have_attribute("aria-sort", "ascending")
    await expect(days).not_to_have_attribute("aria-sort", re.compile(".*"))
    names = await table.locator("tbody tr th").all_text_contents()
    assert names[0].casefold() <= names[-1].casefold()
    await days.locator("button").click()
    await days.locator("button").click()

    # Filtering (issue 43): a griffier finds their council by name, a kind, or only the stalled ones.
    total, stalled = statuses[local[0]]["organs_total"], statuses[local[0]]["organs_stalled"]
    assert total is not None and stalled is not None
    section = page.locator(f"section[data-bb-organs='{local[0]}']")
    count = section.locator("[data-bb-filter-count]")
    wanted = names[len(names) // 2]
    await section.locator("[data-bb-filter='name']").fill(wanted.split()[0].upper())  # any case
    shown = await table.locator("tbody tr th").all_text_contents()
    assert wanted in shown and all(wanted.split()[0].casefold() in n.casefold() for n in shown)
    await expect(count).to_contain_text(f"{len(shown)} ")
    await section.locator("[data-bb-filter='name']").fill("")
    await expect(count).to_have_text("")
    await section.locator("[data-bb-filter='stalled']").check()
    await expect(table.locator("tbody tr[data-bb-organ]")).to_have_count(stalled)
    await expect(table.locator("tbody tr[data-stalled='false']")).to_have_count(0)
    await section.locator("[data-bb-filter='stalled']").uncheck()
    kinds = section.locator("[data-bb-filter='medium'] option")
    if await kinds.count() > 2:
        kind = (await kinds.nth(1).text_content() or "").strip()
        await section.locator("[data-bb-filter='medium']").select_option(label=kind)
        media = await table.locator("tbody tr td:nth-child(2)").all_text_contents()
        assert media and set(media) == {kind} and len(media) < total
        await section.locator("[data-bb-filter='medium']").select_option(index=0)
    await section.locator("[data-bb-filter='name']").fill("geen organisatie heet zo")
    await expect(table.locator("tbody tr[data-bb-no-organ]")).to_have_count(1)
    await expect(count).to_contain_text(f"0 {'van' if lang == 'nl' else 'of'} {total}")
    await section.locator("[data-bb-filter='name']").fill("")
    await expect(table.locator("tbody tr[data-bb-organ]")).to_have_count(total)
    assert_clean(watch)
    await shot(page.locator("article"), f"laadstatus-{lang}.png")


async def test_laadstatus_of_the_offline_sample_counts_from_its_recording_days(
        env: Env, context: BrowserContext, default_replicas: Replicas, tmp_path: Path) -> None:
    """As `make run UPSTREAM=replica` serves it: the ages are the sample's on its recording day, never today's, and an
    organisation the sample holds nothing of is said to be absent from the sample, not to stand still."""
    sample = replica_sample(sorted(load_registry(REGISTRY).platforms))
    async with serve(write_registry(tmp_path), default_replicas, sample=sample, site_dir=env.site,
                     measure_load=True) as live:
        await _wait_measured(live)
        page, watch = await new_page(context)
        await page.goto(f"{live.base}/laadstatus.html")
        state = page.locator("#besluitbron-load-status [role=status]")
        await expect(state).to_have_attribute("data-bb-status-state", "live", timeout=15000)
        await expect(state).to_contain_text("offline steekproef")
        runtime = live.runtime
        for key in runtime.generation.served_platforms:
            status = await stored_status(runtime.generation, runtime.store, key)
            row = page.locator(f"[data-bb-source='{key}']")
            recorded = sample.recorded_on[key]
            await expect(row).to_contain_text(f"vastgelegd op {recorded}")
            if status["current_through"]:
                age = (date.fromisoformat(recorded) - date.fromisoformat(status["current_through"])).days
                await expect(row.locator("td").nth(2)).to_have_text(
                    "vandaag" if age == 0 else "1 dag" if age == 1 else f"{age:,} dagen".replace(",", "."))
        ori = page.locator("section[data-bb-organs='ori']")
        absent = ori.locator("tbody tr", has_text="niet in de steekproef")
        assert await absent.count() > 0
        await expect(ori.locator("tbody tr.bb-organ--stalled", has_text="niet in de steekproef")).to_have_count(0)
        await expect(ori).to_contain_text("heeft de offline steekproef geen materiaal")
        # The site was built for the other server (its public_url): only Material's sitemap fetch goes there.
        assert [e for e in watch.errors if "/sitemap.xml" not in e] == [] and watch.dialogs == []
        await shot(page.locator("article"), "laadstatus-sample-nl.png")


# --------------------------------------------------------------------------- other hosting


async def test_separately_hosted_site_calls_the_proxy_through_the_cors_allow_list(
    env: Env, context: BrowserContext
) -> None:
    page, watch = await new_page(context)
    slug = env.slug_of("wetten")
    await open_explorer(page, env.cors_host.url)
    await choose(page, slug, "list_capabilities")
    await expect(page.locator("[data-bb-live-status]")).to_contain_text(env.proxy.url(slug))
    await page.click("[data-bb-call]")
    await page.click("[data-bb-card] [data-bb-action=allow-once]")
    results = page.locator("[data-bb-results]")
    await expect(results).to_have_attribute("data-complete", "true", timeout=15000)
    await expect(results).to_have_attribute("data-state", "done")
    await page.goto(f"{env.cors_host.url}/en/laadstatus.html")
    status = page.locator("#besluitbron-load-status [role=status]")
    await expect(status).to_have_attribute("data-bb-status-state", "live", timeout=15000)
    await expect(status).to_contain_text(f"{env.proxy.base}/status")
    assert_clean(watch)


@pytest.mark.parametrize("lang", ["nl", "en"])
async def test_without_a_reachable_server_the_static_documentation_stays(
    env: Env, context: BrowserContext, lang: str
) -> None:
    page, watch = await new_page(context)
    await open_explorer(page, env.bare_host.url, lang, state="offline")
    status = page.locator("[data-bb-live-status]")
    await expect(status).to_contain_text(WORDS[lang]["offline"])
    await expect(page.locator("[data-bb-call]")).to_be_disabled()
    await expect(page.locator("[data-bb-call]")).to_be_hidden()
    await expect(page.locator("#bb-always-all")).to_be_hidden()
    # The static documentation stays: every connector, linked to its connection page (every tool, parameters
    # included); and the chosen connector's tools, with their words, from its tools file.
    connectors = list(env.catalog.connectors.values())
    await expect(page.locator("li[data-connector] a")).to_have_count(len(connectors))
    first = connectors[0]
    await expect(page.locator("#bb-tool")).to_have_attribute("data-connector", first.slug, timeout=15000)
    await expect(page.locator("#bb-tool option")).to_have_count(len(first.tools))
    await expect(page.locator(".bb-tool-info")).to_contain_text(first.tools[0].words.description[lang])
    fetched = [url.rsplit("/", 1)[1] for method, url, _ in watch.requests if "/explorer/" in url and method == "GET"]
    assert fetched == [f"{first.slug}.json"], fetched  # one connector's tools at a time
    assert watch.mcp_methods("tools/call") == []
    await shot(page.locator("#besluitbron-explorer"), f"explorer-offline-{lang}.png")

    await page.goto(f"{env.bare_host.url}/{PREFIX[lang]}laadstatus.html")
    state = page.locator("#besluitbron-load-status [role=status]")
    await expect(state).to_have_attribute("data-bb-status-state", "offline", timeout=15000)
    await expect(state).to_contain_text(WORDS[lang]["snapshot"])
    snapshot = page.locator("#besluitbron-load-status-snapshot")
    await expect(snapshot).to_be_visible()
    runtime = env.proxy.runtime
    measured = await stored_status(runtime.generation, runtime.store, runtime.generation.served_platforms[0])
    assert measured["current_through"] is not None
    await expect(snapshot).to_contain_text(measured["current_through"])
    await expect(page.locator("[data-bb-snapshot-label]")).to_be_visible()
    await expect(page.locator("[data-bb-organs]")).to_have_count(0)
    assert_clean(watch)
    await shot(page.locator("article"), f"laadstatus-offline-{lang}.png")


# --------------------------------------------------------------------------- accessibility


def _templates(env: Env) -> list[str]:
    """One page of every kind the site has: hand-written pages, a source's and the aggregate's connection page, a
    platform page, 404."""
    hand = sorted(p.name.removesuffix(".md") for p in (ROOT / "docs").glob("*.md") if not p.name.endswith(".en.md"))
    first_slug = next(c.slug for c in env.catalog.connectors.values() if not c.connector.aggregate)
    aggregate = next(c.slug for c in env.catalog.connectors.values() if c.connector.aggregate)
    first_platform = next(iter(env.catalog.registry.platforms))
    return [*(f"{name}.html" for name in hand), f"connectoren/{first_slug}.html", f"connectoren/{aggregate}.html",
            f"bronplatforms/{first_platform}.html", "no-such-page.html"]


# Page layout as a reader on a phone (390 px) or a laptop (1280 px) sees it: nothing wider than the page,
# and every MCP address whole on screen with its own copy button beside it (not over it).
LAYOUT_JS = """() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const pageWidth = document.documentElement.scrollWidth;
  if (pageWidth > width) problems.push(`page ${pageWidth}px wide`);
  const boxes = [...document.querySelectorAll('.bb-address')];
  for (const box of boxes) {
    const code = box.querySelector('code'), button = box.querySelector('button[data-clipboard-text]');
    const address = box.dataset.address;
    if (!code || !button) { problems.push(`${address}: no copy button`); continue; }
    if (button.dataset.clipboardText !== address || code.textContent !== address) problems.push(`${address}: text`);
    if (box.closest('details:not([open]), [hidden]') || !code.getClientRects().length) continue;  // folded away
    const c = code.getBoundingClientRect(), b = button.getBoundingClientRect();
    if (code.scrollWidth > code.clientWidth + 1) problems.push(`${address}: cut off`);
    if (c.left < 0 || c.right > width + 0.5 || b.right > width + 0.5) problems.push(`${address}: off screen`);
    if (b.left < c.right - 0.5 && b.top < c.bottom && b.bottom > c.top) problems.push(`${address}: button covers it`);
  }
  // Explorer results: a short value (true, a date, a number) on one line, never one character per line.
  for (const value of document.querySelectorAll('.bb-fields > dd > :is(.bb-scalar, .bb-null)')) {
    if (value.textContent.length > 24 || value.closest('details:not([open])')) continue;
    const lines = new Set([...value.getClientRects()].map(r => Math.round(r.top)));
    if (lines.size > 1) problems.push(`value over ${lines.size} lines: ${value.textContent}`);
  }
  // Code blocks: no character of the code under the block's own copy button.
  for (const pre of document.querySelectorAll('.md-typeset pre')) {
    const code = pre.querySelector('code'), button = pre.querySelector('.md-clipboard');
    if (!code || !button || !button.getClientRects().length) continue;
    const b = button.getBoundingClientRect(), range = document.createRange();
    range.selectNodeContents(code);
    const under = [...range.getClientRects()].some(r => r.width > 0 && r.left < b.right && r.right > b.left
      && r.top < b.bottom && r.bottom > b.top);
    if (under) problems.push(`code under its copy button: ${code.textContent.slice(0, 60)}`);
    if (code.scrollWidth > code.clientWidth + 1) problems.push(`code scrolls: ${code.textContent.slice(0, 60)}`);
  }
  return {problems, addresses: boxes.length};
}"""
WIDTHS = (1280, 390)
FIELD_WORD = {"nl": "Datum", "en": "Date"}  # how a result's `date` field is named on the page


async def _scan(env: Env, context: BrowserContext, lang: str, path: str, axe_at: frozenset[int]
                ) -> dict[int, dict[str, Any]]:
    """The layout (and at the widths in `axe_at`, axe-core's findings) of one page at each of WIDTHS, as a reader
    on that screen gets it. The page is loaded once, at the widest, and then narrowed: Material lays out by media
    queries and its scripts follow the viewport, so a narrowed page is the narrow page (a reload per width cost
    a quarter of this test's time)."""
    page, watch = await new_page(context)
    try:
        await page.set_viewport_size({"width": WIDTHS[0], "height": 900})
        await page.goto(f"{env.proxy.base}/{PREFIX[lang]}{path}")
        if path == "explorer.html":
            # The live parts as a visitor sees them: a result on the page and an approval card open.
            await expect(page.locator("[data-bb-live-status]")).to_have_attribute("data-state", "live", timeout=15000)
            await choose(page, env.slug_of("lokaal"), "search_publications")
            await page.fill("#bb-arg-query", "Binnenstad-Oost")
            await page.click("[data-bb-call]")
            await page.click("[data-bb-card] [data-bb-action=allow-once]")
            await expect(page.locator("[data-bb-results]")).to_have_attribute("data-complete", "true", timeout=15000)
            await page.locator("[data-bb-results] details").first.evaluate("node => { node.open = true; }")
            await page.select_option("#bb-tool", "read_publication")
            await page.fill("#bb-arg-identifier", "gmb-2023-174296")
            await page.click("[data-bb-call]")
            await expect(page.locator("[data-bb-card]")).to_have_attribute("data-state", "pending")
        elif path == "laadstatus.html":
            await expect(page.locator("#besluitbron-load-status [role=status]")).to_have_attribute(
                "data-bb-status-state", "live", timeout=15000)
        scans: dict[int, dict[str, Any]] = {}
        for width in WIDTHS:
            await page.set_viewport_size({"width": width, "height": 900})
            await page.wait_for_timeout(150)  # Material marks overflowing code blocks focusable after layout
            layout = await page.evaluate(LAYOUT_JS)
            if path == "explorer.html":  # a result's fields are named in the page's language, the key beside them
                names = await page.locator("[data-bb-results] .bb-hit__fields dt").all_text_contents()
                if not any(name.startswith(FIELD_WORD[lang]) for name in names):
                    layout["problems"].append(f"result fields not in words: {names[:6]}")
            if width < 1000 and (path in ("explorer.html", "laadstatus.html") or path.startswith("connectoren/")):
                await shot(page.locator("article"), f"narrow-{path.replace('/', '-').removesuffix('.html')}-{lang}.png")
            if width in axe_at:  # Material's back-to-top button fades in as a narrowed page scrolls: judge it faded in
                for _ in range(40):  # (polled from here: the site's CSP refuses wait_for_function's eval)
                    if await page.evaluate("document.getAnimations().every(a => a.playState !== 'running')"):
                        break
                    await page.wait_for_timeout(50)
            scans[width] = {"axe": await run_axe(page) if width in axe_at else [], "layout": layout["problems"],
                            "addresses": layout["addresses"]}
        # Material fetches sitemap.xml next to every alternate link; nothing the page asked for may be missing.
        for scan in scans.values():
            scan["missing"] = [url for url in watch.failed if "/mcp" not in url and not url.endswith(path)]
            scan["errors"] = watch.errors  # script errors and what the content policy blocked
        return scans
    finally:
        await page.close()


async def test_every_page_template_at_390_and_1280_px_in_both_languages(env: Env, context: BrowserContext) -> None:
    """WCAG 2.1 AA (axe-core), no horizontal overflow, every address whole and copyable, no request that 404s."""
    if not AXE_JS.is_file():
        pytest.fail(f"{AXE_JS.relative_to(ROOT)} is missing: run `npm ci` (package.json pins axe-core)")
    templates = _templates(env)
    # axe on every template at 1280 px in Dutch; in English and at 390 px on the ones whose words or narrow layout
    # differ in structure (menu drawer, cards, tabs, live tables, explorer results). Layout, addresses, requests
    # and the content policy are checked on every page in both languages at both widths.
    varied = {"index.html", "connectoren.html", "explorer.html", "laadstatus.html", templates[-4]}
    jobs = [(lang, path, frozenset(WIDTHS) if path in varied else frozenset({WIDTHS[0]} if lang == "nl" else ()))
            for lang in ("nl", "en") for path in templates]
    report: dict[str, dict[str, Any]] = {}
    for batch in range(0, len(jobs), 4):
        scans = await asyncio.gather(*(_scan(env, context, *job) for job in jobs[batch:batch + 4]))
        for (lang, path, _), by_width in zip(jobs[batch:batch + 4], scans, strict=True):
            for width, scan in by_width.items():
                report[f"{PREFIX[lang]}{path} @{width}"] = scan
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "axe-report.json").write_text(json.dumps({name: scan["axe"] for name, scan in report.items()},
                                                          indent=2, ensure_ascii=False), encoding="utf-8")
    assert len(report) == len(jobs) * len(WIDTHS) >= 60
    found = {name: [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
                    for v in scan["axe"]] for name, scan in report.items()}
    assert {name: violations for name, violations in found.items() if violations} == {}  # of any impact
    assert {name: scan["layout"] for name, scan in report.items() if scan["layout"]} == {}
    assert {name: scan["missing"] for name, scan in report.items() if scan["missing"]} == {}
    assert {name: scan["errors"] for name, scan in report.items() if scan["errors"]} == {}
    # The pages that name addresses do show them (the checks above are not vacuous).
    for width in WIDTHS:
        for name in ("index.html", "connectoren.html", "keuzehulp.html", "explorer.html", "en/connectoren.html"):
            assert report[f"{name} @{width}"]["addresses"] >= 2, name
        assert report[f"connectoren.html @{width}"]["addresses"] == len(env.catalog.connectors) + 1  # + the footer


# Site search plays no part in a page's layout: a test that only measures layout loads neither its index nor worker.
NO_SEARCH = re.compile(r".*/(search_index\.json|workers/search\.[^/]*\.js|lunr/.*)$")


def _shows_addresses(page_file: Path) -> bool:
    """Whether a built page's content names a web address (or fills itself with live ones)."""
    content = page_file.read_text(encoding="utf-8")
    article = content[content.find("<article"):content.find("</article>")]
    return "://" in re.sub(r"<[^>]*>", "", article) or page_file.name in ("explorer.html", "laadstatus.html")


async def test_no_address_breaks_mid_word_at_390_px_on_any_page(env: Env, context: BrowserContext) -> None:
    """Issue 43: on a phone an address wraps only next to '/', '.' or '-', on every page of both languages that
    shows one, with every client tab and folded detail shown (each is a state a reader can open); the live
    explorer and Laadstatus too."""
    pages = sorted(str(p.relative_to(env.site)) for p in env.site.rglob("*.html") if _shows_addresses(p))

    async def measure(paths: list[str]) -> tuple[dict[str, list[str]], int]:
        page, _ = await new_page(context)
        await page.set_viewport_size({"width": 390, "height": 900})
        await page.route(NO_SEARCH, lambda route: route.abort())
        broken: dict[str, list[str]] = {}
        measured = 0
        for path in paths:
            await page.goto(f"{env.proxy.base}/{path}", wait_until="domcontentloaded")
            if path.endswith(("explorer.html", "laadstatus.html")):
                await expect(page.locator("[data-state='live'], [data-bb-status-state='live']").first).to_be_visible(
                    timeout=15000)
            # Every tab panel and detail open at once: the same width each has alone.
            await page.add_style_tag(content=".tabbed-content > .tabbed-block {display: block !important}")
            await page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
            found = await page.evaluate(ADDRESS_BREAKS_JS)
            measured += found["addresses"]
            if found["broken"]:
                broken[path] = found["broken"]
        await page.close()
        return broken, measured

    halves = await asyncio.gather(measure(pages[0::2]), measure(pages[1::2]))
    assert {path: where for broken, _ in halves for path, where in broken.items()} == {}
    measured = sum(count for _, count in halves)
    assert len(pages) >= 40 and measured >= 300, (len(pages), measured)  # the addresses were there to measure


# --------------------------------------------------------------------------- five readers, each to their answer

# Issue 43: the five readers who tried the site, each from Home to what they came for, in both languages at a
# phone's and a laptop's width, by what a reader clicks: a link in the page, the footer, the menu (the drawer on a
# phone), the language switcher. Words a reader looks for on the way, per language.
READER_WORDS = {
    "nl": {"menu_section": "Over deze dienst", "deciders": "Voor organisaties", "chooser": "keuzehulp",
           "privacy": "Privacy", "about": "Over BesluitBron", "local": "werken alleen op de computer",
           "switch": "English", "other": "en"},
    "en": {"menu_section": "About this service", "deciders": "For organisations", "chooser": "chooser",
           "privacy": "Privacy", "about": "About BesluitBron", "local": "work only on the computer",
           "switch": "Nederlands", "other": "nl"},
}


async def _menu(page: Page, section: str, name: str) -> None:
    """Open a page from the site menu: the sidebar on a laptop, the drawer (and its section) on a phone."""
    drawer = page.locator("label.md-header__button[for='__drawer']")
    if await drawer.is_visible():  # a phone: the menu is a drawer whose sections open as levels of their own
        await drawer.click()
        await page.locator(".md-sidebar--primary label.md-nav__link", has_text=section).first.click()
    await page.locator(".md-sidebar--primary").get_by_role("link", name=name, exact=True).click()


async def _sees_local_notice(page: Page, lang: str) -> None:
    """This build is a local installation: a page that shows an address says it works on this computer only."""
    await expect(page.locator(".local-banner")).to_be_visible()
    await expect(page.locator(".local-banner")).to_contain_text(READER_WORDS[lang]["local"])


ReaderPath = Callable[[Page, Env, str], Awaitable[None]]


async def _every_setting(context: BrowserContext, env: Env, path: ReaderPath) -> None:
    """`path` from Home in both languages at both widths, the four at once (each in its own page)."""
    async def one(lang: str, width: int) -> None:
        page, watch = await new_page(context)
        try:
            await page.set_viewport_size({"width": width, "height": 900})
            await page.goto(f"{env.proxy.base}/{PREFIX[lang]}index.html")
            await path(page, env, lang)
            assert_clean(watch)
        except Exception as exc:
            raise AssertionError(f"{lang} at {width} px: {exc}") from exc
        finally:
            await page.close()

    await asyncio.gather(*(one(lang, width) for lang in ("nl", "en") for width in WIDTHS))


async def _griffier(page: Page, env: Env, lang: str) -> None:
    slug = env.slug_of("ori")
    await page.locator("article").get_by_role("link", name=env.title_of(slug, lang), exact=True).first.click()
    await expect(page).to_have_url(re.compile(f"/{PREFIX[lang]}connectoren/{slug}\\.html"))
    await page.locator(".bb-clients .tabbed-labels label", has_text="ChatGPT").first.click()
    steps = page.locator(".bb-clients .tabbed-block").filter(has_text="Developer mode").first
    await expect(steps).to_be_visible()
    await expect(steps).to_contain_text("Settings → Apps → Advanced settings → Developer mode")
    await expect(page.locator(f".bb-address[data-address='{env.proxy.url(slug)}']").first).to_be_visible()
    await _sees_local_notice(page, lang)


async def _ministry_officer(page: Page, env: Env, lang: str) -> None:
    words = READER_WORDS[lang]
    await _menu(page, words["menu_section"], words["deciders"])
    await expect(page).to_have_url(re.compile(f"/{PREFIX[lang]}voor-organisaties\\.html"))
    await expect(page.locator("#copilot-studio")).to_be_visible()
    for needed in ("Server description", "Server URL", "AzureConnectors", "DLP"):  # what to paste, what IT opens
        await expect(page.locator("article")).to_contain_text(needed)


async def _journalist(page: Page, env: Env, lang: str) -> None:
    await page.locator("article").get_by_role("link", name=READER_WORDS[lang]["chooser"], exact=True).first.click()
    slug = env.slug_of("rechtspraak")
    await expect(page.locator(f"#choose-{slug}")).to_be_visible()
    await page.locator("article").get_by_role("link", name=env.title_of(slug, lang), exact=True).first.click()
    box = page.locator(f".bb-address[data-address='{env.proxy.url(slug)}']").first
    await expect(box).to_be_visible()
    await expect(box.locator("button[data-clipboard-text]")).to_have_attribute("data-clipboard-text",
                                                                               env.proxy.url(slug))
    await _sees_local_notice(page, lang)


async def _privacy_officer(page: Page, env: Env, lang: str) -> None:
    words = READER_WORDS[lang]
    await page.locator(".md-footer").get_by_role("link", name=words["privacy"], exact=True).click()
    await expect(page.locator("[data-hosting-location]")).to_be_visible()
    await expect(page.locator("[data-processors]")).to_be_visible()
    await expect(page.locator("[data-kept='server-log']")).to_contain_text("IP")
    await expect(page.locator("[data-controller]")).to_be_visible()
    await page.locator(".md-footer").get_by_role("link", name=words["about"], exact=True).click()
    for fact in ("code-license", "source-code", "security", "hosting"):
        await expect(page.locator(f"tr[data-fact='{fact}']")).to_be_visible()
    await expect(page.locator("tr[data-fact='security']")).to_contain_text("security.txt")


async def _researcher(page: Page, env: Env, lang: str) -> None:
    """From the other language's Home to this one by the switcher, then to a source's page in this language."""
    other = READER_WORDS[lang]["other"]
    await page.goto(f"{env.proxy.base}/{PREFIX[other]}index.html")
    await page.locator(".md-header .md-select button").click()
    await page.locator(".md-select__list").get_by_role("link", name=READER_WORDS[other]["switch"]).click()
    await expect(page.locator("html")).to_have_attribute("lang", lang)
    slug = env.slug_of("wetten")
    await page.locator("article").get_by_role("link", name=env.title_of(slug, lang), exact=True).first.click()
    await expect(page).to_have_url(re.compile(f"/{PREFIX[lang]}connectoren/{slug}\\.html"))
    await expect(page.locator("html")).to_have_attribute("lang", lang)
    await expect(page.locator("article h1")).to_contain_text(env.title_of(slug, lang))
    await expect(page.locator("#tool-read_article")).to_be_visible()


async def test_a_griffier_connects_chatgpt_to_council_documents(env: Env, context: BrowserContext) -> None:
    await _every_setting(context, env, _griffier)


async def test_a_ministry_officer_finds_what_copilot_studio_needs(env: Env, context: BrowserContext) -> None:
    await _every_setting(context, env, _ministry_officer)


async def test_a_journalist_finds_the_address_for_rulings(env: Env, context: BrowserContext) -> None:
    await _every_setting(context, env, _journalist)


async def test_a_privacy_officer_finds_processors_retention_licence_and_security_contact(
        env: Env, context: BrowserContext) -> None:
    await _every_setting(context, env, _privacy_officer)


async def test_a_researcher_switches_language_and_reads_a_source(env: Env, context: BrowserContext) -> None:
    await _every_setting(context, env, _researcher)


# --------------------------------------------------------------------------- site search in the reader's words

# What people type into the site's search box, and the page that must come first: the connection page of the
# source that answers it (its registry `keywords` are the page's search tags), or the hand-written page.
SEARCHES = {
    "nl": [
        ("gemeenteraad", "ori"), ("raadsbesluit", "ori"), ("raadsvoorstel woningbouw", "ori"), ("motie", "ori"),
        ("amendement", "ori"), ("raadsvergadering", "ori"),
        ("vergunning", "lokaal"), ("kapvergunning", "lokaal"), ("verkeersbesluit", "lokaal"),
        ("Gemeenteblad", "lokaal"), ("bekendmaking", "lokaal"), ("omgevingsvergunning", "lokaal"),
        ("Staatscourant", "officieel"), ("Staatsblad", "officieel"),
        ("Kamervragen", "tweedekamer"), ("hoe stemde de Kamer", "tweedekamer"), ("wetsvoorstel", "tweedekamer"),
        ("Kamerlid", "tweedekamer"),
        ("wet", "wetten"), ("wetsartikel", "wetten"), ("Awb", "wetten"),
        ("uitspraak", "rechtspraak"), ("jurisprudentie", "rechtspraak"), ("ECLI", "rechtspraak"),
        ("vonnis", "rechtspraak"),
        ("Woo-verzoek", "woo"), ("Woo-besluit", "woo"), ("Wob-verzoek", "woo"),
        ("alle bronnen", None), ("hoe actueel", "laadstatus.html"), ("bron vermelden", "bronvermelding.html"),
        ("https certificaat", "publiek-maken.html"),
        # What deciders and the people connecting an assistant type (issue 43).
        ("wat kost het", "voor-organisaties.html"), ("kosten", "voor-organisaties.html"),
        ("firewall", "voor-organisaties.html"), ("leverancier", "voor-organisaties.html"),
        ("Copilot Studio", "voor-organisaties.html"), ("hosting", "publiek-maken.html"),
        ("ChatGPT", "connectoren.html"), ("Claude", "connectoren.html"), ("VS Code", "connectoren.html"),
        ("Cursor", "connectoren.html"), ("privacy", "privacy.html"), ("toegankelijkheid", "toegankelijkheid.html"),
    ],
    "en": [
        ("city council", "ori"), ("council decision", "ori"), ("permit", "lokaal"), ("Government Gazette", "officieel"),
        ("parliamentary questions", "tweedekamer"), ("law", "wetten"), ("ruling", "rechtspraak"),
        ("case law", "rechtspraak"), ("freedom of information request", "woo"), ("all sources", None),
        ("how up to date", "laadstatus.html"), ("citing sources", "bronvermelding.html"),
        ("council meeting", "ori"), ("motion", "ori"), ("amendment", "ori"), ("municipal gazette", "lokaal"),
        ("official publications", "officieel"), ("Bulletin of Acts and Decrees", "officieel"),
        ("member of parliament", "tweedekamer"), ("bill", "tweedekamer"), ("legislation", "wetten"),
        ("article of a law", "wetten"), ("court decision", "rechtspraak"), ("ECLI", "rechtspraak"),
        ("Open Government Act", "woo"), ("what does it cost", "voor-organisaties.html"),
        ("cost", "voor-organisaties.html"), ("firewall", "voor-organisaties.html"),
        ("supplier", "voor-organisaties.html"), ("Copilot Studio", "voor-organisaties.html"),
        ("ChatGPT", "connectoren.html"), ("Claude", "connectoren.html"), ("VS Code", "connectoren.html"),
        ("Cursor", "connectoren.html"), ("https certificate", "publiek-maken.html"), ("privacy", "privacy.html"),
        ("accessibility", "toegankelijkheid.html"), ("Woo request", "woo"), ("parliament vote", "tweedekamer"),
        ("local regulation", "lokaal"),
    ],
}

FIRST_RESULT_JS = """() => {
  const first = document.querySelector('.md-search-result__item > a.md-search-result__link');
  return first ? new URL(first.href).pathname : null;
}"""


async def _first_result(page: Page, query: str) -> str | None:
    """Type `query` as a reader does (Material searches on each key) and read the first result once it settles."""
    box = page.locator("input.md-search__input")
    await box.focus()
    await box.press("Control+a")
    await box.press("Backspace")
    await page.wait_for_function("() => !document.querySelector('.md-search-result__item')")
    await box.press_sequentially(query)
    seen: list[str | None] = []
    for _ in range(40):  # until two reads 100 ms apart agree on a result
        await page.wait_for_timeout(100)
        seen.append(await page.evaluate(FIRST_RESULT_JS))
        if len(seen) >= 2 and seen[-1] is not None and seen[-1] == seen[-2]:
            break
    return seen[-1]


async def test_site_search_finds_the_page_for_the_readers_words(env: Env, context: BrowserContext) -> None:
    """The built search index, searched by Material's own search in the browser: the right page comes first."""
    wrong: dict[str, str | None] = {}
    asked = 0
    for lang, searches in SEARCHES.items():
        page, watch = await new_page(context)
        await page.goto(f"{env.proxy.base}/{PREFIX[lang]}index.html")
        for query, target in searches:
            if target is None:
                target = next(c.slug for c in env.catalog.connectors.values() if c.connector.aggregate)
                want = f"/{PREFIX[lang]}connectoren/{target}.html"
            elif target.endswith(".html"):
                want = f"/{PREFIX[lang]}{target}"
            else:
                want = f"/{PREFIX[lang]}connectoren/{env.slug_of(target)}.html"
            found = await _first_result(page, query)
            asked += 1
            if found != want:
                wrong[f"{lang}: {query}"] = f"{found} (wanted {want})"
        assert_clean(watch)
        await page.close()
    assert all(len(searches) >= 40 for searches in SEARCHES.values())
    assert asked >= 80
    assert wrong == {}
