"""Hook: replace `<!-- besluitbron:<kind> -->` markers in hand-written pages with catalog content.

The kinds are listed in site_hooks/README.md; an unknown kind stops the build."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # mkdocs puts only site_hooks/ on sys.path, and only while importing a hook
    sys.path.insert(0, _ROOT)

from site_hooks import bridge  # noqa: E402
from site_hooks.site_render import MarkerError, fill_markers  # noqa: E402

# ----------------------------------------------------------------------------- events


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    if "besluitbron:" not in markdown:
        return None
    # Links are computed from the language-neutral path; i18n resolves them to this language's page.
    here = bridge.page_src(page.file)
    render = bridge.renderer(config)
    try:
        filled = fill_markers(markdown, here, render)
    except MarkerError as exc:
        raise PluginError(f"besluitbron: {exc}") from exc
    bridge.record(bridge.current_language(config)).slots[here] = render.take_slots()
    return filled
