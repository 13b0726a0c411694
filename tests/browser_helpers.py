"""Real headless Chromium (Debian's, driven by Playwright's Python package) for the browser tests.

No browser is downloaded: Playwright launches the system Chromium at `CHROMIUM`. Every page runs
with requests to anything but this machine's loopback aborted, so a test can never reach the
internet and a site "hosted without the proxy" really has no server behind it.
"""

from __future__ import annotations

import json
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web
from playwright.async_api import Browser, BrowserContext, Dialog, Page, Playwright, Request, Response, Route

__all__ = [
    "ADDRESS_BREAKS_JS",
    "AXE_JS",
    "AXE_TAGS",
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "SCREENSHOTS",
    "PageWatch",
    "StaticSite",
    "block_outside_world",
    "launch",
    "new_page",
    "run_axe",
]

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.1 level A and AA: what Dutch public-sector sites must meet (EN 301 549).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


# Every web address in the page's content, and where its rendered lines break elsewhere than next to "/", "." or
# "-" (a break mid-word: "openraadsin|formatie"). Each character's box is measured, so a break is what a reader
# sees, whatever markup or CSS made it. Hidden parts are skipped; a test shows them first.
ADDRESS_BREAKS_JS = r"""() => {
  const ADDRESS = /https?:\/\/[^\s"'<>`]+/g;
  const root = document.querySelector(".md-content") || document.body;
  // The block around each text that starts an address (an address split by <wbr> is one block's text).
  const blocks = new Set();
  const texts = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let t = texts.nextNode(); t; t = texts.nextNode()) {
    const block = t.data.includes("://")
      && t.parentElement.closest("code, a, p, li, dt, dd, td, th, summary, h1, h2, h3, h4, div");
    if (block && block.getClientRects().length) blocks.add(block);
  }
  const broken = [];
  let addresses = 0;
  const seen = new Map();  // text node -> offsets of the addresses already measured (a cell and its code)
  for (const block of blocks) {
    const chars = [];
    const walk = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let t = walk.nextNode(); t; t = walk.nextNode()) for (let i = 0; i < t.data.length; i++) chars.push([t, i]);
    const text = chars.map(([t, i]) => t.data[i]).join("");
    for (const m of text.matchAll(ADDRESS)) {
      const url = m[0].replace(/[.,;:)\]]+$/, "");
      const [node, offset] = chars[m.index];
      if (!seen.has(node)) seen.set(node, new Set());
      if (seen.get(node).has(offset)) continue;
      seen.get(node).add(offset);
      addresses += 1;
      let top = null;
      for (let k = m.index; k < m.index + url.length; k++) {
        const [t, i] = chars[k];
        const range = document.createRange();
        range.setStart(t, i);
        range.setEnd(t, i + 1);
        const box = range.getClientRects()[0];
        if (!box) continue;
        if (top !== null && box.top > top + 2 && !"/.-".includes(text[k - 1]) && !".-".includes(text[k])) {
          broken.push(`${url.slice(0, k - m.index)}|${url.slice(k - m.index)}`);
        }
        top = box.top;
      }
    }
  }
  return {addresses, broken: [...new Set(broken)]};
}"""


async def launch(playwright: Playwright) -> Browser:
    return await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@dataclass
class PageWatch:
    """What a page did that a test may want to forbid: dialogs, script errors, requests."""

    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # URLs answered with 4xx/5xx
    requests: list[tuple[str, str, dict[str, Any] | None]] = field(default_factory=list)

    def mcp_methods(self, name: str | None = None) -> list[str]:
        """JSON-RPC methods the page posted (tools/call as `tools/call:<tool>`)."""
        out = []
        for method, _, body in self.requests:
            if method != "POST" or not isinstance(body, dict) or "method" not in body:
                continue
            rpc = body["method"]
            if rpc == "tools/call":
                rpc = f"tools/call:{(body.get('params') or {}).get('name')}"
            out.append(rpc)
        return [m for m in out if name is None or m == name]


async def new_page(context: BrowserContext) -> tuple[Page, PageWatch]:
    """A page of `context` that records dialogs (and dismisses them), page errors and requests."""
    watch = PageWatch()
    page = await context.new_page()

    async def on_dialog(dialog: Dialog) -> None:
        watch.dialogs.append(f"{dialog.type}: {dialog.message}")
        await dialog.dismiss()

    def on_request(request: Request) -> None:
        body = None
        if request.method == "POST":
            try:
                body = request.post_data_json
            except (ValueError, json.JSONDecodeError):
                body = None
        watch.requests.append((request.method, request.url, body))

    def on_response(response: Response) -> None:
        if response.status >= 400:
            watch.failed.append(response.url)

    page.on("dialog", on_dialog)
    page.on("response", on_response)
    page.on("pageerror", lambda exc: watch.errors.append(str(exc)))
    # A script or style the site's Content-Security-Policy blocks is reported on the console, not as a page error.
    page.on("console", lambda msg: watch.errors.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text else None)
    page.on("request", on_request)
    return page, watch


async def block_outside_world(context: BrowserContext) -> None:
    """Abort every request that does not go to this machine's loopback."""

    async def route(route: Route) -> None:
        host = route.request.url.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0]
        if route.request.url.startswith(("http://", "https://")) and host not in LOOPBACK:
            await route.abort()
        else:
            await route.continue_()

    await context.route("**/*", route)


# Every running CSS transition or animation that ends (an infinite spinner never would), played out.
SETTLE_JS = """() => Promise.all(document.getAnimations()
    .filter(a => a.playState === 'running' && a.effect?.getComputedTiming().iterations !== Infinity)
    .map(a => a.finished.catch(() => null)))"""


async def run_axe(page: Page) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.1 A/AA violations on the page as it settles (scripts already ran). Finite transitions
    are awaited first: axe measures contrast from computed colours, and a button fading in (Material's back-to-top
    after a resize scrolls the page up) fails it half-way although it passes once shown."""
    await page.evaluate(SETTLE_JS)
    if not await page.evaluate("() => typeof window.axe !== 'undefined'"):
        await page.add_script_tag(path=str(AXE_JS))
    result = await page.evaluate(
        """async (tags) => {
            const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
              nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}));
        }""",
        AXE_TAGS,
    )
    return list(result)


@dataclass
class StaticSite:
    """A plain static file server (no proxy behind it) for a site directory set later."""

    directory: Path | None = None
    url: str = ""
    _runner: web.AppRunner | None = None

    async def start(self) -> StaticSite:
        app = web.Application()
        app.router.add_get("/{tail:.*}", self._serve)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{site.port}"
        return self

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        if self.directory is None:
            raise web.HTTPNotFound()
        root = self.directory.resolve()
        target = (root / request.match_info["tail"]).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            raise web.HTTPNotFound()
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return web.FileResponse(target, headers={"Content-Type": ctype})
