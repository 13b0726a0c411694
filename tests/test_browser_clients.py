"""The client tabs of connection pages in real headless Chromium (Debian's, via Playwright): at 390 and 1280 px, in
both languages, on a source's connection page and the aggregate's, every client's tab label is on screen (inside
the page width, not clipped or scrolled away by a tab strip) and clicking it shows that client's panel.

The tabs need no server behind them, so the site is built once and served by a plain static server
(`browser_helpers.StaticSite`), with every request off this machine aborted as in tests/test_browser.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, async_playwright, expect

from proxy.catalog.build import Catalog, build_catalog
from proxy.registry.model import load_registry
from site_hooks.site_labels import label
from tests.browser_helpers import CHROMIUM, SCREENSHOTS, StaticSite, block_outside_world, launch, new_page
from tests.site_helpers import ROOT, build_site

pytestmark = pytest.mark.browser

REGISTRY = ROOT / "registry.json"
PREFIX = {"nl": "", "en": "en/"}
WIDTHS = (390, 1280)
CLIENT_KEYS = ("claude", "chatgpt", "copilot", "claude_desktop", "claude_code", "vscode", "cursor", "inspector")

# Where a tab label is as a reader sees it: problems if it is outside the page, has no box, or sits inside an
# element that clips or scrolls it (Material's default tab strip scrolls sideways behind an arrow).
LABEL_JS = """(label) => {
  const width = document.documentElement.clientWidth;
  const r = label.getBoundingClientRect();
  const problems = [];
  if (!label.checkVisibility() || r.width < 1 || r.height < 1) problems.push('not shown');
  if (r.left < -0.5 || r.right > width + 0.5) problems.push(`outside the page: ${r.left}..${r.right} of ${width}`);
  for (let el = label.parentElement; el && el !== document.documentElement; el = el.parentElement) {
    const s = getComputedStyle(el);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const c = el.getBoundingClientRect();
    if (r.left < c.left - 0.5 || r.right > c.right + 0.5) problems.push(`clipped by ${el.tagName}.${el.className}`);
    if (el.scrollWidth > el.clientWidth + 1 && s.overflowX !== 'visible' && el.closest('.bb-clients'))
      problems.push(`scrolls sideways: ${el.tagName}.${el.className}`);
  }
  return problems;
}"""
OVERFLOW_JS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


@dataclass
class Site:
    static: StaticSite
    catalog: Catalog
    browser: Browser

    def pages(self) -> list[str]:
        """A source's connection page and the aggregate's."""
        source = next(c.slug for c in self.catalog.connectors.values() if not c.connector.aggregate)
        aggregate = next(c.slug for c in self.catalog.connectors.values() if c.connector.aggregate)
        return [f"connectoren/{source}.html", f"connectoren/{aggregate}.html"]


@pytest.fixture(scope="module")
async def site(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Site]:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make system-deps` installs Debian's chromium")
    static = await StaticSite(directory=build_site(REGISTRY, tmp_path_factory.mktemp("clients") / "site")).start()
    try:
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            try:
                yield Site(static=static, catalog=build_catalog(load_registry(REGISTRY)), browser=browser)
            finally:
                await browser.close()
    finally:
        await static.close()


@pytest.fixture
async def context(site: Site) -> AsyncIterator[BrowserContext]:
    """A fresh browser profile that can reach nothing but loopback."""
    ctx = await site.browser.new_context(viewport={"width": 1280, "height": 900})
    await block_outside_world(ctx)
    yield ctx
    await ctx.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["nl", "en"])
async def test_every_client_tab_is_on_screen_and_opens_its_panel(
        site: Site, context: BrowserContext, lang: str, width: int) -> None:
    names = [label(f"client_{key}_tab", lang) for key in CLIENT_KEYS]
    for path in site.pages():
        page, watch = await new_page(context)
        try:
            await page.set_viewport_size({"width": width, "height": 900})
            await page.goto(f"{site.static.url}/{PREFIX[lang]}{path}")
            labels = page.locator(".bb-clients .tabbed-labels > label")
            blocks = page.locator(".bb-clients .tabbed-content > .tabbed-block")
            await expect(labels).to_have_count(len(CLIENT_KEYS))
            assert [text.strip() for text in await labels.all_inner_texts()] == names
            await page.wait_for_timeout(150)  # Material lays the tab set out (and would add its arrows) after load
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            await page.locator(".bb-clients").screenshot(
                path=str(SCREENSHOTS / f"clients-{path.split('/')[-1].removesuffix('.html')}-{lang}-{width}.png"),
                style=".md-header { visibility: hidden !important; }")
            for index, key in enumerate(CLIENT_KEYS):
                tab = labels.nth(index)
                where = (path, lang, width, key)
                assert await tab.evaluate(LABEL_JS) == [], where
                # A real label of a real radio button: clicking it checks that tab and shows only its panel.
                radio = page.locator(f"#{await tab.get_attribute('for')}")
                assert await radio.get_attribute("type") == "radio", where
                await tab.evaluate("node => node.scrollIntoView({block: 'center'})")
                await tab.click()
                await expect(radio).to_be_checked()
                await expect(blocks.nth(index)).to_be_visible()
                assert await blocks.nth(index).get_attribute("data-client") == key, where
                await expect(blocks.nth(index).locator("[data-needs] a[href^='https://']").first).to_be_visible()
                await expect(page.locator(".bb-clients .tabbed-block:visible")).to_have_count(1)
            # No label hides behind an arrow, and nothing makes the page wider than the screen.
            assert await page.locator(".bb-clients .tabbed-control:visible").count() == 0
            assert await page.evaluate(OVERFLOW_JS) <= 0, (path, lang, width)
            assert watch.errors == [], watch.errors
        finally:
            await page.close()
