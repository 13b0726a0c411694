"""Hook: put the raw-HTML slots (parameter tables, explorer entries) back into each converted page.

pages.py and markers.py render those parts beside the Markdown and leave a placeholder, so
Python-Markdown does not re-parse thousands of table cells (see site_hooks/site_render.py)."""

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
from site_hooks.site_render import MarkerError, fill_slots  # noqa: E402

# ----------------------------------------------------------------------------- events


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    slots = bridge.record(bridge.current_language(config)).slots.get(bridge.page_src(page.file))
    if not slots:
        return None
    try:
        return fill_slots(html, slots)
    except MarkerError as exc:
        raise PluginError(f"besluitbron: {bridge.page_src(page.file)}: {exc}") from exc
