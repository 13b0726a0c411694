"""Hook: what machines read besides the pages. Each page's Markdown twin (`<page>.md`), its absolute
hreflang and Markdown links for the head (`overrides/main.html`), its real `lastmod` for the
sitemap, `robots.txt`, and a `server.json` per connector in the official MCP registry's format."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from proxy.catalog.discovery import server_json, server_json_path  # noqa: E402
from site_hooks import bridge  # noqa: E402
from site_hooks.site_data import CONNECTOR_DIR, PLATFORM_DIR  # noqa: E402
from site_hooks.site_lastmod import file_date  # noqa: E402
from site_hooks.site_markdown import markdown_path, render_robots_txt  # noqa: E402
from site_hooks.site_twins import TwinWriter  # noqa: E402

# ----------------------------------------------------------------------------- events


@event_priority(-200)  # after markers.py filled the markers: the Markdown twin is this text with its slots
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    page.update_date = _lastmod(page, config)  # read by i18n's sitemap template
    bridge.record(bridge.current_language(config)).sources[bridge.page_src(page.file)] = markdown
    return None


def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Navigation) -> dict[str, Any]:
    site = bridge.site_url(config)
    alternates = getattr(page.file, "alternates", None) or {}
    context["bb_alternates"] = [(lang, site + _url(f.url)) for lang, f in alternates.items()]
    context["bb_x_default"] = site + _url(alternates[bridge.default_language(config)].url) if alternates else None
    context["bb_markdown"] = site + markdown_path(page.file.url) if page.file.url.endswith(".html") else None
    return context


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    if not page.file.dest_uri.endswith(".html"):
        return output
    site = bridge.site_url(config)
    record = bridge.record(bridge.current_language(config))
    src = bridge.page_src(page.file)
    if src not in record.sources:
        return output
    _TWINS.submit(Path(config.site_dir) / markdown_path(page.file.dest_uri), src, record.sources.pop(src),
                  record.slots.get(src, {}), title=page.title or "", url=site + markdown_path(page.file.url),
                  html_url=site + page.file.url, stencils=record.stencils.get(src, {}))
    record.markdown[src] = site + markdown_path(page.file.url)
    return output


@event_priority(0)  # before i18n's on_post_build (-100), where the outer build waits for the other languages
def on_post_build(config: MkDocsConfig) -> None:
    # Each language's build writes its own twins, and the outer one the files every language shares, while the
    # other languages still build: after them, that writing (thousands of new files) was the build's serial end.
    _TWINS.finish(bridge.plugin_error)
    if not bridge.outer_build(config):
        return
    data = bridge.site_data(config)
    site = Path(config.site_dir)
    # The connection page links its server.json relatively, so every language folder has the same files.
    for c in data.connectors:
        text = json.dumps(server_json(data.catalog, c.slug), ensure_ascii=False, indent=2) + "\n"
        for lang in bridge.languages(config):
            target = site / bridge.lang_prefix(config, lang) / server_json_path(c.slug)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    robots = render_robots_txt(bridge.site_url(config), [c.path for c in data.connectors])
    (site / "robots.txt").write_text(robots, encoding="utf-8")


def on_build_error(error: Exception) -> None:
    _TWINS.close()


# ----------------------------------------------------------------------------- helpers

_TWINS = TwinWriter()  # one build at a time per process (mkdocs serve rebuilds in the same one)


def _url(url: str) -> str:
    return "" if url in ("", "./", ".") else url


def _lastmod(page: Page, config: MkDocsConfig) -> str:
    if page.file.abs_src_path:
        return file_date(page.file.abs_src_path)
    data = bridge.site_data(config)
    folder, _, name = bridge.page_src(page.file).rpartition("/")
    key = name.removesuffix(".md")
    updated = None
    if folder == CONNECTOR_DIR:
        updated = data.registry.connector(key).updated
    elif folder == PLATFORM_DIR:
        updated = data.registry.platforms[key].updated
    return updated or file_date(bridge.registry_path(config))
