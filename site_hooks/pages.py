"""Hook: the catalog's generated pages (a connection page per enabled connector, a page per
source platform) and `site_url` from the registry's public URL."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402
from site_hooks.site_data import connector_src, platform_src  # noqa: E402

# ----------------------------------------------------------------------------- events


@event_priority(-110)  # after mkdocs-static-i18n (-100), which resets per-language config
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    data = bridge.site_data(config)  # fail here, once, on a broken registry
    # The site is served by the proxy at the root of the public URL, next to the MCP addresses.
    config.site_url = data.registry.server.public_url.rstrip("/") + "/"
    return config


def on_pre_build(config: MkDocsConfig) -> None:
    bridge.record(bridge.current_language(config), reset=True)


@event_priority(-110)  # after i18n rebuilt the file list, or it would drop or crash on these pages
def on_files(files: Files, config: MkDocsConfig) -> Files:
    data = bridge.site_data(config)
    render = bridge.renderer(config)
    taken = [src for src in [*map(connector_src, data.catalog.connectors), *map(platform_src, data.registry.platforms)]
             if files.get_file_from_path(src) is not None]
    if taken:
        raise PluginError(f"besluitbron: generated pages {taken} would replace hand-written pages in docs/")
    record = bridge.record(bridge.current_language(config))
    for connector in data.connectors:
        src = connector_src(connector.slug)
        content = bridge.plugin_error(functools.partial(render.connector_page, connector.slug), src)
        bridge.add_generated_page(files, config, src, content)
        record.slots[src] = render.take_slots()
        record.stencils[src] = render.take_stencils()
    for platform in data.platforms:
        src = platform_src(platform.key)
        content = bridge.plugin_error(functools.partial(render.platform_page, platform.key), src)
        bridge.add_generated_page(files, config, src, content)
        record.slots[src] = render.take_slots()
    return files


def on_pre_page(page: Page, config: MkDocsConfig, files: Files) -> Page:
    """A generated page is headings and placeholders: it skips Python-Markdown (site_headings)."""
    if bridge.page_src(page.file) in bridge.record(bridge.current_language(config)).generated:
        bridge.render_headings_only(page, config)
    return page
