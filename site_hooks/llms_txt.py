"""Hook: one llms.txt per language (`/llms.txt`, `/en/llms.txt`) from the catalog and the pages
this build actually produced (llmstxt.org format)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402
from site_hooks.site_data import connector_src, platform_src  # noqa: E402
from site_hooks.site_render import PageRef, render_llms_txt  # noqa: E402

# ----------------------------------------------------------------------------- events


def on_nav(nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
    record = bridge.record(bridge.current_language(config))
    record.nav_order = [bridge.page_src(p.file) for p in nav.pages]
    return nav


def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig, nav: Navigation) -> dict[str, Any]:
    record = bridge.record(bridge.current_language(config))
    src = bridge.page_src(page.file)
    record.pages[src] = PageRef(title=page.title or "", url=bridge.site_url(config) + page.file.url,
                                description=str(page.meta.get("description", "")))
    return context


def on_post_build(config: MkDocsConfig) -> None:
    lang = bridge.current_language(config)
    data = bridge.site_data(config)
    record = bridge.record(lang)
    others = [other for other in bridge.languages(config) if other != lang]
    site = bridge.site_url(config)

    def absolute(src: str) -> str:
        # The Markdown twin (site_hooks/machine_files.py), which llmstxt.org asks an index to link.
        return record.markdown.get(src) or site + record.generated[src]

    def twin(ref: PageRef, src: str) -> PageRef:
        return PageRef(title=ref.title, url=record.markdown.get(src, ref.url), description=ref.description)

    text = bridge.plugin_error(lambda: render_llms_txt(
        data, lang,
        pages=[twin(record.pages[src], src) for src in record.nav_order if src in record.pages],
        connection_pages={c.slug: absolute(connector_src(c.slug)) for c in data.connectors},
        platform_pages={p.key: absolute(platform_src(p.key)) for p in data.platforms},
        other_language_url=site + bridge.lang_prefix(config, others[0]) + "llms.txt" if others else None,
        explorer_json_url=site + bridge.lang_prefix(config, lang) + "explorer.json",
    ), "llms.txt")
    target = Path(config.site_dir) / bridge.lang_prefix(config, lang) / "llms.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
